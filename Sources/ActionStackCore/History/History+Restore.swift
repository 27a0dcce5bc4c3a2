// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// How a history is rebuilt from saved values, into a stack that holds no step: a restore
// (`ActionStack.restoreHistory(_:resolvingTargets:)`, SavedHistory/) and the history a recorder's
// journal rebuilds (`JournalHistoryModel.savedHistory()`, Records/). The callers decide what comes
// back (which steps, their document states, their handlers and metadata, the nodes and where the
// branches leave from); the operations here put it into the sides and the tree, so that those are
// written in History/ and Storage/ only.

extension History {
    /// A new document state, equal to no other (for a history being rebuilt).
    ///
    /// - Complexity: O(1).
    func freshState() -> StateID { states.fresh() }

    /// Appends a restored step to `side`, which has no open frame: `actions` appends the step's
    /// actions, oldest first, and returns its metadata (which may depend on them, as whether it
    /// holds an awaited action does); then the step closes over them, from the document state `low`
    /// to `high`, leading to `node` (0 in a linear history, and on a side filled before its tree is
    /// in place: see ``installRestoredTree(root:rootDate:nodes:branches:nextNumber:)``).
    ///
    /// The step gets a serial of its own, as a step made live does; the history's coalescing and
    /// states are not touched (see ``finishRestore(current:clean:)``).
    ///
    /// - Complexity: O(a) for the step's a actions, plus what `actions` costs.
    func appendRestoredStep(
        to side: Side, low: StateID, high: StateID, node: NodeNumber,
        actions: (inout RestoredStepActions) -> StepMetadata?
    ) {
        var built = RestoredStepActions(history: self, side: side)
        let metadata = actions(&built)
        side.appendStep(makeStep(count: built.count, metadata: metadata, low: low, high: high, node: node))
    }

    /// Puts a restored branching history's tree in place of the one held (the stack holds no step
    /// but those just restored, whose steps already carry their nodes): the root `root`, dated
    /// `rootDate`; every other node, in increasing number order, with its parent and date; the
    /// `branches` (each side filled with ``appendRestoredStep(to:low:high:node:actions:)``), added
    /// in order, so that the first is the least recently left; and the number the next change gets.
    /// The branch limit is the one held (the tree's, or the settings' while the history was
    /// linear); nothing is pruned.
    ///
    /// The node table is kept in number order with the root wherever its number falls: a restored
    /// history's root may be numbered above other nodes. The newest date is the latest of the
    /// nodes', the root's included, so that a node made after the restore is dated no earlier.
    ///
    /// - Complexity: O(n + b) for the n nodes and b branches.
    func installRestoredTree(
        root: NodeNumber, rootDate: Double, nodes: [RestoredNode], branches: [(side: Side, anchor: NodeNumber)],
        nextNumber: NodeNumber
    ) {
        let store = TreeStore(root: root, date: rootDate)
        store.maximumBranchSteps = maximumBranchSteps
        store.table.removeAll()
        var rootPlaced = false
        for node in nodes {
            if !rootPlaced && node.number > root {
                store.table.append(root, parent: NodeTable.noParent, date: rootDate)
                rootPlaced = true
            }
            store.table.append(node.number, parent: node.parent, date: node.date)
            store.lastDate = Swift.max(store.lastDate, node.date)
        }
        if !rootPlaced { store.table.append(root, parent: NodeTable.noParent, date: rootDate) }
        store.nextNumber = nextNumber
        for branch in branches { store.add(Branch(side: branch.side, anchor: branch.anchor, tick: 0)) }
        tree = store
        noteChangeNeedingSnapshot()
    }

    /// A restored history is in place (see ``ActionStack/restoreHistory(_:resolvingTargets:)``): the
    /// document is in `current`, and the clean state is `clean` (none: a state the document never
    /// reaches). Nothing restored can be continued by coalescing.
    ///
    /// - Complexity: O(1).
    func finishRestore(current: StateID, clean: StateID?) {
        states.restore(current: current, clean: clean)
        coalescer.clear()
        noteChangeNeedingSnapshot()
    }
}

/// A node of a restored tree other than its root (see
/// ``History/installRestoredTree(root:rootDate:nodes:branches:nextNumber:)``).
struct RestoredNode {
    var number: NodeNumber
    var parent: NodeNumber
    /// When the change was made, as `Date.timeIntervalSinceReferenceDate`.
    var date: Double
}

/// The actions of a step being restored (see ``History/appendRestoredStep(to:low:high:node:actions:)``),
/// appended one by one onto its side. Not copyable: it lives only while the step is being built.
struct RestoredStepActions: ~Copyable {
    // Unretained, and used through guaranteed references: the history and the side outlive the
    // step being built, and a retain and a release of each at every restored action were a third
    // of what a restore retained.
    private let history: Unmanaged<History>
    private let side: Unmanaged<Side>
    /// The actions appended so far.
    private(set) var count = 0

    fileprivate init(history: History, side: Side) {
        self.history = Unmanaged.passUnretained(history)
        self.side = Unmanaged.passUnretained(side)
    }

    /// Appends an action on `target`, whose box the history's registry retains: a command's under
    /// its target's `commandKey`, or one registered as a closure (nil).
    ///
    /// - Complexity: O(1) amortized.
    mutating func append(
        on target: AnyObject, commandKey: String?, cost: Int, handler: @escaping (AnyObject) -> Void
    ) {
        let box = history._withUnsafeGuaranteedRef { history in
            commandKey.map { history.registry.retainCommandBox(for: target, key: $0) }
                ?? history.registry.retainBox(for: target)
        }
        side._withUnsafeGuaranteedRef { $0.append(Action(box: box, handler: handler), cost: cost) }
        count += 1
    }

    /// Appends a command's action on `target` under `commandKey`, as
    /// ``append(on:commandKey:cost:handler:)`` does, with the target unretained: the caller holds
    /// it (a restore's cache), and a retain of a target, which a stack holds weakly, takes the slow
    /// path.
    ///
    /// - Complexity: O(1) amortized.
    mutating func append(
        on target: Unmanaged<AnyObject>, commandKey: String, cost: Int, handler: @escaping (AnyObject) -> Void
    ) {
        let box = history._withUnsafeGuaranteedRef { history in
            target._withUnsafeGuaranteedRef { history.registry.retainCommandBox(for: $0, key: commandKey) }
        }
        side._withUnsafeGuaranteedRef { $0.append(Action(box: box, handler: handler), cost: cost) }
        count += 1
    }
}
