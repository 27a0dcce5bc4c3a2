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

/// A text document whose changes are steps of a branching history.
final class TreeText {
    var text: String
    let stack: ActionStack

    init(_ text: String = "", stack: ActionStack) {
        self.text = text
        self.stack = stack
    }

    /// Replaces the text as one step named `name`.
    func set(_ new: String, named name: String = "Edit") {
        stack.beginUndoGrouping()
        replace(with: new)
        stack.setActionName(name)
        stack.endUndoGrouping()
    }

    private func replace(with new: String) {
        let old = text
        stack.registerUndo(withTarget: self) { document in document.replace(with: old) }
        text = new
    }
}

func makeTreeStack() -> ActionStack {
    let stack = makeStack()
    stack.historyShape = .tree
    return stack
}

func node(_ sequence: Int) -> ActionStack.HistoryNode.ID { .init(sequence: sequence) }

struct BranchingHistoryTests {
    @Test func aChangeAfterUndoKeepsTheRedoFutureAsABranch() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        document.set("a")
        document.set("ab")
        document.set("abc")
        stack.undo()
        stack.undo()
        #expect(document.text == "a")
        document.set("aX")
        #expect(stack.canRedo == false, "the new change is a leaf")
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(tree[node(1)]?.children == [node(2), node(4)])
        #expect(tree.current == node(4))
        try stack.jump(toNode: node(3))
        #expect(document.text == "abc")
        #expect(stack.currentNode == node(3))
        try stack.jump(toNode: node(4))
        #expect(document.text == "aX")
        stack.undo()
        #expect(stack.redoBranches == [node(2), node(4)])
        #expect(stack.state.redoNode == node(4), "redo follows the branch visited last")
        try stack.selectRedoBranch(node(2))
        stack.redo()
        stack.redo()
        #expect(document.text == "abc")
        stack._checkInvariants()
    }

    @Test func linearIsTheDefaultAndEmptiesTheRedoStack() {
        let stack = makeStack()
        #expect(stack.historyShape == .linear)
        let document = TreeText(stack: stack)
        document.set("a")
        stack.undo()
        document.set("b")
        #expect(stack.canRedo == false)
        #expect(stack.historyTree == nil)
        #expect(throws: ActionStack.HistoryTreeError.linearHistory) { try stack.jump(toNode: node(0)) }
    }

    @Test func timeMovesFollowSequenceNumbers() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        document.set("1")
        document.set("2")
        stack.undo()
        document.set("3")
        // 0 -> 1 -> {2, 3}
        #expect(try stack.earlier() == node(2))
        #expect(document.text == "2")
        #expect(try stack.earlier() == node(1))
        #expect(document.text == "1")
        #expect(try stack.later(2) == node(3))
        #expect(document.text == "3")
        #expect(try stack.later() == node(3), "forward at the newest does not move")
        #expect(try stack.earlier(10) == node(0))
        #expect(document.text == "")
        stack._checkInvariants()
    }

    @Test func cleanMarkerOnAnotherBranch() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        document.set("a")
        document.set("b")
        stack.markClean()
        stack.undo()
        document.set("c")
        #expect(!stack.isClean)
        try stack.jump(toNode: node(2))
        #expect(stack.isClean)
        #expect(document.text == "b")
        let tree = try #require(stack.historyTree)
        #expect(tree.clean == node(2))
    }

    @Test func freedTargetsInBranchesAreSwept() throws {
        let stack = makeTreeStack()
        var document: TreeText? = TreeText(stack: stack)
        let other = TreeText(stack: stack)
        document!.set("a")
        stack.undo()
        other.set("x")
        document = nil
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 2])
        stack._checkInvariants()
    }

    @Test func pruningTakesLeastRecentlyVisitedLeaves() throws {
        let stack = makeTreeStack()
        stack.maximumBranchSteps = 2
        let document = TreeText(stack: stack)
        document.set("a")
        document.set("b")
        stack.undo()
        stack.undo()
        document.set("c")  // branch [1, 2] at 0
        stack.undo()
        document.set("d")  // branch [3] at 0: three steps held, prune 2 (the deepest of the oldest)
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 3, 4])
        stack._checkInvariants()
    }

    @Test func docExampleRunsAsWritten() throws {
        let (stack, doc, _) = htTree()
        doc.set("one", named: "One")
        doc.set("one two", named: "Two")
        stack.undo()
        doc.set("one too", named: "Too")
        #expect(stack.redoBranches.count == 0)
        try stack.jump(toNode: node(2))
        #expect(doc.text == "one two")
        #expect(try stack.earlier() == node(1))
        #expect(doc.text == "one")
        #expect(try stack.later(2) == node(3))
        #expect(doc.text == "one too")
        #expect(stack.lastMisuse == nil)
    }

    @Test func undoRedoNeverRenumber() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let before = htShape(stack)
        stack.undo()
        stack.redo()
        try stack.jump(toNode: node(3))
        try stack.jump(toNode: node(4))
        #expect(htShape(stack) == before)
        doc.set("aXY")
        #expect(stack.currentNode == node(5), "the next change takes the next number, once")
    }

    @Test func redoAtALeafThatIsNotNewestDoesNothing() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        try stack.jump(toNode: node(3))
        #expect(stack.canRedo == false)
        stack.redo()
        #expect(stack.currentNode == node(3))
        #expect(doc.text == "abc")
    }

    @Test func undoNeverChangesTheRedoChoice() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        // The jump enters 2 then 3: node 1's redo child is 2 now.
        try stack.jump(toNode: node(3))
        stack.undo()
        stack.undo()
        #expect(stack.currentNode == node(1))
        #expect(stack.state.redoNode == node(2))
        #expect(stack.historyTree?[node(1)]?.redoChild == node(2))
        stack.redo()
        #expect(doc.text == "ab")
        // Redo of 1 -> 4 after a selection, then undo: still 4.
        stack.undo()
        try stack.selectRedoBranch(node(4))
        stack.redo()
        stack.undo()
        #expect(stack.state.redoNode == node(4))
    }

    @Test func selectRedoBranchRulesAndErrors() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.undo()
        #expect(stack.redoBranches == [node(2), node(4)])
        #expect(stack.state.redoNode == node(4))
        try stack.selectRedoBranch(node(2))
        #expect(doc.text == "a", "selecting does not move the document")
        #expect(stack.state.redoNode == node(2))
        #expect(stack.redoMenuItemTitle == "Redo B")
        #expect(throws: ActionStack.HistoryTreeError.notAChildOfCurrentNode(node(3))) {
            try stack.selectRedoBranch(node(3))
        }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(42))) { try stack.selectRedoBranch(node(42)) }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(-1))) { try stack.selectRedoBranch(node(-1)) }
        stack.beginUndoGrouping()
        #expect(throws: ActionStack.HistoryTreeError.groupIsOpen) { try stack.selectRedoBranch(node(4)) }
        stack.endUndoGrouping()
        // The empty group closed (dropsEmptyGroups off): a node of its own?
        let linear = makeStack()
        #expect(throws: ActionStack.HistoryTreeError.linearHistory) { try linear.selectRedoBranch(node(0)) }
    }
}

