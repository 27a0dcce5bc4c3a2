// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation

/// An undo manager whose actions expire.
///
/// A terminal lets the user reopen a closed tab for a short while only: the closed session's shell
/// is kept running until then, and killed after. Registrations made through
/// `registerExpiringUndo(withTarget:handler:)` are timestamped, and `undo()` first removes the
/// actions of every target whose time is up, so that Undo never offers a session that is gone.
final class ExpiringUndoManager: UndoManager {
    private struct Registration {
        weak var target: AnyObject?
        let date: Date
    }

    /// How long an action stays undoable.
    let lifetime: TimeInterval

    private let currentDate: () -> Date
    private var registrations: [Registration] = []

    init(lifetime: TimeInterval, currentDate: @escaping () -> Date = { Date() }) {
        self.lifetime = lifetime
        self.currentDate = currentDate
        super.init()
    }

    /// Registers an undo action for `target` that expires after `lifetime`.
    func registerExpiringUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        registrations.append(Registration(target: target, date: currentDate()))
        registerUndo(withTarget: target, handler: handler)
    }

    /// Whether `target` has actions that have not expired.
    func hasPendingActions(for target: AnyObject) -> Bool {
        let deadline = currentDate().addingTimeInterval(-lifetime)
        return registrations.contains { $0.target === target && $0.date >= deadline }
    }

    /// Removes the actions of every target registered longer ago than `lifetime`.
    func removeExpiredActions() {
        let deadline = currentDate().addingTimeInterval(-lifetime)
        for registration in registrations where registration.date < deadline {
            if let target = registration.target {
                removeAllActions(withTarget: target)
            }
        }
        registrations.removeAll { $0.target == nil || $0.date < deadline }
    }

    override func undo() {
        removeExpiredActions()
        super.undo()
    }

    override func removeAllActions() {
        registrations.removeAll()
        super.removeAllActions()
    }

    override func removeAllActions(withTarget target: Any) {
        registrations.removeAll { $0.target === (target as AnyObject) }
        super.removeAllActions(withTarget: target)
    }
}

/// A shell running in a terminal tab.
final class TerminalSession {
    let title: String
    private(set) var isRunning = true

    init(title: String) {
        self.title = title
    }

    func terminate() {
        isRunning = false
    }
}

/// A terminal window with tabs; closing a tab can be undone until the undo expires.
@MainActor
final class TerminalWindow {
    let undoManager: ExpiringUndoManager
    private(set) var tabs: [TerminalSession] = []

    /// Sessions whose tab was closed; their shells run until closing can no longer be undone.
    private(set) var closedSessions: [TerminalSession] = []

    init(undoManager: ExpiringUndoManager) {
        self.undoManager = undoManager
    }

    @discardableResult
    func openTab(titled title: String) -> TerminalSession {
        let session = TerminalSession(title: title)
        tabs.append(session)
        return session
    }

    func closeTab(_ session: TerminalSession) {
        guard let index = tabs.firstIndex(where: { $0 === session }) else { return }
        tabs.remove(at: index)
        closedSessions.append(session)
        undoManager.registerExpiringUndo(withTarget: session) { [weak self] session in
            self?.reopenTab(session, at: index)
        }
        undoManager.setActionName("Close Tab")
    }

    /// Kills the shells of closed sessions that can no longer be reopened.
    func reapClosedSessions() {
        undoManager.removeExpiredActions()
        for session in closedSessions where !undoManager.hasPendingActions(for: session) {
            session.terminate()
        }
        closedSessions.removeAll { !$0.isRunning }
    }

    private func reopenTab(_ session: TerminalSession, at index: Int) {
        closedSessions.removeAll { $0 === session }
        tabs.insert(session, at: min(index, tabs.count))
        undoManager.registerExpiringUndo(withTarget: session) { [weak self] session in
            self?.closeTab(session)
        }
        undoManager.setActionName("Close Tab")
    }
}
