// The board: figures on a board, with an undo history for the board and one for each figure.
//
// Run it with `swift run board` and type `help`, or `swift run board --demo` for a scripted tour.
// Everything interesting lives in the BoardModel target (Board, Figure, Session, UndoButtons);
// this file only reads lines and prints answers.

import BoardModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The scripted tour of `--demo`: each line is typed as if by a user.
let demo = [
    "add 10 20", "add 40 8", "move 1 30 24", "select 2", "color red", "radius 4",
    "figure", "undo", "board", "undo", "redo", "remove 2", "undo", "select 2", "figure", "undo", "history",
]

let session = Session()
let arguments = CommandLine.arguments.dropFirst()

if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: board [--demo]\n")
    print(Session.help)
    exit(0)
}
if let unknown = arguments.first(where: { $0 != "--demo" }) {
    print("board: unknown option '\(unknown)' (try --help)")
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
if interactive { print("ActionStack board — type help for the commands, quit to leave.") }
for line in session.render() { print(line) }
while !session.isFinished {
    if interactive {
        print("> ", terminator: "")
        fflush(nil)  // flush the prompt (all output streams)
    }
    guard let line = readLine() else { break }
    if !interactive && !line.trimmingPrefixWhitespace.isEmpty { print("> \(line)") }
    for output in session.handle(line) { print(output) }
}

extension String {
    fileprivate var trimmingPrefixWhitespace: Substring { drop(while: \.isWhitespace) }
}
