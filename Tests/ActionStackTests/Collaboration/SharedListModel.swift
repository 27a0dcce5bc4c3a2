// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack

/// A small collaborative list of integers: this user's edits are recorded as rebasable commands, a
/// peer's edits arrive as remote changes.
final class SharedList {
    var elements: [Int]
    let stack: ActionStack
    static let key = "list"

    init(_ elements: [Int] = [], stack: ActionStack = ActionStack()) {
        self.elements = elements
        self.stack = stack
    }

    /// This user's edit: applied, and its inverse registered.
    func edit(_ edit: SequenceEdit<Int>) {
        try! edit.apply(to: &elements)
        stack.registerUndo(ListCommand(edit: edit.inverse), on: self, key: Self.key)
    }

    /// A peer's edit, as it arrives.
    func receive(_ edit: SequenceEdit<Int>) {
        stack.applyRemoteChange(edit) { try! edit.apply(to: &elements) }
    }
}

/// The inverse of an edit of a ``SharedList``.
struct ListCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.list"
    var edit: SequenceEdit<Int>

    func perform(on list: SharedList, in stack: ActionStack) { list.edit(edit) }
    func rebased(over change: SequenceEdit<Int>) -> ListCommand? { edit.rebased(over: change).map(ListCommand.init) }
    func transform(_ change: SequenceEdit<Int>) -> SequenceEdit<Int>? { edit.transform(change) }
}
