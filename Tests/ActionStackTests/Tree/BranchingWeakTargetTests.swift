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

// The branching history with weak targets and removal: a step whose target is freed or removed
// leaves the tree wherever it is, and what hung from it hangs from its parent; a step left empty by
// an undo or a redo goes, or stays, as Foundation's would.

struct BranchingWeakTargetTests {
    /// Counters as the document (each step sets one), so that the values at every node stay
    /// known when a step in the middle goes.
    private func values(_ a: Counter, _ b: Counter) -> [Int] { [a.value, b.value] }

    @Test func aFreedTargetsStepInABranchDisappearsAndWhatHungFromItHangsFromItsParent() throws {
        let stack = makeTreeStack()
        let a = Counter("a")
        var b: Counter? = Counter("b")
        group(stack) { a.set(1, on: stack) }  // 1
        group(stack) { b!.set(1, on: stack) }  // 2: only b
        group(stack) { a.set(3, on: stack) }  // 3
        stack.undo()
        stack.undo()
        group(stack) { a.set(4, on: stack) }  // 4: the branch [2, 3] leaves from 1
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,4] 2:[3] 3:[] *4:[]")

        b = nil
        #expect(shape(stack.historyTree) == "0:[1] 1:[3,4] 3:[] *4:[]", "node 2 went; 3 hangs from 1")
        let tree = try #require(stack.historyTree)
        #expect(tree[node(3)]?.parent == node(1))
        #expect(tree.path(to: node(3)).map(\.sequence) == [0, 1, 3])
        stack._checkInvariants()

        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(2))) { try stack.jump(toNode: node(2)) }
        #expect(stack.currentNode == node(4))
        try stack.jump(toNode: node(3))
        #expect(a.value == 3)
        #expect(try stack.earlier() == node(1), "number 2 is gone: the next older node")
        #expect(a.value == 1)
        #expect(try stack.later() == node(3), "number 2 is gone: the next newer node")
        #expect(a.value == 3)
        #expect(try stack.later() == node(4))
        #expect(a.value == 4)
        stack._checkInvariants()
    }

    @Test func aFreedTargetsStepOnTheRedoStackDisappearsAndTheChainRehangs() throws {
        let stack = makeTreeStack()
        let a = Counter("a")
        var b: Counter? = Counter("b")
        group(stack) { a.set(1, on: stack) }  // 1
        group(stack) { b!.set(1, on: stack) }  // 2
        group(stack) { a.set(3, on: stack) }  // 3
        stack.undo()
        stack.undo()
        #expect(stack.state.redoNode == node(2))
        b = nil
        #expect(shape(stack.historyTree) == "0:[1] *1:[3] 3:[]")
        #expect(stack.state.redoNode == node(3))
        stack.redo()
        #expect(stack.currentNode == node(3))
        #expect(a.value == 3)
        #expect(!stack.canRedo)
    }

    @Test func removeAllActionsWithTargetReachesEveryBranch() throws {
        let stack = makeTreeStack()
        let a = Counter("a")
        let b = Counter("b")
        group(stack) { a.set(1, on: stack) }  // 1
        group(stack) { b.set(1, on: stack) }  // 2: only b
        group(stack) {  // 3: a and b
            a.set(2, on: stack)
            b.set(2, on: stack)
        }
        stack.undo()
        stack.undo()
        group(stack) { b.set(5, on: stack) }  // 4: only b; branch [2, 3] at 1
        group(stack) { a.set(5, on: stack) }  // 5
        stack.undo()  // at 4, redo [5]
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,4] 2:[3] 3:[] *4:[5] 5:[]")
        b.log = []

        stack.removeAllActions(withTarget: b)
        // Node 2 (b only, in a branch) and node 4 (b only, the current node) went; node 3 keeps
        // a's action; 3 and 5 hang from 1, which is now the current node.
        #expect(shape(stack.historyTree) == "0:[1] *1:[3,5] 3:[] 5:[]")
        let tree = try #require(stack.historyTree)
        #expect(tree[node(3)]?.actionCount == 1)
        #expect(stack.state.redoNode == node(5), "the redo stack is still the branch visited last")
        stack._checkInvariants()

        try stack.jump(toNode: node(3))
        #expect(values(a, b) == [2, 5])
        try stack.jump(toNode: node(5))
        #expect(values(a, b) == [5, 5])
        try stack.jump(toNode: node(0))
        #expect(values(a, b) == [0, 5])
        #expect(b.log == [], "no action of b ran after its removal")
        stack._checkInvariants()
    }

    @Test func anUndoThatBuildsNothingTakesItsNodeAndTheRedoChainRehangs() throws {
        let stack = makeTreeStack()
        let a = Counter("a")
        group(stack) { stack.registerUndo(withTarget: a) { $0.value = 0 } }  // 1: builds no redo step
        group(stack) { a.set(2, on: stack) }  // 2
        stack.undo()
        stack.undo()
        #expect(shape(stack.historyTree) == "*0:[2] 2:[]", "node 1 is gone: its undo built nothing")
        #expect(stack.state.redoNode == node(2))
        stack.redo()
        #expect(stack.currentNode == node(2))
        #expect(a.value == 2)
        stack._checkInvariants()
    }

    @Test(arguments: [false, true])
    func aRedoThatBuildsNothingKeepsAnEmptyStepOnlyAsFoundationDoes(dropsEmptyGroups: Bool) throws {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        stack.historyShape = .tree
        let a = Counter("a")
        group(stack) {
            stack.registerUndo(withTarget: a) { a in
                a.value = 0
                stack.registerUndo(withTarget: a) { $0.value = 1 }  // its redo builds nothing
            }
            a.value = 1
        }
        stack.undo()
        stack.redo()
        #expect(a.value == 1)
        if dropsEmptyGroups {
            #expect(shape(stack.historyTree) == "*0:[]", "the step left empty is gone, and its node")
            let document = TreeDoc(stack: stack)
            document.set("x")
            #expect(stack.currentNode == node(2), "numbers are never reused")
        } else {
            #expect(shape(stack.historyTree) == "0:[1] *1:[]", "Foundation keeps the empty step")
            #expect(stack.historyTree?[node(1)]?.actionCount == 0)
        }
        stack._checkInvariants()
    }

    @Test func freedTargetInABranchReparentsItsChildren() throws {
        let (stack, doc, _) = htTree()
        var pen: Pen? = Pen(doc)
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B", pen: pen)  // 2 (pen)
        doc.set("abc", named: "C")  // 3
        stack.undo()
        stack.undo()
        doc.set("aX", named: "X")  // 4
        let weakPen = LifetimeTracker(pen!)
        pen = nil
        #expect(weakPen.isAlive == false)
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 3, 4])
        #expect(tree[node(3)]?.parent == node(1), "what left from it leaves from its parent")
        try stack.jump(toNode: node(3))
        #expect(stack.currentNode == node(3))
    }

    @Test func removeAllActionsWithTargetInABranchReleasesItsHandlers() throws {
        let (stack, doc, _) = htTree()
        let pen = Pen(doc)
        var kept: Captured? = Captured()
        let tracker = LifetimeTracker(kept!)
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B", pen: pen, keeping: kept)  // 2
        kept = nil
        stack.undo()
        doc.set("ac", named: "C")  // 3
        stack.undo()
        doc.set("ad", named: "D")  // 4
        stack.removeAllActions(withTarget: pen)
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 3, 4])
        #expect(tracker.isAlive == false)
    }

    @Test func removingTheCurrentNodesStep() throws {
        // The step that leads to the current node loses every action. The docs: "its node goes".
        // Where is the document then? The state did not change, so something must still describe it.
        let (stack, doc, _) = htTree()
        let pen = Pen(doc)
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B", pen: pen)  // 2 current
        stack.removeAllActions(withTarget: pen)
        let tree = try #require(stack.historyTree)
        #expect(tree[tree.current] != nil)
        #expect(tree.nodes.map(\.sequence) == [0, 1])
        #expect(doc.text == "ab")
        doc.set("abc", named: "C")
        #expect(stack.currentNode == node(3))
        stack.undo()
        #expect(doc.text == "ab")
    }

    @Test func removeAllActionsRenumbersAfterEveryNode() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.removeAllActions()
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [5])
        #expect(stack.currentNode == node(5))
        doc.set("z", named: "Z")
        #expect(stack.currentNode == node(6))
        #expect(try stack.earlier() == node(5))
    }

    @Test func targetFreedByAJumpStepEndsTheMoveCleanly() throws {
        let (stack, doc, _) = htTree()
        var pen: Pen? = Pen(doc)
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B", pen: pen)  // 2 (pen)
        doc.set("abc", named: "C")  // 3
        stack.undo()
        stack.undo()
        stack.undo()
        // A step whose undo frees the pen while the redo path still holds its step.
        let holder = Counter("holder")
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: holder) { _ in pen = nil }
        holder.value = 1
        stack.endUndoGrouping()  // 4, child of 0
        try stack.jump(toNode: node(3))
        // The pen is freed during the first step: node 2 goes on the way; 3 leaves from 1.
        let tree = try #require(stack.historyTree)
        #expect(tree[node(2)] == nil)
        #expect(stack.currentNode == node(3) || stack.currentNode == node(1))
        #expect(tree[tree.current] != nil)
    }

    @Test func targetFreedOnTheWayToTheJumpTarget() throws {
        // Undoing 4 frees the pen whose step leads to the jump's target node 3.
        let (stack, doc, _) = htTree()
        var pen: Pen? = Pen(doc)
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B")  // 2
        doc.set("abc", named: "C", pen: pen)  // 3 (pen)
        stack.undo()
        stack.undo()
        let holder = Counter("holder")
        func arm() {
            stack.registerUndo(withTarget: holder) { _ in
                pen = nil
                arm()
            }
        }
        group(stack) {
            doc.replace(with: "aX")
            arm()
        }  // 4
        try stack.jump(toNode: node(3))
        let tree = try #require(stack.historyTree)
        #expect(tree[node(3)] == nil)
        #expect(tree[tree.current] != nil)
        #expect(doc.text == "a" || doc.text == "ab")
        #expect(stack.currentNode == node(doc.text == "a" ? 1 : 2))
    }
}
