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
        let clock = TestClock()
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
        let stack = makeTreeStack(clock: TestClock(), groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
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
        let clock = TestClock()
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
}
