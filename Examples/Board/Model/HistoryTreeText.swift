// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStack

/// A branching history drawn as text, one line per node, for a terminal:
///
///     0 (start)
///     1 Add Figure
///     |-- 2 Move to (10.0, 20.0)  saved
///     `-- 3 Move to (5.0, 5.0)    <- you are here
///
/// Each line is the node's number and its label (by default its action name). Where a node has
/// more than one child, each child starts a branch (`|--`, the last one `` `-- ``) and what
/// follows it is indented under it; a node with one child is followed by that child at the same
/// indentation, so a long run of changes without a fork stays at the left edge instead of walking
/// off the right of the screen. Children are listed in the order they were made, so the drawing
/// of a branch stays where it is when the user moves around the tree.
///
/// The notes after the labels, in one column, mark the node the document is in, the saved (clean)
/// node, and the nodes `redo()` would go through from there.
///
/// Only ASCII is drawn, as in the board's picture: any terminal, font and locale shows it.
public enum HistoryTreeText: Sendable {
    /// The note on the node the document is in.
    public static let currentMark = "<- you are here"
    /// The note on the clean node.
    public static let savedMark = "saved"
    /// The note on the nodes that `redo()` would reach, one press at a time, from the current node.
    public static let redoMark = "(redo)"

    /// A node's label as the drawing shows it by default: "(start)" for the root, "(unnamed)" for a
    /// step without an action name, else the action name ("Move to (5.0, 5.0)"). The action name,
    /// not the menu title: "Undo" or "Redo" in front of every line would only say which side of the
    /// current node it is on, which the drawing shows already.
    public static func defaultLabel(_ node: ActionStack.HistoryNode) -> String {
        if node.parent == nil { return "(start)" }
        return node.actionName.isEmpty ? "(unnamed)" : node.actionName
    }

    /// The nodes `redo()` would enter from the current node, in order: the redo path.
    ///
    /// - Complexity: O(d log n) for the d nodes on the path.
    public static func redoPath(of tree: ActionStack.HistoryTree) -> [ActionStack.HistoryNode] {
        var path: [ActionStack.HistoryNode] = []
        var next = tree[tree.current]?.redoChild
        while let id = next, let node = tree[id] {
            path.append(node)
            next = node.redoChild
        }
        return path
    }

    /// The drawing of `tree`, one string per node, root first, without trailing spaces.
    ///
    /// - Parameters:
    ///   - tree: The snapshot to draw (``ActionStack/historyTree``).
    ///   - label: The text after a node's number; ``defaultLabel(_:)`` unless told.
    /// - Returns: One line per node, root first, each child after its parent.
    /// - Complexity: O(n log n + c) for the n nodes and c characters drawn. It does not recurse,
    ///   so a history of any depth is drawn.
    public static func lines(
        of tree: ActionStack.HistoryTree,
        label: (ActionStack.HistoryNode) -> String = defaultLabel
    ) -> [String] {
        let redo = Set(redoPath(of: tree).map(\.id))
        // Depth first, children in the order they were made: an explicit stack of the nodes still
        // to draw, each with the text in front of its own line and the text in front of its
        // descendants' lines.
        var pending: [(id: ActionStack.HistoryNode.ID, lead: String, indent: String)] = [(tree.root, "", "")]
        var rows: [(text: String, notes: [String])] = []
        while let next = pending.popLast() {
            let (id, lead, indent) = next
            guard let node = tree[id] else { continue }
            var notes: [String] = []
            if node.isCurrent { notes.append(currentMark) }
            if node.isClean { notes.append(savedMark) }
            if redo.contains(node.id) { notes.append(redoMark) }
            rows.append(("\(lead)\(node.sequence) \(label(node))", notes))
            if node.children.count == 1 {
                pending.append((node.children[0], indent, indent))
            } else {
                // Pushed last first, so that the first child is drawn first.
                for (index, child) in node.children.enumerated().reversed() {
                    let isLast = index == node.children.count - 1
                    pending.append((child, indent + (isLast ? "`-- " : "|-- "), indent + (isLast ? "    " : "|   ")))
                }
            }
        }
        let width = rows.filter { !$0.notes.isEmpty }.map(\.text.count).max() ?? 0
        return rows.map { row in
            guard !row.notes.isEmpty else { return row.text }
            let padding = String(repeating: " ", count: width - row.text.count)
            return row.text + padding + "  " + row.notes.joined(separator: ", ")
        }
    }
}
