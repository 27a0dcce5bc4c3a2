extension ActionStack {
    /// Runs `body` inside a group that always closes; if `body` throws, what it registered is
    /// undone and dropped, and the error is passed on.
    ///
    /// ```swift
    /// try stack.group(named: "Import") {
    ///     for row in rows {
    ///         try table.insert(row)   // registers its inverse; may throw
    ///     }
    /// }
    /// // Success: one "Undo Import" step. Failure: the table is as it was, no step is left.
    /// ```
    ///
    /// On success the group is named `name` (when given; inside an enclosing group the name goes to
    /// the top-level group, as ``setActionName(_:)`` does) and closed, along with any group the
    /// body left open. On a throw, the group is closed with its notifications, taken out of the
    /// history, and its actions run newest first with registration disabled, so the model returns
    /// to where it was and nothing half-done stays; the redo stack that the body's registrations
    /// cleared stays cleared. Works nested and inside undo handlers. While registration is
    /// disabled, `body` simply runs.
    ///
    /// - Parameters:
    ///   - name: The step's name, or `nil` to leave it.
    ///   - body: The changes to make as one step.
    /// - Returns: What `body` returns.
    /// - Complexity: O(1) amortized beyond `body`; on a throw, O(n) for the n actions rolled back.
    @discardableResult
    public func group<Result>(named name: String? = nil, _ body: () throws -> Result) rethrows -> Result {
        let history = currentHistory
        let depthBefore = history.depth
        beginUndoGrouping()
        guard history.depth > depthBefore, let scope = history.innermostOpen else {
            return try body()
        }
        do {
            let result = try body()
            if let name, history.openPath.contains(where: { $0 === scope }) { setActionName(name) }
            closeScope(scope, in: history)
            return result
        } catch {
            rollBack(scope, in: history)
            throw error
        }
    }

    // MARK: Internals

    /// Closes `scope` and whatever the body left open inside it.
    private func closeScope(_ scope: Group, in history: History) {
        guard history.openPath.contains(where: { $0 === scope }) else { return }
        while let innermost = history.innermostOpen {
            postCheckpoint()
            closeInnermostGroup(of: history, notify: !isPerforming)
            if innermost === scope { break }
        }
        didMutate()
    }

    /// Takes `scope` out of the history and undoes its actions without recording anything.
    private func rollBack(_ scope: Group, in history: History) {
        defer { didMutate() }
        if let index = history.openPath.firstIndex(where: { $0 === scope }) {
            // Close the groups the body left open inside the scope (they become part of it).
            while history.depth > index + 1 {
                postCheckpoint()
                closeInnermostGroup(of: history, notify: !isPerforming)
            }
            let notify = !isPerforming
            postCheckpoint()
            if notify { withWindow(.closingGroup) { post(ActionStack.willCloseUndoGroupNotification) } }
            history.openPath.removeLast()
            scope.isOpen = false
            detach(scope, from: history)
            if notify { post(ActionStack.didCloseUndoGroupNotification) }
        } else if history.openPath.isEmpty, history.groups.last === scope {
            detach(scope, from: history)  // the body closed its own group, then threw
        } else if case .group(let last)? = history.innermostOpen?.items.last, last === scope {
            detach(scope, from: history)
        } else {
            return  // the scope is no longer the newest step: leave the history alone
        }
        let savedDisableCount = disableCount
        disableCount += 1
        withWindow(.rollingBack) {
            scope.forEachActionNewestFirst { action in
                _ = action.perform()
                release(action, from: history)
            }
        }
        disableCount = savedDisableCount
    }

    /// Removes the closed group `group` from where it is the newest item of `history`.
    private func detach(_ group: Group, from history: History) {
        if let parent = history.innermostOpen {
            parent.items.removeLast()
            for open in history.openPath { open.actionCount -= group.actionCount }
        } else {
            history.groups.removeLast()
            if history === undoHistory { pendingCloseToken = nil }
        }
    }
}
