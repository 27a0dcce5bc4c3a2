// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation

/// Replays the sequences recorded from Yjs's and Loro's undo managers
/// (Tests/Fixtures/CollaborativeUndo) on a stack, event by event.
enum OracleReplay {
    /// One recorded file.
    struct Recording {
        let engine: String
        let model: String
        let sequences: [[String: Any]]
    }

    /// The recording `name` of the fixture, or of the folder that `COLLABORATIVE_ORACLE_FIXTURES`
    /// names: the script's `--first-seed` and `--out` record other seeds there, to explore beyond
    /// the fixture without changing it.
    static func load(_ name: String) throws -> Recording {
        let folder =
            ProcessInfo.processInfo.environment["COLLABORATIVE_ORACLE_FIXTURES"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/CollaborativeUndo").standardized
        let url = folder.appendingPathComponent("\(name).json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        return Recording(
            engine: object["engine"] as! String, model: object["model"] as! String,
            sequences: object["sequences"] as! [[String: Any]])
    }

    /// What happened at one event of a replay.
    struct Outcome {
        var document: Any
        var did: Bool?
    }

    /// A model replayed: applies an event, returns the document after it.
    protocol Model {
        init()
        var stack: ActionStack { get }
        func local(_ ops: [[String: Any]])
        func remote(_ ops: [[String: Any]])
        var document: Any { get }
        func matches(_ recorded: Any) -> Bool
    }

    /// Replays `sequence` on a fresh `M`; returns the index of the first event whose outcome
    /// differs from the recording (nil when every event matches), and a description of it.
    /// `checkingPresses`: whether what an undo or redo press returned must match too (Loro's
    /// presses return true for steps that change nothing; its documents are compared only).
    static func firstMismatch<M: Model>(
        _ sequence: [String: Any], as _: M.Type, checkingPresses: Bool = true
    ) -> (index: Int, text: String)? {
        let model = M()
        model.stack.groupsByEvent = false
        let steps = sequence["steps"] as! [[String: Any]]
        for (index, step) in steps.enumerated() {
            let event = step["event"] as! [String: Any]
            var did: Bool?
            switch event["type"] as! String {
            case "local":
                model.stack.beginUndoGrouping()
                model.local(event["ops"] as! [[String: Any]])
                model.stack.endUndoGrouping()
            case "remote":
                model.remote(event["ops"] as! [[String: Any]])
            case "undo":
                did = model.stack.canUndo
                model.stack.undo()
            case "redo":
                did = model.stack.canRedo
                model.stack.redo()
            default:
                return (index, "unknown event")
            }
            if !model.matches(step["a"]!) {
                return (index, "event \(index) \(event): expected \(step["a"]!), got \(model.document)")
            }
            if checkingPresses, let did, let recorded = step["did"] as? Bool, did != recorded {
                return (index, "event \(index) \(event): the press did \(did), recorded \(recorded)")
            }
        }
        return nil
    }
}

/// Sequence ops, as pieces of a `SequenceEdit` applied in order to `start`.
func sequencePieces<Element: Equatable & Sendable>(
    _ ops: [[String: Any]], on start: [Element], elements: ([String: Any]) -> [Element], local: Bool
) -> [SequenceEdit<Element>.Piece] {
    var scratch = start
    var pieces: [SequenceEdit<Element>.Piece] = []
    for op in ops {
        let position = op["pos"] as! Int
        if op["op"] as! String == "insert" {
            let inserted = elements(op)
            scratch.insert(contentsOf: inserted, at: position)
            pieces.append(.insert(inserted, at: position))
        } else {
            let count = op["len"] as! Int
            let deleted = Array(scratch[position..<position + count])
            scratch.removeSubrange(position..<position + count)
            pieces.append(.delete(deleted, at: position))
        }
    }
    guard local else { return pieces }
    // This user's replacement (a deletion, then an insertion at the same place) as
    // `SequenceEdit.replace` makes it.
    var normalized: [SequenceEdit<Element>.Piece] = []
    var index = 0
    while index < pieces.count {
        if index + 1 < pieces.count, case .delete(let old, let at) = pieces[index],
            case .insert(let new, let insertAt) = pieces[index + 1], at == insertAt
        {
            normalized += SequenceEdit.replace(old, with: new, at: at).pieces
            index += 2
            continue
        }
        normalized.append(pieces[index])
        index += 1
    }
    return normalized
}

final class ReplayedText: OracleReplay.Model {
    let model = SharedText()
    var stack: ActionStack { model.stack }
    init() {}
    func local(_ ops: [[String: Any]]) {
        let pieces = sequencePieces(
            ops, on: Array(model.text.unicodeScalars), elements: { Array(($0["text"] as! String).unicodeScalars) },
            local: true)
        model.edit(TextEdit(SequenceEdit(pieces)))
    }
    func remote(_ ops: [[String: Any]]) {
        let pieces = sequencePieces(
            ops, on: Array(model.text.unicodeScalars), elements: { Array(($0["text"] as! String).unicodeScalars) },
            local: false)
        model.receive(TextEdit(SequenceEdit(pieces)))
    }
    var document: Any { model.text }
    func matches(_ recorded: Any) -> Bool { (recorded as? String) == model.text }
}

final class ReplayedList: OracleReplay.Model {
    let model = SharedList()
    var stack: ActionStack { model.stack }
    init() {}
    func local(_ ops: [[String: Any]]) {
        model.edit(
            SequenceEdit(sequencePieces(ops, on: model.elements, elements: { $0["values"] as! [Int] }, local: true)))
    }
    func remote(_ ops: [[String: Any]]) {
        model.receive(
            SequenceEdit(sequencePieces(ops, on: model.elements, elements: { $0["values"] as! [Int] }, local: false)))
    }
    var document: Any { model.elements }
    func matches(_ recorded: Any) -> Bool { (recorded as? [Int]) == model.elements }
}

final class ReplayedRecords: OracleReplay.Model {
    let model = SharedRecords()
    var stack: ActionStack { model.stack }
    init() {}

