// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

extension HistoryJournal {
    /// When an appended record reaches the disk, not only the system's cache.
    ///
    /// Whatever the choice, a record that ``HistoryJournal/append(_:fingerprint:)`` wrote is in the
    /// system's cache when the append returns, so it survives the app's crash (the kernel writes it
    /// out); the choice says when it also survives a crash of the system or a power loss, and what
    /// each change pays for that. A record is whole or ignored in every case: a torn last record is
    /// dropped at the next read. Whatever the choice, the first append to a new file (a new journal,
    /// or one after ``HistoryJournal/reset()``) also flushes the file's directory, once, in the
    /// caller's thread, so that the file's name survives with its first record.
    ///
    /// | Choice | A record is on the disk | Cost per append, besides the write |
    /// |---|---|---|
    /// | ``everyAppend`` | when the append returns | a flush (`fsync`): typically 0.1 to a few ms on an SSD, in the caller's thread |
    /// | ``within(_:)`` | at most the interval after the append | none; one flush per interval, on a background dispatch queue |
    /// | ``system`` | when the system writes its cache (Linux: within about 30 s) | none |
    ///
    /// A structure with static members rather than an enumeration, so that a later choice can be
    /// added without breaking a client's `switch`.
    public struct Durability: Hashable, Sendable, CustomStringConvertible {
        /// The choices.
        enum Kind: Hashable, Sendable {
            case everyAppend
            case within(Duration)
            case system
        }

        /// Which choice this is.
        let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// Each append is flushed to the disk before it returns (`fsync`; `F_FULLFSYNC` on Apple
        /// platforms). The default.
        public static let everyAppend = Durability(.everyAppend)

        /// Each append returns once the record is in the system's cache, and the journal flushes
        /// its file on a background dispatch queue at most `interval` after the append: one flush
        /// for all the records appended to it meanwhile. The flush happens even when the journal
        /// has been released meanwhile; it does not survive the app's exit (the system then writes
        /// the records when it writes its cache). A flush that fails is not lost: the next append
        /// flushes before it returns, and throws what the flush throws (see
        /// ``HistoryJournal/append(_:fingerprint:)``). ``HistoryJournal/synchronize()`` flushes at
        /// once (an app going to the background, a document closing). An interval of zero or less
        /// flushes as soon as the queue runs.
        ///
        /// - Parameter interval: The longest a record waits for its flush.
        /// - Returns: The choice.
        public static func within(_ interval: Duration) -> Durability { Durability(.within(interval)) }

        /// Each append returns once the record is in the system's cache; when it reaches the disk
        /// is left to the system (or to ``HistoryJournal/synchronize()``).
        public static let system = Durability(.system)

        /// The interval of ``within(_:)``; nil for the other choices.
        public var interval: Duration? {
            if case .within(let interval) = kind { return interval }
            return nil
        }

        /// `.everyAppend`, `.within(…)` or `.system`.
        public var description: String {
            switch kind {
            case .everyAppend: ".everyAppend"
            case .within(let interval): ".within(\(interval))"
            case .system: ".system"
            }
        }
    }
}

/// A ``HistoryJournal``'s flushes to the disk under ``HistoryJournal/Durability/within(_:)``:
/// at most one waits at a time, scheduled by the first append after the last flush, so that every
/// record appended meanwhile is flushed by it. Holds no reference to the journal.
///
/// The flag is cleared before the flush starts, under the lock: an append that finds a flush
/// scheduled wrote its record before that flush begins, so the flush covers it; one that finds none
/// schedules the next. A flush that fails is remembered, and the next append flushes before it
/// returns, so that its caller hears of it.
final class JournalFlusher: @unchecked Sendable {
    private let lock = NSLock()
    /// Under `lock`: whether a flush waits on the queue; whether the last deferred flush failed;
    /// the flushes made (a test hook); a failure to inject into the next deferred flush (a test
    /// hook).
    private var isScheduled = false
    private var isFlushing = false
    private var lastFlushFailed = false
    private var flushes = 0
    private var failsNextFlush = false

    /// The queue the deferred flushes run on (one for every journal: they only wait for the disk).
    private static let queue = DispatchQueue(label: "ActionStack.HistoryJournal.flush", qos: .utility)

    /// Whether the next append must flush itself: the last deferred flush failed.
    var mustFlushNow: Bool {
        lock.lock()
        defer { lock.unlock() }
        return lastFlushFailed
    }

    /// Notes a flush made by the caller (an append under ``HistoryJournal/Durability/everyAppend``,
    /// or after a failed deferred one, or ``HistoryJournal/synchronize()``).
    func noteFlush() {
        lock.lock()
        defer { lock.unlock() }
        flushes += 1
        lastFlushFailed = false
    }

    /// Schedules a flush of the file at `path` within `interval`, unless one is already scheduled.
    ///
    /// - Complexity: O(1).
    func schedule(_ path: String, within interval: Duration) {
        lock.lock()
        let schedules = !isScheduled
        isScheduled = true
        lock.unlock()
        guard schedules else { return }
        let (seconds, attoseconds) = interval.components
        // At most a year: a deadline further away would overflow the dispatch clock.
        let delay = min(max(0, Double(seconds) + Double(attoseconds) * 1e-18), 365 * 86_400)
        Self.queue.asyncAfter(deadline: .now() + delay) { [self] in flush(path) }
    }

    /// The deferred flush: the file at `path`, whatever file it is now (a compaction's rewrite was
    /// flushed when written; a missing file has nothing to flush).
    private func flush(_ path: String) {
        lock.lock()
        isScheduled = false
        isFlushing = true
        let injected = failsNextFlush
        failsNextFlush = false
        lock.unlock()
        var failed = injected
        if !injected {
            do throws(SystemError) {
                // Only a regular file holds records (an append refuses anything else).
                if let descriptor = try SystemFile.openForReading(path) {
                    defer { try? SystemFile.close(descriptor) }
                    if try SystemFile.info(descriptor).isRegularFile { try SystemFile.synchronize(descriptor) }
                }
            } catch {
                failed = true
            }
        }
        lock.lock()
        defer { lock.unlock() }
        isFlushing = false
        if failed { lastFlushFailed = true } else { flushes += 1 }
    }

    /// The flushes made so far (a test hook).
    var flushCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return flushes
    }

    /// Whether a deferred flush waits on the queue or runs (a test hook).
    var hasScheduledFlush: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isScheduled || isFlushing
    }

    /// Makes the next deferred flush fail, as a disk that cannot be written would (a test hook).
    func failNextDeferredFlush() {
        lock.lock()
        defer { lock.unlock() }
        failsNextFlush = true
    }
}
