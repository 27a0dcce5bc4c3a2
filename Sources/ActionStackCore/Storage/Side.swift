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
/// Its fields are read anywhere and written only here: every change is one of the methods below,
/// each of which keeps the side's own invariants (the steps and frames account for every action,
/// the costs match the actions, a nested group lies in its open parent). What a change means for
/// the rest of the history (document states, the coalescer, the tree's nodes) is ``History``'s.
///
/// Costs: appending an action or a step, removing the newest, and removing the oldest are O(1)
/// (amortized for appends); a removal pass over everything is O(n).
final class Side {
    @exclusivity(unchecked) private(set) var actions = RingBuffer<Action>()
    @exclusivity(unchecked) private(set) var steps = RingBuffer<Step>()
    /// The costs of the held actions, one per action in the same positions, kept only once a
    /// registration on this side has stated a cost (see `ActionStack.maximumCost`): most programs
    /// state none, and then an action is 24 bytes.
    @exclusivity(unchecked) private(set) var costs = RingBuffer<Int>()
    /// Whether `costs` is kept.
    @exclusivity(unchecked) private(set) var hasCosts = false
    /// Absolute index of `actions[0]`.
    @exclusivity(unchecked) private(set) var base = 0
    /// The open frames, outermost first.
    @exclusivity(unchecked) private(set) var frames = FrameStack()
    /// The closed groups nested in open frames, in order.
    @exclusivity(unchecked) private(set) var nested: [NestedGroup] = []
    /// Frame 0's metadata.
    @exclusivity(unchecked) private(set) var frameMetadata: StepMetadata?
    /// The sum of the costs of the held actions.
    @exclusivity(unchecked) private(set) var totalCost = CostTotal()
    /// Actions at the end of the buffer that belong to a step being performed: detached from the
    /// history, not yet run.
    @exclusivity(unchecked) private(set) var inFlight = 0
    /// What changed in the closed steps since a recorder last took it (see ``HistoryChanges``);
    /// marked only while `collector` is set. It travels with the steps (``swapContents(with:)``).
    @exclusivity(unchecked) private(set) var changes = SideChanges()
    /// The history's change collector while a recorder watches; nil otherwise, so that a side nobody
    /// records pays one `nil` check per change to its steps. Not retained: the history holds it,
    /// and clears it here before letting it go.
    @exclusivity(unchecked) private(set) unowned(unsafe) var collector: HistoryChanges?
    /// Whether `collector` is set: the hot paths read this flag, since loading an unowned
    /// reference to compare it with nil costs a retain and a release.
    @exclusivity(unchecked) private(set) var isTracking = false
    /// Whether the collector lists this side among those with changes (not swapped with the steps).
    @exclusivity(unchecked) var isTouched = false

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

    /// Whether the side holds a step or an action (for the redo side: whether there is a redo
    /// future for a new change to end).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    var holdsSomething: Bool { actions.count != 0 || steps.count != 0 }

    /// The action at absolute index `index`.
    @inline(__always)
    func action(at index: Int) -> Action { actions[index &- base] }

    /// The cost of the action at absolute index `index`.
    func cost(at index: Int) -> Int { hasCosts ? costs[index &- base] : 0 }

    // MARK: Actions

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
        if isTracking { noteChanged(atStepHolding: index) }
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
        if isTracking && steps.count > 0 { noteChanged(at: 0) }
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

    // MARK: Actions in flight

