// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

// Moving through a branching history, one undo or redo at a time with their notifications, and
// the tree as a history panel shows it. The tree's upkeep is the history's (History+Tree.swift).

extension ActionStack {
    /// A jump to a node (`validate` gives it) or a time move (`timeMove`, whose target is found
    /// from the current node), one undo or redo at a time: the steps ``nextStep(of:)`` decides,
    /// as the awaited move takes them.
    @discardableResult
    func moveInTree(
        _ operation: OperationKey,
        validate: () throws(HistoryTreeError) -> NodeNumber? = { nil },
        timeMove: TimeMove? = nil
    ) throws(HistoryTreeError) -> NodeNumber? {
        if refusesReentrantCall(operation) { return nil }
        guard history.tree != nil else { throw .linearHistory }
        let validated = try validate()
        func resolve(_ tree: TreeStore) -> NodeNumber {
            validated ?? timeMove?.target(in: tree, from: history.currentNodeNumber) ?? history.currentNodeNumber
        }
        if steps.usesAwaitedSteps, let tree = history.tree {
            // With asynchronous steps on the way, or an operation in progress, the move is one
            // queued request (started on the main actor, as an Edit menu's undo() is). A time move
            // is requested as a move, not as its target: it starts from where the document is when
            // the request starts (behind another, where that one left it).
            let target = resolve(tree)
            let kind: OperationRequest.Kind =
                timeMove.map(OperationRequest.Kind.init(timeMove:))
                ?? .jumpToNode(HistoryNode.ID(sequence: Int(target)))
            if routesToAsyncOperation(kind, operation) { return target }
        }
        // A move that would not move does nothing, open group or not (as jump(to:) to the current
        // position): a jump to the current node, a time move by 0 or past an end.
        if let tree = history.tree, resolve(tree) == history.currentNodeNumber {
            return history.currentNodeNumber
        }
        if refusesMoveWithNestedGroupsOpen(operation.reported) != nil { return nil }
        // Performed at once up to an asynchronous step, if the way comes to one.
        let (reached, handOff) = walkAtOnce()
        if let handOff {
            // The way changed under the move (a time move passed over a node found dead to one
            // whose way holds an asynchronous step): the rest is one request, as a move with that
            // step on its way from the start is. Never performed at once: its awaited work would be
            // dropped.
            startFromSynchronousCall(.jumpToNode(HistoryNode.ID(sequence: Int(handOff))), operation)
            return handOff
        }
        return reached

        /// The move performed at once: the node reached, and the node still to reach when the next
        /// step holds an asynchronous action (the walk stops before it).
        func walkAtOnce() -> (reached: NodeNumber?, handOff: NodeNumber?) {
            history.sweepFreedTargets()
            activities.push(.jumping)
            defer { activities.pop() }
            closeTheOpenGroupBeforeMoving()
            guard let tree = history.tree else { return (nil, nil) }
            let target = resolve(tree)
            guard tree.table.contains(target), target != history.currentNodeNumber else {
                return (history.currentNodeNumber, nil)
            }
            // Only a move ends coalescing: a jump to the current node, or a time move that cannot
            // move, does nothing (as `jump(to:)` to the current position).
            history.endCoalescing()
            let held = history.holdPruning()
            defer { history.releasePruning(held) }
            var walk = TreeWalk(
                to: target, from: history.currentNodeNumber, timeMove: validated == nil ? timeMove : nil, in: tree)
            while true {
                history.sweepFreedTargets()
                let step = nextStep(of: &walk)
                // (Only a stack that ever held an asynchronous step can come to one: the others pay
                // one flag check, not a look at the step's metadata.)
                if steps.usesAwaitedSteps, let step,
                    (step == .undo ? undoSide : redoSide).steps.last?.metadata?.holdsAsyncActions == true
                {
                    return (history.currentNodeNumber, walk.target)
                }
                switch step {
                case nil:
                    return (history.currentNodeNumber, nil)
                case .undo:
                    // A step that performs nothing ends the move.
                    guard undoNewest(checkpoint: true) else { return (history.currentNodeNumber, nil) }
                case .redo:
                    postCheckpoint()
                    guard redoNewest() else { return (history.currentNodeNumber, nil) }
                }
            }
        }
    }

    /// The branch entered on the way down to `child` was found dead and `child` went: redo enters
    /// the branch it entered before (`previous`, when it still leaves from the current node), as if
    /// the dead one had never been entered.
    func restoreRedoChoice(_ previous: NodeNumber?, after child: NodeNumber) {
        guard let previous, previous != child, let tree = history.tree, tree.table.contains(previous),
            tree.table.parent(of: previous) == history.currentNodeNumber
        else { return }
        _ = enterBranch(leadingTo: previous)
    }

