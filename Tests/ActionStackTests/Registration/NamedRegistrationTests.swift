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

/// `registerUndo(withTarget:actionName:handler:)`: registering and naming in one call.
struct NamedRegistrationTests {
    /// A model object whose change registers its inverse, named, through the one-call form.
    final class Shape {
        var size = 1
        func setSize(_ new: Int, on stack: ActionStack) {
            let old = size
            stack.registerUndo(withTarget: self, actionName: "Resize") { [unowned stack] shape in
                shape.setSize(old, on: stack)
            }
            size = new
        }
    }

    @Test(arguments: [false, true])
    func observersNeverSeeANamelessState(groupsByEvent: Bool) {
        let stack = makeStack(groupsByEvent: groupsByEvent)
        stack.automaticGroupClosing = .manual
        var states: [ActionStack.State] = []
        let token = stack.observe { states.append($0) }
        defer { token.cancel() }
        let shape = Shape()
        if !groupsByEvent { stack.beginUndoGrouping() }
        states.removeAll()
        shape.setSize(2, on: stack)
        #expect(states.count == 1, "one call, one published state")
        if groupsByEvent { stack.endEvent() } else { stack.endUndoGrouping() }
        stack.undo()
        stack.redo()
        #expect(!states.isEmpty)
        for state in states where state.canUndo {
            #expect(state.undoActionName == "Resize", "\(state)")
        }
        for state in states where state.canRedo {
            #expect(state.redoActionName == "Resize", "\(state)")
        }
        #expect(shape.size == 2)
        #expect(stack.undoMenuItemTitle == "Undo Resize")
    }

    @Test func theTwoCallFormPublishesANamelessStateFirst() {
        // What the one-call form is for: register, then name, publishes "Undo" in between.
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        var titles: [String] = []
        let token = stack.observe { titles.append($0.undoMenuItemTitle) }
        defer { token.cancel() }
        let counter = Counter()
        titles.removeAll()
        counter.set(1, on: stack)
        stack.setActionName("Set")
        #expect(titles == ["Undo", "Undo Set"])
    }

    @Test func undoAndRedoKeepTheName() {
        let stack = makeStack()
        let shape = Shape()
        stack.beginUndoGrouping()
        shape.setSize(5, on: stack)
        stack.endUndoGrouping()
        stack.undo()
        #expect(shape.size == 1)
        #expect(stack.redoMenuItemTitle == "Redo Resize")
        stack.redo()
        #expect(shape.size == 5)
        #expect(stack.undoMenuItemTitle == "Undo Resize")
    }

    @Test func aRefusedRegistrationIsOneMisuseAndNamesNothing() {
        let stack = makeStack(groupsByEvent: false)
        var heard: [ActionStack.Misuse] = []
        stack.onMisuse = { heard.append($0) }
        let shape = Shape()
        let before = stack._structure
        stack.registerUndo(withTarget: shape, actionName: "Resize") { _ in }
        #expect(heard == [.noOpenGroup(.registerUndo)])
        #expect(stack._structure == before)
        #expect(!stack.canUndo)
    }

    @Test func disabledRegistrationDoesNothing() {
        let stack = makeStack(groupsByEvent: false)
        stack.beginUndoGrouping()
        stack.disableUndoRegistration()
        let shape = Shape()
        shape.setSize(3, on: stack)
        stack.enableUndoRegistration()
        stack.endUndoGrouping()
        #expect(stack.lastMisuse == nil)
        #expect(stack.undoActionName == "")
        #expect(shape.size == 3)
    }

    @Test func aSubclassThatOverridesSetActionNameSeesTheName() {
        final class Recording: ActionStack {
            var names: [String] = []
            override func setActionName(_ actionName: String) {
                names.append(actionName)
                super.setActionName(actionName)
            }
        }
        let stack = Recording()
        stack.groupsByEvent = false
        stack.misusePolicy = .report
        stack.beginUndoGrouping()
        Shape().setSize(2, on: stack)
        stack.endUndoGrouping()
        #expect(stack.names == ["Resize"])
    }

    @Test func itOpensTheAutomaticGroupAndPostsDidOpenOnce() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let recorder = NotificationRecorder(stack)
        let shape = Shape()
        shape.setSize(2, on: stack)
        #expect(stack.groupingLevel == 1)
        #expect(recorder.withoutCheckpoints == ["DidOpen"])
        #expect(recorder.all.last?.name == "DidOpen")
        stack.endEvent()
        #expect(stack.undoCount == 1)
    }
}
