// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

// The commands of a history go through `JSONEncoder` and `JSONDecoder` as one array, in one call
// each: what a command's `encode(to:)` writes is exactly what it writes in any other JSON array,
// and the cost per command is that of a plain array of commands (the floor the benchmarks measure).

/// The commands of a history's actions, in order, written as one JSON array.
struct CommandPayloadList: Encodable {
    let history: SavedHistory
    /// The history's name, for the error of an action without its command.
    let name: String

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        // Through the array's subscript, which lends each step where it lies.
        let steps = history.steps
        do {
            for step in steps.indices {
                for action in 0..<steps[step].actionList.count {
                    guard
                        let command =
                            (action == 0
                                ? steps[step].actionList.first.command
                                : steps[step].actionList.rest[action - 1].command)
                    else {
                        let why = steps[step].actionList[action].problem.map { "\($0)" } ?? "no command"
                        throw EncodingError.invalidValue(
                            steps[step].actionList[action],
                            EncodingError.Context(
                                codingPath: [],
                                debugDescription:
                                    "history \"\(HistoryArchiveError.shortened(name, to: 40))\", node "
                                    + "\(steps[step].node): an action that was not read back (\(why)) cannot be "
                                    + "written"))
                    }
                    try container.encode(command)
                }
            }
        }
    }

    /// The encoder of command payloads: sorted keys, so that a command holding a dictionary is
    /// written the same way every time; slashes not escaped.
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// A command read back, or why it was not.
enum DecodedCommand {
    case command(any SavableCommand)
    case problem(SavedActionProblem)
}

/// What reading the payload array needs: how each entry of the history's command table is read,
/// and the entry of each action.
struct CommandPayloadPlan: Sendable {
    var resolutions: [CommandRegistry.Resolution]
    /// The command names of the entries, for the problems.
    var names: [String]
    /// For each action, the index of its entry.
    var entries: [Int]

    static let key = CodingUserInfoKey(rawValue: "ActionStack.CommandPayloadPlan")!
}

/// Reads the payload array with a ``CommandPayloadPlan`` from the decoder's user info: each
/// element with its entry's type, or skipped when the entry cannot be read.
struct CommandPayloadReader: Decodable {
    var commands: [DecodedCommand] = []

    /// The array does not hold one payload per action.
    struct CountMismatch: Error, CustomStringConvertible {
        var payloads: Int
        var actions: Int

        var description: String { "\"payloads\" has \(payloads) elements for \(actions) actions" }
    }

    init(from decoder: any Decoder) throws {
        guard let plan = decoder.userInfo[CommandPayloadPlan.key] as? CommandPayloadPlan else {
            throw HistoryArchiveError.corrupt("payloads read without a plan")
        }
        var container = try decoder.unkeyedContainer()
        if let count = container.count, count != plan.entries.count {
            throw CountMismatch(payloads: count, actions: plan.entries.count)
        }
        commands.reserveCapacity(plan.entries.count)
        var position = 0
        while position < plan.entries.count {
            let entry = plan.entries[position]
            switch plan.resolutions[entry] {
            case .current(let type):
                // A run of actions of one entry in one generic call, which looks up the slot's
                // type once.
                var end = position + 1
                while end < plan.entries.count, plan.entries[end] == entry { end += 1 }
                try Self.decode(end - position, of: type, from: &container, into: &commands)
                position = end
                continue
            case .migrate(let registered, let version):
                // Rare: a decoder of its own for the element (which the container passes).
                let element = try container.superDecoder()
                do {
                    commands.append(.command(try registered.decode(version, element)))
                } catch {
                    commands.append(
                        .problem(.decodingFailed(type: plan.names[entry], reason: CommandRegistry.reason(for: error))))
                }
            case .unreadable(let problem):
                _ = try container.decode(SkippedPayload.self)
                commands.append(.problem(problem))
            }
            position += 1
        }
    }

    private static func decode<Command: SavableCommand>(
        _ count: Int, of _: Command.Type, from container: inout any UnkeyedDecodingContainer,
        into commands: inout [DecodedCommand]
    ) throws {
        let slot = PayloadSlot<Command>.self
        for _ in 0..<count { commands.append(try container.decode(slot).result) }
    }
}

/// One element read as `Command`. Its initializer never throws, so that the container moves past
/// an element that did not decode: the failure is the action's problem, not the archive's.
private struct PayloadSlot<Command: SavableCommand>: Decodable {
    var result: DecodedCommand

    init(from decoder: any Decoder) {
        do {
            result = .command(try Command(from: decoder))
        } catch {
            result = .problem(.decodingFailed(type: Command.commandType, reason: CommandRegistry.reason(for: error)))
        }
    }
}

/// An element passed over.
private struct SkippedPayload: Decodable {
    init(from decoder: any Decoder) {}
}
