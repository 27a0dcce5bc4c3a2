// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The history's part of collaborative undo: where the remote changes a step has not seen wait,
// and how a step is rebased over them (see `RemoteChanges`, which says why they travel this way).
//
// Each closed step holds, in its metadata, the remote changes it has not been rebased over, as they
// read at the node where it applies (an undo step at the node it leads to, a redo or branch step at
// the node it leaves from). A change is handed to the steps at the current node when it is
// reported; a step rebased over its changes hands them on, as they read past it, to the steps at its
// far node. A step that loses every action to rebasing is dead: it goes, as a step whose targets
// were freed goes, and the changes it had not seen pass on unchanged. The branches that left from
// the node of a step that goes leave from the node before it at once, before any other change is
// handed on (`moveBranches(leavingFromNodeOf:droppedFrom:below:)`): a change that reaches that node
// later reaches them too, in whatever order the sides are gone through.

extension History {
    /// The remote-changes concern, made on the first remote change (`makeHandler` rebuilds a command
    /// action's stored handler, as the stack's registration makes it).
    func remoteChanges(makeHandler: @escaping (any SavableCommand) -> ((AnyObject) -> Void)?) -> RemoteChanges {
        if let remote { return remote }
        let made = RemoteChanges(makeHandler: makeHandler)
        remote = made
        return made
    }

    // MARK: Handing changes on

    /// Hands `changes`, which read at the current node, to the newest undo step, the newest redo
    /// step and the newest step of each branch that leaves from the current node.
    ///
    /// - Complexity: O(1 + b) for the b branches that leave from the current node.
    func deliverToStepsAtCurrentNode(_ changes: [any Sendable]) {
        guard !changes.isEmpty, let log = remote?.log else { return }
        deliver(changes, toNewestStepOf: undoSide, log)
        deliver(changes, toNewestStepOf: redoSide, log)
        if let tree {
            for branch in tree.branches(at: currentNodeNumber) { deliver(changes, toNewestStepOf: branch.side, log) }
        }
    }

    /// Hands one change, which reads at the current node, to the steps that apply there (as
    /// ``deliverToStepsAtCurrentNode(_:)``, without an array for one change: the
    /// path of a change reported with nothing open and nothing in flight).
    ///
    /// - Complexity: O(1 + b) for the b branches that leave from the current node.
    func deliverChangeToStepsAtCurrentNode(_ change: any Sendable) {
        guard let log = remote?.log else { return }
        deliver(change, toNewestStepOf: undoSide, log)
        deliver(change, toNewestStepOf: redoSide, log)
        if let tree {
            for branch in tree.branches(at: currentNodeNumber) { deliver(change, toNewestStepOf: branch.side, log) }
        }
    }

    private func deliver(_ change: any Sendable, toNewestStepOf side: Side, _ log: RemoteChangeLog) {
        guard !side.steps.isEmpty else { return }
        side.deliverUnseenChange(change, toStepAt: side.steps.count - 1, log: log)
    }

    private func deliver(_ changes: [any Sendable], toNewestStepOf side: Side, _ log: RemoteChangeLog) {
        guard !side.steps.isEmpty else { return }
        side.deliverUnseenChanges(changes, toStepAt: side.steps.count - 1, log: log)
    }

    /// Hands `changes`, which read at the far node of the step at `position` of `side` (the node
    /// an undo step leaves from, the node a redo or branch step leads to), to every other step that
    /// applies there: the next older step of the side, and the newest step of each branch that
    /// leaves from that node.
    func deliver(_ changes: [any Sendable], pastStepAt position: Int, of side: Side) {
        guard !changes.isEmpty, let log = remote?.log else { return }
        if position > 0 { side.deliverUnseenChanges(changes, toStepAt: position - 1, log: log) }
        let farNode = side === undoSide ? nil : side.steps[position].node
        deliverToBranches(changes, at: farNode, below: position, of: side)
    }

