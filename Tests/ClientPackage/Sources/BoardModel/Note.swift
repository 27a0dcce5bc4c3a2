// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStack

/// A client's own model, in a target named like ActionStack's example model used to be.
public final class Note {
    /// The text of the note.
    public private(set) var text = ""
    /// The note's undo stack.
    public let undoStack = ActionStack()

    /// Creates an empty note whose stack groups explicitly.
    public init() {
        undoStack.groupsByEvent = false
        undoStack.automaticGroupClosing = ActionStack.AutomaticGroupClosing.manual
    }

    /// Sets the text and registers the inverse, which registers its own inverse (so redo works).
    public func setText(_ new: String) {
        let old = text
        undoStack.registerUndo(withTarget: self) { note in note.setText(old) }
        text = new
    }
}
