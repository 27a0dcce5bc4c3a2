// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack

/// A field's value in a ``SharedRecords`` document.
enum RecordValue: Hashable, Sendable, Codable {
    case int(Int)
    case string(String)
}

/// A small collaborative map of records (an id to a map of fields). Each record is an object with
/// an incarnation number: a record created again (by a peer, or by an undo that revives it) is a
/// new object unless it is this user's own record revived, which keeps its number so that this
/// user's older steps follow it.
final class SharedRecords {
    struct Record: Equatable {
        var incarnation: Int
        var fields: [String: RecordValue]
    }

    var records: [String: Record] = [:]
    let stack: ActionStack
    private var lastIncarnation = 0
    static let key = "records"

    init(stack: ActionStack = ActionStack()) { self.stack = stack }

    func newIncarnation() -> Int {
        lastIncarnation += 1
        return lastIncarnation
    }

    func incarnation(of id: String) -> Int? { records[id]?.incarnation }

    /// The document as plain values.
    var plain: [String: [String: RecordValue]] { records.mapValues(\.fields) }

    /// Applies one of this user's ops; returns its inverse, or nil when it no longer applies (the
    /// record it names is not there).
    func apply(_ op: RecordOp) -> RecordOp? {
        switch op {
        case .set(let incarnation, let id, let field, let value):
            guard records[id]?.incarnation == incarnation else { return nil }
            let old = records[id]!.fields[field]
            records[id]!.fields[field] = value
            return .set(incarnation: incarnation, id: id, field: field, value: old)
        case .delete(let incarnation, let id):
            guard let record = records[id], record.incarnation == incarnation else { return nil }
            records[id] = nil
            return .create(id: id, fields: record.fields, restores: incarnation)
        case .create(let id, let fields, let restores):
            guard records[id] == nil else { return nil }
            let incarnation = restores ?? newIncarnation()
            records[id] = Record(incarnation: incarnation, fields: fields)
            return .delete(incarnation: incarnation, id: id)
        }
    }

    /// Applies this user's ops as one step; registers the inverse (nothing when no op applied).
    func perform(_ ops: [RecordOp]) {
        let inverses = ops.compactMap(apply)
        guard !inverses.isEmpty else { return }
        stack.registerUndo(RecordCommand(ops: inverses.reversed()), on: self, key: Self.key)
    }

    /// A peer's change, as it arrives.
    func receive(_ change: RecordChange) {
        stack.applyRemoteChange(change) {
            switch change {
            case .set(_, let id, let field, let value): records[id]?.fields[field] = value
            case .delete(_, let id): records[id] = nil
            case .create(let id, let fields, _): records[id] = Record(incarnation: newIncarnation(), fields: fields)
            }
        }
    }
}

/// One of this user's changes to a record, as an inverse stores it.
enum RecordOp: Hashable, Sendable, Codable {
    /// Sets a field (nil: removes it) of the record `incarnation` at `id`.
    case set(incarnation: Int, id: String, field: String, value: RecordValue?)
    /// Deletes the record `incarnation` at `id` (undoes a creation).
    case delete(incarnation: Int, id: String)
    /// Creates a record at `id` (undoes a deletion of the record `restores`).
    case create(id: String, fields: [String: RecordValue], restores: Int?)
}

/// A peer's change to the records.
enum RecordChange: Hashable, Sendable {
    case set(incarnation: Int, id: String, field: String, value: RecordValue)
    case delete(incarnation: Int, id: String)
    /// A record created at `id`, replacing the record `replaced` there.
    case create(id: String, fields: [String: RecordValue], replaced: Int?)
}

/// This user's step on a ``SharedRecords`` document: ops applied in order. A peer's change never
/// moves a record (they are found by id); it only kills the ops it makes pointless (a peer's
/// change is never reverted):
/// - a peer's write of a field kills this user's write of that field of that record;
/// - a peer's deletion of a record kills this user's ops on it, and this user's re-creation of a
///   record at its id (unless this step also deletes that very record: a replace);
/// - a peer's creation at an id kills this user's ops on the record it replaced and re-creations
///   at that id.
///
/// A re-creation killed so leaves the record it would have restored dead for the steps below: the
/// peer's change reads to them as a deletion (or a replacement) of that record, so that their ops
/// on it die too instead of staying live with nothing to do.
struct RecordCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.records"
    var ops: [RecordOp]

    func perform(on records: SharedRecords, in stack: ActionStack) { records.perform(ops) }

    func rebased(over change: RecordChange) -> RecordCommand? {
        let kept = ops.filter { !kills(change, $0) }
        return kept.isEmpty ? nil : RecordCommand(ops: kept)
    }

    /// A peer's change as it reads once this step ran: records do not move, but a record this
    /// step deletes is not there for the peer's change to touch, and one it creates is there.
    func transform(_ change: RecordChange) -> RecordChange? {
        var current: RecordChange? = change
        for op in ops {
            guard let change = current else { return nil }
            current = pass(change, op)
        }
        return current
    }

    /// Whether this step deletes the record `incarnation` at `id` (a replace deletes the record
    /// that its re-creation then puts back).
    private func deletes(_ incarnation: Int, at id: String) -> Bool {
        ops.contains { $0 == .delete(incarnation: incarnation, id: id) }
    }

    private func pass(_ change: RecordChange, _ op: RecordOp) -> RecordChange? {
        switch (change, op) {
        case (.set(let incarnation, _, _, _), .delete(let deleted, _)):
            return incarnation == deleted ? nil : change
        // A peer's deletion of a record this step deletes too still empties the slot: it goes on,
        // and kills the re-creations at that id below (the peer's removal is left alone).
        case (.create(let id, let fields, let replaced), .delete(let deleted, let at)):
            return id == at && replaced == deleted ? .create(id: id, fields: fields, replaced: nil) : change
        case (.create(let id, let fields, _), .create(let at, _, let restores)):
            return id == at ? .create(id: id, fields: fields, replaced: restores) : change
        // A peer's deletion at the id this op would refill kills the re-creation (see `kills`):
        // the record it restores never comes back, so below, the peer deleted that record (as a
        // peer's creation there reads as replacing it, above), and the ops on it die too.
        case (.delete(let incarnation, let id), .create(let at, _, let restores?)):
            return id == at && !deletes(incarnation, at: id) ? .delete(incarnation: restores, id: id) : change
        default:
            return change
        }
    }

    private func kills(_ change: RecordChange, _ op: RecordOp) -> Bool {
        switch (change, op) {
        case (.set(let incarnation, _, let field, _), .set(let target, _, let written, _)):
            return incarnation == target && field == written
        case (.set, _):
            return false
        case (.delete(let incarnation, let id), _):
            switch op {
            case .set(let target, _, _, _), .delete(let target, _):
                return target == incarnation
            case .create(let at, _, _):
                return at == id && !deletes(incarnation, at: id)
            }
        case (.create(let id, _, let replaced), _):
            switch op {
            case .set(let target, _, _, _), .delete(let target, _):
                return replaced != nil && target == replaced
            case .create(let at, _, _):
                return at == id
            }
        }
    }
}
