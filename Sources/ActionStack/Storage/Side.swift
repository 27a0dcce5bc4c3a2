// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// What a step carries besides its actions: its action name, discardable flag and user info.
///
/// Many steps carry nothing, so a step holds a reference that is nil until a setter runs. The
/// reference is shared when a step moves between the stacks; a setter copies it first unless it is
/// the only reference (copy on write).
final class StepMetadata {
    var name = ""
    var isDiscardable = false
    var userInfo: [ActionStack.UserInfoKey: Any] = [:]
    /// Whether the step holds an asynchronous action (see `registerAsyncUndo`): undoing it is an
    /// asynchronous operation.
    var holdsAsyncActions = false
    /// The remote changes this step has not been rebased over yet, oldest first, as they read in
    /// the document the step applies to (see `ActionStack.applyRemoteChange`).
    var unseenChanges: [any Sendable] = []

    init() {}

    var isEmpty: Bool {
        name.isEmpty && !isDiscardable && userInfo.isEmpty && !holdsAsyncActions && unseenChanges.isEmpty
    }

    func copy() -> StepMetadata {
        let copy = StepMetadata()
        copy.name = name
        copy.isDiscardable = isDiscardable
        copy.userInfo = userInfo
        copy.holdsAsyncActions = holdsAsyncActions
        copy.unseenChanges = unseenChanges
        return copy
    }
}

@available(*, unavailable) extension StepMetadata: Sendable {}

/// A closed top-level group: one undo (or redo) step. 28 bytes (a stride of 32), stored inline.
///
/// A step does not store where its actions start: steps are contiguous in their side's action
/// buffer, oldest first, so the newest step's actions end where the open frames begin and the
/// oldest step's start at the front. Every operation that needs a step's position reaches it from
/// one of those ends (or walks the steps in one pass).
struct Step {
    /// The actions the step holds (live or dead).
    var count: Int32
    /// Identifies the step while it stays on its side (a scoped group finds the step its own group
    /// became by it). A new number for every step made, wrapping after 2^32.
    var serial: UInt32
    /// Name, discardable flag, user info; nil when none was ever set.
    var metadata: StepMetadata?
    /// The document state with the step not applied.
    var low: StateID
    /// The document state with the step applied.
    var high: StateID
    /// With a branching history, the number of the node the step leads to (the state with the
    /// step applied): it travels with the step between the stacks. 0 in a linear history.
    var node: UInt32 = 0

    var actionCount: Int { Int(count) }
    var name: String { metadata?.name ?? "" }
    var isDiscardable: Bool { metadata?.isDiscardable ?? false }
}

/// An open group. Its items are the actions from `start` to the end of the side's held actions,
/// with the closed nested groups among them recorded in ``Side/nested``.
struct Frame {
    /// Absolute index of the frame's first action.
    var start: Int
    /// The document state when the frame opened.
    var low: StateID
    /// Identifies the frame (a scoped group finds its own frame by it).
    var id: UInt64
}

/// The open frames of a side, outermost first.
///
/// Frame 0 (the step being built) is stored inline and the nested frames in an array, so that
/// opening and closing a top-level group, which most steps are, costs no array operation (no
/// uniqueness check, no bounds check on the array's buffer).
struct FrameStack {
    /// The number of open frames.
    private(set) var count = 0
    /// Frame 0, when `count > 0`.
    private var outermost = Frame(start: 0, low: 0, id: 0)
    /// Frames 1 and up.
    private var nested: [Frame] = []

    var isEmpty: Bool {
        @inline(__always) get { count == 0 }
    }

    var indices: Range<Int> { 0..<count }

    /// Frame 0, if one is open.
    var first: Frame? { count == 0 ? nil : outermost }

    /// The frame at `index` (0 is the outermost).
    ///
    /// - Complexity: O(1).
    subscript(index: Int) -> Frame {
        @inline(__always) get {
            precondition(index >= 0 && index < count, "frame index out of range")
            return index == 0 ? outermost : nested[index &- 1]
        }
        @inline(__always) _modify {
            precondition(index >= 0 && index < count, "frame index out of range")
            if index == 0 {
                yield &outermost
            } else {
                yield &nested[index &- 1]
            }
        }
    }

    /// Opens `frame` as the innermost.
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    mutating func append(_ frame: Frame) {
        if count == 0 { outermost = frame } else { nested.append(frame) }
        count &+= 1
    }

