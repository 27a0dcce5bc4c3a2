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

// Adversarial probes of asynchronous undo, written from the documentation alone
// (UndoingThroughAServerOrADatabase.md, Concurrency.md, Reentrancy.md and the doc comments).

/// The outcome of an awaited operation.
typealias ProbeOutcome = Result<Bool, ActionStack.OperationError>

/// Runs an awaited operation and keeps its outcome.
@MainActor
func probeAttempt(_ body: () async throws(ActionStack.OperationError) -> Bool) async -> ProbeOutcome {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// A short name for an outcome, to compare in expectations.
func probeTag(_ outcome: ProbeOutcome) -> String {
    switch outcome {
    case .success(let moved): return "ok(\(moved))"
    case .failure(let error): return probeTag(error)
    }
}

/// A short name for an operation error.
func probeTag(_ error: ActionStack.OperationError) -> String {
    if let failure = error.actionFailure {
        let rollback: String
        if failure.rollback.isRestored {
            rollback = "restored"
        } else if let indices = failure.rollback.unrestoredActions {
            rollback = "incomplete\(indices)"
        } else if let index = failure.rollback.failedActionIndex {
            rollback = "failed(\(index))"
        } else {
            rollback = "unknown(\(failure.rollback))"
        }
        return "actionFailed(\(failure.actionIndex),\(rollback))"
    }
    if let reason = error.cancellationReason {
        let names: [ActionStack.CancellationReason: String] = [
            .task: "task", .cancelPendingRequests: "cancelPendingRequests", .removeAllActions: "removeAllActions",
            .newChange: "newChange", .brokenStep: "brokenStep",
        ]
        return "cancelled(\(names[reason] ?? "unknown(\(reason))"))"
    }
    if let reason = error.dropReason { return reason == .busy ? "dropped(busy)" : "dropped(queueFull)" }
    if error.isStackBroken { return "stackBroken" }
    if let misuse = error.misuse { return "misuse(\(misuse))" }
    if let error = error.historyTreeError { return "historyTree(\(error))" }
    return "unknown(\(error))"
}

/// Whether every will-notification is followed by exactly one did- or fail-notification of its kind.
func probePaired(_ events: [String]) -> Bool {
    var open: String?
    for event in events {
        if event.hasPrefix("will") {
            if open != nil { return false }
            open = String(event.dropFirst(4))
        } else {
            let kind = event.hasPrefix("did") ? String(event.dropFirst(3)) : String(event.dropFirst(4))
            guard open == kind else { return false }
            open = nil
        }
    }
    return open == nil
}

/// Records one step that sets every remote to `value`, with their gates out of the way.
@MainActor
func probeStep(_ stack: ActionStack, _ remotes: [RemoteValue], to value: Int, named name: String? = nil) async throws {
    let gates = remotes.map(\.gate)
    for remote in remotes { remote.gate = nil }
    defer { for (remote, gate) in zip(remotes, gates) { remote.gate = gate } }
    stack.beginUndoGrouping()
    for remote in remotes { try await remote.set(value, on: stack) }
    if let name { stack.setActionName(name) }
    stack.endUndoGrouping()
}

/// Makes a step of two remotes whose undo fails at `a` and whose rollback fails at `b`: a broken
/// step when undone.
@MainActor
func probeBrokenStep(_ stack: ActionStack, named name: String = "Broken") async throws -> (RemoteValue, RemoteValue) {
    let a = RemoteValue("a")
    let b = RemoteValue("b")
    try await probeStep(stack, [a, b], to: 1, named: name)
    a.refused = [0]
    b.refused = [1]
    ProbeKeepAlive.objects += [a, b]
    return (a, b)
}

/// Keeps targets alive for the rest of the run (the stack holds them weakly).
@MainActor
enum ProbeKeepAlive {
    static var objects: [AnyObject] = []
}

/// An error a handler throws.
struct ProbeFailure: Error {}

/// A stack owned by an actor, used off the main thread.
actor ProbeOwner {
    let stack: ActionStack
    let counter = Counter()

    init() {
        stack = makeStack()
    }

    /// Records an asynchronous step, calls the synchronous `undo()` here (off the main thread), then
    /// awaits the undo here.
    func run() async -> (misuse: ActionStack.Misuse?, countAfterUndo: Int, value: Int, awaited: String) {
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            await Task.yield()
            counter.value = 0
        }
        stack.endUndoGrouping()
        stack.undo()
        let misuse = stack.lastMisuse
        let count = stack.undoCount
        let awaited: String
        do {
            awaited = "ok(\(try await stack.performUndo()))"
        } catch {
            awaited = probeTag(error)
        }
        return (misuse, count, counter.value, awaited)
    }
}

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AsyncProbeTests {
    // MARK: Busy policies

    @Test func aQueueLimitOfZeroDropsEveryRequestWhileBusy() async throws {
        let stack = makeStack()
        stack.busyPolicy = .queue(limit: 0)
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        let second = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(probeTag(second) == "dropped(queueFull)")
        gate.openForGood()
        #expect(probeTag(await first.value) == "ok(true)")
        #expect(remote.value == 1)
        #expect(stack.undoCount == 1)
    }

    @Test func aNegativeQueueLimitStillRunsARequestWhenIdleAndDropsWhileBusy() async throws {
        let stack = makeStack()
        stack.busyPolicy = .queue(limit: -5)
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        let second = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(probeTag(second).hasPrefix("dropped"))
        #expect(stack.pendingRequestCount == 0)
        gate.openForGood()
        #expect(probeTag(await first.value) == "ok(true)")
        #expect(remote.value == 2)
    }

    @Test func changingThePolicyWhileRequestsWaitKeepsThemAndAppliesToLaterOnes() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        let second = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { stack.pendingRequestCount == 1 }
        stack.busyPolicy = .dropWhileBusy
        #expect(stack.pendingRequestCount == 1)
        let third = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(probeTag(third) == "dropped(busy)")
        gate.openForGood()
        #expect(probeTag(await first.value) == "ok(true)")
        #expect(probeTag(await second.value) == "ok(true)")
        #expect(remote.value == 1)
    }

    @Test func aSynchronousUndoDroppedWhileBusyLeavesAFinishedRequest() async throws {
        let stack = makeStack()
        stack.busyPolicy = .dropWhileBusy
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.undo()
        let request = try #require(stack.startedRequest)
        #expect(request.isFinished)
        if case .failure(let error)? = request.result {
            #expect(probeTag(error) == "dropped(busy)")
        } else {
            Issue.record("expected a dropped request, got \(String(describing: request.result))")
        }
        gate.openForGood()
        _ = await first.value
        #expect(remote.value == 1 && stack.undoCount == 1)
    }

    // MARK: The synchronous undo() of an asynchronous step

    @Test func aStartedRequestCanBeAwaitedFromSeveralTasksAndAWaitersCancellationStopsOnlyItsWait() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        stack.undo()
        let request = try #require(stack.startedRequest)
        var waiters: [Task<ProbeOutcome, Never>] = []
        for _ in 0..<3 {
            waiters.append(
                Task { @MainActor in
                    await probeAttempt { () async throws(ActionStack.OperationError) in try await request.value() }
                })
        }
        await settle { gate.waitingCount == 1 }
        waiters[2].cancel()
        await settle(turns: 50)
        gate.openForGood()
        #expect(probeTag(await waiters[0].value) == "ok(true)")
        #expect(probeTag(await waiters[1].value) == "ok(true)")
        _ = await waiters[2].value
        #expect(try await request.value())
        #expect(remote.value == 0)
        #expect(stack.redoCount == 1)
    }

    @Test func twoPressesOfTheEditMenusUndoUndoTwoSteps() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        stack.undo()
        let first = try #require(stack.startedRequest)
        stack.undo()
        let second = try #require(stack.startedRequest)
        #expect(first !== second)
        await settle { gate.waitingCount == 1 }
        #expect(stack.pendingRequestCount == 1)
        gate.openForGood()
        #expect(try await first.value())
        #expect(try await second.value())
        #expect(remote.value == 0)
        #expect(stack.undoCount == 0 && stack.redoCount == 2)
    }

    @Test func aSynchronousUndoWhileBusyQueuesEvenASynchronousStep() async throws {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.undo()
        // Queued behind the operation: the synchronous step has not run.
        #expect(counter.value == 1)
        let request = try #require(stack.startedRequest)
        #expect(!request.isFinished)
        gate.openForGood()
        #expect(probeTag(await first.value) == "ok(true)")
        #expect(try await request.value())
        #expect(counter.value == 0 && remote.value == 0)
    }

    @Test func aSynchronousJumpOverAsyncStepsStartsOneRequest() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let log = OperationLog(stack)
        stack.jump(to: 0)
        let request = try #require(stack.startedRequest)
        #expect(request.kind == .jump(to: 0))
        #expect(try await request.value())
        #expect(remote.value == 0)
        #expect(stack.historyPosition == 0)
        #expect(log.events.count == 6 && probePaired(log.events))
    }

    // MARK: Cancellation of the awaiting task

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

    // MARK: Transactions: failures with synchronous and asynchronous actions mixed

    @Test(arguments: [0, 2, 4])
    func aFailureAtEachAsyncIndexOfAMixedStepRestoresEverything(failing index: Int) async throws {
        let stack = makeStack()
        let remotes = [RemoteValue("r0"), RemoteValue("r2"), RemoteValue("r4")]
        let counters = [Counter("c1"), Counter("c3")]
        stack.beginUndoGrouping()
        try await remotes[0].set(1, on: stack)
        counters[0].set(1, on: stack)
        try await remotes[1].set(1, on: stack)
        counters[1].set(1, on: stack)
        try await remotes[2].set(1, on: stack)
        stack.setActionName("Mixed")
        stack.endUndoGrouping()
        stack.markClean()
        remotes[index / 2].refused = [0]
        let log = OperationLog(stack)
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(outcome) == "actionFailed(\(index),restored)")
        #expect(remotes.map(\.value) == [1, 1, 1])
        #expect(counters.map(\.value) == [1, 1])
        #expect(stack.isClean)
        #expect(stack.undoCount == 1 && stack.redoCount == 0 && stack.undoMenuItemTitle == "Undo Mixed")
        #expect(log.events == ["willUndo", "failUndo"])
        remotes[index / 2].refused = []
        #expect(try await stack.performUndo())
        #expect(remotes.map(\.value) == [0, 0, 0] && counters.map(\.value) == [0, 0])
        #expect(!stack.isClean)
        #expect(try await stack.performRedo())
        #expect(stack.isClean)
    }

    @Test func aFailingRedoIsRolledBackAndLeavesTheRedoStepWhereItWas() async throws {
        let stack = makeStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        try await probeStep(stack, [a, b], to: 1, named: "Both")
        #expect(try await stack.performUndo())
        stack.markClean()
        let log = OperationLog(stack)
        a.refused = [1]
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo()
        }
        #expect(probeTag(outcome) == "actionFailed(1,restored)")
        #expect(a.value == 0 && b.value == 0)
        #expect(stack.redoCount == 1 && stack.undoCount == 0)
        #expect(stack.redoMenuItemTitle == "Redo Both")
        #expect(stack.isClean)
        #expect(log.events == ["willRedo", "failRedo"])
    }

    @Test func anActorActionThatCannotBeRolledBackMakesTheRollbackIncomplete() async throws {
        let stack = makeStack()
        let store = Store()
        let remote = RemoteValue()
        stack.beginUndoGrouping()
        try await remote.set(1, on: stack)
        await store.append("x")
        stack.registerAsyncUndo(withActor: store) { store in store.rows.removeLast() }
        stack.endUndoGrouping()
        stack.markClean()
        remote.refused = [0]
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(outcome) == "actionFailed(0,incomplete[1])")
        #expect(await store.rows.isEmpty)
        #expect(!stack.isClean)
        #expect(stack.brokenStep == nil)
    }

    // MARK: Broken steps

    @Test func aBrokenStepRefusesEveryKindOfUndoRedoAndJump() async throws {
        let stack = makeStack()
        let before = RemoteValue("before")
        try await before.change(to: 1, on: stack, named: "Before")
        _ = try await probeBrokenStep(stack)
        let log = OperationLog(stack)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(stack.brokenStep?.isUndo == true)
        #expect(stack.brokenStep?.stepName == "Broken")
        #expect(stack.canUndo && stack.undoMenuItemTitle == "Undo Broken")
        let seen = log.events.count
        stack.undo()
        #expect(stack.lastMisuse == .stepIsBroken(.undo))
        stack.redo()
        #expect(stack.lastMisuse == .stepIsBroken(.redo))
        stack.jump(to: 0)
        #expect(stack.lastMisuse == .stepIsBroken(.jump))
        #expect(
            probeTag(
                await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() })
                == "stackBroken")
        #expect(
            probeTag(
                await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() })
                == "stackBroken")
        #expect(
            probeTag(
                await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performJump(to: 0) }
            ) == "stackBroken")
        #expect(log.events.count == seen)
        #expect(before.value == 1)
        #expect(stack.undoCount == 2)
    }

    @Test func anEditMenusUndoOnABrokenStepNeverEndsTheProcessUnderTheDefaultPolicy() async throws {
        let stack = makeStack()
        _ = try await probeBrokenStep(stack)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        // The default policy is `.log`, which differs from `.report` only by the line it writes on
        // standard error (checked by MisuseTests); a passing test run prints no misuse line, so
        // the calls are made under `.report`, with the default policy checked to be a non-trapping one.
        #expect(ActionStack().misusePolicy == .log)
        var reported: [ActionStack.Misuse] = []
        stack.onMisuse = { reported.append($0) }
        stack.undo()
        stack.redo()
        stack.jump(to: 0)
        #expect(reported == [.stepIsBroken(.undo), .stepIsBroken(.redo), .stepIsBroken(.jump)])
        #expect(stack.brokenStep != nil)
    }

    @Test func aBrokenStepCancelsTheWaitingRequestsWithTheBrokenStepReason() async throws {
        let stack = makeStack()
        let (a, _) = try await probeBrokenStep(stack)
        let gate = Gate()
        a.gate = gate
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        let second = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { stack.pendingRequestCount == 1 }
        gate.openForGood()
        #expect(probeTag(await first.value) == "actionFailed(0,failed(1))")
        #expect(probeTag(await second.value) == "cancelled(brokenStep)")
        #expect(stack.brokenStep != nil && !stack.isBusy)
    }

    @Test func removeAllActionsTakesABrokenStepWithTheHistory() async throws {
        let stack = makeStack()
        _ = try await probeBrokenStep(stack)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(stack.brokenStep != nil)
        stack.removeAllActions()
        #expect(stack.brokenStep == nil)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        #expect(
            probeTag(
                await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() })
                == "ok(false)")
        // CleanStateAndHistory: removeAllActions() marks the current state clean.
        #expect(stack.isClean)
    }

    @Test func discardingABrokenStepAtTheCleanStartLeavesTheDocumentNotClean() async throws {
        let stack = makeStack()
        stack.markClean()
        _ = try await probeBrokenStep(stack)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        stack.discardBrokenStep()
        #expect(stack.brokenStep == nil)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        #expect(!stack.isClean)
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.undo()
        #expect(!stack.isClean)
    }

    @Test func aStepBrokenWhileRedoingStaysOnTheRedoStackUntilDiscarded() async throws {
        let stack = makeStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        try await probeStep(stack, [a, b], to: 1, named: "Both")
        #expect(try await stack.performUndo())
        // Redo runs a (index 0) first, then b fails; rolling a back to 0 fails too.
        b.refused = [1]
        a.refused = [0]
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo()
        }
        #expect(probeTag(outcome) == "actionFailed(0,failed(1))")
        #expect(stack.brokenStep?.isUndo == false)
        #expect(stack.canRedo && stack.redoMenuItemTitle == "Redo Both")
        stack.discardBrokenStep()
        #expect(stack.redoCount == 0 && stack.undoCount == 0)
        #expect(!stack.isClean)
    }

    @Test func retryingAndDiscardingWithNoBrokenStepDoNothing() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        stack.discardBrokenStep()
        #expect(try await stack.retryBrokenStep() == false)
        #expect(stack.undoCount == 1 && remote.value == 1)
    }

    @Test
    func aRetryThatFailsAgainLeavesTheStepBroken() async throws {
        let stack = makeStack()
        let (a, b) = try await probeBrokenStep(stack)
        stack.markClean()
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(stack.brokenStep != nil)
        #expect(a.value == 1 && b.value == 0)
        #expect(!stack.isClean)
        let log = OperationLog(stack)
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in
            try await stack.retryBrokenStep()
        }
        // The document is still partly changed (b was undone, a was not): the step is still broken,
        // and certainly not clean.
        #expect(a.value == 1 && b.value == 0)
        #expect(probeTag(outcome).hasPrefix("actionFailed(0,"))
        #expect(stack.brokenStep != nil)
        #expect(!stack.isClean)
        #expect(probePaired(log.events))
    }

    // MARK: Foreign changes while an operation awaits

    @Test func aRequestMadeAfterAForeignChangeUndoesThatChangeFirst() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let other = RemoteValue("other")
        try await remote.change(to: 1, on: stack, named: "Remote")
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        try await other.change(to: 7, on: stack, named: "Other")
        let second = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { stack.pendingRequestCount == 1 }
        gate.openForGood()
        #expect(probeTag(await first.value) == "ok(true)")
        #expect(probeTag(await second.value) == "ok(true)")
        #expect(remote.value == 0 && other.value == 0)
        #expect(stack.undoCount == 0)
    }

    @Test func aForeignChangeEndsAJumpAfterTheStepInFlight() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let other = RemoteValue("other")
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let log = OperationLog(stack)
        let jump = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performJump(to: 0) }
        }
        await settle { gate.waitingCount == 1 }
        try await other.change(to: 9, on: stack, named: "Other")
        gate.openForGood()
        _ = await jump.value
        #expect(remote.value == 2)
        #expect(other.value == 9)
        #expect(stack.undoCount == 3 && stack.redoCount == 0)
        #expect(stack.undoMenuItemTitle == "Undo Other")
        #expect(probePaired(log.events))
    }

    @Test func theEditMenuReadsTheStepInFlightWhereItWas() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")
        try await remote.change(to: 2, on: stack, named: "Two")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        #expect(stack.canUndo && !stack.canRedo)
        #expect(stack.undoCount == 2 && stack.redoCount == 0)
        #expect(stack.undoMenuItemTitle == "Undo Two")
        #expect(
            stack.undoEntries.map(\.actionName) == ["One", "Two"]
                || stack.undoEntries.map(\.actionName) == ["Two", "One"])
        #expect(stack.historyPosition == 2)
        #expect(stack.state.isBusy && stack.state.undoCount == 2)
        gate.openForGood()
        _ = await undo.value
        #expect(stack.historyPosition == 1 && stack.redoMenuItemTitle == "Redo Two")
    }

    @Test func markCleanFromAnotherTaskMarksAStateNoNodeHas() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.markClean()
        #expect(stack.lastMisuse == nil)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(!stack.isClean)
        // The mark named the document while the step's action ran, a state no node has: no redo
        // comes back to it (see AsyncCleanStateTests).
        #expect(try await stack.performRedo())
        #expect(!stack.isClean)
    }

    @Test
    func levelsOfUndoSetDuringAnAwaitTrimsOnlyWhenTheOperationSettles() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack, named: "S\(value)") }
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.levelsOfUndo = 1
        #expect(stack.undoCount == 3)
        #expect(stack.undoMenuItemTitle == "Undo S3")
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(stack.undoCount <= 1)
        #expect(remote.value == 2)
        #expect(try await stack.performRedo())
        #expect(remote.value == 3)
    }

    @Test
    func maximumCostSetDuringAnAwaitTrimsOnlyWhenTheOperationSettles() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let counter = Counter()
        for value in 1...3 {
            stack.beginUndoGrouping()
            stack.registerUndo(withTarget: counter, options: .cost(10)) { $0.value = value - 1 }
            let saved = remote.gate
            remote.gate = nil
            try await remote.set(value, on: stack)
            remote.gate = saved
            stack.endUndoGrouping()
        }
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.maximumCost = 5
        #expect(stack.undoCount == 3)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(remote.value == 2)
    }

    @Test func disablingRegistrationFromAnotherTaskDuringAnAwaitIsBalancedLater() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.disableUndoRegistration()
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        stack.enableUndoRegistration()
        #expect(remote.value == 0 && stack.undoCount == 0)
        #expect(stack.lastMisuse == nil)
        try await remote.change(to: 5, on: stack)
        #expect(stack.undoCount == 1)
    }

    @Test func theIsUndoingIdiomNamesAnotherTasksChangeDuringAnAwait() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let counter = Counter()
        try await remote.change(to: 1, on: stack, named: "Remote")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.beginUndoGrouping()
        counter.set(3, on: stack)
        if !stack.isUndoing { stack.setActionName("Typing") }
        stack.endUndoGrouping()
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(stack.undoMenuItemTitle == "Undo Typing")
        #expect(stack.undoCount == 1 && !stack.canRedo)
        stack.undo()
        #expect(counter.value == 0)
    }

    @Test func removeAllActionsDuringAnAwaitedRedoLeavesBothStacksEmpty() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        gate.openForGood()
        try await stack.performUndo()
        try await stack.performUndo()
        gate.isClosed = true
        let log = OperationLog(stack)
        let redo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        }
        await settle { gate.waitingCount == 1 }
        let queued = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        }
        await settle { stack.pendingRequestCount == 1 }
        stack.removeAllActions()
        #expect(probeTag(await queued.value) == "cancelled(removeAllActions)")
        gate.openForGood()
        _ = await redo.value
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        #expect(!stack.isBusy)
        #expect(probePaired(log.events))
    }

    @Test func removingTheTargetOfAnActionNotYetRunSkipsIt() async throws {
        let stack = makeStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        try await probeStep(stack, [a, b], to: 1, named: "Both")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: a)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(a.value == 1 && a.writes == [1])
        #expect(b.value == 0)
        #expect(try await stack.performRedo())
        #expect(b.value == 1 && a.writes == [1])
    }

    @Test func removingTheTargetOfTheActionInFlightKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        try await probeStep(stack, [a, b], to: 1, named: "Both")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: b)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(a.value == 0)
        #expect(stack.undoCount == 0)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        #expect(a.value == 1)
    }

    // MARK: Handlers and observers that call back into the stack

    @Test func anObserverOfTheDidUndoOfAnAsyncUndoMayMarkTheDocumentClean() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let token = observe(ActionStack.didUndoChangeNotification, of: stack) { $0.markClean() }
        defer { NotificationCenter.default.removeObserver(token) }
        #expect(try await stack.performUndo())
        #expect(stack.lastMisuse == nil)
        #expect(stack.isClean)
    }

    @Test func anObserverOfTheWillUndoOfAnAsyncUndoCannotUndo() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let token = observe(ActionStack.willUndoChangeNotification, of: stack) { $0.undo() }
        defer { NotificationCenter.default.removeObserver(token) }
        #expect(try await stack.performUndo())
        #expect(stack.lastMisuse == .reentrantCall(.undo, during: .notifyingUndo))
        await settle(until: { !stack.isBusy }, turns: 200)
        #expect(remote.value == 1 && stack.undoCount == 1)
    }

    @Test func anObserverOfTheFailNotificationThatCallsBackKeepsThePairing() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let log = OperationLog(stack)
        let token = observe(ActionStack.didFailUndoChangeNotification, of: stack) { stack in
            stack.undo()
            stack.registerUndo(withTarget: stack) { _ in }
            stack.removeAllActions()
        }
        defer { NotificationCenter.default.removeObserver(token) }
        remote.refused = [0]
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(outcome) == "actionFailed(0,restored)")
        await settle(until: { !stack.isBusy }, turns: 200)
        #expect(stack.lastMisuse != nil)
        #expect(stack.undoCount == 1 && remote.value == 1)
        #expect(probePaired(log.events))
    }

    @Test func aHandlerCannotRemoveAllActionsOrMarkCleanAfterItsAwait() async throws {
        let stack = makeStack()
        let counter = Counter()
        var misuses: [ActionStack.Misuse?] = []
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            await Task.yield()
            stack.removeAllActions()
            misuses.append(stack.lastMisuse)
            stack.markClean()
            misuses.append(stack.lastMisuse)
            stack.redo()
            misuses.append(stack.lastMisuse)
            counter.set(0, on: stack)
        }
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(
            misuses == [
                .reentrantCall(.removeAllActions, during: .undoing), .reentrantCall(.markClean, during: .undoing),
                .redoWhileUndoing,
            ])
        #expect(stack.redoCount == 1)
    }

    @Test func aTaskAHandlerStartsBuildsTheOppositeStep() async throws {
        let stack = makeStack()
        let counter = Counter()
        let remote = RemoteValue()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: remote) { remote in
            remote.value = 0
            let child = Task { @MainActor in
                stack.registerUndo(withTarget: counter) { $0.set(1, on: stack) }
                stack.registerAsyncUndo(withTarget: remote) { remote in
                    remote.value = 1
                    stack.registerAsyncUndo(withTarget: remote) { $0.value = 0 }
                }
            }
            await child.value
        }
        remote.value = 1
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(stack.undoCount == 0 && stack.redoCount == 1)
        #expect(stack.redoEntries.first?.actionCount == 2)
        #expect(try await stack.performRedo())
        #expect(remote.value == 1 && counter.value == 1)
    }

    @Test func anAsyncHandlerThatRegistersNoInverseKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            await Task.yield()
            counter.value = 0
        }
        stack.endUndoGrouping()
        stack.markClean()
        #expect(try await stack.performUndo())
        #expect(counter.value == 0)
        #expect(!stack.isClean)
        #expect(stack.undoCount == 0)
    }

    @Test
    func anAwaitedRedoWhoseHandlerRegistersNoInverseKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            counter.value = 0
            stack.registerUndo(withTarget: counter) { $0.value = 1 }
        }
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(try await stack.performRedo())
        #expect(counter.value == 1)
        #expect(stack.undoCount + stack.redoCount <= 1)
    }

    @Test
    func anAwaitedRedoOfASynchronousStepWhoseHandlerRegistersNoInverseKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: counter) { counter in
            counter.value = 0
            stack.registerUndo(withTarget: counter) { $0.value = 1 }
        }
        stack.endUndoGrouping()
        stack.undo()
        #expect(try await stack.performRedo())
        #expect(counter.value == 1)
    }

    @Test func aSynchronousRedoWhoseHandlerRegistersNoInverseKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: counter) { counter in
            counter.value = 0
            stack.registerUndo(withTarget: counter) { $0.value = 1 }
        }
        stack.endUndoGrouping()
        stack.undo()
        stack.redo()
        #expect(counter.value == 1)
    }

    @Test func aSynchronousHandlerThatRegistersNoInverseInAnAwaitedUndoKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: counter) { $0.value = 0 }
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(counter.value == 0)
    }

    @Test func aHandlerMayRegisterSynchronousAndAsynchronousInversesAroundItsAwait() async throws {
        let stack = makeStack()
        let counter = Counter()
        let remote = RemoteValue()
        remote.value = 1
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: remote) { remote in
            stack.registerUndo(withTarget: counter) { $0.set(1, on: stack) }
            await Task.yield()
            remote.value = 0
            counter.value = 0
            stack.registerAsyncUndo(withTarget: remote) { remote in
                await Task.yield()
                remote.value = 1
                stack.registerAsyncUndo(withTarget: remote) { $0.value = 0 }
            }
        }
        stack.setActionName("Pair")
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(stack.redoMenuItemTitle == "Redo Pair")
        #expect(try await stack.performRedo())
        #expect(remote.value == 1 && counter.value == 1)
    }

    @Test
    func undoNestedGroupOnAStepWithAnAsyncActionIsNotWhileAsyncAndChangesNothing() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack, named: "Remote")
        stack.undoNestedGroup()
        #expect(stack.lastMisuse == .notWhileAsync(.undoNestedGroup))
        await settle(turns: 50)
        #expect(remote.value == 1)
        #expect(stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo Remote")
        #expect(try await stack.performUndo())
        #expect(remote.value == 0)
    }

    @Test func undoNestedGroupWhileAnOperationHoldsTheTurnIsNotWhileAsync() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        try await remote.change(to: 2, on: stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.undoNestedGroup()
        #expect(stack.lastMisuse == .notWhileAsync(.undoNestedGroup))
        gate.openForGood()
        _ = await undo.value
        #expect(remote.value == 0)
        #expect(counter.value == 1 && stack.undoCount == 1)
    }

    // MARK: Asynchronous groups

    @Test func aNestedAsyncGroupIsAMisuseThrownBeforeItsBodyRuns() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        var innerRan = false
        var innerError: (any Error)?
        try await stack.asyncGroup(named: "Outer") {
            try await remote.set(1, on: stack)
            do {
                try await stack.asyncGroup(named: "Inner") { innerRan = true }
            } catch {
                innerError = error
            }
        }
        #expect(!innerRan)
        if let misuse = (innerError as? ActionStack.OperationError)?.misuse,
            misuse == .awaitsOwnOperation(misuse.operation)
        {
        } else {
            Issue.record("unexpected \(String(describing: innerError))")
        }
        #expect(stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo Outer")
        #expect(try await stack.performUndo())
        #expect(remote.value == 0)
    }

    @Test func anEmptyAsyncGroupLeavesADoNothingStepOrNoneWithDropsEmptyGroups() async throws {
        let keeping = makeStack()
        try await keeping.asyncGroup(named: "Nothing") {}
        #expect(keeping.undoCount == 1 && keeping.undoMenuItemTitle == "Undo Nothing")
        #expect(try await keeping.performUndo())
        // As a synchronous empty group does.
        let synchronous = makeStack()
        group(synchronous) {}
        synchronous.undo()
        #expect(keeping.redoCount == synchronous.redoCount)
        let dropping = makeStack(dropsEmptyGroups: true)
        try await dropping.asyncGroup(named: "Nothing") {}
        #expect(dropping.undoCount == 0 && !dropping.canUndo)
    }

    @Test func anAsyncGroupThatThrowsAfterAForeignChangeLeavesOnlyTheForeignStep() async throws {
        let stack = makeStack()
        let gate = Gate()
        let mine = RemoteValue("mine")
        let other = RemoteValue("other")
        stack.markClean()
        let body = Task { @MainActor in
            do {
                try await stack.asyncGroup(named: "Mine") {
                    try await mine.set(1, on: stack)
                    await gate.pass()
                    throw ProbeFailure()
                }
                return "returned"
            } catch {
                return "\(type(of: error))"
            }
        }
        await settle { gate.waitingCount == 1 }
        try await other.change(to: 7, on: stack, named: "Other")
        gate.openForGood()
        #expect(await body.value == "ProbeFailure")
        #expect(mine.value == 0 && other.value == 7)
        #expect(stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo Other")
        #expect(!stack.canRedo)
        #expect(!stack.isClean)
        #expect(try await stack.performUndo())
        #expect(other.value == 0)
        #expect(stack.isClean)
    }

    @Test func anEditMenusUndoDuringAnAsyncGroupWaitsAndThenUndoesTheGroup() async throws {
        let stack = makeStack()
        let gate = Gate()
        let counter = Counter()
        let first = Counter()
        try await first.set(5, on: stack, grouped: true)
        let body = Task { @MainActor in
            try await stack.asyncGroup(named: "Typing") {
                counter.set(1, on: stack)
                await gate.pass()
                counter.set(2, on: stack)
            }
        }
        await settle { gate.waitingCount == 1 }
        #expect(stack.isBusy)
        stack.undo()
        #expect(counter.value == 1)
        let request = try #require(stack.startedRequest)
        #expect(stack.pendingRequestCount == 1)
        gate.openForGood()
        try await body.value
        #expect(try await request.value())
        #expect(counter.value == 0)
        #expect(stack.undoCount == 1 && stack.redoMenuItemTitle == "Redo Typing")
        #expect(first.value == 5)
    }

    @Test func anAsyncGroupRequestedWhileBusyIsDroppedUnderDropWhileBusy() async throws {
        let stack = makeStack()
        stack.busyPolicy = .dropWhileBusy
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        var ran = false
        do {
            try await stack.asyncGroup(named: "Late") { ran = true }
            Issue.record("expected a drop")
        } catch let error as ActionStack.OperationError {
            #expect(probeTag(error) == "dropped(busy)")
        }
        #expect(!ran)
        gate.openForGood()
        _ = await undo.value
        #expect(stack.undoCount == 0)
    }

    @Test
    func aTargetFreedInsideAThrowingAsyncGroupLeavesTheDocumentNotClean() async throws {
        let stack = makeStack()
        stack.markClean()
        var doomed: Counter? = Counter()
        await #expect(throws: ProbeFailure.self) {
            try await stack.asyncGroup(named: "Doomed") {
                doomed?.set(1, on: stack)
                doomed = nil
                await Task.yield()
                throw ProbeFailure()
            }
        }
        #expect(stack.undoCount == 0)
        #expect(!stack.isClean)
    }

    @Test func removeAllActionsDuringAnAsyncGroupKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let gate = Gate()
        let counter = Counter()
        let body = Task { @MainActor in
            try await stack.asyncGroup(named: "G") {
                counter.set(1, on: stack)
                await gate.pass()
                counter.set(2, on: stack)
            }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions()
        gate.openForGood()
        try await body.value
        #expect(!stack.isBusy)
        #expect(stack.redoCount == 0)
        #expect(stack.undoCount <= 1)
    }

    // MARK: Several stacks, observation, isolation

    @Test func aGroupsUndoForwardsToTheBusyActiveStackWhichQueues() async throws {
        let stack = makeStack()
        let edit = ActionStackGroup()
        edit.activeStack = stack
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        #expect(edit.canUndo)
        edit.undo()
        #expect(stack.pendingRequestCount == 1)
        let request = try #require(stack.startedRequest)
        gate.openForGood()
        _ = await first.value
        #expect(try await request.value())
        #expect(remote.value == 0)
    }

    @Test func anOperationPublishesABusyStateWhenItStartsAndOneWhenItSettles() async throws {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            counter.set(9, on: stack)
            await Task.yield()
            counter.set(8, on: stack)
        }
        stack.endUndoGrouping()
        var states: [ActionStack.State] = []
        let token = stack.observe { states.append($0) }
        #expect(try await stack.performUndo())
        withExtendedLifetime(token) {}
        // The handler's own registrations publish states too (see the report: unclear docs).
        #expect(states.count >= 2)
        #expect(states.first?.isBusy == true)
        #expect(states.last?.isBusy == false && states.last?.redoCount == 1)
        #expect(states.dropLast().allSatisfy { $0.isBusy })
    }

    @Test func aStatePublishedByAForeignChangeDuringAnAwaitShowsTheOperationInFlight() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        var states: [ActionStack.State] = []
        let token = stack.observe { states.append($0) }
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        let before = states.count
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        let foreign = Array(states.dropFirst(before))
        gate.openForGood()
        _ = await undo.value
        withExtendedLifetime(token) {}
        // Each of the foreign calls is heard (the begin, the close), each showing the undo in flight.
        #expect(!foreign.isEmpty)
        #expect(foreign.allSatisfy { $0.isBusy && $0.isUndoInFlight })
        #expect(foreign.last?.undoCount == 2)
        #expect(states.last?.isBusy == false && states.last?.undoCount == 1)
    }

    @Test func anActorOwnedStackRefusesTheSynchronousUndoAndAwaitsOnItsActor() async throws {
        let owner = ProbeOwner()
        let result = await owner.run()
        #expect(result.misuse == .needsAwait(.undo))
        #expect(result.countAfterUndo == 1)
        #expect(result.awaited == "ok(true)")
        #expect(result.value == 0)
    }

    @Test func everyWillIsFollowedByExactlyOneDidOrFailAcrossAMixedSession() async throws {
        let stack = makeStack()
        let log = OperationLog(stack)
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...4 { try await remote.change(to: value, on: stack) }
        gate.openForGood()
        try await stack.performUndo()
        remote.refused = [2]
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        remote.refused = []
        try await stack.performRedo()
        gate.isClosed = true
        let cancelled = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        cancelled.cancel()
        gate.openForGood()
        _ = await cancelled.value
        try await stack.performJump(to: 1)
        try await stack.performJump(to: 3)
        stack.undo()
        _ = try await stack.startedRequest?.value()
        #expect(remote.value == 2)
        #expect(probePaired(log.events))
    }
}

extension Counter {
    /// Sets the value in a closed group of its own.
    @MainActor
    func set(_ newValue: Int, on stack: ActionStack, grouped: Bool) async throws {
        stack.beginUndoGrouping()
        set(newValue, on: stack)
        stack.endUndoGrouping()
    }
}
