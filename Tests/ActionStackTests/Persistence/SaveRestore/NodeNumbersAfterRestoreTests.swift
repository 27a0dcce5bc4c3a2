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

// A branching history never gives one number to two changes, not even across a relaunch: a saved
// history keeps the number the next change gets (`SavedHistory.nextNode`, as vim keeps `seq_last`
// in its undo file), so the numbers of changes that are gone (left out of the save, freed, pruned,
// removed) are not given again after a restore, a recovery from a journal, or a round trip through
// an archive.

@MainActor
@Suite struct NodeNumbersAfterRestoreTests {
    /// Three command steps (nodes 1 to 3), then a step registered as a closure (node 4), undone:
    /// a save leaves it out (nothing beyond a closure could be reached after a relaunch).
    private func historyWhoseNewestStepIsLeftOut() throws -> (SavedHistory, ActionStack) {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        for value in 1...3 { hrChange(doc, to: value, on: stack) }
        hrClosureChange(doc, to: 4, on: stack)
        #expect(stack.currentNode?.sequence == 4)
        stack.undo()
        let saved = try stack.savedHistory()
        #expect(saved.omittedSteps == 1)
        #expect(saved.steps.map(\.node) == [1, 2, 3])
        return (saved, stack)
    }

    @Test func aSaveKeepsTheNumberOfTheNextChange() throws {
        let (saved, _) = try historyWhoseNewestStepIsLeftOut()
        #expect(saved.nextNode == 5)
    }

    @Test func aChangeAfterARestoreIsNotGivenTheNumberOfAChangeLeftOut() throws {
        let (saved, _) = try historyWhoseNewestStepIsLeftOut()
        let doc = HRDoc()
        doc.value = 3
        let restored = hrStack(.tree)
        try restored.restoreHistory(saved) { _ in doc }
        #expect(restored.currentNode?.sequence == 3)
        hrChange(doc, to: 9, on: restored)
        #expect(restored.currentNode?.sequence == 5)
        // And the save after it goes on from there.
        #expect(try restored.savedHistory().nextNode == 6)
    }

    @Test func theNumberSurvivesAnArchive() throws {
        let (saved, _) = try historyWhoseNewestStepIsLeftOut()
        let read = try hrRoundTrip(saved)
        #expect(read.nextNode == 5)
        let data = try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded()
        #expect(String(decoding: data, as: UTF8.self).contains(#""nextNode":5"#))
    }

