// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// Several saved histories under the fingerprint of the document they belong to, and the file
/// format that holds them.
///
/// An app saves the histories of a document (the board's, each figure's) into one archive, with a
/// fingerprint of the document as it saved it (a hash of the file, a revision number); when it
/// opens the document again, it restores the histories only if the fingerprint still matches:
///
/// ```swift
/// import ActionStack
/// import Foundation
///
/// final class Counter {
///     var value = 0
/// }
///
/// struct SetValue: UndoCommand {
///     static let commandType = "counter.set"
///     var value: Int
///
///     func perform(on counter: Counter, in stack: ActionStack) {
///         stack.registerUndo(SetValue(value: counter.value), on: counter, key: "counter")
///         counter.value = value
///     }
/// }
///
/// let step = SavedStep(
///     node: 1, parent: 0, isRedoChoice: true, date: nil, actionName: "Set Value",
///     isDiscardable: false, userInfo: [:], actions: [SavedAction(SetValue(value: 0), key: "counter")])
/// let history = SavedHistory(shape: .linear, root: 0, current: 1, clean: nil, steps: [step])
/// let data = try HistoryArchive(fingerprint: "rev-42", histories: ["board": history]).encoded()
///
/// var registry = CommandRegistry()
/// registry.register(SetValue.self)
/// let archive = try HistoryArchive(decoding: data, registry: registry)
/// print(archive.fingerprint)  // rev-42
/// print(archive.histories["board"]?.steps.count ?? 0)  // 1
/// ```
///
/// ## The format
///
/// An archive is a JSON object (UTF-8, keys sorted, so that encoding the same archive always gives
/// the same bytes):
///
/// ```json
/// {"fingerprint":"rev-42","format":"ActionStack.History","histories":{"board":{"clean":1,
/// "commands":[["board.move",1]],"current":2,"keys":["F1E2"],"names":["Move"],"root":0,
/// "shape":"linear","steps":[{"a":[[0,0,{"x":10,"y":20}]],"n":0},{"a":[[0,0,{"x":0,"y":5}]]}]}},
/// "version":1}
/// ```
///
/// - `format` is always `"ActionStack.History"`, and `version` the format's version
///   (``formatVersion``); `fingerprint` is the app's, and `histories` maps the app's names for its
///   histories to the histories.
/// - A history has its `shape` (`"linear"` or `"tree"`), its `root`, `current` and `clean` node
///   numbers (`clean` absent when there is no clean state), three tables that the steps refer to by
///   index, `commands` (`[type, version]` pairs), `keys` (target keys) and `names` (action names),
///   and its `steps`, parents before children.
/// - A step has its actions `a` and, each absent when it has its default value:
///   - `n`, the index of its action name (absent: the previous step's name; no name for the first);
///   - `node` (absent: the previous step's node plus 1; the root's plus 1 for the first);
///   - `parent` (absent: the previous step's node; the root for the first);
///   - `redo`, whether it is its parent's redo choice (absent: true when its parent is the
///     previous step's node, or the root for the first step; false otherwise);
///   - `d`, its date in seconds since 2001-01-01 00:00 UTC (`timeIntervalSinceReferenceDate`, a
///     double written so that it reads back to the same bits; absent: no date);
///   - `discardable` (absent: false);
///   - `userInfo`, whose values are one-key objects that say their kind: `{"string": "…"}`,
///     `{"int": 3}`, `{"double": 0.5}`, `{"bool": true}`, `{"date": 786000000.25}`,
///     `{"data": "<base64>"}` (absent: empty).
/// - An action is an array: the index of its command type and version, the index of its key, its
///   command's payload (what the command's `encode(to:)` writes, as JSON, not as a string), and its
///   cost when it is not 0.
///
/// The tables and the defaults keep a step of small commands close to the size of the commands
/// alone. Keys this version does not know are ignored; an object that repeats a key is refused (two
/// JSON readers keep different ones).
public struct HistoryArchive: Sendable {
    /// The value of the `"format"` key that marks a history archive.
    public static let formatName = "ActionStack.History"

    /// The version of the format that this library writes, and the newest it reads.
    public static let formatVersion = 1

    /// The app's fingerprint of the document the histories belong to.
    public var fingerprint: String

    /// The histories, by the app's names for them ("board", "figure.<uuid>").
    public var histories: [String: SavedHistory]

    /// An archive of `histories` for the document whose fingerprint is `fingerprint`.
    ///
    /// - Parameters:
    ///   - fingerprint: The app's fingerprint of the document.
    ///   - histories: The histories, by name.
    /// - Complexity: O(1).
    public init(fingerprint: String, histories: [String: SavedHistory] = [:]) {
        self.fingerprint = fingerprint
        self.histories = histories
    }

