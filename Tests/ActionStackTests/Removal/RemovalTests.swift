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

struct RemovalTests {
    @Test func removeAllActionsEmptiesEverythingAndResetsState() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.endEvent()
        counter.set(2, on: stack)
        stack.endEvent()
        stack.undo()
        stack.beginUndoGrouping()
        stack.beginUndoGrouping()
        stack.disableUndoRegistration()
        stack.disableUndoRegistration()
        stack.removeAllActions()
        #expect(stack.groupingLevel == 0)
        #expect(!stack.canUndo && !stack.canRedo)
        #expect(stack.isUndoRegistrationEnabled)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        #expect(stack._trackedTargetCount == 0)
    }

    @Test func removeAllActionsWithTargetRemovesOnlyThatTargetOnBothStacks() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        group(stack) {
            a.set(1, on: stack)
            b.set(1, on: stack)
        }
        group(stack) { a.set(2, on: stack) }
        group(stack) { b.set(2, on: stack) }
        stack.undo()  // b 2 -> 1, redo holds b
        stack.removeAllActions(withTarget: b)
        #expect(stack.undoCount == 2, "the a-only group stays, the mixed group keeps its a action")
        #expect(stack.redoCount == 0, "the b redo step became empty and went")
        stack.undo()
        stack.undo()
        #expect(a.value == 0)
        #expect(b.value == 1, "b's actions are gone")
    }

    @Test func removeAllWithTargetIsTheSameCall() {
        let stack = makeStack()
        let a = Counter()
        group(stack) { a.set(1, on: stack) }
        stack.removeAll(withTarget: a)
        #expect(!stack.canUndo)
    }

    @Test func emptiedNestedGroupsCascadeOutwardsButAlreadyEmptyAndOpenGroupsStay() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        // < a [ b ] [] > inside an open outer group: removing a leaves < [ b ] [] >; removing b
        // empties [ b ], which goes, while the already-empty [] and the open group stay.
        stack.beginUndoGrouping()
        a.set(1, on: stack)
        stack.beginUndoGrouping()
        b.set(1, on: stack)
        stack.endUndoGrouping()
        stack.beginUndoGrouping()
        stack.endUndoGrouping()
        #expect(stack._structure == "undo(<a [a] []>) redo()")
        stack.removeAllActions(withTarget: a)
        #expect(stack._structure == "undo(<[a] []>) redo()")
        stack.removeAllActions(withTarget: b)
        #expect(stack._structure == "undo(<[]>) redo()")
        stack.endUndoGrouping()
        // A closed step that loses every action goes; one that never had any is Foundation's
        // do-nothing step and stays.
        group(stack) { a.set(2, on: stack) }
        #expect(stack.undoCount == 2)
        stack.removeAllActions(withTarget: a)
        #expect(stack._structure == "undo([]) redo()")
        #expect(stack.undoCount == 1)
    }

    /// A closed step keeps its actions only: a group that closed empty inside it leaves no trace,
    /// so a step left with nothing but such a group is left empty and goes (as documented; in
    /// Foundation the empty nested group would keep its parent).
    @Test func aClosedStepLeftWithOnlyAnEmptyNestedGroupGoes() {
        let stack = makeStack()
        let a = Counter("a")
        let keep = Counter("keep")
        group(stack) { keep.set(1, on: stack) }
        stack.beginUndoGrouping()
        stack.beginUndoGrouping()
        stack.endUndoGrouping()
        a.set(1, on: stack)
        stack.endUndoGrouping()
        #expect(stack.undoCount == 2)
        stack.removeAllActions(withTarget: a)
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(keep.value == 0)
    }

    @Test(arguments: [false, true])
    func openGroupsStayWhenEmptiedByRemoval(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let a = Counter()
        stack.beginUndoGrouping()
        a.set(1, on: stack)
        stack.beginUndoGrouping()
        a.set(2, on: stack)
        stack.removeAllActions(withTarget: a)
        #expect(stack.groupingLevel == 2)
        #expect(stack._structure == "undo(<<>>) redo()")
        #expect(stack.canUndo == !dropsEmptyGroups)
        stack.endUndoGrouping()
        stack.endUndoGrouping()
        #expect(
            stack.undoCount == (dropsEmptyGroups ? 0 : 1), "it closes empty: kept as Foundation keeps it, or dropped")
    }

    @Test func removalDoesNotTouchTheDisableCounter() {
        let stack = makeStack()
        let a = Counter()
        group(stack) { a.set(1, on: stack) }
        stack.disableUndoRegistration()
        stack.removeAllActions(withTarget: a)
        #expect(!stack.isUndoRegistrationEnabled)
        stack.enableUndoRegistration()
    }

    @Test func removalOfAnUnknownTargetChangesNothing() {
        let stack = makeStack()
        let a = Counter()
        group(stack) { a.set(1, on: stack) }
        let before = stack._structure
        stack.removeAllActions(withTarget: Counter())
        #expect(stack._structure == before)
    }

    @Test func removedAndClearedActionsReleaseWhatTheyCaptured() {
        let stack = makeStack()
        let a = Counter()
        var first: Captured? = Captured()
        var second: Captured? = Captured()
        let firstTracker = LifetimeTracker(first!)
        let secondTracker = LifetimeTracker(second!)
        group(stack) { [first] in stack.registerUndo(withTarget: a) { _ in _ = first } }
        group(stack) { [second] in stack.registerUndo(withTarget: a) { _ in _ = second } }
        stack.undo()  // second's action performed: released
        first = nil
        second = nil
        #expect(!secondTracker.isAlive, "performed actions are released")
        #expect(firstTracker.isAlive)
        stack.removeAllActions(withTarget: a)
        #expect(!firstTracker.isAlive, "removed actions are released")

        var third: Captured? = Captured()
        let thirdTracker = LifetimeTracker(third!)
        group(stack) { [third] in stack.registerUndo(withTarget: a) { _ in _ = third } }
        third = nil
        stack.removeAllActions()
        #expect(!thirdTracker.isAlive, "cleared actions are released")
    }
}

