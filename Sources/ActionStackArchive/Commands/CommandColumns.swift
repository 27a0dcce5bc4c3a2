// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore

/// The columns of a history's actions, as an archive (version 2) and a journal record both write
/// them: the command table (each distinct type, version and key once, `"commands"`), each action's
/// entry in it (`"actions"`), and the costs that are not 0, as `[action, cost]` pairs (`"costs"`).
struct CommandColumns {
    /// An entry of the command table.
    struct Entry: Hashable {
        var type: String
        var version: Int
        var key: String
    }

    /// The command table, in the order of first use.
    private(set) var entries: [Entry] = []
    private var entryIndex: [Entry: Int] = [:]
    /// Each action's entry, comma-separated, without brackets.
    private(set) var actions: JSONBytes
    /// The `[action, cost]` pairs, from the opening bracket of the list (empty when every cost is 0).
    private(set) var costs = JSONBytes()
    /// How many actions were added.
    private(set) var count = 0
    // The entry of the previous action: a run of commands of one type on one target skips the
    // table's hashing.
    private var lastType: ObjectIdentifier?
    private var lastKey = ""
    private var lastEntry = 0

    /// Empty columns, with room for about `capacity` bytes of entries.
    init(capacity: Int) {
        actions = JSONBytes(capacity: capacity)
    }

    /// Adds an action: `command` under the app's `key`, with its cost.
    ///
    /// - Throws: ``HistoryArchiveError/invalidHistory(_:_:)`` for a command type whose version is
    ///   below 1 (in the history named `history`), ``HistoryArchiveError/tooLarge(_:maximum:)`` for a
    ///   type or key over `limits`.
    /// - Complexity: O(1) amortized.
    @inline(__always)
    mutating func add(
        _ command: any SavableCommand, key: String, cost: Int, history: String, limits: HistoryArchive.Limits
    ) throws {
        let commandType = type(of: command)
        let typeID = ObjectIdentifier(commandType)
        let entry: Int
        if typeID == lastType && key == lastKey {
            entry = lastEntry
        } else {
            let made = Entry(type: commandType.commandType, version: commandType.version, key: key)
            if let known = entryIndex[made] {
                entry = known
            } else {
                guard commandType.version >= 1 else {
                    throw HistoryArchiveError.invalidHistory(
                        history, .invalidCommandVersion(type: commandType.commandType, version: commandType.version))
                }
                try limits.check(made.type)
                try limits.check(made.key)
                entry = entries.count
                entries.append(made)
                entryIndex[made] = entry
            }
            lastType = typeID
            lastKey = key
            lastEntry = entry
        }
        if count > 0 { actions.byte(UInt8(ascii: ",")) }
        actions.int(entry)
        if cost != 0 {
            costs.byte(costs.bytes.isEmpty ? UInt8(ascii: "[") : UInt8(ascii: ","))
            costs.byte(UInt8(ascii: "["))
            costs.int(count)
            costs.byte(UInt8(ascii: ","))
            costs.int(cost)
            costs.byte(UInt8(ascii: "]"))
        }
        count += 1
    }

    /// Writes `,"commands":[[type, version, key], ...]`, unless the table is empty.
    func writeTable(into bytes: inout JSONBytes) {
        guard !entries.isEmpty else { return }
        bytes.raw(#","commands":["#)
        for (index, entry) in entries.enumerated() {
            if index > 0 { bytes.byte(UInt8(ascii: ",")) }
            bytes.byte(UInt8(ascii: "["))
            bytes.string(entry.type)
            bytes.byte(UInt8(ascii: ","))
            bytes.int(entry.version)
            bytes.byte(UInt8(ascii: ","))
            bytes.string(entry.key)
            bytes.byte(UInt8(ascii: "]"))
        }
        bytes.byte(UInt8(ascii: "]"))
    }
}

/// The columns of a history's actions read back, from an archive's history (version 2) or a journal
/// record, as ``CommandColumns`` writes them: the command table, each action's entry, the costs
/// that are not 0, the step names, and where the payloads (the commands' own encodings, one JSON
/// array) lie in the data. Each reader checks the columns against its steps itself.
struct CommandColumnsReader {
    /// The command table: type, version (at least 1) and key of each entry.
    var commands: [(type: String, version: Int, key: String)] = []
    /// The step names.
    var names: [String] = []
    /// Each action's entry in the command table (nil until `"actions"` is read).
    var actions: [Int]?
    /// The `[action, cost]` pairs (a cost may be negative here: the reader says how it is wrong).
    var costs: [(action: Int, cost: Int)] = []
    /// Where the payloads array lies in the data.
    var payloads: Range<Int>?
    let limits: HistoryArchive.Limits

