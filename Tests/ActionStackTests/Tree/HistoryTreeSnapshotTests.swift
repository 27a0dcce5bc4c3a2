// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Testing

/// What ``ActionStack/historyTree`` lists when branches leave from nodes of other branches.
struct HistoryTreeSnapshotTests {
    @Test func aBranchThatLeavesFromANodeOfAnotherBranchIsListed() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        // 1, then 2 left behind by 3; 4 left behind by 5 (so 4 leaves from 3).
        document.set("a")
        document.set("ab")
        stack.undo()
        document.set("aX")
        document.set("aXc")
        stack.undo()
        document.set("aXY")
        // Back to 1, then a change: the path 3-5 becomes a branch of 1, and 4 still leaves from 3.
        stack.undo()
        stack.undo()
        document.set("aZ")
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3, 4, 5, 6])
        #expect(tree[node(3)]?.children == [node(4), node(5)])
        #expect(tree[node(4)]?.parent == node(3))
        #expect(tree.leaves.map(\.sequence) == [2, 4, 5, 6])
        try stack.jump(toNode: node(4))
        #expect(document.text == "aXc")
    }
}
