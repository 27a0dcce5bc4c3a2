// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore
import Foundation

// Replaying a recorder's journal: each history as its records built it (chains of steps, the
// document's states, the root), then the history a full save would have saved at that record. The
// save is the stack's own: the replayed chains are put into a stack that holds them as the recorded
// one did (each command on a stand-in for its target, each step that holds a closure as a step with
// an action that is not a command), and `savedHistory(maximumSteps:)` walks them, so that the
// recovered history and a full save agree by construction on what is saved, the nodes, the clean
// node and the omissions.

/// The steps of one chain, oldest first, with O(1) drops from the bottom.
struct JournalChain {
    private var storage: [JournalStep] = []
    private var head = 0

    var count: Int { storage.count - head }

    subscript(index: Int) -> JournalStep {
        get { storage[head + index] }
        set { storage[head + index] = newValue }
    }

    /// The steps, oldest first.
    var steps: ArraySlice<JournalStep> { storage[head...] }

    /// Takes `count` steps from the bottom (all of them when there are fewer).
    ///
    /// - Complexity: O(1) amortized.
    mutating func drop(_ count: Int) {
        head += Swift.min(count, self.count)
        if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Keeps the first `count` steps.
    mutating func keep(_ count: Int) {
        storage.removeLast(self.count - count)
    }

    mutating func append(_ step: JournalStep) { storage.append(step) }
}

/// One history as a recorder's journal rebuilt it, record after record.
struct JournalHistoryModel {
    var shape: ActionStack.HistoryShape
    var maximumSteps: Int
    var current: StateID
    var clean: StateID
    var remoteVersion: String?
    var root: NodeNumber
    var rootDate: Double?
    /// The number the next change gets, as the last record that gave it said (nil: one above the
    /// largest node held, as in a journal written before records said it).
    var nextNode: NodeNumber?
    var undo = JournalChain()
    var redo = JournalChain()
    /// The branches, by the recorder's number, with the node each leaves from.
    var branches: [Int: (anchor: NodeNumber, chain: JournalChain)] = [:]

    /// The history a snapshot holds.
    init(snapshot record: JournalHistoryRecord, limits: HistoryArchive.Limits) throws {
        guard let shape = record.shape, let current = record.current, let clean = record.clean else {
            throw JournalRecordProblem("a snapshot's history without its shape or states")
        }
        self.shape = shape
        maximumSteps = record.maximumSteps ?? .max
        self.current = current
        self.clean = clean
        remoteVersion = record.remoteVersion
        root = record.root ?? 0
        rootDate = record.rootDate
        nextNode = record.nextNode
        try apply(record, limits: limits)
    }

    /// The steps held, on every chain.
    var stepCount: Int { undo.count + redo.count + branches.values.reduce(0) { $0 + $1.chain.count } }

