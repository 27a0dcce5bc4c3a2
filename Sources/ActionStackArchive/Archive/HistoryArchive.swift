// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStackCore
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
/// An archive is a JSON object in UTF-8. Its keys come in a fixed order and its histories in name
/// order, so that encoding the same archive always gives the same bytes (version 2 of the format):
///
/// ```json
/// {"format":"ActionStack.History","version":2,"fingerprint":"rev-42","histories":{"board":{
/// "shape":"linear","root":0,"current":2,"clean":1,"commands":[["board.move",1,"F1E2"]],
/// "names":["Move"],"steps":[{"a":1,"n":0},1],"actions":[0,0],
/// "payloads":[{"x":10,"y":20},{"x":0,"y":5}]}}}
/// ```
///
/// - `format` is always `"ActionStack.History"`, and `version` the format's version
///   (``formatVersion``); `fingerprint` is the app's, and `histories` maps the app's names for its
///   histories to the histories.
/// - A history has its `shape` (`"linear"` or `"tree"`), its `root`, `current` and `clean`
///   node numbers (`clean` absent when there is no clean state; every node number of a history,
///   these and the steps' `node` and `parent`, is an integer from 0 to
///   ``SavedHistory/maximumNode``, 2^31 − 1, and a history with a larger one is refused as
///   ``HistoryArchiveError/invalidHistory(_:_:)``), and the root's date `rootDate`
///   (as a step's `d`, below; absent in a history that is not dated), and what the save left out
///   of the stack's history, `omitted` (``SavedHistory/omissions``): `[reason, steps]` entries,
///   with the name of the step that holds a closure as a third value for the reason `"closure"`
///   (absent when the save left nothing out; a reason this library does not know is read as it
///   is), the app's `remoteVersion` (``SavedHistory/remoteVersion``; absent: none), and `nextNode`,
///   the number a branching history's next change gets (``SavedHistory/nextNode``; absent in a
///   linear history and in archives written before it was saved: the next change is then numbered
///   after the highest node). Its steps, parents before
///   children, are three arrays that go together: `steps` says how many actions each step holds,
///   `actions` names the command table entry of each action, and `payloads` holds each action's
///   command as its `encode(to:)` wrote it (JSON, not a string), in the same order.
/// - Two tables hold what many steps repeat: `commands`, the `[type, version, target key]` of the
///   actions, and `names`, the action names. `costs` lists the actions whose cost is not 0, as
///   `[action index, cost]` pairs in order. Each is absent when empty.
/// - A step is its number of actions when everything else about it has its default value, and an
///   object otherwise: `a`, its number of actions, then, each absent at its default:
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
///
/// The tables, the defaults and the columns keep an archive close to the size of its commands
/// alone (a step of a two-number command adds 4 bytes to the command's 21), and let the commands
/// be written and read by `JSONEncoder` and `JSONDecoder` as one array per history, at about the
/// cost of a plain array of them. Keys this version does not know are ignored; an object that
/// repeats a key is refused (two JSON readers keep different ones).
///
/// Version 1, which earlier builds wrote, is still read: the same fields, but every step an object
/// whose actions `a` are `[command index, key index, payload]` arrays (and a cost when not 0), with
/// the types and versions in `commands` and the target keys in a `keys` table.
public struct HistoryArchive: Sendable {
    /// The value of the `"format"` key that marks a history archive.
    public static let formatName = "ActionStack.History"

    /// The version of the format that this library writes, and the newest it reads.
    public static let formatVersion = 2

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
        /// in proportion to what it reads: about 300 bytes per step and 150 per action (the saved
        /// values, and JSONDecoder's map of the payloads). The worst inputs are a file of empty
        /// steps (2 bytes each: about 150 times the input, some 300 MB at the default 1,000,000
        /// steps) and one of one-digit payloads (4 bytes an action: about 40 times, some 650 MB at
        /// the default 16 MiB); lower the limits to read files from sources you do not trust.
        public var maximumBytes: Int
        /// The deepest nesting of JSON objects and arrays, command payloads included: the archive's
        /// own structure takes 4 levels around a payload (a payload that is an object is at level 5)
        /// and 7 for a step's user info. `JSONDecoder` refuses more than 512 whatever this says.
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
            switch kind.name {
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
            if !history.isKnownValid {
                do {
                    try history.validate()
                } catch {
                    throw HistoryArchiveError.invalidHistory(name, error)
                }
            }
            try limits.check(history.steps.count, .steps)
            for index in history.steps.indices {
                try limits.check(history.steps[index].actionList.count, .actionsPerStep)
                try limits.check(history.steps[index].userInfo.count, .userInfoEntries)
            }
        }
        // The writer checks the strings as it puts them in the tables (each distinct one once).
        let (data, depth) = try ArchiveWriter.write(self, limits: limits)
        try limits.check(data.count, .bytes)
        try limits.check(depth, .nestingDepth)
        return data
    }

    /// The histories, when the archive belongs to the document whose fingerprint is `fingerprint`:
    /// the check to make before restoring any of them, so that a history never meets a document it
    /// was not saved with. Fingerprints are compared byte for byte (UTF-8), not as Swift strings,
    /// which would take canonically equivalent ones ("é" and "e\u{301}") for one.
    ///
    /// ```swift
    /// let archive = HistoryArchive(fingerprint: documentFingerprint)
    /// // At the next launch, with the fingerprint of the document as the app found it:
    /// let histories = try archive.histories(forFingerprint: openedFingerprint)
    /// if let history = histories["text"] {
    ///     try stack.restoreHistory(history) { _ in document }
    /// }
    /// ```
    ///
    /// - Parameter fingerprint: The fingerprint of the document as the app opened it.
    /// - Returns: ``histories``.
    /// - Throws: ``HistoryArchiveError/fingerprintMismatch(expected:found:)`` when the archive's
    ///   fingerprint is another; the app then restores nothing.
    /// - Complexity: O(f) for a fingerprint of f bytes.
    public func histories(forFingerprint fingerprint: String) throws(HistoryArchiveError) -> [String: SavedHistory] {
        guard self.fingerprint.utf8.elementsEqual(fingerprint.utf8) else {
            throw .fingerprintMismatch(expected: fingerprint, found: self.fingerprint)
        }
        return histories
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
        self = try ArchiveReader.read(data, registry: registry, limits: limits)
    }
}
