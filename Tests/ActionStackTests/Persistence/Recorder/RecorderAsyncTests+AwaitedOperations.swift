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

// Awaited operations (undo, redo, jumps, asynchronous groups) under a recorder, more of
// `RecorderAsyncTests`: nothing is recorded while an operation, an open group or a broken step
// holds the history, and the record made when it settles recovers exactly the live stack's full
// save, whatever happened meanwhile (changes from other tasks, rollbacks, cancellations, lost clean
// states, clean marks, removals, limits and shapes set mid-await, resets, records that could not
// be written, and records torn or damaged right after an awaited step).

/// A box on a "server": its writes may wait at a gate and the server may refuse some values.
final class AJBox {
    let id: String
    var value: Int
    /// Values the server refuses to store.
    var refused: Set<Int> = []
    init(_ id: String, value: Int = 0) {
        self.id = id
        self.value = value
    }
}

/// The gates the awaited command waits at, one per box id (main actor only).
@MainActor
enum AJGates {
    static var gates: [String: Gate] = [:]
    static func pass(_ id: String) async {
        if let gate = gates[id] { await gate.pass() }
    }
}

/// Sets a box's value through the server, awaiting its gate; registers its inverse unless
/// `registersInverse` is false (a change that cannot be undone).
struct AJAsyncSet: AsyncUndoCommand {
    static let commandType = "aj.asyncSet"
    var value: Int
    var registersInverse = true
    struct Refused: Error {}
    nonisolated(nonsending) func perform(on box: AJBox, in stack: ActionStack) async throws {
        await AJGates.pass(box.id)
        if box.refused.contains(value) { throw Refused() }
        if registersInverse { stack.registerAsyncUndo(AJAsyncSet(value: box.value), on: box, key: box.id) }
        box.value = value
    }
}

/// Sets a box's value synchronously, with a cost.
struct AJSet: UndoCommand {
    static let commandType = "aj.set"
    var value: Int
    var cost = 0
    func perform(on box: AJBox, in stack: ActionStack) {
        stack.registerUndo(
            AJSet(value: box.value, cost: cost), on: box, key: box.id,
            options: ActionStack.RegistrationOptions(cost: cost))
        box.value = value
    }
}

/// An autosave that marks the stack clean while armed.
final class AJAutosave: @unchecked Sendable {
    let stack: ActionStack
    var armed = true
    init(_ stack: ActionStack) { self.stack = stack }
    func save() { if armed { stack.markClean() } }
}

/// A stack, its boxes, and a recorder of it into a journal of its own.
@MainActor
final class AJWorld {
    let directory: URL
    let journal: HistoryJournal
    let stack: ActionStack
    var boxes: [String: AJBox] = [:]
    /// The document's revision: the fingerprint, bumped by the test before each change.
    var revision = 0
    private(set) var recorder: HistoryRecorder!

    init(shape: ActionStack.HistoryShape = .linear, boxes names: [String] = ["a", "b", "c"]) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-awaited-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
        stack = makeStack()
        stack.historyShape = shape
        for name in names { boxes[name] = AJBox(name) }
        recorder = HistoryRecorder(journal: journal, stack: stack) { [unowned self] in "rev\(self.revision)" }
    }

    func tearDown() {
        for name in boxes.keys { AJGates.gates[name] = nil }
        try? FileManager.default.removeItem(at: directory)
    }

    subscript(_ name: String) -> AJBox { boxes[name]! }

    static let registry: CommandRegistry = {
        // This world's own commands, which no other suite records: not the shared registry.
        var registry = CommandRegistry()
        registry.register(AJSet.self)
        registry.register(AJAsyncSet.self)
        return registry
    }()

    /// One closed step of awaited sets (in registration order), named.
    func asyncStep(_ changes: [(String, Int)], named name: String) {
        revision += 1
        stack.beginUndoGrouping()
        for (box, value) in changes {
            stack.registerAsyncUndo(AJAsyncSet(value: self[box].value), on: self[box], key: box)
            self[box].value = value
        }
        stack.setActionName(name)
        stack.endUndoGrouping()
    }

    /// One closed synchronous step that sets `box`.
    func syncStep(_ box: String, to value: Int, cost: Int = 0, named name: String) {
        revision += 1
        stack.beginUndoGrouping()
        AJSet(value: value, cost: cost).perform(on: self[box], in: stack)
        stack.setActionName(name)
        stack.endUndoGrouping()
    }

    /// The live stack's full save, encoded.
    func liveSave() throws -> Data { try bytes(try stack.savedHistory()) }

    /// The history recovered from the journal for the document as it is now, encoded (nil: none).
    func recovered(fingerprint: String? = nil) throws -> Data? {
        guard
            let archive = try HistoryRecorder.recover(
                from: journal, fingerprint: fingerprint ?? "rev\(revision)", registry: Self.registry),
            let history = archive.histories[HistoryRecorder.defaultHistoryName]
        else { return nil }
        return try bytes(history)
    }

    /// The stack holds a whole history (nothing open, in flight, queued or broken).
    var isIdle: Bool {
        !stack.isBusy && stack.pendingRequestCount == 0 && stack.brokenStep == nil && stack.groupingLevel == 0
    }

    /// "at the next launch it returns the history as a full save would have saved it at the last
    /// record that matches the document the app opened" (Saving the History, Writing to disk).
    func expectRecoveryIsTheLiveSave(
        _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(isIdle, "\(label): the stack is idle", sourceLocation: sourceLocation)
        let live = try liveSave()
        let recovered = try self.recovered()
        #expect(recovered != nil, "\(label): a record matches rev\(revision)", sourceLocation: sourceLocation)
        if let recovered, recovered != live {
            let message =
                "\(label): the recovery differs from the live save\n  live:      \(String(decoding: live, as: UTF8.self))"
                + "\n  recovered: \(String(decoding: recovered, as: UTF8.self))"
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
        #expect(
            recorder.lastError == nil, "\(label): \(String(describing: recorder.lastError))",
            sourceLocation: sourceLocation)
    }

    /// The size of the journal's file.
    func fileSize() throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: journal.url.path)
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }
}

