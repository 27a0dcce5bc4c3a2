// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The history's removals: emptying the history or a side, removing a target's actions (and freed
// targets' actions) from every side and branch with the groups this empties, and dropping freed
// steps from the top of a side. Each keeps the document states, the coalescer and the tree right:
// a step that loses some of its actions no longer leads back to where it began, and a step or node
// that goes takes coalescing and its node with it.

extension History {
    // MARK: Emptying

    /// Empties the history (``ActionStack/removeAllActions()``): both sides, open groups included,
    /// the branches (a tree starts again from a new root), the targets; ends coalescing and marks
    /// the document clean, like a freshly opened one.
    ///
    /// - Complexity: O(n) for the n stored actions (they are released).
    func removeAll() {
        noteChangeNeedingSnapshot()
        emptySide(undoSide)
        emptySide(redoSide)
        if tree != nil { resetTree() }
        registry.removeAll()
        coalescer.clear()
        states.markClean()
    }

    /// Releases everything `side` holds (its open frames included), except actions in flight.
    ///
    /// - Complexity: O(n) for the n actions released.
    func emptySide(_ side: Side) {
        while side.actions.count > side.inFlight {
            registry.release(side.removeLastAction().unmanagedBox)
        }
        side.removeAll()
    }

    // MARK: A target's actions

    /// Removes every action on `box` (one of a target's boxes) from both sides and the branches, with
    /// the groups this empties (see ``compact(_:removing:)``); removing the target of the step being
    /// coalesced ends coalescing.
    ///
    /// - Complexity: O(n) for the n stored actions.
    func removeActions(on box: TargetBox) {
        coalescer.forget(box)
        compact(undoSide) { $0.isOn(box) }
        compact(redoSide) { $0.isOn(box) }
        if tree != nil { compactBranches { $0.isOn(box) } }
    }

    /// The continuation of a coalesced step ends with the event (the metadata setters no longer
    /// act on the joined step); the step may still be continued by a registration.
    func coalescingEventEnded() { coalescer.eventEnded() }

    // MARK: Freed targets

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
        let isUndoSide = side === undoSide
        while let step = side.steps.last, step.count > 0 {
            if side.action(at: side.end - 1).isTargetAlive { return }
            let removed = side.removeNewestActionOfNewestStep(isUndoSide: isUndoSide) { states.fresh() }
            releaseAction(removed.action)
            if let emptied = removed.emptied {
                // The remote changes it had not seen pass on, then its node goes.
                if remote != nil { passUnseenChanges(of: emptied, droppedFrom: side, below: side.steps.count) }
                if tree != nil { nodeVanished(emptied.node) }
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
                side.removeLastNestedGroup()
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
            side.freshenOpenFrames { states.fresh() }
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
        side.compact(
            removing: shouldRemove,
            isUndoSide: side === undoSide,
            release: { releaseAction($0) },
            fresh: { states.fresh() },
            // The remote changes a step that goes had not seen pass on to the steps beyond it, and
            // in a tree the branches that left from its node leave from the node before it at once
            // (the resync after the compaction would move them only once every side is done, and a
            // change handed on meanwhile, by a step of this side above it or by another side,
            // would miss them).
            dropped: remote == nil
                ? nil
                : { step, below in
                    self.passUnseenChanges(of: step, droppedFrom: side, below: below)
                    self.moveBranches(leavingFromNodeOf: step, droppedFrom: side, below: below)
                }
        )
    }

    // MARK: One step

    /// Removes the closed step with `serial` from `side`, wherever it is, releasing its actions.
    /// The remote changes it had not seen pass on to the steps beyond it (unless it leaves because
    /// it was performed: `passingUnseenChanges` false).
    ///
    /// - Complexity: O(a + s) for the a actions and s steps above it, plus its own.
    func removeStep(serial: UInt32, from side: Side, passingUnseenChanges: Bool = true) {
        guard let found = side.locateStep(serial: serial) else { return }
        if passingUnseenChanges && remote != nil {
            deliver(side.takeUnseenChanges(ofStepAt: found.position), pastStepAt: found.position, of: side)
        }
        let count = side.steps[found.position].actionCount
        side.lifting(stepsFrom: found.position + 1, actionsFrom: found.start + count) {
            for _ in 0..<count { releaseAction(side.removeLastAction()) }
            side.removeLastStep()
        }
    }

    /// The document's states named `rename` maps are renamed: in the current state, and in the
    /// undo side's steps from `position` on, its frames and nested groups (an asynchronous
    /// operation settling leaves the clean marks made while it ran: see
    /// ``leaveMidwayMarks(of:)``).
    ///
    /// - Complexity: O(s + f) for the s steps renamed and f frames and nested groups.
    func renameStates(fromStep position: Int, _ rename: (StateID) -> StateID) {
        states.move(to: rename(states.current))
        undoSide.renameStates(fromStep: position, rename)
    }
}