    /// Applies a record's changes.
    ///
    /// - Throws: ``JournalRecordProblem`` when the record does not fit the history (a record of
    ///   another history, or a damaged one); the history may then be half changed.
    mutating func apply(_ record: JournalHistoryRecord, limits: HistoryArchive.Limits) throws {
        if let current = record.current { self.current = current }
        if let clean = record.clean { self.clean = clean }
        if record.setsRemoteVersion { remoteVersion = record.remoteVersion }
        if let root = record.root { self.root = root }
        if let rootDate = record.rootDate { self.rootDate = rootDate }
        if let nextNode = record.nextNode { self.nextNode = nextNode }
        var next = 0
        func problem(_ what: String) -> JournalRecordProblem { JournalRecordProblem(what) }
        for operation in record.operations {
            switch operation {
            case .chain(let id, let drop, let keep, let grow, let push):
                // Moved out of the model, so that the chain is changed in place: a copy per
                // operation would make a record of n operations cost O(n²). (A record that throws
                // leaves the model half changed; the replay then drops its chain.)
                var chain: JournalChain
                switch id {
                case .undo:
                    chain = undo
                    undo = JournalChain()
                case .redo:
                    chain = redo
                    redo = JournalChain()
                case .branch(let number):
                    guard branches[number] != nil else { throw problem("an operation on no branch \(number)") }
                    chain = branches[number]!.chain
                    branches[number]!.chain = JournalChain()
                }
                chain.drop(drop)
                guard keep <= chain.count else {
                    throw problem("an operation keeps \(keep) steps of \(chain.count)")
                }
                chain.keep(keep)
                if grow {
                    guard keep > 0 else { throw problem("an operation grows a chain without steps") }
                    let grown = record.steps[next]
                    next += 1
                    var step = chain[keep - 1]
                    let actions = step.actions
                    let heldClosure = step.holdsClosure
                    step = grown
                    step.holdsClosure = heldClosure || grown.holdsClosure
                    if step.holdsClosure {
                        step.actions = SavedActionList()
                    } else {
                        var joined = actions
                        for index in 0..<grown.actions.count { joined.append(grown.actions[index]) }
                        try limits.check(joined.count, .actionsPerStep)
                        step.actions = joined
                    }
                    chain[keep - 1] = step
                }
                for _ in 0..<push {
                    chain.append(record.steps[next])
                    next += 1
                }
                switch id {
                case .undo: undo = chain
                case .redo: redo = chain
                case .branch(let number): branches[number]!.chain = chain
                }
            case .newBranch(let number, let anchor):
                guard branches[number] == nil else { throw problem("branch \(number) made twice") }
                branches[number] = (anchor, JournalChain())
            case .fork(let number, let anchor):
                guard branches[number] == nil else { throw problem("branch \(number) made twice") }
                branches[number] = (anchor, redo)
                redo = JournalChain()
            case .enter(let number, let anchor, let kept):
                guard let branch = branches[number] else { throw problem("no branch \(number) to enter") }
                let left = redo
                redo = branch.chain
                branches[number] = kept ? (anchor, left) : nil
            case .dropBranch(let number):
                guard branches.removeValue(forKey: number) != nil else { throw problem("no branch \(number) to drop") }
            case .reanchor(let number, let anchor):
                guard branches[number] != nil else { throw problem("no branch \(number) to move") }
                branches[number]!.anchor = anchor
            }
        }
        try limits.check(stepCount, .steps)
    }

    // MARK: The history a save would save

    /// The history a full save of the recorded stack would have saved.
    ///
    /// - Throws: ``JournalRecordProblem`` when the chains are not a history a stack can hold (a
    ///   damaged journal).
    /// - Complexity: O(s log s + a) for the s steps and a actions held.
    func savedHistory() throws -> SavedHistory {
        let stack = ActionStack()
        stack.misusePolicy = .report
        let history = stack.history
        var objects: [String: StandIn] = [:]
        let closureTarget = StandIn()
        func fill(_ side: Side, with chain: JournalChain) {
            for step in chain.steps {
                var count = 0
                if step.holdsClosure {
                    let box = history.registry.retainBox(for: closureTarget)
                    side.append(Action(box: box, handler: { _ in }), cost: 0)
                    count = 1
                } else {
                    for index in 0..<step.actions.count {
                        let action = step.actions[index]
                        let object: StandIn
                        if let known = objects[action.key] {
                            object = known
                        } else {
                            object = StandIn()
                            objects[action.key] = object
                        }
                        let box = history.registry.retainCommandBox(for: object, key: action.key)
                        let stored = StoredAction(action: action)
                        side.append(
                            Action(
                                box: box,
                                handler: { capture in (capture as? CommandCapture)?.command = stored }),
                            cost: action.cost)
                        count += 1
                    }
                }
                var metadata: StepMetadata?
                if !step.name.isEmpty || step.isDiscardable || !step.userInfo.isEmpty {
                    let made = StepMetadata()
                    made.name = step.name
                    made.isDiscardable = step.isDiscardable
                    for (key, value) in step.userInfo {
                        made.userInfo[ActionStack.UserInfoKey(rawValue: key)] = value.value
                    }
                    metadata = made
                }
                side.appendStep(
                    history.makeStep(
                        count: count, metadata: metadata, low: step.low, high: step.high,
                        node: shape == .tree ? step.node : 0))
            }
        }
        fill(history.undoSide, with: undo)
        fill(history.redoSide, with: redo)
        if shape == .tree {
            let store = try treeStore()
            for number in branches.keys.sorted() {
                let branch = branches[number]!
                let side = Side()
                fill(side, with: branch.chain)
                store.add(Branch(side: side, anchor: branch.anchor, tick: 0))
            }
            history.installTree(store)
        }
        history.finishRestore(current: current, clean: clean)
        if let remoteVersion { stack.restoreRemoteVersion(remoteVersion) }
        var saved: SavedHistory
        do {
            saved = try withExtendedLifetime((objects, closureTarget)) {
                try stack.savedHistory(maximumSteps: maximumSteps)
            }
        } catch {
            throw JournalRecordProblem("the recorded history cannot be saved: \(error)")
        }
        // The stand-ins' commands are the recorded actions.
        for index in saved.steps.indices {
            var list = SavedActionList()
            for position in 0..<saved.steps[index].actionList.count {
                guard let stored = saved.steps[index].actionList.command(at: position) as? StoredAction else {
                    throw JournalRecordProblem("a recorded action was lost")
                }
                list.append(stored.action)
            }
            saved.steps[index].actionList = list
        }
        saved.isKnownValid = false
        if shape == .linear { saved.rootDate = nil }
        stack.removeAllActions()
        return saved
    }

