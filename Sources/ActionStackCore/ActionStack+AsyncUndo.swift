// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import Foundation

// MARK: - Asynchronous actions and operations

extension ActionStack {
    /// Registers `handler`, an asynchronous inverse of a change made to `target`: undoing the step
    /// awaits it (a server, a database, a file on another machine).
    ///
    /// The handler runs in the isolation of whoever performs the operation: awaited with
    /// ``performUndo(isolation:)`` from the main actor, it runs on the main actor, so a `@MainActor`
    /// model can be used in it directly, with no `Sendable` requirement. Like a synchronous handler,
    /// it registers the opposite change (with ``registerUndo(withTarget:handler:)`` or this method),
    /// before or after its own `await`s: the stack tells the operation's registrations apart from
    /// those of every other task (see <doc:UndoingThroughAServerOrADatabase>). If it throws, the
    /// step stays where it was and what the step's other actions did is rolled back.
    ///
    /// A step may hold synchronous and asynchronous actions together; they run one at a time, in
    /// reverse registration order, never concurrently. Undoing a step with an asynchronous action
    /// is an asynchronous operation: await ``performUndo(isolation:)``, or call ``undo()`` on the main
    /// thread, which starts the operation and returns (see ``startedRequest``).
    ///
    /// ```swift
    /// @MainActor final class Note {
    ///     let stack = ActionStack()
    ///     var text = ""
    ///     func save(_ new: String) async throws {
    ///         let old = text
    ///         try await server.write(new)
    ///         text = new
    ///         stack.registerAsyncUndo(withTarget: self) { note in try await note.save(old) }
    ///     }
    /// }
    /// ```
    ///
    /// Everything else is as for ``registerUndo(withTarget:handler:)``: the target is held weakly,
    /// registration while disabled does nothing, and a registration outside an operation empties
    /// the redo stack.
    ///
    /// - Parameters:
    ///   - target: The object the change was made to; held weakly.
    ///   - handler: The asynchronous inverse of the change, called with `target`.
    /// - Complexity: O(1) amortized, plus two small allocations (the stored handler and, when it
    ///   runs, its work).
    public func registerAsyncUndo<TargetType: AnyObject>(
        withTarget target: TargetType,
        handler: nonisolated(nonsending) @escaping (TargetType) async throws -> Void
    ) {
        let slot = steps.awaitedActionSlot()
        registerAsync(target) { object in
            let target = unsafeDowncast(object, to: TargetType.self)
            slot.work = { try await handler(target) }
        }
    }

    /// Registers `handler`, an asynchronous inverse of a change made to the actor `target`, run
    /// isolated to the actor: it can use the actor's synchronous members without hopping. The
    /// handler is `@Sendable` and the stack is not, so it registers its own inverse (the redo) by
    /// calling back into the isolation that uses the stack, the main actor here.
    ///
    /// ```swift
    /// actor Store {
    ///     var rows: [String] = []
    ///     func append(_ row: String) { rows.append(row) }
    /// }
    ///
    /// // Each inverse registers its own inverse, so undoing registers the redo.
    /// @MainActor func registerRemoval(from store: Store) {
    ///     stack.registerAsyncUndo(withActor: store) { store in
    ///         let row = store.rows.removeLast()   // isolated to the store
    ///         await registerAppend(row, to: store)
    ///     }
    /// }
    ///
    /// @MainActor func registerAppend(_ row: String, to store: Store) {
    ///     stack.registerAsyncUndo(withActor: store) { store in
    ///         store.rows.append(row)
    ///         await registerRemoval(from: store)
    ///     }
    /// }
    ///
    /// let store = Store()
    /// await store.append("Ada")
    /// registerRemoval(from: store)
    /// try await stack.performUndo()
    /// print(await store.rows.isEmpty)   // true
    /// try await stack.performRedo()
    /// print(await store.rows)           // ["Ada"]
    /// ```
    ///
    /// Otherwise as ``registerAsyncUndo(withTarget:handler:)``.
    ///
    /// - Complexity: O(1) amortized, plus two small allocations.
    public func registerAsyncUndo<TargetType: Actor>(
        withActor target: TargetType,
        handler: @escaping @Sendable (isolated TargetType) async throws -> Void
    ) {
        let slot = steps.awaitedActionSlot()
        registerAsync(target) { object in
            let target = unsafeDowncast(object, to: TargetType.self)
            slot.work = { try await handler(target) }
        }
    }