extension RecorderAsyncTests {
    // MARK: An operation in flight

    /// "While a group is open, an asynchronous operation runs or waits in the queue, or a step is
    /// broken, savedHistory(maximumSteps:) refuses ... and the recorder waits for the call that
    /// closes the group, empties the queue, or discards or retries the broken step."
    /// (HistoryRecorder). And a registration from another task while an operation awaits "is a
    /// step of its own" (Undoing through a server).
    @Test(arguments: ["undo", "redo", "jump"], [ActionStack.HistoryShape.linear, .tree])
    func anAwaitedMoveIsRecordedOnceItSettlesWithTheChangesMadeMeanwhile(
        _ move: String, shape: ActionStack.HistoryShape
    ) async throws {
        let world = try AJWorld(shape: shape)
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("a", 2)], named: "Two")
        world.asyncStep([("b", 1)], named: "Three")
        if move == "redo" {
            try await stack.performUndo()
            try await stack.performUndo()
        }
        try world.expectRecoveryIsTheLiveSave("before")
        let count = world.recorder.recordCount
        let gate = Gate()
        let gated = move == "undo" ? "b" : "a"
        AJGates.gates[gated] = gate
        world.revision += 1
        let task = Task { @MainActor in
            switch move {
            case "undo": try await stack.performUndo()
            case "redo": try await stack.performRedo()
            default: try await stack.performJump(to: 0)
            }
        }
        await settle(until: { gate.waitingCount == 1 })
        #expect(gate.waitingCount == 1)
        // During: nothing whole to record, and a save says so without a misuse.
        #expect(throws: ActionStack.HistoryPersistenceError.busy) { try stack.savedHistory() }
        #expect(stack.lastMisuse == nil)
        // A change by the user meanwhile: a step of its own, recorded when the operation settles.
        world.syncStep("c", to: 7, named: "Meanwhile")
        #expect(world.recorder.recordCount == count, "nothing is recorded while the operation runs")
        gate.openForGood()
        _ = try await task.value
        await settle(until: { world.isIdle })
        #expect(world.recorder.recordCount > count)
        #expect(world["c"].value == 7)
        try world.expectRecoveryIsTheLiveSave("after the \(move)")
        #expect(stack.lastMisuse == nil)
    }

    /// "busy ... which wins when both apply" (SavingTheHistory, savedHistory's Throws): another
    /// task opens a group on the undo stack while an awaited undo holds the turn.
    @Test func busyWinsOverAGroupOpenedWhileAnUndoRuns() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("b", 1)], named: "Two")
        let gate = Gate()
        AJGates.gates["b"] = gate
        world.revision += 1
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        stack.beginUndoGrouping()
        #expect(stack.groupingLevel == 1)
        #expect(throws: ActionStack.HistoryPersistenceError.busy) { try stack.savedHistory() }
        gate.openForGood()
        _ = try await task.value
        await settle(until: { world.isIdle })
        // The operation is over; the group is still open: now the open group is the reason.
        #expect(throws: ActionStack.HistoryPersistenceError.groupIsOpen) { try stack.savedHistory() }
        stack.endUndoGrouping()
        try world.expectRecoveryIsTheLiveSave("after the group closed")
        #expect(stack.lastMisuse == nil)
    }

    /// "If action k throws: ... the step stays where it was ... When the rollback restores
    /// everything, the document is as it was, and so is isClean." A call "that changes no history
    /// ... appends nothing" (Saving the History).
    @Test func aFailedUndoThatRollsBackFullyRecordsNothingAndRecoversTheLiveSave() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1), ("b", 1)], named: "Both")
        stack.markClean()
        try world.expectRecoveryIsTheLiveSave("before")
        let count = world.recorder.recordCount
        world["a"].refused = [0]  // a's undo (run second) fails; b's is rolled back
        let gate = Gate()
        AJGates.gates["b"] = gate
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        #expect(world.recorder.recordCount == count)
        gate.openForGood()
        let result = await task.result
        #expect(throws: ActionStack.OperationError.self) { try result.get() }
        await settle(until: { world.isIdle })
        #expect(stack.isClean)
        #expect(world["a"].value == 1 && world["b"].value == 1)
        #expect(world.recorder.recordCount == count, "a full rollback changes no history")
        try world.expectRecoveryIsTheLiveSave("after the rollback")
    }

    /// "When it cannot (an action that registered no inverse, a target freed meanwhile), the error
    /// lists the actions it could not undo, and the document is in a new state, not clean." The
    /// recorder records "a clean mark" among the changes; the recovery is what a full save gives.
    @Test func aFailedUndoThatCannotRestoreEverythingRecordsTheLostCleanState() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        // b's inverse (registered first, run second) is refused; a's inverse (run first) registers
        // no inverse of its own, so the rollback cannot put a back.
        world.revision += 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(AJAsyncSet(value: 0), on: world["b"], key: "b")
        world["b"].value = 1
        stack.registerAsyncUndo(AJAsyncSet(value: 0, registersInverse: false), on: world["a"], key: "a")
        world["a"].value = 1
        stack.setActionName("Both")
        stack.endUndoGrouping()
        stack.markClean()
        try world.expectRecoveryIsTheLiveSave("before")
        #expect(try stack.savedHistory().clean != nil)
        world["b"].refused = [0]
        world.revision += 1
        do {
            try await stack.performUndo()
            Issue.record("the undo should fail")
        } catch {
            let failure = try #require(error.actionFailure, "\(error)")
            #expect(failure.rollback.unrestoredActions != nil, "\(failure.rollback)")
        }
        await settle(until: { world.isIdle })
        #expect(!stack.isClean, "the document is in a new state, not clean")
        #expect(try stack.savedHistory().clean == nil)
        try world.expectRecoveryIsTheLiveSave("after a partial rollback")
    }

    /// "Cancelling the task whose operation is running ... counts as a failure: the operation
    /// stops before its next action ..., and rolls back ... the step is never left half applied."
    @Test func aCancelledUndoRollsBackAndTheJournalKeepsTheLiveSave() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1), ("b", 1)], named: "Both")
        world.asyncStep([("c", 1)], named: "C")
        world.revision += 1
        try await stack.performUndo()
        let count = world.recorder.recordCount
        try world.expectRecoveryIsTheLiveSave("before")
        let gate = Gate()
        AJGates.gates["b"] = gate  // b's inverse runs first
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        task.cancel()
        gate.openForGood()
        let result = await task.result
        #expect(throws: ActionStack.OperationError.self) { try result.get() }
        await settle(until: { world.isIdle })
        #expect(world["a"].value == 1 && world["b"].value == 1)
        #expect(stack.undoCount == 1 && stack.redoCount == 1)
        #expect(world.recorder.recordCount == count)
        try world.expectRecoveryIsTheLiveSave("after the cancelled undo")
    }

    // MARK: Clean marks, removals and observers around an operation

    /// "markClean() from another task while the operation runs its actions ... marks a state that
    /// no node of the history has ... whatever the operation's outcome ..., the stack is not clean
    /// afterwards" (Undoing through a server). The record made when it settles says the same.
    @Test(arguments: [false, true])
    func aCleanMarkMadeWhileAnUndoRunsIsRecordedAsNoCleanState(fails: Bool) async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1), ("b", 1)], named: "Both")
        try world.expectRecoveryIsTheLiveSave("before")
        let count = world.recorder.recordCount
        if fails { world["a"].refused = [0] }
        let gate = Gate()
        AJGates.gates["b"] = gate
        world.revision += 1
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        stack.markClean()
        #expect(world.recorder.recordCount == count, "nothing is recorded while the operation runs")
        gate.openForGood()
        _ = await task.result
        await settle(until: { world.isIdle })
        #expect(!stack.isClean)
        #expect(try stack.savedHistory().clean == nil)
        #expect(world.recorder.recordCount > count, "the clean state moved: a change to record")
        try world.expectRecoveryIsTheLiveSave("after the operation")
    }

    /// "The recorder runs after the stack's observers (observe(_:)), so what an observer changes in
    /// its turn (an autosave's markClean()) is in the same record" (HistoryRecorder); observers of
    /// an awaited undo's did-notification "may ... call markClean()" (Reentrancy).
    @Test(arguments: ["did-undo", "state"])
    func anAutosaveObserverOfAnAwaitedUndoIsInTheSameRecord(_ observer: String) async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("a", 2)], named: "Two")
        let autosave = AJAutosave(stack)
        var token: (any NSObjectProtocol)?
        var observation: ActionStack.ObservationToken?
        if observer == "did-undo" {
            token = NotificationCenter.default.addObserver(
                forName: ActionStack.didUndoChangeNotification, object: stack, queue: nil
            ) { _ in MainActor.assumeIsolated { autosave.save() } }
        } else {
            observation = stack.observe { state in
                if !state.isBusy, !state.isClean, state.undoCount == 1 { autosave.save() }
            }
        }
        defer {
            if let token { NotificationCenter.default.removeObserver(token) }
            observation?.cancel()
        }
        let count = world.recorder.recordCount
        world.revision += 1
        try await stack.performUndo()
        autosave.armed = false
        await settle(until: { world.isIdle })
        #expect(stack.isClean)
        #expect(world.recorder.recordCount == count + 1, "one record for the undo and its mark")
        try world.expectRecoveryIsTheLiveSave("after the undo")
        #expect(try world.recovered().map { _ in try stack.savedHistory().clean } == 1)
    }

    /// "removeAllActions() cancels the waiting requests; the operation in flight goes on to its end,
    /// and then nothing it touched survives (both stacks are empty ...) ... made while the operation
    /// runs its actions, that mark is one no node has", and the recorder writes a snapshot for a
    /// removal.
    @Test func aRemovalWhileAnUndoRunsIsRecordedWhenItSettles() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("b", 1)], named: "Two")
        let count = world.recorder.recordCount
        let gate = Gate()
        AJGates.gates["b"] = gate
        world.revision += 1
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        stack.removeAllActions()
        #expect(world.recorder.recordCount == count)
        gate.openForGood()
        _ = try await task.value
        await settle(until: { world.isIdle })
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        #expect(!stack.isClean)
        #expect(world.recorder.recordCount > count)
        try world.expectRecoveryIsTheLiveSave("after the removal")
    }

    /// A recorder made while an operation is in flight: "The history as it is now is not recorded:
    /// the first record is made by the stack's next change"; the operation settling is that change.
    @Test func aRecorderMadeWhileAnUndoRunsRecordsWhenItSettles() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-awaited-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
        let stack = makeStack()
        let box = AJBox("late")
        for value in 1...2 {
            stack.beginUndoGrouping()
            stack.registerAsyncUndo(AJAsyncSet(value: box.value), on: box, key: box.id)
            box.value = value
            stack.endUndoGrouping()
        }
        let gate = Gate()
        AJGates.gates[box.id] = gate
        defer { AJGates.gates[box.id] = nil }
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        #expect(recorder.recordCount == 0)
        gate.openForGood()
        _ = try await task.value
        await settle(until: { !stack.isBusy })
        #expect(recorder.recordCount == 1)
        let archive = try HistoryRecorder.recover(from: journal, fingerprint: "v1", registry: AJWorld.registry)
        let recovered = try #require(archive?.histories[HistoryRecorder.defaultHistoryName])
        #expect(try bytes(recovered) == bytes(stack.savedHistory()))
        #expect(recorder.lastError == nil)
    }

    /// A recorder that saves at most `maximumSteps`: a recovery "keeps the same steps" a save with
    /// that limit keeps, after an awaited undo too.
    @Test func aRecorderWithASaveLimitRecoversWhatALimitedSaveGivesAfterAnAwaitedUndo() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-awaited-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
        let stack = makeStack()
        let box = AJBox("limit")
        var revision = 0
        let recorder = HistoryRecorder(journal: journal, stack: stack, maximumSteps: 2) { "r\(revision)" }
        for value in 1...4 {
            revision += 1
            stack.beginUndoGrouping()
            stack.registerAsyncUndo(AJAsyncSet(value: box.value), on: box, key: box.id)
            box.value = value
            stack.endUndoGrouping()
        }
        revision += 1
        try await stack.performUndo()
        try await stack.performUndo()
        let archive = try HistoryRecorder.recover(
            from: journal, fingerprint: "r\(revision)", registry: AJWorld.registry)
        let recovered = try #require(archive?.histories[HistoryRecorder.defaultHistoryName])
        #expect(try bytes(recovered) == bytes(stack.savedHistory(maximumSteps: 2)))
        #expect(recorder.lastError == nil)
    }

    /// "HistoryJournal.reset() ... The recorder writes a snapshot for its first record, after
    /// reset()": a reset while an undo awaits, then the undo settles.
    @Test func aJournalResetWhileAnUndoRunsIsFollowedByAWholeSnapshot() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("b", 1)], named: "Two")
        let gate = Gate()
        AJGates.gates["b"] = gate
        world.revision += 1
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        try world.journal.reset()
        gate.openForGood()
        _ = try await task.value
        await settle(until: { world.isIdle })
        #expect(try world.journal.records().count == 1)
        try world.expectRecoveryIsTheLiveSave("after the reset and the undo")
    }

    /// "A record that cannot be written (a full disk) changes no stack: the recorder reports it
    /// (onError) and tries again at the next change, with a snapshot." Here the record is the one
    /// an awaited undo makes when it settles.
    @Test func aRecordThatCannotBeWrittenWhenAnUndoSettlesIsMadeUpAtTheNextChange() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("b", 1)], named: "Two")
        let gate = Gate()
        AJGates.gates["b"] = gate
        world.revision += 1
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        try FileManager.default.removeItem(at: world.directory)
        var errors = 0
        world.recorder.onError = { _ in errors += 1 }
        gate.openForGood()
        #expect(try await task.value)
        await settle(until: { world.isIdle })
        #expect(errors == 1 && world.recorder.lastError != nil)
        #expect(world["b"].value == 0 && stack.redoCount == 1, "the failure changed no stack")
        try FileManager.default.createDirectory(at: world.directory, withIntermediateDirectories: true)
        world.syncStep("c", to: 1, named: "Three")
        #expect(world.recorder.lastError == nil)
        try world.expectRecoveryIsTheLiveSave("after the next change")
    }

    // MARK: Jumps that stop early

    /// "if one fails, the jump stops at the last position it reached, which is where the stack
    /// is"; "A new change from another task ends the jump after the step in flight." Recorded once
    /// it has ended, as the live save gives it; in a tree the change "becomes a branch then".
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree], ["fails", "change"])
    func aJumpThatStopsEarlyIsRecordedWhereItStopped(shape: ActionStack.HistoryShape, stop: String) async throws {
        let world = try AJWorld(shape: shape)
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("b", 1)], named: "Two")
        world.asyncStep([("c", 1)], named: "Three")
        let count = world.recorder.recordCount
        let gate = Gate()
        AJGates.gates["b"] = gate
        if stop == "fails" { world["b"].refused = [0] }
        world.revision += 1
        let task = Task { @MainActor in try await stack.performJump(to: 0) }
        await settle(until: { gate.waitingCount == 1 })
        if stop == "change" { world.syncStep("a", to: 9, named: "Meanwhile") }
        #expect(world.recorder.recordCount == count)
        gate.openForGood()
        let result = await task.result
        if stop == "fails" {
            #expect(throws: ActionStack.OperationError.self) { try result.get() }
            #expect(world["c"].value == 0 && world["b"].value == 1)
        } else {
            #expect(try result.get())
            #expect(world["b"].value == 0 && world["a"].value == 9)
            #expect(stack.undoMenuItemTitle == "Undo Meanwhile")
        }
        await settle(until: { world.isIdle })
        #expect(world.recorder.recordCount > count)
        try world.expectRecoveryIsTheLiveSave("after the jump stopped (\(stop))")
    }

    // MARK: Broken steps

    /// A rollback that fails leaves a broken step; the recorder waits "for the call that ...
    /// discards or retries the broken step" (HistoryRecorder). discardBrokenStep(): "the step
    /// leaves the history; the document is not clean"; "New changes are still recorded" meanwhile.
    @Test(arguments: ["discard", "retry"])
    func aBrokenStepIsRecordedWhenItIsDiscardedOrRetried(_ way: String) async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("c", 1)], named: "C")
        world.asyncStep([("a", 1), ("b", 1)], named: "Both")
        stack.markClean()
        try world.expectRecoveryIsTheLiveSave("before")
        let count = world.recorder.recordCount
        // b's inverse runs first (sets b to 0), then a's is refused; rolling b back (to 1) is
        // refused too.
        world["a"].refused = [0]
        world["b"].refused = [1]
        world.revision += 1
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performUndo() }
        #expect(stack.brokenStep != nil)
        #expect(throws: ActionStack.HistoryPersistenceError.busy) { try stack.savedHistory() }
        #expect(world.recorder.recordCount == count, "a broken history is not recorded")
        if way == "discard" {
            // A new change while broken: recorded, with the discard, as a step.
            world.syncStep("c", to: 5, named: "While broken")
            #expect(world.recorder.recordCount == count)
            stack.discardBrokenStep()
            #expect(!stack.isClean)
            #expect(world.recorder.recordCount > count)
            try world.expectRecoveryIsTheLiveSave("after the discard")
        } else {
            world["a"].refused = []
            world["b"].refused = []
            #expect(try await stack.retryBrokenStep())
            await settle(until: { world.isIdle })
            #expect(world["a"].value == 0 && world["b"].value == 0)
            #expect(world.recorder.recordCount > count)
            try world.expectRecoveryIsTheLiveSave("after the retry")
        }
        #expect(stack.lastMisuse == nil)
    }

    /// "a retry that fails leaves the step broken": still nothing whole to record.
    @Test func aRetryThatFailsAgainRecordsNothing() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1), ("b", 1)], named: "Both")
        let count = world.recorder.recordCount
        world["a"].refused = [0]
        world["b"].refused = [1]
        world.revision += 1
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performUndo() }
        #expect(stack.brokenStep != nil)
        await #expect(throws: ActionStack.OperationError.self) { try await stack.retryBrokenStep() }
        await settle(until: { !stack.isBusy })
        #expect(stack.brokenStep != nil)
        #expect(world.recorder.recordCount == count)
        stack.discardBrokenStep()
        try world.expectRecoveryIsTheLiveSave("after the discard")
    }

    /// A broken redo in a branching history, a change recorded while it is broken (which, in a
    /// tree, keeps the redo side as a branch), then the discard: "the step leaves the history".
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aBrokenRedoDiscardedAfterAChangeIsRecordedAsTheLiveSave(shape: ActionStack.HistoryShape) async throws {
        let world = try AJWorld(shape: shape)
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("c", 1)], named: "C")
        world.asyncStep([("a", 1), ("b", 1)], named: "Both")
        world.revision += 1
        try await stack.performUndo()
        let count = world.recorder.recordCount
        // The redo runs a's action, then b's (refused); rolling a back is refused too.
        world["a"].refused = [0]
        world["b"].refused = [1]
        world.revision += 1
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performRedo() }
        let broken = try #require(stack.brokenStep)
        #expect(!broken.isUndo)
        world.syncStep("c", to: 5, named: "While broken")
        #expect(world.recorder.recordCount == count)
        stack.discardBrokenStep()
        #expect(world.recorder.recordCount > count)
        try world.expectRecoveryIsTheLiveSave("after the discard")
        world.syncStep("c", to: 6, named: "After")
        try world.expectRecoveryIsTheLiveSave("after a change")
    }

    /// removeAllActions() on a broken stack: "both stacks are empty, and a broken step goes too";
    /// the recorder writes a snapshot for a removal, and the stack is empty again for a restore.
    @Test func aRemovalOfABrokenHistoryIsRecordedAndARestoreFollows() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1), ("b", 1)], named: "Both")
        let saved = try stack.savedHistory()
        let count = world.recorder.recordCount
        world["a"].refused = [0]
        world["b"].refused = [1]
        world.revision += 1
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performUndo() }
        #expect(stack.brokenStep != nil)
        stack.removeAllActions()
        #expect(stack.brokenStep == nil && stack.undoCount == 0)
        #expect(world.recorder.recordCount == count + 1)
        try world.expectRecoveryIsTheLiveSave("after the removal")
        world["a"].refused = []
        world["b"].refused = []
        world.revision += 1
        let report = try stack.restoreHistory(saved) { world.boxes[$0] }
        #expect(report.restoredSteps == 1)
        try world.expectRecoveryIsTheLiveSave("after the restore")
    }

    // MARK: Asynchronous groups

    /// "changes other tasks record while it awaits are steps of their own (its step goes on top of
    /// them when it closes)"; "if it throws, what it registered is undone (awaiting asynchronous
    /// actions) and no step is left."
    @Test(arguments: [false, true])
    func anAsyncGroupAndTheChangesMadeWhileItAwaitsAreRecordedWhenItEnds(throwing: Bool) async throws {
        struct Stop: Error {}
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.syncStep("c", to: 1, named: "Before")
        try world.expectRecoveryIsTheLiveSave("before")
        let count = world.recorder.recordCount
        let gate = Gate()
        let a = world["a"]
        world.revision += 1
        let task = Task { @MainActor in
            try await stack.asyncGroup(named: "Group") {
                stack.registerAsyncUndo(AJAsyncSet(value: a.value), on: a, key: "a")
                a.value = 1
                await gate.pass()
                stack.registerAsyncUndo(AJAsyncSet(value: a.value), on: a, key: "a")
                a.value = 2
                if throwing { throw Stop() }
            }
        }
        await settle(until: { gate.waitingCount == 1 })
        // "An asynchronous group whose body is running is an asynchronous operation in progress:
        // busy (its group is on a side of its own, not open on the undo stack)" (savedHistory).
        #expect(throws: ActionStack.HistoryPersistenceError.busy) { try stack.savedHistory() }
        world.syncStep("b", to: 3, named: "Meanwhile 1")
        world.syncStep("c", to: 4, named: "Meanwhile 2")
        #expect(world.recorder.recordCount == count, "nothing is recorded while the group holds the turn")
        gate.openForGood()
        let result = await task.result
        if throwing {
            #expect(throws: Stop.self) { try result.get() }
            #expect(a.value == 0)
            #expect(stack.undoMenuItemTitle == "Undo Meanwhile 2")
        } else {
            try result.get()
            #expect(stack.undoMenuItemTitle == "Undo Group")
        }
        await settle(until: { world.isIdle })
        #expect(world.recorder.recordCount > count)
        try world.expectRecoveryIsTheLiveSave("after the group")
        #expect(stack.lastMisuse == nil)
    }

    /// An asynchronous group in a branching history: the steps other tasks record while it awaits
    /// keep the redo side as a branch, and "its step goes on top of them when it closes".
    @Test(arguments: [false, true])
    func anAsyncGroupInATreeIsRecordedAsTheLiveSave(throwing: Bool) async throws {
        struct Stop: Error {}
        let world = try AJWorld(shape: .tree)
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("c", 1)], named: "One")
        world.asyncStep([("c", 2)], named: "Two")
        world.revision += 1
        try await stack.performUndo()
        let count = world.recorder.recordCount
        let gate = Gate()
        let a = world["a"]
        world.revision += 1
        let task = Task { @MainActor in
            try await stack.asyncGroup(named: "Group") {
                stack.registerAsyncUndo(AJAsyncSet(value: a.value), on: a, key: "a")
                a.value = 1
                await gate.pass()
                if throwing { throw Stop() }
            }
        }
        await settle(until: { gate.waitingCount == 1 })
        world.syncStep("b", to: 3, named: "Meanwhile")
        #expect(world.recorder.recordCount == count)
        gate.openForGood()
        _ = await task.result
        await settle(until: { world.isIdle })
        #expect(world.recorder.recordCount > count)
        try world.expectRecoveryIsTheLiveSave("after the group")
    }

    /// A throwing asynchronous group whose rollback fails: "If the rollback cannot undo everything
    /// (..., an inverse that throws), the document is in a new state, never clean." No step is
    /// left, and the record says the clean state is gone.
    @Test func aThrowingAsyncGroupWhoseRollbackFailsRecordsNoCleanState() async throws {
        struct Stop: Error {}
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("c", 1)], named: "One")
        stack.markClean()
        let a = world["a"]
        a.refused = [0]
        world.revision += 1
        await #expect(throws: Stop.self) {
            try await stack.asyncGroup(named: "Group") {
                stack.registerAsyncUndo(AJAsyncSet(value: a.value), on: a, key: "a")
                a.value = 1
                throw Stop()
            }
        }
        await settle(until: { world.isIdle })
        #expect(stack.brokenStep == nil)
        #expect(!stack.isClean)
        #expect(stack.undoMenuItemTitle == "Undo One")
        try world.expectRecoveryIsTheLiveSave("after the failed rollback")
    }

    /// restoreHistory: "Empty means: ... no asynchronous operation in progress or waiting. ...
    /// Anything else is the misuse historyNotEmpty and nothing changes." An asynchronous group
    /// holds the turn on a stack with no step yet.
    @Test func aRestoreIntoAStackWhoseAsyncGroupIsOpenIsAMisuseAndChangesNothing() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        // Something to restore: the history of another stack.
        let source = makeStack()
        let other = AJBox("a", value: 0)
        source.beginUndoGrouping()
        AJSet(value: 9).perform(on: other, in: source)
        source.endUndoGrouping()
        let saved = try source.savedHistory()
        let gate = Gate()
        let a = world["a"]
        let task = Task { @MainActor in
            try await stack.asyncGroup(named: "Group") {
                await gate.pass()
                stack.registerAsyncUndo(AJAsyncSet(value: a.value), on: a, key: "a")
                a.value = 1
            }
        }
        await settle(until: { gate.waitingCount == 1 })
        let state = stack.state
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try stack.restoreHistory(saved) { _ in a }
        }
        #expect(stack.lastMisuse == .historyNotEmpty(.restoreHistory))
        #expect(stack.state == state)
        #expect(world.recorder.recordCount == 0)
        // A queued undo behind the group: a save is refused as busy, nothing changes.
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { stack.pendingRequestCount == 1 })
        let queuedState = stack.state
        #expect(throws: ActionStack.HistoryPersistenceError.busy) { try stack.savedHistory() }
        #expect(stack.state == queuedState)
        world.revision += 1
        gate.openForGood()
        try await task.value
        _ = try await undo.value
        await settle(until: { world.isIdle })
        #expect(a.value == 0, "the queued undo undid the group once it closed")
        #expect(stack.redoMenuItemTitle == "Redo Group")
        try world.expectRecoveryIsTheLiveSave("after the group and the undo")
    }

    // MARK: Limits set while an operation awaits

    /// "Limits ... made while a request holds the turn wait until the whole request has ended ...
    /// They apply when it ends, before the next request starts." The recorder records "a trim".
    @Test(arguments: ["levels", "cost", "shape"])
    func aLimitSetWhileAnUndoAwaitsIsRecordedAsTheLiveSaveGivesIt(_ limit: String) async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        for value in 1...4 {
            // A step that mixes both kinds counts its synchronous actions' costs.
            world.revision += 1
            stack.beginUndoGrouping()
            AJSet(value: value, cost: 10).perform(on: world["c"], in: stack)
            stack.registerAsyncUndo(AJAsyncSet(value: world["a"].value), on: world["a"], key: "a")
            world["a"].value = value
            stack.setActionName("Step \(value)")
            stack.endUndoGrouping()
        }
        try world.expectRecoveryIsTheLiveSave("before")
        let gate = Gate()
        AJGates.gates["a"] = gate
        world.revision += 1
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        switch limit {
        case "levels": stack.levelsOfUndo = 2
        case "cost": stack.maximumCost = 25
        default: stack.historyShape = .tree
        }
        #expect(stack.undoCount == 4, "nothing is trimmed under a step in flight")
        gate.openForGood()
        _ = try await task.value
        await settle(until: { world.isIdle })
        switch limit {
        case "levels": #expect(stack.undoCount <= 2, "trimmed when the undo ended")
        case "cost": #expect(stack.undoCount <= 2, "trimmed when the undo ended")
        default: #expect(stack.historyShape == .tree)
        }
        try world.expectRecoveryIsTheLiveSave("after the \(limit) change")
        // And a change afterwards keeps them in step.
        world.asyncStep([("b", 1)], named: "After")
        try world.expectRecoveryIsTheLiveSave("after a new change")
    }

    /// The same in a branching history: an awaited jump across branches, with `levelsOfUndo` and
    /// `maximumBranchSteps` set between its steps. "nothing is trimmed under a step in flight or
    /// between the steps of a jump, so a limit set during a jump never cuts it short."
    @Test(arguments: ["levels", "branches", "cost"])
    func aLimitSetDuringAnAwaitedJumpInATreeIsRecordedAsTheLiveSaveGivesIt(_ limit: String) async throws {
        let world = try AJWorld(shape: .tree)
        defer { world.tearDown() }
        let stack = world.stack
        // 0 -> 1 -> 2 -> 3, then from 1: 4 -> 5.
        world.asyncStep([("a", 1)], named: "1")
        world.asyncStep([("a", 2)], named: "2")
        world.asyncStep([("a", 3)], named: "3")
        try await stack.performJump(toNode: node(1))
        world.revision += 1
        world.asyncStep([("b", 4)], named: "4")
        world.syncStep("c", to: 5, cost: 10, named: "5")
        try world.expectRecoveryIsTheLiveSave("before")
        let gate = Gate()
        AJGates.gates["a"] = gate
        world.revision += 1
        let task = Task { @MainActor in try await stack.performJump(toNode: node(3)) }
        // Undo 5 and 4 (not gated), then redo 2: gated on a.
        await settle(until: { gate.waitingCount == 1 })
        switch limit {
        case "levels": stack.levelsOfUndo = 1
        case "branches": stack.maximumBranchSteps = 1
        default: stack.maximumCost = 5
        }
        gate.openOne()
        await settle(until: { gate.waitingCount == 1 })  // the redo of 3
        gate.openForGood()
        #expect(try await task.value, "the jump is never cut short")
        await settle(until: { world.isIdle })
        #expect(stack.currentNode == node(3))
        try world.expectRecoveryIsTheLiveSave("after the jump under a \(limit) limit")
        world.syncStep("b", to: 9, named: "After")
        try world.expectRecoveryIsTheLiveSave("after a new change")
    }

    // MARK: A journal damaged after an awaited step

    /// "a torn last record is ignored" (Writing to disk); a torn record is reported as
    /// Replay.Ending.tornRecord, and "the next record appended after it is a snapshot" (When a
    /// record reaches the disk).
    @Test func aRecordTornRightAfterAnAwaitedUndoIsIgnoredAndTheNextRecordFollowsCleanly() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("a", 2)], named: "Two")
        let before = world.revision
        let expectedBefore = try world.liveSave()
        let start = try world.fileSize()
        world.revision += 1
        try await stack.performUndo()
        let afterUndo = world.revision
        let end = try world.fileSize()
        #expect(end > start, "the undo appended a record")
        // A crash in the middle of that append.
        let handle = try FileHandle(forWritingTo: world.journal.url)
        try handle.truncate(atOffset: UInt64(start + (end - start) / 2))
        try handle.close()
        let replay = try world.journal.replay()
        #expect(replay.ending == .tornRecord(offset: start, length: (end - start) / 2), "\(replay.ending)")
        #expect(try world.recovered(fingerprint: "rev\(afterUndo)") == nil, "the torn record is not recovered")
        #expect(try world.recovered(fingerprint: "rev\(before)") == expectedBefore)
        // The next change is recorded after the last intact record, and recovers as the live save.
        world.asyncStep([("b", 1)], named: "Three")
        #expect(world.recorder.lastError == nil)
        #expect(try world.journal.replay().ending == .complete)
        try world.expectRecoveryIsTheLiveSave("after the next change")
    }

    /// "A damaged record before the end stops the replay there (corruptRecord)"; the next append
    /// "overwrites the damaged record and everything after it" (When the journal's file changes
    /// behind its back).
    @Test func aRecordDamagedRightAfterAnAwaitedRedoCutsTheReplayThere() async throws {
        let world = try AJWorld()
        defer { world.tearDown() }
        let stack = world.stack
        world.asyncStep([("a", 1)], named: "One")
        world.asyncStep([("a", 2)], named: "Two")
        try await stack.performUndo()
        let before = world.revision
        let expectedBefore = try world.liveSave()
        let start = try world.fileSize()
        world.revision += 1
        try await stack.performRedo()
        let afterRedo = world.revision
        let end = try world.fileSize()
        world.syncStep("c", to: 3, named: "Later")
        let later = world.revision
        let total = try world.fileSize()
        #expect(end > start && total > end)
        // A byte changed in the middle of the redo's record.
        let handle = try FileHandle(forUpdating: world.journal.url)
        let offset = UInt64(start + (end - start) / 2)
        try handle.seek(toOffset: offset)
        let byte = try handle.read(upToCount: 1) ?? Data([0])
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data([byte[byte.startIndex] ^ 0xFF]))
        try handle.close()
        let replay = try world.journal.replay()
        #expect(replay.ending.offset == start, "\(replay.ending)")
        #expect(replay.ending.droppedBytes == total - start, "\(replay.ending)")
        #expect(try world.recovered(fingerprint: "rev\(afterRedo)") == nil)
        #expect(try world.recovered(fingerprint: "rev\(later)") == nil)
        #expect(try world.recovered(fingerprint: "rev\(before)") == expectedBefore)
        // The next change overwrites the damage and recovers as the live save.
        world.asyncStep([("b", 1)], named: "Next")
        #expect(world.recorder.lastError == nil)
        #expect(try world.journal.replay().ending == .complete)
        try world.expectRecoveryIsTheLiveSave("after the next change")
    }
}
