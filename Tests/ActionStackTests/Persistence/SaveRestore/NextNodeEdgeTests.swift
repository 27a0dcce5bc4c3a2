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

// The next node number of a branching history (`SavedHistory.nextNode`) at the edges: after every
// way a change can leave the history (left out of a save by a closure or `maximumSteps`, freed,
// removed by target, pruned, trimmed, the whole history removed), a recorder's journal read back
// gives the history a full save gives at the same point, byte for byte, and the change made after
// restoring either is numbered after every change made before. Then a restore that cuts, histories
// made by hand with odd numbers, and damaged archives.

@MainActor
@Suite struct NextNodeEdgeTests {
    /// The documents a script changes, kept alive by the script unless it lets one go.
    final class Documents {
        var docs: [String: HRDoc] = ["doc": HRDoc("doc")]
        subscript(_ id: String) -> HRDoc {
            if let doc = docs[id] { return doc }
            let doc = HRDoc(id)
            docs[id] = doc
            return doc
        }
    }

    /// Runs `script` on a branching stack that a recorder watches; after each of its steps, the
    /// journal's last record read back is the archive a full save makes then (same bytes), and a
    /// change made after restoring it is numbered `nextNode`.
    private func expectRecorderAgreesWithASave(
        maximumSteps: Int = .max, setUp: (ActionStack) -> Void = { _ in },
        _ script: [(ActionStack, Documents) -> Void], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let stack = hrStack(.tree)
        setUp(stack)
        let documents = Documents()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack, maximumSteps: maximumSteps) { "v" }
        for (index, move) in script.enumerated() {
            move(stack, documents)
            stack.endEvent()
            let full = try stack.savedHistory(maximumSteps: maximumSteps)
            let expected = try HistoryArchive(fingerprint: "v", histories: [HistoryRecorder.defaultHistoryName: full])
                .encoded()
            let archives = try HistoryRecorder.recordedArchives(in: files.journal, registry: testRegistry())
            guard let last = archives.last else {
                // Nothing changed yet: nothing to record.
                #expect(full.steps.isEmpty, "step \(index): no record", sourceLocation: sourceLocation)
                continue
            }
            let recovered = try #require(last.histories[HistoryRecorder.defaultHistoryName])
            #expect(
                recovered.nextNode == full.nextNode, "step \(index): the recorded next node",
                sourceLocation: sourceLocation)
            let recorded = String(decoding: try last.encoded(), as: UTF8.self)
            let saved = String(decoding: expected, as: UTF8.self)
            #expect(
                recorded == saved, "step \(index): recorded \(recorded), saved \(saved)", sourceLocation: sourceLocation
            )
            // A change after restoring the recovered history is numbered after every change made.
            guard let next = full.nextNode else {
                #expect(stack.historyShape == .linear, "step \(index)", sourceLocation: sourceLocation)
                continue
            }
            let restored = hrStack(.tree)
            let copies = Documents()
            try restored.restoreHistory(recovered) { key in copies[key] }
            hrChange(copies["doc"], to: 1_000, on: restored)
            #expect(restored.currentNode?.sequence == next, "step \(index)", sourceLocation: sourceLocation)
        }
        withExtendedLifetime(recorder) {}
    }

    @Test func stepsLeftOutByClosuresAndTheLimitKeepTheirNumbers() throws {
        try expectRecorderAgreesWithASave(
            maximumSteps: 2,
            [
                { stack, d in hrChange(d["doc"], to: 1, on: stack) },
                { stack, d in hrChange(d["doc"], to: 2, on: stack) },
                { stack, d in hrChange(d["doc"], to: 3, on: stack) },  // node 1 beyond the limit
                { stack, d in hrClosureChange(d["doc"], to: 4, on: stack) },  // node 4: nothing saved beyond it
                { stack, _ in stack.undo() },
                { stack, d in hrChange(d["doc"], to: 5, on: stack) },  // node 5, node 4 a branch
                { stack, _ in _ = try? stack.earlier(3) },
                { stack, d in hrChange(d["doc"], to: 6, on: stack) },
            ])
    }

    @Test func freedAndRemovedTargetsKeepTheirNumbers() throws {
        try expectRecorderAgreesWithASave([
            { stack, d in hrChange(d["doc"], to: 1, on: stack) },
            { stack, d in hrChange(d["other"], to: 1, on: stack) },  // node 2
            { stack, d in hrChange(d["third"], to: 1, on: stack) },  // node 3
            { stack, _ in stack.undo() },
            { _, d in d.docs["third"] = nil },  // node 3 freed: swept
            { stack, d in stack.removeAllActions(withTarget: d["other"]) },  // node 2 removed
            { stack, d in hrChange(d["doc"], to: 2, on: stack) },  // node 4
            { stack, d in hrChange(d["fourth"], to: 1, on: stack) },  // node 5
            { _, d in d.docs["fourth"] = nil },  // the newest node freed while current
        ])
    }

    @Test func prunedAndTrimmedStepsKeepTheirNumbers() throws {
        try expectRecorderAgreesWithASave(
            setUp: {
                $0.maximumBranchSteps = 1
                $0.levelsOfUndo = 3
            },
            [
                { stack, d in hrChange(d["doc"], to: 1, on: stack) },
                { stack, d in hrChange(d["doc"], to: 2, on: stack) },
                { stack, d in hrChange(d["doc"], to: 3, on: stack) },
                { stack, _ in stack.undo() },
                { stack, _ in stack.undo() },
                { stack, d in hrChange(d["doc"], to: 4, on: stack) },  // [2, 3] a branch: 3 pruned
                { stack, d in hrChange(d["doc"], to: 5, on: stack) },
                { stack, d in hrChange(d["doc"], to: 6, on: stack) },  // node 1 trimmed: a new root
                { stack, d in hrChange(d["doc"], to: 7, on: stack) },
            ])
    }

    @Test func aRemovedHistoryKeepsItsNumbers() throws {
        try expectRecorderAgreesWithASave([
            { stack, d in hrChange(d["doc"], to: 1, on: stack) },
            { stack, d in hrChange(d["doc"], to: 2, on: stack) },
            { stack, _ in stack.undo() },
            { stack, _ in stack.removeAllActions() },  // a new root, numbered after every node
            { stack, d in hrChange(d["doc"], to: 3, on: stack) },
            { stack, _ in stack.removeAllActions() },
        ])
    }

    /// Switching shape: a linear history saves no number; switching to a tree numbers the steps
    /// held from 0 (see "Switching shape" in the article), and the journal follows.
    @Test func switchingShapeUnderARecorder() throws {
        try expectRecorderAgreesWithASave(
            setUp: { $0.historyShape = .linear },
            [
                { stack, d in hrChange(d["doc"], to: 1, on: stack) },
                { stack, d in hrChange(d["doc"], to: 2, on: stack) },
                { stack, _ in stack.historyShape = .tree },
                { stack, _ in stack.undo() },
                { stack, d in hrChange(d["doc"], to: 3, on: stack) },  // node 3, node 2 a branch
                { stack, d in hrChange(d["other"], to: 1, on: stack) },
                { stack, d in stack.removeAllActions(withTarget: d["other"]) },
                { stack, _ in stack.historyShape = .linear },
                { stack, d in hrChange(d["doc"], to: 4, on: stack) },
                { stack, _ in stack.historyShape = .tree },
                { stack, d in hrChange(d["doc"], to: 5, on: stack) },
            ])
    }

    /// Steps that come to nothing (an empty group dropped, a group whose only target is freed
    /// before it closes, a group registered with registration disabled): whatever numbers they
    /// take, the journal agrees with a full save after each.
    @Test func stepsThatComeToNothingUnderARecorder() throws {
        try expectRecorderAgreesWithASave(
            setUp: { $0.dropsEmptyGroups = true },
            [
                { stack, d in hrChange(d["doc"], to: 1, on: stack) },
                { stack, _ in
                    stack.beginUndoGrouping()
                    stack.endUndoGrouping()
                },
                { stack, d in hrChange(d["doc"], to: 2, on: stack) },
                { stack, d in
                    stack.beginUndoGrouping()
                    HRSet(value: 1).perform(on: d["brief"], in: stack)
                    d.docs["brief"] = nil
                    stack.endUndoGrouping()
                },
                { stack, d in
                    stack.disableUndoRegistration()
                    hrChange(d["doc"], to: 3, on: stack)
                    stack.enableUndoRegistration()
                },
                { stack, _ in stack.undo() },
                { stack, d in hrChange(d["doc"], to: 4, on: stack) },
            ])
    }

    /// Seeded scripts of every way a number can be given and its change go, under a recorder with
    /// and without a save limit and branch limit. (Seed 45 found that a recovery under a save limit
    /// kept another of two branches at one distance than a save did.)
    @Test(arguments: Array(0..<24) + [45]) func seededScriptsUnderARecorder(seed: Int) throws {
        var random = LinearCongruentialGenerator(seed: UInt64(seed), stream: 3)
        func next(_ bound: Int) -> Int { random.next(bound) }
        let names = ["doc", "a", "b"]
        var script: [(ActionStack, Documents) -> Void] = []
        for step in 0..<24 {
            let name = names[next(names.count)]
            switch next(12) {
            case 0, 1, 2: script.append { stack, d in hrChange(d[name], to: step, on: stack) }
            case 3: script.append { stack, d in hrClosureChange(d[name], to: step, on: stack) }
            case 4, 5: script.append { stack, _ in stack.undo() }
            case 6: script.append { stack, _ in stack.redo() }
            case 7:
                let count = 1 + next(3)
                script.append { stack, _ in _ = try? stack.earlier(count) }
            case 8: script.append { stack, _ in _ = try? stack.later(1) }
            case 9: script.append { _, d in d.docs[name] = name == "doc" ? d.docs[name] : nil }
            case 10: script.append { stack, d in stack.removeAllActions(withTarget: d[name]) }
            default:
                if next(4) == 0 {
                    script.append { stack, _ in stack.removeAllActions() }
                } else {
                    let node = next(step + 2)
                    script.append { stack, _ in try? stack.jump(toNode: .init(sequence: node)) }
                }
            }
        }
        try expectRecorderAgreesWithASave(
            maximumSteps: seed % 3 == 0 ? 3 : .max,
            setUp: {
                if seed % 2 == 1 { $0.maximumBranchSteps = 2 }
                if seed % 4 == 2 { $0.levelsOfUndo = 4 }
            }, script)
    }

    /// Two command steps on "doc" and one on "gone", the last undone: a history whose redo step a
    /// restore cuts when "gone" does not resolve.
    private func historyWithAStepOnAKeyThatWillNotResolve() throws -> SavedHistory {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        let gone = HRDoc("gone")
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        hrChange(gone, to: 1, on: stack)
        stack.undo()
        return try withExtendedLifetime(gone) { try stack.savedHistory() }
    }

    /// A restore recorded by a recorder (the restore is its first record): the journal keeps the
    /// number the restore went on from, a given one or, without one, the one after every node saved
    /// (a step the restore cut included).
    @Test func aRecordedRestoreKeepsTheNumberItWentOnFrom() throws {
        var cut = try historyWithAStepOnAKeyThatWillNotResolve()
        for next in [nil, 50] {
            cut.nextNode = next
            let saved = cut
            try expectRecorderAgreesWithASave([
                { stack, d in
                    d["doc"].value = 2
                    _ = try? stack.restoreHistory(saved) { $0 == "doc" ? d["doc"] : nil }
                    #expect(stack.undoCount == 2 && stack.redoCount == 0)
                },
                { stack, d in hrChange(d["doc"], to: 3, on: stack) },
                { stack, _ in stack.undo() },
                { stack, _ in stack.removeAllActions() },
                { stack, d in hrChange(d["doc"], to: 4, on: stack) },
            ])
        }
    }

    /// After a restore, `removeAllActions()` numbers the new root after every node so far, those
    /// only the saved next number remembers included.
    @Test func aNewRootAfterARestoreIsNumberedAfterTheSavedNextNumber() throws {
        var saved = try historyWithAStepOnAKeyThatWillNotResolve()
        saved.nextNode = 50
        let stack = hrStack(.tree)
        let doc = HRDoc()
        doc.value = 2
        try stack.restoreHistory(saved) { $0 == "doc" ? doc : nil }
        stack.removeAllActions()
        #expect(stack.historyTree?.root.sequence == 50)
        hrChange(doc, to: 3, on: stack)
        #expect(stack.currentNode?.sequence == 51)
        #expect(try stack.savedHistory().nextNode == 52)
    }

    /// The largest next number accepted: the change after it is numbered above
    /// `SavedHistory.maximumNode`, which a save holds but an archive refuses to write, as it
    /// refuses any node above it; the stack keeps working.
    @Test func theLargestNextNumberLeavesAStackWhoseNextChangeCannotBeWritten() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack)
        var saved = try stack.savedHistory()
        saved.nextNode = SavedHistory.maximumNode + 1
        let restored = hrStack(.tree)
        try restored.restoreHistory(saved) { _ in doc }
        hrChange(doc, to: 2, on: restored)
        #expect(restored.currentNode?.sequence == SavedHistory.maximumNode + 1)
        let again = try restored.savedHistory()
        #expect(throws: HistoryArchiveError.self) {
            try HistoryArchive(fingerprint: "f", histories: ["h": again]).encoded()
        }
        restored.undo()
        #expect(doc.value == 1)
        #expect(restored.currentNode?.sequence == 1)
    }

    /// A restore that cuts the history (a step whose key does not resolve) still numbers the next
    /// change after every node of the saved history.
    @Test func aRestoreThatCutsNumbersAfterTheNodesItCut() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        let gone = HRDoc("gone")
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        hrChange(gone, to: 1, on: stack)  // node 3, on a key that will not resolve
        stack.undo()
        let saved = try stack.savedHistory()
        #expect(saved.nextNode == 4)
        for next in [saved.nextNode, nil] {
            var history = saved
            history.nextNode = next
            let restored = hrStack(.tree)
            let copy = HRDoc()
            copy.value = 2
            let report = try restored.restoreHistory(history) { $0 == "doc" ? copy : nil }
            #expect(report.cuts.count == 1)
            #expect(restored.redoCount == 0)
            hrChange(copy, to: 9, on: restored)
            // Nil numbers on from the highest node the saved history holds: node 3 was a change.
            #expect(restored.currentNode?.sequence == 4, "next node \(String(describing: next))")
        }
        withExtendedLifetime(gone) {}
    }

    /// A history made by hand: a next number far above its nodes is taken as given; the largest
    /// one accepted numbers the next change with it.
    @Test func aHandMadeNextNumberIsTakenAsGiven() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack)
        var saved = try stack.savedHistory()
        for (next, expected) in [(2, 2), (50, 50), (SavedHistory.maximumNode, SavedHistory.maximumNode)] {
            saved.nextNode = next
            let restored = hrStack(.tree)
            let copy = HRDoc()
            copy.value = 1
            try restored.restoreHistory(saved) { _ in copy }
            hrChange(copy, to: 2, on: restored)
            #expect(restored.currentNode?.sequence == expected)
            let again = try restored.savedHistory()
            #expect(again.nextNode == expected + 1)
            #expect(try hrRoundTrip(again).nextNode == expected + 1)
        }
        // A linear stack takes a history with a next number and numbers nothing.
        saved.nextNode = 50
        let linear = hrStack(.linear)
        let copy = HRDoc()
        copy.value = 1
        try linear.restoreHistory(saved) { _ in copy }
        #expect(linear.undoCount == 1)
        #expect(try linear.savedHistory().nextNode == nil)
    }

    /// A linear stack's save (no number), given a number by hand and restored into a branching
    /// stack: the number is what the branching stack goes on from.
    @Test func aLinearSaveGivenANumberNumbersABranchingRestore() throws {
        let stack = hrStack(.linear)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        var saved = try stack.savedHistory()
        #expect(saved.nextNode == nil)
        let plain = hrStack(.tree)
        try plain.restoreHistory(saved) { _ in doc }
        hrChange(doc, to: 3, on: plain)
        #expect(plain.currentNode?.sequence == 3)
        saved.nextNode = 7
        let numbered = hrStack(.tree)
        doc.value = 2
        try numbered.restoreHistory(saved) { _ in doc }
        hrChange(doc, to: 3, on: numbered)
        #expect(numbered.currentNode?.sequence == 7)
    }

    /// Damaged "next" fields in a journal's snapshot: the recovery refuses the record with an
    /// error, never reads it one way or the other, and never crashes.
    @Test func damagedNextFieldsInAJournalAreRefused() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let (text, written) = try journalSnapshotWithANextField(in: files)
        for (index, bad) in [
            #""next":null"#, #""next":"3""#, #""next":3.5"#, #""next":true"#, #""next":3,"next":3"#,
            #""next":-3"#, #""next":99999999999999999999999"#, #""next":[3]"#, #""next":{}"#,
        ].enumerated() {
            let damaged = HistoryJournal(url: files.directory.appendingPathComponent("damaged-\(index).journal"))
            try damaged.append(Data(text.replacingCharacters(in: written, with: bad).utf8), fingerprint: "v")
            #expect(throws: (any Error).self, "\(bad)") {
                _ = try HistoryRecorder.recover(from: damaged, fingerprint: "v", registry: testRegistry())
            }
        }
    }

    /// Damaged "nextNode" fields in an archive: refused whole with a `HistoryArchiveError`, never
    /// read one way or the other.
    @Test func damagedNextNodeFieldsAreRefused() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        let saved = try stack.savedHistory()
        let good = String(
            decoding: try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded(), as: UTF8.self)
        #expect(good.contains(#""nextNode":3"#))
        for bad in [
            #""nextNode":null"#, #""nextNode":"3""#, #""nextNode":3.5"#, #""nextNode":true"#,
            #""nextNode":3,"nextNode":3"#, #""nextNode":99999999999999999999999"#, #""nextNode":[3]"#,
        ] {
            let data = Data(good.replacingOccurrences(of: #""nextNode":3"#, with: bad).utf8)
            #expect(throws: HistoryArchiveError.self, "\(bad)") {
                try HistoryArchive(decoding: data, registry: testRegistry())
            }
        }
    }
}
