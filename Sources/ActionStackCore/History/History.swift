// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// What the history is: the undo and redo sides, the targets of their actions, the document states
/// and the clean point, the coalescing candidate, the branches of a branching history, the serials
/// of steps and frames, and the work put off until the outermost call ends.
///
/// One stack holds one history (``ActionStack/history``), and changes it only through the
/// operations here and in the extensions beside this file (the tree's upkeep, the limits, the
/// removals, the state renumbering, the rebuild of a restored history). Each operation keeps the history's rules by itself: a step put
/// on top of the undo side (or taken off it) ends coalescing, a step that goes takes its node, a
/// step that loses some of its actions no longer leads back to where it began, and the redo future
/// ends with a new change.
///
/// The history never posts a notification, never runs a handler and never reads the stack's
/// overridable settings: the stack passes what an operation needs (``HistoryLimits``, read through
/// `levelsOfUndo`'s getter; `maximumCost`; whether the history may be restructured now), or acts on
/// what an operation returns. The client code it can reach is the clocks it is handed (which only
/// read the time) and the deinitializers that releasing a stored action may run.
///
/// A final class, not a struct stored in the stack: releasing an action may free an object whose
/// deinitializer calls back into the stack (`removeAllActions(withTarget:)` in `deinit`, as on
/// Apple platforms); a struct's mutating operation would hold exclusive access to the history
/// across that call, while a class reads its fields again after it, as the stack always did.
final class History {
    // Stored properties are `@exclusivity(unchecked)`, as the stack's own are (see ActionStack): a
    // history is confined to its stack's isolation domain.

    /// The undo stack.
    let undoSide = Side()
    /// The redo stack.
    let redoSide = Side()
    /// The distinct targets of the stored actions.
    @exclusivity(unchecked) var registry = TargetRegistry()
    /// Document states and the clean point.
    @exclusivity(unchecked) var states = DocumentStates()
    /// Which step a coalescing registration may continue.
    @exclusivity(unchecked) var coalescer = Coalescer()
    /// The branching history: the node table and the branches off the current path. Nil while the
    /// history is linear (``ActionStack/historyShape``), so that a linear stack pays one `nil` check.
    @exclusivity(unchecked) var tree: TreeStore?
    /// The settings of the branching history, kept while it is linear too.
    @exclusivity(unchecked) var treeSettings = TreeSettings()
    /// The serial of the last step made.
    @exclusivity(unchecked) var nextStepSerial: UInt32 = 0
    /// The id of the next frame opened.
    @exclusivity(unchecked) var nextFrameID: UInt64 = 1
    /// Trimming (and a change of shape) was put off until the end of the outermost call: by a
    /// scope's body, an operation in flight, a move through the tree, or a limit set during an
    /// activity (see History+Limits.swift).
    @exclusivity(unchecked) var needsTrim = false
    /// The remote changes reported (``ActionStack/applyRemoteChange(_:version:_:)``), and how a
    /// rewritten command is stored again. Nil until the first, so that a history that never hears
    /// of one pays one `nil` check where steps go.
    @exclusivity(unchecked) var remote: RemoteChanges?
    /// What changed since a recorder last recorded the history (see ``HistoryChanges``): kept only
    /// while a ``HistoryRecorder`` watches, nil otherwise, so that a history nobody records pays one
    /// `nil` check where it changes.
    /// Called when the change tracker notes a change after its last drain (the stack sets it
    /// while a recorder of what changed listens, to look at the end of the call: see
    /// `ActionStack.addCallEndListener(onlyWhenHistoryMayHaveChanged:_:)`).
    var onChangeDue: (() -> Void)? {
        didSet { changes?.onDue = onChangeDue }
    }
    @exclusivity(unchecked) var changes: HistoryChanges? {
        didSet { tracksChanges = changes != nil }
    }
    /// Whether `changes` is set: the paths that change the history read this flag first, since
    /// binding the reference costs a retain and a release on every change nobody records.
    @exclusivity(unchecked) private(set) var tracksChanges = false

    init() {}
}

extension History {
    // MARK: Recording

