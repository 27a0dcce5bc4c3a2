// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

// The branching history's maintenance: numbering the nodes, leaving and entering branches, keeping
// the node table right when steps go, and finding the way between two nodes.
//
// The current path is the undo stack (from the root down to the current node) and the redo stack
// (from the current node down the branch visited last). Each closed step carries the number of the
// node it leads to; the node table knows each node's parent and date. A branch is a side that holds
// a chain of redo steps leaving from its anchor node.

extension History {
    // MARK: The current node

    /// The current node's number: the node the newest undo step leads to, or the root (0 in a
    /// linear history).
    ///
    /// - Complexity: O(1).
    var currentNodeNumber: NodeNumber {
        guard let tree else { return 0 }
        return undoSide.steps.last?.node ?? tree.root
    }

    /// The node the redo stack leaves from: the current node, but while the redo future is ending
    /// (``TreeStore/redoFutureIsEnding``) the node its first step's parent is, the node the
    /// document was at when another task's change came (or its nearest remaining ancestor).
    ///
    /// - Complexity: O(1).
    var redoAnchor: NodeNumber {
        guard let tree, tree.redoFutureIsEnding, let top = redoSide.steps.last,
            let parent = tree.table.parent(of: top.node)
        else { return currentNodeNumber }
        return parent
    }

    /// A new node for a change made outside undo and redo: a child of the current node.
    ///
    /// - Complexity: O(1) amortized.
    func makeChangeNode() -> NodeNumber {
        guard tree != nil else { return 0 }
        // The clock and the growth of the node table are calls: made before the tree is read for the
        // node, they leave no call between that read and its last use, so the tree is not retained
        // and released on every change.
        let date = treeSettings.now()
        if let tree, tree.table.isFull { tree.makeRoom() }
        guard let tree else { return 0 }
        return tree.makeNodeInRoom(parent: undoSide.steps.last?.node ?? tree.root, date: date)
    }

    // MARK: Switching shape

    /// Switches the history to `shape` (at idle): to a tree, the steps held are numbered as one
    /// chain; to a linear history, the branches are released and the steps lose their numbers.
    ///
    /// - Complexity: O(s) for the s steps held, plus O(a) for the a actions of the branches dropped.
    func applyHistoryShape(_ shape: ActionStack.HistoryShape) {
        switch shape {
        case .tree:
            guard tree == nil else { return }
            noteChangeNeedingSnapshot()
            let date = treeSettings.now()
            let store = TreeStore(root: 0, date: date)
            store.maximumBranchSteps = treeSettings.maximumBranchSteps
            var parent = store.root
            for position in 0..<undoSide.steps.count {
                parent = store.makeNode(parent: parent, date: date)
                undoSide.assignNode(parent, toStepAt: position)
            }
            for position in stride(from: redoSide.steps.count - 1, through: 0, by: -1) {
                parent = store.makeNode(parent: parent, date: date)
                redoSide.assignNode(parent, toStepAt: position)
            }
            tree = store
        case .linear:
            guard let store = tree else { return }
            noteChangeNeedingSnapshot()
            for branch in store.allBranches { emptySide(branch.side) }
            for side in [undoSide, redoSide] {
                for position in 0..<side.steps.count { side.assignNode(0, toStepAt: position) }
            }
            tree = nil
        }
    }

    /// Switches the history to `shape` now (at idle), forgetting a change asked for earlier.
    func switchShape(to shape: ActionStack.HistoryShape) {
        treeSettings.pendingShape = nil
        applyHistoryShape(shape)
    }

    /// Switches the history to `shape` at the end of the outermost call (asked for in the middle
    /// of one): see ``finishPutOffWork(_:)``.
    func switchShapeLater(to shape: ActionStack.HistoryShape) {
        treeSettings.pendingShape = shape
        needsTrim = true
    }

    /// The largest number of steps the branches hold (``ActionStack/maximumBranchSteps``); 0 for no
    /// limit. Setting it does not prune (the stack trims after it).
    var maximumBranchSteps: Int {
        get { tree?.maximumBranchSteps ?? treeSettings.maximumBranchSteps }
        set {
            treeSettings.maximumBranchSteps = Swift.max(newValue, 0)
            tree?.maximumBranchSteps = treeSettings.maximumBranchSteps
        }
    }

