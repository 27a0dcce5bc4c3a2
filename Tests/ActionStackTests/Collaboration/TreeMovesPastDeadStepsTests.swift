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
        let tree = DeadStepsText("xyz")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
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
        let tree = DeadStepsText("xyz")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
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
        let tree = DeadStepsText("xyz")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
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
        let tree = DeadStepsText("xyz")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
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
        let tree = DeadStepsText("xyz")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
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
        let tree = DeadStepsText("xyz")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
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

    /// #1 types "abc"; #2 types "TE" (its anchor); #3 erases "b" (a branch off #2); #4 types "Z";
    /// then the peer erases "b" and "TE": #3 and #2 both have nothing left to do, and nothing has
    /// looked at either. Back by one from #4 resolves to #3, found dead in its branch (the walk
    /// ends on #2); resolved again, the move reaches #2, the node it stands on, whose step is dead
    /// too: passed over as well, to #1. Found by a soak of the collaborative driver (seed 1001557).
    func twoDeadNodes(savedFirst: Bool) throws -> SharedText {
        let tree = DeadStepsText("")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
        step { doc.type("abc", at: 0) }  // #1 "abc"
        step { doc.type("TE", at: 3) }  // #2 "abcTE"
        step { doc.erase("b", at: 1) }  // #3 "acTE"
        stack.undo()
        step { doc.type("Z", at: 0) }  // #4 "ZabcTE", #3 a branch off #2
        doc.receive(.delete("b", at: 2))
        doc.receive(.delete("TE", at: 3))
        #expect(doc.text == "Zac")
        if savedFirst { _ = try stack.savedHistory() }
        return doc
    }

    @Test(arguments: [false, true])
    func aMoveInTimeThatEndsOnADeadBranchsAnchorPassesOverTheAnchorToo(savedFirst: Bool) throws {
        let doc = try twoDeadNodes(savedFirst: savedFirst)
        let reached = try doc.stack.earlier(1)
        #expect(reached.sequence == 1)
        #expect(doc.stack.currentNode?.sequence == 1)
        #expect(doc.text == "ac")
        #expect(doc.stack.historyTree?.nodes.map(\.id.sequence).sorted() == [0, 1, 4])
        #expect(doc.stack.undoCount == 1)
        doc.stack.redo()
        #expect(doc.text == "Zac")
        #expect(doc.stack.currentNode?.sequence == 4)
    }

    /// #1 types "abc"; #2 types "X" (a branch); #3 erases "b" and #4 erases "c" (a branch of two
    /// steps); #5 types "Z"; then the peer erases "bc", which leaves #3 and #4 with nothing to do.
    /// Back by one from #5 resolves to #4; the walk enters the branch, where #3 and #4 are both
    /// found dead at once, so #4 went on the way without being reached: the move passes over its
    /// number to the next older node, #2, as it passes over a number found dead when reached.
    /// Found by a soak of the collaborative driver (seed 1002455).
    @Test(arguments: [false, true])
    func aMoveInTimeWhoseTargetDiesWithTheStepBeforeItGoesOnToTheNextOlderNode(savedFirst: Bool) throws {
        let tree = DeadStepsText("")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
        step { doc.type("abc", at: 0) }  // #1 "abc"
        step { doc.type("X", at: 3) }  // #2 "abcX"
        stack.undo()
        step { doc.erase("b", at: 1) }  // #3 "ac"
        step { doc.erase("c", at: 1) }  // #4 "a"
        stack.undo()
        stack.undo()
        step { doc.type("Z", at: 0) }  // #5 "Zabc"
        doc.receive(.delete("bc", at: 2))
        #expect(doc.text == "Za")
        if savedFirst { _ = try stack.savedHistory() }
        let reached = try stack.earlier(1)
        #expect(reached.sequence == 2)
        #expect(stack.currentNode?.sequence == 2)
        #expect(doc.text == "aX")
        #expect(stack.historyTree?.nodes.map(\.id.sequence).sorted() == [0, 1, 2, 5])
    }

    /// The same with steps that await (the move is a request, which finds its target when it
    /// starts): it passes over both dead nodes to #1 too, as the synchronous move does.
    @Test func anAwaitedMoveInTimeThatEndsOnADeadBranchsAnchorPassesOverTheAnchorToo() async throws {
        let tree = DeadStepsText("")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.awaitedStep)
        step(.insert("abc", at: 0))
        step(.insert("TE", at: 3))
        step(.delete("b", at: 1))
        try await stack.performUndo()
        step(.insert("Z", at: 0))
        doc.receive(.delete("b", at: 2))
        doc.receive(.delete("TE", at: 3))
        #expect(doc.text == "Zac")
        try stack.earlier(1)
        let request = try #require(stack.startedRequest)
        _ = try await request.value()
        #expect(stack.currentNode?.sequence == 1)
        #expect(doc.text == "ac")
        #expect(stack.historyTree?.nodes.map(\.id.sequence).sorted() == [0, 1, 4])
        #expect(stack.undoCount == 1)
    }

    /// A jump with steps that await, to a node whose step is dead (found so when the jump reaches
    /// it), ends on its parent, whose state it is, as the synchronous jump does.
    @Test func anAwaitedJumpToADeadNodeEndsOnItsParent() async throws {
        let tree = DeadStepsText("")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.awaitedStep)
        step(.insert("abc", at: 0))  // #1
        step(.insert("TE", at: 3))  // #2
        step(.insert("Z", at: 0))  // #3
        doc.receive(.delete("TE", at: 4))
        try await stack.performJump(toNode: .init(sequence: 2))
        #expect(stack.currentNode?.sequence == 1)
        #expect(doc.text == "abc")
        #expect(stack.undoCount == 1)
    }
}

/// A shared text on a branching history whose steps are explicit groups.
@MainActor struct DeadStepsText {
    let doc: SharedText
    var stack: ActionStack { doc.stack }

    init(_ text: String) {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        doc = SharedText(text, stack: stack)
    }

    /// One step: the edits `body` makes, in a group.
    func step(_ body: () -> Void) {
        stack.beginUndoGrouping()
        body()
        stack.endUndoGrouping()
    }

    /// One step whose inverse awaits: `edit`, applied, in a group.
    func awaitedStep(_ edit: TextEdit) {
        stack.beginUndoGrouping()
        try! edit.apply(to: &doc.text)
        stack.registerAsyncUndo(AwaitedTextCommand(edit: edit.inverse), on: doc, key: SharedText.key)
        stack.endUndoGrouping()
    }
}

/// An edit of a shared text that awaits (nothing: it is performed at once), and moves past a
/// peer's edits.
private struct AwaitedTextCommand: AsyncUndoCommand, RebasableCommand {
    static let commandType = "test.text.awaited-dead"
    var edit: TextEdit

    nonisolated(nonsending) func perform(on document: SharedText, in stack: ActionStack) async throws {
        try edit.apply(to: &document.text)
        stack.registerAsyncUndo(AwaitedTextCommand(edit: edit.inverse), on: document, key: SharedText.key)
    }

    func rebased(over change: TextEdit) -> AwaitedTextCommand? { edit.rebased(over: change).map(Self.init) }
    func transform(_ change: TextEdit) -> TextEdit? { edit.transform(change) }
}
