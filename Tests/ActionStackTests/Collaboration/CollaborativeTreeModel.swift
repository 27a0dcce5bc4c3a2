// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack

/// What the collaborative driver asks of a reference model, whatever the history's shape.
protocol CollaborativeModel {
    var text: [Character] { get set }
    var canUndo: Bool { get }
    var canRedo: Bool { get }
    /// The name of the step the next Undo takes back ("" when none).
    var undoName: String { get }
    /// The name of the step the next Redo brings back ("" when none).
    var redoName: String { get }
    /// The edits the next Undo applies, in order (nil when none).
    var undoEdits: [CollaborativeTextModel.Edit]? { get }
    mutating func local(_ edits: [CollaborativeTextModel.Edit], name: String)
    /// This user's change, registered with `cost` (a model that follows the stack's trims keeps no
    /// costs).
    mutating func local(_ edits: [CollaborativeTextModel.Edit], name: String, cost: Int)
    /// Rewrites every stored step past `edits`, which read at the current state; the text is left
    /// as it is.
    mutating func rebaseHistory(over edits: [CollaborativeTextModel.Edit])
    @discardableResult mutating func undo() -> Bool
    @discardableResult mutating func redo() -> Bool
    /// Every step goes (a removal by target); the text stays.
    mutating func removeAll()
    /// This user's change as one step whose undo edits, already rebased, are `undoEdits` (an
    /// asynchronous group that closed): the text already holds the change.
    mutating func push(undoEdits: [CollaborativeTextModel.Edit], name: String)
    /// Something looked at the next steps: the dead steps at the tops are found (a model that drops
    /// dead steps at once does nothing).
    mutating func findDeadSteps()
    /// A save rebased every step: every dead step is found.
    mutating func dropDeadSteps()
}

extension CollaborativeModel {
    /// A peer's change: every step moves past it, then it applies.
    mutating func remote(_ edits: [CollaborativeTextModel.Edit]) {
        rebaseHistory(over: edits)
        for edit in edits { apply(edit) }
    }

    /// A peer's change that arrives while a group of this user's is open with `openGroup` (its undo
    /// edits, applied in order) recorded so far: the open group moves past it at once, the history
    /// below moves past it as it reads below the group, and it applies.
    mutating func remote(_ edits: [CollaborativeTextModel.Edit], openGroup: inout [CollaborativeTextModel.Edit]) {
        let (group, below) = CollaborativeTextModel.transform(openGroup, edits)
        openGroup = group
        rebaseHistory(over: below)
        for edit in edits { apply(edit) }
    }

    /// An awaited undo whose step applied its edits, heard a peer's `edits` (reading on the text
    /// the step left), then failed and rolled back: the rollback (the step's inverse, moved past
    /// the peer's change) runs, and the history moves past the peer's change as it reads where the
    /// step started.
    mutating func failedUndo(withRemote edits: [CollaborativeTextModel.Edit]) {
        guard let step = undoEdits else { return remote(edits) }
        for edit in step { apply(edit) }
        let rollback = step.reversed().map(\.inverse)
        let (rolledBack, before) = CollaborativeTextModel.transform(rollback, edits)
        for edit in edits { apply(edit) }
        for edit in rolledBack { apply(edit) }
        rebaseHistory(over: before)
    }

    mutating func apply(_ edit: CollaborativeTextModel.Edit) {
        switch edit {
        case .insert(let offset, let inserted):
            text.insert(contentsOf: inserted, at: offset)
        case .delete(let offset, let deleted):
            precondition(String(text[offset..<offset + deleted.count]) == deleted, "model: \(edit) on \(String(text))")
            text.removeSubrange(offset..<offset + deleted.count)
        }
    }
}

extension CollaborativeTextModel: CollaborativeModel {
    var undoName: String { undoStack.last { !$0.isDead }?.name ?? "" }
    var redoName: String { redoStack.last { !$0.isDead }?.name ?? "" }
    var undoEdits: [Edit]? { undoStack.last { !$0.isDead }?.edits }

    mutating func rebaseHistory(over edits: [Edit]) {
        undoStack = Self.rebase(undoStack, over: edits)
        redoStack = Self.rebase(redoStack, over: edits)
    }

    mutating func removeAll() {
        undoStack = []
        redoStack = []
    }

    mutating func push(undoEdits: [Edit], name: String) {
        undoStack.append(Step(edits: undoEdits, name: name))
        redoStack = []
        trim()
    }
}

