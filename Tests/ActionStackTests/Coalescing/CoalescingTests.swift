// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

/// A text field that types characters undoably, coalescing keystrokes into one step.
final class TextField {
    var text = ""
    let stack: ActionStack
    init(stack: ActionStack) { self.stack = stack }

    func type(_ character: Character, window: Duration? = .seconds(1)) {
        if character == "\n" { stack.breakCoalescing() }
        text.append(character)
        stack.registerUndo(withTarget: self, options: .coalescing("typing", within: window)) { field in
            field.text.removeLast()
        }
        stack.setActionName("Typing")
    }
}

struct CoalescingTests {
    func makeTypingStack() -> (ActionStack, ManualClock) {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let clock = ManualClock()
        stack.coalescingClock = { clock.instant }
        return (stack, clock)
    }

    @Test func typingAWordIsOneStep() {
        let (stack, clock) = makeTypingStack()
        let field = TextField(stack: stack)
        for character in "hello" {
            field.type(character)
            stack.endEvent()  // each keystroke is its own event
            clock.advance(by: .milliseconds(200))
        }
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Typing")
        stack.undo()
        #expect(field.text == "")
        stack.redo()
        #expect(field.text == "", "the inverse registered nothing, so there is no redo")
    }

    @Test func aNewlineOrAPauseStartsANewStep() {
        let (stack, clock) = makeTypingStack()
        let field = TextField(stack: stack)
        for character in "ab\ncd" {
            field.type(character)
            stack.endEvent()
        }
        #expect(stack.undoCount == 2, "the newline broke coalescing")
        clock.advance(by: .seconds(5))
        field.type("e")
        stack.endEvent()
        #expect(stack.undoCount == 3, "the pause broke coalescing")
        stack.undo()
        #expect(field.text == "ab\ncd")
        stack.undo()
        #expect(field.text == "ab")
    }

    @Test func coalescingWithinTheWindowCountsFromTheLastKeystroke() {
        let (stack, clock) = makeTypingStack()
        let field = TextField(stack: stack)
        for character in "abcdef" {
            field.type(character)
            stack.endEvent()
            clock.advance(by: .milliseconds(900))  // 5.4 s in all, but never a pause over 1 s
        }
        #expect(stack.undoCount == 1)
    }

    @Test func anotherKindUndoRedoAndTheCleanPointEndCoalescing() {
        let (stack, _) = makeTypingStack()
        let field = TextField(stack: stack)
        let other = Counter()
        field.type("a")
        stack.endEvent()
        other.set(1, on: stack)  // another kind of change
        stack.endEvent()
        field.type("b")
        stack.endEvent()
        #expect(stack.undoCount == 3)
        stack.undo()
        stack.redo()  // nothing to redo for typing, but undo itself ends coalescing
        field.type("c")
        stack.endEvent()
        field.type("d")
        stack.endEvent()
        stack.markClean()
        field.type("e")
        stack.endEvent()
        #expect(stack.undoCount == 4, "the clean point started a new step")
    }

    @Test func aDragOfOneFigureThroughAHundredPositionsIsOneMoveStep() {
        final class Figure {
            var x = 0.0
        }
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let figure = Figure()
        let other = Figure()
        func drag(_ figure: Figure, to x: Double) {
            let old = figure.x
            stack.registerUndo(withTarget: figure, options: .coalescing("drag")) { $0.x = old }
            stack.setActionName("Move")
            figure.x = x
        }
        for step in 1...100 {
            drag(figure, to: Double(step))
            stack.endEvent()
        }
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Move")
        drag(other, to: 5)  // the same kind on another target: a new step
        stack.endEvent()
        #expect(stack.undoCount == 2)
        stack.undo()
        stack.undo()
        #expect(figure.x == 0, "undo returns to where the drag began")
    }

    @Test func coalescingWithGroupsByEventOffNeedsNoOpenGroup() {
        let stack = makeStack()
        let field = TextField(stack: stack)
        stack.beginUndoGrouping()
        field.type("a")
        stack.endUndoGrouping()
        stack.lastMisuse = nil
        stack.registerUndo(withTarget: field, options: .coalescing("typing")) { $0.text.removeLast() }
        field.text.append("b")
        #expect(stack.lastMisuse == nil, "joined the closed step")
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(field.text == "")
    }

    /// A keystroke: sets the value, registers its inverse with the coalescing key (the inverse
    /// registers its own inverse, so redo works), and names the step when asked.
    static func typing(_ stack: ActionStack, _ counter: Counter, _ value: Int, named name: String? = nil) {
        let old = counter.value
        stack.registerUndo(withTarget: counter, options: .coalescing("typing")) { counter in
            typing(stack, counter, old)
        }
        counter.value = value
        if let name { stack.setActionName(name) }
    }

    // A keystroke does not join a step that holds another target's change.

    @Test func aKeystrokeDoesNotJoinAStepHoldingAnotherTargetsChange() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let text = Counter("text")
        let other = Counter("other")
        other.set(1, on: stack)  // same event, another target, first
        Self.typing(stack, text, 1)
        stack.endEvent()
        Self.typing(stack, text, 2)
        stack.endEvent()
        #expect(stack.undoCount == 2)
        stack.undo()
        #expect(text.value == 1)
        #expect(other.value == 1, "undoing the last keystroke does not undo the unrelated change")
    }

    // Registering then naming each keystroke makes one named step: a keystroke that joins opens no
    // group.

    @Test(arguments: [false, true])
    func registerThenNamePerKeystrokeIsOneNamedStep(dropsEmptyGroups: Bool) {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
        stack.automaticGroupClosing = .manual
        let text = Counter()
        for value in 1...5 {
            Self.typing(stack, text, value, named: "Typing")
            #expect(stack.groupingLevel == (value == 1 ? 1 : 0), "a join opens no group")
            stack.endEvent()
        }
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Typing")
        stack.undo()
        #expect(text.value == 0)
        #expect(stack.redoMenuItemTitle == "Redo Typing")
    }

    // A refused call does not end coalescing.

    @Test func aRefusedCallDoesNotEndCoalescing() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let text = Counter()
        Self.typing(stack, text, 1)
        stack.endEvent()
        stack.beginUndoGrouping()
        stack.undoNestedGroup()  // refused: the newest item is an open group
        #expect(stack.lastMisuse == .undoNestedGroupWithOpenGroup)
        stack.endUndoGrouping()  // level 2 -> 1
        stack.endUndoGrouping()  // closes the automatic group (empty: a do-nothing step)
        #expect(stack.undoCount == 2)
        stack.removeAllActions()
        Self.typing(stack, text, 1)
        stack.endEvent()
        stack.endUndoGrouping()  // refused: nothing open
        Self.typing(stack, text, 2)
        stack.endEvent()
        #expect(stack.undoCount == 1, "the misuse did not end coalescing")
    }
}