    static func value(_ any: Any) -> RecordValue {
        if let string = any as? String { return .string(string) }
        return .int((any as! NSNumber).intValue)
    }

    static func fields(_ any: Any) -> [String: RecordValue] {
        (any as! [String: Any]).mapValues(value)
    }

    func local(_ ops: [[String: Any]]) {
        var inverses: [RecordOp] = []
        for op in ops {
            let id = op["id"] as! String
            switch op["op"] as! String {
            case "set":
                inverses.append(
                    model.apply(
                        .set(
                            incarnation: model.incarnation(of: id)!, id: id, field: op["field"] as! String,
                            value: Self.value(op["value"]!)))!)
            case "delete":
                inverses.append(model.apply(.delete(incarnation: model.incarnation(of: id)!, id: id))!)
            default:
                if let existing = model.incarnation(of: id) {
                    inverses.append(model.apply(.delete(incarnation: existing, id: id))!)
                }
                inverses.append(model.apply(.create(id: id, fields: Self.fields(op["fields"]!), restores: nil))!)
            }
        }
        stack.registerUndo(RecordCommand(ops: inverses.reversed()), on: model, key: SharedRecords.key)
    }

    func remote(_ ops: [[String: Any]]) {
        for op in ops {
            let id = op["id"] as! String
            switch op["op"] as! String {
            case "set":
                model.receive(
                    .set(
                        incarnation: model.incarnation(of: id)!, id: id, field: op["field"] as! String,
                        value: Self.value(op["value"]!)))
            case "delete":
                model.receive(.delete(incarnation: model.incarnation(of: id)!, id: id))
            default:
                model.receive(.create(id: id, fields: Self.fields(op["fields"]!), replaced: model.incarnation(of: id)))
            }
        }
    }

    var document: Any { model.plain }
    func matches(_ recorded: Any) -> Bool {
        guard let recorded = recorded as? [String: Any] else { return false }
        return recorded.mapValues(Self.fields) == model.plain
    }
}