    /// Removes and returns the innermost frame.
    ///
    /// - Complexity: O(1).
    @inline(__always) @discardableResult
    mutating func removeLast() -> Frame {
        precondition(count > 0, "removeLast with no open frame")
        count &-= 1
        return count == 0 ? outermost : nested.removeLast()
    }

    /// Closes every frame.
    ///
    /// - Complexity: O(1) (the nested frames are values).
    mutating func removeAll() {
        count = 0
        if !nested.isEmpty { nested.removeAll() }
    }

    /// The index of the innermost frame that satisfies `predicate`.
    ///
    /// - Complexity: O(count).
    func lastIndex(where predicate: (Frame) -> Bool) -> Int? {
        var index = count &- 1
        while index >= 0 {
            if predicate(self[index]) { return index }
            index &-= 1
        }
        return nil
    }
}

/// A closed group nested in an open frame: observable while its parent is open, because
/// `undoNestedGroup()` can undo it alone. Once the parent closes it is just part of the parent.
struct NestedGroup {
    /// Absolute index range of its actions.
    var start: Int
    var end: Int
    /// The index (in ``Side/frames``) of the open frame it is an item of.
    var parent: Int
    var low: StateID
    var high: StateID
    /// The id of the frame it was.
    var id: UInt64

    var count: Int { end - start }
}

/// One side of the history: the undo stack or the redo stack.
///
/// Actions are values in one ring buffer, oldest first: the closed steps' actions, then the open
/// frames' actions. Steps are values in a second ring buffer. Indices into the action buffer are
/// *absolute* (`base` is the absolute index of the oldest action), so trimming at the front moves no
/// index stored elsewhere.
///
/// Costs: appending an action or a step, removing the newest, and removing the oldest are O(1)
/// (amortized for appends); a removal pass over everything is O(n).
final class Side {
    @exclusivity(unchecked) var actions = RingBuffer<Action>()
    @exclusivity(unchecked) var steps = RingBuffer<Step>()
    /// The costs of the held actions, one per action in the same positions, kept only once a
    /// registration on this side has stated a cost (see `ActionStack.maximumCost`): most programs
    /// state none, and then an action is 24 bytes.
    @exclusivity(unchecked) var costs = RingBuffer<Int>()
    /// Whether `costs` is kept.
    @exclusivity(unchecked) var hasCosts = false
    /// Absolute index of `actions[0]`.
    @exclusivity(unchecked) var base = 0
    /// The open frames, outermost first.
    @exclusivity(unchecked) var frames = FrameStack()
    /// The closed groups nested in open frames, in order.
    @exclusivity(unchecked) var nested: [NestedGroup] = []
    /// Frame 0's metadata.
    @exclusivity(unchecked) var frameMetadata: StepMetadata?
    /// The sum of the costs of the held actions.
    @exclusivity(unchecked) var totalCost = CostTotal()
    /// Actions at the end of the buffer that belong to a step being performed: detached from the
    /// history, not yet run.
    @exclusivity(unchecked) var inFlight = 0

    /// Absolute index just past the last held action.
    @inline(__always)
    var end: Int { base &+ actions.count &- inFlight }

    /// Absolute index where the open frames' actions begin (`end` when nothing is open).
    @inline(__always)
    var openStart: Int { frames.isEmpty ? end : frames[0].start }

    /// The number of actions in the open frames.
    var openCount: Int { end - openStart }

    /// The number of closed steps.
    var closedCount: Int { steps.count }

    /// The action at absolute index `index`.
    @inline(__always)
    func action(at index: Int) -> Action { actions[index &- base] }

    /// The cost of the action at absolute index `index`.
    func cost(at index: Int) -> Int { hasCosts ? costs[index &- base] : 0 }

    /// Appends an action with its cost at the end.
    ///
    /// - Complexity: O(1) amortized; O(n) once, when the first cost is stated.
    @inline(__always)
    func append(_ action: consuming Action, cost: Int) {
        if cost > 0 && !hasCosts { startKeepingCosts() }
        actions.append(action)
        if hasCosts {
            // A negative cost counts as 0.
            let counted = Swift.max(cost, 0)
            costs.append(counted)
            totalCost.add(counted)
        }
    }

    /// Stores `handler` in place of the handler of the action at absolute index `index` (a command
    /// rewritten past a remote change); the target's box stays.
    ///
    /// - Complexity: O(1).
    func replaceHandler(at index: Int, with handler: @escaping (AnyObject) -> Void) {
        let old = actions[index &- base]
        actions[index &- base] = Action(box: old.unmanagedBox, handler: handler)
    }

