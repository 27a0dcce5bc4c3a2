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

struct CleanStateCompositionTests {
    // Finding 3: removal by target (or a freed target) made the stack report clean while a change
    // was still applied.

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

    // Finding 4: a scope rolled back inside an open group left the stack dirty.

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

    // Finding 5: undoing a nested group after the save kept the stack clean.

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
