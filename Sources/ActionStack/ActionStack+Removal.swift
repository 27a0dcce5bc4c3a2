extension ActionStack {
    /// Empties both stacks, open groups included (``groupingLevel`` returns to 0), re-enables
    /// registration (the disable counter returns to 0) and cancels the pending automatic close.
    /// Posts nothing.
    ///
    /// Called while an undo or redo is in progress (from a handler or an observer) it is the
    /// misuse ``Misuse/reentrantCall(_:during:)`` and nothing changes.
    ///
    /// - Complexity: O(n) for the n stored actions (they are released).
    public func removeAllActions() {
        defer { didMutate() }
        if refuseRestructuring(.removeAllActions) { return }
        undoHistory.groups.removeAll()
        undoHistory.openPath.removeAll()
        redoHistory.groups.removeAll()
        redoHistory.openPath.removeAll()
        undoHistory.totalCost = 0
        redoHistory.totalCost = 0
        registry.removeAll()
        coalescing = nil
        baseStateID = makeStateID()
        cleanStateID = baseStateID
        disableCount = 0
        pendingCloseToken = nil
        isUndoing = false
        isRedoing = false
    }

    /// Removes every action whose target is `target` (by identity) from both stacks.
    ///
    /// A closed group that this leaves empty is removed too, cascading outwards (an emptied nested
    /// group, then its emptied parent); groups that were already empty, and open groups, stay.
    /// Posts nothing and does not touch the disable counter.
    ///
    /// Called while an undo or redo is in progress it is the misuse
    /// ``Misuse/reentrantCall(_:during:)`` and nothing changes: the group being undone has left
    /// the stack but has not finished running, so there is no single right answer.
    ///
    /// The parameter is `Any`, as in Foundation; only an object can be a target, so a value removes
    /// nothing.
    ///
    /// - Parameter target: The object whose actions to remove.
    /// - Complexity: O(n) for the n stored actions: one pass, comparing a pointer per action.
    public func removeAllActions(withTarget target: Any) {
        defer { didMutate() }
        if refuseRestructuring(.removeAllActionsWithTarget) { return }
        // A value type boxes into a new object here, which no action refers to.
        guard let box = registry.box(for: target as AnyObject) else { return }
        keepingCleanState {
            removeActions(from: undoHistory, matching: SameTarget(box: box))
            removeActions(from: redoHistory, matching: SameTarget(box: box))
        }
    }

    /// Removes every action whose target is `target`; the same as
    /// ``removeAllActions(withTarget:)``.
    ///
    /// - Parameter target: The object whose actions to remove.
    /// - Complexity: O(n) for the n stored actions.
    public func removeAll(withTarget target: Any) {
        removeAllActions(withTarget: target)
    }

    // MARK: Internals

    /// Drops the oldest closed top-level groups beyond ``levelsOfUndo``, then while the undo
    /// stack's cost is over ``maximumCost`` (keeping the newest closed step).
    func trimToLimits() {
        let overLevels = levelsOfUndo > 0 && undoHistory.closedCount > levelsOfUndo
        let overCost = maximumCost > 0 && undoHistory.totalCost > maximumCost
        guard overLevels || overCost else { return }
        // A step left with only freed targets must not count against the limit (it would push a
        // live step out); drop such steps first. This is the one O(targets) check on this path,
        // paid only when a step is about to be dropped.
        pruneDeadTargetsIfNeeded()
        if levelsOfUndo > 0 {
            while undoHistory.closedCount > levelsOfUndo { dropOldestUndoStep() }
        }
        if maximumCost > 0 {
            let keep = undoHistory.openPath.isEmpty ? 1 : 0
            while undoHistory.totalCost > maximumCost && undoHistory.closedCount > keep { dropOldestUndoStep() }
        }
    }

    private func dropOldestUndoStep() {
        let group = undoHistory.groups.removeFirst()
        // Undoing everything now leads to the state right after the dropped step.
        baseStateID = group.stateID
        forget(group, from: undoHistory)
    }

    /// Accounts for a top-level group dropped from `history`: its actions leave the stack, and
    /// coalescing can no longer join it.
    private func forget(_ group: Group, from history: History) {
        releaseActions(in: group, from: history)
        if coalescing?.group === group { coalescing = nil }
    }

    /// Drops the actions of freed targets, with the groups this empties, when a target has died.
    ///
    /// Runs before every query and every undo or redo, so a step made only of dead actions is never
    /// seen. It does not run while an undo or redo is in progress or a mid-operation notification
    /// is posted (it would restructure the stacks under that operation); dead actions are still
    /// never run.
    ///
    /// - Complexity: O(t) for t distinct targets when none died; O(n) for n stored actions
    ///   when one did.
    func pruneDeadTargetsIfNeeded() {
        guard !isPerforming, windowDepth == 0, registry.hasDeadTargets() else { return }
        keepingCleanState {
            removeActions(from: undoHistory, matching: FreedTarget())
            removeActions(from: redoHistory, matching: FreedTarget())
        }
        registry.forgetDeadTargets()
    }

    /// Drops the newest closed top-level groups of `history` while every action in them has a
    /// freed target.
    ///
    /// Undo and redo call this instead of ``pruneDeadTargetsIfNeeded()``: the step they perform
    /// must not be one made only of dead actions, but looking at every distinct target on each
    /// undo would make it O(targets). Dead steps deeper in the history are left for the next
    /// query, which removes them before it can observe them; they cannot move the clean point
    /// there (only the newest step decides the document state). With `keepingClean`, dropping
    /// keeps the stack clean if it was (a removal, as ``pruneDeadTargetsIfNeeded()`` does).
    ///
    /// - Complexity: O(k) for the k actions looked at: a group's first live action ends the look.
    func dropDeadNewestSteps(of history: History, keepingClean: Bool) {
        guard !isPerforming, windowDepth == 0, history.openPath.isEmpty,
            let newest = history.groups.last, !newest.hasLiveAction
        else { return }
        let wasClean = currentStateID == cleanStateID
        while let newest = history.groups.last, !newest.hasLiveAction {
            forget(history.groups.removeLast(), from: history)
        }
        if keepingClean && wasClean { cleanStateID = currentStateID }
    }

    /// Removes the actions that `matcher` matches from `history`, with the closed groups this
    /// empties. One pass over the stored items; generic so that the matcher is specialised and
    /// inlined rather than called through a closure for each action.
    func removeActions<Matcher: ActionMatcher>(from history: History, matching matcher: Matcher) {
        history.groups.retain { group in
            let removed = removeActions(in: group, of: history, matching: matcher)
            return group.isOpen || removed == 0 || group.actionCount > 0
        }
    }

    /// Removes matching actions at any depth of `group`; returns how many it removed. Allocates
    /// only when something is removed.
    private func removeActions<Matcher: ActionMatcher>(
        in group: Group,
        of history: History,
        matching matcher: Matcher
    ) -> Int {
        let count = group.items.count
        // Most steps hold one action that does not match: decide those without the loop.
        if let action = group.items.onlyAction, !matcher.matches(action) { return 0 }
        var removed = 0
        var kept: [Item]?
        for index in 0..<count {
            let item = group.items[index]
            let keep: Bool
            switch item {
            case .action(let action):
                keep = !matcher.matches(action)
                if !keep {
                    release(action, from: history)
                    removed += 1
                }
            case .group(let nested):
                let removedInside = removeActions(in: nested, of: history, matching: matcher)
                removed += removedInside
                keep = nested.isOpen || removedInside == 0 || nested.actionCount > 0
            }
            if !keep && kept == nil {
                kept = Array(group.items[0..<index])
            } else if keep && kept != nil {
                kept!.append(item)
            }
        }
        if let kept { group.items = ItemList(kept) }
        group.actionCount -= removed
        return removed
    }
}

/// Says which actions a removal takes out.
protocol ActionMatcher {
    func matches(_ action: Action) -> Bool
}

/// The actions of one target (its box, compared by identity).
struct SameTarget: ActionMatcher {
    let box: TargetBox
    @inline(__always) func matches(_ action: Action) -> Bool { action.box === box }
}

/// The actions whose target has been freed.
struct FreedTarget: ActionMatcher {
    @inline(__always) func matches(_ action: Action) -> Bool { !action.box.isAlive }
}
