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
import ActionStackTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `board --autosave FILE`, killed (SIGKILL) at random points of a long script and
/// launched again: it comes back as one of the boards the script went through, with that board's
/// history (its status line, the titles of the buttons and the unsaved mark, is the one the
/// uninterrupted run printed there), and never as anything else.
struct BoardAutosaveExecutableTests {
    /// A seeded script in the board's context: adds, moves, colours, removals, undo, redo, moves
    /// through the tree, saves (no nudges: whether two join depends on the time between them). Some commands are refused (a figure already removed); they change
    /// nothing, which is part of what is checked.
    static func script(seed: UInt64, commands: Int) -> [String] {
        var random = SeededGenerator(seed: seed)
        var added = 0
        var script: [String] = []
        while script.count < commands {
            let roll = Int.random(in: 0..<100, using: &random)
            let figure = added == 0 ? 1 : Int.random(in: 1...added, using: &random)
            let x = Int.random(in: 0...80, using: &random)
            let y = Int.random(in: 0...40, using: &random)
            switch roll {
            case ..<15:
                script.append("add \(x) \(y)")
                added += 1
            case ..<40: script.append("move \(figure) \(x) \(y)")
            case ..<50: script += ["select \(figure)", ["color red", "color blue", "radius 2"][x % 3]]
            case ..<55: script.append("remove \(figure)")
            case ..<72: script.append("undo")
            case ..<82: script.append("redo")
            case ..<92: script.append(["earlier", "later", "earlier 2"][x % 3])
            default: script.append("save")
            }
        }
        return script
    }

    /// Each board the output shows (its `figures:` line) with the board's status line after it.
    static func states(in output: String) -> [String] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var states: [String] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("figures: ") {
            guard let status = lines[index...].first(where: { $0.hasPrefix("board: ") }) else { continue }
            states.append(line + " | " + status)
        }
        return states
    }

    @Test(arguments: [UInt64(1), 2])
    func aKilledBoardComesBackAsOneOfTheBoardsItWentThrough(seed: UInt64) throws {
        let board = try boardExecutable().path
        let script = Self.script(seed: seed, commands: 300)
        let input = (["save"] + script).joined(separator: "\n") + "\n"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "board-autosave-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // The uninterrupted run: every board the script goes through.
        let whole = try ChildProcess.run(
            board, ["--autosave", directory.appendingPathComponent("whole.board").path], input: input)
        #expect(whole.status == 0)
        let passed = Self.states(in: whole.output)
        #expect(passed.count > 150, "\(passed.count) boards shown")
        let started = ContinuousClock.now
        _ = try ChildProcess.run(
            board, ["--autosave", directory.appendingPathComponent("timed.board").path], input: input)
        let runTime = ContinuousClock.now - started

        var random = SeededGenerator(seed: seed &+ 100)
        var recoveredStates: Set<String> = []
        for kill in 0..<6 {
            let file = directory.appendingPathComponent("killed-\(kill).board")
            let child = try ChildProcess.start(board, ["--autosave", file.path], input: input)
            let delay = Double.random(in: 0...1, using: &random) * (runTime / .microseconds(1))
            usleep(useconds_t(delay))
            child.send(SIGKILL)
            let killed = try child.wait()
            #expect(killed.status == 128 + SIGKILL || killed.status == 0, "\(killed.status)")

            // The relaunch prints the board it opened, then its input ends (no quit).
            let relaunched = try ChildProcess.run(board, ["--autosave", file.path])
            #expect(relaunched.status == 0)
            let first = relaunched.output.split(separator: "\n").first.map(String.init) ?? ""
            #expect(
                first.hasPrefix("recovered the board from ") || first.hasSuffix("is a new file: save writes it"),
                "\(relaunched.output)")
            let state = try #require(Self.states(in: relaunched.output).first)
            #expect(
                passed.contains(state) || state == "figures: none | board: (Undo) (Redo)",
                "killed after \(Int(delay)) µs, it came back as a board the run never showed:\n\(state)")
            recoveredStates.insert(state)
        }
        // The kills fell at different points (the script's boards are distinct enough that six
        // random points rarely recover the same one twice).
        #expect(recoveredStates.count >= 2, "\(recoveredStates.count) distinct boards after 6 kills in \(runTime)")
    }

    /// Two boards with `--autosave` on one FILE at once: the second took the first's live files
    /// for a crash's, wrote over them, and when either quit it removed the files the other still
    /// counted on. The second is refused, and the first's files are left as they are.
    @Test func aSecondBoardOnTheSameAutosaveIsRefused() throws {
        let board = try boardExecutable().path
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "board-autosave-twice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("both.board")
        let documentURL = BoardAutosave.documentURL(for: file)

        // The first board adds a figure, then waits for input that comes only after a while.
        let quoted = "'" + board.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let first = try ChildProcess.start(
            "/bin/sh", ["-c", "(echo 'add 10 10'; sleep 3) | \(quoted) --autosave '\(file.path)'"])
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? String(contentsOf: documentURL, encoding: .utf8))?.contains("\"number\":1") != true {
            #expect(ContinuousClock.now < deadline, "the first board never autosaved")
            if ContinuousClock.now >= deadline { break }
            usleep(20_000)
        }
        let document = try Data(contentsOf: documentURL)

        let second = try ChildProcess.run(board, ["--autosave", file.path], input: "add 50 30\nquit\nquit\n")
        #expect(second.status == 1, "\(second.output)")
        #expect(second.output.contains("another board"), "\(second.output)")
        #expect((try? Data(contentsOf: documentURL)) == document, "the first board's autosave is as it left it")

        // The first ends without quit: its board comes back.
        #expect(try first.wait().status == 0)
        let relaunched = try ChildProcess.run(board, ["--autosave", file.path])
        #expect(relaunched.output.hasPrefix("recovered the board from "), "\(relaunched.output)")
        #expect(relaunched.output.contains("figures: #1 (10.0, 10.0) black r=0.0\n"), "\(relaunched.output)")
    }
}

/// The command line of `--autosave`: one FILE, once, without `--demo` or `--shared`.
struct BoardAutosaveCommandLineTests {
    @Test(arguments: [
        ["--autosave"], ["--autosave", "a.board", "b.board"], ["--autosave", "--demo", "a.board"],
        ["--autosave", "a.board", "--autosave"], ["--shared", "a.db", "--autosave"],
    ])
    func aMisusedAutosaveIsRefusedBeforeAnythingIsWritten(arguments: [String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "board-autosave-usage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inDirectory = arguments.map { $0.hasPrefix("-") ? $0 : directory.appendingPathComponent($0).path }
        let result = try ChildProcess.run(try boardExecutable().path, inDirectory, input: "add 1 1\n")
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("board: "), "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func helpSaysWhatTheAutosaveKeepsAndWhenItIsRemoved() throws {
        let result = try ChildProcess.run(try boardExecutable().path, ["--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("       board --autosave FILE\n"))
        #expect(result.output.contains("FILE.autosave"))
        #expect(result.output.contains("quit removes them"))
    }
}
