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

/// Limits meet remote changes: ``ActionStack/levelsOfUndo`` and ``ActionStack/maximumCost`` count
/// the steps as the stack holds them, so a step that a peer's change left with nothing to do keeps
/// its place until it is found dead (performed, saved, or looked at as the next step), as a step
/// whose targets were freed does. Finding every dead step at each trim would rebase the whole
/// history. (The choice is stated in "Undo in a Shared Document", "With the other features".)
@Suite @MainActor struct RemoteChangeLimitTests {
    func document(levels: Int) -> SharedText {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.levelsOfUndo = levels
        return SharedText("", stack: stack)
    }

    func type(_ document: SharedText, _ text: String, at offset: Int) {
        document.stack.beginUndoGrouping()
        document.type(text, at: offset)
        document.stack.endUndoGrouping()
    }

    @Test func aDeadStepBelowTheTopKeepsItsLevelUntilItIsFound() {
        let doc = document(levels: 3)
        type(doc, "A", at: 0)
        type(doc, "B", at: 1)
        type(doc, "C", at: 2)
        doc.receive(.delete("B", at: 1))  // the peer deleted this user's B: its step is dead
        #expect(doc.text == "AC")
        #expect(doc.stack.undoCount == 3, "the dead step is not found yet: it is below the top")
        type(doc, "D", at: 2)  // a fourth step: the oldest (A's) is trimmed, the dead one kept
        #expect(doc.stack.undoCount == 3)
        doc.stack.undo()
        doc.stack.undo()
        #expect(doc.text == "A")
        #expect(!doc.stack.canUndo, "the dead step was found at the top, and A's step had been trimmed")
        #expect(doc.stack.undoCount == 0)
    }

    @Test func aDeadStepAtTheTopIsFoundWhenTheMenuLooksAndGivesUpItsLevel() {
        let doc = document(levels: 2)
        type(doc, "A", at: 0)
        type(doc, "B", at: 1)
        doc.receive(.delete("B", at: 1))  // the newest step is dead, not yet found
        #expect(doc.stack.undoCount == 2, "counted as held until something looks at the next step")
        #expect(doc.stack.canUndo, "the Edit menu looks: B's step is found dead, A's is next")
        #expect(doc.stack.undoCount == 1)
        type(doc, "C", at: 1)
        #expect(doc.stack.undoCount == 2, "A's step kept its level: the dead step had gone")
        doc.stack.undo()
        doc.stack.undo()
        #expect(doc.text == "")
    }

    @Test func aLimitSetAfterRemoteChangesTrimsTheStepsAsHeld() {
        let doc = document(levels: 0)
        for (index, letter) in ["A", "B", "C", "D"].enumerated() { type(doc, letter, at: index) }
        doc.receive(.insert("x", at: 0))  // moves every step; kills none
        doc.stack.levelsOfUndo = 2
        #expect(doc.stack.undoCount == 2)
        doc.stack.undo()
        doc.stack.undo()
        #expect(doc.text == "xAB", "the two newest steps were undone at their moved offsets")
        #expect(!doc.stack.canUndo)
    }
}
