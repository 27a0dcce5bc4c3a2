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

@Suite struct RemoteChangeTests {
    func document(_ text: String = "") -> SharedText {
        let stack = ActionStack()
        stack.groupsByEvent = false
        let document = SharedText(text, stack: stack)
        return document
    }

    /// One step per edit: a group around each.
    func step(_ document: SharedText, _ body: () -> Void) {
        document.stack.beginUndoGrouping()
        body()
        document.stack.endUndoGrouping()
    }

    @Test func undoRemovesOnlyThisUsersTextWhereverItNowIs() {
        let doc = document("ac")
        step(doc) { doc.type("XYZ", at: 1) }  // aXYZc
        doc.receive(.insert("123", at: 0))  // 123aXYZc
        doc.receive(.insert("-", at: 6))  // 123aXY-Zc
        #expect(doc.text == "123aXY-Zc")
        doc.stack.undo()
        #expect(doc.text == "123a-c")
        doc.stack.redo()
        #expect(doc.text == "123aXY-Zc")
    }

    @Test func restoredTextGoesBackBeforeAPeersInsertAtTheSamePlace() {
        let doc = document("Hello world")
        step(doc) { doc.erase("world", at: 6) }  // "Hello "
        doc.receive(.insert("big", at: 6))  // "Hello big"
        doc.stack.undo()
        #expect(doc.text == "Hello worldbig")
    }

    @Test func redoNeverRevivesWhatAPeerDeleted() {
        let doc = document("")
        step(doc) { doc.type("XYZ", at: 0) }
        doc.receive(.delete("Y", at: 1))  // XZ
        doc.stack.undo()
        #expect(doc.text == "")
        doc.stack.redo()
        #expect(doc.text == "XZ")
    }

    @Test func aStepWithNothingLeftIsSkippedAndTheNextOneUndone() {
        let doc = document("")
        step(doc) { doc.type("ab", at: 0) }
        step(doc) { doc.type("XY", at: 2) }  // abXY
        doc.receive(.delete("XY", at: 2))  // ab: the peer deleted everything of the second step
        #expect(doc.stack.undoCount == 2)  // not yet found dead
        #expect(doc.stack.canUndo)  // looks at the next step: finds the dead one, and the live one below
        #expect(doc.stack.undoCount == 1)
        doc.stack.undo()
        #expect(doc.text == "")
        #expect(!doc.stack.canUndo)
    }

    @Test func titlesDescribeTheNextLiveStep() {
        let doc = document("")
        doc.stack.beginUndoGrouping()
        doc.type("ab", at: 0)
        doc.stack.setActionName("First")
        doc.stack.endUndoGrouping()
        doc.stack.beginUndoGrouping()
        doc.type("XY", at: 2)
        doc.stack.setActionName("Second")
        doc.stack.endUndoGrouping()
        #expect(doc.stack.undoMenuItemTitle == "Undo Second")
        doc.receive(.delete("XY", at: 2))
        #expect(doc.stack.undoMenuItemTitle == "Undo First")
        doc.receive(.delete("ab", at: 0))
        #expect(doc.stack.undoMenuItemTitle == "Undo")
        #expect(!doc.stack.canUndo)
    }

    @Test func aRemoteChangeKeepsTheRedoStack() {
        let doc = document("")
        step(doc) { doc.type("abc", at: 0) }
        doc.stack.undo()
        #expect(doc.stack.canRedo)
        doc.receive(.insert("Q", at: 0))
        #expect(doc.stack.canRedo)
        doc.stack.redo()
        #expect(doc.text == "abcQ")
    }

    @Test func registrationsWhileARemoteChangeAppliesAreNotRecorded() {
        let doc = document("")
        doc.stack.applyRemoteChange(TextEdit.insert("x", at: 0)) {
            doc.edit(.insert("x", at: 0))  // the model registers as it always does
        }
        #expect(doc.text == "x")
        #expect(!doc.stack.canUndo)
    }

    @Test func undoingEverythingLeavesOnlyThePeersChanges() {
        let doc = document("")
        step(doc) { doc.type("Hello", at: 0) }
        doc.receive(.insert(">> ", at: 0))
        step(doc) { doc.type(" world", at: 8) }
        doc.receive(.insert("!", at: 14))
        step(doc) { doc.erase("ll", at: 5) }
        doc.receive(.delete(">", at: 0))
        while doc.stack.canUndo { doc.stack.undo() }
        #expect(doc.text == "> !")
        while doc.stack.canRedo { doc.stack.redo() }
        #expect(doc.text == "> Heo world!")
    }

