// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The reference model's branching history (section 19: `historyShape = .tree`, documented in the
// BranchingHistory article and the doc comments of ActionStack+BranchingHistory.swift).
//
// The model keeps the current path as it keeps a linear history (the undo side from the root down
// to the current node, the redo side from the current node down the branch redo takes) and adds
// the branches: chains of redo steps, each leaving from an anchor node, in path order (the first
// step leads from the anchor). Every closed step carries the number of the node it leads to. A
// node's parent is never stored: it is the step before it in its chain (the root for the first
// undo step, the current node for the first redo step, the anchor for a branch's first step), and
// a node's redo choice is the next step of its chain. So the rules of section 19 are operations on
// chains:
// - Numbers: a change made outside undo and redo (a closed top-level group, a kept empty one, the
//   redo step that undoNestedGroup() builds) takes the next number, once; the root of a new
//   history is 0; removeAllActions() makes a new root numbered after every node so far; switching
//   to `.tree` numbers the root 0, the undo steps oldest first, then the redo steps.
// - A change made outside undo and redo turns the redo side into a branch of the current node
//   (where the linear history empties it): the most recently left branch.
// - Redo enters the next step of the redo side (the child entered last); undo pushes the current
//   node's step onto the redo side, so no choice changes.
// - Entering a child on the way down (a jump, a time move, selectRedoBranch) makes the branch that
//   leads to it the redo side; the redo side it held becomes a branch of the current node.
// - A step that goes without another taking its place (emptied by a removal or a freed target, an
//   undo or redo that built nothing) takes its node with it: the next step of its chain now hangs
//   from its parent (nothing to do: parents are derived), and the branches that left from it leave
//   from its nearest remaining ancestor.
// - levelsOfUndo: trimming the oldest undo step makes its node the root; the branches that left
//   from the old root go, with the branches that left from their nodes.
// - maximumBranchSteps: while the branches hold more steps, the deepest step of the least recently
//   left branch goes (descending first into the least recently left branch that leaves from its
//   deepest node, so that a leaf goes). maximumCost counts the undo side and the branches: branch
//   leaves go first, then the oldest undo steps. Pruning waits while a scope's body runs or a tree
//   move is walking its way (it could take a node on the way).
// - The moves (jump(toNode:), earlier/later by count or by time) undo up to the nearest common
//   ancestor, then enter and redo down to the target, re-planning when a step goes from under them.
//   A move that does not move does nothing (not even end coalescing); an open group is closed
//   first (so a jump to the current node with an open group undoes that group's new node). A
//   target that goes on the way (its step's targets freed by a handler of a step the move took)
//   ends the move where it is, before any further step.
//
// SPEC-QUESTION readings the model takes (the rules are silent; the library agrees):
// - Undoing a do-nothing step (an empty group kept in Foundation mode) builds no redo step, as in a
//   linear history: its node goes when the way up passes it.
// - A node whose redo choice went (pruned, or vanished with nothing after it on its chain) has no
//   redo choice, even when other children are left: redo() there does nothing until a move or
//   selectRedoBranch(_:) enters one.
// - maximumCost is enforced where a trim runs (a group closed, a costed join, a redo, a limit set)
//   and where branches grow (their leaves only); a redo side is not counted, as in a linear history.
// - historyTree sweeps freed targets at idle only; read from a handler or an observer of an
//   operation it shows the tree as it is (dead actions counted), from the current path: the step
//   in flight, and the branches that leave from its node, are in no chain and not shown.

/// A move in time (section 19): back or forward, by changes or by the clock's units.
struct TimeMoveSpec: Hashable, Sendable {
    var later: Bool
    var byTime: Bool
    var amount: Int
}

/// The branching history of the model (section 19).
struct TreeModel: Hashable, Sendable {
    /// A chain of redo steps off the current path.
    struct Branch: Hashable, Sendable {
        /// The node it leaves from.
        var anchor: Int
        /// Its steps in path order: the first leads from the anchor.
        var steps: [ReferenceModel.Step]
        /// When it was left: the least recently visited branch has the smallest.
        var leftAt: Int

