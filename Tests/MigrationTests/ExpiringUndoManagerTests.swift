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
import XCTest

@MainActor
final class ExpiringUndoManagerTests: XCTestCase {
    private var now = Date(timeIntervalSinceReferenceDate: 0)
    private var undoManager: ExpiringUndoManager!
    private var window: TerminalWindow!

    override func setUp() async throws {
        now = Date(timeIntervalSinceReferenceDate: 0)
        undoManager = ExpiringUndoManager(lifetime: 5) { [unowned self] in
            MainActor.assumeIsolated { self.now }
        }
        undoManager.groupsByEvent = false
        window = TerminalWindow(undoManager: undoManager)
    }

    override func tearDown() async throws {
        window = nil
        undoManager = nil
    }

    private func userAction(_ body: () -> Void) {
        undoManager.beginUndoGrouping()
        body()
        undoManager.endUndoGrouping()
    }

    func testClosingATabCanBeUndoneWhileItHasNotExpired() async {
        let shell = window.openTab(titled: "zsh")
        let logs = window.openTab(titled: "tail -f")
        userAction { window.closeTab(logs) }
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Close Tab")

        now += 3
        undoManager.undo()

        XCTAssertTrue(window.tabs.elementsEqual([shell, logs], by: ===))
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo Close Tab")

        undoManager.redo()
        XCTAssertTrue(window.tabs.elementsEqual([shell], by: ===))
        XCTAssertTrue(undoManager.canUndo)
    }

    func testExpiredTabsCannotBeReopened() async {
        let shell = window.openTab(titled: "zsh")
        let build = window.openTab(titled: "make")
        let logs = window.openTab(titled: "tail -f")
        userAction { window.closeTab(build) }
        now += 10
        userAction { window.closeTab(logs) }
        now += 2

        // The build tab was closed 12 seconds ago; only the logs tab can come back.
        undoManager.undo()
        XCTAssertTrue(window.tabs.elementsEqual([shell, logs], by: ===))

        undoManager.undo()
        XCTAssertTrue(window.tabs.elementsEqual([shell, logs], by: ===))

        window.reapClosedSessions()
        XCTAssertFalse(build.isRunning)
        XCTAssertTrue(logs.isRunning)
        XCTAssertTrue(window.closedSessions.isEmpty)
    }

    func testReapingKillsOnlyExpiredSessions() async {
        let shell = window.openTab(titled: "zsh")
        let build = window.openTab(titled: "make")
        userAction { window.closeTab(build) }
        now += 3
        userAction { window.closeTab(shell) }

        now += 3
        window.reapClosedSessions()

        XCTAssertFalse(build.isRunning)
        XCTAssertTrue(shell.isRunning)
        XCTAssertTrue(window.closedSessions.elementsEqual([shell], by: ===))
        XCTAssertTrue(undoManager.hasPendingActions(for: shell))
        XCTAssertFalse(undoManager.hasPendingActions(for: build))

        undoManager.undo()
        XCTAssertTrue(window.tabs.elementsEqual([shell], by: ===))
    }

    func testRemovingATargetsActionsForgetsItsTimestamp() async {
        let shell = window.openTab(titled: "zsh")
        userAction { window.closeTab(shell) }
        XCTAssertTrue(undoManager.hasPendingActions(for: shell))

        // The user terminates the closed session from the "Recently Closed" menu.
        undoManager.removeAllActions(withTarget: shell)

        XCTAssertFalse(undoManager.hasPendingActions(for: shell))
        undoManager.undo()
        XCTAssertTrue(window.tabs.isEmpty)
    }

    func testRemovingAllActionsForgetsEveryTimestamp() async {
        let shell = window.openTab(titled: "zsh")
        let logs = window.openTab(titled: "tail -f")
        userAction { window.closeTab(shell) }
        userAction { window.closeTab(logs) }

        undoManager.removeAllActions()

        XCTAssertFalse(undoManager.canUndo)
        XCTAssertFalse(undoManager.hasPendingActions(for: shell))
        XCTAssertFalse(undoManager.hasPendingActions(for: logs))
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo")
    }

    func testTheSubclassIsAnUndoManager() async {
        let plain: UndoManager = undoManager
        XCTAssertTrue(plain == undoManager)
        XCTAssertEqual(undoManager.levelsOfUndo, 0)

        let shell = window.openTab(titled: "zsh")
        userAction { window.closeTab(shell) }
        now += 60

        // Called through the base class, the override still runs and the step has expired.
        plain.undo()
        XCTAssertTrue(window.tabs.isEmpty)
    }
}
