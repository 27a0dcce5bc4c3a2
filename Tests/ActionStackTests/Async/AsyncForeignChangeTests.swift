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

// Changes that other tasks make while an operation awaits: new steps above the one in flight, and
// the calls that change the history under it.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncForeignChangeTests {
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
}
