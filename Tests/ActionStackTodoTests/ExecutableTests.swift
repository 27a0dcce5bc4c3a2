// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackExampleTestSupport
import ActionStackTodoModel
import Foundation
import Testing

/// Where the built `todo` executable is: in the build folder that holds the test binary, whatever
/// its scratch path.
func todoExecutable() throws -> URL {
    URL(fileURLWithPath: try ChildProcess.builtExecutable(named: "todo"))
}

/// The built example, run as a user runs it, on a database file in a temporary directory.
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.timeLimit(.minutes(10)))
struct TodoExecutableTests {
    @Test func pipedSessionUndoesThroughTheDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-todo-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("todo.sqlite").path
        let script = """
            add Buy milk
            add Call mom
            done 2
            undo
            redo
            fail on
            undo
            fail off
            undo
            redo
            done 1
            clear
            fail after 1
            undo
            undo
            bogus
            quit
            """
        let result = try ChildProcess.run(try todoExecutable().path, [path], input: script + "\n")
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("> add Buy milk"), "commands are echoed when input is not a terminal")
        #expect(lines.contains("todo: [Undo Add “Buy milk”] (Redo)"))
        #expect(lines.contains("todo: [Undo Add “Call mom”] [Redo Mark “Call mom” Done]"))
        #expect(lines.contains("Redo Mark “Call mom” Done"))
        let refusal = "the database refused the write: \(TodoDatabase.refusalMessage) (SQLite error 1811)"
        #expect(
            lines.contains(
                "error: Undo Mark “Call mom” Done failed: action 0 of 1 failed: \(refusal); "
                    + "the rollback restored the list; the step can be tried again"))
        #expect(lines.contains("todo: [Undo Clear 2 Done Items] (Redo)"))
        #expect(
            lines.contains(
                "error: Undo Clear 2 Done Items failed: action 0 of 2 failed: \(refusal); "
                    + "the rollback restored the list; the step can be tried again"))
        #expect(lines.contains("Undo Clear 2 Done Items"))
        #expect(lines.contains("error: unknown command 'bogus'; type help for the list"))
        #expect(lines.last == "bye")

        // The file holds what the program showed last: both items back, both done.
        let stored = try await TodoDatabase(path: path).items()
        #expect(stored.map(\.text) == ["Buy milk", "Call mom"])
        #expect(stored.map(\.isDone) == [true, true])
    }

    /// A directory of its own for one test's database file.
    static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-todo-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A fault is a session's: the `fail after 1` of a session that quit before it fired stays in
    /// the file's `faults` row, and the next session, which knows nothing of it, must not find its
    /// second write refused, nor every write after it (it is the session that armed a one-shot
    /// fault that turns it off once it has refused).
    @Test func aFaultLeftInTheFileByAnEarlierSessionIsOff() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("todo.sqlite").path
        let first = try ChildProcess.run(try todoExecutable().path, [path], input: "add Buy milk\nfail after 1\nquit\n")
        #expect(first.status == 0)
        let second = try ChildProcess.run(
            try todoExecutable().path, [path], input: "add Call mom\nadd Water plants\nadd Feed cat\nquit\n")
        #expect(second.status == 0)
        let lines = second.output.split(separator: "\n").map(String.init)
        for text in ["Call mom", "Water plants", "Feed cat"] { #expect(lines.contains("added “\(text)”")) }
        let database = try TodoDatabase(path: path)
        #expect(try await database.items().map(\.text) == ["Buy milk", "Call mom", "Water plants", "Feed cat"])
        #expect(try await database.writesLeftBeforeRefusal() == nil)
    }

    /// An argument that starts with "-" is an option, and `todo` has only `-h` and `--help`: an
    /// unknown one (`--version`, a mistyped `-help`) is refused, instead of becoming the name of a
    /// database file created in the current directory.
    @Test func anUnknownOptionIsRefusedAndCreatesNoFile() throws {
        let option = "--no-such-option-\(UUID().uuidString)"
        let stray = FileManager.default.currentDirectoryPath + "/" + option
        defer { try? FileManager.default.removeItem(atPath: stray) }
        let result = try ChildProcess.run(try todoExecutable().path, [option], input: "quit\n")
        #expect(result.status == 2)
        #expect(result.output.contains("todo: unknown option '\(option)' (try --help)"))
        #expect(!FileManager.default.fileExists(atPath: stray))
    }

    /// A file that is not a SQLite database is refused with SQLite's reason, as a file that cannot
    /// be opened, not as "the database refused the write" (nothing was written), and it is left as
    /// it was.
    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("notes.txt").path
        let text = String(repeating: "not a database, a text file\n", count: 40)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let result = try ChildProcess.run(try todoExecutable().path, [path], input: "add Buy milk\nquit\n")
        #expect(result.status == 1)
        #expect(result.output == "todo: cannot open \(path): file is not a database (SQLite error 26)\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }
}
