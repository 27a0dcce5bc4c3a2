// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import Observation

/// A stack's state for the Observation framework: a view model that SwiftUI views (or
/// `withObservationTracking`) follow without any notification plumbing.
///
/// ```swift
/// let model = ActionStackModel(stack)
/// withObservationTracking {
///     render(model.undoMenuItemTitle, enabled: model.canUndo)
/// } onChange: {
///     scheduleRedraw()
/// }
/// ```
///
/// The model updates once per call on the stack that changes what it shows. Observation tracks the
/// state as one value: reading any property (``canUndo``, say) tracks the whole ``state``, so a
/// view is told of every change of the stack's state, not only of the property it read. Use it
/// where the stack is used (one isolation domain).
///
/// Every property of the model reads a stored value: O(1). Following the stack costs, per change of
/// its state, one snapshot of the state (O(1) amortized) and one assignment that Observation reports.
@Observable
public final class ActionStackModel {
    /// Everything the model shows, as one value.
    public private(set) var state: ActionStack.State

    @ObservationIgnored private var token: ObservationToken?

    /// Creates a model that follows `stack`.
    /// - Parameter stack: The stack to follow.
    /// - Complexity: O(1) amortized (it observes the stack, as ``ActionStack/ActionStack/observe(_:)``).
    public init(_ stack: ActionStack) {
        state = stack.state
        token = nil
        token = stack.observe { [weak self] state in self?.state = state }
    }

    /// Whether there is something to undo.
    public var canUndo: Bool { state.canUndo }
    /// Whether there is something to redo.
    public var canRedo: Bool { state.canRedo }
    /// The Undo title.
    public var undoMenuItemTitle: String { state.undoMenuItemTitle }
    /// The Redo title.
    public var redoMenuItemTitle: String { state.redoMenuItemTitle }
    /// Whether the stack is at its clean point.
    public var isClean: Bool { state.isClean }
    /// The number of closed steps held on the undo stack, as ``ActionStack/ActionStack/State/undoCount``
    /// counts them.
    public var undoCount: Int { state.undoCount }
    /// The number of closed steps held on the redo stack, as ``ActionStack/ActionStack/State/redoCount``
    /// counts them.
    public var redoCount: Int { state.redoCount }
    /// The number of open groups.
    public var groupingLevel: Int { state.groupingLevel }
}

@available(*, unavailable, message: "Use an ActionStackModel where its stack is used.")
extension ActionStackModel: Sendable {}
