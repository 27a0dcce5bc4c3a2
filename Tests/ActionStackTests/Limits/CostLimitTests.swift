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

struct CostLimitTests {
    @Test func oldestWholeStepsAreDroppedWhenTheLimitIsPassed() {
        let stack = makeStack()
        stack.maximumCost = 100
        let target = Counter()
        for step in 1...5 {
            group(stack, named: "Step \(step)") {
                stack.registerUndo(withTarget: target, options: .cost(20)) { $0.value -= 1 }
                stack.registerUndo(withTarget: target, options: .cost(20)) { $0.value -= 1 }
            }
        }
        #expect(stack.undoCount == 2, "two steps of 40 fit in 100, a third would not")
        stack.undo()
        stack.undo()
        #expect(target.value == -4, "each step was kept whole")
    }

    /// Costs near `Int.max` never overflow the total (the stack's checks would trap on it), and a
    /// negative cost set on the options counts as 0.
    @Test(arguments: [0, Int.max - 1])
    func hugeAndNegativeCostsAreSafe(limit: Int) {
        let stack = makeStack()
        stack.maximumCost = limit
        let target = Counter()
        for _ in 0..<3 {
            group(stack) { stack.registerUndo(withTarget: target, options: .cost(Int.max)) { $0.value -= 1 } }
        }
        #expect(stack.undoCount == (limit == 0 ? 3 : 1), "the total stays at Int.max, over any limit below it")
        var negative = ActionStack.RegistrationOptions()
        negative.cost = -50
        group(stack) { stack.registerUndo(withTarget: target, options: negative) { $0.value -= 1 } }
        // With the limit, the huge step is dropped when the new one closes (Int.max is over it).
        #expect(stack.undoCount == (limit == 0 ? 4 : 1))
        stack.undo()
        stack.undo()
        #expect(target.value == (limit == 0 ? -2 : -1))
        #expect(stack._invariantViolations().isEmpty, "the total equals the sum of the costs kept")
    }

    /// Costs past `Int.max` are added exactly: once a huge step is trimmed, the rest count in full.
    @Test(arguments: [
        ([Int.max, 50, 60], 1), ([Int.max, Int.max, 10, 10], 2), ([Int.max, Int.max, Int.max, 40, 50], 2),
    ])
    func costsAddUpExactlyPastIntMax(costs: [Int], kept: Int) {
        let stack = makeStack()
        stack.maximumCost = 100
        let target = Counter()
        for cost in costs {
            group(stack) { stack.registerUndo(withTarget: target, options: .cost(cost)) { $0.value -= 1 } }
        }
        #expect(stack.undoCount == kept)
        #expect(stack._invariantViolations().isEmpty)
    }

    @Test func theNewestStepIsKeptEvenIfItAloneIsOverTheLimit() {
        let stack = makeStack()
        stack.maximumCost = 10
        let target = Counter()
        group(stack) { stack.registerUndo(withTarget: target, options: .cost(5)) { $0.value = 1 } }
        group(stack) { stack.registerUndo(withTarget: target, options: .cost(50)) { $0.value = 2 } }
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(target.value == 2)
    }

    @Test func theLimitIsAdjustableAtAnyTime() {
        let stack = makeStack()
        let target = Counter()
        for _ in 1...10 {
            group(stack) { stack.registerUndo(withTarget: target, options: .cost(10)) { $0.value += 1 } }
        }
        #expect(stack.undoCount == 10)
        stack.maximumCost = 35
        #expect(stack.undoCount == 3)
        stack.maximumCost = 0
        group(stack) { stack.registerUndo(withTarget: target, options: .cost(1000)) { $0.value += 1 } }
        #expect(stack.undoCount == 4)
    }

    @Test func costsLeaveWithUndoneRemovedAndClearedActions() {
        let stack = makeStack()
        stack.maximumCost = 30
        let a = Counter("a")
        let b = Counter("b")
        group(stack) { stack.registerUndo(withTarget: a, options: .cost(10)) { $0.value += 1 } }
        group(stack) { stack.registerUndo(withTarget: b, options: .cost(10)) { $0.value += 1 } }
        stack.removeAllActions(withTarget: a)
        stack.undo()
        group(stack) { stack.registerUndo(withTarget: a, options: .cost(15)) { $0.value += 1 } }
        group(stack) { stack.registerUndo(withTarget: a, options: .cost(15)) { $0.value += 1 } }
        #expect(stack.undoCount == 2, "freed costs were subtracted")
        #expect(stack._invariantViolations().isEmpty)
    }

    @Test func levelsAndCostWorkTogether() {
        let stack = makeStack()
        stack.levelsOfUndo = 3
        stack.maximumCost = 1000
        let target = Counter()
        for _ in 1...5 {
            group(stack) { stack.registerUndo(withTarget: target, options: .cost(1)) { $0.value += 1 } }
        }
        #expect(stack.undoCount == 3)
    }

    // Setting maximumCost with a group open keeps the newest closed step.

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
}
