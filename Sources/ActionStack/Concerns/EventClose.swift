// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The automatic group's lifecycle: whether the current event's close is pending, and its token.
///
/// With `groupsByEvent` on, the first registration (or setter, or `beginUndoGrouping()`) of an event
/// opens the automatic group and schedules the event's close; a registration that continues a
/// coalesced step schedules it too. The close happens once: when the run loop's scheduled perform
/// fires or the program calls `endEvent()`, whichever comes first, and only if it is still pending
/// (closing the top-level group by hand, `undo()`, `redo()` and `jump(to:)` closing it first, a
/// scope's rollback taking it out, and `removeAllActions()` cancel it). Each schedule has a new
/// token, so a perform left over from an earlier event finds nothing to do.
struct EventClose {
    /// The token of the pending close, if one is pending.
    private(set) var pending: UInt64?
    private var lastToken: UInt64 = 0

    /// Whether the current event's close is pending.
    var isPending: Bool { pending != nil }

    /// Makes the current event's close pending, if it is not; returns the new token when a perform
    /// must be scheduled, nil when one is already pending.
    mutating func schedule() -> UInt64? {
        guard pending == nil else { return nil }
        lastToken &+= 1
        pending = lastToken
        return lastToken
    }

    /// The close with `token` fires: returns whether it was still pending (and now is not).
    mutating func fire(_ token: UInt64) -> Bool {
        guard pending == token else { return false }
        pending = nil
        return true
    }

    /// What does not hold of the event's close.
    func invariantViolations() -> [String] {
        if let pending, pending > lastToken { return ["pending close \(pending) was never scheduled"] }
        return []
    }

    /// The program ended the event or closed the group itself: nothing is pending.
    mutating func cancel() { pending = nil }
}
