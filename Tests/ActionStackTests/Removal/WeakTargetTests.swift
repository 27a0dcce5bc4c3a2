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

struct WeakTargetTests {
    @Test func theStackNeverKeepsATargetAlive() {
        let stack = makeStack()
        var target: Counter? = Counter()
        let tracker = LifetimeTracker(target!)
        group(stack) { stack.registerUndo(withTarget: target!) { $0.value = 0 } }
        target = nil
        #expect(!tracker.isAlive)
    }

    @Test func aFreedTargetsActionsNeverRunAndItsStepsDisappear() {
        let stack = makeStack()
        let survivor = Counter("s")
        var doomed: Counter? = Counter("d")
        var ran = false
        group(stack, named: "Keep") { survivor.set(1, on: stack) }
        group(stack, named: "Doomed") { stack.registerUndo(withTarget: doomed!) { _ in ran = true } }
        #expect(stack.undoCount == 2)
        doomed = nil
        #expect(stack.undoCount == 1)
        #expect(stack.undoActionName == "Keep")
        #expect(stack.undoMenuItemTitle == "Undo Keep")
        stack.undo()
        #expect(!ran)
        #expect(survivor.value == 0)
    }

    @Test func aMixedGroupKeepsItsLiveActions() {
        let stack = makeStack()
        let survivor = Counter("s")
        var doomed: Counter? = Counter("d")
        group(stack) {
            survivor.set(1, on: stack)
            doomed!.set(1, on: stack)
        }
        doomed = nil
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(survivor.value == 0)
        #expect(stack.redoCount == 1)
    }

    @Test func deadStepOnTheRedoSideDisappearsToo() {
        let stack = makeStack()
        var doomed: Counter? = Counter()
        group(stack, named: "Set") { doomed!.set(1, on: stack) }
        stack.undo()
        #expect(stack.canRedo)
        doomed = nil
        #expect(!stack.canRedo)
        #expect(stack.redoMenuItemTitle == "Redo")
        stack.redo()
        #expect(stack.lastMisuse == nil)
    }

    @Test func aNewObjectAtAFreedTargetsAddressIsADifferentTarget() {
        let stack = makeStack()
        for round in 0..<50 {
            var doomed: Counter? = Counter("d\(round)")
            group(stack) { doomed!.set(1, on: stack) }
            doomed = nil
            let fresh = Counter("f\(round)")  // often reuses the freed address
            group(stack) { fresh.set(2, on: stack) }
            #expect(stack.undoCount == 1)
            stack.undo()
            #expect(fresh.value == 0)
            stack.removeAllActions()
        }
    }

    @Test func deadActionsInsideANestedGroupOfAnOpenGroupAreRemovedBeforeAnythingSeesThem() {
        let stack = makeStack()
        let live = Counter()
        var doomed: Counter? = Counter()
        stack.beginUndoGrouping()
        live.set(1, on: stack)
        stack.beginUndoGrouping()
        doomed!.set(1, on: stack)
        stack.endUndoGrouping()
        doomed = nil
        #expect(stack._structure == "undo(<a [x]>) redo()", "held until something looks")
        // undoNestedGroup() looks at the newest item: the freed nested group is gone, so the
        // newest item is live's action, not a closed group.
        stack.undoNestedGroup()
        #expect(stack.lastMisuse == .undoNestedGroupWithOpenGroup)
        #expect(stack._structure == "undo(<a>) redo()")
        #expect(live.value == 1)
        stack.endUndoGrouping()
        #expect(stack.undoCount == 1)
    }

    @Test func aCountRemovesFreedActionsEverywhereIncludingOpenGroups() {
        let stack = makeStack()
        let live = Counter()
        var doomed: Counter? = Counter()
        stack.beginUndoGrouping()
        live.set(1, on: stack)
        stack.beginUndoGrouping()
        doomed!.set(1, on: stack)
        stack.endUndoGrouping()
        doomed = nil
        #expect(stack.undoCount == 0)
        #expect(stack._structure == "undo(<a>) redo()")
    }
}

struct LifetimeTests {
    @Test func aPerformedActionReleasesItsCapturesAndTheStackIsFreed() {
        var stack: ActionStack? = makeStack()
        let stackTracker = LifetimeTracker(stack!)
        let target = Counter()
        var captured: Captured? = Captured()
        let tracker = LifetimeTracker(captured!)
        stack!.beginUndoGrouping()
        stack!.registerUndo(withTarget: target) { [captured] _ in _ = captured }
        stack!.endUndoGrouping()
        captured = nil
        #expect(tracker.isAlive)
        stack!.undo()
        #expect(!tracker.isAlive)
        stack = nil
        #expect(!stackTracker.isAlive)
    }

    @Test func droppingTheStackReleasesEveryAction() {
        var stack: ActionStack? = makeStack()
        let target = Counter()
        var captured: Captured? = Captured()
        let tracker = LifetimeTracker(captured!)
        stack!.beginUndoGrouping()
        stack!.registerUndo(withTarget: target) { [captured] _ in _ = captured }
        stack!.endUndoGrouping()
        captured = nil
        stack = nil
        #expect(!tracker.isAlive)
    }
}
