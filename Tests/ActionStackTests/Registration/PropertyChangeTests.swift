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

struct PropertyChangeTests {
    final class Shape {
        var color = "black"
        var radius = 0.0
    }

    @Test func setValueIsUndoableAndRedoable() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let shape = Shape()
        stack.setValue("red", for: \.color, on: shape, actionName: "Change Color")
        stack.endEvent()
        #expect(shape.color == "red")
        #expect(stack.undoMenuItemTitle == "Undo Change Color")
        stack.undo()
        #expect(shape.color == "black")
        #expect(stack.redoMenuItemTitle == "Redo Change Color")
        stack.redo()
        #expect(shape.color == "red")
        stack.undo()
        #expect(shape.color == "black")
    }

    @Test func setValueStillSetsWhileRegistrationIsDisabled() {
        let stack = makeStack()
        let shape = Shape()
        stack.disableUndoRegistration()
        stack.setValue(2.5, for: \.radius, on: shape)
        stack.enableUndoRegistration()
        #expect(shape.radius == 2.5)
        #expect(!stack.canUndo)
    }

    // setValue is one call: it publishes once, after the value changes, and reports one misuse.

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
