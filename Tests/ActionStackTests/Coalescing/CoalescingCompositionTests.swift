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

struct CoalescingCompositionTests {
    /// A keystroke: sets the value, registers its inverse with the coalescing key (the inverse
    /// registers its own inverse, so redo works), and names the step when asked.
    static func typing(_ stack: ActionStack, _ counter: Counter, _ value: Int, named name: String? = nil) {
        let old = counter.value
        stack.registerUndo(withTarget: counter, options: .coalescing("typing")) { counter in
            typing(stack, counter, old)
        }
        counter.value = value
        if let name { stack.setActionName(name) }
    }

    // Finding 13: a keystroke joined a step that held another target's change.

    @Test func aKeystrokeDoesNotJoinAStepHoldingAnotherTargetsChange() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let text = Counter("text")
        let other = Counter("other")
        other.set(1, on: stack)  // same event, another target, first
        Self.typing(stack, text, 1)
        stack.endEvent()
        Self.typing(stack, text, 2)
        stack.endEvent()
        #expect(stack.undoCount == 2)
        stack.undo()
        #expect(text.value == 1)
        #expect(other.value == 1, "undoing the last keystroke does not undo the unrelated change")
    }

    // Finding 14: register then setActionName per keystroke opened an empty group each time.

    @Test(arguments: [false, true])
    func registerThenNamePerKeystrokeIsOneNamedStep(dropsEmptyGroups: Bool) {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
        stack.automaticGroupClosing = .manual
        let text = Counter()
        for value in 1...5 {
            Self.typing(stack, text, value, named: "Typing")
            #expect(stack.groupingLevel == (value == 1 ? 1 : 0), "a join opens no group")
            stack.endEvent()
        }
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Typing")
        stack.undo()
        #expect(text.value == 0)
        #expect(stack.redoMenuItemTitle == "Redo Typing")
    }

    // Finding 15: a refused undoNestedGroup() ended coalescing.

    @Test func aRefusedCallDoesNotEndCoalescing() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let text = Counter()
        Self.typing(stack, text, 1)
        stack.endEvent()
        stack.beginUndoGrouping()
        stack.undoNestedGroup()  // refused: the newest item is an open group
        #expect(stack.lastMisuse == .undoNestedGroupWithOpenGroup)
        stack.endUndoGrouping()  // level 2 -> 1
        stack.endUndoGrouping()  // closes the automatic group (empty: a do-nothing step)
        #expect(stack.undoCount == 2)
        stack.removeAllActions()
        Self.typing(stack, text, 1)
        stack.endEvent()
        stack.endUndoGrouping()  // refused: nothing open
        Self.typing(stack, text, 2)
        stack.endEvent()
        #expect(stack.undoCount == 1, "the misuse did not end coalescing")
    }
}