    /// A step went from `side` without being rebased (a removal, a sweep of freed targets, a
    /// broken step discarded): the changes it had not seen pass on to the steps beyond it,
    /// unchanged. `below` is the position of the kept step below it plus one (0 when there is none);
    /// `step` is the step that went.
    func passUnseenChanges(of step: Step, droppedFrom side: Side, below: Int) {
        guard let changes = step.metadata?.unseenChanges, !changes.isEmpty, let log = remote?.log else { return }
        if below > 0 { side.deliverUnseenChanges(changes, toStepAt: below - 1, log: log) }
        deliverToBranches(changes, at: side === undoSide ? nil : step.node, below: below, of: side)
    }

    /// The newest step of each branch that leaves from the far node (`node`, or for the undo side
    /// the node of the step below `below`, or the root) hears of `changes`.
    private func deliverToBranches(_ changes: [any Sendable], at node: NodeNumber?, below: Int, of side: Side) {
        guard let tree, let log = remote?.log else { return }
        let farNode = node ?? (below > 0 ? side.steps[below - 1].node : tree.root)
        for branch in tree.branches(at: farNode) where branch.side !== side {
            deliver(changes, toNewestStepOf: branch.side, log)
        }
    }

    // MARK: Rebasing

    /// Rebases the newest closed steps of `side` over what they have not seen, dropping those found
    /// dead, until the newest is live (or none is left). The stack calls it only at idle, with no
    /// asynchronous operation in flight (whose step stays on its side, with what it has not seen
    /// kept for a rollback); nothing happens while a frame is open on `side`.
    ///
    /// - Complexity: O(a · r) for the a actions of the steps rebased and the r changes they had not
    ///   seen.
    func rebaseNewestSteps(of side: Side) {
        guard let remote, side.frames.isEmpty, side.inFlight == 0 else { return }
        while let step = side.steps.last, step.metadata?.unseenChanges.isEmpty == false {
            let position = side.steps.count - 1
            let start = side.openStart - step.actionCount
            let dead = Set(rebaseStep(at: position, start: start, of: side, remote))
            guard !dead.isEmpty else { return }
            let emptied = side.filterNewestStep(
                from: start, isUndoSide: side === undoSide, keep: { !dead.contains($0) },
                release: { releaseAction($0) }, fresh: { states.fresh() })
            if side === undoSide { coalescer.clear() }
            guard let emptied else { return }
            if tree != nil { nodeVanished(emptied.node) }
        }
    }

    /// The position of the newest closed step of `side` that the next press would perform, found
    /// without changing anything, for a query made when the stack may not drop steps (a handler or
    /// an observer of an operation in progress, an open group): each step, from the newest, is
    /// rebased on copies of its commands over the changes it has not seen and those carried past
    /// the steps above it, as ``rebaseNewestSteps(of:)`` will rebase it; a step whose every action
    /// has nothing left to do or a freed target is passed over (the stack drops it once it may),
    /// and the changes as they read past it go on to the next. A step that holds no action counts
    /// (a do-nothing step). Nil when no step is left.
    ///
    /// - Complexity: O(a · r) for the a actions of the steps read and the r changes they had not
    ///   seen, plus O(a) for the actions of the steps passed over.
    func newestStepPastUnseenChanges(of side: Side) -> Int? {
        var carried: [any Sendable] = []
        var end = side.openStart
        var position = side.steps.count - 1
        while position >= 0 {
            let step = side.steps[position]
            let start = end - step.actionCount
            if step.count == 0 { return position }
            // Past the changes it has not seen, then those carried past the steps above (handed
            // to it after them, as `deliver(_:pastStepAt:of:)` hands them).
            var changes = step.metadata?.unseenChanges ?? []
            changes.append(contentsOf: carried)
            var index = end - 1
            while index >= start {
                let action = side.action(at: index)
                var isDead = false
                if !changes.isEmpty, let rebase = CommandRebase(action, over: changes) {
                    changes = rebase.carried
                    isDead = rebase.command == nil
                }
                if !isDead && action.isTargetAlive { return position }
                index -= 1
            }
            carried = changes
            end = start
            position -= 1
        }
        return nil
    }

