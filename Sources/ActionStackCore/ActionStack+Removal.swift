// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Removes every action whose target is `target`; the same as
    /// ``removeAllActions(withTarget:)``.
    ///
    /// - Parameter target: The object whose actions to remove.
    /// - Complexity: O(n) for the n stored actions.
    public func removeAll(withTarget target: Any) {
        removeAllActions(withTarget: target)
    }

    func _removeAllActions() {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.removeAllActions) { return }
        if steps.usesAwaitedSteps { removeAllForOperations() }
        history.removeAll()
        eventClose.cancel()
        registration.reset()
        // The document is clean, as a freshly opened one; while an asynchronous operation is in the
        // middle of its step, at a state no node has (see `markCurrentStateClean()`).
        markCurrentStateClean()
    }

    func _removeAllActions(withTarget target: Any) {
        enterCall()
        defer { leaveCall() }
        if let activity = activities.refusing(.removeAllActionsWithTarget) {
            // A target being freed (Apple's `deinit { removeAllActions(withTarget: self) }`, run
            // when a handler lets go of the object) has no action that could run again: nothing
            // to do that the sweep of freed targets will not do, and no misuse.
            if !Self.isBeingFreed(target) {
                report(.reentrantCall(.removeAllActionsWithTarget, during: activity.reported))
            }
            return
        }
        // A value boxes into a new object here, which no action refers to.
        let object = target as AnyObject
        history.coalescingEventEnded()
        // What the step in flight registers for the target from now on is dropped too.
        steps.targetRemoved(object)
        // A target has one box for its closure actions and one per key for its command actions.
        for box in history.registry.allBoxes(for: object) {
            history.removeActions(on: box)
            // The step in flight skips the target's actions it has not run yet; the step it builds
            // loses them, as every step does.
            if let step = steps.boxRemoved(box) {
                history.compact(step.built) { $0.isOn(box) }
                history.compact(step.bin) { $0.isOn(box) }
            }
        }
    }

    /// Whether `target` is an object whose deinitialization has begun: a weak reference formed to
    /// it reads `nil` (a value boxes into a new, live object).
    private static func isBeingFreed(_ target: Any) -> Bool {
        let object = target as AnyObject
        weak let probe = object
        return withExtendedLifetime(object) { probe == nil }
    }

    var _undoCount: Int { countSteps(of: undoSide) }
    var _redoCount: Int { countSteps(of: redoSide) }

    // MARK: Internals: counting

    /// The closed steps of `side` that have a live action or hold none: every freed target's
    /// actions are removed first when the stack is idle, or skipped in the count otherwise.
    private func countSteps(of side: Side) -> Int {
        enterCall()
        defer { leaveCall() }
        return sweptStepCount(of: side)
    }

    // MARK: Internals: limits

    /// The limits of the undo stack now, read through the getters of ``levelsOfUndo`` (which a
    /// subclass may override) and ``maximumCost``.
    var limits: HistoryLimits { HistoryLimits(levelsOfUndo: levelsOfUndo, maximumCost: maximumCost) }

    /// A limit changed: trims now, or at the end of the call, scope or request in progress.
    func limitsChanged() {
        enterCall()
        defer { leaveCall() }
        if !mayTrimAtOnce {
            history.deferTrim()
        } else {
            history.trimToLimits(limits)
        }
    }

    /// A top-level group closed on the undo stack (or a coalesced step grew): trims now, unless a
    /// scoped group's body is running or an awaited request holds the turn.
    @inline(__always)
    func trimOrDefer() {
        let levelsOfUndo = levelsOfUndo
        guard levelsOfUndo > 0 || maximumCost > 0 else { return }
        // (Branch pruning is asked for where branches grow: see `History.pruneBranchesOrDefer`.)
        if !mayRestructure {
            // Never a step in flight, nor between the steps of a jump: the limits are applied when
            // the request ends.
            history.deferTrim()
        } else {
            history.trimToLimits(HistoryLimits(levelsOfUndo: levelsOfUndo, maximumCost: maximumCost))
        }
    }

    /// After a redo: as ``trimOrDefer()``, but a redo that is one step of a move (``jump(to:)``,
    /// ``jump(toNode:)``, ``earlier(_:)``, ``later(_:)``) leaves the trim to the end of the move, as
    /// an awaited move does: a move is trimmed once, so that the synchronous and the awaited move
    /// keep the same steps (in a branching history ``maximumCost`` counts the branches, and a trim
    /// after each redo could drop branch steps that one trim at the end keeps).
    ///
    /// - Complexity: O(1) with no limit set; otherwise as ``trimOrDefer()``.
    @inline(__always)
    func trimAfterRedo() {
        let levelsOfUndo = levelsOfUndo
        guard levelsOfUndo > 0 || maximumCost > 0 else { return }
        if !mayRestructure || activities.innermost == .jumping {
            history.deferTrim()
        } else {
            history.trimToLimits(HistoryLimits(levelsOfUndo: levelsOfUndo, maximumCost: maximumCost))
        }
    }

    /// After a request closed the open group before its first step: the group is a change made
    /// before the request moved anything, trimmed to the limits at once, as the synchronous call's
    /// close trims it (``trimOrDefer()`` would put it off until the request ends, since the request
    /// holds the turn), so that the request finds its way in the history the synchronous call finds.
    ///
    /// - Complexity: O(k) for the k actions dropped.
    func trimAfterClosingTheOpenGroup() {
        let levelsOfUndo = levelsOfUndo
        guard levelsOfUndo > 0 || maximumCost > 0, mayTrimBeforeTheRequestMoves else { return }
        history.trimToLimits(HistoryLimits(levelsOfUndo: levelsOfUndo, maximumCost: maximumCost))
    }

    /// Whether the history may be restructured now (trimmed, branches pruned, its shape changed):
    /// no scoped group's body is running, and the step machine allows it (no awaited request holds
    /// the turn: what is asked meanwhile waits until the request ends, when ``handOff()`` applies
    /// it before the turn passes on, so that nothing is trimmed under a step in flight or between
    /// the steps of a jump). The one question every trim, prune and change of shape asks.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var mayRestructure: Bool { !scopes.isRunning && steps.mayRestructure }

    // The stack's other busy questions, each composed once from the machine's answers and the
    // stack's own concerns, and asked by name where it matters.

    /// Whether nothing runs now: no client code in the middle of a call, no step in flight of
    /// either kind. Freed targets are swept and state ids renumbered only then (a step in flight
    /// holds ids and actions outside the storage).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var isAtRest: Bool { activities.isEmpty && steps.isIdle }

    /// Whether a limit set now trims at once: the history may be restructured and no client code
    /// or synchronous step is in the middle of a call (otherwise the trim waits for its end).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var mayTrimAtOnce: Bool { mayRestructure && mayDropFreedSteps }

    /// Whether work put off (a trim, a change of shape) may be done at the end of a scope: no
    /// synchronous step runs and the history may be restructured.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var mayFinishPutOffWorkAfterScope: Bool { steps.performing == nil && mayRestructure }

    /// Whether the group a request closed before its first step is trimmed now: no scoped group's
    /// body runs and no awaited step is in flight yet. Unlike ``mayRestructure``, the request
    /// holding the turn does not stop it: the group is a change made before the request moved
    /// anything.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var mayTrimBeforeTheRequestMoves: Bool { !scopes.isRunning && !steps.hasAwaitedStep }

    /// Applies the limits, pruning and change of shape that waited, unless a scoped group's body
    /// or client code in the middle of a call (an activity) is still running. The caller has
    /// checked that no request holds the turn, or is the request ending.
    func applyLimitsThatWaited() {
        guard history.needsTrim && !scopes.isRunning && activities.isEmpty else { return }
        history.finishPutOffWork(limits)
    }

    /// Makes the redo stack the chain that leads to `child` (see
    /// ``History/enterBranch(leadingTo:maximumCost:restructuringAllowed:)``).
    @discardableResult
    func enterBranch(leadingTo child: NodeNumber) -> Bool {
        history.enterBranch(leadingTo: child, maximumCost: maximumCost, restructuringAllowed: mayRestructure)
    }
}
