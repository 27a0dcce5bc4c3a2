// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

package import Foundation

// A recorded history as values: what a recorder's journal record says of one history
// (`JournalHistoryRecord`, its steps and operations), made by `JournalRecordMaker` from the live
// history's change log, and the history its records rebuild (`JournalHistoryModel`), with the
// history a full save would have saved at that record. The archive module writes and reads these
// values (`JournalRecordFormat.swift`) and applies the records (`JournalReplay.swift`); everything
// that reads the live history's storage or rebuilds a history is here (the rebuild through
// History's restore operations, History+Restore.swift), so that the archive reaches the core
// through these values only.
//
// The rebuild's save is the stack's own: the replayed chains are put into a stack that holds them
// as the recorded one did (each command on a stand-in for its target, each step that holds a
// closure as a step with an action that is not a command), and `savedHistory(maximumSteps:)` walks
// them, so that the recovered history and a full save agree by construction on what is saved, the
// nodes, the clean node and the omissions.

// MARK: - What a record holds

/// One step as a journal record holds it.
package struct JournalStep: Sendable {
    /// The document states without and with the step.
    package var low: StateID
    package var high: StateID
    /// The node it leads to (0 in a linear history) and its date (a branching history's).
    package var node: NodeNumber
    package var date: Double?
    package var name: String
    package var isDiscardable: Bool
    package var userInfo: [String: SavedValue]
    /// Whether the step holds an action registered as a closure: it cannot be saved, and its
    /// actions are not kept.
    package var holdsClosure: Bool
    package var actions: SavedActionList
    /// The step's serial in the stack that holds it (0 for a step read back): the recorder keeps
    /// each step's encoded commands under it.
    package var serial: UInt32 = 0
    /// Whether `actions` are only the last of the step's (a delta's step that grew).
    package var isPartial = false
    /// The commands of `actions`, as `JSONEncoder` writes each (the elements of a JSON array, joined
    /// by commas, without the brackets): known when the recorder encoded them for an earlier record
    /// and the step has not changed since, or once the writer encoded them; nil otherwise.
    package var encodedCommands: Data?

    package init(
        low: StateID, high: StateID, node: NodeNumber, date: Double?, name: String, isDiscardable: Bool,
        userInfo: [String: SavedValue], holdsClosure: Bool, actions: SavedActionList, serial: UInt32 = 0,
        isPartial: Bool = false, encodedCommands: Data? = nil
    ) {
        self.low = low
        self.high = high
        self.node = node
        self.date = date
        self.name = name
        self.isDiscardable = isDiscardable
        self.userInfo = userInfo
        self.holdsClosure = holdsClosure
        self.actions = actions
        self.serial = serial
        self.isPartial = isPartial
        self.encodedCommands = encodedCommands
    }
}

/// A chain of steps of a recorded history.
package enum JournalChainID: Hashable, Sendable {
    case undo
    case redo
    case branch(Int)
}

/// One operation of a record (see the format above).
package enum JournalOperation: Sendable, Equatable {
    case chain(JournalChainID, drop: Int, keep: Int, grow: Bool, push: Int)
    case newBranch(Int, anchor: NodeNumber)
    case fork(Int, anchor: NodeNumber)
    case enter(Int, anchor: NodeNumber, kept: Bool)
    case dropBranch(Int)
    case reanchor(Int, anchor: NodeNumber)
}

/// What one record says of one history.
package struct JournalHistoryRecord: Sendable {
    /// A snapshot's: the shape and the save limit.
    package var shape: ActionStack.HistoryShape?
    package var maximumSteps: Int?
    /// The fields that changed (all of them in a snapshot).
    package var current: StateID?
    package var clean: StateID?
    /// Whether the remote version is given (it may be given as none).
    package var setsRemoteVersion = false
    package var remoteVersion: String?
    package var root: NodeNumber?
    package var rootDate: Double?
    /// The number the next change gets (a branching history's), when it changed.
    package var nextNode: NodeNumber?
    package var operations: [JournalOperation] = []
    /// The steps the operations take, in order.
    package var steps: [JournalStep] = []

    package init() {}

    /// Whether it changes nothing.
    package var isEmpty: Bool {
        shape == nil && current == nil && clean == nil && !setsRemoteVersion && root == nil && rootDate == nil
            && nextNode == nil && operations.isEmpty
    }
}

