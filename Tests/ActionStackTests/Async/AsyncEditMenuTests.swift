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

// The Edit menu's synchronous calls (`undo()`, `redo()`, `jump(to:)`) on asynchronous steps: each
// starts a request that can be awaited, queued behind a busy operation or dropped.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncEditMenuTests {
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
}
