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

// Cancelling a task that awaits: it stops that task's waiting, at once, with
// `OperationError.cancelled(.task)`, and leaves the operation it waited for untouched (issue 28,
// item 1). Handlers wait at gates the tests open, so every order is the one written here.

/// Whether `result` is the cancellation of a waiting task (read through `probeTag`, which names
/// every outcome).
private func isTaskCancellation(_ result: ProbeOutcome) -> Bool {
    probeTag(result) == "cancelled(task)"
}

/// A task that cancels itself before it runs `body`, and hands back what `body` gives.
@MainActor
private func cancelledFirst<T: Sendable>(
    _ body: @escaping @MainActor () async -> T
) -> Task<T, Never> {
    Task { @MainActor in
        withUnsafeCurrentTask { $0?.cancel() }
        return await body()
    }
}

@MainActor
private func awaitValue(_ request: ActionStack.OperationRequest) async -> ProbeOutcome {
    await probeAttempt { () async throws(ActionStack.OperationError) in try await request.value() }
}

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncCancellationTests {
    /// An Edit menu's undo of a step whose server never answers, and a window that awaits it.
    private func startedUndo() async throws -> (ActionStack, Gate, RemoteValue, ActionStack.OperationRequest) {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")
        stack.undo()
        let request = try #require(stack.startedRequest)
        await settle { gate.waitingCount == 1 }
        #expect(gate.waitingCount == 1)
        return (stack, gate, remote, request)
    }

    @Test func aCancelledAwaiterOfAStartedRequestReturnsAtOnceWhileTheServerNeverAnswers() async throws {
        let (stack, gate, remote, request) = try await startedUndo()
        let waiting = Task { @MainActor in await awaitValue(request) }
        await settle()
        waiting.cancel()
        // The server still has not answered: the awaiter returns anyway.
        #expect(isTaskCancellation(await waiting.value))
        #expect(gate.waitingCount == 1)
        // The request itself goes on, untouched.
        #expect(!request.isFinished && request.result == nil)
        #expect(stack.isBusy && stack.state.isUndoInFlight)
        gate.openForGood()
        #expect(try await request.value())
        #expect(remote.value == 0)
        #expect(stack.redoMenuItemTitle == "Redo One")
    }

    @Test func anAwaiterCancelledBeforeItStartsWaitingReturnsAtOnce() async throws {
        let (stack, gate, remote, request) = try await startedUndo()
        let waiting = cancelledFirst { await awaitValue(request) }
        #expect(isTaskCancellation(await waiting.value))
        #expect(!request.isFinished && stack.isBusy)
        gate.openForGood()
        #expect(try await request.value())
        #expect(remote.value == 0)
    }

    @Test func cancellingOneAwaiterLeavesTheOthersWaitingForTheResult() async throws {
        let (_, gate, _, request) = try await startedUndo()
        let cancelled = Task { @MainActor in await awaitValue(request) }
        let kept = Task { @MainActor in await awaitValue(request) }
        await settle()
        cancelled.cancel()
        #expect(isTaskCancellation(await cancelled.value))
        gate.openForGood()
        #expect(try await kept.value.get())
    }

    @Test func aCancelledAwaiterOfAFinishedRequestGetsItsResult() async throws {
        let (_, gate, _, request) = try await startedUndo()
        gate.openForGood()
        #expect(try await request.value())
        let late = cancelledFirst { await awaitValue(request) }
        #expect(try await late.value.get())
    }

    @Test func aRequestWaitingForItsTurnIsCancelledWithItsTaskEvenBeforeItWaits() async throws {
        let (stack, gate, remote, request) = try await startedUndo()
        // Cancelled before it asks: the request never waits in the queue, and nothing runs.
        let early = cancelledFirst {
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        }
        #expect(isTaskCancellation(await early.value))
        #expect(stack.pendingRequestCount == 0)
        // Cancelled while it waits: it leaves the queue at once.
        let queued = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { stack.pendingRequestCount == 1 }
        queued.cancel()
        #expect(isTaskCancellation(await queued.value))
        #expect(stack.pendingRequestCount == 0)
        gate.openForGood()
        #expect(try await request.value())
        #expect(remote.value == 0 && stack.redoCount == 1)
    }

    @Test func anAsyncGroupWaitingForItsTurnIsCancelledWithItsTaskAndItsBodyNeverRuns() async throws {
        let (stack, gate, _, request) = try await startedUndo()
        var ran = false
        let group = Task { @MainActor () -> String in
            do {
                try await stack.asyncGroup(named: "Late") { ran = true }
                return "returned"
            } catch let error as ActionStack.OperationError {
                return probeTag(error) == "cancelled(task)" ? "cancelled" : "\(error)"
            } catch {
                return "\(error)"
            }
        }
        await settle { stack.pendingRequestCount == 1 }
        group.cancel()
        #expect(await group.value == "cancelled")
        #expect(!ran && stack.pendingRequestCount == 0)
        gate.openForGood()
        #expect(try await request.value())
    }

    @Test func cancellingTheTaskOfItsOwnOperationRollsBackAndReturnsWithoutWaitingForTheServer() async throws {
        // The awaiting task's own operation: it fails and rolls back (the documented choice). A
        // handler that honours cancellation throws at once, so nothing waits for the server.
        let stack = makeAsyncStack()
        let done = RemoteValue("done")
        let hanging = Probe()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: hanging) { _ in try await Task.sleep(for: .seconds(3_600)) }
        try await done.set(1, on: stack)
        stack.setActionName("Two")
        stack.endUndoGrouping()
        stack.markClean()
        let log = OperationLog(stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { done.value == 0 }
        await settle()
        undo.cancel()
        let outcome = await undo.value
        #expect(probeTag(outcome) == "actionFailed(0,restored)")
        // The failure's description names what the action threw: the cancellation.
        #expect("\(outcome)".contains("CancellationError"))
        #expect(done.value == 1 && stack.isClean && stack.undoCount == 1 && !stack.isBusy)
        #expect(log.events == ["willUndo", "failUndo"])
    }

    @Test func cancellingWhileTheLastActionRunsRollsBackAfterIt() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")
        stack.markClean()
        let log = OperationLog(stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        undo.cancel()
        gate.openForGood()
        let outcome = await undo.value
        #expect(probeTag(outcome) == "actionFailed(0,restored)")
        if case .failure(let error) = outcome, let failure = error.actionFailure {
            #expect(failure.underlying is CancellationError)
        }
        #expect(remote.value == 1)
        #expect(stack.undoCount == 1 && stack.redoCount == 0)
        #expect(stack.isClean)
        #expect(log.events == ["willUndo", "failUndo"])
    }

    @Test func cancellingBetweenActionsStopsBeforeTheNextActionAndRollsBack() async throws {
        let stack = makeStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        try await probeStep(stack, [a, b], to: 1, named: "Both")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        undo.cancel()
        gate.openForGood()
        let outcome = await undo.value
        #expect(probeTag(outcome).hasSuffix(",restored)"))
        #expect(a.writes == [1])
        #expect(a.value == 1 && b.value == 1)
        #expect(stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo Both")
    }

    @Test func theRollbackOfACancelledOperationLetsCancellationAwareInversesComplete() async throws {
        let stack = makeStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        b.value = 1
        stack.beginUndoGrouping()
        try await a.set(1, on: stack)
        stack.registerAsyncUndo(withTarget: b) { b in
            await gate.pass()
            b.value = 0
            stack.registerAsyncUndo(withTarget: b) { b in
                try Task.checkCancellation()
                await Task.yield()
                try Task.checkCancellation()
                b.value = 1
            }
        }
        stack.endUndoGrouping()
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        undo.cancel()
        gate.openForGood()
        #expect(probeTag(await undo.value).hasSuffix(",restored)"))
        #expect(a.value == 1 && b.value == 1)
        #expect(stack.brokenStep == nil && stack.undoCount == 1)
    }

    @Test func aTaskCancelledBeforeItsRequestStartsChangesNothing() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let log = OperationLog(stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        undo.cancel()
        let outcome = await undo.value
        #expect(probeTag(outcome) != "ok(true)")
        #expect(remote.value == 1)
        #expect(stack.undoCount == 1 && stack.redoCount == 0)
        #expect(probePaired(log.events))
    }

    @Test func cancellingAQueuedRequestsTaskCancelsItWithTheTaskReason() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        let second = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { stack.pendingRequestCount == 1 }
        second.cancel()
        #expect(probeTag(await second.value) == "cancelled(task)")
        #expect(stack.pendingRequestCount == 0)
        gate.openForGood()
        #expect(probeTag(await first.value) == "ok(true)")
        #expect(remote.value == 1)
    }
}
