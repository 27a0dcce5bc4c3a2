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

// The recorder, told only when the history's change tracker says the history may have
// changed (`ActionStack+Observation.swift`: `endsQuietly`, `notifyCallEndListeners`): after each
// call, once the stack is idle, the journal replayed equals a full save, a query appends nothing,
// and the stack's other listeners still hear it. Also the awaited settle in a tree
// (`History+Settle.swift`) with other tasks' changes made while it awaits.

/// A stack watched by a recorder of what changed, with the means to compare its journal with a
/// full save.
@MainActor
private final class GatedProbe {
    let url: URL
    let journal: HistoryJournal
    let stack: ActionStack
    let doc = HRDoc()
    let box = HSBox("gp")
    var recorder: HistoryRecorder?

    init(_ shape: ActionStack.HistoryShape = .linear, recorded: Bool = true) {
        url = hrTemporaryURL("gating-probe.journal")
        journal = HistoryJournal(url: url, synchronizesAppends: false)
        stack = hrStack(shape)
        if recorded { startRecording() }
    }

    func startRecording() {
        recorder = HistoryRecorder(journal: journal, stack: stack) { "doc" }
    }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }

    var recordCount: Int { recorder?.recordCount ?? 0 }

    /// The last record's archive, encoded (nil: no record).
    func journalLast() throws -> Data? {
        try HistoryRecorder.recordedArchives(in: journal, registry: testRegistry()).last?.encoded()
    }

    /// A full save of the stack now, encoded as the recorder names it.
    func fullSave() throws -> Data {
        try HistoryArchive(
            fingerprint: "doc", histories: [HistoryRecorder.defaultHistoryName: try stack.savedHistory()]
        ).encoded()
    }

    /// Whether the journal, read before the full save, equals the full save; also that the full
    /// save appended nothing.
    func expectInSync(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let recorded = try journalLast()
        let before = recordCount
        let saved = try fullSave()
        #expect(recorded == saved, "journal behind the history: \(comment)", sourceLocation: sourceLocation)
        #expect(
            recordCount == before, "the full save itself appended a record: \(comment)", sourceLocation: sourceLocation)
    }

    /// The queries an app makes between changes; returns how many records they appended.
    func queries() -> Int {
        let before = recordCount
        _ = stack.canUndo
        _ = stack.canRedo
        _ = stack.undoMenuItemTitle
        _ = stack.redoMenuItemTitle
        _ = stack.isClean
        _ = stack.state
        _ = stack.undoEntries
        _ = stack.historyTree
        return recordCount - before
    }
}

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct RecorderRecordsEveryKindOfChangeTests {
    // MARK: Changes alone

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aCleanMarkAloneIsRecorded(shape: ActionStack.HistoryShape) throws {
        let p = GatedProbe(shape)
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        hrChange(p.doc, to: 2, on: p.stack)
        let count = p.recordCount
        p.stack.markClean()
        #expect(p.recordCount == count + 1)
        try p.expectInSync("markClean")
        #expect(p.queries() == 0)
        p.stack.undo()
        p.stack.markClean()
        try p.expectInSync("undo + markClean")
    }

    @Test func aRemoteVersionAloneIsRecorded() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        let count = p.recordCount
        p.stack.applyRemoteChange("peer edit", version: "v2") {}
        #expect(p.recordCount == count + 1)
        try p.expectInSync("applyRemoteChange with a version")
        p.stack.applyRemoteChange("peer edit", version: "v3") {}
        try p.expectInSync("a second version")
        #expect(p.queries() == 0)
    }

    @Test func aStepRenamedAfterItClosedIsRecorded() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack, name: "First")
        p.stack.setActionName("Renamed")
        try p.expectInSync("setActionName after the step closed")
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aLowerLevelsOfUndoIsRecorded(shape: ActionStack.HistoryShape) throws {
        let p = GatedProbe(shape)
        defer { p.cleanUp() }
        for value in 1...4 { hrChange(p.doc, to: value, on: p.stack) }
        p.stack.levelsOfUndo = 2
        #expect(p.stack.undoCount == 2)
        try p.expectInSync("levelsOfUndo lowered")
        #expect(p.queries() == 0)
    }

    @Test func aLowerMaximumCostIsRecorded() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        for value in 1...4 {
            p.stack.beginUndoGrouping()
            HRCostly(value: value, cost: 10).perform(on: p.doc, in: p.stack)
            p.stack.endUndoGrouping()
        }
        p.stack.maximumCost = 20
        #expect(p.stack.undoCount == 2)
        try p.expectInSync("maximumCost lowered")
    }

    /// A clock set back moves the tree's dates back (a change only a snapshot describes); the
    /// setter is not a call, so the recorder hears of it only at the next call, a query included.
    @Test func aClockSetBackIsRecordedAtOnceAndNotByTheNextQuery() throws {
        let p = GatedProbe(.tree)
        defer { p.cleanUp() }
        p.stack.historyClock = { Date(timeIntervalSinceReferenceDate: 1_000) }
        hrChange(p.doc, to: 1, on: p.stack)
        hrChange(p.doc, to: 2, on: p.stack)
        try p.expectInSync("before the clock moves")
        let count = p.recordCount
        p.stack.historyClock = { Date(timeIntervalSinceReferenceDate: 10) }
        // The dates held moved back: the journal should say so, with no other call made.
        let recorded = try p.journalLast()
        let count2 = p.recordCount
        #expect(count2 == count + 1, "the clock set back was not recorded when it was set")
        // A query now must append nothing.
        #expect(p.queries() == 0, "a query after the clock was set back appended a record")
        let saved = try p.fullSave()
        #expect(recorded == saved, "the journal does not hold the dates the clock moved back")
    }

    @Test func removingATargetsActionsIsRecorded() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        let other = HRDoc("other")
        hrChange(p.doc, to: 1, on: p.stack)
        p.stack.beginUndoGrouping()
        HRSet(value: 5).perform(on: other, in: p.stack)
        p.stack.endUndoGrouping()
        hrChange(p.doc, to: 2, on: p.stack)
        p.stack.removeAllActions(withTarget: other)
        try p.expectInSync("removeAllActions(withTarget:)")
        #expect(p.queries() == 0)
    }

    /// A target freed between calls: the freed step is swept lazily. The journal, read when the
    /// stack is idle after the next query, should hold what a full save holds.
    @Test func aFreedTargetsStepIsInTheJournalAsAFullSaveHasIt() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        do {
            let other = HRDoc("other")
            p.stack.beginUndoGrouping()
            HRSet(value: 5).perform(on: other, in: p.stack)
            p.stack.endUndoGrouping()
        }
        hrChange(p.doc, to: 2, on: p.stack)
        _ = p.stack.canUndo
        try p.expectInSync("a target freed, then a query")
        p.stack.undo()
        p.stack.undo()
        try p.expectInSync("undone past the freed step")
    }

    @Test func undoingANestedGroupIsRecorded() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        p.stack.beginUndoGrouping()
        HRSet(value: 2).perform(on: p.doc, in: p.stack)
        p.stack.beginUndoGrouping()
        HRSet(value: 3).perform(on: p.doc, in: p.stack)
        p.stack.endUndoGrouping()
        p.stack.undoNestedGroup()
        p.stack.endUndoGrouping()
        try p.expectInSync("undoNestedGroup then the group closed")
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aChangeOfShapeIsRecorded(shape: ActionStack.HistoryShape) throws {
        let p = GatedProbe(shape)
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        hrChange(p.doc, to: 2, on: p.stack)
        p.stack.historyShape = shape == .linear ? .tree : .linear
        try p.expectInSync("shape switched")
        hrChange(p.doc, to: 3, on: p.stack)
        try p.expectInSync("a change after the switch")
        p.stack.undo()
        hrChange(p.doc, to: 4, on: p.stack)
        try p.expectInSync("a branch after the switch")
    }

    @Test func aRestoreIsRecorded() throws {
        let p = GatedProbe(.tree)
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        let (saved, value) = try hrFive(clean: 2, current: 3, shape: .tree)
        p.stack.removeAllActions()
        p.doc.value = value
        try p.stack.restoreHistory(saved) { $0 == "doc" ? p.doc : nil }
        try p.expectInSync("restoreHistory")
        p.stack.undo()
        hrChange(p.doc, to: 9, on: p.stack)
        try p.expectInSync("a branch after the restore")
    }

    @Test func aTreeJumpIsRecorded() throws {
        let p = GatedProbe(.tree)
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        hrChange(p.doc, to: 2, on: p.stack)
        p.stack.undo()
        hrChange(p.doc, to: 3, on: p.stack)
        let tree = try #require(p.stack.historyTree)
        let target = try #require(tree.nodes.first { $0.actionCount > 0 && !$0.isCurrent && $0.redoChild == nil })
        try p.stack.jump(toNode: target.id)
        try p.expectInSync("jump(toNode:)")
        #expect(p.queries() == 0)
    }

    // MARK: Journal and recorders

    @Test func aJournalResetThenAQueryAppendsNothingAndTheNextChangeSnapshots() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        try p.journal.reset()
        #expect(p.queries() == 0)
        hrChange(p.doc, to: 2, on: p.stack)
        try p.expectInSync("the change after a reset")
        #expect(try p.journal.records().count == 1)
    }

    @Test func twoRecordersOneUnwatchingTheOtherKeepsRecording() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        let secondURL = hrTemporaryURL("gating-probe-second.journal")
        defer { try? FileManager.default.removeItem(at: secondURL) }
        let second = HistoryRecorder(
            journal: HistoryJournal(url: secondURL, synchronizesAppends: false), stack: p.stack
        ) { "doc" }
        hrChange(p.doc, to: 1, on: p.stack)
        second.unwatch(p.stack)
        let secondCount = second.recordCount
        hrChange(p.doc, to: 2, on: p.stack)
        p.stack.markClean()
        p.stack.undo()
        try p.expectInSync("after the second recorder unwatched")
        #expect(p.queries() == 0)
        #expect(second.recordCount == secondCount)
    }

    /// The first recorder goes (freed) while a second one, made later, stays.
    @Test func theFirstRecorderFreedTheSecondKeepsRecording() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        let secondURL = hrTemporaryURL("gating-probe-third.journal")
        defer { try? FileManager.default.removeItem(at: secondURL) }
        let secondJournal = HistoryJournal(url: secondURL, synchronizesAppends: false)
        let second = HistoryRecorder(journal: secondJournal, stack: p.stack) { "doc" }
        hrChange(p.doc, to: 1, on: p.stack)
        p.recorder = nil
        hrChange(p.doc, to: 2, on: p.stack)
        p.stack.markClean()
        let recorded = try HistoryRecorder.recordedArchives(in: secondJournal, registry: testRegistry()).last?
            .encoded()
        #expect(recorded == (try p.fullSave()))
        let count = second.recordCount
        _ = p.stack.canUndo
        #expect(second.recordCount == count)
    }

    @Test func aRecorderMadeWhileAGroupIsOpenRecordsTheGroupWhenItCloses() throws {
        let p = GatedProbe(recorded: false)
        defer { p.cleanUp() }
        hrChange(p.doc, to: 1, on: p.stack)
        p.stack.beginUndoGrouping()
        HRSet(value: 2).perform(on: p.doc, in: p.stack)
        p.startRecording()
        #expect(p.queries() == 0)
        p.stack.endUndoGrouping()
        try p.expectInSync("the group closed after the recorder came")
        #expect(p.queries() == 0)
    }

    @Test func anObserverAddedAndRemovedAroundTheRecorder() throws {
        let p = GatedProbe(recorded: false)
        defer { p.cleanUp() }
        var heard = 0
        let token = p.stack.observe { _ in heard += 1 }
        p.startRecording()
        hrChange(p.doc, to: 1, on: p.stack)
        #expect(heard > 0)
        let heardBefore = heard
        token.cancel()
        #expect(p.queries() == 0)
        hrChange(p.doc, to: 2, on: p.stack)
        try p.expectInSync("after the observer left")
        let again = p.stack.observe { _ in heard += 1 }
        p.stack.undo()
        #expect(heard == heardBefore + 1)
        try p.expectInSync("an observer back")
        again.cancel()
    }

    // MARK: Changes made by listeners

    /// An observer makes a change in its turn (an autosave, a follow-up edit): recorded by the time
    /// the stack is idle.
    @Test func aChangeMadeByAStateObserverIsRecorded() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        var reacted = false
        let token = p.stack.observe { [p] state in
            guard state.undoCount == 1, !reacted else { return }
            reacted = true
            hrChange(p.doc, to: 10, on: p.stack, name: "Follow-up")
        }
        hrChange(p.doc, to: 1, on: p.stack)
        #expect(p.stack.undoCount == 2)
        try p.expectInSync("a change from an observer")
        token.cancel()
    }

    /// The same with the observer added after the recorder, and its change only a clean mark.
    @Test func aCleanMarkMadeByAStateObserverIsRecorded() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        let token = p.stack.observe { [p] state in
            if !state.isClean { p.stack.markClean() }
        }
        hrChange(p.doc, to: 1, on: p.stack)
        #expect(p.stack.isClean)
        try p.expectInSync("an autosave's markClean from an observer")
        token.cancel()
    }

    @Test func aChangeMadeByACleanNotificationHandlerIsRecorded() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        p.stack.postsNotifications = true
        var reacted = false
        let center = NotificationCenter.default
        let observer = center.addObserver(
            forName: ActionStack.cleanStateDidChangeNotification, object: p.stack, queue: nil
        ) { [p] _ in
            MainActor.assumeIsolated {
                guard !reacted, !p.stack.isClean else { return }
                reacted = true
                hrChange(p.doc, to: 7, on: p.stack, name: "From the handler")
            }
        }
        defer { center.removeObserver(observer) }
        hrChange(p.doc, to: 1, on: p.stack)
        hrChange(p.doc, to: 2, on: p.stack)
        reacted = false
        p.stack.markClean()
        // The undo leaves the clean state; the handler makes a change of its own (a new branch).
        p.stack.undo()
        #expect(reacted)
        #expect(p.stack.undoCount == 2 && p.stack.redoCount == 0)
        try p.expectInSync("a change from a clean-state handler")
    }

    /// A recorder's `onError` that changes the stack: "A change that `onError` makes is recorded
    /// after it."
    @Test func aChangeMadeByOnErrorIsRecorded() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gating-probe-missing-\(UUID().uuidString)")
        let url = directory.appendingPathComponent("doc.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "doc" }
        var errors = 0
        recorder.onError = { _ in
            errors += 1
            guard errors == 1 else { return }
            // The directory comes back, and the app marks the document clean.
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            stack.markClean()
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        hrChange(doc, to: 1, on: stack)
        #expect(errors == 1)
        #expect(stack.isClean)
        let recorded = try HistoryRecorder.recordedArchives(in: journal, registry: testRegistry()).last?.encoded()
        let saved = try HistoryArchive(
            fingerprint: "doc", histories: [HistoryRecorder.defaultHistoryName: try stack.savedHistory()]
        ).encoded()
        #expect(recorded == saved, "the change onError made is not in the journal once the stack is idle")
    }

    // MARK: Other listeners still hear a watched stack

    @Test func stateUpdatesAndAStackGroupStillHearAWatchedStack() async throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        let group = ActionStackGroup()
        group.activeStack = p.stack
        var groupHeard: [Int] = []
        let token = group.observe { groupHeard.append($0?.undoCount ?? -1) }
        var stream = p.stack.stateUpdates().makeAsyncIterator()
        let first = await stream.next()
        #expect(first?.undoCount == 0)
        hrChange(p.doc, to: 1, on: p.stack)
        var heard: [ActionStack.State] = []
        while heard.last?.undoCount != 1 || heard.last?.groupingLevel != 0, heard.count < 10 {
            guard let next = await stream.next() else { break }
            heard.append(next)
        }
        #expect(heard.last?.undoCount == 1)
        p.stack.markClean()
        let third = await stream.next()
        #expect(third?.isClean == true)
        #expect(groupHeard.last == 1)
        token.cancel()
        try p.expectInSync("stream and group")
    }

    /// The clean notification when the only other listener is the recorder: posted for a clean
    /// change caused by an undo, by markClean, and by a change.
    @Test func theCleanNotificationStillPostsOnAWatchedStack() throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        p.stack.postsNotifications = true
        var posts = 0
        let center = NotificationCenter.default
        let observer = center.addObserver(
            forName: ActionStack.cleanStateDidChangeNotification, object: p.stack, queue: nil
        ) { _ in MainActor.assumeIsolated { posts += 1 } }
        defer { center.removeObserver(observer) }
        hrChange(p.doc, to: 1, on: p.stack)  // clean → dirty
        p.stack.markClean()  // dirty → clean
        hrChange(p.doc, to: 2, on: p.stack)  // clean → dirty
        p.stack.undo()  // dirty → clean
        #expect(posts == 4)
        _ = p.queries()
        #expect(posts == 4)
    }

    // MARK: Asynchronous operations

    @Test func anAwaitedUndoAndRedoAreRecordedWhenTheySettle() async throws {
        let p = GatedProbe(.tree)
        defer { p.cleanUp() }
        for value in 1...2 {
            p.stack.beginUndoGrouping()
            p.stack.registerAsyncUndo(HSAsyncSet(value: p.box.value), on: p.box, key: p.box.id)
            p.box.value = value
            p.stack.endUndoGrouping()
        }
        _ = try await p.stack.performUndo()
        try p.expectInSync("performUndo")
        _ = try await p.stack.performRedo()
        try p.expectInSync("performRedo")
        _ = try await p.stack.performUndo()
        _ = try await p.stack.performUndo()
        try p.expectInSync("two undos")
        #expect(p.queries() == 0)
    }

    @Test func anAsyncGroupIsRecordedWhenItCloses() async throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        let box = p.box
        let stack = p.stack
        try await p.stack.asyncGroup(named: "Both") {
            stack.registerAsyncUndo(HSAsyncSet(value: box.value), on: box, key: box.id)
            box.value = 1
            await Task.yield()
            stack.registerAsyncUndo(HSAsyncSet(value: box.value), on: box, key: box.id)
            box.value = 2
        }
        try p.expectInSync("asyncGroup")
        #expect(p.stack.undoCount == 1)
    }

    @Test func aBrokenStepDiscardedIsRecorded() async throws {
        let p = GatedProbe()
        defer { p.cleanUp() }
        let doc = p.doc
        hrChange(doc, to: 1, on: p.stack)
        p.stack.beginUndoGrouping()
        p.stack.registerAsyncUndo(HRAsyncSet(value: 0, fails: false), on: doc, key: doc.id)
        p.stack.registerAsyncUndo(HRAsyncSet(value: 0, fails: true), on: doc, key: doc.id)
        p.stack.endUndoGrouping()
        try p.expectInSync("before the failing undo")
        await #expect(throws: ActionStack.OperationError.self) { try await p.stack.performUndo() }
        if p.stack.brokenStep != nil {
            p.stack.discardBrokenStep()
        }
        #expect(p.stack.brokenStep == nil)
        try p.expectInSync("after the failing undo and discard")
        #expect(p.queries() == 0)
    }

    // MARK: The awaited settle in a tree

    /// Undo (awaited, gated) in a tree; a new closed change made while it awaits; it settles.
    @Test(arguments: [false, true])
    func anAwaitedMoveWithANewChangeWhileItAwaitsKeepsTheTreeWhole(redo: Bool) async throws {
        let p = GatedProbe(.tree)
        defer { p.cleanUp() }
        let box = p.box
        let gate = Gate()
        RPGates.gates[box.id] = gate
        defer { RPGates.gates[box.id] = nil }
        gate.openForGood()
        for value in 1...3 {
            p.stack.beginUndoGrouping()
            p.stack.registerAsyncUndo(RPGatedSet(value: box.value), on: box, key: box.id)
            box.value = value
            p.stack.endUndoGrouping()
        }
        if redo { _ = try await p.stack.performUndo() }
        let closed = Gate()
        RPGates.gates[box.id] = closed
        let move = Task { @MainActor in
            redo ? try await p.stack.performRedo() : try await p.stack.performUndo()
        }
        await settle(until: { closed.waitingCount == 1 })
        #expect(closed.waitingCount == 1)
        // Another task's change while the move awaits.
        hrChange(p.doc, to: 42, on: p.stack, name: "Meanwhile")
        #expect(p.stack._invariantViolations().isEmpty, "\(p.stack._invariantViolations())")
        closed.openForGood()
        _ = try await move.value
        await settle(until: { !p.stack.isBusy })
        #expect(p.stack._invariantViolations().isEmpty, "\(p.stack._invariantViolations())")
        try p.expectInSync("an awaited \(redo ? "redo" : "undo") with a change made meanwhile")
        // More moves after it.
        _ = try await p.stack.performUndo()
        #expect(p.stack._invariantViolations().isEmpty, "\(p.stack._invariantViolations())")
        try p.expectInSync("an undo after")
        hrChange(p.doc, to: 43, on: p.stack, name: "After")
        #expect(p.stack._invariantViolations().isEmpty, "\(p.stack._invariantViolations())")
        try p.expectInSync("a change after")
    }

    /// The same with a group left open while the move awaits, closed after it settles.
    @Test func anAwaitedUndoWithAGroupOpenMeanwhileKeepsTheTreeWhole() async throws {
        let p = GatedProbe(.tree)
        defer { p.cleanUp() }
        let box = p.box
        for value in 1...3 {
            p.stack.beginUndoGrouping()
            p.stack.registerAsyncUndo(RPGatedSet(value: box.value), on: box, key: box.id)
            box.value = value
            p.stack.endUndoGrouping()
        }
        let closed = Gate()
        RPGates.gates[box.id] = closed
        defer { RPGates.gates[box.id] = nil }
        let move = Task { @MainActor in try await p.stack.performUndo() }
        await settle(until: { closed.waitingCount == 1 })
        p.stack.beginUndoGrouping()
        HRSet(value: 42).perform(on: p.doc, in: p.stack)
        closed.openForGood()
        let outcome = await move.result
        await settle(until: { !p.stack.isBusy })
        #expect(p.stack._invariantViolations().isEmpty, "with the group open: \(p.stack._invariantViolations())")
        p.stack.endUndoGrouping()
        await settle(until: { !p.stack.isBusy })
        #expect(p.stack._invariantViolations().isEmpty, "after the group closed: \(p.stack._invariantViolations())")
        _ = outcome
        try p.expectInSync("an awaited undo with a group open meanwhile")
        _ = try await p.stack.performUndo()
        try p.expectInSync("undo after")
        #expect(p.stack._invariantViolations().isEmpty)
    }

    /// An awaited jump to a node in another branch, with a new change while it awaits.
    @Test func anAwaitedTreeJumpWithANewChangeWhileItAwaitsKeepsTheTreeWhole() async throws {
        let p = GatedProbe(.tree)
        defer { p.cleanUp() }
        let box = p.box
        for value in 1...3 {
            p.stack.beginUndoGrouping()
            p.stack.registerAsyncUndo(RPGatedSet(value: box.value), on: box, key: box.id)
            box.value = value
            p.stack.endUndoGrouping()
        }
        _ = try await p.stack.performUndo()
        p.stack.beginUndoGrouping()
        p.stack.registerAsyncUndo(RPGatedSet(value: box.value), on: box, key: box.id)
        box.value = 9
        p.stack.endUndoGrouping()
        let tree = try #require(p.stack.historyTree)
        // The leaf of the other branch (value 3).
        let target = try #require(tree.nodes.first { !$0.isCurrent && $0.redoChild == nil && $0.actionCount > 0 })
        let closed = Gate()
        RPGates.gates[box.id] = closed
        defer { RPGates.gates[box.id] = nil }
        let move = Task { @MainActor in try await p.stack.performJump(toNode: target.id) }
        await settle(until: { closed.waitingCount == 1 })
        hrChange(p.doc, to: 42, on: p.stack, name: "Meanwhile")
        closed.openForGood()
        _ = await move.result
        await settle(until: { !p.stack.isBusy })
        #expect(p.stack._invariantViolations().isEmpty, "\(p.stack._invariantViolations())")
        try p.expectInSync("an awaited jump with a change made meanwhile")
    }

    /// An awaited undo whose second action fails (rolled back) with a new change made while it
    /// awaits, in a tree.
    @Test func aFailingAwaitedUndoWithANewChangeMeanwhileKeepsTheTreeWhole() async throws {
        let p = GatedProbe(.tree)
        defer { p.cleanUp() }
        let box = p.box
        let doc = p.doc
        hrChange(doc, to: 1, on: p.stack)
        p.stack.beginUndoGrouping()
        p.stack.registerAsyncUndo(HRAsyncSet(value: 0, fails: true), on: doc, key: doc.id)
        p.stack.registerAsyncUndo(RPGatedSet(value: box.value), on: box, key: box.id)
        box.value = 5
        p.stack.endUndoGrouping()
        let closed = Gate()
        RPGates.gates[box.id] = closed
        defer { RPGates.gates[box.id] = nil }
        let move = Task { @MainActor in try await p.stack.performUndo() }
        await settle(until: { closed.waitingCount == 1 })
        hrChange(doc, to: 42, on: p.stack, name: "Meanwhile")
        closed.openForGood()
        _ = await move.result
        await settle(until: { !p.stack.isBusy })
        #expect(p.stack._invariantViolations().isEmpty, "\(p.stack._invariantViolations())")
        if p.stack.brokenStep != nil { p.stack.discardBrokenStep() }
        #expect(p.stack._invariantViolations().isEmpty, "\(p.stack._invariantViolations())")
        try p.expectInSync("a failing awaited undo with a change made meanwhile")
    }
}
