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
    /// Only ``actionFailed(_:)`` means that an action ran and failed; every other error means that
    /// the request changed nothing, except ``cancelled(_:)`` thrown by
    /// ``ActionStack/OperationRequest/value()`` to a task that stopped waiting, which says nothing of
    /// the request (it goes on).
    ///
    /// Extensible: new errors may be added in any release; do not switch exhaustively. Read what
    /// an error carries through its accessors (``actionFailure``, ``cancellationReason``,
    /// ``dropReason``, ``isStackBroken``, ``misuse``, ``historyTreeError``), as in
    /// `catch let error where error.actionFailure != nil` or `if let failure = error.actionFailure`.
    /// The ``description`` is stable.
    public struct OperationError: Error, CustomStringConvertible {
        /// The errors this version knows, with what each carries.
        enum Code {
            case actionFailed(ActionFailure)
            case cancelled(CancellationReason)
            case dropped(DropReason)
            case stackBroken
            case misuse(Misuse)
            case historyTree(HistoryTreeError)
        }

        let code: Code

        private init(_ code: Code) { self.code = code }

        /// An action of the step threw (or its task was cancelled while it ran). The step stays
        /// where it was; the failure says which action failed, why, and what the rollback did.
        ///
        /// - Parameter failure: The failure.
        /// - Returns: The error.
        public static func actionFailed(_ failure: ActionFailure) -> OperationError {
            OperationError(.actionFailed(failure))
        }

        /// The request was cancelled before it started: nothing ran. Thrown by
        /// ``ActionStack/OperationRequest/value()`` with ``CancellationReason/task``, it means instead
        /// that the awaiting task was cancelled and stopped waiting: the request goes on, and its
        /// ``ActionStack/OperationRequest/result`` tells how it ends.
        ///
        /// - Parameter reason: Why.
        /// - Returns: The error.
        public static func cancelled(_ reason: CancellationReason) -> OperationError {
            OperationError(.cancelled(reason))
        }

        /// The request was refused by the ``ActionStack/busyPolicy``: nothing ran.
        ///
        /// - Parameter reason: Why.
        /// - Returns: The error.
        public static func dropped(_ reason: DropReason) -> OperationError { OperationError(.dropped(reason)) }

        /// The stack holds a broken step (see ``ActionStack/brokenStep``): nothing ran until the app
        /// discards or retries it.
        public static var stackBroken: OperationError { OperationError(.stackBroken) }

        /// The call was a misuse (also reported through ``ActionStack/misusePolicy``): nothing ran.
        ///
        /// - Parameter misuse: The misuse.
        /// - Returns: The error.
        public static func misuse(_ misuse: Misuse) -> OperationError { OperationError(.misuse(misuse)) }

        /// A move in a branching history could not start (``ActionStack/performJump(toNode:isolation:)``
        /// in a linear history, or to a node that does not exist): nothing ran.
        ///
        /// - Parameter error: Why.
        /// - Returns: The error.
        public static func historyTree(_ error: HistoryTreeError) -> OperationError {
            OperationError(.historyTree(error))
        }

        /// For ``actionFailed(_:)``, which action failed, why, and what the rollback did; nil for
        /// every other error (nothing ran).
        public var actionFailure: ActionFailure? {
            if case .actionFailed(let failure) = code { failure } else { nil }
        }

        /// For ``cancelled(_:)``, why the request was cancelled; nil for every other error.
        public var cancellationReason: CancellationReason? {
            if case .cancelled(let reason) = code { reason } else { nil }
        }

        /// For ``dropped(_:)``, why the busy policy refused the request; nil for every other error.
        public var dropReason: DropReason? {
            if case .dropped(let reason) = code { reason } else { nil }
        }

        /// Whether this is ``stackBroken``.
        public var isStackBroken: Bool {
            if case .stackBroken = code { true } else { false }
        }

        /// For ``misuse(_:)``, the misuse; nil for every other error.
        public var misuse: Misuse? {
            if case .misuse(let misuse) = code { misuse } else { nil }
        }

        /// For ``historyTree(_:)``, why the move could not start; nil for every other error.
        public var historyTreeError: HistoryTreeError? {
            if case .historyTree(let error) = code { error } else { nil }
        }

        /// A sentence that says what happened.
        public var description: String {
            switch code {
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
    ///
    /// Extensible: new reasons may be added in any release; do not switch exhaustively. Compare
    /// with a static member (`reason == .task`). The ``rawValue`` and ``description`` are stable.
    public struct CancellationReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The reasons this version knows, by their sentence.
        private enum Name: String {
            case task = "its task was cancelled"
            case cancelPendingRequests = "cancelPendingRequests() was called"
            case removeAllActions = "removeAllActions() emptied the history"
            case newChange = "a new change was recorded while it waited"
            case brokenStep = "the operation before it left a broken step"
        }

        private let name: Name

        private init(_ name: Name) { self.name = name }

        /// The reason with this sentence, when this version knows it.
        ///
        /// - Parameter rawValue: The reason's sentence.
        public init?(rawValue: String) {
            guard let name = Name(rawValue: rawValue) else { return nil }
            self.init(name)
        }

        /// A sentence that says what happened.
        public var rawValue: String { name.rawValue }

        /// A sentence that says what happened.
        public var description: String { name.rawValue }

        /// The task awaiting the request was cancelled (from ``ActionStack/OperationRequest/value()``:
        /// only that task's waiting ended).
        public static var task: CancellationReason { CancellationReason(.task) }
        /// ``ActionStack/cancelPendingRequests()`` was called.
        public static var cancelPendingRequests: CancellationReason { CancellationReason(.cancelPendingRequests) }
        /// ``ActionStack/removeAllActions()`` emptied the history.
        public static var removeAllActions: CancellationReason { CancellationReason(.removeAllActions) }
        /// A new change was recorded while the request waited: it meant an older state.
        public static var newChange: CancellationReason { CancellationReason(.newChange) }
        /// The operation before it left a broken step, which stops the queue.
        public static var brokenStep: CancellationReason { CancellationReason(.brokenStep) }
    }

    /// Why the busy policy refused a request.
    ///
    /// Extensible: new reasons may be added in any release (with new busy policies); do not switch
    /// exhaustively. Compare with a static member (`reason == .busy`). The ``rawValue`` and
    /// ``description`` are stable.
    public struct DropReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The reasons this version knows, by their sentence.
        private enum Name: String {
            case busy = "an operation was in flight and the policy drops requests while busy"
            case queueFull = "the queue of pending requests was full"
        }

        private let name: Name

        private init(_ name: Name) { self.name = name }

        /// The reason with this sentence, when this version knows it.
        ///
        /// - Parameter rawValue: The reason's sentence.
        public init?(rawValue: String) {
            guard let name = Name(rawValue: rawValue) else { return nil }
            self.init(name)
        }

        /// A sentence that says what happened.
        public var rawValue: String { name.rawValue }

        /// A sentence that says what happened.
        public var description: String { name.rawValue }

        /// An operation was in flight and the policy is ``BusyPolicy/dropWhileBusy``.
        public static var busy: DropReason { DropReason(.busy) }
        /// The queue already held as many requests as ``BusyPolicy/queue(limit:)`` allows.
        public static var queueFull: DropReason { DropReason(.queueFull) }
    }

    /// What a rollback after a failed action achieved.
    ///
    /// Extensible: new outcomes may be added in any release; do not switch exhaustively. Read it
    /// through ``isRestored``, ``unrestoredActions``, ``failedActionIndex`` and ``error``. The
    /// ``description`` is stable.
    public struct Rollback: Sendable, CustomStringConvertible {
        /// The outcomes this version knows, with what each carries.
        enum Code {
            case restored
            case incomplete(unrestoredActions: [Int])
            case failed(actionIndex: Int, error: any Error)
        }

        let code: Code

        private init(_ code: Code) { self.code = code }

        /// Every action that had run was undone: the document is as it was before the operation.
        public static var restored: Rollback { Rollback(.restored) }

        /// Some actions that had run could not be undone (they registered no inverse, or their
        /// target was freed meanwhile). Their indices, in registration order, are listed; the
        /// document is in a new state, not the one before the operation, and not clean.
        ///
        /// - Parameter unrestoredActions: The indices of the actions that were not undone.
        /// - Returns: The outcome.
        public static func incomplete(unrestoredActions: [Int]) -> Rollback {
            Rollback(.incomplete(unrestoredActions: unrestoredActions))
        }

        /// An inverse run by the rollback threw: the step is broken (see ``ActionStack/brokenStep``).
        /// `actionIndex` is the index, in registration order, of the action whose inverse failed.
        ///
        /// - Parameters:
        ///   - actionIndex: The index of the action whose inverse failed.
        ///   - error: What the inverse threw.
        /// - Returns: The outcome.
        public static func failed(actionIndex: Int, error: any Error) -> Rollback {
            Rollback(.failed(actionIndex: actionIndex, error: error))
        }

        /// Whether this is ``restored``: the document is as it was before the operation.
        public var isRestored: Bool {
            if case .restored = code { true } else { false }
        }

        /// For ``incomplete(unrestoredActions:)``, the indices of the actions that were not undone;
        /// nil for every other outcome.
        public var unrestoredActions: [Int]? {
            if case .incomplete(let indices) = code { indices } else { nil }
        }

        /// For ``failed(actionIndex:error:)``, the index of the action whose inverse failed; nil for
        /// every other outcome.
        public var failedActionIndex: Int? {
            if case .failed(let index, _) = code { index } else { nil }
        }

        /// For ``failed(actionIndex:error:)``, what the inverse threw; nil for every other outcome.
        public var error: (any Error)? {
            if case .failed(_, let error) = code { error } else { nil }
        }

        /// A sentence that says what happened.
        public var description: String {
            switch code {
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
    ///
    /// Extensible: new policies may be added in any release; do not switch exhaustively. Read the
    /// queue's limit through ``queueLimit``.
    public struct BusyPolicy: Hashable, Sendable {
        /// The policies this version knows, with what each carries.
        enum Code: Hashable, Sendable {
            case queue(limit: Int)
            case dropWhileBusy
        }

        let code: Code

        private init(_ code: Code) { self.code = code }

        /// Queue the request behind the operation in flight, up to `limit` waiting requests; one
        /// more is refused with ``OperationError/dropped(_:)`` (``DropReason/queueFull``).
        ///
        /// - Parameter limit: The most requests that may wait.
        /// - Returns: The policy.
        public static func queue(limit: Int) -> BusyPolicy { BusyPolicy(.queue(limit: limit)) }

        /// Refuse every request made while an operation is in flight, with
        /// ``OperationError/dropped(_:)`` (``DropReason/busy``).
        public static var dropWhileBusy: BusyPolicy { BusyPolicy(.dropWhileBusy) }

        /// The default: queue up to 64 requests (a held-down key repeats about 30 times a second).
        public static let `default` = BusyPolicy.queue(limit: 64)

        /// For ``queue(limit:)``, the most requests that may wait; nil for every other policy.
        public var queueLimit: Int? {
            if case .queue(let limit) = code { limit } else { nil }
        }
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
