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

struct NotificationSequenceTests {
    @Test func threeRegistrationsInOnePassOpenOnceAndCloseAtTheEnd() {
        let stack = makeStack(groupsByEvent: true)
        let recorder = NotificationRecorder(stack)
        let counter = Counter()
        for value in 1...3 { counter.set(value, on: stack) }
        #expect(recorder.names == ["DidOpen"], "no checkpoint when the automatic group opens")
        recorder.reset()
        spinRunLoop()
        #expect(recorder.names == ["C", "WillClose", "DidClose"])
    }

    @Test func undoInTheSamePass() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        for value in 1...3 { counter.set(value, on: stack) }
        let recorder = NotificationRecorder(stack)
        stack.undo()
        #expect(recorder.names == ["C", "C", "WillClose", "DidClose", "C", "WillUndo", "C", "DidUndo"])
    }

    @Test func explicitGroupWithGroupsByEventOff() {
        let stack = makeStack()
        let recorder = NotificationRecorder(stack)
        stack.beginUndoGrouping()
        #expect(recorder.names == ["C", "DidOpen"])
        recorder.reset()
        Counter().set(1, on: stack)
        #expect(recorder.names.isEmpty)
        stack.endUndoGrouping()
        #expect(recorder.names == ["C", "WillClose", "DidClose"])
    }

    @Test func beginOnAFreshStackWithGroupsByEvent() {
        let stack = makeStack(groupsByEvent: true)
        let recorder = NotificationRecorder(stack)
        stack.beginUndoGrouping()
        #expect(recorder.names == ["DidOpen", "C", "DidOpen"])
        #expect(recorder.all.map(\.groupingLevel) == [1, 1, 2])
    }

    @Test func removalAndSettersPostNothing() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.beginUndoGrouping()
        let recorder = NotificationRecorder(stack)
        stack.setActionName("N")
        stack.setActionIsDiscardable(true)
        stack.setActionUserInfoValue(1, forKey: "k")
        stack.removeAllActions(withTarget: counter)
        stack.removeAllActions()
        #expect(recorder.names.isEmpty)
    }

    @Test func setterThatOpensTheAutomaticGroupPostsDidOpenOnly() {
        let stack = makeStack(groupsByEvent: true)
        let recorder = NotificationRecorder(stack)
        stack.setActionName("N")
        #expect(recorder.names == ["DidOpen"])
    }

    @Test func undoWithNothingToUndoPostsTwoCheckpoints() {
        let stack = makeStack()
        let recorder = NotificationRecorder(stack)
        stack.undo()
        #expect(recorder.names == ["C", "C"])
    }

    @Test func redoSequenceAndFlagsSeenByObservers() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.undo()
        let recorder = NotificationRecorder(stack)
        stack.redo()
        #expect(recorder.names == ["C", "WillRedo", "C", "DidRedo"])
        let redoEvents = recorder.all.filter { $0.name != "C" }
        #expect(redoEvents.allSatisfy { $0.isRedoing && !$0.isUndoing })
        #expect(redoEvents.allSatisfy { $0.groupingLevel == 0 })
    }

    @Test func observersOfUndoSeeIsUndoingAndGroupingLevelZero() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        let recorder = NotificationRecorder(stack)
        stack.undo()
        let undoEvents = recorder.all.filter { $0.name == "WillUndo" || $0.name == "DidUndo" }
        #expect(undoEvents.count == 2)
        #expect(undoEvents.allSatisfy { $0.isUndoing && !$0.isRedoing && $0.groupingLevel == 0 })
        #expect(!stack.isUndoing)
    }

    @Test func readingCanRedoPostsACheckpoint() {
        let stack = makeStack()
        let recorder = NotificationRecorder(stack)
        _ = stack.canRedo
        #expect(recorder.names == ["C"])
    }

    @Test func noCloseNotificationsForTheGroupsBuiltByUndoAndRedo() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        let recorder = NotificationRecorder(stack)
        stack.undo()
        stack.redo()
        #expect(!recorder.names.contains("WillClose"))
        #expect(!recorder.names.contains("DidClose"))
        #expect(!recorder.names.contains("DidOpen"))
    }

    @Test func nestedGroupsInsideHandlersPostNoOpenOrCloseNotifications() {
        let stack = makeStack()
        let target = Counter()
        group(stack) {
            stack.registerUndo(withTarget: target) { t in
                stack.beginUndoGrouping()
                stack.registerUndo(withTarget: t) { _ in }
                stack.endUndoGrouping()
            }
        }
        let recorder = NotificationRecorder(stack)
        stack.undo()
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo"])
    }

    @Test(arguments: [false, true])
    func emptyExplicitGroupNotificationsAreBalanced(dropsEmptyGroups: Bool) {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        stack.undo()
        let recorder = NotificationRecorder(stack)
        stack.beginUndoGrouping()
        stack.endUndoGrouping()
        #expect(recorder.withoutCheckpoints == ["DidOpen", "WillClose", "DidClose"])
        if dropsEmptyGroups {
            #expect(stack.undoCount == 0)
            #expect(!stack.canUndo)
            #expect(stack.redoCount == 1, "a dropped empty group does not clear redo")
        } else {
            #expect(stack.undoCount == 1)
            #expect(stack.canUndo)
            #expect(stack.redoCount == 0, "a do-nothing step is a new step: it clears redo, as in Foundation")
            stack.undo()
            #expect(counter.value == 0, "undoing it runs nothing")
            #expect(stack.redoCount == 0, "and leaves no redo step")
            #expect(stack.undoCount == 0)
        }
    }

    @Test func emptyNestedGroupInsideAnOpenParentStaysAndCanBeUndoneAlone() {
        let stack = makeStack()
        let target = Counter()
        stack.beginUndoGrouping()
        target.set(1, on: stack)
        stack.beginUndoGrouping()
        stack.endUndoGrouping()
        #expect(stack._structure == "undo(<a []>) redo()")
        stack.undoNestedGroup()  // the empty nested group: runs nothing, leaves no redo step
        #expect(stack.lastMisuse == nil)
        #expect(stack._structure == "undo(<a>) redo()")
        #expect(stack.redoCount == 0)
        stack.endUndoGrouping()
        #expect(stack.undoCount == 1)
        #expect(stack._structure == "undo([a]) redo()", "a closed step is flat: its nested groups are not observable")
    }

    @Test func discardableFlagInDidCloseDidUndoAndDidRedoButNeverWillClose() {
        let stack = makeStack()
        let counter = Counter()
        let recorder = NotificationRecorder(stack)
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.setActionIsDiscardable(true)
        stack.endUndoGrouping()
        stack.undo()
        stack.redo()
        let byName = Dictionary(grouping: recorder.all, by: \.name)
        #expect(byName["WillClose"]?.allSatisfy { !$0.hasUserInfo } == true)
        #expect(byName["DidClose"]?.allSatisfy(\.discardable) == true)
        #expect(byName["DidUndo"]?.allSatisfy(\.discardable) == true)
        #expect(byName["DidRedo"]?.allSatisfy(\.discardable) == true)
        #expect(byName["WillUndo"]?.allSatisfy { !$0.hasUserInfo } == true)
    }

    @Test func nonDiscardableGroupsPostNilUserInfo() {
        let stack = makeStack()
        let counter = Counter()
        let recorder = NotificationRecorder(stack)
        group(stack) { counter.set(1, on: stack) }
        stack.undo()
        stack.redo()
        #expect(recorder.all.allSatisfy { !$0.hasUserInfo })
    }

    @Test func postsNotificationsOffPostsNothing() {
        let stack = makeStack(groupsByEvent: true)
        stack.postsNotifications = false
        let recorder = NotificationRecorder(stack)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.undo()
        stack.redo()
        _ = stack.canRedo
        #expect(recorder.names.isEmpty)
        #expect(counter.value == 1)
    }

    @Test func notificationsCarryTheStackAsObject() async {
        let stack = makeStack()
        let id = ObjectIdentifier(stack)
        await confirmation(expectedCount: 1) { opened in
            // Observing this stack only (a post with another object would not reach the block),
            // and checking the object too: an observer of every object would also run for the
            // posts of the tests running in parallel, on their threads.
            let token = NotificationCenter.default.addObserver(
                forName: ActionStack.didOpenUndoGroupNotification,
                object: stack,
                queue: nil
            ) { note in
                if let object = note.object as? ActionStack, ObjectIdentifier(object) == id { opened() }
            }
            stack.beginUndoGrouping()
            NotificationCenter.default.removeObserver(token)
        }
        stack.endUndoGrouping()
    }
}
