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

// The reader of version 1 of the archive format, which builds of ActionStack before version 2
// wrote: `JSONDecoder` reads the whole file through `Decoder` containers, after `JSONCursor` has
// checked its bytes. Version 1 is read, never written. Its layout: the envelope's keys `format`,
// `version`, `fingerprint` and `histories`; a history has `shape`, `root`, `current`, `clean`, the
// tables `commands` (`[type, version]` pairs), `keys` and `names`, and `steps`; a step has its
// actions `a` (each `[command index, key index, payload]`, then its cost when not 0), and, each
// absent at its default, `n`, `node`, `parent`, `redo`, `d`, `discardable` and `userInfo`, with the
// defaults of version 2.

extension HistoryArchive {
    /// Reads a version 1 archive whose bytes `JSONCursor` has checked.
    static func readVersion1(
        _ data: Data, registry: CommandRegistry, limits: Limits
    ) throws(HistoryArchiveError) -> HistoryArchive {
        let decoder = JSONDecoder()
        decoder.userInfo[Version1Reader.contextKey] = Version1Reader.Context(registry: registry, limits: limits)
        do {
            return try decoder.decode(Version1Reader.self, from: data).archive
        } catch let error as HistoryArchiveError {
            throw error
        } catch {
            throw .corrupt(CommandRegistry.reason(for: error))
        }
    }
}

// MARK: - Coding keys

/// The keys of the envelope.
private enum EnvelopeKey: String, CodingKey {
    case fingerprint
    case format
    case histories
    case version
}

/// The keys of a history.
private enum HistoryKey: String, CodingKey {
    case clean
    case commands
    case current
    case keys
    case names
    case root
    case shape
    case steps
}

/// The keys of a step.
private enum StepKey: String, CodingKey {
    case actions = "a"
    case date = "d"
    case discardable
    case name = "n"
    case node
    case parent
    case redo
    case userInfo
}

/// The keys that say a user-info value's kind.
private enum ValueKey: String, CodingKey {
    case bool
    case data
    case date
    case double
    case int
    case string
}

/// A key chosen by the app: a history's name, a user-info key.
private struct NameKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

// MARK: - Reading

/// Reads an archive through a `Decoder` whose user info holds a ``Context``.
private struct Version1Reader: Decodable {
    /// The registry and limits reading uses.
    struct Context: Sendable {
        var registry: CommandRegistry
        var limits: HistoryArchive.Limits
    }

    static let contextKey = CodingUserInfoKey(rawValue: "ActionStack.HistoryArchive.context")!

    var archive: HistoryArchive

