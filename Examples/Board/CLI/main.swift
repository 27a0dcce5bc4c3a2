// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The board: figures on a board, with an undo history for the board and one for each figure.
//
// Run it with `swift run board` and type `help`, or `swift run board --demo` for a scripted tour;
// `swift run board FILE` opens a board saved with `save FILE`, with its history, and
// `swift run board --shared FILE`, in two terminals, edits one board from both (SharedBoard), and
// `swift run board --autosave FILE` keeps every change safe from a crash (BoardAutosave).
// Everything interesting lives in the ActionStackBoardModel target (Board, Figure, Session,
// UndoButtons, SharedBoard, LineBuffer, which cuts the input into lines, LineEditor, which edits
// the line typed at a terminal, and LineView, which fits it in the terminal's row, counting columns
// with TerminalColumns); this file only reads input, draws the line being edited, prints answers,
// and, for a shared board, reads the others' changes while it waits for a key.

import ActionStackBoardModel
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The scripted tour of `--demo`: each line is typed as if by a user.
let demo = [
    "add 10 20", "add 40 8", "move 1 30 24", "nudge 1 2 0", "nudge 1 2 0", "select 2", "color red",
    "radius 4", "figure", "undo", "board", "undo", "redo", "save", "remove 2", "undo", "select 2", "figure",
    "undo", "board", "history", "undo", "move 1 10 10", "tree", "goto 5", "earlier", "later 2", "goto 3", "branch",
    "branch 4", "redo",
]

/// What `--help` says of `--autosave`, after the usage lines.
let autosaveHelp = """
    --autosave FILE keeps every change safe from a crash: after each command
    the board goes to FILE.autosave and its histories to the journal
    FILE.journal (save writes FILE, as always); quit removes them. When the
    program ends any other way (a crash, a closed terminal, input that ends),
    the next board --autosave FILE opens the board as its last command left
    it, with its histories, and * unsaved still says what save has not written.
    One board at a time: it locks FILE.lock until quit.

    """

/// Colour only for a person at a terminal, and never when NO_COLOR is set (https://no-color.org):
/// piped output stays plain text, so scripts and tests read it as it is.
func wantsColor() -> Bool {
    guard isatty(STDOUT_FILENO) != 0 else { return false }
    if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
    if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
    return true
}

/// Waits until standard input has something to read (or has ended). While it waits, calls `idle`
/// every `SharedBoard.pollInterval`: a shared board reads the others' changes then. Without `idle`
/// it returns at once, and the read that follows waits instead.
@MainActor
func waitForInput(_ idle: (@MainActor () -> Void)?) {
    guard let idle else { return }
    let timeout = Int32(SharedBoard.pollInterval / .milliseconds(1))
    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    while true {
        let ready = poll(&descriptor, 1, timeout)
        if ready > 0 || (ready < 0 && errno != EINTR) { return }  // input, its end, or an error: read() says
        if ready == 0 { idle() }
    }
}

/// Reads standard input a line at a time, straight from the file descriptor.
///
/// `readLine()` cannot tell a line that ended with Return from one that ended with Ctrl-D typed
/// after some text; this reader can, so the program can end the output line the terminal left
/// open. (It reads the descriptor itself because the C library's `stdin` is a global that Swift 6's
/// strict concurrency checking does not let code touch.) `LineBuffer` cuts the bytes into lines.
@MainActor
final class InputReader {
    private var buffer = LineBuffer()
    private var atEnd = false
    /// Whether reading goes on after the end of input: at a terminal, Ctrl-D ends only the read
    /// it answers, and the user can go on typing (the program asks before it quits with unsaved
    /// changes). Piped input that ends has ended.
    var readsPastEnd = false
    /// Called while the reader waits for input (a shared board's timer).
    var idle: (@MainActor () -> Void)?

