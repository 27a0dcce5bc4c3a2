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

/// Where the built `board` executable is: in the build folder that holds the test binary (on Linux
/// the running executable; on Apple platforms the loaded `.xctest` bundle), whatever its scratch
/// path (CI's sanitizer runs use their own).
func boardExecutable() throws -> URL {
    URL(fileURLWithPath: try ChildProcess.builtExecutable(named: "board"))
}

/// Runs `board` with `arguments`, feeding `input` on standard input (a file, not a terminal).
func runBoard(_ arguments: [String] = [], input: String = "") throws -> (output: String, status: Int32) {
    let result = try ChildProcess.run(try boardExecutable().path, arguments, input: input)
    return (result.output, result.status)
}

/// The built example, run as a user runs it.
struct ExecutableTests {
    @Test func pipedCommandsWorkLikeTypedOnes() throws {
        let script = """
            add 10 20
            move 1 30 5
            undo
            redo
            color blue
            figure
            undo
            bogus
            quit
            quit
            """
        let (output, status) = try runBoard(input: script)
        #expect(status == 0)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("> add 10 20"), "commands are echoed when input is not a terminal")
        #expect(lines.contains("board: [Undo Move to (30.0, 5.0)] (Redo)  * unsaved: board"))
        #expect(lines.contains("Undo Move to (30.0, 5.0)"))
        #expect(lines.contains("board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]  * unsaved: board"))
        #expect(lines.contains("Redo Move to (30.0, 5.0)"))
        #expect(lines.contains("figure #1 is now blue"))
        // The status line names the histories not at their saved state: undoing the figure's
        // change brings its own history back to its saved state, while the board's is not.
        #expect(lines.contains("figure #1: [Undo Change Color] (Redo)  * unsaved: board, figure #1"))
        #expect(lines.contains("figure #1: (Undo) [Redo Change Color]  * unsaved: board"))
        #expect(lines.contains("error: unknown command 'bogus'; type help for the list"))
        #expect(lines.contains("the board has unsaved changes; type quit again to quit without saving, or save first"))
        #expect(lines.last == "bye")
        #expect(!output.contains("\u{1B}"), "piped output has no colour codes")
    }

    /// Every refusal the session knows, piped to the real program: each answers with its one
    /// error line right after its echo, and none of them changes the board.
    @Test func everyRefusedLineChangesNothing() throws {
        let withFigure = (setUp: ["add 10 20", "save"], refusals: SessionTests.refusals)
        let empty = (
            setUp: [String](),
            refusals: [
                ("figure", "no figure is selected; use select N"),
                ("color red", "no figure is selected; use select N"),
                ("radius 1", "no figure is selected; use select N"),
                ("undo", "nothing to undo in the board context"),
                ("redo", "nothing to redo in the board context"),
                ("history 1", "there is no node 1 in the board's history (type tree to see its nodes)"),
                ("goto 1", "there is no node 1 in the board's history (type tree to see its nodes)"),
                ("branch 0", "no branch leaves node 0, where you are: there is nothing to redo here"),
            ]
        )
        for (setUp, refusals) in [withFigure, empty] {
            let script = setUp + refusals.map(\.0) + ["history", "quit"]
            let (output, status) = try runBoard(input: script.joined(separator: "\n") + "\n")
            #expect(status == 0)
            let lines = output.split(separator: "\n").map(String.init)
            for (command, message) in refusals {
                let echo = try #require(lines.firstIndex(of: "> \(command)"), "\(command) was not echoed")
                let answer = lines[echo + 1]
                #expect(answer.hasPrefix("error: ") && answer.contains(message), "'\(command)' answered '\(answer)'")
                #expect(lines[echo + 2].hasPrefix("> "), "'\(command)' answered with more than one line")
            }
            // The history is as the set-up left it: nothing refused became a step or a change.
            let history = try #require(lines.firstIndex(of: "> history"))
            let expected =
                setUp.isEmpty
                ? [
                    "board history (goto N goes to node N; tree draws every branch):",
                    "  0  (start)  <- you are here, saved",
                ]
                : [
                    "board history (goto N goes to node N; tree draws every branch):", "  0  (start)",
                    "  1  Add Figure  <- you are here, saved",
                ]
            #expect(Array(lines[(history + 1)...].prefix(expected.count)) == expected)
        }
    }