    /// The node table of a branching history: the root, then every step's node with its parent
    /// (the step before it on its chain, the chain's anchor for its first step) and date.
    private func treeStore() throws -> TreeStore {
        var parent: [NodeNumber: NodeNumber] = [:]
        var date: [NodeNumber: Double] = [:]
        var nodes: Set<NodeNumber> = [root]
        func add(_ node: NodeNumber, parent up: NodeNumber, date when: Double?) throws {
            guard nodes.insert(node).inserted else { throw JournalRecordProblem("node \(node) is held twice") }
            parent[node] = up
            date[node] = when ?? rootDate ?? 0
        }
        var up = root
        for step in undo.steps {
            try add(step.node, parent: up, date: step.date)
            up = step.node
        }
        // The redo stack and the branches hold their next step last.
        func chain(_ chain: JournalChain, from anchor: NodeNumber) throws {
            var up = anchor
            for step in chain.steps.reversed() {
                try add(step.node, parent: up, date: step.date)
                up = step.node
            }
        }
        try chain(redo, from: up)
        for branch in branches.values { try chain(branch.chain, from: branch.anchor) }
        // Every branch leaves from a node of the tree, and every node leads to the root.
        for branch in branches.values where !nodes.contains(branch.anchor) {
            throw JournalRecordProblem("a branch leaves from node \(branch.anchor), which is not held")
        }
        var leadsToRoot: Set<NodeNumber> = [root]
        for node in nodes {
            var walked: [NodeNumber] = []
            var at = node
            while !leadsToRoot.contains(at) {
                guard let next = parent[at], walked.count <= nodes.count else {
                    throw JournalRecordProblem("node \(node) does not lead to the root")
                }
                walked.append(at)
                at = next
            }
            leadsToRoot.formUnion(walked)
        }
        let store = TreeStore(root: root, date: rootDate ?? 0)
        // The table is kept in node order, the root included wherever its number falls (a
        // restored history's root may be numbered above other nodes), as a restore builds it.
        store.table.removeAll()
        for node in nodes.sorted() {
            if node == root {
                store.table.append(node, parent: NodeTable.noParent, date: rootDate ?? 0)
            } else {
                store.table.append(node, parent: parent[node]!, date: date[node]!)
            }
        }
        store.nextNumber = (nodes.max() ?? root) &+ 1
        if let nextNode {
            // A record's next number below a node held is damage, not a choice.
            guard nextNode >= store.nextNumber else {
                throw JournalRecordProblem("the next node number \(nextNode) is not above every node held")
            }
            store.nextNumber = nextNode
        }
        store.lastDate = date.values.max() ?? (rootDate ?? 0)
        return store
    }
}

/// A stand-in for a recorded action's target while a replayed history is saved.
private final class StandIn {}

/// A recorded action, as a command, so that a replayed history's save carries it.
private struct StoredAction: UndoCommand {
    static let commandType = "ActionStack.journal.recordedAction"
    let action: SavedAction

    func perform(on target: StandIn, in stack: ActionStack) {}

    init(action: SavedAction) { self.action = action }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "never read"))
    }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "never written"))
    }
}

// MARK: - Replaying a journal

/// What a replay of a recorder's journal found at one record.
struct JournalReplayPoint {
    var record: JournalRecord
    /// The histories as they were at that record, or why they cannot be rebuilt.
    var result: Result<Replayed, JournalRecordProblem>

    enum Replayed {
        /// A record of a recorder: its histories, rebuilt.
        case models([String: JournalHistoryModel])
        /// A whole archive.
        case archive(HistoryArchive)
    }
}

enum JournalReplayer {
    /// What a replay found at the records it was asked about.
    struct Found {
        /// The last record asked about, replayed (or why it could not be).
        var last: JournalReplayPoint?
        /// The last record asked about that replayed.
        var lastReplayed: JournalReplayPoint?
    }

