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

// Branches that leave the history release what their handlers captured, and the stack stops
// tracking their targets; what stays in the history is kept.

struct BranchingLifetimeTests {
    enum Cause: CaseIterable, CustomTestStringConvertible {
        case maximumBranchSteps, maximumCost, trimmedRoot, removeAllActions, switchToLinear, freedTarget

        var testDescription: String { "\(self)" }
    }

    /// 0 - 1 (on a pen, capturing `branch`) and 0 - 2 - {3, 4 (capturing `path`)}, at 4: the
    /// branch [1] forks at the root and was left first; [3] forks at 2. The pen's step costs 5,
    /// the others 1.
    @Test(arguments: Cause.allCases)
    func aBranchThatLeavesTheHistoryReleasesWhatItsHandlersCaptured(cause: Cause) {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        var pen: Pen? = Pen(document)
        var branch: Captured? = Captured()
        var path: Captured? = Captured()
        let branchTracker = LifetimeTracker(branch!)
        let pathTracker = LifetimeTracker(path!)
        let penTracker = LifetimeTracker(pen!)
        document.set("a", pen: pen, cost: 5, keeping: branch)  // 1
        stack.undo()
        document.set("b", cost: 1)  // 2
        document.set("bc", cost: 1)  // 3
        stack.undo()
        document.set("bd", cost: 1, keeping: path)  // 4
        branch = nil
        path = nil
        #expect(shape(stack.historyTree) == "0:[1,2] 1:[] 2:[3,4] 3:[] *4:[]")
        #expect(branchTracker.isAlive && pathTracker.isAlive, "the stack holds both steps")
        #expect(stack._trackedTargetCount == 2, "the document and the pen")

        let expected: String
        switch cause {
        case .maximumBranchSteps:
            stack.maximumBranchSteps = 1  // [1] was left first
            expected = "0:[2] 2:[3,4] 3:[] *4:[]"
        case .maximumCost:
            stack.maximumCost = 7  // undo 2 + branches 5 + 1: the leaf of [1] goes first
            expected = "0:[2] 2:[3,4] 3:[] *4:[]"
        case .trimmedRoot:
            stack.levelsOfUndo = 1  // 2 becomes the root; [1] forked at the old root
            expected = "2:[3,4] 3:[] *4:[]"
        case .removeAllActions:
            stack.removeAllActions()
            expected = "*5:[]"
        case .switchToLinear:
            stack.historyShape = .linear
            expected = "linear"
        case .freedTarget:
            pen = nil
            expected = "0:[2] 2:[3,4] 3:[] *4:[]"
        }
        #expect(shape(stack.historyTree) == expected)
        #expect(!branchTracker.isAlive, "the branch's handlers were released")
        #expect(pathTracker.isAlive == (cause != .removeAllActions), "the current path is kept")
        #expect(stack._trackedTargetCount == (cause == .removeAllActions ? 0 : 1), "the pen is no longer tracked")
        #expect(penTracker.isAlive == (cause != .freedTarget), "the stack never held the pen")
        withExtendedLifetime(pen) {}
        stack._checkInvariants()
    }

    /// A trimmed root takes every branch that forked there, and the branches that fork from their
    /// nodes, down to the leaves.
    @Test func aTrimmedRootReleasesTheBranchesThatForkFromItsBranches() {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        let pen = Pen(document)
        var captured: [Captured]? = [Captured(), Captured(), Captured()]
        let trackers = captured!.map { LifetimeTracker($0) }
        document.set("a", pen: pen, keeping: captured![0])  // 1
        document.set("ab", pen: pen, keeping: captured![1])  // 2
        stack.undo()
        document.set("ac", pen: pen, keeping: captured![2])  // 3: [2] forks at 1
        stack.undo()
        stack.undo()
        document.set("x")  // 4: [1, 3] forks at 0
        document.set("xy")  // 5
        captured = nil
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[2,3] 2:[] 3:[] 4:[5] *5:[]")
        #expect(trackers.allSatisfy { $0.isAlive })
        stack.levelsOfUndo = 1
        #expect(shape(stack.historyTree) == "4:[5] *5:[]")
        #expect(trackers.allSatisfy { !$0.isAlive })
        #expect(stack._trackedTargetCount == 1)
        withExtendedLifetime(pen) {}
        stack._checkInvariants()
    }

    /// Pruning a leaf at a time releases exactly the steps pruned.
    @Test func pruningALeafReleasesOnlyThatStep() {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        var captured: [Captured]? = [Captured(), Captured(), Captured()]
        let trackers = captured!.map { LifetimeTracker($0) }
        for (index, text) in ["a", "ab", "abc"].enumerated() { document.set(text, keeping: captured![index]) }
        captured = nil
        stack.undo()
        stack.undo()
        stack.undo()
        document.set("x")  // [1, 2, 3] forks at 0
        stack.maximumBranchSteps = 2
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[2] 2:[] *4:[]")
        #expect(trackers.map(\.isAlive) == [true, true, false])
        stack.maximumBranchSteps = 1
        #expect(trackers.map(\.isAlive) == [true, false, false])
        stack._checkInvariants()
    }
}
