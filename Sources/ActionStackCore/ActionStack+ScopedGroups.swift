// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Runs `body` inside a group that always closes; if `body` throws, what it registered is
    /// undone and dropped, and the error is passed on.
    ///
    /// ```swift
    /// try stack.group(named: "Import") {
    ///     for row in rows {
    ///         try table.insert(row)   // registers its inverse; may throw
    ///     }
    /// }
    /// // Success: one "Undo Import" step. Failure: the table is as it was, no step is left.
    /// ```
    ///
    /// The group is opened as ``beginUndoGrouping()`` opens one (nested in the event's automatic
    /// group when ``groupsByEvent`` is on). On success the group is named `name` (when given; the
    /// name goes to the top-level group, as ``setActionName(_:)`` does, so inside an undo handler it
    /// names the redo step being built) and closed, along with any
    /// group the body left open inside it, even while registration is disabled. On a throw, the
    /// group is closed with its notifications and taken out of the history (it never becomes a
    /// step, not even an empty one), and its actions run newest first with registration disabled,
    /// so the model returns to where it was and the document is back in the state it was in when the
    /// group opened (clean if it was; a new state, never clean, when an action could not be undone
    /// because its target was freed or removed). When opening the group opened the event's
    /// automatic group and that is left holding nothing, it is closed and dropped too: a failed
    /// scope leaves no step. In a linear history the redo stack that the body's registrations
    /// emptied stays empty; in a branching history (``historyShape``) they made it a branch, and the
    /// rollback leaves the tree as it was, redo choice included. If the body
    /// closed the group itself, the scope names it only while it is still open, and rolls it back
    /// only while it is still the newest step: when something else became the newest step since,
    /// or the body undid the group (``undo()`` closes and undoes it), nothing is named or rolled
    /// back, and the redo step such an undo built stays, unnamed, as any undone step does. Trimming to ``levelsOfUndo`` and ``maximumCost`` waits until the outermost scoped group
    /// ends, so a rollback never meets a step that was trimmed meanwhile. Works nested and inside
    /// undo handlers. A synchronous group cannot await: if `body` registered asynchronous actions
    /// (``registerAsyncUndo(withTarget:handler:)``) and throws, their inverses do not run and the
    /// document is in a new state, never clean; use ``asyncGroup(named:isolation:_:)`` for such
    /// bodies. While registration is disabled, `body` simply runs; so it does when the call is
    /// refused as a misuse (``Misuse/reentrantCall(_:during:)``), with nothing to roll back.
    ///
    /// - Parameters:
    ///   - name: The step's name, or `nil` to leave it.
    ///   - body: The changes to make as one step.
    /// - Returns: What `body` returns.
    /// - Complexity: O(1) amortized beyond `body`; on a throw, O(n) for the n actions rolled back.
    @discardableResult
    public func group<Result>(named name: String? = nil, _ body: () throws -> Result) rethrows -> Result {
        // One call, whatever happens: the body's calls are nested in it, and observers hear the
        // scope once, at its end.
        enterCall()
        defer { leaveCall() }
        guard registrationEnabled else { return try body() }
        if refusesReentrantCall(.group) { return try body() }
        let side = currentSide
        let frame0Before = undoSide.frames.first?.id
        // The scope's own frame, found by its id from now on (an observer of the notifications
        // below may open or close other groups).
        guard let scope = beginGroup(forScope: true) else { return try body() }
        // The event's automatic group, when this scope's begin opened it.
        let automaticGroup: UInt64? =
            side === undoSide && side.frames.count == 2 && side.frames[1].id == scope.id
                && side.frames[0].id != frame0Before ? side.frames[0].id : nil
        // A branching history gets back the redo choice the body's registrations left as a branch.
        let redoChoice = history.tree == nil ? nil : redoSide.steps.last?.node
        scopes.enter()
        defer { scopes.forget(frame: scope.id) }
        do {
            let result = try body()
            scopes.leave()
            closeScope(scope, on: side, name: name)
            scopeEnded()
            return result
        } catch {
            scopes.leave()
            rollBack(scope, on: side, automaticGroup: automaticGroup, redoChoice: redoChoice)
            restoreRedoChoice(redoChoice)
            scopeEnded()
            throw error
        }
    }

    // MARK: Internals

    /// A scope's body is over and its group closed or rolled back: when it was the outermost, the
    /// event's end and the trimming that waited for it happen now.
    private func scopeEnded() {
        guard !scopes.isRunning else { return }
        endEventPutOffByScopes()
        if history.needsTrim && mayFinishPutOffWorkAfterScope { applyLimitsThatWaited() }
    }

    /// The index of the open frame `scope` on `side`, if it is still open.
    private func openIndex(of scope: Frame, on side: Side) -> Int? {
        side.frames.lastIndex { $0.id == scope.id }
    }

    /// Names and closes `scope` and whatever the body left open inside it.
    private func closeScope(_ scope: Frame, on side: Side, name: String?) {
        guard let index = openIndex(of: scope, on: side) else { return }
        if let name { nameTopLevelGroup(of: side, name) }
        activities.push(.closingScope)
        defer { activities.pop() }
        while side.frames.count > index {
            postCheckpoint()
            closeInnermostFrame(of: side, notify: steps.performing == nil)
        }
    }

    /// Sets the name of frame 0 of `side` (for a scope; regardless of the disable counter).
    private func nameTopLevelGroup(of side: Side, _ name: String) {
        side.updateFrameMetadata { $0.name = name }
    }

    /// Takes `scope` out of the history and runs its actions, newest first, without recording.
    ///
    /// When every action runs, the document is back in the state the scope's group began in, as
    /// its record holds it: a removal or a sweep that took some of its actions gave that record a
    /// new far end, which no document state has (so it is never clean).
    ///
    /// Then, if the scope's begin opened the event's automatic group and it now holds nothing, it
    /// is closed too (with its notifications) and dropped, so a failed scope leaves no step, not
    /// even an empty one, whatever ``dropsEmptyGroups`` says.
    private func rollBack(_ scope: Frame, on side: Side, automaticGroup: UInt64?, redoChoice: NodeNumber?) {
        // The scope's depth is already back down: pruning waits for the scope's end all the same,
        // since what an observer of the closes below registers (the redo stack it turns into a
        // branch included) is rolled back with the scope.
        let held = history.holdPruning()
        defer { history.releasePruning(held) }
        let count: Int
        let farEnd: StateID
        if let index = openIndex(of: scope, on: side) {
            activities.push(.closingScope)
            // Close the groups the body left open inside the scope (they become part of it).
            while side.frames.count > index + 1 {
                postCheckpoint()
                closeInnermostFrame(of: side, notify: steps.performing == nil)
            }
            // Close the scope's own group with its notifications, but never make it a step.
            postCheckpoint()
            let notify = steps.performing == nil
            if notify { postWillCloseGroup() }
            let (frame, metadata) = side.abandonInnermostFrame()
            count = side.end - frame.start
            farEnd = frame.low
            if side.frames.isEmpty && side === undoSide { eventClose.cancel() }
            if notify {
                post(ActionStack.didCloseUndoGroupNotification, discardable: metadata?.isDiscardable ?? false)
            }
            activities.pop()
        } else if side.frames.isEmpty, let serial = scopes.serialOfStep(closing: scope.id), let step = side.steps.last,
            step.serial == serial
        {
            // The body closed the scope's group itself (a step), and it is still the newest.
            // (A redo step that lost actions has a new high, not a new low: then it no longer ends
            // where the document is, and undoing it leads to a new state.)
            (count, farEnd) = history.takeNewestStepForRollback(of: side)
        } else if let last = side.nested.last, last.id == scope.id, last.parent == side.frames.count - 1,
            last.end == side.end
        {
            // The body closed the scope's group itself (nested), and it is still the newest item.
            side.removeLastNestedGroup()
            count = last.count
            farEnd = last.low
        } else {
            return  // the scope is no longer the newest item: leave the history alone
        }
        // Run the scope's actions, which are the last `count` the side holds, with registration
        // disabled; a handler cannot take that away.
        registration.disableProtected()
        activities.push(.rollingBack)
        // Taking actions out of the undo stack ends coalescing (the step being recorded changed).
        history.beginRollback(of: count, on: side)
        var everyActionRan = true
        while side.inFlight > 0 {
            let action = side.takeActionInFlight()
            if !action.perform() { everyActionRan = false }
            // An asynchronous action cannot be awaited here: its inverse did not run (use
            // `asyncGroup(named:_:)` for bodies that register them).
            if steps.slot?.take() != nil { everyActionRan = false }
            history.releaseAction(action)
        }
        activities.pop()
        registration.enableProtected()
        history.finishRollback(everyActionRan: everyActionRan, farEnd: farEnd)
        // Before the close below trims: the branch the body's registrations left is the redo stack
        // again, not a branch to prune.
        restoreRedoChoice(redoChoice)
        if let automaticGroup, isEmptyTopLevelGroup(automaticGroup, on: side) {
            activities.push(.closingScope)
            defer { activities.pop() }
            postCheckpoint()
            // Observers of the checkpoint run before the decision.
            if isEmptyTopLevelGroup(automaticGroup, on: side) {
                closeInnermostFrame(of: side, notify: steps.performing == nil, dropsIfEmpty: true)
            }
        }
    }

    /// Makes the redo stack again the branch that leads to `choice`, the redo choice before the
    /// scope, when the scope's registrations left it as a branch of the current node.
    private func restoreRedoChoice(_ choice: NodeNumber?) {
        if let choice, redoSide.steps.count == 0, history.tree?.table.parent(of: choice) == history.currentNodeNumber {
            enterBranch(leadingTo: choice)
        }
    }

    /// Whether the only open frame of `side` is the one with `id`, holding no action.
    private func isEmptyTopLevelGroup(_ id: UInt64, on side: Side) -> Bool {
        side.frames.count == 1 && side.frames[0].id == id && side.end == side.frames[0].start
    }
}
