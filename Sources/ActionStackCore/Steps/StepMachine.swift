// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The step machine: what the stack is doing with a step, synchronous or awaited, and the requests
/// that wait for their turn to perform one.
///
/// It decides; the stack acts. Each event changes the state and returns what the stack must do
/// next (post this notification, run this action, cancel these requests), and the stack does it once the
/// state is whole, as swift-nio's `NIOAsyncWriter.StateMachine` has its writer do. A synchronous
/// undo or redo drives it from `beginSynchronous` to `ended` inside one call; an awaited one
/// (``ActionStack/performUndo(isolation:)``) awaits between its events; an asynchronous group
/// (``ActionStack/asyncGroup(named:isolation:_:)``) is a step whose actions are its body's.
///
/// ```text
///            beginSynchronous(d)                       finished -> .postDid(d)      ended
///   idle ──────────────────────────▶ performing(d) ─────────────────────────────────────────▶ idle
///    │     (handlers run inside the call, no await between events)
///    │
///    │ begin(step)                    nextAction -> .run(i) ... actionRan / actionFailed
///    └────────────────────────────▶ running ────────── finished -> .postDid(d) ─── ended ──▶ idle
///      (a request holds the turn)     │  (a group: finished -> .postDidClose, idle at once)
///                                     │ rollbackBegan (an action failed, a group's body threw)
///                                     ▼
///                                  rollingBack ──────── rolledBack -> .postDidFail(f) ─ ended ▶ idle
///                                                       (a group: idle at once)
/// ```
///
/// Between events, other calls tell the machine what happened to the step in flight: a change
/// recorded by another task (`newChangeRecorded`), a removal by target (`boxRemoved`), everything
/// removed (`everythingRemoved`), a clean mark made midway (`markedCleanMidway`).
///
/// A broken step (one whose rollback failed) is a mark the machine keeps beside its state rather
/// than a state of its own: the stack goes on recording new changes, asynchronous groups included,
/// while a step is broken; only undo, redo and moves through the history wait for the app to
/// discard or retry it.
///
/// Who owns what: the state, the awaited step's bookkeeping (``StepInFlight``, the machine's
/// storage), the broken mark and the request queue are the machine's. What a step does to the
/// history is ``History``'s (`History.settle`, for a synchronous and an awaited undo or redo
/// alike; `History.finishRecorded` for an asynchronous group's step). The
/// notifications the events return are posted in one place, `ActionStack.carryOut(_:)`
/// (ActionStack+Steps.swift), for all three kinds of step; handlers and the re-entrancy table are
/// the stack's.
///
/// Every question "is a step in flight?", "may the history be restructured now?", "is the stack
/// busy?" is one of the machine's answers below (`performing`, `hasAwaitedStep`, `isIdle`,
/// `isBusy`, `mayRestructure`, `refusesHistoryMoves`, `holdsHistory`); the stack composes them
/// with its own concerns once each, under a name (`ActionStack.mayDropFreedSteps`,
/// `mayRestructure`, `isAtRest`, `mayTrimAtOnce`, ... in ActionStack+Removal.swift).
struct StepMachine {
    /// What the stack is doing with a step.
    ///
    /// A trivial value, read by every registration: the awaited step's bookkeeping is beside it
    /// (``inFlight``), not in it, so that reading the state never retains anything.
    enum State: Equatable {
        /// No step is in flight.
        case idle
        /// A synchronous undo or redo, from its will-notification to the end of its
        /// did-notification: driven to the end inside one call.
        case performing(Direction)
        /// An awaited undo or redo runs its actions, or an asynchronous group's body records its
        /// step (``inFlight`` says which).
        case running
        /// The awaited step failed (or the group's body threw): what it did is being undone.
        case rollingBack
    }

