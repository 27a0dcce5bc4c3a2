// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStackCore

/// The command types an app can read back from a saved history, by their
/// ``SavableCommand/commandType``, with the migrations from their older versions.
///
/// Here version 2 of a command stores a size where version 1 stored `w` and `h`, and a file saved
/// by last year's app still reads:
///
/// ```swift
/// import ActionStack
/// import Foundation
///
/// final class Figure {
///     var width = 0.0
///     var height = 0.0
/// }
///
/// struct Resize: UndoCommand {
///     static let commandType = "board.resize"
///     static let version = 2
///     struct Size: Codable {
///         var width: Double
///         var height: Double
///     }
///     var size: Size
///
///     func perform(on figure: Figure, in stack: ActionStack) {
///         let old = Size(width: figure.width, height: figure.height)
///         stack.registerUndo(Resize(size: old), on: figure, key: "figure")
///         figure.width = size.width
///         figure.height = size.height
///     }
/// }
///
/// /// How version 1 stored a resize.
/// struct ResizeVersion1: Decodable {
///     var w: Double
///     var h: Double
/// }
///
/// var registry = CommandRegistry()
/// registry.register(Resize.self) { fromVersion, decoder in
///     let old = try ResizeVersion1(from: decoder)
///     return Resize(size: Resize.Size(width: old.w, height: old.h))
/// }
///
/// let lastYear = #"""
///     {"fingerprint":"r1","format":"ActionStack.History","histories":{"board":{
///     "commands":[["board.resize",1]],"current":1,"keys":["figure"],"root":0,"shape":"linear",
///     "steps":[{"a":[[0,0,{"w":3,"h":4}]]}]}},"version":1}
///     """#
/// let archive = try HistoryArchive(decoding: Data(lastYear.utf8), registry: registry)
/// let action = archive.histories["board"]!.steps[0].actions[0]
/// print((action.command as! Resize).size.width)  // 3.0
/// print(action.version)  // 2
/// ```
///
/// A saved action is read back with the registered type of its name:
/// - at the type's ``SavableCommand/version``, with the type's `init(from:)`;
/// - at an older version, with the migration given to ``register(_:migrating:)``, which decodes
///   the old form and returns the current one (without a migration, the action does not decode);
/// - at a newer version, or under a name no type is registered for, not at all: the action keeps
///   a ``SavedActionProblem`` (``SavedActionProblem/newerVersion(type:version:known:)`` or
///   ``SavedActionProblem/unknownType(_:)``) and the restore truncates the history there.
public struct CommandRegistry: Sendable {
    /// How one registered type reads its payload at a given version.
    struct Entry: Sendable {
        /// The registered type.
        var type: any SavableCommand.Type
        /// The registered type's current version.
        var version: Int
        /// Decodes a payload written at the version given (at most ``version``).
        var decode: @Sendable (_ version: Int, _ decoder: any Decoder) throws -> any SavableCommand
    }

    /// How an action saved under a type name at a version is read back.
    enum Resolution: Sendable {
        /// With the registered type's `init(from:)`: the file's version is the type's.
        case current(any SavableCommand.Type)
        /// With the entry's migration from an older version.
        case migrate(Entry, fromVersion: Int)
        /// Not at all.
        case unreadable(SavedActionProblem)
    }

    /// How an action saved as `commandType` at `version` is read back.
    ///
    /// - Complexity: O(1).
    func resolve(_ commandType: String, version: Int) -> Resolution {
        guard let entry = entries[commandType] else { return .unreadable(.unknownType(commandType)) }
        guard version <= entry.version else {
            return .unreadable(.newerVersion(type: commandType, version: version, known: entry.version))
        }
        return version == entry.version ? .current(entry.type) : .migrate(entry, fromVersion: version)
    }

    /// The registered types by command type.
    private var entries: [String: Entry] = [:]

    /// An empty registry: every saved action is of an unknown type.
    ///
    /// - Complexity: O(1).
    public init() {}

    /// Registers `type` under its ``SavableCommand/commandType``, to read actions saved at its
    /// current ``SavableCommand/version``. A type registered earlier under the same name is replaced.
    ///
    /// - Parameter type: The command type.
    /// - Complexity: O(1) amortized.
    public mutating func register<Command: SavableCommand>(_ type: Command.Type) {
        entries[Command.commandType] = Entry(type: Command.self, version: Command.version) { version, decoder in
            guard version == Command.version else { throw MissingMigration(from: version, to: Command.version) }
            return try Command(from: decoder)
        }
    }

