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

struct CleanStateTests {
    /// Turning notifications back on does not post what changed while they were off; the next
    /// clean-state notification is for the next change.
    @Test func turningPostingBackOnStartsFromTheStateThen() {
        let stack = makeStack()
        let counter = Counter()
        let posts = Flag()
        let hook = NotificationHook(ActionStack.cleanStateDidChangeNotification, stack) { _ in posts.count += 1 }
        stack.postsNotifications = false
        group(stack) { counter.set(1, on: stack) }
        stack.postsNotifications = true
        _ = stack.isClean
        #expect(posts.count == 0, "the change made while off is not posted")
        stack.markClean()
        #expect(posts.count == 1, "the save is")
        withExtendedLifetime(hook) {}
    }

    @Test func aNewStackIsCleanAndAChangeMakesItDirty() {
        let stack = makeStack()
        let counter = Counter()
        #expect(stack.isClean)
        group(stack) { counter.set(1, on: stack) }
        #expect(!stack.isClean)
        stack.undo()
        #expect(stack.isClean, "undoing back to the start is clean again")
        stack.redo()
        #expect(!stack.isClean)
    }

    @Test func undoingAndRedoingBackToTheMarkedPointIsClean() {
        let stack = makeStack()
        let counter = Counter()
        for value in 1...3 { group(stack) { counter.set(value, on: stack) } }
        stack.markClean()
        #expect(stack.isClean)
        stack.undo()
        #expect(!stack.isClean)
        stack.undo()
        stack.redo()
        stack.redo()
        #expect(stack.isClean)
        group(stack) { counter.set(4, on: stack) }
        #expect(!stack.isClean)
        stack.undo()
        #expect(stack.isClean)
    }

    @Test func anOpenGroupHoldingAChangeIsNotClean() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        #expect(stack.isClean, "an empty open group changes nothing")
        counter.set(1, on: stack)
        #expect(!stack.isClean)
        stack.endUndoGrouping()
        stack.markClean()
        stack.beginUndoGrouping()
        counter.set(2, on: stack)
        #expect(!stack.isClean)
        stack.endUndoGrouping()
    }

    @Test func undoingPastTheCleanPointThenChangingMakesItUnreachable() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        group(stack) { counter.set(2, on: stack) }
        stack.markClean()
        stack.undo()
        group(stack) { counter.set(5, on: stack) }  // the redo step to the clean point is gone
        #expect(!stack.isClean)
        stack.undo()
        #expect(!stack.isClean)
        stack.undo()
        #expect(!stack.isClean)
        stack.redo()
        stack.redo()
        #expect(!stack.isClean)
        stack.markClean()
        #expect(stack.isClean)
    }

    @Test func trimmingTheCleanStepKeepsItReachableFromTheStart() {
        let stack = makeStack()
        stack.levelsOfUndo = 2
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.markClean()
        group(stack) { counter.set(2, on: stack) }
        group(stack) { counter.set(3, on: stack) }  // trims the clean step itself
        #expect(stack.undoCount == 2)
        #expect(!stack.isClean)
        stack.undo()
        stack.undo()
        #expect(counter.value == 1)
        #expect(stack.isClean, "everything undone is exactly the saved state")
        #expect(stack.isCleanAtStart)
    }

    @Test func trimmingPastTheCleanPointMakesItUnreachable() {
        let stack = makeStack()
        stack.levelsOfUndo = 1
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.markClean()
        group(stack) { counter.set(2, on: stack) }
        group(stack) { counter.set(3, on: stack) }
        stack.undo()
        #expect(counter.value == 2)
        #expect(!stack.isClean)
        #expect(!stack.canUndo)
    }

    @Test func removalNeverChangesWhetherTheStackIsCleanNow() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        group(stack) { a.set(1, on: stack) }
        group(stack) { b.set(1, on: stack) }
        stack.markClean()
        stack.removeAllActions(withTarget: b)  // drops the newest (clean) step
        #expect(stack.isClean)
        group(stack) { a.set(2, on: stack) }
        stack.undo()
        #expect(stack.isClean)
    }

    @Test func removeAllActionsMakesTheCurrentStateClean() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        #expect(!stack.isClean)
        stack.removeAllActions()
        #expect(stack.isClean)
    }

    @Test func theCleanStateChangeIsPosted() {
        let stack = makeStack()
        let counter = Counter()
        nonisolated(unsafe) var seen: [Bool] = []
        let token = observe(ActionStack.cleanStateDidChangeNotification, of: stack) { stack in
            seen.append(stack.isClean)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        group(stack) { counter.set(1, on: stack) }
        group(stack) { counter.set(2, on: stack) }
        stack.undo()
        stack.undo()
        #expect(seen == [false, true], "only the changes are posted")
    }
}

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
}