    /// Detaches the newest `count` actions from the history for a step being performed: they stay
    /// at the end of the buffer, in flight, until ``takeActionInFlight()`` takes them, newest
    /// first.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func beginFlight(of count: Int) {
        inFlight = count
    }

    /// Takes the newest action in flight out of the buffer, to run it.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func takeActionInFlight() -> Action {
        let action = removeLastAction()
        inFlight &-= 1
        return action
    }

    // MARK: Steps

    /// Appends a closed step on top; its actions are the newest closed ones (the caller has
    /// appended them, or closed the frame that held them).
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    func appendStep(_ step: consuming Step) {
        if isTracking { noteChanged(at: steps.count) }
        steps.append(step)
    }

    /// Removes the newest closed step (not its actions).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    @discardableResult
    func removeLastStep() -> Step {
        if isTracking { noteChanged(at: steps.count - 1) }
        return steps.removeLast()
    }

    /// Removes the oldest closed step (not its actions, which the caller removes from the front).
    ///
    /// - Complexity: O(1).
    func removeFirstStep() -> Step {
        if isTracking { noteDroppedOldest() }
        return steps.removeFirst()
    }

    /// A registration joined the newest closed step (coalescing): its newest action, just
    /// appended, is the step's; the step now leads to `high`.
    ///
    /// - Complexity: O(1).
    func extendNewestStep(to high: StateID) {
        let last = steps.count - 1
        if isTracking { noteGrew(at: last) }
        steps[last].count += 1
        steps[last].high = high
    }

    /// Removes the newest action, which belongs to the newest closed step (no frame is open, nothing
    /// is in flight). The step loses it; when it was the step's only action the step goes too and is
    /// returned, otherwise its far end (the state before it on the undo side, after it on the redo
    /// side) becomes a new state from `fresh`, since it no longer leads back to where it began.
    ///
    /// - Complexity: O(1).
    func removeNewestActionOfNewestStep(
        isUndoSide: Bool, fresh: () -> StateID
    ) -> (action: Action, emptied: Step?) {
        let action = removeLastAction()
        let last = steps.count - 1
        if isTracking { noteChanged(at: last) }
        if steps[last].count == 1 { return (action, steps.removeLast()) }
        steps[last].count -= 1
        if isUndoSide { steps[last].low = fresh() } else { steps[last].high = fresh() }
        return (action, nil)
    }

    /// Makes the step at `position` lead from `low` and to `high` (each when given): the document
    /// states around it changed (a failed rollback, new changes made while an operation ran).
    ///
    /// - Complexity: O(1).
    func relinkStep(at position: Int, low: StateID? = nil, high: StateID? = nil) {
        if isTracking { noteFieldsChanged(at: position) }
        if let low { steps[position].low = low }
        if let high { steps[position].high = high }
    }

    /// Gives the step at `position` the node it leads to (`0` in a linear history).
    ///
    /// - Complexity: O(1).
    func assignNode(_ node: NodeNumber, toStepAt position: Int) {
        if isTracking { noteFieldsChanged(at: position) }
        steps[position].node = node
    }

    /// Adds `changes`, remote changes the step at `position` has not been rebased over, to what it
    /// holds of them (see `History+Rebasing.swift`); a change that can be merged with the one before
    /// it (``MergeableChange``) is.
    ///
    /// - Complexity: O(c) for the c changes, plus a copy of the metadata when it is shared.
    func deliverUnseenChanges(_ changes: [any Sendable], toStepAt position: Int, log: RemoteChangeLog) {
        guard !changes.isEmpty else { return }
        Self.update(&steps[position].metadata) { metadata in
            for change in changes { log.append(change, to: &metadata.unseenChanges) }
        }
    }

    /// Adds one remote change to what the step at `position` has not been rebased over (as
    /// ``deliverUnseenChanges(_:toStepAt:log:)``, without an array for one change).
    ///
    /// - Complexity: O(1) amortized, plus a copy of the metadata when it is shared.
    func deliverUnseenChange(_ change: any Sendable, toStepAt position: Int, log: RemoteChangeLog) {
        // As `update`, without its closure and its emptiness check: the metadata holds a change now.
        if !isKnownUniquelyReferenced(&steps[position].metadata) {
            steps[position].metadata = steps[position].metadata?.copy() ?? StepMetadata()
        }
        if let metadata = steps[position].metadata { log.append(change, to: &metadata.unseenChanges) }
    }

    /// Takes the remote changes the step at `position` has not been rebased over.
    ///
    /// - Complexity: O(1), plus a copy of the metadata when it is shared.
    func takeUnseenChanges(ofStepAt position: Int) -> [any Sendable] {
        guard let unseen = steps[position].metadata?.unseenChanges, !unseen.isEmpty else { return [] }
        Self.update(&steps[position].metadata) { $0.unseenChanges = [] }
        return unseen
    }

    /// Keeps only the actions of the newest closed step (whose actions start at `start`) that
    /// `keep` accepts, in their order; the others are passed to `release`. A step left with none is
    /// removed and returned; one that lost some no longer leads back to where it began (its far end
    /// becomes a new state from `fresh`). No frame is open and nothing is in flight.
    ///
    /// - Complexity: O(a) for the step's a actions.
    func filterNewestStep(
        from start: Int, isUndoSide: Bool, keep: (Int) -> Bool, release: (Action) -> Void, fresh: () -> StateID
    ) -> Step? {
        var kept: [(action: Action, cost: Int)] = []
        while end > start {
            let index = end - 1
            let cost = cost(at: index)
            let action = removeLastAction()
            if keep(index) { kept.append((action, cost)) } else { release(action) }
        }
        for entry in kept.reversed() { append(entry.action, cost: entry.cost) }
        let last = steps.count - 1
        if isTracking { noteChanged(at: last) }
        if kept.isEmpty { return steps.removeLast() }
        if kept.count < steps[last].actionCount {
            steps[last].count = Int32(kept.count)
            if isUndoSide { steps[last].low = fresh() } else { steps[last].high = fresh() }
        }
        return nil
    }

    /// Applies `change` to the newest closed step's metadata (see ``updateFrameMetadata(_:)``).
    ///
    /// - Complexity: O(1), plus a copy of the metadata when it is shared.
    func updateNewestStepMetadata(_ change: (StepMetadata) -> Void) {
        if isTracking { noteFieldsChanged(at: steps.count - 1) }
        Self.update(&steps[steps.count - 1].metadata, change)
    }

    // MARK: Frames

    /// Opens `frame` as the innermost: frame 0 (the step being built) when none is open.
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    func openFrame(_ frame: Frame) {
        frames.append(frame)
    }

    /// Opens `frame` as frame 0, the step an undo or redo builds, carrying `metadata` (the
    /// metadata of the step performed).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func openFrame(_ frame: Frame, carrying metadata: consuming StepMetadata?) {
        frames.append(frame)
        if metadata != nil { frameMetadata = metadata }
    }

    /// Applies `change` to frame 0's metadata: copied first unless this is its only reference (a
    /// step's metadata is shared with the step it was copied from when it moved between the
    /// stacks), made when there is none, and dropped when it is left with nothing set.
    ///
    /// - Complexity: O(1), plus a copy of the metadata when it is shared.
    func updateFrameMetadata(_ change: (StepMetadata) -> Void) {
        Self.update(&frameMetadata, change)
    }

    private static func update(_ metadata: inout StepMetadata?, _ change: (StepMetadata) -> Void) {
        if !isKnownUniquelyReferenced(&metadata) { metadata = metadata?.copy() ?? StepMetadata() }
        change(metadata!)
        if metadata!.isEmpty { metadata = nil }
    }

    /// Closes the innermost frame, which is nested: it becomes the last item of its parent, a
    /// closed nested group that leads to `state` (the document's state now) from where the frame
    /// began (from `state` itself when it holds nothing). What was nested inside it is now just
    /// part of it.
    ///
    /// - Complexity: O(1) amortized, plus O(k) for the k groups that were nested inside it.
    func closeNestedFrame(at state: StateID) {
        let frame = frames.removeLast()
        let parent = frames.count - 1
        while let last = nested.last, last.parent > parent { nested.removeLast() }
        let isEmpty = end == frame.start
        nested.append(
            NestedGroup(
                start: frame.start,
                end: end,
                parent: parent,
                low: isEmpty ? state : frame.low,
                high: state,
                id: frame.id
            )
        )
    }

    /// Closes frame 0, the only frame open, taking its metadata: the caller makes the step it
    /// becomes (its actions are the newest `end - frame.start`) or drops it.
    ///
    /// - Complexity: O(1), plus O(k) for the k nested groups it held.
    @inline(__always)
    func closeOutermostFrame() -> (frame: Frame, metadata: StepMetadata?) {
        let frame = frames.removeLast()
        if !nested.isEmpty { nested.removeAll() }
        return (frame, frameMetadata.take())
    }

    /// Removes the innermost frame without making it a group or a step (a scoped group's rollback
    /// runs its actions, which stay at the end): the groups nested in it go, and frame 0's
    /// metadata is returned when it was frame 0.
    ///
    /// - Complexity: O(1), plus O(k) for the k groups nested in it.
    func abandonInnermostFrame() -> (frame: Frame, metadata: StepMetadata?) {
        let frame = frames.removeLast()
        while let last = nested.last, last.parent >= frames.count { nested.removeLast() }
        return (frame, frames.isEmpty ? frameMetadata.take() : nil)
    }

    /// Forgets the open frames, their nested groups and their metadata, keeping their actions (a
    /// rollback runs them next).
    ///
    /// - Complexity: O(k) for the k nested groups.
    func abandonOpenFrames() {
        frames.removeAll()
        nested.removeAll()
        frameMetadata = nil
    }

    /// Removes the newest closed nested group (not its actions).
    ///
    /// - Complexity: O(1).
    @discardableResult
    func removeLastNestedGroup() -> NestedGroup {
        nested.removeLast()
    }

    /// Makes frame 0 lead from `state`: the document states before the group changed (steps
    /// placed below it).
    ///
    /// - Complexity: O(1).
    func relinkOutermostFrame(low state: StateID) {
        frames[0].low = state
    }

    /// The open frames lost actions: undoing them no longer leads back to where they began, so
    /// each begins at a new state from `fresh`.
    ///
    /// - Complexity: O(f) for the f open frames.
    func freshenOpenFrames(_ fresh: () -> StateID) {
        for index in frames.indices { frames[index].low = fresh() }
    }

    // MARK: Whole-side passes

    /// Renames every document state the side holds (its steps', frames' and nested groups'); with
    /// `position`, only the states of the steps from that position on (and the frames' and nested
    /// groups').
    ///
    /// - Complexity: O(s + f) for the s steps renamed and f frames and nested groups.
    func renameStates(fromStep position: Int = 0, _ rename: (StateID) -> StateID) {
        if isTracking && position < steps.count { noteChanged(at: position) }
        for position in position..<steps.count {
            steps[position].low = rename(steps[position].low)
            steps[position].high = rename(steps[position].high)
        }
        for index in frames.indices { frames[index].low = rename(frames[index].low) }
        for index in nested.indices {
            nested[index].low = rename(nested[index].low)
            nested[index].high = rename(nested[index].high)
        }
    }

    /// Removes the actions that `shouldRemove` matches, in one pass, with the groups this empties:
    /// a closed step or closed nested group that loses every action goes (one that held none stays),
    /// open frames stay. A step that loses some of its actions no longer leads back to where it
    /// began: its far end (on the undo side, `isUndoSide`, the state before it; otherwise the state
    /// after it) becomes a new state from `fresh`; so does the start of an open frame or nested
    /// group that loses some. Each removed action is passed to `release`; each step that goes for
    /// losing every action, to `dropped`, with the position the kept step below it now has plus one
    /// (0 when there is none).
    ///
    /// - Complexity: O(n) for the n actions held; moves each kept action at most once and allocates
    ///   only for the open frames' positions.
    @inline(__always)
    func compact(
        removing shouldRemove: (Action) -> Bool,
        isUndoSide: Bool,
        release: (Action) -> Void,
        fresh: () -> StateID,
        dropped: ((Step, Int) -> Void)? = nil
    ) {
        precondition(inFlight == 0, "compaction while a step is in flight")
        var read = 0
        var write = 0

        /// Processes `count` actions from `read`; returns how many were kept.
        func pass(_ count: Int) -> Int {
            var kept = 0
            for _ in 0..<count {
                if shouldRemove(actions[read]) {
                    release(actions.take(read))
                    if hasCosts { totalCost.subtract(costs[read]) }
                } else {
                    if write != read {
                        actions.moveElement(from: read, to: write)
                        if hasCosts { costs[write] = costs[read] }
                    }
                    write += 1
                    kept += 1
                }
                read += 1
            }
            return kept
        }

        // Closed steps, oldest first; rewritten in place.
        var stepWrite = 0
        let stepCount = steps.count
        // The position (among the steps kept) of the first step that lost actions or went.
        var firstChanged: Int?
        for position in 0..<stepCount {
            var step = steps[position]
            let kept = pass(step.actionCount)
            if kept == 0 && step.count > 0 {
                // The step goes: the caller hears of it, with the position of the kept step below it.
                if firstChanged == nil { firstChanged = stepWrite }
                dropped?(step, stepWrite)
                continue
            }
            if kept < step.actionCount {
                if firstChanged == nil { firstChanged = stepWrite }
                step.count = Int32(kept)
                if isUndoSide { step.low = fresh() } else { step.high = fresh() }
            }
            steps[stepWrite] = step
            stepWrite += 1
        }
        for _ in stepWrite..<stepCount { _ = steps.removeLast() }
        if isTracking, let firstChanged { noteChanged(at: firstChanged) }

        // The open frames' region: remember where each kept action lands, to move the frames and
        // the nested groups' boundaries.
        let openStart = base + read
        let openCount = actions.count - read
        if openCount > 0 || !frames.isEmpty {
            var newPosition = [Int](repeating: 0, count: openCount + 1)
            // removedFrom[o]: an action at offset o or later was removed.
            var removedFrom = [Bool](repeating: false, count: openCount + 1)
            for offset in 0..<openCount {
                newPosition[offset] = base + write
                removedFrom[offset] = pass(1) == 0
            }
            newPosition[openCount] = base + write
            if openCount > 0 {
                for offset in stride(from: openCount - 1, through: 0, by: -1) where removedFrom[offset + 1] {
                    removedFrom[offset] = true
                }
            }
            for index in frames.indices {
                let old = frames[index].start - openStart
                if removedFrom[old] { frames[index].low = fresh() }
                frames[index].start = newPosition[old]
            }
            var kept: [NestedGroup] = []
            for var group in nested {
                let oldStart = group.start - openStart
                let oldEnd = group.end - openStart
                let newStart = newPosition[oldStart]
                let newEnd = newPosition[oldEnd]
                let lostSome = newEnd - newStart < oldEnd - oldStart
                if lostSome && newEnd == newStart { continue }
                if lostSome { group.low = fresh() }
                group.start = newStart
                group.end = newEnd
                kept.append(group)
            }
            nested = kept
        }
        actions.forgetTail(from: write)
        if hasCosts { for _ in write..<costs.count { _ = costs.removeLast() } }
    }

    // MARK: Change tracking

    /// Starts marking the changes to the steps for `collector` (a recorder watches the history).
    func startTracking(_ collector: HistoryChanges) {
        self.collector = collector
        isTracking = true
        changes = SideChanges()
        isTouched = false
    }

    /// Stops marking changes.
    func stopTracking() {
        collector = nil
        isTracking = false
        changes = SideChanges()
        isTouched = false
    }

    /// Takes the changes marked since they were last taken.
    func takeChanges() -> SideChanges {
        defer { changes = SideChanges() }
        return changes
    }

    @inline(never)
    private func noteChanged(at position: Int) {
        changes.changed(at: position)
        collector.unsafelyUnwrapped.touch(self)
    }

    @inline(never)
    private func noteFieldsChanged(at position: Int) {
        changes.fieldsChanged(at: position)
        collector.unsafelyUnwrapped.touch(self)
    }

    @inline(never)
    private func noteGrew(at position: Int) {
        changes.grew(at: position)
        collector.unsafelyUnwrapped.touch(self)
    }

    @inline(never)
    private func noteDroppedOldest() {
        changes.droppedOldest()
        collector.unsafelyUnwrapped.touch(self)
    }

    /// The closed step holding the action at absolute index `index` changed (a command rewritten);
    /// an action of an open frame is in no step.
    ///
    /// - Complexity: O(k) for the k steps above it.
    @inline(never)
    private func noteChanged(atStepHolding index: Int) {
        var end = openStart
        var position = steps.count - 1
        while position >= 0 {
            let start = end - steps[position].actionCount
            if index >= start && index < end {
                noteChanged(at: position)
                return
            }
            end = start
            position -= 1
        }
    }

    // MARK: Reading

    /// Absolute index of the first action of the newest closed step.
    var newestStepStart: Int {
        openStart - (steps.last.map { $0.actionCount } ?? 0)
    }

    /// Whether the step at `position` (0 = oldest), whose actions start at `start`, holds an action
    /// whose target is alive, or holds none (a do-nothing step). Looks newest first.
    ///
    /// - Complexity: O(1) when the step's newest action has a live target (the top step always has,
    ///   once the stack has looked at it: see `History.dropDeadSteps(atTopOf:)`); O(k) for k
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