    /// Undoes the newest step and waits until it has settled: the awaitable form of ``undo()``,
    /// for steps whose actions await (and for any other step: a synchronous step runs as ``undo()``
    /// would, in this task). As ``undo()``, it first closes the one open group, which is trimmed to
    /// ``levelsOfUndo`` and ``maximumCost`` at once, as ``undo()`` trims it (a limit set while the
    /// request runs waits until it ends): it keeps what ``undo()`` keeps.
    ///
    /// Requests run one at a time, in request order: made while another operation is in flight,
    /// it waits in a queue (see ``busyPolicy``) and is resolved when it starts, so two calls undo
    /// two steps. The step stays on the undo stack until every action has succeeded. If an action
    /// throws (or the awaiting task is cancelled), what the step's other actions did is rolled back,
    /// the step stays where it was, ``didFailUndoChangeNotification`` pairs with the
    /// will-notification, and the error says which action failed and whether the rollback restored
    /// the document. ``isUndoing`` is `true` for the operation's task from the will-notification
    /// to the did- or fail-notification, across its suspension points, in its handlers and in the
    /// observers of those notifications.
    ///
    /// Cancelling the awaiting task while the request waits for its turn (or before it asks) ends
    /// it there: it throws ``OperationError/cancelled(_:)`` (``CancellationReason/task``) at once and
    /// nothing ran. Cancelled while its own step runs, the step fails and rolls back (the rollback
    /// runs in a new task, so that inverses that honour cancellation still complete), and the call
    /// returns once the rollback has ended: a step is never left half applied. State observers hear
    /// the operation when it starts and when it has ended (see <doc:NotificationsAndObservation>).
    ///
    /// ```swift
    /// struct Offline: Error {}
    /// stack.registerAsyncUndo(withTarget: document) { _ in throw Offline() }
    /// do {
    ///     try await stack.performUndo()
    /// } catch {
    ///     // OperationError is extensible: read the failure through its accessor.
    ///     if let failure = error.actionFailure {
    ///         print(failure.actionIndex, failure.underlying is Offline)   // 0 true
    ///         print(failure.rollback)   // the rollback restored the document
    ///     } else {
    ///         print(error)
    ///     }
    /// }
    /// print(stack.canUndo)   // true
    /// ```
    ///
    /// Call it from the isolation that uses the stack (the main actor, or the actor that owns the
    /// stack); the handlers run there. Awaited by a handler of the operation in flight on the same
    /// stack it would wait for itself: that is the misuse ``Misuse/awaitsOwnOperation(_:)``.
    ///
    /// - Parameter isolation: The caller's isolation, where the handlers run; leave the default.
    /// - Returns: Whether a step was undone (`false`: nothing to undo).
    /// - Throws: ``OperationError``: nothing ran (cancelled, dropped, a broken step, a misuse), or
    ///   an action failed.
    /// - Complexity: O(n) for the n actions of the step, plus what its handlers await; no task hop
    ///   (but for a cancelled task's rollback).
    @discardableResult
    public func performUndo(isolation: isolated (any Actor)? = #isolation) async throws(OperationError) -> Bool {
        try await submit(.undo, .undo, isolation: isolation).get()
    }

    /// Redoes the newest redo step and waits until it has settled: the awaitable form of
    /// ``redo()``, the mirror image of ``performUndo(isolation:)``. The step it builds is trimmed
    /// to ``levelsOfUndo`` and ``maximumCost`` when the request ends (nothing is trimmed while a
    /// request holds the turn), where ``redo()`` trims before its did-notification: observers of
    /// ``didRedoChangeNotification`` may see one step over the limit; state observers
    /// (``observe(_:)``) and every call after it see the stack trimmed.
    ///
    /// - Parameter isolation: The caller's isolation, where the handlers run; leave the default.
    /// - Returns: Whether a step was redone.
    /// - Throws: ``OperationError``.
    /// - Complexity: O(n) for the n actions of the step, plus what its handlers await.
    @discardableResult
    public func performRedo(isolation: isolated (any Actor)? = #isolation) async throws(OperationError) -> Bool {
        try await submit(.redo, .redo, isolation: isolation).get()
    }

    /// Undoes or redoes step by step until the history reaches `position`, and waits until it has
    /// settled: the awaitable form of ``jump(to:)``, queued as one request.
    ///
    /// The number of steps is resolved when the request starts. Each step posts its own will- and
    /// did- (or fail-) notification, and completes or rolls back on its own: if one fails, the jump
    /// stops at the last position it reached, which is where the stack is, and the error says it
    /// (``ActionFailure/reachedPosition``). A new change from another task ends the jump after the
    /// step in flight. The state observers hear the jump as one move: when its first step starts
    /// and when it has ended, never a state per step. Limits set meanwhile (``levelsOfUndo``,
    /// ``maximumCost``) wait until it has ended, so they never cut it short; the open group it
    /// closes first, as ``jump(to:)`` does, is trimmed to them at once, as ``jump(to:)`` trims it,
    /// so the jump counts its steps in the history ``jump(to:)`` counts them in.
    ///
    /// - Parameters:
    ///   - position: The position to reach (see ``historyPosition``); clamped.
    ///   - isolation: The caller's isolation, where the handlers run; leave the default.
    /// - Returns: Whether the history moved.
    /// - Throws: ``OperationError``.
    /// - Complexity: O(n) for the n actions of the steps, plus O(t) per step for t distinct targets.
    @discardableResult
    public func performJump(
        to position: Int, isolation: isolated (any Actor)? = #isolation
    ) async throws(OperationError) -> Bool {
        try await submit(.jump(to: position), .jump, isolation: isolation).get()
    }

    /// Whether an asynchronous operation holds the turn (in flight, starting or settling).
    ///
    /// An Edit menu may disable itself while it is `true`, or keep its items enabled and let
    /// presses queue (see ``busyPolicy``). Also in ``State/isBusy``.
    ///
    /// - Complexity: O(1).
    public var isBusy: Bool { steps.isBusy }

    /// The number of requests waiting behind the operation in flight. Also in
    /// ``State/pendingRequestCount``.
    ///
    /// - Complexity: O(1).
    public var pendingRequestCount: Int { steps.queue.pendingCount }

