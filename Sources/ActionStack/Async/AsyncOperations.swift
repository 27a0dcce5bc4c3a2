// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The asynchronous-operations concern of one stack: the request queue, the operation in flight,
/// a broken step, and the slot through which an asynchronous action hands its work to the runner.
///
/// A stack makes it on its first asynchronous registration or operation; a stack that never uses
/// them has none, and its synchronous paths pay one `nil` check.
final class AsyncOperations {
    /// Requests, in request order.
    var queue = RequestQueue()
    /// The operation in flight, from its will-notification to its did- or fail-notification.
    var run: RunningOperation?
    /// The step whose rollback failed, until the app discards or retries it.
    var broken: BrokenMark?
    /// Where an asynchronous action, called synchronously by the runner, leaves its work.
    let slot = AsyncSlot()
    /// The request the last synchronous `undo()`, `redo()` or `jump(to:)` started.
    var startedRequest: ActionStack.OperationRequest?
    /// Whether the last operation to settle saw a new change from another task (a jump stops).
    var sawNewChangeInLastRun = false
    /// The awaited undo, redo or jump that holds the turn, whose own calls the state observers do
    /// not hear one by one (see `ActionStack.callIsHeard`); nil for an asynchronous group.
    var quietRequest: QuietRequest?

    /// Whether the running operation belongs to the current task (its own task or one it started).
    /// - Complexity: O(d) for d operations (of any stacks) nested in the current task; usually 1.
    func runBelongsToCurrentTask() -> RunningOperation? {
        guard let run, OperationChain.current?.contains(run.chainID) == true else { return nil }
        return run
    }
}

/// The request in progress whose own calls are heard only at its first step's start and at its end.
struct QuietRequest {
    /// The task-local chain of the request's task.
    let chain: UInt64
    /// Whether its first step's start has been heard.
    var startHeard = false
}

/// A step whose rollback failed: where it is, and why.
struct BrokenMark {
    /// The serial of the step (it stays on its side).
    var serial: UInt32
    /// Whether it is on the undo side.
    var isUndo: Bool
    var failure: ActionStack.ActionFailure
}

/// The work of one asynchronous action, left by its stored synchronous handler for the runner.
final class AsyncSlot {
    var work: (nonisolated(nonsending) () async throws -> Void)?

    /// Takes the work left since the last call.
    func take() -> (nonisolated(nonsending) () async throws -> Void)? {
        defer { work = nil }
        return work
    }
}

/// The chain of operations the current task runs handlers for, innermost first: a task-local value,
/// so that registrations made by an operation's handlers (after an `await`, in tasks they start)
/// are told apart from those of every other task.
final class OperationChain: Sendable {
    @TaskLocal static var current: OperationChain?

    let id: UInt64
    let parent: OperationChain?

    init(id: UInt64, parent: OperationChain?) {
        self.id = id
        self.parent = parent
    }

    func contains(_ id: UInt64) -> Bool {
        var link: OperationChain? = self
        while let current = link {
            if current.id == id { return true }
            link = current.parent
        }
        return false
    }
}

/// The numbers that name operations in task-local chains, unique in the process.
enum RunNumbers {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var last: UInt64 = 0

    static func next() -> UInt64 {
        lock.withLock {
            last &+= 1
            return last
        }
    }
}

/// One action of the step in flight, copied out of its side when the operation starts, with a
/// strong reference to its target's box (the side's own copy may be removed meanwhile).
struct PendingAction {
    let action: Action
    let box: TargetBox
}

/// The operation in flight: the step it performs, where it builds the opposite step, and what
/// happened meanwhile.
final class RunningOperation {
    enum Phase {
        case running
        case rollingBack
    }

    /// The direction of an undo or redo; nil for an asynchronous group recording its step.
    let direction: Direction?
    /// The serial of the step performed; it stays on its side until the operation succeeds.
    let serial: UInt32
    /// The step's document states when the operation started.
    let low: StateID
    let high: StateID
    /// The document state when the operation started.
    let stateBefore: StateID
    /// The step's metadata (name, discardable flag, user info).
    let metadata: StepMetadata?
    /// The serial of the newest step made before the operation started: steps made later on the
    /// undo side are new changes from other tasks.
    let serialMark: UInt32
    /// The step's actions, oldest first (rewritten in place by remote changes reported meanwhile).
    var pending: [PendingAction]
    /// The index in `pending` of the next action that has not started; -1 once every action has.
    var nextPendingIndex: Int
    /// Actions of `pending` that a remote change left with nothing to do: skipped.
    var deadPending: Set<Int> = []
    /// Remote changes reported meanwhile, as they read once every action of the step has run: they
    /// go to the step below when the operation succeeds.
    var carriedBelow: [any Sendable] = []
    /// Where the handlers' registrations build the opposite step.
    let built = Side()
    /// Where a rollback's inverses' registrations go, to be thrown away.
    let bin = Side()
    var phase = Phase.running
    /// A change was recorded by another task while the operation was in flight.
    var sawNewChange = false
    /// `removeAllActions()` was called while the operation was in flight.
    var removedAll = false
    /// Boxes whose actions `removeAllActions(withTarget:)` removed meanwhile: not run.
    var removedBoxes: [ObjectIdentifier] = []
    /// The targets `removeAllActions(withTarget:)` was called for meanwhile (weakly): what the
    /// operation's handlers register for them later is dropped, as the removal dropped the rest.
    var removedTargets: [WeakTarget] = []
    /// The clean marks made (by other tasks, or by `removeAllActions()`) while the step's actions
    /// were running, oldest first: each a new state that no node has (the document half changed),
    /// and the state the document was in before it. The document leaves them when the operation
    /// settles.
    var midwayMarks: [(mark: StateID, before: StateID)] = []
    /// Whether the step's actions have started running and the operation has not settled: the
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

    /// Names the operation in the task-local chain: a number never reused in the process, so a
    /// task that a handler started and that outlives the operation is never taken for a later one.
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

    /// The side that handler calls from the operation's task act on.
    var handlerSide: Side { phase == .rollingBack ? bin : built }

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

    /// Whether `removeAllActions(withTarget:)` was called for `target` while the operation was in
    /// flight.
    ///
    /// - Complexity: O(r) for the r targets removed meanwhile.
    func removedTarget(_ target: AnyObject) -> Bool {
        removedTargets.contains { $0.object === target }
    }

    var stepName: String { metadata?.name ?? "" }

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
}

/// A target held weakly.
struct WeakTarget {
    weak var object: AnyObject?
}

@available(*, unavailable) extension AsyncOperations: Sendable {}
@available(*, unavailable) extension WeakTarget: Sendable {}
@available(*, unavailable) extension AsyncSlot: Sendable {}
@available(*, unavailable) extension RunningOperation: Sendable {}
@available(*, unavailable) extension PendingAction: Sendable {}
@available(*, unavailable) extension BrokenMark: Sendable {}