struct ObservationTests {
    @Test func observersHearOncePerCallAndOnlyWhenSomethingChanged() {
        let stack = makeStack()
        let counter = Counter()
        var states: [ActionStack.State] = []
        let token = stack.observe { states.append($0) }
        group(stack, named: "Set") { counter.set(1, on: stack) }
        // begin (level 1), register (can undo), name, end (closed)
        #expect(states.last?.undoMenuItemTitle == "Undo Set")
        #expect(states.last?.groupingLevel == 0)
        let afterGroup = states.count
        _ = stack.canUndo
        stack.setActionName("Ignored")  // misuse: nothing changes
        #expect(states.count == afterGroup)
        stack.undo()
        #expect(states.count == afterGroup + 1, "one undo, one change")
        #expect(states.last?.canRedo == true)
        #expect(states.last?.isClean == true)
        token.cancel()
        stack.redo()
        #expect(states.count == afterGroup + 1, "a cancelled token hears nothing")
    }

    @Test func droppingTheTokenEndsTheObservation() {
        let stack = makeStack()
        let counter = Counter()
        var count = 0
        var token: ObservationToken? = stack.observe { _ in count += 1 }
        group(stack) { counter.set(1, on: stack) }
        let seen = count
        #expect(seen > 0)
        _ = token
        token = nil
        group(stack) { counter.set(2, on: stack) }
        #expect(count == seen)
    }

    @Test func stateUpdatesIsAnAsyncSequenceOfStates() async {
        let stack = makeStack()
        let counter = Counter()
        let updates = stack.stateUpdates()
        group(stack, named: "A") { counter.set(1, on: stack) }
        stack.undo()
        var titles: [String] = []
        for await state in updates {
            titles.append(state.undoMenuItemTitle + "|" + state.redoMenuItemTitle)
            if state.canRedo { break }
        }
        #expect(titles.first == "Undo|Redo")
        #expect(titles.contains("Undo A|Redo"))
        #expect(titles.last == "Undo|Redo A")
    }

    /// The first state is the state now, even when another observer has not yet heard a change
    /// made outside any call (a freed target), and the sequence never gives a state twice in a row.
    @Test func stateUpdatesStartsWithTheStateNow() async {
        let stack = makeStack()
        var target: Counter? = Counter()
        group(stack) { target?.set(1, on: stack) }
        var heard: [Bool] = []
        let other = stack.observe { heard.append($0.canUndo) }
        target = nil
        var updates = stack.stateUpdates().makeAsyncIterator()
        let first = await updates.next()
        #expect(first?.canUndo == false, "the step's only target was freed")
        #expect(heard == [false], "the other observer hears the change at the end of that call")
        let counter = Counter()
        group(stack, named: "Next") { counter.set(1, on: stack) }
        var later: [ActionStack.State] = []
        while let state = await updates.next() {
            later.append(state)
            if state.undoMenuItemTitle == "Undo Next" && state.groupingLevel == 0 { break }
        }
        #expect(later.first != first, "not the first state again")
        #expect(zip(later, later.dropFirst()).allSatisfy { $0 != $1 }, "never a state twice in a row")
        withExtendedLifetime(other) {}
    }

    /// Asked for from an undo handler, the sequence starts after the undo, with the state it left.
    @Test func stateUpdatesAskedForInTheMiddleOfACallStartsAfterIt() async {
        let stack = makeStack()
        let counter = Counter()
        var updates: AsyncStream<ActionStack.State>?
        group(stack) {
            stack.registerUndo(withTarget: counter) { counter in
                counter.set(0, on: stack)
                updates = stack.stateUpdates()
            }
        }
        stack.undo()
        var iterator = try! #require(updates).makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.groupingLevel == 0)
        #expect(first?.canRedo == true)
        #expect(first?.canUndo == false)
    }

    @Test func theObservableModelTracksTheStack() {
        let stack = makeStack()
        let model = ActionStackModel(stack)
        let counter = Counter()
        #expect(!model.canUndo)
        nonisolated(unsafe) var changed = false
        withObservationTracking {
            _ = model.undoMenuItemTitle
        } onChange: {
            changed = true
        }
        group(stack, named: "Set") { counter.set(1, on: stack) }
        #expect(changed)
        #expect(model.canUndo)
        #expect(model.undoMenuItemTitle == "Undo Set")
        #expect(!model.isClean)
        #expect(model.undoCount == 1)
        stack.undo()
        #expect(model.canRedo)
        #expect(model.redoMenuItemTitle == "Redo Set")
    }