    /// What the stack does with an undo, redo or jump requested while an operation is in flight:
    /// queue it, up to a limit (the default, ``BusyPolicy/default``: 64), or drop it.
    ///
    /// Changing it affects requests made afterwards; requests already waiting stay.
    ///
    /// - Complexity: O(1).
    public var busyPolicy: BusyPolicy {
        get { steps.queue.policy }
        set { steps.setBusyPolicy(newValue) }
    }

    /// Cancels every request waiting behind the operation in flight: each awaiter gets
    /// ``OperationError/cancelled(_:)`` (``CancellationReason/cancelPendingRequests``). The operation
    /// in flight goes on.
    ///
    /// - Complexity: O(w) for the w waiting requests.
    public func cancelPendingRequests() {
        guard steps.usesAwaitedSteps else { return }
        enterCall()
        defer { leaveCall() }
        for request in steps.removeAllWaiting() { request.cancel(.cancelPendingRequests) }
    }

    /// The request that the last synchronous ``undo()``, ``redo()`` or ``jump(to:)`` started because
    /// it reached a step with an asynchronous action (or an operation was in flight); await its
    /// ``OperationRequest/value()`` to know how it ended.
    ///
    /// - Complexity: O(1).
    public var startedRequest: OperationRequest? { steps.startedRequest }

    /// The step whose rollback failed, if any: the document is partly changed, and the stack cannot
    /// tell how. Until the app calls ``discardBrokenStep()`` or ``retryBrokenStep(isolation:)``,
    /// undo, redo and jumps report the misuse ``Misuse/stepIsBroken(_:)`` (and the awaitable forms
    /// throw ``OperationError/stackBroken``), and requests that were waiting are cancelled.
    /// Registration goes on: new changes are recorded.
    ///
    /// - Complexity: O(1).
    public var brokenStep: BrokenStep? {
        guard let mark = steps.broken else { return nil }
        return BrokenStep(isUndo: mark.isUndo, stepName: mark.failure.stepName, failure: mark.failure)
    }

    /// Gives up on the broken step: it leaves the history, and the document counts as changed (it is
    /// not clean). Does nothing when no step is broken.
    ///
    /// - Complexity: O(n + k) for the n actions of the step and the k steps above it.
    public func discardBrokenStep() {
        guard let mark = steps.broken else { return }
        enterCall()
        defer { leaveCall() }
        steps.liftBrokenMark()
        history.removeStep(serial: mark.serial, from: mark.isUndo ? undoSide : redoSide)
        if history.tree != nil { history.resyncTree() }
        history.documentChanged()
    }

    /// Tries the broken step's operation again (an undo when it was being undone, a redo when it
    /// was being redone), as a new request; when it succeeds the stack is whole again, when it
    /// fails it reports as ``performUndo(isolation:)`` does (and the step may be broken again).
    ///
    /// The retry runs the broken step only when it is the step its operation performs next, when
    /// the request is made and when it starts. Once newer changes are recorded above it (or a group
    /// is open above it), running it again would skip them: the retry runs nothing, returns `false`,
    /// and the step stays broken; ``discardBrokenStep()`` is then the way on.
    ///
    /// - Parameter isolation: The caller's isolation, where the handlers run; leave the default.
    /// - Returns: Whether a step ran; `false` when no step is broken, or when the broken step is not
    ///   the next one.
    /// - Throws: ``OperationError``.
    @discardableResult
    public func retryBrokenStep(isolation: isolated (any Actor)? = #isolation) async throws(OperationError) -> Bool {
        guard let mark = steps.broken, brokenStepIsNext(mark) else { return false }
        let operation: OperationKey = mark.isUndo ? .undo : .redo
        let request = OperationRequest(mark.isUndo ? .undo : .redo)
        let chain = OperationChain(id: RunNumbers.next(), parent: OperationChain.current)
        let result = await OperationChain.$current.withValue(chain) { () async -> Result<Bool, OperationError> in
            // The mark is lifted only for a request that gets the turn: a refused one leaves it.
            steps.liftBrokenMark()
            if let refusal = admit(request, operation, quietChain: chain.id) {
                steps.markBroken(mark)
                request.finish(.failure(refusal))
                return .failure(refusal)
            }
            return await runRetry(request, of: mark, requestChain: chain.id, isolation: isolation)
        }
        return try result.get()
    }

    /// The retry of the broken step `mark`, admitted.
    private func runRetry(
        _ request: OperationRequest, of mark: BrokenMark, requestChain: UInt64, isolation: isolated (any Actor)?
    ) async -> Result<Bool, OperationError> {
        return await runAdmitted(
            request, isolation: isolation, requestChain: requestChain,
            starting: {
                // Newer changes came while the retry waited for its turn: it runs nothing.
                if brokenStepIsNext(mark) { return nil }
                steps.markBroken(mark)
                return .success(false)
            },
            settled: { result in
                // Before the turn passes on: the requests waiting behind a failed retry are
                // cancelled, as behind any operation that leaves a broken step.
                guard case .failure(let error) = result, let failure = error.actionFailure, steps.broken == nil,
                    (mark.isUndo ? undoSide : redoSide).locateStep(serial: mark.serial) != nil
                else { return }
                // The document was partly changed before the retry, and still is: the step stays
                // broken.
                enterCall()
                steps.markBroken(BrokenMark(serial: mark.serial, isUndo: mark.isUndo, failure: failure))
                history.documentChanged()
                leaveCall()
            }
        )
    }