    /// What the stack is doing with a step.
    private(set) var state = State.idle
    /// The bookkeeping of the awaited step (or group) in flight: set exactly while the state is
    /// ``State/running`` or ``State/rollingBack``.
    private(set) var inFlight: StepInFlight?
    /// The step whose rollback failed, until the app discards or retries it.
    private(set) var broken: BrokenMark?
    /// The requests to perform awaited steps, in request order; the running one holds the turn.
    private(set) var queue = RequestQueue()
    /// The awaited undo, redo or jump that holds the turn, whose own calls the state observers do
    /// not hear one by one (see `ActionStack.callIsHeard`); nil for an asynchronous group.
    var quietRequest: QuietRequest?
    /// The request the last synchronous `undo()`, `redo()` or `jump(to:)` started.
    var startedRequest: ActionStack.OperationRequest?
    /// Whether the last awaited step to end saw a new change from another task (a jump stops).
    private(set) var sawNewChangeInLastStep = false
    /// Where an asynchronous action, called synchronously by the runner, leaves its work; made on
    /// the first asynchronous registration.
    private(set) var slot: AsyncSlot?
    /// Whether the stack ever registered an asynchronous action, took an awaited request or had its
    /// ``ActionStack/busyPolicy`` set: until then the synchronous paths ask nothing else about
    /// awaited steps (one check).
    private(set) var usesAwaitedSteps = false

    // MARK: The answers

