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

// Tests of asynchronous undo with controlled interleaving: handlers suspend at gates that the test
// opens, so every order of events is deterministic. Every test runs on the main actor, as an app's
// document model would, and the handlers run there too.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncUndoTests {
    @Test func anAsyncStepUndoesAndRedoesThroughItsHandlers() async throws {
        let stack = makeAsyncStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack, named: "One")
        try await remote.change(to: 2, on: stack, named: "Two")
        #expect(stack.undoMenuItemTitle == "Undo Two")

        #expect(try await stack.performUndo())
        #expect(remote.value == 1)
        #expect(stack.redoMenuItemTitle == "Redo Two")
        #expect(try await stack.performUndo())
        #expect(remote.value == 0)
        #expect(try await stack.performUndo() == false)
        #expect(try await stack.performRedo())
        #expect(try await stack.performRedo())
        #expect(remote.value == 2)
        #expect(remote.writes == [1, 2, 1, 0, 1, 2])
        #expect(stack.undoCount == 2 && stack.redoCount == 0)
        #expect(stack.undoMenuItemTitle == "Undo Two")
    }

    @Test func threeRapidUndosRunOneAtATimeInRequestOrder() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }

        var finished: [Int] = []
        var tasks: [Task<Void, Never>] = []
        for press in 1...3 {
            tasks.append(
                Task { @MainActor in
                    _ = try? await stack.performUndo()
                    finished.append(press)
                })
        }
        await settle { gate.waitingCount == 1 }
        #expect(stack.isBusy)
        #expect(stack.pendingRequestCount == 2)
        #expect(stack.state.isBusy && stack.state.pendingRequestCount == 2)
        // One handler at a time: the second undo has not started while the first awaits.
        #expect(gate.waitingCount == 1)
        #expect(stack.undoCount == 3)

        gate.openOne()
        await settle { gate.waitingCount == 1 && finished.count == 1 }
        #expect(remote.value == 2)
        gate.openOne()
        await settle { gate.waitingCount == 1 && finished.count == 2 }
        #expect(remote.value == 1)
        gate.openOne()
        for task in tasks { await task.value }
        #expect(remote.value == 0)
        #expect(finished == [1, 2, 3])
        #expect(!stack.isBusy && stack.pendingRequestCount == 0)
        #expect(stack.undoCount == 0 && stack.redoCount == 3)
    }

    @Test func willAndDidAndWillAndFailNotificationsPair() async throws {
        let stack = makeAsyncStack()
        let remote = RemoteValue()
        let log = OperationLog(stack)
        try await remote.change(to: 1, on: stack)
        try await stack.performUndo()
        try await stack.performRedo()
        remote.refused = [0]
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performUndo() }
        #expect(log.events == ["willUndo", "didUndo", "willRedo", "didRedo", "willUndo", "failUndo"])
    }

    @Test func isUndoingHoldsAcrossSuspensionsForTheOperationsTaskOnly() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let probe = Probe()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: probe) { probe in
            probe.before = stack.isUndoing
            await gate.pass()
            probe.after = stack.isUndoing
        }
        stack.endUndoGrouping()
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        // Another task (this test's) reads false: its changes are not part of the undo.
        #expect(!stack.isUndoing)
        #expect(stack.isBusy)
        gate.openOne()
        _ = try await task.value
        #expect(probe.before == true && probe.after == true)
        #expect(!stack.isUndoing && !stack.isBusy)
    }

    @Test func aChangeFromAnotherTaskWhileAnUndoAwaits() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let other = RemoteValue("other")
        try await remote.change(to: 1, on: stack, named: "Remote")
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        // A queued request, made before the new change: it meant an older state.
        let queued = Task { @MainActor in try await stack.performUndo() }
        await settle { stack.pendingRequestCount == 1 }

        // The user edits something else meanwhile, in another task.
        try await other.change(to: 7, on: stack, named: "Other")
        #expect(stack.pendingRequestCount == 0)
        await #expect(throws: ActionStack.OperationError.self) { try await queued.value }

        gate.openOne()
        #expect(try await undo.value)
        #expect(remote.value == 0 && other.value == 7)
        // The new change sits on top of the state the undo reached; the undo's redo step is gone.
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Other")
        #expect(!stack.canRedo)
        gate.openForGood()
        #expect(try await stack.performUndo())
        #expect(other.value == 0)
        #expect(!stack.canUndo)
        #expect(try await stack.performRedo())
        #expect(other.value == 7)
    }

    @Test func undoingTheNewChangeMadeDuringAnUndoReturnsToTheCleanState() async throws {
        // Found by the schedule driver: the undo's arrival was measured from the new change's state.
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let other = RemoteValue("other")
        stack.markClean()
        try await remote.change(to: 1, on: stack)
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        try await other.change(to: 5, on: stack)
        gate.openForGood()
        _ = try await undo.value
        #expect(!stack.isClean)
        try await stack.performUndo()
        #expect(remote.value == 0 && other.value == 0)
        #expect(stack.isClean)
    }

    @Test func aChangeFromAnotherTaskWhileARedoAwaitsGoesAboveTheRedoneStep() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let other = RemoteValue("other")
        try await remote.change(to: 1, on: stack, named: "Remote")
        gate.openForGood()
        try await stack.performUndo()
        gate.isClosed = true
        let redo = Task { @MainActor in try await stack.performRedo() }
        await settle { gate.waitingCount == 1 }
        try await other.change(to: 5, on: stack, named: "Other")
        gate.openForGood()
        #expect(try await redo.value)
        #expect(remote.value == 1 && other.value == 5)
        #expect(stack.undoCount == 2)
        #expect(stack.undoMenuItemTitle == "Undo Other")
        try await stack.performUndo()
        #expect(other.value == 0 && remote.value == 1)
        #expect(stack.undoMenuItemTitle == "Undo Remote")
        try await stack.performUndo()
        #expect(remote.value == 0)
    }

    @Test(arguments: [0, 1, 2])
    func whenActionKOfThreeFailsTheOthersAreRolledBackAndTheStepStays(failing index: Int) async throws {
        let stack = makeAsyncStack()
        let remotes = [RemoteValue("a"), RemoteValue("b"), RemoteValue("c")]
        stack.beginUndoGrouping()
        for remote in remotes { try await remote.set(1, on: stack) }
        stack.setActionName("Three")
        stack.endUndoGrouping()
        stack.markClean()
        remotes[index].refused = [0]
        let log = OperationLog(stack)

        do {
            try await stack.performUndo()
            Issue.record("the undo should have failed")
        } catch {
            guard let failure = error.actionFailure else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failure.actionIndex == index)
            #expect(failure.actionCount == 3)
            #expect(failure.isUndo)
            #expect(failure.stepName == "Three")
            #expect(failure.targetType.hasSuffix("RemoteValue"))
            #expect((failure.underlying as? RemoteFailure) == RemoteFailure(value: 0))
            guard failure.rollback.isRestored else {
                Issue.record("rollback: \(failure.rollback)")
                return
            }
        }
        // Actions ran newest first (c, b, a) until the failing one; the rollback redid those.
        #expect(remotes.map(\.value) == [1, 1, 1])
        #expect(stack.undoCount == 1 && stack.redoCount == 0)
        #expect(stack.undoMenuItemTitle == "Undo Three")
        #expect(stack.isClean)
        #expect(log.events == ["willUndo", "failUndo"])

        // The step is still whole: once the server accepts, it undoes.
        remotes[index].refused = []
        #expect(try await stack.performUndo())
        #expect(remotes.map(\.value) == [0, 0, 0])
        #expect(try await stack.performRedo())
        #expect(remotes.map(\.value) == [1, 1, 1])
        #expect(stack.isClean)
    }

    @Test func aRollbackThatFailsLeavesABrokenStepThatStopsTheQueueUntilDiscarded() async throws {
        let stack = makeAsyncStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        stack.beginUndoGrouping()
        try await a.set(1, on: stack)
        try await b.set(1, on: stack)
        stack.endUndoGrouping()
        // Undoing runs b (ok, b = 0), then a fails; rolling b back to 1 fails too.
        a.refused = [0]
        b.refused = [1]
        do {
            try await stack.performUndo()
            Issue.record("expected a failure")
        } catch {
            guard let failure = error.actionFailure, let index = failure.rollback.failedActionIndex else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failure.actionIndex == 0)
            #expect(index == 1)
        }
        #expect(stack.brokenStep != nil)
        #expect(stack.canUndo)
        #expect(!stack.isClean)

        // Undo and redo are misuses now; the synchronous one does not end the process.
        stack.undo()
        #expect(stack.lastMisuse == .stepIsBroken(.undo))
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performUndo() }
        // New changes are still recorded.
        let c = RemoteValue("c")
        try await c.change(to: 3, on: stack)
        #expect(stack.undoCount == 2)

        stack.discardBrokenStep()
        #expect(stack.brokenStep == nil)
        #expect(stack.undoCount == 1)
        #expect(try await stack.performUndo())
        #expect(c.value == 0)
        #expect(!stack.isClean)
    }

    @Test func aBrokenStepCanBeRetried() async throws {
        let stack = makeAsyncStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        stack.beginUndoGrouping()
        try await a.set(1, on: stack)
        try await b.set(1, on: stack)
        stack.endUndoGrouping()
        a.refused = [0]
        b.refused = [1]
        _ = try? await stack.performUndo()
        #expect(stack.brokenStep?.isUndo == true)
        a.refused = []
        b.refused = []
        #expect(try await stack.retryBrokenStep())
        #expect(stack.brokenStep == nil)
        #expect(a.value == 0 && b.value == 0)
        // The retry ran from the half-done state (b was already 0), so b's redo restores 0.
        #expect(try await stack.performRedo())
        #expect(a.value == 1 && b.value == 0)
    }

    @Test func anIncompleteRollbackSaysWhichActionsItCouldNotUndoAndTheDocumentIsNotClean() async throws {
        let stack = makeAsyncStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        stack.beginUndoGrouping()
        try await a.set(1, on: stack)
        try await b.set(1, on: stack)
        stack.endUndoGrouping()
        stack.markClean()
        a.refused = [0]
        b.registersNoInverse = true  // b's undo runs and registers nothing: it cannot be rolled back
        do {
            try await stack.performUndo()
            Issue.record("expected a failure")
        } catch {
            guard let failure = error.actionFailure,
                let indices = failure.rollback.unrestoredActions
            else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(indices == [1])
        }
        #expect(b.value == 0)
        #expect(!stack.isClean)
        #expect(stack.brokenStep == nil)
        #expect(stack.canUndo)
    }

    @Test func dropWhileBusyRefusesRequestsMadeWhileAnOperationIsInFlight() async throws {
        let stack = makeAsyncStack()
        stack.busyPolicy = .dropWhileBusy
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        try await remote.change(to: 2, on: stack)
        let first = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        do {
            try await stack.performUndo()
            Issue.record("expected a drop")
        } catch {
            guard error.dropReason == .busy else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        gate.openForGood()
        #expect(try await first.value)
        #expect(remote.value == 1)
    }

    @Test func theQueueLimitRefusesOneRequestMore() async throws {
        let stack = makeAsyncStack()
        stack.busyPolicy = .queue(limit: 1)
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let second = Task { @MainActor in try await stack.performUndo() }
        await settle { stack.pendingRequestCount == 1 }
        do {
            try await stack.performUndo()
            Issue.record("expected a drop")
        } catch {
            guard error.dropReason == .queueFull else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        gate.openForGood()
        #expect(try await first.value)
        #expect(try await second.value)
        #expect(remote.value == 1)
    }

    @Test func cancellingAQueuedRequestsTaskCancelsOnlyThatRequest() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let second = Task { @MainActor in try await stack.performUndo() }
        let third = Task { @MainActor in try await stack.performUndo() }
        await settle { stack.pendingRequestCount == 2 }
        second.cancel()
        await settle { stack.pendingRequestCount == 1 }
        do {
            _ = try await second.value
            Issue.record("expected a cancellation")
        } catch {
            #expect("\(error)".contains("cancelled"))
        }
        gate.openForGood()
        #expect(try await first.value)
        #expect(try await third.value)
        #expect(remote.value == 1)
        #expect(stack.undoCount == 1 && stack.redoCount == 2)
    }

    @Test func cancelPendingRequestsCancelsEveryWaitingRequest() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let waiting = (0..<2).map { _ in Task { @MainActor in try await stack.performUndo() } }
        await settle { stack.pendingRequestCount == 2 }
        stack.cancelPendingRequests()
        #expect(stack.pendingRequestCount == 0)
        for task in waiting {
            do {
                _ = try await task.value
                Issue.record("expected a cancellation")
            } catch {
                guard (error as? ActionStack.OperationError)?.cancellationReason == .cancelPendingRequests else {
                    Issue.record("unexpected \(error)")
                    continue
                }
            }
        }
        gate.openForGood()
        #expect(try await first.value)
        #expect(remote.value == 2)
    }

    @Test func cancellingTheTaskOfTheRunningOperationFailsItAndRollsBack() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        stack.beginUndoGrouping()
        try await b.change(to: 1, on: stack)  // registered first: undone last
        stack.endUndoGrouping()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: b) { b in try await b.set(0, on: stack) }
        try await a.set(1, on: stack)
        stack.endUndoGrouping()
        stack.markClean()
        // Undoing the second step runs a (newest) then b, which waits at the gate.
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        #expect(a.value == 0)
        undo.cancel()
        gate.openForGood()
        do {
            _ = try await undo.value
            Issue.record("expected a failure")
        } catch {
            guard let failure = (error as? ActionStack.OperationError)?.actionFailure else {
                Issue.record("unexpected \(error)")
                return
            }
            // b's handler finished its write; the next check of cancellation failed the step.
            guard failure.rollback.isRestored else {
                Issue.record("rollback \(failure.rollback)")
                return
            }
        }
        #expect(a.value == 1)
        #expect(stack.isClean)
        #expect(stack.undoCount == 2)
    }

    @Test func removeAllActionsDuringAnOperationCancelsTheQueueAndLeavesNothing() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let waiting = Task { @MainActor in try await stack.performUndo() }
        await settle { stack.pendingRequestCount == 1 }
        stack.removeAllActions()
        do {
            _ = try await waiting.value
            Issue.record("expected a cancellation")
        } catch {
            guard (error as? ActionStack.OperationError)?.cancellationReason == .removeAllActions else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        gate.openForGood()
        #expect(try await first.value)
        // The operation went on to its end; nothing it touched survives.
        #expect(remote.value == 2)
        #expect(!stack.canUndo && !stack.canRedo)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        // The removal marked the document clean while the step's action ran (half undone): the
        // undo then changed it, so it is not the document the removal called clean.
        #expect(!stack.isClean)
    }

    @Test func removingATargetsActionsDuringAnOperationSkipsTheOnesNotRunYet() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        stack.beginUndoGrouping()
        try await a.set(1, on: stack)
        stack.registerAsyncUndo(withTarget: b) { b in try await b.set(0, on: stack) }
        stack.endUndoGrouping()
        b.value = 1
        // b's action runs first (newest) and waits; a's is then removed.
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: a)
        gate.openForGood()
        #expect(try await undo.value)
        #expect(b.value == 0 && a.value == 1)
        #expect(stack.redoCount == 1)
        try await stack.performRedo()
        #expect(b.value == 1 && a.value == 1)
    }

    @Test func aTargetFreedWhileAnotherActionAwaitsIsSkipped() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        var a: RemoteValue? = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        stack.beginUndoGrouping()
        try await a!.set(1, on: stack)
        stack.registerAsyncUndo(withTarget: b) { b in try await b.set(0, on: stack) }
        stack.endUndoGrouping()
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        weak let freed = a
        a = nil
        #expect(freed == nil)
        gate.openForGood()
        #expect(try await undo.value)
        #expect(b.writes.last == 0)
    }

    @Test func aRollbackWhoseInverseLostItsTargetDuringTheAwaitIsIncomplete() async throws {
        // Undoing runs b (registered last) first; its inverse is registered on b. b is freed while
        // a awaits, then a fails: the rollback cannot put b back, and says so.
        let stack = makeAsyncStack()
        let gate = Gate()
        let a = RemoteValue("a", gate: gate)
        var b: RemoteValue? = RemoteValue("b")
        stack.beginUndoGrouping()
        try await a.change(to: 1, on: stack)
        try await b!.set(1, on: stack)
        stack.endUndoGrouping()
        stack.markClean()
        a.refused = [0]
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        weak let freed = b
        b = nil
        #expect(freed == nil)
        gate.openForGood()
        do {
            _ = try await undo.value
            Issue.record("expected a failure")
        } catch {
            guard let failure = (error as? ActionStack.OperationError)?.actionFailure,
                let indices = failure.rollback.unrestoredActions
            else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failure.actionIndex == 0)
            #expect(indices == [1])
        }
        #expect(a.value == 1)
        #expect(!stack.isClean)
        #expect(stack.brokenStep == nil)
    }

    @Test func anOperationThatTheSynchronousUndoStartsRunsItsHandlersOnTheMainActor() async throws {
        let stack = makeAsyncStack()
        let probe = Probe()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: probe) { probe in
            MainActor.preconditionIsolated()
            await Task.yield()
            MainActor.preconditionIsolated()
            probe.after = true
        }
        stack.endUndoGrouping()
        stack.undo()
        #expect(try await stack.startedRequest?.value() == true)
        #expect(probe.after == true)
    }

    @Test func theSynchronousUndoOfAnAsyncStepStartsAnAwaitableRequest() async throws {
        let stack = makeAsyncStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        stack.undo()
        let request = try #require(stack.startedRequest)
        #expect(request.kind == .undo)
        #expect(stack.isBusy)
        #expect(try await request.value())
        #expect(remote.value == 0)
        stack.redo()
        #expect(try await stack.startedRequest?.value() == true)
        #expect(remote.value == 1)
    }

    @Test func theSynchronousUndoOfASynchronousStepIsUnchanged() async throws {
        let stack = makeAsyncStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        try await stack.performUndo()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(5, on: stack)
        stack.endUndoGrouping()
        stack.undo()
        #expect(counter.value == 0)
        #expect(!stack.isBusy)
        #expect(stack.startedRequest == nil)
    }

    @Test func awaitingAnOperationOfTheSameStackFromItsOwnHandlerIsAMisuse() async throws {
        let stack = makeAsyncStack()
        let probe = Probe()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: probe) { probe in
            do {
                try await stack.performUndo()
            } catch {
                probe.error = error
            }
            stack.undo()
        }
        stack.endUndoGrouping()
        try await stack.performUndo()
        guard (probe.error as? ActionStack.OperationError)?.misuse == .awaitsOwnOperation(.undo) else {
            Issue.record("unexpected \(String(describing: probe.error))")
            return
        }
        #expect(stack.lastMisuse == .reentrantCall(.undo, during: .undoing))
    }

    @Test func anActorTargetsHandlerRunsIsolatedToTheActor() async throws {
        let stack = makeAsyncStack()
        let store = Store()
        stack.beginUndoGrouping()
        await store.append("a")
        stack.registerAsyncUndo(withActor: store) { store in
            store.rows.removeLast()
        }
        stack.endUndoGrouping()
        try await stack.performUndo()
        #expect(await store.rows.isEmpty)
    }

    @Test func levelsOfUndoNeverTrimsTheStepInFlight() async throws {
        let stack = makeAsyncStack()
        stack.levelsOfUndo = 1
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let other = RemoteValue("other")
        try await remote.change(to: 1, on: stack)
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        // A new change closes a step: one level only, yet the step in flight stays.
        try await other.change(to: 1, on: stack)
        #expect(stack.undoCount == 2)
        remote.refused = [0]
        gate.openForGood()
        await #expect(throws: ActionStack.OperationError.self) { try await undo.value }
        // Settled: the limit applies now, and the newest step stays.
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo")
        try await stack.performUndo()
        #expect(other.value == 0)
    }

    @Test func anAwaitedJumpMovesStepByStepAndStopsWhereAStepFails() async throws {
        let stack = makeAsyncStack()
        let remote = RemoteValue()
        for value in 1...4 { try await remote.change(to: value, on: stack) }
        #expect(try await stack.performJump(to: 1))
        #expect(remote.value == 1)
        #expect(stack.historyPosition == 1)
        #expect(try await stack.performJump(to: 4))
        #expect(remote.value == 4)
        remote.refused = [1]
        do {
            try await stack.performJump(to: 0)
            Issue.record("expected a failure")
        } catch {
            guard let failure = error.actionFailure else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failure.reachedPosition == 2)
        }
        #expect(remote.value == 2)
        #expect(stack.historyPosition == 2)
    }

    @Test func stateUpdatesTellTheBusyStateAndThePendingCount() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        var states: [ActionStack.State] = []
        let token = stack.observe { states.append($0) }
        let first = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let second = Task { @MainActor in try await stack.performUndo() }
        await settle { stack.pendingRequestCount == 1 }
        gate.openForGood()
        _ = try await first.value
        _ = try await second.value
        withExtendedLifetime(token) {}
        #expect(states.contains { $0.isBusy && $0.pendingRequestCount == 1 })
        #expect(states.last?.isBusy == false)
        #expect(states.last?.pendingRequestCount == 0)
    }

    @Test func theHistoryShowsTheStepInFlightWhereItWas() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")
        try await remote.change(to: 2, on: stack, named: "Two")
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        // The Edit menu and a history panel still see the step until it has succeeded.
        #expect(stack.undoEntries.map(\.actionName) == ["Two", "One"])
        #expect(stack.historyPosition == 2)
        #expect(stack.canUndo && stack.undoMenuItemTitle == "Undo Two")
        gate.openForGood()
        _ = try await undo.value
        #expect(stack.undoEntries.map(\.actionName) == ["One"])
        #expect(stack.redoEntries.map(\.actionName) == ["Two"])
        #expect(stack.historyPosition == 1)
    }

    @Test func coalescingEndsWhenAnOperationStarts() async throws {
        let stack = makeAsyncStack()
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        let field = Counter()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        for value in 1...2 {
            stack.registerUndo(withTarget: field, options: .coalescing("typing")) { _ in }
            field.value = value
            stack.endEvent()
        }
        #expect(stack.undoCount == 2)
        try await stack.performRedo()  // nothing to redo, but an operation all the same
        stack.registerUndo(withTarget: field, options: .coalescing("typing")) { _ in }
        stack.endEvent()
        #expect(stack.undoCount == 3)
    }

    @Test func aStackGroupForwardsAnEditMenuUndoToItsBusyStacksQueue() async throws {
        let stack = makeAsyncStack()
        let group = ActionStackGroup()
        group.activeStack = stack
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        group.undo()
        #expect(stack.pendingRequestCount == 1)
        #expect(group.canUndo)
        gate.openForGood()
        _ = try await undo.value
        #expect(try await stack.startedRequest?.value() == true)
        #expect(remote.value == 0)
    }

    @Test func aTaskAHandlerStartedThatRegistersAfterTheOperationSettledRecordsANewChange() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let late = RemoteValue("late")
        let probe = Probe()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: probe) { probe in
            // Inherits the operation's task-local chain, but registers after it has settled.
            probe.task = Task { @MainActor in
                await gate.pass()
                stack.beginUndoGrouping()
                try? await late.set(9, on: stack)
                stack.endUndoGrouping()
            }
        }
        stack.endUndoGrouping()
        try await stack.performUndo()
        #expect(stack.redoCount == 0, "the handler registered no inverse")
        gate.openForGood()
        await probe.task?.value
        #expect(late.value == 9)
        #expect(stack.undoCount == 1, "the late change is a step of its own")
        #expect(try await stack.performUndo())
        #expect(late.value == 0)
    }

    @Test func aSynchronousStackThatNeverUsesAsyncNeverBecomesBusy() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.endUndoGrouping()
        stack.undo()
        #expect(!stack.isBusy && stack.pendingRequestCount == 0 && stack.startedRequest == nil)
        #expect(stack.state.isBusy == false)
    }
}
