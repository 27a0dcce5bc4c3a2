// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// How a performed step settles in the history (issue 31): the one place that says where the
// document arrives and what takes the step's place, for a synchronous undo or redo
// (`finishPerformed`, run to the end without awaiting), for an awaited one (`finishAwaited`,
// which other tasks' changes may have overtaken while it awaited), and for the step an
// asynchronous group recorded (`finishRecorded`). The step machine
// (`StepMachine`) decides what is told and who runs next; the history decides what the history
// becomes.

extension History {
    /// An undo (`undoing`) or a redo of `detached` ran: the document moves to where the step leads
    /// (a new state when not `everyActionRan`, or when it was not where the step begins), and the
    /// step the handlers built (`builtCount` actions, with `builtMetadata`) takes its place on `destination`, leading back to
    /// `stateBefore`, with its node. A redo whose handlers built nothing leaves a do-nothing step
    /// when `keepsEmptyRedoStep`; otherwise a step that built nothing is gone, and so is its node.
    ///
    /// - Complexity: O(1) (O(b log n) in a tree whose node vanishes with b branches).
    @inline(__always)
    func finishPerformed(
        _ detached: DetachedStep,
        undoing: Bool,
        everyActionRan: Bool,
        builtCount: Int,
        builtMetadata: consuming StepMetadata?,
        on destination: Side,
        stateBefore: StateID,
        keepsEmptyRedoStep: @autoclosure () -> Bool
    ) {
        let stateAfter =
            undoing
            ? states.destination(from: detached.high, to: detached.low, everyActionRan: everyActionRan)
            : states.destination(from: detached.low, to: detached.high, everyActionRan: everyActionRan)
        states.move(to: stateAfter)
        if builtCount > 0 {
            destination.appendStep(
                makeStep(
                    count: builtCount,
                    metadata: consume builtMetadata,
                    low: undoing ? stateAfter : stateBefore,
                    high: undoing ? stateBefore : stateAfter,
                    node: detached.node
                )
            )
        } else if !undoing && keepsEmptyRedoStep() {
            destination.appendStep(
                makeStep(
                    count: 0, metadata: consume builtMetadata, low: stateAfter, high: stateAfter, node: detached.node))
        } else if tree != nil {
            // Nothing was built: the node the step led to is gone from the history.
            nodeVanished(detached.node)
        }
    }