extension Side {
    /// The position and first action of the closed step with `serial`, looking from the newest.
    ///
    /// - Complexity: O(k) for the k steps above it.
    func locateStep(serial: UInt32) -> (position: Int, start: Int)? {
        var end = openStart
        var position = steps.count - 1
        while position >= 0 {
            let step = steps[position]
            let start = end - step.actionCount
            if step.serial == serial { return (position, start) }
            end = start
            position -= 1
        }
        return nil
    }

    /// The position and first action of the oldest of the newest closed steps made after the step
    /// with serial `mark` (serials grow by one per step made, wrapping); `steps.count` and
    /// `openStart` when the newest was made before.
    ///
    /// - Complexity: O(k) for the k steps made after.
    func firstStep(madeAfter mark: UInt32) -> (position: Int, start: Int) {
        var end = openStart
        var position = steps.count - 1
        while position >= 0 {
            let step = steps[position]
            let distance = step.serial &- mark
            guard distance != 0 && distance < 1 << 31 else { break }
            end -= step.actionCount
            position -= 1
        }
        return (position + 1, end)
    }

    /// Lifts the closed steps from `position` on, the actions from absolute index `start` on, and
    /// the open frames and nested groups above them; runs `body`, which changes only what lies
    /// below; then lays them back on top, their indices moved by what `body` added or removed.
    ///
    /// - Complexity: O(a + s) for the a actions and s steps lifted, plus `body`.
    func lifting(stepsFrom position: Int, actionsFrom start: Int, _ body: () -> Void) {
        if isTracking { noteChanged(at: position) }
        var liftedActions: [(action: Action, cost: Int)] = []
        while end > start {
            let cost = cost(at: end - 1)
            liftedActions.append((removeLastAction(), cost))
        }
        var liftedSteps: [Step] = []
        while steps.count > position { liftedSteps.append(steps.removeLast()) }
        body()
        let delta = end - start
        for lifted in liftedActions.reversed() { append(lifted.action, cost: lifted.cost) }
        for step in liftedSteps.reversed() { steps.append(step) }
        guard delta != 0 else { return }
        for index in frames.indices { frames[index].start += delta }
        for index in nested.indices {
            nested[index].start += delta
            nested[index].end += delta
        }
    }

