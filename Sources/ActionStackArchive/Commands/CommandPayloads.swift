// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore
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
                        throw ArchiveWriter.unwritable(
                            steps[step].actionList[action], history: name, node: steps[step].node)
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
/// the entry of each action, and what the steps are made of (see ``StepAssembler``).
struct CommandPayloadPlan: Sendable {
    var resolutions: [CommandRegistry.Resolution]
    /// The command names of the entries, for the problems.
    var names: [String]
    /// For each action, the index of its entry.
    var entries: [Int]
    /// What the steps are made of, besides their commands.
    var steps: StepAssembler.Parts

    static let key = CodingUserInfoKey(rawValue: "ActionStack.CommandPayloadPlan")!
}

/// Reads the payload array with a ``CommandPayloadPlan`` from the decoder's user info: each
/// element with its entry's type, or skipped when the entry cannot be read, straight into its step.
struct CommandPayloadReader: Decodable {
    var steps: [SavedStep] = []

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
        var assembler = try StepAssembler(plan.steps)
        var position = 0
        while position < plan.entries.count {
            let entry = plan.entries[position]
            switch plan.resolutions[entry] {
            case .current(let type):
                // A run of actions of one entry in one generic call, which looks up the slot's
                // type once.
                var end = position + 1
                while end < plan.entries.count, plan.entries[end] == entry { end += 1 }
                try Self.decode(end - position, of: type, from: &container, into: &assembler)
                position = end
                continue
            case .migrate(let registered, let version):
                // Rare: a decoder of its own for the element (which the container passes).
                let element = try container.superDecoder()
                do {
                    try assembler.add(.command(try registered.decode(version, element)))
                } catch let error as HistoryArchiveError {
                    throw error
                } catch {
                    try assembler.add(
                        .problem(.decodingFailed(type: plan.names[entry], reason: CommandRegistry.reason(for: error))))
                }
            case .unreadable(let problem):
                _ = try container.decode(SkippedPayload.self)
                try assembler.add(.problem(problem))
            }
            position += 1
        }
        steps = try assembler.finish()
    }

    private static func decode<Command: SavableCommand>(
        _ count: Int, of _: Command.Type, from container: inout any UnkeyedDecodingContainer,
        into assembler: inout StepAssembler
    ) throws {
        let slot = PayloadSlot<Command>.self
        for _ in 0..<count { try assembler.add(try container.decode(slot).result) }
    }
}

/// Builds a history's saved steps from its columns while its commands are read, each command
/// going straight into its step.
struct StepAssembler {
    /// A step as the file gives it, before its actions are attached.
    struct Header: Sendable {
        var actionCount: Int
        var name: Int?
        var node: Int?
        var parent: Int?
        var isRedoChoice: Bool?
        var date: Double?
        var isDiscardable = false
        var userInfo: [String: SavedValue] = [:]
    }

    /// An entry of the command table as the actions take it.
    struct Entry: Sendable {
        var type: String
        /// The version the file gives.
        var version: Int
        /// The version of a command read back: the registered type's (a migration returns the
        /// command in its current version).
        var readVersion: Int
        var key: String
    }

    /// What the steps are made of, besides their commands.
    struct Parts: Sendable {
        var history: String
        var root: Int
        var headers: [Header]
        var names: [String]
        var entries: [Entry]
        /// The entry of each action.
        var actions: [Int]
        /// The actions whose cost is not 0, in order.
        var costs: [(action: Int, cost: Int)]
    }

    private let parts: Parts
    private var steps: [SavedStep] = []
    private var actions = SavedActionList()
    private var action = 0
    private var nextCost = 0
    private var previous: Int
    private var previousName = ""

    init(_ parts: Parts) throws(HistoryArchiveError) {
        self.parts = parts
        previous = parts.root
        steps.reserveCapacity(parts.headers.count)
        try finishEmptySteps()
    }

