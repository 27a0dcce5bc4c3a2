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

// An awaited operation releases its closures, the inverses of a failed one and the tasks that awaited.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncLifetimeTests {
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
