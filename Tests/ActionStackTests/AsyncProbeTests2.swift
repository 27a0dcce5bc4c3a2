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

// A second round of adversarial probes of asynchronous undo, written from the documentation: stacks
// owned by actors, asynchronous groups misused from their own body, the Edit menu's synchronous
// calls off the main thread, notifications, observation, limits, broken steps and memory.

/// A model object that an actor owns (not `Sendable`; used on that actor only).
final class ProbeBox2 {
    var value = 0
}

/// Tracks whether handlers ran, from any isolation.
final class ProbeFlags2: @unchecked Sendable {  // written and read one at a time in these tests
    var ranOnMainThread: [Bool] = []
}

/// Hands a main-actor stack to code that runs elsewhere. Unsafe on purpose: the probes that use it
/// keep the main actor suspended while the other side uses the stack.
struct ProbeUnsafeStack2: @unchecked Sendable {
    let stack: ActionStack
}

/// A holder that child tasks on the main actor may capture.
@MainActor
final class ProbeHolder2 {
    let stack: ActionStack
    init(_ stack: ActionStack) { self.stack = stack }
}

/// An actor that owns its stack and its document, with a gate of its own.
actor ProbeDocActor2 {
    let stack: ActionStack
    let box = ProbeBox2()
    let other = ProbeBox2()
    var value = 0
    var refused: Set<Int> = []
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var closed = false

    init() {
        stack = makeStack()
    }

    func closeGate() { closed = true }
    var waitingCount: Int { waiting.count }

    func openGate() {
        closed = false
        for continuation in waiting { continuation.resume() }
        waiting = []
    }

    func pass() async {
        guard closed else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Sets `box.value`, registering an asynchronous inverse that awaits the gate.
    func setBox(_ new: Int) async {
        let old = box.value
        box.value = new
        stack.registerAsyncUndo(withTarget: box) { [self] _ in
            await self.pass()
            await self.setBox(old)
        }
    }

    /// Sets `value`, registering an inverse isolated to this actor.
    func setValue(_ new: Int) throws {
        if refused.contains(new) { throw RemoteFailure(value: new) }
        let old = value
        value = new
        stack.registerAsyncUndo(withActor: self) { me in try me.setValue(old) }
    }

    func recordBoxStep(_ new: Int) async {
        stack.beginUndoGrouping()
        await setBox(new)
        stack.endUndoGrouping()
    }

    func recordValueStep(_ values: [Int]) throws {
        stack.beginUndoGrouping()
        defer { stack.endUndoGrouping() }
        for new in values { try setValue(new) }
    }

    /// A change by another task on this actor: a synchronous registration in a group of its own.
    func foreignChange(_ new: Int) {
        let old = other.value
        other.value = new
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: other) { $0.value = old }
        stack.endUndoGrouping()
    }

    func undo() async -> String {
        do { return "ok(\(try await stack.performUndo()))" } catch { return probeTag(error) }
    }

    func redo() async -> String {
        do { return "ok(\(try await stack.performRedo()))" } catch { return probeTag(error) }
    }

    func groupWithGate(_ new: Int) async throws {
        try await stack.asyncGroup(named: "Actor Group") {
            await self.pass()
            try self.setValue(new)
        }
    }

    func counts() -> (undo: Int, redo: Int, busy: Bool, clean: Bool, title: String) {
        (stack.undoCount, stack.redoCount, stack.isBusy, stack.isClean, stack.undoMenuItemTitle)
    }

    func values() -> (box: Int, other: Int, value: Int) { (box.value, other.value, value) }

    /// The Edit menu's synchronous calls, made here, off the main thread.
    func synchronousCalls() -> [ActionStack.Misuse?] {
        var seen: [ActionStack.Misuse?] = []
        stack.lastMisuse = nil
        stack.redo()
        seen.append(stack.lastMisuse)
        stack.lastMisuse = nil
        stack.jump(to: 0)
        seen.append(stack.lastMisuse)
        stack.lastMisuse = nil
        stack.undo()
        seen.append(stack.lastMisuse)
        return seen
    }

    func recordSynchronousStep() {
        stack.beginUndoGrouping()
        let old = other.value
        other.value += 1
        stack.registerUndo(withTarget: other) { $0.value = old }
        stack.endUndoGrouping()
    }

    func setRefused(_ values: Set<Int>) { refused = values }
}

