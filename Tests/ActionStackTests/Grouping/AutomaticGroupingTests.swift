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

    // The event's automatic group closes at the end of the event even while registration is
    // disabled.

    @Test func theEventEndsWhileRegistrationIsDisabled() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        stack.disableUndoRegistration()
        stack.endEvent()
        #expect(stack.groupingLevel == 0, "the automatic group closed although registration is disabled")
        stack.enableUndoRegistration()
        counter.set(2, on: stack)
        stack.endEvent()
        #expect(stack.undoCount == 2, "the next event is a step of its own")
    }

    @Test func theRunLoopsCloseHappensWhileRegistrationIsDisabled() {
        let stack = makeStack(groupsByEvent: true)
        let counter = Counter()
        counter.set(1, on: stack)
        stack.disableUndoRegistration()
        spinRunLoop()
        #expect(stack.groupingLevel == 0)
        stack.enableUndoRegistration()
    }
}