    /// The bounds that reading an archive holds it to, so that a hostile or damaged file cannot
    /// make the app allocate without bound, recurse deeply or hand a stack a history it cannot
    /// hold. ``HistoryArchive/encoded(limits:)`` holds what it writes to the same bounds.
    public struct Limits: Hashable, Sendable {
        /// The largest archive, in bytes (checked before anything is read). Reading takes memory
        /// in proportion: up to about 30 times the input for a file of empty steps, the worst
        /// case (JSONDecoder's map of the input, then the saved values).
        public var maximumBytes: Int
        /// The deepest nesting of JSON objects and arrays, command payloads included; the archive's
        /// own structure takes 7 levels around a payload. `JSONDecoder` refuses more than 512
        /// whatever this says.
        public var maximumNestingDepth: Int
        /// The most histories in an archive.
        public var maximumHistories: Int
        /// The most steps in one history.
        public var maximumSteps: Int
        /// The most actions in one step.
        public var maximumActionsPerStep: Int
        /// The most user-info entries in one step.
        public var maximumUserInfoEntries: Int
        /// The longest fingerprint, history name, command type, target key, action name or
        /// user-info key, in UTF-8 bytes. (Strings in command payloads and user-info values are
        /// bounded only by ``maximumBytes``.)
        public var maximumStringLength: Int

        /// Limits; each parameter defaults to the value of ``default``.
        ///
        /// - Parameters:
        ///   - maximumBytes: The largest archive in bytes (16 MiB).
        ///   - maximumNestingDepth: The deepest nesting (64).
        ///   - maximumHistories: The most histories (10,000).
        ///   - maximumSteps: The most steps in a history (1,000,000).
        ///   - maximumActionsPerStep: The most actions in a step (100,000).
        ///   - maximumUserInfoEntries: The most user-info entries in a step (1,000).
        ///   - maximumStringLength: The longest name, key, type or fingerprint (4,096 bytes).
        /// - Complexity: O(1).
        public init(
            maximumBytes: Int = 16 << 20, maximumNestingDepth: Int = 64, maximumHistories: Int = 10_000,
            maximumSteps: Int = 1_000_000, maximumActionsPerStep: Int = 100_000, maximumUserInfoEntries: Int = 1_000,
            maximumStringLength: Int = 4_096
        ) {
            self.maximumBytes = maximumBytes
            self.maximumNestingDepth = maximumNestingDepth
            self.maximumHistories = maximumHistories
            self.maximumSteps = maximumSteps
            self.maximumActionsPerStep = maximumActionsPerStep
            self.maximumUserInfoEntries = maximumUserInfoEntries
            self.maximumStringLength = maximumStringLength
        }

        /// The limits reading uses unless told otherwise: 16 MiB, 64 levels, 10,000 histories,
        /// 1,000,000 steps per history, 100,000 actions per step, 1,000 user-info entries per
        /// step, names and keys of up to 4,096 bytes.
        public static let `default` = Limits()

        /// The value of the limit of `kind`.
        ///
        /// - Parameter kind: A limit.
        /// - Complexity: O(1).
        public subscript(kind: Kind) -> Int {
            switch kind {
            case .bytes: maximumBytes
            case .nestingDepth: maximumNestingDepth
            case .histories: maximumHistories
            case .steps: maximumSteps
            case .actionsPerStep: maximumActionsPerStep
            case .userInfoEntries: maximumUserInfoEntries
            case .stringLength: maximumStringLength
            }
        }

        /// Throws ``HistoryArchiveError/tooLarge(_:maximum:)`` when `count` is over the limit of
        /// `kind`.
        func check(_ count: Int, _ kind: Kind) throws(HistoryArchiveError) {
            if count > self[kind] { throw .tooLarge(kind, maximum: self[kind]) }
        }

        /// Checks the length of a name, key, type or fingerprint.
        func check(_ string: String) throws(HistoryArchiveError) {
            try check(string.utf8.count, .stringLength)
        }
    }

