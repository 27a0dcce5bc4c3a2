// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

// The clean state in a branching history: the node marked clean, on any branch, is clean again
// after every move that reaches it, and once it is pruned no node is clean.

struct BranchingCleanStateTests {
    @Test func aCleanNodeOnAnotherBranchIsExactAfterEveryMove() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.markClean()
        stack.undo()
        document.set("ac")  // 3
        stack.undo()
        stack.undo()
        document.set("x")  // 4
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[2,3] 2:[] 3:[] *4:[]")
        #expect(!stack.isClean)
        for target in [2, 0, 3, 1, 2, 4, 2] {
            try stack.jump(toNode: node(target))
            #expect(stack.isClean == (target == 2), "at node \(target)")
            #expect(stack.state.isClean == (target == 2))
            let tree = try #require(stack.historyTree)
            #expect(tree.clean == node(2), "the clean node is known from anywhere (at \(target))")
            #expect(tree.nodes.filter(\.isClean).map(\.sequence) == [2])
        }
        // Time moves too: 2 -> 1 -> 0, then forward 1 -> 2.
        try stack.earlier()
        #expect(!stack.isClean)
        try stack.later()
        #expect(stack.isClean)
        // A change from the clean node is not clean; coming back is.
        document.set("abd")  // 5, child of 2
        #expect(!stack.isClean)
        stack.undo()
        #expect(stack.isClean)
        #expect(stack.historyTree?.clean == node(2))
        stack._checkInvariants()
    }

    @Test func aCleanRootIsCleanAgainAfterMovesThroughBranches() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        stack.markClean()
        document.set("a")
        stack.undo()
        document.set("b")
        document.set("bc")
        #expect(stack.historyTree?.clean == node(0))
        try stack.jump(toNode: node(1))
        #expect(!stack.isClean)
        #expect(try stack.earlier(100) == node(0))
        #expect(stack.isClean)
        #expect(try stack.later(by: .seconds(1)) == node(3))
        #expect(!stack.isClean)
    }

    @Test func aCleanNodeThatIsPrunedLeavesNoCleanNode() throws {
        let stack = makeTreeStack()
        stack.maximumBranchSteps = 1
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.markClean()
        stack.undo()
        stack.undo()
        document.set("x")  // 3: the branch [1, 2] is cut to [1]
        #expect(shape(stack.historyTree) == "0:[1,3] 1:[] *3:[]")
        #expect(stack.historyTree?.clean == nil)
        for target in [1, 0, 3] {
            try stack.jump(toNode: node(target))
            #expect(!stack.isClean)
        }
    }

    @Test func cleanMarkerOnAnyNode() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        try stack.jump(toNode: node(3))
        stack.markClean()
        #expect(stack.isClean)
        try stack.jump(toNode: node(4))
        #expect(stack.isClean == false)
        try stack.jump(toNode: node(2))
        #expect(stack.isClean == false)
        #expect(try stack.later() == node(3))
        #expect(stack.isClean)
        #expect(stack.historyTree?.clean == node(3))
        #expect(stack.historyTree?.nodes.filter(\.isClean).map(\.sequence) == [3])
        try stack.jump(toNode: node(0))
        #expect(stack.isClean == false)
        stack.markClean()
        #expect(stack.historyTree?.clean == node(0))
        try stack.jump(toNode: node(3))
        #expect(stack.isClean == false)
    }

    @Test func cleanNodePrunedIsNeverCleanAgain() throws {
        let (stack, doc, _) = htTree()
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B")  // 2
        stack.markClean()
        stack.undo()
        doc.set("ac", named: "C")  // 3: clean node 2 is in a branch
        stack.maximumBranchSteps = 1
        stack.maximumBranchSteps = 0
        doc.set("a", named: "again")  // same text as node 1 but not clean
        #expect(stack.historyTree?.clean == node(2))
        stack.maximumBranchSteps = 1
        // Branches: 2 (from 1). Off-path steps: 1. Nothing pruned.
        stack.undo()
        doc.set("q", named: "Q")  // 5: branch 4 now off path too -> 2 steps > 1: least recent goes
        let tree = try #require(stack.historyTree)
        if tree[node(2)] == nil { #expect(tree.clean == nil) }
        #expect(stack.isClean == false)
    }
}