    init(limits: HistoryArchive.Limits) {
        self.limits = limits
    }

    /// Reads the value of `key` when it is one of the columns (`"commands"`, `"names"`,
    /// `"actions"`, `"costs"`, `"payloads"`), and returns true; returns false for any other key,
    /// whose value is left unread.
    ///
    /// - Throws: `JSONCursor.Failure` for a malformed column, the limit's error for a string or a
    ///   count over `limits`, `SavedHistory.StructuralProblem.invalidCommandVersion` for a command
    ///   version below 1.
    /// - Complexity: O(n) for the n bytes of the value.
    mutating func readColumn(_ key: String, _ cursor: inout JSONCursor) throws -> Bool {
        switch key {
        case "commands":
            try cursor.beginArray()
            var array = JSONCursor.ArrayState()
            while try cursor.nextElement(in: &array) {
                try cursor.beginArray()
                var triple = JSONCursor.ArrayState()
                guard try cursor.nextElement(in: &triple) else { throw cursor.invalid("an empty command entry") }
                let type = try cursor.readString()
                guard try cursor.nextElement(in: &triple) else {
                    throw cursor.invalid("a command entry without a version")
                }
                let version = try cursor.readInt()
                guard try cursor.nextElement(in: &triple) else { throw cursor.invalid("a command entry without a key") }
                let key = try cursor.readString()
                guard try !cursor.nextElement(in: &triple) else {
                    throw cursor.invalid("a command entry of four values")
                }
                try limits.check(type)
                try limits.check(key)
                // Named as the history's flaw by the caller, which knows the history's name.
                guard version >= 1 else {
                    throw SavedHistory.StructuralProblem.invalidCommandVersion(type: type, version: version)
                }
                commands.append((type, version, key))
            }
        case "names":
            try cursor.beginArray()
            var array = JSONCursor.ArrayState()
            while try cursor.nextElement(in: &array) {
                let name = try cursor.readString()
                try limits.check(name)
                names.append(name)
            }
        case "actions":
            var list: [Int] = []
            try cursor.beginArray()
            var array = JSONCursor.ArrayState()
            while try cursor.nextElement(in: &array) {
                // The common entry, a single digit, read in line.
                if let entry = cursor.readSmallCount() {
                    list.append(entry)
                    continue
                }
                let entry = try cursor.readInt()
                guard entry >= 0 else { throw cursor.invalid("a negative command index") }
                list.append(entry)
            }
            actions = list
        case "costs":
            try cursor.beginArray()
            var array = JSONCursor.ArrayState()
            while try cursor.nextElement(in: &array) {
                try cursor.beginArray()
                var pair = JSONCursor.ArrayState()
                guard try cursor.nextElement(in: &pair) else { throw cursor.invalid("an empty cost") }
                let action = try cursor.readInt()
                guard try cursor.nextElement(in: &pair) else { throw cursor.invalid("a cost without its value") }
                let cost = try cursor.readInt()
                guard try !cursor.nextElement(in: &pair) else { throw cursor.invalid("a cost of three numbers") }
                costs.append((action, cost))
            }
        case "payloads":
            guard cursor.peek() == UInt8(ascii: "[") else { throw cursor.invalid("\"payloads\" is not an array") }
            let start = cursor.offset
            try cursor.skipValue()
            payloads = start..<cursor.offset
        default:
            return false
        }
        return true
    }

    /// Checks the columns against steps that hold `total` actions: one entry per action, each in
    /// the table, costs in action order and in range. A negative cost is `negativeCost`'s to judge
    /// (an archive names the step's node), in order with the others.
    ///
    /// - Throws: `problem` of what is wrong, or what `negativeCost` returns.
    /// - Complexity: O(a) for the a actions.
    func check<Failure: Error>(
        actionTotal total: Int, problem: (String) -> Failure, negativeCost: (_ action: Int, _ cost: Int) -> Failure
    ) throws(Failure) {
        let actions = self.actions ?? []
        guard actions.count == total else {
            throw problem("the steps hold \(total) actions, and \"actions\" has \(actions.count)")
        }
        for entry in actions where !commands.indices.contains(entry) {
            throw problem("command index \(entry) out of range")
        }
        var previousCost = -1
        for (action, cost) in costs {
            guard action > previousCost, action < total else {
                throw problem("cost of action \(action): out of order or out of range")
            }
            if cost < 0 { throw negativeCost(action, cost) }
            previousCost = action
        }
    }
}
