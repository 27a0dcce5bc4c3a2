// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// A move through a branching history, decided one step at a time: a jump to a node, or a move in
/// time from the node the move started on. The synchronous move (``ActionStack/jump(toNode:)``,
/// ``ActionStack/earlier(_:)``, ``ActionStack/later(_:)``) and the awaited one
/// (``ActionStack/performJump(toNode:isolation:)`` and the awaited time moves) ask the same walk for
/// their next step (``ActionStack/nextStep(of:)``) and differ only in how they perform it: the one
/// rule for a way that changes under the move (a freed target, a step found dead once rebased past
/// peers' changes, a branch moved) is here, not in two copies that can disagree.
///
/// The way is planned once and planned again only when the document is not where the plan
/// expected it after a step, so a move costs O(p log s) to plan for the p nodes on its way.
struct TreeWalk {
    /// What the walk performs next.
    enum Step: Equatable {
        case undo
        case redo
    }

    /// The node the walk goes to now: a time move's target moves on when the node it aimed at is
    /// found dead (``passOver(in:)``).
    private(set) var target: NodeNumber
    /// The node the move started on: a time move resolves from it again.
    let start: NodeNumber
    /// The move in time, or nil for a jump to a node.
    let timeMove: TimeMove?
    /// The date of the node the move started on: a move by a duration counts from it, even once
    /// that node has gone (its step found dead on the way).
    let startDate: Double?

    /// The plan: how many undos are left before the way turns down, the node where it turns (the
    /// nearest common ancestor: a removal on the way up can bring it nearer than the count says),
    /// the nodes to enter on the way down and how many of them were entered, and the node the
    /// document stands on when the plan still holds (nil: plan again).
    private var undosLeft = 0
    private(set) var turn: NodeNumber?
    private var down: [NodeNumber] = []
    private var entered = 0
    private var expected: NodeNumber?

    /// A walk to `target` from `start` in `tree`; `timeMove` when it is a move in time.
    init(to target: NodeNumber, from start: NodeNumber, timeMove: TimeMove?, in tree: TreeStore) {
        self.target = target
        self.start = start
        self.timeMove = timeMove
        startDate = timeMove == nil ? nil : tree.table.record(start)?.date
    }

    /// Whether the plan still holds with the document on `current`.
    func plans(from current: NodeNumber) -> Bool { expected == current }

    /// Takes `way` (from `current`, turning down at `turn`) as the plan.
    mutating func plan(_ way: (up: Int, down: [NodeNumber]), from current: NodeNumber, turn: NodeNumber) {
        undosLeft = way.up
        self.turn = turn
        down = way.down
        entered = 0
        expected = current
    }

    /// Forgets the plan: the next step plans again.
    mutating func replan() { expected = nil }

    /// The next step of the plan, without taking it: an undo, or the node to enter.
    var planned: (undo: Bool, child: NodeNumber?) {
        undosLeft > 0 ? (true, nil) : (false, entered < down.count ? down[entered] : nil)
    }

    /// The planned undo is taken; the document is to stand on `parent` after it.
    mutating func tookUndo(to parent: NodeNumber?) {
        undosLeft -= 1
        expected = parent
    }

    /// The planned redo into `child` is taken.
    mutating func tookRedo(into child: NodeNumber) {
        entered += 1
        expected = child
    }

    /// The target was found dead: a jump ends (returns false); a move in time passes over its
    /// number to the node it resolves to now from where it started, as over any number that no
    /// longer exists (false when that is no other node).
    mutating func passOver(in tree: TreeStore) -> Bool {
        guard let timeMove else { return false }
        let next = timeMove.target(in: tree, from: start, dated: startDate)
        guard next != target, tree.table.contains(next) else { return false }
        target = next
        expected = nil
        return true
    }
}

extension ActionStack {
    /// The next step of `walk`, or nil when the move ends: on its target, or where the way ran out.
    /// Called before each step, with freed targets swept.
    ///
    /// Each step is rebased past the remote changes it has not seen before it runs, so that the
    /// walk never undoes or redoes beyond a node that vanished: a step found dead goes (its node
    /// with it), and the way is planned again. The node reached is rebased too: a step that peers'
    /// changes left with nothing to do is found dead there, whether or not anything looked at it
    /// before (a save would have). A jump whose target is found dead ends where it is (on the
    /// target's parent, whose state it is, when it had reached it); a move in time passes over its
    /// number (``TreeWalk/passOver(in:)``). A target that goes otherwise (its targets freed, a redo
    /// that registered nothing) ends the move.
    ///
    /// - Complexity: O(1) amortized per step on a planned way, O(p log s) to plan it again (p nodes
    ///   on the way, s nodes held), plus the rebasing of the step.
    func nextStep(of walk: inout TreeWalk) -> TreeWalk.Step? {
        let rebases = history.remote != nil
        while true {
            guard let tree = history.tree, tree.table.contains(walk.target) else { return nil }
            let current = history.currentNodeNumber
            if current == walk.target {
                // The node reached, rebased: one found dead goes (the document is then on its parent).
                guard rebases else { return nil }
                rebaseNewestSteps(of: undoSide)
                if tree.table.contains(walk.target) || !walk.passOver(in: tree) { return nil }
                continue
            }
            let fresh = !walk.plans(from: current)
            if fresh {
                guard let way = history.way(from: current, to: walk.target) else { return nil }
                let turn = way.down.first.flatMap { tree.table.parent(of: $0) } ?? walk.target
                walk.plan(way, from: current, turn: turn)
            }
            let next = walk.planned
            if next.undo && current == walk.turn {
                // Steps on the way up went meanwhile (a removal, a sweep): the way turns down here.
                walk.replan()
                continue
            }
            if next.undo {
                if rebases {
                    rebaseNewestSteps(of: undoSide)
                    // Found dead with the steps above it.
                    if !tree.table.contains(walk.target) {
                        if walk.passOver(in: tree) { continue }
                        return nil
                    }
                    if history.currentNodeNumber != current {
                        walk.replan()
                        continue
                    }
                }
                guard undoSide.closedCount > 0 else { return nil }
                walk.tookUndo(to: tree.table.parent(of: current))
                return .undo
            }
            guard let child = next.child, tree.table.parent(of: child) == current else {
                // The way changed under the plan: planned again (a way just planned leads down
                // from the current node).
                if fresh { return nil }
                walk.replan()
                continue
            }
            let previous = redoSide.steps.last?.node
            guard enterBranch(leadingTo: child) else { return nil }
            if rebases {
                rebaseNewestSteps(of: redoSide)
                if !tree.table.contains(child) {
                    // The branch entered was found dead: redo enters the one it entered before.
                    restoreRedoChoice(previous, after: child)
                    // The target found dead itself, or with the step before it (a branch whose
                    // steps all died at once): a time move passes over its number.
                    if (child == walk.target || !tree.table.contains(walk.target)) && !walk.passOver(in: tree) {
                        return nil
                    }
                    walk.replan()
                    continue
                }
                if !tree.table.contains(walk.target) {
                    if walk.passOver(in: tree) { continue }
                    return nil
                }
            }
            walk.tookRedo(into: child)
            return .redo
        }
    }
}
