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

// The payload of a `HistoryRecorder`'s journal records: a snapshot (every step of every history the
// recorder watches) or a delta (what changed since the record before it), as JSON.
//
// A history is held as the stack holds it, in chains of steps: the undo stack (oldest first), the
// redo stack (the step to redo next last) and, in a branching history, each branch (its deepest
// step first), numbered by the recorder. A record says what changed with operations on the chains,
// whose steps come from the record's step table, in order:
//
//     {"format":"ActionStack.Journal","version":1,"kind":"delta","chain":"5f0c9d2e8a6b4713","index":42,
//      "histories":{"history":{"current":43,
//        "ops":[["u",0,41,0,1]],
//        "steps":[{"a":1,"l":42,"h":43,"n":0}],"names":["Typing"],
//        "commands":[["notes.setText",1,"note-1"]],"actions":[0],"payloads":[{"text":"one two"}]}}}
//
// Before these records, a recorder appended a whole history archive (format "ActionStack.History")
// in each record; such a record is still read, as a snapshot of its own that no record follows, and
// a recorder that makes its own archives (several stacks) still appends them. A record of a newer
// version than this library's is refused (`HistoryArchiveError.newerFormatVersion`), and so are
// the records of what changed that follow it. Which records are snapshots, and when the recorder compacts the journal:
// `HistoryRecorder.recordChange`, and the "Saving the history" article.
//
// The top level:
// - "format" "ActionStack.Journal", "version" 1 (a newer version is refused), "kind" "snapshot" or
//   "delta"; "chain" (16 hex digits) names the snapshot a delta follows, "index" counts the records
//   from it (the snapshot is 0); "histories" by the app's names.
//
// A history (every field but the columns optional in a delta; a delta names only the histories
// that changed):
// - "shape" "linear" or "tree", "maximumSteps" (absent: no limit): a snapshot's; a recovery saves
//   the history with this limit.
// - "current", "clean": the document's state ids (the states a step leads between are ids too: a
//   recovery finds the clean node and the current node by them, as a save does).
// - "remote": the app's version of the document, or null.
// - "root", "rootDate": a branching history's root node and its date (seconds since 2001).
// - "next": a branching history's next node number (`SavedHistory.nextNode`), in a snapshot and in
//   a record after which it changed; absent in journals written before it was recorded (a replay
//   then numbers on from the highest node held).
// - "ops", applied in order:
//   - ["u", drop, keep, grow, push], ["r", …], ["b", id, drop, keep, grow, push]: the undo
//     stack, the redo stack or branch `id`: `drop` steps leave its bottom, then it keeps its first
//     `keep` steps; when `grow` is 1 the last of these takes the next step of the table as its new
//     fields and appends that step's actions to its own (a coalescing registration); then the next
//     `push` steps of the table go on top.
//   - ["branch", id, anchor]: a new, empty branch leaving from node `anchor` (a snapshot's).
//   - ["fork", id, anchor]: the redo stack becomes branch `id`, leaving from `anchor`; the redo
//     stack is empty.
//   - ["enter", id, anchor, kept]: the redo stack and branch `id` swap their steps; the branch then
//     leaves from `anchor`, or is gone when `kept` is 0.
//   - ["drop", id]: branch `id` is gone. ["anchor", id, anchor]: branch `id` leaves from `anchor`.
// - The step table, in the columns of a history archive: "steps", each an object with "a" (its
//   actions), "l" and "h" (the states without and with it), "node" and "d" (a branching history's
//   node and date), "n" (an index into "names"; absent: the name of the step before it in the
//   table, "" for the first), "x" (discardable), "u" (user info, as an archive writes it), "c"
//   (it holds an action registered as a closure: it cannot be saved, and has no actions here);
//   "commands" ([type, version, key] entries), "actions" (each action's entry), "costs" ([action,
//   cost] pairs for the costs that are not 0), "payloads" (each action's command, as `JSONEncoder`
//   writes it, in one array).

// MARK: - What a record holds

