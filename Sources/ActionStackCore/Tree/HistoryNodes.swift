// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A node's number: vim's change number. The root of a new tree is 0; every change made outside
/// undo and redo takes the next number, once.
package typealias NodeNumber = UInt32

/// What the tree knows of one node apart from the step that leads to it: its parent, when it was
/// made, and whether it still exists.
struct NodeRecord {
    var number: NodeNumber
    /// The parent's number; ``NodeTable/noParent`` for the root.
    var parent: NodeNumber
    /// When the change was made, as `Date.timeIntervalSinceReferenceDate`.
    var date: Double
    var isAlive: Bool
}

/// The nodes of a tree, in number order: a sorted buffer, so that a node is found by binary search,
/// the node made at or before a time by another, and the records of removed nodes are compacted
/// away once they are half of the buffer.
///
/// The records are in a ``RingBuffer`` (which only ever grows at its newest end here) rather than an
/// `Array`: every change in a tree appends one, and an `Array` in a class's property makes each
/// append check its uniqueness, keep the class alive around the call that may grow it, and copy
/// when it grows (about 80 instructions a change), where the ring buffer grows with `realloc`.
struct NodeTable: ~Copyable {
    static let noParent = NodeNumber.max

    private var records = RingBuffer<NodeRecord>()
    private var deadCount = 0

    /// The number of nodes.
    var count: Int { records.count - deadCount }

    /// Adds a node with a number greater than every other.
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    mutating func append(_ number: NodeNumber, parent: NodeNumber, date: Double) {
        records.append(NodeRecord(number: number, parent: parent, date: date, isAlive: true))
    }

    /// Whether the next append grows the table.
    var isFull: Bool { records.isFull }

    /// Grows the table when it is full.
    ///
    /// - Complexity: O(n).
    mutating func makeRoom() { records.makeRoom() }

