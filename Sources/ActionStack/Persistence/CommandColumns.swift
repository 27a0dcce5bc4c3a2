// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

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
