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
import Observation
import Testing

struct HistoryEntryTests {
    func populated(dropsEmptyGroups: Bool = false) -> (ActionStack, Counter) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counter = Counter()
        for (value, name) in [(1, "One"), (2, "Two"), (3, "Three"), (4, "Four")] {
            group(stack, named: name) { counter.set(value, on: stack) }
        }
        return (stack, counter)
    }

    @Test func entriesAreNewestFirstWithTitlesAndCounts() {
        let (stack, counter) = populated(dropsEmptyGroups: true)
        stack.markClean()
        stack.undo()
        stack.beginUndoGrouping()
        stack.undo()  // closes the empty group (dropped), then undoes Three
        #expect(stack.undoEntries.map(\.actionName) == ["Two", "One"])
        #expect(stack.undoEntries.map(\.title) == ["Undo Two", "Undo One"])
        #expect(stack.redoEntries.map(\.title) == ["Redo Three", "Redo Four"])
        #expect(stack.redoEntries.map(\.isClean) == [false, true])
        #expect(stack.undoEntries.allSatisfy { $0.actionCount == 1 })
        #expect(stack.historyPosition == 2)
        #expect(counter.value == 2)
    }

    @Test func anEmptyGroupIsAStepOfTheHistoryAsInFoundation() {
        let (stack, counter) = populated()
        stack.markClean()
        stack.undo()
        stack.beginUndoGrouping()
        #expect(stack.undoEntries.map(\.actionName) == ["", "Three", "Two", "One"])
        #expect(stack.undoEntries.map(\.isOpen) == [true, false, false, false])
        #expect(stack.historyPosition == 4, "the open group is the step undo() would close and undo")
        stack.undo()  // closes the empty group, a new step that clears redo, then undoes it
        #expect(stack.undoEntries.map(\.actionName) == ["Three", "Two", "One"])
        #expect(stack.redoEntries.isEmpty)
        #expect(counter.value == 3)
        #expect(!stack.isClean)
    }

    @Test func entriesCarryDiscardableAndUserInfo() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        counter.set(2, on: stack)
        stack.setActionIsDiscardable(true)
        stack.setActionUserInfoValue("x", forKey: "k")
        stack.endUndoGrouping()
        let entry = stack.undoEntries[0]
        #expect(entry.isDiscardable)
        #expect(entry.actionCount == 2)
        #expect(entry.userInfo["k"] as? String == "x")
    }

    @Test func jumpGoesSeveralStepsEitherWayAndPostsEachStep() {
        let (stack, counter) = populated()
        let recorder = NotificationRecorder(stack)
        stack.jump(to: 1)
        #expect(counter.value == 1)
        #expect(recorder.names.filter { $0 == "DidUndo" }.count == 3)
        stack.jump(to: 3)
        #expect(counter.value == 3)
        #expect(recorder.names.filter { $0 == "DidRedo" }.count == 2)
        stack.jump(to: 99)
        #expect(counter.value == 4, "clamped")
        stack.jump(to: -5)
        #expect(counter.value == 0)
    }

    @Test func jumpAcrossTheCleanPoint() {
        let (stack, counter) = populated()
        defer { withExtendedLifetime(counter) {} }
        stack.jump(to: 2)
        stack.markClean()
        stack.jump(to: 4)
        #expect(!stack.isClean)
        stack.jump(to: 0)
        #expect(!stack.isClean)
        stack.jump(to: 2)
        #expect(stack.isClean)
    }

    @Test func jumpReportsOneChangeToObservers() {
        let (stack, counter) = populated()
        defer { withExtendedLifetime(counter) {} }
        var states: [ActionStack.State] = []
        let token = stack.observe { states.append($0) }
        stack.jump(to: 0)
        #expect(states.count == 1)
        #expect(states.last?.undoCount == 0)
        #expect(states.last?.redoCount == 4)
        token.cancel()
    }

    /// During an operation in progress nothing is swept, but the history reads as if it were: a
    /// step that lost an action to a freed target counts what it keeps, and no longer leads back to
    /// the saved state below it.
    @Test func entriesReadFromAHandlerAreAsIfFreedTargetsWereSwept() {
        let stack = makeStack()
        let kept = Counter()
        var freed: Counter? = Counter()
        group(stack, named: "One") { kept.set(1, on: stack) }
        stack.markClean()
        group(stack, named: "Two") {
            kept.set(2, on: stack)
            freed?.set(2, on: stack)
        }
        var inside: (counts: [Int], clean: [Bool], undoCount: Int, position: Int, atStart: Bool)?
        group(stack, named: "Three") {
            stack.registerUndo(withTarget: kept) { _ in
                let entries = stack.undoEntries
                inside = (
                    entries.map(\.actionCount), entries.map(\.isClean), stack.undoCount,
                    stack.historyPosition, stack.isCleanAtStart
                )
            }
        }
        freed = nil
        stack.undo()
        let answer = try! #require(inside)
        #expect(answer.counts == [1, 1], "Two keeps one live action; One has its own")
        #expect(answer.clean == [false, false], "undoing Two no longer leads back to the saved state")
        #expect(answer.undoCount == 2)
        #expect(answer.position == 2)
        #expect(!answer.atStart)
        // At idle the sweep has run for real: the same answers.
        #expect(stack.undoEntries.map(\.actionCount) == answer.counts)
        #expect(stack.undoEntries.map(\.isClean) == answer.clean)
        #expect(stack.undoCount == answer.undoCount)
    }

    @Test func jumpFromAHandlerIsMisuse() {
        let stack = makeStack()
        let target = Counter()
        group(stack) { stack.registerUndo(withTarget: target) { _ in stack.jump(to: 0) } }
        stack.undo()
        #expect(stack.lastMisuse == .reentrantCall(.jump, during: .undoing))
        #expect(stack.lastMisuse?.description.hasPrefix("jump(to:) was called while an undo") == true)
    }

    // With the automatic group open and holding an action, a jump to the current position keeps the
    // pending edit: the open step is counted, as undoEntries lists it.

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

    // With an empty explicit group open, the undo title and the first entry name the same step.

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
}
