extension ActionStack {
    func _undo() {
        enterCall()
        defer { leaveCall() }
        if let activity = activities.refusing(.undo) {
            report(.reentrantCall(.undo, during: activity))
            return
        }
        // Observers of the first checkpoint run before the decision.
        postCheckpoint()
        let level = undoSide.frames.count
        guard level < 2 else {
            report(.nestedGroupsOpen(.undo, groupingLevel: level))
            return
        }
        activities.push(.preparingUndo)
        defer { activities.pop() }
        if level == 1 {
            postCheckpoint()
            closeInnermostFrame(of: undoSide, notify: true)
        }
        undoNewest(checkpoint: true)
    }

    func _undoNestedGroup() {
        enterCall()
        defer { leaveCall() }
        if let activity = activities.refusing(.undoNestedGroup) {
            report(.reentrantCall(.undoNestedGroup, during: activity))
            return
        }
        undoNewest(checkpoint: true)
    }

    func _redo() {
        enterCall()
        defer { leaveCall() }
        if performing == .undo {
            report(.redoWhileUndoing)
            return
        }
        if let activity = activities.refusing(.redo) {
            report(.reentrantCall(.redo, during: activity))
            return
        }
        postCheckpoint()
        let level = undoSide.frames.count
        guard level < 2 else {
            report(.nestedGroupsOpen(.redo, groupingLevel: level))
            return
        }
        activities.push(.preparingRedo)
        defer { activities.pop() }
        if level == 1 {
            postCheckpoint()
            closeInnermostFrame(of: undoSide, notify: true)
        }
        redoNewest()
    }

    // MARK: Internals

    /// `undoNestedGroup()` after its refusal checks: posts its checkpoint, then undoes the newest
    /// closed group (a step, or a closed group nested in the innermost open frame). Also one step of
    /// `undo()` and `jump(to:)`. Returns whether it undid something.
    @discardableResult
    func undoNewest(checkpoint: Bool) -> Bool {
        if checkpoint { postCheckpoint() }
        if !undoSide.frames.isEmpty {
            dropDeadTrailingItems(ofInnermostFrameOf: undoSide)
            guard let nested = undoSide.nested.last, nested.parent == undoSide.frames.count - 1,
                nested.end == undoSide.end
            else {
                report(.undoNestedGroupWithOpenGroup)
                return false
            }
            coalescer.clear()
            perform(
                .undo,
                from: undoSide,
                count: nested.count,
                metadata: nil,
                low: nested.low,
                high: nested.high,
                topLevel: false
            ) { side in _ = side.nested.removeLast() }
            return true
        }
        coalescer.clear()
        dropDeadSteps(atTopOf: undoSide)
        guard let step = undoSide.steps.last else { return false }
        perform(
            .undo, from: undoSide, count: step.actionCount, metadata: step.metadata, low: step.low, high: step.high,
            topLevel: true
        ) {
            side in _ = side.steps.removeLast()
        }
        return true
    }

    /// One redo of the newest redo step, after the checks and the close of an open undo group.
    /// Returns whether it redid something.
    @discardableResult
    func redoNewest() -> Bool {
        coalescer.clear()
        dropDeadSteps(atTopOf: redoSide)
        guard let step = redoSide.steps.last else { return false }
        perform(
            .redo, from: redoSide, count: step.actionCount, metadata: step.metadata, low: step.low, high: step.high,
            topLevel: true
        ) {
            side in _ = side.steps.removeLast()
        }
        return true
    }

    /// Undoes or redoes the newest closed group of `source`, whose `count` actions are the last
    /// ones `source` holds; `detach` takes the group's record out of `source`.
    ///
    /// Decide, then act: the group to perform is chosen before anything is posted, and the
    /// activities on the stack keep observers and handlers from restructuring the history while it
    /// runs. Each action is removed from the end of the buffer just before it runs, so an undo
    /// costs O(1) per action whatever else the stack holds.
    func perform(
        _ direction: Direction,
        from source: Side,
        count: Int,
        metadata: StepMetadata?,
        low: UInt64,
        high: UInt64,
        topLevel: Bool,
        detach: (Side) -> Void
    ) {
        let undoing = direction == .undo
        let destination = undoing ? redoSide : undoSide
        let notifying: Misuse.Activity = undoing ? .notifyingUndo : .notifyingRedo
        let stateBefore = states.current
        performing = direction

        if postsNotifications {
            activities.push(notifying)
            post(undoing ? ActionStack.willUndoChangeNotification : ActionStack.willRedoChangeNotification)
            activities.pop()
        }

        // Detach the group: its actions stay at the end of the buffer, in flight, until they run.
        detach(source)
        source.inFlight = count
        if topLevel { source.newestStepFrameID = nil }

        // Build the opposite step on the other side; it carries the group's metadata.
        let built = Frame(start: destination.end, low: stateBefore, id: nextFrameID)
        nextFrameID &+= 1
        destination.frames.append(built)
        destination.frameMetadata = metadata

        activities.push(undoing ? .undoing : .redoing)
        var everyActionRan = true
        while source.inFlight > 0 {
            let action = source.actions.removeLast()
            source.inFlight &-= 1
            if action.cost != 0 { source.totalCost -= action.cost }
            if !action.perform() { everyActionRan = false }
            registry.release(action.box)
        }
        postCheckpoint()
        activities.pop()

        // Close what the handlers left open inside the built group, then the built group itself,
        // silently.
        while destination.frames.count > 1 { closeNestedFrame(of: destination) }
        destination.frames.removeLast()
        destination.nested.removeAll()
        let builtMetadata = destination.frameMetadata
        destination.frameMetadata = nil
        let builtCount = destination.end - built.start

        let stateAfter =
            undoing
            ? states.destination(from: high, to: low, everyActionRan: everyActionRan)
            : states.destination(from: low, to: high, everyActionRan: everyActionRan)
        states.move(to: stateAfter)

        destination.newestStepFrameID = nil
        if builtCount > 0 {
            destination.steps.append(
                Step(
                    count: Int32(builtCount),
                    metadata: builtMetadata,
                    low: undoing ? stateAfter : stateBefore,
                    high: undoing ? stateBefore : stateAfter
                )
            )
        } else if !undoing && !dropsEmptyGroups {
            // Foundation keeps the step a redo builds even when its handlers registered nothing.
            destination.steps.append(Step(count: 0, metadata: builtMetadata, low: stateAfter, high: stateAfter))
        }
        if !undoing { trimOrDefer() }

        if postsNotifications {
            activities.push(notifying)
            post(
                undoing ? ActionStack.didUndoChangeNotification : ActionStack.didRedoChangeNotification,
                discardable: topLevel && (metadata?.isDiscardable ?? false)
            )
            activities.pop()
        }
        performing = nil
    }
}
