// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Moves the document to the state of node `id` of a branching history, step by step, and waits
    /// until it has settled: the awaitable form of ``jump(toNode:)``, queued as one request.
    ///
    /// The way is found when the request starts, and again when a step went from under it (a freed
    /// target, a step found dead once rebased past peers' changes): each step is the one the
    /// synchronous ``jump(toNode:)`` would take from there, by the same rules. Each step posts its
    /// own notifications, and completes or rolls back on its own; the branches on the way are
    /// entered between steps, which costs O(1) each. The state observers hear the move as one: when
    /// its first step starts and when it has ended (where it stopped, for a failing move), never a
    /// state per step; limits and pruning set meanwhile wait until it has ended (an open group,
    /// closed first, is trimmed to the limits at once, as the synchronous move's close trims it). If
    /// a step fails, the move stops at the last node it reached, which is where the stack is, and the
    /// error says it (``ActionFailure/reachedNode``). A new change from another task ends the move
    /// after the step in flight. Steps with synchronous actions only are operations too: a move may
    /// mix them.
    ///
    /// - Parameters:
    ///   - id: The node to reach.
    ///   - isolation: The caller's isolation, where the handlers run; leave the default.
    /// - Returns: Whether the document moved.
    /// - Throws: ``OperationError``: ``OperationError/historyTree(_:)`` in a linear history or for a
    ///   node that does not exist when the request starts (nothing ran).
    /// - Complexity: O(n) for the n actions of the steps on the way, plus O(p log s) to find the way
    ///   (p nodes on it, s nodes held) and O(t) per step for t distinct targets.
    @discardableResult
    public func performJump(
        toNode id: HistoryNode.ID, isolation: isolated (any Actor)? = #isolation
    ) async throws(OperationError) -> Bool {
        try await submit(.jumpToNode(id), .jumpToNode, isolation: isolation).get()
    }

    /// Where a move in the tree goes: a node, or a move in time from where the document is when the
    /// move starts.
    enum TreeMoveGoal {
        case node(HistoryNode.ID)
        case timeMove(TimeMove)
    }

    /// A move in the tree as one request: each step an operation of its own.
    func performTreeJumpSteps(to goal: TreeMoveGoal, isolation: isolated (any Actor)?) async -> Result<
        Bool, OperationError
    > {
        enterCall()
        history.sweepFreedTargets()
        guard history.tree != nil else {
            leaveCall()
            return .failure(.historyTree(.linearHistory))
        }
        var timeMove: TimeMove?
        var target: NodeNumber
        switch goal {
        case .node(let id):
            guard let number = NodeNumber(exactly: id.sequence), history.tree?.table.contains(number) == true else {
                leaveCall()
                return .failure(.historyTree(.noSuchNode(id)))
            }
            if number == history.currentNodeNumber {
                // A jump to the node the document is on does nothing, as the synchronous one (which
                // checks before closing an open group): not even a check of that node's step, which
                // would drop a dead step not yet found and end on its parent.
                leaveCall()
                return .success(false)
            }
            target = number
        case .timeMove(let move):
            // A move that would not move from where the document is does nothing, and leaves an
            // open group open, as the synchronous one (which decides it before closing the group).
            guard let tree = history.tree,
                move.target(in: tree, from: history.currentNodeNumber) != history.currentNodeNumber
            else {
                leaveCall()
                return .success(false)
            }
            // Resolved again below, once the open group is closed (it is the newest change).
            timeMove = move
            target = history.currentNodeNumber
        }
        // The open group is the newest change: closed first, it is a node of its own.
        if let misuse = closeOpenGroupBeforeAwaitedMove(.jumpToNode) {
            leaveCall()
            return .failure(misuse)
        }
        let start = history.currentNodeNumber
        guard let tree = history.tree else {
            leaveCall()
            return .success(false)
        }
        if let timeMove {
            target = timeMove.target(in: tree, from: start)
            if target == start {
                // A time move that cannot move does nothing, as the synchronous one.
                leaveCall()
                return .success(false)
            }
        }
        history.endCoalescing()
        // Pruning waits until the move ends, so that it never takes a branch on the way.
        let holdingTree = history.tree
        holdingTree?.pruningHolds += 1
        leaveCall()
        defer {
            enterCall()
            holdingTree?.pruningHolds -= 1
            if holdingTree != nil && holdingTree === history.tree { history.deferTrim() }
            leaveCall()
        }
        // Each step is the one the synchronous move would take (``nextStep(of:)``): rebased before
        // it runs, the way planned again when it changed.
        var walk = TreeWalk(to: target, from: start, timeMove: timeMove, in: tree)
        return await performSteps(
            isolation: isolation,
            next: { nextStep(of: &walk).map { ($0 == .undo ? .undo : .redo, false) } },
            reached: { failure in failure.reachedNode = currentNode })
    }
}
