// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// How a registration joins the history: its cost (see ``ActionStack/maximumCost``) and
    /// whether it continues the previous step (coalescing).
    ///
    /// ```swift
    /// // Typing: keystrokes within a second of each other are one step. Each
    /// // inverse registers its own inverse, so undoing registers the redo.
    /// func type(_ character: Character, into field: TextField, on stack: ActionStack) {
    ///     field.text.append(character)
    ///     let typing = ActionStack.RegistrationOptions.coalescing("typing", within: .seconds(1))
    ///     stack.registerUndo(withTarget: field, options: typing) { field in
    ///         deleteLastCharacter(of: field, on: stack)
    ///     }
    /// }
    ///
    /// func deleteLastCharacter(of field: TextField, on stack: ActionStack) {
    ///     let character = field.text.removeLast()
    ///     stack.registerUndo(withTarget: field) { field in
    ///         type(character, into: field, on: stack)
    ///     }
    /// }
    ///
    /// stack.automaticGroupClosing = .manual
    /// for character in "Hi" { type(character, into: field, on: stack) }
    /// stack.endEvent()
    /// stack.undo()
    /// print(field.text.isEmpty)   // true
    /// stack.redo()
    /// print(field.text)           // Hi
    /// ```
    public struct RegistrationOptions: Hashable, Sendable {
        /// What the action keeps alive (for example, bytes), counted against
        /// ``ActionStack/maximumCost``. Default 0. A negative cost counts as 0; the undo stack adds
        /// costs exactly, even past `Int.max`.
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
    /// - **Coalescing.** With a ``RegistrationOptions/coalescingKey``, when no group is open, no undo
    ///   or redo is in progress, and the newest closed undo step holds only registrations made with
    ///   the same key on the same target (and, with a window, the last of them was at most the
    ///   window ago by ``coalescingClock``), the action joins that step instead of starting a new
    ///   one: typing a word, or dragging a figure through a hundred positions, is one step. A join
    ///   opens no group and posts nothing; it empties the redo stack like any change. Until the event
    ///   ends (``endEvent()`` or the run loop's close; with ``groupsByEvent`` off, until anything else
    ///   happens to the undo stack), ``setActionName(_:)`` and the other setters act on that step, so
    ///   "register, then name" per keystroke keeps one named step. A registration of another kind
    ///   or on another target, a new group, ``undo()``, ``undoNestedGroup()``, ``redo()``,
    ///   ``jump(to:)``, ``breakCoalescing()``, ``markClean()``, ``removeAllActions()``, removing the
    ///   step's target, and trimming that drops the step end coalescing; a call that is refused as a
    ///   misuse does not.
    /// - **Cost.** The ``RegistrationOptions/cost`` counts against ``maximumCost``.
    ///
    /// - Parameters:
    ///   - target: The object the change was made to; held weakly.
    ///   - options: The cost and coalescing.
    ///   - handler: The inverse of the change, called with `target`.
    /// - Complexity: O(1) amortized, plus the cost of any trimming.
    @inlinable
    public func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType,
        options: RegistrationOptions,
        handler: consuming @escaping (TargetType) -> Void
    ) {
        // Stored without a wrapping closure, as in `registerUndo(withTarget:handler:)`.
        _register(
            target,
            HandlerBox(handler).erased(),
            cost: options.cost,
            key: options.coalescingKey,
            window: options.coalescingWindow
        )
    }

    /// Ends coalescing: the next registration starts a new step even if it has the same key (the
    /// user pressed Return, or released the mouse).
    ///
    /// - Complexity: O(1).
    public func breakCoalescing() {
        enterCall()
        defer { leaveCall() }
        history.endCoalescing()
    }
}
