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

/// The remote changes a step had not seen reach every step that applies where it applied, when
/// steps go before the node table is brought back in line (a removal by target takes a run of
/// steps; a save's rebase finds a branch's newest step dead): a branch that left from a node whose
/// step went leaves from the node before it, and hears what reaches that node, whatever order the
/// branches are gone through in. A collaborative soak (seed 1000439) put a letter elsewhere than
/// its model after a jump in some orders of a dictionary's keys: a branch that left from the node
/// of a dead step missed the peer's changes that reached the dead step's branch after it was
/// removed.
@Suite @MainActor struct BranchesRebasedIndependentlyTests {
    /// A step that only touches `marker` (its undo and redo register each other), so that a
    /// removal by target takes it whole.
    final class Marker {}

    func mark(_ stack: ActionStack, _ marker: Marker) {
        stack.registerUndo(withTarget: marker) { [unowned stack] marker in self.mark(stack, marker) }
    }

    func tree(_ text: String) -> SharedText {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        return SharedText(text, stack: stack)
    }

    func step(_ stack: ActionStack, _ body: () -> Void) {
        stack.beginUndoGrouping()
        body()
        stack.endUndoGrouping()
    }

    /// #1 "A"; #2 and #3 touch only the marker; #4 "B" after "A"; back to #3, #5 "C" after "A"
    /// (#4 becomes a branch that leaves from #3); back to #1. The peer types "zz" at the start;
    /// then the marker's steps go: #2 and #3 with it, and the branch to #4 leaves from #1.
    @Test func aBranchLeftFromTheDeeperOfTwoRedoStepsThatGoHearsTheChangesTheUpperOneHeld() throws {
        let doc = tree("")
        let stack = doc.stack
        let marker = Marker()
        step(stack) { doc.type("A", at: 0) }
        step(stack) { mark(stack, marker) }
        step(stack) { mark(stack, marker) }
        step(stack) { doc.type("B", at: 1) }
        stack.undo()
        step(stack) { doc.type("C", at: 1) }
        stack.undo()
        stack.undo()
        stack.undo()
        #expect(stack.currentNode?.sequence == 1)
        #expect(doc.text == "A")
        doc.receive(.insert("zz", at: 0))
        stack.removeAllActions(withTarget: marker)
        try stack.jump(toNode: .init(sequence: 4))
        #expect(doc.text == "zzAB")
        try stack.jump(toNode: .init(sequence: 5))
        #expect(doc.text == "zzAC")
        stack._checkInvariants()
    }

    /// #1 "A"; #2 touches only the marker; #3 "C" after "A"; back to #2, #4 and #5 touch only the
    /// marker (#3 becomes a branch that leaves from #2). The peer types "zz" at the start; then the
    /// marker's steps go: #2, #4 and #5 with it, and the branch to #3 leaves from #1.
    @Test func aBranchLeftFromTheOlderOfTwoUndoStepsThatGoHearsTheChangesTheNewerOneHeld() throws {
        let doc = tree("")
        let stack = doc.stack
        let marker = Marker()
        step(stack) { doc.type("A", at: 0) }
        step(stack) { mark(stack, marker) }
        step(stack) { doc.type("C", at: 1) }
        stack.undo()
        step(stack) { mark(stack, marker) }
        step(stack) { mark(stack, marker) }
        #expect(stack.currentNode?.sequence == 5)
        doc.receive(.insert("zz", at: 0))
        stack.removeAllActions(withTarget: marker)
        #expect(stack.currentNode?.sequence == 1)
        try stack.jump(toNode: .init(sequence: 3))
        #expect(doc.text == "zzAC")
        stack._checkInvariants()
    }

    /// "xyz"; #1 "A"; #2 "B"; #3 erases "y"; #4 "C" at the end; back to #3, #5 "E" (#4 is a
    /// branch from #3); back to #2, #6 "F" (#3 and #5 are a branch from #2); back to #2, the peer
    /// erases "y" (#3 has nothing left to do); back to #1, the peer types "zz" at the start; #7 "G"
    /// (#2 and #6 are a branch from #1, #2 holding the "zz"). A save rebases every branch: the
    /// branch from #2 finds #3 dead, and the branch to #4 leaves from #2; the "zz" reaches it
    /// through #2, whichever branch the save goes through first.
    @Test(arguments: [false, true], [false, true])
    func aBranchFromADeadStepsNodeHearsWhatReachesItsNewAnchor(reversed: Bool, savedFirst: Bool) throws {
        let doc = tree("xyz")
        let stack = doc.stack
        stack._goesThroughBranchesInReverseOrder = reversed
        step(stack) { doc.type("A", at: 0) }
        step(stack) { doc.type("B", at: 1) }
        step(stack) { doc.erase("y", at: 3) }
        step(stack) { doc.type("C", at: 4) }
        #expect(doc.text == "ABxzC")
        stack.undo()
        step(stack) { doc.type("E", at: 0) }
        stack.undo()
        stack.undo()
        step(stack) { doc.type("F", at: 0) }
        stack.undo()
        doc.receive(.delete("y", at: 3))
        stack.undo()
        #expect(doc.text == "Axz")
        doc.receive(.insert("zz", at: 0))
        step(stack) { doc.type("G", at: 3) }
        #expect(doc.text == "zzAGxz")
        #expect(stack.currentNode?.sequence == 7)
        if savedFirst { _ = try stack.savedHistory() }
        try stack.jump(toNode: .init(sequence: 4))
        #expect(doc.text == "zzABxzC")
        try stack.jump(toNode: .init(sequence: 6))
        #expect(doc.text == "FzzABxz")
        stack._checkInvariants()
    }
}