    /// Records an action on `target` into the innermost open frame of `side` (one is open): the
    /// target's box is retained and the action appended with its cost. A change made outside undo
    /// and redo (`changesDocument`) puts the document in a new state. Returns the action's box and
    /// whether frame 0 held no action before it, for the coalescer (see
    /// ``coalescerSawRegistration(key:box:into:at:)``).
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    func record(
        _ target: AnyObject,
        _ handler: consuming @escaping (AnyObject) -> Void,
        cost: Int,
        commandKey: String?,
        on side: Side,
        changesDocument: Bool
    ) -> (box: Unmanaged<TargetBox>, frameWasEmpty: Bool) {
        let box =
            commandKey == nil
            ? registry.retainBox(for: target) : registry.retainCommandBox(for: target, key: commandKey!)
        let frameWasEmpty = side.end == side.frames[0].start
        side.append(Action(box: box, handler: handler), cost: cost)
        // Every change made outside undo and redo is a new document state.
        if changesDocument { _ = states.change() }
        return (box, frameWasEmpty)
    }

    /// A registration outside undo and redo landed in frame 0 of the undo side (`frameWasEmpty`:
    /// it held no action before): one with a coalescing `key` into an empty frame makes its step the
    /// candidate, one with the candidate's key and target keeps it, any other ends coalescing.
    /// `time` is read only when the candidate needs it.
    @inline(__always)
    func coalescerSawRegistration(
        key: String?, box: Unmanaged<TargetBox>, into frameWasEmpty: Bool,
        at time: @autoclosure () -> ContinuousClock.Instant
    ) {
        coalescer.registered(key: key, box: box, into: frameWasEmpty, at: time())
    }

    /// A coalescing registration continues the newest closed undo step (the coalescer allowed it):
    /// the action joins the step, which now leads to a new document state, and the candidate's
    /// time becomes `time` (read once the step has grown).
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    func joinNewestStep(
        _ target: AnyObject,
        _ handler: consuming @escaping (AnyObject) -> Void,
        cost: Int,
        commandKey: String?,
        at time: @autoclosure () -> ContinuousClock.Instant
    ) {
        let box = commandKey.map { registry.retainCommandBox(for: target, key: $0) } ?? registry.retainBox(for: target)
        undoSide.append(Action(box: box, handler: handler), cost: cost)
        undoSide.extendNewestStep(to: states.change())
        coalescer.joined(at: time())
    }

    // MARK: Coalescing and the clean point

    /// Ends coalescing where an operation's contract says so though the history's shape may not
    /// change (``ActionStack/redo()`` with nothing to redo, the start of a jump or of a move through
    /// the tree, ``ActionStack/selectRedoBranch(_:)``, ``ActionStack/breakCoalescing()``, the start
    /// of an asynchronous operation or group). Every operation of the history that changes the top
    /// of the undo side ends it by itself.
    ///
    /// - Complexity: O(1).
    func endCoalescing() { coalescer.clear() }

    /// Marks the document's state now clean. A step continued after it would leave the clean state
    /// behind, so coalescing ends: the next change is a step of its own.
    ///
    /// - Complexity: O(1).
    func markClean() {
        states.markClean()
        coalescer.clear()
        if tracksChanges, let changes { changes.noteChange() }
    }

    /// A change made elsewhere (a remote change) was applied to the document: it is in a new state,
    /// which this user never saved, and coalescing ends (the next registration starts a step of its
    /// own).
    ///
    /// - Complexity: O(1).
    func documentChangedElsewhere() {
        _ = states.change()
        coalescer.clear()
        // The remote version may have changed with it.
        if tracksChanges, let changes { changes.noteChange() }
    }

    /// Marks the document clean while an asynchronous operation is in the middle of its step: the
    /// half-changed document is a state no node has, so the document moves to a fresh state, which
    /// is marked. Returns the mark and the state it stands for, for the operation to put back when
    /// it settles (see ``leaveMidwayMarks(of:)``).
    ///
    /// - Complexity: O(1).
    func markCleanMidway() -> (mark: StateID, before: StateID) {
        let before = states.current
        states.move(to: states.fresh())
        markClean()
        return (states.current, before)
    }
}

extension History {
    // MARK: Steps and frames