/// A record of a recorder's journal.
struct JournalRecordContents: Sendable {
    var isSnapshot: Bool
    /// The snapshot this record follows (its own, for a snapshot), and its place from it.
    var chain: UInt64
    var index: Int
    var histories: [String: JournalHistoryRecord]
}

// MARK: - Writing

enum JournalRecordWriter {
    /// The value of the `"format"` key of a recorder's journal record.
    static let formatName = "ActionStack.Journal"
    /// The version of the record format this library writes, and the newest it reads.
    static let formatVersion = 1

    /// The record as JSON.
    ///
    /// - Throws: What a command's `encode(to:)` throws, `EncodingError` for a date or a user-info
    ///   double that is not finite, and ``HistoryArchiveError/tooLarge(_:maximum:)`` for a string over
    ///   `limits`.
    ///
    /// The commands of each step are encoded unless the step brings them encoded
    /// (``JournalStep/encodedCommands``); the writer leaves each step's encoding there, for the
    /// recorder to keep.
    static func encode(_ record: inout JournalRecordContents, limits: HistoryArchive.Limits) throws -> Data {
        var out = Data()
        var head = JSONBytes(capacity: 128)
        head.raw(#"{"format":"ActionStack.Journal","version":1,"kind":"#)
        head.raw(record.isSnapshot ? #""snapshot""# : #""delta""#)
        head.raw(#","chain":"#)
        head.string(hex(record.chain))
        head.raw(#","index":"#)
        head.int(record.index)
        head.raw(#","histories":{"#)
        out.append(contentsOf: head.bytes)
        for (index, name) in record.histories.keys.sorted().enumerated() {
            try limits.check(name)
            var key = JSONBytes()
            if index > 0 { key.byte(UInt8(ascii: ",")) }
            key.string(name)
            key.byte(UInt8(ascii: ":"))
            out.append(contentsOf: key.bytes)
            try write(&record.histories[name]!, into: &out, limits: limits)
        }
        out.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "}")])
        return out
    }

    /// 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func write(
        _ history: inout JournalHistoryRecord, into out: inout Data, limits: HistoryArchive.Limits
    ) throws {
        var head = JSONBytes(capacity: 128)
        var separator = false
        func field(_ name: StaticString) {
            if separator { head.byte(UInt8(ascii: ",")) }
            separator = true
            head.raw(name)
        }
        head.byte(UInt8(ascii: "{"))
        if let shape = history.shape {
            field(#""shape":"#)
            head.raw(shape == .tree ? #""tree""# : #""linear""#)
        }
        if let maximumSteps = history.maximumSteps {
            field(#""maximumSteps":"#)
            head.int(maximumSteps)
        }
        if let current = history.current {
            field(#""current":"#)
            head.int(Int(current))
        }
        if let clean = history.clean {
            field(#""clean":"#)
            head.int(Int(clean))
        }
        if history.setsRemoteVersion {
            field(#""remote":"#)
            if let version = history.remoteVersion {
                try limits.check(version)
                head.string(version)
            } else {
                head.raw("null")
            }
        }
        if let root = history.root {
            field(#""root":"#)
            head.int(Int(root))
        }
        if let rootDate = history.rootDate {
            guard rootDate.isFinite else { throw ArchiveWriter.notFinite(rootDate, "the root's date") }
            field(#""rootDate":"#)
            head.double(rootDate)
        }
        if let nextNode = history.nextNode {
            field(#""next":"#)
            head.int(Int(nextNode))
        }
        if !history.operations.isEmpty {
            field(#""ops":["#)
            for (index, operation) in history.operations.enumerated() {
                if index > 0 { head.byte(UInt8(ascii: ",")) }
                writeOperation(operation, into: &head)
            }
            head.byte(UInt8(ascii: "]"))
        }
        guard !history.steps.isEmpty else {
            head.byte(UInt8(ascii: "}"))
            out.append(contentsOf: head.bytes)
            return
        }
        // The step table, in columns.
        var steps = JSONBytes(capacity: history.steps.count * 24)
        var columns = CommandColumns(capacity: history.steps.count * 2)
        var names: [String] = []
        var nameIndex: [String: Int] = [:]
        var previousName = ""
        for (index, step) in history.steps.enumerated() {
            if index > 0 { steps.byte(UInt8(ascii: ",")) }
            try limits.check(step.actions.count, .actionsPerStep)
            try limits.check(step.userInfo.count, .userInfoEntries)
            steps.raw(#"{"a":"#)
            steps.int(step.actions.count)
            steps.raw(#","l":"#)
            steps.int(Int(step.low))
            steps.raw(#","h":"#)
            steps.int(Int(step.high))
            if step.node != 0 {
                steps.raw(#","node":"#)
                steps.int(Int(step.node))
            }
            if let date = step.date {
                guard date.isFinite else { throw ArchiveWriter.notFinite(date, "the date of node \(step.node)") }
                steps.raw(#","d":"#)
                steps.double(date)
            }
            if step.name != previousName {
                let known: Int
                if let found = nameIndex[step.name] {
                    known = found
                } else {
                    try limits.check(step.name)
                    names.append(step.name)
                    known = names.count - 1
                    nameIndex[step.name] = known
                }
                steps.raw(#","n":"#)
                steps.int(known)
                previousName = step.name
            }
            if step.isDiscardable { steps.raw(#","x":true"#) }
            if step.holdsClosure { steps.raw(#","c":true"#) }
            if !step.userInfo.isEmpty {
                steps.raw(#","u":{"#)
                try ArchiveWriter.writeUserInfo(step.userInfo, of: Int(step.node), into: &steps, limits: limits)
                steps.byte(UInt8(ascii: "}"))
            }
            steps.byte(UInt8(ascii: "}"))
            for position in 0..<step.actions.count {
                let action = step.actions[position]
                guard let command = action.command else {
                    throw ArchiveWriter.unwritable(action, history: "journal", node: Int(step.node))
                }
                try columns.add(command, key: action.key, cost: action.cost, history: "journal", limits: limits)
            }
        }
        field(#""steps":["#)
        out.append(contentsOf: head.bytes)
        out.append(contentsOf: steps.bytes)
        var tail = JSONBytes(capacity: 128)
        tail.byte(UInt8(ascii: "]"))
        if !names.isEmpty {
            tail.raw(#","names":["#)
            for (index, name) in names.enumerated() {
                if index > 0 { tail.byte(UInt8(ascii: ",")) }
                tail.string(name)
            }
            tail.byte(UInt8(ascii: "]"))
        }
        columns.writeTable(into: &tail)
        if columns.count > 0 {
            tail.raw(#","actions":["#)
            out.append(contentsOf: tail.bytes)
            out.append(contentsOf: columns.actions.bytes)
            tail = JSONBytes()
            tail.byte(UInt8(ascii: "]"))
            if !columns.costs.bytes.isEmpty {
                tail.raw(#","costs":"#)
                out.append(contentsOf: tail.bytes)
                out.append(contentsOf: columns.costs.bytes)
                tail = JSONBytes()
                tail.byte(UInt8(ascii: "]"))
            }
            tail.raw(#","payloads":["#)
            out.append(contentsOf: tail.bytes)
            try encodeCommands(of: &history.steps)
            // Gathered in an array first: one append to the record's `Data` instead of one a step.
            var payloads: [UInt8] = []
            payloads.reserveCapacity(history.steps.reduce(2) { $0 + ($1.encodedCommands?.count ?? 0) + 1 })
            for step in history.steps {
                guard let encoded = step.encodedCommands, !encoded.isEmpty else { continue }
                if !payloads.isEmpty { payloads.append(UInt8(ascii: ",")) }
                payloads.append(contentsOf: encoded)
            }
            payloads.append(UInt8(ascii: "]"))
            payloads.append(UInt8(ascii: "}"))
            out.append(contentsOf: payloads)
        } else {
            tail.byte(UInt8(ascii: "}"))
            out.append(contentsOf: tail.bytes)
        }
    }

    private static func writeOperation(_ operation: JournalOperation, into bytes: inout JSONBytes) {
        func chain(_ id: JournalChainID) {
            switch id {
            case .undo: bytes.raw(#""u""#)
            case .redo: bytes.raw(#""r""#)
            case .branch(let id):
                bytes.raw(#""b","#)
                bytes.int(id)
            }
        }
        func number(_ value: Int) {
            bytes.byte(UInt8(ascii: ","))
            bytes.int(value)
        }
        bytes.byte(UInt8(ascii: "["))
        switch operation {
        case .chain(let id, let drop, let keep, let grow, let push):
            chain(id)
            number(drop)
            number(keep)
            number(grow ? 1 : 0)
            number(push)
        case .newBranch(let id, let anchor):
            bytes.raw(#""branch""#)
            number(id)
            number(Int(anchor))
        case .fork(let id, let anchor):
            bytes.raw(#""fork""#)
            number(id)
            number(Int(anchor))
        case .enter(let id, let anchor, let kept):
            bytes.raw(#""enter""#)
            number(id)
            number(Int(anchor))
            number(kept ? 1 : 0)
        case .dropBranch(let id):
            bytes.raw(#""drop""#)
            number(id)
        case .reanchor(let id, let anchor):
            bytes.raw(#""anchor""#)
            number(id)
            number(Int(anchor))
        }
        bytes.byte(UInt8(ascii: "]"))
    }
}

extension JournalRecordWriter {
    /// Encodes the commands of the steps that do not bring them encoded, in one `JSONEncoder` call
    /// (an array of them all), and gives each step its part of the array.
    ///
    /// - Complexity: O(a) for the a actions of the steps without an encoding.
    static func encodeCommands(of steps: inout [JournalStep]) throws {
        var missing: [Int] = []
        var expected = 0
        for index in steps.indices where steps[index].encodedCommands == nil {
            if steps[index].actions.count == 0 {
                steps[index].encodedCommands = Data()
            } else {
                missing.append(index)
                expected += steps[index].actions.count
            }
        }
        guard !missing.isEmpty else { return }
        let data = try CommandPayloadList.makeEncoder().encode(JournalPayloadList(steps: steps, indices: missing))
        // Where each command's encoding begins and ends in the array.
        let elements: [Range<Int>]? = data.withUnsafeBytes { raw in
            var cursor = JSONCursor(raw, maximumDepth: .max)
            var found: [Range<Int>] = []
            found.reserveCapacity(expected)
            do throws(JSONCursor.Failure) {
                try cursor.beginArray()
                var array = JSONCursor.ArrayState()
                while try cursor.nextElement(in: &array) {
                    _ = cursor.peek()
                    let start = cursor.offset
                    try cursor.skipValue()
                    found.append(start..<cursor.offset)
                }
                try cursor.end()
            } catch {
                return nil
            }
            return found
        }
        guard let elements, elements.count == expected else {
            // Not an array of one element per command (a command's `encode(to:)` wrote something
            // that reads otherwise): the whole array stands for the steps, none is kept apart.
            throw EncodingError.invalidValue(
                data,
                EncodingError.Context(codingPath: [], debugDescription: "the commands did not encode as one value each")
            )
        }
        var next = 0
        for index in missing {
            let count = steps[index].actions.count
            let range = elements[next].lowerBound..<elements[next + count - 1].upperBound
            steps[index].encodedCommands = data.subdata(in: range)
            next += count
        }
    }
}

/// The commands of some of a record's steps, in order, written as one JSON array.
private struct JournalPayloadList: Encodable {
    let steps: [JournalStep]
    let indices: [Int]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for step in indices {
            for action in 0..<steps[step].actions.count {
                // The writer checked that every action has its command.
                if let command = steps[step].actions.command(at: action) { try container.encode(command) }
            }
        }
    }
}

// MARK: - Reading

/// Why a journal record could not be read or applied: it and the records after it, up to the next
/// snapshot, cannot be replayed.
struct JournalRecordProblem: Error, CustomStringConvertible {
    var description: String
    /// The archive error that made it, when reading a whole archive failed.
    var archiveError: HistoryArchiveError?

    init(_ description: String, archiveError: HistoryArchiveError? = nil) {
        self.description = description
        self.archiveError = archiveError
    }
}

enum JournalRecordReader {
    /// What a record's payload is.
    enum Payload {
        /// A recorder's record.
        case record(JournalRecordContents)
        /// A whole history archive (a record of a recorder that makes its own archives, or of an
        /// earlier version of the library).
        case archive(HistoryArchive)
    }

    /// Reads a record's payload.
    ///
    /// - Throws: ``JournalRecordProblem`` or ``HistoryArchiveError``.
    static func read(
        _ data: Data, registry: CommandRegistry, limits: HistoryArchive.Limits
    ) throws -> Payload {
        try limits.check(data.count, .bytes)
        let format = data.withUnsafeBytes { bytes in formatName(of: bytes, limits: limits) }
        if format == HistoryArchive.formatName {
            return .archive(try HistoryArchive(decoding: data, registry: registry, limits: limits))
        }
        guard format == JournalRecordWriter.formatName else {
            throw JournalRecordProblem("the record is neither a journal record nor a history archive")
        }
        let result = data.withUnsafeBytes { bytes -> Result<JournalRecordContents, any Error> in
            do {
                return .success(try readRecord(bytes, data: data, registry: registry, limits: limits))
            } catch {
                return .failure(error)
            }
        }
        return .record(try result.get())
    }

    /// The `"format"` of a JSON object, when it has one (read without checking the rest).
    private static func formatName(of bytes: UnsafeRawBufferPointer, limits: HistoryArchive.Limits) -> String? {
        var cursor = JSONCursor(bytes, maximumDepth: limits.maximumNestingDepth)
        guard cursor.peek() == UInt8(ascii: "{"), (try? cursor.beginObject()) != nil else { return nil }
        var object = JSONCursor.ObjectState()
        while let key = try? cursor.nextKey(in: &object) {
            if key == "format" { return try? cursor.readString() }
            guard (try? cursor.skipValue()) != nil else { return nil }
        }
        return nil
    }

    private static func readRecord(
        _ bytes: UnsafeRawBufferPointer, data: Data, registry: CommandRegistry, limits: HistoryArchive.Limits
    ) throws -> JournalRecordContents {
        var cursor = JSONCursor(bytes, maximumDepth: limits.maximumNestingDepth)
        var version: Int?
        var kind: String?
        var chain: UInt64?
        var index: Int?
        var histories: [String: JournalHistoryRecord] = [:]
        var sawHistories = false
        do {
            try cursor.beginObject()
            var object = JSONCursor.ObjectState()
            while let key = try cursor.nextKey(in: &object) {
                switch key {
                case "version":
                    version = try cursor.readInt()
                    if let version, version > JournalRecordWriter.formatVersion {
                        throw HistoryArchiveError.newerFormatVersion(
                            version, newestSupported: JournalRecordWriter.formatVersion)
                    }
                case "kind": kind = try cursor.readString()
                case "chain":
                    let text = try cursor.readString()
                    guard text.utf8.count == 16, let value = UInt64(text, radix: 16) else {
                        throw cursor.invalid("\"chain\" is not 16 hex digits")
                    }
                    chain = value
                case "index":
                    let value = try cursor.readInt()
                    guard value >= 0 else { throw cursor.invalid("a negative \"index\"") }
                    index = value
                case "histories":
                    sawHistories = true
                    try cursor.beginObject()
                    var list = JSONCursor.ObjectState()
                    while let name = try cursor.nextKey(in: &list) {
                        try limits.check(histories.count + 1, .histories)
                        try limits.check(name)
                        var reader = JournalHistoryReader(name: name, limits: limits)
                        histories[name] = try reader.read(&cursor, data: data, registry: registry)
                    }
                default:
                    try cursor.skipValue()
                }
            }
            try cursor.end()
        } catch let failure as JSONCursor.Failure {
            switch failure {
            case .notAnObject: throw JournalRecordProblem("the record is not a JSON object")
            case .tooDeep: throw HistoryArchiveError.tooLarge(.nestingDepth, maximum: limits.maximumNestingDepth)
            case .invalid(let reason): throw JournalRecordProblem(reason)
            }
        }
        guard version != nil else { throw JournalRecordProblem("the record has no \"version\"") }
        guard let kind, kind == "snapshot" || kind == "delta" else {
            throw JournalRecordProblem("the record's \"kind\" is neither \"snapshot\" nor \"delta\"")
        }
        guard let chain, let index else { throw JournalRecordProblem("the record has no \"chain\" or \"index\"") }
        guard sawHistories else { throw JournalRecordProblem("the record has no \"histories\"") }
        guard (kind == "snapshot") == (index == 0) else {
            throw JournalRecordProblem("a snapshot's \"index\" is 0, a delta's is not")
        }
        return JournalRecordContents(isSnapshot: kind == "snapshot", chain: chain, index: index, histories: histories)
    }
}

/// Reads one history of a journal record.
private struct JournalHistoryReader {
    let name: String
    let limits: HistoryArchive.Limits
    var record = JournalHistoryRecord()

    struct Header {
        var actionCount = -1
        var low: StateID?
        var high: StateID?
        var node: NodeNumber = 0
        var date: Double?
        var name: Int?
        var isDiscardable = false
        var holdsClosure = false
        var userInfo: [String: SavedValue] = [:]
    }

    var headers: [Header] = []
    /// The command table, the actions' entries, the costs, the names and the payloads.
    var columns: CommandColumnsReader

    init(name: String, limits: HistoryArchive.Limits) {
        self.name = name
        self.limits = limits
        columns = CommandColumnsReader(limits: limits)
    }

    func problem(_ what: String) -> JournalRecordProblem {
        JournalRecordProblem("history \"\(HistoryArchiveError.shortened(name, to: 40))\": \(what)")
    }

    mutating func read(
        _ cursor: inout JSONCursor, data: Data, registry: CommandRegistry
    ) throws -> JournalHistoryRecord {
        try cursor.beginObject()
        var object = JSONCursor.ObjectState()
        while let key = try cursor.nextKey(in: &object) {
            do {
                try readField(key, &cursor)
            } catch let failure as JSONCursor.Failure {
                guard case .invalid(let reason) = failure else { throw failure }
                throw problem("\"\(HistoryArchiveError.shortened(key, to: 40))\": \(reason)")
            }
        }
        try assembleSteps(data: data, registry: registry)
        // The operations take the table's steps, each once, in order.
        var needed = 0
        for operation in record.operations {
            if case .chain(_, _, _, let grow, let push) = operation { needed += push + (grow ? 1 : 0) }
        }
        guard needed == record.steps.count else {
            throw problem("the operations take \(needed) steps, and the table has \(record.steps.count)")
        }
        return record
    }

    private func state(_ cursor: inout JSONCursor) throws -> StateID {
        let value = try cursor.readInt()
        guard let state = StateID(exactly: value) else { throw cursor.invalid("a state id out of range") }
        return state
    }

    private func node(_ cursor: inout JSONCursor) throws -> NodeNumber {
        let value = try cursor.readInt()
        guard value >= 0, value <= SavedHistory.maximumNode, let node = NodeNumber(exactly: value) else {
            throw cursor.invalid("a node number out of range")
        }
        return node
    }

    private func count(_ cursor: inout JSONCursor) throws -> Int {
        let value = try cursor.readInt()
        guard value >= 0 else { throw cursor.invalid("a negative count") }
        try limits.check(value, .steps)
        return value
    }

    private mutating func readField(_ key: String, _ cursor: inout JSONCursor) throws {
        switch key {
        case "shape":
            switch try cursor.readString() {
            case "linear": record.shape = .linear
            case "tree": record.shape = .tree
            default: throw cursor.invalid("an unknown shape")
            }
        case "maximumSteps":
            let value = try cursor.readInt()
            guard value >= 0 else { throw cursor.invalid("a negative \"maximumSteps\"") }
            record.maximumSteps = value
        case "current": record.current = try state(&cursor)
        case "clean": record.clean = try state(&cursor)
        case "remote":
            record.setsRemoteVersion = true
            if cursor.peek() == UInt8(ascii: "n") {
                try cursor.skipValue()
            } else {
                let version = try cursor.readString()
                try limits.check(version)
                record.remoteVersion = version
            }
        case "root": record.root = try node(&cursor)
        case "next":
            // One above the largest node number, at most.
            let value = try cursor.readInt()
            guard value >= 1, value <= SavedHistory.maximumNode + 1, let next = NodeNumber(exactly: value) else {
                throw cursor.invalid("a next node number out of range")
            }
            record.nextNode = next
        case "rootDate":
            let date = try cursor.readDouble()
            guard date.isFinite else { throw cursor.invalid("a date that is not finite") }
            record.rootDate = date
        case "ops":
            try cursor.beginArray()
            var array = JSONCursor.ArrayState()
            while try cursor.nextElement(in: &array) {
                try limits.check(record.operations.count + 1, .steps)
                record.operations.append(try readOperation(&cursor))
            }
        case "steps":
            try cursor.beginArray()
            var array = JSONCursor.ArrayState()
            while try cursor.nextElement(in: &array) {
                try limits.check(headers.count + 1, .steps)
                headers.append(try readStep(&cursor))
            }
        default:
            do {
                if try columns.readColumn(key, &cursor) { return }
            } catch is SavedHistory.StructuralProblem {
                throw cursor.invalid("a command version below 1")
            }
            try cursor.skipValue()
        }
    }

    private func readOperation(_ cursor: inout JSONCursor) throws -> JournalOperation {
        try cursor.beginArray()
        var array = JSONCursor.ArrayState()
        guard try cursor.nextElement(in: &array) else { throw cursor.invalid("an empty operation") }
        let name = try cursor.readString()
        var numbers: [Int] = []
        while try cursor.nextElement(in: &array) {
            guard numbers.count < 6 else { throw cursor.invalid("an operation of too many values") }
            let value = try cursor.readInt()
            guard value >= 0 else { throw cursor.invalid("a negative value in an operation") }
            numbers.append(value)
        }
        func values(_ count: Int) throws -> [Int] {
            guard numbers.count == count else { throw cursor.invalid("operation \"\(name)\" takes \(count) numbers") }
            return numbers
        }
        func anchor(_ value: Int) throws -> NodeNumber {
            guard value <= SavedHistory.maximumNode, let node = NodeNumber(exactly: value) else {
                throw cursor.invalid("a node number out of range")
            }
            return node
        }
        func chain(_ id: JournalChainID, _ numbers: ArraySlice<Int>) throws -> JournalOperation {
            let list = Array(numbers)
            guard list.count == 4, list[2] <= 1 else { throw cursor.invalid("a chain operation takes 4 numbers") }
            for value in list { try limits.check(value, .steps) }
            return .chain(id, drop: list[0], keep: list[1], grow: list[2] == 1, push: list[3])
        }
        switch name {
        case "u": return try chain(.undo, numbers[...])
        case "r": return try chain(.redo, numbers[...])
        case "b":
            guard let id = numbers.first else { throw cursor.invalid("a branch operation without its branch") }
            return try chain(.branch(id), numbers.dropFirst())
        case "branch":
            let list = try values(2)
            return .newBranch(list[0], anchor: try anchor(list[1]))
        case "fork":
            let list = try values(2)
            return .fork(list[0], anchor: try anchor(list[1]))
        case "enter":
            let list = try values(3)
            guard list[2] <= 1 else { throw cursor.invalid("\"enter\" keeps 0 or 1") }
            return .enter(list[0], anchor: try anchor(list[1]), kept: list[2] == 1)
        case "drop": return .dropBranch(try values(1)[0])
        case "anchor":
            let list = try values(2)
            return .reanchor(list[0], anchor: try anchor(list[1]))
        default:
            throw cursor.invalid("an unknown operation \"\(HistoryArchiveError.shortened(name, to: 40))\"")
        }
    }

    private func readStep(_ cursor: inout JSONCursor) throws -> Header {
        try cursor.beginObject()
        var object = JSONCursor.ObjectState()
        var header = Header()
        while let key = try cursor.nextKey(in: &object) {
            switch key {
            case "a":
                header.actionCount = try cursor.readInt()
                guard header.actionCount >= 0 else { throw cursor.invalid("a negative number of actions") }
                try limits.check(header.actionCount, .actionsPerStep)
            case "l": header.low = try state(&cursor)
            case "h": header.high = try state(&cursor)
            case "node": header.node = try node(&cursor)
            case "d":
                let date = try cursor.readDouble()
                guard date.isFinite else { throw cursor.invalid("a date that is not finite") }
                header.date = date
            case "n":
                let index = try cursor.readInt()
                guard index >= 0 else { throw cursor.invalid("a negative name index") }
                header.name = index
            case "x": header.isDiscardable = try cursor.readBool()
            case "c": header.holdsClosure = try cursor.readBool()
            case "u": header.userInfo = try HistoryReader.readUserInfo(&cursor, limits: limits)
            default: try cursor.skipValue()
            }
        }
        guard header.actionCount >= 0, header.low != nil, header.high != nil else {
            throw cursor.invalid("a step without \"a\", \"l\" or \"h\"")
        }
        if header.holdsClosure && header.actionCount > 0 {
            throw cursor.invalid("a step that holds a closure has no actions here")
        }
        return header
    }

    /// Makes the steps of the table from their headers and the command columns, reading the
    /// commands in one call to `JSONDecoder`.
    private mutating func assembleSteps(data: Data, registry: CommandRegistry) throws {
        var total = 0
        for header in headers { total += header.actionCount }
        try columns.check(actionTotal: total, problem: problem) { _, _ in problem("\"costs\": a negative cost") }
        let (commands, names, costs, actions, payloads) = (
            columns.commands, columns.names, columns.costs, columns.actions ?? [], columns.payloads
        )
        var decoded: [DecodedCommand] = []
        if total > 0 {
            guard let payloads else { throw problem("no \"payloads\"") }
            var resolutions: [CommandRegistry.Resolution] = []
            for command in commands { resolutions.append(registry.resolve(command.type, version: command.version)) }
            let plan = CommandPayloadFlatPlan(resolutions: resolutions, names: commands.map(\.type), entries: actions)
            let decoder = JSONDecoder()
            decoder.userInfo[CommandPayloadFlatPlan.key] = plan
            do {
                let slice = data[(data.startIndex + payloads.lowerBound)..<(data.startIndex + payloads.upperBound)]
                decoded = try decoder.decode(CommandPayloadFlatReader.self, from: slice).commands
            } catch {
                throw problem("payloads: \(CommandRegistry.reason(for: error))")
            }
        }
        var action = 0
        var nextCost = 0
        var previousName = ""
        record.steps.reserveCapacity(headers.count)
        for header in headers {
            var list = SavedActionList()
            for _ in 0..<header.actionCount {
                let command = commands[actions[action]]
                var cost = 0
                if nextCost < costs.count, costs[nextCost].action == action {
                    cost = costs[nextCost].cost
                    nextCost += 1
                }
                switch decoded[action] {
                case .command(let read):
                    let readVersion = type(of: read).version
                    list.append(
                        SavedAction(
                            command: read, commandType: command.type, version: readVersion, key: command.key, cost: cost
                        ))
                case .problem(let problem):
                    list.append(
                        SavedAction(
                            commandType: command.type, version: command.version, key: command.key, cost: cost,
                            problem: problem))
                }
                action += 1
            }
            var stepName = previousName
            if let index = header.name {
                guard names.indices.contains(index) else { throw problem("name index \(index) out of range") }
                stepName = names[index]
            }
            previousName = stepName
            record.steps.append(
                JournalStep(
                    low: header.low!, high: header.high!, node: header.node, date: header.date, name: stepName,
                    isDiscardable: header.isDiscardable, userInfo: header.userInfo, holdsClosure: header.holdsClosure,
                    actions: list))
        }
    }
}
