// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Why an awaited undo, redo or jump did not complete (``ActionStack/performUndo(isolation:)``,
    /// ``ActionStack/performRedo(isolation:)``, ``ActionStack/performJump(to:isolation:)``).
    ///
    /// Only ``actionFailed(_:)`` means that an action ran and failed; every other case means that the
    /// request changed nothing, except ``cancelled(_:)`` thrown by ``ActionStack/OperationRequest/value()``
    /// to a task that stopped waiting, which says nothing of the request (it goes on).
    public enum OperationError: Error, CustomStringConvertible {
        /// An action of the step threw (or its task was cancelled while it ran). The step stays
        /// where it was; the failure says which action failed, why, and what the rollback did.
        case actionFailed(ActionFailure)
        /// The request was cancelled before it started: nothing ran. Thrown by
        /// ``ActionStack/OperationRequest/value()`` with ``CancellationReason/task``, it means instead
        /// that the awaiting task was cancelled and stopped waiting: the request goes on, and its
        /// ``ActionStack/OperationRequest/result`` tells how it ends.
        case cancelled(CancellationReason)
        /// The request was refused by the ``ActionStack/busyPolicy``: nothing ran.
        case dropped(DropReason)
        /// The stack holds a broken step (see ``ActionStack/brokenStep``): nothing ran until the app
        /// discards or retries it.
        case stackBroken
        /// The call was a misuse (also reported through ``ActionStack/misusePolicy``): nothing ran.
        case misuse(Misuse)
        /// A move in a branching history could not start (``ActionStack/performJump(toNode:isolation:)``
        /// in a linear history, or to a node that does not exist): nothing ran.
        case historyTree(HistoryTreeError)

        /// A sentence that says what happened.
        public var description: String {
            switch self {
            case .actionFailed(let failure): "\(failure)"
            case .cancelled(let reason): "the request was cancelled before it started (\(reason))"
            case .dropped(let reason): "the request was dropped (\(reason))"
            case .stackBroken:
                "the stack holds a broken step; call discardBrokenStep() or retryBrokenStep() first"
            case .misuse(let misuse): "\(misuse)"
            case .historyTree(let error): "\(error)"
            }
        }
    }

    /// Why a queued request was cancelled before it started.
    public enum CancellationReason: String, Hashable, Sendable, CustomStringConvertible {
        /// The task awaiting the request was cancelled (from ``ActionStack/OperationRequest/value()``:
        /// only that task's waiting ended).
        case task = "its task was cancelled"
        /// ``ActionStack/cancelPendingRequests()`` was called.
        case cancelPendingRequests = "cancelPendingRequests() was called"
        /// ``ActionStack/removeAllActions()`` emptied the history.
        case removeAllActions = "removeAllActions() emptied the history"
        /// A new change was recorded while the request waited: it meant an older state.
        case newChange = "a new change was recorded while it waited"
        /// The operation before it left a broken step, which stops the queue.
        case brokenStep = "the operation before it left a broken step"

        /// A sentence that says what happened.
        public var description: String { rawValue }
    }

    /// Why the busy policy refused a request.
    public enum DropReason: String, Hashable, Sendable, CustomStringConvertible {
        /// An operation was in flight and the policy is ``BusyPolicy/dropWhileBusy``.
        case busy = "an operation was in flight and the policy drops requests while busy"
        /// The queue already held as many requests as ``BusyPolicy/queue(limit:)`` allows.
        case queueFull = "the queue of pending requests was full"

        /// A sentence that says what happened.
        public var description: String { rawValue }
    }

    /// What a rollback after a failed action achieved.
    public enum Rollback: Sendable, CustomStringConvertible {
        /// Every action that had run was undone: the document is as it was before the operation.
        case restored
        /// Some actions that had run could not be undone (they registered no inverse, or their
        /// target was freed meanwhile). Their indices, in registration order, are listed; the
        /// document is in a new state, not the one before the operation, and not clean.
        case incomplete(unrestoredActions: [Int])
        /// An inverse run by the rollback threw: the step is broken (see ``ActionStack/brokenStep``).
        /// `actionIndex` is the index, in registration order, of the action whose inverse failed.
        case failed(actionIndex: Int, error: any Error)

        /// A sentence that says what happened.
        public var description: String {
            switch self {
            case .restored: "the rollback restored the document"
            case .incomplete(let indices): "the rollback could not undo actions \(indices)"
            case .failed(let index, let error): "the rollback failed undoing action \(index): \(error)"
            }
        }
    }

    /// Which action of a step failed, why, and what the rollback did.
    public struct ActionFailure: Error, Sendable, CustomStringConvertible {
        /// Whether the step was being undone or redone.
        public var isUndo: Bool
        /// The step's action name (`""` when it has none).
        public var stepName: String
        /// The failed action's index in registration order within the step (the first action
        /// registered is 0), whatever the order in which the actions ran.
        public var actionIndex: Int
        /// The number of actions in the step.
        public var actionCount: Int
        /// The type of the failed action's target.
        public var targetType: String
        /// What the action threw (a `CancellationError` when its task was cancelled).
        public var underlying: any Error
        /// What the rollback of the actions that had run achieved.
        public var rollback: Rollback
        /// For a jump: the history position it reached before the failing step (each completed step
        /// stays completed). `nil` for a single undo or redo.
        public var reachedPosition: Int?
        /// For a jump in a branching history: the node it reached before the failing step.
        public var reachedNode: HistoryNode.ID?

        /// A sentence that says what happened.
        public var description: String {
            let name = stepName.isEmpty ? "" : " \"\(stepName)\""
            return "\(isUndo ? "undoing" : "redoing") step\(name) failed at action \(actionIndex) of \(actionCount)"
                + " (target \(targetType)): \(underlying); \(rollback)"
                + (reachedPosition.map { "; the jump stopped at position \($0)" } ?? "")
                + (reachedNode.map { "; the jump stopped at node \($0)" } ?? "")
        }
    }

    /// What the stack does with an undo, redo or jump requested while an operation is in flight.
    public enum BusyPolicy: Hashable, Sendable {
        /// Queue the request behind the operation in flight, up to `limit` waiting requests; one
        /// more is refused with ``OperationError/dropped(_:)`` (``DropReason/queueFull``).
        case queue(limit: Int)
        /// Refuse every request made while an operation is in flight, with
        /// ``OperationError/dropped(_:)`` (``DropReason/busy``).
        case dropWhileBusy

        /// The default: queue up to 64 requests (a held-down key repeats about 30 times a second).
        public static let `default` = BusyPolicy.queue(limit: 64)
    }

    /// A step whose rollback failed: the document is partly changed and the stack cannot tell how.
    public struct BrokenStep: Sendable, CustomStringConvertible {
        /// Whether the step was being undone (it is on the undo stack) or redone (on the redo stack).
        public var isUndo: Bool
        /// The step's action name.
        public var stepName: String
        /// The failure that broke it.
        public var failure: ActionFailure

        /// A sentence that says what happened.
        public var description: String { "broken step: \(failure)" }
    }
}
