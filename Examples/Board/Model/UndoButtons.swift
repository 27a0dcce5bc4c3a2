// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStack
import Foundation

/// The Undo and Redo "buttons" of a window: a title and an enabled state each, kept up to date by
/// observing the notifications of whichever stack is active.
///
/// This is how an app's Edit menu follows an `UndoManager`: it does not poll, it listens for the
/// moments the stack changes (a group closes, an undo or a redo finishes) and re-reads
/// `canUndo`, `canRedo`, `undoMenuItemTitle` and `redoMenuItemTitle` then.
@MainActor
public final class UndoButtons {
    /// The Undo button's title: "Undo Move to (10.0, 20.0)", or a plain "Undo" when disabled.
    public private(set) var undoTitle = "Undo"
    /// The Redo button's title.
    public private(set) var redoTitle = "Redo"
    /// Whether the Undo button is enabled.
    public private(set) var undoEnabled = false
    /// Whether the Redo button is enabled.
    public private(set) var redoEnabled = false
    /// How many times the buttons were refreshed by a notification (a test hook of the example).
    public private(set) var refreshCount = 0

    /// The stack the buttons act on.
    public private(set) var stack: ActionStack
    private var observers: [any NSObjectProtocol] = []

    /// The notifications after which the titles or enabled states can have changed.
    private static let changes: [Notification.Name] = [
        ActionStack.didOpenUndoGroupNotification,
        ActionStack.didCloseUndoGroupNotification,
        ActionStack.didUndoChangeNotification,
        ActionStack.didRedoChangeNotification,
    ]

    /// Creates buttons that follow `stack`.
    public init(following stack: ActionStack) {
        self.stack = stack
        follow(stack)
    }

    /// Makes the buttons follow another stack (the user switched context).
    public func follow(_ stack: ActionStack) {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        self.stack = stack
        observers = Self.changes.map { name in
            // Observe this stack only (`object: stack`). The stack posts synchronously on the thread
            // that changed it, which here is always the main actor's.
            NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) { [weak self] _ in
                MainActor.assumeIsolated {
                    self?.refreshCount += 1
                    self?.refresh()
                }
            }
        }
        refresh()
    }

    /// Re-reads the stack's state.
    public func refresh() {
        undoEnabled = stack.canUndo
        redoEnabled = stack.canRedo
        undoTitle = stack.undoMenuItemTitle
        redoTitle = stack.redoMenuItemTitle
    }

    /// The buttons as text: "[Undo Add Figure]" when enabled, "(Redo)" when disabled.
    public var rendered: String {
        let undo = undoEnabled ? "[\(undoTitle)]" : "(\(undoTitle))"
        let redo = redoEnabled ? "[\(redoTitle)]" : "(\(redoTitle))"
        return "\(undo) \(redo)"
    }

    isolated deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }
}