    @Test func aLongLineIsQuotedShortAndSafely() throws {
        let long = "add " + String(repeating: "9", count: 5000) + " 1"
        let (output, status) = try runBoard(input: long + "\nmove \u{1B}[2J 1 1\nquit\n")
        #expect(status == 0)
        let errors = output.split(separator: "\n").filter { $0.hasPrefix("error: ") }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.count < 160 }, "\(errors.map { $0.prefix(200) })")
        #expect(errors.first?.contains("'" + String(repeating: "9", count: 37) + "...'") == true)
        #expect(errors.last == "error: figure number must be a whole number, not '?[2J' (0 to 999999999)")
        #expect(!output.contains("\u{1B}"), "an escape the user typed never reaches the terminal")
    }

    /// A huge line is read in time linear in its length (an 8 MB line took minutes when the
    /// reader rescanned it after every read) and refused once, with a short echo; the next
    /// commands run as usual. A line of exactly the limit is still read.
    @Test func aHugeLineIsReadQuicklyAndRefusedOnce() throws {
        let huge = "add " + String(repeating: "9", count: 8_000_000)
        let longest = "add 1 1" + String(repeating: " ", count: LineBuffer.maximumLength - 7)
        let (output, status) = try runBoard(input: "\(huge)\n\(longest)\nquit\n")
        #expect(status == 0)
        let lines = output.split(separator: "\n").map(String.init)
        let echo = "> add " + String(repeating: "9", count: 36) + "..."
        let echoes = lines.filter { $0.hasPrefix("> ") }.map { $0.prefix(60).trimmingCharacters(in: .whitespaces) }
        #expect(echoes == [echo, "> add 1 1", "> quit"])
        let refusal = try #require(lines.firstIndex(of: echo))
        #expect(lines[refusal + 1] == "error: line too long (over 65536 bytes); it was ignored")
        #expect(lines.contains("added figure #1 at (1.0, 1.0)"))
        #expect(output.count < 200_000, "nothing echoes the huge line")
    }

    /// Echoes and quotes show what was typed: its case, a tab as a space, and a "?" for each
    /// character that could rearrange the line (U+202E) or break it (U+2028).
    @Test func echoesAndQuotesShowWhatWasTyped() throws {
        let (output, status) = try runBoard(input: "FROB\tnow\ncolor\t\u{202E}der\nadd\u{2028}1 1\nquit\n")
        #expect(status == 0)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for expected in [
            "> FROB now", "error: unknown command 'FROB'; type help for the list", "> color ?der",
            "error: unknown colour '?der' (one of: black, red, green, blue, yellow, orange, purple)", "> add?1 1",
            "added figure #1 at (1.0, 1.0)",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
        #expect(!output.contains("\u{202E}") && !output.contains("\u{2028}") && !output.contains("\t"))
    }

    @Test func endOfInputEndsTheProgram() throws {
        let (output, status) = try runBoard(input: "add 1 1\nmove 1 2 2")  // the last line has no newline
        #expect(status == 0)
        #expect(output.hasSuffix("board: [Undo Move to (2.0, 2.0)] (Redo)  * unsaved: board\n"))
    }

    @Test func noColourWhenPipedEvenWithoutNoColor() throws {
        // Standard output is a file here, so there is no colour whatever the environment says.
        let (output, _) = try runBoard(input: "add 1 1\ncolor red\nquit\n")
        #expect(output.contains("figure #1 is now red"))
        #expect(!output.contains("\u{1B}"))
    }

    @Test func demoPlaysTheScriptedSession() throws {
        let (output, status) = try runBoard(["--demo"])
        #expect(status == 0)
        let lines = output.split(separator: "\n").map(String.init)
        for expected in [
            "> add 10 20", "added figure #1 at (10.0, 20.0)", "> move 1 30 24", "> nudge 1 2 0",
            "board: [Undo Move to (34.0, 24.0)] (Redo)  * unsaved: board", "> color red", "Undo Change Corner Radius",
            "Undo Move to (34.0, 24.0)", "Redo Move to (34.0, 24.0)", "removed figure #2", "Undo Remove Figure",
            // The removed figure came back with its own history: its colour change undoes.
            "Undo Change Color",
            // A change after undoing keeps the undone steps as a branch, which goto reaches.
            "`-- 6 Move to (10.0, 10.0)  <- you are here", "went to node 5: undid 1 step, then redid 2 steps",
            "went back to node 4: undid 1 step", "redo now takes node 4: Move to (34.0, 24.0)",
            // The board's history is at its saved node; figure #2's is not.
            "board: [Undo Move to (34.0, 24.0)] [Redo Remove Figure]  * unsaved: figure #2",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
    }

    @Test func helpAndUnknownOptions() throws {
        let (help, helpStatus) = try runBoard(["--help"])
        #expect(helpStatus == 0)
        #expect(help.contains("usage: board [--demo]"))
        #expect(help.contains("nudge N DX DY"))
        for line in help.split(separator: "\n") { #expect(line.count <= 79, "\(line)") }
        // An error about the command line goes to standard error, where a script expects it.
        let result = try ChildProcess.run(try boardExecutable().path, ["--frob"], separateErrors: true)
        #expect(result.status == 2)
        #expect(result.errors == "board: unknown option '--frob' (try --help)\n")
        #expect(result.output.isEmpty)
    }

    /// The README's transcript is what the program prints for the commands in it, from the first
    /// command on. A line "..." in the README stands for lines left out.
    /// Scripts/update-board-transcript.py rewrites it.
    @Test func theReadmeTranscriptIsWhatTheProgramPrints() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../README.md").standardized,
            encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- board transcript: start -->\n```text\n"))
        let end = try #require(
            readme.range(of: "```\n<!-- board transcript: end -->", range: start.upperBound..<readme.endIndex))
        let shown = readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
        let commands = shown.filter { $0.hasPrefix("> ") }.map { String($0.dropFirst(2)) }
        #expect(commands.count >= 8)
        let (output, status) = try runBoard(input: commands.joined(separator: "\n") + "\n")
        #expect(status == 0)
        // From the first command on: the README leaves out the empty board printed at the start.
        let printed = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            .drop { !$0.hasPrefix("> ") }.map { $0 }
        let same = Self.matches(shown, printed)
        #expect(same, "the README's transcript is not what the program prints; run Scripts/update-board-transcript.py")
    }

    /// Whether `lines` is `pattern` with each "..." standing for one or more lines.
    static func matches(_ pattern: [String], _ lines: [String]) -> Bool {
        guard let first = pattern.first else { return lines.isEmpty }
        let rest = Array(pattern.dropFirst())
        if first == "..." {
            return lines.indices.contains { matches(rest, Array(lines[($0 + 1)...])) }
        }
        return lines.first == first && matches(rest, Array(lines.dropFirst()))
    }
}

