extension ActionStack {
    /// Sets a property through a key path and registers the inverse change, which registers the
    /// redo in turn, so undo and redo both work with one line at the call site.
    ///
    /// ```swift
    /// stack.setValue(.red, for: \.color, on: figure, actionName: "Change Color")
    /// stack.undo()   // figure.color is back to what it was; "Redo Change Color" is offered
    /// ```
    ///
    /// The value is set even while registration is disabled (only the registration is skipped).
    /// Like every registration, the target is held weakly.
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
        let old = target[keyPath: keyPath]
        // The action is stored in this stack, so the stack exists whenever the action runs.
        registerUndo(withTarget: target) { [unowned self] target in
            self.setValue(old, for: keyPath, on: target, actionName: actionName)
        }
        if let actionName, isUndoRegistrationEnabled { setActionName(actionName) }
        target[keyPath: keyPath] = value
    }
}
