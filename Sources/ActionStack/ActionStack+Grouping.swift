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
        if scopeDepth > 0 {
            eventEndAfterScopes = token
            return
        }
        eventEnded(token: token)
    }

    /// The outermost scoped group ended: ends the event ``endEvent()`` asked to end meanwhile, if
    /// it is still pending (a rollback or a removal may have cancelled it).
    func endEventPutOffByScopes() {
        guard let token = eventEndAfterScopes else { return }
        eventEndAfterScopes = nil
        if eventClose.pending == token { eventEnded(token: token) }
    }

    // MARK: Internals

    /// The side that registration, grouping and the metadata setters act on: the redo stack while
    /// undoing, the undo stack otherwise.
    @inline(__always)
    var currentSide: Side {
        if operations != nil, let run = operations?.runBelongsToCurrentTask() { return run.handlerSide }
        return performing == .undo ? redoSide : undoSide
    }

    /// The undo or redo in progress as the caller sees it: the synchronous one, or, from the task
    /// of an asynchronous operation (and the tasks it starts), that operation. The stack's own
    /// paths read ``performing`` and route an operation's calls explicitly (see `currentSide`).
    var performingAsSeen: Direction? {
        if let now = performing { return now }
        if operations == nil { return nil }
        return operations?.runBelongsToCurrentTask()?.direction
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
        guard disableCount == 0 else { return nil }
        if refusesReentrantCall(.beginUndoGrouping) { return nil }
        if operations != nil, let run = operations?.runBelongsToCurrentTask() {
            // An asynchronous group's body opens groups as any code does; an operation's handlers
            // open them inside the step being built, silently.
            return beginGroup(on: run.handlerSide, forScope: forScope, notifies: run.direction == nil)
        }
        // Each side read from its own `let` (see `register(on:...)`).
        if performing == .undo { return beginGroup(on: redoSide, forScope: forScope, notifies: false) }
        return beginGroup(on: undoSide, forScope: forScope, notifies: performing == nil)
    }

    /// `beginGroup(forScope:)` on `side`, the current side, after its refusal checks.
    @inline(__always)
    private func beginGroup(on side: Side, forScope: Bool, notifies: Bool) -> Frame? {
        if !(side.frames.isEmpty && groupsByEvent) {
            // Observers of the checkpoint run before the decision; read the state again after it.
            postCheckpoint()
            guard disableCount == 0 else { return nil }
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
        let frame = openFrame(on: side)
        if forScope { scopeSteps[frame.id] = .some(nil) }
        if notifies { post(ActionStack.didOpenUndoGroupNotification) }
        return frame
    }

    func _endUndoGrouping() {
        enterCall()
        defer { leaveCall() }
        guard disableCount == 0 else { return }
        if refusesReentrantCall(.endUndoGrouping) { return }
        postCheckpoint()
        guard disableCount == 0 else { return }
        if operations != nil, let run = operations?.runBelongsToCurrentTask() {
            endUndoGrouping(on: run.handlerSide, notifies: run.direction == nil)
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
        let protected = performing != nil || (side !== undoSide && side !== redoSide) ? 1 : 0
        guard side.frames.count > protected else {
            report(.endWithoutBegin)
            return
        }
        // The program closes the event's automatic group itself: it ends its events.
        if eventClose.isPending && side === undoSide && side.frames.count == 1 { eventClose.programClosesTheGroup() }
        closeInnermostFrame(of: side, notify: notifies)
    }

    /// Opens a frame on `side`: frame 0 (a new step) when nothing is open, otherwise a frame nested
    /// in the innermost open one.
    @discardableResult
    func openFrame(on side: Side) -> Frame {
        let frame = Frame(start: side.end, low: states.current, id: nextFrameID)
        nextFrameID &+= 1
        if side.frames.isEmpty && side === undoSide && performing == nil {
            // A new step on top: nothing older can be continued.
            coalescer.clear()
        }
        side.frames.append(frame)
        return frame
    }

    /// Opens the event's automatic group on the undo stack and schedules the event's close. Posts
    /// nothing.
    func openAutomaticGroup() {
        openFrame(on: undoSide)
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
        if let queued = queuedClose, !queued.hasFired, queued.runLoop === runLoop, queued.modes == modes {
            queued.token = token
            if eventClose.mayNeverEnd && runLoop.currentMode == nil { warnThatEventsNeverEnd(manual: false) }
            return
        }
        let queued = QueuedClose(token: token, runLoop: runLoop, modes: modes)
        queuedClose = queued
        runLoopClosesQueued &+= 1
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
        coalescer.eventEnded()
        guard groupsByEvent, !undoSide.frames.isEmpty, performing == nil else { return }
        postCheckpoint()
        // The checkpoint's observers run before the decision: they may have closed the group or
        // turned `groupsByEvent` off (then the event's close does nothing, as it would had they
        // done it earlier).
        guard groupsByEvent, !undoSide.frames.isEmpty, performing == nil else { return }
        closeInnermostFrame(of: undoSide, notify: true)
    }

    /// Closes the innermost open frame of `side` (one is open), posting the will/did-close
    /// notifications when `notify`.
    ///
    /// A nested frame becomes a closed nested group of its parent. Frame 0 becomes a step (see
    /// ``closeTopLevelFrame(of:)``).
    func closeInnermostFrame(of side: Side, notify: Bool, dropsIfEmpty: Bool = false) {
        if notify && postsNotifications {
            activities.push(.closingGroup)
            post(ActionStack.willCloseUndoGroupNotification)
            activities.pop()
        }
        var discardable = false
        if side.frames.count > 1 {
            closeNestedFrame(of: side)
        } else {
            discardable = closeTopLevelFrame(of: side, dropsIfEmpty: dropsIfEmpty)
        }
        if notify { post(ActionStack.didCloseUndoGroupNotification, discardable: discardable) }
    }

    /// Closes the innermost frame of `side`, which is nested: it becomes the last item of its
    /// parent.
    func closeNestedFrame(of side: Side) {
        let frame = side.frames.removeLast()
        let parent = side.frames.count - 1
        // What was nested inside the closing frame is now just part of it.
        while let last = side.nested.last, last.parent > parent { side.nested.removeLast() }
        let isEmpty = side.end == frame.start
        side.nested.append(
            NestedGroup(
                start: frame.start,
                end: side.end,
                parent: parent,
                low: isEmpty ? states.current : frame.low,
                high: states.current,
                id: frame.id
            )
        )
    }

    /// A new step, with a serial of its own.
    @inline(__always)
    func makeStep(
        count: Int, metadata: consuming StepMetadata?, low: StateID, high: StateID, node: NodeNumber = 0
    ) -> Step {
        nextStepSerial &+= 1
        return Step(count: Int32(count), serial: nextStepSerial, metadata: metadata, low: low, high: high, node: node)
    }

    /// Closes frame 0 of the undo stack (the only frame open) into a step, by the program's or the
    /// event's close; returns whether the step is discardable.
    ///
    /// An empty group becomes a do-nothing step that empties the redo stack, or is dropped with
    /// ``dropsEmptyGroups`` (or `dropsIfEmpty`: the automatic group of a failed scoped group).
    /// Cancels the event's pending close and trims to the limits.
    @discardableResult
    func closeTopLevelFrame(of side: Side, dropsIfEmpty: Bool = false) -> Bool {
        let frame = side.frames.removeLast()
        if !side.nested.isEmpty { side.nested.removeAll() }
        let metadata = side.frameMetadata.take()
        let discardable = metadata?.isDiscardable ?? false
        let count = side.end - frame.start
        if side === undoSide { eventClose.cancel() }
        if count > 0 {
            let node = tree == nil || side !== undoSide ? 0 : makeChangeNode()
            appendStep(
                makeStep(count: count, metadata: consume metadata, low: frame.low, high: states.current, node: node),
                closing: frame.id,
                to: side
            )
            // What the redo stack holds here came from undoing groups nested in this one: it is
            // redone on top of the step.
            if node != 0, let top = redoSide.steps.last { tree?.table.setParent(of: top.node, to: node) }
        } else if !dropsEmptyGroups && !dropsIfEmpty {
            if side === undoSide && performing == nil { clearRedoSide() }
            let step = makeStep(
                count: 0, metadata: consume metadata, low: states.current, high: states.current,
                node: tree == nil || side !== undoSide ? 0 : makeChangeNode()
            )
            appendStep(step, closing: frame.id, to: side)
        }
        if side === undoSide { trimOrDefer() }
        return discardable
    }

    /// Appends `step`, which the frame with id `frameID` became, to `side`'s closed steps.
    @inline(__always)
    private func appendStep(_ step: consuming Step, closing frameID: UInt64, to side: Side) {
        // A scoped group whose body closes the scope's own group finds the step by this.
        if !scopeSteps.isEmpty, scopeSteps.keys.contains(frameID) { scopeSteps[frameID] = step.serial }
        side.steps.append(step)
    }
}

/// A close queued on a run loop that has not fired yet: later events reuse it (see
/// `ActionStack.scheduleEventClose()`).
///
/// Read and written only on the thread whose run loop it is queued on, which is the thread the
/// stack is used from (the same reasoning as ``WeakStackReference``).
final class QueuedClose: @unchecked Sendable {
    /// The token of the event the block closes when it fires.
    var token: UInt64
    weak var runLoop: RunLoop?
    let modes: [RunLoop.Mode]
    var hasFired = false

    init(token: UInt64, runLoop: RunLoop, modes: [RunLoop.Mode]) {
        self.token = token
        self.runLoop = runLoop
        self.modes = modes
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