    /// The clock that dates the nodes (``ActionStack/historyClock``); nil for the system clock.
    /// Dates never decrease with the node numbers: a new clock behind the newest date held moves
    /// the nodes held back, keeping their intervals, until the newest is dated now by it.
    var clock: (@Sendable () -> Date)? {
        get { treeSettings.clock }
        set {
            treeSettings.clock = newValue
            guard let tree else { return }
            let now = treeSettings.now()
            if now < tree.lastDate {
                tree.redate(newestAt: now)
                noteChangeNeedingSnapshot()
            }
        }
    }

    /// A move through the tree (or a scope's rollback) begins: pruning waits until it ends, so that
    /// it never takes a branch the move is about to enter. Returns the tree held, for
    /// ``releasePruning(_:)``.
    func holdPruning() -> TreeStore? {
        tree?.pruningHolds += 1
        return tree
    }

    /// The move that ``holdPruning()`` began on `store` ended.
    func releasePruning(_ store: TreeStore?) {
        store?.pruningHolds -= 1
    }

    /// Applies a change of shape asked for in the middle of a call (at the end of the outermost).
    func applyPendingHistoryShape() {
        guard let shape = treeSettings.pendingShape else { return }
        treeSettings.pendingShape = nil
        applyHistoryShape(shape)
    }

    // MARK: Leaving and entering branches

