// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Runs `body`, which may await, as one step of its own: what `body` and the tasks it starts
    /// register becomes one undo step when it returns; if it throws, what it registered is undone,
    /// newest first (awaiting asynchronous actions), and the error is passed on. Either way the
    /// group's ``didOpenUndoGroupNotification`` is paired with a will-close and a did-close, as a
    /// scoped group's is (a throwing body's before its rollback), and the observers of the
    /// will-close may add to the group.
    ///
    /// The asynchronous form of ``group(named:_:)``, for a change that awaits a server or a
    /// database between its registrations:
    ///
    /// ```swift
    /// try await stack.asyncGroup(named: "Import") {
    ///     for row in rows {
    ///         try await server.write(row)   // awaits the server
    ///         try table.insert(row)         // registers its inverse
    ///     }
    /// }
    /// print(stack.undoMenuItemTitle)   // Undo Import
    /// ```
    ///
    /// The group belongs to its task. It holds the turn of the request queue while `body` runs, so
    /// an undo, redo or jump requested meanwhile (``performUndo(isolation:)``, or ``undo()`` from
    /// an Edit menu) waits behind it instead of closing or undoing a group that is half recorded;
    /// an asynchronous group requested while another holds the turn waits likewise (see
    /// ``busyPolicy``). The event's automatic close (``groupsByEvent``) never closes it. Changes
    /// that other tasks record while `body` awaits are steps of their own: the group's step goes on
    /// top of them when it closes, and empties the redo stack as any new change does. Until then the
    /// body's registrations are held apart, so a body that throws leaves the redo stack as it was
    /// (unless another task's change emptied it meanwhile), where ``group(named:_:)``, whose
    /// registrations go on the stack as they come, leaves it emptied in a linear history (in a
    /// branching one, both leave the tree as it was).
    ///
    /// Inside `body`, the stack behaves as in ``group(named:_:)``'s body: each registration changes
    /// the document's state, so ``markClean()`` there marks what the body has done so far; an
    /// ``undo()`` pressed there (an Edit menu driven from the body's task) is queued behind the
    /// group and undoes it once it has closed.
    ///
    /// A name given here names the step; `body` may also name it with ``setActionName(_:)``. A group
    /// that records nothing leaves a do-nothing step, as an empty group does, or none with
    /// ``dropsEmptyGroups``. If the rollback cannot undo everything (an action that registered no
    /// inverse, a freed target, an inverse that throws), the document is in a new state, never
    /// clean. While registration is disabled, `body` simply runs.
    ///
    /// Awaited from a handler of an operation in flight on the same stack, or from inside another
    /// asynchronous group's body, it would wait for itself: that is the misuse
    /// ``Misuse/awaitsOwnOperation(_:)``, thrown as ``OperationError/misuse(_:)`` before `body` runs.
    ///
    /// - Parameters:
    ///   - name: The step's name, or `nil` to leave it to `body`.
    ///   - isolation: The caller's isolation, where `body` and any rollback run; leave the default.
    ///   - body: The changes to make as one step.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or an ``OperationError`` when the group could not start
    ///   (cancelled or dropped while waiting for its turn, or a misuse).
    /// - Complexity: O(n) beyond `body` for the n actions it registers (they move to the undo
    ///   stack when it closes), plus O(k) for the k actions of groups other tasks hold open then;
    ///   on a throw, O(n) for the actions rolled back.
    @discardableResult
    public func asyncGroup<Result>(
        named name: String? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        guard registrationEnabled else { return try await body() }
        let request = OperationRequest(.group)
        if let refusal = admit(request, .group) {
            request.finish(.failure(refusal))
            throw refusal
        }
        if let reason = await waitForTurn(request, isolation: isolation) {
            request.finish(.failure(.cancelled(reason)))
            throw OperationError.cancelled(reason)
        }
        let run = startRecording()
        let chain = OperationChain(id: run.chainID, parent: OperationChain.current)
        do {
            let result = try await OperationChain.$current.withValue(chain) { try await body() }
            // In the group's chain: observers of its will-close notification may add to it, as to
            // any closing group.
            OperationChain.$current.withValue(chain) { closeRecording(run, name: name) }
            request.finish(.success(true))
            handOff()
            return result
        } catch {
            // Its open notification is paired first, as a throwing `group(named:_:)` pairs it
            // before its rollback; what an observer of the will-close adds is rolled back too.
            OperationChain.$current.withValue(chain) { postRecordingClose(of: run) }
            let rollback = await rollBack(run, failedIndex: -1, isolation: isolation)
            settleRecordingFailure(run, rollback: rollback, error: error)
            request.finish(.success(false))
            handOff()
            throw error
        }
    }

    // MARK: Internals

    /// Opens the group's own frame on a side of its own.
    private func startRecording() -> StepInFlight {
        enterCall()
        defer { leaveCall() }
        history.endCoalescing()
        let run = StepInFlight(recordingFrom: history.states.current, serialMark: history.nextStepSerial)
        history.openBuiltStep(on: run.built, from: history.states.current, carrying: nil)
        carryOut(steps.begin(run))
        return run
    }

    /// The body returned: what it recorded becomes a step on top of the undo stack (below any group
    /// another task holds open), and the redo stack is emptied.
    private func closeRecording(_ run: StepInFlight, name: String?) {
        enterCall()
        defer { leaveCall() }
        let built = run.built
        postWillCloseGroup()
        var (count, metadata) = closeBuiltStep(of: run)
        // The group ends here: what runs from now on (the redo side's end, the trim) is outside it.
        let finish = steps.finished()
        if let name {
            let named = metadata?.copy() ?? StepMetadata()
            named.name = name
            metadata = named.isEmpty ? nil : named
        }
        var discardable = false
        if !run.removedAll && (count > 0 || !dropsEmptyGroups) {
            // The body's registrations changed the document state as they came: the history ends
            // the redo future and places the step (see `History.finishRecorded`).
            discardable = metadata?.isDiscardable ?? false
            history.finishRecorded(
                count: count, metadata: metadata, built: built, stateBefore: run.stateBefore,
                sawNewChange: run.sawNewChange, maximumCost: maximumCost, restructuringAllowed: mayRestructure)
            trimOrDefer()
        } else {
            // No step (an empty group dropped, or the history removed meanwhile), but a change
            // another task made meanwhile ended the redo future, as it would have at once.
            history.endRedoFuture(
                afterNewChangesOf: run, maximumCost: maximumCost, restructuringAllowed: mayRestructure)
        }
        history.emptySide(built)
        carryOut(finish, discardable: discardable)
    }

    /// The body threw: its group closes with the will-close and did-close notifications (it never
    /// becomes a step), before its registrations are rolled back.
    private func postRecordingClose(of run: StepInFlight) {
        guard postsNotifications else { return }
        enterCall()
        defer { leaveCall() }
        activities.push(.closingScope)
        defer { activities.pop() }
        postWillCloseGroup()
        // Its did-close is posted where every step's notifications are: as the close of a body that
        // returned, though the group then rolls back.
        carryOut(.postDidClose, discardable: run.built.frameMetadata?.isDiscardable ?? false)
    }

    /// The body threw and its registrations were rolled back: no step is left.
    private func settleRecordingFailure(_ run: StepInFlight, rollback: Rollback, error: any Error) {
        enterCall()
        defer { leaveCall() }
        carryOut(steps.rolledBack(rollback, failed: (-1, error)))
        // The body's changes are undone (the document is where the group began, plus other
        // tasks' changes, which now lead from there), or something it did could not be undone;
        // a change another task made meanwhile ended the redo future.
        history.settleFailedRecording(
            run, restored: rollback.isRestored, maximumCost: maximumCost, restructuringAllowed: mayRestructure)
    }
}
