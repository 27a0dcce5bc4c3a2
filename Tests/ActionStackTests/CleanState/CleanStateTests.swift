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
import Observation
import Testing

struct CleanStateTests {
    /// Turning notifications back on does not post what changed while they were off; the next
    /// clean-state notification is for the next change.
    @Test func turningPostingBackOnStartsFromTheStateThen() {
        let stack = makeStack()
        let counter = Counter()
        let posts = Flag()
        let hook = NotificationHook(ActionStack.cleanStateDidChangeNotification, stack) { _ in posts.count += 1 }
        stack.postsNotifications = false
        group(stack) { counter.set(1, on: stack) }
        stack.postsNotifications = true
        _ = stack.isClean
        #expect(posts.count == 0, "the change made while off is not posted")
        stack.markClean()
        #expect(posts.count == 1, "the save is")
        withExtendedLifetime(hook) {}
    }

    @Test func aNewStackIsCleanAndAChangeMakesItDirty() {
        let stack = makeStack()
        let counter = Counter()
        #expect(stack.isClean)
        group(stack) { counter.set(1, on: stack) }
        #expect(!stack.isClean)
        stack.undo()
        #expect(stack.isClean, "undoing back to the start is clean again")
        stack.redo()
        #expect(!stack.isClean)
    }

    @Test func undoingAndRedoingBackToTheMarkedPointIsClean() {
        let stack = makeStack()
        let counter = Counter()
        for value in 1...3 { group(stack) { counter.set(value, on: stack) } }
        stack.markClean()
        #expect(stack.isClean)
        stack.undo()
        #expect(!stack.isClean)
        stack.undo()
        stack.redo()
        stack.redo()
        #expect(stack.isClean)
        group(stack) { counter.set(4, on: stack) }
        #expect(!stack.isClean)
        stack.undo()
        #expect(stack.isClean)
    }

