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

/// A journal replays the moves of branches whose anchor's step went in the same call: a removal by
/// target that takes a run of steps moves a branch once per step that goes (onto a node that goes
/// next, in the same call), and a jump that finds a step dead moves the branches that left from its
/// node. The record of that call is a delta (not a snapshot), and the recovery from it is exactly
/// the full save, before and after the jumps that enter the moved branches (issue 30's remaining
/// case; see ``BranchesRebasedIndependentlyTests`` for the same histories without a journal).
@Suite @MainActor struct JournaledBranchMovesTests {
    typealias Note = SnapshotsAfterRemoteChangesTests.Note
    typealias NoteCommand = SnapshotsAfterRemoteChangesTests.NoteCommand

    /// A watched branching history of a shared text and a note, its journal in a fresh directory.
    final class Recorded {
        let directory: URL
        let journal: HistoryJournal
        let document: SharedText
        let note = Note()
        let recorder: HistoryRecorder
        var stack: ActionStack { document.stack }

        init(_ text: String) throws {
            directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("actionstack-journaled-branch-moves-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
            let stack = ActionStack()
            stack.historyShape = .tree
            stack.groupsByEvent = false
            document = SharedText(text, stack: stack)
            recorder = HistoryRecorder(journal: journal, stack: stack) { "doc" }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func step(_ body: () -> Void) {
            stack.beginUndoGrouping()
            body()
            stack.endUndoGrouping()
        }

        /// A step that only touches the note, so that a removal by target takes it whole. Its item
        /// is long, so that the records of the small calls after it stay deltas (a journal writes a
        /// snapshot once its records outweigh the last one).
        func noteStep(_ item: String) {
            step {
                note.items.append(item + String(repeating: "-", count: 4_000))
                stack.registerUndo(NoteCommand(add: nil), on: note, key: "note")
            }
        }

        /// The payload of the journal's last record, as text.
        func lastRecord() throws -> String {
            let record = try #require(try journal.records().last)
            return String(decoding: record.payload, as: UTF8.self)
        }

        /// Whether a recovery from the journal is exactly the full save (recorded otherwise).
        func expectRecoveryIsTheSave(_ when: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(recorder.lastError == nil, "\(when): \(String(describing: recorder.lastError))")
            let (recovered, saved) = try #require(
                try SnapshotsAfterRemoteChangesTests.recoveredAndSaved(journal, stack))
            #expect(
                recovered == saved,
                """
                \(when): the recovery is not the full save
                recovered: \(String(decoding: recovered, as: UTF8.self))
                saved:     \(String(decoding: saved, as: UTF8.self))
                """, sourceLocation: sourceLocation)
        }
    }

    /// #1 "A"; #2 and #3 touch only the note; #4 "B" after "A"; back to #3, #5 "C" (#4 becomes a
    /// branch that leaves from #3); back to #1. The peer types "zz"; then the note's steps go: the
    /// branch to #4 moves from #3 to #2, which goes in the same call, and on to #1.
    @Test func aBranchMovedTwiceInOneRemovalReplaysToTheSave() throws {
        let recorded = try Recorded("")
        let (doc, stack) = (recorded.document, recorded.stack)
        recorded.step { doc.type("A", at: 0) }
        recorded.noteStep("1")
        recorded.noteStep("2")
        recorded.step { doc.type("B", at: 1) }
        stack.undo()
        recorded.step { doc.type("C", at: 1) }
        stack.undo()
        stack.undo()
        stack.undo()
        #expect(stack.currentNode?.sequence == 1)
        doc.receive(.insert("zz", at: 0))
        stack.removeAllActions(withTarget: recorded.note)
        let record = try recorded.lastRecord()
        #expect(record.contains(#""delta""#), "the removal was recorded as a delta: \(record)")
        #expect(record.contains(#""anchor""#), "the delta moves the branch: \(record)")
        #expect(stack.redoBranches.map(\.sequence) == [4, 5], "both branches leave from #1 now")
        try recorded.expectRecoveryIsTheSave("after the removal")
        try stack.jump(toNode: .init(sequence: 4))
        #expect(doc.text == "zzAB")
        try recorded.expectRecoveryIsTheSave("at #4")
        try stack.jump(toNode: .init(sequence: 5))
        #expect(doc.text == "zzAC")
        try recorded.expectRecoveryIsTheSave("at #5")
    }

    /// #1 "A"; #2 touches only the note; #3 "C"; back to #2, #4 and #5 touch only the note (#3 is
    /// a branch that leaves from #2). The peer types "zz"; the note's steps go, undo steps this
    /// time: the branch to #3 leaves from #1, where the document then stands.
    @Test func aBranchFromAnUndoStepThatGoesReplaysToTheSave() throws {
        let recorded = try Recorded("")
        let (doc, stack) = (recorded.document, recorded.stack)
        recorded.step { doc.type("A", at: 0) }
        recorded.noteStep("1")
        recorded.step { doc.type("C", at: 1) }
        stack.undo()
        recorded.noteStep("2")
        recorded.noteStep("3")
        #expect(stack.currentNode?.sequence == 5)
        doc.receive(.insert("zz", at: 0))
        stack.removeAllActions(withTarget: recorded.note)
        #expect(stack.currentNode?.sequence == 1)
        let record = try recorded.lastRecord()
        #expect(record.contains(#""delta""#), "the removal was recorded as a delta: \(record)")
        try recorded.expectRecoveryIsTheSave("after the removal")
        try stack.jump(toNode: .init(sequence: 3))
        #expect(doc.text == "zzAC")
        try recorded.expectRecoveryIsTheSave("at #3")
    }

    /// A long step on the note first (#1, so that the records after it stay deltas), then "xyz";
    /// #2 "A"; #3 "B"; #4 erases "y"; #5 "C"; back to #4, #6 "E" (#5 a branch from #4); back to
    /// #3, #7 "F" (#4 and #6 a branch from #3); back to #3, the peer erases "y" (#4 has nothing
    /// left to do); back to #2, the peer types "zz"; #8 "G". A jump to #5 finds #4 dead on the way:
    /// the branch to #5 moves to #3 in that call, and the journal's record of the jump (a delta that
    /// enters the moved branch at its new anchor) replays to the save.
    @Test func aBranchMovedByAJumpThatFindsAStepDeadReplaysToTheSave() throws {
        let recorded = try Recorded("xyz")
        let (doc, stack) = (recorded.document, recorded.stack)
        recorded.noteStep("1")
        recorded.step { doc.type("A", at: 0) }
        recorded.step { doc.type("B", at: 1) }
        recorded.step { doc.erase("y", at: 3) }
        recorded.step { doc.type("C", at: 4) }
        stack.undo()
        recorded.step { doc.type("E", at: 0) }
        stack.undo()
        stack.undo()
        recorded.step { doc.type("F", at: 0) }
        stack.undo()
        doc.receive(.delete("y", at: 3))
        stack.undo()
        doc.receive(.insert("zz", at: 0))
        recorded.step { doc.type("G", at: 3) }
        #expect(doc.text == "zzAGxz")
        #expect(stack.currentNode?.sequence == 8)
        try stack.jump(toNode: .init(sequence: 5))
        #expect(doc.text == "zzABxzC")
        let record = try recorded.lastRecord()
        #expect(record.contains(#""delta""#), "the jump was recorded as a delta: \(record)")
        try recorded.expectRecoveryIsTheSave("at #5")
        try stack.jump(toNode: .init(sequence: 7))
        #expect(doc.text == "FzzABxz")
        try recorded.expectRecoveryIsTheSave("at #7")
    }
}