    /// Whether the broken step is the one its operation performs next: no newer step, and no open
    /// group, above it (freed steps on top are dropped first, as the operation would drop them).
    private func brokenStepIsNext(_ mark: BrokenMark) -> Bool {
        enterCall()
        defer { leaveCall() }
        let side = mark.isUndo ? undoSide : redoSide
        guard side.frames.isEmpty else { return false }
        if mayDropFreedSteps { dropDeadSteps(atTopOf: side) }
        return side.steps.last?.serial == mark.serial
    }

    /// Posted after an asynchronous undo whose action failed, in place of
    /// ``didUndoChangeNotification``: every ``willUndoChangeNotification`` is followed by one or the
    /// other. Its `userInfo` holds the ``OperationError`` under ``operationErrorUserInfoKey``.
    public static let didFailUndoChangeNotification = Notification.Name("ActionStackDidFailUndoChangeNotification")

    /// Posted after an asynchronous redo whose action failed, in place of
    /// ``didRedoChangeNotification``.
    public static let didFailRedoChangeNotification = Notification.Name("ActionStackDidFailRedoChangeNotification")

    /// The `userInfo` key of the ``OperationError`` in ``didFailUndoChangeNotification`` and
    /// ``didFailRedoChangeNotification``.
    public static let operationErrorUserInfoKey = "ActionStackOperationError"
}

// MARK: - Internals: registration

/// Whether the caller runs on the main queue, where the main actor's jobs run (on Linux a program
/// that calls `dispatchMain()` runs them on a thread that is not the main thread).
enum MainQueue {
    private static let key = DispatchSpecificKey<UInt8>()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return true
    }()

    static var isCurrent: Bool {
        if Thread.isMainThread { return true }
        _ = marked
        return DispatchQueue.getSpecific(key: key) != nil
    }
}

/// A value handed to another task that the caller guarantees is used in one isolation at a time.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
}

extension ActionStack {
    /// Registers an asynchronous action's stored handler and marks the step being recorded as
    /// holding one.
    func registerAsync(_ target: AnyObject, commandKey: String? = nil, _ handler: @escaping (AnyObject) -> Void) {
        enterCall()
        defer { leaveCall() }
        guard registration.isEnabled else { return }
        if refusesReentrantCall(.registerUndo) { return }
        let side = currentSide
        let end = side.end
        let opened = register(
            target, handler, cost: 0, key: nil, window: nil, misuseOperation: .registerUndo, commandKey: commandKey)
        // Marked only when recorded (not dropped for a target removed during the operation).
        if !side.frames.isEmpty && side.end != end {
            side.updateFrameMetadata { $0.holdsAsyncActions = true }
        }
        if opened { post(ActionStack.didOpenUndoGroupNotification) }
    }

    /// A change recorded by another task while an operation is in flight.
    func noteNewChangeDuringOperation() {
        for request in steps.newChangeRecorded() { request.cancel(.newChange) }
    }

    // MARK: Internals: synchronous calls that start an operation

    /// For a synchronous `undo()`, `redo()` or `jump(to:)`, after its refusal checks: whether the
    /// call belongs to the asynchronous machinery (a broken step, an operation in flight, or a step
    /// with an asynchronous action on the way), in which case it has been handled.
    func routesToAsyncOperation(_ kind: OperationRequest.Kind, _ operation: OperationKey) -> Bool {
        guard steps.usesAwaitedSteps else { return false }
        if steps.broken != nil {
            report(.stepIsBroken(operation.reported))
            return true
        }
        guard steps.isBusy || pathHoldsAsyncActions(kind) else { return false }
        startFromSynchronousCall(kind, operation)
        return true
    }

    /// For `undo()`, once it has closed the open group: whether the step it now undoes holds an
    /// asynchronous action, in which case the undo is started as a request and has been handled. The
    /// group, listed first when `undo()` decided, may be gone once closed (empty, or holding only
    /// actions whose targets were freed), leaving the step below it next.
    func routesAfterClosingTheOpenGroup() -> Bool {
        guard nextStep(of: undoSide, noticing: mayDropFreedSteps)?.metadata?.holdsAsyncActions == true else {
            return false
        }
        startFromSynchronousCall(.undo, .undo)
        return true
    }

    /// Whether a step that `kind` would perform holds an asynchronous action.
    ///
    /// - Complexity: O(1) for an undo or redo; O(k) for a jump over k steps.
    private func pathHoldsAsyncActions(_ kind: OperationRequest.Kind) -> Bool {
        switch kind.code {
        case .undo:
            return nextStep(of: undoSide, noticing: mayDropFreedSteps)?.metadata?.holdsAsyncActions == true
        case .redo:
            return nextStep(of: redoSide, noticing: mayDropFreedSteps)?.metadata?.holdsAsyncActions == true
        case .group:
            return false
        case .jump(let position):
            if undoSide.frameMetadata?.holdsAsyncActions == true { return true }
            // The jump sweeps freed targets first, which moves the positions: count after it.
            history.sweepFreedTargets()
            let current = undoSide.closedCount + (openStepIsListed ? 1 : 0)
            let side = position < current ? undoSide : redoSide
            let count = Swift.min(abs(position - current), side.steps.count)
            for offset in 0..<count where side.steps[side.steps.count - 1 - offset].metadata?.holdsAsyncActions == true
            {
                return true
            }
            return false
        case .jumpToNode(let id):
            if undoSide.frameMetadata?.holdsAsyncActions == true { return true }
            guard let target = NodeNumber(exactly: id.sequence) else { return false }
            return history.stepsOnTheWay(to: target)?.contains { $0.metadata?.holdsAsyncActions == true } == true
        case .timeMove(let move):
            if undoSide.frameMetadata?.holdsAsyncActions == true { return true }
            guard let tree = history.tree else { return false }
            let target = move.target(in: tree, from: history.currentNodeNumber)
            return history.stepsOnTheWay(to: target)?.contains { $0.metadata?.holdsAsyncActions == true } == true
        }
    }

