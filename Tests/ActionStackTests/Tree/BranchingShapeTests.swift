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

// Switching the history's shape: to a tree numbers the steps held, to a line keeps the current path
// and drops every branch; a shape set from a handler, an observer or a scope applies at the end of
// the call (or when an awaited operation settles).

struct BranchingShapeTests {
    @Test func switchingToATreeNumbersTheStepsHeld() throws {
        let stack = makeStack()
        let document = TreeDoc(stack: stack)
        for name in ["a", "b", "c", "d"] { document.append(name) }
        stack.undo()
        stack.undo()
        #expect(stack.currentNode == nil)
        #expect(stack.state.currentNode == nil && stack.state.redoNode == nil)
        stack.historyShape = .tree
        #expect(shape(stack.historyTree) == "0:[1] 1:[2] *2:[3] 3:[4] 4:[]")
        #expect(stack.historyTree?.nodes.map(\.actionName) == ["", "a", "b", "c", "d"])
        #expect(stack.state.currentNode == node(2))
        #expect(stack.state.redoNode == node(3))
        try stack.jump(toNode: node(4))
        #expect(document.text == "abcd")
        document.set("x")
        #expect(stack.currentNode == node(5))
    }

    @Test func switchingToALineDropsEveryBranchAndKeepsTheCurrentPath() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        for name in ["a", "b", "c"] { document.append(name) }  // 1, 2, 3
        stack.undo()
        stack.undo()
        document.append("d")  // 4
        document.append("e")  // 5
        stack.undo()  // at 4, redo [5], branch [2, 3]
        stack.historyShape = .linear
        #expect(stack.historyTree == nil)
        #expect(stack.currentNode == nil)
        #expect(stack.redoBranches == [])
        #expect(stack.state.currentNode == nil && stack.state.redoNode == nil)
        #expect(stack.undoEntries.map(\.actionName) == ["d", "a"])
        #expect(stack.redoEntries.map(\.actionName) == ["e"])
        #expect(throws: ActionStack.HistoryTreeError.linearHistory) { try stack.jump(toNode: node(2)) }
        stack.redo()
        #expect(document.text == "ade")
        stack.historyShape = .tree
        #expect(shape(stack.historyTree) == "0:[1] 1:[2] 2:[3] *3:[]", "numbered afresh: a, d, e")
        stack._checkInvariants()
    }

    @Test func settingTheShapeFromAHandlerAppliesAtTheEndOfTheCall() throws {
        let stack = makeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")
        var seenInside: [ActionStack.HistoryShape] = []
        stack.beginUndoGrouping()
        let old = document.text
        stack.registerUndo(withTarget: document) { document in
            stack.historyShape = .tree
            seenInside.append(stack.historyShape)
            #expect(stack.historyTree == nil)
            document.replace(with: old)
        }
        document.text = "ab"
        stack.endUndoGrouping()
        stack.undo()
        #expect(seenInside == [.linear], "not in the middle of the undo")
        #expect(stack.historyShape == .tree)
        #expect(shape(stack.historyTree) == "0:[1] *1:[2] 2:[]")
        stack.redo()
        #expect(document.text == "ab")
        #expect(stack.currentNode == node(2))
    }

    @Test func settingTheShapeFromAnObserverOrAScopedGroupAppliesAtTheEndOfTheCall() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")
        document.set("ab")
        stack.undo()
        document.set("ac")  // a branch [2]
        let seen = Flag()
        let hook = NotificationHook(ActionStack.willUndoChangeNotification, stack) { stack in
            stack.historyShape = .linear
            seen.isSet = stack.historyShape == .tree
        }
        stack.undo()
        #expect(seen.isSet, "still a tree during the undo")
        #expect(stack.historyShape == .linear)
        #expect(stack.redoEntries.map(\.actionName) == ["Edit"])
        withExtendedLifetime(hook) {}

        var inside: ActionStack.HistoryShape?
        stack.group(named: "Scope") {
            stack.historyShape = .tree
            inside = stack.historyShape
            document.replace(with: "ay")
        }
        #expect(inside == .linear)
        #expect(stack.historyShape == .tree)
        #expect(shape(stack.historyTree) == "0:[1] 1:[2] *2:[]")
        #expect(stack.historyTree?[node(2)]?.actionName == "Scope")
    }

    @Test func switchingToTreeNumbersTheStepsHeld() throws {
        let stack = makeStack()
        let doc = TreeDoc(stack: stack)
        doc.set("a", named: "A")
        doc.set("ab", named: "B")
        doc.set("abc", named: "C")
        stack.undo()
        stack.historyShape = .tree
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3])
        #expect(tree.current == node(2))
        #expect(tree[node(3)]?.title == "Redo C")
        doc.set("aX", named: "X")
        #expect(stack.currentNode == node(4))
        stack.historyShape = .linear
        #expect(stack.historyTree == nil)
        #expect(stack.currentNode == nil)
        #expect(stack.undoCount == 3)
        stack.undo()
        #expect(doc.text == "ab")
        #expect(stack.canRedo)
    }

    @Test func switchingToLinearReleasesBranchHandlers() throws {
        let (stack, doc, _) = htTree()
        var kept: Captured? = Captured()
        let tracker = LifetimeTracker(kept!)
        doc.set("a", named: "A", keeping: kept)  // 1
        kept = nil
        stack.undo()
        doc.set("b", named: "B")  // 2: branch 1 holds `kept`
        stack.historyShape = .linear
        #expect(tracker.isAlive == false)
        #expect(stack.undoCount == 1)
        #expect(stack.redoCount == 0)
    }

    @Test func switchingShapeFromAJumpHandlerWaits() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let probe = Counter("probe")
        var shapeInHandler: ActionStack.HistoryShape?
        doc.set("aXY", named: "Y")  // 5
        group(stack) {
            stack.registerUndo(withTarget: probe) { _ in
                stack.historyShape = .linear
                shapeInHandler = stack.historyShape
            }
        }  // 6, a probe-only step whose undo switches shape
        try stack.jump(toNode: node(3))
        #expect(shapeInHandler == .tree || shapeInHandler == .linear)
        #expect(stack.historyShape == .linear, "takes effect when the outermost call ends")
        #expect(doc.text == "abc", "the jump still reached node 3 before the switch")
    }

    @Test func switchingShapeBackAndForthInHandlersIsANoOp() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let probe = Counter("probe")
        func arm() {
            stack.registerUndo(withTarget: probe) { _ in
                stack.historyShape = .linear
                stack.historyShape = .tree
                arm()  // its own inverse, so the step survives undo
            }
        }
        group(stack) { arm() }  // 5
        let before = htShape(stack)
        stack.undo()
        #expect(stack.historyShape == .tree)
        #expect(before == "0:[1] 1:[2,4] 2:[3] 3:[] 4:[5] *5:[]")
        #expect(htShape(stack) == "0:[1] 1:[2,4] 2:[3] 3:[] *4:[5] 5:[]", "linear then tree again: nothing dropped")
        try stack.jump(toNode: node(3))
        #expect(doc.text == "abc")
    }

    @Test func shapeSetInsideAThrowingScopeWaitsForTheScope() throws {
        struct Boom: Error {}
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        #expect(throws: Boom.self) {
            try stack.group(named: "Fail") {
                doc.replace(with: "zzz")
                stack.historyShape = .linear
                throw Boom()
            }
        }
        #expect(doc.text == "aX")
        #expect(stack.historyShape == .linear)
        #expect(stack.undoCount == 2)
        stack.undo()
        #expect(doc.text == "a")
    }

    @Test func switchingToTreeWithAGroupOpen() throws {
        let stack = makeStack()
        let doc = TreeDoc(stack: stack)
        doc.set("a", named: "A")
        doc.set("ab", named: "B")
        stack.undo()
        stack.beginUndoGrouping()
        doc.replace(with: "aQ")
        stack.historyShape = .tree  // "may change at any time"
        #expect(stack.historyShape == .tree)
        stack.setActionName("Q")
        stack.endUndoGrouping()
        let tree = try #require(stack.historyTree)
        // Linear Foundation would have emptied the redo stack with the first registration: the
        // step B was already gone when the shape changed.
        #expect(tree.current == node(tree.nodes.last!.sequence))
        #expect(tree[tree.current]?.actionName == "Q")
        #expect(tree[tree.current]?.parent == node(1))
        stack.undo()
        #expect(doc.text == "a")
        stack.redo()
        #expect(doc.text == "aQ")
    }

    @Test func switchingToLinearWithAGroupOpenKeepsTheGroup() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.undo()
        stack.beginUndoGrouping()
        doc.replace(with: "aQ")
        stack.historyShape = .linear
        stack.setActionName("Q")
        stack.endUndoGrouping()
        #expect(stack.undoMenuItemTitle == "Undo Q")
        stack.undo()
        #expect(doc.text == "a")
        stack.undo()
        #expect(doc.text == "")
        stack.redo()
        stack.redo()
        #expect(doc.text == "aQ")
    }
}

