// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Registers `handler` as the inverse of a change made to `target`, and names the step, in one
    /// call.
    ///
    /// The same as ``registerUndo(withTarget:handler:)`` followed by ``setActionName(_:)``, except
    /// that it is one call: observers (``observe(_:)``, ``stateUpdates()``,
    /// ``ActionStackModel``) hear one state, with the name, instead of a state named only "Undo"
    /// between the two calls.
    ///
    /// ```swift
    /// import ActionStack
    ///
    /// final class Canvas {
    ///     let undoStack = ActionStack()
    ///     var color = "white"
    ///
    ///     func setColor(_ new: String) {
    ///         let old = color
    ///         undoStack.registerUndo(withTarget: self, actionName: "Change Color") { canvas in
    ///             canvas.setColor(old)
    ///         }
    ///         color = new
    ///     }
    /// }
    ///
    /// let canvas = Canvas()
    /// let stack = canvas.undoStack
    /// stack.automaticGroupClosing = .manual
    /// var titles: [String] = []
    /// let token = stack.observe { titles.append($0.undoMenuItemTitle) }
    /// canvas.setColor("red")          // one state: named
    /// stack.endEvent()                 // one state: the group closed
    /// print(titles)                    // ["Undo Change Color", "Undo Change Color"]
    /// stack.undo()
    /// print(stack.redoMenuItemTitle)   // Redo Change Color
    /// stack.redo()
    /// print(canvas.color)              // red
    /// token.cancel()
    /// ```
    ///
    /// While registration is disabled, the call does nothing, as both calls would. When the
    /// registration is a misuse (no group open with ``groupsByEvent`` off, or a call from an
    /// observer that may not register; see <doc:Reentrancy>), that one misuse is reported and the
    /// step is not named. The name goes through ``setActionName(_:)``, so a subclass that overrides
    /// it sees the name. As with ``setActionName(_:)``, name the step where the user acts; a handler
    /// whose inverse is a different operation (delete for insert) registers with the plain form.
    ///
    /// - Parameters:
    ///   - target: The object the change was made to; held weakly.
    ///   - actionName: The step's name, without the "Undo" or "Redo" verb.
    ///   - handler: The inverse of the change, called with `target`.
    /// - Complexity: O(1) amortized, as ``registerUndo(withTarget:handler:)``.
    public func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType,
        actionName: String,
        handler: @escaping (TargetType) -> Void
    ) {
        // One call: the nested calls below publish nothing; the end of this one publishes once.
        enterCall()
        defer { leaveCall() }
        // The checks of `_register`, made here so that a refused registration is not named (which
        // would report a second misuse).
        guard registrationEnabled else { return }
        if refusesReentrantCall(.registerUndo) { return }
        if currentSide.frames.isEmpty && !groupsByEvent {
            report(.noOpenGroup(.registerUndo))
            return
        }
        let opened = register(
            target,
            HandlerBox(handler).erased(),
            cost: 0,
            key: nil,
            window: nil,
            misuseOperation: .registerUndo
        )
        setActionName(actionName)
        if opened { post(ActionStack.didOpenUndoGroupNotification) }
    }
}
