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

struct RegistrationTests {
    @Test func registrationEmptiesTheRedoStackAtOnceBeforeTheGroupCloses() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.undo()
        #expect(stack.canRedo)
        stack.beginUndoGrouping()
        #expect(stack.canRedo, "opening a group does not clear redo")
        counter.set(5, on: stack)
        #expect(!stack.canRedo, "the registration cleared redo while the group is still open")
        #expect(stack.redoCount == 0)
        stack.endUndoGrouping()
    }

    @Test func registrationWhileDisabledDoesNothingAtAll() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        stack.endEvent()
        stack.undo()
        #expect(stack.canRedo)
        let before = stack._structure
        stack.disableUndoRegistration()
        stack.registerUndo(withTarget: counter) { $0.value = 99 }
        #expect(stack.groupingLevel == 0, "no automatic group opened")
        #expect(stack.canRedo, "redo kept")
        stack.enableUndoRegistration()
        #expect(stack._structure == before)
    }

    @Test func registrationWithNoGroupAndGroupsByEventOffIsMisuseAndKeepsRedo() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.undo()
        let before = stack._structure
        counter.set(7, on: stack)
        #expect(stack.lastMisuse == .noOpenGroup(.registerUndo))
        #expect(stack._structure == before)
        #expect(stack.canRedo)
        #expect(stack.lastMisuse?.description.contains("must begin a group before registering undo") == true)
    }

    @Test func disableAndEnableNestAsACounter() {
        let stack = makeStack()
        stack.disableUndoRegistration()
        stack.disableUndoRegistration()
        #expect(!stack.isUndoRegistrationEnabled)
        stack.enableUndoRegistration()
        #expect(!stack.isUndoRegistrationEnabled)
        stack.enableUndoRegistration()
        #expect(stack.isUndoRegistrationEnabled)
        #expect(stack.lastMisuse == nil)
        stack.enableUndoRegistration()
        #expect(stack.lastMisuse == .enableWithoutDisable)
        #expect(stack.isUndoRegistrationEnabled)
    }

    @Test func groupingAndSettersAreNoOpsWhileDisabled() {
        let stack = makeStack()
        let recorder = NotificationRecorder(stack)
        stack.disableUndoRegistration()
        stack.beginUndoGrouping()
        #expect(stack.groupingLevel == 0)
        stack.endUndoGrouping()
        stack.setActionName("X")
        stack.setActionIsDiscardable(true)
        stack.setActionUserInfoValue(1, forKey: "k")
        #expect(stack.lastMisuse == nil, "ignored, not misuse")
        #expect(recorder.names.isEmpty)
        stack.enableUndoRegistration()
    }

    @Test func handlerReceivesTheTarget() {
        let stack = makeStack()
        let counter = Counter()
        var received: Counter?
        group(stack) { stack.registerUndo(withTarget: counter) { received = $0 } }
        stack.undo()
        #expect(received === counter)
    }
}
