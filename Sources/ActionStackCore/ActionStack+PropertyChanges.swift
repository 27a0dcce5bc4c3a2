// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Sets a property through a key path and registers the inverse change, which registers the
    /// redo in turn, so undo and redo both work with one line at the call site.
    ///
    /// ```swift
    /// stack.setValue(.red, for: \.color, on: figure, actionName: "Change Color")
    /// stack.undo()
    /// print(figure.color)               // black
    /// print(stack.redoMenuItemTitle)    // Redo Change Color
    /// stack.redo()
    /// print(figure.color)               // red
    /// ```
    ///
    /// One call: observers hear one state, after the value is set. While registration is disabled
    /// the value is set and nothing is registered. When the registration would be a misuse (no
    /// group open with ``groupsByEvent`` off, or a call from an observer that may not register) the
    /// one misuse is reported and the value is **not** set, so the change cannot happen without its
    /// inverse. Like every registration, the target is held weakly.
    ///
    /// - Parameters:
    ///   - value: The new value.
    ///   - keyPath: The property to set.
    ///   - target: The object that has the property.
    ///   - actionName: The step's name, set each time the change or its inverse registers; `nil`
    ///     leaves the name alone.
    /// - Complexity: O(1) amortized, as ``registerUndo(withTarget:handler:)``.
    public func setValue<Target: AnyObject, Value>(
        _ value: Value,
        for keyPath: ReferenceWritableKeyPath<Target, Value>,
        on target: Target,
        actionName: String? = nil
    ) {
        enterCall()
        defer { leaveCall() }
        guard registrationEnabled else {
            target[keyPath: keyPath] = value
            return
        }
        if refusesReentrantCall(.setValue) { return }
        if currentSide.frames.isEmpty && !groupsByEvent {
            report(.noOpenGroup(.setValue))
            return
        }
        let old = target[keyPath: keyPath]
        // The action is stored in this stack, so the stack exists whenever the action runs.
        let handler: (Target) -> Void = { [unowned self] target in
            self.setValue(old, for: keyPath, on: target, actionName: actionName)
        }
        let opened = register(
            target,
            HandlerBox(handler).erased(),
            cost: 0,
            key: nil,
            window: nil,
            misuseOperation: .setValue
        )
        if let actionName { _setActionName(actionName) }
        target[keyPath: keyPath] = value
        if opened { post(ActionStack.didOpenUndoGroupNotification) }
    }
}
