extension ActionStack {
    /// A key for the user info of an undo step.
    public struct UserInfoKey: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
        /// The key's string.
        public let rawValue: String

        /// Creates a key from its string.
        /// - Parameter rawValue: The key's string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Creates a key from its string.
        /// - Parameter rawValue: The key's string.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Creates a key from a string literal.
        /// - Parameter value: The key's string.
        public init(stringLiteral value: String) { self.rawValue = value }
    }

    /// Names the current undo step (the open top-level group of the current stack), for titles
    /// such as "Undo Typing". An empty name clears it; the last call wins.
    ///
    /// Inside an undo handler it names the redo step being built. With no group open and
    /// ``groupsByEvent`` on, it opens the event's automatic group and names that; with
    /// ``groupsByEvent`` off it is the misuse ``Misuse/noOpenGroup(_:)``. Ignored while
    /// registration is disabled.
    ///
    /// - Parameter actionName: The name, without the "Undo" or "Redo" verb.
    /// - Complexity: O(1).
    public func setActionName(_ actionName: String) {
        updateMetadata(.setActionName) { $0.name = actionName }
    }

    /// Marks the current undo step as discardable (or not): a change that does not alter the
    /// document, such as a selection, which a document may keep out of its edited state. The last
    /// call wins. Travels with the step between the undo and redo stacks, and is reported by
    /// ``didCloseUndoGroupNotification``, ``didUndoChangeNotification`` and
    /// ``didRedoChangeNotification``.
    ///
    /// Acts on the same group as ``setActionName(_:)``, with the same rules.
    ///
    /// - Parameter discardable: Whether the step is discardable.
    /// - Complexity: O(1).
    public func setActionIsDiscardable(_ discardable: Bool) {
        updateMetadata(.setActionIsDiscardable) { $0.isDiscardable = discardable }
    }

    /// Stores `info` under `key` in the current undo step's user info; `nil` removes the key.
    ///
    /// Acts on the same group as ``setActionName(_:)``, with the same rules; the user info travels
    /// with the step between the undo and redo stacks.
    ///
    /// - Parameters:
    ///   - info: The value, or `nil` to remove the key.
    ///   - key: The key.
    /// - Complexity: O(1) amortized.
    public func setActionUserInfoValue(_ info: Any?, forKey key: UserInfoKey) {
        updateMetadata(.setActionUserInfoValue) { $0.userInfo[key] = info }
    }

    /// The name of the step that ``undo()`` would undo (an open group counts); `""` when none.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var undoActionName: String {
        pruneDeadTargetsIfNeeded()
        return undoHistory.newest?.name ?? ""
    }

    /// The name of the step that ``redo()`` would redo; `""` when none.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var redoActionName: String {
        pruneDeadTargetsIfNeeded()
        return redoHistory.newest?.name ?? ""
    }

    /// Whether the step that ``undo()`` would undo is discardable.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var undoActionIsDiscardable: Bool {
        pruneDeadTargetsIfNeeded()
        return undoHistory.newest?.isDiscardable ?? false
    }

    /// Whether the step that ``redo()`` would redo is discardable.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var redoActionIsDiscardable: Bool {
        pruneDeadTargetsIfNeeded()
        return redoHistory.newest?.isDiscardable ?? false
    }

    /// The value stored under `key` in the user info of the step that ``undo()`` would undo.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value, or `nil` when there is none.
    /// - Complexity: O(t) for t distinct targets.
    public func undoActionUserInfoValue(forKey key: UserInfoKey) -> Any? {
        pruneDeadTargetsIfNeeded()
        return undoHistory.newest?.metadata?.userInfo[key]
    }

    /// The value stored under `key` in the user info of the step that ``redo()`` would redo.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value, or `nil` when there is none.
    /// - Complexity: O(t) for t distinct targets.
    public func redoActionUserInfoValue(forKey key: UserInfoKey) -> Any? {
        pruneDeadTargetsIfNeeded()
        return redoHistory.newest?.metadata?.userInfo[key]
    }

    // MARK: Internals

    /// Applies `change` to the metadata of the open top-level group of the current stack, opening
    /// the automatic group if needed; reports the misuse when there is no group to act on.
    func updateMetadata(_ operation: Misuse.Operation, _ change: (GroupMetadata) -> Void) {
        defer { didMutate() }
        guard disableCount == 0 else { return }
        if let activity = notifyingActivity {
            report(.reentrantCall(operation, during: activity))
            return
        }
        let history = currentHistory
        var openedAutomatically = false
        if history.openPath.isEmpty {
            guard groupsByEvent else {
                report(.noOpenGroup(operation))
                return
            }
            openAutomaticGroup()
            openedAutomatically = true
        }
        let group = history.openPath[0]
        // Copy before changing: the metadata may be shared with the step it was copied from.
        let metadata = group.metadata?.copy() ?? GroupMetadata()
        change(metadata)
        group.metadata = metadata.isEmpty ? nil : metadata
        if openedAutomatically { post(ActionStack.didOpenUndoGroupNotification) }
    }
}