/// Where tmux is, and whether it must be there. (Outside `TerminalTests`, so that the suite's own
/// trait can read it.)
enum TmuxPresence {
    static let path = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let required = ProcessInfo.processInfo.environment["BOARD_REQUIRE_TMUX"] == "1"
}

/// The interactive mode in a real terminal: tmux runs `board`, the test types keys and reads the
/// screen. Without tmux the suite is skipped, and `swift test` reports it as skipped, not passed.
/// CI installs tmux and sets BOARD_REQUIRE_TMUX=1, so there the tests run and a missing tmux fails.
///
/// Each test runs its own tmux server (its own socket), so tests running side by side never share
/// one, and the server is killed at the end.
@Suite(
    .enabled(
        if: TmuxPresence.path != nil || TmuxPresence.required,
        "tmux is not installed (set BOARD_REQUIRE_TMUX=1 to make that a failure)"))
struct TerminalTests {
    static let tmux = TmuxPresence.path
    static let required = TmuxPresence.required

    /// A tmux server running one command in a 100 x 40 pane.
    struct Terminal {
        let socket: String

        /// Starts `command` (a shell command line) in a new tmux server.
        init(_ name: String, running command: String) throws {
            socket = "actionstack-\(name)-\(ProcessInfo.processInfo.processIdentifier)"
            try tmux(["new-session", "-d", "-s", "board", "-x", "100", "-y", "40", command])
        }

