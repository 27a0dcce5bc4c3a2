// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The limits of the undo stack, read from the stack's settings through their getters (a subclass
/// may override ``ActionStack/levelsOfUndo``), for one trim.
struct HistoryLimits {
    /// ``ActionStack/levelsOfUndo``: the most closed steps the undo stack keeps; 0 for no limit.
    var levelsOfUndo: Int
    /// ``ActionStack/maximumCost``: the largest cost the undo stack (and the branches) may hold; 0
    /// for no limit.
    var maximumCost: Int
}

// The history's limits: trimming the undo stack to the number of steps and the cost the stack
// allows, and pruning the branches of a branching history. What is put off (by a scope, an
// operation in flight, or a move through the tree) is marked with `needsTrim` and done by
// `finishPutOffWork(_:)` at the end of the outermost call.

extension History {
    // MARK: The undo stack

    /// Drops the oldest closed steps beyond `limits.levelsOfUndo`, then while the undo stack's cost
    /// is over `limits.maximumCost` (always keeping the newest closed step). In a branching history
    /// the cost counts the branches too, whose leaves go first.
    ///
    /// - Complexity: O(k) for the k actions dropped.
    func trimToLimits(_ limits: HistoryLimits) {
        let levelsOfUndo = limits.levelsOfUndo
        let maximumCost = limits.maximumCost
        if levelsOfUndo > 0 {
            while undoSide.closedCount > levelsOfUndo { dropOldestUndoStep() }
        }
        if let tree {
            pruneBranchesToLimit()
            if maximumCost > 0 && tree.pruningHolds > 0 {
                // A move through the tree is in progress: its way must stay; trimmed when it ends.
                needsTrim = true
            } else if maximumCost > 0 {
                // A branching history counts the branches too, and gives up their leaves first.
                while (undoSide.totalCost + tree.branchCost).exceeds(maximumCost) {
                    if pruneOneBranchStep() { continue }
                    guard undoSide.closedCount > 1 else { break }
                    dropOldestUndoStep()
                }
            }
            return
        }
        if maximumCost > 0 {
            while undoSide.totalCost.exceeds(maximumCost) && undoSide.closedCount > 1 { dropOldestUndoStep() }
        }
    }

    /// Drops the oldest closed undo step; in a tree, the node it led to becomes the root. Trimming
    /// the last step away ends coalescing.
    private func dropOldestUndoStep() {
        let step = undoSide.removeFirstStep()
        for _ in 0..<step.actionCount { releaseAction(undoSide.removeFirstAction()) }
        if tree != nil { rootTrimmed(to: step.node) }
        if undoSide.steps.isEmpty && undoSide.frames.isEmpty { coalescer.clear() }
    }

    // MARK: Work put off

    /// Puts trimming (and a change of shape) off until the end of the outermost call.
    func deferTrim() { needsTrim = true }

    /// Does what was put off: the change of shape asked for in the middle of a call, then the
    /// trim to `limits`. The stack calls it at the end of the outermost call (or scope) once no
    /// activity, scope or operation is in progress.
    ///
    /// - Complexity: O(k) for the k actions dropped, plus O(s) for a change of shape.
    func finishPutOffWork(_ limits: HistoryLimits) {
        needsTrim = false
        applyPendingHistoryShape()
        trimToLimits(limits)
    }

    // MARK: Branches

    /// Branches grew (the redo stack left as one, or another entered): prunes them to
    /// ``TreeStore/maximumBranchSteps``, and their leaves while the undo stack and the branches cost
    /// more than `maximumCost` (the redo stack that became a branch counts from now on), now or, when
    /// the stack does not allow restructuring now (a scope's body or an operation is running) or a
    /// move through the tree holds pruning, at the end of the call (``needsTrim``).
    func pruneBranchesOrDefer(maximumCost: Int, restructuringAllowed: Bool) {
        guard let tree else { return }
        let overSteps = tree.maximumBranchSteps > 0 && tree.branchStepCount > tree.maximumBranchSteps
        let overCost = maximumCost > 0 && (undoSide.totalCost + tree.branchCost).exceeds(maximumCost)
        guard overSteps || overCost else { return }
        if !restructuringAllowed || tree.pruningHolds > 0 {
            needsTrim = true
        } else {
            pruneBranchesToLimit()
            // Branch leaves only: the undo stack is trimmed where it grows, as in a linear
            while maximumCost > 0 && (undoSide.totalCost + tree.branchCost).exceeds(maximumCost) {
                guard pruneOneBranchStep() else { break }
            }
        }
    }

    /// Drops branch leaves until the branches hold at most ``TreeStore/maximumBranchSteps`` steps.
    func pruneBranchesToLimit() {
        guard let tree, tree.maximumBranchSteps > 0 else { return }
        if tree.pruningHolds > 0 {
            needsTrim = true
            return
        }
        while tree.branchStepCount > tree.maximumBranchSteps {
            guard pruneOneBranchStep() else { return }
        }
    }

    /// Drops the deepest step of the least recently visited branch, descending into the branches
    /// that leave from its deepest node first (a leaf goes, never an inner node). Returns false
    /// when no branch is held.
    ///
    /// - Complexity: O(a) for the a actions of the step, plus O(b) per branch descended.
    @discardableResult
    func pruneOneBranchStep() -> Bool {
        guard let tree, var branch = tree.leastRecentlyLeft() else { return false }
        while let deeper = tree.branches[branch.side.steps[0].node]?.min(by: { $0.tick < $1.tick }) {
            branch = deeper
        }
        let side = branch.side
        let costBefore = side.totalCost
        let step = side.removeFirstStep()
        for _ in 0..<step.actionCount { releaseAction(side.removeFirstAction()) }
        tree.table.remove(step.node)
        tree.branchStepCount -= 1
        tree.branchCost.subtract(costBefore)
        tree.branchCost.add(side.totalCost)
        if side.steps.count == 0 {
            tree.remove(branch)
            if tracksChanges { noteBranchChange(.removed(branch)) }
            emptySide(side)
        }
        return true
    }

    /// The oldest undo step was trimmed away: the node it led to is the new root, and the branches
    /// that left from the old root go with it.
    func rootTrimmed(to newRoot: NodeNumber) {
        guard let tree else { return }
        let oldRoot = tree.root
        tree.root = newRoot
        tree.table.setParent(of: newRoot, to: NodeTable.noParent)
        dropBranches(at: oldRoot)
        tree.table.remove(oldRoot)
    }

    /// Drops every branch that leaves from `anchor`, with the branches that leave from their
    /// nodes, releasing their actions.
    ///
    /// - Complexity: O(a + s) for the a actions and s steps dropped.
    func dropBranches(at anchor: NodeNumber) {
        guard let tree else { return }
        var anchors = [anchor]
        while let next = anchors.popLast() {
            for branch in tree.branches(at: next) {
                tree.remove(branch)
                if tracksChanges { noteBranchChange(.removed(branch)) }
                for position in 0..<branch.side.steps.count {
                    let node = branch.side.steps[position].node
                    anchors.append(node)
                    tree.table.remove(node)
                }
                emptySide(branch.side)
            }
        }
    }
}
