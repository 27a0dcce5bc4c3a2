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

// A step whose rollback failed is broken: every move is refused until it is retried or discarded.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncBrokenStepTests {
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
}