        var firstNode: Int { steps[0].node }
        var deepestNode: Int { steps[steps.count - 1].node }
    }

    var root: Int
    /// The number the next change takes.
    var nextNumber: Int
    /// The date of every node made (the history clock: the driver's clock).
    var dates: [Int: Int]
    /// The date of the last node made: dates never decrease with the numbers.
    var lastDate: Int
    var branches: [Branch] = []
    /// The `leftAt` of the next branch left.
    var nextTick = 1
    var maximumBranchSteps: Int

    init(root: Int, date: Int, maximumBranchSteps: Int) {
        self.root = root
        nextNumber = root + 1
        dates = [root: date]
        lastDate = date
        self.maximumBranchSteps = maximumBranchSteps
    }

    var branchStepCount: Int { branches.reduce(0) { $0 + $1.steps.count } }
    var branchCost: Int {
        branches.reduce(0) { $0 + $1.steps.reduce(0) { $0 + $1.actions.reduce(0) { $0 + $1.cost } } }
    }
}

/// `ActionStack.HistoryTreeError`, by case.
enum TreeError: Error, Hashable, Sendable, CustomStringConvertible {
    case linearHistory
    case noSuchNode(Int)
    case notAChildOfCurrentNode(Int)
    case groupIsOpen

    var description: String {
        switch self {
        case .linearHistory: "linearHistory"
        case .noSuchNode(let id): "noSuchNode(#\(id))"
        case .notAChildOfCurrentNode(let id): "notAChildOfCurrentNode(#\(id))"
        case .groupIsOpen: "groupIsOpen"
        }
    }
}

/// One node of a history snapshot, as both worlds describe it.
struct TreeNodeText: Hashable, Sendable, CustomStringConvertible {
    var number: Int
    var parent: Int?
    var children: [Int]
    var redoChild: Int?
    var date: Int
    var actionName: String
    var title: String
    var actionCount: Int
    var isClean: Bool
    var isCurrent: Bool
    var isOnCurrentPath: Bool

    var description: String {
        "#\(number)" + (parent.map { "<#\($0)" } ?? "") + " [" + children.map { "#\($0)" }.joined(separator: ",") + "]"
            + (redoChild.map { " redo #\($0)" } ?? "") + " @\(date) '\(actionName)' '\(title)' n=\(actionCount)"
            + (isClean ? " clean" : "") + (isCurrent ? " current" : "") + (isOnCurrentPath ? " path" : "")
    }

}

/// A history snapshot as both worlds describe it (compared as a value; its description is one line).
struct TreeSnapshot: Hashable, Sendable, CustomStringConvertible {
    var root: Int
    var current: Int
    var nodes: [TreeNodeText]

    var description: String {
        "root #\(root) current #\(current): " + nodes.map(\.description).joined(separator: " | ")
    }
}

extension ReferenceModel {

    // MARK: - Nodes

    /// The current node: the node the newest closed undo step leads to, or the root (0 in a linear
    /// history).
    var currentNode: Int {
        guard let tree else { return 0 }
        return undoSide.closed.last?.node ?? tree.root
    }

    /// A new node for a change (0 in a linear history): the next number, dated now.
    func makeChangeNode() -> Int {
        guard tree != nil else { return 0 }
        let number = tree!.nextNumber
        tree!.nextNumber += 1
        tree!.lastDate = max(tree!.lastDate, clock)
        tree!.dates[number] = tree!.lastDate
        return number
    }

