// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The registration switch: `disableUndoRegistration()` and `enableUndoRegistration()` nest as a
/// counter, and registration, grouping and the metadata setters work only while it is zero.
///
/// A scoped group's rollback disables registration while it runs the scope's actions, and so does
/// the closure that applies a remote change; that part of the counter is *protected*: a handler's `enableUndoRegistration()` cannot take it away (it is the
/// misuse `enableWithoutDisable`), so the rollback's inverses are never recorded.
///
/// Invariant: the protected part is never more than the counter.
struct RegistrationSwitch {
    /// The disable counter: registration is enabled while it is zero.
    private(set) var disableCount = 0
    /// The part of the counter that belongs to rollbacks in progress.
    private(set) var protectedCount = 0

    /// Whether registration is enabled.
    var isEnabled: Bool {
        @inline(__always) get { disableCount == 0 }
    }

    /// `disableUndoRegistration()`.
    mutating func disable() { disableCount += 1 }

    /// `enableUndoRegistration()`: balances one disable; returns false, changing nothing, when every
    /// disable left is a rollback's (or there is none).
    mutating func enable() -> Bool {
        guard disableCount > protectedCount else { return false }
        disableCount -= 1
        return true
    }

    /// A rollback (or a remote change's closure) starts: registration is disabled until it ends,
    /// whatever its handlers call.
    mutating func disableProtected() {
        disableCount += 1
        protectedCount += 1
    }

    /// The rollback (or remote change) that ``disableProtected()`` began ended.
    mutating func enableProtected() {
        protectedCount -= 1
        disableCount -= 1
    }

    /// `removeAllActions()`: registration is enabled again, as in a freshly made stack.
    mutating func reset() {
        disableCount = 0
        protectedCount = 0
    }

    /// What does not hold of the switch.
    func invariantViolations() -> [String] {
        disableCount < protectedCount ? ["disable count below its protected part"] : []
    }
}
