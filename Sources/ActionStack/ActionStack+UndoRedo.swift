extension ActionStack {
    /// Whether there is something to undo: a closed top-level group, or an open one that already
    /// holds an action.
    ///
    /// - Complexity: O(t) for t distinct targets (to notice freed targets).
    public var canUndo: Bool {
        pruneDeadTargetsIfNeeded()
        return undoHistory.hasSomethingToPerform
    }

    /// Whether there is something to redo. Reading it posts ``checkpointNotification``, as
    /// Foundation does.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var canRedo: Bool {
        postCheckpoint()
        pruneDeadTargetsIfNeeded()
        return redoHistory.hasSomethingToPerform
    }

    /// The number of closed top-level groups on the undo stack.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var undoCount: Int {
        pruneDeadTargetsIfNeeded()
        return undoHistory.closedCount
    }

    /// The number of closed top-level groups on the redo stack.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var redoCount: Int {
        pruneDeadTargetsIfNeeded()
        return redoHistory.closedCount
    }

    /// Undoes the newest top-level group.
    ///
    /// If exactly one group is open on the undo stack (typically the event's automatic group), it
    /// is closed first, even while registration is disabled; with more than one open it is the
    /// misuse ``Misuse/undoWithNestedGroupsOpen(groupingLevel:)`` and nothing changes. Then it
    /// behaves as ``undoNestedGroup()``. With nothing to undo it returns quietly. Called during an
    /// undo or redo (from a handler or an observer) it is the misuse
    /// ``Misuse/reentrantCall(_:during:)``.
    ///
    /// ```swift
    /// if stack.canUndo { stack.undo() }
    /// ```
    ///
    /// - Complexity: O(n) for the n actions of the group, O(1) amortized per action (freed
    ///   targets are looked for only in the steps it performs or drops, not among all targets), plus
    ///   the trimming cost of ``endUndoGrouping()`` if it closes an open group first.
    public func undo() {
        defer { didMutate() }
        if refuseRestructuring(.undo) { return }
        postCheckpoint()
        closeTheOneOpenUndoGroup()
        // Read the depth again: the close's observers may have opened a group.
        guard undoHistory.depth == 0 else {
            report(.undoWithNestedGroupsOpen(groupingLevel: undoHistory.depth))
            return
        }
        undoNestedGroup()
    }

    /// Undoes the newest closed group: a closed top-level group, or a closed group nested in a
    /// still-open outer group, which is then undone alone.
    ///
    /// Runs every action of the group, newest first, with ``isUndoing`` set; what the handlers
    /// register forms one group on the redo stack, carrying the undone group's name, discardable
    /// flag and user info (a redo group that receives nothing is dropped). Posts
    /// ``checkpointNotification``, ``willUndoChangeNotification`` and
    /// ``didUndoChangeNotification``. With nothing to undo it returns quietly; when the newest
    /// item is an action or an open group it is the misuse ``Misuse/undoNestedGroupWithOpenGroup``.
    ///
    /// - Complexity: O(n) for the n actions of the group, plus O(d) for d actions of freed-target
    ///   steps it drops; O(t) for t distinct targets when the group is nested in an open one.
    public func undoNestedGroup() {
        defer { didMutate() }
        if refuseRestructuring(.undoNestedGroup) { return }
        coalescing = nil
        // Observers run synchronously, so none can leave an undo or redo in progress: the checks
        // above still hold after the checkpoint.
        postCheckpoint()
        if let innermost = undoHistory.innermostOpen {
            // The rare nested case: a full check, which is simpler than looking inside the group.
            pruneDeadTargetsIfNeeded()
            guard case .group(let nested)? = innermost.items.last, !nested.isOpen else {
                report(.undoNestedGroupWithOpenGroup)
                return
            }
            perform(nested, from: undoHistory, nestedIn: innermost, undoing: true)
        } else {
            dropDeadNewestSteps(of: undoHistory, keepingClean: true)
            guard let newest = undoHistory.groups.last else { return }
            perform(newest, from: undoHistory, nestedIn: nil, undoing: true)
            // The step now on top of the undo stack decides the document state: if its targets have
            // died, it goes now, as the full check before the undo would have removed it (without
            // moving the clean point: it was not the newest step then).
            dropDeadNewestSteps(of: undoHistory, keepingClean: false)
        }
    }

    /// Redoes the newest group on the redo stack: the mirror image of ``undo()``, with
    /// ``isRedoing`` set, the handlers' registrations going to the undo stack (without clearing
    /// the redo stack), and ``levelsOfUndo`` trimming when that group closes.
    ///
    /// With nothing to redo it returns quietly. From inside an undo it is the misuse
    /// ``Misuse/redoWhileUndoing``; from inside a redo, ``Misuse/reentrantCall(_:during:)``.
    ///
    /// - Complexity: O(n) for the n actions of the group, plus O(d) for d actions of freed-target
    ///   steps it drops.
    public func redo() {
        defer { didMutate() }
        if isUndoing {
            report(.redoWhileUndoing)
            return
        }
        if refuseRestructuring(.redo) { return }
        coalescing = nil
        postCheckpoint()
        dropDeadNewestSteps(of: redoHistory, keepingClean: true)
        guard let newest = redoHistory.groups.last else { return }
        perform(newest, from: redoHistory, nestedIn: nil, undoing: false)
    }

    // MARK: Internals

    /// `undo()` and `jump(to:)` first close the one group open on the undo stack (the event's
    /// automatic group, or one explicit group), even while registration is disabled, as
    /// `endUndoGrouping()` would: checkpoint, will-close, close, did-close.
    func closeTheOneOpenUndoGroup() {
        guard undoHistory.depth == 1 else { return }
        postCheckpoint()
        closeInnermostGroup(of: undoHistory, notify: true)
    }

    /// Undoes or redoes `group`, the newest closed group of `source` (a top-level group, or the
    /// last item of the open group `parent`).
    func perform(_ group: Group, from source: History, nestedIn parent: Group?, undoing: Bool) {
        if undoing { isUndoing = true } else { isRedoing = true }
        post(undoing ? ActionStack.willUndoChangeNotification : ActionStack.willRedoChangeNotification)

        // Detach the group. Observers could not restructure the stacks, so it is still the newest.
        if let parent {
            parent.items.removeLast()
            for open in source.openPath { open.actionCount -= group.actionCount }
        } else {
            source.groups.removeLast()
        }

        // Build the opposite step on the other side; it carries the group's metadata.
        let destination = undoing ? redoHistory : undoHistory
        let baseDepth = destination.depth
        let opposite = pushGroup(
            on: destination,
            metadata: parent == nil ? group.metadata : nil,
            stateID: parent == nil ? group.stateID : nil
        )
        let savedProtectedDepth = protectedDepth
        protectedDepth = baseDepth + 1
        isRunningHandlers = true

        group.forEachActionNewestFirst { action in
            _ = action.perform()
            release(action, from: source)
        }

        postCheckpoint()
        isRunningHandlers = false
        // Close what the handlers left open, then the opposite group itself (silently).
        while destination.depth > baseDepth + 1 {
            destination.openPath.removeLast().isOpen = false
        }
        protectedDepth = savedProtectedDepth
        if destination.depth == 1 {
            closeInnermostGroup(of: destination, notify: false)
        } else {
            destination.openPath.removeLast()
            opposite.isOpen = false
        }

        post(
            undoing ? ActionStack.didUndoChangeNotification : ActionStack.didRedoChangeNotification,
            discardable: group.isDiscardable
        )
        if undoing { isUndoing = false } else { isRedoing = false }
    }
}