    /// Moves every action `other` holds to the end of this side, oldest first, with its cost.
    ///
    /// - Complexity: O(n) for the n actions moved.
    func appendActions(movedFrom other: Side) {
        while other.actions.count > 0 {
            let cost = other.cost(at: other.base)
            append(other.removeFirstAction(), cost: cost)
        }
        other.removeAll()
    }
}

extension Side {
    /// Exchanges everything this side holds with everything `other` holds: how a branch becomes
    /// the redo stack, and the redo stack a branch.
    ///
    /// - Complexity: O(1).
    func swapContents(with other: Side) {
        precondition(inFlight == 0 && other.inFlight == 0, "swapping a side while a step is in flight")
        swap(&actions, &other.actions)
        swap(&steps, &other.steps)
        swap(&costs, &other.costs)
        swap(&hasCosts, &other.hasCosts)
        swap(&base, &other.base)
        swap(&frames, &other.frames)
        swap(&nested, &other.nested)
        swap(&frameMetadata, &other.frameMetadata)
        swap(&totalCost, &other.totalCost)
        // What changed travels with the steps; both sides are looked at by the next record.
        swap(&changes, &other.changes)
        if isTracking, let collector {
            if !changes.isEmpty { collector.touch(self) }
            if !other.changes.isEmpty { collector.touch(other) }
        }
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