    /// The synchronous undo or redo in progress, if any.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var performing: Direction? {
        if case .performing(let direction) = state { return direction }
        return nil
    }

    /// Whether no step is in flight, synchronous or awaited.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var isIdle: Bool { state == .idle }

    /// Whether an awaited request (an undo, a redo, a jump, a retry, an asynchronous group) holds
    /// the turn, from its start to its end, between the steps of a jump too. ``ActionStack/isBusy``.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var isBusy: Bool { queue.isBusy }

    /// Whether the machine lets the history be restructured now (trimmed, its branches pruned, its
    /// shape changed): no awaited request holds the turn. What is asked meanwhile waits until the
    /// request ends, so that nothing is trimmed under a step in flight or between the steps of a
    /// jump. (The stack adds its own condition: no scoped group's body is running.)
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var mayRestructure: Bool { !queue.isBusy }

    /// Whether moves through the history that do not queue (``ActionStack/undoNestedGroup()``,
    /// ``ActionStack/selectRedoBranch(_:)``, saving) are refused now: a request holds the turn (the
    /// history is what it works on) or a step is broken.
    ///
    /// - Complexity: O(1).
    var refusesHistoryMoves: Bool { queue.isBusy || broken != nil }

    /// The awaited step in flight when the current task is its own (its handlers, across their
    /// awaits, and the tasks they start), or nil.
    ///
    /// - Complexity: O(d) for d operations (of any stacks) nested in the current task; usually 1.
    func stepOfCurrentTask() -> StepInFlight? {
        guard let inFlight, OperationChain.current?.contains(inFlight.chainID) == true else { return nil }
        return inFlight
    }

    /// Whether an awaited step (an undo, a redo, a step of a jump, an asynchronous group's body) is
    /// in flight, whichever task asks. The synchronous paths ask this before
    /// ``stepOfCurrentTask()``, which copies the machine out of the stack.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var hasAwaitedStep: Bool { inFlight != nil }

    /// Whether the machine holds the history (a request holds the turn or waits for it, a step is
    /// in flight or broken): the history is not whole enough to save or record now.
    ///
    /// - Complexity: O(1).
    var holdsHistory: Bool { refusesHistoryMoves || inFlight != nil || queue.pendingCount > 0 }

    /// The undo or redo in progress as the current task sees it: the synchronous one, or, from the
    /// task of an awaited one, that one.
    ///
    /// - Complexity: O(1), or as ``stepOfCurrentTask()`` while an awaited step is in flight.
    var directionSeenByCurrentTask: Direction? {
        if case .performing(let direction) = state { return direction }
        guard inFlight != nil else { return nil }
        return stepOfCurrentTask()?.direction
    }

    /// Whether the awaited undo or redo in flight is between its step's states (its actions have
    /// started running): a clean mark made now names a state of its own.
    var isMidway: Bool { inFlight?.isMidway ?? false }

    /// What does not hold of the machine's state (empty when it is consistent).
    func invariantViolations() -> [String] {
        var problems: [String] = []
        switch state {
        case .idle, .performing:
            if inFlight != nil { problems.append("step machine: a step in flight while \(state)") }
        case .running, .rollingBack:
            if inFlight == nil { problems.append("step machine: \(state) with no step in flight") }
        }
        return problems
    }

    // MARK: Events: a synchronous step

    /// A synchronous undo or redo begins: the stack performs the step inside this call, and posts
    /// its will-notification first (returned, as ``begin(_:)`` returns it for an awaited one).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func beginSynchronous(_ direction: Direction) -> BeginAction {
        state = .performing(direction)
        return .postWill(direction)
    }

    /// The synchronous step in progress turned out to be dead (every target was freed, and
    /// notifications are off): nothing ran, nothing is told, and the machine is idle again.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func vanished() {
        state = .idle
    }

    // MARK: Events: an awaited step

    /// What the stack does when an awaited step or group begins.
    enum BeginAction {
        /// An undo or redo: post its will-notification (its handlers' frame opens after it).
        case postWill(Direction)
        /// An asynchronous group: its frame is open; post its did-open notification.
        case postDidOpen
    }

    /// An awaited step (or an asynchronous group) begins, while its request holds the turn: the
    /// machine holds its bookkeeping until it ends.
    ///
    /// - Complexity: O(1).
    mutating func begin(_ step: StepInFlight) -> BeginAction {
        state = .running
        inFlight = step
        guard let direction = step.direction else { return .postDidOpen }
        return .postWill(direction)
    }

    /// The step's actions start running: the document is between the step's states.
    mutating func actionsStarted() {
        inFlight?.isMidway = true
    }

    /// What the runner of an awaited step does next.
    enum NextAction {
        /// Run the action at `index` of the step (its registrations build the opposite step).
        case run(index: Int, PendingAction)
        /// The task was cancelled: the step fails at the action at `index`, and rolls back.
        case fail(index: Int)
        /// Every action has run (or was skipped): the step finishes.
        case finish
    }

    /// The runner asks for the step's next action, newest first. Actions that a remote change left
    /// with nothing to do, or whose target `removeAllActions(withTarget:)` removed meanwhile, are
    /// skipped (the document is then not where the step leads). `isCancelled` is read before each
    /// action, and once more when none is left (cancelled while the last action ran: the step still
    /// fails, and rolls back).
    ///
    /// - Complexity: O(1) per action skipped or returned, plus O(r) for the r targets removed
    ///   meanwhile.
    mutating func nextAction(isCancelled: () -> Bool) -> NextAction {
        guard let step = inFlight else { return .finish }
        while step.nextPendingIndex >= 0 {
            let index = step.nextPendingIndex
            let pending = step.pending[index]
            if isCancelled() {
                step.failedTargetType = Self.typeName(of: pending.box)
                return .fail(index: index)
            }
            step.nextPendingIndex = index - 1
            if step.deadPending.contains(index) || (!step.removedAll && step.isRemoved(pending.box)) {
                step.skippedAny = true
                continue
            }
            step.runningStart = step.built.end
            return .run(index: index, pending)
        }
        if isCancelled(), let last = step.ranges.last {
            step.failedTargetType = Self.typeName(of: step.pending[last.index].box)
            return .fail(index: last.index)
        }
        return .finish
    }

    /// The action at `index` ran (`ran`: its target was alive); what its registrations built is
    /// its range of the opposite step.
    mutating func actionRan(index: Int, ran: Bool) {
        guard let step = inFlight else { return }
        step.ranges.append((index, step.runningStart, step.built.end, ran))
    }

    /// The action at `index` threw: its range is kept (its registrations before the throw are rolled
    /// back with the rest), and the step fails there.
    mutating func actionFailed(index: Int) {
        guard let step = inFlight else { return }
        step.ranges.append((index, step.runningStart, step.built.end, true))
        step.failedTargetType = Self.typeName(of: step.pending[index].box)
    }

    /// The rollback begins: what the step's actions (or the group's body) registered is undone,
    /// and what the inverses register goes to the bin.
    mutating func rollbackBegan() {
        state = .rollingBack
        inFlight?.phase = .rollingBack
    }

    /// What the stack does once an undo or redo has done its part of the history.
    enum FinishAction {
        /// An undo or redo: post its did-notification (its observers still see it in progress),
        /// then end it (``ended()``).
        case postDid(Direction)
        /// An asynchronous group: it has ended (its body is over, and what runs now is outside
        /// it); post its did-close notification. (A body that threw closes its group the same
        /// way before the rollback, which then ends the group.)
        case postDidClose
    }

    /// The step finished: every action ran (or the group's body returned), and the history has
    /// put its opposite in place (`History.finishAwaited` or `History.finishRecorded`, in
    /// History+Settle.swift). A group ends here; an undo or redo ends after its did-notification.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func finished() -> FinishAction {
        switch state {
        case .performing(let direction):
            return .postDid(direction)
        case .idle, .running, .rollingBack:
            guard let step = inFlight else { return .postDidClose }
            guard let direction = step.direction else {
                ended()
                return .postDidClose
            }
            return .postDid(direction)
        }
    }

    /// The synchronous undo or redo in progress finished (its actions ran, and
    /// `History.settle` put its opposite in place): post its did-notification, then end
    /// it. The same answer as ``finished()`` gives in the `performing` state, which the stack drove
    /// the machine to inside this call: nothing is read, so the synchronous core pays for no
    /// decision it has already made.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func finishedSynchronous(_ direction: Direction) -> FinishAction {
        .postDid(direction)
    }

    /// What the stack does once a rolled-back step has done its part of the history.
    enum RolledBackAction {
        /// An undo or redo: post its did-fail notification with `failure` (its observers still see
        /// it in progress), then end it (``ended()``).
        case postDidFail(Direction, ActionStack.ActionFailure)
        /// An asynchronous group: it has ended; its body's error is passed on.
        case ended
    }

    /// The rollback is over (`rollback` says how far it restored the document; `failed`: the
    /// action that failed and its error, for an undo or redo). A rollback that failed, unless
    /// everything was removed meanwhile, leaves the step broken. A group ends here.
    mutating func rolledBack(
        _ rollback: ActionStack.Rollback, failed: (index: Int, error: any Error)
    ) -> RolledBackAction {
        guard let step = inFlight, let direction = step.direction else {
            ended()
            return .ended
        }
        let failure = ActionStack.ActionFailure(
            isUndo: direction == .undo, stepName: step.stepName, actionIndex: failed.index,
            actionCount: step.pending.count, targetType: step.failedTargetType, underlying: failed.error,
            rollback: rollback, reachedPosition: nil)
        if case .failed = rollback.code, !step.removedAll {
            broken = BrokenMark(serial: step.serial, isUndo: direction == .undo, failure: failure)
        }
        return .postDidFail(direction, failure)
    }

    /// The step in flight has ended, after its did- or did-fail notification: the machine is idle.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func ended() {
        if case .performing = state {
            state = .idle
            return
        }
        if let step = inFlight {
            sawNewChangeInLastStep = step.sawNewChange
            inFlight = nil
        }
        state = .idle
    }

    // MARK: Events: what happens to the step in flight

    /// A change was recorded by another task while an awaited step is in flight: the step notes
    /// it (its redo future ends when it settles, and a jump stops after it), and the requests
    /// waiting, which meant an older state, are to be cancelled (returned).
    ///
    /// - Complexity: O(w) for the w waiting requests.
    mutating func newChangeRecorded() -> [ActionStack.OperationRequest] {
        guard let step = inFlight else { return [] }
        step.sawNewChange = true
        return queue.removeAllWaiting()
    }

    /// `removeAllActions(withTarget:)` is about to remove the actions of `target`: what the step's
    /// handlers register for it from now on is dropped too.
    mutating func targetRemoved(_ target: AnyObject) {
        inFlight?.removedTargets.append(WeakTarget(object: target))
    }

    /// `removeAllActions(withTarget:)` removed the actions on `box` from the history: the step in
    /// flight skips those it has not run, and forgets those it built. Returns the step whose sides
    /// (`built`, `bin`) the stack compacts likewise; nil when none is in flight.
    ///
    /// - Complexity: O(n) for the n actions the step built.
    mutating func boxRemoved(_ box: TargetBox) -> StepInFlight? {
        guard let step = inFlight else { return nil }
        step.removedBoxes.append(ObjectIdentifier(box))
        step.forgetBuiltActions { $0.isOn(box) }
        return step
    }

    /// What the stack does when `removeAllActions()` is called while awaited work is under way.
    struct EverythingRemovedAction {
        /// The waiting requests, to cancel.
        var cancel: [ActionStack.OperationRequest]
        /// The step in flight, whose `built` and `bin` the stack empties (each reopened when it was
        /// open); nil when none is.
        var step: StepInFlight?
    }

    /// `removeAllActions()`: the waiting requests are cancelled; the step in flight goes on to its
    /// end, and nothing it touched survives (its opposite step is emptied now, and what it builds
    /// later is dropped when it settles). A broken step goes with the history.
    ///
    /// - Complexity: O(w + n) for the w waiting requests and the n actions the step built.
    mutating func everythingRemoved() -> EverythingRemovedAction {
        let cancel = queue.removeAllWaiting()
        broken = nil
        guard let step = inFlight else { return EverythingRemovedAction(cancel: cancel, step: nil) }
        step.removedAll = true
        step.rollbackAction = nil
        step.forgetBuiltActions { _ in true }
        return EverythingRemovedAction(cancel: cancel, step: step)
    }

    /// A clean mark was made while the step's actions were running (`mark`, a state of its own,
    /// and the state the document was in before it): the document leaves it when the step settles.
    mutating func markedCleanMidway(_ mark: (mark: StateID, before: StateID)) {
        inFlight?.midwayMarks.append(mark)
    }

    // MARK: Events: the broken step

    /// The broken step is discarded, or lifted for a retry that is being admitted (returned).
    @discardableResult
    mutating func liftBrokenMark() -> BrokenMark? {
        defer { broken = nil }
        return broken
    }

    /// A step is broken (again): `mark` says where and why.
    mutating func markBroken(_ mark: BrokenMark) {
        broken = mark
    }

    // MARK: Events: requests

    /// What the stack does with a request it asked the machine to admit.
    enum AdmitAction {
        /// It holds the turn now.
        case runs
        /// It waits in the queue.
        case waits
        /// Refused: report `misuse` and fail the request with the error.
        case refused(ActionStack.Misuse)
        /// Refused: the stack is broken (the misuse is ``ActionStack/Misuse/stepIsBroken(_:)``).
        case broken
        /// Dropped by the ``ActionStack/busyPolicy``.
        case dropped(ActionStack.DropReason)
    }

    /// A request for `operation` asks for the turn. It is refused when the current task is the
    /// awaited step's own (it would wait for itself) unless `allowed` (a request started for a
    /// synchronous call, which nobody awaits in the caller's task), and, unless it is a group, while
    /// a step is broken. `quietChain`: the chain of the awaiting task, whose own calls are not heard
    /// from the request's turn on.
    ///
    /// - Complexity: O(1) amortized.
    mutating func admit(
        _ request: ActionStack.OperationRequest, _ operation: ActionStack.OperationKey,
        fromAnOperationsTask allowed: Bool, quietChain: UInt64?
    ) -> AdmitAction {
        usesAwaitedSteps = true
        if !allowed && stepOfCurrentTask() != nil { return .refused(.awaitsOwnOperation(operation.reported)) }
        if broken != nil && request.kind != .group { return .broken }
        switch queue.admit(request) {
        case .runs:
            if let quietChain { quietRequest = QuietRequest(chain: quietChain) }
            return .runs
        case .waits: return .waits
        case .dropped(let reason): return .dropped(reason)
        }
    }

    /// A waiting request left the queue (cancelled while it waited).
    mutating func leaveQueue(_ request: ActionStack.OperationRequest) {
        queue.remove(request)
    }

    /// The waiting requests, taken out of the queue for the stack to cancel.
    mutating func removeAllWaiting() -> [ActionStack.OperationRequest] {
        queue.removeAllWaiting()
    }

    /// The request holding the turn is ending: returns the waiting requests to cancel (every one,
    /// when a step is broken). The stack then applies what waited for the request's end, and passes
    /// the turn on (``passTurn()``).
    mutating func requestEnding() -> [ActionStack.OperationRequest] {
        quietRequest = nil
        return broken != nil ? queue.removeAllWaiting() : []
    }

    /// The next request waiting (if any) gets the turn.
    mutating func passTurn() {
        _ = queue.finishRunning()
    }

    /// Sets the ``ActionStack/busyPolicy`` for requests made from now on.
    mutating func setBusyPolicy(_ policy: ActionStack.BusyPolicy) {
        usesAwaitedSteps = true
        queue.policy = policy
    }

    /// The slot through which an asynchronous action hands its work to the runner, made on first
    /// use.
    mutating func awaitedActionSlot() -> AsyncSlot {
        usesAwaitedSteps = true
        if let slot { return slot }
        let made = AsyncSlot()
        slot = made
        return made
    }

    private static func typeName(of box: TargetBox) -> String {
        box.object.map { String(reflecting: type(of: $0)) } ?? "a freed target"
    }
}

@available(*, unavailable) extension StepMachine: Sendable {}
