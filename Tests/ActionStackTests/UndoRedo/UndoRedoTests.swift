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

struct UndoRedoTests {
    @Test func undoAndRedoRestoreValuesThroughManySteps() {
        let stack = makeStack()
        let counter = Counter()
        for value in 1...5 { group(stack) { counter.set(value, on: stack) } }
        #expect(stack.undoCount == 5)
        for expected in [4, 3, 2, 1, 0] {
            stack.undo()
            #expect(counter.value == expected)
        }
        #expect(!stack.canUndo)
        #expect(stack.redoCount == 5)
        for expected in 1...5 {
            stack.redo()
            #expect(counter.value == expected)
        }
        #expect(!stack.canRedo)
        #expect(stack.undoCount == 5)
    }

    @Test func undoRunsEveryActionOfTheGroupNewestFirstAcrossNestedGroups() {
        let stack = makeStack()
        var order: [Int] = []
        let target = Counter()
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: target) { _ in order.append(1) }
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: target) { _ in order.append(2) }
        stack.registerUndo(withTarget: target) { _ in order.append(3) }
        stack.endUndoGrouping()
        stack.registerUndo(withTarget: target) { _ in order.append(4) }
        stack.endUndoGrouping()
        stack.undo()
        #expect(order == [4, 3, 2, 1])
    }

    @Test func handlersSeeIsUndoingAndGroupingLevelOne() {
        let stack = makeStack()
        let target = Counter()
        var seen: [(Bool, Bool, Int)] = []
        group(stack) {
            stack.registerUndo(withTarget: target) { _ in
                seen.append((stack.isUndoing, stack.isRedoing, stack.groupingLevel))
                stack.registerUndo(withTarget: target) { _ in
                    seen.append((stack.isUndoing, stack.isRedoing, stack.groupingLevel))
                }
            }
        }
        stack.undo()
        stack.redo()
        #expect(seen.count == 2)
        #expect(seen[0] == (true, false, 1))
        #expect(seen[1] == (false, true, 1))
        #expect(!stack.isUndoing && !stack.isRedoing)
    }

    @Test func registrationsDuringRedoGoToTheUndoStackAndKeepTheRedoStack() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        group(stack) { counter.set(2, on: stack) }
        stack.undo()
        stack.undo()
        #expect(stack.redoCount == 2)
        stack.redo()
        #expect(counter.value == 1)
        #expect(stack.redoCount == 1, "the other redo step is kept")
        #expect(stack.undoCount == 1)
        stack.redo()
        #expect(counter.value == 2)
    }

    @Test func nothingToUndoOrRedoReturnsQuietly() {
        let stack = makeStack()
        let recorder = NotificationRecorder(stack)
        stack.undo()
        stack.redo()
        stack.undoNestedGroup()
        #expect(stack.lastMisuse == nil)
        #expect(recorder.withoutCheckpoints.isEmpty)
    }

    @Test func undoClosesTheOneOpenGroupFirstEvenWithGroupsByEventOff() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(3, on: stack)
        stack.undo()
        #expect(stack.lastMisuse == nil)
        #expect(counter.value == 0)
        #expect(stack.groupingLevel == 0)
        #expect(stack.canRedo)
    }

    @Test func undoClosesTheOpenGroupEvenWhileRegistrationIsDisabled() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(3, on: stack)
        stack.disableUndoRegistration()
        stack.undo()
        #expect(stack.groupingLevel == 0)
        #expect(counter.value == 0)
        #expect(!stack.canRedo, "registration was disabled during the undo, so no redo step")
        stack.enableUndoRegistration()
    }

    @Test func undoWithTwoGroupsOpenIsMisuseAndChangesNothing() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.beginUndoGrouping()
        let before = stack._structure
        stack.undo()
        #expect(stack.lastMisuse == .nestedGroupsOpen(.undo, groupingLevel: 2))
        #expect(stack._structure == before)
        #expect(counter.value == 1)
    }

    @Test func undoNestedGroupUndoesAClosedNestedGroupInsideAnOpenOuterGroup() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        stack.beginUndoGrouping()
        a.set(1, on: stack)
        stack.beginUndoGrouping()
        b.set(2, on: stack)
        stack.endUndoGrouping()
        stack.undoNestedGroup()
        #expect(stack.lastMisuse == nil)
        #expect(b.value == 0, "the nested group was undone")
        #expect(a.value == 1, "the outer group was not")
        #expect(stack.groupingLevel == 1, "the outer group is still open")
        #expect(stack.redoCount == 1)
        stack.endUndoGrouping()
        stack.undo()
        #expect(a.value == 0)
    }

    @Test(arguments: [false, true])
    func undoNestedGroupWhenTheNewestItemIsNotAClosedGroupIsMisuse(newestIsAction: Bool) {
        let stack = makeStack()
        let a = Counter()
        stack.beginUndoGrouping()
        if newestIsAction { a.set(1, on: stack) }
        let before = stack._structure
        stack.undoNestedGroup()
        #expect(stack.lastMisuse == .undoNestedGroupWithOpenGroup)
        #expect(stack._structure == before)
    }

    @Test func emptyRedoGroupIsDroppedWhenHandlersRegisterNothing() {
        let stack = makeStack()
        let target = Counter()
        group(stack, named: "One-way") { stack.registerUndo(withTarget: target) { $0.value = -1 } }
        stack.undo()
        #expect(target.value == -1)
        #expect(!stack.canRedo)
        #expect(stack.redoCount == 0)
        #expect(stack.redoActionName == "")
    }

    @Test(arguments: [false, true])
    func aRedoWhoseHandlersRegisterNothing(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let target = Counter()
        // undo registers a one-way redo, whose handler registers nothing
        group(stack) {
            stack.registerUndo(withTarget: target) { t in
                stack.registerUndo(withTarget: t) { $0.value = 42 }
            }
        }
        group(stack) { target.set(5, on: stack) }
        stack.undo()
        stack.undo()
        #expect(stack.redoCount == 2)
        stack.redo()
        #expect(target.value == 42)
        // Foundation keeps the group a redo builds even when it is empty; drop mode drops it.
        #expect(stack.undoCount == (dropsEmptyGroups ? 0 : 1))
        #expect(stack.canUndo == !dropsEmptyGroups)
        #expect(stack.redoCount == 1, "the redo stack is kept either way")
        if !dropsEmptyGroups {
            stack.undo()  // the do-nothing step: runs nothing and leaves no redo step
            #expect(target.value == 42)
            #expect(stack.redoCount == 1)
        }
    }

    @Test func handlerCanRenameTheRedoGroup() {
        let stack = makeStack()
        let target = Counter()
        group(stack, named: "Add") {
            stack.registerUndo(withTarget: target) { t in
                stack.registerUndo(withTarget: t) { _ in }
                stack.setActionName("Re-add")
            }
        }
        stack.undo()
        #expect(stack.redoActionName == "Re-add")
        #expect(stack.redoMenuItemTitle == "Redo Re-add")
    }

    @Test func handlerGroupsNestInsideTheRedoGroupAndUnclosedOnesAreClosed() {
        let stack = makeStack()
        let target = Counter()
        group(stack) {
            stack.registerUndo(withTarget: target) { t in
                stack.beginUndoGrouping()
                #expect(stack.groupingLevel == 2)
                stack.registerUndo(withTarget: t) { $0.value += 1 }
                stack.beginUndoGrouping()  // left open on purpose
            }
        }
        stack.undo()
        #expect(stack.groupingLevel == 0)
        #expect(stack.redoCount == 1)
        stack.redo()
        #expect(target.value == 1)
    }

    // redo() closes the one open group first and records the redone step at the top level, with its
    // name and clean state; with two groups open, redo() and jump(to:) are misuses.

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
}
