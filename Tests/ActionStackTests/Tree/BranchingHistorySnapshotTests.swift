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

/// `historyTree` holds every node of the tree, however deep the branches nest.
struct BranchingHistorySnapshotTests {
    /// A branch that leaves from a node of another branch (not of the current path) is in the
    /// snapshot. (It was left out when its anchor's branch was read in the same round as it: the
    /// nodes were still in the tree, and `jump(toNode:)` reached them, but the snapshot listed them
    /// as children of their parent without holding them.)
    @Test func aBranchThatLeavesFromAnotherBranchIsInTheSnapshot() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        document.set("a")  // node 1
        document.set("ab")  // node 2
        stack.undo()
        document.set("aX")  // node 3: node 1 has two children, and the branch to 2 leaves from 1
        stack.undo()
        stack.undo()
        // Node 4: the redo stack (1, 3) becomes a branch from the root; the branch to 2 still
        // leaves from node 1, now off the current path.
        document.set("Y")
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(tree[node(1)]?.children == [node(2), node(3)])
        #expect(tree[node(2)]?.parent == node(1))
        #expect(tree[node(2)]?.title == "Redo Edit")
        for parent in tree.nodes {
            for child in parent.children { #expect(tree[child] != nil, "node \(child), a child of \(parent.id)") }
        }
        #expect(tree.leaves.map(\.id) == [node(2), node(3), node(4)])
        try stack.jump(toNode: node(2))
        #expect(document.text == "ab")
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 3, 4])
        stack._checkInvariants()
    }

    /// Branches nested three deep, all off the current path, each found.
    @Test func branchesNestedDeepOffTheCurrentPathAreInTheSnapshot() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        document.set("1")  // node 1
        document.set("2")  // node 2
        document.set("3")  // node 3
        stack.undo()
        document.set("4")  // node 4, from 2
        stack.undo()
        stack.undo()
        document.set("5")  // node 5, from 1
        stack.undo()
        stack.undo()
        document.set("6")  // node 6, from the root
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3, 4, 5, 6])
        #expect(tree.nodes.map { $0.parent?.sequence ?? -1 } == [-1, 0, 1, 2, 2, 1, 0])
        for number in 1...5 {
            try stack.jump(toNode: node(number))
            #expect(document.text == String(number))
            #expect(stack.historyTree?.nodes.count == 7, "at node \(number)")
        }
        stack._checkInvariants()
    }

    @Test func snapshotFields() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        try stack.jump(toNode: node(1))
        // Current 1; redo child 4 (entered last by the change); branch 2 -> 3.
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(tree.root == node(0) && tree.current == node(1) && tree.newest == node(4))
        #expect(tree[node(0)]?.parent == nil && tree[node(0)]?.title == "" && tree[node(0)]?.actionName == "")
        #expect(tree[node(1)]?.children == [node(2), node(4)])
        #expect(tree[node(1)]?.redoChild == node(4))
        #expect(tree[node(2)]?.redoChild == node(3))
        #expect(tree[node(1)]?.title == "Undo A")
        #expect(tree[node(4)]?.title == "Redo X")
        #expect(tree[node(2)]?.title == "Redo B")
        #expect(tree[node(3)]?.title == "Redo C")
        #expect(tree.nodes.filter(\.isOnCurrentPath).map(\.sequence) == [0, 1, 4])
        #expect(tree.nodes.filter(\.isCurrent).map(\.sequence) == [1])
        #expect(tree.leaves.map(\.sequence) == [3, 4])
        #expect(tree.path(to: node(3)).map(\.sequence) == [0, 1, 2, 3])
        #expect(tree.path(to: node(77)).isEmpty)
        #expect(tree[node(3)]?.actionCount == 1)
        #expect(tree[node(3)]?.date == Date(timeIntervalSinceReferenceDate: 1_000_030))
        #expect(tree.clean == node(0), "a new stack is clean at its start")
    }

    @Test func snapshotReadFromAHandlerMidJump() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let probe = Counter("probe")
        var seen: ActionStack.HistoryTree?
        func arm() {
            stack.registerUndo(withTarget: probe) { _ in
                seen = stack.historyTree
                arm()
            }
        }
        group(stack) { arm() }  // 5
        try stack.jump(toNode: node(3))
        let mid = try #require(seen)
        // Documented (historyTree): read mid-operation, the step in flight is not in the snapshot.
        #expect(mid.nodes.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(mid.current == node(4) || mid.current == node(5))
        #expect(mid[mid.current] != nil)
        #expect(doc.text == "abc")
    }
}