    /// Starts `kind` as a request run by a new task on the main actor, for a synchronous call made on
    /// the main thread (an Edit menu); elsewhere reports ``Misuse/needsAwait(_:)``.
    func startFromSynchronousCall(_ kind: OperationRequest.Kind, _ operation: OperationKey) {
        guard MainQueue.isCurrent else {
            report(.needsAwait(operation.reported))
            return
        }
        let request = OperationRequest(kind)
        steps.startedRequest = request
        // Nobody awaits this request in the caller's task, so it may wait behind an operation or a
        // group that the caller's task belongs to (an asynchronous group's body pressing Undo).
        if let refusal = admit(request, operation, fromAnOperationsTask: true) {
            request.finish(.failure(refusal))
            return
        }
        let stack = UnsafeTransfer(value: self)
        // The task that runs it belongs to no operation, whatever the caller's task does.
        OperationChain.$current.withValue(nil) {
            MainActor.assumeIsolated {
                _ = Task { @MainActor in
                    _ = await stack.value.runAdmitted(request, isolation: MainActor.shared)
                }
            }
        }
    }

    // MARK: Internals: the queue

    /// Submits a request and waits for it to settle.
    func submit(
        _ kind: OperationRequest.Kind, _ operation: OperationKey, isolation: isolated (any Actor)?
    ) async -> Result<Bool, OperationError> {
        let request = OperationRequest(kind)
        let chain = OperationChain(id: RunNumbers.next(), parent: OperationChain.current)
        return await OperationChain.$current.withValue(chain) { () async -> Result<Bool, OperationError> in
            if let refusal = admit(request, operation, quietChain: chain.id) {
                request.finish(.failure(refusal))
                return .failure(refusal)
            }
            return await runAdmitted(request, isolation: isolation, requestChain: chain.id)
        }
    }

    /// Admits a request to the queue; returns why not when it is refused. `quietChain`: the chain
    /// of the awaiting task, whose own calls are not heard from the request's turn on (see
    /// `callIsHeard`); a request that gets the turn at once is heard when its first step starts,
    /// not when it is made.
    func admit(
        _ request: OperationRequest, _ operation: OperationKey, fromAnOperationsTask allowed: Bool = false,
        quietChain: UInt64? = nil
    ) -> OperationError? {
        enterCall()
        defer { leaveCall() }
        switch steps.admit(request, operation, fromAnOperationsTask: allowed, quietChain: quietChain) {
        case .runs, .waits:
            return nil
        case .refused(let misuse):
            report(misuse)
            return .misuse(misuse)
        case .broken:
            report(.stepIsBroken(operation.reported))
            return .stackBroken
        case .dropped(let reason):
            return .dropped(reason)
        }
    }

    /// Waits for the request's turn, runs it, finishes it and passes the turn on. `starting` runs
    /// when the turn comes and may end the request there with a result; `settled` runs between the
    /// operation's end and the hand-off.
    ///
    /// From its turn to its end the request runs in a task-local chain of its own, and its own
    /// calls (its steps, its handlers between their awaits, the tasks they start) are not heard by
    /// the state observers one by one: see `callIsHeard`.
    func runAdmitted(
        _ request: OperationRequest, isolation: isolated (any Actor)?, requestChain: UInt64? = nil,
        starting: () -> Result<Bool, OperationError>? = { nil },
        settled: (Result<Bool, OperationError>) -> Void = { _ in }
    ) async -> Result<Bool, OperationError> {
        if let reason = await waitForTurn(request, isolation: isolation) {
            request.finish(.failure(.cancelled(reason)))
            return .failure(.cancelled(reason))
        }
        guard let requestChain else {
            let chain = OperationChain(id: RunNumbers.next(), parent: OperationChain.current)
            return await OperationChain.$current.withValue(chain) { () async -> Result<Bool, OperationError> in
                await runTurn(
                    request, requestChain: chain.id, isolation: isolation, starting: starting, settled: settled)
            }
        }
        return await runTurn(
            request, requestChain: requestChain, isolation: isolation, starting: starting, settled: settled)
    }

    /// The request holds the turn, in `requestChain`: runs it, finishes it and passes the turn on.
    private func runTurn(
        _ request: OperationRequest, requestChain: UInt64, isolation: isolated (any Actor)?,
        starting: () -> Result<Bool, OperationError>?,
        settled: (Result<Bool, OperationError>) -> Void
    ) async -> Result<Bool, OperationError> {
        if steps.quietRequest?.chain != requestChain {
            steps.quietRequest = QuietRequest(chain: requestChain)
        }
        let result: Result<Bool, OperationError>
        if Task.isCancelled {
            result = .failure(.cancelled(.task))
        } else if let early = starting() {
            result = early
        } else {
            switch request.kind.code {
            case .undo: result = await performStep(.undo, closingOpenGroup: true, isolation: isolation)
            case .redo: result = await performStep(.redo, closingOpenGroup: true, isolation: isolation)
            case .jump(let position): result = await performJumpSteps(to: position, isolation: isolation)
            case .jumpToNode(let node): result = await performTreeJumpSteps(to: .node(node), isolation: isolation)
            case .timeMove(let move): result = await performTreeJumpSteps(to: .timeMove(move), isolation: isolation)
            case .group: result = .success(false)
            }
        }
        settled(result)
        request.finish(result)
        handOff()
        return result
    }

