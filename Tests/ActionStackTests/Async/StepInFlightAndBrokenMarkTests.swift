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

// A history panel can show the step being performed and a broken step (issue 28, item 8): the
// history entries and the tree's nodes mark them, and the observed state says that an undo or a
// redo is in flight and that a step is broken.

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct StepInFlightAndBrokenMarkTests {
    /// Two steps on a gated value, "One" and "Two".
    private func twoSteps(shape: ActionStack.HistoryShape = .linear) async throws -> (ActionStack, Gate, RemoteValue) {
        let stack = makeAsyncStack()
        stack.historyShape = shape
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")
        try await remote.change(to: 2, on: stack, named: "Two")
        return (stack, gate, remote)
    }

    @Test func theStepBeingUndoneIsMarkedInFlightInTheEntriesAndTheState() async throws {
        let (stack, gate, remote) = try await twoSteps()
        defer { withExtendedLifetime(remote) {} }
        #expect(stack.undoEntries.map(\.isInFlight) == [false, false])
        #expect(!stack.state.isUndoInFlight && !stack.state.isRedoInFlight)
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        #expect(stack.undoEntries.map(\.actionName) == ["Two", "One"])
        #expect(stack.undoEntries.map(\.isInFlight) == [true, false])
        #expect(stack.undoEntries.map(\.isBroken) == [false, false])
        #expect(stack.state.isUndoInFlight && !stack.state.isRedoInFlight && stack.state.isBusy)
        gate.openForGood()
        #expect(try await undo.value)
        #expect(stack.undoEntries.map(\.isInFlight) == [false])
        #expect(stack.redoEntries.map(\.isInFlight) == [false])
        #expect(!stack.state.isUndoInFlight)
    }

    @Test func theStepBeingRedoneIsMarkedInFlight() async throws {
        let (stack, gate, remote) = try await twoSteps()
        defer { withExtendedLifetime(remote) {} }
        gate.isClosed = false
        try await stack.performUndo()
        gate.isClosed = true
        let redo = Task { @MainActor in try await stack.performRedo() }
        await settle { gate.waitingCount == 1 }
        #expect(stack.redoEntries.map(\.isInFlight) == [true])
        #expect(stack.undoEntries.map(\.isInFlight) == [false])
        #expect(stack.state.isRedoInFlight && !stack.state.isUndoInFlight)
        gate.openForGood()
        #expect(try await redo.value)
        #expect(!stack.state.isRedoInFlight)
    }

    @Test func aNewChangeMadeMeanwhileIsNotTheOneInFlight() async throws {
        let (stack, gate, remote) = try await twoSteps()
        defer { withExtendedLifetime(remote) {} }
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let other = RemoteValue("other")
        try await other.change(to: 3, on: stack, named: "Other")
        #expect(stack.undoEntries.map(\.actionName) == ["Other", "Two", "One"])
        #expect(stack.undoEntries.map(\.isInFlight) == [false, true, false])
        gate.openForGood()
        #expect(try await undo.value)
    }

    @Test func theBrokenStepIsMarkedUntilItIsDiscarded() async throws {
        let stack = makeAsyncStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        stack.beginUndoGrouping()
        try await a.set(1, on: stack)
        try await b.set(1, on: stack)
        stack.setActionName("Both")
        stack.endUndoGrouping()
        let c = RemoteValue("c")
        try await c.change(to: 1, on: stack, named: "Before")
        try await stack.performUndo()
        // Undoing "Both" fails at a, and the rollback of b fails too: the step is broken.
        a.refused = [0]
        b.refused = [1]
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        #expect(stack.brokenStep?.stepName == "Both")
        #expect(stack.undoEntries.map(\.isBroken) == [true])
        #expect(stack.undoEntries.map(\.isInFlight) == [false])
        #expect(stack.redoEntries.map(\.isBroken) == [false])
        #expect(stack.state.hasBrokenStep)
        // A new change above it: the broken step is still marked where it is.
        let d = RemoteValue("d")
        try await d.change(to: 1, on: stack, named: "After")
        #expect(stack.undoEntries.map(\.actionName) == ["After", "Both"])
        #expect(stack.undoEntries.map(\.isBroken) == [false, true])
        stack.discardBrokenStep()
        #expect(!stack.undoEntries.map(\.isBroken).contains(true))
        #expect(!stack.state.hasBrokenStep)
    }

    @Test func theTreeMarksTheNodeOfTheStepInFlight() async throws {
        let (stack, gate, remote) = try await twoSteps(shape: .tree)
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        var tree = try #require(stack.historyTree)
        #expect(tree.nodes.filter(\.isInFlight).map(\.sequence) == [2])
        #expect(!tree.nodes.map(\.isBroken).contains(true))
        gate.openForGood()
        #expect(try await undo.value)
        tree = try #require(stack.historyTree)
        #expect(!tree.nodes.map(\.isInFlight).contains(true))
        // A redo in flight marks the node it leads to.
        gate.isClosed = true
        _ = remote
        let redo = Task { @MainActor in try await stack.performRedo() }
        await settle { gate.waitingCount == 1 }
        tree = try #require(stack.historyTree)
        #expect(tree.nodes.filter(\.isInFlight).map(\.sequence) == [2])
        gate.openForGood()
        #expect(try await redo.value)
    }

    @Test func theTreeMarksTheBrokenStepsNode() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        stack.beginUndoGrouping()
        try await a.set(1, on: stack)
        try await b.set(1, on: stack)
        stack.setActionName("Both")
        stack.endUndoGrouping()
        a.refused = [0]
        b.refused = [1]
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.filter(\.isBroken).map(\.sequence) == [1])
    }

    @Test func theStateTellsObserversWhenAStepIsInFlight() async throws {
        let (stack, gate, remote) = try await twoSteps()
        defer { withExtendedLifetime(remote) {} }
        var inFlight: [Bool] = []
        let token = stack.observe { inFlight.append($0.isUndoInFlight) }
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        gate.openForGood()
        #expect(try await undo.value)
        withExtendedLifetime(token) {}
        #expect(inFlight == [true, false])
    }
}