struct DeadStepsAndLimitsTests {
    @Test func aStepOfFreedTargetsCountsAgainstTheLimitUntilTheStackDropsIt() {
        // Trimming is O(1) per step: it counts the steps as held. A step whose targets were all
        // freed holds its place until the stack drops it (here: at once, it is the newest).
        let stack = makeStack()
        stack.levelsOfUndo = 2
        let live = Counter("live")
        var doomed: Counter? = Counter("doomed")
        group(stack) { live.set(1, on: stack) }
        group(stack) { live.set(2, on: stack) }
        stack.beginUndoGrouping()
        doomed!.set(1, on: stack)
        doomed = nil
        stack.endUndoGrouping()  // the closing step holds only a freed target's action
        #expect(stack.undoCount == 1, "the oldest live step was trimmed, then the freed step dropped")
        stack.undo()
        #expect(live.value == 1)
        #expect(!stack.canUndo)
    }

    @Test func aFreedStepNoticedBeforeTheNextCloseDoesNotCount() {
        let stack = makeStack()
        stack.levelsOfUndo = 2
        let live = Counter("live")
        var doomed: Counter? = Counter("doomed")
        group(stack) { live.set(1, on: stack) }
        group(stack) { doomed!.set(1, on: stack) }
        doomed = nil
        #expect(stack.undoCount == 1, "a count drops the freed step")
        group(stack) { live.set(2, on: stack) }
        #expect(stack.undoCount == 2)
        stack.undo()
        stack.undo()
        #expect(live.value == 0, "both live steps were kept")
    }

    // Undo and redo look only at the steps they are about to perform (checking every target on
    // each undo would cost O(targets)); queries still look everywhere. These tests free a target
    // and then undo or redo before any query, so the operation is the first to meet the dead step.

    @Test func undoSkipsFreedStepsOnTopAndTheNextQueryFindsTheRest() {
        let stack = makeStack()
        let live = Counter("live")
        var doomed: Counter? = Counter("doomed")
        group(stack) { live.set(1, on: stack) }
        group(stack) { doomed!.set(1, on: stack) }
        group(stack) { live.set(2, on: stack) }
        group(stack) { doomed!.set(2, on: stack) }
        doomed = nil
        stack.undo()  // the freed step on top is dropped; the live one under it is undone
        #expect(live.value == 1)
        #expect(stack.undoCount == 1, "the freed step between the live ones is gone too")
        #expect(stack.redoCount == 1)
        stack.undo()
        #expect(live.value == 0)
        #expect(!stack.canUndo)
    }

    @Test func redoSkipsFreedStepsOnTop() {
        let stack = makeStack()
        let live = Counter("live")
        var doomed: Counter? = Counter("doomed")
        group(stack) { live.set(1, on: stack) }
        group(stack) { doomed!.set(1, on: stack) }
        stack.undo()
        stack.undo()
        #expect(stack.redoCount == 2)
        doomed = nil
        stack.redo()  // live's step
        #expect(live.value == 1)
        stack.redo()  // only the freed step was left: nothing happens
        #expect(live.value == 1)
        #expect(!stack.canRedo)
        #expect(stack.undoCount == 1)
    }

    @Test func undoingBackToTheSavedStateIsCleanEvenWhenTheSavedStepsTargetWasFreed() {
        let stack = makeStack()
        let live = Counter("live")
        var doomed: Counter? = Counter("doomed")
        group(stack) { doomed!.set(1, on: stack) }
        stack.markClean()  // saved right after the doomed step
        group(stack) { live.set(1, on: stack) }
        doomed = nil
        #expect(!stack.isClean)
        stack.undo()
        // Freeing the doomed target removed its step but did not change the document: undoing
        // live's step returns exactly to the saved state.
        #expect(stack.isClean)
        #expect(!stack.canUndo, "the freed step is gone")
        stack.redo()
        #expect(!stack.isClean)
        stack.undo()
        #expect(stack.isClean)
    }

    @Test func aFreedStepOnTopOfACleanStackKeepsItClean() {
        let stack = makeStack()
        let live = Counter("live")
        var doomed: Counter? = Counter("doomed")
        group(stack) { live.set(1, on: stack) }
        group(stack) { doomed!.set(1, on: stack) }
        stack.markClean()
        doomed = nil
        stack.undo()  // drops the freed (clean) step, then undoes live's
        #expect(live.value == 0)
        #expect(!stack.isClean, "undoing a live step after the save is a change")
        stack.redo()
        #expect(stack.isClean, "removing the freed step kept the stack clean where it was")
    }
}

struct RemovalSignatureTests {
    @Test func removalTakesAnyAsFoundationDoes() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        let asAny: Any = counter
        stack.removeAllActions(withTarget: 42)  // a value is never a target
        #expect(stack.canUndo)
        stack.removeAllActions(withTarget: asAny)
        #expect(!stack.canUndo)
    }
}
