// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack

// The branching history's workloads (historyShape = .tree), shared by the tree table
// (ActionStackBenchmarks --only tree), --single-run and package-benchmark's suite.
//
// Every change here adds 1 to a model and registers the inverse (which registers its own), so the
// sum of the models' values is the number of changes on the way from the root to the current node:
// the undo count. The checks use that.

/// A stack with explicit grouping, notifications off, and a branching history
/// (``ActionStack/historyShape`` `.tree`).
///
/// - Returns: The stack.
public func treeStack() -> ActionStack {
    let stack = explicitStack(notify: false)
    stack.historyShape = .tree
    return stack
}

/// One change: an explicit group of one action that adds 1 to `model`.
///
/// - Parameters:
///   - stack: A stack with explicit grouping.
///   - model: The target.
@inline(never)
public func change(on stack: ActionStack, model: Model) {
    stack.beginUndoGrouping()
    bump(model, by: 1, on: stack)
    stack.endUndoGrouping()
}

/// The sum of the models' values (the depth of the current node, for the changes of this file).
///
/// - Parameter models: The targets.
/// - Returns: The sum.
public func total(_ models: [Model]) -> Int { models.reduce(0) { $0 + $1.value } }

/// Jumps to `node`, stopping the run if the move throws.
///
/// - Parameters:
///   - node: The node to reach.
///   - stack: A stack with a branching history.
public func jump(to node: ActionStack.HistoryNode.ID, on stack: ActionStack) {
    do {
        try stack.jump(toNode: node)
    } catch {
        check(false, "jump(toNode: \(node)): \(error)")
    }
}

/// Makes `child` the branch ``ActionStack/redo()`` enters, stopping the run if the call throws.
///
/// - Parameters:
///   - child: A child of the current node.
///   - stack: A stack with a branching history.
public func selectBranch(_ child: ActionStack.HistoryNode.ID, on stack: ActionStack) {
    do {
        try stack.selectRedoBranch(child)
    } catch {
        check(false, "selectRedoBranch(\(child)): \(error)")
    }
}

/// A redo stack of `length` steps on a tree stack: `length` changes, then `length` undos, so that
/// the current node is the root and the redo stack leads to the first change.
///
/// - Parameters:
///   - length: The number of redo steps.
///   - model: The target.
/// - Returns: The stack and the first change's node (the root's child the redo stack leads to).
public func treeStackWithRedo(_ length: Int, model: Model) -> (stack: ActionStack, first: ActionStack.HistoryNode.ID) {
    let stack = treeStack()
    for _ in 0..<length { change(on: stack, model: model) }
    for _ in 0..<length { stack.undo() }
    check(model.value == 0 && stack.redoCount == length, "redo stack: \(stack.redoCount) steps, model \(model.value)")
    return (stack, ActionStack.HistoryNode.ID(sequence: 1))
}

/// A tree of a known shape, to measure moves whose path does not depend on the tree's size.
///
/// A *comb*: a trunk of changes, and from each trunk node a *tooth*, a branch of a few changes that
/// the next trunk change leaves behind. At the middle of the trunk, *probe* pairs: two branches of
/// the same depth that leave from one node, so that the tips of a pair are `2 × depth` steps apart
/// (up to the node, down the other branch), whatever the size of the tree. The current node is the
/// probes' fork when it is built.
public final class CombTree {
    /// Two branches of one depth that leave from the same node.
    public struct Pair {
        /// The depth of each branch.
        public var depth: Int
        /// The node both leave from.
        public var fork: ActionStack.HistoryNode.ID
        /// The tip of the first branch.
        public var tipA: ActionStack.HistoryNode.ID
        /// The tip of the second branch.
        public var tipB: ActionStack.HistoryNode.ID
        /// The first node of the first branch (a child of the fork).
        public var firstA: ActionStack.HistoryNode.ID
        /// The first node of the second branch (a child of the fork).
        public var firstB: ActionStack.HistoryNode.ID
        /// The number of steps between the tips.
        public var pathLength: Int { 2 * depth }
    }

    /// The stack (notifications off, explicit grouping, a branching history).
    public let stack: ActionStack
    /// The targets, used in turn by the changes.
    public let models: [Model]
    /// The probe pairs, in the order of the depths asked for.
    public private(set) var pairs: [Pair] = []
    /// The number of nodes, the root included.
    public private(set) var nodeCount = 1
    /// The depth of the fork of the probe pairs (its number of ancestors).
    public private(set) var forkDepth = 0
    /// Whether a pair's move is at its tip A (else at B); see ``move(_:)``.
    private var atA: [Bool] = []
    private var changes = 0

