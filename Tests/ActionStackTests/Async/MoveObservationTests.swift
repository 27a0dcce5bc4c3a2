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
import Observation
import Testing

// One rule for what the state observers hear of a move (issue 28, item 7): a move (undo, redo, a
// jump; synchronous or awaited; in a linear or a branching history) is heard once, when it has
// ended, never step by step. An awaited request is also heard when its first step starts (busy,
// the step in flight), and a request that has to wait when it is made (the pending count); the
// calls of its own handlers are not heard apart. The notifications are per step, as always.

/// A short form of a state: busy/in-flight flags and the counts.
private func short(_ state: ActionStack.State) -> String {
    let flight = state.isUndoInFlight ? " undoing" : state.isRedoInFlight ? " redoing" : ""
    return "\(state.isBusy ? "busy" : "idle")\(flight) u\(state.undoCount) r\(state.redoCount)"
        + (state.pendingRequestCount > 0 ? " p\(state.pendingRequestCount)" : "")
        + (state.currentNode.map { " @\($0.sequence)" } ?? "")
}

@MainActor
private final class StateLog {
    private(set) var states: [String] = []
    private var token: ObservationToken?

    init(_ stack: ActionStack) {
        token = stack.observe { [weak self] state in self?.states.append(short(state)) }
    }

    func reset() { states = [] }
}

