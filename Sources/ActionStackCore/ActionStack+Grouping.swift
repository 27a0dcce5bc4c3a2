// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension ActionStack {
    /// Ends the current event: closes the automatic group that ``groupsByEvent`` opened, exactly as
    /// the end of the run-loop pass would, and cancels that scheduled close.
    ///
    /// Programs with no turning run loop call it once per user event (after handling a line read
    /// with `readLine`, after each message of an async loop). It is safe to call at any time: with
    /// no automatic close pending it does nothing, and the run loop's close, if it comes later,
    /// finds nothing to close, so a group is never closed twice. Like the run loop's close, it
    /// closes one group, the innermost (an explicit group the program left open inside the
    /// automatic one is closed instead), and only while ``groupsByEvent`` is on. It closes the group
    /// even while registration is disabled (Foundation would leave it open, merging every later
    /// event into it). It also ends the continuation of a coalesced step. From a handler or an
    /// observer of an operation in progress it is the misuse ``Misuse/reentrantCall(_:during:)``.
    ///
    /// Inside the body of a scoped group (``group(named:_:)``), the event's end waits until the
    /// outermost scope ends, as a run-loop close does, so a helper that ends with `endEvent()` can
    /// run inside a scope: the scope's group is not closed under it, and is still named and rolled
    /// back as a whole.
    ///
    /// ```swift
    /// stack.automaticGroupClosing = .manual
    /// while let line = readLine() {
    ///     handle(line)        // registers undo actions
    ///     stack.endEvent()    // one undo step per line
    /// }
    /// ```
    ///
    /// - Complexity: O(1) amortized, plus O(k) for k actions trimmed.
    public func endEvent() {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.endEvent) { return }
        eventClose.programEndedAnEvent()
        guard let token = eventClose.pending else { return }
        if scopes.isRunning {
            scopes.putOffEventEnd(token)
            return
        }
        eventEnded(token: token)
    }

    /// The outermost scoped group ended: ends the event ``endEvent()`` asked to end meanwhile, if
    /// it is still pending (a rollback or a removal may have cancelled it).
    func endEventPutOffByScopes() {
        guard let token = scopes.takeEventEnd() else { return }
        if eventClose.pending == token { eventEnded(token: token) }
    }

    // MARK: Internals

    /// The side that registration, grouping and the metadata setters act on: the redo stack while
    /// undoing, the undo stack otherwise.
    @inline(__always)
    var currentSide: Side {
        if steps.hasAwaitedStep, let step = steps.stepOfCurrentTask() { return step.handlerSide }
        return steps.performing == .undo ? redoSide : undoSide
    }

    /// The undo or redo in progress as the caller sees it: the synchronous one, or, from the task
    /// of an awaited one (and the tasks it starts), that one. The stack's own paths read
    /// `steps.performing` and route an awaited step's calls explicitly (see `currentSide`).
    ///
    /// Reads the machine's fields one by one: a call on `steps` itself would copy the machine out
    /// of the stack on every `isUndoing` and `redo()`.
    @inline(__always)
    var performingAsSeen: Direction? {
        if let now = steps.performing { return now }
        if !steps.hasAwaitedStep { return nil }
        return steps.directionSeenByCurrentTask
    }

    func _beginUndoGrouping() {
        _ = beginGroup()
    }

    /// `beginUndoGrouping()`; returns the frame it opened for the caller (nil when it opened none:
    /// registration disabled, or refused). For a scoped group (`forScope`), the frame is known as the
    /// scope's before anything is posted about it.
    @discardableResult
    func beginGroup(forScope: Bool = false) -> Frame? {
        enterCall()
        defer { leaveCall() }
        guard registration.isEnabled else { return nil }
        if refusesReentrantCall(.beginUndoGrouping) { return nil }
        if steps.hasAwaitedStep, let step = steps.stepOfCurrentTask() {
            // An asynchronous group's body opens groups as any code does; an operation's handlers
            // open them inside the step being built, silently.
            return beginGroup(on: step.handlerSide, forScope: forScope, notifies: step.isRecording)
        }
        // Each side read from its own `let` (see `register(on:...)`).
        let performing = steps.performing
        if performing == .undo { return beginGroup(on: redoSide, forScope: forScope, notifies: false) }
        return beginGroup(on: undoSide, forScope: forScope, notifies: performing == nil)
    }

    /// `beginGroup(forScope:)` on `side`, the current side, after its refusal checks.
    @inline(__always)
    private func beginGroup(on side: Side, forScope: Bool, notifies: Bool) -> Frame? {
        if !(side.frames.isEmpty && groupsByEvent) {
            // Observers of the checkpoint run before the decision; read the state again after it.
            postCheckpoint()
            guard registration.isEnabled else { return nil }
        }
        if side.frames.isEmpty && groupsByEvent {
            // The automatic group opens without a checkpoint; the explicit group nested in it
            // opens after one, as any nested group does. Observers of both notifications run before
            // the explicit group exists and cannot close the automatic one.
            openAutomaticGroup()
            if postsNotifications {
                activities.push(.openingGroup)
                post(ActionStack.didOpenUndoGroupNotification)
                postCheckpoint()
                activities.pop()
            }
        }
        let frame = history.openFrame(on: side)
        if forScope { scopes.opened(frame: frame.id) }
        if notifies { post(ActionStack.didOpenUndoGroupNotification) }
        return frame
    }

    func _endUndoGrouping() {
        enterCall()
        defer { leaveCall() }
        guard registration.isEnabled else { return }
        if refusesReentrantCall(.endUndoGrouping) { return }
        postCheckpoint()
        guard registration.isEnabled else { return }
        let performing = steps.performing
        if steps.hasAwaitedStep, let step = steps.stepOfCurrentTask() {
            endUndoGrouping(on: step.handlerSide, notifies: step.isRecording)
        } else if performing == .undo {
            endUndoGrouping(on: redoSide, notifies: false)
        } else {
            endUndoGrouping(on: undoSide, notifies: performing == nil)
        }
    }

    /// `endUndoGrouping()` on `side`, the current side, after its checkpoint.
    @inline(__always)
    private func endUndoGrouping(on side: Side, notifies: Bool) {
        // The group an undo or redo in progress is building is not the handlers' to close.
        // Nor is the step an asynchronous group records (on a side of its own).
        let protected = steps.performing != nil || (side !== undoSide && side !== redoSide) ? 1 : 0
        guard side.frames.count > protected else {
            report(.endWithoutBegin)
            return
        }
        // The program closes the event's automatic group itself: it ends its events.
        if eventClose.isPending && side === undoSide && side.frames.count == 1 { eventClose.programClosesTheGroup() }
        closeInnermostFrame(of: side, notify: notifies)
    }

    /// Opens the event's automatic group on the undo stack and schedules the event's close. Posts
    /// nothing.
    func openAutomaticGroup() {
        history.openFrame(on: undoSide)
        scheduleEventClose()
    }

    /// Makes the current event's close pending (if it is not) and, with
    /// ``AutomaticGroupClosing/runLoop``, schedules it on the current run loop.
    ///
    /// `RunLoop.perform` cannot be taken back, so a close already queued on the same run loop, in
    /// the same modes, that has not fired yet is reused for the new event: a program that ends its
    /// events with ``endEvent()`` and never turns its run loop keeps one queued block, not one per
    /// event.
    ///
    /// A new event whose close nothing will bring is warned of once
    /// (``Warning/Kind/eventsNeverEnd``): the last automatic group closed before its event ended
    /// (`undo()` closed it, say), the program never ended an event itself, and either
    /// ``automaticGroupClosing`` is ``AutomaticGroupClosing/manual``, or the close queued for the
    /// earlier event has not fired (the run loop has not turned since) and the run loop is not
    /// running now. A program whose run loop turns handles its events inside a pass of it, so it
    /// is never warned; the check costs nothing when the run loop's close fired, and a few loads
    /// otherwise.
    func scheduleEventClose() {
        guard let token = eventClose.schedule() else { return }
        guard automaticGroupClosing == .runLoop else {
            if eventClose.mayNeverEnd { warnThatEventsNeverEnd(manual: true) }
            return
        }
        let runLoop = RunLoop.current
        let modes = runLoopModes
        if let queued = eventClose.queued, !queued.hasFired, queued.runLoop === runLoop, queued.modes == modes {
            queued.token = token
            if eventClose.mayNeverEnd && runLoop.currentMode == nil { warnThatEventsNeverEnd(manual: false) }
            return
        }
        let queued = QueuedClose(token: token, runLoop: runLoop, modes: modes)
        eventClose.didQueue(queued)
        let reference = WeakStackReference(stack: self)
        runLoop.perform(inModes: modes) {
            queued.hasFired = true
            reference.stack?.scheduledCloseFired(token: queued.token)
        }
    }

    /// The run loop's scheduled close of the event with `token`.
    func scheduledCloseFired(token: UInt64) {
        guard eventClose.pending == token else { return }
        if callDepth > 0 || !activities.isEmpty {
            // The run loop was spun from inside a call (a handler, say): close at the next turn.
            let reference = WeakStackReference(stack: self)
            RunLoop.current.perform(inModes: runLoopModes) {
                reference.stack?.scheduledCloseFired(token: token)
            }
            return
        }
        enterCall()
        defer { leaveCall() }
        eventEnded(token: token)
    }

    /// The end of the event whose close has `token`: closes the innermost open group of the undo
    /// stack (as `endUndoGrouping()` would, even while registration is disabled) when
    /// ``groupsByEvent`` is on.
    private func eventEnded(token: UInt64) {
        guard eventClose.fire(token) else { return }
        history.coalescingEventEnded()
        guard groupsByEvent, !undoSide.frames.isEmpty, steps.performing == nil else { return }
        postCheckpoint()
        // The checkpoint's observers run before the decision: they may have closed the group or
        // turned `groupsByEvent` off (then the event's close does nothing, as it would had they
        // done it earlier).
        guard groupsByEvent, !undoSide.frames.isEmpty, steps.performing == nil else { return }
        closeInnermostFrame(of: undoSide, notify: true)
    }

    /// Closes the innermost open frame of `side` (one is open), posting the will/did-close
    /// notifications when `notify`.
    ///
    /// A nested frame becomes a closed nested group of its parent. Frame 0 becomes a step (see
    /// ``closeTopLevelFrame(of:)``).
    func closeInnermostFrame(of side: Side, notify: Bool, dropsIfEmpty: Bool = false) {
        if notify { postWillCloseGroup() }
        var discardable = false
        if side.frames.count > 1 {
            history.closeNestedFrame(of: side)
        } else {
            discardable = closeTopLevelFrame(of: side, dropsIfEmpty: dropsIfEmpty)
        }
        if notify { post(ActionStack.didCloseUndoGroupNotification, discardable: discardable) }
    }

    /// Closes frame 0 of the undo stack (the only frame open) into a step, by the program's or the
    /// event's close; returns whether the step is discardable.
    ///
    /// An empty group becomes a do-nothing step that empties the redo stack, or is dropped with
    /// ``dropsEmptyGroups`` (or `dropsIfEmpty`: the automatic group of a failed scoped group).
    /// Cancels the event's pending close and trims to the limits.
    @discardableResult
    func closeTopLevelFrame(of side: Side, dropsIfEmpty: Bool = false) -> Bool {
        let (frame, metadata) = side.closeOutermostFrame()
        let discardable = metadata?.isDiscardable ?? false
        if side === undoSide { eventClose.cancel() }
        let keepsEmpty = !dropsEmptyGroups && !dropsIfEmpty
        // An empty group kept as a step is a new change: it ends the redo future, as a
        // registration would have.
        if keepsEmpty && side.end == frame.start && side === undoSide && steps.performing == nil { clearRedoSide() }
        // Another task's change while an awaited operation runs ends the redo future when the
        // operation settles: the redo stack is not the groups this one nested.
        if let serial = history.appendClosedStep(
            from: frame, metadata: consume metadata, on: side, keepsEmpty: keepsEmpty,
            redoFutureIsEnding: steps.hasAwaitedStep && steps.inFlight?.sawNewChange == true)
        {
            // A scoped group whose body closes the scope's own group finds the step by this.
            scopes.frameClosed(frame.id, into: serial)
        }
        if side === undoSide { trimOrDefer() }
        return discardable
    }
}

/// A weak reference to a stack for the run-loop block that closes an automatic group.
///
/// `RunLoop.perform` takes a `@Sendable` block, but the block runs on the thread whose
/// `RunLoop.current` scheduled it, which is the thread the stack was being used from; the stack is
/// documented as usable from one isolation domain at a time, so no other thread touches it.
private struct WeakStackReference: @unchecked Sendable {
    weak var stack: ActionStack?
}
