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

struct DefaultsTests {
    @Test func freshStackHasFoundationDefaults() {
        let stack = ActionStack()
        #expect(stack.levelsOfUndo == 0)
        #expect(stack.groupsByEvent)
        #expect(stack.runLoopModes == [.default])
        #expect(stack.isUndoRegistrationEnabled)
        #expect(!stack.canUndo)
        #expect(!stack.canRedo)
        #expect(stack.undoCount == 0)
        #expect(stack.redoCount == 0)
        #expect(stack.groupingLevel == 0)
        #expect(!stack.isUndoing)
        #expect(!stack.isRedoing)
        #expect(stack.undoActionName == "")
        #expect(stack.redoActionName == "")
        #expect(stack.undoMenuItemTitle == "Undo")
        #expect(stack.redoMenuItemTitle == "Redo")
        #expect(!stack.undoActionIsDiscardable)
        #expect(!stack.redoActionIsDiscardable)
        #expect(stack.postsNotifications)
        #expect(stack.misusePolicy == .log, "misuse is never silent by default")
        #expect(!stack.dropsEmptyGroups, "empty groups are kept, as Foundation keeps them")
        #expect(stack.lastMisuse == nil)
    }

    @Test func compilesAsUndoManager() {
        typealias UndoManager = ActionStack
        let manager: UndoManager = UndoManager()
        let counter = Counter()
        manager.groupsByEvent = false
        manager.beginUndoGrouping()
        manager.registerUndo(withTarget: counter) { $0.value = 0 }
        manager.setActionName("Reset")
        manager.endUndoGrouping()
        #expect(manager.undoMenuItemTitle == "Undo Reset")
        manager.undo()
        #expect(counter.value == 0)
        manager.removeAllActions(withTarget: counter)
        manager.removeAll(withTarget: counter)
        let key: UndoManager.UserInfoKey = "k"
        #expect(key == UndoManager.UserInfoKey("k"))
        #expect(key.rawValue == "k")
        #expect(UndoManager.UserInfoKey(rawValue: "k") == key)
    }
}