    /// Every node's parent (the root has none), from the chains.
    func parentMap() -> [Int: Int] {
        guard let tree else { return [:] }
        var parents: [Int: Int] = [:]
        var previous = tree.root
        for step in undoSide.closed {
            parents[step.node] = previous
            previous = step.node
        }
        previous = redoAnchor
        for step in redoSide.closed.reversed() {
            parents[step.node] = previous
            previous = step.node
        }
        for branch in tree.branches {
            previous = branch.anchor
            for step in branch.steps {
                parents[step.node] = previous
                previous = step.node
            }
        }
        return parents
    }

    /// Every node, in number order.
    var allNodes: [Int] {
        guard let tree else { return [] }
        var nodes = [tree.root]
        nodes += undoSide.closed.map(\.node)
        nodes += redoSide.closed.map(\.node)
        for branch in tree.branches { nodes += branch.steps.map(\.node) }
        return nodes.sorted()
    }

    func nodeExists(_ number: Int) -> Bool {
        guard let tree else { return false }
        return number == tree.root || undoSide.closed.contains { $0.node == number }
            || redoSide.closed.contains { $0.node == number }
            || tree.branches.contains { $0.steps.contains { $0.node == number } }
    }

    // MARK: - Branches

    /// A change outside undo and redo: the redo side is emptied (a linear history) or becomes a
    /// branch of the current node, the most recently left one.
    ///
    /// `anchor`: the node the redo side leaves from (the current node but when an awaited operation
    /// settles after another task's change: the node the operation reached).
    func detachRedoSide(from anchor: Int? = nil) {
        guard tree != nil, !redoSide.closed.isEmpty else {
            redoSide = Side()
            return
        }
        let branch = TreeModel.Branch(
            anchor: anchor ?? currentNode, steps: redoSide.closed.reversed(), leftAt: tree!.nextTick)
        tree!.nextTick += 1
        tree!.branches.append(branch)
        redoSide = Side()
        count("redo side left as a branch")
        pruneBranchesOrDefer()
    }

    /// Makes the redo side the chain that leads to `child`, a child of the current node; the chain
    /// it held becomes a branch. Returns false when no branch leads there.
    @discardableResult
    func enterBranch(leadingTo child: Int) -> Bool {
        guard tree != nil else { return false }
        if redoSide.closed.last?.node == child { return true }
        let anchor = currentNode
        guard let index = tree!.branches.firstIndex(where: { $0.anchor == anchor && $0.firstNode == child }) else {
            return false
        }
        let entered = tree!.branches.remove(at: index)
        let left = Array(redoSide.closed.reversed())
        redoSide.closed = entered.steps.reversed()
        if !left.isEmpty {
            tree!.branches.append(TreeModel.Branch(anchor: anchor, steps: left, leftAt: tree!.nextTick))
            tree!.nextTick += 1
        }
        count("branch entered")
        pruneBranchesOrDefer()
        return true
    }

    /// The step that led to `node` went without another taking its place: what left from the node
    /// leaves from `parent`.
    func nodeVanished(_ node: Int, parent: Int) {
        guard tree != nil else { return }
        count("node vanished")
        for index in tree!.branches.indices where tree!.branches[index].anchor == node {
            tree!.branches[index].anchor = parent
        }
    }

    /// Removes the actions `match` matches from every branch (a step that loses every action goes,
    /// one that loses some gets a new far end, its high), then hangs every branch whose anchor went
    /// from the anchor's nearest remaining ancestor (by the parents before), and drops the empty
    /// branches.
    func removeFromBranches(where match: (Action) -> Bool, parentsBefore: [Int: Int]) {
        guard tree != nil else { return }
        if parentsBefore.isEmpty { return }  // nothing matched anywhere (see removeActions)
        for branchIndex in tree!.branches.indices {
            var kept: [Step] = []
            for var step in tree!.branches[branchIndex].steps {
                let before = step.actions.count
                step.actions.removeAll(where: match)
                if before > 0 && step.actions.isEmpty { continue }
                if step.actions.count < before { step.high = newStateID() }
                kept.append(step)
            }
            tree!.branches[branchIndex].steps = kept
        }
        let present = Set(allNodes)
        for index in tree!.branches.indices where !present.contains(tree!.branches[index].anchor) {
            var anchor = tree!.branches[index].anchor
            while !present.contains(anchor) {
                guard let parent = parentsBefore[anchor] else {
                    anchor = tree!.root
                    break
                }
                anchor = parent
            }
            tree!.branches[index].anchor = anchor
        }
        tree!.branches.removeAll { $0.steps.isEmpty }
    }

