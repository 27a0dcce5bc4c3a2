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

    // A stack group tells its observers the states in order, and never a state from the middle of
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
}
