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

struct CheckpointRecursionTests {
    @Test func aCheckpointObserverThatReadsCanRedoDoesNotHearItsOwnCheckpoint() {
        let stack = makeStack()
        let counter = Counter()
        let heard = Flag()
        let hook = NotificationHook(ActionStack.checkpointNotification, stack) { stack in
            heard.count += 1
            _ = stack.canRedo  // refresh the Redo button
        }
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.endUndoGrouping()
        stack.undo()
        _ = stack.canRedo
        _ = hook
        #expect(heard.count > 0)
        #expect(heard.count < 20, "each checkpoint heard once, none posted from inside the observer")
        #expect(stack.canRedo)
    }

    @Test func aCheckpointObserverThatEndsAGroupDoesNotRecurse() {
        let stack = makeStack()
        let misuses = MisuseLog(stack)
        let hook = NotificationHook(ActionStack.checkpointNotification, stack) { $0.endUndoGrouping() }
        stack.beginUndoGrouping()  // its checkpoint's observer ends... nothing yet: misuse
        _ = hook
        #expect(misuses.all.first == .endWithoutBegin)
        #expect(stack.groupingLevel == 1)
    }
}
