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

// The errors of the tree moves: a move on a linear history, to a missing node or to a node that is
// no child throws and changes nothing.

struct BranchingErrorTests {
    @Test func everyTreeMoveOnALinearHistoryThrowsAndChangesNothing() {
        let stack = makeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")
        stack.undo()
        let recorder = NotificationRecorder(stack)
        let before = Seen(stack, document)
        let error = ActionStack.HistoryTreeError.linearHistory
        #expect(throws: error) { try stack.jump(toNode: node(0)) }
        #expect(throws: error) { try stack.selectRedoBranch(node(1)) }
        #expect(throws: error) { try stack.earlier() }
        #expect(throws: error) { try stack.later() }
        #expect(throws: error) { try stack.earlier(by: .seconds(1)) }
        #expect(throws: error) { try stack.later(by: .seconds(1)) }
        #expect(Seen(stack, document) == before)
        #expect(recorder.names == [])
        #expect(stack.lastMisuse == nil)
        #expect(error.description == "the history is linear; set historyShape to .tree")
    }

    @Test func aMissingNodeOrANodeThatIsNoChildThrowsAndChangesNothing() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        document.set("abc")  // 3
        stack.undo()
        stack.undo()
        document.set("ax")  // 4
        stack.undo()  // at 1: children 2 and 4
        var heard = 0
        let token = stack.observe { _ in heard += 1 }
        let recorder = NotificationRecorder(stack)
        let before = Seen(stack, document)
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(99))) { try stack.jump(toNode: node(99)) }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(-1))) { try stack.jump(toNode: node(-1)) }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(99))) { try stack.selectRedoBranch(node(99)) }
        #expect(throws: ActionStack.HistoryTreeError.notAChildOfCurrentNode(node(3))) {
            try stack.selectRedoBranch(node(3))  // a grandchild
        }
        #expect(throws: ActionStack.HistoryTreeError.notAChildOfCurrentNode(node(1))) {
            try stack.selectRedoBranch(node(1))  // the current node
        }
        #expect(throws: ActionStack.HistoryTreeError.notAChildOfCurrentNode(node(0))) {
            try stack.selectRedoBranch(node(0))  // the parent
        }
        #expect(Seen(stack, document) == before)
        #expect(heard == 0)
        #expect(recorder.names == [])

        // With the event's group open, a refused jump leaves it open.
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        document.replace(with: "aZ")
        let open = Seen(stack, document)
        recorder.reset()
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(7))) { try stack.jump(toNode: node(7)) }
        #expect(stack.groupingLevel == 1)
        #expect(Seen(stack, document) == open)
        #expect(recorder.names == [])
        #expect(stack.lastMisuse == nil)
        #expect(ActionStack.HistoryTreeError.noSuchNode(node(7)).description == "no node #7 in the history")
        #expect(
            ActionStack.HistoryTreeError.notAChildOfCurrentNode(node(3)).description
                == "node #3 is not a child of the current node")
        _ = token
    }

    @Test func jumpToMissingOrCurrentNodeChangesNothing() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.undo()
        try stack.selectRedoBranch(node(2))
        let recorder = NotificationRecorder(stack)
        var heard = 0
        let token = stack.observe { _ in heard += 1 }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(99))) { try stack.jump(toNode: node(99)) }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(Int.max))) {
            try stack.jump(toNode: node(Int.max))
        }
        try stack.jump(toNode: node(1))
        #expect(recorder.withoutCheckpoints.isEmpty)
        #expect(heard == 0)
        #expect(stack.state.redoNode == node(2), "redo choice untouched")
        #expect(doc.text == "a")
        _ = token
    }

    @Test func jumpToANegativeNodeThrows() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(-1))) { try stack.jump(toNode: node(-1)) }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(Int.min))) {
            try stack.jump(toNode: node(Int.min))
        }
        #expect(doc.text == "aX")
    }
}
