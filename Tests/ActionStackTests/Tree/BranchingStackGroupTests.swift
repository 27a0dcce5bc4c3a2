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

// Stack groups over branching histories: a group acts on the tree of its active stack, switches
// whatever the stacks' shapes, and hears a redo choice.

struct BranchingStackGroupTests {
    @Test func aStackGroupActsOnTheTreeOfItsActiveStack() throws {
        let stack = makeTreeStack()
        let other = makeStack()
        let edit = ActionStackGroup()
        edit.add(other)
        edit.activeStack = stack
        var heard: [ActionStack.State?] = []
        let token = edit.observe { heard.append($0) }
        let document = TreeDoc(stack: stack)
        document.set("a", named: "A")  // 1
        document.set("ab", named: "B")  // 2
        stack.markClean()
        stack.undo()
        document.set("ac", named: "C")  // 3
        #expect(!edit.isClean)
        heard = []

        try stack.jump(toNode: node(2))
        #expect(heard.count == 1, "one state for the whole jump")
        #expect(heard.first??.currentNode == node(2))
        #expect(heard.first??.isClean == true)
        #expect(edit.isClean)
        #expect(edit.undoMenuItemTitle == "Undo B")

        edit.undo()
        #expect(document.text == "a")
        #expect(edit.redoMenuItemTitle == "Redo B", "redo follows the branch entered last")
        try stack.selectRedoBranch(node(3))
        #expect(edit.redoMenuItemTitle == "Redo C")
        edit.redo()
        #expect(document.text == "ac")
        #expect(stack.currentNode == node(3))
        #expect(heard.last??.currentNode == node(3))
        #expect(heard.compactMap { $0?.currentNode?.sequence } == [2, 1, 1, 3])
        _ = token
    }

    @Test func stackGroupSwitchesWhateverTheShape() throws {
        let (tree, doc, clock) = htTree()
        htFork(doc, clock)
        let linear = makeStack()
        let counter = Counter()
        group(linear) { counter.set(1, on: linear) }
        let edit = ActionStackGroup()
        edit.add(tree)
        edit.add(linear)
        var heard: [ActionStack.State?] = []
        let token = edit.observe { heard.append($0) }
        edit.activeStack = tree
        edit.undo()
        #expect(tree.currentNode == node(1))
        edit.activeStack = linear
        edit.undo()
        #expect(counter.value == 0)
        edit.activeStack = tree
        #expect(edit.redoMenuItemTitle == "Redo X")
        edit.redo()
        #expect(doc.text == "aX")
        #expect(heard.last??.currentNode == node(4))
        _ = token
    }

    @Test func stackGroupHearsARedoChoice() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.undo()
        let edit = ActionStackGroup()
        edit.activeStack = stack
        var heard: [ActionStack.State?] = []
        let token = edit.observe { heard.append($0) }
        heard.removeAll()
        try stack.selectRedoBranch(node(2))
        #expect(edit.redoMenuItemTitle == "Redo B")
        #expect(heard.last??.redoNode == node(2))
        _ = token
    }
}
