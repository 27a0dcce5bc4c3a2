// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Keeps an observation alive; cancel it, or let it go, to stop observing.
public final class ObservationToken {
    private weak var list: (any ObserverRemoving)?
    private let id: UInt64

    init(list: any ObserverRemoving, id: UInt64) {
        self.list = list
        self.id = id
    }

    /// Stops the observation. The observer hears nothing more, not even the rest of a delivery in
    /// progress. Cancelling touches only the observer list, not the stack: it publishes nothing
    /// to the other observers.
    ///
    /// - Complexity: O(1) amortized.
    public func cancel() {
        list?.removeObserver(id)
        list = nil
    }

    deinit { list?.removeObserver(id) }
}

@available(*, unavailable, message: "Use an observation token where the stack is used.")
extension ObservationToken: Sendable {}

/// Something an ``ObservationToken`` can remove an observer from.
protocol ObserverRemoving: AnyObject {
    func removeObserver(_ id: UInt64)
}

/// Observers of values of one type, in the order they were added.
///
/// Removal is O(1) amortized: a removed observer leaves an empty slot, and the slots are compacted
/// when more than half are empty. The list is guarded by a lock because an `AsyncStream` may end on
/// another thread (its consumer task cancelled) and must leave the list at once; everything else
/// happens in the stack's isolation domain.
final class ObserverList<Value>: ObserverRemoving, @unchecked Sendable {
    struct Entry {
        let id: UInt64
        let body: (Value) -> Void
        /// Called when the list itself goes away with the observer still in it (an `AsyncStream`
        /// finishes then).
        let onListEnd: (() -> Void)?
    }

    private let lock = NSLock()
    // Guarded by `lock`.
    private var slots: [Entry?] = []
    private var positions: [UInt64: Int] = [:]
    private var nextID: UInt64 = 0

    /// Whether the list has no observer.
    var isEmpty: Bool { lock.withLock { positions.isEmpty } }

    /// The number of observers.
    var count: Int { lock.withLock { positions.count } }

    /// Adds an observer; returns its id.
    func add(_ body: @escaping (Value) -> Void, onListEnd: (() -> Void)? = nil) -> UInt64 {
        lock.withLock {
            nextID += 1
            positions[nextID] = slots.count
            slots.append(Entry(id: nextID, body: body, onListEnd: onListEnd))
            return nextID
        }
    }

    func removeObserver(_ id: UInt64) {
        lock.withLock {
            guard let position = positions.removeValue(forKey: id) else { return }
            slots[position] = nil
            if slots.count >= 16 && positions.count * 2 < slots.count { compact() }
        }
    }

    /// Whether the observer `id` is still in the list.
    func contains(_ id: UInt64) -> Bool {
        lock.withLock { positions[id] != nil }
    }

    /// The observers now, in order.
    func current() -> [Entry] {
        lock.withLock { slots.compactMap { $0 } }
    }

    /// Calls every observer with `value`, in order; an observer removed meanwhile (by an earlier
    /// observer) is skipped, and one added meanwhile waits for the next value.
    func notify(_ value: Value) {
        for entry in current() where contains(entry.id) {
            entry.body(value)
        }
    }

    deinit {
        for entry in slots { entry?.onListEnd?() }
    }

    private func compact() {
        slots = slots.filter { $0 != nil }
        for (index, entry) in slots.enumerated() { positions[entry!.id] = index }
    }
}
