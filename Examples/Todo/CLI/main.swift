// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The to-do list: every change is a write to a SQLite database, and undo and redo write to it too.
//
// Run it with `swift run todo [DATABASE-FILE]` (without a file, a temporary one that is deleted at
// the end) and type `help`. Everything interesting lives in the ActionStackTodoModel target
// (TodoDatabase, TodoList, TodoSession); this file only reads input and prints answers.

import ActionStackTodoModel
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: todo [DATABASE-FILE]\n")
    print(TodoSession.help)
    exit(0)
}
// An argument that starts with "-" is an option, and there are no others: an unknown one (a
// `--version`, a mistyped `-help`) would otherwise be the name of a database file, created in the
// current directory. A file whose name starts with "-" is still `./-name`.
if let unknown = arguments.first(where: { $0.hasPrefix("-") }) {
    FileHandle.standardError.write(Data("todo: unknown option '\(TodoSession.printable(unknown))' (try --help)\n".utf8))
    exit(2)
}
guard arguments.count <= 1 else {
    print("usage: todo [DATABASE-FILE]")
    exit(2)
}

let temporary = arguments.isEmpty
let path =
    arguments.first
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("actionstack-todo-\(getpid()).sqlite").path
let session: TodoSession
do {
    let database = try TodoDatabase(path: path)
    // A fault is a session's: one that an earlier session left armed in the file (it quit, or was
    // killed, before its fault fired) would refuse this session's writes with nothing to say why,
    // and only the session that arms a one-shot fault turns it off once it has refused, so `fail
    // after K` from an earlier session would refuse every write after the K-th here. Writes start
    // accepted (this also turns off a fault that another `todo` running on the file armed).
    try await database.setRefusesWrites(false)
    session = TodoSession(list: try await TodoList(database: database))
} catch let error as DatabaseError {
    // SQLite's reason, not the error's sentence, which says "the database refused the write": a
    // file that is not a database, a directory or a locked file is not a refused write.
    print("todo: cannot open \(TodoSession.printable(path)): \(error.message) (SQLite error \(error.code))")
    exit(1)
} catch {
    print("todo: cannot open \(TodoSession.printable(path)): \(error)")
    exit(1)
}

// Interactive, or commands piped on standard input: the same loop. A terminal gets a prompt; a
// pipe gets each command echoed, so the output reads like a transcript.
let interactive = isatty(STDIN_FILENO) != 0
if interactive {
    print("ActionStack to-do list in \(TodoSession.printable(path)) — type help for the commands, quit to leave.")
}
for line in session.render() { print(line) }
while !session.isFinished {
    if interactive {
        print("> ", terminator: "")
        fflush(nil)
    }
    guard let line = readLine() else {
        if interactive { print() }
        break
    }
    if !interactive && !line.allSatisfy(\.isWhitespace) { print("> \(TodoSession.printable(line))") }
    for output in await session.handle(line) { print(output) }
}

if temporary {
    for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}
