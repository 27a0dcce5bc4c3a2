// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// How a performed step settles in the history (issue 31): the one place that says where the
// document arrives and what takes the step's place. A synchronous undo or redo and an awaited one
// settle through the same rule (`settle`): the synchronous one ran with nothing else happening,
// the awaited one while other tasks' changes may have overtaken it (`finishAwaited` takes it out
// of its side first, and ends the redo future after). The step an asynchronous group recorded
// settles by `finishRecorded`; a failed awaited step by `settleFailedStep`, a failed group by
// `settleFailedRecording`; every awaited operation leaves its midway clean marks by
// `leaveMidwayMarks`. A new change ends the redo future by `endRedoFuture`, whoever made it. The step machine (`StepMachine`) decides what is told and who runs
// next; the history decides what the history becomes.

extension History {
    /// An undo (`undoing`) or a redo of a step leading from `low` to `high` ran, from the state
    /// `departure`: the document arrives where the step leads (a new state when not
    /// `everyActionRan`, or when it did not depart from where the step begins), and the step the
    /// handlers built (`builtCount` actions, with `builtMetadata`) takes its place on the other
    /// side, leading back to `stateBefore`, with its `node` (nil: `removeAllActions(withTarget:)`
    /// took the step while it ran). `place` puts it there (the built actions are already on the
    /// side, or moved onto it).
    ///
    /// A redo whose handlers built nothing leaves a do-nothing step when `keepsEmptyRedoStep`, and
    /// the step was not taken; otherwise a step that built nothing is gone, and so is its node.
    /// When other tasks recorded changes while the step ran (`sawNewChange`, only for an awaited
    /// step), those changes now lead from where it arrived (the first made after `serialMark`),
    /// and an undo's built step is kept only as a branch of a tree (the redo future ends).
    ///
    /// Returns whether a step was placed. The synchronous core's path: inlined, so that the
    /// synchronous caller's constants (`sawNewChange` false, a node) fold away.
    ///
    /// - Complexity: O(1) plus `place` (O(b log n) in a tree whose node vanishes with b branches;
    ///   O(k) for the k do-nothing steps other tasks recorded meanwhile).
    @inline(__always)
    @discardableResult
    func settle(
        undoing: Bool,
        low: StateID,
        high: StateID,
        node: NodeNumber?,
        departure: StateID,
        stateBefore: StateID,
        everyActionRan: Bool,
        builtCount: Int,
        builtMetadata: consuming StepMetadata?,
        sawNewChange: Bool,
        serialMark: UInt32,
        keepsEmptyRedoStep: @autoclosure () -> Bool,
        place: (Step) -> Void
    ) -> Bool {
        let stateAfter =
            undoing
            ? states.arrival(startingFrom: departure, from: high, to: low, everyActionRan: everyActionRan)
            : states.arrival(startingFrom: departure, from: low, to: high, everyActionRan: everyActionRan)
        if sawNewChange {
            relinkNewChanges(after: serialMark, to: stateAfter)
        } else {
            states.move(to: stateAfter)
        }
        // With other tasks' changes on top, an undo's redo future ends: its built step stays only
        // as the start of a branch.
        if builtCount > 0 && (!undoing || !sawNewChange || tree != nil) {
            place(
                makeStep(
                    count: builtCount,
                    metadata: consume builtMetadata,
                    low: undoing ? stateAfter : stateBefore,
                    high: undoing ? stateBefore : stateAfter,
                    node: node ?? 0
                )
            )
            return true
        }
        if !undoing && builtCount == 0, let node, keepsEmptyRedoStep() {
            // A step the redo's handlers left empty does nothing: it leads from where it ends.
            place(makeStep(count: 0, metadata: consume builtMetadata, low: stateAfter, high: stateAfter, node: node))
            return true
        }
        if tree != nil, let node {
            // Nothing was built: the node the step led to is gone from the history.
            nodeVanished(node)
        }
        return false
    }

