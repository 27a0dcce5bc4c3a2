// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// `board --shared FILE` in two real terminals: tmux runs two boards on one database, the test
/// types in each and reads both screens. Without tmux the suite is skipped, and `swift test`
/// reports it as skipped; with BOARD_REQUIRE_TMUX=1 (CI) a missing tmux fails it.
@Suite(
    .enabled(
        if: TmuxPresence.path != nil || TmuxPresence.required,
        "tmux is not installed (set BOARD_REQUIRE_TMUX=1 to make that a failure)"))
struct SharedBoardTerminalTests {
    @Test func twoTerminalsShareOneBoardAndEachUndoesItsOwnChanges() throws {
        try #require(TmuxPresence.path != nil, "tmux is required here (BOARD_REQUIRE_TMUX=1) but is not installed")
        let database = TemporaryDatabase()
        let launch = "env -u NO_COLOR '\(try boardExecutable().path)' --shared '\(database.path)'"
        // The first pane's board quits and, once the test presses Return, starts again in the
        // same terminal.
        let first = try TerminalTests.Terminal(
            "shared-1", running: "\(launch); echo BOARD-EXITED; read again; \(launch); echo BOARD-EXITED; sleep 30")
        defer { first.stop() }
        _ = try first.waitFor("as user 1, with a new history")
        let second = try TerminalTests.Terminal("shared-2", running: "\(launch); echo BOARD-EXITED; sleep 30")
        defer { second.stop() }
        _ = try second.waitFor("as user 2, with a new history")

        // Each step waits for the status line, the last line a command prints. A shared board
        // shows no "* unsaved": every change is written at once.
        _ = try first.enter("add 10 20", expecting: "board: [Undo Add Figure] (Redo)\n")
        _ = try first.enter("add 60 30", expecting: "added figure #2 at (60.0, 30.0)")
        _ = try first.enter("move 1 30 5", expecting: "board: [Undo Move to (30.0, 5.0)] (Redo)\n")
        _ = try first.enter("move 2 70 35", expecting: "board: [Undo Move to (70.0, 35.0)] (Redo)\n")

        // The second pane sees the first's changes without typing (its timer reads the log), and
        // none of them is an undo step there.
        var shown = try second.waitFor(
            "figures: #1 (30.0, 5.0) black r=0.0, #2 (70.0, 35.0) black r=0.0\nselected: none\nboard: (Undo) (Redo)\n")
        #expect(shown.contains("user 1 put figure #1 on the board at (10.0, 20.0)\n"), "\(shown)")
        #expect(shown.contains("user 1 moved figure #2 to (70.0, 35.0)\n"), "\(shown)")
        var start = max(0, try first.lines().count - 1)
        _ = try second.enter("move 1 50 10", expecting: "board: [Undo Move to (50.0, 10.0)] (Redo)\n")

        // The first pane hears of it; its newest step is the move of figure 2, still live.
        shown = try first.waitFor("board: [Undo Move to (70.0, 35.0)] (Redo)\n", from: start)
        #expect(shown.contains("user 2 moved figure #1 to (50.0, 10.0)\n"), "\(shown)")
        shown = try first.enter("undo", expecting: "board: [Undo Add Figure] [Redo Move to (70.0, 35.0)]\n")
        #expect(shown.contains("> undo\nUndo Move to (70.0, 35.0)\n"), "\(shown)")
        // The first pane's move of figure 1 would undo the second's move: the title skipped it,
        // and the next undo takes back the add of figure 2. Figure 1 stays where the second moved it.
        shown = try first.enter("undo", expecting: "board: [Undo Add Figure] [Redo Add Figure]\n")
        #expect(shown.contains("> undo\nUndo Add Figure\n"), "\(shown)")
        #expect(shown.contains("figures: #1 (50.0, 10.0) black r=0.0\n"), "\(shown)")

        // The second pane removes figure 1: the first pane's buttons change at once, without a
        // command (its add of figure 1, the last step it could undo, went with the figure).
        _ = try second.waitFor("user 1 removed figure #2")
        start = max(0, try first.lines().count - 1)
        _ = try second.enter("remove 1", expecting: "removed figure #1")
        shown = try first.waitFor("board: (Undo) [Redo Add Figure]\n", from: start)
        #expect(shown.contains("user 2 removed figure #1\n"), "\(shown)")
        #expect(shown.contains("figures: none\n"), "\(shown)")

        // The first pane quits; meanwhile the second adds a figure; the first comes back in the
        // same terminal, with its history and the second's change.
        _ = try first.enter("quit", expecting: "BOARD-EXITED")
        _ = try second.enter("add 5 5", expecting: "added figure #3 at (5.0, 5.0)")
        start = max(0, try first.lines().count - 1)
        try first.tmux(["send-keys", "-t", "board", "Enter"])
        shown = try first.waitFor("board: (Undo) [Redo Add Figure]\n", from: start)
        #expect(
            shown.contains("your history; 1 change made since applied\n"),
            "the history survived the relaunch:\n\(shown)")
        #expect(shown.contains("figures: #3 (5.0, 5.0) black r=0.0\n"), "\(shown)")
        let secondStart = max(0, try second.lines().count - 1)
        shown = try first.enter("redo", expecting: "board: [Undo Add Figure] [Redo Move to (70.0, 35.0)]\n")
        #expect(shown.contains("> redo\nRedo Add Figure\n"), "\(shown)")
        #expect(shown.contains("figures: #2 (60.0, 30.0) black r=0.0, #3 (5.0, 5.0) black r=0.0\n"), "\(shown)")
        shown = try second.waitFor(
            "figures: #2 (60.0, 30.0) black r=0.0, #3 (5.0, 5.0) black r=0.0\n", from: secondStart)
        #expect(shown.contains("user 1 put figure #2 on the board at (60.0, 30.0)\n"), "\(shown)")
        _ = try first.enter("quit", expecting: "BOARD-EXITED")
        _ = try second.enter("quit", expecting: "BOARD-EXITED")
    }
}
