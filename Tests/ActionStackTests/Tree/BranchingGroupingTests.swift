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

// Open, empty and event groups in a branching history: a tree move closes the open group first; an
// empty group is a node unless it is dropped; an event's group becomes a node when the event ends.

struct BranchingGroupingTests {
    @Test func aTreeMoveClosesTheOpenGroupFirst() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        document.replace(with: "abZ")  // the event's group is open
        #expect(stack.groupingLevel == 1)
        #expect(stack.currentNode == node(2), "an open group is not a node yet")
        let recorder = NotificationRecorder(stack)
        try stack.jump(toNode: node(1))
        #expect(recorder.withoutCheckpoints == ["WillClose", "DidClose", "WillUndo", "DidUndo", "WillUndo", "DidUndo"])
        #expect(shape(stack.historyTree) == "0:[1] *1:[2] 2:[3] 3:[]", "the group closed into node 3 first")
        #expect(document.text == "a")
        #expect(stack.groupingLevel == 0)

        try stack.jump(toNode: node(3))
        document.replace(with: "abZY")
        #expect(try stack.earlier() == node(3), "closed into 4, then one back")
        #expect(document.text == "abZ")
        #expect(shape(stack.historyTree) == "0:[1] 1:[2] 2:[3] *3:[4] 4:[]")
        stack._checkInvariants()
    }

    /// A do-nothing group is a change (it takes a number and leaves the redo stack as a branch),
    /// unless dropsEmptyGroups drops it. Undoing it builds no redo step (as in Foundation), so its
    /// node goes then, like that of any step that leaves the history without another taking its
    /// place.
    @Test(arguments: [false, true])
    func anEmptyGroupIsAChangeUnlessItIsDropped(dropsEmptyGroups: Bool) throws {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        stack.historyShape = .tree
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        stack.beginUndoGrouping()
        stack.endUndoGrouping()
        if dropsEmptyGroups {
            #expect(shape(stack.historyTree) == "0:[1] *1:[2] 2:[]")
            #expect(stack.canRedo)
            document.set("ac")
            #expect(stack.currentNode == node(3))
        } else {
            #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[] *3:[]")
            #expect(!stack.canRedo)
            #expect(stack.historyTree?[node(3)]?.actionCount == 0)
            #expect(document.text == "a")
            #expect(try stack.earlier() == node(2))
            #expect(document.text == "ab")
            #expect(shape(stack.historyTree) == "0:[1] 1:[2] *2:[]", "undone, the empty step left nothing")
            #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(3))) { try stack.jump(toNode: node(3)) }
            document.set("ad")
            #expect(stack.currentNode == node(4), "numbers are never reused")
        }
        stack._checkInvariants()
    }

    /// With groupsByEvent, an event's registrations are one node when the event ends; an event
    /// that only names a step is an empty group (a node unless dropsEmptyGroups).
    @Test(arguments: [false, true])
    func eventGroupsAreNodesWhenTheEventEnds(dropsEmptyGroups: Bool) throws {
        let stack = makeTreeStack(clock: ManualClock(), groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
        stack.automaticGroupClosing = .manual
        let document = TreeDoc(stack: stack)
        document.replace(with: "a")
        document.replace(with: "ab")
        stack.setActionName("Type")
        stack.endEvent()  // 1
        document.replace(with: "abc")
        stack.endEvent()  // 2
        stack.undo()
        document.replace(with: "abd")
        #expect(stack.currentNode == node(1), "the event has not ended")
        #expect(stack.redoBranches == [node(2)], "the redo stack already left as a branch")
        #expect(!stack.canRedo)
        stack.endEvent()  // 3
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[] *3:[]")
        #expect(stack.historyTree?[node(1)]?.actionCount == 2)
        #expect(stack.historyTree?[node(1)]?.actionName == "Type")

        stack.setActionName("Nothing")  // an event that opens an empty group
        stack.endEvent()
        if dropsEmptyGroups {
            #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[] *3:[]")
        } else {
            #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[] 3:[4] *4:[]")
            #expect(stack.historyTree?[node(4)]?.actionName == "Nothing")
        }
        try stack.jump(toNode: node(2))
        #expect(document.text == "abc")
        stack._checkInvariants()
    }

    @Test func groupsByEventEndEventMakesOneNode() throws {
        let (stack, doc, _) = htTree(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        doc.replace(with: "a")
        doc.replace(with: "ab")
        stack.endEvent()
        #expect(stack.currentNode == node(1))
        stack.undo()
        doc.replace(with: "x")  // the event's group is open: not a node yet
        #expect(stack.redoBranches == [node(1)] || stack.redoBranches.isEmpty)
        // A jump closes the open group first: it becomes node 2, then the jump goes to 1.
        try stack.jump(toNode: node(1))
        #expect(doc.text == "ab")
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2])
        #expect(stack.historyTree?[node(0)]?.children == [node(1), node(2)])
        try stack.jump(toNode: node(2))
        #expect(doc.text == "x")
    }

    @Test func earlierWithAnOpenGroupClosesItFirst() throws {
        let (stack, doc, _) = htTree(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        doc.replace(with: "a")
        stack.endEvent()  // 1
        doc.replace(with: "ab")
        stack.endEvent()  // 2
        stack.undo()
        doc.replace(with: "aX")  // open; will be node 3
        // Closed first, it is node 3; g- from 3 goes to 2 (vim's rule), across the fork.
        #expect(try stack.earlier() == node(2))
        #expect(doc.text == "ab")
        #expect(try stack.later() == node(3))
        #expect(doc.text == "aX")
    }

    @Test func jumpWithNestedGroupsOpenIsMisuse() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.beginUndoGrouping()
        stack.beginUndoGrouping()
        doc.replace(with: "zz")
        let before = stack.historyTree
        try stack.jump(toNode: node(2))
        #expect(stack.lastMisuse == .nestedGroupsOpen(.jumpToNode, groupingLevel: 2))
        #expect(doc.text == "zz")
        #expect(stack.historyTree == before)
        stack.lastMisuse = nil
        _ = try stack.earlier()
        #expect(stack.lastMisuse != nil, "the time moves follow the same rule")
        stack.endUndoGrouping()
        stack.endUndoGrouping()
    }

    @Test func undoNestedGroupWithOpenGroups() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.undo()  // at 1, redo child 4
        stack.beginUndoGrouping()
        doc.set("n1", named: "N1")  // a nested closed group
        stack.undoNestedGroup()
        #expect(doc.text == "a")
        #expect(stack.lastMisuse == nil)
        stack.endUndoGrouping()
        // Outer group: was it a change? It held a nested group that was undone.
        let tree = try #require(stack.historyTree)
        #expect(tree[tree.current] != nil)
        #expect(Set(tree.nodes.map(\.sequence)).isSuperset(of: [0, 1, 2, 3, 4]), "no branch was lost")
        try stack.jump(toNode: node(3))
        #expect(doc.text == "abc")
        try stack.jump(toNode: node(4))
        #expect(doc.text == "aX")
    }

    @Test func emptyGroupKeptMakesANode() throws {
        let (stack, doc, clock) = htTree(dropsEmptyGroups: false)
        htFork(doc, clock)
        stack.undo()
        stack.beginUndoGrouping()
        stack.endUndoGrouping()
        // Kept as a step, as Foundation keeps it: a change made after an undo, so a new node.
        #expect(stack.currentNode == node(5))
        #expect(stack.historyTree?[node(1)]?.children == [node(2), node(4), node(5)])
        try stack.jump(toNode: node(4))
        #expect(doc.text == "aX")
    }

    @Test func emptyGroupDroppedKeepsTheRedoChoice() throws {
        let (stack, doc, clock) = htTree(dropsEmptyGroups: true)
        htFork(doc, clock)
        stack.undo()
        try stack.selectRedoBranch(node(2))
        let before = stack.historyTree
        stack.beginUndoGrouping()
        stack.endUndoGrouping()
        #expect(stack.historyTree == before)
        #expect(stack.state.redoNode == node(2))
        doc.set("n", named: "N")
        #expect(stack.currentNode == node(5), "the dropped group took no number")
    }

    @Test func undoClosingAnEventGroupThenRedoEntersIt() throws {
        let (stack, doc, _) = htTree(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        doc.replace(with: "a")
        stack.endEvent()  // 1
        doc.replace(with: "ab")
        stack.endEvent()  // 2
        stack.undo()
        doc.replace(with: "aZ")  // open
        stack.undo()  // closes it (node 3) and undoes it
        #expect(doc.text == "a")
        #expect(stack.redoBranches == [node(2), node(3)])
        #expect(stack.state.redoNode == node(3), "the child entered last: by the new change")
        stack.redo()
        #expect(doc.text == "aZ")
    }
}
