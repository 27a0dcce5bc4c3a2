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

/// Undo and redo while registration is disabled: each runs its step, with its will and did
/// notifications, and builds nothing on the opposite stack, in both empty-group modes. (Foundation
/// builds the opposite group with `beginUndoGrouping()` and `endUndoGrouping()`, which do nothing
/// while registration is disabled.)
struct RegistrationDisabledTests {
    /// Three closed one-action steps, setting `counters` to 1 in turn.
    private func threeSteps(_ stack: ActionStack, _ counters: [Counter]) {
        for counter in counters { group(stack) { counter.set(1, on: stack) } }
    }

    @Test(arguments: [false, true])
    func undoRunsTheStepAndBuildsNoRedoStep(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        let recorder = NotificationRecorder(stack)
        stack.disableUndoRegistration()
        stack.undo()
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo"])
        #expect(counter.value == 0)
        #expect(stack._structure == "undo() redo()")
        stack.enableUndoRegistration()
        #expect(!stack.canUndo)
        #expect(!stack.canRedo)
        #expect(stack.lastMisuse == nil)
    }

    /// The example: no do-nothing "Undo" is left in the Edit menu.
    @Test(arguments: [false, true])
    func redoRunsTheStepAndBuildsNoUndoStep(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.markClean()
        stack.undo()
        let recorder = NotificationRecorder(stack)
        stack.disableUndoRegistration()
        stack.redo()
        #expect(recorder.withoutCheckpoints == ["WillRedo", "DidRedo"])
        stack.enableUndoRegistration()
        #expect(counter.value == 1)
        #expect(!stack.canUndo)
        #expect(stack.undoCount == 0)
        #expect(!stack.canRedo)
        #expect(stack.undoMenuItemTitle == "Undo")
        #expect(stack.historyPosition == 0)
        #expect(stack.isClean, "the redo ran every action: the document is back in the saved state")
        #expect(stack.lastMisuse == nil)
    }

    /// Only the steps redone while registration is disabled are left out; a redo once it is enabled
    /// again builds its undo step as usual.
    @Test(arguments: [false, true])
    func redoBuildsAgainOnceRegistrationIsEnabled(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counters = [Counter("a"), Counter("b")]
        threeSteps(stack, counters)
        stack.undo()
        stack.undo()
        stack.disableUndoRegistration()
        stack.redo()
        stack.enableUndoRegistration()
        #expect(stack.undoCount == 0)
        #expect(stack.redoCount == 1)
        stack.redo()
        #expect(counters.map(\.value) == [1, 1])
        #expect(stack.undoCount == 1)
        #expect(stack.redoCount == 0)
        stack.undo()
        #expect(counters.map(\.value) == [1, 0])
        #expect(!stack.canUndo)
    }

    /// A redo whose handlers register nothing: Foundation mode keeps the empty step while
    /// registration is enabled, and builds nothing while it is disabled.
    @Test(arguments: [false, true])
    func aRedoWhoseHandlersRegisterNothing(registrationDisabled: Bool) {
        let stack = makeStack()
        let target = Counter()
        group(stack) {
            stack.registerUndo(withTarget: target) { t in
                stack.registerUndo(withTarget: t) { $0.value = 42 }
            }
        }
        stack.undo()
        if registrationDisabled { stack.disableUndoRegistration() }
        stack.redo()
        if registrationDisabled { stack.enableUndoRegistration() }
        #expect(target.value == 42)
        #expect(stack.undoCount == (registrationDisabled ? 0 : 1))
    }

    @Test(arguments: [false, true])
    func undoNestedGroupRunsTheGroupAndBuildsNoRedoStep(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let a = Counter("a")
        let b = Counter("b")
        stack.beginUndoGrouping()
        a.set(1, on: stack)
        stack.beginUndoGrouping()
        b.set(2, on: stack)
        stack.endUndoGrouping()
        let recorder = NotificationRecorder(stack)
        stack.disableUndoRegistration()
        stack.undoNestedGroup()
        stack.enableUndoRegistration()
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo"])
        #expect(stack.lastMisuse == nil)
        #expect((a.value, b.value) == (1, 0))
        #expect(stack.groupingLevel == 1, "the outer group is still open")
        #expect(!stack.canRedo)
        stack.endUndoGrouping()
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(a.value == 0)
        #expect(stack.redoCount == 1)
    }

    /// With no group open, `undoNestedGroup()` undoes the newest step, as `undo()` does.
    @Test(arguments: [false, true])
    func undoNestedGroupOfAStepBuildsNoRedoStep(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.disableUndoRegistration()
        stack.undoNestedGroup()
        stack.enableUndoRegistration()
        #expect(counter.value == 0)
        #expect(stack._structure == "undo() redo()")
    }

    @Test(arguments: [false, true])
    func jumpBackwardUndoesEveryStepAndBuildsNoRedoStep(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counters = [Counter("a"), Counter("b"), Counter("c")]
        threeSteps(stack, counters)
        let recorder = NotificationRecorder(stack)
        stack.disableUndoRegistration()
        stack.jump(to: 1)
        stack.enableUndoRegistration()
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo", "WillUndo", "DidUndo"])
        #expect(counters.map(\.value) == [1, 0, 0])
        #expect(stack.undoCount == 1)
        #expect(stack.redoCount == 0)
        #expect(stack.historyPosition == 1)
    }

    /// Forward, the jump redoes until as many steps are left to redo as lie beyond the position:
    /// here two, although the position, with nothing built, does not move.
    @Test(arguments: [false, true])
    func jumpForwardRedoesEveryStepAndBuildsNoUndoStep(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counters = [Counter("a"), Counter("b"), Counter("c")]
        threeSteps(stack, counters)
        stack.jump(to: 0)
        let recorder = NotificationRecorder(stack)
        stack.disableUndoRegistration()
        stack.jump(to: 2)
        stack.enableUndoRegistration()
        #expect(recorder.withoutCheckpoints == ["WillRedo", "DidRedo", "WillRedo", "DidRedo"])
        #expect(counters.map(\.value) == [1, 1, 0])
        #expect(stack.undoCount == 0)
        #expect(stack.redoCount == 1)
        #expect(stack.historyPosition == 0)
        #expect(stack.lastMisuse == nil)
    }

    /// A scoped group whose closure undoes its own group, redoes it with registration disabled,
    /// then throws: the group is no longer in the history, so nothing is rolled back, and the redo
    /// left no step to undo.
    @Test(arguments: [false, true])
    func aScopeThatRedoesWhileDisabledThenThrowsLeavesNoStep(dropsEmptyGroups: Bool) {
        struct Failure: Error {}
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counter = Counter()
        #expect(throws: Failure.self) {
            try stack.group(named: "Scope") {
                counter.set(1, on: stack)
                stack.undo()  // closes and undoes the scope's group
                stack.disableUndoRegistration()
                stack.redo()
                stack.enableUndoRegistration()
                throw Failure()
            }
        }
        #expect(counter.value == 1)
        #expect(stack._structure == "undo() redo()")
        #expect(stack.lastMisuse == nil)
    }
}
