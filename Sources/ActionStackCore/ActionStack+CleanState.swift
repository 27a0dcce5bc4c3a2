// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension ActionStack {
    /// Posted when ``isClean`` changes, with the stack as object (when ``postsNotifications`` is
    /// on), at the end of the call that changed it.
    public static let cleanStateDidChangeNotification = Notification.Name("ActionStackCleanStateDidChangeNotification")

    /// Marks the current state as clean: the document was saved.
    ///
    /// The stack then reports ``isClean`` whenever undo and redo bring the document back to exactly
    /// this state. Every change made outside undo and redo is a new state, and a step records the
    /// states before and after it, so the stack can tell: undoing a step returns to the state
    /// before it only when the document was in the state after it and every action of the step
    /// ran. Anything that breaks that (an action whose target was freed, a removal that took part of
    /// a step, a change that was removed from the history but is still applied) leads to a new
    /// state, which is never clean. Trimming, dropping empty groups and closing groups never change
    /// whether the stack is clean; ``removeAllActions()`` makes the current state clean, like a
    /// freshly opened document. A new stack is clean. See <doc:CleanStateAndHistory>.
    ///
    /// Marking also ends coalescing, so a later keystroke cannot join the saved step. From a
    /// handler (while the document is half undone) it is the misuse
    /// ``Misuse/reentrantCall(_:during:)``. From another task while an asynchronous undo or redo
    /// runs its actions (the document half changed), it marks a state that no node has: the stack
    /// is clean until the operation moves the document, and clean again only if the document comes
    /// back to exactly that state, which no undo, redo or rollback does (see
    /// <doc:UndoingThroughAServerOrADatabase>).
    ///
    /// ```swift
    /// try document.save()
    /// stack.markClean()
    /// print(stack.isClean)   // true
    /// // false after the next change; true again after undoing that change
    /// ```
    ///
    /// - Complexity: O(1).
    public func markClean() {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.markClean) { return }
        markCurrentStateClean()
    }

    /// Marks the document's state clean: the current state; or, while an asynchronous undo or redo
    /// is running its actions (the document between the step's states), a new state that no node
    /// has, which the document leaves when the operation settles (see `History.leaveMidwayMarks(of:)`), so
    /// that it is clean again only if it comes back to exactly that state.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func markCurrentStateClean() {
        if steps.isMidway {
            steps.markedCleanMidway(history.markCleanMidway())
        } else {
            history.markClean()
        }
    }

    /// Whether the document is in the state last marked with ``markClean()`` (the saved state).
    ///
    /// - Complexity: O(1).
    public var isClean: Bool { asCall { history.states.isClean } }
}