    /// A new step, with a serial of its own.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func makeStep(
        count: Int, metadata: consuming StepMetadata?, low: StateID, high: StateID, node: NodeNumber = 0
    ) -> Step {
        nextStepSerial &+= 1
        return Step(count: Int32(count), serial: nextStepSerial, metadata: metadata, low: low, high: high, node: node)
    }

    /// Opens a frame on `side`, from the document's state now: frame 0 (a new step) when nothing is
    /// open, otherwise a frame nested in the innermost open one. A new step on top of the undo side
    /// ends coalescing: nothing older can be continued.
    ///
    /// - Complexity: O(1) amortized.
    @discardableResult
    func openFrame(on side: Side) -> Frame {
        let frame = Frame(start: side.end, low: states.current, id: nextFrameID)
        nextFrameID &+= 1
        if side.frames.isEmpty && side === undoSide {
            // A new step on top: nothing older can be continued.
            coalescer.clear()
        }
        side.openFrame(frame)
        return frame
    }

    /// Closes the innermost frame of `side`, which is nested: it becomes the last item of its
    /// parent, a closed group that leads to the document's state now.
    ///
    /// - Complexity: O(1) amortized.
    func closeNestedFrame(of side: Side) {
        side.closeNestedFrame(at: states.current)
    }

    /// Makes the step that frame 0 of `side` became when it closed (`frame`, whose actions are the
    /// newest `side.end - frame.start`, with its `metadata`), and returns its serial. It leads from
    /// where the frame began to the document's state now; on the undo side of a tree it leads to a
    /// new node, and what the redo stack holds then (groups nested in it and undone) is redone from
    /// that node, unless `redoFutureIsEnding` (read only in a tree): the step is another task's
    /// change made while an awaited operation ran, and the redo stack is the redo future that
    /// change ends, which becomes a branch from where it left when the operation settles. A group
    /// that holds nothing becomes a do-nothing step when `keepsEmpty`, and nothing otherwise (nil).
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    func appendClosedStep(
        from frame: Frame, metadata: consuming StepMetadata?, on side: Side, keepsEmpty: Bool,
        redoFutureIsEnding: @autoclosure () -> Bool
    ) -> UInt32? {
        let count = side.end - frame.start
        if count > 0 {
            let node = tree == nil || side !== undoSide ? 0 : makeChangeNode()
            side.appendStep(
                makeStep(count: count, metadata: consume metadata, low: frame.low, high: states.current, node: node))
            // What the redo stack holds here came from undoing groups nested in this one: it is
            // redone on top of the step.
            if node != 0, let top = redoSide.steps.last {
                if redoFutureIsEnding() {
                    tree?.redoFutureIsEnding = true
                } else {
                    tree?.table.setParent(of: top.node, to: node)
                }
            }
            return nextStepSerial
        }
        guard keepsEmpty else { return nil }
        let node = tree == nil || side !== undoSide ? 0 : makeChangeNode()
        side.appendStep(
            makeStep(count: 0, metadata: consume metadata, low: states.current, high: states.current, node: node))
        if node != 0, redoSide.holdsSomething, redoFutureIsEnding() { tree?.redoFutureIsEnding = true }
        return nextStepSerial
    }

    /// Places `step`, whose actions `built` holds (moved, oldest first), on `side` as its closed step
    /// at `place` (a position among the steps and the first action there): the steps and open frames
    /// above move up. An asynchronous operation or group settles so, below the changes other tasks
    /// recorded meanwhile. A step placed as the newest closed step of the undo side ends
    /// coalescing.
    ///
    /// - Complexity: O(n + a) for the n actions moved and the a actions and steps above `place`.
    func placeStep(_ step: Step, movedFrom built: Side, onto side: Side, at place: (position: Int, start: Int)) {
        if side === undoSide && place.position == side.steps.count { coalescer.clear() }
        side.lifting(stepsFrom: place.position, actionsFrom: place.start) {
            side.appendActions(movedFrom: built)
            side.appendStep(step)
        }
    }

    /// Takes the newest closed step of `side` out, leaving its actions at the end (a scoped group
    /// whose body closed the scope's own group, rolled back): on the undo side of a tree its node
    /// vanishes.
    ///
    /// - Complexity: O(1) (O(b log n) in a tree, for the b branches that left from its node).
    @discardableResult
    func takeNewestStep(of side: Side) -> Step {
        let step = side.removeLastStep()
        if tree != nil && side === undoSide { nodeVanished(step.node) }
        return step
    }

    /// Takes the newest closed step of `side` out for a rollback (a scoped group whose body closed
    /// the scope's own group): see ``takeNewestStep(of:)``. Returns how many actions it holds, at the
    /// end of `side`, and the state the document returns to when they all run: the state before it,
    /// except for a redo step that no longer ends where the document is (it lost actions), which
    /// leads to a new state.
    ///
    /// - Complexity: O(1) (O(b log n) in a tree).
    func takeNewestStepForRollback(of side: Side) -> (count: Int, farEnd: StateID) {
        let step = takeNewestStep(of: side)
        let farEnd = side === undoSide || step.high == states.current ? step.low : states.fresh()
        return (step.actionCount, farEnd)
    }

    /// Detaches the newest `count` actions of `side` for a rollback that runs them: they are in
    /// flight until they run. Taking actions out of the undo side changes the step being recorded:
    /// coalescing ends.
    ///
    /// - Complexity: O(1).
    func beginRollback(of count: Int, on side: Side) {
        if side === undoSide && count > 0 { coalescer.clear() }
        side.beginFlight(of: count)
    }

    /// A rollback ran the actions ``beginRollback(of:on:)`` detached: the document is back in
    /// `farEnd` when every action ran, in a new state otherwise.
    ///
    /// - Complexity: O(1).
    func finishRollback(everyActionRan: Bool, farEnd: StateID) {
        states.move(to: everyActionRan ? farEnd : states.fresh())
    }

    /// The document changed outside the history's own operations (a registration in the body of an
    /// asynchronous group, recorded on the group's own side; an awaited step that broke part-way,
    /// discarded or retried in vain): it is in a new state, which no step leads to and which is
    /// not clean.
    ///
    /// - Complexity: O(1).
    func documentChanged() { _ = states.change() }

    // MARK: Undo and redo

    /// Detaches the newest `group` of `source` for an undo or redo (see ``DetachedStep``): its
    /// actions stay at the end of `source`, in flight, until they run; the step the handlers build
    /// opens on `destination`, from `stateBefore`, carrying the group's metadata (moved, not
    /// copied). A closed nested group undone alone leads to a new node of a tree, between the
    /// current node and what the redo stack holds. Coalescing ends: an undo takes the newest undo
    /// step away, a redo builds a new one on top.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func detachNewest(
        _ group: ActionStack.NewestGroup, of source: Side, building destination: Side, from stateBefore: StateID
    ) -> DetachedStep {
        let count: Int
        let metadata: StepMetadata?
        let low: StateID
        let high: StateID
        // The node the step leads to travels with it (a branching history).
        var node: NodeNumber = 0
        switch group {
        case .newestStep:
            let step = source.removeLastStep()
            (count, low, high, node) = (step.actionCount, step.low, step.high, step.node)
            metadata = (consume step).metadata
        case .newestNested:
            let nested = source.removeLastNestedGroup()
            (count, low, high) = (nested.count, nested.low, nested.high)
            metadata = nil
            if let tree {
                // The redo step goes on top of the redo stack, as in a linear history: a node
                // between the current node and what the redo stack held.
                node = makeChangeNode()
                if let below = destination.steps.last?.node { tree.table.setParent(of: below, to: node) }
            }
        }
        source.beginFlight(of: count)
        // The undo side's top changes (its newest step leaves, or a step is built on it): nothing
        // older can be continued.
        coalescer.clear()
        let discardable = metadata?.isDiscardable ?? false
        openBuiltStep(on: destination, from: stateBefore, carrying: consume metadata)
        return DetachedStep(count: count, low: low, high: high, node: node, isDiscardable: discardable)
    }

    /// Opens the step an undo or redo builds (frame 0 of `side`), from `state`, carrying the
    /// `metadata` of the step performed; or the one an asynchronous group records (no metadata).
    /// The one open of a built step: a synchronous undo or redo builds it on the other side, an
    /// awaited one and an asynchronous group on a side of their own. (Nothing older can be
    /// continued: the caller ended coalescing.)
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func openBuiltStep(on side: Side, from state: StateID, carrying metadata: consuming StepMetadata?) {
        side.openFrame(Frame(start: side.end, low: state, id: nextFrameID), carrying: consume metadata)
        nextFrameID &+= 1
    }

    /// Closes what the handlers (or an asynchronous group's body) left open inside the step being
    /// built on `side`, then the step's own frame, silently; returns how many actions it holds and
    /// its metadata. The one close of a built step: a synchronous undo or redo builds it on the
    /// other side, an awaited one and an asynchronous group on a side of their own.
    ///
    /// - Complexity: O(f) for the f frames left open.
    @inline(__always)
    func closeBuiltStep(on side: Side) -> (count: Int, metadata: StepMetadata?) {
        while side.frames.count > 1 { closeNestedFrame(of: side) }
        let closed = side.closeOutermostFrame()
        return (side.end - closed.frame.start, closed.metadata)
    }
}

/// A step (or a closed nested group) detached from its side for an undo or redo (see
/// ``History/detachNewest(_:of:building:from:)``).
struct DetachedStep {
    /// The number of its actions, in flight at the end of its side.
    let count: Int
    /// The document states it leads between.
    let low: StateID
    let high: StateID
    /// The node it leads to (0 in a linear history).
    let node: NodeNumber
    /// Whether it is discardable.
    let isDiscardable: Bool
}

@available(*, unavailable) extension History: Sendable {}
