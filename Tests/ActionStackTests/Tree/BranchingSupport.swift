// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

// What the acceptance tests of the branching history share: a text document whose steps can be
// registered on targets of their own, with costs and captured objects; a clock to date the nodes;
// and a one-line picture of a tree. The clock is the support target's `ManualClock`.

/// A tree stack whose nodes are dated by `clock` (the root too: the clock is set first).
func makeTreeStack(
    clock: ManualClock,
    groupsByEvent: Bool = false,
    dropsEmptyGroups: Bool = false
) -> ActionStack {
    let stack = makeStack(groupsByEvent: groupsByEvent, dropsEmptyGroups: dropsEmptyGroups)
    stack.historyClock = { clock.now }
    stack.historyShape = .tree
    return stack
}

/// A target of its own for some steps of a ``TreeDoc`` (so that freeing it, or removing its
/// actions, takes exactly those steps). Holds its document; the stack holds the pen weakly.
final class Pen {
    let document: TreeDoc
    init(_ document: TreeDoc) { self.document = document }
}

/// A text document whose every change is one undoable step: registered on the document itself or
/// on a ``Pen``, with a cost, its handlers capturing an object (to check when the stack lets it go).
/// The inverse registers its own inverse with the same target, cost and capture, so undo and redo
/// both work.
final class TreeDoc {
    var text: String
    let stack: ActionStack

    init(_ text: String = "", stack: ActionStack) {
        self.text = text
        self.stack = stack
    }

    /// Replaces the text as one closed top-level step named `name`.
    func set(_ new: String, named name: String = "Edit", pen: Pen? = nil, cost: Int = 0, keeping kept: Captured? = nil)
    {
        stack.beginUndoGrouping()
        replace(with: new, pen: pen, cost: cost, kept: kept)
        stack.setActionName(name)
        stack.endUndoGrouping()
    }

    /// Appends `suffix` as one step named after it.
    func append(_ suffix: String) { set(text + suffix, named: suffix) }

    /// Replaces the text with no group of its own (the caller groups, or `groupsByEvent` does).
    func replace(with new: String, pen: Pen? = nil, cost: Int = 0, kept: Captured? = nil) {
        let old = text
        let options = ActionStack.RegistrationOptions(cost: cost)
        if let pen {
            stack.registerUndo(withTarget: pen, options: options) { pen in
                _ = kept
                pen.document.replace(with: old, pen: pen, cost: cost, kept: kept)
            }
        } else {
            stack.registerUndo(withTarget: self, options: options) { document in
                _ = kept
                document.replace(with: old, pen: nil, cost: cost, kept: kept)
            }
        }
        text = new
    }
}

/// A one-line picture of a tree: each node's sequence number and its children, in sequence order,
/// the current node starred, e.g. `0:[1] 1:[2,3] 2:[] *3:[]`.
func shape(_ tree: ActionStack.HistoryTree?) -> String {
    guard let tree else { return "linear" }
    return tree.nodes.map { node in
        (node.isCurrent ? "*" : "") + "\(node.sequence):["
            + node.children.map { "\($0.sequence)" }.joined(separator: ",")
            + "]"
    }.joined(separator: " ")
}

/// The sequence numbers of `ids`.
func sequences(_ ids: [ActionStack.HistoryNode.ID]) -> [Int] { ids.map(\.sequence) }

// What many of the tree tests start from (the `ht` and `HT` prefixes keep these apart from the
// fixtures above): a tree stack with its clock and document, and a fork of four nodes.

/// A thread-unsafe box for observers (every test runs on one thread).
final class HTBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A tree stack, its clock and a document. Steps are dated 10 s apart.
func htTree(groupsByEvent: Bool = false, dropsEmptyGroups: Bool = false) -> (ActionStack, TreeDoc, ManualClock) {
    let clock = ManualClock()
    let stack = makeTreeStack(clock: clock, groupsByEvent: groupsByEvent, dropsEmptyGroups: dropsEmptyGroups)
    return (stack, TreeDoc(stack: stack), clock)
}

/// 0 -> 1 "a" -> 2 "ab" -> 3 "abc"; undo twice; 1 -> 4 "aX" (current).
func htFork(_ doc: TreeDoc, _ clock: ManualClock) {
    clock.advance(seconds: 10)
    doc.set("a", named: "A")
    clock.advance(seconds: 10)
    doc.set("ab", named: "B")
    clock.advance(seconds: 10)
    doc.set("abc", named: "C")
    doc.stack.undo()
    doc.stack.undo()
    clock.advance(seconds: 10)
    doc.set("aX", named: "X")
}

func htShape(_ stack: ActionStack) -> String { shape(stack.historyTree) }

// What the tests of the branching history with the other features share (Branching*Tests.swift).

/// Everything a caller can see of a tree stack, to check that a call changed nothing.
struct Seen: Equatable {
    var tree: ActionStack.HistoryTree?
    var state: ActionStack.State
    var text: String
    var redoBranches: [ActionStack.HistoryNode.ID]

    init(_ stack: ActionStack, _ document: TreeDoc) {
        tree = stack.historyTree
        state = stack.state
        text = document.text
        redoBranches = stack.redoBranches
    }
}

/// A text field whose typing coalesces into one step, as ``ActionStack/RegistrationOptions``'
/// example types.
final class Field {
    var text = ""

    func type(_ character: Character, on stack: ActionStack) {
        text.append(character)
        stack.registerUndo(withTarget: self, options: .coalescing("typing")) { [unowned stack] field in
            field.deleteLast(on: stack)
        }
    }

    func deleteLast(on stack: ActionStack) {
        let character = text.removeLast()
        stack.registerUndo(withTarget: self) { [unowned stack] field in field.type(character, on: stack) }
    }
}