    /// ``append(_:parent:date:)`` when the table is not full (it makes no call).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func appendInRoom(_ number: NodeNumber, parent: NodeNumber, date: Double) {
        records.appendInRoom(NodeRecord(number: number, parent: parent, date: date, isAlive: true))
    }

    /// The index of the record of `number`, alive or not.
    ///
    /// - Complexity: O(log n).
    private func index(of number: NodeNumber) -> Int? {
        let low = partition { $0.number < number }
        return low < records.count && records[low].number == number ? low : nil
    }

    /// The index of the first record for which `isBefore` is false (records are in number order,
    /// and so in date order; `isBefore` holds for a prefix).
    ///
    /// - Complexity: O(log n).
    private func partition(_ isBefore: (NodeRecord) -> Bool) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(records[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The number of the first existing node at or after index `start` going `down` (toward lower
    /// numbers) or up, passing over removed records.
    ///
    /// - Complexity: O(k) for k removed records passed over.
    private func firstAlive(from start: Int, down: Bool) -> NodeNumber? {
        var index = start
        while index >= 0 && index < records.count {
            if records[index].isAlive { return records[index].number }
            index += down ? -1 : 1
        }
        return nil
    }

    /// The record of a node that exists.
    ///
    /// - Complexity: O(log n).
    func record(_ number: NodeNumber) -> NodeRecord? {
        guard let index = index(of: number), records[index].isAlive else { return nil }
        return records[index]
    }

    func contains(_ number: NodeNumber) -> Bool { record(number) != nil }

    /// The parent of a node that exists (nil for the root and for a node that does not).
    ///
    /// - Complexity: O(log n).
    func parent(of number: NodeNumber) -> NodeNumber? {
        guard let record = record(number), record.parent != Self.noParent else { return nil }
        return record.parent
    }

    /// Gives a node a new parent.
    ///
    /// - Complexity: O(log n).
    mutating func setParent(of number: NodeNumber, to parent: NodeNumber) {
        guard let index = index(of: number) else { return }
        records[index].parent = parent
    }

    /// Removes a node.
    ///
    /// - Complexity: O(log n), and O(n) amortized over the removals that compact the array.
    mutating func remove(_ number: NodeNumber) {
        guard let index = index(of: number), records[index].isAlive else { return }
        records[index].isAlive = false
        deadCount += 1
        if deadCount > 16 && deadCount * 2 > records.count {
            // Slide the live records down over the removed ones, in order (a record is plain data).
            var kept = 0
            for position in 0..<records.count where records[position].isAlive {
                if kept != position { records.moveElement(from: position, to: kept) }
                kept += 1
            }
            records.forgetTail(from: kept)
            deadCount = 0
        }
    }

    /// Removes every node.
    mutating func removeAll() {
        records.removeAll()
        deadCount = 0
    }

    /// The greatest number of an existing node that is at most `number`, if any.
    ///
    /// - Complexity: O(log n + k) for k removed records passed over.
    func greatest(atMost number: NodeNumber) -> NodeNumber? {
        firstAlive(from: partition { $0.number <= number } - 1, down: true)
    }

    /// The smallest number of an existing node that is at least `number`, if any.
    ///
    /// - Complexity: O(log n + k) for k removed records passed over.
    func smallest(atLeast number: NodeNumber) -> NodeNumber? {
        firstAlive(from: partition { $0.number < number }, down: false)
    }

    /// The number of the newest node made at or before `date`, if any (dates never decrease with
    /// the numbers: see ``TreeStore/now()``).
    ///
    /// - Complexity: O(log n + k) for k removed records passed over.
    func newest(madeAtOrBefore date: Double) -> NodeNumber? {
        firstAlive(from: partition { $0.date <= date } - 1, down: true)
    }

    /// The number of the oldest node made at or after `date`, if any.
    ///
    /// - Complexity: O(log n + k) for k removed records passed over.
    func oldest(madeAtOrAfter date: Double) -> NodeNumber? {
        firstAlive(from: partition { $0.date < date }, down: false)
    }

    /// Adds `interval` to every node's date (their order is kept).
    ///
    /// - Complexity: O(n).
    mutating func shiftDates(by interval: Double) {
        for position in 0..<records.count { records[position].date += interval }
    }

    /// The existing nodes, in number order.
    var alive: [NodeRecord] {
        var list: [NodeRecord] = []
        list.reserveCapacity(count)
        for position in 0..<records.count where records[position].isAlive { list.append(records[position]) }
        return list
    }
}

extension NodeRecord: BitwiseMovable {}

/// A branch: a chain of redo steps that starts at its anchor node, off the current path.
///
/// Its side holds the steps as the redo stack holds them: the last step leads from the anchor to
/// the branch's first node, the first step to its deepest node.
final class Branch {
    /// The steps (a side with no open frame).
    let side: Side
    /// The node the branch leaves from.
    var anchor: NodeNumber
    /// When the branch was last left: the order of ``TreeStore/detachOrder``; the least recently
    /// visited branch has the smallest.
    var tick: UInt64

    init(side: Side, anchor: NodeNumber, tick: UInt64) {
        self.side = side
        self.anchor = anchor
        self.tick = tick
    }

    /// The number of the branch's first node (the anchor's child it leads to).
    var firstNode: NodeNumber { side.steps.last?.node ?? NodeTable.noParent }
}

@available(*, unavailable) extension Branch: Sendable {}

/// The branching-history concern of one stack (``ActionStack/historyShape`` `.tree`): the node
/// table, the branches off the current path by their anchor, and the order they were left in.
///
/// The current path itself is the undo stack (root to current node) and the redo stack (current
/// node down the branch visited last); each closed step carries the number of the node it leads
/// to. A branch holds steps exactly as the redo stack does, so entering one swaps its storage with
/// the redo stack's, and leaving one swaps it back: O(1), whatever its length.
final class TreeStore {
    // Stored properties are `@exclusivity(unchecked)`, as the stack's own are (see ActionStack):
    // a dynamic exclusivity check costs about 120 instructions per access, and making a node (every
    // change in a tree) modifies the table.

    /// The nodes.
    @exclusivity(unchecked) var table = NodeTable()
    /// The root's number.
    @exclusivity(unchecked) var root: NodeNumber
    /// The next node number.
    @exclusivity(unchecked) var nextNumber: NodeNumber
    /// The branches, by the node they leave from.
    @exclusivity(unchecked) var branches: [NodeNumber: [Branch]] = [:]
    /// The branches in the order they were left, oldest first, each with the tick it was left at;
    /// entries whose branch was entered or dropped since (their tick no longer matches, or they are
    /// no longer held) are skipped. A branch entered and left again has a newer entry: the old one
    /// must not make it look least recently visited.
    @exclusivity(unchecked) var detachOrder: [(branch: Branch, tick: UInt64)] = []
    /// The first entry of ``detachOrder`` not yet passed.
    @exclusivity(unchecked) var detachHead = 0
    /// The steps held in branches.
    @exclusivity(unchecked) var branchStepCount = 0
    /// The sum of the costs of the actions held in branches.
    @exclusivity(unchecked) var branchCost = CostTotal()
    /// The tick of the next branch left.
    @exclusivity(unchecked) var nextTick: UInt64 = 1
    /// The largest number of steps held in branches; 0 for no limit.
    @exclusivity(unchecked) var maximumBranchSteps = 0
    /// The date the last node was made, so that dates never decrease with the numbers.
    @exclusivity(unchecked) var lastDate: Double
    /// Moves through the tree in progress: pruning waits until they end, so that it never takes
    /// a branch the move is about to enter.
    @exclusivity(unchecked) var pruningHolds = 0
    /// Whether the redo stack is a redo future that a change another task made while an awaited
    /// operation ran has ended, to become a branch when the operation settles: until then it still
    /// leaves from the node the document was at when the change came (its first node's parent in
    /// the table), not from the current node. Set by that change, cleared when the operation
    /// settles (``History/endRedoFuture(afterNewChangesOf:maximumCost:restructuringAllowed:)``,
    /// ``History/finishRecorded(count:metadata:built:stateBefore:sawNewChange:maximumCost:restructuringAllowed:)``,
    /// ``History/settleFailedRecording(_:restored:maximumCost:restructuringAllowed:)``).
    @exclusivity(unchecked) var redoFutureIsEnding = false

    init(root: NodeNumber, date: Double) {
        self.root = root
        self.nextNumber = root &+ 1
        self.lastDate = date
        table.append(root, parent: NodeTable.noParent, date: date)
    }

    /// Makes a node, child of `parent`, dated `date` (or the last date, when the clock went back).
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    func makeNode(parent: NodeNumber, date: Double) -> NodeNumber {
        if table.isFull { makeRoom() }
        return makeNodeInRoom(parent: parent, date: date)
    }

    /// Grows the node table, ahead of ``makeNodeInRoom(parent:date:)``.
    ///
    /// - Complexity: O(n).
    @inline(never)
    func makeRoom() { table.makeRoom() }

    /// ``makeNode(parent:date:)`` when the table has room: it makes no call, so that a caller that
    /// reads the store from the stack's property need not retain it around one.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func makeNodeInRoom(parent: NodeNumber, date: Double) -> NodeNumber {
        let number = nextNumber
        nextNumber &+= 1
        if date > lastDate { lastDate = date }
        table.appendInRoom(number, parent: parent, date: lastDate)
        return number
    }

    /// A new clock, behind the dates held: the nodes keep the intervals between their dates, moved
    /// so that the newest date is `date`.
    ///
    /// - Complexity: O(n) for the n nodes.
    func redate(newestAt date: Double) {
        let interval = date - lastDate
        guard interval != 0 else { return }
        table.shiftDates(by: interval)
        lastDate = date
    }

    /// The branches that leave from `anchor` (a copy).
    func branches(at anchor: NodeNumber) -> [Branch] { branches[anchor] ?? [] }

    /// Adds `branch` to those that leave from its anchor, as the most recently left.
    ///
    /// - Complexity: O(1) amortized.
    func add(_ branch: Branch) {
        branch.tick = nextTick
        nextTick &+= 1
        branches[branch.anchor, default: []].append(branch)
        detachOrder.append((branch, branch.tick))
        branchStepCount += branch.side.steps.count
        branchCost.add(branch.side.totalCost)
    }

    /// Takes `branch` out of those held (to enter it, or to drop it).
    ///
    /// - Complexity: O(b) for the b branches that leave from its anchor.
    func remove(_ branch: Branch) {
        guard var list = branches[branch.anchor], let index = list.firstIndex(where: { $0 === branch }) else { return }
        list.remove(at: index)
        branches[branch.anchor] = list.isEmpty ? nil : list
        branchStepCount -= branch.side.steps.count
        branchCost.subtract(branch.side.totalCost)
        branch.tick = 0
        compactDetachOrderIfNeeded()
    }

    /// Whether `branch` is held.
    func holds(_ branch: Branch) -> Bool {
        branch.tick != 0 && branches[branch.anchor]?.contains { $0 === branch } == true
    }

    /// The least recently left branch held, if any.
    ///
    /// - Complexity: O(1) amortized (passed entries are never looked at again).
    func leastRecentlyLeft() -> Branch? {
        while detachHead < detachOrder.count {
            let (branch, tick) = detachOrder[detachHead]
            if branch.tick == tick, holds(branch) { return branch }
            detachHead += 1
        }
        return nil
    }

    /// Drops the passed entries of ``detachOrder`` once they are half of it.
    private func compactDetachOrderIfNeeded() {
        guard detachOrder.count > 32, detachHead * 2 > detachOrder.count else { return }
        detachOrder.removeFirst(detachHead)
        detachHead = 0
    }

    /// Every branch held.
    ///
    /// In the order of their anchors, then as they were left: a dictionary's order changes from
    /// process to process, and the passes that go through every branch (a save's rebase, a
    /// removal's compaction, the node table's resync) do their work in the same order in every run
    /// (the order in which branches that move join their new anchor's list, and so what a save
    /// writes). What they leave does not depend on it: a branch that leaves from the node of a
    /// step that goes moves at once (`History.moveBranches(leavingFromNodeOf:droppedFrom:below:)`),
    /// and the tests go through the branches in the reverse order too
    /// (`ActionStack._goesThroughBranchesInReverseOrder`).
    ///
    /// - Complexity: O(b log b) for the b anchors.
    var allBranches: [Branch] { branches.sorted { $0.key < $1.key }.flatMap(\.value) }

    /// Drops every record of ``detachOrder`` and recounts what branches hold (after a pass that
    /// changed them in place).
    func recount() {
        branchStepCount = 0
        branchCost = CostTotal()
        for branch in allBranches {
            branchStepCount += branch.side.steps.count
            branchCost.add(branch.side.totalCost)
        }
        detachOrder = detachOrder[detachHead...].filter { $0.branch.tick == $0.tick && holds($0.branch) }
        detachHead = 0
    }
}

@available(*, unavailable) extension TreeStore: Sendable {}

/// The settings of a stack's branching history, kept while the history is linear too.
struct TreeSettings {
    /// A change of ``ActionStack/historyShape`` asked for in the middle of a call, applied when the
    /// outermost call ends.
    var pendingShape: ActionStack.HistoryShape?
    /// ``ActionStack/maximumBranchSteps``.
    var maximumBranchSteps = 0
    /// ``ActionStack/historyClock`` once it is set; nil for the system clock.
    var clock: (@Sendable () -> Date)?
    /// ``ActionStack/_goesThroughBranchesInReverseOrder`` (a test hook).
    var reversesBranchPasses = false

    /// The time by the history clock, as `Date.timeIntervalSinceReferenceDate`. The system clock is
    /// read directly, with no closure call and no `Date`: this runs on every change in a tree.
    @inline(__always)
    func now() -> Double {
        guard let clock else { return Date.timeIntervalSinceReferenceDate }
        return clock().timeIntervalSinceReferenceDate
    }
}
