// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

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

/// The work of one asynchronous action, left by its stored synchronous handler for the runner.
final class AsyncSlot {
    var work: (nonisolated(nonsending) () async throws -> Void)?

    /// Takes the work left since the last call.
    func take() -> (nonisolated(nonsending) () async throws -> Void)? {
        defer { work = nil }
        return work
    }
}

/// The request in progress whose own calls are heard only at its first step's start and at its end.
struct QuietRequest {
    /// The task-local chain of the request's task.
    let chain: UInt64
    /// Whether its first step's start has been heard.
    var startHeard = false
}

@available(*, unavailable) extension AsyncSlot: Sendable {}
@available(*, unavailable) extension QuietRequest: Sendable {}
