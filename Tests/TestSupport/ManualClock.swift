// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

package import ActionStack
package import Foundation

/// A clock that moves only when a test says so: the instants of coalescing windows
/// (`coalescingClock`) and the dates of a branching history's nodes (`historyClock`).
///
/// The two readings move together: ``advance(by:)`` and ``advance(seconds:)`` move both, so a test
/// may read either or both. The clock is `Sendable` (a lock guards it), so a stack's `@Sendable`
/// clock closures can read it from any thread:
///
/// ```swift
/// let clock = ManualClock()
/// stack.coalescingClock = { clock.instant }
/// stack.historyClock = { clock.now }
/// clock.advance(by: .milliseconds(400))
/// ```
package final class ManualClock: @unchecked Sendable {  // state guarded by `lock`
    private let lock = NSLock()
    private var date: Date
    private var continuous: ContinuousClock.Instant

    /// A clock whose date starts at `date` and whose instant starts now.
    ///
    /// - Parameter date: The first date it reads (by default a fixed date, so that dates in a
    ///   test's output are the same from run to run).
    package init(_ date: Date = Date(timeIntervalSinceReferenceDate: 1_000_000)) {
        self.date = date
        continuous = .now
    }

    /// A clock whose date starts `seconds` after the reference date (1 January 2001).
    package convenience init(seconds: Double) {
        self.init(Date(timeIntervalSinceReferenceDate: seconds))
    }

    /// The date now, for `historyClock`.
    package var now: Date { lock.withLock { date } }

    /// The instant now, for `coalescingClock`.
    package var instant: ContinuousClock.Instant { lock.withLock { continuous } }

    /// Moves the clock forward (or back, with a negative number) by `seconds`.
    package func advance(seconds: Double) {
        lock.withLock {
            date += seconds
            continuous = continuous.advanced(by: .seconds(seconds))
        }
    }

    /// Moves the clock forward (or back) by `duration`.
    package func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        lock.withLock {
            date += Double(seconds) + Double(attoseconds) / 1e18
            continuous = continuous.advanced(by: duration)
        }
    }

    /// Moves the clock forward by `seconds` and reads the date: a `historyClock` that ticks on
    /// every reading, so that each node is dated after the one before.
    package func tick(seconds: Double) -> Date {
        lock.withLock {
            date += seconds
            return date
        }
    }

    /// Makes `stack` measure its coalescing windows with this clock.
    package func drive(_ stack: ActionStack) { stack.coalescingClock = { self.instant } }
}