    /// A change is being made outside undo and redo: the redo stack becomes a branch that leaves
    /// from the node it leaves from (the current node, except when an asynchronous operation
    /// settles below other tasks' new changes).
    ///
    /// `maximumCost` and `restructuringAllowed` are the stack's, for pruning (see
    /// ``pruneBranchesOrDefer(maximumCost:restructuringAllowed:)``).
    ///
    /// - Complexity: O(log n) (plus pruning, when over ``TreeStore/maximumBranchSteps``).
    func detachRedoSide(maximumCost: Int, restructuringAllowed: Bool) {
        guard let tree, let top = redoSide.steps.last else { return }
        let side = Side()
        if tracksChanges, let changes { side.startTracking(changes) }
        side.swapContents(with: redoSide)
        let branch = Branch(side: side, anchor: tree.table.parent(of: top.node) ?? currentNodeNumber, tick: 0)
        if tracksChanges { noteBranchChange(.redoBecameBranch(branch, anchor: branch.anchor)) }
        tree.add(branch)
        pruneBranchesOrDefer(maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
    }

    /// Makes the redo stack the chain that leads to `child`, a child of the current node; the
    /// chain it held becomes a branch. Returns false when no branch leads there.
    ///
    /// `maximumCost` and `restructuringAllowed` are the stack's, for pruning.
    ///
    /// - Complexity: O(b) for the b branches that leave from the current node.
    @discardableResult
    func enterBranch(leadingTo child: NodeNumber, maximumCost: Int, restructuringAllowed: Bool) -> Bool {
        guard let tree else { return false }
        if redoSide.steps.last?.node == child { return true }
        let anchor = currentNodeNumber
        guard let branch = tree.branches(at: anchor).first(where: { $0.firstNode == child }) else { return false }
        tree.remove(branch)
        redoSide.swapContents(with: branch.side)
        let kept = branch.side.steps.count > 0
        if tracksChanges { noteBranchChange(.enteredBranch(branch, anchor: anchor, kept: kept)) }
        if kept {
            branch.anchor = anchor
            tree.add(branch)
        } else {
            emptySide(branch.side)
        }
        pruneBranchesOrDefer(maximumCost: maximumCost, restructuringAllowed: restructuringAllowed)
        return true
    }

    // MARK: Steps that go

    /// The step that led to `node` left the history without another taking its place (a step whose
    /// targets were all freed, an undo or redo that built nothing): the node goes, and what left
    /// from it leaves from its parent.
    ///
    /// - Complexity: O(b log n) for the b branches that left from it.
    func nodeVanished(_ node: NodeNumber) {
        guard let tree, let record = tree.table.record(node), record.parent != NodeTable.noParent else { return }
        let parent = record.parent
        tree.table.remove(node)
        if let moved = tree.branches.removeValue(forKey: node) {
            for branch in moved {
                branch.anchor = parent
                tree.table.setParent(of: branch.firstNode, to: parent)
                if tracksChanges { noteBranchChange(.reanchored(branch, anchor: parent)) }
            }
            tree.branches[parent, default: []].append(contentsOf: moved)
        }
        if let next = redoSide.steps.last?.node, tree.table.parent(of: next) == node {
            tree.table.setParent(of: next, to: parent)
        }
    }

    /// A step went from `side` in a compaction, which goes through a side from its oldest step up
    /// and leaves the node table to ``resyncTree()`` once every side is done: the branches that left
    /// from the step's node leave at once from the node it now leaves from, as they will once the
    /// tree is resynced. On the undo side that is the node of the kept step below it (or the root);
    /// on the redo side or a branch, the node it left from (when the step above goes too, its own
    /// compaction moves them on). The remote changes handed on afterwards, by a step above it or by
    /// a side compacted or rebased later, then reach every step that will apply there, whatever the
    /// order the sides are gone through in.
    ///
    /// The remote changes the step had not seen were handed on first (they read at the node the
    /// branches leave from now, which they had heard of already).
    ///
    /// - Complexity: O(b log n) for the b branches that left from its node.
    func moveBranches(leavingFromNodeOf step: Step, droppedFrom side: Side, below: Int) {
        guard let tree, let moved = tree.branches.removeValue(forKey: step.node) else { return }
        let anchor =
            side === undoSide
            ? (below > 0 ? side.steps[below - 1].node : tree.root) : tree.table.parent(of: step.node) ?? tree.root
        for branch in moved {
            branch.anchor = anchor
            tree.table.setParent(of: branch.firstNode, to: anchor)
            if tracksChanges { noteBranchChange(.reanchored(branch, anchor: anchor)) }
        }
        tree.branches[anchor, default: []].append(contentsOf: moved)
    }

    /// Removes the actions `shouldRemove` matches from every branch, then brings the node table
    /// back in line with the steps that are left (after a removal by target or a sweep of freed
    /// targets, which may take steps from the middle of any chain).
    ///
    /// - Complexity: O(n + s log s) for the n actions and s steps held.
    func compactBranches(removing shouldRemove: (Action) -> Bool) {
        guard tree != nil else { return }
        for branch in branchesInPassOrder { compact(branch.side, removing: shouldRemove) }
        resyncTree()
    }

    /// Brings the node table in line with the steps held: nodes whose step went are removed, the
    /// branches that left from them leave from their nearest remaining ancestor, empty branches
    /// go, and every parent is set from the chains.
    ///
    /// - Complexity: O(s log s) for the s steps held.
    func resyncTree() {
        guard let tree else { return }
        // The branches, once (in anchor order): re-anchoring below moves them, it adds or takes none.
        let branches = branchesInPassOrder
        var present: Set<NodeNumber> = [tree.root]
        for side in [undoSide, redoSide] + branches.map(\.side) {
            for position in 0..<side.steps.count { present.insert(side.steps[position].node) }
        }
        func survivor(of node: NodeNumber) -> NodeNumber {
            var current = node
            while !present.contains(current) {
                guard let parent = tree.table.record(current)?.parent, parent != NodeTable.noParent else {
                    return tree.root
                }
                current = parent
            }
            return current
        }
        // A redo future another task's change ended still leaves from where it left (or, when
        // that node went, its nearest remaining ancestor): read before the table forgets it.
        let endingRedoAnchor =
            tree.redoFutureIsEnding
            ? redoSide.steps.last.map { survivor(of: tree.table.parent(of: $0.node) ?? tree.root) } : nil
        for anchor in tree.branches.keys.sorted() where !present.contains(anchor) {
            let moved = tree.branches.removeValue(forKey: anchor) ?? []
            let newAnchor = survivor(of: anchor)
            for branch in moved {
                branch.anchor = newAnchor
                if tracksChanges { noteBranchChange(.reanchored(branch, anchor: newAnchor)) }
            }
            tree.branches[newAnchor, default: []].append(contentsOf: moved)
        }
        for branch in branches where branch.side.steps.count == 0 {
            tree.remove(branch)
            if tracksChanges { noteBranchChange(.removed(branch)) }
            emptySide(branch.side)
        }
        for record in tree.table.alive where !present.contains(record.number) { tree.table.remove(record.number) }
        func chain(_ side: Side, from anchor: NodeNumber, undo: Bool) -> NodeNumber {
            var parent = anchor
            let count = side.steps.count
            for index in 0..<count {
                let position = undo ? index : count - 1 - index
                let node = side.steps[position].node
                tree.table.setParent(of: node, to: parent)
                parent = node
            }
            return parent
        }
        let current = chain(undoSide, from: tree.root, undo: true)
        _ = chain(redoSide, from: endingRedoAnchor ?? current, undo: false)
        // A branch taken out above is empty: its chain sets nothing.
        for branch in branches { _ = chain(branch.side, from: branch.anchor, undo: false) }
        tree.recount()
    }

    /// Every branch held, in the order the passes over every branch go through them (a save's
    /// rebase, a removal's compaction, the resync): the order of their anchors
    /// (``TreeStore/allBranches``), or its reverse for a test that checks that what the passes do
    /// does not depend on it (``ActionStack/_goesThroughBranchesInReverseOrder``).
    ///
    /// - Complexity: O(b log b) for the b anchors.
    var branchesInPassOrder: [Branch] {
        guard let tree else { return [] }
        let branches = tree.allBranches
        return treeSettings.reversesBranchPasses ? branches.reversed() : branches
    }

    /// Empties the tree (``ActionStack/removeAllActions()``): a new root, numbered after every node so far.
    func resetTree() {
        guard let tree else { return }
        noteChangeNeedingSnapshot()
        for branch in tree.allBranches { emptySide(branch.side) }
        let store = TreeStore(root: tree.nextNumber, date: treeSettings.now())
        store.maximumBranchSteps = tree.maximumBranchSteps
        self.tree = store
    }

    // MARK: Moving through the tree

    /// The way from node `from` to node `to`: how many undos lead up to their nearest common
    /// ancestor, then the nodes to enter on the way down, in order. Nil when they share no
    /// ancestor (never, between nodes of one tree).
    ///
    /// - Complexity: O(p log n) for the p nodes on the way: both ends climb in turn.
    func way(from: NodeNumber, to: NodeNumber) -> (up: Int, down: [NodeNumber])? {
        guard let tree else { return nil }
        var climbA = [from]
        var climbB = [to]
        var seenA = [from: 0]
        var seenB = [to: 0]
        while true {
            if let index = seenB[climbA[climbA.count - 1]] {
                return (climbA.count - 1, Array(climbB[0..<index].reversed()))
            }
            if let index = seenA[climbB[climbB.count - 1]] {
                return (index, Array(climbB.dropLast().reversed()))
            }
            let parentA = tree.table.parent(of: climbA[climbA.count - 1])
            let parentB = tree.table.parent(of: climbB[climbB.count - 1])
            if parentA == nil && parentB == nil { return nil }
            if let parentA {
                seenA[parentA] = climbA.count
                climbA.append(parentA)
            }
            if let parentB {
                seenB[parentB] = climbB.count
                climbB.append(parentB)
            }
        }
    }

    /// The steps a move to `target` would perform, in order (nil when a node on the way has no
    /// step the tree can find): to check them before the move starts.
    ///
    /// - Complexity: O(p + b) for the p steps on the way and the b branches at its fork nodes.
    func stepsOnTheWay(to target: NodeNumber) -> [Step]? {
        guard let tree, let way = way(from: currentNodeNumber, to: target) else { return nil }
        guard way.up <= undoSide.steps.count else { return nil }
        var steps: [Step] = []
        for offset in 0..<way.up { steps.append(undoSide.steps[undoSide.steps.count - 1 - offset]) }
        var chain: Side? = redoSide
        var position = redoSide.steps.count - 1
        var at = way.up == 0 ? currentNodeNumber : tree.table.parent(of: steps.last?.node ?? 0) ?? tree.root
        for child in way.down {
            if let side = chain, position >= 0, side.steps[position].node == child {
                steps.append(side.steps[position])
            } else if let branch = tree.branches(at: at).first(where: { $0.firstNode == child }) {
                chain = branch.side
                position = branch.side.steps.count - 1
                steps.append(branch.side.steps[position])
            } else {
                return nil
            }
            position -= 1
            at = child
        }
        return steps
    }

    /// A tree move (``jump(toNode:)``, ``earlier(_:)``, ``later(_:)``), after the checks that
    /// every call makes: `validate` finds the target before anything happens (it may throw),

    // MARK: Invariants

    /// What does not hold of the tree (empty in a linear history). While the redo future is ending
    /// (``TreeStore/redoFutureIsEnding``: an awaited operation in flight saw a new change, which
    /// ends it when it settles: the redo stack becomes a branch then), the redo stack still leaves
    /// from the node the document was at before the new change, not from the current node.
    func treeInvariantViolations() -> [String] {
        guard let tree else {
            var problems: [String] = []
            for side in [undoSide, redoSide] {
                for position in 0..<side.steps.count where side.steps[position].node != 0 {
                    problems.append("linear history: a step carries node \(side.steps[position].node)")
                }
            }
            return problems
        }
        var problems: [String] = []
        var seen: Set<NodeNumber> = [tree.root]
        if !tree.table.contains(tree.root) { problems.append("tree: the root \(tree.root) is not in the table") }
        if tree.table.parent(of: tree.root) != nil { problems.append("tree: the root has a parent") }
        func check(_ side: Side, from anchor: NodeNumber, undo: Bool, name: String) -> NodeNumber {
            var parent = anchor
            let count = side.steps.count
            for index in 0..<count {
                let node = side.steps[undo ? index : count - 1 - index].node
                if !seen.insert(node).inserted { problems.append("tree: node \(node) held twice (\(name))") }
                if !tree.table.contains(node) { problems.append("tree: node \(node) of \(name) not in the table") }
                if tree.table.parent(of: node) != parent {
                    problems.append(
                        "tree: node \(node) of \(name) has parent \(String(describing: tree.table.parent(of: node))), "
                            + "chain says \(parent)")
                }
                parent = node
            }
            return parent
        }
        let current = check(undoSide, from: tree.root, undo: true, name: "undo")
        var redoAnchor = current
        if tree.redoFutureIsEnding, let top = redoSide.steps.last, let parent = tree.table.parent(of: top.node) {
            redoAnchor = parent
        }
        _ = check(redoSide, from: redoAnchor, undo: false, name: "redo")
        var steps = 0
        var cost = CostTotal()
        for (anchor, list) in tree.branches {
            if list.isEmpty { problems.append("tree: empty branch list at \(anchor)") }
            for branch in list {
                if branch.anchor != anchor { problems.append("tree: branch filed at \(anchor) says \(branch.anchor)") }
                if branch.side.steps.count == 0 { problems.append("tree: empty branch at \(anchor)") }
                if !branch.side.frames.isEmpty || branch.side.inFlight != 0 {
                    problems.append("tree: branch at \(anchor) has open frames or actions in flight")
                }
                if !tree.table.contains(anchor) { problems.append("tree: branch anchored at missing node \(anchor)") }
                if branch.firstNode == redoSide.steps.last?.node, anchor == current {
                    problems.append("tree: branch at \(anchor) duplicates the redo stack")
                }
                steps += branch.side.steps.count
                cost.add(branch.side.totalCost)
                _ = check(branch.side, from: anchor, undo: false, name: "branch at \(anchor)")
            }
        }
        if steps != tree.branchStepCount {
            problems.append("tree: counts \(tree.branchStepCount) branch steps, holds \(steps)")
        }
        if cost != tree.branchCost { problems.append("tree: branch cost total is off") }
        if tree.table.count != seen.count {
            problems.append("tree: the table holds \(tree.table.count) nodes, the steps \(seen.count)")
        }
        return problems
    }
}
