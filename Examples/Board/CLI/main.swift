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
// Run it with `swift run board` and type `help`, or `swift run board --demo` for a scripted tour.
// Everything interesting lives in the ActionStackBoardModel target (Board, Figure, Session, UndoButtons, and
// LineBuffer, which cuts the input into lines); this file only reads input and prints answers.

import ActionStackBoardModel

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
    "undo", "board", "history",
]

/// Colour only for a person at a terminal, and never when NO_COLOR is set (https://no-color.org):
/// piped output stays plain text, so scripts and tests read it as it is.
func wantsColor() -> Bool {
    guard isatty(STDOUT_FILENO) != 0 else { return false }
    if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
    if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
    return true
}

/// Reads standard input a line at a time, straight from the file descriptor.
///
/// `readLine()` cannot tell a line that ended with Return from one that ended with Ctrl-D typed
/// after some text; this reader can, so the program can end the output line the terminal left
/// open. (It reads the descriptor itself because the C library's `stdin` is a global that Swift 6's
/// strict concurrency checking does not let code touch.) `LineBuffer` cuts the bytes into lines.
final class InputReader {
    private var buffer = LineBuffer()
    private var atEnd = false

    /// The next line; nil at the end of input.
    func nextLine() -> LineBuffer.Line? {
        while true {
            if let line = buffer.nextLine() { return line }
            if atEnd { return buffer.finish() }
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

let session = Session(usesColor: wantsColor())
let arguments = CommandLine.arguments.dropFirst()

if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: board [--demo]\n")
    print(Session.help)
    exit(0)
}
if let unknown = arguments.first(where: { $0 != "--demo" }) {
    printError("board: unknown option \(Session.quote(unknown)) (try --help)")
    exit(2)
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
let input = InputReader()
if interactive { print("ActionStack board — type help for the commands, quit to leave.") }
for line in session.render() { print(line) }
reading: while !session.isFinished {
    if interactive {
        print("> ", terminator: "")
        fflush(nil)  // flush the prompt (all output streams)
    }
    switch input.nextLine() {
    case nil:
        // Ctrl-D on an empty line: end the prompt's line, so the shell's prompt starts on its own.
        if interactive { print() }
        break reading
    case .tooLong(let start):
        if !interactive { print("> \(Session.printable(start))...") }
        print(Session.lineTooLong)
    case .text(let line, let endedWithNewline):
        // Ctrl-D after some text: the terminal's line is still open after what was typed.
        if interactive && !endedWithNewline { print() }
        if !interactive && !line.allSatisfy(\.isWhitespace) { print("> \(Session.printable(line))") }
        for output in session.handle(line) { print(output) }
    }
}
