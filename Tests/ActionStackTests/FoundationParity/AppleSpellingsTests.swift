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

/// Section 13 of the contract: the spellings real Apple-style code uses.
struct AppleSpellingsTests {
    #if !canImport(Darwin)
        @Test func theNSUndoManagerNotificationNamesAreFoundationsAndMeanTheStacksPosts() {
            let pairs: [(Notification.Name, Notification.Name, String)] = [
                (.NSUndoManagerCheckpoint, ActionStack.checkpointNotification, "NSUndoManagerCheckpointNotification"),
                (
                    .NSUndoManagerDidOpenUndoGroup, ActionStack.didOpenUndoGroupNotification,
                    "NSUndoManagerDidOpenUndoGroupNotification"
                ),
                (
                    .NSUndoManagerWillCloseUndoGroup, ActionStack.willCloseUndoGroupNotification,
                    "NSUndoManagerWillCloseUndoGroupNotification"
                ),
                (
                    .NSUndoManagerDidCloseUndoGroup, ActionStack.didCloseUndoGroupNotification,
                    "NSUndoManagerDidCloseUndoGroupNotification"
                ),
                (
                    .NSUndoManagerWillUndoChange, ActionStack.willUndoChangeNotification,
                    "NSUndoManagerWillUndoChangeNotification"
                ),
                (
                    .NSUndoManagerDidUndoChange, ActionStack.didUndoChangeNotification,
                    "NSUndoManagerDidUndoChangeNotification"
                ),
                (
                    .NSUndoManagerWillRedoChange, ActionStack.willRedoChangeNotification,
                    "NSUndoManagerWillRedoChangeNotification"
                ),
                (
                    .NSUndoManagerDidRedoChange, ActionStack.didRedoChangeNotification,
                    "NSUndoManagerDidRedoChangeNotification"
                ),
            ]
            for (apple, ours, raw) in pairs {
                #expect(apple == ours)
                #expect(apple.rawValue == raw)
            }
            #expect(NSUndoManagerGroupIsDiscardableKey == "NSUndoManagerGroupIsDiscardableKey")
            #expect(NSUndoManagerGroupIsDiscardableKey == ActionStack.groupIsDiscardableUserInfoKey)
        }

        @Test func codeObservingTheAppleNamesHearsTheStack() {
            let stack = makeStack()
            let counter = Counter()
            let heard = Flag()
            let token = NotificationCenter.default.addObserver(
                forName: .NSUndoManagerDidUndoChange,
                object: stack,
                queue: nil
            ) { note in
                if (note.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool) == true { heard.count += 1 }
            }
            stack.beginUndoGrouping()
            counter.set(1, on: stack)
            stack.setActionIsDiscardable(true)
            stack.endUndoGrouping()
            stack.undo()
            NotificationCenter.default.removeObserver(token)
            #expect(heard.count == 1)
        }
    #endif

    @Test func stacksAreEqualAndHashedByIdentity() {
        let a = ActionStack()
        let b = ActionStack()
        #expect(a == a)
        #expect(a != b)
        #expect(Set([a, b, a]).count == 2)
        var titles: [ActionStack: String] = [:]
        titles[a] = "document A"
        titles[b] = "document B"
        #expect(titles[a] == "document A")
        let note = Notification(name: ActionStack.checkpointNotification, object: a)
        #expect(note.object as? ActionStack == a)
    }

    @Test func descriptionNamesTheTypeAndItsCountsAndChangesNothing() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        group(stack) { counter.set(2, on: stack) }
        stack.undo()
        stack.beginUndoGrouping()
        let recorder = NotificationRecorder(stack)
        #expect(String(describing: stack) == "ActionStack(undo: 1, redo: 1, groupingLevel: 1)")
        #expect("\(stack)" == stack.description)
        #expect(recorder.names.isEmpty, "describing posts nothing")
        var dumped = ""
        dump(stack, to: &dumped)
        #expect(dumped.contains("undoCount: 1"))
        stack.endUndoGrouping()
    }

    @Test func describingAStackWhoseTargetWasFreedIsSafe() {
        let stack = makeStack()
        var doomed: Counter? = Counter()
        group(stack) { doomed!.set(1, on: stack) }
        doomed = nil
        var dumped = ""
        dump(stack, to: &dumped)  // reflection must not read the freed target
        #expect(dumped.contains("ActionStack"))
    }
}