    /// Builds the comb.
    ///
    /// - Parameters:
    ///   - nodes: About how many nodes the tree has (the trunk and the teeth; the probes add theirs).
    ///   - tooth: The depth of each tooth.
    ///   - probeDepths: The depth of the branches of each probe pair.
    ///   - targets: The number of distinct targets, used in turn (0: one per change).
    public init(nodes: Int, tooth: Int, probeDepths: [Int], targets: Int) {
        let stack = treeStack()
        let trunk = max(2, nodes / (tooth + 1))
        let modelCount = targets == 0 ? nodes + probeDepths.reduce(0) { $0 + 2 * $1 } + 2 * trunk + 16 : targets
        self.stack = stack
        self.models = (0..<modelCount).map { _ in Model() }
        for _ in 0..<trunk {
            // A tooth, left behind by the next trunk change.
            for _ in 0..<tooth { makeChange() }
            for _ in 0..<tooth { stack.undo() }
            makeChange()
        }
        check(
            stack.undoCount == trunk && total(models) == trunk, "comb: depth \(stack.undoCount), sum \(total(models))")
        // Back to the middle of the trunk with undo() (a jump there would pass every trunk node
        // between), where the probes leave from; the first probe change leaves the trunk behind.
        for _ in 0..<(trunk - trunk / 2) { stack.undo() }
        forkDepth = stack.undoCount
        for depth in probeDepths { addPair(depth: depth) }
        atA = pairs.map { _ in false }
        check(
            stack.historyTree?.nodes.count == nodeCount,
            "comb: \(String(describing: stack.historyTree?.nodes.count)) nodes")
    }

    private func makeChange() {
        change(on: stack, model: models[changes % models.count])
        changes += 1
        nodeCount += 1
    }

    /// Two branches of `depth` changes from the current node; the current node stays.
    private func addPair(depth: Int) {
        guard let fork = stack.currentNode else { return check(false, "comb: linear history") }
        var ends: [(first: ActionStack.HistoryNode.ID, tip: ActionStack.HistoryNode.ID)] = []
        for _ in 0..<2 {
            makeChange()
            let first = stack.currentNode ?? fork
            for _ in 1..<depth { makeChange() }
            ends.append((first, stack.currentNode ?? fork))
            for _ in 0..<depth { stack.undo() }
        }
        pairs.append(
            Pair(
                depth: depth, fork: fork, tipA: ends[0].tip, tipB: ends[1].tip, firstA: ends[0].first,
                firstB: ends[1].first))
    }

    /// Jumps from one tip of pair `index` to the other (the first move goes to tip A).
    ///
    /// - Parameter index: The pair.
    public func move(_ index: Int) {
        let pair = pairs[index]
        atA[index].toggle()
        jump(to: atA[index] ? pair.tipA : pair.tipB, on: stack)
    }

    /// The same move as ``move(_:)`` by hand: undo up to the fork, ``ActionStack/selectRedoBranch(_:)``
    /// of the other branch, redo down to its tip. The stack must be at a tip of the pair.
    ///
    /// - Parameter index: The pair.
    public func moveByHand(_ index: Int) {
        let pair = pairs[index]
        atA[index].toggle()
        for _ in 0..<pair.depth { stack.undo() }
        selectBranch(atA[index] ? pair.firstA : pair.firstB, on: stack)
        for _ in 0..<pair.depth { stack.redo() }
    }

    /// Checks that the stack is at the tip pair `index`'s last move went to.
    ///
    /// - Parameter index: The pair.
    public func checkAtTip(_ index: Int) {
        let pair = pairs[index]
        let tip = atA[index] ? pair.tipA : pair.tipB
        check(stack.currentNode == tip, "comb: at \(String(describing: stack.currentNode)), want \(tip)")
        check(total(models) == forkDepth + pair.depth, "comb: sum \(total(models)), want \(forkDepth + pair.depth)")
    }

    /// Releases every step (the handlers capture the stack).
    public func release() {
        stack.removeAllActions()
        withExtendedLifetime(models) {}
    }
}

/// Scenario 1 on a stack with a branching history: `n` one-action groups registered, then `n`
/// undos, then `n` redos. No change is made with a redo stack to keep, so nothing forks: this is
/// what the tree costs the paths that a linear history has too.
///
/// - Parameters:
///   - n: The number of steps.
///   - stack: An empty tree stack.
///   - model: The target.
public func treeEachSteps(_ n: Int, on stack: ActionStack, model: Model) {
    eachSteps(n, on: stack, model: model)
    check(stack.currentNode?.sequence == n, "each tree: at \(String(describing: stack.currentNode))")
}

/// `n` forks: each a change made with a one-step redo stack, which becomes a branch of the root,
/// then an undo (so the next change has a redo stack again). The root ends with `n` children.
///
/// - Parameters:
///   - n: The number of forks.
///   - stack: An empty tree stack.
///   - model: The target.
public func forkSteps(_ n: Int, on stack: ActionStack, model: Model) {
    for _ in 0..<n {
        change(on: stack, model: model)
        stack.undo()
    }
    check(model.value == 0 && stack.redoBranches.count == n, "fork: \(stack.redoBranches.count) children")
}