    /// Waits until the request holds the turn; returns why not when it was cancelled meanwhile (it
    /// has then left the queue).
    func waitForTurn(_ request: OperationRequest, isolation: isolated (any Actor)?) async -> CancellationReason? {
        if !request.isGranted {
            await withTaskCancellationHandler {
                await withCheckedContinuation { request.park($0) }
            } onCancel: {
                request.cancel(.task)
            }
        }
        guard let reason = request.cancellation else { return nil }
        enterCall()
        steps.leaveQueue(request)
        leaveCall()
        return reason
    }

    /// The running request finished: what waited for its end is done (the limits, pruning and a
    /// change of shape set meanwhile; its state, for the observers), then the next one waiting gets
    /// the turn (or, after a broken step, every waiting request is cancelled).
    func handOff() {
        enterCall()
        defer { leaveCall() }
        for request in steps.requestEnding() { request.cancel(.brokenStep) }
        // While the request still holds the turn, so that nothing runs between its end and the trim.
        applyLimitsThatWaited()
        steps.passTurn()
    }

    // MARK: Internals: one step

    /// Performs the newest step of one side as an awaited step.
    ///
    /// The step, from its will-notification to its did- or fail-notification, runs in the
    /// operation's task-local chain: the observers of its notifications, as its handlers, read
    /// ``isUndoing`` or ``isRedoing`` as `true`.
    func performStep(
        _ direction: Direction, closingOpenGroup: Bool, isolation: isolated (any Actor)?
    ) async -> Result<Bool, OperationError> {
        let chainID = RunNumbers.next()
        let chain = OperationChain(id: chainID, parent: OperationChain.current)
        let started = OperationChain.$current.withValue(chain) {
            startStep(direction, closingOpenGroup: closingOpenGroup, chainID: chainID)
        }
        let step: StepInFlight
        switch started {
        case .failure(let error): return .failure(error)
        case .success(nil): return .success(false)
        case .success(let started?): step = started
        }
        // Outside the step's chain: the state observers are not its handlers.
        publishRequestStart()
        return await OperationChain.$current.withValue(chain) { () async -> Result<Bool, OperationError> in
            if let failed = await runActions(of: step, isolation: isolation) {
                let rollback = await rollBack(step, failedIndex: failed.index, isolation: isolation)
                return .failure(.actionFailed(settleFailure(step, failed, rollback: rollback)))
            }
            settleSuccess(step)
            return .success(true)
        }
    }

    /// The first step of the request in progress has started: the observers hear it now, once
    /// (the step in flight, the direction); the request's own calls are not heard again until it
    /// ends (see `callIsHeard`).
    private func publishRequestStart() {
        guard let quiet = steps.quietRequest, !quiet.startHeard else { return }
        steps.quietRequest = nil
        enterCall()
        leaveCall()
        steps.quietRequest = QuietRequest(chain: quiet.chain, startHeard: true)
    }

    /// Decides the step, copies its actions out, begins it in the step machine (which posts the
    /// will-notification) and opens the opposite step. The step stays on its side.
    private func startStep(
        _ direction: Direction, closingOpenGroup: Bool, chainID: UInt64
    ) -> Result<StepInFlight?, OperationError> {
        enterCall()
        defer { leaveCall() }
        let undoing = direction == .undo
        let operation: OperationKey = undoing ? .undo : .redo
        if steps.broken != nil {
            report(.stepIsBroken(operation.reported))
            return .failure(.stackBroken)
        }
        postCheckpoint()
        if closingOpenGroup {
            if let misuse = refusesMoveWithNestedGroupsOpen(operation.reported) { return .failure(.misuse(misuse)) }
            activities.push(undoing ? .preparingUndo : .preparingRedo)
            let closed = closeTheOpenGroupBeforeMoving()
            activities.pop()
            // Trimmed now, as the synchronous close trims it: the group is a change made before
            // the request moved anything (a limit set while it runs still waits for its end).
            if closed { trimAfterClosingTheOpenGroup() }
        }
        history.endCoalescing()
        let source = undoing ? undoSide : redoSide
        dropDeadSteps(atTopOf: source)
        guard source.frames.isEmpty, let newest = source.steps.last else { return .success(nil) }

        let end = source.openStart
        var pending: [PendingAction] = []
        pending.reserveCapacity(newest.actionCount)
        for index in (end - newest.actionCount)..<end {
            let action = source.action(at: index)
            pending.append(PendingAction(action: action, box: action.box))
        }
        let step = StepInFlight(
            direction: direction, step: newest, stateBefore: history.states.current,
            serialMark: history.nextStepSerial, pending: pending, chainID: chainID)
        carryOut(steps.begin(step))
        // Opened after the will-notification, as a synchronous undo opens it: its observers read
        // the grouping level 0. It carries a copy of the step's metadata (the step stays on its
        // side while it runs), without what belongs to the step performed.
        var carried: StepMetadata?
        if let metadata = newest.metadata {
            let copy = metadata.copy()
            copy.holdsAsyncActions = false
            copy.unseenChanges = []
            if !copy.isEmpty { carried = copy }
        }
        history.openBuiltStep(on: step.built, from: history.states.current, carrying: carried)
        steps.actionsStarted()
        return .success(step)
    }