    // MARK: - Limits

    /// Branches grew (a change, a branch entered): pruned to the branch limit and, while the undo
    /// side and the branches cost more than `maximumCost`, by their leaves (the redo side that became
    /// a branch counts from now on); now, or when the scope or move ends.
    func pruneBranchesOrDefer() {
        guard let tree else { return }
        let overSteps = tree.maximumBranchSteps > 0 && tree.branchStepCount > tree.maximumBranchSteps
        let overCost = maximumCostLimit > 0 && undoCost + tree.branchCost > maximumCostLimit
        guard overSteps || overCost else { return }
        if scopeDepth > 0 || walking > 0 || trimWaitsForOperation {
            pendingTrim = true
        } else {
            pruneBranchesToLimit()
            // Branch leaves only: the undo side is trimmed where it grows, as in a linear history.
            while maximumCostLimit > 0 && undoCost + self.tree!.branchCost > maximumCostLimit {
                guard pruneOneBranchStep() else { break }
            }
        }
    }

    func pruneBranchesToLimit() {
        guard let tree, tree.maximumBranchSteps > 0 else { return }
        if walking > 0 || trimWaitsForOperation {
            pendingTrim = true
            return
        }
        while self.tree!.branchStepCount > tree.maximumBranchSteps {
            guard pruneOneBranchStep() else { return }
        }
    }

    /// Drops the deepest step of the least recently left branch, descending first into the least
    /// recently left branch that leaves from its deepest node. Returns false when no branch is held.
    @discardableResult
    func pruneOneBranchStep() -> Bool {
        guard let tree,
            var index = tree.branches.indices.min(by: { tree.branches[$0].leftAt < tree.branches[$1].leftAt })
        else { return false }
        while let deeper = tree.branches.indices.filter({ tree.branches[$0].anchor == tree.branches[index].deepestNode }
        )
        .min(by: { tree.branches[$0].leftAt < tree.branches[$1].leftAt }) {
            index = deeper
        }
        self.tree!.branches[index].steps.removeLast()
        if self.tree!.branches[index].steps.isEmpty { self.tree!.branches.remove(at: index) }
        count("branch step pruned")
        return true
    }

    /// The tree's part of a trim: the branch limit, then the cost, which counts the undo side and
    /// the branches (branch leaves first, then the oldest undo steps). Both wait while a move walks.
    func trimTree() {
        pruneBranchesToLimit()
        guard maximumCostLimit > 0 else { return }
        if walking > 0 {
            pendingTrim = true
            return
        }
        while undoCost + tree!.branchCost > maximumCostLimit {
            if pruneOneBranchStep() { continue }
            guard undoSide.closed.count > 1 else { break }
            dropOldestUndoStep()
        }
    }

    /// The oldest undo step was trimmed: its node is the new root; the branches that left from the
    /// old root go, with those that left from their nodes.
    func rootTrimmed(to newRoot: Int) {
        guard tree != nil else { return }
        var anchors = [tree!.root]
        tree!.root = newRoot
        while let anchor = anchors.popLast() {
            for branch in tree!.branches where branch.anchor == anchor { anchors += branch.steps.map(\.node) }
            tree!.branches.removeAll { $0.anchor == anchor }
        }
    }

    /// `removeAllActions()`: a new root, numbered after every node so far.
    func resetTree() {
        guard let tree else { return }
        self.tree = TreeModel(root: tree.nextNumber, date: clock, maximumBranchSteps: tree.maximumBranchSteps)
    }

    // MARK: - Shape

