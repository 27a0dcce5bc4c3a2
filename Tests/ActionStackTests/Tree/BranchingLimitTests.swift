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

// Limits in a branching history: removing everything (the numbering goes on), levelsOfUndo (the
// root is trimmed with the branches that forked there), maximumCost (the branches count, leaves
// first) and maximumBranchSteps (the least recently visited leaves first, never the current path or
// the redo stack), set at any time, from a handler too.

struct BranchingLimitTests {
    @Test func removeAllActionsEmptiesTheTreeAndNumberingGoesOn() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        document.set("ac")  // 3
        stack.undo()  // at 1, children 2 and 3
        stack.removeAllActions()
        #expect(shape(stack.historyTree) == "*4:[]", "a new root, numbered after every node so far")
        #expect(stack.historyTree?.root == node(4))
        #expect(stack.currentNode == node(4))
        #expect(stack.redoBranches == [])
        #expect(!stack.canUndo && !stack.canRedo)
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(2))) { try stack.jump(toNode: node(2)) }
        #expect(try stack.earlier(10) == node(4))
        document.set("x")
        #expect(shape(stack.historyTree) == "4:[5] *5:[]")
        stack.undo()
        #expect(document.text == "a")
        stack._checkInvariants()
    }

    /// levelsOfUndo trims the oldest undo step: the node it led to is the new root. A branch whose
    /// fork node was the old root goes with it; a branch that forks at the new root stays.
    @Test func levelsOfUndoTrimsTheRootAndDropsTheBranchesThatForkedThere() throws {
        let stack = makeTreeStack()
        stack.levelsOfUndo = 2
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        stack.undo()
        document.set("b")  // 2: branch [1] forks at the root 0
        document.set("bc")  // 3
        stack.undo()
        document.set("bd")  // 4: branch [3] forks at 2
        #expect(shape(stack.historyTree) == "0:[1,2] 1:[] 2:[3,4] 3:[] *4:[]")
        document.set("bde")  // 5: three undo steps; the step to 2 is trimmed, 2 becomes the root
        #expect(shape(stack.historyTree) == "2:[3,4] 3:[] 4:[5] *5:[]")
        #expect(stack.historyTree?.root == node(2))
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(1))) { try stack.jump(toNode: node(1)) }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(0))) { try stack.jump(toNode: node(0)) }
        #expect(try stack.earlier(100) == node(2))
        #expect(document.text == "b")
        try stack.jump(toNode: node(3))
        #expect(document.text == "bc", "the branch that forks at the new root is kept")
        try stack.jump(toNode: node(5))

        // Lowering the limit trims again: 4 becomes the root, and the branch [3] that forked at 2 goes.
        stack.levelsOfUndo = 1
        #expect(shape(stack.historyTree) == "4:[5] *5:[]")
        #expect(stack.undoCount == 1)
        stack._checkInvariants()
    }

    /// A jump down a long branch redoes step after step; past levelsOfUndo, each redo trims the
    /// root, and the branches that forked at the old roots (the way the jump came) go.
    @Test func aJumpDownALongBranchTrimsTheRootAsItGoes() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        for name in ["a", "b", "c"] { document.append(name) }  // 1, 2, 3
        stack.undo()
        stack.undo()
        stack.undo()
        document.set("x")  // 4
        stack.levelsOfUndo = 2
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[2] 2:[3] 3:[] *4:[]")
        try stack.jump(toNode: node(3))
        #expect(document.text == "abc")
        #expect(shape(stack.historyTree) == "1:[2] 2:[3] *3:[]")
        #expect(stack.undoEntries.map(\.actionName) == ["c", "b"])
        stack._checkInvariants()
    }

    /// maximumCost counts the undo stack and the branches (not the redo stack); branch leaves go
    /// first, then the oldest undo steps.
    @Test func maximumCostCountsTheBranchesAndTakesTheirLeavesFirst() throws {
        let stack = makeTreeStack()
        stack.maximumCost = 10
        let document = TreeDoc(stack: stack)
        document.set("a", cost: 3)  // 1
        document.set("ab", cost: 3)  // 2
        document.set("abc", cost: 3)  // 3: 9
        stack.undo()
        stack.undo()  // undo stack 3, redo stack 6 (not counted)
        #expect(shape(stack.historyTree) == "0:[1] *1:[2] 2:[3] 3:[]")
        document.set("ax", cost: 3)  // 4: undo 6 + branch 6 = 12: the leaf 3 goes
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,4] 2:[] *4:[]")
        document.set("axy", cost: 3)  // 5: undo 9 + branch 3 = 12: the leaf 2 goes
        #expect(shape(stack.historyTree) == "0:[1] 1:[4] 4:[5] *5:[]")
        document.set("axyz", cost: 3)  // 6: undo 12, no branch: the oldest undo step goes
        #expect(shape(stack.historyTree) == "1:[4] 4:[5] 5:[6] *6:[]")
        #expect(try stack.earlier(10) == node(1))
        #expect(document.text == "a")
        stack._checkInvariants()
    }

    @Test func maximumBranchStepsPrunesTheLeastRecentlyVisitedLeavesFirst() throws {
        let stack = makeTreeStack()
        stack.maximumBranchSteps = 3
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        stack.undo()
        document.set("c")  // 3: branch [1, 2]
        stack.undo()
        document.set("d")  // 4: branch [3]; three steps held
        #expect(shape(stack.historyTree) == "0:[1,3,4] 1:[2] 2:[] 3:[] *4:[]")
        try stack.jump(toNode: node(2))  // visits [1, 2]; [4] becomes a branch
        #expect(document.text == "ab")
        stack.undo()
        stack.undo()
        document.set("e")  // 5: [1, 2] left again: four steps; [3] is the least recently visited
        #expect(shape(stack.historyTree) == "0:[1,4,5] 1:[2] 2:[] 4:[] *5:[]")
        stack.undo()
        document.set("f")  // 6: [5] left: [4] goes
        #expect(shape(stack.historyTree) == "0:[1,5,6] 1:[2] 2:[] 5:[] *6:[]")
        stack.undo()
        document.set("g")  // 7: [6] left: [1, 2] is the oldest, and its deepest step goes first
        #expect(shape(stack.historyTree) == "0:[1,5,6,7] 1:[] 5:[] 6:[] *7:[]")
        try stack.jump(toNode: node(1))
        #expect(document.text == "a")
        stack._checkInvariants()
    }

    @Test func maximumBranchStepsNeverPrunesTheCurrentPath() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        for name in ["a", "b", "c", "d", "e"] { document.append(name) }  // 1...5
        for _ in 0..<5 { stack.undo() }
        stack.maximumBranchSteps = 1
        #expect(shape(stack.historyTree) == "*0:[1] 1:[2] 2:[3] 3:[4] 4:[5] 5:[]", "the redo stack is kept whole")
        try stack.jump(toNode: node(5))
        try stack.jump(toNode: node(2))
        #expect(shape(stack.historyTree) == "0:[1] 1:[2] *2:[3] 3:[4] 4:[5] 5:[]")

        stack.maximumBranchSteps = 0
        document.set("x")  // 6: the branch [3, 4, 5] at 2, no limit
        #expect(shape(stack.historyTree) == "0:[1] 1:[2] 2:[3,6] 3:[4] 4:[5] 5:[] *6:[]")
        stack.maximumBranchSteps = 1  // prunes at once, a leaf at a time
        #expect(shape(stack.historyTree) == "0:[1] 1:[2] 2:[3,6] 3:[] *6:[]")
        #expect(stack.undoEntries.map(\.actionName) == ["Edit", "b", "a"])
        stack._checkInvariants()
    }

    @Test func maximumBranchStepsDropsLeastRecentlyVisitedLeavesFirst() throws {
        let (stack, doc, clock) = htTree()
        var kept: [Captured]? = [Captured(), Captured(), Captured(), Captured()]
        let trackers = kept!.map(LifetimeTracker.init)
        doc.set("a", named: "A")  // 1
        doc.set("a2", named: "2", keeping: kept![0])  // 2
        doc.set("a23", named: "3", keeping: kept![1])  // 3
        stack.undo()
        stack.undo()
        doc.set("a4", named: "4", keeping: kept![2])  // 4
        doc.set("a45", named: "5", keeping: kept![3])  // 5
        kept = nil
        stack.undo()
        stack.undo()
        doc.set("a6", named: "6")  // 6: branches 2-3 and 4-5 off the path
        try stack.jump(toNode: node(3))  // visits branch 2-3 again
        try stack.jump(toNode: node(6))
        _ = clock
        stack.maximumBranchSteps = 2
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 3, 6], "4-5 was visited least recently")
        #expect(trackers[2].isAlive == false && trackers[3].isAlive == false, "handlers released at once")
        #expect(trackers[0].isAlive && trackers[1].isAlive)
        stack.maximumBranchSteps = 1
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 6], "the deepest step first")
        #expect(doc.text == "a6")
    }

    @Test func maximumBranchStepsNeverTakesTheRedoStack() throws {
        let (stack, doc, _) = htTree()
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B")  // 2
        doc.set("abc", named: "C")  // 3
        stack.undo()
        stack.undo()
        stack.undo()
        doc.set("x", named: "X")  // 4: branch 1-2-3
        stack.undo()
        try stack.selectRedoBranch(node(1))  // redo stack now 1-2-3; branch 4 off the path
        stack.maximumBranchSteps = 1
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3, 4], "only 4 is off the path, and 1 ≤ 1")
        stack.maximumBranchSteps = 0
        doc.set("y", named: "Y")  // 5: 1-2-3 and 4 become branches
        stack.maximumBranchSteps = 1
        #expect(stack.historyTree?.nodes.count == 3)
        #expect(stack.currentNode == node(5))
        stack.undo()
        #expect(stack.redoBranches.count == 2)
    }

    @Test func maximumCostCountsBranchesLeavesFirst() throws {
        let (stack, doc, _) = htTree()
        doc.set("a", named: "A", cost: 10)  // 1
        doc.set("ab", named: "B", cost: 10)  // 2
        stack.undo()
        doc.set("ac", named: "C", cost: 10)  // 3; branch 2 holds 10
        stack.maximumCost = 20
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 3], "the branch leaf goes before any undo step")
        #expect(stack.undoCount == 2)
        stack.maximumCost = 10
        #expect(stack.undoCount == 1, "then the oldest undo steps")
        #expect(stack.historyTree?.root == node(1))
        // The redo stack is not limited.
        doc.set("acd", named: "D", cost: 50)
        stack.undo()
        #expect(stack.redoCount == 1)
    }

    @Test func levelsOfUndoTrimsTheRootAndItsBranches() throws {
        let (stack, doc, _) = htTree()
        var kept: Captured? = Captured()
        let tracker = LifetimeTracker(kept!)
        doc.set("a", named: "A", keeping: kept)  // 1: a branch of the root
        kept = nil
        stack.undo()
        doc.set("b", named: "B")  // 2
        doc.set("bc", named: "C")  // 3
        doc.set("bcd", named: "D")  // 4
        stack.levelsOfUndo = 2
        let tree = try #require(stack.historyTree)
        #expect(tree.root == node(2))
        #expect(tree.nodes.map(\.sequence) == [2, 3, 4])
        #expect(tracker.isAlive == false)
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(1))) { try stack.jump(toNode: node(1)) }
        #expect(try stack.earlier(10) == node(2))
        #expect(doc.text == "b")
        #expect(stack.canUndo == false)
    }

    @Test func levelsOfUndoOnABranchNeverTakesTheCurrentPath() throws {
        let (stack, doc, _) = htTree()
        stack.levelsOfUndo = 2
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B")  // 2
        stack.undo()
        doc.set("ac", named: "C")  // 3
        doc.set("acd", named: "D")  // 4: trims the step to 1; root becomes 1? No: 0->1->3->4 has 3 steps
        #expect(stack.undoCount == 2)
        let tree = try #require(stack.historyTree)
        #expect(tree.root == node(1))
        #expect(tree[node(1)]?.children == [node(2), node(3)], "the branch 2 left from 1, not from the old root")
    }

    @Test func maximumBranchStepsSetFromAJumpHandler() throws {
        // The handler of the first step of a jump tightens the branch limit. The branch the jump is
        // heading into is off the current path at that moment.
        let (stack, doc, _) = htTree()
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B")  // 2
        doc.set("abc", named: "C")  // 3
        stack.undo()
        stack.undo()
        let probe = Counter("probe")
        func arm() {
            stack.registerUndo(withTarget: probe) { _ in
                stack.maximumBranchSteps = 1
                arm()
            }
        }
        group(stack) {
            doc.replace(with: "aX")
            arm()
            stack.setActionName("X")
        }  // 4: undoing it sets the limit
        try stack.jump(toNode: node(3))
        #expect(stack.currentNode == node(3))
        #expect(doc.text == "abc")
        #expect(stack.lastMisuse == nil)
        // Off the path now: 4 only (1 step): nothing to prune.
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 3, 4])
    }

    @Test func levelsOfUndoSetFromAJumpHandler() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let probe = Counter("probe")
        func arm() {
            stack.registerUndo(withTarget: probe) { _ in
                stack.levelsOfUndo = 1
                arm()
            }
        }
        group(stack) { arm() }  // 5
        try stack.jump(toNode: node(3))
        #expect(doc.text == "abc")
        #expect(stack.currentNode == node(3))
        let tree = try #require(stack.historyTree)
        #expect(tree.root == node(2), "one undo step left: 2 -> 3")
        #expect(tree.nodes.map(\.sequence) == [2, 3])
        #expect(stack.undoCount == 1)
    }
}
