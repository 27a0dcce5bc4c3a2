// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The coalescing concern: which step a coalescing registration may continue.
///
/// Invariant: when `candidate` is set, the newest step of the undo stack (frame 0 when a group is
/// open, else the newest closed step) holds only registrations made with the candidate's key on the
/// candidate's target (closures and commands alike: a target with both has a box for each, and
/// the coalescer compares targets, not boxes). Every change that puts another step on top, or that changes the candidate
/// step otherwise, clears it; the stack calls ``clear()`` there.
///
/// The candidate is a class so that the coalescer is one pointer and a flag: a struct holding a
/// `ContinuousClock.Instant` (whose layout the standard library does not fix) would give the stack
/// itself a layout known only at run time, and every access to its stored properties would go
/// through metadata (measured: a quarter of the instructions of a registration).
struct Coalescer {
    final class Candidate {
        let key: String
        /// The target's box; compared by identity (held, so that a box freed meanwhile cannot be
        /// mistaken for a new one).
        let box: TargetBox
        var lastTime: ContinuousClock.Instant

        init(key: String, box: TargetBox, lastTime: ContinuousClock.Instant) {
            self.key = key
            self.box = box
            self.lastTime = lastTime
        }
    }

    /// The step that may be continued, if any.
    private(set) var candidate: Candidate?
    /// True from a registration that continued the candidate until the event ends or the undo
    /// stack's shape changes: the metadata setters then act on the continued step instead of
    /// opening an automatic group (register, then `setActionName("Typing")`, per keystroke).
    private(set) var isContinuing = false

    /// Whether a registration with `key` on `target` may join the candidate now.
    func canJoin(key: String, target: AnyObject, window: Duration?, now: () -> ContinuousClock.Instant) -> Bool {
        guard let candidate, candidate.box.isBox(of: target), candidate.key == key else { return false }
        if let window, now() - candidate.lastTime > window { return false }
        return true
    }

    /// A registration joined the candidate.
    mutating func joined(at time: ContinuousClock.Instant) {
        candidate?.lastTime = time
        isContinuing = true
    }

    /// A registration outside undo and redo landed in frame 0. `wasEmpty`: frame 0 held no action
    /// before it.
    @inline(__always)
    mutating func registered(
        key: String?,
        box unmanagedBox: Unmanaged<TargetBox>,
        into wasEmpty: Bool,
        at time: @autoclosure () -> ContinuousClock.Instant
    ) {
        guard let key else {
            if candidate != nil { candidate = nil }
            return
        }
        let box = unmanagedBox.takeUnretainedValue()
        if wasEmpty {
            candidate = Candidate(key: key, box: box, lastTime: time())
        } else if let current = candidate, current.key == key, current.box.hasTarget(of: box) {
            current.lastTime = time()
        } else {
            candidate = nil
        }
    }

    /// The event ended: the setters no longer act on the continued step.
    mutating func eventEnded() { isContinuing = false }

    /// Ends coalescing: no step may be continued.
    @inline(__always)
    mutating func clear() {
        if candidate != nil || isContinuing {
            candidate = nil
            isContinuing = false
        }
    }

    /// What does not hold of the coalescer, given the actions of the newest undo step (nil when
    /// there is none) and whether that step is an open group.
    func invariantViolations(newestStepActions: [Action]?, newestIsOpen: Bool) -> [String] {
        var problems: [String] = []
        if let candidate {
            if let actions = newestStepActions {
                if actions.isEmpty || !actions.allSatisfy({ $0.box.hasTarget(of: candidate.box) }) {
                    problems.append("coalescing candidate holds an action of another target, or none")
                }
            } else {
                problems.append("coalescing candidate but no step")
            }
        }
        if isContinuing && (candidate == nil || newestIsOpen) {
            problems.append("continuing a coalesced step that is not the newest closed one")
        }
        return problems
    }

    /// The candidate's target (whose box, or one of whose boxes, is `box`) has been removed or
    /// has died.
    mutating func forget(_ box: TargetBox) {
        if let candidate, candidate.box.hasTarget(of: box) { clear() }
    }
}

@available(*, unavailable) extension Coalescer: Sendable {}
@available(*, unavailable) extension Coalescer.Candidate: Sendable {}
