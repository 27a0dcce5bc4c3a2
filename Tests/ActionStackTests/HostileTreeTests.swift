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

// Hostile probes of the branching history, written from its documentation alone
// (BranchingHistory.md, the doc comments of the tree API, the Reentrancy table, the limits' docs).
// Each probe asserts what the docs promise; a contradiction is marked `withKnownIssue("FINDING: …")`.

/// A thread-unsafe box for observers (every test runs on one thread).
private final class HTBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A tree stack, its clock and a document. Steps are dated 10 s apart.
private func htTree(groupsByEvent: Bool = false, dropsEmptyGroups: Bool = false) -> (ActionStack, TreeDoc, TestClock) {
    let clock = TestClock()
    let stack = makeTreeStack(clock: clock, groupsByEvent: groupsByEvent, dropsEmptyGroups: dropsEmptyGroups)
    return (stack, TreeDoc(stack: stack), clock)
}

/// 0 -> 1 "a" -> 2 "ab" -> 3 "abc"; undo twice; 1 -> 4 "aX" (current).
private func htFork(_ doc: TreeDoc, _ clock: TestClock) {
    clock.advance(seconds: 10)
    doc.set("a", named: "A")
    clock.advance(seconds: 10)
    doc.set("ab", named: "B")
    clock.advance(seconds: 10)
    doc.set("abc", named: "C")
    doc.stack.undo()
    doc.stack.undo()
    clock.advance(seconds: 10)
    doc.set("aX", named: "X")
}

private func htShape(_ stack: ActionStack) -> String { shape(stack.historyTree) }

@Suite(.serialized) struct HostileTreeTests {
    // MARK: Numbering and moves