    @Test func stateSnapshotPostsNoCheckpoint() {
        let stack = makeStack()
        let recorder = NotificationRecorder(stack)
        _ = stack.state
        #expect(recorder.names.isEmpty)
    }
}

struct StackGroupTests {
    /// An observer of the new stack switches the group to it while another observer (an autosave)
    /// has already queued a later state: the group's observers hear each state once.
    @Test func switchingFromAnObserverDuringADeliveryTellsEachStateOnce() {
        final class Model { var value = 0 }
        let first = makeStack()
        let second = makeStack(groupsByEvent: true)
        second.automaticGroupClosing = .manual
        let edit = ActionStackGroup()
        edit.activeStack = first
        var heard: [String] = []
        let token = edit.observe {
            heard.append(
                "\($0?.undoMenuItemTitle ?? "nil") clean \($0?.isClean ?? true) level \($0?.groupingLevel ?? -1)")
        }
        let autosave = second.observe { if !$0.isClean { second.markClean() } }
        let focus = second.observe { _ in edit.activeStack = second }
        let model = Model()
        second.setValue(1, for: \.value, on: model, actionName: "Edit")  // one call
        #expect(heard == ["Undo Edit clean true level 1"])
        withExtendedLifetime((token, autosave, focus)) {}
    }

    @Test func theGroupActsOnTheActiveStack() {
        let edit = ActionStackGroup()
        let first = makeStack()
        let second = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        group(first, named: "A") { a.set(1, on: first) }
        group(second, named: "B") { b.set(1, on: second) }
        edit.add(first)
        edit.add(second)
        #expect(edit.undoMenuItemTitle == "Undo")
        #expect(!edit.canUndo)
        edit.activeStack = second
        #expect(edit.undoMenuItemTitle == "Undo B")
        edit.undo()
        #expect(b.value == 0)
        #expect(a.value == 1)
        #expect(edit.redoMenuItemTitle == "Redo B")
        #expect(edit.canRedo)
        edit.activeStack = first
        #expect(edit.undoMenuItemTitle == "Undo A")
        #expect(!edit.isClean)
        edit.undo()
        #expect(edit.isClean)
        #expect(a.value == 0)
    }

    @Test func observersHearActiveStackChangesAndStateChanges() {
        let edit = ActionStackGroup()
        let first = makeStack()
        let second = makeStack()
        let counter = Counter()
        var seen: [String?] = []
        let token = edit.observe { seen.append($0?.undoMenuItemTitle) }
        edit.activeStack = first
        group(first, named: "X") { counter.set(1, on: first) }
        group(second, named: "Y") { counter.set(2, on: second) }  // not active: not heard
        edit.activeStack = second
        edit.activeStack = nil
        #expect(seen.first == "Undo")
        #expect(seen.contains("Undo X"))
        #expect(seen.suffix(2) == ["Undo Y", nil])
        #expect(!seen.contains("Undo Y") || seen.firstIndex(of: "Undo Y")! > seen.firstIndex(of: "Undo X")!)
        token.cancel()
    }

    @Test func switchingTheActiveStackInTheMiddleOfAGroupLeavesThatGroupOpen() {
        let edit = ActionStackGroup()
        let first = makeStack()
        let second = makeStack()
        let a = Counter()
        let b = Counter()
        group(second) { b.set(1, on: second) }
        edit.activeStack = first
        first.beginUndoGrouping()
        a.set(1, on: first)
        edit.activeStack = second
        #expect(first.groupingLevel == 1, "the first stack's group is still open")
        edit.undo()
        #expect(b.value == 0)
        edit.activeStack = first
        edit.undo()  // closes the one open group, then undoes it
        #expect(a.value == 0)
        #expect(first.lastMisuse == nil)
    }

    @Test func removingTheActiveStackLeavesNoneActive() {
        let edit = ActionStackGroup()
        let stack = makeStack()
        edit.activeStack = stack
        #expect(edit.stacks.count == 1)
        edit.remove(stack)
        #expect(edit.activeStack == nil)
        #expect(edit.stacks.isEmpty)
        edit.undo()  // nothing to act on: nothing happens
        #expect(edit.isClean)
    }
}