    @Test func aFreedTargetsNewestStepDoesNotGiveItsNumberAgain() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        do {
            let other = HRDoc("other")
            hrChange(other, to: 5, on: stack)  // node 3, on a target about to go
            #expect(stack.currentNode?.sequence == 3)
            stack.undo()
        }
        // Node 3's target is freed: the step goes when the stack finds it.
        let saved = try stack.savedHistory()
        #expect(saved.steps.map(\.node) == [1, 2])
        #expect(saved.nextNode == 4)
        let restored = hrStack(.tree)
        try restored.restoreHistory(saved) { _ in doc }
        hrChange(doc, to: 7, on: restored)
        #expect(restored.currentNode?.sequence == 4)
    }

    @Test func aHistoryWithoutTheNumberNumbersOnFromTheHighestNode() throws {
        var (saved, _) = try historyWhoseNewestStepIsLeftOut()
        saved.nextNode = nil  // as an archive written before the number was saved
        let doc = HRDoc()
        let restored = hrStack(.tree)
        try restored.restoreHistory(saved) { _ in doc }
        hrChange(doc, to: 9, on: restored)
        #expect(restored.currentNode?.sequence == 4)
    }

    @Test func aLinearHistorySavesNoNumber() throws {
        let stack = hrStack(.linear)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack)
        #expect(try stack.savedHistory().nextNode == nil)
    }

    @Test func aNumberNotAboveEveryNodeIsRefused() throws {
        var (saved, _) = try historyWhoseNewestStepIsLeftOut()
        saved.nextNode = 3
        #expect(throws: SavedHistory.StructuralProblem.nextNodeNotAbove(next: 3, node: 3)) { try saved.validate() }
        let problem = try #require(
            (try? saved.validate()).map { _ in nil } ?? (saved.problem as SavedHistory.StructuralProblem?))
        #expect(problem.kind == .nextNodeNotAbove && problem.node == 3)
        #expect(problem.description == "the next node number 3 is not above node 3, which the history holds")
        // A restore refuses it and leaves the stack empty.
        let restored = hrStack(.tree)
        let doc = HRDoc()
        #expect(throws: (any Error).self) { try restored.restoreHistory(saved) { _ in doc } }
        #expect(!restored.canUndo && restored.undoCount == 0)
        // An archive neither writes nor reads it.
        #expect(throws: (any Error).self) { try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded() }
        saved.nextNode = 5
        let good = String(
            decoding: try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded(), as: UTF8.self)
        for bad in ["3", "-1", "2147483649"] {
            let data = Data(good.replacingOccurrences(of: #""nextNode":5"#, with: #""nextNode":\#(bad)"#).utf8)
            #expect(throws: HistoryArchiveError.self) { try HistoryArchive(decoding: data, registry: testRegistry()) }
        }
        // The largest number a stack can go on from is accepted.
        saved.nextNode = SavedHistory.maximumNode + 1
        #expect(throws: Never.self) { try saved.validate() }
        saved.nextNode = SavedHistory.maximumNode + 2
        #expect(throws: SavedHistory.StructuralProblem.nodeOutOfRange(SavedHistory.maximumNode + 2)) {
            try saved.validate()
        }
    }

    @Test func aJournalRecoversTheNumber() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let stack = hrStack(.tree)
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(doc.value)" }
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        let other = HRDoc("other")
        hrChange(other, to: 5, on: stack)  // node 3
        // Node 3 goes by removal: a record of what changed, after the snapshot.
        stack.removeAllActions(withTarget: other)
        #expect(stack.undoCount == 2)
        withExtendedLifetime(recorder) {}
        let archive = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v\(doc.value)", registry: testRegistry()))
        let recovered = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        #expect(recovered.steps.map(\.node) == [1, 2])
        #expect(recovered.nextNode == 4)
        // Every record's history agrees with a full save at that point: the last one with the
        // stack's own save.
        #expect(try stack.savedHistory().nextNode == 4)
        let restored = hrStack(.tree)
        try restored.restoreHistory(recovered) { _ in doc }
        hrChange(doc, to: 8, on: restored)
        #expect(restored.currentNode?.sequence == 4)
    }

    /// A journal whose record gives a next number not above a node held (damaged, or hostile) is
    /// refused with a clear error at that record; a number out of range is refused as it is read.
    @Test func aJournalRecordWithANextNumberNotAboveItsNodesIsRefused() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let (text, written) = try journalSnapshotWithANextField(in: files)
        for (bad, reason) in [
            ("1", "is not above every node held"), ("0", "out of range"), ("2147483649", "out of range"),
        ] {
            let damaged = HistoryJournal(url: files.directory.appendingPathComponent("damaged-\(bad).journal"))
            try damaged.append(
                Data(text.replacingCharacters(in: written, with: #""next":\#(bad)"#).utf8), fingerprint: "v")
            #expect {
                _ = try HistoryRecorder.recover(from: damaged, fingerprint: "v", registry: testRegistry())
            } throws: { error in
                "\(error)".contains(reason)
            }
        }
    }
}

/// The first record of a journal of two changes on a branching history (a snapshot, which gives
/// the next node number as `"next"`), as text, and where its `"next"` field is: for the tests that
/// damage it.
@MainActor
func journalSnapshotWithANextField(in files: RecorderFiles) throws -> (text: String, next: Range<String.Index>) {
    let stack = hrStack(.tree)
    let doc = HRDoc()
    let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v" }
    hrChange(doc, to: 1, on: stack)
    hrChange(doc, to: 2, on: stack)
    withExtendedLifetime(recorder) {}
    let snapshot = try #require(try files.journal.records().first)
    let text = String(decoding: snapshot.payload, as: UTF8.self)
    return (text, try #require(text.firstRange(of: #/"next":\d+/#)))
}

extension SavedHistory {
    /// The problem `validate()` throws, if any.
    fileprivate var problem: StructuralProblem? {
        do {
            try validate()
            return nil
        } catch {
            return error
        }
    }
}
