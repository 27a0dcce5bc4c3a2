// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Applies a change made elsewhere (a peer, another device, a server) to the model, as a
    /// change that is not this user's: undo never reverts it, and this user's steps move past it.
    ///
    /// `apply` makes the change to the model. While it runs, registration is disabled (what the
    /// model registers is not recorded, and no group opens); then the stack hears of `change`:
    ///
    /// - The redo stack is kept, and so are the branches of a branching history: a peer's change is
    ///   not this user's new change.
    /// - Coalescing ends: the next registration starts a step of its own.
    /// - Every stored step moves past the change, on both stacks and in every branch: its
    ///   ``RebasableCommand``s are rewritten (lazily, see below); closures and other commands are
    ///   left as they are, which is right for targets addressed by identity.
    /// - The document is in a state this user never saved: ``isClean`` is `false` until the next
    ///   ``markClean()``, and undoing back to the saved step does not make it clean again (the
    ///   peer's change is still there).
    ///
    /// ```swift
    /// import ActionStack
    ///
    /// final class Note {
    ///     var text = ""
    /// }
    ///
    /// let note = Note()
    /// let stack = ActionStack()
    /// // A peer's edit arrives from the network, with the server's revision.
    /// let edit = TextEdit.insert("Hi", at: 0)
    /// stack.applyRemoteChange(edit, version: "r42") {
    ///     try? edit.apply(to: &note.text)
    /// }
    /// print(note.text, stack.canUndo, stack.remoteVersion ?? "")   // Hi false r42
    /// ```
    ///
    /// **What undo does then.** One press of Undo undoes the next step that still does something:
    /// a step whose rebasable commands all have nothing left to do (the peer deleted what it would
    /// restore, or wrote the same field since) is dropped when the stack finds it, and the press
    /// goes on to the step below. ``canUndo``, ``canRedo``, the action names and the menu titles
    /// describe that next live step, and observers hear when a step dies. ``undoCount``,
    /// ``redoCount`` and the history entries count the steps not yet found dead: a step is found
    /// dead when it is performed, saved, or looked at as the next step.
    ///
    /// **Cost.** Reporting is O(1) amortized: the change is handed to the newest step of each
    /// stack (and, in a branching history, to the newest step of each branch that leaves from the
    /// current node, O(b) for b such branches), and a step is rewritten only when it is performed,
    /// saved, or looked at as the next step, over the changes it has not seen: an undo after r
    /// remote changes costs O(r) for its own step. Open groups on the undo stack (a group the app
    /// opened, the event's automatic group) are rewritten at once, O(k) for their k actions.
    ///
    /// Call it where the stack is used (the main actor for an app's stacks). While an asynchronous
    /// operation awaits, a change from another task is applied too: the operation's remaining
    /// actions and what it built so far are rewritten at once, and the rest of the history lazily.
    /// From a handler or an observer of an operation in progress, and from inside another
    /// `apply`, it is the misuse ``Misuse/reentrantCall(_:during:)``: `apply` does not run and the
    /// call returns `false` (apply the change when the call in progress has ended). Inside `apply`,
    /// ``removeAllActions(withTarget:)`` is allowed, for a peer that deleted an object.
    ///
    /// If `apply` throws, the stack treats the change as not applied: nothing moves, and the error
    /// is passed on.
    ///
    /// - Parameters:
    ///   - change: The change, as the app describes it; ``RebasableCommand`` types whose
    ///     ``RebasableCommand/Change`` is this type are rewritten past it.
    ///   - version: The app's version of the document after this change (a server revision, a
    ///     vector clock), saved with the history (``SavedHistory/remoteVersion``); `nil` keeps the
    ///     last one given.
    ///   - apply: Makes the change to the model.
    /// - Returns: Whether the change was applied (`false`: refused as a misuse).
    /// - Complexity: O(1) amortized, plus `apply`; see above.
    @discardableResult
    public func applyRemoteChange<Change: Sendable>(
        _ change: Change, version: String? = nil, _ apply: () throws -> Void
    ) rethrows -> Bool {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.applyRemoteChange) { return false }
        // What the model registers while the change applies is not recorded; a handler's
        // `enableUndoRegistration()` cannot take the disable away.
        registration.disableProtected()
        activities.push(.applyingRemoteChange)
        do {
            try apply()
        } catch {
            activities.pop()
            registration.enableProtected()
            throw error
        }
        activities.pop()
        registration.enableProtected()

        // The concern is made once; the closure that makes it is not allocated again.
        let remote =
            history.remote
            ?? history.remoteChanges { [unowned(unsafe) self] command in self.storedHandler(for: command) }
        remote.count &+= 1
        if let version { remote.version = version }
        // The document is in a state this user never saved, and the next registration starts a
        // step of its own.
        history.documentChangedElsewhere()
        if let step = steps.inFlight {
            deliverDuringOperation(change, step)
        } else {
            // The open groups of the undo stack are rewritten now, and the change, as it reads
            // below them, is handed to every step that applies at the current node.
            if undoSide.frames.isEmpty {
                history.deliverChangeToStepsAtCurrentNode(change)
            } else {
                history.deliverToStepsAtCurrentNode(history.rebaseOpenRegion(of: undoSide, over: [change]))
            }
        }
        return true
    }

    /// The number of remote changes reported to this stack (``applyRemoteChange(_:version:_:)``).
    ///
    /// - Complexity: O(1).
    public var remoteChangeCount: Int { Int(clamping: history.remote?.count ?? 0) }

    /// The app's version of the last remote change reported with one; `nil` when none was.
    /// ``savedHistory(maximumSteps:)`` saves it (``SavedHistory/remoteVersion``), and
    /// ``restoreHistory(_:resolvingTargets:)`` restores it.
    ///
    /// - Complexity: O(1).
    public var remoteVersion: String? { history.remote?.version }

    // MARK: Internals

    /// The restored history's version of the document (``SavedHistory/remoteVersion``).
    func restoreRemoteVersion(_ version: String?) {
        guard let version else { return }
        history.remoteChanges { [unowned(unsafe) self] command in self.storedHandler(for: command) }.version = version
    }

    /// The stored handler of a command action holding `command`, as a registration makes it.
    func storedHandler(for command: any SavableCommand) -> ((AnyObject) -> Void)? {
        if let command = command as? any UndoCommand { return commandHandler(command) }
        if let command = command as? any AsyncUndoCommand { return asyncCommandHandler(command) }
        return nil
    }

    /// Rebases the newest closed steps of `side` over what they have not seen (see
    /// ``History/rebaseNewestSteps(of:)``), unless an asynchronous operation is in flight: its step
    /// stays on its side, and what it has not seen is kept for a rollback, until it settles.
    @inline(__always)
    func rebaseNewestSteps(of side: Side) {
        guard history.remote != nil, !steps.hasAwaitedStep else { return }
        history.rebaseNewestSteps(of: side)
    }

    /// The newest step of `side` as the next press finds it: rebased past the remote changes it has
    /// not seen, and freed steps dropped from the top (see ``History/dropDeadSteps(atTopOf:)``).
    @inline(__always)
    func dropDeadSteps(atTopOf side: Side) {
        if history.remote != nil { rebaseNewestSteps(of: side) }
        history.dropDeadSteps(atTopOf: side)
    }

    /// A change reported while an asynchronous operation is in flight. The operation's actions not
    /// yet run, and what it built so far (or, in a rollback, what is left to roll back), are
    /// rewritten at once. The change as it reads before the operation (past what it built) is
    /// handed to the steps at the current node, the step in flight among them; as it reads once the
    /// operation's remaining actions have run, it waits in the operation for the step below, which
    /// it reaches if the operation succeeds.
    ///
    /// Changes made meanwhile by other tasks (new steps on top) are not rewritten into the
    /// operation: the change reaches those steps as it reads now. An action that is awaiting when
    /// the change arrives is taken to have made its change to the model already.
    private func deliverDuringOperation(_ change: any Sendable, _ run: StepInFlight) {
        if run.sawNewChange {
            history.deliverToStepsAtCurrentNode([change])
            return
        }
        if run.phase == .running && !run.isRecording, let remote = history.remote {
            run.carriedBelow.append(contentsOf: run.rebaseRemaining(over: [change], remote))
        }
        let built = run.built
        var beforeOperation: [any Sendable] = [change]
        if built.end > built.base {
            let (carried, dead) = history.rebaseAllActions(of: built, over: beforeOperation)
            beforeOperation = carried
            if !dead.isEmpty {
                let deadSet = Set(dead)
                var index = built.base
                run.forgetBuiltActions { _ in
                    defer { index += 1 }
                    return deadSet.contains(index)
                }
                history.removeActions(atIndices: dead, from: built)
            }
        }
        history.deliverToStepsAtCurrentNode(beforeOperation)
    }
}

extension StepInFlight {
    /// Rewrites the step's actions that have not run yet over `changes` (which read now, before the
    /// next of them runs); returns the changes as they read once they have all run.
    func rebaseRemaining(over changes: [any Sendable], _ remote: RemoteChanges) -> [any Sendable] {
        var carried = changes
        var index = nextPendingIndex
        while index >= 0 && !carried.isEmpty {
            let entry = pending[index]
            if let rebased = remote.rebased(entry.action, over: carried) {
                carried = rebased.carried
                if rebased.isDead {
                    deadPending.insert(index)
                } else if let handler = rebased.handler {
                    pending[index] = PendingAction(
                        action: Action(box: entry.action.unmanagedBox, handler: handler), box: entry.box)
                }
            }
            index -= 1
        }
        return carried
    }
}