    init(from decoder: any Decoder) throws {
        guard let context = decoder.userInfo[Self.contextKey] as? Context else {
            throw HistoryArchiveError.corrupt("read without a registry")
        }
        let limits = context.limits
        let container = try decoder.container(keyedBy: EnvelopeKey.self)
        guard (try? container.decode(String.self, forKey: .format)) == HistoryArchive.formatName else {
            throw HistoryArchiveError.notAnArchive
        }
        let version = try Self.located("version") { try container.decode(Int.self, forKey: .version) }
        // The caller read the version first and sends only version 1 here.
        guard version == 1 else { throw HistoryArchiveError.corrupt("format version \(version)") }
        let fingerprint = try container.decode(String.self, forKey: .fingerprint)
        try limits.check(fingerprint)
        let histories = try container.nestedContainer(keyedBy: NameKey.self, forKey: .histories)
        try limits.check(histories.allKeys.count, .histories)
        var archive = HistoryArchive(fingerprint: fingerprint)
        archive.histories.reserveCapacity(histories.allKeys.count)
        // In name order, so that of two flawed histories the same one is reported every time.
        for key in histories.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            try limits.check(key.stringValue)
            do {
                let history = try Self.readHistory(
                    histories.nestedContainer(keyedBy: HistoryKey.self, forKey: key), context: context)
                try history.validate()
                archive.histories[key.stringValue] = history
            } catch let problem as SavedHistory.StructuralProblem {
                throw HistoryArchiveError.invalidHistory(key.stringValue, problem)
            }
        }
        self.archive = archive
    }

    /// A coding path as text, for an error message. (Only made for an error: a container's coding
    /// path is built on demand, at a cost.)
    private static func place(_ codingPath: [any CodingKey]) -> String {
        CommandRegistry.text(of: codingPath)
    }

    /// Runs `body`, naming `place` in the error of a number that does not fit its type: JSONDecoder
    /// throws its own error type for one, which its caller turns into "not valid JSON" with no path.
    private static func located<T>(_ place: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DecodingError {
            throw error
        } catch let error as HistoryArchiveError {
            throw error
        } catch let error as SavedHistory.StructuralProblem {
            throw error
        } catch {
            throw HistoryArchiveError.corrupt("\(place()): \(HistoryArchiveError.shortened(String(describing: error)))")
        }
    }

    /// The tables a history's steps refer to by index.
    private struct Tables {
        var commands: [(type: String, version: Int)] = []
        var keys: [String] = []
        var names: [String] = []
    }

    private static func readHistory(
        _ container: KeyedDecodingContainer<HistoryKey>, context: Context
    ) throws -> SavedHistory {
        let limits = context.limits
        let shape: ActionStack.HistoryShape
        switch try container.decode(String.self, forKey: .shape) {
        case "linear": shape = .linear
        case "tree": shape = .tree
        case let other:
            throw HistoryArchiveError.corrupt(
                "\(place(container.codingPath)): unknown shape \"\(HistoryArchiveError.shortened(other, to: 40))\"")
        }
        let (root, current, clean) = try located(place(container.codingPath)) {
            (
                try container.decode(Int.self, forKey: .root), try container.decode(Int.self, forKey: .current),
                try container.decodeIfPresent(Int.self, forKey: .clean)
            )
        }
        var tables = Tables()
        if container.contains(.commands) {
            var table = try container.nestedUnkeyedContainer(forKey: .commands)
            while !table.isAtEnd {
                var pair = try table.nestedUnkeyedContainer()
                let type = try pair.decode(String.self)
                let version = try located(place(pair.codingPath)) { try pair.decode(Int.self) }
                guard pair.isAtEnd else {
                    throw HistoryArchiveError.corrupt("\(place(pair.codingPath)): more than a type and a version")
                }
                try limits.check(type)
                guard version >= 1 else {
                    // Named as the history's flaw once the caller knows the history's name.
                    throw SavedHistory.StructuralProblem.invalidCommandVersion(type: type, version: version)
                }
                tables.commands.append((type, version))
            }
        }
        tables.keys = try readStrings(container, .keys, limits: limits)
        tables.names = try readStrings(container, .names, limits: limits)

        var steps: [SavedStep] = []
        var list = try container.nestedUnkeyedContainer(forKey: .steps)
        try limits.check(list.count ?? 0, .steps)
        steps.reserveCapacity(list.count ?? 0)
        var previous: (node: Int, name: String) = (root, "")
        while !list.isAtEnd {
            let fields = try list.nestedContainer(keyedBy: StepKey.self)
            let step = try located(place(fields.codingPath)) {
                try readStep(fields, after: previous, tables: tables, context: context)
            }
            steps.append(step)
            previous = (step.node, step.actionName)
        }
        return SavedHistory(shape: shape, root: root, current: current, clean: clean, steps: steps)
    }

    private static func readStep(
        _ fields: KeyedDecodingContainer<StepKey>, after previous: (node: Int, name: String),
        tables: Tables, context: Context
    ) throws -> SavedStep {
        let limits = context.limits
        let node = try fields.decodeIfPresent(Int.self, forKey: .node) ?? (previous.node &+ 1)
        let parent = try fields.decodeIfPresent(Int.self, forKey: .parent) ?? previous.node
        let isRedoChoice = try fields.decodeIfPresent(Bool.self, forKey: .redo) ?? (parent == previous.node)
        let date = try fields.decodeIfPresent(Double.self, forKey: .date).map(
            Date.init(timeIntervalSinceReferenceDate:))
        var actionName = previous.name
        if let index = try fields.decodeIfPresent(Int.self, forKey: .name) {
            guard tables.names.indices.contains(index) else {
                throw HistoryArchiveError.corrupt("\(place(fields.codingPath)): name index \(index) out of range")
            }
            actionName = tables.names[index]
        }
        let isDiscardable = try fields.decodeIfPresent(Bool.self, forKey: .discardable) ?? false
        let userInfo = try fields.contains(.userInfo) ? readUserInfo(fields, limits: limits) : [:]

        var actions: [SavedAction] = []
        var actionList = try fields.nestedUnkeyedContainer(forKey: .actions)
        try limits.check(actionList.count ?? 0, .actionsPerStep)
        actions.reserveCapacity(actionList.count ?? 0)
        while !actionList.isAtEnd {
            var action = try actionList.nestedUnkeyedContainer()
            guard action.count == 3 || action.count == 4 else {
                throw HistoryArchiveError.corrupt("\(place(action.codingPath)): an action has 3 or 4 elements")
            }
            let commandIndex = try action.decode(Int.self)
            let keyIndex = try action.decode(Int.self)
            guard tables.commands.indices.contains(commandIndex) else {
                throw HistoryArchiveError.corrupt(
                    "\(place(action.codingPath)): command index \(commandIndex) out of range")
            }
            guard tables.keys.indices.contains(keyIndex) else {
                throw HistoryArchiveError.corrupt("\(place(action.codingPath)): key index \(keyIndex) out of range")
            }
            let payload = try action.superDecoder()
            let cost = action.isAtEnd ? 0 : try action.decode(Int.self)
            let (type, version) = tables.commands[commandIndex]
            actions.append(
                context.registry.action(
                    commandType: type, version: version, key: tables.keys[keyIndex], cost: cost, payload: { payload }))
        }
        return SavedStep(
            node: node, parent: parent, isRedoChoice: isRedoChoice, date: date, actionName: actionName,
            isDiscardable: isDiscardable, userInfo: userInfo, actions: actions)
    }

    /// A table of strings (absent: empty), each within the length limit.
    private static func readStrings(
        _ container: KeyedDecodingContainer<HistoryKey>, _ key: HistoryKey, limits: HistoryArchive.Limits
    ) throws -> [String] {
        guard container.contains(key) else { return [] }
        var list = try container.nestedUnkeyedContainer(forKey: key)
        var strings: [String] = []
        strings.reserveCapacity(list.count ?? 0)
        while !list.isAtEnd {
            let string = try list.decode(String.self)
            try limits.check(string)
            strings.append(string)
        }
        return strings
    }

    private static func readUserInfo(
        _ fields: KeyedDecodingContainer<StepKey>, limits: HistoryArchive.Limits
    ) throws -> [String: SavedValue] {
        let entries = try fields.nestedContainer(keyedBy: NameKey.self, forKey: .userInfo)
        try limits.check(entries.allKeys.count, .userInfoEntries)
        var userInfo: [String: SavedValue] = [:]
        userInfo.reserveCapacity(entries.allKeys.count)
        for key in entries.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            try limits.check(key.stringValue)
            let value = try entries.nestedContainer(keyedBy: ValueKey.self, forKey: key)
            guard value.allKeys.count == 1, let kind = value.allKeys.first else {
                throw HistoryArchiveError.corrupt(
                    "user-info value \"\(HistoryArchiveError.shortened(key.stringValue, to: 40))\" has no single kind")
            }
            switch kind {
            case .string: userInfo[key.stringValue] = .string(try value.decode(String.self, forKey: kind))
            case .int: userInfo[key.stringValue] = .int(try value.decode(Int.self, forKey: kind))
            case .double: userInfo[key.stringValue] = .double(try value.decode(Double.self, forKey: kind))
            case .bool: userInfo[key.stringValue] = .bool(try value.decode(Bool.self, forKey: kind))
            case .date:
                userInfo[key.stringValue] = .date(
                    Date(timeIntervalSinceReferenceDate: try value.decode(Double.self, forKey: kind)))
            case .data:
                guard let data = Data(base64Encoded: try value.decode(String.self, forKey: kind)) else {
                    throw HistoryArchiveError.corrupt(
                        "user-info value \"\(HistoryArchiveError.shortened(key.stringValue, to: 40))\" is not base64")
                }
                userInfo[key.stringValue] = .data(data)
            }
        }
        return userInfo
    }
}
