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
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncLimitTests {
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

    @Test
    func levelsOfUndoSetDuringAnAwaitTrimsOnlyWhenTheOperationSettles() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...3 { try await remote.change(to: value, on: stack, named: "S\(value)") }
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.levelsOfUndo = 1
        #expect(stack.undoCount == 3)
        #expect(stack.undoMenuItemTitle == "Undo S3")
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(stack.undoCount <= 1)
        #expect(remote.value == 2)
        #expect(try await stack.performRedo())
        #expect(remote.value == 3)
    }

    @Test
    func maximumCostSetDuringAnAwaitTrimsOnlyWhenTheOperationSettles() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let counter = Counter()
        for value in 1...3 {
            stack.beginUndoGrouping()
            stack.registerUndo(withTarget: counter, options: .cost(10)) { $0.value = value - 1 }
            let saved = remote.gate
            remote.gate = nil
            try await remote.set(value, on: stack)
            remote.gate = saved
            stack.endUndoGrouping()
        }
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.maximumCost = 5
        #expect(stack.undoCount == 3)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(remote.value == 2)
    }

    @Test func levelsOfUndoOneWithARedoInFlightAndAForeignChangeKeepsTheNewestStep() async throws {
        let stack = makeStack()
        stack.levelsOfUndo = 1
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        gate.openForGood()
        try await stack.performUndo()
        gate.isClosed = true
        let redo = Task { @MainActor in try await stack.performRedo() }
        await settle { gate.waitingCount == 1 }
        let counter = Counter()
        group(stack, named: "Foreign") { counter.set(5, on: stack) }
        gate.openForGood()
        #expect(try await redo.value)
        #expect(remote.value == 1 && counter.value == 5)
        #expect(stack.undoCount == 1 && stack.redoCount == 0 && stack.undoMenuItemTitle == "Undo Foreign")
        #expect(try await stack.performUndo())
        #expect(counter.value == 0 && remote.value == 1 && !stack.canUndo)
    }

    @Test func maximumCostCountsTheCostedInverseARedoRegisters() async throws {
        func run(asynchronous: Bool) async throws -> (Int, Int) {
            let stack = makeStack()
            stack.maximumCost = 15
            let counter = Counter()
            stack.beginUndoGrouping()
            stack.registerUndo(withTarget: counter, options: .cost(10)) { _ in }
            stack.endUndoGrouping()
            func costly(_ counter: Counter) {
                stack.registerUndo(withTarget: counter, options: .cost(10)) { costly($0) }
            }
            stack.beginUndoGrouping()
            if asynchronous {
                stack.registerAsyncUndo(withTarget: counter) { costly($0) }
            } else {
                costly(counter)
            }
            stack.endUndoGrouping()
            try await stack.performUndo()
            try await stack.performRedo()
            return (stack.undoCount, stack.redoCount)
        }
        let asynchronous = try await run(asynchronous: true)
        let synchronous = try await run(asynchronous: false)
        #expect(asynchronous == synchronous)
        #expect(asynchronous == (1, 0))
    }

    @Test func dropsEmptyGroupsTreatsAnEmptyOppositeStepAsASynchronousUndoDoes() async throws {
        func run(asynchronous: Bool) async throws -> (Int, Int, Bool) {
            let stack = makeStack(dropsEmptyGroups: true)
            let counter = Counter()
            stack.beginUndoGrouping()
            if asynchronous {
                stack.registerAsyncUndo(withTarget: counter) { counter in counter.value = 0 }
            } else {
                stack.registerUndo(withTarget: counter) { counter in counter.value = 0 }
            }
            stack.endUndoGrouping()
            try await stack.performUndo()
            return (stack.undoCount, stack.redoCount, stack.canRedo)
        }
        let asynchronous = try await run(asynchronous: true)
        let synchronous = try await run(asynchronous: false)
        #expect(asynchronous == synchronous)
    }
}
