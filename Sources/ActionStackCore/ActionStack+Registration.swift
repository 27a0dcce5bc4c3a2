// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Registers `handler` as the inverse of a change made to `target`.
    ///
    /// The handler runs on undo (or redo) with the target as its argument; whatever it registers
    /// becomes the opposite step. The stack holds the target **weakly**: if the target is freed, the
    /// action never runs and no longer counts, and a step left with no live action disappears. Take
    /// the target from the handler's argument rather than capturing it strongly.
    ///
    /// The stack keeps the handler until the action leaves the history, so what the handler
    /// captures lives as long. A handler that captures the stack itself makes a cycle (the stack
    /// then lives until its actions are removed): reach the stack through the target instead (a
    /// document that owns its `undoStack`), or capture it `[unowned stack]`.
    ///
    /// ```swift
    /// func move(_ figure: Figure, to point: Point, on stack: ActionStack) {
    ///     let old = figure.position
    ///     stack.registerUndo(withTarget: figure) { figure in move(figure, to: old, on: stack) }
    ///     figure.position = point
    /// }
    ///
    /// move(figure, to: Point(x: 3, y: 4), on: stack)
    /// stack.undo()
    /// print(figure.position)   // (0.0, 0.0)
    /// stack.redo()
    /// print(figure.position)   // (3.0, 4.0)
    /// ```
    ///
    /// While registration is disabled, the call does nothing. Otherwise a registration outside an
    /// undo or redo empties the redo stack at once; with ``groupsByEvent`` on and no group open, it
    /// opens the event's automatic group. With no group open and ``groupsByEvent`` off, it is the
    /// misuse ``Misuse/noOpenGroup(_:)`` and nothing changes.
    ///
    /// Inside an undo (or redo) handler, the action goes into the step being built on the other
    /// stack and the redo stack is left alone. From an observer of an operation in progress that
    /// has no group to receive it, it is the misuse ``Misuse/reentrantCall(_:during:)`` (see
    /// <doc:Reentrancy>).
    ///
    /// This is the replacement for `registerUndo(withTarget:selector:object:)` and
    /// `prepare(withInvocationTarget:)`, which need the Objective-C runtime.
    ///
    /// - Parameters:
    ///   - target: The object the change was made to; held weakly.
    ///   - handler: The inverse of the change, called with `target`.
    /// - Complexity: O(1) amortized, no allocation beyond the handler's own closure; plus O(r) to
    ///   release the r actions of a redo stack it empties.
    @inlinable
    public func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType,
        handler: consuming @escaping (TargetType) -> Void
    ) {
        // The handler is stored as it is, retyped to take `AnyObject`, with no wrapping closure
        // (which would cost an allocation per registration); see `HandlerBox`. This is sound: a
        // function taking a class-constrained generic parameter takes a single object reference
        // exactly as one taking `AnyObject` does (the constraint rules out existentials with
        // witness tables), and the stack only ever calls the handler with this `target`.
        _register(target, HandlerBox(handler).erased(), cost: 0, key: nil, window: nil)
    }

    /// Whether registration is enabled; the non-open spelling used inside the stack.
    @inline(__always)
    var registrationEnabled: Bool { registration.isEnabled }

    func _disableUndoRegistration() {
        enterCall()
        defer { leaveCall() }
        registration.disable()
    }

    func _enableUndoRegistration() {
        enterCall()
        defer { leaveCall() }
        guard registration.enable() else {
            report(.enableWithoutDisable)
            return
        }
    }

    // MARK: Internals

    /// The registration path shared by every form of `registerUndo`.
    @usableFromInline
    func _register(
        _ target: AnyObject,
        _ handler: consuming @escaping (AnyObject) -> Void,
        cost: Int,
        key: String?,
        window: Duration?
    ) {
        enterCall()
        defer { leaveCall() }
        guard registration.isEnabled else { return }
        if refusesReentrantCall(.registerUndo) { return }
        if register(target, handler, cost: cost, key: key, window: window, misuseOperation: .registerUndo) {
            post(ActionStack.didOpenUndoGroupNotification)
        }
    }

    /// The registration of a command action (see ``UndoCommand``): a closure registration whose
    /// target box carries the app's key for the target, which marks the action as a command.
    func registerCommandAction(
        on target: AnyObject, key: String, options: RegistrationOptions, handler: @escaping (AnyObject) -> Void
    ) {
        enterCall()
        defer { leaveCall() }
        guard registration.isEnabled else { return }
        if refusesReentrantCall(.registerUndo) { return }
        if register(
            target, handler, cost: options.cost, key: options.coalescingKey, window: options.coalescingWindow,
            misuseOperation: .registerUndo, commandKey: key)
        {
            post(ActionStack.didOpenUndoGroupNotification)
        }
    }

    /// Registers an action; registration is enabled and the call is allowed now. Reports
    /// `noOpenGroup(misuseOperation)` when there is no group to receive it. Returns whether it
    /// opened the event's automatic group: the caller posts the did-open notification at the end of
    /// its call (change first, then tell).
    @inline(__always)
    @discardableResult
    func register(
        _ target: AnyObject,
        _ handler: consuming @escaping (AnyObject) -> Void,
        cost: Int,
        key: String?,
        window: Duration?,
        misuseOperation: OperationKey,
        commandKey: String? = nil
    ) -> Bool {
        if steps.hasAwaitedStep, let step = steps.stepOfCurrentTask() {
            // A handler of the asynchronous operation in flight: into the step it builds, unless
            // `removeAllActions(withTarget:)` removed its target meanwhile (the removal took the
            // target's actions from every step, the one being built included, and what comes for
            // it later goes the same way). An asynchronous group's body: into its step, and the
            // document changes, as for any change (so `markClean()` in the body marks what the body
            // did so far).
            if !step.removedTargets.isEmpty && !step.isRecording && step.removedTarget(target) { return false }
            let opened = register(
                on: step.handlerSide, outside: false, target, handler, cost: cost, key: key, window: window,
                misuseOperation: misuseOperation, commandKey: commandKey)
            if step.isRecording && step.phase == .running { history.documentChanged() }
            return opened
        }
        // One call per side, each reading its own `let`: a side chosen by a conditional would be
        // retained and released around the registration.
        let performing = steps.performing
        if performing == .undo {
            return register(
                on: redoSide, outside: false, target, handler, cost: cost, key: key, window: window,
                misuseOperation: misuseOperation, commandKey: commandKey)
        }
        return register(
            on: undoSide, outside: performing == nil, target, handler, cost: cost, key: key, window: window,
            misuseOperation: misuseOperation, commandKey: commandKey)
    }

    /// The registration on `side`, the current side; `outside`: no undo or redo is in progress.
    ///
    /// - Complexity: O(1) amortized, plus O(r) to empty a redo stack of r actions.
    @inline(__always)
    private func register(
        on side: Side,
        outside: Bool,
        _ target: AnyObject,
        _ handler: consuming @escaping (AnyObject) -> Void,
        cost: Int,
        key: String?,
        window: Duration?,
        misuseOperation: OperationKey,
        commandKey: String?
    ) -> Bool {
        if let key, outside, side.frames.isEmpty,
            canJoinCoalescedStep(key: key, target: target, commandKey: commandKey, window: window)
        {
            joinCoalescedStep(target, handler, cost: cost, commandKey: commandKey)
            return false
        }
        if side.frames.isEmpty && !groupsByEvent {
            report(.noOpenGroup(misuseOperation.reported))
            return false
        }
        if outside { clearRedoSide() }
        let opened = side.frames.isEmpty
        if opened { openAutomaticGroup() }
        let recorded = history.record(
            target, handler, cost: cost, commandKey: commandKey, on: side, changesDocument: outside)
        if outside && (key != nil || history.coalescer.candidate != nil) {
            coalescerSawRegistration(key: key, box: recorded.box, into: recorded.frameWasEmpty)
        }
        return opened
    }

    // The coalescing paths are kept out of line: a `ContinuousClock.Instant` has a layout known only
    // at run time, and the registration path would otherwise look up its metadata and size a stack
    // slot for it on every call.

    /// Whether a registration with `key` on `target` may continue the newest closed undo step:
    /// closures and commands on one target join each other's steps (the coalescer compares
    /// targets).
    @inline(never)
    private func canJoinCoalescedStep(
        key: String, target: AnyObject, commandKey: String?, window: Duration?
    ) -> Bool {
        history.coalescer.canJoin(key: key, target: target, window: window, now: coalescingClock)
    }

    /// Tells the coalescer of a registration outside undo and redo (`key` nil: a plain one).
    @inline(never)
    private func coalescerSawRegistration(key: String?, box: Unmanaged<TargetBox>, into frameWasEmpty: Bool) {
        history.coalescerSawRegistration(key: key, box: box, into: frameWasEmpty, at: coalescingClock())
    }

    /// Continues the newest closed undo step with a coalescing registration.
    @inline(never)
    private func joinCoalescedStep(
        _ target: AnyObject, _ handler: consuming @escaping (AnyObject) -> Void, cost: Int, commandKey: String?
    ) {
        clearRedoSide()
        history.joinNewestStep(target, handler, cost: cost, commandKey: commandKey, at: coalescingClock())
        // A join starts an event, like opening the automatic group: the setters act on the joined
        // step until it ends.
        if groupsByEvent { scheduleEventClose() }
        if cost != 0 { trimOrDefer() }
    }

    /// Empties the redo stack, releasing its actions.
    ///
    /// While an awaited step is in flight, this is a new change from another task: the redo stack
    /// is emptied when the step settles (it may be the step's own side), and the requests waiting
    /// are cancelled, since they meant an older state.
    @inline(__always)
    func clearRedoSide() {
        if steps.hasAwaitedStep {
            noteNewChangeDuringOperation()
            return
        }
        guard redoSide.holdsSomething else { return }
        history.endRedoFuture(maximumCost: maximumCost, restructuringAllowed: mayRestructure)
    }
}
