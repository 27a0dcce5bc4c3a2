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

struct ObservationCompositionTests {
    // Finding 10: a change made from inside an observe callback was never published.

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

    // Finding 11: stack groups told observers states out of order, and states from the middle of
    // an undo.

    @Test func aGroupObserverThatSwitchesTheActiveStackKeepsTheOrder() {
        let edit = ActionStackGroup()
        let a = makeStack()
        let b = makeStack()
        let counter = Counter()
        group(b) { counter.set(1, on: b) }
        edit.activeStack = a
        var heard: [[Int?]] = [[], []]
        let first = edit.observe { state in
            heard[0].append(state?.undoCount)
            if state?.undoCount == 1 && edit.activeStack === a { edit.activeStack = b }
        }
        let second = edit.observe { heard[1].append($0?.undoCount) }
        group(a) { counter.set(2, on: a) }  // a: 1 step; the first observer switches to b
        #expect(heard[0].suffix(2) == [1, 1])
        #expect(heard[1] == heard[0], "a's state, then b's, in the same order for every observer")
        #expect(edit.activeStack === b)
        _ = (first, second)
    }

    @Test func aHandlerThatSwitchesTheActiveStackNeverLetsAMidUndoStateOut() {
        let edit = ActionStackGroup()
        let stack = makeStack()
        let other = makeStack()
        edit.activeStack = other
        let counter = Counter()
        group(stack) {
            stack.registerUndo(withTarget: counter) { _ in edit.activeStack = stack }
        }
        var heard: [ActionStack.State?] = []
        let token = edit.observe { heard.append($0) }
        stack.undo()
        #expect(heard.count == 1)
        #expect(heard.first??.canRedo == false, "the state after the undo (its handler registered nothing)")
        #expect(heard.first??.groupingLevel == 0)
        #expect(heard.first??.canUndo == false)
        _ = token
    }

    // Finding 12: setValue published twice, before the value changed, and reported two misuses.

    @Test func setValueIsOneCallThatPublishesOnceAfterTheValueChanges() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        var values: [Int] = []
        let token = stack.observe { _ in values.append(counter.value) }
        stack.setValue(5, for: \.value, on: counter, actionName: "Set")
        #expect(values == [5])
        _ = token
    }

    @Test func setValueWithNoGroupReportsOneMisuseAndSetsNothing() {
        let stack = makeStack()
        let counter = Counter()
        let misuses = MisuseLog(stack)
        stack.setValue(5, for: \.value, on: counter, actionName: "Set")
        #expect(misuses.all == [.noOpenGroup(.setValue)])
        #expect(counter.value == 0, "a change without its inverse would be lost to undo")
    }
}