    /// An awaited undo or redo of `run` succeeded (the step machine is settling it): the step
    /// leaves its side and the step its handlers built (`builtCount` actions, with
    /// `builtMetadata`) takes its place on the other, leading back to where the operation started;
    /// the remote changes reported meanwhile go below it; changes other tasks recorded meanwhile
    /// stay on top, now leading from where the operation arrived, and end the redo future. A redo
    /// whose handlers built nothing leaves a do-nothing step when `keepsEmptyRedoStep`, unless
    /// `removeAllActions(withTarget:)` took the step meanwhile.
    ///
    /// `maximumCost` and `restructuringAllowed` are the stack's, for pruning the branch the redo
    /// future may become.
    ///
    /// - Complexity: O(k + a) for the k steps other tasks recorded meanwhile and the a actions
    ///   built; in a tree, plus O(s log s) for the s steps held when the step built nothing or
    ///   other tasks changed the history meanwhile (the node table follows the chains again).
    func finishAwaited(
        _ run: StepInFlight, builtCount: Int, builtMetadata: StepMetadata?, keepsEmptyRedoStep: Bool,
        maximumCost: Int, restructuringAllowed: Bool
    ) {
        let undoing = run.direction == .undo
        let built = run.built
        let source = undoing ? undoSide : redoSide
        let found = source.locateStep(serial: run.serial)
        let node = found.map { source.steps[$0.position].node } ?? 0
        // Gone when `removeAllActions(withTarget:)` took its every action meanwhile: no do-nothing
        // step stands in for it.
        let stepVanished = found == nil
        // The remote changes reported meanwhile, as they read once the step ran, go below it.
        if remote != nil, let found, !run.carriedBelow.isEmpty, !run.sawNewChange {
            deliver(run.carriedBelow, pastStepAt: found.position, of: source)
        }
        removeStep(serial: run.serial, from: source, passingUnseenChanges: false)
        let everyActionRan = !run.skippedAny && run.ranges.allSatisfy(\.ran)
        // Measured from the state the operation started in: a new change from another task has
        // moved the document on since, and goes on top of where the operation arrives.
        let (from, to) = undoing ? (run.high, run.low) : (run.low, run.high)
        let stateAfter = states.arrival(
            startingFrom: run.stateBefore, from: from, to: to, everyActionRan: everyActionRan)
        if run.sawNewChange {
            relinkNewChanges(after: run.serialMark, to: stateAfter)
        } else {
            states.move(to: stateAfter)
        }
        let low = undoing ? stateAfter : run.stateBefore
        let high = undoing ? run.stateBefore : stateAfter
        if undoing {
            // A branching history keeps the step as the start of a branch, even when other tasks'
            // changes came in.
            if (!run.sawNewChange || tree != nil) && builtCount > 0 {
                redoSide.appendActions(movedFrom: built)
                redoSide.appendStep(
                    makeStep(count: builtCount, metadata: builtMetadata, low: low, high: high, node: node))
            }
        } else if builtCount > 0 || (keepsEmptyRedoStep && !stepVanished) {
            // A step the redo's handlers left empty does nothing: it leads from where it ends.
            let (stepLow, stepHigh) = builtCount > 0 ? (low, high) : (stateAfter, stateAfter)
            let above = undoSide.firstStep(madeAfter: run.serialMark)
            placeStep(
                makeStep(count: builtCount, metadata: builtMetadata, low: stepLow, high: stepHigh, node: node),
                movedFrom: built, onto: undoSide, at: above)
            deferTrim()
        }
        endRedoFuture(afterNewChangesOf: run, maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
        // A step that built nothing leaves its node behind; other tasks' changes made meanwhile
        // were made on the node the document was at then, and now follow where it arrived: the
        // node table follows the chains again.
        if tree != nil && (builtCount == 0 || run.sawNewChange) { resyncTree() }
    }

    /// An asynchronous group recorded its step (`count` actions, with `metadata`, built on
    /// `built`): the step goes on top of the undo stack, below the groups open there, leading
    /// from where the group began (`stateBefore`) to the document's state now, with a node of its
    /// own. When other tasks' changes came in while the body ran (`sawNewChange`), the state the
    /// step leads back to (their changes without the group's) never existed: a fresh one. A step
    /// of no action leads from the state now to itself. The caller emptied the redo side.
    ///
    /// - Complexity: O(a) for the a actions built (moved), plus O(1) for the open groups.
    func finishRecorded(
        count: Int, metadata: consuming StepMetadata?, built: Side, stateBefore: StateID, sawNewChange: Bool
    ) {
        let high = states.current
        let low = count == 0 ? high : sawNewChange ? states.fresh() : stateBefore
        let node = makeChangeNode()
        placeStep(
            makeStep(count: count, metadata: metadata, low: low, high: high, node: node), movedFrom: built,
            onto: undoSide, at: (undoSide.steps.count, undoSide.openStart))
        if !undoSide.frames.isEmpty { undoSide.relinkOutermostFrame(low: high) }
    }

    /// A new change from another task came in while `run` was in flight: the redo stack is emptied
    /// (a linear history) or becomes a branch (a branching history).
    ///
    /// - Complexity: O(r) for the r actions of a linear redo stack (released); O(1) plus pruning
    ///   in a tree.
    func endRedoFuture(afterNewChangesOf run: StepInFlight, maximumCost: Int, restructuringAllowed: Bool) {
        guard run.sawNewChange, redoSide.actions.count != 0 || redoSide.closedCount != 0 else { return }
        if tree != nil {
            detachRedoSide(maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
            resyncTree()
        } else {
            emptySide(redoSide)
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
}
