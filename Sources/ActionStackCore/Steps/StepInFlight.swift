// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// One action of the awaited step in flight, copied out of its side when the step starts, with a
/// strong reference to its target's box (the side's own copy may be removed meanwhile).
struct PendingAction {
    let action: Action
    let box: TargetBox
}

/// The bookkeeping of an awaited step in flight (an undo or redo that awaits, or an asynchronous
/// group recording its step): the step it performs, where it builds the opposite step, and what
/// happened meanwhile. The storage of ``StepMachine``: the machine holds it from the step's
/// `begin` to its `ended`. The machine's events change its state; the stack reads it, and writes
/// the records of what its own calls did meanwhile (the action a rollback runs, the clean marks
/// made midway, the remote changes carried below the step), which the settle then reads.
///
/// A class, because the step outlives the call that began it: its runner holds it across its
/// awaits, while other calls (a removal by target, a remote change, a clean mark, another task's
/// change) note what happened to it. A synchronous undo or redo needs none of this (nothing can
/// come in while it runs): it allocates nothing.
final class StepInFlight {
    enum Phase {
        case running
        case rollingBack
    }

    /// The direction of an undo or redo; nil for an asynchronous group recording its step.
    let direction: Direction?
    /// The serial of the step performed; it stays on its side until the step succeeds.
    let serial: UInt32
    /// The step's document states when it started.
    let low: StateID
    let high: StateID
    /// The document state when the step started.
    let stateBefore: StateID
    /// The step's metadata (name, discardable flag, user info).
    let metadata: StepMetadata?
    /// The serial of the newest step made before the step started: steps made later on the undo
    /// side are new changes from other tasks.
    let serialMark: UInt32
    /// The step's actions, oldest first (rewritten in place by remote changes reported meanwhile).
    var pending: [PendingAction]
    /// The index in `pending` of the next action that has not started; -1 once every action has.
    var nextPendingIndex: Int
    /// Actions of `pending` that a remote change left with nothing to do: skipped.
    var deadPending: Set<Int> = []
    /// Remote changes reported meanwhile, as they read once every action of the step has run: they
    /// go to the step below when the step succeeds.
    var carriedBelow: [any Sendable] = []
    /// Where the handlers' registrations build the opposite step.
    let built = Side()
    /// Where a rollback's inverses' registrations go, to be thrown away.
    let bin = Side()
    var phase = Phase.running
    /// A change was recorded by another task while the step was in flight.
    var sawNewChange = false
    /// `removeAllActions()` was called while the step was in flight.
    var removedAll = false
    /// Boxes whose actions `removeAllActions(withTarget:)` removed meanwhile: not run.
    var removedBoxes: [ObjectIdentifier] = []
    /// The targets `removeAllActions(withTarget:)` was called for meanwhile (weakly): what the
    /// step's handlers register for them later is dropped, as the removal dropped the rest.
    var removedTargets: [WeakTarget] = []
    /// The clean marks made (by other tasks, or by `removeAllActions()`) while the step's actions
    /// were running, oldest first: each a new state that no node has (the document half changed),
    /// and the state the document was in before it. The document leaves them when the step
    /// settles.
    var midwayMarks: [(mark: StateID, before: StateID)] = []
    /// Whether the step's actions have started running and the step has not settled: the
    /// document is between the step's states.
    var isMidway = false
    /// For each action that ran: its index and the range of `built` its registrations took.
    var ranges: [(index: Int, start: Int, end: Int, ran: Bool)] = []
    /// Where the registrations of the action running now begin in `built`.
    var runningStart = 0
    /// Whether an action was skipped (its target's actions were removed meanwhile).
    var skippedAny = false
    /// The action the rollback took from `built` and is running (its target's box still counts it).
    var rollbackAction: Action?
    /// The type of the failed action's target, for the error.
    var failedTargetType = ""

    /// Names the step in the task-local chain: a number never reused in the process, so a task
    /// that a handler started and that outlives the step is never taken for a later one.
    let chainID: UInt64

    init(
        direction: Direction, step: Step, stateBefore: StateID, serialMark: UInt32,
        pending: [PendingAction], chainID: UInt64
    ) {
        self.chainID = chainID
        self.direction = direction
        self.serial = step.serial
        self.low = step.low
        self.high = step.high
        self.stateBefore = stateBefore
        self.metadata = step.metadata
        self.serialMark = serialMark
        self.pending = pending
        self.nextPendingIndex = pending.count - 1
    }

    /// An asynchronous group's recording: its body's registrations build `built`, a new step.
    init(recordingFrom state: StateID, serialMark: UInt32) {
        self.chainID = RunNumbers.next()
        self.direction = nil
        self.serial = 0
        self.low = state
        self.high = state
        self.stateBefore = state
        self.metadata = nil
        self.serialMark = serialMark
        self.pending = []
        self.nextPendingIndex = -1
    }

    /// Whether this is an asynchronous group recording its step (not an undo or redo).
    var isRecording: Bool { direction == nil }

    /// The side that handler calls from the step's task act on.
    var handlerSide: Side { phase == .rollingBack ? bin : built }

    var stepName: String { metadata?.name ?? "" }

    /// Whether every action ran with a live target, none skipped: the document then is where the
    /// step leads.
    var everyActionRan: Bool { !skippedAny && ranges.allSatisfy(\.ran) }

    /// The actions of `built` that `shouldRemove` matches are about to be removed (a removal by
    /// target, or all of them): the ranges, and the start of the action running now, keep only
    /// what is left of theirs. So a rollback still finds whose inverse each remaining action is,
    /// and knows that an action whose inverses are gone cannot be undone.
    ///
    /// - Complexity: O(n) for the n actions of `built`.
    func forgetBuiltActions(where shouldRemove: (Action) -> Bool) {
        let count = built.end - built.base
        guard count > 0 else { return }
        // removedBefore[o]: how many actions before offset o are removed.
        var removedBefore = [Int](repeating: 0, count: count + 1)
        for offset in 0..<count {
            removedBefore[offset + 1] =
                removedBefore[offset] + (shouldRemove(built.action(at: built.base + offset)) ? 1 : 0)
        }
        func moved(_ position: Int) -> Int {
            position - removedBefore[Swift.min(Swift.max(position - built.base, 0), count)]
        }
        for index in ranges.indices {
            ranges[index].start = moved(ranges[index].start)
            ranges[index].end = moved(ranges[index].end)
        }
        runningStart = moved(runningStart)
    }

    func isRemoved(_ box: TargetBox) -> Bool {
        removedBoxes.contains(ObjectIdentifier(box))
    }

    /// Whether `removeAllActions(withTarget:)` was called for `target` while the step was in
    /// flight.
    ///
    /// - Complexity: O(r) for the r targets removed meanwhile.
    func removedTarget(_ target: AnyObject) -> Bool {
        removedTargets.contains { $0.object === target }
    }
}

/// A target held weakly.
struct WeakTarget {
    weak var object: AnyObject?
}

/// A step whose rollback failed: where it is, and why.
struct BrokenMark {
    /// The serial of the step (it stays on its side).
    var serial: UInt32
    /// Whether it is on the undo side.
    var isUndo: Bool
    var failure: ActionStack.ActionFailure
}

@available(*, unavailable) extension WeakTarget: Sendable {}
@available(*, unavailable) extension StepInFlight: Sendable {}
@available(*, unavailable) extension PendingAction: Sendable {}
@available(*, unavailable) extension BrokenMark: Sendable {}
