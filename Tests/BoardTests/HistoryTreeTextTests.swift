// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackBoardModel
import Testing

/// The text drawing of a tree, on a stack of its own.
@MainActor
struct HistoryTreeTextTests {
    final class Document {
        var value = 0
    }

    /// A stack with a branching history, each event one step (`change` ends it).
    func makeStack() -> ActionStack {
        let stack = ActionStack()
        stack.misusePolicy = .report
        stack.automaticGroupClosing = .manual
        stack.historyShape = .tree
        return stack
    }

    /// A step that sets `document.value`, named after the value: "Set 3".
    func change(_ stack: ActionStack, _ document: Document, to value: Int) {
        stack.setValue(value, for: \.value, on: document, actionName: "Set \(value)")
        stack.endEvent()
    }

    @Test func forksIndentTheirBranchesAndRunsStayAtTheirIndentation() throws {
        let document = Document()
        let stack = makeStack()
        for value in [1, 2, 3] { change(stack, document, to: value) }  // nodes 1, 2, 3
        stack.undo()
        stack.undo()
        change(stack, document, to: 4)  // node 4, from 1
        change(stack, document, to: 5)  // node 5
        stack.undo()
        change(stack, document, to: 6)  // node 6, from 4
        stack.markClean()
        try stack.jump(toNode: .init(sequence: 1))
        let tree = try #require(stack.historyTree)
        #expect(
            HistoryTreeText.lines(of: tree) == [
                "0 (start)",
                "1 Set 1          <- you are here",
                "|-- 2 Set 2",
                "|   3 Set 3",
                "`-- 4 Set 4      (redo)",
                "    |-- 5 Set 5",
                "    `-- 6 Set 6  saved, (redo)",
            ])
        #expect(document.value == 1)
        // A label of the caller's.
        let labels = HistoryTreeText.lines(of: tree) { $0.parent == nil ? "root" : "to \($0.actionName.dropFirst(4))" }
        #expect(labels.first == "0 root")
        #expect(labels.last == "    `-- 6 to 6  saved, (redo)")
    }

    /// The notes are aligned, past the longest line that has one.
    @Test func notesStartInOneColumn() throws {
        let document = Document()
        let stack = makeStack()
        change(stack, document, to: 1)
        change(stack, document, to: 22_222)
        stack.markClean()
        stack.undo()
        change(stack, document, to: 3)
        let lines = HistoryTreeText.lines(of: try #require(stack.historyTree))
        #expect(
            lines == [
                "0 (start)",
                "1 Set 1",
                "|-- 2 Set 22222  saved",
                "`-- 3 Set 3      <- you are here",
            ])
    }

    /// A long run of changes without a fork is drawn at the left edge, and drawing it does not
    /// recurse (a history of any depth is drawn).
    @Test func aLongHistoryStaysAtTheLeftEdge() throws {
        let document = Document()
        let stack = makeStack()
        for value in 1...5000 { change(stack, document, to: value) }
        let lines = HistoryTreeText.lines(of: try #require(stack.historyTree))
        #expect(lines.count == 5001)
        #expect(lines[4999] == "4999 Set 4999")
        #expect(lines.last == "5000 Set 5000  <- you are here")
        #expect(lines.allSatisfy { $0.first?.isNumber == true })
    }

    @Test func theRedoPathIsTheWayRedoGoes() throws {
        let document = Document()
        let stack = makeStack()
        for value in [1, 2, 3] { change(stack, document, to: value) }
        try stack.jump(toNode: .init(sequence: 0))
        let tree = try #require(stack.historyTree)
        #expect(HistoryTreeText.redoPath(of: tree).map(\.sequence) == [1, 2, 3])
        stack.redo()
        stack.redo()
        stack.redo()
        #expect(HistoryTreeText.redoPath(of: try #require(stack.historyTree)).isEmpty)
        #expect(HistoryTreeText.defaultLabel(tree.nodes[0]) == "(start)")
        #expect(HistoryTreeText.defaultLabel(tree.nodes[2]) == "Set 2")
    }
}
