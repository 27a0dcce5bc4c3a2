// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The id of a document state (see ``DocumentStates``).
package typealias StateID = UInt32

/// The clean-state concern: ids for document states, the current one, and the one marked clean.
///
/// Every change made outside undo and redo is a new state with a fresh id. A step records the state
/// with it not applied (`low`) and applied (`high`); undoing a step from its `high` state, with
/// every action run, returns to its `low` state exactly, and redoing goes back. Anything that breaks
/// that correspondence (an action of a freed target that could not run, a removal that took part of
/// a step, a step removed above it) leads to a fresh state instead, which is never the clean one:
/// the stack reports clean only when it can prove the document is in the marked state.
///
/// Ids are 32 bits, so that a step (which stores two) is 24 bytes. To keep them unique forever, the
/// stack renumbers the ids in use once the counter passes ``renumberingThreshold`` (2^31): at the end
/// of a call, when no id is held anywhere but in the stack's storage, each id in use gets a small
/// new number (equal ids stay equal, different ones stay different). That costs one pass over the
/// steps every two billion changes: O(1) amortized.
struct DocumentStates {
    /// The state the document is in.
    private(set) var current: StateID = 0
    /// The state marked by `markClean()`; a new stack is clean.
    private(set) var clean: StateID = 0
    /// The next fresh id.
    private var next: StateID = 1
    /// How many times the ids were renumbered (a test hook reads it).
    private(set) var renumberings = 0
    /// The counter value at which the ids in use are renumbered: twice the ids in use after the last
    /// renumbering, and at least ``baseThreshold``.
    private(set) var renumberingThreshold: StateID = 1 << 31
    /// 2^31, so that a call has two billion fresh ids before the counter could wrap; a test hook
    /// lowers it.
    var baseThreshold: StateID = 1 << 31 {
        didSet { renumberingThreshold = Swift.max(baseThreshold, Swift.min(1 << 31, next &* 2)) }
    }

    /// A fresh id, equal to no other.
    @inline(__always)
    mutating func fresh() -> StateID {
        defer { next &+= 1 }
        return next
    }

    /// Whether the ids in use should be renumbered now (checked at the end of each call).
    @inline(__always)
    var needsRenumbering: Bool { next >= renumberingThreshold }

    /// Renumbers `current` and `clean` with `rename` (which maps every id in use to its new
    /// number), and continues counting from `nextFresh`.
    mutating func renumber(_ rename: (StateID) -> StateID, nextFresh: StateID) {
        renumberings += 1
        current = rename(current)
        clean = rename(clean)
        next = nextFresh
        renumberingThreshold = Swift.max(baseThreshold, Swift.min(1 << 31, nextFresh &* 2))
    }

    /// The document changed (outside undo and redo): returns its new state, now current.
    @inline(__always)
    mutating func change() -> StateID {
        current = fresh()
        return current
    }

    /// The document moved to `state` (undo, redo, rollback).
    @inline(__always)
    mutating func move(to state: StateID) { current = state }

    /// A restored history: the document is in `current`, and the clean state is `clean`, or a
    /// state the document never reaches when there is none.
    mutating func restore(current: StateID, clean: StateID?) {
        self.current = current
        self.clean = clean ?? fresh()
    }

    /// Whether the document is in the clean state.
    var isClean: Bool { current == clean }

    /// Marks the current state clean.
    mutating func markClean() { clean = current }

    /// What does not hold of the state ids: every id in use was handed out already.
    func invariantViolations() -> [String] {
        var problems: [String] = []
        if current >= next { problems.append("current state \(current) was never handed out") }
        if clean >= next { problems.append("clean state \(clean) was never handed out") }
        return problems
    }

    /// The state that performing a step moving from `from` to `to` leads to, given that the
    /// document is now in `current` and that `everyActionRan`.
    @inline(__always)
    mutating func destination(from: StateID, to: StateID, everyActionRan: Bool) -> StateID {
        arrival(startingFrom: current, from: from, to: to, everyActionRan: everyActionRan)
    }

    /// Where a step from `from` to `to` arrives when performed from `start`: at `to` when it
    /// started where the step begins and every action ran, in a new state otherwise.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func arrival(startingFrom start: StateID, from: StateID, to: StateID, everyActionRan: Bool) -> StateID {
        start == from && everyActionRan ? to : fresh()
    }
}