    /// The next line; nil at the end of input (at a terminal, Ctrl-D on an empty line).
    func nextLine() -> LineBuffer.Line? {
        while true {
            if let line = buffer.nextLine() { return line }
            if atEnd {
                if readsPastEnd { atEnd = false }
                return buffer.finish()
            }
            waitForInput(idle)
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(chunk[..<count])
            } else if count == 0 || errno != EINTR {
                // End of input (Ctrl-D at a terminal), or an error reading it: no more lines.
                atEnd = true
            }
        }
    }
}

/// The terminal's settings from before the line editor changed them, put back at exit. The C
/// `atexit` handler that puts them back cannot capture anything, so they are a global, written
/// once, before the handler is installed, on the only thread.
nonisolated(unsafe) var terminalSettings = termios()

/// Turns off the terminal's own line editing and echo, so that `LineEditor` gets every key as it
/// is typed, and arranges for the settings to be put back when the program exits. Signals stay
/// off too: Ctrl-C abandons the line being typed instead of ending the program with the board's
/// changes. Returns false, changing nothing, if the terminal refuses.
func startLineEditing() -> Bool {
    var settings = termios()
    guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return false }
    terminalSettings = settings
    settings.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
    settings.c_iflag &= ~tcflag_t(IXON)  // Ctrl-S and Ctrl-Q reach the editor (which ignores them)
    withUnsafeMutableBytes(of: &settings.c_cc) { cc in
        cc[Int(VMIN)] = 1  // a read returns as soon as one byte has arrived
        cc[Int(VTIME)] = 0
    }
    // TCSANOW, not TCSAFLUSH: keys typed before this point are kept, not thrown away.
    guard tcsetattr(STDIN_FILENO, TCSANOW, &settings) == 0 else { return false }
    atexit { _ = tcsetattr(STDIN_FILENO, TCSANOW, &terminalSettings) }
    return true
}

/// The terminal's width in columns (80 when it does not say).
func terminalColumns() -> Int {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
}

/// Reads lines at a terminal with `LineEditor`: draws the prompt and the line as it is edited,
/// one row, scrolled sideways when it is wider than the terminal.
@MainActor
final class LineEditingReader {
    private var editor = LineEditor()
    private var bytes: [UInt8] = []
    private var next = 0
    /// The first character of the line that is shown, when the line is wider than the terminal.
    private var scroll = 0
    /// Whether the line changed since the row was last drawn.
    private var needsDraw = false
    private let prompt = "> "
    /// Called while the reader waits for a key (a shared board's timer).
    var idle: (@MainActor () -> Void)?

    /// What the user entered.
    enum Entry {
        /// A line to handle. Ctrl-D on an empty line is `quit`, shown after the prompt as if typed.
        case line(String)
        /// A line longer than the program takes, refused (`LineEditor.Event.tooLong`).
        case tooLong
    }

    /// The next line entered; nil when the terminal is gone (its input ended or failed).
    func nextLine() -> Entry? {
        scroll = 0
        draw()
        while true {
            if next == bytes.count {
                // The row is drawn once the keys that arrived together are all fed: a paste of a
                // long line is drawn a few times, not once for each of its characters.
                if needsDraw { draw() }
                if !refill() {
                    print()
                    return nil
                }
            }
            let byte = bytes[next]
            next += 1
            // A key that ends the line (Return, Ctrl-C, Ctrl-D) shows it first as it stands: the
            // row stays on the screen above the answer.
            if needsDraw && [0x0D, 0x0A, 0x03, 0x04].contains(byte) { draw() }
            switch editor.feed(byte) {
            case .none:
                continue
            case .changed:
                needsDraw = true
            case .entered(let line):
                print()
                return .line(line)
            case .tooLong:
                print()
                return .tooLong
            case .cancelled:
                print("^C")
                scroll = 0
                draw()
            case .endOfInput:
                // As a shell prints "exit": the row reads "> quit", and what quit answers follows.
                print("quit")
                return .line("quit")
            }
        }
    }

