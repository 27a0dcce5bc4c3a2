// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The scoped-group concern: the bodies of `group(named:_:)` that are running, the frame each
/// opened, and what waits for the outermost to end.
///
/// While a body runs, trimming, pruning and the event's end wait (a limit must not drop the steps a
/// failing body is about to roll back, nor the event's close take the scope's group from under
/// it). A body may close the scope's own group itself (`endUndoGrouping()`): the scope finds the
/// step it became by its serial, recorded here when the frame closes.
///
/// Invariant: a frame is recorded only while its scope's body runs (its `group(named:_:)` call
/// forgets it when it returns).
struct Scopes {
    /// The bodies running, nested.
    private(set) var depth = 0
    /// The frames of the scopes in progress, with the serial of the step each became if its body
    /// closed it itself.
    private var steps: [UInt64: UInt32?] = [:]
    /// The token of the event whose end `endEvent()` asked for while a body was running: it ends
    /// when the outermost scope ends, if it is still the pending event.
    private var eventEndToken: UInt64?

    /// Whether a body is running.
    var isRunning: Bool {
        @inline(__always) get { depth > 0 }
    }

    /// A scope opened its group, frame `id`: the step it becomes is watched for.
    mutating func opened(frame id: UInt64) { steps[id] = .some(nil) }

    /// A scope's body starts.
    mutating func enter() { depth += 1 }

    /// A scope's body returned or threw.
    mutating func leave() { depth -= 1 }

    /// The scope of frame `id` is over: its frame is no longer watched.
    mutating func forget(frame id: UInt64) { steps[id] = nil }

    /// Frame `id` closed into the step with `serial`: if it is a scope's, the scope finds the step
    /// by it.
    ///
    /// - Complexity: O(1) (one emptiness check when no scope is in progress).
    @inline(__always)
    mutating func frameClosed(_ id: UInt64, into serial: UInt32) {
        if !steps.isEmpty, steps.keys.contains(id) { steps[id] = serial }
    }

    /// The serial of the step that the scope of frame `id` became when its body closed it.
    func serialOfStep(closing id: UInt64) -> UInt32? { steps[id] ?? nil }

    /// `endEvent()` was called while a body runs: the event with `token` ends with the outermost
    /// scope.
    mutating func putOffEventEnd(_ token: UInt64) { eventEndToken = token }

    /// The event end put off until now, if any (taken: asked once).
    mutating func takeEventEnd() -> UInt64? {
        defer { eventEndToken = nil }
        return eventEndToken
    }
}
