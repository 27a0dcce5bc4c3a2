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

    // A change made from inside an observe callback is published to every observer, in order.

    @Test func anAutosaveObserverThatMarksCleanIsPublished() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        var heard: [Bool] = []
        let autosave = stack.observe { state in
            if !state.isClean && state.groupingLevel == 0 { stack.markClean() }
        }
        let display = stack.observe { heard.append($0.isClean) }
        counter.set(1, on: stack)
        stack.endEvent()
        #expect(stack.isClean)
        #expect(heard.last == true, "the observers hear the state after the observer's markClean()")
        let model = ActionStackModel(stack)
        counter.set(2, on: stack)
        stack.endEvent()
        #expect(model.isClean)
        _ = (autosave, display)
    }

    @Test func anObserverThatUndoesIsPublishedInOrder() {
        let stack = makeStack()
        let counter = Counter()
        var heard: [[Int]] = [[], []]
        var undoOnce = true
        let first = stack.observe { state in
            heard[0].append(state.undoCount)
            if undoOnce && state.undoCount == 2 {
                undoOnce = false
                stack.undo()
            }
        }
        let second = stack.observe { heard[1].append($0.undoCount) }
        group(stack) { counter.set(1, on: stack) }
        group(stack) { counter.set(2, on: stack) }
        #expect(counter.value == 1)
        #expect(heard[0].suffix(2) == [2, 1])
        #expect(heard[1] == heard[0], "the observer after it hears the older state first, then the new one")
        _ = (first, second)
    }
}
