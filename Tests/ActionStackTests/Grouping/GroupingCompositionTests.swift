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

// One test per finding of the composition issue (#12), named after the rule it keeps. Each was a
// real failure where two features meet; the comment says which finding.

struct GroupingCompositionTests {
    // Finding 6: the event's close while registration was disabled left the automatic group open
    // for good.

    @Test func theEventEndsWhileRegistrationIsDisabled() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        stack.disableUndoRegistration()
        stack.endEvent()
        #expect(stack.groupingLevel == 0, "the automatic group closed although registration is disabled")
        stack.enableUndoRegistration()
        counter.set(2, on: stack)
        stack.endEvent()
        #expect(stack.undoCount == 2, "the next event is a step of its own")
    }

    @Test func theRunLoopsCloseHappensWhileRegistrationIsDisabled() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.disableUndoRegistration()
        spinRunLoop()
        #expect(stack.groupingLevel == 0)
        stack.enableUndoRegistration()
    }

    // Finding 7: redo() with an open group nested the redone step in it.

    @Test func redoClosesTheOneOpenGroupAndRecordsATopLevelStepWithItsNameAndCleanState() {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        stack.setActionName("Move")
        stack.endEvent()
        stack.markClean()
        stack.undo()
        stack.setActionIsDiscardable(true)  // opens an empty automatic group in this event
        #expect(stack.groupingLevel == 1)
        stack.redo()
        #expect(stack.groupingLevel == 0, "the empty group was closed (and dropped) first")
        #expect(counter.value == 1)
        #expect(stack.undoActionName == "Move")
        #expect(stack.undoCount == 1)
        #expect(stack.isClean, "back at the saved state")
    }

    @Test func inFoundationModeRedoAfterASetterFindsTheRedoStackEmptiedByTheNewStep() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        stack.endEvent()
        stack.undo()
        stack.setActionName("Pending")  // an empty group: a new (do-nothing) step once closed
        stack.redo()
        #expect(stack.groupingLevel == 0)
        #expect(counter.value == 0, "closing the empty group emptied the redo stack, as in Foundation")
        #expect(stack.undoActionName == "Pending")
        #expect(stack.lastMisuse == nil)
    }

    @Test func redoAndJumpWithTwoGroupsOpenAreMisuses() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.undo()
        stack.beginUndoGrouping()
        stack.beginUndoGrouping()
        let before = stack._structure
        stack.redo()
        #expect(stack.lastMisuse == .nestedGroupsOpen(.redo, groupingLevel: 2))
        #expect(stack.historyPosition == 1, "the open group is a step, as Foundation counts it")
        stack.jump(to: 2)
        #expect(stack.lastMisuse == .nestedGroupsOpen(.jump, groupingLevel: 2))
        #expect(stack._structure == before)
        #expect(counter.value == 0)
    }

    // Finding 8: with the automatic group open and holding an action, jump(to: historyPosition)
    // undid the pending edit.

    @Test func jumpingToTheCurrentPositionKeepsThePendingEdit() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        stack.endEvent()
        counter.set(2, on: stack)
        #expect(stack.undoEntries.count == 2)
        #expect(stack.historyPosition == 2, "the open step is counted, as undoEntries lists it")
        stack.jump(to: stack.historyPosition)
        #expect(counter.value == 2)
        stack.jump(to: 1)
        #expect(counter.value == 1)
        #expect(stack.historyPosition == 1)
        stack.jump(to: 2)
        #expect(counter.value == 2)
    }

    // Finding 9: in drop mode the title named a group that undo() would drop.

    @Test func withAnEmptyExplicitGroupOpenTheTitleAndTheFirstEntryAgree() {
        let stack = makeStack(dropsEmptyGroups: true)
        let counter = Counter()
        group(stack, named: "Move") { counter.set(1, on: stack) }
        stack.beginUndoGrouping()
        stack.setActionName("Rename")
        #expect(stack.undoMenuItemTitle == "Undo Move")
        #expect(stack.undoEntries.first?.title == "Undo Move")
        #expect(stack.historyPosition == 1)
        stack.endUndoGrouping()
        #expect(stack.undoMenuItemTitle == "Undo Move")
    }

    // Finding 2: recursion on nesting depth overflowed the stack; registration was O(depth).

    @Test func groupsNestHundredsOfThousandsDeepWithoutRecursion() {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.postsNotifications = false
        stack.dropsEmptyGroups = true
        stack.misusePolicy = .report  // the redo below is a misuse on purpose
        let counter = Counter()
        let depth = 200_000
        for _ in 0..<depth { stack.beginUndoGrouping() }
        #expect(stack.groupingLevel == depth)
        counter.set(1, on: stack)
        stack.endUndoGrouping()
        stack.undoNestedGroup()  // the innermost group, nested 199,999 deep
        #expect(counter.value == 0)
        stack.redo()  // a redo with groups open closes... not: more than one is open
        #expect(stack.lastMisuse == .nestedGroupsOpen(.redo, groupingLevel: depth - 1))
        for _ in 1..<depth { stack.endUndoGrouping() }
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 0, "the outer groups closed empty (its only action was undone alone)")
        stack.redo()
        #expect(counter.value == 1)
        stack.removeAllActions(withTarget: counter)
        stack.removeAllActions()
        #expect(stack.undoCount == 0)
    }
}
