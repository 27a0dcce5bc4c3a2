// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Testing

/// Moves in a branching history past a step that remote changes left with nothing to do, before
/// anything found it dead: where they land does not depend on whether the stack has looked at the
/// step yet (a save, which rebases every step, makes no difference). Found by the collaborative
/// driver on a branching history (seed 20002).
@Suite @MainActor struct TreeMovesPastDeadStepsTests {
    /// "xyz" from a peer; #1 types "A"; #2 types "C" (a branch); #3 erases "y" (a branch); #4 types
    /// "D"; then the peer erases "y", which leaves #3 with nothing to do.
    func document(savedFirst: Bool) throws -> SharedText {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        let doc = SharedText("xyz", stack: stack)
        func step(_ body: () -> Void) {
            stack.beginUndoGrouping()
            body()
            stack.endUndoGrouping()
        }
        step { doc.type("A", at: 0) }
        step { doc.type("C", at: 4) }
        stack.undo()
        step { doc.erase("y", at: 2) }
        stack.undo()
        step { doc.type("D", at: 0) }
        #expect(doc.text == "DAxyz")
        doc.receive(.delete("y", at: 3))
        #expect(doc.text == "DAxz")
        if savedFirst { _ = try stack.savedHistory() }
        return doc
    }

    @Test(arguments: [false, true])
    func aMoveBackInTimePassesOverANodeWhoseStepIsDead(savedFirst: Bool) throws {
        let doc = try document(savedFirst: savedFirst)
        // Back by one from #4 is #3, whose step does nothing now: passed over, as a removed node
        // is, to #2.
        let reached = try doc.stack.earlier(1)
        #expect(reached.sequence == 2)
        #expect(doc.stack.currentNode?.sequence == 2)
        #expect(doc.text == "AxzC")
    }

