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

// Limits (`levelsOfUndo`, `maximumCost`, `maximumBranchSteps`) and a change of `historyShape` set
// while an awaited request runs wait until the whole request has ended, a jump included: nothing is
// trimmed between the steps of a jump (issue 28, item 5).

@MainActor
@Suite(.serialized, .timeLimit(.minutes(5))) struct AsyncLimitTests {
    /// Five steps on one gated value, 1 to 5.
    private func fiveSteps() async throws -> (ActionStack, Gate, RemoteValue) {
        let stack = makeAsyncStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...5 { try await remote.change(to: value, on: stack, named: "\(value)") }
        return (stack, gate, remote)
    }

    @Test func levelsOfUndoSetDuringAJumpWaitForTheWholeJump() async throws {
        // The sequence: a jump to 2 over five steps; while the second step awaits,
        // levelsOfUndo = 1.
        let (stack, gate, remote) = try await fiveSteps()
        let jump = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performJump(to: 2) }
        }
        await settle { gate.waitingCount == 1 }
        gate.openOne()
        await settle { remote.value == 4 && gate.waitingCount == 1 }
        stack.levelsOfUndo = 1
        // Nothing is trimmed while the jump runs.
        #expect(stack.undoCount == 4)
        gate.openForGood()
        #expect(probeTag(await jump.value) == "ok(true)")
        // The jump reached position 2, then the limit applied.
        #expect(remote.value == 2)
        #expect(stack.redoEntries.map(\.actionName) == ["3", "4", "5"])
        #expect(stack.undoEntries.map(\.actionName) == ["2"])
    }

    @Test func maximumCostSetDuringAJumpWaitsForTheWholeJump() async throws {
        let stack = makeAsyncStack()
        let counter = Counter()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        // A synchronous action of cost 10 whose inverse costs 10 too.
        func costly(_ counter: Counter) {
            stack.registerUndo(withTarget: counter, options: .init(cost: 10)) { costly($0) }
        }
        // Five steps of cost 10, each with an asynchronous action that waits at the gate.
        gate.isClosed = false
        for value in 1...5 {
            stack.beginUndoGrouping()
            costly(counter)
            try await remote.set(value, on: stack)
            stack.setActionName("\(value)")
            stack.endUndoGrouping()
        }
        gate.isClosed = true
        let jump = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performJump(to: 1) }
        }
        await settle { gate.waitingCount == 1 }
        gate.openOne()
        await settle { gate.waitingCount == 1 && remote.value == 4 }
        stack.maximumCost = 10
        #expect(stack.undoCount == 4)
        gate.openForGood()
        #expect(probeTag(await jump.value) == "ok(true)")
        // The jump undid four steps; the undo stack then kept what its cost allows.
        #expect(remote.value == 1)
        #expect(stack.redoCount == 4)
        #expect(stack.undoEntries.map(\.actionName) == ["1"])
    }

    @Test func aLimitSetWhileARequestWaitsBehindAnotherAppliesBetweenThem() async throws {
        let (stack, gate, remote) = try await fiveSteps()
        let first = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        // Touched on the main actor only, by the test and its observer.
        nonisolated(unsafe) var countsWhenTheSecondStarted: (undo: Int, redo: Int)?
        let token = observe(ActionStack.willRedoChangeNotification, of: stack) { stack in
            if countsWhenTheSecondStarted == nil { countsWhenTheSecondStarted = (stack.undoCount, stack.redoCount) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let second = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo() }
        }
        await settle { stack.pendingRequestCount == 1 }
        stack.levelsOfUndo = 2
        #expect(stack.undoCount == 5)
        gate.openForGood()
        #expect(probeTag(await first.value) == "ok(true)")
        #expect(probeTag(await second.value) == "ok(true)")
        // The first request ended, the limit applied, then the second started.
        #expect(countsWhenTheSecondStarted?.undo == 2 && countsWhenTheSecondStarted?.redo == 1)
        #expect(remote.value == 5 && stack.undoCount == 2)
    }

    @Test func maximumBranchStepsSetDuringATreeJumpWaitsForTheWholeMove() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        // 0 ─ 1 ─ 2 ─ 3, and a branch 1 ─ 4 ─ 5.
        for value in 1...3 { try await remote.change(to: value, on: stack, named: "\(value)") }
        gate.openForGood()
        try await stack.performJump(to: 1)
        for value in [4, 5] { try await remote.change(to: value, on: stack, named: "\(value)") }
        gate.isClosed = true
        let move = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in
                try await stack.performJump(toNode: .init(sequence: 3))
            }
        }
        await settle { gate.waitingCount == 1 }
        // The branch the move enters (2 ─ 3) holds more than the limit: nothing is pruned while the
        // move runs, or its target would go.
        stack.maximumBranchSteps = 1
        gate.openForGood()
        #expect(probeTag(await move.value) == "ok(true)")
        #expect(remote.value == 3 && stack.currentNode == .init(sequence: 3))
        // Then the limit applied: the branch left (4 ─ 5) keeps one step.
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence).sorted() == [0, 1, 2, 3, 4])
    }

    @Test func aShapeChangeDuringAJumpWaitsForTheWholeJump() async throws {
        let (stack, gate, remote) = try await fiveSteps()
        let jump = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performJump(to: 2) }
        }
        await settle { gate.waitingCount == 1 }
        stack.historyShape = .tree
        #expect(stack.historyShape == .linear)
        gate.openForGood()
        #expect(probeTag(await jump.value) == "ok(true)")
        #expect(remote.value == 2)
        #expect(stack.historyShape == .tree)
        #expect(stack.currentNode == .init(sequence: 2))
    }
}
