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

// Asynchronous steps in a branching history: a move across branches is one queued request whose
// steps are operations of their own.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncBranchingTests {
    /// 0 -> 1 -> 2, and 1 -> 3: the async tree these tests walk.
    func makeTree() async throws -> (ActionStack, RemoteValue) { try await makeAsyncTree() }

    @Test func aChangeAfterAnAsyncUndoKeepsTheUndoneStepAsABranch() async throws {
        let (stack, remote) = try await makeTree()
        let tree = try #require(stack.historyTree)
        #expect(tree[node(1)]?.children == [node(2), node(3)])
        #expect(remote.value == 3)
        stack._checkInvariants()
    }

    @Test func performJumpToNodeCrossesBranchesStepByStep() async throws {
        let (stack, remote) = try await makeTree()
        let log = OperationLog(stack)
        #expect(try await stack.performJump(toNode: node(2)))
        #expect(remote.value == 2)
        #expect(stack.currentNode == node(2))
        #expect(log.events == ["willUndo", "didUndo", "willRedo", "didRedo"])
        #expect(try await stack.performJump(toNode: node(0)))
        #expect(remote.value == 0)
        #expect(try await stack.performJump(toNode: node(0)) == false, "the current node: nothing to do")
        stack._checkInvariants()
    }

    @Test func aFailingStepStopsTheMoveAtTheLastNodeReached() async throws {
        let (stack, remote) = try await makeTree()
        // Redoing 2 writes 2 again: the server refuses it now.
        remote.refused = [2]
        do {
            try await stack.performJump(toNode: node(2))
            Issue.record("the move should fail")
        } catch {
            let failure = try #require(error.actionFailure, "\(error)")
            #expect(failure.reachedNode == node(1), "it stopped at the fork, after the undo of 3")
            #expect(failure.isUndo == false)
        }
        #expect(stack.currentNode == node(1))
        #expect(remote.value == 1)
        remote.refused = []
        #expect(try await stack.performJump(toNode: node(2)))
        #expect(remote.value == 2)
        stack._checkInvariants()
    }

    @Test func aMoveInALinearHistoryOrToAMissingNodeRunsNothing() async throws {
        let stack = makeAsyncStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performJump(toNode: node(0)) }
        #expect(remote.value == 1)
        stack.historyShape = .tree
        do {
            try await stack.performJump(toNode: node(99))
            Issue.record("the move should fail")
        } catch {
            #expect(error.historyTreeError == .noSuchNode(node(99)))
        }
        #expect(remote.value == 1)
    }

    @Test func theSynchronousJumpOnTheMainActorStartsOneRequestForAsyncSteps() async throws {
        let (stack, remote) = try await makeTree()
        try stack.jump(toNode: node(2))
        #expect(stack.isBusy, "the move runs as a request")
        await settle { !stack.isBusy }
        #expect(remote.value == 2)
        #expect(stack.currentNode == node(2))
        #expect(try stack.earlier(3) == node(0), "a time move names the node the request will reach")
        await settle { !stack.isBusy }
        #expect(remote.value == 0)
        stack._checkInvariants()
    }

    @Test func aForeignChangeDuringAnAsyncUndoHangsTheUndoneStepAsABranch() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let other = Counter("other")
        try await remote.change(to: 1, on: stack, named: "One")
        let undo = Task { try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        // Another change while the undo awaits: a new step that goes on top of where it lands.
        stack.beginUndoGrouping()
        other.set(5, on: stack)
        stack.endUndoGrouping()
        gate.openForGood()
        _ = try await undo.value
        #expect(remote.value == 0)
        let tree = try #require(stack.historyTree)
        #expect(tree[node(0)]?.children == [node(1), node(2)], "the undone step is a branch of the root")
        #expect(tree.current == node(2))
        try await stack.performJump(toNode: node(1))
        #expect(remote.value == 1)
        #expect(other.value == 0)
        stack._checkInvariants()
    }

    @MainActor @Test func asyncFailingStepStopsAtTheLastNodeReached() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack, named: "One")  // 1
        try await remote.change(to: 2, on: stack, named: "Two")  // 2
        try await remote.change(to: 3, on: stack, named: "Three")  // 3
        try await stack.performUndo()
        try await stack.performUndo()
        try await remote.change(to: 4, on: stack, named: "Four")  // 4, child of 1
        remote.refused = [3]  // the redo 2 -> 3 fails
        do {
            try await stack.performJump(toNode: node(3))
            Issue.record("should fail")
        } catch {
            if let failure = error.actionFailure {
                #expect(failure.reachedNode == node(2))
            } else {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(stack.currentNode == node(2))
        #expect(remote.value == 2)
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 3, 4], "no node lost")
        remote.refused = []
        #expect(try await stack.performJump(toNode: node(3)))
        #expect(remote.value == 3)
        #expect(try await stack.performJump(toNode: node(4)))
        #expect(remote.value == 4)
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performJump(toNode: node(50)) }
        stack._checkInvariants()
    }

    @MainActor @Test func changeWhileAnAsyncUndoAwaitsKeepsTheBranch() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")  // 1
        try await remote.change(to: 2, on: stack, named: "Two")  // 2
        let undo = Task { try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        // Another task (here: the test) makes a change while the undo awaits.
        let other = Counter("other")
        stack.beginUndoGrouping()
        other.set(7, on: stack)
        stack.setActionName("Other")
        stack.endUndoGrouping()
        gate.openForGood()
        _ = try? await undo.value
        let tree = try #require(stack.historyTree)
        // The undone step "Two" must survive as a branch (the docs' promise).
        #expect(tree.nodes.contains { $0.actionName == "Two" })
        #expect(tree[tree.current] != nil)
        // Every node reachable, and the document matches the node after jumps.
        for leaf in tree.leaves {
            try await stack.performJump(toNode: leaf.id)
            #expect(stack.currentNode == leaf.id)
        }
        stack._checkInvariants()
    }

    @MainActor @Test func syncJumpOnMainActorStartsARequest() async throws {
        let (stack, remote) = try await makeAsyncTree()
        try stack.jump(toNode: node(2))
        #expect(stack.startedRequest != nil)
        #expect(stack.lastMisuse == nil)
        await settle(until: { stack.currentNode == node(2) && !stack.state.isBusy })
        #expect(stack.currentNode == node(2))
        #expect(remote.value == 2)
        // selectRedoBranch while an operation is queued is notWhileAsync.
        try stack.jump(toNode: node(0))
        try stack.selectRedoBranch(node(1))
        #expect(stack.lastMisuse == .notWhileAsync(.selectRedoBranch) || stack.lastMisuse == nil)
        await settle(until: { !stack.state.isBusy })
        #expect(remote.value == 0)
    }

    @MainActor @Test func changeDuringAnAsyncJumpEndsItAfterTheStep() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")  // 1
        try await remote.change(to: 2, on: stack, named: "Two")  // 2
        try await remote.change(to: 3, on: stack, named: "Three")  // 3
        gate.isClosed = false
        try await stack.performUndo()
        try await stack.performUndo()
        try await stack.performUndo()
        try await remote.change(to: 9, on: stack, named: "Nine")  // 4, child of 0
        gate.isClosed = true
        let jump = Task { try await stack.performJump(toNode: node(3)) }
        await settle(until: { gate.waitingCount == 1 })  // undoing 4
        let other = Counter("other")
        group(stack, named: "Other") { other.set(7, on: stack) }
        gate.openForGood()
        let moved = try? await jump.value
        #expect(moved == true)
        await settle(until: { !stack.state.isBusy })
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.contains { $0.actionName == "Three" }, "no branch lost")
        #expect(tree.nodes.contains { $0.actionName == "Nine" })
        #expect(tree.nodes.contains { $0.actionName == "Other" })
        #expect(stack.currentNode != node(3), "the move ended after the step in flight")
        stack._checkInvariants()
        // Every leaf still reachable, and the remote value matches.
        for leaf in tree.leaves where leaf.actionName != "Other" {
            try await stack.performJump(toNode: leaf.id)
            #expect(stack.currentNode == leaf.id)
        }
    }
}