/// The reference model of collaborative undo in a branching history: a tree of this user's steps,
/// written plainly and eagerly with ``CollaborativeTextModel``'s transformation.
///
/// Each node but the root holds one step: on the current path (root to current node) the step
/// that undoes it (from the node to its parent), elsewhere the step that redoes it (from its parent
/// to it), as the stack holds them. A remote change, reading at the current node, is carried up the
/// current path (rebasing each undo step and reading past it at the parent) and down every branch
/// from the node it leaves (rebasing each redo step and reading past it at the child). A node whose
/// step is left with nothing vanishes at once: its children hang from its parent, and a parent that
/// would redo into it redoes into the child it would have redone into.
///
/// Redo enters the child visited last (``Node/redoChild``): the node made last, the one an undo
/// came from, the one a jump went through.
struct CollaborativeTreeModel: CollaborativeModel {
    typealias Edit = CollaborativeTextModel.Edit

    struct Node {
        var parent: Int?
        var children: [Int] = []
        var edits: [Edit] = []
        var name = ""
        var redoChild: Int?
    }

    var text: [Character] = []
    var nodes: [Int: Node]
    /// The root: node 0, or the node a trimmed step led to.
    private(set) var root: Int
    private(set) var current: Int
    /// The number the next node gets (the stack numbers nodes in the order they are made).
    var nextNumber: Int

    init(root: Int = 0) {
        self.root = root
        current = root
        nextNumber = root + 1
        nodes = [root: Node(parent: nil)]
    }

    var canUndo: Bool { current != root }
    var canRedo: Bool { nodes[current]!.redoChild != nil }
    var undoName: String { canUndo ? nodes[current]!.name : "" }
    var redoName: String { nodes[current]!.redoChild.map { nodes[$0]!.name } ?? "" }
    var undoEdits: [Edit]? { canUndo ? nodes[current]!.edits : nil }

    /// The nodes from the root to `node`.
    func path(to node: Int) -> [Int] {
        var result = [node]
        while let parent = nodes[result.last!]!.parent { result.append(parent) }
        return result.reversed()
    }

    mutating func local(_ edits: [Edit], name: String, cost: Int) { local(edits, name: name) }

    mutating func local(_ edits: [Edit], name: String) {
        var inverses: [Edit] = []
        for edit in CollaborativeTextModel.normalized(edits) {
            apply(edit)
            inverses.append(edit.inverse)
        }
        push(undoEdits: inverses.reversed(), name: name)
    }

    mutating func push(undoEdits: [Edit], name: String) {
        let number = nextNumber
        nextNumber += 1
        nodes[number] = Node(parent: current, edits: undoEdits, name: name)
        nodes[current]!.children.append(number)
        nodes[current]!.redoChild = number
        current = number
    }

    @discardableResult
    mutating func undo() -> Bool {
        guard canUndo else { return false }
        let node = current
        nodes[node]!.edits = perform(nodes[node]!.edits)
        current = nodes[node]!.parent!
        nodes[current]!.redoChild = node
        return true
    }

    @discardableResult
    mutating func redo() -> Bool {
        guard let child = nodes[current]!.redoChild else { return false }
        nodes[child]!.edits = perform(nodes[child]!.edits)
        current = child
        return true
    }

    /// Moves to `target`: undoes up to the nearest common ancestor, then redoes down, each node
    /// entered remembering the way.
    mutating func jump(to target: Int) {
        let way = path(to: target)
        let onWay = Set(way)
        while !onWay.contains(current) { undo() }
        guard let start = way.firstIndex(of: current) else { return }
        for next in way.dropFirst(start + 1) {
            nodes[current]!.redoChild = next
            redo()
        }
    }

    /// The node `earlier(count)` reaches: numbered `current − count`, or the next older one held.
    func earlier(_ count: Int) -> Int {
        guard count > 0 else { return current }
        return nodes.keys.filter { $0 <= current - count }.max() ?? root
    }

    /// The node `later(count)` reaches: numbered `current + count`, or the next newer one held, or
    /// the newest.
    func later(_ count: Int) -> Int {
        guard count > 0 else { return current }
        let newest = nodes.keys.max()!
        return nodes.keys.filter { $0 >= current + count }.min() ?? newest
    }

    /// Applies `edits`; returns the edits that undo what they did.
    private mutating func perform(_ edits: [Edit]) -> [Edit] {
        var inverses: [Edit] = []
        for edit in edits {
            apply(edit)
            inverses.append(edit.inverse)
        }
        return inverses.reversed()
    }

    mutating func rebaseHistory(over edits: [Edit]) {
        let way = path(to: current)
        var carried = edits
        var atNode: [Int: [Edit]] = [current: carried]
        for node in way.reversed() where node != root {
            let (rebased, past) = CollaborativeTextModel.transform(nodes[node]!.edits, carried)
            nodes[node]!.edits = rebased
            carried = past
            atNode[nodes[node]!.parent!] = carried
        }
        let onWay = Set(way)
        for node in way {
            for child in nodes[node]!.children where !onWay.contains(child) { descend(child, atNode[node]!) }
        }
        // Dead steps vanish, deepest first.
        let dead = nodes.filter { $0.key != root && $0.value.edits.isEmpty }.map(\.key).sorted(by: >)
        for node in dead { vanish(node) }
    }

