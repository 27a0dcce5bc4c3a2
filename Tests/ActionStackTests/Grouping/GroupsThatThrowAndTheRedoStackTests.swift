// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Testing

/// A scoped group whose body throws is rolled back, and what it does to the redo stack is each
/// form's stated choice: `group(named:_:)` puts the body's registrations on the stack as they come,
/// so in a linear history the redo stack they emptied stays empty (in a branching one they made it
/// a branch, and the rollback leaves the tree as it was, redo choice included);
/// `asyncGroup(named:isolation:_:)` holds them apart until the group closes, so the redo stack
/// stays as it was, in both shapes, and under a limit nothing below is trimmed.
@Suite(.timeLimit(.minutes(10))) @MainActor struct GroupsThatThrowAndTheRedoStackTests: TrimRulesFixtures {
    struct Failure: Error {}

    final class Value {
        var value = 0
        func set(_ new: Int, on stack: ActionStack) {
            let old = value
            value = new
            stack.registerUndo(withTarget: self) { $0.set(old, on: stack) }
        }
    }

    /// 1, then 2, then one undo: "2" is on the redo stack.
    private func historyWithARedoStep() -> (ActionStack, Value) {
        let stack = makeStack()
        let value = Value()
        for new in 1...2 {
            stack.beginUndoGrouping()
            value.set(new, on: stack)
            stack.setActionName("\(new)")
            stack.endUndoGrouping()
        }
        stack.undo()
        return (stack, value)
    }

    @Test func aSynchronousGroupThatThrowsLeavesTheRedoStackItsBodyEmptied() {
        let (stack, value) = historyWithARedoStep()
        #expect(throws: Failure.self) {
            try stack.group(named: "3") {
                value.set(3, on: stack)
                throw Failure()
            }
        }
        #expect(value.value == 1)
        #expect(stack.undoEntries.map(\.actionName) == ["1"])
        #expect(stack.redoEntries.isEmpty)
    }

    @Test func anAsynchronousGroupThatThrowsLeavesTheRedoStackAsItWas() async {
        let (stack, value) = historyWithARedoStep()
        await #expect(throws: Failure.self) {
            try await stack.asyncGroup(named: "3") {
                await Task.yield()
                value.set(3, on: stack)
                throw Failure()
            }
        }
        #expect(value.value == 1)
        #expect(stack.undoEntries.map(\.actionName) == ["1"])
        #expect(stack.redoEntries.map(\.actionName) == ["2"])
        stack.redo()
        #expect(value.value == 2)
    }

    @Test(arguments: [false, true]) func throwingAsyncGroupLeavesTheRedoStack(tree: Bool) async {
        let (stack, box) = history(3, tree: tree)
        stack.undo()
        let redoBefore = stack.redoEntries.map(\.actionName)
        do {
            try await stack.asyncGroup(named: "A") {
                box.set(20, on: stack)
                await Task.yield()
                throw Failure()
            }
        } catch {}
        #expect(stack.redoEntries.map(\.actionName) == redoBefore)
        #expect(box.value == 2)
        stack.redo()
        #expect(box.value == 3)
    }

    /// A throwing `group(named:)`: in a linear history the redo stack the body's registrations
    /// emptied stays empty; in a branching history they made it a branch, and the rollback leaves
    /// the tree as it was, redo choice included (the doc comment and BranchingHistory.md).
    @Test(arguments: [false, true]) func throwingScopedGroupEmptiesTheRedoStackOnlyInALinearHistory(tree: Bool) {
        let (stack, box) = history(3, tree: tree)
        stack.undo()
        do {
            try stack.group(named: "G") {
                box.set(20, on: stack)
                throw Failure()
            }
        } catch {}
        #expect(stack.redoEntries.map(\.actionName) == (tree ? ["v3"] : []))
        #expect(box.value == 2)
    }

    /// A throwing asyncGroup under a limit: the trim waits, nothing below is lost.
    @Test func throwingAsyncGroupUnderALimitKeepsTheUndoStack() async {
        let (stack, box) = history(3, levels: 3)
        stack.undo()
        do {
            try await stack.asyncGroup(named: "A") {
                box.set(20, on: stack)
                box.set(21, on: stack)
                throw Failure()
            }
        } catch {}
        #expect(stack.undoEntries.map(\.actionName) == ["v2", "v1"])
        #expect(stack.redoEntries.map(\.actionName) == ["v3"])
    }
}
