extension ActionStack {
    /// The title for an Undo menu item: "Undo" followed by the name of the step to undo, or a plain
    /// "Undo" when there is nothing to undo or the step has no name.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var undoMenuItemTitle: String {
        let name = undoActionName
        guard undoHistory.hasSomethingToPerform, !name.isEmpty else {
            return undoMenuTitle(forUndoActionName: "")
        }
        return undoMenuTitle(forUndoActionName: name)
    }

    /// The title for a Redo menu item: "Redo" followed by the name of the step to redo, or a plain
    /// "Redo" when there is nothing to redo or the step has no name.
    ///
    /// - Complexity: O(t) for t distinct targets.
    public var redoMenuItemTitle: String {
        let name = redoActionName
        guard redoHistory.hasSomethingToPerform, !name.isEmpty else {
            return redoMenuTitle(forUndoActionName: "")
        }
        return redoMenuTitle(forUndoActionName: name)
    }
}
