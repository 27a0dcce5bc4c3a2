// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// Several stacks with one active: one Edit menu for several documents or contexts, like Qt's
/// `QUndoGroup`.
///
/// Each document keeps its own ``ActionStack``; the group's ``undo()``, ``redo()``, titles and
/// clean state are those of the ``activeStack``. Observers hear the active stack's state when the
/// active stack changes and after each call that changes it, in order, and never a state from the
/// middle of a call.
///
/// ```swift
/// let edit = ActionStackGroup()
/// edit.add(documentA.undoStack)
/// edit.add(documentB.undoStack)
/// edit.activeStack = documentB.undoStack   // the window that has focus
/// let title = edit.undoMenuItemTitle        // documentB's title
/// edit.undo()                               // undoes in documentB
/// ```
///
/// Use a group, like its stacks, from one isolation domain at a time.
///
/// The group holds its stacks strongly: a stack stays alive while it is in the group (remove it
/// with ``remove(_:)`` when its document closes).
public final class ActionStackGroup {
    /// The stacks in the group, in the order they were added; held strongly.
    public private(set) var stacks: [ActionStack] = []

    /// The stack that the group's calls act on; `nil` for none (the menu items are disabled).
    ///
    /// Setting a stack that is not in the group adds it. Switching leaves the previous stack as it
    /// is, even with a group open on it. Observers then hear the new stack's state: after the
    /// delivery in progress, if an observer switched; at the end of the new stack's call, if it is
    /// in the middle of one (a handler switched).
    ///
    /// - Complexity: Reading: O(1). Setting: O(s) for s stacks (a stack not in the group is added),
    ///   plus one state snapshot of the new stack (O(1) amortized) for the observers.
    public var activeStack: ActionStack? {
        didSet {
            guard activeStack !== oldValue else { return }
            if let activeStack, !stacks.contains(where: { $0 === activeStack }) { stacks.append(activeStack) }
            follow()
        }
    }

    private let observers = ObserverList<ActionStack.State?>()
    private var activeToken: ObservationToken?
    /// States waiting to be delivered, in order; a delivery is in progress while `isDelivering`.
    private var queue: [ActionStack.State?] = []
    private var isDelivering = false
    /// Counts switches, so that a state asked for before a later switch is not delivered.
    private var generation = 0
    /// Whether the active stack has told a state since the last switch.
    private var heardSinceSwitch = false

    /// Creates an empty group with no active stack.
    /// - Complexity: O(1).
    public init() {}

    /// Adds `stack` to the group (it does not become active).
    /// - Parameter stack: The stack to add.
    /// - Complexity: O(s) for s stacks.
    public func add(_ stack: ActionStack) {
        guard !stacks.contains(where: { $0 === stack }) else { return }
        stacks.append(stack)
    }

    /// Removes `stack` from the group; if it was active, no stack is active afterwards.
    /// - Parameter stack: The stack to remove.
    /// - Complexity: O(s) for s stacks.
    public func remove(_ stack: ActionStack) {
        stacks.removeAll { $0 === stack }
        if activeStack === stack { activeStack = nil }
    }

    /// Whether the active stack can undo; `false` with no active stack.
    /// - Complexity: As ``ActionStack/canUndo``.
    public var canUndo: Bool { activeStack?.canUndo ?? false }
    /// Whether the active stack can redo; `false` with no active stack.
    /// - Complexity: As ``ActionStack/canRedo``.
    public var canRedo: Bool { activeStack?.canRedo ?? false }
    /// The active stack's Undo title, or the plain "Undo".
    /// - Complexity: As ``ActionStack/undoMenuItemTitle``.
    public var undoMenuItemTitle: String { activeStack?.undoMenuItemTitle ?? TitleTemplates.english.undoWithoutName }
    /// The active stack's Redo title, or the plain "Redo".
    /// - Complexity: As ``ActionStack/redoMenuItemTitle``.
    public var redoMenuItemTitle: String { activeStack?.redoMenuItemTitle ?? TitleTemplates.english.redoWithoutName }
    /// Whether the active stack is clean; `true` with no active stack.
    /// - Complexity: As ``ActionStack/isClean``: O(1).
    public var isClean: Bool { activeStack?.isClean ?? true }

    /// Undoes on the active stack.
    /// - Complexity: As ``ActionStack/undo()``.
    public func undo() { activeStack?.undo() }

    /// Redoes on the active stack.
    /// - Complexity: As ``ActionStack/redo()``.
    public func redo() { activeStack?.redo() }

    /// Calls `body` with the active stack's state when the active stack changes (`nil` when there
    /// is none) and after each call that changes its state. Keep the token.
    /// - Parameter body: Called with each new state.
    /// - Returns: The token that keeps the observation alive.
    /// - Complexity: O(1) amortized.
    public func observe(_ body: @escaping (ActionStack.State?) -> Void) -> ObservationToken {
        let id = observers.add(body)
        return ObservationToken(list: observers, id: id)
    }

    private func follow() {
        activeToken = nil
        generation += 1
        guard let stack = activeStack else {
            enqueue(nil)
            return
        }
        let expected = generation
        activeToken = stack.observe { [weak self] state in
            self?.heardSinceSwitch = true
            self?.enqueue(state)
        }
        heardSinceSwitch = false
        // The new stack's state, once it is between calls; unless the end of the call it is in
        // already told it.
        stack.whenIdle { [weak self, weak stack] in
            guard let self, let stack, self.generation == expected, !self.heardSinceSwitch else { return }
            self.enqueue(stack.readOnlySnapshot())
        }
    }

    /// Delivers `state` to the observers after the delivery in progress, if any.
    private func enqueue(_ state: ActionStack.State?) {
        queue.append(state)
        guard !isDelivering else { return }
        isDelivering = true
        defer { isDelivering = false }
        var next = 0
        while next < queue.count {
            let state = queue[next]
            next += 1
            observers.notify(state)
        }
        queue.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable, message: "Use an ActionStackGroup from one isolation domain at a time.")
extension ActionStackGroup: Sendable {}