    @Test func anOpenGroupHoldingAChangeIsNotClean() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        #expect(stack.isClean, "an empty open group changes nothing")
        counter.set(1, on: stack)
        #expect(!stack.isClean)
        stack.endUndoGrouping()
        stack.markClean()
        stack.beginUndoGrouping()
        counter.set(2, on: stack)
        #expect(!stack.isClean)
        stack.endUndoGrouping()
    }

    @Test func undoingPastTheCleanPointThenChangingMakesItUnreachable() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        group(stack) { counter.set(2, on: stack) }
        stack.markClean()
        stack.undo()
        group(stack) { counter.set(5, on: stack) }  // the redo step to the clean point is gone
        #expect(!stack.isClean)
        stack.undo()
        #expect(!stack.isClean)
        stack.undo()
        #expect(!stack.isClean)
        stack.redo()
        stack.redo()
        #expect(!stack.isClean)
        stack.markClean()
        #expect(stack.isClean)
    }

    @Test func trimmingTheCleanStepKeepsItReachableFromTheStart() {
        let stack = makeStack()
        stack.levelsOfUndo = 2
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.markClean()
        group(stack) { counter.set(2, on: stack) }
        group(stack) { counter.set(3, on: stack) }  // trims the clean step itself
        #expect(stack.undoCount == 2)
        #expect(!stack.isClean)
        stack.undo()
        stack.undo()
        #expect(counter.value == 1)
        #expect(stack.isClean, "everything undone is exactly the saved state")
        #expect(stack.isCleanAtStart)
    }

    @Test func trimmingPastTheCleanPointMakesItUnreachable() {
        let stack = makeStack()
        stack.levelsOfUndo = 1
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.markClean()
        group(stack) { counter.set(2, on: stack) }
        group(stack) { counter.set(3, on: stack) }
        stack.undo()
        #expect(counter.value == 2)
        #expect(!stack.isClean)
        #expect(!stack.canUndo)
    }

    @Test func removalNeverChangesWhetherTheStackIsCleanNow() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        group(stack) { a.set(1, on: stack) }
        group(stack) { b.set(1, on: stack) }
        stack.markClean()
        stack.removeAllActions(withTarget: b)  // drops the newest (clean) step
        #expect(stack.isClean)
        group(stack) { a.set(2, on: stack) }
        stack.undo()
        #expect(stack.isClean)
    }

    @Test func removeAllActionsMakesTheCurrentStateClean() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        #expect(!stack.isClean)
        stack.removeAllActions()
        #expect(stack.isClean)
    }

    @Test func theCleanStateChangeIsPosted() {
        let stack = makeStack()
        let counter = Counter()
        nonisolated(unsafe) var seen: [Bool] = []
        let token = observe(ActionStack.cleanStateDidChangeNotification, of: stack) { stack in
            seen.append(stack.isClean)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        group(stack) { counter.set(1, on: stack) }
        group(stack) { counter.set(2, on: stack) }
        stack.undo()
        stack.undo()
        #expect(seen == [false, true], "only the changes are posted")
    }

    // A step's target removed or freed after the save: the change it made is still applied, so the
    // stack is not clean.

    @Test func removingTheNewestStepsTargetAfterTheSaveLeavesTheDocumentChanged() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        group(stack) { a.set(1, on: stack) }
        stack.markClean()
        group(stack) { b.set(1, on: stack) }
        stack.removeAllActions(withTarget: b)
        #expect(!stack.isClean, "B's change is still applied")
        stack.undo()
        #expect(a.value == 0)
        #expect(!stack.isClean)
    }

    @Test func freeingTheNewestStepsTargetAfterTheSaveLeavesTheDocumentChanged() {
        let stack = makeStack()
        let a = Counter("a")
        var b: Counter? = Counter("b")
        group(stack) { a.set(1, on: stack) }
        stack.markClean()
        group(stack) { b!.set(1, on: stack) }
        b = nil
        #expect(stack.undoCount == 1)
        #expect(!stack.isClean)
    }

    @Test func removingTheFirstStepsTargetThenUndoingTheRestIsNotTheSavedStart() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        group(stack) { a.set(1, on: stack) }
        group(stack) { b.set(1, on: stack) }
        stack.removeAllActions(withTarget: a)
        stack.undo()
        #expect(b.value == 0)
        #expect(a.value == 1)
        #expect(!stack.isClean, "A's change was never undone")
        #expect(!stack.isCleanAtStart)
    }

    // A scope rolled back inside an open group leaves the stack as clean as it was.

    @Test(arguments: [false, true])
    func aRolledBackScopeInsideAnOpenGroupLeavesTheStackAsItWas(automatic: Bool) {
        let stack = makeStack(groupsByEvent: automatic)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        if !automatic { stack.beginUndoGrouping() }
        #expect(throws: Failure.self) {
            try stack.group {
                counter.set(1, on: stack)
                throw Failure()
            }
        }
        #expect(counter.value == 0)
        #expect(stack.isClean, "the model is back where it was, and so is the document state")
        if automatic { stack.endEvent() } else { stack.endUndoGrouping() }
        #expect(stack.isClean)
    }

    // Undoing a nested group is a change: the stack is clean only when it is back at the saved
    // state.

    @Test func undoingANestedGroupAfterTheSaveIsAChange() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        stack.beginUndoGrouping()
        a.set(1, on: stack)
        stack.beginUndoGrouping()
        b.set(1, on: stack)
        stack.endUndoGrouping()
        stack.markClean()
        stack.undoNestedGroup()
        #expect(b.value == 0)
        #expect(!stack.isClean)
        stack.endUndoGrouping()
        #expect(!stack.isClean)
    }

    @Test func undoingANestedGroupBackToTheSavedStateIsClean() {
        let stack = makeStack()
        let a = Counter("a")
        stack.beginUndoGrouping()
        a.set(1, on: stack)
        stack.markClean()
        stack.beginUndoGrouping()
        a.set(2, on: stack)
        stack.endUndoGrouping()
        #expect(!stack.isClean)
        stack.undoNestedGroup()
        #expect(a.value == 1)
        #expect(stack.isClean, "exactly the saved state again")
    }
}
