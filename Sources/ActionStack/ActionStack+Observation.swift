extension ActionStack {
    /// A snapshot of what a user interface shows of a stack.
    public struct State: Hashable, Sendable {
        /// Whether there is something to undo.
        public var canUndo: Bool
        /// Whether there is something to redo.
        public var canRedo: Bool
        /// The number of closed steps on the undo stack.
        public var undoCount: Int
        /// The number of closed steps on the redo stack.
        public var redoCount: Int
        /// The name of the step to undo, `""` when none.
        public var undoActionName: String
        /// The name of the step to redo, `""` when none.
        public var redoActionName: String
        /// The Undo title, as ``ActionStack/undoMenuItemTitle``.
        public var undoMenuItemTitle: String
        /// The Redo title, as ``ActionStack/redoMenuItemTitle``.
        public var redoMenuItemTitle: String
        /// Whether the stack is at its clean point.
        public var isClean: Bool
        /// The number of open groups.
        public var groupingLevel: Int
    }

    /// The stack's state now.
    ///
    /// Unlike reading ``canRedo``, taking a snapshot posts no notification.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var state: State {
        pruneDeadTargetsIfNeeded()
        let undoName = undoHistory.newest?.name ?? ""
        let redoName = redoHistory.newest?.name ?? ""
        let canUndo = undoHistory.hasSomethingToPerform
        let canRedo = redoHistory.hasSomethingToPerform
        return State(
            canUndo: canUndo,
            canRedo: canRedo,
            undoCount: undoHistory.closedCount,
            redoCount: redoHistory.closedCount,
            undoActionName: undoName,
            redoActionName: redoName,
            undoMenuItemTitle: undoMenuTitle(forUndoActionName: canUndo ? undoName : ""),
            redoMenuItemTitle: redoMenuTitle(forUndoActionName: canRedo ? redoName : ""),
            isClean: currentStateID == cleanStateID,
            groupingLevel: currentHistory.depth
        )
    }

    /// Calls `body` with the new ``state`` each time a call on the stack changes it: once per call
    /// (a whole undo, a jump of several steps), never in the middle of one, and never when nothing
    /// changed. Keep the returned token; the observation ends when it is cancelled or freed.
    ///
    /// ```swift
    /// let token = stack.observe { state in
    ///     undoButton.title = state.undoMenuItemTitle
    ///     undoButton.isEnabled = state.canUndo
    /// }
    /// ```
    ///
    /// `body` runs synchronously on the thread that changed the stack.
    ///
    /// - Parameter body: Called with each new state.
    /// - Returns: The token that keeps the observation alive.
    /// - Complexity: O(1); each change then costs one ``state`` snapshot while anything observes.
    public func observe(_ body: @escaping (State) -> Void) -> ObservationToken {
        if stateObservers.isEmpty { lastPublishedState = state }
        return stateObservers.add { state in
            body(state)
            return true
        }
    }

    /// The stack's states as an asynchronous sequence: the current state first, then each new one.
    ///
    /// ```swift
    /// for await state in stack.stateUpdates() {
    ///     print(state.undoMenuItemTitle)
    /// }
    /// ```
    ///
    /// The sequence ends when the stack is freed. Updates are buffered (newest kept) for a slow
    /// consumer.
    ///
    /// - Returns: The sequence of states.
    /// - Complexity: O(1).
    public func stateUpdates() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream.makeStream(of: State.self, bufferingPolicy: .bufferingNewest(64))
        if stateObservers.isEmpty { lastPublishedState = state }
        continuation.yield(state)
        stateObservers.addRetained { state in
            if case .terminated = continuation.yield(state) { return false }
            return true
        } onRemove: {
            continuation.finish()
        }
        return stream
    }

    // MARK: Internals

    /// Tells observers what changed, at the end of an outermost call.
    func publishChanges() {
        // Nothing listens: skip the work (a registration stays a few loads and stores).
        guard postsNotifications || !stateObservers.isEmpty else { return }
        let clean = currentStateID == cleanStateID
        if clean != lastReportedClean {
            lastReportedClean = clean
            post(ActionStack.cleanStateDidChangeNotification)
        }
        guard !stateObservers.isEmpty, !isPublishing else { return }
        isPublishing = true
        defer { isPublishing = false }
        let current = state
        guard current != lastPublishedState else { return }
        lastPublishedState = current
        stateObservers.notify(current)
    }

    /// Runs `body` (several steps) with observers told once, at the end.
    func batched(_ body: () -> Void) {
        batchDepth += 1
        body()
        batchDepth -= 1
    }
}

/// Keeps an observation alive; cancel it, or let it go, to stop observing.
public final class ObservationToken {
    private weak var list: (any ObserverRemoving)?
    private let id: UInt64

    init(list: any ObserverRemoving, id: UInt64) {
        self.list = list
        self.id = id
    }

    /// Stops the observation.
    ///
    /// - Complexity: O(k) for k observers.
    public func cancel() {
        list?.removeObserver(id)
        list = nil
    }

    deinit { list?.removeObserver(id) }
}

@available(*, unavailable, message: "Use an observation token where the stack is used.")
extension ObservationToken: Sendable {}

/// Something an ``ObservationToken`` can remove an observer from.
protocol ObserverRemoving: AnyObject {
    func removeObserver(_ id: UInt64)
}

/// A list of observers of values of one type.
final class ObserverList<Value>: ObserverRemoving {
    private struct Entry {
        let id: UInt64
        let body: (Value) -> Bool
        let onRemove: (() -> Void)?
    }

    // Unchecked for the reason given in `ActionStack.swift`: the list lives in its stack's isolation
    // domain, and no access to it overlaps another (`notify` iterates a copy). The check cost about
    // 75 instructions on every call on the stack, which asks `isEmpty` after each change.
    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var nextID: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }

    /// Adds an observer kept while the returned token lives.
    func add(_ body: @escaping (Value) -> Bool) -> ObservationToken {
        nextID += 1
        entries.append(Entry(id: nextID, body: body, onRemove: nil))
        return ObservationToken(list: self, id: nextID)
    }

    /// Adds an observer kept until `body` returns false or the list is freed.
    func addRetained(_ body: @escaping (Value) -> Bool, onRemove: @escaping () -> Void) {
        nextID += 1
        entries.append(Entry(id: nextID, body: body, onRemove: onRemove))
    }

    func removeObserver(_ id: UInt64) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        let entry = entries.remove(at: index)
        entry.onRemove?()
    }

    func notify(_ value: Value) {
        for entry in entries where !entry.body(value) {
            removeObserver(entry.id)
        }
    }

    deinit {
        for entry in entries { entry.onRemove?() }
    }
}