    /// Registers `type` under its ``SavableCommand/commandType``, to read actions saved at its
    /// current ``SavableCommand/version`` with its `init(from:)`, and actions saved at an older
    /// version with `migrating`. A type registered earlier under the same name is replaced.
    ///
    /// An error that `migrating` throws makes the action's problem
    /// ``SavedActionProblem/decodingFailed(type:reason:)``, as a failed `init(from:)` does.
    ///
    /// - Parameters:
    ///   - type: The command type.
    ///   - migrating: Reads a payload saved at `fromVersion` (from 1 up to, not including, the
    ///     type's version) from `decoder`, and returns the command in its current form.
    /// - Complexity: O(1) amortized.
    public mutating func register<Command: SavableCommand>(
        _ type: Command.Type,
        migrating: @escaping @Sendable (_ fromVersion: Int, _ decoder: any Decoder) throws -> Command
    ) {
        entries[Command.commandType] = Entry(type: Command.self, version: Command.version) { version, decoder in
            version == Command.version ? try Command(from: decoder) : try migrating(version, decoder)
        }
    }

    /// The version of the type registered under `commandType`, or nil when none is.
    ///
    /// - Parameter commandType: A command type name.
    /// - Returns: The registered type's ``SavableCommand/version``.
    /// - Complexity: O(1).
    public func registeredVersion(of commandType: String) -> Int? {
        entries[commandType]?.version
    }

    /// Reads one saved action: its command, or why it cannot be read. Never throws: an error of
    /// the command's decoding or migration becomes the problem.
    ///
    /// - Parameters:
    ///   - commandType: The type name the file gives.
    ///   - version: The version the file gives (1 or more).
    ///   - key: The target's key.
    ///   - cost: The action's cost.
    ///   - payload: A decoder for the command's encoded form.
    /// - Returns: The action, with its command or its problem.
    /// - Complexity: That of the command's decoding or migration.
    func action(
        commandType: String, version: Int, key: String, cost: Int, payload: () throws -> any Decoder
    ) -> SavedAction {
        func failed(_ problem: SavedActionProblem) -> SavedAction {
            SavedAction(commandType: commandType, version: version, key: key, cost: cost, problem: problem)
        }
        guard let entry = entries[commandType] else { return failed(.unknownType(commandType)) }
        guard version <= entry.version else {
            return failed(.newerVersion(type: commandType, version: version, known: entry.version))
        }
        do {
            let command = try entry.decode(version, try payload())
            var action = SavedAction(erasing: command, key: key, cost: cost)
            // A migration returns the command in its current version: the action is that version.
            action.version = entry.version
            return action
        } catch {
            return failed(.decodingFailed(type: commandType, reason: Self.reason(for: error)))
        }
    }

    /// A short reason for a decoding error: what the decoder says, and where.
    ///
    /// - Complexity: O(p + m) for a coding path of p keys and a message of m characters.
    static func reason(for error: any Error) -> String {
        let reason: String
        switch error {
        case DecodingError.typeMismatch(let type, let context):
            reason = "\(path(context.codingPath))expected \(type): \(context.debugDescription)"
        case DecodingError.valueNotFound(let type, let context):
            reason = "\(path(context.codingPath))no value of type \(type): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            reason = "\(path(context.codingPath))missing key \"\(key.stringValue)\""
        case DecodingError.dataCorrupted(let context)
        where context.codingPath.isEmpty && context.debugDescription == "The given data was not valid JSON.":
            // What JSONDecoder says of a number that does not fit the type asked for (the archive's
            // bytes were checked to be valid JSON before it read them).
            reason = "a number out of range, or not whole where it must be"
        case DecodingError.dataCorrupted(let context):
            reason = "\(path(context.codingPath))\(context.debugDescription)"
        default:
            reason = String(describing: error)
        }
        return HistoryArchiveError.shortened(reason, to: 200)
    }

    /// A coding path as "a.b[2]: ", or nothing for an empty path.
    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "" : text(of: codingPath) + ": "
    }

    /// A coding path as text, for an error message: `histories.board.steps[3]` (keys cut to 40
    /// characters).
    ///
    /// - Complexity: O(p) for p keys.
    static func text(of codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + HistoryArchiveError.shortened(key.stringValue, to: 40)
            }
        }
        return text
    }
}

/// A payload saved at an older version of a type registered without a migration.
struct MissingMigration: Error, CustomStringConvertible {
    var from: Int
    var to: Int

    var description: String {
        "version \(from) is older than the registered \(to), and no migration is registered"
    }
}

extension SavedAction {
    /// An action holding `command`, whatever its type.
    ///
    /// - Complexity: O(1).
    init(erasing command: any SavableCommand, key: String, cost: Int) {
        self.init(command, key: key, cost: cost)
    }
}
