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

// Where the branching history meets the rest of the stack: one or more tests per promise of the
// contract (weak targets, removal, clean state, coalescing, scoped groups, stack groups, history
// entries, misuse, limits, notifications, shape changes, errors, empty groups, event groups).

/// Everything a caller can see of a tree stack, to check that a call changed nothing.
private struct Seen: Equatable {
    var tree: ActionStack.HistoryTree?
    var state: ActionStack.State
    var text: String
    var redoBranches: [ActionStack.HistoryNode.ID]

    init(_ stack: ActionStack, _ document: TreeDoc) {
        tree = stack.historyTree
        state = stack.state
        text = document.text
        redoBranches = stack.redoBranches
    }
}

/// A text field whose typing coalesces into one step, as ``ActionStack/RegistrationOptions``'
/// example types.
private final class Field {
    var text = ""

    func type(_ character: Character, on stack: ActionStack) {
        text.append(character)
        stack.registerUndo(withTarget: self, options: .coalescing("typing")) { [unowned stack] field in
            field.deleteLast(on: stack)
        }
    }

    func deleteLast(on stack: ActionStack) {
        let character = text.removeLast()
        stack.registerUndo(withTarget: self) { [unowned stack] field in field.type(character, on: stack) }
    }
}

// MARK: - Weak targets, removal, steps left empty

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

// MARK: - Clean state