struct BranchingAsyncShapeTests {
    @MainActor @Test func settingTheShapeFromAnAsyncHandlerAppliesWhenTheOperationSettles() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let counter = Counter()
        group(stack) {
            stack.registerAsyncUndo(withTarget: counter) { counter in
                stack.historyShape = .tree
                counter.value = 0
            }
            counter.value = 1
        }
        try await stack.performUndo()
        #expect(stack.historyShape == .tree)
        #expect(shape(stack.historyTree) == "0:[1] *1:[]", "the step undone built nothing")
    }
}

extension BranchingAsyncShapeTests {
    /// A change from another task while an asynchronous undo is in flight leaves the redo stack as a
    /// branch when the undo settles: the branches are then cut to maximumBranchSteps at once.
    @MainActor @Test func aBranchLeftWhenAnAsyncUndoSettlesIsCutToTheLimit() async throws {
        let stack = ActionStack()
        stack.misusePolicy = .report
        stack.groupsByEvent = false
        stack.historyShape = .tree
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        for value in 1...4 { try await remote.change(to: value, on: stack) }
        gate.openForGood()
        try await stack.performUndo()
        try await stack.performUndo()  // at 2, redo [3, 4]
        stack.maximumBranchSteps = 1
        gate.isClosed = true
        let undo = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }  // a change from another task: node 5
        // While the undo is in flight, the redo stack [3, 4] waits to be left as a branch: it still
        // leaves from node 2, where the document was when the change came (the redo future that
        // change ends), not from the change, and the tree stays consistent meanwhile.
        #expect(stack._invariantViolations() == [])
        #expect(stack.redoBranches == [], "node 5 has no child")
        #expect(stack.historyTree?.nodes.first { $0.id == node(3) }?.parent == node(2))
        gate.openForGood()
        _ = try await undo.value
        stack._checkInvariants()
        // The undo settled below the new change: 5 hangs from 1, and the redo stack [2, 3, 4] left
        // as a branch, cut to its first step.
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,5] 2:[] *5:[]")
        withExtendedLifetime((remote, counter)) {}
    }
}
