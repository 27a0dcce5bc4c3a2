// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// What the random driver of the persistent history found where the library disagreed with its
// documentation, each as a minimal case, kept since the library was fixed.

import ActionStack
import Testing

struct SaveRestoreFindingTests {
    /// RecordingTheRightSteps: a coalescing registration joins the newest step when that step
    /// "holds only registrations made with the same key on the same target", and
    /// `registerUndo(_:on:key:options:)` takes its options "as for closures". A keystroke made with
    /// a command after one made with a closure, same key, same object, starts a step of its own.
    @Test func aCommandJoinsAStepOfClosuresWithTheSameKeyAndTarget() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let note = Note()
        stack.registerUndo(withTarget: note, options: .coalescing("typing")) { $0.text = "" }
        note.text = "a"
        stack.endEvent()
        stack.registerUndo(SetText(text: "a"), on: note, key: note.id, options: .coalescing("typing"))
        note.text = "ab"
        stack.endEvent()
        #expect(stack.undoCount == 1, "two keystrokes on one note with one key: one step")
        stack._checkInvariants()
    }

    /// SavingTheHistory: "In a branching history the branches are saved the same way", walking
    /// outward from the current state. A branch that leaves from the root is left out, and not
    /// counted by `savableDepth`, when the root's document state is not known from the current one:
    /// here a failed scope whose rollback skipped a freed target's action left the document in a
    /// state of its own (an open group does it to `savableDepth` too).
    @Test func aBranchFromTheRootIsSavedWhenTheRootsStateIsUnknown() throws {
        struct Failure: Error {}
        let stack = makeTreeStack()
        let note = Note()
        change(note, to: "x", on: stack, named: "X")  // node 1
        stack.undo()
        change(note, to: "y", on: stack, named: "Y")  // node 2: node 1 is a branch from the root
        var temporary: Note? = Note(id: "temporary")
        try? stack.group(named: "T") {
            SetText(text: "t").perform(on: temporary!, in: stack)
            temporary = nil
            throw Failure()
        }
        #expect(stack.historyTree?.nodes.map(\.id.sequence) == [0, 1, 2])
        #expect(stack.historyTree?.current.sequence == 2)
        #expect(stack.undoEntries.map(\.canBeSaved) == [true])
        let saved = try stack.savedHistory()
        #expect(saved.steps.map(\.node).contains(2))
        #expect(saved.steps.map(\.node).sorted() == [1, 2])
        #expect(stack.savableDepth.branchSteps == 1)
        // With a group open, `savableDepth` counts the undo step below it, but not the branch.
        stack.beginUndoGrouping()
        SetText(text: "z").perform(on: note, in: stack)
        #expect(stack.savableDepth.undoSteps == 1)
        #expect(stack.savableDepth.branchSteps == 1)
        stack.endUndoGrouping()
        stack._checkInvariants()
    }

    /// `HistoryNode.date`: "When the change was made (for the root: when the history began)". A
    /// restored branching history dates its root at the restore, after the changes below it (the
    /// saved history holds no date for its root), so a history panel shows the root as the newest
    /// node, and dates no longer increase with the node numbers.
    @Test func aRestoredRootIsDatedNoLaterThanTheChangesBelowIt() throws {
        let clock = TestClock()
        let stack = makeTreeStack(clock: clock)
        let note = Note()
        change(note, to: "a", on: stack)  // node 1
        clock.advance(seconds: 60)
        change(note, to: "ab", on: stack)  // node 2
        let saved = try stack.savedHistory()
        clock.advance(seconds: 3600)
        let fresh = makeTreeStack(clock: clock)
        let reopened = Note()
        reopened.text = note.text
        try fresh.restoreHistory(saved) { _ in reopened }
        let tree = try #require(fresh.historyTree)
        let dates = tree.nodes.map(\.date)
        #expect(dates.count == 3)
        #expect(dates.dropFirst().elementsEqual(try #require(stack.historyTree).nodes.dropFirst().map(\.date)))
        #expect(dates[0] <= dates[1])
        fresh._checkInvariants()
    }

    /// `savableDepth`: "a step can be saved when every live action in it is a command"; saving
    /// leaves out the actions of freed targets, "and a step left with none is not saved at all";
    /// "each history entry says it too", and the entries read during an operation are what they
    /// would be once freed targets are swept. Read from a handler, `savableDepth` counts a step
    /// whose only action's target was freed, and stops at a step whose freed action is a closure.
    @Test func savableDepthDuringAnOperationSeesTheHistoryAsSwept() {
        let stack = makeStack()
        let kept = Note(id: "kept")
        var gone: Note? = Note(id: "gone")
        var freedCounter: Counter? = Counter()
        change(kept, to: "a", on: stack)  // saved
        stack.beginUndoGrouping()  // a live command and a freed closure: can be saved
        SetText(text: "b").perform(on: kept, in: stack)
        freedCounter!.set(1, on: stack)
        stack.endUndoGrouping()
        change(gone!, to: "x", on: stack)  // its target freed: not saved at all
        var read: ActionStack.SavableDepth?
        var entries: [ActionStack.HistoryEntry] = []
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: kept) { _ in
            read = stack.savableDepth
            entries = stack.undoEntries
        }
        stack.endUndoGrouping()
        gone = nil
        freedCounter = nil
        stack.undo()
        #expect(entries.map(\.canBeSaved) == [true, true], "the entries see the history as swept")
        #expect(read?.undoSteps == 2)
        #expect(stack.savableDepth.undoSteps == 2, "at rest, swept")
        stack._checkInvariants()
    }
}