    /// `historyShape = tree ? .tree : .linear`: at idle at once, otherwise at the end of the
    /// outermost call or scope.
    func setHistoryShape(tree toTree: Bool) {
        call {
            guard toTree != (tree != nil) || pendingShape != nil else { return }
            if activities.isEmpty && scopeDepth == 0 && !trimWaitsForOperation {
                pendingShape = nil
                applyHistoryShape(tree: toTree)
            } else {
                pendingShape = toTree
                pendingTrim = true
            }
        }
    }

    /// The change of shape put off until the outermost call or scope ended; while an awaited
    /// request holds the turn it waits for the request's end (`handOff()`; the trim that follows it
    /// marks the wait again).
    func applyPendingShape() {
        guard let shape = pendingShape, !trimWaitsForOperation else { return }
        pendingShape = nil
        applyHistoryShape(tree: shape)
    }

    /// Switching to a tree numbers the steps held (the root 0, the undo steps oldest first, then the
    /// redo steps, all dated now); switching to a line drops every branch.
    func applyHistoryShape(tree toTree: Bool) {
        if toTree {
            guard tree == nil else { return }
            tree = TreeModel(root: 0, date: clock, maximumBranchSteps: maximumBranchStepsSetting)
            for index in undoSide.closed.indices { undoSide.closed[index].node = makeChangeNode() }
            for index in redoSide.closed.indices.reversed() { redoSide.closed[index].node = makeChangeNode() }
            count("switched to a tree")
        } else {
            guard tree != nil else { return }
            tree = nil
            for index in undoSide.closed.indices { undoSide.closed[index].node = 0 }
            for index in redoSide.closed.indices { redoSide.closed[index].node = 0 }
            count("switched to a line")
        }
    }

    func setMaximumBranchSteps(_ value: Int) {
        call {
            maximumBranchStepsSetting = max(value, 0)
            tree?.maximumBranchSteps = maximumBranchStepsSetting
            limitChanged()
        }
    }

    // MARK: - Moves

    /// `jump(toNode:)`.
    func jumpToNode(_ id: Int) throws {
        try callThrowing {
            if let misuse = refusal(.jumpToNode) { return report(misuse) }
            guard tree != nil else { throw TreeError.linearHistory }
            guard nodeExists(id) else { throw TreeError.noSuchNode(id) }
            if routesToAsyncOperation(.jumpToNode(id), .jumpToNode) { return }
            _ = moveInTree(.jumpToNode, validated: id) { $0 }
        }
    }

    /// `earlier(_:)` and `later(_:)`: the node reached.
    func moveByCount(_ count: Int, later: Bool) throws -> Int {
        try moveInTime(TimeMoveSpec(later: later, byTime: false, amount: count))
    }

    /// `earlier(by:)` and `later(by:)` (a duration in the clock's units): the node reached.
    func moveByTime(_ duration: Int, later: Bool) throws -> Int {
        try moveInTime(TimeMoveSpec(later: later, byTime: true, amount: duration))
    }

    /// A time move: the node reached. With an asynchronous step on the way, or an operation
    /// holding the turn, it is started as a request, which finds its target when it starts; the node
    /// returned is the one the move would reach from where the document is now.
    func moveInTime(_ move: TimeMoveSpec) throws -> Int {
        try callThrowing {
            if let misuse = refusal(move.later ? .later : .earlier) {
                report(misuse)
                return currentNode
            }
            guard tree != nil else { throw TreeError.linearHistory }
            if routesToAsyncOperation(.timeMove(move), move.later ? .later : .earlier) {
                return timeMoveTarget(move, from: currentNode)
            }
            return moveInTree(move.later ? .later : .earlier, validated: nil) { timeMoveTarget(move, from: $0) }
                ?? currentNode
        }
    }