    /// A time move: the target is found from the current node, after the open group closed.
    func moveInTime(_ move: TimeMove) throws(HistoryTreeError) -> HistoryNode.ID {
        enterCall()
        defer { leaveCall() }
        let reached = try moveInTree(move.forward ? .later : .earlier, timeMove: move) ?? history.currentNodeNumber
        return HistoryNode.ID(sequence: Int(reached))
    }

    // MARK: The snapshot

    /// The tree as a history panel shows it.
    func makeTreeSnapshot() -> HistoryTree? {
        guard let tree = history.tree else { return nil }
        struct Place {
            var step: Step?
            var onUndoPath: Bool
            var onPath: Bool
            var redoChild: NodeNumber?
            var state: StateID?
            /// The node before it on its chain: its parent (between calls, the table's).
            var parent: NodeNumber?
        }
        var places: [NodeNumber: Place] = [:]
        let current = history.currentNodeNumber
        // The undo stack, from the current node up: each step's state before it.
        var state: StateID? = undoSide.frames.isEmpty ? history.states.current : undoSide.frames[0].low
        // While an awaited operation runs after another task's change, the redo stack is the redo
        // future that change ends when the operation settles: it still leaves from the node the
        // document was at when the change came (the table's parent), not from the change.
        let redoAnchor = history.redoAnchor
        var below: NodeNumber? = redoAnchor == current ? redoSide.steps.last?.node : nil
        for position in stride(from: undoSide.steps.count - 1, through: 0, by: -1) {
            let step = undoSide.steps[position]
            let parent = position > 0 ? undoSide.steps[position - 1].node : tree.root
            places[step.node] = Place(
                step: step, onUndoPath: true, onPath: true, redoChild: below, state: state, parent: parent)
            below = step.node
            state = state == step.high ? step.low : nil
        }
        places[tree.root] = Place(step: nil, onUndoPath: true, onPath: true, redoChild: below, state: state)
        func chain(_ side: Side, from anchor: NodeNumber, onPath: Bool) {
            var state = places[anchor]?.state
            var parent = anchor
            for position in stride(from: side.steps.count - 1, through: 0, by: -1) {
                let step = side.steps[position]
                state = state == step.low ? step.high : nil
                let next = position > 0 ? side.steps[position - 1].node : nil
                places[step.node] = Place(
                    step: step, onUndoPath: false, onPath: onPath, redoChild: next, state: state, parent: parent)
                parent = step.node
            }
        }
        chain(redoSide, from: redoAnchor, onPath: true)
        // Branches, once their anchor's state is known: breadth first from the current path.
        var reached = Array(places.keys)
        while let anchor = reached.popLast() {
            for branch in tree.branches(at: anchor) {
                chain(branch.side, from: anchor, onPath: false)
                for position in 0..<branch.side.steps.count { reached.append(branch.side.steps[position].node) }
            }
        }
        // Parents and children from the chains: from a handler of an undo or redo (or an observer
        // of its checkpoint), the step in flight is in no chain, and its node in no snapshot.
        var children: [NodeNumber: [NodeNumber]] = [:]
        let records = tree.table.alive
        for record in records {
            if let parent = places[record.number]?.parent { children[parent, default: []].append(record.number) }
        }
        func id(_ number: NodeNumber) -> HistoryNode.ID { HistoryNode.ID(sequence: Int(number)) }
        let marks = stepMarks(undoSide: nil)
        let nodes = records.compactMap { record -> HistoryNode? in
            guard let place = places[record.number] else { return nil }
            let name = place.step?.name ?? ""
            let title =
                place.step == nil
                ? ""
                : place.onUndoPath ? undoMenuTitle(forUndoActionName: name) : redoMenuTitle(forUndoActionName: name)
            return HistoryNode(
                id: id(record.number),
                parent: place.parent.map(id),
                children: (children[record.number] ?? []).map(id),
                redoChild: place.redoChild.map(id),
                date: Date(timeIntervalSinceReferenceDate: record.date),
                actionName: name,
                title: title,
                actionCount: place.step?.actionCount ?? 0,
                isClean: place.state != nil && place.state == history.states.clean,
                isCurrent: record.number == current,
                isOnCurrentPath: place.onPath,
                isInFlight: marks?.inFlight != nil && place.step?.serial == marks?.inFlight,
                isBroken: marks?.broken != nil && place.step?.serial == marks?.broken
            )
        }
        return HistoryTree(nodes: nodes, root: id(tree.root), current: id(current))
    }
}
