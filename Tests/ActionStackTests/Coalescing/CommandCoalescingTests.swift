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

/// A keystroke made with a command: registers the command that sets the text back, with a
/// coalescing key, as a keystroke made with a closure does.
private struct TypeText: UndoCommand {
    static let commandType = "test.typeText"
    var text: String

    func perform(on note: Note, in stack: ActionStack) {
        stack.registerUndo(TypeText(text: note.text), on: note, key: note.id, options: .coalescing("typing"))
        note.text = text
    }
}

/// Coalescing options given with a command registration work as they do for a closure.
struct CommandCoalescingTests {
    @Test func keystrokesMadeWithCommandsCoalesceIntoOneStep() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let note = Note()
        for text in ["a", "ab", "abc"] {
            TypeText(text: text).perform(on: note, in: stack)
            stack.setActionName("Typing")
            stack.endEvent()
        }
        #expect(stack.undoCount == 1, "three keystrokes, one step")
        stack.undo()
        #expect(note.text == "")
        stack.redo()
        #expect(note.text == "abc")
        #expect(stack.undoCount == 1)
        stack._checkInvariants()
    }

    @Test func keystrokesOnAnotherKeyOrTargetStartANewStep() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let first = Note(id: "first")
        let second = Note(id: "second")
        for (note, text) in [(first, "a"), (first, "ab"), (second, "x"), (first, "abc")] {
            TypeText(text: text).perform(on: note, in: stack)
            stack.endEvent()
        }
        #expect(stack.undoCount == 3, "a keystroke on another note ends the run")
        stack.undo()
        #expect(first.text == "ab")
        stack._checkInvariants()
    }

    /// RecordingTheRightSteps: a coalescing registration joins the newest step when that step
    /// "holds only registrations made with the same key on the same target", and
    /// `registerUndo(_:on:key:options:)` takes its options "as for closures". A keystroke made with
    /// a command after one made with a closure, same key, same object, starts a step of its own.
    @Test func aCommandJoinsAStepOfClosuresWithTheSameKeyAndTarget() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let note = Note()
        stack.registerUndo(withTarget: note, options: .coalescing("typing")) { $0.text = "" }
        note.text = "a"
        stack.endEvent()
        stack.registerUndo(SetText(text: "a"), on: note, key: note.id, options: .coalescing("typing"))
        note.text = "ab"
        stack.endEvent()
        #expect(stack.undoCount == 1, "two keystrokes on one note with one key: one step")
        stack._checkInvariants()
    }
}
