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
    /// - Parameter target: The object whose actions to remove.
    /// - Complexity: O(n) for the n stored actions: one pass, comparing a pointer per action.
    public func removeAllActions(withTarget target: AnyObject) {
        defer { didMutate() }
        if refuseRestructuring(.removeAllActionsWithTarget) { return }
        guard let box = registry.box(for: target) else { return }
        keepingCleanState {
            removeActions(from: undoHistory) { $0.box === box }
            removeActions(from: redoHistory) { $0.box === box }
        }
    }

    /// Removes every action whose target is `target`; the same as
    /// ``removeAllActions(withTarget:)``.
    ///
    /// - Parameter target: The object whose actions to remove.
    /// - Complexity: O(n) for the n stored actions.
    public func removeAll(withTarget target: AnyObject) {
        removeAllActions(withTarget: target)
    }

    // MARK: Internals

    /// Drops the oldest closed top-level groups beyond ``levelsOfUndo``, then while the undo
    /// stack's cost is over ``maximumCost`` (keeping the newest closed step).
    func trimToLimits() {
        guard levelsOfUndo > 0 || maximumCost > 0 else { return }
        // A step left with only freed targets must not count against the limit (it would push a
        // live step out); drop such steps first.
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
        releaseActions(in: group, from: undoHistory)
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
        guard !isPerforming, closingDepth == 0, registry.hasDeadTargets() else { return }
        keepingCleanState {
            removeActions(from: undoHistory) { !$0.box.isAlive }
            removeActions(from: redoHistory) { !$0.box.isAlive }
        }
        registry.forgetDeadTargets()
    }

    /// Removes the actions for which `shouldRemove` is true from `history`, with the closed groups
    /// this empties. One pass over the stored items.
    func removeActions(from history: History, where shouldRemove: (Action) -> Bool) {
        history.groups.retain { group in
            let removed = removeActions(in: group, of: history, where: shouldRemove)
            return group.isOpen || removed == 0 || group.actionCount > 0
        }
    }

    /// Removes matching actions at any depth of `group`; returns how many it removed.
    private func removeActions(in group: Group, of history: History, where shouldRemove: (Action) -> Bool) -> Int {
        var removed = 0
        var kept: [Item] = []
        var changed = false
        for (index, item) in group.items.enumerated() {
            var keep = true
            switch item {
            case .action(let action):
                if shouldRemove(action) {
                    release(action, from: history)
                    removed += 1
                    keep = false
                }
            case .group(let nested):
                let removedInside = removeActions(in: nested, of: history, where: shouldRemove)
                removed += removedInside
                keep = nested.isOpen || removedInside == 0 || nested.actionCount > 0
            }
            if !keep && !changed {
                changed = true
                kept.reserveCapacity(group.items.count - 1)
                kept.append(contentsOf: group.items[..<index])
            } else if keep && changed {
                kept.append(item)
            }
        }
        if changed { group.items = ItemList(kept) }
        group.actionCount -= removed
        return removed
    }
}