    /// Prints `lines` above the line being edited (what a shared board's timer brought), then
    /// draws the prompt and the line again below them.
    func show(_ lines: [String]) {
        print("\r\u{1B}[K", terminator: "")
        for line in lines { print(line) }
        draw()
    }

    /// Reads what the terminal has sent; false at the end of input or on an error.
    private func refill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            waitForInput(idle)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes = Array(chunk[..<count])
                next = 0
                return true
            }
            if count == 0 || errno != EINTR { return false }
        }
    }

    /// Redraws the prompt's row: the prompt, the part of the line that fits, the cursor in place.
    /// Counted in columns (`LineView`): a wide character takes two, and the row never wraps.
    private func draw() {
        needsDraw = false
        let text = editor.text
        // The last column is left for the cursor at the end of the line.
        let room = max(terminalColumns() - TerminalColumns.width(of: prompt) - 1, 8)
        let view = LineView(text: text, cursor: editor.cursor, scroll: scroll, room: room)
        scroll = view.shown.lowerBound
        // Shown as `printable` makes it: a typed escape or control character cannot drive the terminal.
        var output = "\r" + prompt + String(text[view.shown].map(Session.printable)) + "\u{1B}[K"
        let back = view.width - view.cursorColumn
        if back > 0 { output += "\u{1B}[\(back)D" }
        print(output, terminator: "")
        fflush(nil)
    }
}

/// Prints a line on standard error, where errors about the command line belong. (It writes to the
/// descriptor for the same reason `InputReader` reads one: the C library's `stderr` is a global.)
func printError(_ message: String) {
    let bytes = Array((message + "\n").utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if count > 0 {
            written += count
        } else if count == 0 || errno != EINTR {
            return  // nowhere to report that reporting failed
        }
    }
}

// `--shared FILE` takes the file with it; the other arguments are options and at most one FILE.
var sharedPath: String?
var arguments: [String] = []
var remaining = CommandLine.arguments.dropFirst()
while let argument = remaining.popFirst() {
    guard argument == "--shared" else {
        arguments.append(argument)
        continue
    }
    guard sharedPath == nil, let path = remaining.popFirst() else {
        printError("board: --shared takes one FILE, once (try --help)")
        exit(2)
    }
    sharedPath = path
}

if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: board [--demo] [FILE]\n       board --shared FILE\n       board --autosave FILE\n")
    print(autosaveHelp)
    print(Session.help)
    exit(0)
}
if let unknown = arguments.first(where: { $0.hasPrefix("-") && $0 != "--demo" && $0 != "--autosave" }) {
    printError("board: unknown option \(Session.quote(unknown)) (try --help)")
    exit(2)
}
let files = arguments.filter { $0 != "--demo" && $0 != "--autosave" }
let autosave = arguments.contains("--autosave")
if autosave && (files.count != 1 || arguments.contains("--demo") || arguments.filter({ $0 == "--autosave" }).count > 1)
{
    printError("board: --autosave takes one FILE, once, and no --demo (try --help)")
    exit(2)
}
if files.count > 1 || (arguments.contains("--demo") && !files.isEmpty) {
    printError("board: give at most one FILE, and none with --demo (try --help)")
    exit(2)
}
if sharedPath != nil && !arguments.isEmpty {
    printError("board: --shared FILE takes no other FILE, and no --demo (try --help)")
    exit(2)
}

/// The name of the terminal on standard input ("/dev/pts/3"), if it is one: a shared board that
/// starts again in the same terminal takes back the history it had there.
func terminalName() -> String? {
    guard isatty(STDIN_FILENO) != 0, let name = ttyname(STDIN_FILENO) else { return nil }
    return String(cString: name)
}