    /// Rebases the redo step of `node`, and of the nodes below it, over `change` (reading at its
    /// parent).
    private mutating func descend(_ node: Int, _ change: [Edit]) {
        let (rebased, past) = CollaborativeTextModel.transform(nodes[node]!.edits, change)
        nodes[node]!.edits = rebased
        for child in nodes[node]!.children { descend(child, past) }
    }

    private mutating func vanish(_ node: Int) {
        let gone = nodes.removeValue(forKey: node)!
        let parent = gone.parent!
        let index = nodes[parent]!.children.firstIndex(of: node)!
        nodes[parent]!.children.replaceSubrange(index...index, with: gone.children)
        for child in gone.children { nodes[child]!.parent = parent }
        if nodes[parent]!.redoChild == node { nodes[parent]!.redoChild = gone.redoChild }
        if current == node { current = parent }
    }

    mutating func removeAll() {
        nodes = [root: Node(parent: nil)]
        current = root
    }

    func findDeadSteps() {}
    func dropDeadSteps() {}

    // MARK: Limits

    /// The stack trimmed or pruned nodes for a limit (``ActionStack/levelsOfUndo``,
    /// ``ActionStack/maximumCost``, ``ActionStack/maximumBranchSteps``): the model drops the nodes
    /// `held` no longer holds, and returns what broke the rules of trimming, whether the root moved and whether branch nodes went. The stack holds dead
    /// steps until it finds them, which the model drops at once, so it follows the stack's choice
    /// of which nodes go rather than predicting it, and checks that the choice is one the rules
    /// allow: a trim cuts the current path from the root down (the node the last trimmed step led
    /// to is the root, and every branch that left above it goes); a prune takes branch leaves,
    /// never a node of the current path; the current node, and so the document, stay.
    mutating func follow(_ held: ActionStack.HistoryTree) -> (problems: [String], rerooted: Bool, pruned: Bool) {
        var problems: [String] = []
        let rerooted = held.root.sequence != root
        let heldNumbers = Set(held.nodes.map(\.sequence))
        let newRoot = held.root.sequence
        let way = path(to: current)
        if newRoot != root {
            // The node of the current path that stands for the new root: the newest one numbered at
            // most the root's number (the nodes between are dead steps the stack still held).
            guard let standIn = way.last(where: { $0 <= newRoot }) else {
                return (["the new root #\(newRoot) is not on the current path \(way)"], true, false)
            }
            reroot(at: standIn, as: newRoot)
        }
        let onWay = Set(path(to: current))
        let gone = nodes.keys.filter { !heldNumbers.contains($0) && $0 != root }
        let goneSet = Set(gone)
        for node in gone.sorted(by: >) {
            if onWay.contains(node) { problems.append("node #\(node) of the current path was pruned") }
            if let kept = nodes[node]!.children.first(where: { !goneSet.contains($0) }) {
                problems.append("node #\(node) was pruned and its child #\(kept) kept (not a leaf)")
            }
        }
        for node in gone.sorted(by: >) where nodes[node] != nil { prune(node) }
        // Nodes gone with the root's branches are not pruned: when the new root is a dead node the
        // model had dropped, its stand-in's branches include those that left from the old root.
        let pruned = !gone.isEmpty && !rerooted
        // Where a pruned node was the way a redo went, the stack chose another way (or none).
        let heldRedo = Dictionary(uniqueKeysWithValues: held.nodes.map { ($0.sequence, $0.redoChild?.sequence) })
        for (number, node) in nodes {
            if let child = node.redoChild, nodes[child] != nil { continue }
            let redo = heldRedo[number] ?? nil
            nodes[number]!.redoChild = redo.flatMap { nodes[$0] != nil ? $0 : nil }
        }
        return (problems, rerooted, pruned)
    }

    /// Drops everything outside the subtree of `standIn`, which becomes the root numbered `newRoot`.
    private mutating func reroot(at standIn: Int, as newRoot: Int) {
        var keep: Set<Int> = []
        var pending = [standIn]
        while let node = pending.popLast() {
            keep.insert(node)
            pending += nodes[node]!.children
        }
        nodes = nodes.filter { keep.contains($0.key) }
        var node = nodes.removeValue(forKey: standIn)!
        node.parent = nil
        node.edits = []
        node.name = ""
        for child in node.children { nodes[child]!.parent = newRoot }
        nodes[newRoot] = node
        if current == standIn { current = newRoot }
        root = newRoot
    }

    /// Drops `node` and the nodes below it.
    private mutating func prune(_ node: Int) {
        for child in nodes[node]!.children where nodes[child] != nil { prune(child) }
        let gone = nodes.removeValue(forKey: node)!
        guard let parent = gone.parent, nodes[parent] != nil else { return }
        nodes[parent]!.children.removeAll { $0 == node }
        if nodes[parent]!.redoChild == node { nodes[parent]!.redoChild = nil }
    }
}
