extension ActionStack {
    /// How a registration joins the history: its cost (see ``ActionStack/maximumCost``) and
    /// whether it continues the previous step (coalescing).
    ///
    /// ```swift
    /// // Typing: keystrokes within a second of each other are one step.
    /// stack.registerUndo(withTarget: field, options: .coalescing("typing", within: .seconds(1))) { field in
    ///     field.deleteLastCharacter()
    /// }
    /// ```
    public struct RegistrationOptions: Hashable, Sendable {
        /// What the action keeps alive (for example, bytes), counted against
        /// ``ActionStack/maximumCost``. Default 0.
        public var cost: Int
        /// When set, the registration continues the previous step if that step was made by
        /// registrations with the same key on the same target, with no break in between.
        public var coalescingKey: String?
        /// When set with ``coalescingKey``, a pause longer than this since the step's last
        /// registration starts a new step.
        public var coalescingWindow: Duration?

        /// Creates options.
        /// - Parameters:
        ///   - cost: The registration's cost; default 0.
        ///   - coalescingKey: The kind of change, for coalescing; default none.
        ///   - coalescingWindow: The longest pause that still coalesces; default no limit.
        public init(cost: Int = 0, coalescingKey: String? = nil, coalescingWindow: Duration? = nil) {
            self.cost = max(0, cost)
            self.coalescingKey = coalescingKey
            self.coalescingWindow = coalescingWindow
        }

        /// Options that continue the previous step made with the same `key` on the same target,
        /// if the pause since its last registration is at most `window`.
        /// - Parameters:
        ///   - key: The kind of change ("typing", "drag").
        ///   - window: The longest pause that still coalesces; `nil` for no limit.
        /// - Returns: The options.
        public static func coalescing(_ key: String, within window: Duration? = nil) -> Self {
            Self(coalescingKey: key, coalescingWindow: window)
        }

        /// Options with a cost and no coalescing.
        /// - Parameter cost: The registration's cost.
        /// - Returns: The options.
        public static func cost(_ cost: Int) -> Self {
            Self(cost: cost)
        }
    }

    /// Registers an undo action with options: a cost, and coalescing with the previous step.
    ///
    /// Everything ``registerUndo(withTarget:handler:)`` does, plus:
    /// - **Coalescing.** With a ``RegistrationOptions/coalescingKey``, when nothing is open and the
    ///   newest undo step was made by registrations with the same key on the same target (and, with
    ///   a window, the last of them was at most the window ago by ``coalescingClock``), the action
    ///   joins that step instead of starting a new one: typing a word, or dragging a figure through
    ///   a hundred positions, is one step. A registration of another kind, ``undo()``, ``redo()``,
    ///   ``breakCoalescing()``, ``markClean()`` and ``removeAllActions()`` end coalescing.
    /// - **Cost.** The ``RegistrationOptions/cost`` counts against ``maximumCost``.
    ///
    /// - Parameters:
    ///   - target: The object the change was made to; held weakly.
    ///   - options: The cost and coalescing.
    ///   - handler: The inverse of the change, called with `target`.
    /// - Complexity: O(1) amortized, plus the cost of any trimming.
    public func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType,
        options: RegistrationOptions,
        handler: @escaping (TargetType) -> Void
    ) {
        defer { didMutate() }
        guard disableCount == 0 else { return }
        let cost = options.cost
        register(target, cost: cost, coalescingKey: options.coalescingKey, window: options.coalescingWindow) { box in
            cost == 0
                ? TypedAction(box: box, handler: handler) : CostedAction(box: box, cost: cost, handler: handler)
        }
    }

    /// Ends coalescing: the next registration starts a new step even if it has the same key (the
    /// user pressed Return, or released the mouse).
    ///
    /// - Complexity: O(1).
    public func breakCoalescing() {
        coalescing = nil
    }

    // MARK: Internals

    /// The closed newest undo step that a registration with `key` on `target` may join, if any.
    func coalescingCandidate(key: String, target: AnyObject, window: Duration?) -> Group? {
        guard let state = coalescing, state.key == key, state.box.object === target,
            let newest = undoHistory.groups.last, newest === state.group, !newest.isOpen
        else { return nil }
        if let window, coalescingClock() - state.lastTime > window { return nil }
        return newest
    }
}

/// The step that coalescing registrations may join.
///
/// A class, so that the stack's optional reference is one pointer: every undo, redo and
/// registration tests or clears it, and as a struct holding a `ContinuousClock.Instant` (whose
/// layout the standard library does not expose) each test went through value-witness calls.
final class CoalescingState {
    let key: String
    let box: TargetBox
    /// Held strongly so that identity comparison with the newest group stays meaningful.
    let group: Group
    var lastTime: ContinuousClock.Instant

    init(key: String, box: TargetBox, group: Group, lastTime: ContinuousClock.Instant) {
        self.key = key
        self.box = box
        self.group = group
        self.lastTime = lastTime
    }
}
