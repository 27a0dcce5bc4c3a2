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
        if operations != nil { removeAllForOperations() }
        emptySide(undoSide)
        emptySide(redoSide)
        if tree != nil { resetTree() }
        registry.removeAll()
        coalescer.clear()
        eventClose.cancel()
        disableCount = 0
        protectedDisableCount = 0
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
        coalescer.eventEnded()
        // What the operation in flight registers for the target from now on is dropped too.
        if operations != nil, let run = operations?.run { run.removedTargets.append(WeakTarget(object: object)) }
        // A target has one box for its closure actions and one per key for its command actions.
        for box in registry.allBoxes(for: object) {
            coalescer.forget(box)
            compact(undoSide) { $0.isOn(box) }
            compact(redoSide) { $0.isOn(box) }
            if tree != nil { compactBranches { $0.isOn(box) } }
            if let run = operations?.run {
                // The step in flight skips the target's actions it has not run yet; the step it
                // builds loses them, as every step does.
                run.removedBoxes.append(ObjectIdentifier(box))
                run.forgetBuiltActions { $0.isOn(box) }
                compact(run.built) { $0.isOn(box) }
                compact(run.bin) { $0.isOn(box) }
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

    // MARK: Internals: freed targets

    /// Removes the actions of every freed target from both stacks, with the groups this empties,
    /// as `removeAllActions(withTarget:)` would.
    ///
    /// - Complexity: O(t) for t distinct targets; plus O(n) for the n stored actions when a target
    ///   died.
    func sweepFreedTargets() {
        guard registry.markDeadBoxes() else { return }
        if let candidate = coalescer.candidate, candidate.box.isMarkedDead { coalescer.clear() }
        compact(undoSide) { $0.isMarkedDead }
        compact(redoSide) { $0.isMarkedDead }
        if tree != nil { compactBranches { $0.isMarkedDead } }
    }

    /// Removes the freed actions at the end of the newest closed step of `side`, as
    /// `removeAllActions(withTarget:)` would remove them: a step that loses every action goes (and
    /// the next one is looked at), one that loses some no longer leads back to where it began (its
    /// far end becomes a new state). Afterwards the top step is a do-nothing step or ends with a
    /// live action, so asking whether it is live is O(1). Only when no frame is open on top.
    ///
    /// - Complexity: O(1) amortized: each removed action is released once.
    func dropDeadSteps(atTopOf side: Side) {
        guard side.frames.isEmpty, side.inFlight == 0 else { return }
        if remote != nil { rebaseNewestSteps(of: side) }
        let isUndoSide = side === undoSide
        while let step = side.steps.last, step.count > 0 {
            if side.action(at: side.end - 1).isTargetAlive { return }
            releaseAction(side.removeLastAction())
            let last = side.steps.count - 1
            if step.count == 1 {
                if remote != nil {
                    deliver(StepMetadata.takeUnseen(from: &side.steps[last].metadata), pastStepAt: last, of: side)
                }
                _ = side.steps.removeLast()
                if tree != nil { nodeVanished(step.node) }
            } else {
                side.steps[last].count -= 1
                if isUndoSide { side.steps[last].low = states.fresh() } else { side.steps[last].high = states.fresh() }
            }
            if isUndoSide { coalescer.clear() }
        }
    }

    /// Before `undoNestedGroup()` decides what the newest item of the innermost open frame is:
    /// removes the freed actions at its end and the closed nested groups at its end whose actions
    /// all have freed targets (an empty nested group stays).
    func dropDeadTrailingItems(ofInnermostFrameOf side: Side) {
        let innermost = side.frames.count - 1
        let frameStart = side.frames[innermost].start
        var removedAny = false
        while true {
            if let last = side.nested.last, last.parent == innermost, last.end == side.end {
                guard last.count > 0, !side.hasLiveAction(from: last.start, to: last.end) else { break }
                side.nested.removeLast()
                for _ in 0..<last.count { releaseAction(side.removeLastAction()) }
                removedAny = true
            } else if side.end > frameStart, !side.action(at: side.end - 1).isTargetAlive {
                releaseAction(side.removeLastAction())
                removedAny = true
            } else {
                break
            }
        }
        if removedAny {
            // The open groups lost actions: undoing them no longer leads back to where they began,
            // and the step being recorded is no longer what coalescing would continue.
            for index in side.frames.indices { side.frames[index].low = states.fresh() }
            if side === undoSide { coalescer.clear() }
        }
    }

    /// Accounts for an action that leaves the history without running.
    @inline(__always)
    func releaseAction(_ action: Action) {
        registry.release(action.unmanagedBox)
    }

    /// Removes the actions that `shouldRemove` matches from `side`, in one pass, with the groups
    /// this empties: a closed step or closed nested group that loses every action goes (one that
    /// held none stays), open frames stay. A step that loses some of its actions no longer leads back
    /// to where it began: its far end (on the undo side the state before it, on the redo side the
    /// state after it) becomes a new state; so does the start of an open frame or nested group that
    /// loses some.
    ///
    /// - Complexity: O(n) for the n actions of `side`; moves each kept action at most once and
    ///   allocates only for the open frames' positions.
    func compact(_ side: Side, removing shouldRemove: (Action) -> Bool) {
        precondition(side.inFlight == 0, "compaction while a step is in flight")
        let isUndoSide = side === undoSide
        var read = 0
        var write = 0

        /// Processes `count` actions from `read`; returns how many were kept.
        func pass(_ count: Int) -> Int {
            var kept = 0
            for _ in 0..<count {
                if shouldRemove(side.actions[read]) {
                    releaseAction(side.actions.take(read))
                    if side.hasCosts { side.totalCost.subtract(side.costs[read]) }
                } else {
                    if write != read {
                        side.actions.moveElement(from: read, to: write)
                        if side.hasCosts { side.costs[write] = side.costs[read] }
                    }
                    write += 1
                    kept += 1
                }
                read += 1
            }
            return kept
        }

        // Closed steps, oldest first; rewritten in place.
        var stepWrite = 0
        let stepCount = side.steps.count
        for position in 0..<stepCount {
            var step = side.steps[position]
            let kept = pass(step.actionCount)
            if kept == 0 && step.count > 0 {
                // The remote changes the step had not seen pass on to the steps beyond it.
                if remote != nil, step.metadata?.unseenChanges.isEmpty == false {
                    passUnseenChanges(of: step, droppedFrom: side, below: stepWrite)
                }
                continue
            }
            if kept < step.actionCount {
                step.count = Int32(kept)
                if isUndoSide { step.low = states.fresh() } else { step.high = states.fresh() }
            }
            side.steps[stepWrite] = step
            stepWrite += 1
        }
        for _ in stepWrite..<stepCount { _ = side.steps.removeLast() }

        // The open frames' region: remember where each kept action lands, to move the frames and
        // the nested groups' boundaries.
        let openStart = side.base + read
        let openCount = side.actions.count - read
        if openCount > 0 || !side.frames.isEmpty {
            var newPosition = [Int](repeating: 0, count: openCount + 1)
            // removedFrom[o]: an action at offset o or later was removed.
            var removedFrom = [Bool](repeating: false, count: openCount + 1)
            for offset in 0..<openCount {
                newPosition[offset] = side.base + write
                removedFrom[offset] = pass(1) == 0
            }
            newPosition[openCount] = side.base + write
            if openCount > 0 {
                for offset in stride(from: openCount - 1, through: 0, by: -1) where removedFrom[offset + 1] {
                    removedFrom[offset] = true
                }
            }
            for index in side.frames.indices {
                let old = side.frames[index].start - openStart
                if removedFrom[old] { side.frames[index].low = states.fresh() }
                side.frames[index].start = newPosition[old]
            }
            var kept: [NestedGroup] = []
            for var group in side.nested {
                let oldStart = group.start - openStart
                let oldEnd = group.end - openStart
                let newStart = newPosition[oldStart]
                let newEnd = newPosition[oldEnd]
                let lostSome = newEnd - newStart < oldEnd - oldStart
                if lostSome && newEnd == newStart { continue }
                if lostSome { group.low = states.fresh() }
                group.start = newStart
                group.end = newEnd
                kept.append(group)
            }
            side.nested = kept
        }
        side.actions.forgetTail(from: write)
        if side.hasCosts { for _ in write..<side.costs.count { _ = side.costs.removeLast() } }
    }

    // MARK: Internals: limits

    /// A limit changed: trims now, or at the end of the call, scope or request in progress.
    func limitsChanged() {
        enterCall()
        defer { leaveCall() }
        if scopeDepth > 0 || !isIdle || requestHoldsTurn {
            needsTrim = true
        } else {
            trimToLimits()
        }
    }

    /// A top-level group closed on the undo stack (or a coalesced step grew): trims now, unless a
    /// scoped group's body is running or an awaited request holds the turn.
    @inline(__always)
    func trimOrDefer() {
        guard levelsOfUndo > 0 || maximumCost > 0 else { return }
        // (Branch pruning is asked for where branches grow: see `pruneBranchesOrDefer()`.)
        if scopeDepth > 0 || requestHoldsTurn {
            // Never a step in flight, nor between the steps of a jump: the limits are applied when
            // the request ends.
            needsTrim = true
        } else {
            trimToLimits()
        }
    }

    /// Whether an awaited request (an undo, a redo, a jump, a retry, an asynchronous group) holds
    /// the turn, from its start to its end: the one rule for the limits, pruning and a change of
    /// shape set or reached meanwhile, which wait until it ends (``handOff()`` applies them before
    /// the turn passes on), so that nothing is trimmed under a step in flight or between the steps
    /// of a jump.
    ///
    /// - Complexity: O(1); one `nil` check on a stack that never used an asynchronous operation.
    @inline(__always)
    var requestHoldsTurn: Bool { operations != nil && operations!.queue.isBusy }

    /// Applies the limits, pruning and change of shape that waited (``needsTrim``), unless a scoped
    /// group's body or client code in the middle of a call (an activity) is still running. The
    /// caller has checked that no request holds the turn, or is the request ending.
    func applyLimitsThatWaited() {
        guard needsTrim && scopeDepth == 0 && activities.isEmpty else { return }
        needsTrim = false
        applyPendingHistoryShape()
        trimToLimits()
    }

    /// Drops the oldest closed steps beyond ``levelsOfUndo``, then while the undo stack's cost is
    /// over ``maximumCost`` (always keeping the newest closed step).
    ///
    /// - Complexity: O(k) for the k actions dropped.
    func trimToLimits() {
        if levelsOfUndo > 0 {
            while undoSide.closedCount > levelsOfUndo { dropOldestUndoStep() }
        }
        if let tree {
            pruneBranchesToLimit()
            if maximumCost > 0 && tree.pruningHolds > 0 {
                // A move through the tree is in progress: its way must stay; trimmed when it ends.
                needsTrim = true
            } else if maximumCost > 0 {
                // A branching history counts the branches too, and gives up their leaves first.
                while (undoSide.totalCost + tree.branchCost).exceeds(maximumCost) {
                    if pruneOneBranchStep() { continue }
                    guard undoSide.closedCount > 1 else { break }
                    dropOldestUndoStep()
                }
            }
            return
        }
        if maximumCost > 0 {
            while undoSide.totalCost.exceeds(maximumCost) && undoSide.closedCount > 1 { dropOldestUndoStep() }
        }
    }

    private func dropOldestUndoStep() {
        let step = undoSide.steps.removeFirst()
        for _ in 0..<step.actionCount { releaseAction(undoSide.removeFirstAction()) }
        if tree != nil { rootTrimmed(to: step.node) }
        if undoSide.steps.isEmpty && undoSide.frames.isEmpty { coalescer.clear() }
    }
}
