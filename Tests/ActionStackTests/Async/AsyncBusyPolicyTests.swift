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

// What a request made while the stack is busy does under each busy policy and queue limit.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncBusyPolicyTests {
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
}
