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

// An asynchronous group's open notification is always paired with a will-close and a did-close,
// whether its body returns or throws, as a scoped group's is (issue 28, item 3).

private struct BodyFailed: Error {}

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncGroupNotificationTests {
    @Test func aThrowingScopedGroupPairsItsOpenNotification() {
        // The reference.
        let stack = makeStack()
        let counter = Counter()
        let recorder = NotificationRecorder(stack)
        #expect(throws: BodyFailed.self) {
            try stack.group(named: "Z") {
                counter.set(1, on: stack)
                throw BodyFailed()
            }
        }
        #expect(recorder.withoutCheckpoints == ["DidOpen", "WillClose", "DidClose"])
    }

    @Test func aThrowingAsyncGroupPairsItsOpenNotification() async {
        let stack = makeStack()
        let recorder = NotificationRecorder(stack)
        await #expect(throws: BodyFailed.self) {
            try await stack.asyncGroup(named: "Z") { throw BodyFailed() }
        }
        #expect(recorder.withoutCheckpoints == ["DidOpen", "WillClose", "DidClose"])
        #expect(stack.undoCount == 0 && !stack.isBusy)
    }

    @Test func aThrowingAsyncGroupThatRegisteredPairsItsOpenNotificationBeforeItsRollback() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        let counter = Counter()
        let recorder = NotificationRecorder(stack)
        let log = OperationLog(stack)
        await #expect(throws: BodyFailed.self) {
            try await stack.asyncGroup(named: "Z") {
                counter.set(1, on: stack)
                try await remote.set(5, on: stack)
                throw BodyFailed()
            }
        }
        // As a scoped group: closed (never a step), then rolled back, with no undo notifications.
        #expect(recorder.withoutCheckpoints == ["DidOpen", "WillClose", "DidClose"])
        #expect(log.events.isEmpty)
        #expect(counter.value == 0 && remote.value == 0)
        #expect(stack.undoCount == 0 && stack.isClean)
    }

    @Test func aReturningAsyncGroupPairsItsOpenNotification() async throws {
        let stack = makeStack()
        let counter = Counter()
        let recorder = NotificationRecorder(stack)
        try await stack.asyncGroup(named: "Z") { counter.set(1, on: stack) }
        #expect(recorder.withoutCheckpoints == ["DidOpen", "WillClose", "DidClose"])
    }

    @Test func aWillCloseObserverAddsToTheClosingAsyncGroupAsToAnyClosingGroup() async throws {
        let stack = makeStack()
        let counter = Counter()
        // Touched on the main actor only, by the test and its observer.
        nonisolated(unsafe) let extra = Counter("extra")
        let token = observe(ActionStack.willCloseUndoGroupNotification, of: stack) { stack in
            if extra.value == 0 { extra.set(7, on: stack) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try await stack.asyncGroup(named: "Z") { counter.set(1, on: stack) }
        #expect(stack.undoCount == 1 && stack.undoActionName == "Z")
        #expect(try await stack.performUndo())
        #expect(counter.value == 0 && extra.value == 0)
    }

    @Test func whatAWillCloseObserverAddsToAThrowingAsyncGroupIsRolledBackWithIt() async throws {
        let stack = makeStack()
        let counter = Counter()
        // Touched on the main actor only, by the test and its observer.
        nonisolated(unsafe) let extra = Counter("extra")
        let token = observe(ActionStack.willCloseUndoGroupNotification, of: stack) { stack in
            if extra.value == 0 { extra.set(7, on: stack) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        await #expect(throws: BodyFailed.self) {
            try await stack.asyncGroup(named: "Z") {
                counter.set(1, on: stack)
                throw BodyFailed()
            }
        }
        #expect(counter.value == 0 && extra.value == 0)
        #expect(stack.undoCount == 0 && stack.isClean)
    }
}
