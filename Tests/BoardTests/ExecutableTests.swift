import Foundation
import Testing

/// Where the built `board` executable is: in the build folder that holds the test binary (on Linux
/// the running executable; on Apple platforms the loaded `.xctest` bundle), whatever its scratch
/// path (CI's sanitizer runs use their own).
func boardExecutable() throws -> URL {
    var starts = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()]
    starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
    for start in starts {
        var directory = start.deletingLastPathComponent()
        // The test binary may sit inside an .xctest bundle folder (Apple platforms).
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("board")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
    }
    throw BoardRunError.notBuilt
}

enum BoardRunError: Error { case notBuilt }

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
            """
        let (output, status) = try runBoard(input: script)
        #expect(status == 0)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("> add 10 20"), "commands are echoed when input is not a terminal")
        #expect(lines.contains("board: [Undo Move to (30.0, 5.0)] (Redo)  * unsaved"))
        #expect(lines.contains("Undo Move to (30.0, 5.0)"))
        #expect(lines.contains("board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]  * unsaved"))
        #expect(lines.contains("Redo Move to (30.0, 5.0)"))
        #expect(lines.contains("figure #1 is now blue"))
        #expect(lines.contains("figure #1: [Undo Change Color] (Redo)  * unsaved"))
        #expect(lines.contains("figure #1: (Undo) [Redo Change Color]  * unsaved"))
        #expect(lines.contains("error: unknown command 'bogus'; type help for the list"))
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
                ("history 1", "history positions run from 0 to 0"),
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
                ? ["board history (type history N to go to position N):", "  0  (start)  <- you are here, saved"]
                : [
                    "board history (type history N to go to position N):", "  0  (start)",
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
        #expect(errors.last == "error: figure number must be a whole number, not '?[2J'")
        #expect(!output.contains("\u{1B}"), "an escape the user typed never reaches the terminal")
    }

    @Test func endOfInputEndsTheProgram() throws {
        let (output, status) = try runBoard(input: "add 1 1\nmove 1 2 2")  // the last line has no newline
        #expect(status == 0)
        #expect(output.hasSuffix("board: [Undo Move to (2.0, 2.0)] (Redo)  * unsaved\n"))
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
            "board: [Undo Move to (34.0, 24.0)] (Redo)  * unsaved", "> color red", "Undo Change Corner Radius",
            "Undo Move to (34.0, 24.0)", "Redo Move to (34.0, 24.0)", "removed figure #2", "Undo Remove Figure",
            "error: nothing to undo in the figure context",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
    }

    @Test func helpAndUnknownOptions() throws {
        let (help, helpStatus) = try runBoard(["--help"])
        #expect(helpStatus == 0)
        #expect(help.contains("usage: board [--demo]"))
        #expect(help.contains("nudge N DX DY"))
        let (output, status) = try runBoard(["--frob"])
        #expect(status == 2)
        #expect(output.contains("unknown option '--frob'"))
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

/// The interactive mode in a real terminal: tmux runs `board`, the test types keys and reads the
/// screen. CI installs tmux and sets BOARD_REQUIRE_TMUX=1, so there a missing tmux fails.
///
/// Each test runs its own tmux server (its own socket), so tests running side by side never share
/// one, and the server is killed at the end.
struct TerminalTests {
    static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let required = ProcessInfo.processInfo.environment["BOARD_REQUIRE_TMUX"] == "1"

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

        /// The pane as text; with `escapes`, with the colour escape sequences (capture-pane -e).
        func pane(escapes: Bool = false) throws -> String {
            try tmux(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", "board"])
        }

        /// Waits until the pane shows `text` (at most ten seconds); returns the pane.
        func waitFor(_ text: String) throws -> String {
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            var pane = try self.pane()
            while !pane.contains(text) && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                pane = try self.pane()
            }
            return pane
        }

        /// Types `line` and Return.
        func type(_ line: String) throws {
            try tmux(["send-keys", "-t", "board", "-l", line])
            try tmux(["send-keys", "-t", "board", "Enter"])
        }

        func stop() {
            _ = try? tmux(["kill-server"])
        }
    }

    /// A shell command that runs the board with the environment a user's terminal would give it.
    func command(_ board: URL, environment: String = "env -u NO_COLOR") -> String {
        "\(environment) '\(board.path)'; echo BOARD-EXITED; sleep 30"
    }

    func tmuxIsHere() -> Bool {
        guard Self.tmux != nil else {
            #expect(!Self.required, "tmux is required here (BOARD_REQUIRE_TMUX=1) but is not installed")
            return false
        }
        return true
    }

    @Test func interactiveSessionInATerminal() throws {
        guard tmuxIsHere() else { return }
        let terminal = try Terminal("session", running: command(try boardExecutable()))
        defer { terminal.stop() }

        var pane = try terminal.waitFor("type help")
        #expect(pane.contains("ActionStack board"), "a terminal gets the greeting and a prompt")
        // Each line is typed, then the pane must show the expected text.
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
            ("undo", "Undo Move to (30.0, 5.0)"),
            ("undo", "Undo Add Figure"),
            ("redo", "Redo Add Figure"),
            ("redo", "Redo Move to (30.0, 5.0)"),
            ("move 1 abc 5", "error: x must be a number, not 'abc'"),
        ]
        for (keys, expected) in script {
            try terminal.type(keys)
            pane = try terminal.waitFor(expected)
            #expect(pane.contains(expected), "after typing '\(keys)':\n\(pane)")
        }

        // A drag: the two nudges reach the program together, well within the one-second window.
        try terminal.tmux(["send-keys", "-t", "board", "nudge 1 2 0", "Enter", "nudge 1 2 0", "Enter"])
        pane = try terminal.waitFor("nudged figure #1 to (34.0, 5.0)")
        #expect(pane.contains("board: [Undo Move to (34.0, 5.0)] (Redo)  * unsaved"), "\(pane)")
        try terminal.type("history")
        pane = try terminal.waitFor("<- you are here")
        #expect(pane.contains("  3  Move to (30.0, 5.0)  saved\n"), "\(pane)")
        #expect(pane.contains("  4  Move to (34.0, 5.0)  <- you are here"), "one step for the drag:\n\(pane)")
        #expect(!pane.contains("  5  "))
        try terminal.type("undo")
        pane = try terminal.waitFor("board: [Undo Move to (30.0, 5.0)] [Redo Move to (34.0, 5.0)]\n")
        #expect(pane.contains("selected: #1 at (30.0, 5.0)"), "one undo takes back the whole drag:\n\(pane)")

        // Colour: the red figure's label is drawn in red (capture-pane -e keeps the escapes).
        let colored = try terminal.pane(escapes: true)
        #expect(colored.contains("\u{1B}[31m"), "a terminal gets colour:\n\(colored)")
        #expect(colored.contains("[*1]"))

        try terminal.type("quit")
        pane = try terminal.waitFor("BOARD-EXITED")
        #expect(pane.contains("bye\nBOARD-EXITED"))
    }

    @Test func controlDEndsTheLineAndTheProgram() throws {
        guard tmuxIsHere() else { return }
        let terminal = try Terminal("eof", running: command(try boardExecutable()))
        defer { terminal.stop() }
        _ = try terminal.waitFor("type help")
        try terminal.type("add 1 1")
        _ = try terminal.waitFor("added figure #1")
        try terminal.tmux(["send-keys", "-t", "board", "C-d"])
        let pane = try terminal.waitFor("BOARD-EXITED")
        let lines = pane.split(separator: "\n")
        #expect(lines.contains("BOARD-EXITED"), "the shell's output starts on its own line:\n\(pane)")
        #expect(!pane.contains("> BOARD-EXITED"))
    }

    @Test func noColorKeepsATerminalPlain() throws {
        guard tmuxIsHere() else { return }
        let terminal = try Terminal("nocolor", running: command(try boardExecutable(), environment: "env NO_COLOR=1"))
        defer { terminal.stop() }
        _ = try terminal.waitFor("type help")
        try terminal.type("add 1 1")
        try terminal.type("color red")
        _ = try terminal.waitFor("figure #1 is now red")
        let pane = try terminal.pane(escapes: true)
        #expect(pane.contains("figure #1 is now red"))
        #expect(!pane.contains("\u{1B}[31m"), "NO_COLOR is honoured:\n\(pane)")
    }
}