    /// Replays `records` up to `last` (each writer's records on their own: a delta follows the
    /// snapshot it names, whatever another writer appended between), and returns the histories at
    /// the last record for which `wanted` is true, and at the last such record that replayed.
    ///
    /// - Parameters:
    ///   - records: A journal's intact records.
    ///   - registry: The command types.
    ///   - limits: The bounds each record, and each history rebuilt, holds to.
    ///   - last: The last record to replay.
    ///   - wanted: Whether the caller wants the histories at record `index`.
    /// - Returns: The histories at the last record wanted, and at the last one wanted that replayed.
    /// - Complexity: O(n) for the n bytes of the records, plus the histories kept.
    static func replay(
        _ records: [JournalRecord], registry: CommandRegistry, limits: HistoryArchive.Limits,
        through last: Int, keeping wanted: (Int) -> Bool
    ) -> Found {
        var found = Found()
        replay(records, registry: registry, limits: limits, through: last, keeping: wanted) { point in
            found.last = point
            if case .success = point.result { found.lastReplayed = point }
        }
        return found
    }

    /// Replays `records` up to `last` and hands `visit` the histories at each record for which
    /// `wanted` is true, in order.
    ///
    /// - Complexity: O(n) for the n bytes of the records, plus `visit`.
    static func replay(
        _ records: [JournalRecord], registry: CommandRegistry, limits: HistoryArchive.Limits,
        through last: Int, keeping wanted: (Int) -> Bool, visit: (JournalReplayPoint) throws -> Void
    ) rethrows {
        // The histories of each chain (a snapshot and the deltas after it), with the index of its
        // last record; a chain that could not be followed is gone.
        var chains: [UInt64: (models: [String: JournalHistoryModel], index: Int)] = [:]
        let end = Swift.min(last + 1, records.count)
        for position in 0..<end {
            let record = records[position]
            let result: Result<JournalReplayPoint.Replayed, JournalRecordProblem>
            var chainID: UInt64?
            do {
                switch try JournalRecordReader.read(record.payload, registry: registry, limits: limits) {
                case .archive(let archive):
                    result = .success(.archive(archive))
                case .record(let contents):
                    chainID = contents.chain
                    if contents.isSnapshot {
                        guard contents.index == 0 else { throw JournalRecordProblem("a snapshot with an index") }
                        var built: [String: JournalHistoryModel] = [:]
                        for (name, history) in contents.histories {
                            built[name] = try JournalHistoryModel(snapshot: history, limits: limits)
                        }
                        chains[contents.chain] = (built, 0)
                        result = .success(.models(built))
                    } else {
                        guard var current = chains[contents.chain], contents.index == current.index + 1 else {
                            throw JournalRecordProblem(
                                "the record does not follow the records before it (its snapshot is gone or damaged)")
                        }
                        for (name, history) in contents.histories {
                            guard var model = current.models[name] else {
                                throw JournalRecordProblem(
                                    "the record changes history \"\(HistoryArchiveError.shortened(name, to: 40))\", "
                                        + "which the snapshot does not hold")
                            }
                            // Moved out, so that the chains are changed in place.
                            current.models[name] = nil
                            try model.apply(history, limits: limits)
                            current.models[name] = model
                        }
                        current.index = contents.index
                        chains[contents.chain] = nil
                        chains[contents.chain] = current
                        result = .success(.models(current.models))
                    }
                }
            } catch let problem as JournalRecordProblem {
                if let chainID { chains[chainID] = nil }
                result = .failure(problem)
            } catch {
                if let chainID { chains[chainID] = nil }
                result = .failure(JournalRecordProblem("\(error)", archiveError: error as? HistoryArchiveError))
            }
            guard wanted(position) else { continue }
            try visit(JournalReplayPoint(record: record, result: result))
        }
    }

    /// The archive a replay point holds.
    static func archive(
        at point: JournalReplayPoint, fingerprint: String?
    ) throws -> HistoryArchive {
        switch point.result {
        case .failure(let problem): throw problem
        case .success(.archive(let archive)): return archive
        case .success(.models(let models)):
            var histories: [String: SavedHistory] = [:]
            for (name, model) in models { histories[name] = try model.savedHistory() }
            return HistoryArchive(fingerprint: fingerprint ?? point.record.fingerprint ?? "", histories: histories)
        }
    }
}
