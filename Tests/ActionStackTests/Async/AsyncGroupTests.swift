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
@Suite(.serialized, .timeLimit(.minutes(5))) struct AsyncGroupTests {
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
