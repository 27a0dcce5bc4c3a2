// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackBoardModel
import ActionStackExampleTestSupport
import Foundation
import Testing

/// The built `board`, quit and launched again: `save FILE`, then `board FILE`, and the history
/// is there.
struct RelaunchTests {
    /// A file in the temporary directory, removed when the test ends.
    final class TemporaryFile {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("board-relaunch-\(UUID().uuidString).board").path

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The lines of `output`.
    func lines(_ output: String) -> [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The first line after the echo of the `index`-th (from 0) occurrence of `command`: its
    /// answer.
    func answer(to command: String, _ index: Int = 0, in lines: [String]) -> String? {
        let echoes = lines.indices.filter { lines[$0] == "> \(command)" }
        guard index < echoes.count, echoes[index] + 1 < lines.count else { return nil }
        return lines[echoes[index] + 1]
    }

    /// The status line that follows the answer to the `index`-th `command`: the buttons of the
    /// context, and whether anything is unsaved.
    func status(after command: String, _ index: Int = 0, in lines: [String]) -> String? {
        let echoes = lines.indices.filter { lines[$0] == "> \(command)" }
        guard index < echoes.count else { return nil }
        return lines[(echoes[index] + 1)...].first { $0.hasPrefix("board: ") || $0.hasPrefix("figure #") }
    }

    @Test func undoAfterRelaunchingUndoesTheChangesMadeBeforeQuitting() throws {
        let file = TemporaryFile()
        let first = try runBoard(
            input: [
                "add 10 20", "add 40 8", "move 1 30 5", "select 2", "color red", "remove 2", "save \(file.path)",
                "quit",
            ].joined(separator: "\n") + "\n")
        #expect(first.status == 0)
        let before = lines(first.output)
        #expect(answer(to: "save \(file.path)", in: before) == "saved the board and its history to '\(file.path)'")
        #expect(before.last(where: { !$0.isEmpty }) == "bye", "saved: quit quits at once")

        let commands = [
            "undo", "select 2", "figure", "undo", "board", "undo", "undo", "undo", "undo", "redo", "quit", "quit",
        ]
        let second = try runBoard([file.path], input: commands.joined(separator: "\n") + "\n")
        #expect(second.status == 0)
        let after = lines(second.output)
        #expect(after.first == "opened '\(file.path)' with its history")
        // Reopened as saved: the same board, the same buttons, nothing unsaved.
        let firstBoard = try #require(after.firstIndex { $0.hasPrefix("figures: ") })
        #expect(after[firstBoard] == "figures: #1 (30.0, 5.0) black r=0.0")
        #expect(after[firstBoard + 2] == "board: [Undo Remove Figure] (Redo)")
        // The last change before quitting is the first undone, and the removed figure comes back
        // with its own history, as the file holds it: saved (only the board is not).
        #expect(answer(to: "undo", 0, in: after) == "Undo Remove Figure")
        #expect(
            status(after: "undo", 0, in: after)
                == "board: [Undo Move to (30.0, 5.0)] [Redo Remove Figure]  * unsaved: board")
        #expect(after.contains("figures: #1 (30.0, 5.0) black r=0.0, #2 (40.0, 8.0) red r=0.0"))
        #expect(status(after: "figure", in: after) == "figure #2: [Undo Change Color] (Redo)  * unsaved: board")
        #expect(answer(to: "undo", 1, in: after) == "Undo Change Color")
        #expect(after.contains("figures: #1 (30.0, 5.0) black r=0.0, #2 (40.0, 8.0) black r=0.0"))
        #expect(answer(to: "undo", 2, in: after) == "Undo Move to (30.0, 5.0)")
        #expect(answer(to: "undo", 3, in: after) == "Undo Add Figure")
        #expect(answer(to: "undo", 4, in: after) == "Undo Add Figure")
        #expect(status(after: "undo", 4, in: after) == "board: (Undo) [Redo Add Figure]  * unsaved: board")
        #expect(after.contains("figures: none"), "undoing everything reaches the empty board")
        #expect(answer(to: "redo", in: after) == "Redo Add Figure")
        #expect(
            answer(to: "quit", in: after)
                == "the board has unsaved changes; type quit again to quit without saving, or save first")
    }

    /// The board's history is a tree: a branch saved before quitting is reached after relaunching.
    @Test func aBranchSurvivesTheRelaunch() throws {
        let file = TemporaryFile()
        let first = try runBoard(
            input: ["add 10 20", "move 1 30 5", "undo", "move 1 5 5", "save \(file.path)", "quit"]
                .joined(separator: "\n") + "\n")
        #expect(first.status == 0)
        let second = try runBoard([file.path], input: "tree\ngoto 2\nundo\nquit\n")
        let after = lines(second.output)
        let tree = try #require(after.firstIndex(of: "> tree"))
        #expect(
            Array(after[(tree + 1)...].prefix(5)) == [
                "board history tree (goto N goes to node N; branch N picks where redo goes):", "0 (start)",
                "1 Add Figure", "|-- 2 Move to (30.0, 5.0)", "`-- 3 Move to (5.0, 5.0)  <- you are here, saved",
            ])
        #expect(answer(to: "goto 2", in: after) == "went to node 2: undid 1 step, then redid 1 step")
        #expect(after.contains("figures: #1 (30.0, 5.0) black r=0.0"))
        #expect(answer(to: "undo", in: after) == "Undo Move to (30.0, 5.0)")
    }

    /// A file whose board was changed after its history was saved opens without the history, and
    /// says so; a file that is no board is refused with a message on standard error.
    @Test func aChangedOrForeignFileIsHandledAtLaunch() throws {
        let file = TemporaryFile()
        _ = try runBoard(input: "add 10 20\nmove 1 30 5\nsave \(file.path)\nquit\n")
        let data = try Data(contentsOf: URL(fileURLWithPath: file.path))
        let text = try #require(String(data: data, encoding: .utf8))
        try Data(text.replacingOccurrences(of: #""x":30"#, with: #""x":31"#).utf8)
            .write(to: URL(fileURLWithPath: file.path))
        let changed = try runBoard([file.path], input: "undo\nquit\n")
        let after = lines(changed.output)
        #expect(after.first == "opened '\(file.path)'")
        #expect(
            after.dropFirst().first
                == "note: the board changed after its history was saved (the fingerprint does not match): "
                + "opened without its history")
        #expect(after.contains("figures: #1 (31.0, 5.0) black r=0.0"))
        #expect(answer(to: "undo", in: after) == "error: nothing to undo in the board context")

        try Data("not a board\n".utf8).write(to: URL(fileURLWithPath: file.path))
        let foreign = try ChildProcess.run(try boardExecutable().path, [file.path], separateErrors: true)
        #expect(foreign.status == 1)
        #expect(foreign.errors.hasPrefix("board: cannot open '"))
        #expect(foreign.errors.contains("not a board file"))
        #expect(foreign.output.isEmpty)
    }
}