    /// The node a time move reaches from `current` (vim's `g-`, `g+`, `:earlier 10m`, `:later 10m`).
    ///
    /// - Complexity: O(s log s) for the s nodes held.
    func timeMoveTarget(_ move: TimeMoveSpec, from current: Int) -> Int {
        guard let tree else { return current }
        let nodes = allNodes
        guard move.amount > 0 else { return current }
        if !move.byTime {
            if move.later {
                let newest = nodes.last ?? current
                let target = current + move.amount
                guard target < newest else { return newest }
                return nodes.first { $0 >= target } ?? newest
            }
            let target = current - move.amount
            guard target > tree.root else { return tree.root }
            return nodes.last { $0 <= target } ?? tree.root
        }
        guard let date = tree.dates[current] else { return current }
        if move.later {
            // The root is never the answer: its date is the oldest (when the history began), so it
            // is at or after the target only if the current node is too. (A restored root is dated
            // at the restore, after the nodes below it: section 20.)
            let found =
                nodes.first { $0 != tree.root && tree.dates[$0]! >= date + move.amount } ?? nodes.last ?? current
            return found < current ? current : found
        }
        let found = nodes.last { tree.dates[$0]! <= date - move.amount } ?? tree.root
        return found > current ? current : found
    }

    /// A tree move after its refusal and shape checks: `validated` is the target found before
    /// anything happens, `resolve` finds it after the open group is closed. Returns the node reached,
    /// or nil when the move was the misuse `nestedGroupsOpen`.
    func moveInTree(_ operation: Operation, validated: Int?, resolve: (Int) -> Int) -> Int? {
        // A move that would not move does nothing, open group or not (as jump(to:) to the current
        // position).
        if tree != nil, (validated ?? resolve(currentNode)) == currentNode { return currentNode }
        let level = undoSide.frames.count
        if level >= 2 {
            report(.nestedGroupsOpen(operation, groupingLevel: level))
            return nil
        }
        sweep()
        return withActivity(.jumping) {
            // The one open group is closed first, as undo() closes it.
            if level == 1 { closeInnermostAsEnd() }
            guard tree != nil else { return nil }
            let target = validated ?? resolve(currentNode)
            // A move that does not move does nothing: it does not end coalescing either.
            guard nodeExists(target), target != currentNode else { return currentNode }
            endCoalescing()
            count("tree move")
            if let handOff = walk(to: target) {
                // The way changed under the move (a node found dead was passed over to one whose way
                // holds an asynchronous step): what is left is one request, as the stack does.
                count("async tree move hands off to a request")
                startRequest(.jumpToNode(handOff), operation)
                return handOff
            }
            // (The model's registrations note a candidate during a redo too; a move ends it, as
            // undo() and redo() do.)
            endCoalescing()
            return currentNode
        }
    }

    /// Undoes up to the nearest common ancestor, then enters and redoes down to `target`, one step
    /// at a time with the usual notifications; re-plans when a step goes from under it, stops
    /// where a step performs nothing or when `target` goes. Returns `target` when it stops before
    /// a step that holds an asynchronous action (the rest is for a request), nil otherwise.
    @discardableResult
    func walk(to target: Int) -> Int? {
        walking += 1
        defer { walking -= 1 }
        plan: while currentNode != target {
            sweep()
            guard nodeExists(target), let way = way(from: currentNode, to: target) else { return nil }
            for _ in 0..<way.up {
                sweep()
                // A target that went (its step's targets freed) ends the move before the next step.
                guard nodeExists(target) else { return nil }
                let expected = parentMap()[currentNode]
                guard !undoSide.closed.isEmpty else { return nil }
                if asyncState.inUse, let id = undoSide.closed.last?.id, asyncState.asyncFrames.contains(id) {
                    return target
                }
                post(.checkpoint)
                let before = stepsPerformed
                _ = undoNestedFromStep3()
                guard stepsPerformed != before else { return nil }
                if currentNode != expected { continue plan }
            }
            for child in way.down {
                sweep()
                guard nodeExists(target) else { return nil }
                guard parentMap()[child] == currentNode else { continue plan }
                guard enterBranch(leadingTo: child) else { return nil }
                if asyncState.inUse, let id = redoSide.closed.last?.id, asyncState.asyncFrames.contains(id) {
                    return target
                }
                post(.checkpoint)
                let before = stepsPerformed
                redoFromStep7()
                guard stepsPerformed != before else { return nil }
                if currentNode != child { continue plan }
            }
        }
        // Arrived: the stack looks for freed targets once more before it finds no step left to
        // take, so a step whose targets the last step's handlers or observers freed is dropped now,
        // wherever it lies (BranchingHistory.md: "before each step and when it arrives").
        sweep()
        return nil
    }

