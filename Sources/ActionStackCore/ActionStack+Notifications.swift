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
    /// Posted whenever the stack reaches a checkpoint: before a group opens (except the automatic
    /// group), before a group closes, at the start of undo, redo and ``undoNestedGroup()``, after
    /// the handlers of an undo or redo, and when ``canRedo`` is read. A call that starts with a
    /// checkpoint decides what to do only after its observers have run.
    ///
    /// Never posted while observers of a checkpoint are running: a call they make, directly or
    /// deeper, posts no checkpoint of its own and otherwise does what it always does. So an
    /// observer that refreshes a Redo button from ``canRedo`` (which posts a checkpoint, as in
    /// Foundation) does not hear its own checkpoint again and again.
    public static let checkpointNotification = Notification.Name("NSUndoManagerCheckpointNotification")

    /// Posted after a group opens; never while an undo or redo is in progress (neither for the step
    /// it builds nor for groups its handlers open). When a registration or a setter opens the
    /// automatic group, it is posted at the end of that call.
    public static let didOpenUndoGroupNotification = Notification.Name(
        "NSUndoManagerDidOpenUndoGroupNotification"
    )

    /// Posted before a group closes; never while an undo or redo is in progress. Its `userInfo` is
    /// always `nil`. Its observers may still register into the closing group and name it.
    public static let willCloseUndoGroupNotification = Notification.Name(
        "NSUndoManagerWillCloseUndoGroupNotification"
    )

    /// Posted after a group closes; never while an undo or redo is in progress. Its `userInfo` is
    /// `[groupIsDiscardableUserInfoKey: true]` when the closed top-level group is discardable
    /// (also when it is dropped as empty), `nil` otherwise. A will-close/did-close pair is posted
    /// whether the group is kept or dropped.
    public static let didCloseUndoGroupNotification = Notification.Name(
        "NSUndoManagerDidCloseUndoGroupNotification"
    )

    /// Posted before an undo runs its handlers; ``isUndoing`` is already `true`.
    public static let willUndoChangeNotification = Notification.Name("NSUndoManagerWillUndoChangeNotification")

    /// Posted after an undo; ``isUndoing`` is still `true`. Its `userInfo` is
    /// `[groupIsDiscardableUserInfoKey: true]` when the undone group was discardable.
    public static let didUndoChangeNotification = Notification.Name("NSUndoManagerDidUndoChangeNotification")

    /// Posted before a redo runs its handlers; ``isRedoing`` is already `true`.
    public static let willRedoChangeNotification = Notification.Name("NSUndoManagerWillRedoChangeNotification")

    /// Posted after a redo; ``isRedoing`` is still `true`. Its `userInfo` is
    /// `[groupIsDiscardableUserInfoKey: true]` when the redone group was discardable.
    public static let didRedoChangeNotification = Notification.Name("NSUndoManagerDidRedoChangeNotification")

    /// The `userInfo` key that marks a discardable group in ``didCloseUndoGroupNotification``,
    /// ``didUndoChangeNotification`` and ``didRedoChangeNotification``.
    public static let groupIsDiscardableUserInfoKey = "NSUndoManagerGroupIsDiscardableKey"

    /// Posts `name` with the stack as object, when ``postsNotifications`` is on.
    @inline(__always)
    func post(_ name: Notification.Name, discardable: Bool = false) {
        guard postsNotifications else { return }
        NotificationCenter.default.post(
            name: name,
            object: self,
            userInfo: discardable ? [ActionStack.groupIsDiscardableUserInfoKey: true] : nil
        )
    }

    /// Posts ``willCloseUndoGroupNotification`` for a group about to close (of
    /// `endUndoGrouping()`, the event's close, a scope, an asynchronous group), its observers
    /// running in the `closingGroup` activity. Every close posts it here; its did-close follows with
    /// `post(_:discardable:)` once the group is closed.
    ///
    /// - Complexity: O(1) beyond the observers.
    @inline(__always)
    func postWillCloseGroup() {
        guard postsNotifications else { return }
        activities.push(.closingGroup)
        post(ActionStack.willCloseUndoGroupNotification)
        activities.pop()
    }

    /// Posts ``checkpointNotification``, unless observers of a checkpoint are running now: an
    /// observer that reads ``canRedo`` (which posts one, as in Foundation) or calls
    /// ``endUndoGrouping()`` would otherwise hear its own checkpoint, again and again, until the
    /// thread's stack overflows.
    @inline(__always)
    func postCheckpoint() {
        guard postsNotifications, !isPostingCheckpoint else { return }
        isPostingCheckpoint = true
        defer { isPostingCheckpoint = false }
        NotificationCenter.default.post(name: ActionStack.checkpointNotification, object: self)
    }
}

// MARK: Apple spellings

#if !canImport(Darwin)
    // Foundation on Apple platforms declares these for its `UndoManager`; elsewhere Foundation has no
    // `UndoManager`, so Apple-style code that observes these names would not compile. They are the
    // same names (same raw values) as ActionStack's notifications.

    extension NSNotification.Name {
        /// The same as ``ActionStack/checkpointNotification``.
        public static let NSUndoManagerCheckpoint = ActionStack.checkpointNotification
        /// The same as ``ActionStack/didOpenUndoGroupNotification``.
        public static let NSUndoManagerDidOpenUndoGroup = ActionStack.didOpenUndoGroupNotification
        /// The same as ``ActionStack/willCloseUndoGroupNotification``.
        public static let NSUndoManagerWillCloseUndoGroup = ActionStack.willCloseUndoGroupNotification
        /// The same as ``ActionStack/didCloseUndoGroupNotification``.
        public static let NSUndoManagerDidCloseUndoGroup = ActionStack.didCloseUndoGroupNotification
        /// The same as ``ActionStack/willUndoChangeNotification``.
        public static let NSUndoManagerWillUndoChange = ActionStack.willUndoChangeNotification
        /// The same as ``ActionStack/didUndoChangeNotification``.
        public static let NSUndoManagerDidUndoChange = ActionStack.didUndoChangeNotification
        /// The same as ``ActionStack/willRedoChangeNotification``.
        public static let NSUndoManagerWillRedoChange = ActionStack.willRedoChangeNotification
        /// The same as ``ActionStack/didRedoChangeNotification``.
        public static let NSUndoManagerDidRedoChange = ActionStack.didRedoChangeNotification
    }

    /// The `userInfo` key that marks a discardable group; the same as
    /// ``ActionStack/groupIsDiscardableUserInfoKey``.
    public let NSUndoManagerGroupIsDiscardableKey = ActionStack.groupIsDiscardableUserInfoKey
#endif