    /// Runs the step's actions as the step machine hands them out, newest first, one at a time;
    /// returns the first failure.
    private func runActions(
        of step: StepInFlight, isolation: isolated (any Actor)?
    ) async -> (index: Int, error: any Error)? {
        // (In the operation's chain, which `performStep` set.)
        while true {
            switch steps.nextAction(isCancelled: { Task.isCancelled }) {
            case .run(let index, let pending):
                do {
                    let ran = try await perform(pending.action, of: step, isolation: isolation)
                    steps.actionRan(index: index, ran: ran)
                } catch {
                    steps.actionFailed(index: index)
                    return (index, error)
                }
            case .fail(let index):
                return (index, CancellationError())
            case .finish:
                return nil
            }
        }
    }

    /// Runs one action: its stored handler synchronously (a synchronous action is then done), then
    /// the work an asynchronous action left. Returns whether it ran (its target was alive).
    private func perform(
        _ action: Action, of step: StepInFlight, isolation: isolated (any Actor)?
    ) async throws -> Bool {
        let slot = steps.awaitedActionSlot()
        _ = slot.take()
        enterCall()
        activities.push(step.phase == .rollingBack ? .rollingBack : step.direction == .undo ? .undoing : .redoing)
        let ran = action.perform()
        activities.pop()
        leaveCall()
        if let work = slot.take() { try await work() }
        return ran
    }

    /// Undoes what the actions that ran registered, newest first, to put the document back; what
    /// those inverses register is thrown away. A cancelled task's rollback runs in a new task on the
    /// same isolation, so that cancellation-aware inverses can still complete.
    func rollBack(
        _ step: StepInFlight, failedIndex: Int, isolation: isolated (any Actor)?
    ) async -> Rollback {
        if Task.isCancelled {
            let transfer = UnsafeTransfer(value: (self, step))
            let task = Task { () async -> UnsafeTransfer<Rollback> in
                let (stack, step) = transfer.value
                return UnsafeTransfer(
                    value: await stack.rollBackNow(step, failedIndex: failedIndex, isolation: isolation))
            }
            return await task.value.value
        }
        return await rollBackNow(step, failedIndex: failedIndex, isolation: isolation)
    }

    func rollBackNow(
        _ run: StepInFlight, failedIndex: Int, isolation: isolated (any Actor)?
    ) async -> Rollback {
        enterCall()
        steps.rollbackBegan()
        let built = run.built
        while built.frames.count > 1 { history.closeNestedFrame(of: built) }
        built.abandonOpenFrames()
        history.openFrame(on: run.bin)
        leaveCall()

        var unrestored = Set<Int>()
        for range in run.ranges where range.ran && range.start == range.end && range.index != failedIndex {
            unrestored.insert(range.index)
        }
        var failure: (index: Int, error: any Error)?
        var lostUnowned = false
        let chain = OperationChain(id: run.chainID, parent: OperationChain.current)
        await OperationChain.$current.withValue(chain) { () async in
            while built.actions.count > 0 {
                let position = built.end - 1
                let owner = run.ranges.last(where: { $0.start <= position && position < $0.end })?.index ?? -1
                let action = built.removeLastAction()
                let box = action.box
                run.rollbackAction = action
                do {
                    let ran = try await perform(action, of: run, isolation: isolation)
                    if !ran {
                        if owner >= 0 { unrestored.insert(owner) } else { lostUnowned = true }
                    }
                } catch {
                    failure = (owner, error)
                }
                // `removeAllActions()` meanwhile forgot every target and let go of this action.
                if run.rollbackAction != nil { history.registry.release(action.unmanagedBox) }
                run.rollbackAction = nil
                withExtendedLifetime(box) {}
                if failure != nil { break }
            }
        }
        enterCall()
        history.emptySide(built)
        history.emptySide(run.bin)
        leaveCall()
        if let failure { return .failed(actionIndex: failure.index, error: failure.error) }
        return unrestored.isEmpty && !lostUnowned ? .restored : .incomplete(unrestoredActions: unrestored.sorted())
    }

    /// The step succeeded: it leaves its side, the opposite step takes its place on the other, and
    /// new changes from other tasks go on top.
    private func settleSuccess(_ run: StepInFlight) {
        enterCall()
        defer { leaveCall() }
        history.leaveMidwayMarks(of: run)
        let built = run.built
        let (builtCount, builtMetadata) = closeBuiltStep(of: run)

        if !run.removedAll {
            let placedRedo = history.finishAwaited(
                run, builtCount: builtCount, builtMetadata: builtMetadata,
                keepsEmptyRedoStep: keepsEmptyRedoSteps, maximumCost: maximumCost,
                restructuringAllowed: mayRestructure)
            // Trimmed as a synchronous redo trims (the request holds the turn: at its end).
            if placedRedo { trimAfterRedo() }
        }
        history.emptySide(built)
        carryOut(steps.finished(), discardable: run.metadata?.isDiscardable ?? false)
    }