    /// How many undos lead from `from` up to the nearest common ancestor of the two nodes, then the
    /// nodes to enter down to `to`.
    func way(from: Int, to: Int) -> (up: Int, down: [Int])? {
        let parents = parentMap()
        func ancestors(_ node: Int) -> [Int] {
            var chain = [node]
            while let parent = parents[chain[chain.count - 1]] { chain.append(parent) }
            return chain
        }
        let up = ancestors(from)
        let down = ancestors(to)
        guard let common = up.first(where: { down.contains($0) }) else { return nil }
        let downIndex = down.firstIndex(of: common)!
        return (up.firstIndex(of: common)!, down[0..<downIndex].reversed())
    }

    /// `selectRedoBranch(_:)`.
    func selectRedoBranch(_ id: Int) throws {
        try callThrowing {
            if let misuse = refusal(.selectRedoBranch) { return report(misuse) }
            guard tree != nil else { throw TreeError.linearHistory }
            guard nodeExists(id) else { throw TreeError.noSuchNode(id) }
            // The redo stack is what the operation in flight (or a queued one) works on.
            if asyncState.inUse && (asyncState.running != nil || asyncState.broken != nil) {
                return report(.asynchronous("notWhileAsync(selectRedoBranch)"))
            }
            guard undoSide.frames.isEmpty else { throw TreeError.groupIsOpen }
            guard parentMap()[id] == currentNode else { throw TreeError.notAChildOfCurrentNode(id) }
            // Ends coalescing, even when the child is the one redo takes already.
            endCoalescing()
            enterBranch(leadingTo: id)
        }
    }

    /// Makes the redo side again the branch that leads to `choice` (the redo choice before a scope
    /// whose registrations turned it into a branch of the current node).
    func restoreRedoChoice(_ choice: Int?) {
        guard let choice, redoSide.closed.isEmpty, parentMap()[choice] == currentNode else { return }
        enterBranch(leadingTo: choice)
    }

    // MARK: - Queries

    var currentNodeQuery: Int? { query { tree == nil ? nil : currentNode } }

    /// The children of the current node, in number order (no sweep, no Top rule).
    var redoBranchesQuery: [Int] {
        query {
            guard let tree else { return [] }
            var children = tree.branches.filter { $0.anchor == currentNode }.map(\.firstNode)
            if let next = redoSide.closed.last?.node,
                redoAnchor == currentNode
            {
                children.append(next)
            }
            return children.sorted()
        }
    }

    /// `historyTree`: sweeps first at idle (not during an activity), then describes the tree.
    ///
    /// SPEC-QUESTION: "idle" is read as the stack reads it: no activity, and no awaited request
    /// holding the turn, though `undoEntries` (which the snapshot's documentation says it sweeps
    /// as) does sweep while an awaited operation awaits.
    var historyTreeQuery: TreeSnapshot? {
        query {
            guard tree != nil else { return nil }
            if activities.isEmpty && asyncState.running == nil { sweep() }
            return treeSnapshot()
        }
    }

