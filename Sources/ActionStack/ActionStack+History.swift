extension ActionStack {
    /// One step of the history, as a history panel shows it.
    public struct HistoryEntry {
        /// The step's action name (`""` when it has none).
        public var actionName: String
        /// The menu title the step has when it is next: "Undo Move" on the undo side, "Redo Move"
        /// on the redo side.
        public var title: String
        /// The number of actions in the step, at any depth.
        public var actionCount: Int
        /// Whether the step is discardable.
        public var isDiscardable: Bool
        /// The step's user info.
        public var userInfo: [UserInfoKey: Any]
        /// Whether the document is clean right after this step (the step that was saved).
        public var isClean: Bool
    }

    /// The steps that ``undo()`` would undo, newest first (the next to undo is first). An open
    /// step that already holds an action is included.
    ///
    /// - Complexity: O(s) for s steps.
    public var undoEntries: [HistoryEntry] {
        pruneDeadTargetsIfNeeded()
        return entries(of: undoHistory, undoSide: true)
    }

    /// The steps that ``redo()`` would redo, next to redo first.
    ///
    /// - Complexity: O(s) for s steps.
    public var redoEntries: [HistoryEntry] {
        pruneDeadTargetsIfNeeded()
        return entries(of: redoHistory, undoSide: false)
    }

    /// The current position in the whole history: the number of steps that can be undone. The
    /// positions run from 0 (everything undone) to `undoCount + redoCount` (everything redone).
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var historyPosition: Int { undoCount }

    /// Whether the document is clean at the start of the history (everything undone).
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var isCleanAtStart: Bool {
        pruneDeadTargetsIfNeeded()
        return baseStateID == cleanStateID
    }

    /// Undoes or redoes as many steps as it takes to reach `position` (see ``historyPosition``),
    /// the way a click in a history panel does.
    ///
    /// Each step posts its usual notifications; observers of ``observe(_:)`` and
    /// ``stateUpdates()`` hear of the jump once, at the end. An open automatic group is closed
    /// first, as ``undo()`` does. A position out of range is clamped. Called while an undo or redo
    /// is in progress it is the misuse ``Misuse/reentrantCall(_:during:)``.
    ///
    /// - Parameter position: The position to reach.
    /// - Complexity: O(n) for the n actions of the steps undone or redone, plus O(t) per step for t
    ///   distinct targets (it reads the counts after each step, so that a step freed meanwhile
    ///   cannot make it overshoot).
    public func jump(to position: Int) {
        defer { didMutate() }
        if refuseRestructuring(.jump) { return }
        batched {
            closeTheOneOpenUndoGroup()
            let target = Swift.max(0, Swift.min(position, undoCount + redoCount))
            while undoCount > target {
                let before = undoCount
                undo()
                if undoCount >= before { break }  // refused or nothing happened
            }
            while undoCount < target && redoCount > 0 {
                let before = redoCount
                redo()
                if redoCount >= before { break }
            }
        }
    }

    // MARK: Internals

    private func entries(of history: History, undoSide: Bool) -> [HistoryEntry] {
        var result: [HistoryEntry] = []
        result.reserveCapacity(history.groups.count)
        for index in stride(from: history.groups.count - 1, through: 0, by: -1) {
            let group = history.groups[index]
            guard group.actionCount > 0 else { continue }
            let name = group.name
            result.append(
                HistoryEntry(
                    actionName: name,
                    title: undoSide ? undoMenuTitle(forUndoActionName: name) : redoMenuTitle(forUndoActionName: name),
                    actionCount: group.actionCount,
                    isDiscardable: group.isDiscardable,
                    userInfo: group.metadata?.userInfo ?? [:],
                    isClean: group.stateID == cleanStateID
                )
            )
        }
        return result
    }
}

@available(*, unavailable, message: "A history entry may hold non-Sendable user info.")
extension ActionStack.HistoryEntry: Sendable {}