    /// Removes the newest action (and its cost from the total).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func removeLastAction() -> Action {
        if hasCosts { totalCost.subtract(costs.removeLast()) }
        return actions.removeLast()
    }

    /// Removes the oldest action (and its cost from the total).
    ///
    /// - Complexity: O(1).
    func removeFirstAction() -> Action {
        if hasCosts { totalCost.subtract(costs.removeFirst()) }
        base &+= 1
        return actions.removeFirst()
    }

    /// Removes every held action and step, open frames included (nothing may be in flight).
    func removeAll() {
        precondition(inFlight == 0, "emptying a side while a step is in flight")
        actions.removeAll()
        costs.removeAll()
        hasCosts = false
        steps.removeAll()
        frames.removeAll()
        nested.removeAll()
        frameMetadata = nil
        totalCost = CostTotal()
        base = 0
    }

    private func startKeepingCosts() {
        for _ in 0..<actions.count { costs.append(0) }
        hasCosts = true
    }

    /// Absolute index of the first action of the newest closed step.
    var newestStepStart: Int {
        openStart - (steps.last.map { $0.actionCount } ?? 0)
    }

    /// Whether the step at `position` (0 = oldest), whose actions start at `start`, holds an action
    /// whose target is alive, or holds none (a do-nothing step). Looks newest first.
    ///
    /// - Complexity: O(1) when the step's newest action has a live target (the top step always has,
    ///   once the stack has looked at it: see `ActionStack.dropDeadSteps(atTopOf:)`); O(k) for k
    ///   freed actions before the first live one otherwise.
    func stepIsLive(at position: Int, start: Int) -> Bool {
        let step = steps[position]
        if step.count == 0 { return true }
        return hasLiveAction(from: start, to: start + step.actionCount)
    }

    /// The number of actions from `start` to `end` whose target is alive.
    ///
    /// - Complexity: O(end - start).
    func liveActionCount(from start: Int, to end: Int) -> Int {
        var count = 0
        for index in start..<end where action(at: index).isTargetAlive { count += 1 }
        return count
    }

    /// Whether any action from `start` to `end` has a live target; newest first.
    func hasLiveAction(from start: Int, to end: Int) -> Bool {
        var index = end - 1
        while index >= start {
            if action(at: index).isTargetAlive { return true }
            index -= 1
        }
        return false
    }
}

@available(*, unavailable) extension Side: Sendable {}

/// The exact sum of non-negative `Int` costs, which may pass `Int.max` (a cost may be as large as
/// `Int.max`): 128 bits, as two words, so adding and taking away are exact and never trap.
struct CostTotal: Equatable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// Adds a non-negative cost.
    ///
    /// - Complexity: O(1).
    mutating func add(_ cost: Int) {
        let (sum, carry) = low.addingReportingOverflow(UInt64(cost))
        low = sum
        if carry { high &+= 1 }
    }

    /// Takes away a cost that was added.
    ///
    /// - Complexity: O(1).
    mutating func subtract(_ cost: Int) {
        let (difference, borrow) = low.subtractingReportingOverflow(UInt64(cost))
        low = difference
        if borrow { high &-= 1 }
    }

    /// Adds another total.
    ///
    /// - Complexity: O(1).
    mutating func add(_ other: CostTotal) {
        let (sum, carry) = low.addingReportingOverflow(other.low)
        low = sum
        high &+= other.high &+ (carry ? 1 : 0)
    }

    /// Takes away a total that was added.
    ///
    /// - Complexity: O(1).
    mutating func subtract(_ other: CostTotal) {
        let (difference, borrow) = low.subtractingReportingOverflow(other.low)
        low = difference
        high &-= other.high &+ (borrow ? 1 : 0)
    }

    /// The sum of two totals.
    static func + (lhs: CostTotal, rhs: CostTotal) -> CostTotal {
        var sum = lhs
        sum.add(rhs)
        return sum
    }

    /// Whether the total is more than `limit` (a non-negative limit).
    func exceeds(_ limit: Int) -> Bool { high > 0 || low > UInt64(limit) }

    /// The total as text, for diagnostics.
    var description: String { high == 0 ? "\(low)" : "\(high) * 2^64 + \(low)" }
}