    /// The snapshot, as one line: every node with its parent, children, redo choice, date, name,
    /// title, action count, and whether it is clean, current and on the current path.
    func treeSnapshot() -> TreeSnapshot? {
        guard let tree else { return nil }
        struct Place {
            var step: Step?
            var onUndoPath: Bool
            var onPath: Bool
            var redoChild: Int?
            var state: Int?
        }
        var places: [Int: Place] = [:]
        let current = currentNode
        // The undo side, from the current node up: each node's state.
        var state: Int? = undoSide.frames.isEmpty ? self.current : undoSide.frames[0].low
        // (While an operation runs after another task's change, the redo side leaves from the node
        // the document was at then: it is no child of the current node.)
        let redoAnchor = self.redoAnchor
        var below =
            redoAnchor == current ? redoSide.closed.last?.node : nil
        for step in undoSide.closed.reversed() {
            places[step.node] = Place(step: step, onUndoPath: true, onPath: true, redoChild: below, state: state)
            below = step.node
            state = state == step.high ? step.low : nil
        }
        places[tree.root] = Place(step: nil, onUndoPath: true, onPath: true, redoChild: below, state: state)
        func chain(_ steps: [Step], from anchor: Int, onPath: Bool) {
            var state = places[anchor]?.state
            for (index, step) in steps.enumerated() {
                state = state == step.low ? step.high : nil
                let next = index + 1 < steps.count ? steps[index + 1].node : nil
                places[step.node] = Place(step: step, onUndoPath: false, onPath: onPath, redoChild: next, state: state)
            }
        }
        chain(redoSide.closed.reversed(), from: redoAnchor, onPath: true)
        // Branches once their anchor is placed (one may leave from a node of another).
        var pending = Array(tree.branches.indices)
        while !pending.isEmpty {
            var waiting: [Int] = []
            for index in pending {
                let branch = tree.branches[index]
                if places[branch.anchor] != nil {
                    chain(branch.steps, from: branch.anchor, onPath: false)
                } else {
                    waiting.append(index)
                }
            }
            if waiting.count == pending.count { break }
            pending = waiting
        }
        // Only the nodes reached from the current path: from a handler of an undo or redo (or an
        // observer of its checkpoint), the step in flight is in no chain, and the branches that
        // leave from its node are not shown.
        let parents = parentMap()
        var children: [Int: [Int]] = [:]
        let nodes = allNodes.filter { places[$0] != nil }
        for node in nodes { if let parent = parents[node] { children[parent, default: []].append(node) } }
        let described = nodes.map { node -> TreeNodeText in
            let place = places[node]
            let name = place?.step?.metadata.name ?? ""
            let title =
                place?.step == nil ? "" : place!.onUndoPath ? Self.undoTitle(name) : Self.redoTitle(name)
            return TreeNodeText(
                number: node, parent: parents[node], children: children[node] ?? [], redoChild: place?.redoChild,
                date: tree.dates[node] ?? -1, actionName: name, title: title,
                actionCount: place?.step?.actions.count ?? 0, isClean: place?.state != nil && place?.state == clean,
                isCurrent: node == current, isOnCurrentPath: place?.onPath ?? false)
        }
        return TreeSnapshot(root: tree.root, current: current, nodes: described)
    }

    /// The model's own checks of the tree.
    var treeInvariantViolations: [String] {
        guard let tree else { return [] }
        var problems: [String] = []
        let nodes = allNodes
        if Set(nodes).count != nodes.count { problems.append("tree: a node is held twice") }
        if tree.branches.contains(where: { $0.steps.isEmpty }) { problems.append("tree: an empty branch") }
        let present = Set(nodes)
        for branch in tree.branches where !present.contains(branch.anchor) {
            problems.append("tree: a branch leaves from missing node \(branch.anchor)")
        }
        if callDepth == 0 && !pendingTrim && tree.maximumBranchSteps > 0
            && tree.branchStepCount > tree.maximumBranchSteps
        {
            problems.append("tree: \(tree.branchStepCount) branch steps, limit \(tree.maximumBranchSteps)")
        }
        return problems
    }
}