    /// Adds the next action's command (or its problem).
    mutating func add(_ decoded: consuming DecodedCommand) throws(HistoryArchiveError) {
        guard steps.count < parts.headers.count, action < parts.actions.count else {
            throw .corrupt(
                "history \"\(HistoryArchiveError.shortened(parts.history, to: 40))\": more payloads than actions")
        }
        let entry = parts.actions[action]
        var cost = 0
        if nextCost < parts.costs.count, parts.costs[nextCost].action == action {
            cost = parts.costs[nextCost].cost
            nextCost += 1
        }
        let made: SavedAction
        switch consume decoded {
        case .command(let command):
            made = SavedAction(
                command: command, commandType: parts.entries[entry].type, version: parts.entries[entry].readVersion,
                key: parts.entries[entry].key, cost: cost)
        case .problem(let problem):
            made = SavedAction(
                commandType: parts.entries[entry].type, version: parts.entries[entry].version,
                key: parts.entries[entry].key, cost: cost, problem: problem)
        }
        action += 1
        let wanted = parts.headers[steps.count].actionCount
        if actions.count == 0 && wanted == 1 {
            // The common step, of one action: its list made at once, with no list to empty after.
            try finishStep(SavedActionList(single: consume made))
            try finishEmptySteps()
            return
        }
        actions.append(consume made)
        if actions.count == wanted {
            let list = actions
            actions = SavedActionList()
            try finishStep(list)
            try finishEmptySteps()
        }
    }

    /// The steps, every one finished.
    mutating func finish() throws(HistoryArchiveError) -> [SavedStep] {
        guard steps.count == parts.headers.count else {
            throw .corrupt(
                "history \"\(HistoryArchiveError.shortened(parts.history, to: 40))\": fewer payloads than actions")
        }
        return steps
    }

    /// Finishes the steps from the next one on that hold no action.
    private mutating func finishEmptySteps() throws(HistoryArchiveError) {
        while steps.count < parts.headers.count, parts.headers[steps.count].actionCount == 0 {
            try finishStep(SavedActionList())
        }
    }

    /// Finishes the step being built with `list`, its actions, and its defaults.
    private mutating func finishStep(_ list: consuming SavedActionList) throws(HistoryArchiveError) {
        let index = steps.count
        let node = parts.headers[index].node ?? (previous &+ 1)
        let parent = parts.headers[index].parent ?? previous
        if let name = parts.headers[index].name {
            guard parts.names.indices.contains(name) else {
                throw .corrupt(
                    "history \"\(HistoryArchiveError.shortened(parts.history, to: 40))\": name index \(name) out of range"
                )
            }
            previousName = parts.names[name]
        }
        steps.append(
            SavedStep(
                node: node, parent: parent, isRedoChoice: parts.headers[index].isRedoChoice ?? (parent == previous),
                date: parts.headers[index].date.map(Date.init(timeIntervalSinceReferenceDate:)),
                actionName: previousName, isDiscardable: parts.headers[index].isDiscardable,
                userInfo: parts.headers[index].userInfo, actionList: list))
        previous = node
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

/// What reading a flat payload array needs (a journal record's): how each entry of the command
/// table is read, and the entry of each action.
struct CommandPayloadFlatPlan: Sendable {
    var resolutions: [CommandRegistry.Resolution]
    /// The command names of the entries, for the problems.
    var names: [String]
    /// For each action, the index of its entry.
    var entries: [Int]

    static let key = CodingUserInfoKey(rawValue: "ActionStack.CommandPayloadFlatPlan")!
}

/// Reads a payload array with a ``CommandPayloadFlatPlan`` from the decoder's user info: each
/// element with its entry's type, or skipped when the entry cannot be read.
struct CommandPayloadFlatReader: Decodable {
    var commands: [DecodedCommand] = []

    init(from decoder: any Decoder) throws {
        guard let plan = decoder.userInfo[CommandPayloadFlatPlan.key] as? CommandPayloadFlatPlan else {
            throw HistoryArchiveError.corrupt("payloads read without a plan")
        }
        var container = try decoder.unkeyedContainer()
        if let count = container.count, count != plan.entries.count {
            throw CommandPayloadReader.CountMismatch(payloads: count, actions: plan.entries.count)
        }
        commands.reserveCapacity(plan.entries.count)
        for entry in plan.entries {
            guard !container.isAtEnd else {
                throw CommandPayloadReader.CountMismatch(payloads: commands.count, actions: plan.entries.count)
            }
            switch plan.resolutions[entry] {
            case .current(let type):
                commands.append(try Self.decode(type, from: &container))
            case .migrate(let registered, let version):
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
        }
        guard container.isAtEnd else {
            throw CommandPayloadReader.CountMismatch(payloads: plan.entries.count + 1, actions: plan.entries.count)
        }
    }

    private static func decode<Command: SavableCommand>(
        _: Command.Type, from container: inout any UnkeyedDecodingContainer
    ) throws -> DecodedCommand {
        try container.decode(PayloadSlot<Command>.self).result
    }
}
