// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    func _undo() {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.undo) { return }
        if steps.usesAwaitedSteps, routesToAsyncOperation(.undo, .undo) { return }
        // Observers of the first checkpoint run before the decision.
        postCheckpoint()
        if refusesMoveWithNestedGroupsOpen(.undo) != nil { return }
        activities.push(.preparingUndo)
        defer { activities.pop() }
        if closeTheOpenGroupBeforeMoving() && steps.usesAwaitedSteps && routesAfterClosingTheOpenGroup() { return }
        undoNewest(checkpoint: true)
    }

    func _undoNestedGroup() {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.undoNestedGroup) { return }
        if steps.usesAwaitedSteps,
            steps.refusesHistoryMoves
                || (undoSide.frames.isEmpty
                    ? nextStep(of: undoSide, noticing: mayDropFreedSteps)?.metadata?.holdsAsyncActions == true
                    : undoSide.frameMetadata?.holdsAsyncActions == true)
        {
            report(.notWhileAsync(.undoNestedGroup))
            return
        }
        undoNewest(checkpoint: true)
    }

    func _redo() {
        enterCall()
        defer { leaveCall() }
        if performingAsSeen == .undo {
            report(.redoWhileUndoing)
            return
        }
        if refusesReentrantCall(.redo) { return }
        if steps.usesAwaitedSteps, routesToAsyncOperation(.redo, .redo) { return }
        postCheckpoint()
        if refusesMoveWithNestedGroupsOpen(.redo) != nil { return }
        activities.push(.preparingRedo)
        defer { activities.pop() }
        closeTheOpenGroupBeforeMoving()
        redoNewest()
    }

    // MARK: Internals

    /// Before an undo, redo or move through the history (synchronous or awaited): with more than
    /// one group open, reports ``Misuse/nestedGroupsOpen(_:groupingLevel:)`` for `operation` and
    /// returns it; nothing changes. Foundation's undo raises then.
    ///
    /// - Complexity: O(1) beyond the misuse handler.
    @inline(__always)
    func refusesMoveWithNestedGroupsOpen(_ operation: Misuse.Operation) -> Misuse? {
        let level = undoSide.frames.count
        guard level > 1 else { return nil }
        let misuse = Misuse.nestedGroupsOpen(operation, groupingLevel: level)
        report(misuse)
        return misuse
    }

    /// Before an undo, redo or move through the history, once
    /// ``refusesMoveWithNestedGroupsOpen(_:)`` let it go on: closes the one open group, if any, as
    /// Foundation's undo does (a checkpoint, then the close with its notifications), and returns
    /// whether it did. The caller holds the activity the observers see (preparing the undo or
    /// redo, jumping) and trims as its kind of move does.
    ///
    /// - Complexity: O(1) beyond the observers; the close trims the history to the limits.
    @inline(__always)
    @discardableResult
    func closeTheOpenGroupBeforeMoving() -> Bool {
        guard undoSide.frames.count == 1 else { return false }
        postCheckpoint()
        closeInnermostFrame(of: undoSide, notify: true)
        return true
    }

    /// `undoNestedGroup()` after its refusal checks: posts its checkpoint, then undoes the newest
    /// closed group (a step, or a closed group nested in the innermost open frame). Also one step of
    /// `undo()` and `jump(to:)`. Returns whether it undid something.
    @discardableResult
    func undoNewest(checkpoint: Bool) -> Bool {
        if checkpoint { postCheckpoint() }
        if !undoSide.frames.isEmpty {
            history.dropDeadTrailingItems(ofInnermostFrameOf: undoSide)
            guard let nested = undoSide.nested.last, nested.parent == undoSide.frames.count - 1,
                nested.end == undoSide.end
            else {
                report(.undoNestedGroupWithOpenGroup)
                return false
            }
            _ = perform(.undo, from: undoSide, to: redoSide, group: .newestNested)
            return true
        }
        return performNewestStep(of: undoSide, .undo, to: redoSide)
    }

    /// One redo of the newest redo step, after the checks and the close of an open undo group.
    /// Returns whether it redid something.
    @discardableResult
    @inline(__always)
    func redoNewest() -> Bool {
        // A redo ends coalescing even when there is nothing to redo.
        history.endCoalescing()
        return performNewestStep(of: redoSide, .redo, to: undoSide)
    }

    /// Undoes (or redoes) the newest step of `side` that still has a live action; returns whether
    /// there was one.
    ///
    /// With notifications posted, freed steps are dropped from the top first, so that the will and
    /// did notifications are never posted for a step that turns out to have nothing to run (one
    /// weak load per step: its newest action). With notifications off nobody can tell, so
    /// the step is simply performed: one whose every action has a freed target runs nothing, builds
    /// nothing and is gone, exactly as if it had been dropped, and the next step is tried. Either
    /// way the only weak load per action is the one that runs its handler.
    ///
    /// Inlined into its two callers (undo and redo): it is the synchronous core's path.
    @inline(__always)
    private func performNewestStep(of side: Side, _ direction: Direction, to destination: Side) -> Bool {
        if postsNotifications { dropDeadSteps(atTopOf: side) }
        while side.steps.count != 0 {
            // A step runs only once rebased past the remote changes it has not seen.
            if history.remote != nil {
                rebaseNewestSteps(of: side)
                if side.steps.count == 0 { break }
            }
            if perform(direction, from: side, to: destination, group: .newestStep) { return true }
        }
        return false
    }

    /// Whether a redo whose handlers built nothing leaves a do-nothing step in its place, as
    /// Foundation's does: it builds that step with `beginUndoGrouping()` and `endUndoGrouping()`,
    /// which keep an empty group (unless ``dropsEmptyGroups`` is on) and do nothing while
    /// registration is disabled. (A rollback's own disable is never in the count here: a rollback
    /// refuses redo, and one run by a handler of a redo has ended before the handler returns.)
    @inline(__always)
    var keepsEmptyRedoSteps: Bool { !dropsEmptyGroups && registration.isEnabled }

    /// Which group of a side ``perform(_:from:to:group:)`` performs.
    enum NewestGroup {
        /// The newest closed step.
        case newestStep
        /// The closed group nested last in the innermost open frame (`undoNestedGroup()`).
        case newestNested
    }

    /// Undoes or redoes the newest `group` of `source`, whose actions are the last ones `source`
    /// holds. Returns false when the group turned out to have no live action (it is then gone, and
    /// nothing else changed); only possible with notifications off.
    ///
    /// Decide, then act: the group to perform is chosen before anything is posted, and the
    /// activities on the stack keep observers and handlers from restructuring the history while it
    /// runs. As in Foundation, the will-notification is posted before the group leaves the history.
    /// Each action is then removed from the end of the buffer just before it runs, so an undo costs
    /// O(1) per action whatever else the stack holds.
    func perform(_ direction: Direction, from source: Side, to destination: Side, group: NewestGroup) -> Bool {
        let undoing = direction == .undo
        let stateBefore = history.states.current
        carryOut(steps.beginSynchronous(direction))

        // Detach the group: its actions stay at the end of the buffer, in flight, until they run.
        // Observers of the will-notification could not restructure the history: it is still the
        // newest group. Its metadata moves to the step being built on the other side (no retain and
        // release of it).
        let detached = history.detachNewest(group, of: source, building: destination, from: stateBefore)
        let count = detached.count

        activities.push(undoing ? .undoing : .redoing)
        var ran = 0
        while source.inFlight > 0 {
            let action = source.takeActionInFlight()
            if action.perform() { ran &+= 1 }
            history.releaseAction(action)
        }
        postCheckpoint()
        activities.pop()

        // Close what the handlers left open inside the built group, then the built group itself,
        // silently.
        let (builtCount, builtMetadata) = history.closeBuiltStep(on: destination)

        if ran == 0 && count > 0 && !postsNotifications {
            // Every target was freed: the step was dead. Nothing ran, nothing was built or told.
            steps.vanished()
            if history.tree != nil { history.nodeVanished(detached.node) }
            return false
        }
        // Settles as an awaited step does, with nothing else having happened meanwhile: the
        // built step's actions are on `destination` already.
        history.settle(
            undoing: undoing, low: detached.low, high: detached.high, node: detached.node,
            departure: history.states.current, stateBefore: stateBefore, everyActionRan: ran == count,
            builtCount: builtCount, builtMetadata: consume builtMetadata, sawNewChange: false, serialMark: 0,
            keepsEmptyRedoStep: keepsEmptyRedoSteps
        ) { destination.appendStep($0) }
        if !undoing { trimAfterRedo() }
        carryOut(steps.finishedSynchronous(direction), discardable: detached.isDiscardable)
        return true
    }
}