    @Test(arguments: [false, true])
    func aJumpToANodeWhoseStepIsDeadLandsOnItsParent(savedFirst: Bool) throws {
        let doc = try document(savedFirst: savedFirst)
        if savedFirst {
            // The save found #3 dead: it is gone.
            #expect(throws: ActionStack.HistoryTreeError.noSuchNode(.init(sequence: 3))) {
                try doc.stack.jump(toNode: .init(sequence: 3))
            }
            try doc.stack.jump(toNode: .init(sequence: 1))
        } else {
            // #3's state is its parent's: the jump ends there, and nothing beyond it runs.
            try doc.stack.jump(toNode: .init(sequence: 3))
        }
        #expect(doc.stack.currentNode?.sequence == 1)
        #expect(doc.text == "Axz")
        #expect(doc.stack.historyTree?[.init(sequence: 3)] == nil)
    }

    @Test func aJumpToADeadNodeWithAChildEndsOnItsParentNotOnTheChild() throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        let doc = SharedText("xyz", stack: stack)
        func step(_ body: () -> Void) {
            stack.beginUndoGrouping()
            body()
            stack.endUndoGrouping()
        }
        step { doc.type("A", at: 0) }  // #1
        step { doc.erase("y", at: 2) }  // #2
        step { doc.type("E", at: 3) }  // #3, after #2
        stack.undo()
        stack.undo()
        step { doc.type("D", at: 0) }  // #4: #2 and #3 are a branch
        doc.receive(.delete("y", at: 3))
        #expect(doc.text == "DAxz")
        // #2 does nothing now: its state is #1's. The jump ends there; #3's "E" is not typed, and
        // the dead branch leaves no trace: redo enters #4, which the undo came from.
        try stack.jump(toNode: .init(sequence: 2))
        #expect(doc.text == "Axz")
        #expect(stack.currentNode?.sequence == 1)
        #expect(stack.canRedo)
        stack.redo()
        #expect(doc.text == "DAxz")
        #expect(stack.currentNode?.sequence == 4)
    }

    /// "xyz"; #1 types "G" (a branch); #2 types "O"; #3 types "A"; the peer erases the "O", which
    /// leaves #2 (on the current path) with nothing to do. Back by one or by two, the move passes
    /// #2 on the way up and goes on into #1's branch (seed 20012 stopped at the root).
    @Test(arguments: [1, 2])
    func aMoveBackInTimeGoesOnPastADeadStepOnTheWayUp(count: Int) throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        let doc = SharedText("xyz", stack: stack)
        func step(_ body: () -> Void) {
            stack.beginUndoGrouping()
            body()
            stack.endUndoGrouping()
        }
        step { doc.type("G", at: 0) }
        stack.undo()
        step { doc.type("O", at: 0) }
        step { doc.type("A", at: 1) }
        doc.receive(.delete("O", at: 0))
        #expect(doc.text == "Axyz")
        let reached = try stack.earlier(count)
        #expect(reached.sequence == 1)
        #expect(stack.currentNode?.sequence == 1)
        #expect(doc.text == "Gxyz")
    }

    /// "xyz"; #1 types "A"; #2 erases "y"; #3 types "E" after it; back at #1, #4 types "D"; the peer
    /// erases "y", which leaves #2 with nothing to do. A jump to #3 passes #2 on the way down and
    /// lands on #3, awaited or not (the awaited jump of seed 30016 stopped before the dead step).
    @Test(arguments: [false, true])
    func aJumpPastADeadStepOnTheWayDownLandsOnTheTarget(awaited: Bool) async throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        let doc = SharedText("xyz", stack: stack)
        func step(_ body: () -> Void) {
            stack.beginUndoGrouping()
            body()
            stack.endUndoGrouping()
        }
        step { doc.type("A", at: 0) }  // #1
        step { doc.erase("y", at: 2) }  // #2
        step { doc.type("E", at: 3) }  // #3
        stack.undo()
        stack.undo()
        step { doc.type("D", at: 0) }  // #4
        doc.receive(.delete("y", at: 3))
        #expect(doc.text == "DAxz")
        if awaited {
            #expect(try await stack.performJump(toNode: .init(sequence: 3)))
        } else {
            try stack.jump(toNode: .init(sequence: 3))
        }
        #expect(stack.currentNode?.sequence == 3)
        #expect(doc.text == "AxzE")
        #expect(stack.undoActionName == "")
        stack.undo()
        #expect(doc.text == "Axz")
        #expect(stack.currentNode?.sequence == 1)
    }

    /// The way up of seed 30016's awaited jump: "xyz"; #1 types "G" (a branch); #2 types "O"; #3
    /// types "A"; the peer erases the "O". A jump to #1 passes #2 (dead) on the way up.
    @Test(arguments: [false, true])
    func aJumpPastADeadStepOnTheWayUpLandsOnTheTarget(awaited: Bool) async throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        let doc = SharedText("xyz", stack: stack)
        func step(_ body: () -> Void) {
            stack.beginUndoGrouping()
            body()
            stack.endUndoGrouping()
        }
        step { doc.type("G", at: 0) }
        stack.undo()
        step { doc.type("O", at: 0) }
        step { doc.type("A", at: 1) }
        doc.receive(.delete("O", at: 0))
        if awaited {
            #expect(try await stack.performJump(toNode: .init(sequence: 1)))
        } else {
            try stack.jump(toNode: .init(sequence: 1))
        }
        #expect(stack.currentNode?.sequence == 1)
        #expect(doc.text == "Gxyz")
    }

    /// Seed 20058: "xyz"; #1 types "A"; #2 erases "y", undone; #3 types "B" (#2 a branch); the peer
    /// erases "y". The redo choice a move leaves is the one it would leave had the dead step been
    /// found before: back by one from #3, the move resolves to #2, finds it dead, and lands on #1
    /// with redo entering #3, which the undo came from.
    @Test(arguments: [false, true])
    func aMoveThatFindsADeadBranchKeepsTheRedoChoice(savedFirst: Bool) throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        let doc = SharedText("xyz", stack: stack)
        func step(_ body: () -> Void) {
            stack.beginUndoGrouping()
            body()
            stack.endUndoGrouping()
        }
        step { doc.type("A", at: 0) }  // #1 "Axyz"
        step { doc.erase("y", at: 2) }  // #2 "Axz"
        stack.undo()
        step { doc.type("B", at: 4) }  // #3 "AxyzB", #2 a branch
        doc.receive(.delete("y", at: 2))  // #2 has nothing left to do
        #expect(doc.text == "AxzB")
        if savedFirst { _ = try stack.savedHistory() }
        // Back by one from #3 is #2, dead: passed over to #1, reached by undoing #3.
        #expect(try stack.earlier(1).sequence == 1)
        #expect(doc.text == "Axz")
        #expect(stack.canRedo)
        stack.redo()
        #expect(doc.text == "AxzB")
        #expect(stack.currentNode?.sequence == 3)
    }
}