    /// Rebases the step at `position` of `side` (its actions start at `start`) over the changes it
    /// has not seen, hands the changes, as they read past it, to the steps beyond it, and returns the
    /// absolute indices of its actions that have nothing left to do.
    private func rebaseStep(at position: Int, start: Int, of side: Side, _ remote: RemoteChanges) -> [Int] {
        let unseen = side.takeUnseenChanges(ofStepAt: position)
        let end = start + side.steps[position].actionCount
        let (carried, dead) = remote.rebaseActions(of: side, from: start, to: end, over: unseen)
        deliver(carried, pastStepAt: position, of: side)
        return dead
    }

    /// Rewrites the open groups of `side` over `changes` at once (new registrations join them, and
    /// they have no step to hold changes); returns the changes as they read below them. Commands
    /// left with nothing to do are removed, as a removal by target removes actions.
    ///
    /// - Complexity: O(k · r) for the k open actions and r changes; O(n) for the n actions of the
    ///   side when a command dies.
    func rebaseOpenRegion(of side: Side, over changes: [any Sendable]) -> [any Sendable] {
        guard let remote else { return changes }
        let (carried, dead) = remote.rebaseActions(of: side, from: side.openStart, to: side.end, over: changes)
        removeActions(atIndices: dead, from: side)
        return carried
    }

    /// Rebases every action of `side` (a step being built, a rollback's actions: they run newest
    /// first) over `changes` at once; returns the changes as they read once they have all run, and
    /// the absolute indices of the actions left with nothing to do (still held).
    func rebaseAllActions(of side: Side, over changes: [any Sendable]) -> (carried: [any Sendable], dead: [Int]) {
        guard let remote else { return (changes, []) }
        return remote.rebaseActions(of: side, from: side.base, to: side.end, over: changes)
    }

    /// Removes the actions at the absolute indices `dead` from `side` in one pass (as a removal by
    /// target removes actions), with the groups this empties.
    ///
    /// - Complexity: O(n) for the n actions of the side; nothing when `dead` is empty.
    func removeActions(atIndices dead: [Int], from side: Side) {
        guard !dead.isEmpty else { return }
        let deadSet = Set(dead)
        var index = side.base
        compact(side) { _ in
            defer { index += 1 }
            return deadSet.contains(index)
        }
    }

    /// Rebases every step of the history over what it has not seen (for a save): each side from its
    /// newest step down, so that each step has heard everything before it is rebased. Steps found
    /// dead are removed.
    ///
    /// - Complexity: O(a · r) for the a actions held and the r changes they had not seen, plus
    ///   O(n) for the n actions of a side where a command died.
    func rebaseEverything() {
        guard let remote else { return }
        var sides = [undoSide, redoSide]
        sides += branchesInPassOrder.map(\.side)
        // A branch hears of changes from the sides it leaves from: go round until nothing is left
        // unseen (each pass moves every change at least one step outward).
        var again = true
        while again {
            again = false
            for side in sides where side.frames.isEmpty {
                var dead: [Int] = []
                var end = side.openStart
                for position in stride(from: side.steps.count - 1, through: 0, by: -1) {
                    let count = side.steps[position].actionCount
                    let start = end - count
                    if side.steps[position].metadata?.unseenChanges.isEmpty == false {
                        dead += rebaseStep(at: position, start: start, of: side, remote)
                        again = true
                    }
                    end = start
                }
                removeActions(atIndices: dead, from: side)
            }
            if again && tree != nil {
                resyncTree()
                sides = [undoSide, redoSide] + branchesInPassOrder.map(\.side)
            }
        }
    }
}