    @Test func hostileTreeDocExampleRunsAsWritten() throws {
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

    @Test func hostileTreeUndoRedoNeverRenumber() throws {
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

    @Test func hostileTreeRedoAtALeafThatIsNotNewestDoesNothing() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        try stack.jump(toNode: node(3))
        #expect(stack.canRedo == false)
        stack.redo()
        #expect(stack.currentNode == node(3))
        #expect(doc.text == "abc")
    }

    @Test func hostileTreeUndoNeverChangesTheRedoChoice() throws {
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

    @Test func hostileTreeSelectRedoBranchRulesAndErrors() throws {
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

    @Test func hostileTreeJumpToMissingOrCurrentNodeChangesNothing() throws {
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

    @Test func hostileTreeJumpPostsEveryStepAndObserversHearOnce() throws {
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

    @Test func hostileTreeEarlierLaterByCount() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        #expect(try stack.earlier(0) == node(4))
        #expect(try stack.earlier(-3) == node(4))
        #expect(try stack.earlier() == node(3), "g- crosses branches")
        #expect(doc.text == "abc")
        #expect(try stack.earlier(100) == node(0))
        #expect(doc.text == "")
        #expect(try stack.earlier() == node(0), "at the root nothing moves")
        #expect(try stack.later(100) == node(4))
        #expect(doc.text == "aX")
        #expect(try stack.later() == node(4))
        #expect(try stack.earlier(Int.max) == node(0))
        #expect(throws: ActionStack.HistoryTreeError.linearHistory) { try makeStack().earlier() }
        #expect(throws: ActionStack.HistoryTreeError.linearHistory) { try makeStack().later(by: .seconds(1)) }
    }

    @Test func hostileTreeLaterByAHugeCountStopsAtTheNewest() async {
        // "forward by n to current + n (the newest node at most)": a count as large as the caller
        // likes (a UI passing Int.max for "go to the newest") must not trap.
        // Found by this review and fixed: still run in a child process, so a regression is a
        // failed test rather than a crashed run.
        await #expect(processExitsWith: .success) {
            let (stack, doc, clock) = htTree()
            htFork(doc, clock)
            try stack.jump(toNode: node(1))
            #expect(try stack.later(Int.max) == node(4))
        }
    }

    @Test func hostileTreeTimeMovesPassOverMissingNumbers() throws {
        let (stack, doc, clock) = htTree()
        let pen = Pen(doc)
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B", pen: pen)  // 2 (on the pen)
        stack.undo()
        doc.set("aY", named: "Y")  // 3
        stack.removeAllActions(withTarget: pen)  // node 2 goes
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 3])
        #expect(try stack.earlier() == node(1), "3 - 1 = 2 is gone: passed over to 1")
        #expect(try stack.later() == node(3), "1 + 1 = 2 is gone: passed over to 3")
        _ = clock
    }

    @Test func hostileTreeEarlierLaterByDuration() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)  // 1 @10, 2 @20, 3 @30, 4 @40
        #expect(try stack.earlier(by: .zero) == node(4))
        #expect(try stack.earlier(by: .seconds(-5)) == node(4))
        #expect(try stack.earlier(by: .seconds(15)) == node(2), "newest made at or before 25 s")
        #expect(doc.text == "ab")
        #expect(try stack.later(by: .seconds(5)) == node(3), "oldest made at or after 25 s")
        #expect(try stack.later(by: .seconds(1000)) == node(4), "the newest node when none was")
        #expect(try stack.earlier(by: .seconds(1000)) == node(0))
        #expect(try stack.earlier(by: .milliseconds(1)) == node(0), "at the root nothing moves")
        #expect(doc.text == "")
    }

    @Test func hostileTreeEarlierByDurationWithAClockThatWentBack() throws {
        // An app's clock is not monotonic (NTP, the user). The docs promise a node "made at least
        // that long before the current node's change"; earlier must never move forward in time.
        let (stack, doc, clock) = htTree()
        doc.set("a", named: "A")  // 1 @0
        clock.advance(seconds: -100)
        doc.set("ab", named: "B")  // 2 @-100
        clock.advance(seconds: 200)
        doc.set("abc", named: "C")  // 3 @100
        let reached = try stack.earlier(by: .seconds(50))
        #expect(reached < node(3))
        let date = try #require(stack.historyTree?[reached]?.date)
        #expect(date <= clock.now - 50)
        _ = doc
    }

    // MARK: The snapshot

    @Test func hostileTreeSnapshotFields() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        try stack.jump(toNode: node(1))
        // Current 1; redo child 4 (entered last by the change); branch 2 -> 3.
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(tree.root == node(0) && tree.current == node(1) && tree.newest == node(4))
        #expect(tree[node(0)]?.parent == nil && tree[node(0)]?.title == "" && tree[node(0)]?.actionName == "")
        #expect(tree[node(1)]?.children == [node(2), node(4)])
        #expect(tree[node(1)]?.redoChild == node(4))
        #expect(tree[node(2)]?.redoChild == node(3))
        #expect(tree[node(1)]?.title == "Undo A")
        #expect(tree[node(4)]?.title == "Redo X")
        #expect(tree[node(2)]?.title == "Redo B")
        #expect(tree[node(3)]?.title == "Redo C")
        #expect(tree.nodes.filter(\.isOnCurrentPath).map(\.sequence) == [0, 1, 4])
        #expect(tree.nodes.filter(\.isCurrent).map(\.sequence) == [1])
        #expect(tree.leaves.map(\.sequence) == [3, 4])
        #expect(tree.path(to: node(3)).map(\.sequence) == [0, 1, 2, 3])
        #expect(tree.path(to: node(77)).isEmpty)
        #expect(tree[node(3)]?.actionCount == 1)
        #expect(tree[node(3)]?.date == Date(timeIntervalSinceReferenceDate: 1_000_030))
        #expect(tree.clean == node(0), "a new stack is clean at its start")
    }

    // MARK: Limits

    @Test func hostileTreeMaximumBranchStepsDropsLeastRecentlyVisitedLeavesFirst() throws {
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

    @Test func hostileTreeMaximumBranchStepsNeverTakesTheRedoStack() throws {
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

    @Test func hostileTreeMaximumCostCountsBranchesLeavesFirst() throws {
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

    @Test func hostileTreeLevelsOfUndoTrimsTheRootAndItsBranches() throws {
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

    @Test func hostileTreeLevelsOfUndoOnABranchNeverTakesTheCurrentPath() throws {
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

    // MARK: Targets, removal, clean

    @Test func hostileTreeFreedTargetInABranchReparentsItsChildren() throws {
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

    @Test func hostileTreeRemoveAllActionsWithTargetReachesEveryBranch() throws {
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

    @Test func hostileTreeRemovingTheCurrentNodesStep() throws {
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

    @Test func hostileTreeRemoveAllActionsRenumbersAfterEveryNode() throws {
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

    @Test func hostileTreeCleanMarkerOnAnyNode() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        try stack.jump(toNode: node(3))
        stack.markClean()
        #expect(stack.isClean)
        try stack.jump(toNode: node(4))
        #expect(stack.isClean == false)
        try stack.jump(toNode: node(2))
        #expect(stack.isClean == false)
        #expect(try stack.later() == node(3))
        #expect(stack.isClean)
        #expect(stack.historyTree?.clean == node(3))
        #expect(stack.historyTree?.nodes.filter(\.isClean).map(\.sequence) == [3])
        try stack.jump(toNode: node(0))
        #expect(stack.isClean == false)
        stack.markClean()
        #expect(stack.historyTree?.clean == node(0))
        try stack.jump(toNode: node(3))
        #expect(stack.isClean == false)
    }

    @Test func hostileTreeCleanNodePrunedIsNeverCleanAgain() throws {
        let (stack, doc, _) = htTree()
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B")  // 2
        stack.markClean()
        stack.undo()
        doc.set("ac", named: "C")  // 3: clean node 2 is in a branch
        stack.maximumBranchSteps = 1
        stack.maximumBranchSteps = 0
        doc.set("a", named: "again")  // same text as node 1 but not clean
        #expect(stack.historyTree?.clean == node(2))
        stack.maximumBranchSteps = 1
        // Branches: 2 (from 1). Off-path steps: 1. Nothing pruned.
        stack.undo()
        doc.set("q", named: "Q")  // 5: branch 4 now off path too -> 2 steps > 1: least recent goes
        let tree = try #require(stack.historyTree)
        if tree[node(2)] == nil { #expect(tree.clean == nil) }
        #expect(stack.isClean == false)
    }

    // MARK: Coalescing, groups

    @Test func hostileTreeCoalescingNeverGrowsAcrossAFork() throws {
        let (stack, _, _) = htTree(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        func type(_ value: Int) {
            let old = counter.value
            stack.registerUndo(withTarget: counter, options: .coalescing("typing")) { c in
                c.set(old, on: stack)
            }
            counter.value = value
            stack.endEvent()
        }
        type(1)
        type(2)  // coalesces into node 1
        #expect(stack.currentNode == node(1))
        #expect(stack.undoCount == 1)
        stack.undo()
        type(3)  // node 2, child of 0
        #expect(stack.currentNode == node(2))
        try stack.jump(toNode: node(1))
        #expect(counter.value == 2)
        type(4)  // must be node 3, not coalesced into node 1 (the move ended coalescing)
        #expect(stack.currentNode == node(3))
        #expect(stack.historyTree?[node(3)]?.parent == node(1))
        try stack.jump(toNode: node(2))
        #expect(counter.value == 3)
        type(5)  // node 4, child of 2
        #expect(stack.currentNode == node(4))
        try stack.jump(toNode: node(3))
        #expect(counter.value == 4)
        stack.undo()
        #expect(counter.value == 2)
        // A time move ends coalescing too, even one that lands on a coalescing leaf.
        try stack.earlier(1)  // 1 -> 0
        #expect(try stack.later(4) == node(4))
        type(6)
        #expect(stack.currentNode == node(5))
        stack.undo()
        #expect(counter.value == 5)
    }

    @Test func hostileTreeThrowingScopedGroupLeavesTheTreeAsItWas() throws {
        struct Boom: Error {}
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.undo()
        try stack.selectRedoBranch(node(2))
        let before = stack.historyTree
        #expect(throws: Boom.self) {
            try stack.group(named: "Fail") {
                doc.replace(with: "zzz")
                doc.replace(with: "zzzz")
                throw Boom()
            }
        }
        #expect(doc.text == "a")
        #expect(stack.historyTree == before)
        #expect(stack.state.redoNode == node(2))
        #expect(stack.redoBranches == [node(2), node(4)])
        stack.redo()
        #expect(doc.text == "ab")
        stack.undo()
        doc.set("n", named: "N")
        #expect(stack.currentNode == node(5), "the tree 'as it was': the next change is #5")
    }

    @Test func hostileTreeThrowingScopedGroupWithEventGroupLeavesTheTreeAsItWas() throws {
        struct Boom: Error {}
        let (stack, doc, clock) = htTree(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        doc.set("a", named: "A")
        doc.set("ab", named: "B")
        stack.endEvent()
        stack.undo()
        let before = stack.historyTree
        #expect(throws: Boom.self) {
            try stack.group(named: "Fail") {
                doc.replace(with: "zzz")
                throw Boom()
            }
        }
        stack.endEvent()
        #expect(doc.text == "")
        #expect(stack.historyTree == before)
        #expect(stack.canRedo)
        _ = clock
    }

    @Test func hostileTreeGroupsByEventEndEventMakesOneNode() throws {
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

    @Test func hostileTreeEarlierWithAnOpenGroupClosesItFirst() throws {
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

    @Test func hostileTreeJumpWithNestedGroupsOpenIsMisuse() throws {
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

    @Test func hostileTreeUndoNestedGroupWithOpenGroups() throws {
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

    @Test func hostileTreeEmptyGroupKeptMakesANode() throws {
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

    @Test func hostileTreeEmptyGroupDroppedKeepsTheRedoChoice() throws {
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

    // MARK: History entries, stack group

    @Test func hostileTreeHistoryEntriesCarryTheirNodes() throws {
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

    @Test func hostileTreeStackGroupSwitchesWhateverTheShape() throws {
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

    // MARK: Re-entrancy

    @Test func hostileTreeMovesFromAHandlerAreRefused() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let probe = Counter("probe")
        var misuses: [ActionStack.Misuse] = []
        stack.onMisuse = { misuses.append($0) }
        group(stack) {
            stack.registerUndo(withTarget: probe) { _ in
                _ = try? stack.jump(toNode: node(3))
                _ = try? stack.earlier()
                _ = try? stack.later(by: .seconds(1))
                _ = try? stack.selectRedoBranch(node(2))
            }
        }
        // Node 5: its undo runs the probe handler.
        stack.undo()
        #expect(
            misuses == [
                .reentrantCall(.jumpToNode, during: .undoing),
                .reentrantCall(.earlier, during: .undoing),
                .reentrantCall(.later, during: .undoing),
                .reentrantCall(.selectRedoBranch, during: .undoing),
            ])
        #expect(stack.currentNode == node(4))
        #expect(doc.text == "aX")
    }

    @Test func hostileTreeMovesFromObserversOfAnOperationAreRefused() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let seen = HTBox<[ActionStack.Misuse?]>([])
        let willUndo = observe(ActionStack.willUndoChangeNotification, of: stack) { stack in
            stack.lastMisuse = nil
            _ = try? stack.jump(toNode: node(3))
            seen.value.append(stack.lastMisuse)
            stack.lastMisuse = nil
            _ = try? stack.selectRedoBranch(node(2))
            seen.value.append(stack.lastMisuse)
        }
        stack.undo()
        NotificationCenter.default.removeObserver(willUndo)
        #expect(
            seen.value == [
                .reentrantCall(.jumpToNode, during: .notifyingUndo),
                .reentrantCall(.selectRedoBranch, during: .notifyingUndo),
            ])
        #expect(stack.currentNode == node(1))
        #expect(stack.state.redoNode == node(4))
        // A checkpoint observer of a jump is in `jumping`.
        let jumpSeen = HTBox<[ActionStack.Misuse?]>([])
        let checkpoint = observe(ActionStack.checkpointNotification, of: stack) { stack in
            stack.lastMisuse = nil
            _ = try? stack.later()
            jumpSeen.value.append(stack.lastMisuse)
        }
        stack.beginUndoGrouping()
        doc.replace(with: "open")
        stack.lastMisuse = nil
        try stack.jump(toNode: node(3))
        NotificationCenter.default.removeObserver(checkpoint)
        #expect(jumpSeen.value.contains(.reentrantCall(.later, during: .jumping)))
        #expect(doc.text == "abc")
    }

    @Test func hostileTreeObserversMayMoveAtTheEndOfACall() throws {
        // An app's "follow the newest" observer: after any change, go to the newest node.
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        var moves = 0
        let token = stack.observe { state in
            guard moves < 3, state.currentNode == node(1) else { return }
            moves += 1
            _ = try? stack.later(100)
        }
        stack.undo()  // to 1; the observer moves to the newest (4)
        #expect(stack.lastMisuse == nil)
        #expect(stack.currentNode == node(4))
        #expect(doc.text == "aX")
        _ = token
    }

    @Test func hostileTreeCleanStateObserverJumps() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.markClean()  // 4 clean
        let jumps = HTBox(0)
        let token = observe(ActionStack.cleanStateDidChangeNotification, of: stack) { stack in
            guard jumps.value == 0, !stack.isClean else { return }
            jumps.value += 1
            try? stack.jump(toNode: node(3))
        }
        stack.undo()
        NotificationCenter.default.removeObserver(token)
        #expect(stack.lastMisuse == nil)
        #expect(stack.currentNode == node(3))
        #expect(doc.text == "abc")
        #expect(stack.isClean == false)
    }

    // MARK: Switching shape

    @Test func hostileTreeSwitchingToTreeNumbersTheStepsHeld() throws {
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

    @Test func hostileTreeSwitchingToLinearReleasesBranchHandlers() throws {
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

    @Test func hostileTreeSwitchingShapeFromAJumpHandlerWaits() throws {
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

    @Test func hostileTreeSwitchingShapeBackAndForthInHandlersIsANoOp() throws {
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

    // MARK: Freed during a jump

    @Test func hostileTreeTargetFreedByAJumpStepEndsTheMoveCleanly() throws {
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

    // MARK: Async

    @MainActor @Test func hostileTreeAsyncFailingStepStopsAtTheLastNodeReached() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack, named: "One")  // 1
        try await remote.change(to: 2, on: stack, named: "Two")  // 2
        try await remote.change(to: 3, on: stack, named: "Three")  // 3
        try await stack.performUndo()
        try await stack.performUndo()
        try await remote.change(to: 4, on: stack, named: "Four")  // 4, child of 1
        remote.refused = [3]  // the redo 2 -> 3 fails
        do {
            try await stack.performJump(toNode: node(3))
            Issue.record("should fail")
        } catch {
            if let failure = error.actionFailure {
                #expect(failure.reachedNode == node(2))
            } else {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(stack.currentNode == node(2))
        #expect(remote.value == 2)
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 3, 4], "no node lost")
        remote.refused = []
        #expect(try await stack.performJump(toNode: node(3)))
        #expect(remote.value == 3)
        #expect(try await stack.performJump(toNode: node(4)))
        #expect(remote.value == 4)
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performJump(toNode: node(50)) }
        stack._checkInvariants()
    }

    @MainActor @Test func hostileTreeChangeWhileAnAsyncUndoAwaitsKeepsTheBranch() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")  // 1
        try await remote.change(to: 2, on: stack, named: "Two")  // 2
        let undo = Task { try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        // Another task (here: the test) makes a change while the undo awaits.
        let other = Counter("other")
        stack.beginUndoGrouping()
        other.set(7, on: stack)
        stack.setActionName("Other")
        stack.endUndoGrouping()
        gate.openForGood()
        _ = try? await undo.value
        let tree = try #require(stack.historyTree)
        // The undone step "Two" must survive as a branch (the docs' promise).
        #expect(tree.nodes.contains { $0.actionName == "Two" })
        #expect(tree[tree.current] != nil)
        // Every node reachable, and the document matches the node after jumps.
        for leaf in tree.leaves {
            try await stack.performJump(toNode: leaf.id)
            #expect(stack.currentNode == leaf.id)
        }
        stack._checkInvariants()
    }

    @MainActor @Test func hostileTreeSyncJumpOnMainActorStartsARequest() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack, named: "One")
        try await remote.change(to: 2, on: stack, named: "Two")
        try await stack.performUndo()
        try await remote.change(to: 3, on: stack, named: "Three")
        try stack.jump(toNode: node(2))
        #expect(stack.startedRequest != nil)
        #expect(stack.lastMisuse == nil)
        await settle(until: { stack.currentNode == node(2) && !stack.state.isBusy })
        #expect(stack.currentNode == node(2))
        #expect(remote.value == 2)
        // selectRedoBranch while an operation is queued is notWhileAsync.
        try stack.jump(toNode: node(0))
        try stack.selectRedoBranch(node(1))
        #expect(stack.lastMisuse == .notWhileAsync(.selectRedoBranch) || stack.lastMisuse == nil)
        await settle(until: { !stack.state.isBusy })
        #expect(remote.value == 0)
    }

    // MARK: Second wave

    @Test func hostileTreeJumpToANegativeNodeThrows() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(-1))) { try stack.jump(toNode: node(-1)) }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(Int.min))) {
            try stack.jump(toNode: node(Int.min))
        }
        #expect(doc.text == "aX")
    }

    @Test func hostileTreeShapeSetInsideAThrowingScopeWaitsForTheScope() throws {
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

    @Test func hostileTreeSwitchingToTreeWithAGroupOpen() throws {
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

    @Test func hostileTreeSwitchingToLinearWithAGroupOpenKeepsTheGroup() throws {
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

    @Test func hostileTreeMaximumBranchStepsSetFromAJumpHandler() throws {
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

    @Test func hostileTreeTargetFreedOnTheWayToTheJumpTarget() throws {
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

    @Test func hostileTreeMarkCleanFromADidRedoObserverOfAJump() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let marked = HTBox(false)
        let token = observe(ActionStack.didRedoChangeNotification, of: stack) { stack in
            guard !marked.value else { return }
            marked.value = true
            stack.markClean()  // allowed in notifyingRedo: the document is in node 2 now
        }
        try stack.jump(toNode: node(3))
        NotificationCenter.default.removeObserver(token)
        #expect(stack.lastMisuse == nil)
        #expect(stack.historyTree?.clean == node(2))
        #expect(stack.isClean == false)
        stack.undo()
        #expect(stack.isClean)
        #expect(doc.text == "ab")
    }

    @Test func hostileTreeSelectingTheRedoChoiceAgainDoesNothing() throws {
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

    @Test func hostileTreeUndoClosingAnEventGroupThenRedoEntersIt() throws {
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

    @Test func hostileTreeStackGroupHearsARedoChoice() throws {
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

    @Test func hostileTreeSnapshotReadFromAHandlerMidJump() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let probe = Counter("probe")
        var seen: ActionStack.HistoryTree?
        func arm() {
            stack.registerUndo(withTarget: probe) { _ in
                seen = stack.historyTree
                arm()
            }
        }
        group(stack) { arm() }  // 5
        try stack.jump(toNode: node(3))
        let mid = try #require(seen)
        // Documented (historyTree): read mid-operation, the step in flight is not in the snapshot.
        #expect(mid.nodes.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(mid.current == node(4) || mid.current == node(5))
        #expect(mid[mid.current] != nil)
        #expect(doc.text == "abc")
    }

    @Test func hostileTreeLevelsOfUndoSetFromAJumpHandler() throws {
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

    @MainActor @Test func hostileTreeChangeDuringAnAsyncJumpEndsItAfterTheStep() async throws {
        let stack = makeAsyncStack()
        stack.historyShape = .tree
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack, named: "One")  // 1
        try await remote.change(to: 2, on: stack, named: "Two")  // 2
        try await remote.change(to: 3, on: stack, named: "Three")  // 3
        gate.isClosed = false
        try await stack.performUndo()
        try await stack.performUndo()
        try await stack.performUndo()
        try await remote.change(to: 9, on: stack, named: "Nine")  // 4, child of 0
        gate.isClosed = true
        let jump = Task { try await stack.performJump(toNode: node(3)) }
        await settle(until: { gate.waitingCount == 1 })  // undoing 4
        let other = Counter("other")
        group(stack, named: "Other") { other.set(7, on: stack) }
        gate.openForGood()
        let moved = try? await jump.value
        #expect(moved == true)
        await settle(until: { !stack.state.isBusy })
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.contains { $0.actionName == "Three" }, "no branch lost")
        #expect(tree.nodes.contains { $0.actionName == "Nine" })
        #expect(tree.nodes.contains { $0.actionName == "Other" })
        #expect(stack.currentNode != node(3), "the move ended after the step in flight")
        stack._checkInvariants()
        // Every leaf still reachable, and the remote value matches.
        for leaf in tree.leaves where leaf.actionName != "Other" {
            try await stack.performJump(toNode: leaf.id)
            #expect(stack.currentNode == leaf.id)
        }
    }
}