struct BranchingCleanStateTests {
    @Test func aCleanNodeOnAnotherBranchIsExactAfterEveryMove() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.markClean()
        stack.undo()
        document.set("ac")  // 3
        stack.undo()
        stack.undo()
        document.set("x")  // 4
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[2,3] 2:[] 3:[] *4:[]")
        #expect(!stack.isClean)
        for target in [2, 0, 3, 1, 2, 4, 2] {
            try stack.jump(toNode: node(target))
            #expect(stack.isClean == (target == 2), "at node \(target)")
            #expect(stack.state.isClean == (target == 2))
            let tree = try #require(stack.historyTree)
            #expect(tree.clean == node(2), "the clean node is known from anywhere (at \(target))")
            #expect(tree.nodes.filter(\.isClean).map(\.sequence) == [2])
        }
        // Time moves too: 2 -> 1 -> 0, then forward 1 -> 2.
        try stack.earlier()
        #expect(!stack.isClean)
        try stack.later()
        #expect(stack.isClean)
        // A change from the clean node is not clean; coming back is.
        document.set("abd")  // 5, child of 2
        #expect(!stack.isClean)
        stack.undo()
        #expect(stack.isClean)
        #expect(stack.historyTree?.clean == node(2))
        stack._checkInvariants()
    }

    @Test func aCleanRootIsCleanAgainAfterMovesThroughBranches() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        stack.markClean()
        document.set("a")
        stack.undo()
        document.set("b")
        document.set("bc")
        #expect(stack.historyTree?.clean == node(0))
        try stack.jump(toNode: node(1))
        #expect(!stack.isClean)
        #expect(try stack.earlier(100) == node(0))
        #expect(stack.isClean)
        #expect(try stack.later(by: .seconds(1)) == node(3))
        #expect(!stack.isClean)
    }

    @Test func aCleanNodeThatIsPrunedLeavesNoCleanNode() throws {
        let stack = makeTreeStack()
        stack.maximumBranchSteps = 1
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.markClean()
        stack.undo()
        stack.undo()
        document.set("x")  // 3: the branch [1, 2] is cut to [1]
        #expect(shape(stack.historyTree) == "0:[1,3] 1:[] *3:[]")
        #expect(stack.historyTree?.clean == nil)
        for target in [1, 0, 3] {
            try stack.jump(toNode: node(target))
            #expect(!stack.isClean)
        }
    }

    @Test func cleanMarkerOnAnyNode() throws {
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

    @Test func cleanNodePrunedIsNeverCleanAgain() throws {
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
}

// MARK: - Coalescing

struct BranchingCoalescingTests {
    enum Move: CaseIterable { case jump, timeMove }

    /// Typing coalesces within a branch, and a tree move ends it: back at the node typed last,
    /// the next keystroke is a new node, never part of the old step.
    @Test(arguments: Move.allCases)
    func aTreeMoveEndsCoalescing(move: Move) throws {
        let stack = makeTreeStack()
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        let field = Field()
        func type(_ character: Character) {
            field.type(character, on: stack)
            stack.endEvent()
        }
        type("a")
        type("b")
        #expect(shape(stack.historyTree) == "0:[1] *1:[]")
        #expect(stack.historyTree?[node(1)]?.actionCount == 2, "typing coalesces")
        stack.undo()
        type("x")  // 2, a fork at the root
        #expect(shape(stack.historyTree) == "0:[1,2] 1:[] *2:[]")
        switch move {
        case .jump:
            try stack.jump(toNode: node(1))
            #expect(field.text == "ab")
            try stack.jump(toNode: node(2))
        case .timeMove:
            #expect(try stack.earlier() == node(1))
            #expect(field.text == "ab")
            #expect(try stack.later() == node(2))
        }
        #expect(field.text == "x")
        type("y")
        #expect(shape(stack.historyTree) == "0:[1,2] 1:[] 2:[3] *3:[]", "a new node, not a join")
        #expect(stack.historyTree?[node(2)]?.actionCount == 1)
        type("z")
        #expect(stack.historyTree?[node(3)]?.actionCount == 2, "coalescing goes on in the new branch")
        stack.undo()
        #expect(field.text == "x")
        try stack.jump(toNode: node(1))
        #expect(field.text == "ab")
        stack._checkInvariants()
    }

    @Test func coalescingNeverGrowsAcrossAFork() throws {
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
}

// MARK: - Scoped groups

struct BranchingScopedGroupTests {
    /// A scoped group whose body throws leaves the tree as it was: the branch its registration
    /// left is entered again (the redo choice restored), nothing is pruned (the limit is applied
    /// after the rollback), and no number is taken.
    @Test(arguments: [false, true])
    func aThrowingScopedGroupLeavesTheTreeExactlyAsItWas(groupsByEvent: Bool) throws {
        let stack = makeTreeStack()
        stack.maximumBranchSteps = 1
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        document.set("ac")  // 3
        stack.undo()
        try stack.selectRedoBranch(node(2))
        stack.groupsByEvent = groupsByEvent  // the scope's begin opens the event's group too
        stack.automaticGroupClosing = .manual
        let before = Seen(stack, document)
        #expect(before.state.redoNode == node(2))
        #expect(shape(before.tree) == "0:[1] *1:[2,3] 2:[] 3:[]")

        #expect(throws: Failure.self) {
            try stack.group(named: "Fail") {
                document.replace(with: "zzz")
                document.replace(with: "zzzz")
                throw Failure()
            }
        }
        #expect(Seen(stack, document) == before)
        #expect(stack.groupingLevel == 0)
        stack.redo()
        #expect(document.text == "ab", "redo still enters the chosen branch")
        stack.undo()
        stack.groupsByEvent = false
        document.set("ad")
        #expect(stack.currentNode == node(4), "the failed scope took no number")
        stack._checkInvariants()
    }

    @Test func aScopedGroupThatSucceedsIsOneNode() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")
        stack.undo()
        stack.group(named: "Both") {
            document.replace(with: "b")
            document.replace(with: "bc")
        }
        let tree = try #require(stack.historyTree)
        #expect(shape(tree) == "0:[1,2] 1:[] *2:[]")
        #expect(tree[node(2)]?.actionName == "Both")
        #expect(tree[node(2)]?.actionCount == 2)
        #expect(tree[node(2)]?.title == "Undo Both")
        #expect(tree[node(1)]?.title == "Redo Edit")
    }

    @Test func throwingScopedGroupLeavesTheTreeAsItWas() throws {
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

    @Test func throwingScopedGroupWithEventGroupLeavesTheTreeAsItWas() throws {
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
}

// MARK: - Stack groups

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

// MARK: - History entries

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

// MARK: - Misuse

struct BranchingMisuseTests {
    /// 0 - 1 - {2, 3 - 4}, at 4, whose undo handler runs `body`.
    private func makeTree(_ body: @escaping (ActionStack) -> Void) -> (ActionStack, TreeDoc, MisuseLog) {
        let stack = makeTreeStack()
        let misuses = MisuseLog(stack)
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        document.set("ac")  // 3
        group(stack) {
            stack.registerUndo(withTarget: document) { document in
                body(stack)
                document.replace(with: "ac")
            }
            document.text = "acd"
        }  // 4
        return (stack, document, misuses)
    }

    @Test func treeMovesFromAHandlerAreRefusedAndChangeNothing() throws {
        let (stack, document, misuses) = makeTree { stack in
            _ = try? stack.jump(toNode: node(0))
            _ = try? stack.selectRedoBranch(node(2))
            _ = try? stack.earlier()
            _ = try? stack.later()
            _ = try? stack.earlier(by: .seconds(60))
            _ = try? stack.later(by: .seconds(60))
        }
        stack.undo()
        #expect(
            misuses.all == [
                .reentrantCall(.jumpToNode, during: .undoing),
                .reentrantCall(.selectRedoBranch, during: .undoing),
                .reentrantCall(.earlier, during: .undoing),
                .reentrantCall(.later, during: .undoing),
                .reentrantCall(.earlier, during: .undoing),
                .reentrantCall(.later, during: .undoing),
            ])
        #expect(document.text == "ac")
        #expect(stack.currentNode == node(3))
        #expect(stack.state.redoNode == node(4))
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[] *3:[4] 4:[]")
        stack._checkInvariants()
    }

    @Test func treeMovesFromNotificationObserversAreRefusedAndChangeNothing() throws {
        let stack = makeTreeStack()
        let misuses = MisuseLog(stack)
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        document.set("ac")  // 3
        let hooks = [
            NotificationHook(ActionStack.willUndoChangeNotification, stack) { _ = try? $0.jump(toNode: node(0)) },
            NotificationHook(ActionStack.didUndoChangeNotification, stack) { _ = try? $0.earlier(2) },
            NotificationHook(ActionStack.willRedoChangeNotification, stack) { _ = try? $0.selectRedoBranch(node(2)) },
            NotificationHook(ActionStack.didRedoChangeNotification, stack) { _ = try? $0.later() },
            NotificationHook(ActionStack.willCloseUndoGroupNotification, stack) { _ = try? $0.jump(toNode: node(1)) },
        ]
        stack.undo()
        #expect(
            misuses.all == [
                .reentrantCall(.jumpToNode, during: .notifyingUndo),
                .reentrantCall(.earlier, during: .notifyingUndo),
            ])
        #expect(stack.currentNode == node(1))
        #expect(document.text == "a")
        stack.redo()
        #expect(stack.currentNode == node(3))
        #expect(document.text == "ac")
        // During a jump: each step's observers are refused too, and the jump ends where it meant.
        try stack.jump(toNode: node(2))
        #expect(stack.currentNode == node(2))
        #expect(document.text == "ab")
        // A group's will-close observer is refused as well.
        document.set("abx")  // 4
        #expect(stack.currentNode == node(4))
        #expect(
            misuses.all == [
                .reentrantCall(.jumpToNode, during: .notifyingUndo),
                .reentrantCall(.earlier, during: .notifyingUndo),
                .reentrantCall(.selectRedoBranch, during: .notifyingRedo),
                .reentrantCall(.later, during: .notifyingRedo),
                // The jump 3 -> 1 -> 2: one undo, one redo.
                .reentrantCall(.jumpToNode, during: .notifyingUndo),
                .reentrantCall(.earlier, during: .notifyingUndo),
                .reentrantCall(.selectRedoBranch, during: .notifyingRedo),
                .reentrantCall(.later, during: .notifyingRedo),
                .reentrantCall(.jumpToNode, during: .closingGroup),
            ])
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[4] 3:[] *4:[]")
        withExtendedLifetime(hooks) {}
        stack._checkInvariants()
    }

    @Test func movesFromAHandlerAreRefused() throws {
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

    @Test func movesFromObserversOfAnOperationAreRefused() throws {
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

    @Test func observersMayMoveAtTheEndOfACall() throws {
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

    @Test func cleanStateObserverJumps() throws {
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

    @Test func markCleanFromADidRedoObserverOfAJump() throws {
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
}

// MARK: - Removing everything, levels, cost, branch limits

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

// MARK: - Notifications and observation

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

// MARK: - Open groups, empty groups, event groups

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

// MARK: - Shape

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

// MARK: - Errors

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
        // While the undo is in flight, the redo stack [3, 4] waits to be left as a branch: it hangs
        // from the new change until the undo settles, and the tree stays consistent meanwhile.
        #expect(stack._invariantViolations() == [])
        #expect(stack.redoBranches == [node(3)])
        gate.openForGood()
        _ = try await undo.value
        stack._checkInvariants()
        // The undo settled below the new change: 5 hangs from 1, and the redo stack [2, 3, 4] left
        // as a branch, cut to its first step.
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,5] 2:[] *5:[]")
        withExtendedLifetime((remote, counter)) {}
    }
}

// MARK: - Time moves by duration, moves that re-plan

struct BranchingTimeAndWayTests {
    /// earlier(by:) goes to the newest node dated at or before the current node's date minus the
    /// duration (the root when none), later(by:) to the oldest dated at or after its date plus the
    /// duration (the newest when none), across branches. A clock that goes back dates a node as the
    /// last one.
    @Test func timeMovesByDurationFollowTheNodesDates() throws {
        let clock = ManualClock()
        let start = clock.now
        let stack = makeTreeStack(clock: clock)
        let document = TreeDoc(stack: stack)
        func change(_ text: String) {
            clock.advance(seconds: 10)
            document.set(text)
        }
        change("a")  // 1 at +10
        change("ab")  // 2 at +20
        change("abc")  // 3 at +30
        stack.undo()
        stack.undo()
        change("ax")  // 4 at +40
        change("axy")  // 5 at +50
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map { $0.date.timeIntervalSince(start) } == [0, 10, 20, 30, 40, 50])

        #expect(try stack.earlier(by: .milliseconds(500)) == node(4))
        #expect(try stack.earlier(by: .seconds(15)) == node(2), "dated 20 <= 40 - 15, on the other branch")
        #expect(document.text == "ab")
        #expect(try stack.later(by: .seconds(15)) == node(4), "the oldest dated >= 35")
        #expect(document.text == "ax")
        #expect(try stack.later(by: .seconds(1000)) == node(5), "none that late: the newest")
        #expect(try stack.earlier(by: .seconds(1000)) == node(0), "none that early: the root")
        #expect(document.text == "")
        #expect(try stack.later(by: .seconds(30)) == node(3))
        #expect(document.text == "abc")

        clock.advance(seconds: -100)
        change("abcd")  // 6: the clock went back
        #expect(stack.historyTree?[node(6)]?.date == stack.historyTree?[node(5)]?.date)
    }

    /// A jump sweeps freed targets between its steps: when a handler on the way frees the target of
    /// a step further on, that step's node goes and the jump still reaches its target.
    @Test func aJumpReplansWhenAStepOnTheWayGoes() throws {
        final class Holder { var counter: Counter? = Counter("b") }
        let stack = makeTreeStack()
        let a = Counter("a")
        let holder = Holder()
        group(stack) { a.set(1, on: stack) }  // 1
        group(stack) { holder.counter!.set(1, on: stack) }  // 2: only b
        group(stack) { a.set(3, on: stack) }  // 3
        stack.undo()
        stack.undo()
        stack.undo()
        group(stack) {  // 4: its undo frees b
            stack.registerUndo(withTarget: a) { a in
                holder.counter = nil
                a.set(0, on: stack)
            }
            a.value = 4
        }
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[2] 2:[3] 3:[] *4:[]")
        let recorder = NotificationRecorder(stack)
        try stack.jump(toNode: node(3))
        #expect(stack.currentNode == node(3))
        #expect(a.value == 3)
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[3] *3:[] 4:[]")
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo", "WillRedo", "DidRedo", "WillRedo", "DidRedo"])
        stack._checkInvariants()
    }

    /// When the chain redo would enter goes (its target freed), redo has nothing to enter; the
    /// other children stay, and choosing one makes redo enter it.
    @Test func whenTheRedoChainGoesTheOtherBranchesCanStillBeChosen() throws {
        let stack = makeTreeStack()
        let a = Counter("a")
        var b: Counter? = Counter("b")
        group(stack) { a.set(1, on: stack) }  // 1
        group(stack) { a.set(2, on: stack) }  // 2
        stack.undo()
        group(stack) { b!.set(3, on: stack) }  // 3: only b
        stack.undo()  // at 1: children 2 and 3, redo enters 3
        #expect(stack.state.redoNode == node(3))
        b = nil
        #expect(shape(stack.historyTree) == "0:[1] *1:[2] 2:[]")
        #expect(stack.redoBranches == [node(2)])
        #expect(stack.state.redoNode == nil)
        #expect(!stack.canRedo, "redo enters the child entered last, which is gone")
        try stack.selectRedoBranch(node(2))
        #expect(stack.state.redoNode == node(2))
        stack.redo()
        #expect(stack.currentNode == node(2))
        #expect(a.value == 2)
        stack._checkInvariants()
    }

    @Test func earlierLaterByCount() throws {
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

    @Test func laterByAHugeCountStopsAtTheNewest() async {
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

    @Test func timeMovesPassOverMissingNumbers() throws {
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

    @Test func earlierLaterByDuration() throws {
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

    @Test func earlierByDurationWithAClockThatWentBack() throws {
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
}
