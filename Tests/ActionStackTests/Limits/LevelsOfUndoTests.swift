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

struct LevelsOfUndoTests {
    @Test func oldestGroupsAreDroppedWhenAGroupCloses() {
        let stack = makeStack()
        stack.levelsOfUndo = 3
        let counter = Counter()
        for value in 1...5 { group(stack) { counter.set(value, on: stack) } }
        #expect(stack.undoCount == 3)
        for _ in 0..<5 { stack.undo() }
        #expect(counter.value == 2, "steps 1 and 2 were dropped")
    }

    @Test func loweringTheLimitTrimsAtOnce() {
        let stack = makeStack()
        let counter = Counter()
        for value in 1...6 { group(stack) { counter.set(value, on: stack) } }
        stack.levelsOfUndo = 2
        #expect(stack.undoCount == 2)
        stack.levelsOfUndo = 0
        for value in 7...9 { group(stack) { counter.set(value, on: stack) } }
        #expect(stack.undoCount == 5, "0 means unlimited")
    }

    @Test func stepsSurviveTheStorageGrowingAfterTrimming() {
        // Trimming takes steps from the front of the storage; growing it afterwards must keep every
        // step, in order, whatever the sizes (each size puts the oldest step at another position).
        for limit in [5, 6, 7, 9, 13] {
            let stack = makeStack()
            stack.levelsOfUndo = limit
            let counter = Counter()
            var value = 0
            for _ in 0..<(limit + 7) {
                value += 1
                group(stack) { counter.set(value, on: stack) }
            }
            stack.levelsOfUndo = 0
            for _ in 0..<40 {
                value += 1
                group(stack) { counter.set(value, on: stack) }
            }
            #expect(stack.undoCount == limit + 40)
            var expected = value
            while stack.canUndo {
                stack.undo()
                expected -= 1
                #expect(counter.value == expected, "limit \(limit)")
            }
            #expect(counter.value == value - limit - 40)
            while stack.canRedo { stack.redo() }
            #expect(counter.value == value, "limit \(limit)")
        }
    }

    @Test func theRedoStackIsNeverTrimmed() {
        let stack = makeStack()
        let counter = Counter()
        for value in 1...4 { group(stack) { counter.set(value, on: stack) } }
        for _ in 0..<4 { stack.undo() }
        stack.levelsOfUndo = 1
        #expect(stack.redoCount == 4)
        stack.redo()
        stack.redo()
        #expect(stack.undoCount == 1, "redo's group close trims the undo stack")
        #expect(stack.redoCount == 2)
    }

    @Test func openGroupIsNeverTrimmed() {
        let stack = makeStack()
        let counter = Counter()
        for value in 1...3 { group(stack) { counter.set(value, on: stack) } }
        stack.beginUndoGrouping()
        counter.set(10, on: stack)
        stack.levelsOfUndo = 1
        #expect(stack.undoCount == 1)
        #expect(stack.groupingLevel == 1)
        stack.endUndoGrouping()
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(counter.value == 3)
    }

    @Test func trimmedActionsReleaseWhatTheyCaptured() {
        let stack = makeStack()
        stack.levelsOfUndo = 1
        let target = Counter()
        var captured: Captured? = Captured()
        let tracker = LifetimeTracker(captured!)
        group(stack) { [captured] in stack.registerUndo(withTarget: target) { _ in _ = captured } }
        captured = nil
        #expect(tracker.isAlive)
        group(stack) { target.set(1, on: stack) }
        #expect(!tracker.isAlive)
    }

    // A scope whose body closes its own group and throws loses no step to trimming.

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