        /// Runs a tmux command on this server and returns what it printed.
        ///
        /// `new-session` starts the tmux server, which lives on after the command; its output goes
        /// to /dev/null so that the server holds nothing of this process's.
        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            let path = try #require(TerminalTests.tmux)
            let captures = arguments.first != "new-session"
            let result = try ChildProcess.run(
                path, ["-L", socket] + arguments, captureOutput: captures, timeLimit: .seconds(20))
            return result.output
        }

        /// Everything the terminal has shown since it started (history and screen), without the
        /// blank lines below the cursor; with `escapes`, with the colour escape sequences.
        func lines(escapes: Bool = false) throws -> [String] {
            let text = try tmux(["capture-pane", "-p", "-S", "-"] + (escapes ? ["-e"] : []) + ["-t", "board"])
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            while lines.last?.isEmpty == true { lines.removeLast() }
            return lines
        }

        /// Waits until what the terminal shows from line `start` on contains `text` (at most ten
        /// seconds); returns that part, each line ending in a newline.
        func waitFor(_ text: String, from start: Int = 0) throws -> String {
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            func shown() throws -> String { try lines().dropFirst(start).map { $0 + "\n" }.joined() }
            var output = try shown()
            while !output.contains(text) && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                output = try shown()
            }
            return output
        }

        /// Types `keys` at the prompt, then Return, and waits for `expected` in what follows the
        /// prompt's line, so text left on the screen by an earlier command cannot answer for it.
        func enter(_ keys: String, expecting expected: String) throws -> String {
            try enter([keys], expecting: expected)
        }

        /// Types several lines at once (they reach the program together), then waits as above.
        func enter(_ keys: [String], expecting expected: String) throws -> String {
            let start = max(0, try lines().count - 1)
            // A line that is not a key name is typed as it is; "Enter" is Return.
            try tmux(["send-keys", "-t", "board"] + keys.flatMap { [$0, "Enter"] })
            return try waitFor(expected, from: start)
        }

        func stop() {
            _ = try? tmux(["kill-server"])
        }
    }

    /// A shell command that runs the board with the environment a user's terminal would give it.
    func command(_ board: URL, environment: String = "env -u NO_COLOR") -> String {
        "\(environment) '\(board.path)'; echo BOARD-EXITED; sleep 30"
    }

    /// Fails the test when tmux is missing; the suite runs without it only when it is required.
    func requireTmux() throws {
        try #require(Self.tmux != nil, "tmux is required here (BOARD_REQUIRE_TMUX=1) but is not installed")
    }

    @Test func interactiveSessionInATerminal() throws {
        try requireTmux()
        let terminal = try Terminal("session", running: command(try boardExecutable()))
        defer { terminal.stop() }

        var shown = try terminal.waitFor("type help")
        #expect(shown.contains("ActionStack board"), "a terminal gets the greeting and a prompt")
        // Each line is typed, then what follows it must show the expected text.
        let script = [
            ("add 10 20", "board: [Undo Add Figure] (Redo)  * unsaved"),
            ("add 60 30", "added figure #2 at (60.0, 30.0)"),
            ("move 1 30 5", "board: [Undo Move to (30.0, 5.0)] (Redo)  * unsaved"),
            ("select 1", "selected figure #1"),
            ("color red", "figure #1 is now red"),
            ("save", "board: [Undo Move to (30.0, 5.0)] (Redo)\n"),
            ("undo", "board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]  * unsaved"),
            ("undo", "board: [Undo Add Figure] [Redo Add Figure]  * unsaved"),
            // The titles after redo: the bug report's sequence.
            ("redo", "board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]  * unsaved"),
            ("redo", "board: [Undo Move to (30.0, 5.0)] (Redo)\n"),
            ("undo", "\nUndo Move to (30.0, 5.0)\n"),
            ("undo", "\nUndo Add Figure\n"),
            ("redo", "\nRedo Add Figure\n"),
            ("redo", "\nRedo Move to (30.0, 5.0)\n"),
            ("move 1 abc 5", "error: x must be a number, not 'abc'"),
        ]
        for (keys, expected) in script {
            shown = try terminal.enter(keys, expecting: expected)
            #expect(shown.contains(expected), "after typing '\(keys)':\n\(shown)")
        }

        // A drag: the two nudges reach the program together, well within the one-second window.
        // Waits for the status line, the last line the second nudge prints: its first line may be
        // on the screen before the rest (a slow run, under ThreadSanitizer, showed it).
        shown = try terminal.enter(
            ["nudge 1 2 0", "nudge 1 2 0"], expecting: "board: [Undo Move to (34.0, 5.0)] (Redo)  * unsaved")
        #expect(shown.contains("nudged figure #1 to (34.0, 5.0)"), "\(shown)")
        #expect(shown.contains("board: [Undo Move to (34.0, 5.0)] (Redo)  * unsaved"), "\(shown)")
        shown = try terminal.enter("history", expecting: "<- you are here")
        #expect(shown.contains("  3  Move to (30.0, 5.0)  saved\n"), "\(shown)")
        #expect(shown.contains("  4  Move to (34.0, 5.0)  <- you are here\n"), "one step for the drag:\n\(shown)")
        #expect(!shown.contains("  5  "))
        shown = try terminal.enter("undo", expecting: "board: [Undo Move to (30.0, 5.0)] [Redo Move to (34.0, 5.0)]\n")
        #expect(shown.contains("selected: #1 at (30.0, 5.0)"), "one undo takes back the whole drag:\n\(shown)")
        #expect(!shown.contains("* unsaved"), "back at the saved state")

        // Colour: the red figure's label is drawn in red (capture-pane -e keeps the escapes).
        let colored = try terminal.lines(escapes: true).suffix(20).joined(separator: "\n")
        #expect(colored.contains("\u{1B}[31m"), "a terminal gets colour:\n\(colored)")
        #expect(colored.contains("[*1]"))

        // The branching history. At node 3 (saved), with the drag (node 4) undone: a new change
        // keeps the drag as a branch, and goto, earlier and later go back to it and return. Each
        // step waits for the status line, the last line a command prints.
        let moved = "board: [Undo Move to (70.0, 35.0)] (Redo)  * unsaved"
        let dragged = "board: [Undo Move to (34.0, 5.0)] (Redo)  * unsaved"
        let saved = "board: [Undo Move to (30.0, 5.0)] [Redo Move to (34.0, 5.0)]\n"
        let branches: [(keys: String, expected: String, answer: String, figures: String)] = [
            ("move 2 70 35", moved, "moved figure #2 to (70.0, 35.0)", "#1 (30.0, 5.0) red r=0.0, #2 (70.0, 35.0)"),
            (
                "goto 4", dragged, "went to node 4: undid 1 step, then redid 1 step",
                "#1 (34.0, 5.0) red r=0.0, #2 (60.0, 30.0)"
            ),
            ("earlier", saved, "went back to node 3: undid 1 step", "#1 (30.0, 5.0) red r=0.0, #2 (60.0, 30.0)"),
            ("later 2", moved, "went forward to node 5: redid 1 step", "#1 (30.0, 5.0) red r=0.0, #2 (70.0, 35.0)"),
            (
                "earlier", dragged, "went back to node 4: undid 1 step, then redid 1 step",
                "#1 (34.0, 5.0) red r=0.0, #2 (60.0, 30.0)"
            ),
            (
                "later", moved, "went forward to node 5: undid 1 step, then redid 1 step",
                "#1 (30.0, 5.0) red r=0.0, #2 (70.0, 35.0)"
            ),
        ]
        for (keys, expected, answer, figures) in branches {
            shown = try terminal.enter(keys, expecting: expected)
            #expect(shown.contains("\n\(answer)\n"), "after typing '\(keys)':\n\(shown)")
            #expect(shown.contains("figures: \(figures)"), "after typing '\(keys)':\n\(shown)")
            #expect(shown.contains(expected), "after typing '\(keys)':\n\(shown)")
        }
        // The tree: the drag's branch kept, where you are, and the saved node.
        shown = try terminal.enter("tree", expecting: "`-- 5 Move to (70.0, 35.0)")
        #expect(
            shown.contains(
                """
                > tree
                board history tree (goto N goes to node N; branch N picks where redo goes):
                0 (start)
                1 Add Figure
                2 Add Figure
                3 Move to (30.0, 5.0)       saved
                |-- 4 Move to (34.0, 5.0)
                `-- 5 Move to (70.0, 35.0)  <- you are here
                >
                """), "\(shown)")
        shown = try terminal.enter("goto 3", expecting: saved)
        #expect(shown.contains("selected: #1 at (30.0, 5.0), color red"), "\(shown)")
        shown = try terminal.enter("tree", expecting: "`-- 5 Move to (70.0, 35.0)")
        #expect(shown.contains("3 Move to (30.0, 5.0)       <- you are here, saved\n"), "\(shown)")
        #expect(shown.contains("`-- 5 Move to (70.0, 35.0)  (redo)\n"), "redo goes back to node 5:\n\(shown)")

        shown = try terminal.enter("quit", expecting: "BOARD-EXITED")
        #expect(shown.contains("bye\nBOARD-EXITED\n"), "back at the saved node, quit quits:\n\(shown)")
    }

    @Test func theLineCanBeEditedAndRecalled() throws {
        try requireTmux()
        let terminal = try Terminal("editing", running: command(try boardExecutable()))
        defer { terminal.stop() }
        _ = try terminal.waitFor("type help")
        // Each step waits for the status line, the last line a command prints, so that the next
        // one starts after all of it.
        let added = "board: [Undo Add Figure] (Redo)  * unsaved"
        // Typed "ad 3 3", then Home, Right, Right and the missing "d".
        var start = max(0, try terminal.lines().count - 1)
        try terminal.tmux(["send-keys", "-t", "board", "ad 3 3", "Home", "Right", "Right", "d", "Enter"])
        var shown = try terminal.waitFor(added, from: start)
        #expect(shown.contains("> add 3 3\nadded figure #1 at (3.0, 3.0)\n"), "\(shown)")
        // Up recalls the line, and Backspace deletes.
        start = max(0, try terminal.lines().count - 1)
        try terminal.tmux(["send-keys", "-t", "board", "Up", "BSpace", "4", "Enter"])
        shown = try terminal.waitFor(added, from: start)
        #expect(shown.contains("> add 3 4\nadded figure #2 at (3.0, 4.0)\n"), "\(shown)")
        // Ctrl-C abandons a line.
        start = max(0, try terminal.lines().count - 1)
        try terminal.tmux(["send-keys", "-t", "board", "remove 1", "C-c", "undo", "Enter"])
        shown = try terminal.waitFor("board: [Undo Add Figure] [Redo Add Figure]  * unsaved", from: start)
        #expect(shown.contains("> remove 1^C\n> undo\nUndo Add Figure\n"), "\(shown)")
        #expect(!shown.contains("removed"), "\(shown)")
    }

    /// Ctrl-D on an empty line is `quit`, shown after the prompt as if typed: with unsaved
    /// changes it warns, and a second Ctrl-D, or `quit`, leaves (it once left at once, and the
    /// changes with it). Both ways of reading a terminal: the line editor, and the terminal's own
    /// line input, which a "dumb" terminal gets.
    @Test(arguments: [("env -u NO_COLOR", "C-d"), ("env -u NO_COLOR TERM=dumb", "quit")])
    func controlDIsQuit(environment: String, secondKey: String) throws {
        try requireTmux()
        let terminal = try Terminal(
            "eof-\(secondKey)", running: command(try boardExecutable(), environment: environment))
        defer { terminal.stop() }
        _ = try terminal.waitFor("type help")
        _ = try terminal.enter("add 1 1", expecting: "board: [Undo Add Figure] (Redo)  * unsaved: board")
        let warning = "the board has unsaved changes; type quit again to quit without saving, or save first"
        var start = try terminal.lines().count - 1
        try terminal.tmux(["send-keys", "-t", "board", "C-d"])
        var shown = try terminal.waitFor(warning, from: start)
        #expect(shown.hasPrefix("> quit\n\(warning)\n"), "the changes are kept:\n\(shown)")
        start = try terminal.lines().count - 1
        try terminal.tmux(["send-keys", "-t", "board"] + (secondKey == "C-d" ? ["C-d"] : ["quit", "Enter"]))
        shown = try terminal.waitFor("BOARD-EXITED", from: start)
        #expect(shown == "> quit\nbye\nBOARD-EXITED\n", "the shell's output starts on a line of its own")
    }

    /// With nothing unsaved, Ctrl-D leaves at once, as `quit` does.
    @Test func controlDLeavesASavedBoardAtOnce() throws {
        try requireTmux()
        let terminal = try Terminal("eof-saved", running: command(try boardExecutable()))
        defer { terminal.stop() }
        _ = try terminal.waitFor("type help")
        _ = try terminal.enter("add 1 1", expecting: "added figure #1")
        _ = try terminal.enter("save", expecting: "board: [Undo Add Figure] (Redo)\n")
        let start = try terminal.lines().count - 1
        try terminal.tmux(["send-keys", "-t", "board", "C-d"])
        let shown = try terminal.waitFor("BOARD-EXITED", from: start)
        #expect(shown == "> quit\nbye\nBOARD-EXITED\n")
    }

    /// A line longer than the program takes, pasted at the prompt, is refused as the same line
    /// piped is, and nothing changes (the line editor once kept its first 64 KiB, and the cut line
    /// ran: here, "add 1 1").
    @Test func aTooLongLineIsRefusedAtATerminalAsWhenPiped() throws {
        try requireTmux()
        let terminal = try Terminal("too-long", running: command(try boardExecutable()))
        defer { terminal.stop() }
        _ = try terminal.waitFor("type help")
        let paste = FileManager.default.temporaryDirectory.appendingPathComponent("board-paste-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: paste) }
        try Data(("add 1 1" + String(repeating: " ", count: LineBuffer.maximumLength)).utf8).write(to: paste)
        let start = try terminal.lines().count - 1
        try terminal.tmux(["load-buffer", paste.path])
        try terminal.tmux(["paste-buffer", "-t", "board"])
        try terminal.tmux(["send-keys", "-t", "board", "Enter"])
        // The refusal of the piped line (aHugeLineIsReadQuicklyAndRefusedOnce), word for word.
        let refusal = "error: line too long (over 65536 bytes); it was ignored"
        var shown = try terminal.waitFor(refusal, from: start)
        #expect(shown.contains("\n\(refusal)\n"), "\(shown)")
        #expect(!shown.contains("added"), "\(shown)")
        shown = try terminal.enter("history", expecting: "<- you are here")
        #expect(shown.contains("  0  (start)  <- you are here, saved\n"), "nothing changed:\n\(shown)")
    }

    /// Wide characters at the prompt: the cursor is where the terminal shows the character it is
    /// on (each Chinese character takes two columns), and a line wider than the terminal scrolls
    /// instead of wrapping onto a second row.
    @Test func theCursorCountsColumnsForWideCharacters() throws {
        try requireTmux()
        let terminal = try Terminal("wide", running: command(try boardExecutable()))
        defer { terminal.stop() }
        _ = try terminal.waitFor("type help")
        func cursor() throws -> (x: Int, y: Int) {
            let text = try terminal.tmux(["display-message", "-p", "-t", "board", "#{cursor_x} #{cursor_y}"])
            let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            return (numbers.first ?? -1, numbers.last ?? -1)
        }
        func waitForCursor(x: Int) throws -> Int {
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            var shown = try cursor().x
            while shown != x && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                shown = try cursor().x
            }
            return shown
        }
        try terminal.tmux(["send-keys", "-t", "board", "add 你好世界", "Left", "Left"])
        // "> " then "add " then 你好: 2 + 4 + 4 columns.
        #expect(try waitForCursor(x: 10) == 10)
        let row = try cursor().y
        // 60 wide characters more, in a terminal 100 wide: one row, scrolled. The 97 columns after
        // the prompt (the last is left for the cursor) hold 48 wide characters, then the cursor.
        try terminal.tmux(["send-keys", "-t", "board", "End", String(repeating: "你好", count: 30)])
        #expect(try waitForCursor(x: 98) == 98)
        #expect(try cursor().y == row, "the line did not wrap")
        let start = try terminal.lines().count - 1
        try terminal.tmux(["send-keys", "-t", "board", "C-u", "add 1 1", "Enter"])
        let shown = try terminal.waitFor("added figure #1", from: start)
        #expect(shown.hasPrefix("> add 1 1\nadded figure #1"), "no row was left behind:\n\(shown)")
    }

    /// Saved at a terminal, quit, and launched again with the file: the history is back.
    @Test func aBoardSavedAtATerminalReopensWithItsHistory() throws {
        try requireTmux()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "board-tmux-\(UUID().uuidString).board")
        defer { try? FileManager.default.removeItem(at: file) }
        let launch = "env -u NO_COLOR '\(try boardExecutable().path)' '\(file.path)'; echo BOARD-EXITED; sleep 30"
        let first = try Terminal("save", running: launch)
        defer { first.stop() }
        _ = try first.waitFor("is a new file: save writes it")
        _ = try first.enter("add 10 20", expecting: "added figure #1")
        _ = try first.enter("move 1 30 5", expecting: "board: [Undo Move to (30.0, 5.0)] (Redo)  * unsaved")
        _ = try first.enter("save", expecting: "saved the board and its history to '\(file.path)'")
        _ = try first.enter("quit", expecting: "BOARD-EXITED")

        let second = try Terminal("reopen", running: launch)
        defer { second.stop() }
        var shown = try second.waitFor("board: [Undo Move to (30.0, 5.0)] (Redo)")
        #expect(shown.contains("opened '\(file.path)' with its history"), "\(shown)")
        #expect(!shown.contains("* unsaved"), "reopened as saved:\n\(shown)")
        shown = try second.enter("undo", expecting: "board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]  * unsaved")
        #expect(shown.contains("> undo\nUndo Move to (30.0, 5.0)\n"), "\(shown)")
    }

    @Test func noColorKeepsATerminalPlain() throws {
        try requireTmux()
        let terminal = try Terminal("nocolor", running: command(try boardExecutable(), environment: "env NO_COLOR=1"))
        defer { terminal.stop() }
        _ = try terminal.waitFor("type help")
        _ = try terminal.enter("add 1 1", expecting: "added figure #1")
        _ = try terminal.enter("color red", expecting: "figure #1 is now red")
        let shown = try terminal.lines(escapes: true).joined(separator: "\n")
        #expect(shown.contains("figure #1 is now red"))
        #expect(!shown.contains("\u{1B}[31m"), "NO_COLOR is honoured:\n\(shown)")
    }
}
