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

// The notifications of awaited operations: every will-notification followed by exactly one did or
// fail, and what the fail notification carries.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncNotificationTests {
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
}
