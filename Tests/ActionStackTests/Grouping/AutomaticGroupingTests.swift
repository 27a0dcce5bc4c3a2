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

/// `groupsByEvent`: the automatic group closes at the end of the run-loop pass. These tests spin the
/// current thread's real `RunLoop`; each test is synchronous, so it runs on one thread throughout.
struct AutomaticGroupingTests {
    @Test func registrationsOfOnePassFormOneStepClosedByTheRunLoop() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        counter.set(1, on: stack)
        counter.set(2, on: stack)
        counter.set(3, on: stack)
        #expect(stack.groupingLevel == 1)
        #expect(stack.canUndo, "an open group holding an action counts")
        #expect(stack.undoCount == 0, "the open group is not counted")
        spinRunLoop()
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1)
        counter.set(4, on: stack)
        spinRunLoop()
        #expect(stack.undoCount == 2)
        stack.undo()
        #expect(counter.value == 3)
        stack.undo()
        #expect(counter.value == 0)
    }

    @Test func beginUndoGroupingWithNothingOpenCreatesTwoLevels() {
        let stack = makeStack(groupsByEvent: true)
        stack.beginUndoGrouping()
        #expect(stack.groupingLevel == 2)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.endUndoGrouping()
        #expect(stack.groupingLevel == 1)
        spinRunLoop()
        #expect(stack.groupingLevel == 0)
    }

    @Test func undoClosesTheAutomaticGroupFirstAndTheLaterRunLoopCloseDoesNothing() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.undo()
        #expect(counter.value == 0)
        #expect(stack.groupingLevel == 0)
        #expect(stack.lastMisuse == nil)
        spinRunLoop()
        #expect(stack.lastMisuse == nil, "no double close")
        #expect(stack.redoCount == 1)
    }

    @Test func removeAllActionsCancelsThePendingClose() {
        let stack = makeStack(groupsByEvent: true)
        let recorder = NotificationRecorder(stack)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.removeAllActions()
        recorder.reset()
        spinRunLoop()
        #expect(recorder.names.isEmpty)
        #expect(stack.lastMisuse == nil)
    }

    @Test func turningGroupsByEventOffLeavesTheGroupOpenWhenTheCloseFires() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.groupsByEvent = false
        spinRunLoop()
        #expect(stack.groupingLevel == 1, "the close did nothing")
        stack.endUndoGrouping()
        #expect(stack.undoCount == 1)
        #expect(stack.lastMisuse == nil)
    }

    /// The checkpoint the event's close posts runs before it decides: an observer that turns
    /// `groupsByEvent` off there leaves the group open, as turning it off earlier would.
    @Test func aCheckpointObserverThatTurnsGroupsByEventOffLeavesTheGroupOpen() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        let recorder = NotificationRecorder(stack)
        let hook = NotificationHook(ActionStack.checkpointNotification, stack) { stack in
            stack.groupsByEvent = false
        }
        stack.endEvent()
        withExtendedLifetime(hook) {}
        #expect(stack.groupingLevel == 1, "the close decided after the checkpoint: nothing to do")
        #expect(recorder.names == ["C"], "a checkpoint and no close")
        #expect(stack.lastMisuse == nil)
    }

    /// A program that ends its events with endEvent() and never turns its run loop keeps one
    /// queued close, not one per event; the queued close still closes the event that is pending
    /// when the run loop turns.
    @Test func eventsEndedByHandReuseTheCloseQueuedOnTheRunLoop() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        for value in 1...1_000 {
            counter.set(value, on: stack)
            stack.endEvent()
        }
        #expect(stack.undoCount == 1_000)
        #expect(stack._runLoopClosesQueued == 1)
        counter.set(0, on: stack)  // an event the run loop closes
        #expect(stack.groupingLevel == 1)
        spinRunLoop()
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1_001)
        counter.set(1, on: stack)  // the queued close has fired: a new one is queued
        #expect(stack._runLoopClosesQueued == 2)
        spinRunLoop()
        #expect(stack.groupingLevel == 0)
    }

    @Test func closingTheAutomaticGroupByHandIsSafeWhenTheRunLoopCloseComes() {
        // Foundation crashes here: the run loop's close finds nothing open.
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.endUndoGrouping()
        #expect(stack.groupingLevel == 0)
        counter.set(2, on: stack)  // a new automatic group in the same pass
        #expect(stack.groupingLevel == 1)
        spinRunLoop()
        #expect(stack.lastMisuse == nil)
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 2)
    }

    @Test(arguments: [false, true])
    func automaticGroupWithNothingRegisteredClosesWithBalancedNotifications(dropsEmptyGroups: Bool) {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
        let recorder = NotificationRecorder(stack)
        stack.setActionName("Nothing")
        #expect(stack.groupingLevel == 1)
        spinRunLoop()
        #expect(stack.groupingLevel == 0)
        #expect(stack.canUndo == !dropsEmptyGroups, "Foundation keeps it as a do-nothing step")
        #expect(stack.undoCount == (dropsEmptyGroups ? 0 : 1))
        #expect(recorder.withoutCheckpoints == ["DidOpen", "WillClose", "DidClose"])
    }

    @Test func endEventClosesTheGroupWithoutARunLoopAndCannotDoubleClose() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.endEvent()
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1)
        stack.endEvent()  // nothing pending: nothing happens
        spinRunLoop()  // the run loop's close was cancelled
        #expect(stack.lastMisuse == nil)
        #expect(stack.undoCount == 1)
    }

    @Test func manualClosingSchedulesNothingOnTheRunLoop() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        spinRunLoop()
        #expect(stack.groupingLevel == 1, "nothing was scheduled")
        counter.set(2, on: stack)
        stack.endEvent()
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(counter.value == 0, "both registrations were one step")
    }

    @Test func endEventClosesOnlyTheInnermostGroupAsTheRunLoopWould() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        stack.beginUndoGrouping()  // level 2, never closed by the program
        let counter = Counter()
        counter.set(1, on: stack)
        stack.endEvent()
        #expect(stack.groupingLevel == 1)
    }

    @Test func automaticCloseOnlyFiresInTheConfiguredModes() {
        let stack = makeStack(groupsByEvent: true)
        let custom = RunLoop.Mode("ActionStackTestMode")
        stack.runLoopModes = [custom]
        let counter = Counter()
        counter.set(1, on: stack)
        spinRunLoop()
        #expect(stack.groupingLevel == 1)
        _ = RunLoop.current.run(mode: custom, before: Date())
        #expect(stack.groupingLevel == 0)
    }

    @Test func stackIsFreedWithAnAutomaticClosePending() {
        var stack: ActionStack? = makeStack(groupsByEvent: true)
        let tracker = LifetimeTracker(stack!)
        let counter = Counter()
        stack!.registerUndo(withTarget: counter) { $0.value = 0 }  // captures nothing
        stack = nil
        #expect(!tracker.isAlive)
        spinRunLoop()  // the scheduled block finds no stack
    }
}

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