/// A nonisolated caller of a main-actor stack: what isolation do the handlers get?
nonisolated func probeUndoFromNonisolated2(_ reference: ProbeUnsafeStack2) async -> String {
    do { return "ok(\(try await reference.stack.performUndo()))" } catch { return probeTag(error) }
}

/// Calls the Edit menu's `undo()` on a thread that is not the main thread.
nonisolated func probeSynchronousUndoOffMain2(_ reference: ProbeUnsafeStack2) async -> ActionStack.Misuse? {
    await Task.detached {
        reference.stack.lastMisuse = nil
        reference.stack.undo()
        return reference.stack.lastMisuse
    }.value
}

@MainActor
func probeSetOn2(_ remote: RemoteValue, _ value: Int, _ holder: ProbeHolder2) async throws {
    try await remote.set(value, on: holder.stack)
}

/// Sets remotes from child tasks of a task group, on the main actor.
@MainActor
func probeInTaskGroup2(_ changes: [(RemoteValue, Int)], _ holder: ProbeHolder2) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (remote, value) in changes {
            group.addTask { try await probeSetOn2(remote, value, holder) }
        }
        try await group.waitForAll()
    }
}

/// Records a named step from a detached task on the main actor (no task-local values inherited).
@MainActor
func probeInDetachedTask2(_ remote: RemoteValue, _ value: Int, _ holder: ProbeHolder2) async throws {
    try await Task.detached { try await probeNamedStep2(remote, value, holder) }.value
}

