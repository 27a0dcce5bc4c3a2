// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension SavedHistory {
    /// The largest node number a saved history may hold: 2^31 − 1 (2,147,483,647).
    ///
    /// A branching stack numbers its nodes with 32-bit numbers and numbers the changes made after a
    /// restore on from the highest restored node, so a history whose nodes stay at or below this
    /// number leaves room for at least 2^31 more changes. It is the one limit on node numbers:
    /// ``validate()`` refuses a root or a step's node or parent above it (a current or a clean
    /// node above it is not in the history), so ``HistoryArchive/init(decoding:registry:limits:)`` refuses such a file,
    /// ``HistoryArchive/encoded(limits:)`` refuses to write one, and
    /// ``ActionStack/restoreHistory(_:resolvingTargets:)`` refuses one (into a linear stack as into
    /// a branching one). No stack saves such a history: a stack starts at node 0 and would need
    /// 2^31 changes to reach it.
    public static let maximumNode = Int(Int32.max)

    /// A flaw in a saved history's shape that would make restoring it unsafe.
    public enum StructuralProblem: Error, Hashable, Sendable, CustomStringConvertible {
        /// A node number below 0 (the root, a step's node or its parent).
        case negativeNode(Int)
        /// A node number above ``SavedHistory/maximumNode`` (the root, a step's node or its
        /// parent, the current or the clean node).
        case nodeOutOfRange(Int)
        /// Two steps lead to the same node, or a step leads to the root.
        case duplicateNode(Int)
        /// A step leads from a node that is neither the root nor any step's node.
        case missingParent(node: Int, parent: Int)
        /// A step is its own ancestor.
        case cycle(node: Int)
        /// A step comes before the step that leads to its parent (steps are saved parents first).
        case parentAfterChild(node: Int, parent: Int)
        /// A linear history in which two steps leave from the same node.
        case branchInLinearHistory(parent: Int)
        /// Two steps that leave from the same node both claim to be its redo choice.
        case twoRedoChoices(parent: Int)
        /// The current node is not in the history.
        case currentNotInHistory(Int)
        /// The clean node is not in the history.
        case cleanNotInHistory(Int)
        /// An action with a cost below 0.
        case negativeCost(node: Int, cost: Int)
        /// A command version below 1.
        case invalidCommandVersion(type: String, version: Int)
        /// An action that has neither a command nor a problem saying why not.
        case actionWithoutCommand(node: Int)

        /// What is wrong, as a sentence fragment.
        public var description: String {
            switch self {
            case .negativeNode(let node): "node \(node) is negative"
            case .nodeOutOfRange(let node):
                "node \(node) is above \(SavedHistory.maximumNode), the largest node number a saved history may hold"
            case .duplicateNode(let node): "node \(node) appears twice"
            case .missingParent(let node, let parent): "the parent \(parent) of node \(node) is not in the history"
            case .cycle(let node): "node \(node) is its own ancestor"
            case .parentAfterChild(let node, let parent): "node \(node) comes before its parent \(parent)"
            case .branchInLinearHistory(let parent): "node \(parent) has two children in a linear history"
            case .twoRedoChoices(let parent): "node \(parent) has two redo choices"
            case .currentNotInHistory(let node): "the current node \(node) is not in the history"
            case .cleanNotInHistory(let node): "the clean node \(node) is not in the history"
            case .negativeCost(let node, let cost): "an action of node \(node) has the negative cost \(cost)"
            case .invalidCommandVersion(let type, let version):
                "command \"\(HistoryArchiveError.shortened(type))\" has version \(version), below 1"
            case .actionWithoutCommand(let node): "an action of node \(node) has no command and no problem"
            }
        }
    }

    /// Checks that a stack could take this history: a tree rooted at ``root`` whose steps come
    /// parents first, each node once, every node reachable from the root, ``current`` and
    /// ``clean`` in it, node numbers from 0 to ``maximumNode``, no branch in a linear history, at
    /// most one redo choice per node, and no negative cost or command version below 1.
    ///
    /// ``HistoryArchive/init(decoding:registry:limits:)`` runs it on every history it reads, and
    /// ``HistoryArchive/encoded(limits:)`` on every history it writes.
    ///
    /// - Throws: The first problem found.
    /// - Complexity: O(s + a) for s steps and a actions.
    public func validate() throws(StructuralProblem) {
        try validate(checkingActions: true)
    }

    /// ``validate()``; the checks of the actions (cost, version, command or problem) are left out
    /// when the caller made the actions itself and knows them to pass (the archive's reader).
    func validate(checkingActions: Bool) throws(StructuralProblem) {
        if root < 0 { throw .negativeNode(root) }
        if root > Self.maximumNode { throw .nodeOutOfRange(root) }
        if try validateAsChain(checkingActions: checkingActions) { return }
        // Each node's position among the steps (the root at -1), filled as the steps come.
        var position: [Int: Int] = [root: -1]
        position.reserveCapacity(steps.count + 1)
        var hasChild: Set<Int> = []
        var hasRedoChoice: Set<Int> = []
        for (index, step) in steps.enumerated() {
            if step.node < 0 { throw .negativeNode(step.node) }
            if step.parent < 0 { throw .negativeNode(step.parent) }
            if step.node > Self.maximumNode { throw .nodeOutOfRange(step.node) }
            if step.parent > Self.maximumNode { throw .nodeOutOfRange(step.parent) }
            if position[step.node] != nil { throw .duplicateNode(step.node) }
            if position[step.parent] == nil { throw misplacedParent(of: index) }
            position[step.node] = index
            if shape == .linear, !hasChild.insert(step.parent).inserted {
                throw .branchInLinearHistory(parent: step.parent)
            }
            if step.isRedoChoice, !hasRedoChoice.insert(step.parent).inserted {
                throw .twoRedoChoices(parent: step.parent)
            }
            if checkingActions {
                for action in step.actions { try Self.check(action, of: step.node) }
            }
        }
        if position[current] == nil { throw .currentNotInHistory(current) }
        if let clean, position[clean] == nil { throw .cleanNotInHistory(clean) }
    }

    /// Checks one action of the step leading to `node`.
    private static func check(_ action: SavedAction, of node: Int) throws(StructuralProblem) {
        if action.cost < 0 { throw .negativeCost(node: node, cost: action.cost) }
        if action.version < 1 { throw .invalidCommandVersion(type: action.commandType, version: action.version) }
        if action.problem == nil, case .none = action.command { throw .actionWithoutCommand(node: node) }
    }

    /// Validates a history whose steps form one line from the root, numbered one after another
    /// (every linear history that a stack saves): each step leads from the previous step's node to
    /// the next number and is its parent's redo choice. Such a history is a tree with each node
    /// once, so only the current and clean nodes and the actions are left to check. Returns false,
    /// having checked nothing, when the steps are not such a line.
    ///
    /// - Complexity: O(s + a) for s steps and a actions, with no map of nodes.
    private func validateAsChain(checkingActions: Bool) throws(StructuralProblem) -> Bool {
        var previous = root
        for index in steps.indices {
            let node = steps[index].node
            guard steps[index].parent == previous, steps[index].isRedoChoice, node > previous, node == previous &+ 1
            else { return false }
            previous = node
        }
        // The nodes of the line run from the root up to `previous`.
        if previous > Self.maximumNode { throw .nodeOutOfRange(Self.maximumNode + 1) }
        if checkingActions {
            for step in steps.indices {
                for action in 0..<steps[step].actionList.count {
                    try Self.check(steps[step].actionList[action], of: steps[step].node)
                }
            }
        }
        if current < root || current > previous { throw .currentNotInHistory(current) }
        if let clean, clean < root || clean > previous { throw .cleanNotInHistory(clean) }
        return true
    }

    /// Why the parent of the step at `index` is not among the nodes before it: it is nowhere, it
    /// comes later, or the step is its own ancestor.
    ///
    /// - Complexity: O(s) for s steps.
    private func misplacedParent(of index: Int) -> StructuralProblem {
        let step = steps[index]
        var parentOf: [Int: Int] = [:]
        for other in steps where parentOf[other.node] == nil { parentOf[other.node] = other.parent }
        guard parentOf[step.parent] != nil else { return .missingParent(node: step.node, parent: step.parent) }
        // Walk up from the step: reaching the root means the order is wrong; coming back to the
        // step, or walking longer than there are steps, means a cycle through it or above it.
        var node = step.parent
        for _ in 0...steps.count {
            if node == root { return .parentAfterChild(node: step.node, parent: step.parent) }
            if node == step.node { return .cycle(node: step.node) }
            // Every node the walk reaches is a step's node: the first is, and each next is checked.
            let parent = parentOf[node] ?? root
            if parent != root, parentOf[parent] == nil { return .missingParent(node: node, parent: parent) }
            node = parent
        }
        // Longer than there are steps: `node` is on a cycle above the step.
        return .cycle(node: node)
    }
}
