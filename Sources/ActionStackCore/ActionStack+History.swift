// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// One step of the history, as a history panel shows it.
    public struct HistoryEntry {
        /// The step's action name (`""` when it has none).
        public var actionName: String
        /// The menu title the step has when it is next: "Undo Move" on the undo side, "Redo Move"
        /// on the redo side ("Undo"/"Redo" when it has no name).
        public var title: String
        /// The number of actions in the step, at any depth.
        public var actionCount: Int
        /// Whether the step is discardable.
        public var isDiscardable: Bool
        /// The step's user info.
        public var userInfo: [UserInfoKey: Any]
        /// Whether the document is clean right after this step (the step that was saved).
        public var isClean: Bool
        /// Whether the step is the open group being recorded (the first undo entry, when a group is
        /// open and ``undo()`` would close and undo it).
        public var isOpen: Bool
        /// In a branching history (``ActionStack/historyShape``), the node the step leads to; nil in a
        /// linear history and for the open group.
        public var node: HistoryNode.ID? = nil
        /// Whether the step can be saved with the history: every live action in it is a command
        /// (``UndoCommand``). The open group cannot. Saving stops at the first step that cannot be
        /// saved, walking outward from the current state (see ``ActionStack/savableDepth``).
        public var canBeSaved = false
        /// Whether the step is being undone or redone right now by an awaited operation
        /// (``ActionStack/performUndo(isolation:)``, an Edit menu's ``ActionStack/undo()`` of an
        /// asynchronous step, a step of a jump): it stays in its list until it has succeeded. A
        /// history panel may show it as pending. (A synchronous undo's step has left its list while
        /// its handlers run, and is not listed then.)
        public var isInFlight = false
        /// Whether the step is the broken one (``ActionStack/brokenStep``): its rollback failed, the
        /// document is partly changed, and undo, redo and jumps wait until the app retries or
        /// discards it.
        public var isBroken = false
    }

    /// The steps that ``undo()`` would undo, newest first (the next to undo is first). An open
    /// group is the first entry when ``undo()`` would close and undo it (always as Foundation
    /// counts it; with ``dropsEmptyGroups`` on, when it holds an action). The step an awaited
    /// operation is undoing is marked ``HistoryEntry/isInFlight``, and a broken step
    /// ``HistoryEntry/isBroken``.
    ///
    /// Read from a handler or an observer of an operation in progress, the entries are what they
    /// would be once freed targets are swept (nothing is removed while an operation runs): a step
    /// counts only the actions it would keep, and one left with none is not listed.
    ///
    /// - Complexity: O(s) for s steps, plus O(t) for t distinct targets to find freed ones (and
    ///   O(n) for the n stored actions when one was freed, or when read during an operation in
    ///   progress).
    public var undoEntries: [HistoryEntry] {
        enterCall()
        defer { leaveCall() }
        if mayDropFreedSteps { history.sweepFreedTargets() }
        var result: [HistoryEntry] = []
        // The document state right after each step, walking down from the current one; nil once
        // it is no longer a known state.
        var state: StateID? = history.states.current
        if openStepIsListed {
            let open = sweptOpenRegion()
            result.append(
                entry(undoSide.frameMetadata, count: open.kept, isUndoSide: true, state: state, isOpen: true, node: nil)
            )
            state = open.lostSome ? nil : undoSide.frames[0].low
        }
        let marks = stepMarks(undoSide: true)
        forEachSweptStep(of: undoSide) { step, kept, lostSome, start in
            var made = entry(step.metadata, count: kept, isUndoSide: true, state: state, isOpen: false, node: step.node)
            made.canBeSaved = stepHoldsOnlyCommands(undoSide, start: start, count: step.actionCount)
            if let marks { marks.mark(&made, serial: step.serial) }
            result.append(made)
            state = !lostSome && state == step.high ? step.low : nil
        }
        return result
    }

    /// The steps that ``redo()`` would redo, next to redo first. The step an awaited operation is
    /// redoing is marked ``HistoryEntry/isInFlight``, and a broken step ``HistoryEntry/isBroken``.
    ///
    /// - Complexity: O(s) for s steps, plus O(t) for t distinct targets (and O(n) for the n stored
    ///   actions when one was freed, or when read during an operation in progress).
    public var redoEntries: [HistoryEntry] {
        enterCall()
        defer { leaveCall() }
        if mayDropFreedSteps { history.sweepFreedTargets() }
        var result: [HistoryEntry] = []
        var state: StateID? = history.states.current
        let marks = stepMarks(undoSide: false)
        forEachSweptStep(of: redoSide) { step, kept, lostSome, start in
            state = !lostSome && state == step.low ? step.high : nil
            var made = entry(
                step.metadata, count: kept, isUndoSide: false, state: state, isOpen: false, node: step.node)
            made.canBeSaved = stepHoldsOnlyCommands(redoSide, start: start, count: step.actionCount)
            if let marks { marks.mark(&made, serial: step.serial) }
            result.append(made)
        }
        return result
    }

    /// The current position in the whole history: the number of steps that can be undone (the
    /// number of ``undoEntries``). Positions run from 0 (everything undone) to
    /// `undoEntries.count + redoEntries.count` (everything redone).
    ///
    /// - Complexity: O(t) for t distinct targets (O(n) for the n stored actions when one was freed,
    ///   or when read during an operation in progress).
    public var historyPosition: Int {
        enterCall()
        defer { leaveCall() }
        return sweptStepCount(of: undoSide) + (openStepIsListed ? 1 : 0)
    }

    /// Whether the document is clean at the start of the history (everything undone).
    ///
    /// - Complexity: O(s) for s steps, plus O(t) for t distinct targets (and O(n) for the n stored
    ///   actions when one was freed, or when read during an operation in progress).
    public var isCleanAtStart: Bool {
        enterCall()
        defer { leaveCall() }
        if mayDropFreedSteps { history.sweepFreedTargets() }
        var state: StateID? = history.states.current
        if openStepIsListed { state = sweptOpenRegion().lostSome ? nil : undoSide.frames[0].low }
        forEachSweptStep(of: undoSide) { step, _, lostSome, _ in
            state = !lostSome && state == step.high ? step.low : nil
        }
        return state == history.states.clean
    }

    /// Undoes or redoes as many steps as it takes to reach `position` (see ``historyPosition``),
    /// the way a click in a history panel does.
    ///
    /// A position out of range is clamped; the current position does nothing. Otherwise the one
    /// group open on the undo stack is closed first, as ``undo()`` does (with more than one open it
    /// is the misuse ``Misuse/nestedGroupsOpen(_:groupingLevel:)``). Backward, it undoes until as
    /// many steps are left to undo as `position` says; forward, it redoes until as many steps are
    /// left to redo as lie beyond `position` (so trimming to ``levelsOfUndo``, which keeps the
    /// position where it is, cannot stop it early). A step that performs nothing ends the jump.
    /// While registration is disabled each step builds nothing on the opposite stack, as ``undo()``
    /// and ``redo()`` then do: a jump forward redoes the same steps, and the position stays where
    /// it was. Each step posts its usual notifications; observers of ``observe(_:)`` and
    /// ``stateUpdates()`` hear of the jump once, at the end. Observers of the notifications cannot
    /// restructure the history during the jump. The jump is trimmed to ``levelsOfUndo`` and
    /// ``maximumCost`` once, when it ends (the open group it closes first, at once), not after
    /// each redo, as its awaited form ``performJump(to:isolation:)`` is: observers of a step's
    /// notifications see the steps redone so far untrimmed.
    /// From a handler or an observer of an operation in progress it is the misuse
    /// ``Misuse/reentrantCall(_:during:)``. Ends coalescing.
    ///
    /// - Parameter position: The position to reach.
    /// - Complexity: O(n) for the n actions of the steps undone or redone, plus O(t) per step for t
    ///   distinct targets (it checks for freed targets between steps, so that a step freed by a
    ///   handler cannot make it overshoot).
    public func jump(to position: Int) {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.jump) { return }
        if steps.usesAwaitedSteps, routesToAsyncOperation(.jump(to: position), .jump) { return }
        history.sweepFreedTargets()
        let current = undoSide.closedCount + (openStepIsListed ? 1 : 0)
        let total = current + redoSide.closedCount
        let target = Swift.max(0, Swift.min(position, total))
        guard target != current else { return }
        if refusesMoveWithNestedGroupsOpen(.jump) != nil { return }
        activities.push(.jumping)
        defer { activities.pop() }
        history.endCoalescing()
        closeTheOpenGroupBeforeMoving()
        if target < current {
            // Undo until `target` steps are left to undo.
            while true {
                history.sweepFreedTargets()
                guard undoSide.closedCount > target, undoNewest(checkpoint: true) else { break }
            }
        } else {
            // Redo until the redo stack is down to what lies beyond `target`.
            let remaining = total - target
            while true {
                history.sweepFreedTargets()
                guard redoSide.closedCount > remaining else { break }
                postCheckpoint()
                guard redoNewest() else { break }
            }
        }
    }

    // MARK: Internals

    /// The serials of the step in flight and of the broken step on one side, for the marks of the
    /// history entries and nodes; nil when there is neither.
    struct StepMarks {
        var inFlight: UInt32?
        var broken: UInt32?

        func mark(_ entry: inout HistoryEntry, serial: UInt32) {
            entry.isInFlight = serial == inFlight
            entry.isBroken = serial == broken
        }
    }

    /// The marks of one side (or of every side, for `undoSide` nil: the tree's nodes).
    func stepMarks(undoSide: Bool?) -> StepMarks? {
        guard steps.hasAwaitedStep || steps.broken != nil else { return nil }
        var marks = StepMarks()
        if let step = steps.inFlight, let direction = step.direction,
            undoSide == nil || undoSide == (direction == .undo)
        {
            marks.inFlight = step.serial
        }
        if let broken = steps.broken, undoSide == nil || undoSide == broken.isUndo { marks.broken = broken.serial }
        return marks.inFlight == nil && marks.broken == nil ? nil : marks
    }

    /// Whether the open group is the first undo entry: it is the step ``undo()`` would close and
    /// undo (as Foundation counts it, always; with ``dropsEmptyGroups`` on, when it holds an action).
    var openStepIsListed: Bool {
        !undoSide.frames.isEmpty
            && (!dropsEmptyGroups || undoSide.hasLiveAction(from: undoSide.openStart, to: undoSide.end))
    }

    /// Walks the closed steps of `side`, newest first, as a sweep of freed targets leaves them
    /// (section "Freed targets" of the docs): at idle the sweep has run, so each step is passed
    /// whole; during an operation in progress nothing may be removed, so the answer is computed as
    /// if: a step whose every action has a freed target is skipped (a step that held none stays),
    /// and one that lost some is passed with the number it keeps and `lostSome` (its far end would
    /// be a new state).
    ///
    /// - Complexity: O(s) for s steps at idle; O(n) for the n actions of `side` otherwise.
    func forEachSweptStep(
        of side: Side, _ body: (_ step: Step, _ kept: Int, _ lostSome: Bool, _ start: Int) -> Void
    ) {
        let idle = mayDropFreedSteps
        var end = side.openStart
        for position in stride(from: side.steps.count - 1, through: 0, by: -1) {
            let step = side.steps[position]
            let start = end - step.actionCount
            end = start
            if idle || step.count == 0 {
                body(step, step.actionCount, false, start)
                continue
            }
            let kept = side.liveActionCount(from: start, to: start + step.actionCount)
            if kept > 0 { body(step, kept, kept < step.actionCount, start) }
        }
    }

    /// The number of closed steps of `side` a sweep of freed targets leaves (see
    /// `forEachSweptStep(of:_:)`); sweeps first at idle.
    func sweptStepCount(of side: Side) -> Int {
        if mayDropFreedSteps {
            history.sweepFreedTargets()
            return side.closedCount
        }
        var count = 0
        forEachSweptStep(of: side) { _, _, _, _ in count += 1 }
        return count
    }

    /// The actions of the undo stack's open groups a sweep of freed targets leaves, and whether it
    /// would remove some (then frame 0 would no longer lead back to where it began).
    func sweptOpenRegion() -> (kept: Int, lostSome: Bool) {
        let held = undoSide.openCount
        guard !mayDropFreedSteps else { return (held, false) }
        let kept = undoSide.liveActionCount(from: undoSide.openStart, to: undoSide.end)
        return (kept, kept < held)
    }

    /// Whether every live action from `start` is a command.
    ///
    /// - Complexity: O(count).
    private func stepHoldsOnlyCommands(_ side: Side, start: Int, count: Int) -> Bool {
        for index in start..<start + count {
            let action = side.action(at: index)
            if action.box.commandKey == nil && action.isTargetAlive { return false }
        }
        return true
    }

    private func entry(
        _ metadata: StepMetadata?, count: Int, isUndoSide: Bool, state: StateID?, isOpen: Bool, node: NodeNumber?
    ) -> HistoryEntry {
        let name = metadata?.name ?? ""
        return HistoryEntry(
            actionName: name,
            title: isUndoSide ? undoMenuTitle(forUndoActionName: name) : redoMenuTitle(forUndoActionName: name),
            actionCount: count,
            isDiscardable: metadata?.isDiscardable ?? false,
            userInfo: metadata?.userInfo ?? [:],
            isClean: state == history.states.clean,
            isOpen: isOpen,
            node: history.tree == nil ? nil : node.map { HistoryNode.ID(sequence: Int($0)) }
        )
    }
}

@available(*, unavailable, message: "A history entry may hold non-Sendable user info.")
extension ActionStack.HistoryEntry: Sendable {}
