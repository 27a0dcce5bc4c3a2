// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension ActionStack {
    /// One request for an awaited undo, redo or jump: queued while another operation is in flight,
    /// resolved when it starts, finished when its operation settles.
    ///
    /// A synchronous ``ActionStack/undo()``, ``ActionStack/redo()`` or ``ActionStack/jump(to:)`` that
    /// reaches a step with asynchronous actions starts a request and returns; it is then
    /// ``ActionStack/startedRequest``, and any number of tasks may await its ``value()``.
    ///
    /// A request is `Sendable`: its state is guarded by a lock, so a task on any isolation may
    /// await it, and the cancellation of the task that awaits it may come from any thread.
    public final class OperationRequest: @unchecked Sendable, CustomStringConvertible {
        /// What was requested.
        ///
        /// Extensible: new kinds of request may be added in any release; do not switch
        /// exhaustively. Compare with a static member (`kind == .undo`), and read what a kind
        /// carries through ``position`` and ``node``.
        public struct Kind: Hashable, Sendable {
            /// The kinds this version knows, with what each carries.
            enum Code: Hashable, Sendable {
                case undo
                case redo
                case jump(to: Int)
                case jumpToNode(HistoryNode.ID)
                case timeMove(TimeMove)
                case group
            }

            let code: Code

            private init(_ code: Code) { self.code = code }

            init(timeMove: TimeMove) { self.init(.timeMove(timeMove)) }

            /// An undo of the newest undo step when the request starts.
            public static var undo: Kind { Kind(.undo) }
            /// A redo of the newest redo step when the request starts.
            public static var redo: Kind { Kind(.redo) }
            /// A jump to a history position (see ``ActionStack/historyPosition``).
            ///
            /// - Parameter position: The history position.
            /// - Returns: The kind of request.
            public static func jump(to position: Int) -> Kind { Kind(.jump(to: position)) }
            /// A jump to a node of a branching history (``ActionStack/performJump(toNode:isolation:)``).
            ///
            /// - Parameter node: The node.
            /// - Returns: The kind of request.
            public static func jumpToNode(_ node: HistoryNode.ID) -> Kind { Kind(.jumpToNode(node)) }
            /// A move back in time by `count` changes (``ActionStack/earlier(_:)``), from where the
            /// document is when the request starts.
            ///
            /// - Parameter count: How many changes back.
            /// - Returns: The kind of request.
            public static func earlier(_ count: Int) -> Kind {
                Kind(.timeMove(TimeMove(forward: false, distance: .changes(count))))
            }
            /// A move forward in time by `count` changes (``ActionStack/later(_:)``), from where the
            /// document is when the request starts.
            ///
            /// - Parameter count: How many changes forward.
            /// - Returns: The kind of request.
            public static func later(_ count: Int) -> Kind {
                Kind(.timeMove(TimeMove(forward: true, distance: .changes(count))))
            }
            /// A move back in time by `duration` (``ActionStack/earlier(by:)``), from where the
            /// document is when the request starts.
            ///
            /// - Parameter duration: How far back.
            /// - Returns: The kind of request.
            public static func earlier(by duration: Duration) -> Kind {
                Kind(.timeMove(TimeMove(forward: false, distance: .duration(duration))))
            }
            /// A move forward in time by `duration` (``ActionStack/later(by:)``), from where the
            /// document is when the request starts.
            ///
            /// - Parameter duration: How far forward.
            /// - Returns: The kind of request.
            public static func later(by duration: Duration) -> Kind {
                Kind(.timeMove(TimeMove(forward: true, distance: .duration(duration))))
            }
            /// An asynchronous group (``ActionStack/asyncGroup(named:isolation:_:)``) recording its step.
            public static var group: Kind { Kind(.group) }

            /// For ``jump(to:)``, the history position; nil for every other kind.
            public var position: Int? {
                if case .jump(let position) = code { position } else { nil }
            }

            /// For ``jumpToNode(_:)``, the node; nil for every other kind.
            public var node: HistoryNode.ID? {
                if case .jumpToNode(let node) = code { node } else { nil }
            }
        }

        /// What was requested.
        public let kind: Kind

        private enum Phase {
            case waiting(CheckedContinuation<Void, Never>?)
            case granted
            case cancelled(CancellationReason)
            case finished(Result<Bool, OperationError>)
        }

        private let lock = NSLock()
        private var phase = Phase.waiting(nil)
        private typealias Awaiter = (id: UInt64, continuation: CheckedContinuation<Result<Bool, OperationError>, Never>)
        /// The tasks awaiting ``value()``, by a number of the request's own, so that the one whose
        /// task is cancelled can be told apart and woken alone.
        private var awaiters: [Awaiter] = []
        private var nextAwaiterID: UInt64 = 0

        init(_ kind: Kind) { self.kind = kind }

        /// Whether the request has finished (successfully or not).
        public var isFinished: Bool {
            lock.withLock {
                if case .finished = phase { return true }
                return false
            }
        }

        /// The request's outcome, once finished: whether it changed the history, or why it did not.
        public var result: Result<Bool, OperationError>? {
            lock.withLock {
                if case .finished(let result) = phase { return result }
                return nil
            }
        }

        /// Waits until the request finishes and returns whether it undid, redid or jumped (`false`
        /// when there was nothing to do), or throws why it did not.
        ///
        /// Cancelling the task that awaits here stops only the waiting: `value()` returns at once
        /// (also when the task was cancelled before it called it) and throws
        /// ``OperationError/cancelled(_:)`` with ``CancellationReason/task``, while the request
        /// itself goes on, untouched, to its end; ``result`` tells that end once ``isFinished``.
        /// A request that had already finished returns its result, cancelled awaiter or not.
        ///
        /// ```swift
        /// stack.undo()   // an Edit menu's undo: a step with an asynchronous action starts a request
        /// if let request = stack.startedRequest {
        ///     let waiting = Task { @MainActor in try await request.value() }
        ///     waiting.cancel()   // the window closes: stop waiting, not the undo
        /// }
        /// ```
        ///
        /// - Returns: Whether the request undid, redid or jumped.
        /// - Throws: Why it did not (``OperationError``), or ``OperationError/cancelled(_:)``
        ///   (``CancellationReason/task``) when the awaiting task was cancelled first.
        /// - Complexity: O(1) to start waiting; O(a) when cancelled, for the a tasks awaiting the
        ///   request.
        public func value() async throws(OperationError) -> Bool {
            let id: UInt64 = lock.withLock {
                nextAwaiterID &+= 1
                return nextAwaiterID
            }
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation {
                    (continuation: CheckedContinuation<Result<Bool, OperationError>, Never>) in
                    let now: Result<Bool, OperationError>? = lock.withLock {
                        if case .finished(let result) = phase { return result }
                        // Checked under the lock: a cancellation that comes after it finds the
                        // awaiter below; one that came before is seen here.
                        if Task.isCancelled { return .failure(.cancelled(.task)) }
                        awaiters.append((id, continuation))
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                stopWaiting(id)
            }
            return try result.get()
        }

        /// The task awaiting ``value()`` under `id` was cancelled: it stops waiting, with
        /// ``OperationError/cancelled(_:)``; the request goes on.
        private func stopWaiting(_ id: UInt64) {
            let continuation: CheckedContinuation<Result<Bool, OperationError>, Never>? = lock.withLock {
                guard let index = awaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return awaiters.remove(at: index).continuation
            }
            continuation?.resume(returning: .failure(.cancelled(.task)))
        }

        /// A sentence that says what happened.
        public var description: String { "OperationRequest(\(kind))" }

        // MARK: The queue's side

        /// Whether the request was granted its turn.
        var isGranted: Bool {
            lock.withLock {
                if case .granted = phase { return true }
                return false
            }
        }

        /// Why the request was cancelled while it waited, if it was.
        var cancellation: CancellationReason? {
            lock.withLock {
                if case .cancelled(let reason) = phase { return reason }
                return nil
            }
        }

        /// Parks the waiting task until the request is granted or cancelled (at once if it was).
        func park(_ continuation: CheckedContinuation<Void, Never>) {
            let resumeNow: Bool = lock.withLock {
                guard case .waiting = phase else { return true }
                phase = .waiting(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }

        /// Gives the request its turn; false when it was cancelled meanwhile.
        @discardableResult
        func grant() -> Bool {
            let parked: CheckedContinuation<Void, Never>?? = lock.withLock {
                guard case .waiting(let continuation) = phase else { return nil }
                phase = .granted
                return .some(continuation)
            }
            guard let parked else { return false }
            parked?.resume()
            return true
        }

        /// Cancels the request if it is still waiting; returns whether it was.
        @discardableResult
        func cancel(_ reason: CancellationReason) -> Bool {
            let parked: CheckedContinuation<Void, Never>?? = lock.withLock {
                guard case .waiting(let continuation) = phase else { return nil }
                phase = .cancelled(reason)
                return .some(continuation)
            }
            guard let parked else { return false }
            parked?.resume()
            return true
        }

        /// Finishes the request and wakes everybody awaiting its value.
        func finish(_ result: Result<Bool, OperationError>) {
            let waiting: [Awaiter] = lock.withLock {
                if case .finished = phase { return [] }
                phase = .finished(result)
                defer { awaiters = [] }
                return awaiters
            }
            for awaiter in waiting { awaiter.continuation.resume(returning: result) }
        }
    }
}

/// The request queue concern: the request whose operation is in flight and those waiting behind
/// it, in request order, under the busy policy.
///
/// Decide, then act: each event returns what the caller must do (wake a request, cancel some), so
/// that continuations are resumed only after the queue is consistent.
struct RequestQueue {
    typealias Request = ActionStack.OperationRequest

    /// The request that holds the turn (its operation may be starting, in flight or settling).
    private(set) var running: Request?
    /// The requests waiting for their turn, oldest first (from `head` on).
    private var waiting: [Request] = []
    private var head = 0

    /// How requests made while one runs are treated.
    var policy = ActionStack.BusyPolicy.default

    /// The number of requests waiting.
    var pendingCount: Int { waiting.count - head }

    /// Whether a request holds the turn.
    var isBusy: Bool { running != nil }

    /// What a new request gets.
    enum Admission {
        /// It holds the turn now.
        case runs
        /// It waits behind the others.
        case waits
        /// The busy policy refused it.
        case dropped(ActionStack.DropReason)
    }

    /// A new request arrives.
    ///
    /// - Complexity: O(1) amortized.
    mutating func admit(_ request: Request) -> Admission {
        guard running != nil else {
            running = request
            request.grant()
            return .runs
        }
        switch policy.code {
        case .dropWhileBusy:
            return .dropped(.busy)
        case .queue(let limit):
            guard pendingCount < Swift.max(limit, 0) else { return .dropped(.queueFull) }
            waiting.append(request)
            return .waits
        }
    }

    /// The running request finished: the next waiting one that is still waiting gets the turn.
    /// Returns it, for the caller to grant (already granted here, under the request's lock).
    ///
    /// - Complexity: O(1) amortized, plus O(c) for c requests cancelled meanwhile.
    mutating func finishRunning() -> Request? {
        running = nil
        while head < waiting.count {
            let next = waiting[head]
            head += 1
            compactIfNeeded()
            if next.grant() {
                running = next
                return next
            }
        }
        return nil
    }

    /// Takes every waiting request out of the queue, for the caller to cancel.
    ///
    /// - Complexity: O(w) for w waiting requests.
    mutating func removeAllWaiting() -> [Request] {
        let removed = Array(waiting[head...])
        waiting = []
        head = 0
        return removed
    }

    /// Takes `request` out of the queue if it waits there (its task was cancelled).
    ///
    /// - Complexity: O(w).
    mutating func remove(_ request: Request) {
        guard let index = waiting[head...].firstIndex(where: { $0 === request }) else { return }
        waiting.remove(at: index)
    }

    private mutating func compactIfNeeded() {
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
    }
}

@available(*, unavailable) extension RequestQueue: Sendable {}
