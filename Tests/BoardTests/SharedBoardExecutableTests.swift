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

/// The built `board` with `--shared FILE`, run with piped input: each run is a process that joins
/// the shared board, and one that comes after it takes its history back.
struct SharedBoardExecutableTests {
    func lines(_ output: String) -> [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The first line after the echo of `command`: its answer.
    func answer(to command: String, in lines: [String]) -> String? {
        guard let echo = lines.firstIndex(of: "> \(command)"), echo + 1 < lines.count else { return nil }
        return lines[echo + 1]
    }

    @Test func aSharedBoardRunsFromTheCommandLineAndComesBackWithItsHistory() throws {
        let database = TemporaryDatabase()
        let first = try runBoard(["--shared", database.path], input: "add 10 20\nmove 1 30 5\n")
        #expect(first.status == 0)
        let before = lines(first.output)
        #expect(before.first == "joined the shared board '\(database.path)' as user 1, with a new history")
        #expect(before.contains("board: [Undo Move to (30.0, 5.0)] (Redo)"), "no * unsaved: each change is written")

        // The input ended without quit: the board left, and the next one takes its history back.
        let second = try runBoard(["--shared", database.path], input: "undo\nsave\nquit\n")
        #expect(second.status == 0)
        let after = lines(second.output)
        #expect(after.first == "joined the shared board '\(database.path)' as user 1, with your history")
        #expect(after.contains("figures: #1 (30.0, 5.0) black r=0.0"))
        #expect(answer(to: "undo", in: after) == "Undo Move to (30.0, 5.0)")
        #expect(after.contains("board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]"))
        #expect(
            answer(to: "save", in: after)
                == "error: a shared board is written to its database with every change: there is nothing to save")
        #expect(answer(to: "quit", in: after) == "bye", "a shared board quits at once")
    }

    @Test @MainActor func commandLineMistakesAreRefusedOnStandardError() throws {
        let database = TemporaryDatabase()
        let board = try boardExecutable().path
        let mistakes: [([String], String)] = [
            (["--shared"], "board: --shared takes one FILE, once (try --help)"),
            (["--shared", "a.db", "--shared", "b.db"], "board: --shared takes one FILE, once (try --help)"),
            (
                ["--shared", database.path, "--demo"],
                "board: --shared FILE takes no other FILE, and no --demo (try --help)"
            ),
            (
                ["--shared", database.path, "other.board"],
                "board: --shared FILE takes no other FILE, and no --demo (try --help)"
            ),
        ]
        for (arguments, message) in mistakes {
            let result = try ChildProcess.run(board, arguments, separateErrors: true)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors == message + "\n", "\(arguments)")
            #expect(result.output.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: database.path), "no mistake made the file")

        // A file that is no shared board is refused, and left as it is.
        try Data("a plain text file\n".utf8).write(to: URL(fileURLWithPath: database.path))
        let refused = try ChildProcess.run(board, ["--shared", database.path], separateErrors: true)
        #expect(refused.status == 1)
        #expect(
            refused.errors
                == "board: cannot share \(Session.quote(database.path)): file is not a database (SQLite error 26)\n")
        #expect(try String(contentsOfFile: database.path, encoding: .utf8) == "a plain text file\n")
    }

    @Test func helpTellsHowToShareABoard() throws {
        let (help, status) = try runBoard(["--help"])
        #expect(status == 0)
        #expect(help.contains("usage: board [--demo] [FILE]\n       board --shared FILE\n"))
        #expect(help.contains("board --shared FILE (swift run board --shared FILE, in two terminals)"))
        for line in help.split(separator: "\n") { #expect(line.count <= 79, "\(line)") }
    }
}