    /// The archive as JSON, in the format described above: the same archive always gives the same
    /// bytes (a command whose encoding is itself stable: no `Set`, no unordered keys of its own),
    /// and reading them back and encoding again gives them again.
    ///
    /// What it writes is what ``init(decoding:registry:limits:)`` reads with the same limits: every
    /// history is checked (``SavedHistory/validate()``), and so are the limits.
    ///
    /// - Parameter limits: The limits the archive must hold to (those the reader will use).
    /// - Returns: The encoded archive.
    /// - Throws: ``HistoryArchiveError/invalidHistory(_:_:)`` for a history a stack could not take,
    ///   ``HistoryArchiveError/tooLarge(_:maximum:)`` for one over the limits, `EncodingError` for
    ///   an action without a command (one read back with a ``SavedActionProblem``: restoring drops
    ///   it, encoding cannot write it), for a date or user-info double that is not finite, and
    ///   whatever a command's `encode(to:)` throws.
    /// - Complexity: O(n + s log s) for n bytes written and the largest number s of keys in one
    ///   JSON object (the keys are sorted).
    public func encoded(limits: Limits = .default) throws -> Data {
        try limits.check(histories.count, .histories)
        try limits.check(fingerprint)
        // In name order, so that of two flawed histories the same one is reported every time.
        for name in histories.keys.sorted() {
            let history = histories[name]!
            try limits.check(name)
            do {
                try history.validate()
            } catch {
                throw HistoryArchiveError.invalidHistory(name, error)
            }
            try limits.check(history.steps.count, .steps)
            for step in history.steps {
                try limits.check(step.actions.count, .actionsPerStep)
                try limits.check(step.userInfo.count, .userInfoEntries)
                try limits.check(step.actionName)
                for key in step.userInfo.keys { try limits.check(key) }
                for action in step.actions {
                    try limits.check(action.key)
                    guard let command = action.command else { continue }
                    let commandType = type(of: command)
                    try limits.check(commandType.commandType)
                    if commandType.version < 1 {
                        throw HistoryArchiveError.invalidHistory(
                            name, .invalidCommandVersion(type: commandType.commandType, version: commandType.version))
                    }
                }
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(ArchiveWriter(archive: self))
        try limits.check(data.count, .bytes)
        do throws(JSONShapeCheck.Failure) {
            try JSONShapeCheck.check(data, maximumDepth: limits.maximumNestingDepth)
        } catch .tooDeep {
            throw HistoryArchiveError.tooLarge(.nestingDepth, maximum: limits.maximumNestingDepth)
        } catch {
            throw HistoryArchiveError.corrupt("the encoder wrote JSON this reader refuses: \(error)")
        }
        return data
    }

    /// Reads an archive, refusing the whole file unless it is well-formed: a history archive of a
    /// format version this library reads, within `limits`, every history one a stack can take
    /// (``SavedHistory/validate()``).
    ///
    /// A command is read with the type `registry` has for its name, and a command that cannot be
    /// read (an unknown type, a version newer than the registered one, a payload that does not
    /// decode) does not make the file fail: its ``SavedAction`` has no command and says why in its
    /// ``SavedAction/problem``, and a restore truncates the history there.
    ///
    /// Reading never crashes, whatever the input, and takes memory in proportion to it (see
    /// ``Limits/maximumBytes``): its size is checked first, then one pass over the bytes, without
    /// recursion, checks that it is JSON, nested no deeper than the limit, with no object that
    /// repeats a key, before `JSONDecoder` reads it; counts are checked as they are read, and
    /// every history is validated before it is returned.
    ///
    /// - Parameters:
    ///   - data: The archive.
    ///   - registry: The command types to read commands with.
    ///   - limits: The bounds the archive must hold to.
    /// - Throws: A ``HistoryArchiveError`` that says why the archive was refused.
    /// - Complexity: O(n + h log h + u log u) for n bytes, h histories and the largest number u of
    ///   user-info entries in a step, plus the commands' own decoding.
    public init(
        decoding data: Data, registry: CommandRegistry, limits: Limits = .default
    ) throws(HistoryArchiveError) {
        try limits.check(data.count, .bytes)
        do throws(JSONShapeCheck.Failure) {
            try JSONShapeCheck.check(data, maximumDepth: limits.maximumNestingDepth)
        } catch {
            switch error {
            case .notAnObject: throw .notAnArchive
            case .tooDeep: throw .tooLarge(.nestingDepth, maximum: limits.maximumNestingDepth)
            case .invalid(let reason): throw .corrupt(reason)
            }
        }
        let decoder = JSONDecoder()
        decoder.userInfo[ArchiveReader.contextKey] = ArchiveReader.Context(registry: registry, limits: limits)
        do {
            self = try decoder.decode(ArchiveReader.self, from: data).archive
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

// MARK: - Writing

/// Writes an archive through an `Encoder`.
private struct ArchiveWriter: Encodable {
    var archive: HistoryArchive

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: EnvelopeKey.self)
        try container.encode(HistoryArchive.formatName, forKey: .format)
        try container.encode(HistoryArchive.formatVersion, forKey: .version)
        try container.encode(archive.fingerprint, forKey: .fingerprint)
        var histories = container.nestedContainer(keyedBy: NameKey.self, forKey: .histories)
        for (name, history) in archive.histories {
            try Self.write(history, into: histories.nestedContainer(keyedBy: HistoryKey.self, forKey: NameKey(name)))
        }
    }

    /// A table of distinct values, numbered in the order they are first seen.
    private struct Table<Value: Hashable> {
        var values: [Value] = []
        var indices: [Value: Int] = [:]

        mutating func index(of value: Value) -> Int {
            if let index = indices[value] { return index }
            indices[value] = values.count
            values.append(value)
            return values.count - 1
        }
    }

    /// A command type at a version: an entry of a history's `commands` table.
    private struct CommandName: Hashable {
        var type: String
        var version: Int
    }

    private static func write(_ history: SavedHistory, into container: KeyedEncodingContainer<HistoryKey>) throws {
        var container = container
        try container.encode(history.shape == .tree ? "tree" : "linear", forKey: .shape)
        try container.encode(history.root, forKey: .root)
        try container.encode(history.current, forKey: .current)
        try container.encodeIfPresent(history.clean, forKey: .clean)
        var commands = Table<CommandName>()
        var keys = Table<String>()
        var names = Table<String>()
        var steps = container.nestedUnkeyedContainer(forKey: .steps)
        var previous = history.root
        var previousName = ""
        for (index, step) in history.steps.enumerated() {
            var fields = steps.nestedContainer(keyedBy: StepKey.self)
            var actions = fields.nestedUnkeyedContainer(forKey: .actions)
            for action in step.actions {
                guard let command = action.command else {
                    let why = action.problem.map { "\($0)" } ?? "no command"
                    throw EncodingError.invalidValue(
                        action,
                        EncodingError.Context(
                            codingPath: actions.codingPath,
                            debugDescription:
                                "step \(index) has an action that was not read back (\(why)): it cannot be written"
                        ))
                }
                let name = CommandName(type: type(of: command).commandType, version: type(of: command).version)
                var fields = actions.nestedUnkeyedContainer()
                try fields.encode(commands.index(of: name))
                try fields.encode(keys.index(of: action.key))
                try fields.encode(command)
                if action.cost != 0 { try fields.encode(action.cost) }
            }
            if step.actionName != previousName { try fields.encode(names.index(of: step.actionName), forKey: .name) }
            if step.node != previous &+ 1 { try fields.encode(step.node, forKey: .node) }
            if step.parent != previous { try fields.encode(step.parent, forKey: .parent) }
            if step.isRedoChoice != (step.parent == previous) { try fields.encode(step.isRedoChoice, forKey: .redo) }
            if let date = step.date { try fields.encode(date.timeIntervalSinceReferenceDate, forKey: .date) }
            if step.isDiscardable { try fields.encode(true, forKey: .discardable) }
            if !step.userInfo.isEmpty {
                var userInfo = fields.nestedContainer(keyedBy: NameKey.self, forKey: .userInfo)
                for (key, value) in step.userInfo {
                    var kind = userInfo.nestedContainer(keyedBy: ValueKey.self, forKey: NameKey(key))
                    switch value {
                    case .string(let value): try kind.encode(value, forKey: .string)
                    case .int(let value): try kind.encode(value, forKey: .int)
                    case .double(let value): try kind.encode(value, forKey: .double)
                    case .bool(let value): try kind.encode(value, forKey: .bool)
                    case .date(let value): try kind.encode(value.timeIntervalSinceReferenceDate, forKey: .date)
                    case .data(let value): try kind.encode(value.base64EncodedString(), forKey: .data)
                    }
                }
            }
            previous = step.node
            previousName = step.actionName
        }
        if !commands.values.isEmpty {
            var table = container.nestedUnkeyedContainer(forKey: .commands)
            for name in commands.values {
                var pair = table.nestedUnkeyedContainer()
                try pair.encode(name.type)
                try pair.encode(name.version)
            }
        }
        if !keys.values.isEmpty { try container.encode(keys.values, forKey: .keys) }
        if !names.values.isEmpty { try container.encode(names.values, forKey: .names) }
    }
}

// MARK: - Reading

/// Reads an archive through a `Decoder` whose user info holds a ``Context``.
private struct ArchiveReader: Decodable {
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
        guard version <= HistoryArchive.formatVersion else {
            throw HistoryArchiveError.newerFormatVersion(version, newestSupported: HistoryArchive.formatVersion)
        }
        guard version >= 1 else { throw HistoryArchiveError.corrupt("format version \(version)") }
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

    /// A coding path as text, for an error message: `histories.board.steps[3]`. (Only made for an
    /// error: a container's coding path is built on demand, at a cost.)
    private static func place(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += (path.isEmpty ? "" : ".") + HistoryArchiveError.shortened(key.stringValue, to: 40)
            }
        }
        return path
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
