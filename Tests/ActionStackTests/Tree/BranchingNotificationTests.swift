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

// Notifications and observation in a branching history: each step of a jump posts its notifications
// and observers hear the jump once; the redo node changes when another branch is chosen; moves that
// cannot move do nothing.

struct BranchingNotificationTests {
    /// 0 - 1 - 2 - 3 and 1 - 4 - 5, at 5.
    private func makeTree() -> (ActionStack, TreeDoc) {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")
        document.set("ab")
        document.set("abc")
        stack.undo()
        stack.undo()
        document.set("ax")
        document.set("axy")
        return (stack, document)
    }

    @Test func eachStepOfAJumpPostsItsNotificationsAndObserversHearTheJumpOnce() throws {
        let (stack, document) = makeTree()
        let recorder = NotificationRecorder(stack)
        var heard: [ActionStack.State] = []
        let token = stack.observe { heard.append($0) }
        try stack.jump(toNode: node(3))
        #expect(document.text == "abc")
        #expect(
            recorder.withoutCheckpoints == [
                "WillUndo", "DidUndo", "WillUndo", "DidUndo", "WillRedo", "DidRedo", "WillRedo", "DidRedo",
            ])
        #expect(heard.count == 1)
        #expect(heard.first == stack.state)
        #expect(heard.first?.currentNode == node(3))

        recorder.reset()
        heard = []
        #expect(try stack.earlier() == node(2))
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo"])
        #expect(heard.map(\.currentNode) == [node(2)])

        recorder.reset()
        heard = []
        #expect(try stack.later(2) == node(4))
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo", "WillRedo", "DidRedo"])
        #expect(heard.map(\.currentNode) == [node(4)])
        _ = token
    }

    @MainActor @Test func aStateSequenceHearsEachJumpOnce() async throws {
        let (stack, document) = makeTree()
        let updates = stack.stateUpdates()
        try stack.jump(toNode: node(3))
        try stack.jump(toNode: node(1))
        stack.markClean()
        var states: [ActionStack.State] = []
        for await state in updates {
            states.append(state)
            if state.isClean { break }
        }
        #expect(states.map { $0.currentNode?.sequence } == [5, 3, 1, 1])
        #expect(states.map(\.isClean) == [false, false, false, true])
        withExtendedLifetime(document) {}
    }

    @Test func theRedoNodeChangesWhenAnotherBranchIsSelected() throws {
        let (stack, document) = makeTree()
        stack.undo()
        stack.undo()  // at 1: children 2 and 4, redo enters 4
        #expect(stack.redoBranches == [node(2), node(4)])
        #expect(stack.state.redoNode == node(4))
        let recorder = NotificationRecorder(stack)
        var heard: [ActionStack.State] = []
        let token = stack.observe { heard.append($0) }
        try stack.selectRedoBranch(node(4))
        #expect(heard.isEmpty, "choosing the branch redo enters anyway changes nothing")
        try stack.selectRedoBranch(node(2))
        #expect(heard.count == 1)
        #expect(heard.first?.redoNode == node(2))
        #expect(heard.first?.currentNode == node(1))
        #expect(heard.first?.redoActionName == "Edit")
        #expect(stack.state.redoNode == node(2))
        #expect(document.text == "a", "selecting does not move the document")
        #expect(recorder.withoutCheckpoints == [])
        #expect(stack.historyTree?[node(1)]?.redoChild == node(2))
        stack.redo()
        stack.redo()
        #expect(document.text == "abc")
        _ = token
    }

    @Test func aJumpToTheCurrentNodeAndMovesThatCannotMoveDoNothing() throws {
        let clock = ManualClock()
        let stack = makeTreeStack(clock: clock)
        let document = TreeDoc(stack: stack)
        document.set("a")
        document.set("ab")
        let recorder = NotificationRecorder(stack)
        var heard: [ActionStack.State] = []
        let token = stack.observe { heard.append($0) }
        let before = Seen(stack, document)
        try stack.jump(toNode: node(2))
        #expect(try stack.later() == node(2), "at the newest")
        #expect(try stack.later(5) == node(2))
        #expect(try stack.earlier(0) == node(2))
        #expect(try stack.earlier(-3) == node(2))
        #expect(try stack.later(by: .seconds(60)) == node(2))
        #expect(try stack.earlier(by: .zero) == node(2))
        #expect(try stack.earlier(by: .seconds(-5)) == node(2))
        #expect(Seen(stack, document) == before)
        #expect(recorder.withoutCheckpoints == [])
        #expect(heard.isEmpty)
        try stack.jump(toNode: node(0))
        recorder.reset()
        #expect(try stack.earlier() == node(0), "at the root")
        #expect(try stack.earlier(by: .seconds(60)) == node(0))
        #expect(recorder.withoutCheckpoints == [])
        _ = token
    }

    @Test func aJumpToTheCurrentNodeDoesNotEndCoalescing() throws {
        let stack = makeTreeStack()
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        let field = Field()
        field.type("a", on: stack)
        stack.endEvent()
        try stack.jump(toNode: node(1))
        _ = try stack.earlier(0)
        _ = try stack.later()
        field.type("b", on: stack)
        stack.endEvent()
        #expect(shape(stack.historyTree) == "0:[1] *1:[]", "the keystroke joined the step: nothing moved")
        #expect(stack.historyTree?[node(1)]?.actionCount == 2)
    }

    @Test func jumpPostsEveryStepAndObserversHearOnce() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let recorder = NotificationRecorder(stack)
        var states: [ActionStack.State] = []
        let token = stack.observe { states.append($0) }
        try stack.jump(toNode: node(3))
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo", "WillRedo", "DidRedo", "WillRedo", "DidRedo"])
        #expect(states.count == 1)
        #expect(states.last?.currentNode == node(3))
        #expect(doc.text == "abc")
        _ = token
    }

    @Test func selectingTheRedoChoiceAgainDoesNothing() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.undo()
        var heard: [ActionStack.State] = []
        let token = stack.observe { heard.append($0) }
        try stack.selectRedoBranch(node(4))
        #expect(heard.isEmpty, "choosing the child redo would enter anyway does nothing")
        try stack.selectRedoBranch(node(2))
        #expect(heard.count == 1)
        #expect(heard.last?.redoNode == node(2))
        #expect(heard.last?.redoMenuItemTitle == "Redo B")
        #expect(doc.text == "a")
        _ = token
    }
}
