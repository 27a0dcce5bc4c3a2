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
import Testing

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The recorder appends a record for every change of a watched stack's history, and only for those:
// coalesced keystrokes, removals, trims, tree moves, changes made by observers and by onError.

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct RecordedChangesTests {
    @Test func everyChangeIsRecordedOnceAndQueriesAreNot() throws {
        let url = hrTemporaryURL("once.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack(.tree)
        let doc = HRDoc()
        let other = HRDoc("other")
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        var expected = 0
        func changed(_ what: String, _ body: () throws -> Void) rethrows {
            try body()
            expected += 1
            #expect(recorder.recordCount == expected, "\(what)")
        }
        func query(_ what: String, _ body: () throws -> Void) rethrows {
            try body()
            #expect(recorder.recordCount == expected, "\(what) was recorded")
        }
        changed("a step") { hrChange(doc, to: 1, on: stack) }
        changed("a second step") { hrChange(doc, to: 2, on: stack) }
        changed("a step on another target") { hrChange(other, to: 1, on: stack) }
        changed("an undo") { stack.undo() }
        changed("a redo") { stack.redo() }
        changed("a clean mark") { stack.markClean() }
        try changed("a jump") { try stack.jump(toNode: .init(sequence: 1)) }
        changed("a branch") { hrChange(doc, to: 5, on: stack) }
        changed("a removal") { stack.removeAllActions(withTarget: other) }
        changed("a trim") { stack.levelsOfUndo = 1 }
        try query("queries") {
            _ = stack.canUndo
            _ = stack.canRedo
            _ = stack.undoMenuItemTitle
            _ = stack.undoEntries
            _ = stack.redoEntries
            _ = stack.savableDepth
            _ = stack.historyTree
            _ = stack.isClean
            _ = stack.state
            _ = try stack.savedHistory()
            _ = stack.redoBranches
        }
        query("an undo with nothing to undo") {
            stack.levelsOfUndo = 0
            while stack.canUndo { stack.undo() }
            expected = recorder.recordCount
            stack.undo()
        }
        #expect(recorder.lastError == nil)
        let records = try journal.records()
        #expect(records.count == recorder.recordCount)
        // No two records in a row are the same.
        for (a, b) in zip(records, records.dropFirst()) { #expect(a.payload != b.payload) }
    }

    /// "Watching a stack twice watches it once" is decided by ObjectIdentifier, and the token of a
    /// freed stack stays in the table: a new stack at the freed one's address is never watched.
    @Test func aStackAtAFreedStacksAddressIsWatched() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let holder = RPWeakStack()
        let recorder = HistoryRecorder(journal: files.journal) {
            guard let stack = holder.stack else { return nil }
            return HistoryArchive(fingerprint: "v\(box.value)", histories: ["doc": try stack.savedHistory()])
        }
        var freedIDs = Set<ObjectIdentifier>()
        for _ in 0..<32 {
            let stack = makeStack()
            recorder.watch(stack)
            freedIDs.insert(ObjectIdentifier(stack))
        }
        // A document reopened: its new stack may land where a freed one was.
        var alive: [ActionStack] = []
        var reused: ActionStack?
        for _ in 0..<256 {
            let stack = makeStack()
            if freedIDs.contains(ObjectIdentifier(stack)) {
                reused = stack
                break
            }
            alive.append(stack)
        }
        // Without a reused address the test is inconclusive (allocator-dependent): nothing to check.
        guard let stack = reused else { return }
        holder.stack = stack
        recorder.watch(stack)
        hsChange(box, to: 1, on: stack)
        #expect(recorder.recordCount == 1, "a change of a watched stack is recorded")
        withExtendedLifetime(alive) {}
    }

    /// A keystroke that continues the previous step (coalescing) changes the history and the
    /// document, but not the observable State: the doc promises a record after every change.
    @Test func aCoalescedKeystrokeIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack(groupsByEvent: true)
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        func type(_ value: Int) {
            stack.registerUndo(HSSet(value: box.value), on: box, key: box.id, options: .coalescing("typing"))
            box.value = value
            stack.setActionName("Typing")
            stack.endEvent()
        }
        type(1)
        type(2)
        type(3)
        #expect(stack.undoCount == 1)
        #expect(try stack.savedHistory().steps.first?.actions.count == 3)
        let last = try files.recorded().last
        // After a crash with the document saved at "v3":
        let recovered = try HistoryRecorder.recover(from: files.journal, fingerprint: "v3", registry: testRegistry())
        #expect(last == "v3: at 1 of 1 clean 0", "the last keystroke is in the journal")
        #expect(recovered != nil, "the history of the document as saved can be recovered")
        #expect(recorder.lastError == nil)
    }

    /// removeAllActions(withTarget:) that leaves the step (it has actions on another target) changes
    /// the saved history but not the State. The doc lists "a removal" among the recorded changes.
    @Test func aRemovalThatKeepsTheStepIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox("other")
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        stack.beginUndoGrouping()
        HSSet(value: 1).perform(on: box, in: stack)
        HSSet(value: 5).perform(on: other, in: stack)
        stack.setActionName("Both")
        stack.endUndoGrouping()
        #expect(recorder.recordCount == 1)
        stack.removeAllActions(withTarget: other)
        #expect(try stack.savedHistory().steps.first?.actions.count == 1)
        let lastActions = try rpHistories(files).last?.steps.first?.actions.count
        #expect(recorder.recordCount == 2, "the removal is recorded")
        #expect(lastActions == 1)
    }

    /// Lowering maximumBranchSteps drops branch steps (a trim) without changing the State of the
    /// current path.
    @Test func aBranchTrimByMaximumBranchStepsIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        stack.historyShape = .tree
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        stack.undo()
        stack.undo()
        hsChange(box, to: 4, on: stack)  // nodes 2 and 3 are now a branch
        #expect(try stack.savedHistory().steps.count == 4)
        let count = recorder.recordCount
        stack.maximumBranchSteps = 1
        #expect(try stack.savedHistory().steps.count == 3)
        let lastSteps = try rpHistories(files).last?.steps.count
        #expect(recorder.recordCount == count + 1, "the trim is recorded")
        #expect(lastSteps == 3)
    }

    /// A removal that empties a step in a branch off the current path changes the saved tree, not
    /// the State.
    @Test func aRemovalInABranchOffThePathIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox("other")
        let stack = makeStack()
        stack.historyShape = .tree
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)-\(other.value)" }
        hsChange(box, to: 1, on: stack)
        hsChange(other, to: 7, on: stack)
        stack.undo()
        hsChange(box, to: 2, on: stack)  // the "other" step is a branch now
        #expect(try stack.savedHistory().steps.count == 3)
        let count = recorder.recordCount
        stack.removeAllActions(withTarget: other)
        #expect(try stack.savedHistory().steps.count == 2)
        let lastSteps = try rpHistories(files).last?.steps.count
        #expect(recorder.recordCount == count + 1, "the removal is recorded")
        #expect(lastSteps == 2)
    }

    /// Branching history: jumps, earlier/later and a redo-branch choice are each recorded once, with
    /// the current node of the stack.
    @Test func treeJumpsEarlierLaterAndBranchChoicesAreEachRecordedOnce() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        stack.historyShape = .tree
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        hsChange(box, to: 2, on: stack)
        stack.undo()
        hsChange(box, to: 3, on: stack)  // node 1 has children 2 and 3
        var count = recorder.recordCount
        func check(_ what: String) throws {
            count += 1
            #expect(recorder.recordCount == count, "\(what) is recorded once")
            #expect(try rpHistories(files).last?.current == stack.currentNode?.sequence, "\(what): current node")
        }
        try stack.jump(toNode: .init(sequence: 2))
        try check("jump(toNode:)")
        try stack.earlier(1)
        try check("earlier(1)")
        try stack.later(1)
        try check("later(1)")
        stack.undo()
        try check("undo")
        try stack.selectRedoBranch(.init(sequence: 3))
        try check("selectRedoBranch")
        stack.redo()
        try check("redo")
        #expect(box.value == 3)
        #expect(recorder.lastError == nil)
    }

    /// maximumCost lowered: a trim, recorded.
    @Test func aCostTrimIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 {
            stack.beginUndoGrouping()
            HSCostly(value: value, cost: 10).perform(on: box, in: stack)
            stack.endUndoGrouping()
        }
        let count = recorder.recordCount
        stack.maximumCost = 15
        #expect(stack.undoCount == 1)
        #expect(recorder.recordCount == count + 1)
        #expect(try rpHistories(files).last?.steps.count == 1)
    }

    /// An app observer marks the stack clean after each change. The recorder runs after every
    /// observer of the call, whichever was added first, so the change and the clean mark are one
    /// record (decided; the docs say so).
    @Test func anObserverAheadOfTheRecorderThatChangesTheStack() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let token = stack.observe { state in if !state.isClean && state.groupingLevel == 0 { stack.markClean() } }
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        withExtendedLifetime(token) {}
        #expect(try files.recorded().last == "v1: at 1 of 1 clean 1")
        #expect(recorder.recordCount == 1)
    }

    /// onError changes the stack (drops the history that no longer fits the journal) during an
    /// explicit record(): the change is made inside the recording and is never recorded.
    @Test func aChangeMadeByOnErrorDuringRecordIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        for value in 1...20 { hsChange(box, to: value, on: stack, named: String(repeating: "x", count: 40)) }
        let big = try HistoryArchive(fingerprint: "v20", histories: ["history": stack.savedHistory()]).encoded()
        let journal = HistoryJournal(
            url: files.journal.url, maximumBytes: big.count / 2, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        var errors = 0
        recorder.onError = { _ in
            errors += 1
            stack.removeAllActions()  // too big for the journal: start the history over
        }
        hsChange(box, to: 21, on: stack)  // its record does not fit
        #expect(errors == 1)
        #expect(stack.undoCount == 0)
        let recordCount = try journal.records().count
        #expect(recordCount == 1, "the removal, which leaves a history that fits, is recorded")
        #expect(recorder.lastError == nil)
    }

    @Test func anAutosaveInAnObserverIsInTheSameRecord() throws {
        let url = hrTemporaryURL("autosave.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        let watched = stack
        let token = stack.observe { state in
            if !state.isClean { watched.markClean() }
        }
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        stack.undo()
        withExtendedLifetime(token) {}
        #expect(recorder.recordCount == 3)
        for archive in try HistoryRecorder.recordedArchives(in: journal, registry: testRegistry()) {
            let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
            #expect(history.clean == history.current)
        }
    }

    @Test func aChangeThatOnErrorMakesIsRecordedAfterIt() throws {
        let url = hrTemporaryURL("onerror.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let stack = hrStack()
        let doc = HRDoc()
        // Room for a record of a few steps only.
        let probe = try HistoryArchive(
            fingerprint: "0",
            histories: [
                HistoryRecorder.defaultHistoryName: try {
                    let s = hrStack()
                    let d = HRDoc()
                    for value in 1...2 { hrChange(d, to: value, on: s) }
                    return try s.savedHistory()
                }()
            ]
        ).encoded()
        let journal = HistoryJournal(url: url, maximumBytes: probe.count + 80, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        var errors = 0
        recorder.onError = { _ in
            errors += 1
            stack.removeAllActions()
        }
        for value in 1...6 { hrChange(doc, to: value, on: stack) }
        #expect(errors >= 1)
        #expect(recorder.lastError == nil)
        // The last record is the history after onError's removal (or a later change), never older.
        let last = try #require(try journal.records().last)
        let archive = try #require(try HistoryRecorder.recordedArchives(in: journal, registry: testRegistry()).last)
        let saved = try stack.savedHistory()
        let recorded = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        #expect(recorded.steps.count == saved.steps.count)
        #expect(last.fingerprint == "\(doc.value)")
    }

    @Test func afterAResetTheRecorderAppendsEvenARepeat() throws {
        let url = hrTemporaryURL("reset.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        hrChange(doc, to: 1, on: stack)
        #expect(recorder.recordCount == 1)
        try journal.reset()
        try journal.reset()
        #expect(recorder.record())
        #expect(!recorder.record())
        #expect(try journal.records().map(\.sequence) == [0])
        try journal.compact(keeping: 0)
        #expect(try journal.records().isEmpty)
    }
}
