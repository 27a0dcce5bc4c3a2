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
    ///
    /// Extensible: new problems may be added in any release (each new check adds one); do not
    /// switch exhaustively. Compare with a static member (`problem == .cycle(node: 3)`), and read
    /// what a problem carries through ``node``, ``parent``, ``cost``, ``commandType`` and
    /// ``version``. The ``description`` is stable.
    public struct StructuralProblem: Error, Hashable, Sendable, CustomStringConvertible {
        /// The problems this version knows, with what each carries.
        private enum Code: Hashable, Sendable {
            case negativeNode(Int)
            case nodeOutOfRange(Int)
            case duplicateNode(Int)
            case missingParent(node: Int, parent: Int)
            case cycle(node: Int)
            case parentAfterChild(node: Int, parent: Int)
            case branchInLinearHistory(parent: Int)
            case twoRedoChoices(parent: Int)
            case currentNotInHistory(Int)
            case cleanNotInHistory(Int)
            case negativeCost(node: Int, cost: Int)
            case invalidCommandVersion(type: String, version: Int)
            case actionWithoutCommand(node: Int)
            case nextNodeNotAbove(next: Int, node: Int)
        }

        private let code: Code

        private init(_ code: Code) { self.code = code }

        /// A node number below 0 (the root, a step's node or its parent).
        ///
        /// - Parameter node: The node number.
        /// - Returns: The problem.
        public static func negativeNode(_ node: Int) -> StructuralProblem { StructuralProblem(.negativeNode(node)) }

        /// A node number above ``SavedHistory/maximumNode`` (the root, a step's node or its parent,
        /// the current or the clean node).
        ///
        /// - Parameter node: The node number.
        /// - Returns: The problem.
        public static func nodeOutOfRange(_ node: Int) -> StructuralProblem { StructuralProblem(.nodeOutOfRange(node)) }

        /// Two steps lead to the same node, or a step leads to the root.
        ///
        /// - Parameter node: The node.
        /// - Returns: The problem.
        public static func duplicateNode(_ node: Int) -> StructuralProblem { StructuralProblem(.duplicateNode(node)) }

        /// A step leads from a node that is neither the root nor any step's node.
        ///
        /// - Parameters:
        ///   - node: The step's node.
        ///   - parent: The node it leads from.
        /// - Returns: The problem.
        public static func missingParent(node: Int, parent: Int) -> StructuralProblem {
            StructuralProblem(.missingParent(node: node, parent: parent))
        }

        /// A step is its own ancestor.
        ///
        /// - Parameter node: The step's node.
        /// - Returns: The problem.
        public static func cycle(node: Int) -> StructuralProblem { StructuralProblem(.cycle(node: node)) }

        /// A step comes before the step that leads to its parent (steps are saved parents first).
        ///
        /// - Parameters:
        ///   - node: The step's node.
        ///   - parent: The node it leads from.
        /// - Returns: The problem.
        public static func parentAfterChild(node: Int, parent: Int) -> StructuralProblem {
            StructuralProblem(.parentAfterChild(node: node, parent: parent))
        }

        /// A linear history in which two steps leave from the same node.
        ///
        /// - Parameter parent: The node they leave from.
        /// - Returns: The problem.
        public static func branchInLinearHistory(parent: Int) -> StructuralProblem {
            StructuralProblem(.branchInLinearHistory(parent: parent))
        }

        /// Two steps that leave from the same node both claim to be its redo choice.
        ///
        /// - Parameter parent: The node they leave from.
        /// - Returns: The problem.
        public static func twoRedoChoices(parent: Int) -> StructuralProblem {
            StructuralProblem(.twoRedoChoices(parent: parent))
        }

        /// The current node is not in the history.
        ///
        /// - Parameter node: The current node.
        /// - Returns: The problem.
        public static func currentNotInHistory(_ node: Int) -> StructuralProblem {
            StructuralProblem(.currentNotInHistory(node))
        }

        /// The clean node is not in the history.
        ///
        /// - Parameter node: The clean node.
        /// - Returns: The problem.
        public static func cleanNotInHistory(_ node: Int) -> StructuralProblem {
            StructuralProblem(.cleanNotInHistory(node))
        }

        /// An action with a cost below 0.
        ///
        /// - Parameters:
        ///   - node: The node of the action's step.
        ///   - cost: The cost.
        /// - Returns: The problem.
        public static func negativeCost(node: Int, cost: Int) -> StructuralProblem {
            StructuralProblem(.negativeCost(node: node, cost: cost))
        }

        /// A command version below 1.
        ///
        /// - Parameters:
        ///   - type: The command type's name.
        ///   - version: The version.
        /// - Returns: The problem.
        public static func invalidCommandVersion(type: String, version: Int) -> StructuralProblem {
            StructuralProblem(.invalidCommandVersion(type: type, version: version))
        }

        /// An action that has neither a command nor a problem saying why not.
        ///
        /// - Parameter node: The node of the action's step.
        /// - Returns: The problem.
        public static func actionWithoutCommand(node: Int) -> StructuralProblem {
            StructuralProblem(.actionWithoutCommand(node: node))
        }

        /// ``SavedHistory/nextNode`` is not above every node the history holds: a change made
        /// after the restore would be given the number of a node held.
        ///
        /// - Parameters:
        ///   - next: The next node number.
        ///   - node: The highest node the history holds.
        /// - Returns: The problem.
        public static func nextNodeNotAbove(next: Int, node: Int) -> StructuralProblem {
            StructuralProblem(.nextNodeNotAbove(next: next, node: node))
        }

        /// The node the problem is about (for ``branchInLinearHistory(parent:)`` and
        /// ``twoRedoChoices(parent:)``, the node the steps leave from); nil for
        /// ``invalidCommandVersion(type:version:)``.
        public var node: Int? {
            switch code {
            case .negativeNode(let node), .nodeOutOfRange(let node), .duplicateNode(let node),
                .missingParent(let node, _), .cycle(let node),
                .parentAfterChild(let node, _), .branchInLinearHistory(let node), .twoRedoChoices(let node),
                .currentNotInHistory(let node), .cleanNotInHistory(let node), .negativeCost(let node, _),
                .actionWithoutCommand(let node), .nextNodeNotAbove(_, let node):
                node
            case .invalidCommandVersion: nil
            }
        }

        /// For ``missingParent(node:parent:)`` and ``parentAfterChild(node:parent:)``, the node the
        /// step leads from; nil for every other problem.
        public var parent: Int? {
            switch code {
            case .missingParent(_, let parent), .parentAfterChild(_, let parent): parent
            default: nil
            }
        }

        /// For ``negativeCost(node:cost:)``, the cost; nil for every other problem.
        public var cost: Int? {
            if case .negativeCost(_, let cost) = code { cost } else { nil }
        }

        /// For ``invalidCommandVersion(type:version:)``, the command type's name; nil for every
        /// other problem.
        public var commandType: String? {
            if case .invalidCommandVersion(let type, _) = code { type } else { nil }
        }

        /// For ``invalidCommandVersion(type:version:)``, the version; nil for every other problem.
        public var version: Int? {
            if case .invalidCommandVersion(_, let version) = code { version } else { nil }
        }

        /// Which problem this is, without what it carries: `problem.kind == .cycle`.
        public var kind: Kind {
            switch code {
            case .negativeNode: .negativeNode
            case .nodeOutOfRange: .nodeOutOfRange
            case .duplicateNode: .duplicateNode
            case .missingParent: .missingParent
            case .cycle: .cycle
            case .parentAfterChild: .parentAfterChild
            case .branchInLinearHistory: .branchInLinearHistory
            case .twoRedoChoices: .twoRedoChoices
            case .currentNotInHistory: .currentNotInHistory
            case .cleanNotInHistory: .cleanNotInHistory
            case .negativeCost: .negativeCost
            case .invalidCommandVersion: .invalidCommandVersion
            case .actionWithoutCommand: .actionWithoutCommand
            case .nextNodeNotAbove: .nextNodeNotAbove
            }
        }

        /// Which problem a ``StructuralProblem`` is, without what it carries: one static member for
        /// each of ``StructuralProblem``'s, with the same name.
        ///
        /// Extensible: new kinds may be added in any release; do not switch exhaustively. The
        /// ``description`` (the name, as `"cycle"`) is stable.
        public struct Kind: Hashable, Sendable, CustomStringConvertible {
            /// The kinds this version knows, by name.
            private enum Name: String {
                case negativeNode, nodeOutOfRange, duplicateNode, missingParent, cycle, parentAfterChild
                case branchInLinearHistory
                case twoRedoChoices, currentNotInHistory, cleanNotInHistory, negativeCost, invalidCommandVersion
                case actionWithoutCommand, nextNodeNotAbove
            }

            private let name: Name

            private init(_ name: Name) { self.name = name }

            /// The name of the problem's static member, as `"cycle"`.
            public var description: String { name.rawValue }

            /// ``StructuralProblem/negativeNode(_:)``.
            public static var negativeNode: Kind { Kind(.negativeNode) }
            /// ``StructuralProblem/nodeOutOfRange(_:)``.
            public static var nodeOutOfRange: Kind { Kind(.nodeOutOfRange) }
            /// ``StructuralProblem/duplicateNode(_:)``.
            public static var duplicateNode: Kind { Kind(.duplicateNode) }
            /// ``StructuralProblem/missingParent(node:parent:)``.
            public static var missingParent: Kind { Kind(.missingParent) }
            /// ``StructuralProblem/cycle(node:)``.
            public static var cycle: Kind { Kind(.cycle) }
            /// ``StructuralProblem/parentAfterChild(node:parent:)``.
            public static var parentAfterChild: Kind { Kind(.parentAfterChild) }
            /// ``StructuralProblem/branchInLinearHistory(parent:)``.
            public static var branchInLinearHistory: Kind { Kind(.branchInLinearHistory) }
            /// ``StructuralProblem/twoRedoChoices(parent:)``.
            public static var twoRedoChoices: Kind { Kind(.twoRedoChoices) }
            /// ``StructuralProblem/currentNotInHistory(_:)``.
            public static var currentNotInHistory: Kind { Kind(.currentNotInHistory) }
            /// ``StructuralProblem/cleanNotInHistory(_:)``.
            public static var cleanNotInHistory: Kind { Kind(.cleanNotInHistory) }
            /// ``StructuralProblem/negativeCost(node:cost:)``.
            public static var negativeCost: Kind { Kind(.negativeCost) }
            /// ``StructuralProblem/invalidCommandVersion(type:version:)``.
            public static var invalidCommandVersion: Kind { Kind(.invalidCommandVersion) }
            /// ``StructuralProblem/actionWithoutCommand(node:)``.
            public static var actionWithoutCommand: Kind { Kind(.actionWithoutCommand) }
            /// ``StructuralProblem/nextNodeNotAbove(next:node:)``.
            public static var nextNodeNotAbove: Kind { Kind(.nextNodeNotAbove) }
        }

        /// What is wrong, as a sentence fragment.
        public var description: String {
            switch code {
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
                "command \"\(shortenedForMessage(type))\" has version \(version), below 1"
            case .actionWithoutCommand(let node): "an action of node \(node) has no command and no problem"
            case .nextNodeNotAbove(let next, let node):
                "the next node number \(next) is not above node \(node), which the history holds"
            }
        }
    }

    /// Checks that a stack could take this history: a tree rooted at ``root`` whose steps come
    /// parents first, each node once, every node reachable from the root, ``current`` and
    /// ``clean`` in it, node numbers from 0 to ``maximumNode``, no branch in a linear history, at
    /// most one redo choice per node, no negative cost or command version below 1, and a
    /// ``nextNode``, when there is one, above every node held and at most ``maximumNode`` + 1.
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
    ///
    /// A `package` hook for ActionStackArchive.
    package func validate(checkingActions: Bool) throws(StructuralProblem) {
        if root < 0 { throw .negativeNode(root) }
        if root > Self.maximumNode { throw .nodeOutOfRange(root) }
        try validateNextNode()
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

    /// Checks ``nextNode``: above every node held, and at most one above ``maximumNode`` (a
    /// stack numbers its nodes with 32-bit numbers).
    ///
    /// - Complexity: O(s) for s steps; O(1) without a next node.
    private func validateNextNode() throws(StructuralProblem) {
        guard let nextNode else { return }
        if nextNode < 0 { throw .negativeNode(nextNode) }
        if nextNode > Self.maximumNode + 1 { throw .nodeOutOfRange(nextNode) }
        var highest = root
        for index in steps.indices where steps[index].node > highest { highest = steps[index].node }
        if nextNode <= highest { throw .nextNodeNotAbove(next: nextNode, node: highest) }
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

/// `text`, cut to a length that an error message can show (the archive's and journal's errors cut
/// names and fingerprints so too).
///
/// A `package` hook: ActionStackArchive's errors (`HistoryArchiveError.shortened`) use it, so that
/// the core's messages and the format's cut text alike.
///
/// - Complexity: O(`length`).
package func shortenedForMessage(_ text: String, to length: Int = 80) -> String {
    text.count <= length ? text : String(text.prefix(length)) + "…"
}
