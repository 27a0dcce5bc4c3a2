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

// History entries in a branching history: the undo and redo entries are the current path, and each
// carries its node.

struct BranchingHistoryEntryTests {
    @Test func undoAndRedoEntriesAreTheCurrentPath() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        for name in ["a", "b", "c"] { document.append(name) }  // 1, 2, 3
        stack.undo()
        stack.undo()
        document.append("d")  // 4
        document.append("e")  // 5
        stack.undo()
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,4] 2:[3] 3:[] *4:[5] 5:[]")
        #expect(stack.undoEntries.map(\.actionName) == ["d", "a"])
        #expect(stack.redoEntries.map(\.actionName) == ["e"])
        #expect(stack.redoEntries.map(\.title) == ["Redo e"])
        #expect(stack.historyPosition == 2)

        try stack.jump(toNode: node(3))
        #expect(stack.undoEntries.map(\.actionName) == ["c", "b", "a"])
        #expect(stack.redoEntries.map(\.actionName) == [])

        try stack.jump(toNode: node(1))
        #expect(stack.undoEntries.map(\.actionName) == ["a"])
        #expect(stack.redoEntries.map(\.actionName) == ["b", "c"], "the branch entered last")
        try stack.selectRedoBranch(node(4))
        #expect(stack.redoEntries.map(\.actionName) == ["d", "e"])

        // The position jump walks the current path.
        stack.jump(to: 3)
        #expect(stack.currentNode == node(5))
        #expect(document.text == "ade")

        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.title) == ["", "Undo a", "Redo b", "Redo c", "Undo d", "Undo e"])
        #expect(tree.nodes.map(\.isOnCurrentPath) == [true, true, false, false, true, true])
        #expect(tree.nodes.map { $0.redoChild?.sequence } == [1, 4, 3, nil, 5, nil])
    }

    @Test func historyEntriesCarryTheirNodes() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        try stack.jump(toNode: node(2))
        #expect(stack.undoEntries.map(\.node) == [node(2), node(1)])
        #expect(stack.redoEntries.map(\.node) == [node(3)])
        stack.beginUndoGrouping()
        doc.replace(with: "open")
        #expect(stack.undoEntries.first?.isOpen == true)
        #expect(stack.undoEntries.first?.node == nil)
        stack.endUndoGrouping()
        #expect(stack.undoEntries.first?.node == node(5))
        // jump(to:) works on the current path.
        stack.jump(to: 0)
        #expect(stack.currentNode == node(0))
        #expect(stack.redoEntries.map(\.node) == [node(1), node(2), node(5)])
    }
}
