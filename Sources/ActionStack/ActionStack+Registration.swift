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
    @inlinable
    public func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType,
        handler: @escaping (TargetType) -> Void
    ) {
        // Inlinable so that the action's class, `TypedAction<TargetType>`, is instantiated at the
        // call site, where the compiler knows the target's type and caches the class's metadata;
        // built inside the library, every registration paid a generic-metadata lookup (8% of the
        // instructions of a register + undo + redo, measured with callgrind).
        _registerUndo(target) { box in TypedAction(box: box, handler: handler) }
    }

    /// The non-generic body of ``registerUndo(withTarget:handler:)``.
    @usableFromInline
    func _registerUndo(_ target: AnyObject, makeAction: (TargetBox) -> Action) {
        defer { didMutate() }
        guard disableCount == 0 else { return }
        register(target, cost: 0, coalescingKey: nil, window: nil, makeAction: makeAction)
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

    /// The registration path shared by every `registerUndo` form. Registration is enabled.
    /// `makeAction` builds the action around the target's box.
    @inline(__always)
    func register<TargetType: AnyObject>(
        _ target: TargetType,
        cost: Int,
        coalescingKey: String?,
        window: Duration?,
        makeAction: (TargetBox) -> Action
    ) {
        if let activity = notifyingActivity {
            report(.reentrantCall(.registerUndo, during: activity))
            return
        }
        let history = currentHistory
        if let coalescingKey, !isPerforming, history.openPath.isEmpty,
            let group = coalescingCandidate(key: coalescingKey, target: target, window: window)
        {
            // Continue the previous step: join its (closed) group instead of opening a new one.
            clearRedoStack()
            let action = makeAction(registry.retainBox(for: target))
            group.items.append(.action(action))
            group.actionCount += 1
            group.stateID = makeStateID()
            history.totalCost += cost
            coalescing?.lastTime = coalescingClock()
            trimToLimits()
            return
        }
        if history.openPath.isEmpty && !groupsByEvent {
            report(.noOpenGroup(.registerUndo))
            return
        }
        if !isPerforming {
            clearRedoStack()
            // A registration of another kind ends coalescing; a coalescing one restarts it below.
            if coalescing != nil { coalescing = nil }
        }
        let openedAutomatically = history.openPath.isEmpty
        if openedAutomatically { openAutomaticGroup() }
        let box = registry.retainBox(for: target)
        append(.action(makeAction(box)), to: history)
        history.totalCost += cost
        // Every change made outside undo and redo is a new document state.
        if !isPerforming { history.openPath[0].stateID = makeStateID() }
        if let coalescingKey, !isPerforming {
            coalescing = CoalescingState(
                key: coalescingKey, box: box, group: history.openPath[0], lastTime: coalescingClock())
        }
        if openedAutomatically { post(ActionStack.didOpenUndoGroupNotification) }
    }

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
        for group in redoHistory.groups { releaseActions(in: group, from: redoHistory) }
        redoHistory.groups.removeAll()
        redoHistory.openPath.removeAll()
        redoHistory.totalCost = 0
    }

    /// Accounts for an action that leaves `history` (performed, trimmed, removed or cleared).
    @inline(__always)
    func release(_ action: Action, from history: History) {
        registry.release(action.box)
        if history.totalCost != 0 { history.totalCost -= action.cost }
    }

    /// Accounts for the actions of a group that leaves `history`.
    func releaseActions(in group: Group, from history: History) {
        for item in group.items {
            switch item {
            case .action(let action): release(action, from: history)
            case .group(let nested): releaseActions(in: nested, from: history)
            }
        }
    }
}
