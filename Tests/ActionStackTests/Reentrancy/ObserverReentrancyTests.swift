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

// An observer of a notification that an operation posts (a jump, a scope closing what its body left
// open) may call back into the stack: the stack reads its state again after every post, so the
// observer's calls that would empty the stack or close its groups mid-operation are refused as
// misuses, and the operation completes.

struct ObserverReentrancyTests {
    @Test func aCheckpointObserverCannotEmptyTheStackDuringAJump() {
        let stack = makeStack()
        let counter = Counter()
        for value in 1...3 { group(stack) { counter.set(value, on: stack) } }
        let misuses = MisuseLog(stack)
        let busy = Flag()
        // (An observer that calls endUndoGrouping() must guard against its own checkpoint: the
        // call posts one first, as Foundation's does.)
        let hook = NotificationHook(ActionStack.checkpointNotification, stack) { stack in
            guard !busy.isSet else { return }
            busy.isSet = true
            stack.removeAllActions()
            stack.endUndoGrouping()
            busy.isSet = false
        }
        stack.jump(to: 0)
        _ = hook
        #expect(counter.value == 0, "the jump completed")
        #expect(misuses.all.contains(.reentrantCall(.removeAllActions, during: .jumping)))
        #expect(misuses.all.contains(.reentrantCall(.endUndoGrouping, during: .jumping)))
        #expect(stack.redoCount == 3)
    }

    @Test(arguments: [false, true])
    func aCheckpointObserverCannotCloseGroupsWhileAScopeClosesThem(throwing: Bool) {
        let stack = makeStack()
        let counter = Counter()
        let misuses = MisuseLog(stack)
        var hook: NotificationHook?
        _ = try? stack.group(named: "Scope") {
            counter.set(1, on: stack)
            stack.beginUndoGrouping()  // left open by the body
            counter.set(2, on: stack)
            let busy = Flag()
            hook = NotificationHook(ActionStack.checkpointNotification, stack) { stack in
                guard !busy.isSet else { return }
                busy.isSet = true
                stack.endUndoGrouping()
                stack.removeAllActions()
                busy.isSet = false
            }
            if throwing { throw Failure() }
        }
        #expect(hook != nil, "the observer was installed")
        hook = nil
        #expect(stack.groupingLevel == 0)
        #expect(misuses.all.contains(.reentrantCall(.endUndoGrouping, during: .closingScope)))
        #expect(misuses.all.contains(.reentrantCall(.removeAllActions, during: .closingScope)))
        #expect(counter.value == (throwing ? 0 : 2))
        #expect(stack.undoCount == (throwing ? 0 : 1))
    }

    @Test func aDidCloseObserverCannotEmptyTheStackWhileAFailedScopeClosesWhatItsBodyLeftOpen() {
        let stack = makeStack()
        let counter = Counter()
        let misuses = MisuseLog(stack)
        var hook: NotificationHook?
        #expect(throws: Failure.self) {
            try stack.group {
                counter.set(1, on: stack)
                stack.beginUndoGrouping()
                counter.set(2, on: stack)
                hook = NotificationHook(ActionStack.didCloseUndoGroupNotification, stack) { $0.removeAllActions() }
                throw Failure()
            }
        }
        #expect(hook != nil, "the observer was installed")
        hook = nil
        #expect(counter.value == 0, "rolled back")
        #expect(misuses.all.contains(.reentrantCall(.removeAllActions, during: .closingScope)))
        #expect(stack.undoCount == 0)
        #expect(stack.groupingLevel == 0)
    }

}
