public import Foundation

extension ActionStack {
    /// Posted when ``isClean`` changes, with the stack as object (when ``postsNotifications`` is on).
    public static let cleanStateDidChangeNotification = Notification.Name("ActionStackCleanStateDidChangeNotification")

    /// Marks the current state as clean: the document was saved.
    ///
    /// The stack then reports ``isClean`` whenever undo and redo bring the document back to this
    /// state. Registering a change after undoing past the clean point makes it unreachable until
    /// the next mark (the steps that led there are gone). Dropping the clean point's own step by
    /// ``levelsOfUndo`` or ``maximumCost`` trimming keeps it reachable as long as undoing
    /// everything still leads there; removal by target (or a freed target) never changes whether the
    /// stack is clean now, but a clean point elsewhere whose step was removed becomes unreachable.
    /// ``removeAllActions()`` makes the current state clean, like a freshly opened document. A new
    /// stack is clean.
    ///
    /// Marking also ends coalescing, so a later keystroke cannot join the saved step.
    ///
    /// ```swift
    /// try document.save()
    /// stack.markClean()
    /// stack.isClean   // true; false after the next change, true again after undoing it
    /// ```
    ///
    /// - Complexity: O(1).
    public func markClean() {
        defer { didMutate() }
        cleanStateID = currentStateID
        coalescing = nil
    }

    /// Whether the document is in the state last marked with ``markClean()`` (the saved state).
    ///
    /// A group that is open and already holds an action counts as a change.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var isClean: Bool {
        pruneDeadTargetsIfNeeded()
        return currentStateID == cleanStateID
    }

    // MARK: Internals

    /// A new state id.
    @inline(__always)
    func makeStateID() -> UInt64 {
        defer { nextStateID &+= 1 }
        return nextStateID
    }

    /// The state the document is in: that of the newest top-level undo group holding an action,
    /// or the base state when there is none.
    ///
    /// Only the newest group can be empty (an open one), so this looks at two groups at most.
    var currentStateID: UInt64 {
        var index = undoHistory.groups.count - 1
        while index >= 0 {
            let group = undoHistory.groups[index]
            if group.actionCount > 0 { return group.stateID }
            index -= 1
        }
        return baseStateID
    }

    /// Runs a removal; if the stack was clean before, it is clean after (the document did not
    /// change, only what the stack can undo).
    func keepingCleanState(_ removal: () -> Void) {
        let wasClean = currentStateID == cleanStateID
        removal()
        if wasClean { cleanStateID = currentStateID }
    }
}
