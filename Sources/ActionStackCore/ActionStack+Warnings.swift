// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension ActionStack {
    /// A call that did what it says but, most likely, not what the program meant.
    ///
    /// Unlike a ``Misuse``, the call went ahead (nothing is refused or undone): the stack tells
    /// the program once, so that a mistake that loses nothing at once but will later (three edits
    /// that one undo takes back together) does not go unseen. A warning is written to standard
    /// error as one line starting with `ActionStack warning:` (unless ``misusePolicy`` is
    /// ``MisusePolicy/report``; it never stops the process), stored in ``lastWarning`` and passed
    /// to ``onWarning``.
    public struct Warning: Hashable, Sendable, CustomStringConvertible {
        /// Which warning. New kinds may come: compare with the static members.
        public struct Kind: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
            /// The kind's name.
            public var rawValue: String

            /// The kind named `rawValue`.
            ///
            /// - Parameter rawValue: The kind's name.
            /// - Complexity: O(1).
            public init(rawValue: String) { self.rawValue = rawValue }

            /// A new event began whose automatic group nothing will close, so every change from
            /// then on joins one step, which one undo takes back whole.
            ///
            /// With ``groupsByEvent`` on, the end of the event closes the automatic group: the end
            /// of the run-loop pass, or ``endEvent()``. Told once per stack, when a registration
            /// (or a setter, or `beginUndoGrouping()`) opens an automatic group and all of these
            /// hold:
            /// - the last automatic group was closed before its event ended, by ``undo()``,
            ///   ``redo()``, a jump, ``removeAllActions()`` or a scope's rollback (by neither the
            ///   event's end nor the program's ``endUndoGrouping()``);
            /// - the program never called ``endEvent()`` on this stack, nor closed an automatic
            ///   group with ``endUndoGrouping()``;
            /// - ``automaticGroupClosing`` is ``AutomaticGroupClosing/manual``, or it is
            ///   ``AutomaticGroupClosing/runLoop`` and the run loop of the thread has not turned
            ///   since the earlier event's close was queued on it (the close has not fired) and is
            ///   not running now.
            ///
            /// That is a loop that never turns its run loop (a `readLine` loop, an async `main`,
            /// a server, a script) and never ends its events: its first changes already went into
            /// one step, which `undo()` closed and took back together. A program whose run loop
            /// turns handles its events inside a pass of it, where the run loop is running, so it
            /// is never warned of them (only code that runs before its run loop first turns, and
            /// undoes there, could be). The fix:
            /// `stack.automaticGroupClosing = .manual`, and `stack.endEvent()` after each user
            /// event (or ``groupsByEvent`` off, and a group around each change).
            public static let eventsNeverEnd = Kind(rawValue: "eventsNeverEnd")

            /// The kind's name.
            public var description: String { rawValue }
        }

        /// Which warning.
        public var kind: Kind
        /// What was noticed and what to do, in sentences.
        public var description: String

        /// A warning.
        ///
        /// - Parameters:
        ///   - kind: Which warning.
        ///   - description: What was noticed and what to do.
        /// - Complexity: O(1).
        public init(kind: Kind, description: String) {
            self.kind = kind
            self.description = description
        }
    }

    /// Tells the program of `warning`: a line on standard error (unless the policy is
    /// ``MisusePolicy/report``), ``lastWarning``, ``onWarning``. Changes nothing else. The caller
    /// is at rest (``onWarning`` is app code, which may call the stack).
    func warn(_ warning: Warning) {
        if misusePolicy != .report {
            FileHandle.standardError.write(Data("ActionStack warning: \(warning)\n".utf8))
        }
        lastWarning = warning
        onWarning?(warning)
    }

    /// Gives ``Warning/Kind/eventsNeverEnd`` (the caller checked that it applies), once, when the
    /// call that opened the group has ended: it is in the middle of opening a group.
    @inline(never)
    func warnThatEventsNeverEnd(manual: Bool) {
        eventClose.warned()
        let cause =
            manual
            ? "automaticGroupClosing is .manual and the program never called endEvent()"
            : "the run loop of this thread has not turned since the earlier event began and is not running"
        let warning = Warning(
            kind: .eventsNeverEnd,
            description:
                "a new undo group opened, and nothing will close it: the last one was closed by undo(), "
                + "redo(), a jump or a removal before its event ended, and \(cause), so every change from "
                + "here on joins one step that one undo takes back whole; a program with no turning run "
                + "loop sets automaticGroupClosing = .manual and calls endEvent() after each user event")
        whenIdle { [weak self] in self?.warn(warning) }
    }
}
