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

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncGroupTests {
    @Test func whatTheBodyRecordsAcrossAwaitsIsOneNamedStep() async throws {
        let stack = makeStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        let result = try await stack.asyncGroup(named: "Both") {
            try await a.set(1, on: stack)
            try await b.set(2, on: stack)
            return 42
        }
        #expect(result == 42)
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Both")
        #expect(try await stack.performUndo())
        #expect(a.value == 0 && b.value == 0)
        #expect(try await stack.performRedo())
        #expect(a.value == 1 && b.value == 2)
        #expect(stack.undoMenuItemTitle == "Undo Both")
    }

    @Test func aBodyThatThrowsIsRolledBackAndLeavesNoStep() async throws {
        let stack = makeStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        try await b.change(to: 5, on: stack, named: "Before")
        stack.markClean()
        b.refused = [6]
        await #expect(throws: RemoteFailure(value: 6)) {
            try await stack.asyncGroup(named: "Failing") {
                try await a.set(1, on: stack)
                try await b.set(6, on: stack)
            }
        }
        #expect(a.value == 0 && b.value == 5)
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Before")
        #expect(stack.isClean)
    }

    @Test func anUndoRequestedWhileTheBodyAwaitsWaitsBehindTheGroup() async throws {
        let stack = makeStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        try await a.change(to: 1, on: stack, named: "First")
        let group = Task { @MainActor in
            try await stack.asyncGroup(named: "Second") { try await b.set(1, on: stack) }
        }
        await settle { gate.waitingCount == 1 }
        #expect(stack.isBusy)
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { stack.pendingRequestCount == 1 }
        // The synchronous undo of an Edit menu waits too.
        stack.undo()
        #expect(stack.pendingRequestCount == 2)
        gate.openForGood()
        try await group.value
        #expect(try await undo.value)
        #expect(try await stack.startedRequest?.value() == true)
        // The group's step was undone first, then the one before it.
        #expect(b.value == 0 && a.value == 0)
        #expect(stack.redoCount == 2)
    }

    @Test func changesOtherTasksRecordMeanwhileAreStepsOfTheirOwnBelowTheGroup() async throws {
        let stack = makeStack()
        let gate = Gate()
        let a = RemoteValue("a", gate: gate)
        let other = RemoteValue("other")
        let group = Task { @MainActor in
            try await stack.asyncGroup(named: "Group") { try await a.set(1, on: stack) }
        }
        await settle { gate.waitingCount == 1 }
        try await other.change(to: 3, on: stack, named: "Other")
        #expect(stack.undoCount == 1)
        gate.openForGood()
        try await group.value
        #expect(stack.undoCount == 2)
        #expect(stack.undoMenuItemTitle == "Undo Group")
        try await stack.performUndo()
        #expect(a.value == 0 && other.value == 3)
        try await stack.performUndo()
        #expect(other.value == 0)
    }

    @Test func theEventsAutomaticCloseNeverClosesTheGroup() async throws {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let gate = Gate()
        let a = RemoteValue("a", gate: gate)
        let group = Task { @MainActor in
            try await stack.asyncGroup(named: "Group") {
                try await a.set(1, on: stack)
                try await a.set(2, on: stack)
            }
        }
        await settle { gate.waitingCount == 1 }
        stack.endEvent()
        gate.openOne()
        await settle { gate.waitingCount == 1 }
        stack.endEvent()
        gate.openForGood()
        try await group.value
        #expect(stack.undoCount == 1)
        try await stack.performUndo()
        #expect(a.value == 0)
    }

    @Test func anAsyncGroupInsideAnOperationsHandlerIsAMisuse() async throws {
        let stack = makeStack()
        let probe = Probe()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: probe) { probe in
            do {
                try await stack.asyncGroup {}
            } catch {
                probe.error = error
            }
        }
        stack.endUndoGrouping()
        try await stack.performUndo()
        guard (probe.error as? ActionStack.OperationError)?.misuse == .awaitsOwnOperation(.group) else {
            Issue.record("unexpected \(String(describing: probe.error))")
            return
        }
    }

    @Test func whileRegistrationIsDisabledTheBodySimplyRuns() async throws {
        let stack = makeStack()
        let a = RemoteValue("a")
        stack.disableUndoRegistration()
        try await stack.asyncGroup(named: "Quiet") { try await a.set(1, on: stack) }
        stack.enableUndoRegistration()
        #expect(a.value == 1)
        #expect(!stack.canUndo)
    }

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
}

@MainActor
@Suite struct SynchronousGroupWithAsyncActionsTests {
    @Test func aThrowingSynchronousGroupCannotRunAsyncInversesAndSaysTheDocumentChanged() throws {
        let stack = makeStack()
        let probe = Probe()
        stack.markClean()
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try stack.group(named: "Mixed") {
                stack.registerAsyncUndo(withTarget: probe) { probe in probe.before = true }
                throw Failure()
            }
        }
        // The async inverse could not be awaited: it did not run, and the stack does not pretend
        // the document is back where it was.
        #expect(probe.before == nil)
        #expect(!stack.canUndo)
        #expect(!stack.isClean)
    }
}

extension AsyncGroupTests {
    /// "when the operation settles, ... the redo stack is emptied then, as any new change empties
    /// it; in a branching history it becomes a branch then": also when the group itself records
    /// nothing and is dropped (`dropsEmptyGroups`). Once, a dropped group left the redo future that
    /// another task's change had ended as the redo stack.
    @Test(arguments: [false, true])
    func aDroppedEmptyGroupStillEndsTheRedoFutureAnotherTasksChangeEnded(tree: Bool) async throws {
        let stack = makeStack()
        stack.dropsEmptyGroups = true
        if tree { stack.historyShape = .tree }
        let gate = Gate()
        let a = RemoteValue("a")
        let other = RemoteValue("other")
        try await a.change(to: 1, on: stack, named: "First")  // node 1
        try await stack.performUndo()
        #expect(stack.canRedo)
        let group = Task { @MainActor in
            try await stack.asyncGroup(named: "Empty") { await gate.pass() }
        }
        await settle { gate.waitingCount == 1 }
        try await other.change(to: 3, on: stack, named: "Other")  // node 2, another task's change
        #expect(stack.canRedo, "until the group settles, the redo stack still shows the old future")
        gate.openForGood()
        try await group.value
        #expect(stack.undoCount == 1, "the empty group left no step")
        #expect(!stack.canRedo, "the change ended the redo future")
        #expect(stack.redoMenuItemTitle == "Redo")
        if tree {
            #expect(stack.currentNode == .init(sequence: 2))
            #expect(stack.redoBranches == [])
            #expect(stack.historyTree?.nodes.first { $0.id == .init(sequence: 1) }?.parent == .init(sequence: 0))
            try await stack.performJump(toNode: .init(sequence: 1))
            #expect(a.value == 1 && other.value == 0, "the branch redoes First from the root")
        }
        stack._checkInvariants()
    }
}