    /// An awaited undo or redo of `run` succeeded (the step machine is settling it): the step
    /// leaves its side (the remote changes reported meanwhile go below it) and settles as a
    /// synchronous one does (``settle(undoing:low:high:node:departure:stateBefore:everyActionRan:builtCount:builtMetadata:sawNewChange:serialMark:keepsEmptyRedoStep:place:)``),
    /// from where the operation started: changes other tasks recorded meanwhile stay on top, now
    /// leading from where the operation arrived, and end the redo future. A redo's step goes below
    /// them.
    ///
    /// `maximumCost` and `restructuringAllowed` are the stack's, for pruning the branch the redo
    /// future may become. Returns whether a redo placed its step on the undo side (the stack then
    /// trims as after a synchronous redo).
    ///
    /// - Complexity: O(k + a) for the k steps other tasks recorded meanwhile and the a actions
    ///   built; in a tree, plus O(s log s) for the s steps held when the step built nothing or
    ///   other tasks changed the history meanwhile (the node table follows the chains again).
    @discardableResult
    func finishAwaited(
        _ run: StepInFlight, builtCount: Int, builtMetadata: StepMetadata?, keepsEmptyRedoStep: Bool,
        maximumCost: Int, restructuringAllowed: Bool
    ) -> Bool {
        let undoing = run.direction == .undo
        let built = run.built
        let source = undoing ? undoSide : redoSide
        let found = source.locateStep(serial: run.serial)
        // Nil when `removeAllActions(withTarget:)` took its every action meanwhile: no do-nothing
        // step stands in for it.
        let node = found.map { source.steps[$0.position].node }
        // The remote changes reported meanwhile, as they read once the step ran, go below it.
        if remote != nil, let found, !run.carriedBelow.isEmpty, !run.sawNewChange {
            deliver(run.carriedBelow, pastStepAt: found.position, of: source)
        }
        removeStep(serial: run.serial, from: source, passingUnseenChanges: false)
        let placed = settle(
            undoing: undoing, low: run.low, high: run.high, node: node, departure: run.stateBefore,
            stateBefore: run.stateBefore, everyActionRan: !run.skippedAny && run.ranges.allSatisfy(\.ran),
            builtCount: builtCount, builtMetadata: builtMetadata, sawNewChange: run.sawNewChange,
            serialMark: run.serialMark, keepsEmptyRedoStep: keepsEmptyRedoStep
        ) { step in
            if undoing {
                redoSide.appendActions(movedFrom: built)
                redoSide.appendStep(step)
            } else {
                // Below the changes other tasks recorded meanwhile.
                placeStep(step, movedFrom: built, onto: undoSide, at: undoSide.firstStep(madeAfter: run.serialMark))
            }
        }
        endRedoFuture(afterNewChangesOf: run, maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
        // A step that built nothing leaves its node behind; other tasks' changes made meanwhile
        // were made on the node the document was at then, and now follow where it arrived: the
        // node table follows the chains again.
        if tree != nil && (builtCount == 0 || run.sawNewChange) { resyncTree() }
        return placed && !undoing
    }

    /// An asynchronous group recorded its step (`count` actions, with `metadata`, built on
    /// `built`): a new change, which ends the redo future
    /// (``endRedoFuture(maximumCost:restructuringAllowed:)``, with the stack's `maximumCost` and
    /// `restructuringAllowed`); the step goes on top of the undo stack, below the groups open
    /// there, leading from where the group began (`stateBefore`) to the document's state now, with
    /// a node of its own. When other tasks' changes came in while the body ran (`sawNewChange`),
    /// the state the step leads back to (their changes without the group's) never existed: a fresh
    /// one. A step of no action leads from the state now to itself.
    ///
    /// - Complexity: O(a) for the a actions built (moved), plus O(1) for the open groups, plus
    ///   the end of the redo future.
    func finishRecorded(
        count: Int, metadata: consuming StepMetadata?, built: Side, stateBefore: StateID, sawNewChange: Bool,
        maximumCost: Int, restructuringAllowed: Bool
    ) {
        tree?.redoFutureIsEnding = false
        if redoSide.holdsSomething {
            endRedoFuture(maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
        }
        let high = states.current
        let low = count == 0 ? high : sawNewChange ? states.fresh() : stateBefore
        let node = makeChangeNode()
        placeStep(
            makeStep(count: count, metadata: metadata, low: low, high: high, node: node), movedFrom: built,
            onto: undoSide, at: (undoSide.steps.count, undoSide.openStart))
        if !undoSide.frames.isEmpty { undoSide.relinkOutermostFrame(low: high) }
    }

    /// A new change ends the redo future: the redo stack is emptied (a linear history, its
    /// actions released) or becomes a branch (a branching history). The one rule for every new
    /// change: a registration, a group closed empty, a join of a coalesced step, an asynchronous
    /// group's step, and (through ``endRedoFuture(afterNewChangesOf:maximumCost:restructuringAllowed:)``)
    /// a change another task made while an awaited step ran.
    ///
    /// `maximumCost` and `restructuringAllowed` are the stack's, for pruning the new branch. The
    /// caller asked `redoSide.holdsSomething` first (the stack asks it of its own reference to the
    /// side, on the registration path).
    ///
    /// - Complexity: O(r) for the r actions of a linear redo stack (released); O(1) plus pruning
    ///   in a tree.
    func endRedoFuture(maximumCost: Int, restructuringAllowed: Bool) {
        if tree != nil {
            detachRedoSide(maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
        } else {
            emptySide(redoSide)
        }
    }

    /// A new change from another task came in while `run` was in flight: the redo future ends as
    /// it would have at once (``endRedoFuture(maximumCost:restructuringAllowed:)``), and in a tree
    /// the node table follows the chains again (the step settled under that change).
    ///
    /// - Complexity: as ``endRedoFuture(maximumCost:restructuringAllowed:)``; O(s log s) more in
    ///   a tree, for the s steps held.
    func endRedoFuture(afterNewChangesOf run: StepInFlight, maximumCost: Int, restructuringAllowed: Bool) {
        tree?.redoFutureIsEnding = false
        guard run.sawNewChange, redoSide.holdsSomething else { return }
        endRedoFuture(maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
        resyncTree()
    }

    /// An awaited undo or redo of `run` failed and its rollback settled (`restored`: every action
    /// that ran was undone). A rollback that restored the document leaves the history as it was;
    /// otherwise the document is in a state the history does not know: a new one, not clean, and
    /// the step stays on its side, leading from that state (unless `removeAllActions()` took the
    /// history meanwhile). Changes other tasks recorded meanwhile keep the document's state theirs.
    ///
    /// - Complexity: O(log s) to find the step among the s steps of its side.
    func settleFailedStep(_ run: StepInFlight, restored: Bool) {
        guard !restored, !run.removedAll else { return }
        let fresh = states.fresh()
        if !run.sawNewChange { states.move(to: fresh) }
        let undoing = run.direction == .undo
        let source = undoing ? undoSide : redoSide
        guard let found = source.locateStep(serial: run.serial) else { return }
        if undoing {
            source.relinkStep(at: found.position, high: fresh)
        } else {
            source.relinkStep(at: found.position, low: fresh)
        }
    }

    /// An asynchronous group's body threw and its registrations were rolled back (`restored`:
    /// every one was undone): no step is left. When restored, the document is where the group
    /// began, plus other tasks' changes, which now lead from there; otherwise something the body
    /// did could not be undone, and the document is in a state the history does not know. A change
    /// another task made meanwhile (`sawNewChange`) ended the redo future, as it would have at once
    /// (``endRedoFuture(maximumCost:restructuringAllowed:)``, with the stack's `maximumCost` and
    /// `restructuringAllowed`). The document's state is left alone when `removeAllActions()` took
    /// the history meanwhile.
    ///
    /// - Complexity: O(k) for the k do-nothing steps at the bottom of other tasks' changes, plus
    ///   the end of the redo future.
    func settleFailedRecording(_ run: StepInFlight, restored: Bool, maximumCost: Int, restructuringAllowed: Bool) {
        tree?.redoFutureIsEnding = false
        if run.sawNewChange && redoSide.holdsSomething {
            endRedoFuture(maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
        }
        guard !run.removedAll else { return }
        if !restored {
            states.move(to: states.fresh())
        } else if run.sawNewChange {
            relinkNewChanges(after: run.serialMark, to: run.stateBefore)
        } else {
            states.move(to: run.stateBefore)
        }
    }

    /// New changes were recorded on the undo side while an operation was in flight: the oldest of
    /// them now leads back to `state`, the state the operation reached. Do-nothing steps among them
    /// (empty groups, which empty the redo stack as any new change does) lead from that state to
    /// itself; when nothing among them changed the document, the document is in that state.
    ///
    /// - Complexity: O(k) for the k do-nothing steps at the bottom of the new changes.
    func relinkNewChanges(after mark: UInt32, to state: StateID) {
        var position = undoSide.firstStep(madeAfter: mark).position
        while position < undoSide.steps.count && undoSide.steps[position].count == 0 {
            undoSide.relinkStep(at: position, low: state, high: state)
            position += 1
        }
        if position < undoSide.steps.count {
            undoSide.relinkStep(at: position, low: state)
        } else if !undoSide.frames.isEmpty {
            undoSide.relinkOutermostFrame(low: state)
            if undoSide.end == undoSide.openStart { states.move(to: state) }
        } else {
            states.move(to: state)
        }
    }

    /// An awaited operation settles: the document leaves the clean marks made while its actions ran
    /// (`markCurrentStateClean()`). Each named a new state, which the document, as the stack
    /// records it, was put in; the state it was in before is put back wherever the mark was used
    /// since (the current state, and the new changes other tasks recorded after it), so that the
    /// operation settles as if the marks had not moved it, and no node has the clean state: the
    /// document is clean again only if it comes back to exactly that state (a new mark).
    ///
    /// - Complexity: O(k) for the k steps and groups other tasks recorded meanwhile.
    func leaveMidwayMarks(of run: StepInFlight) {
        run.isMidway = false
        guard !run.midwayMarks.isEmpty else { return }
        let marks = run.midwayMarks
        run.midwayMarks = []
        func before(_ state: StateID) -> StateID {
            var state = state
            // Newest first: a mark made right after another was made from it.
            for mark in marks.reversed() where mark.mark == state { state = mark.before }
            return state
        }
        renameStates(fromStep: undoSide.firstStep(madeAfter: run.serialMark).position, before)
    }
}
