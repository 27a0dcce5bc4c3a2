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

// `removeAllActions(withTarget:)` during an operation: the target's actions go from every step, the
// step in flight and the one being built included, and nothing the operation registers for that
// target afterwards is kept: a step the removal emptied never comes back on the other side (issue 28,
// item 6).

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncTargetRemovalTests {
    @Test func anInverseRegisteredAfterTheRemovalDoesNotBringTheStepBack() async throws {
        // The sequence: a one-action step on e; while its action awaits, the removal; the
        // handler then registers its inverse on e.
        let stack = makeAsyncStack()
        let gate = Gate()
        let e = RemoteValue("e", gate: gate)
        try await e.change(to: 1, on: stack, named: "E")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: e)
        #expect(stack.undoCount == 0)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        // The action ran (the server did it), and nothing of e is left anywhere.
        #expect(e.value == 0)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        #expect(!stack.canRedo && stack.redoEntries.isEmpty)
    }

    @Test func theOtherTargetsOfTheStepBuildTheOppositeStep() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let e = RemoteValue("e", gate: gate)
        let f = RemoteValue("f")
        stack.beginUndoGrouping()
        try await f.set(1, on: stack)
        e.gate = nil
        try await e.set(1, on: stack)
        e.gate = gate
        stack.setActionName("Both")
        stack.endUndoGrouping()
        // Undo runs e's inverse first (it waits), then f's.
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: e)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(e.value == 0 && f.value == 0)
        #expect(stack.redoEntries.map(\.actionName) == ["Both"])
        #expect(stack.redoEntries.map(\.actionCount) == [1])
        #expect(try await stack.performRedo())
        // Only f's change is redone: e's actions were removed.
        #expect(f.value == 1 && e.value == 0)
    }

    @Test func anInverseRegisteredBeforeTheRemovalIsRemovedToo() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let e = RemoteValue("e")
        let waiter = Probe()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: waiter) { _ in await gate.pass() }
        try await e.set(1, on: stack)
        stack.endUndoGrouping()
        // e's inverse runs first and registers at once; then the waiter's action waits.
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        #expect(e.value == 0)
        stack.removeAllActions(withTarget: e)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(stack.redoCount == 0)
    }

    @Test func aRedoDoesNotBringARemovedTargetsStepBackEither() async throws {
        let stack = makeAsyncStack()
        let gate = Gate()
        let e = RemoteValue("e", gate: gate)
        gate.isClosed = false
        try await e.change(to: 1, on: stack, named: "E")
        try await stack.performUndo()
        gate.isClosed = true
        let redo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: e)
        gate.openForGood()
        #expect(probeTag(await redo.value) == "ok(true)")
        #expect(e.value == 1)
        // The step the removal emptied is gone: no do-nothing step stands in for it.
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        #expect(!stack.canUndo)
    }

    @Test func anotherTaskMayRegisterForTheRemovedTargetAgain() async throws {
        // The removal ends what the operation registers for the target, not the target's future.
        let stack = makeAsyncStack()
        let gate = Gate()
        let e = RemoteValue("e", gate: gate)
        try await e.change(to: 1, on: stack, named: "E")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: e)
        try await e.change(to: 7, on: stack, named: "Again")
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(stack.undoEntries.map(\.actionName) == ["Again"])
        #expect(stack.redoCount == 0)
    }

    @Test func removingTheTargetOfAnActionNotYetRunSkipsIt() async throws {
        let stack = makeStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        try await probeStep(stack, [a, b], to: 1, named: "Both")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: a)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(a.value == 1 && a.writes == [1])
        #expect(b.value == 0)
        #expect(try await stack.performRedo())
        #expect(b.value == 1 && a.writes == [1])
    }

    @Test func removingTheTargetOfTheActionInFlightKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let gate = Gate()
        let a = RemoteValue("a")
        let b = RemoteValue("b", gate: gate)
        try await probeStep(stack, [a, b], to: 1, named: "Both")
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.removeAllActions(withTarget: b)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(a.value == 0)
        #expect(stack.undoCount == 0)
        _ = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        #expect(a.value == 1)
    }
}
