// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// A module of the client that depends on the ActionStackCore product alone: it makes a stack and
// restores a `SavedHistory`. The `mixed` executable hands it values from ActionStack's format layer,
// to check that a type is the same type whichever product a module of the client names it through.
public import ActionStackCore

/// A counter, the document.
public final class Counter {
    /// The count.
    public var value = 0
    /// A counter at 0.
    public init() {}
}

/// Adds to the counter.
public struct Add: UndoCommand {
    /// The command's type in a saved history.
    public static let commandType = "client.add"
    /// What to add.
    public var amount: Int
    /// A command that adds `amount`.
    public init(amount: Int) { self.amount = amount }

    /// Adds to `counter` and registers the inverse on `stack`.
    public func perform(on counter: Counter, in stack: ActionStack) {
        stack.registerUndo(Add(amount: -amount), on: counter, key: "counter")
        counter.value += amount
    }
}

/// A branching stack with three steps, one undone, a branch and a clean mark.
public func editedStack(_ counter: Counter) -> ActionStack {
    let stack = ActionStack()
    stack.groupsByEvent = false
    stack.historyShape = .tree
    for amount in [1, 2, 10] {
        if amount == 10 { stack.undo() }
        stack.beginUndoGrouping()
        Add(amount: amount).perform(on: counter, in: stack)
        stack.setActionName("Add \(amount)")
        stack.endUndoGrouping()
    }
    stack.markClean()
    return stack
}

/// Restores `saved` into a new branching stack.
public func restored(_ saved: SavedHistory, _ counter: Counter) throws -> ActionStack {
    let stack = ActionStack()
    stack.groupsByEvent = false
    stack.historyShape = .tree
    try stack.restoreHistory(saved) { key in key == "counter" ? counter : nil }
    return stack
}