/// Records a named step on the main actor.
@MainActor
func probeNamedStep2(_ remote: RemoteValue, _ value: Int, _ holder: ProbeHolder2) async throws {
    holder.stack.beginUndoGrouping()
    try await probeSetOn2(remote, value, holder)
    holder.stack.setActionName("Detached")
    holder.stack.endUndoGrouping()
}

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AsyncProbeTests2 {
    // MARK: A stack owned by an actor

    @Test func anActorOwnedUndoTakesAForeignChangeFromAnotherTaskOnTheActorAsANewStep() async throws {
        let doc = ProbeDocActor2()
        await doc.recordBoxStep(1)
        await doc.closeGate()
        let undo = Task { await doc.undo() }
        // Until the group waits at the gate, however loaded the machine; the suite's limit bounds it.
        while await doc.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(await doc.waitingCount == 1)
        #expect(await doc.counts().busy)
        await doc.foreignChange(7)
        await doc.openGate()
        #expect(await undo.value == "ok(true)")
        let counts = await doc.counts()
        #expect(counts.undo == 1 && counts.redo == 0 && !counts.busy)
        let values = await doc.values()
        #expect(values.box == 0 && values.other == 7)
        #expect(await doc.undo() == "ok(true)")
        #expect(await doc.values().other == 0)
        #expect(await doc.counts().clean)
    }

    @Test func anActorOwnedAsyncGroupGoesOnTopOfAForeignChangeMadeWhileItAwaits() async throws {
        let doc = ProbeDocActor2()
        await doc.closeGate()
        let group = Task { try await doc.groupWithGate(5) }
        // Until the group waits at the gate, however loaded the machine; the suite's limit bounds it.
        while await doc.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        await doc.foreignChange(3)
        await doc.openGate()
        try await group.value
        let counts = await doc.counts()
        #expect(counts.undo == 2 && counts.title == "Undo Actor Group")
        #expect(await doc.undo() == "ok(true)")
        let values = await doc.values()
        #expect(values.value == 0 && values.other == 3)
        #expect(await doc.undo() == "ok(true)")
        #expect(await doc.values().other == 0)
    }

    @Test func anActorHandlerReRegistersItsInverseSoUndoAndRedoCycle() async throws {
        let doc = ProbeDocActor2()
        try await doc.recordValueStep([1, 2])
        for _ in 0..<2 {
            #expect(await doc.undo() == "ok(true)")
            #expect(await doc.values().value == 0)
            #expect(await doc.redo() == "ok(true)")
            #expect(await doc.values().value == 2)
        }
        let counts = await doc.counts()
        #expect(counts.undo == 1 && counts.redo == 0)
    }

    @Test func aFailingActorHandlerIsRolledBackThroughTheActorsOwnInverse() async throws {
        let doc = ProbeDocActor2()
        try await doc.recordValueStep([1, 2])
        // Undoing runs setValue(1) (the newest inverse) and then setValue(0), which is refused.
        await doc.setRefused([0])
        #expect(await doc.undo() == "actionFailed(0,restored)")
        #expect(await doc.values().value == 2)
        let counts = await doc.counts()
        #expect(counts.undo == 1 && counts.redo == 0 && !counts.busy && !counts.clean)
        await doc.setRefused([])
        #expect(await doc.undo() == "ok(true)")
        #expect(await doc.values().value == 0)
        #expect(await doc.counts().clean)
    }

    @Test func theEditMenusCallsOnAnActorOwnedStackAreNeedsAwaitAndChangeNothing() async throws {
        let doc = ProbeDocActor2()
        await doc.recordBoxStep(1)
        await doc.closeGate()
        let undo = Task { await doc.undo() }
        // Until the group waits at the gate, however loaded the machine; the suite's limit bounds it.
        while await doc.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        // An operation holds the turn: even a synchronous step needs an await here.
        let seen = await doc.synchronousCalls()
        #expect(seen == [.needsAwait(.redo), .needsAwait(.jump), .needsAwait(.undo)])
        await doc.openGate()
        #expect(await undo.value == "ok(true)")
        let counts = await doc.counts()
        #expect(counts.undo == 0 && counts.redo == 1)
    }

    @Test func aNonisolatedCallerOfAMainActorStackRunsTheHandlersInItsOwnIsolation() async throws {
        // Reaches the stack from a nonisolated function through an unchecked wrapper: the main
        // actor stays suspended meanwhile.
        let stack = makeStack()
        let flags = ProbeFlags2()
        let target = Captured()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: target) { _ in
            flags.ranOnMainThread.append(Thread.isMainThread)
        }
        stack.endUndoGrouping()
        let outcome = await probeUndoFromNonisolated2(ProbeUnsafeStack2(stack: stack))
        #expect(outcome == "ok(true)")
        // The documented rule: the handlers run in the caller's isolation, here none (not the main
        // actor).
        #expect(flags.ranOnMainThread == [false])
        withExtendedLifetime(target) {}
    }

    @Test func theEditMenusUndoFromADetachedTaskIsNeedsAwaitAndChangesNothing() async throws {
        // The stack crosses to a detached task through an unchecked wrapper; the main actor waits.
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let misuse = await probeSynchronousUndoOffMain2(ProbeUnsafeStack2(stack: stack))
        #expect(misuse == .needsAwait(.undo))
        #expect(stack.undoCount == 1 && !stack.isBusy && remote.value == 1)
    }

    // MARK: Asynchronous groups misused from their own body

    @Test func aSynchronousScopedGroupInsideAnAsyncGroupJoinsItsStep() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        let counter = Counter()
        try await stack.asyncGroup(named: "Outer") {
            stack.group(named: "Inner") { counter.set(1, on: stack) }
            try await remote.set(2, on: stack)
        }
        #expect(stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo Outer")
        #expect(try await stack.performUndo())
        #expect(counter.value == 0 && remote.value == 0)
        #expect(try await stack.performRedo())
        #expect(counter.value == 1 && remote.value == 2)
    }

    @Test
    func anEditMenuUndoFromTheAsyncGroupsBodyWaitsAndThenUndoesTheGroup() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack, named: "First")
        var request: ActionStack.OperationRequest?
        try await stack.asyncGroup(named: "Group") {
            try await remote.set(2, on: stack)
            stack.undo()
            request = stack.startedRequest
            #expect(stack.pendingRequestCount == 1)
        }
        let moved = try await request?.value()
        #expect(moved == true)
        #expect(remote.value == 1)
        #expect(stack.undoCount == 1 && stack.redoCount == 1 && stack.redoMenuItemTitle == "Redo Group")
    }

    @Test func performUndoFromTheAsyncGroupsBodyIsAMisuseAndTheGroupGoesOn() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        var inner: ProbeOutcome?
        try await stack.asyncGroup(named: "Group") {
            try await remote.set(1, on: stack)
            inner = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
            try await remote.set(2, on: stack)
        }
        #expect(inner.map(probeTag) == "misuse(\(ActionStack.Misuse.awaitsOwnOperation(.undo)))")
        #expect(stack.undoCount == 1 && remote.value == 2)
        #expect(try await stack.performUndo())
        #expect(remote.value == 0)
    }

    @Test func removeAllActionsFromTheAsyncGroupsBodyLeavesNothingAndACleanState() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        try await stack.asyncGroup(named: "Group") {
            try await remote.set(2, on: stack)
            stack.removeAllActions()
        }
        #expect(stack.undoCount == 0 && stack.redoCount == 0 && !stack.canUndo)
        #expect(stack.isClean && !stack.isBusy)
    }

    @Test
    func markCleanFromTheAsyncGroupsBodyActsAsInASynchronousScopedGroup() async throws {
        let asynchronous = makeStack()
        let counter = Counter()
        try await asynchronous.asyncGroup(named: "G") {
            counter.set(1, on: asynchronous)
            asynchronous.markClean()
        }
        let synchronous = makeStack()
        let other = Counter()
        synchronous.group(named: "G") {
            other.set(1, on: synchronous)
            synchronous.markClean()
        }
        #expect(asynchronous.isClean == synchronous.isClean)
        #expect(asynchronous.lastMisuse == synchronous.lastMisuse)
        try await asynchronous.performUndo()
        synchronous.undo()
        #expect(asynchronous.isClean == synchronous.isClean)
    }

    @Test func anAsyncGroupRecordsWhileAStepIsBrokenAndSurvivesItsDiscard() async throws {
        let stack = makeStack()
        _ = try await probeBrokenStep(stack)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(stack.brokenStep != nil)
        let remote = RemoteValue()
        try await stack.asyncGroup(named: "After") { try await remote.set(5, on: stack) }
        #expect(stack.brokenStep != nil && stack.undoMenuItemTitle == "Undo After")
        let refused = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(refused) == "stackBroken")
        stack.discardBrokenStep()
        #expect(stack.brokenStep == nil && stack.undoCount == 1)
        #expect(try await stack.performUndo())
        #expect(remote.value == 0)
    }

    @Test func twoAsyncGroupsFromTwoTasksRunOneAfterTheOther() async throws {
        let stack = makeStack()
        let gate = Gate()
        let first = RemoteValue("a", gate: gate)
        let second = RemoteValue("b")
        var secondRan = false
        let a = Task { @MainActor in try await stack.asyncGroup(named: "A") { try await first.set(1, on: stack) } }
        await settle { gate.waitingCount == 1 }
        let b = Task { @MainActor in
            try await stack.asyncGroup(named: "B") {
                secondRan = true
                #expect(first.value == 1)
                try await second.set(2, on: stack)
            }
        }
        await settle { stack.pendingRequestCount == 1 }
        #expect(stack.pendingRequestCount == 1 && !secondRan)
        gate.openForGood()
        try await a.value
        try await b.value
        #expect(stack.undoCount == 2 && stack.undoMenuItemTitle == "Undo B")
        #expect(try await stack.performUndo())
        #expect(second.value == 0 && first.value == 1 && stack.undoMenuItemTitle == "Undo A")
    }

    @Test func cancellingAnAsyncGroupWaitingForItsTurnNeverRunsItsBody() async throws {
        let stack = makeStack()
        let gate = Gate()
        let first = RemoteValue("a", gate: gate)
        var bodyRan = false
        let a = Task { @MainActor in try await stack.asyncGroup(named: "A") { try await first.set(1, on: stack) } }
        await settle { gate.waitingCount == 1 }
        let b = Task { @MainActor () -> String in
            do {
                try await stack.asyncGroup(named: "B") { bodyRan = true }
                return "ok"
            } catch let error as ActionStack.OperationError {
                return probeTag(error)
            } catch {
                return "\(error)"
            }
        }
        await settle { stack.pendingRequestCount == 1 }
        b.cancel()
        #expect(await b.value == "cancelled(task)")
        #expect(stack.pendingRequestCount == 0)
        gate.openForGood()
        try await a.value
        #expect(!bodyRan && stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo A")
    }

    @Test func cancellingAnAsyncGroupWhileItsBodyRunsRollsBackEvenCancellationAwareInverses() async throws {
        let stack = makeStack()
        let gate = Gate()
        let counter = Counter()
        let task = Task { @MainActor in
            try await stack.asyncGroup(named: "G") {
                counter.value = 1
                stack.registerAsyncUndo(withTarget: counter) { counter in
                    try Task.checkCancellation()
                    counter.value = 0
                }
                await gate.pass()
                try Task.checkCancellation()
            }
        }
        await settle { gate.waitingCount == 1 }
        task.cancel()
        gate.openForGood()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(counter.value == 0)
        #expect(stack.undoCount == 0 && stack.isClean && !stack.isBusy)
    }

    @Test func childTasksOfTheBodyJoinTheGroup() async throws {
        let stack = makeStack()
        let holder = ProbeHolder2(stack)
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        let c = RemoteValue("c")
        try await stack.asyncGroup(named: "Children") {
            async let first: Void = probeSetOn2(a, 1, holder)
            try await first
            try await probeInTaskGroup2([(b, 2), (c, 3)], holder)
        }
        #expect(stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo Children")
        #expect(try await stack.performUndo())
        #expect(a.value == 0 && b.value == 0 && c.value == 0)
        #expect(stack.undoCount == 0)
    }

    @Test func aDetachedTaskOfTheBodyRecordsAStepOfItsOwn() async throws {
        let stack = makeStack()
        let holder = ProbeHolder2(stack)
        let a = RemoteValue("a")
        let detached = RemoteValue("d")
        try await stack.asyncGroup(named: "Group") {
            try await a.set(1, on: stack)
            try await probeInDetachedTask2(detached, 9, holder)
        }
        #expect(stack.undoCount == 2 && stack.undoMenuItemTitle == "Undo Group")
        #expect(try await stack.performUndo())
        #expect(a.value == 0 && detached.value == 9 && stack.undoMenuItemTitle == "Undo Detached")
        #expect(try await stack.performUndo())
        #expect(detached.value == 0)
    }

    // MARK: The Edit menu's synchronous calls

    @Test func theEditMenusRedoAndJumpWithAFullQueueLeaveFinishedDroppedRequests() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        gate.isClosed = false
        try await stack.performUndo()
        gate.isClosed = true
        stack.busyPolicy = .queue(limit: 1)
        let running = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let queued = Task { @MainActor in try await stack.performUndo() }
        await settle { stack.pendingRequestCount == 1 }
        for call in ["redo", "jump", "undo"] {
            switch call {
            case "redo": stack.redo()
            case "jump": stack.jump(to: 3)
            default: stack.undo()
            }
            let request = try #require(stack.startedRequest)
            #expect(request.isFinished)
            if case .failure(let error)? = request.result, error.dropReason == .queueFull {
            } else {
                Issue.record("\(call): \(String(describing: request.result))")
            }
            let awaited = await probeAttempt { () async throws(ActionStack.OperationError) in try await request.value()
            }
            #expect(probeTag(awaited) == "dropped(queueFull)")
        }
        #expect(stack.pendingRequestCount == 1)
        gate.openForGood()
        _ = try await running.value
        _ = try await queued.value
        #expect(remote.value == 0 && stack.redoCount == 3)
    }

    // MARK: Notifications

    @Test func theFailNotificationCarriesTheErrorTheCallerGets() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack, named: "Set")
        let received = ProbeReceived2()
        let tokens = [
            NotificationCenter.default.addObserver(
                forName: ActionStack.didFailUndoChangeNotification, object: stack, queue: nil
            ) { note in
                received.append("undo", note.userInfo?[ActionStack.operationErrorUserInfoKey])
            },
            NotificationCenter.default.addObserver(
                forName: ActionStack.didFailRedoChangeNotification, object: stack, queue: nil
            ) { note in
                received.append("redo", note.userInfo?[ActionStack.operationErrorUserInfoKey])
            },
        ]
        defer { for token in tokens { NotificationCenter.default.removeObserver(token) } }
        remote.refused = [0]
        let undo = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        remote.refused = []
        try await stack.performUndo()
        remote.refused = [1]
        let redo = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        let errors = received.all
        #expect(errors.map(\.0) == ["undo", "redo"])
        #expect(errors.map(\.1) == [probeTag(undo), probeTag(redo)])
        #expect(errors.map(\.2) == [true, false])
        #expect(errors.map(\.3) == ["Set", "Set"])
    }

    @Test func aFailObserverMayStartATaskThatUndoesAgain() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let retry = ProbeRetry2()
        let token = observe(ActionStack.didFailUndoChangeNotification, of: stack) { stack in
            let reference = ProbeUnsafeStack2(stack: stack)
            MainActor.assumeIsolated {
                retry.task = Task { @MainActor in
                    remote.refused = []
                    return probeTag(
                        await probeAttempt { () async throws(ActionStack.OperationError) in
                            try await reference.stack.performUndo()
                        })
                }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        remote.refused = [0]
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        let again = await retry.task?.value
        #expect(again == "ok(true)")
        #expect(remote.value == 0 && stack.undoCount == 0 && stack.redoCount == 1)
    }

    @Test func aRestoredFailureNeverTellsACleanStateChangeAndAnIncompleteOneTellsOne() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        try await stack.performUndo()
        #expect(stack.isClean)
        let received = ProbeReceived2()
        let token = NotificationCenter.default.addObserver(
            forName: ActionStack.cleanStateDidChangeNotification, object: stack, queue: nil
        ) { _ in received.append("clean", nil) }
        defer { NotificationCenter.default.removeObserver(token) }
        // A redo that fails and is restored: the document is as it was, clean.
        remote.refused = [1]
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        #expect(stack.isClean && received.all.isEmpty)
        // An undo whose rollback is incomplete, from a state marked clean: a new state, not clean.
        remote.refused = []
        let x = RemoteValue("x")
        let y = RemoteValue("y")
        try await probeStep(stack, [x, y], to: 1)
        stack.markClean()
        received.reset()
        x.refused = [0]
        y.registersNoInverse = true
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(outcome) == "actionFailed(0,incomplete[1])")
        #expect(!stack.isClean)
        #expect(received.all.count == 1)
    }

    // MARK: Observation

    @Test func stateUpdatesDuringQueuedUndosNeverShowAHalfAppliedStep() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let updates = stack.stateUpdates()
        let collector = Task { @MainActor () -> [ActionStack.State] in
            var states: [ActionStack.State] = []
            for await state in updates {
                states.append(state)
                if state.undoCount == 0 && !state.isBusy { break }
            }
            return states
        }
        let undos = (0..<3).map { _ in Task { @MainActor in try await stack.performUndo() } }
        await settle { gate.waitingCount == 1 }
        gate.openForGood()
        for undo in undos { _ = try await undo.value }
        let states = await collector.value
        #expect(states.allSatisfy { $0.undoCount + $0.redoCount == 3 })
        #expect(states.allSatisfy { $0.isBusy || $0.pendingRequestCount == 0 })
        #expect(states.last?.isBusy == false && states.last?.pendingRequestCount == 0)
        #expect(states.last?.undoCount == 0 && states.last?.redoCount == 3)
    }

    // MARK: Limits

    @Test func levelsOfUndoOneWithARedoInFlightAndAForeignChangeKeepsTheNewestStep() async throws {
        let stack = makeStack()
        stack.levelsOfUndo = 1
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        gate.openForGood()
        try await stack.performUndo()
        gate.isClosed = true
        let redo = Task { @MainActor in try await stack.performRedo() }
        await settle { gate.waitingCount == 1 }
        let counter = Counter()
        group(stack, named: "Foreign") { counter.set(5, on: stack) }
        gate.openForGood()
        #expect(try await redo.value)
        #expect(remote.value == 1 && counter.value == 5)
        #expect(stack.undoCount == 1 && stack.redoCount == 0 && stack.undoMenuItemTitle == "Undo Foreign")
        #expect(try await stack.performUndo())
        #expect(counter.value == 0 && remote.value == 1 && !stack.canUndo)
    }

    @Test func maximumCostCountsTheCostedInverseARedoRegisters() async throws {
        func run(asynchronous: Bool) async throws -> (Int, Int) {
            let stack = makeStack()
            stack.maximumCost = 15
            let counter = Counter()
            stack.beginUndoGrouping()
            stack.registerUndo(withTarget: counter, options: .cost(10)) { _ in }
            stack.endUndoGrouping()
            func costly(_ counter: Counter) {
                stack.registerUndo(withTarget: counter, options: .cost(10)) { costly($0) }
            }
            stack.beginUndoGrouping()
            if asynchronous {
                stack.registerAsyncUndo(withTarget: counter) { costly($0) }
            } else {
                costly(counter)
            }
            stack.endUndoGrouping()
            try await stack.performUndo()
            try await stack.performRedo()
            return (stack.undoCount, stack.redoCount)
        }
        let asynchronous = try await run(asynchronous: true)
        let synchronous = try await run(asynchronous: false)
        #expect(asynchronous == synchronous)
        #expect(asynchronous == (1, 0))
    }

    @Test func dropsEmptyGroupsTreatsAnEmptyOppositeStepAsASynchronousUndoDoes() async throws {
        func run(asynchronous: Bool) async throws -> (Int, Int, Bool) {
            let stack = makeStack(dropsEmptyGroups: true)
            let counter = Counter()
            stack.beginUndoGrouping()
            if asynchronous {
                stack.registerAsyncUndo(withTarget: counter) { counter in counter.value = 0 }
            } else {
                stack.registerUndo(withTarget: counter) { counter in counter.value = 0 }
            }
            stack.endUndoGrouping()
            try await stack.performUndo()
            return (stack.undoCount, stack.redoCount, stack.canRedo)
        }
        let asynchronous = try await run(asynchronous: true)
        let synchronous = try await run(asynchronous: false)
        #expect(asynchronous == synchronous)
    }

    // MARK: Broken steps

    @Test func aRequestMadeWhileARetryRunsQueuesBehindIt() async throws {
        let stack = makeStack()
        let earlier = RemoteValue("e")
        try await earlier.change(to: 1, on: stack, named: "Earlier")
        let (a, b) = try await probeBrokenStep(stack)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(stack.brokenStep != nil)
        a.refused = []
        b.refused = []
        let gate = Gate()
        b.gate = gate
        let retry = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.retryBrokenStep() }
        }
        await settle { gate.waitingCount == 1 }
        #expect(stack.isBusy)
        let queued = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { stack.pendingRequestCount == 1 }
        let pendingDuringRetry = stack.pendingRequestCount
        gate.openForGood()
        #expect(probeTag(await retry.value) == "ok(true)")
        let queuedOutcome = probeTag(await queued.value)
        #expect(pendingDuringRetry == 1)
        #expect(queuedOutcome == "ok(true)")
        #expect(earlier.value == 0 && a.value == 0 && b.value == 0)
    }

    @Test func discardingTheBrokenStepWhileItsRetryRunsKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let (a, b) = try await probeBrokenStep(stack)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        a.refused = []
        b.refused = []
        let gate = Gate()
        b.gate = gate
        let retry = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.retryBrokenStep() }
        }
        await settle { gate.waitingCount == 1 }
        stack.discardBrokenStep()
        gate.openForGood()
        _ = await retry.value
        #expect(stack.brokenStep == nil && !stack.isBusy)
        #expect(stack.undoCount + stack.redoCount <= 1)
    }

    @Test func discardingTheBrokenStepWhileAnAsyncGroupHoldsTheTurnKeepsTheGroup() async throws {
        let stack = makeStack()
        _ = try await probeBrokenStep(stack)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let group = Task { @MainActor in
            try await stack.asyncGroup(named: "G") { try await remote.set(1, on: stack) }
        }
        await settle { gate.waitingCount == 1 }
        stack.discardBrokenStep()
        #expect(stack.brokenStep == nil && stack.undoCount == 0)
        gate.openForGood()
        try await group.value
        #expect(stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo G" && !stack.isClean)
        #expect(try await stack.performUndo())
        #expect(remote.value == 0)
    }

    // MARK: Memory

    @Test func anOperationsClosuresAreReleasedWhenItSettles() async throws {
        let stack = makeStack()
        let counter = Counter()
        var first: Captured? = Captured()
        let firstTracker = LifetimeTracker(first!)
        var second: Captured? = Captured()
        let secondTracker = LifetimeTracker(second!)
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { [first, second] counter in
            withExtendedLifetime(first) {}
            let captured = second
            stack.registerUndo(withTarget: counter) { _ in withExtendedLifetime(captured) {} }
        }
        stack.endUndoGrouping()
        first = nil
        second = nil
        try await stack.performUndo()
        #expect(!firstTracker.isAlive)
        #expect(secondTracker.isAlive)
        stack.removeAllActions()
        #expect(!secondTracker.isAlive)
    }

    @Test func theInversesOfAFailedOperationAreReleased() async throws {
        let stack = makeStack()
        let counter = Counter()
        var thrown: Captured? = Captured()
        let tracker = LifetimeTracker(thrown!)
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { _ in throw ProbeFailure() }
        stack.registerAsyncUndo(withTarget: counter) { [thrown] counter in
            let captured = thrown
            stack.registerUndo(withTarget: counter) { _ in withExtendedLifetime(captured) {} }
        }
        stack.endUndoGrouping()
        thrown = nil
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(outcome) == "actionFailed(0,restored)")
        stack.removeAllActions()
        #expect(!tracker.isAlive)
    }

    @Test func aCancelledRequestsAwaitingTaskIsReleased() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let running = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        var held: Captured? = Captured()
        let tracker = LifetimeTracker(held!)
        var queued: Task<String, Never>? = Task { @MainActor [held] in
            withExtendedLifetime(held) {}
            return probeTag(
                await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() })
        }
        held = nil
        await settle { stack.pendingRequestCount == 1 }
        queued?.cancel()
        #expect(await queued?.value == "cancelled(task)")
        queued = nil
        await settle { !tracker.isAlive }
        #expect(!tracker.isAlive)
        gate.openForGood()
        _ = try await running.value
        #expect(stack.undoCount == 1)
    }
}

/// What fail notifications carried, collected from any thread.
final class ProbeReceived2: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var items: [(String, String, Bool?, String)] = []

    func append(_ name: String, _ payload: Any?) {
        var tag = "none"
        var isUndo: Bool?
        var stepName = ""
        if let error = payload as? ActionStack.OperationError {
            tag = probeTag(error)
            if let failure = error.actionFailure {
                isUndo = failure.isUndo
                stepName = failure.stepName
            }
        }
        lock.withLock { items.append((name, tag, isUndo, stepName)) }
    }

    var all: [(String, String, Bool?, String)] { lock.withLock { items } }
    func reset() { lock.withLock { items.removeAll() } }
}

/// The task a fail observer started.
@MainActor
final class ProbeRetry2 {
    var task: Task<String, Never>?
}