struct BranchingHistoryEntryNodeTests {
    @Test func historyEntriesNameTheirNodes() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        document.set("a", named: "A")
        document.set("b", named: "B")
        stack.undo()
        #expect(stack.undoEntries.map(\.node) == [node(1)])
        #expect(stack.redoEntries.map(\.node) == [node(2)])
        stack.historyShape = .linear
        #expect(stack.undoEntries.map(\.node) == [nil])
    }
}

struct BranchingNestedGroupTests {
    /// Undoing a group nested in an open one puts a redo step on the redo stack; when the open group
    /// closes, that redo step is redone on top of it, as in a linear history.
    @Test func aNestedUndoThenRedoAfterTheOuterGroupCloses() throws {
        let stack = makeTreeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.beginUndoGrouping()
        counter.set(2, on: stack)
        stack.endUndoGrouping()
        stack.undoNestedGroup()
        #expect(counter.value == 1)
        stack._checkInvariants()
        stack.redo()  // closes the outer group (a node), then redoes the nested one on top of it
        #expect(counter.value == 2)
        stack._checkInvariants()
        let tree = try #require(stack.historyTree)
        #expect(tree.path(to: tree.current).map(\.sequence).count == 3)
        stack.undo()
        stack.undo()
        #expect(counter.value == 0)
        stack._checkInvariants()
    }

    @Test func selectingARedoBranchWhileAGroupIsOpenIsRefused() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        document.set("a")
        stack.undo()
        document.set("b")
        stack.undo()
        stack.beginUndoGrouping()
        #expect(throws: ActionStack.HistoryTreeError.groupIsOpen) { try stack.selectRedoBranch(node(1)) }
        stack.endUndoGrouping()
        stack._checkInvariants()
    }
}

struct BranchingNoMoveTests {
    /// A move that would not move leaves an open group open, as jump(to:) to the current position
    /// does: no new node.
    @Test func aMoveThatDoesNotMoveLeavesTheOpenGroupOpen() throws {
        let stack = makeTreeStack()
        let document = TreeText(stack: stack)
        document.set("a")
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        try stack.jump(toNode: node(1))
        #expect(try stack.earlier(0) == node(1))
        #expect(try stack.later(5) == node(1))
        #expect(stack.groupingLevel == 1)
        #expect(stack.historyTree?.nodes.count == 2)
        stack.endUndoGrouping()
        #expect(stack.currentNode == node(2))
    }
}
