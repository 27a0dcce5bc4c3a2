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
        #expect(lines.contains("board: [Undo Move to (30.0, 5.0)] (Redo)"))
        #expect(lines.contains("Undo Move to (30.0, 5.0)"))
        #expect(lines.contains("board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]"))
        #expect(lines.contains("Redo Move to (30.0, 5.0)"))
        #expect(lines.contains("figure #1: [Undo Change Color] (Redo)"))
        #expect(lines.contains("figure #1: (Undo) [Redo Change Color]"))
        #expect(lines.contains("error: unknown command 'bogus'; type help for the list"))
        #expect(lines.last == "bye")
    }

    @Test func endOfInputEndsTheProgram() throws {
        let (output, status) = try runBoard(input: "add 1 1\n")
        #expect(status == 0)
        #expect(output.contains("board: [Undo Add Figure] (Redo)"))
    }

    @Test func demoPlaysTheScriptedSession() throws {
        let (output, status) = try runBoard(["--demo"])
        #expect(status == 0)
        let lines = output.split(separator: "\n").map(String.init)
        for expected in [
            "> add 10 20", "added figure #1 at (10.0, 20.0)", "> move 1 30 24", "> color red",
            "Undo Change Corner Radius", "Undo Move to (30.0, 24.0)", "Redo Move to (30.0, 24.0)",
            "removed figure #2", "Undo Remove Figure",
            // Removing the figure dropped its own history: back on the board, it has none.
            "error: nothing to undo in the figure context",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
    }

    @Test func unknownOptionIsRefused() throws {
        let (output, status) = try runBoard(["--frob"])
        #expect(status == 2)
        #expect(output.contains("unknown option '--frob'"))
    }
}

/// The interactive mode in a real terminal: tmux runs `board`, the test types keys and reads the
/// screen. CI installs tmux and sets BOARD_REQUIRE_TMUX=1, so there a missing tmux fails.
struct TerminalTests {
    static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let required = ProcessInfo.processInfo.environment["BOARD_REQUIRE_TMUX"] == "1"

    /// Runs a tmux command and returns what it printed.
    ///
    /// `new-session` starts the tmux server, which lives on after the command; its output goes
    /// to /dev/null so that the server holds nothing of this process's.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let path = try #require(Self.tmux)
        let captures = arguments.first != "new-session"
        let result = try ChildProcess.run(path, arguments, captureOutput: captures, timeLimit: .seconds(20))
        return result.output
    }

    /// Waits until the pane shows `text` (or a few seconds pass); returns the pane.
    func waitForPane(_ session: String, showing text: String) throws -> String {
        var pane = ""
        for _ in 0..<100 {
            pane = try tmux(["capture-pane", "-p", "-t", session])
            if pane.contains(text) { return pane }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return pane
    }

    @Test func interactiveSessionInATerminal() throws {
        guard Self.tmux != nil else {
            #expect(!Self.required, "tmux is required here (BOARD_REQUIRE_TMUX=1) but is not installed")
            return
        }
        let board = try boardExecutable()
        let session = "actionstack-board-\(ProcessInfo.processInfo.processIdentifier)"
        // The shell keeps the pane open after `board` exits, so its last words can be read.
        try tmux(["new-session", "-d", "-s", session, "-x", "100", "-y", "40", "\(board.path); sleep 30"])
        defer { _ = try? tmux(["kill-session", "-t", session]) }

        var pane = try waitForPane(session, showing: "type help")
        #expect(pane.contains("ActionStack board"), "a terminal gets the greeting and a prompt")
        // Each line is typed, then the pane must show the expected text.
        let script = [
            ("add 10 20", "board: [Undo Add Figure] (Redo)"),
            ("move 1 30 5", "board: [Undo Move to (30.0, 5.0)] (Redo)"),
            ("undo", "board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]"),
            // The titles after redo: the step keeps its name both ways.
            ("redo", "board: [Undo Move to (30.0, 5.0)] (Redo)"),
            ("undo", "board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]"),
            ("move 1 abc 5", "error: x must be a number, not 'abc'"),
            ("quit", "bye"),
        ]
        for (keys, expected) in script {
            try tmux(["send-keys", "-t", session, keys, "Enter"])
            pane = try waitForPane(session, showing: expected)
            #expect(pane.contains(expected), "after typing '\(keys)'")
        }
    }
}
