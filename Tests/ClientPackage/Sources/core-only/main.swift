// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// A client that depends on the ActionStackCore product only: the stack, commands, and save and
// restore of `SavedHistory` values, without the archive and journal format.
import ActionStackCore

final class Counter {
    var value = 0
}

struct Add: UndoCommand {
    static let commandType = "client.add"
    var amount: Int

    func perform(on counter: Counter, in stack: ActionStack) {
        stack.registerUndo(Add(amount: -amount), on: counter, key: "counter")
        counter.value += amount
    }
}

let counter = Counter()
let stack = ActionStack()
stack.groupsByEvent = false
for amount in [1, 2, 3] {
    stack.beginUndoGrouping()
    Add(amount: amount).perform(on: counter, in: stack)
    stack.setActionName("Add \(amount)")
    stack.endUndoGrouping()
}
stack.undo()
let saved = try stack.savedHistory()

// A relaunch: a new stack and the same counter, found again by its key.
let restored = ActionStack()
restored.groupsByEvent = false
try restored.restoreHistory(saved) { key in key == "counter" ? counter : nil }
restored.redo()
print(counter.value, restored.undoMenuItemTitle, saved.steps.count)