/// The steps of one chain, oldest first, with O(1) drops from the bottom.
package struct JournalChain {
    private var storage: [JournalStep] = []
    private var head = 0

    package init() {}

    package var count: Int { storage.count - head }

    package subscript(index: Int) -> JournalStep {
        get { storage[head + index] }
        set { storage[head + index] = newValue }
    }

    /// The steps, oldest first.
    package var steps: ArraySlice<JournalStep> { storage[head...] }

    /// Takes `count` steps from the bottom (all of them when there are fewer).
    ///
    /// - Complexity: O(1) amortized.
    package mutating func drop(_ count: Int) {
        head += Swift.min(count, self.count)
        if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Keeps the first `count` steps.
    package mutating func keep(_ count: Int) {
        storage.removeLast(self.count - count)
    }

    package mutating func append(_ step: JournalStep) { storage.append(step) }
}

/// One history as a recorder's journal rebuilt it, record after record.
package struct JournalHistoryModel {
    package var shape: ActionStack.HistoryShape
    package var maximumSteps: Int
    package var current: StateID
    package var clean: StateID
    package var remoteVersion: String?
    package var root: NodeNumber
    package var rootDate: Double?
    /// The number the next change gets, as the last record that gave it said (nil: one above the
    /// largest node held, as in a journal written before records said it).
    package var nextNode: NodeNumber?
    package var undo = JournalChain()
    package var redo = JournalChain()
    /// The branches, by the recorder's number, with the node each leaves from.
    package var branches: [Int: (anchor: NodeNumber, chain: JournalChain)] = [:]

    /// The steps held, on every chain.
    package var stepCount: Int { undo.count + redo.count + branches.values.reduce(0) { $0 + $1.chain.count } }

    /// A history with the given fields and empty chains (a snapshot's record then fills them).
    package init(
        shape: ActionStack.HistoryShape, maximumSteps: Int, current: StateID, clean: StateID,
        remoteVersion: String?, root: NodeNumber, rootDate: Double?, nextNode: NodeNumber?
    ) {
        self.shape = shape
        self.maximumSteps = maximumSteps
        self.current = current
        self.clean = clean
        self.remoteVersion = remoteVersion
        self.root = root
        self.rootDate = rootDate
        self.nextNode = nextNode
    }

    // MARK: The history a save would save

    /// The history a full save of the recorded stack would have saved.
    ///
    /// - Throws: ``RecordedHistoryProblem`` when the chains are not a history a stack can hold (a
    ///   damaged journal).
    /// - Complexity: O(s log s + a) for the s steps and a actions held.
    package func savedHistory() throws -> SavedHistory {
        let stack = ActionStack()
        stack.misusePolicy = .report
        let history = stack.history
        var objects: [String: StandIn] = [:]
        let closureTarget = StandIn()
        func fill(_ side: Side, with chain: JournalChain) {
            for step in chain.steps {
                history.appendRestoredStep(
                    to: side, low: step.low, high: step.high, node: shape == .tree ? step.node : 0
                ) { actions in
                    if step.holdsClosure {
                        actions.append(on: closureTarget, commandKey: nil, cost: 0, handler: { _ in })
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
                            let stored = StoredAction(action: action)
                            actions.append(
                                on: object, commandKey: action.key, cost: action.cost,
                                handler: { capture in (capture as? CommandCapture)?.command = stored })
                        }
                    }
                    guard !step.name.isEmpty || step.isDiscardable || !step.userInfo.isEmpty else { return nil }
                    let made = StepMetadata()
                    made.name = step.name
                    made.isDiscardable = step.isDiscardable
                    for (key, value) in step.userInfo {
                        made.userInfo[ActionStack.UserInfoKey(rawValue: key)] = value.value
                    }
                    return made
                }
            }
        }
        fill(history.undoSide, with: undo)
        fill(history.redoSide, with: redo)
        if shape == .tree {
            let (nodes, nextNumber) = try treeNodes()
            var filled: [(side: Side, anchor: NodeNumber)] = []
            for number in branches.keys.sorted() {
                let branch = branches[number]!
                let side = Side()
                fill(side, with: branch.chain)
                filled.append((side, branch.anchor))
            }
            history.installRestoredTree(
                root: root, rootDate: rootDate ?? 0, nodes: nodes, branches: filled, nextNumber: nextNumber)
        }
        history.finishRestore(current: current, clean: clean)
        if let remoteVersion { stack.restoreRemoteVersion(remoteVersion) }
        var saved: SavedHistory
        do {
            saved = try withExtendedLifetime((objects, closureTarget)) {
                try stack.savedHistory(maximumSteps: maximumSteps)
            }
        } catch {
            throw RecordedHistoryProblem("the recorded history cannot be saved: \(error)")
        }
        // The stand-ins' commands are the recorded actions.
        for index in saved.steps.indices {
            var list = SavedActionList()
            for position in 0..<saved.steps[index].actionList.count {
                guard let stored = saved.steps[index].actionList.command(at: position) as? StoredAction else {
                    throw RecordedHistoryProblem("a recorded action was lost")
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

    /// The nodes of a branching history but its root, in number order: every step's node with its
    /// parent (the step before it on its chain, the chain's anchor for its first step) and date;
    /// and the number the next change gets.
    ///
    /// - Throws: ``RecordedHistoryProblem`` when they are not a tree (a node held twice, a branch
    ///   that leaves from no node held, a node that does not lead to the root) or the next number is
    ///   not above every node.
    /// - Complexity: O(n log n) for the n nodes.
    private func treeNodes() throws -> (nodes: [RestoredNode], nextNumber: NodeNumber) {
        var parent: [NodeNumber: NodeNumber] = [:]
        var date: [NodeNumber: Double] = [:]
        var nodes: Set<NodeNumber> = [root]
        func add(_ node: NodeNumber, parent up: NodeNumber, date when: Double?) throws {
            guard nodes.insert(node).inserted else { throw RecordedHistoryProblem("node \(node) is held twice") }
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
            throw RecordedHistoryProblem("a branch leaves from node \(branch.anchor), which is not held")
        }
        var leadsToRoot: Set<NodeNumber> = [root]
        for node in nodes {
            var walked: [NodeNumber] = []
            var at = node
            while !leadsToRoot.contains(at) {
                guard let next = parent[at], walked.count <= nodes.count else {
                    throw RecordedHistoryProblem("node \(node) does not lead to the root")
                }
                walked.append(at)
                at = next
            }
            leadsToRoot.formUnion(walked)
        }
        var nextNumber = (nodes.max() ?? root) &+ 1
        if let nextNode {
            // A record's next number below a node held is damage, not a choice.
            guard nextNode >= nextNumber else {
                throw RecordedHistoryProblem("the next node number \(nextNode) is not above every node held")
            }
            nextNumber = nextNode
        }
        let others = nodes.subtracting([root]).sorted().map {
            RestoredNode(number: $0, parent: parent[$0]!, date: date[$0]!)
        }
        return (others, nextNumber)
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

/// Why a recorded history cannot be rebuilt: its chains are not a history a stack can hold (a
/// damaged journal).
package struct RecordedHistoryProblem: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }
}
