// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The automatic group's lifecycle: whether the current event's close is pending, its token, and
/// the close queued on a run loop.
///
/// With `groupsByEvent` on, the first registration (or setter, or `beginUndoGrouping()`) of an event
/// opens the automatic group and schedules the event's close; a registration that continues a
/// coalesced step schedules it too. The close happens once: when the run loop's scheduled perform
/// fires or the program calls `endEvent()`, whichever comes first, and only if it is still pending
/// (closing the top-level group by hand, `undo()`, `redo()` and `jump(to:)` closing it first, a
/// scope's rollback taking it out, and `removeAllActions()` cancel it). Each schedule has a new
/// token, so a perform left over from an earlier event finds nothing to do. `RunLoop.perform` cannot
/// be taken back, so a close queued on a run loop that has not fired yet is reused by later events
/// (``queued``).
///
/// It also keeps what the warning ``ActionStack/Warning/Kind/eventsNeverEnd`` needs: how the last
/// automatic group closed (by its event's end, by the program's `endUndoGrouping()`, or before its
/// event ended: by `undo()`, `redo()`, a jump, a removal or a rollback), and whether the program
/// ever ended an event itself.
struct EventClose {
    /// How an automatic group closed.
    enum Ending {
        /// By its event's end: the run loop's close, or `endEvent()`.
        case eventEnd
        /// By the program: `endUndoGrouping()` at the top level.
        case program
        /// Before its event ended: `undo()`, `redo()`, a jump, a removal, a scope's rollback.
        case early
    }

    /// The token of the pending close, if one is pending.
    private(set) var pending: UInt64?
    private var lastToken: UInt64 = 0
    /// The event's close queued on a run loop and not fired yet, which later events may reuse.
    private(set) var queued: QueuedClose?
    /// The blocks queued on run loops for the automatic close so far (a test hook reads it).
    private(set) var runLoopClosesQueued = 0
    /// How the last automatic group closed.
    private(set) var lastEnding = Ending.eventEnd
    /// Whether the program called `endEvent()` or closed an automatic group itself: it ends its
    /// events, so nothing is warned of.
    private(set) var programEndsEvents = false
    /// Whether the warning was given (once per stack).
    private(set) var hasWarned = false

    /// Whether the current event's close is pending.
    var isPending: Bool { pending != nil }

    /// Whether a new event, whose close is being scheduled, may be one that nothing will end: the
    /// last automatic group closed before its event ended, the program never ended an event
    /// itself, and the warning was not given yet. (Whether the run loop turns is the caller's to
    /// tell.)
    var mayNeverEnd: Bool { lastEnding == .early && !programEndsEvents && !hasWarned }

    /// The warning was given.
    mutating func warned() { hasWarned = true }

    /// The program called `endEvent()`.
    mutating func programEndedAnEvent() { programEndsEvents = true }

    /// The program closes the automatic group itself (`endUndoGrouping()` at the top level).
    mutating func programClosesTheGroup() {
        guard pending != nil else { return }
        pending = nil
        lastEnding = .program
        programEndsEvents = true
    }

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
        lastEnding = .eventEnd
        return true
    }

    /// What does not hold of the event's close.
    func invariantViolations() -> [String] {
        if let pending, pending > lastToken { return ["pending close \(pending) was never scheduled"] }
        return []
    }

    /// The group closed, or left the history, before its event ended (`undo()`, `redo()`, a jump,
    /// a removal, a rollback): nothing is pending.
    mutating func cancel() {
        guard pending != nil else { return }
        pending = nil
        lastEnding = .early
    }

    /// A block that closes the event was queued on a run loop.
    mutating func didQueue(_ close: QueuedClose) {
        queued = close
        runLoopClosesQueued &+= 1
    }
}

/// A close queued on a run loop that has not fired yet: later events reuse it (see
/// `ActionStack.scheduleEventClose()`).
///
/// Read and written only on the thread whose run loop it is queued on, which is the thread the
/// stack is used from (the same reasoning as `WeakStackReference`).
final class QueuedClose: @unchecked Sendable {
    /// The token of the event the block closes when it fires.
    var token: UInt64
    weak var runLoop: RunLoop?
    let modes: [RunLoop.Mode]
    var hasFired = false

    init(token: UInt64, runLoop: RunLoop, modes: [RunLoop.Mode]) {
        self.token = token
        self.runLoop = runLoop
        self.modes = modes
    }
}