/// Records the undo and redo notifications by short names (fail ones included).
@MainActor
private func notificationNames(_ log: OperationLog) -> [String] { log.events }

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct MoveObservationTests {
    /// Three steps on a counter, which the caller keeps alive (the stack holds it weakly).
    @discardableResult
    private func threeSteps(_ stack: ActionStack, on counter: Counter = Counter()) -> Counter {
        for value in 1...3 { group(stack, named: "\(value)") { counter.set(value, on: stack) } }
        return counter
    }

    @Test func aSynchronousJumpIsHeardOnceAtItsEnd() {
        let stack = makeStack()
        let counter = threeSteps(stack)
        defer { withExtendedLifetime(counter) {} }
        let log = StateLog(stack)
        let notifications = OperationLog(stack)
        stack.jump(to: 0)
        #expect(log.states == ["idle u0 r3"])
        #expect(
            notificationNames(notifications) == ["willUndo", "didUndo", "willUndo", "didUndo", "willUndo", "didUndo"])
    }

    @Test func anAwaitedJumpOfSynchronousStepsIsHeardAtItsStartAndItsEnd() async throws {
        let stack = makeStack()
        let counter = threeSteps(stack)
        defer { withExtendedLifetime(counter) {} }
        let log = StateLog(stack)
        let notifications = OperationLog(stack)
        #expect(try await stack.performJump(to: 0))
        #expect(log.states == ["busy undoing u3 r0", "idle u0 r3"])
        #expect(
            notificationNames(notifications) == ["willUndo", "didUndo", "willUndo", "didUndo", "willUndo", "didUndo"])
    }

    @Test func anAwaitedJumpOfAsynchronousStepsIsHeardAtItsStartAndItsEnd() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack, named: "\(value)") }
        let log = StateLog(stack)
        let jump = Task { @MainActor in try await stack.performJump(to: 0) }
        for expected in [2, 1, 0] {
            await settle { gate.waitingCount == 1 }
            gate.openOne()
            await settle { remote.value == expected }
        }
        #expect(try await jump.value)
        #expect(log.states == ["busy undoing u3 r0", "idle u0 r3"])
    }

    @Test func anAwaitedUndoIsHeardAtItsStartAndItsEndAndItsHandlersCallsAreNotHeardApart() async throws {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            await Task.yield()
            counter.set(9, on: stack)
            stack.setActionName("Nine")
            await Task.yield()
        }
        stack.setActionName("Set")
        stack.endUndoGrouping()
        let log = StateLog(stack)
        #expect(try await stack.performUndo())
        #expect(log.states == ["busy undoing u1 r0", "idle u0 r1"])
        #expect(stack.redoMenuItemTitle == "Redo Nine")
    }

    @Test func anEditMenusUndoIsHeardWhenMadeWhenItStartsAndWhenItEnds() async throws {
        let stack = makeAsyncStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let log = StateLog(stack)
        stack.undo()
        #expect(try await #require(stack.startedRequest).value())
        // The synchronous call is heard at its end (busy); then the request's start and end.
        #expect(log.states == ["busy u1 r0", "busy undoing u1 r0", "idle u0 r1"])
    }

    @Test func aRequestThatWaitsIsHeardWhenMadeAndAgainWhenItStartsAndEnds() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let log = StateLog(stack)
        let first = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let second = Task { @MainActor in try await stack.performUndo() }
        await settle { stack.pendingRequestCount == 1 }
        gate.openForGood()
        #expect(try await first.value)
        #expect(try await second.value)
        #expect(
            log.states == [
                "busy undoing u2 r0",  // the first starts
                "busy undoing u2 r0 p1",  // the second is made, and waits
                "busy u1 r1",  // the first has ended; the second holds the turn
                "busy undoing u1 r1",  // the second starts
                "idle u0 r2",  // and ends
            ])
    }

    @Test func aSynchronousMoveThroughTheTreeIsHeardOnce() throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let counter = Counter()
        for value in 1...2 { group(stack, named: "\(value)") { counter.set(value, on: stack) } }
        stack.undo()
        group(stack, named: "3") { counter.set(3, on: stack) }
        let log = StateLog(stack)
        try stack.jump(toNode: .init(sequence: 2))
        #expect(log.states == ["idle u2 r0 @2"])
    }

    @Test func anAwaitedMoveThroughTheTreeIsHeardAtItsStartAndItsEnd() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let remote = RemoteValue()
        for value in 1...2 { try await remote.change(to: value, on: stack, named: "\(value)") }
        try await stack.performUndo()
        try await remote.change(to: 3, on: stack, named: "3")
        let log = StateLog(stack)
        #expect(try await stack.performJump(toNode: .init(sequence: 2)))
        #expect(log.states == ["busy undoing u2 r0 @3", "idle u2 r0 @2"])
    }

    @Test func aFailingAwaitedMoveAcrossBranchesIsHeardAtItsStartAndWhereItStopped() async throws {
        // The issue's case: it used to publish a state per step.
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let remote = RemoteValue()
        for value in 1...2 { try await remote.change(to: value, on: stack, named: "\(value)") }
        try await stack.performUndo()
        try await remote.change(to: 3, on: stack, named: "3")
        // Node 3's undo succeeds; the redo of node 2 fails.
        remote.refused = [2]
        let log = StateLog(stack)
        let notifications = OperationLog(stack)
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in
            try await stack.performJump(toNode: .init(sequence: 2))
        }
        #expect(probeTag(outcome) == "actionFailed(0,restored)")
        #expect(stack.currentNode == .init(sequence: 1))
        #expect(log.states == ["busy undoing u2 r0 @3", "idle u1 r1 @1"])
        #expect(notificationNames(notifications) == ["willUndo", "didUndo", "willRedo", "failRedo"])
    }

    @Test func anotherTasksCallDuringAJumpIsHeardAndShowsTheJumpInFlight() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack) }
        let log = StateLog(stack)
        let jump = Task { @MainActor in try await stack.performJump(to: 0) }
        await settle { gate.waitingCount == 1 }
        gate.openOne()
        await settle { remote.value == 2 && gate.waitingCount == 1 }
        // Another task reads a query that is a call: it is heard (with what changed meanwhile).
        _ = stack.canUndo
        gate.openForGood()
        #expect(try await jump.value)
        #expect(log.states == ["busy undoing u3 r0", "busy undoing u2 r1", "idle u0 r3"])
    }

    @Test func theObservationModelFollowsTheSameRule() async throws {
        let stack = makeStack()
        let counter = threeSteps(stack)
        defer { withExtendedLifetime(counter) {} }
        let model = ActionStackModel(stack)
        // Touched on the main actor only: the model changes there, and tells synchronously.
        nonisolated(unsafe) var changes = 0
        nonisolated(unsafe) var track: () -> Void = {}
        track = {
            withObservationTracking {
                _ = model.state
            } onChange: {
                changes += 1
                track()
            }
        }
        track()
        #expect(try await stack.performJump(to: 0))
        #expect(changes == 2)
        stack.jump(to: 3)
        #expect(changes == 3)
        #expect(model.state == stack.state)
        track = {}
    }
}
