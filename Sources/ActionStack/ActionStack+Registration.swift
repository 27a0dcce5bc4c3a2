extension ActionStack {
    /// Registers `handler` as the inverse of a change made to `target`.
    ///
    /// The handler runs on undo (or redo) with the target as its argument; whatever it registers
    /// becomes the opposite step. The stack holds the target **weakly**: if the target is freed,
    /// the action never runs and no longer counts, and a step left with no live action disappears.
    /// Take the target from the handler's argument rather than capturing it strongly.
    ///
    /// ```swift
    /// func move(_ figure: Figure, to point: Point) {
    ///     let old = figure.position
    ///     stack.registerUndo(withTarget: figure) { figure in move(figure, to: old) }
    ///     figure.position = point
    /// }
    /// ```
    ///
    /// While registration is disabled, the call does nothing. Otherwise a registration outside an
    /// undo or redo empties the redo stack at once; with ``groupsByEvent`` on and no group open, it
    /// opens the event's automatic group. With no group open and ``groupsByEvent`` off, it is the
    /// misuse ``Misuse/noOpenGroup(_:)`` and nothing changes.
    ///
    /// This is the replacement for `registerUndo(withTarget:selector:object:)` and
    /// `prepare(withInvocationTarget:)`, which need the Objective-C runtime.
    ///
    /// - Parameters:
    ///   - target: The object the change was made to; held weakly.
    ///   - handler: The inverse of the change, called with `target`.
    /// - Complexity: O(1) amortized, plus O(r) to release the r actions of a redo stack it empties.
    public func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType,
        handler: @escaping (TargetType) -> Void
    ) {
        defer { didMutate() }
        guard disableCount == 0 else { return }
        if let activity = notifyingActivity {
            report(.reentrantCall(.registerUndo, during: activity))
            return
        }
        let history = currentHistory
        if history.openPath.isEmpty && !groupsByEvent {
            report(.noOpenGroup(.registerUndo))
            return
        }
        if !isPerforming { clearRedoStack() }
        let openedAutomatically = history.openPath.isEmpty
        if openedAutomatically { openAutomaticGroup() }
        let box = registry.retainBox(for: target)
        append(.action(TypedAction(box: box, handler: handler)), to: history)
        if openedAutomatically { post(ActionStack.didOpenUndoGroupNotification) }
    }

    /// Whether registration is enabled (the disable counter is zero).
    ///
    /// - Complexity: O(1).
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Disables registration, grouping and the metadata setters until a matching
    /// ``enableUndoRegistration()``. Calls nest: each disable needs its own enable.
    ///
    /// - Complexity: O(1).
    public func disableUndoRegistration() {
        defer { didMutate() }
        disableCount += 1
    }

    /// Balances one ``disableUndoRegistration()``.
    ///
    /// Without a matching disable it is the misuse ``Misuse/enableWithoutDisable`` and nothing
    /// changes.
    ///
    /// - Complexity: O(1).
    public func enableUndoRegistration() {
        defer { didMutate() }
        guard disableCount > 0 else {
            report(.enableWithoutDisable)
            return
        }
        disableCount -= 1
    }

    // MARK: Internals

    /// Appends `item` to the innermost open group of `history`.
    @inline(__always)
    func append(_ item: Item, to history: History) {
        let innermost = history.openPath[history.openPath.count - 1]
        innermost.items.append(item)
        if case .action = item {
            for group in history.openPath { group.actionCount += 1 }
        }
    }

    /// Empties the redo stack, releasing its actions.
    func clearRedoStack() {
        guard !redoHistory.groups.isEmpty else { return }
        for group in redoHistory.groups { releaseActions(in: group) }
        redoHistory.groups.removeAll()
        redoHistory.openPath.removeAll()
    }

    /// Tells the registry that the actions of a group that leaves the history are gone.
    func releaseActions(in group: Group) {
        for item in group.items {
            switch item {
            case .action(let action): registry.release(action.box)
            case .group(let nested): releaseActions(in: nested)
            }
        }
    }
}
