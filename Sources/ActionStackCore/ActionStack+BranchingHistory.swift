// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension ActionStack {
    /// The shape of the history: a line, as Foundation keeps it, or a tree that never loses a redo
    /// future.
    ///
    /// Frozen: a history is a line or a tree (every state has one parent, the state it was changed
    /// from, so a tree is the most general shape); no other shape will be added, and a `switch`
    /// over it may be exhaustive.
    @frozen
    public enum HistoryShape: Hashable, Sendable {
        /// A change made outside undo and redo empties the redo stack (Foundation's behaviour).
        case linear
        /// A change made outside undo and redo keeps the redo stack as a branch that leaves from
        /// the current node; ``ActionStack/jump(toNode:)`` and the time moves reach every node.
        case tree
    }

    /// A node of a branching history: a document state reached by a closed step.
    public struct HistoryNode: Identifiable, Hashable, Sendable {
        /// A node's identity: its sequence number (vim's change number), stable for as long as the
        /// node exists.
        public struct ID: Hashable, Comparable, Sendable, CustomStringConvertible {
            /// The order in which the changes were made: the root of a new history is 0, and every
            /// change made outside undo and redo takes the next number, once.
            public var sequence: Int

            /// The node with this sequence number.
            ///
            /// - Parameter sequence: The sequence number.
            public init(sequence: Int) { self.sequence = sequence }

            /// Whether `lhs` was made before `rhs`.
            public static func < (lhs: ID, rhs: ID) -> Bool { lhs.sequence < rhs.sequence }

            /// "#3" for the node with sequence number 3.
            public var description: String { "#\(sequence)" }
        }

        /// The node's identity.
        public var id: ID
        /// The node's sequence number (`id.sequence`).
        public var sequence: Int { id.sequence }
        /// The node it was made from; nil for the root.
        public var parent: ID?
        /// The nodes made from it, in the order they were made.
        public var children: [ID]
        /// The child ``ActionStack/redo()`` enters from this node: the one entered last (nil at a
        /// leaf).
        public var redoChild: ID?
        /// When the change was made (for the root: when the history began).
        public var date: Date
        /// The action name of the step that leads to it (`""` for the root).
        public var actionName: String
        /// Its menu title: "Undo …" for the current node and its ancestors, "Redo …" for the
        /// others; `""` for the root.
        public var title: String
        /// The number of actions of the step that leads to it.
        public var actionCount: Int
        /// Whether the document is clean in this state (``ActionStack/markClean()`` was called
        /// there).
        public var isClean: Bool
        /// Whether the document is in this state.
        public var isCurrent: Bool
        /// Whether it lies on the current path: the root, the current node and their ancestors, and
        /// the nodes ``ActionStack/redo()`` would reach from the current node.
        public var isOnCurrentPath: Bool
        /// Whether the step that leads to it is being undone or redone right now by an awaited
        /// operation (as ``ActionStack/HistoryEntry/isInFlight``): the document moves from or to
        /// this node when it succeeds.
        public var isInFlight = false
        /// Whether the step that leads to it is the broken one (``ActionStack/brokenStep``), as
        /// ``ActionStack/HistoryEntry/isBroken``.
        public var isBroken = false
    }

    /// A snapshot of a branching history, for a history panel.
    public struct HistoryTree: Hashable, Sendable {
        /// Every node, in sequence order (the root first).
        public var nodes: [HistoryNode]
        /// The root: the oldest state the history can return to.
        public var root: HistoryNode.ID
        /// The node the document is in.
        public var current: HistoryNode.ID
        /// The newest node (the change made last).
        public var newest: HistoryNode.ID {
            nodes.last?.id ?? root
        }
        /// The clean node, when the clean state is in the tree.
        public var clean: HistoryNode.ID? {
            nodes.first(where: \.isClean)?.id
        }

        /// The leaves (nodes with no child), in sequence order: the tips of the branches, as
        /// vim's `:undolist` lists them.
        public var leaves: [HistoryNode] { nodes.filter(\.children.isEmpty) }

        /// The node with `id`, if the tree holds it.
        ///
        /// - Complexity: O(log n).
        public subscript(id: HistoryNode.ID) -> HistoryNode? {
            var low = 0
            var high = nodes.count
            while low < high {
                let middle = (low + high) / 2
                if nodes[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < nodes.count && nodes[low].id == id ? nodes[low] : nil
        }

        /// The path from the root down to `id`, root first (empty when the tree does not hold it).
        ///
        /// - Complexity: O(d log n) for a node at depth d.
        public func path(to id: HistoryNode.ID) -> [HistoryNode] {
            var path: [HistoryNode] = []
            var next: HistoryNode.ID? = id
            while let id = next, let node = self[id] {
                path.append(node)
                next = node.parent
            }
            return path.reversed()
        }
    }

    /// Why a move in a branching history did not happen. Nothing changed.
    ///
    /// Extensible: new errors may be added in any release; do not switch exhaustively. Compare
    /// with a static member (`error == .linearHistory`, `error == .noSuchNode(id)`), and read the
    /// node an error names through ``node``. The ``description`` is stable.
    public struct HistoryTreeError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The errors this version knows, with what each carries.
        private enum Code: Hashable, Sendable {
            case linearHistory
            case noSuchNode(HistoryNode.ID)
            case notAChildOfCurrentNode(HistoryNode.ID)
            case groupIsOpen
        }

        private let code: Code

        private init(_ code: Code) { self.code = code }

        /// The history is linear (``ActionStack/historyShape`` is ``HistoryShape/linear``).
        public static var linearHistory: HistoryTreeError { HistoryTreeError(.linearHistory) }

        /// No node has this id: it never existed, or it was pruned, trimmed or removed.
        ///
        /// - Parameter node: The node asked for.
        /// - Returns: The error.
        public static func noSuchNode(_ node: HistoryNode.ID) -> HistoryTreeError {
            HistoryTreeError(.noSuchNode(node))
        }

        /// The node is not a child of the current node.
        ///
        /// - Parameter node: The node asked for.
        /// - Returns: The error.
        public static func notAChildOfCurrentNode(_ node: HistoryNode.ID) -> HistoryTreeError {
            HistoryTreeError(.notAChildOfCurrentNode(node))
        }

        /// A group is open on the undo stack: it is a change in progress, and the current node's
        /// children are not what redo would take once it closes.
        public static var groupIsOpen: HistoryTreeError { HistoryTreeError(.groupIsOpen) }

        /// For ``noSuchNode(_:)`` and ``notAChildOfCurrentNode(_:)``, the node asked for; nil for
        /// every other error.
        public var node: HistoryNode.ID? {
            switch code {
            case .noSuchNode(let id), .notAChildOfCurrentNode(let id): id
            case .linearHistory, .groupIsOpen: nil
            }
        }

        /// What went wrong, as a sentence fragment.
        public var description: String {
            switch code {
            case .linearHistory: "the history is linear; set historyShape to .tree"
            case .noSuchNode(let id): "no node \(id) in the history"
            case .notAChildOfCurrentNode(let id): "node \(id) is not a child of the current node"
            case .groupIsOpen: "a group is open; close it first"
            }
        }
    }

    /// Whether the history is a line (Foundation's behaviour, the default) or a tree that keeps
    /// every redo future.
    ///
    /// With ``HistoryShape/tree``, a change made outside undo and redo no longer empties the redo
    /// stack: the redo stack becomes a branch that leaves from the current node, in O(1) whatever
    /// its length. ``undo()`` and ``redo()`` still walk one path (redo follows the branch visited
    /// last); ``jump(toNode:)``, ``selectRedoBranch(_:)``, ``earlier(_:)`` and ``later(_:)`` reach
    /// the others, and ``historyTree`` shows them. See <doc:BranchingHistory>.
    ///
    /// Switching to `.tree` numbers the steps held (the root is 0, the oldest undo step 1, ...);
    /// switching back to `.linear` drops every branch. Set from a handler or an observer of an
    /// operation in progress, the change takes effect when the outermost call ends.
    ///
    /// - Complexity: O(s) for the s steps held (switching to `.tree`) or the actions in branches
    ///   (switching to `.linear`); O(1) when it does not change.
    public var historyShape: HistoryShape {
        get { history.tree == nil ? .linear : .tree }
        set {
            enterCall()
            defer { leaveCall() }
            guard newValue != historyShape || history.treeSettings.pendingShape != nil else { return }
            if mayDropFreedSteps && mayRestructure {
                history.switchShape(to: newValue)
            } else {
                history.switchShapeLater(to: newValue)
            }
        }
    }

    /// The largest number of steps held off the current path, in branches (``HistoryShape/tree``
    /// only); 0 (the default) means no limit.
    ///
    /// When a branch is left and the branches hold more steps than this, the deepest steps of the
    /// least recently visited branches are dropped first (a leaf at a time), never a step of the
    /// current path. ``levelsOfUndo`` keeps limiting the undo stack; ``maximumCost`` counts the
    /// undo stack and the branches.
    ///
    /// - Complexity: O(k) for the k actions dropped.
    public var maximumBranchSteps: Int {
        get { history.maximumBranchSteps }
        set {
            enterCall()
            defer { leaveCall() }
            history.maximumBranchSteps = newValue
            limitsChanged()
        }
    }

    /// The current node's id (nil in a linear history).
    ///
    /// - Complexity: O(1).
    public var currentNode: HistoryNode.ID? {
        asCall { history.tree == nil ? nil : HistoryNode.ID(sequence: Int(history.currentNodeNumber)) }
    }

    /// The children of the current node, in the order they were made (empty in a linear history):
    /// the branches ``redo()`` could take. ``redo()`` enters the one visited last (the first node
    /// of the redo stack); ``selectRedoBranch(_:)`` chooses another. While an awaited operation
    /// runs after another task's change, the redo stack is the redo future that change ends: it
    /// leaves from the node the document was at when the change came, so it is not a child of the
    /// change (``historyTree`` shows it there too).
    ///
    /// - Complexity: O(b log n) for the b branches that leave from the current node.
    public var redoBranches: [HistoryNode.ID] {
        asCall {
            guard let tree = history.tree else { return [] }
            var children = tree.branches(at: history.currentNodeNumber).map(\.firstNode)
            // A redo future another task's change ended may leave from another node.
            if let next = redoSide.steps.last?.node, history.redoAnchor == history.currentNodeNumber {
                children.append(next)
            }
            return children.sorted().map { HistoryNode.ID(sequence: Int($0)) }
        }
    }

    /// A snapshot of the whole tree (nil in a linear history).
    ///
    /// Reading it sweeps freed targets first, as ``undoEntries`` does. Read from a handler or an
    /// observer of a synchronous undo or redo in progress, it shows the tree without the step in
    /// flight (it has left its stack and its opposite is not built yet): read it at the end of the
    /// call, or from ``observe(_:)``, which hears of a move once it is complete. The step an awaited
    /// operation is performing stays where it was until it has succeeded, and its node is marked
    /// ``HistoryNode/isInFlight``; the broken step's node is marked ``HistoryNode/isBroken``.
    ///
    /// - Complexity: O(s log s) for the s steps held, plus O(t) for t distinct targets (O(n) for the
    ///   n stored actions when one was freed).
    public var historyTree: HistoryTree? {
        enterCall()
        defer { leaveCall() }
        guard history.tree != nil else { return nil }
        if isAtRest { history.sweepFreedTargets() }
        return makeTreeSnapshot()
    }

    /// The clock that dates the nodes of a branching history (``earlier(by:)`` and ``later(by:)``
    /// move by these dates). Replace it in tests so they need not sleep.
    ///
    /// It applies whatever the order of the settings: set before or after ``historyShape``, it
    /// dates the nodes made from then on. Dates never decrease with the node numbers, so a clock
    /// whose time is earlier than the newest date held (a test's fixed date, set after the switch
    /// to a tree dated the root by the system clock) moves the nodes held back, keeping the
    /// intervals between them, until the newest is dated now by the new clock; a root alone is then
    /// dated exactly as if the clock had been set first. A clock at or after the newest date leaves
    /// the dates held as they are (so setting a new clock before each change, as a test that moves
    /// time by hand does, dates each change by it).
    ///
    /// - Complexity: O(s) for the s nodes held when they move back; O(1) otherwise.
    public var historyClock: @Sendable () -> Date {
        get { history.clock ?? { Date() } }
        set {
            // A call: a clock set behind the dates held moves them, a change that observers and a
            // recorder hear at its end, not at the end of the next call.
            enterCall()
            defer { leaveCall() }
            history.clock = newValue
        }
    }

    /// Moves the document to the state of node `id`: undoes up to the nearest common ancestor of
    /// the current node and `id`, then redoes down `id`'s path, entering its branches.
    ///
    /// Each step posts its usual notifications; observers of ``observe(_:)`` and
    /// ``stateUpdates()`` hear of the move once, at the end. As with ``jump(to:)``, the one group
    /// open on the undo stack is closed first (with more than one open it is the misuse
    /// ``Misuse/nestedGroupsOpen(_:groupingLevel:)``), freed targets are swept between steps, and
    /// a step that performs nothing ends the move where it is, as does a target that goes on the way
    /// (its step's targets freed by a handler of a step the move took: no further step is taken).
    /// Every node the move passes keeps its
    /// branches, and the nodes it enters remember the way (``redo()`` follows it). The limits
    /// (``levelsOfUndo``, ``maximumCost``, ``maximumBranchSteps``) are applied once, when the move
    /// ends, synchronous or awaited, so both keep the same steps. Ends coalescing.
    /// From a handler or an observer of an operation in progress it is the misuse
    /// ``Misuse/reentrantCall(_:during:)``. With an asynchronous step on the way, or while an
    /// asynchronous operation is in progress, the move is one request: on the main actor (an Edit
    /// menu) it starts it, as ``undo()`` does (``startedRequest``), and elsewhere it is the misuse
    /// ``Misuse/needsAwait(_:)``; await ``performJump(toNode:isolation:)`` instead. A broken step
    /// refuses it (``Misuse/stepIsBroken(_:)``). The time moves follow the same rule. A synchronous
    /// move never performs an asynchronous step at once: when its way changes under it so that it
    /// comes to one (a time move passing over a node found dead to one whose way holds it), it
    /// stops before that step and starts the rest as a request (a jump to the node it then aims at),
    /// on the main actor; elsewhere it ends there, with the misuse ``Misuse/needsAwait(_:)``.
    ///
    /// - Parameter id: The node to reach.
    /// - Throws: ``HistoryTreeError/linearHistory`` in a linear history,
    ///   ``HistoryTreeError/noSuchNode(_:)`` for an id the tree does not hold; nothing changes.
    /// - Complexity: O(n) for the n actions of the steps on the way, plus O(p log s) to find the
    ///   way (p nodes on it, s nodes in the tree), O(b) per branch entered for the b branches that
    ///   leave from its node, and O(t) per step for t distinct targets (it checks for freed targets
    ///   between steps, as ``jump(to:)`` does); not in proportion to the size of the tree.
    public func jump(toNode id: HistoryNode.ID) throws(HistoryTreeError) {
        enterCall()
        defer { leaveCall() }
        try moveInTree(
            .jumpToNode,
            validate: { () throws(HistoryTreeError) -> NodeNumber? in
                guard let number = NodeNumber(exactly: id.sequence), history.tree?.table.contains(number) == true else {
                    throw .noSuchNode(id)
                }
                return number
            }
        )
    }

    /// Makes ``redo()`` enter the child `id` of the current node (another branch), without moving
    /// the document: the redo stack becomes the branch that leads to `id`, and the branch it held is
    /// kept. Choosing the child ``redo()`` would enter anyway does nothing. Ends coalescing. While an
    /// asynchronous operation is in progress or queued, or a step is broken, it is the misuse
    /// ``Misuse/notWhileAsync(_:)``.
    ///
    /// - Parameter id: A child of the current node (see ``redoBranches``).
    /// - Throws: ``HistoryTreeError/linearHistory``, ``HistoryTreeError/noSuchNode(_:)``,
    ///   ``HistoryTreeError/notAChildOfCurrentNode(_:)``, or ``HistoryTreeError/groupIsOpen`` while a
    ///   group is open on the undo stack; nothing changes.
    /// - Complexity: O(b) for the b branches that leave from the current node.
    public func selectRedoBranch(_ id: HistoryNode.ID) throws(HistoryTreeError) {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.selectRedoBranch) { return }
        guard let tree = history.tree else { throw .linearHistory }
        guard let number = NodeNumber(exactly: id.sequence), tree.table.contains(number) else {
            throw .noSuchNode(id)
        }
        if steps.refusesHistoryMoves {
            // The redo stack is what the operation in flight (or a queued one) works on.
            report(.notWhileAsync(.selectRedoBranch))
            return
        }
        guard undoSide.frames.isEmpty else { throw .groupIsOpen }
        guard tree.table.parent(of: number) == history.currentNodeNumber else {
            throw .notAChildOfCurrentNode(id)
        }
        history.endCoalescing()
        _ = enterBranch(leadingTo: number)
    }

    /// Moves back in time by `count` changes, as vim's `g-` and `:earlier`: to the state numbered
    /// `current − count` (the root at most), wherever it lies in the tree. A count of 0 or less
    /// does not move; at the root nothing moves.
    ///
    /// The move is a ``jump(toNode:)`` (the same notifications and rules). A number that no longer
    /// exists (pruned, removed, or a step that remote changes left with nothing to do, found so on
    /// the way) is passed over to the next older node.
    ///
    /// With asynchronous steps on the way, or an operation in progress, the move is started as a
    /// request (``OperationRequest/Kind/earlier(_:)``; see ``startedRequest``), and the request
    /// finds its target when it starts, from where the document is then: pressed twice before the
    /// first has run, it goes back two changes, as two presses of Undo undo two steps. The node
    /// returned is then the one the move would reach from where the document is now.
    ///
    /// - Parameter count: How many changes back.
    /// - Returns: The node reached.
    /// - Throws: ``HistoryTreeError/linearHistory`` in a linear history.
    /// - Complexity: that of ``jump(toNode:)``, plus O(log s).
    @discardableResult
    public func earlier(_ count: Int = 1) throws(HistoryTreeError) -> HistoryNode.ID {
        try moveInTime(TimeMove(forward: false, distance: .changes(count)))
    }

    /// Moves forward in time by `count` changes, as vim's `g+` and `:later`: to the state numbered
    /// `current + count` (the newest at most). A count of 0 or less does not move; at the newest
    /// change nothing moves. A number that no longer exists (as for ``earlier(_:)``) is passed over
    /// to the next newer node.
    ///
    /// - Parameter count: How many changes forward.
    /// - Returns: The node reached.
    /// - Throws: ``HistoryTreeError/linearHistory`` in a linear history.
    /// - Complexity: that of ``jump(toNode:)``, plus O(log s).
    @discardableResult
    public func later(_ count: Int = 1) throws(HistoryTreeError) -> HistoryNode.ID {
        try moveInTime(TimeMove(forward: true, distance: .changes(count)))
    }

    /// Moves back in time by `duration`, in the spirit of vim's `:earlier 10m` but by a rule of its
    /// own: to the newest node made at or before the current node's date minus `duration` (the
    /// root when none was), so that the document is as it was then. A duration of 0 or less does
    /// not move. (vim goes to the state before the change made closest to that time, counting
    /// from the time of the change last undone or redone, so it may land one change earlier, or
    /// elsewhere after an undo; counts, `g-` and `:earlier N`, agree with vim exactly.)
    ///
    /// - Parameter duration: How far back.
    /// - Returns: The node reached.
    /// - Throws: ``HistoryTreeError/linearHistory`` in a linear history.
    /// - Complexity: that of ``jump(toNode:)``, plus O(log s).
    @discardableResult
    public func earlier(by duration: Duration) throws(HistoryTreeError) -> HistoryNode.ID {
        try moveInTime(TimeMove(forward: false, distance: .duration(duration)))
    }

    /// Moves forward in time by `duration`, in the spirit of vim's `:later 10m` but by a rule of its
    /// own: to the oldest node made at or after the current node's date plus `duration` (the
    /// newest node when none was). A duration of 0 or less does not move. (vim goes to the change
    /// made closest to that time; see ``earlier(by:)``.)
    ///
    /// - Parameter duration: How far forward.
    /// - Returns: The node reached.
    /// - Throws: ``HistoryTreeError/linearHistory`` in a linear history.
    /// - Complexity: that of ``jump(toNode:)``, plus O(log s).
    @discardableResult
    public func later(by duration: Duration) throws(HistoryTreeError) -> HistoryNode.ID {
        try moveInTime(TimeMove(forward: true, distance: .duration(duration)))
    }
}
