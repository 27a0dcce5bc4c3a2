// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack

/// A small collaborative text: this user's edits are recorded on a stack as rebasable commands;
/// a peer's edits arrive as remote changes.
final class SharedText {
    var text: String
    let stack: ActionStack
    static let key = "text"

    init(_ text: String = "", stack: ActionStack = ActionStack()) {
        self.text = text
        self.stack = stack
    }

    /// This user's edit: applied, and its inverse registered.
    func edit(_ edit: TextEdit) {
        try! edit.apply(to: &text)
        stack.registerUndo(TextCommand(edit: edit.inverse), on: self, key: Self.key)
    }

    /// A peer's edit, as it arrives.
    func receive(_ edit: TextEdit) {
        stack.applyRemoteChange(edit) { try! edit.apply(to: &text) }
    }

    func type(_ string: String, at offset: Int) { edit(.insert(string, at: offset)) }
    func erase(_ string: String, at offset: Int) { edit(.delete(string, at: offset)) }
}

/// The inverse of an edit of a ``SharedText``: performing it applies the edit and registers its
/// own inverse, as the document is when it runs.
struct TextCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.text"
    var edit: TextEdit

    func perform(on document: SharedText, in stack: ActionStack) {
        document.edit(edit)
    }

    func rebased(over change: TextEdit) -> TextCommand? { edit.rebased(over: change).map(TextCommand.init) }
    func transform(_ change: TextEdit) -> TextEdit? { edit.transform(change) }
}
