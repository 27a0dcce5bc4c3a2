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

struct LimitCompositionTests {
    // Finding 16: setting maximumCost with a group open dropped the newest closed step.

    @Test func settingTheCostLimitWithAGroupOpenKeepsTheNewestClosedStep() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { stack.registerUndo(withTarget: counter, options: .cost(50)) { $0.value = 0 } }
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: counter, options: .cost(50)) { $0.value = 0 }
        stack.maximumCost = 10
        #expect(stack.undoCount == 1, "the newest closed step is always kept")
        stack.endUndoGrouping()
        #expect(stack.undoCount == 1, "now the open group is the newest closed step")
    }

    // Finding 17: a scope whose body closed its own group and threw lost a step to trimming.

    @Test func aScopeThatClosesItsOwnGroupAndThrowsDoesNotLoseATrimmedStep() {
        let stack = makeStack()
        stack.levelsOfUndo = 2
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        group(stack) { counter.set(2, on: stack) }
        #expect(throws: Failure.self) {
            try stack.group {
                counter.set(3, on: stack)
                stack.endUndoGrouping()  // the body closes the scope's own group
                throw Failure()
            }
        }
        #expect(counter.value == 2)
        #expect(stack.undoCount == 2, "trimming waited for the scope; the rollback took its step out")
        stack.undo()
        stack.undo()
        #expect(counter.value == 0)
    }
}
