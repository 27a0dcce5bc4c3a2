// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// A move in time through a branching history, as vim's `g-`, `g+`, `:earlier` and `:later`: back
/// or forward by a number of changes or by a duration, from wherever the document is when the move
/// starts. A request holds the move, not its target, so that a move queued behind another starts
/// from where that one left the document (two presses of `g-` go back two changes).
struct TimeMove: Hashable, Sendable {
    /// How far.
    enum Distance: Hashable, Sendable {
        /// A number of changes: to the node numbered that many before (after) the current one.
        case changes(Int)
        /// A duration: to the node made that long before (after) the current one was.
        case duration(Duration)
    }

    /// Whether the move goes forward (`later`).
    var forward: Bool
    var distance: Distance

    /// The node the move reaches from `current` in `tree`: a number that no longer exists is
    /// passed over to the next node in the move's direction; `current` when the move cannot move.
    /// A move by a duration counts from `current`'s date, or from `date` when given: the date of
    /// the node a move started on, which may have gone since (found dead on the way).
    ///
    /// - Complexity: O(log s) for the s nodes held.
    func target(in tree: TreeStore, from current: NodeNumber, dated date: Double? = nil) -> NodeNumber {
        switch (forward, distance) {
        case (false, .changes(let count)):
            guard count > 0 else { return current }
            let target = Int(current) - count
            guard target > Int(tree.root) else { return tree.root }
            return tree.table.greatest(atMost: NodeNumber(target)) ?? tree.root
        case (true, .changes(let count)):
            guard count > 0 else { return current }
            let newest = tree.table.greatest(atMost: tree.nextNumber &- 1) ?? current
            // A count past the newest node (Int.max included) goes to the newest: no overflow.
            guard count < Int(newest) - Int(current) else { return newest }
            let target = Int(current) + count
            return tree.table.smallest(atLeast: NodeNumber(target)) ?? newest
        case (false, .duration(let duration)):
            let seconds = Self.seconds(duration)
            guard seconds > 0, let date = date ?? tree.table.record(current)?.date else { return current }
            let found = tree.table.newest(madeAtOrBefore: date - seconds) ?? tree.root
            return found > current ? current : found
        case (true, .duration(let duration)):
            let seconds = Self.seconds(duration)
            guard seconds > 0, let date = date ?? tree.table.record(current)?.date else { return current }
            let newest = tree.table.greatest(atMost: tree.nextNumber &- 1) ?? current
            let found = tree.table.oldest(madeAtOrAfter: date + seconds) ?? newest
            return found < current ? current : found
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