    /// Closes what the handlers (or a group's body) left open in the step being built, then the
    /// step itself (``History/closeBuiltStep(on:)``); returns how many actions it holds and its
    /// metadata (none when `removeAllActions()` abandoned its frames meanwhile). Empties the
    /// rollback's bin.
    func closeBuiltStep(of run: StepInFlight) -> (count: Int, metadata: StepMetadata?) {
        let built = run.built
        let closed = built.frames.isEmpty ? (0, nil) : history.closeBuiltStep(on: built)
        history.emptySide(run.bin)
        return closed
    }

    /// An action failed: the step stays; the failure is told.
    private func settleFailure(
        _ run: StepInFlight, _ failed: (index: Int, error: any Error), rollback: Rollback
    ) -> ActionFailure {
        enterCall()
        defer { leaveCall() }
        history.leaveMidwayMarks(of: run)
        // The document is back where the step began, or in a state the history does not know
        // (the step stays, leading from that state).
        history.settleFailedStep(run, restored: rollback.isRestored)
        // The machine makes the failure, and marks the step broken if its rollback failed.
        let settled = steps.rolledBack(rollback, failed: failed)
        history.endRedoFuture(afterNewChangesOf: run, maximumCost: maximumCost, restructuringAllowed: mayRestructure)
        guard let failure = carryOut(settled) else {
            preconditionFailure("an undo or redo settled as a group")
        }
        return failure
    }

    // MARK: Internals: jumps

    /// A jump as one request: each step an operation of its own.
    private func performJumpSteps(to position: Int, isolation: isolated (any Actor)?) async -> Result<
        Bool, OperationError
    > {
        enterCall()
        history.sweepFreedTargets()
        let current = undoSide.closedCount + (openStepIsListed ? 1 : 0)
        let total = current + redoSide.closedCount
        let target = Swift.max(0, Swift.min(position, total))
        let remaining = total - target
        guard target != current else {
            leaveCall()
            return .success(false)
        }
        // As `jump(to:)`: the open group closes first, trimmed to the limits at once, and the steps
        // are then counted in the history the close left (a trim that dropped the oldest step
        // leaves one step fewer to undo).
        if let misuse = closeOpenGroupBeforeAwaitedMove(.jump) {
            leaveCall()
            return .failure(misuse)
        }
        leaveCall()
        return await performSteps(
            isolation: isolation,
            next: {
                let more = target < current ? undoSide.closedCount > target : redoSide.closedCount > remaining
                guard more else { return nil }
                return (target < current ? .undo : .redo, false)
            },
            reached: { failure in failure.reachedPosition = historyPosition })
    }

    /// Closes the open group before an awaited move (a jump, a tree jump, a time move), as the
    /// synchronous move closes it: with more than one group open, reports the misuse and returns
    /// it; with one, closes it (the newest change, a node of its own in a branching history) and
    /// trims the history to the limits at once. Called within a call.
    func closeOpenGroupBeforeAwaitedMove(_ operation: Misuse.Operation) -> OperationError? {
        if let misuse = refusesMoveWithNestedGroupsOpen(operation) { return .misuse(misuse) }
        // (A broken step refuses the first step before anything changes: see `startStep`.)
        guard steps.broken == nil else { return nil }
        activities.push(.jumping)
        let closed = closeTheOpenGroupBeforeMoving()
        activities.pop()
        if closed { trimAfterClosingTheOpenGroup() }
        return nil
    }

    /// The steps of a jump, each an operation of its own: `next` (called at the start of each step,
    /// after the sweep of freed targets, within a call) says which way the next step goes and
    /// whether it closes the open group, or nil when the jump is over; `reached` marks a failure
    /// with where the jump stopped. A new change from another task ends the jump after the step in
    /// flight.
    func performSteps(
        isolation: isolated (any Actor)?,
        next: () -> (direction: Direction, closingOpenGroup: Bool)?,
        reached: (inout ActionFailure) -> Void
    ) async -> Result<Bool, OperationError> {
        var moved = false
        while true {
            enterCall()
            history.sweepFreedTargets()
            let step = next()
            leaveCall()
            guard let step else { break }
            let result = await performStep(
                step.direction, closingOpenGroup: step.closingOpenGroup, isolation: isolation)
            switch result {
            case .success(false):
                return .success(moved)
            case .success(true):
                moved = true
            case .failure(let error):
                if var failure = error.actionFailure {
                    reached(&failure)
                    return .failure(.actionFailed(failure))
                }
                return moved ? .success(true) : .failure(error)
            }
            if steps.sawNewChangeInLastStep { break }
        }
        return .success(moved)
    }
}

extension ActionStack {
    /// `removeAllActions()` while requests wait or an operation is in flight: the waiting requests
    /// are cancelled; the operation goes on to its end, and nothing it touched survives (its
    /// opposite step is emptied now, and what it builds later is dropped when it settles). A broken
    /// step goes with the history.
    func removeAllForOperations() {
        let removed = steps.everythingRemoved()
        for request in removed.cancel { request.cancel(.removeAllActions) }
        guard let step = removed.step else { return }
        for side in [step.built, step.bin] where !side.frames.isEmpty || side.actions.count != 0 {
            let wasOpen = !side.frames.isEmpty
            history.emptySide(side)
            if wasOpen { history.openFrame(on: side) }
        }
    }
}
