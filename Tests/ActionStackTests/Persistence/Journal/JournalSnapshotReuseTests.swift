// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

/// Issue 29: a recorder's snapshot encodes only the commands of the steps changed since its last
/// record, and copies the others' encodings from the records that wrote them; a recovery from such a
/// snapshot is still exactly the full save, whatever changed the steps meanwhile (a peer's change
/// that moved them, a removal, a keystroke that grew the newest, an undo, a branch entered).
@MainActor
@Suite struct JournalSnapshotReuseTests {
    /// A recorded shared text, in a directory of its own.
    @MainActor final class Recorded {
        let directory: URL
        let journal: HistoryJournal
        let document: SharedText
        let recorder: HistoryRecorder

        init(shape: ActionStack.HistoryShape = .linear) throws {
            directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("actionstack-reuse-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
            let stack = ActionStack()
            stack.historyShape = shape
            stack.groupsByEvent = false
            document = SharedText("", stack: stack)
            recorder = HistoryRecorder(journal: journal, stack: stack) { "doc" }
        }

        var stack: ActionStack { document.stack }

        func step(_ edit: TextEdit, _ name: String) {
            stack.beginUndoGrouping()
            document.edit(edit)
            stack.setActionName(name)
            stack.endUndoGrouping()
        }

        /// The recovery from the journal, against a full save, as archive bytes.
        func recoveredAndSaved() throws -> (recovered: Data, saved: Data) {
            let saved = try stack.savedHistory()
            let archive = try #require(
                try HistoryRecorder.recover(
                    from: journal, fingerprint: "doc", registry: testRegistry()))
            let replayed = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
            return (try bytes(replayed), try bytes(saved))
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    @Test func aSnapshotCopiesTheStepsThatDidNotChange() throws {
        let recorded = try Recorded()
        recorded.step(.insert("abc", at: 0), "One")
        recorded.step(.insert("def", at: 3), "Two")
        recorded.step(.insert("ghi", at: 6), "Three")
        #expect(recorded.recorder._reusedCommandEncodings == 0)
        // A reset starts the journal over: the next record is a snapshot, of four steps, three of
        // which the records before it encoded.
        try recorded.journal.reset()
        recorded.step(.insert("jkl", at: 9), "Four")
        #expect(recorded.recorder.lastError == nil)
        #expect(recorded.recorder._reusedCommandEncodings == 3)
        let (recovered, saved) = try recorded.recoveredAndSaved()
        #expect(recovered == saved)
    }

    @Test func aSnapshotEncodesAgainTheStepsAPeersChangeMoved() throws {
        let recorded = try Recorded()
        recorded.step(.insert("abc", at: 0), "One")
        recorded.step(.insert("def", at: 3), "Two")
        try recorded.journal.reset()
        // The peer's letter goes between the two steps' text: the second step's command moves
        // (its offset 3 becomes 4) and the snapshot must hold it moved.
        recorded.document.receive(.insert("P", at: 3))
        recorded.recorder.record()
        #expect(recorded.recorder.lastError == nil)
        let (recovered, saved) = try recorded.recoveredAndSaved()
        #expect(recovered == saved)
        #expect(recorded.recorder._reusedCommandEncodings <= 1, "the moved step was encoded again")
        recorded.stack.undo()
        recorded.stack.undo()
        #expect(recorded.document.text == "P")
    }

    @Test func aSnapshotEncodesAgainAStepThatGrewOrLostAnAction() throws {
        let recorded = try Recorded()
        recorded.step(.insert("abc", at: 0), "One")
        // A step of two actions on two documents; the second document goes.
        var other: SharedText? = SharedText("", stack: recorded.stack)
        recorded.stack.beginUndoGrouping()
        recorded.document.edit(.insert("x", at: 3))
        other!.edit(.insert("y", at: 0))
        recorded.stack.endUndoGrouping()
        try recorded.journal.reset()
        recorded.stack.removeAllActions(withTarget: other!)
        other = nil
        recorded.step(.insert("z", at: 4), "Three")
        var (recovered, saved) = try recorded.recoveredAndSaved()
        #expect(recovered == saved)
        // A keystroke that joins the newest step, then a snapshot.
        // The first keystroke opens its step; the next joins it (a join opens no group).
        func keystroke(_ letter: String, at offset: Int, first: Bool) {
            if first { recorded.stack.beginUndoGrouping() }
            let edit = TextEdit.insert(letter, at: offset)
            try! edit.apply(to: &recorded.document.text)
            recorded.stack.registerUndo(
                TextCommand(edit: edit.inverse), on: recorded.document, key: SharedText.key,
                options: .coalescing("typing"))
            if first { recorded.stack.endUndoGrouping() }
        }
        keystroke("w", at: 5, first: true)
        try recorded.journal.reset()
        keystroke("v", at: 6, first: false)
        #expect(try recorded.stack.savedHistory().steps.last?.actions.count == 2, "the keystroke joined the step")
        (recovered, saved) = try recorded.recoveredAndSaved()
        #expect(recovered == saved)
        recorded.stack.undo()
        #expect(recorded.document.text == "abcxz")
    }

    /// A seeded walk over edits, a peer's changes, undo, redo, branches and journal resets (each
    /// makes the next record a snapshot that copies what it can), comparing the recovery with a
    /// full save after every call.
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aRecoveryFromSnapshotsThatCopyIsTheFullSave(shape: ActionStack.HistoryShape) throws {
        var compared = 0
        var reused = 0
        for seed in UInt64(1)...UInt64(Workload.scaled(8)) {
            var random = SeededGenerator(seed: seed &+ (shape == .tree ? 50_000 : 0))
            let recorded = try Recorded(shape: shape)
            recorded.recorder._compactionFloor = 0
            var letter = 0
            func word() -> String {
                letter += 1
                return String(UnicodeScalar(UInt8(97 + letter % 26)))
            }
            for index in 0..<120 {
                let text = recorded.document.text
                let what: String
                switch random.next(10) {
                case 0, 1, 2:
                    let offset = random.int(0...text.unicodeScalars.count)
                    what = "edit at \(offset)"
                    recorded.step(.insert(word(), at: offset), "E\(index)")
                case 3, 4:
                    guard !text.isEmpty else { continue }
                    let offset = random.int(0...(text.unicodeScalars.count - 1))
                    let scalar = String(
                        text.unicodeScalars[text.unicodeScalars.index(text.unicodeScalars.startIndex, offsetBy: offset)]
                    )
                    what = "peer deletes at \(offset)"
                    recorded.document.receive(.delete(scalar, at: offset))
                case 5:
                    let offset = random.int(0...text.unicodeScalars.count)
                    what = "peer types at \(offset)"
                    recorded.document.receive(.insert("P", at: offset))
                case 6:
                    what = "undo"
                    if recorded.stack.canUndo { recorded.stack.undo() }
                case 7:
                    what = "redo"
                    if recorded.stack.canRedo { recorded.stack.redo() }
                case 8:
                    what = "reset"
                    try recorded.journal.reset()
                    recorded.recorder.record()
                default:
                    what = "earlier"
                    if shape == .tree {
                        try recorded.stack.earlier()
                    } else if recorded.stack.canUndo {
                        recorded.stack.undo()
                    }
                }
                #expect(recorded.recorder.lastError == nil, "seed \(seed) op \(index) \(what)")
                guard recorded.recorder.recordCount > 0 else { continue }
                let (recovered, saved) = try recorded.recoveredAndSaved()
                if recovered != saved {
                    Issue.record(
                        """
                        seed \(seed) op \(index) \(what): the recovery differs from a full save
                          saved:     \(String(decoding: saved, as: UTF8.self))
                          recovered: \(String(decoding: recovered, as: UTF8.self))
                        """)
                    return
                }
                compared += 1
            }
            reused += recorded.recorder._reusedCommandEncodings
        }
        #expect(compared > 100 / Workload.divisor)
        #expect(reused > 0, "the snapshots copied some steps' commands")
    }
}