// `board FILE` opens the board saved in FILE with its history, or starts a new board that `save`
// writes there. `board --shared FILE` joins the shared board in the database FILE.
let session: Session
var shared: SharedBoard?
var openingNotes: [String] = []
if let path = sharedPath {
    do {
        let joined = try SharedBoard.join(path: path, terminal: terminalName(), usesColor: wantsColor())
        (shared, openingNotes) = (joined.board, joined.notes)
        session = joined.board.session
    } catch {
        printError("board: cannot share \(Session.quote(path)): \(error)")
        exit(1)
    }
} else if let path = files.first {
    do {
        (session, openingNotes) = try Session.opening(
            URL(fileURLWithPath: path), autosave: autosave, usesColor: wantsColor())
    } catch {
        printError("board: cannot open \(Session.quote(path)): \(error)")
        exit(1)
    }
} else {
    session = Session(usesColor: wantsColor())
}

if arguments.contains("--demo") {
    for line in session.render() { print(line) }
    for command in demo {
        print("\n> \(command)")
        for line in session.handle(command) { print(line) }
    }
    exit(0)
}

// Interactive, or commands piped on standard input: the same loop. A terminal gets a prompt; a
// pipe gets each command echoed, so the output reads like a transcript.
let interactive = isatty(STDIN_FILENO) != 0
// A person at a terminal edits the line (arrows, history); a terminal without cursor movement
// ("dumb") or output that is not a terminal keeps the terminal's own line input.
let dumbTerminal = getenv("TERM").map { String(cString: $0) == "dumb" } ?? true
let editing = interactive && isatty(STDOUT_FILENO) != 0 && !dumbTerminal && startLineEditing()
let input = InputReader()
input.readsPastEnd = interactive
let editingReader = LineEditingReader()
if let shared {
    // A shared board reads the others' changes while it waits for input, and prints them with the
    // board and its buttons: a peer's change can change the titles at once.
    editingReader.idle = {
        let lines = shared.poll()
        if !lines.isEmpty { editingReader.show(lines) }
    }
    input.idle = {
        let lines = shared.poll()
        guard !lines.isEmpty else { return }
        // The prompt's line is left as it is (the terminal edits it, and only it knows what was
        // typed there); the lines and a new prompt follow it.
        if interactive { print() }
        for line in lines { print(line) }
        if interactive { print("> ", terminator: "") }
        fflush(nil)
    }
}
/// Handles one line: through the shared board when there is one (which logs the changes).
@MainActor
func handle(_ line: String) -> [String] { shared?.handle(line) ?? session.handle(line) }
if interactive { print("ActionStack board — type help for the commands, quit to leave.") }
for line in openingNotes { print(line) }
for line in session.render() { print(line) }
reading: while !session.isFinished && shared?.hasLeft != true {
    if editing {
        switch editingReader.nextLine() {
        case nil: break reading
        case .tooLong: print(Session.lineTooLong)
        case .line(let line): for output in handle(line) { print(output) }
        }
        continue
    }
    if interactive {
        print("> ", terminator: "")
        fflush(nil)  // flush the prompt (all output streams)
    }
    switch input.nextLine() {
    case nil:
        // Piped input that ends: the program ends, as it is (a script's last line is its last).
        guard interactive else { break reading }
        // Ctrl-D on an empty line at a terminal: quit, shown after the prompt as if typed. With
        // unsaved changes it warns, and a second Ctrl-D (or quit) quits. Two in a row always
        // quit, so a terminal that is gone (its reads end at once, again and again) ends it.
        print("quit")
        for output in handle("quit") { print(output) }
    case .tooLong(let start):
        if !interactive { print("> \(Session.printable(start))...") }
        print(Session.lineTooLong)
    case .text(let line, let endedWithNewline):
        // Ctrl-D after some text: the terminal's line is still open after what was typed.
        if interactive && !endedWithNewline { print() }
        if !interactive && !line.allSatisfy(\.isWhitespace) { print("> \(Session.printable(line))") }
        for output in handle(line) { print(output) }
    }
}
// A shared board that did not quit (the input ended) saves its history and lets the user go.
shared?.leave()