    @Test func aRemoteChangeMakesTheDocumentUnsaved() {
        let doc = document("")
        step(doc) { doc.type("a", at: 0) }
        doc.stack.markClean()
        doc.receive(.insert("b", at: 1))
        #expect(!doc.stack.isClean)
        doc.stack.undo()
        doc.stack.redo()
        #expect(!doc.stack.isClean)
    }
}

@Suite struct MergedRemoteChangeTests {
    @Test(arguments: [
        // Typing: each key after the one before.
        (TextEdit.insert("a", at: 3), TextEdit.insert("b", at: 4), TextEdit.insert("ab", at: 3)),
        // Typing before the cursor: each key at the same place.
        (TextEdit.insert("a", at: 3), TextEdit.insert("b", at: 3), TextEdit.insert("ba", at: 3)),
        // Delete: each key at the same place.
        (TextEdit.delete("a", at: 3), TextEdit.delete("b", at: 3), TextEdit.delete("ab", at: 3)),
        // Backspace: each key before the one before.
        (TextEdit.delete("b", at: 4), TextEdit.delete("a", at: 3), TextEdit.delete("ab", at: 3)),
    ])
    func aRunOfKeysMergesIntoOneEdit(first: TextEdit, next: TextEdit, merged: TextEdit) throws {
        #expect(first.merged(with: next) == merged)
        // The merged edit does what the two did.
        var apart = "0123456789"
        var together = apart
        if case .delete = first.edit.pieces[0] {
            apart = "012ab56789"
            together = apart
        }
        try first.apply(to: &apart)
        try next.apply(to: &apart)
        try merged.apply(to: &together)
        #expect(apart == together)
    }

    @Test func editsApartAreNotMerged() {
        #expect(TextEdit.insert("a", at: 3).merged(with: .insert("b", at: 7)) == nil)
        #expect(TextEdit.insert("a", at: 3).merged(with: .delete("x", at: 3)) == nil)
    }

    /// The promise of ``MergeableChange``: a peer's run of keys waits as one change in the step it
    /// reaches, so that the step pays for one when it is rebased; changes that do not continue the
    /// run, or are of another type (the stack learns once per type whether it merges), stay apart,
    /// and a type that merges merges again after another type came between.
    @Test func aPeersRunOfKeysWaitsAsOneChangeAndOtherChangesStayApart() throws {
        let (stack, doc) = helloWorldAfterAPeerTypedOh()
        var unseen = stack._unseenRemoteChanges()
        #expect(unseen.count == 1)
        #expect(unseen.first as? TextEdit == .insert("Oh, ", at: 0))
        // A deletion does not continue an insertion; a change of another type is kept as it is.
        doc.receive(.delete("O", at: 0))
        stack.applyRemoteChange(Marker(id: 1)) {}
        stack.applyRemoteChange(Marker(id: 2)) {}
        doc.receive(.delete("h", at: 0))
        doc.receive(.delete(",", at: 0))
        unseen = stack._unseenRemoteChanges()
        #expect(unseen.count == 5)
        #expect(unseen.last as? TextEdit == .delete("h,", at: 0))
        #expect((unseen[2] as? Marker)?.id == 1 && (unseen[3] as? Marker)?.id == 2)
        // The step lands as over the keys one by one.
        #expect(doc.text == " Hello world")
        stack.undo()
        #expect(doc.text == " Hello")
        #expect(stack._unseenRemoteChanges().isEmpty)
    }

    /// "Hello" and this user's step that typed " world", then a peer's "Oh, " typed a key at a time
    /// before it.
    private func helloWorldAfterAPeerTypedOh() -> (ActionStack, SharedText) {
        let stack = ActionStack()
        stack.groupsByEvent = false
        let doc = SharedText("Hello", stack: stack)
        stack.beginUndoGrouping()
        doc.type(" world", at: 5)
        stack.endUndoGrouping()
        for (index, key) in "Oh, ".enumerated() { doc.receive(.insert(String(key), at: index)) }
        return (stack, doc)
    }

    /// A change that is not a ``MergeableChange`` (and not rebased over by any command).
    private struct Marker: Sendable { var id: Int }

    @Test func aStepRebasedOverAMergedRunLandsAsOverTheKeysOneByOne() {
        let (stack, doc) = helloWorldAfterAPeerTypedOh()
        #expect(doc.text == "Oh, Hello world")
        stack.undo()
        #expect(doc.text == "Oh, Hello")
        stack.redo()
        #expect(doc.text == "Oh, Hello world")
    }
}
