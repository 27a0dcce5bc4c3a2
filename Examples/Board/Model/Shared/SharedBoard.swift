// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// One board edited from several processes (`swift run board --shared FILE`, in two terminals),
// through one SQLite database at FILE, with undo that takes back only this process's changes.
//
// **The log.** Every change to the board is a `BoardChange`, and the database holds them all, in
// order, in one table (`operations`: id, user, process, the change as JSON). A command runs in a
// write transaction (`BEGIN IMMEDIATE`, so no other board writes meanwhile):
//
// 1. the board reads the changes logged since it last looked and applies them (a peer's changes);
// 2. the command runs, as on any board: it registers its undo step, or undoes or redoes one;
// 3. the changes the command made (the board compared before and after: `BoardChange.changes`)
//    are appended to the log, and the board with its history is saved for this user;
// 4. commit.
//
// So every board applies the same changes in the same order, and all of them end up the same. A
// short timer reads the log between commands too, so a peer's change shows up without typing.
//
// **Remote changes.** A change from the log that another board made is applied with the library's
// `applyRemoteChange(_:version:_:)` (`Board.receive(_:version:)`): it is not this user's step, so
// undo never reverts it, and this user's stored steps move past it. The version is the change's
// place in the log. The board's commands adopt `RebasableCommand` over `BoardChange` (see
// Commands.swift), which keeps the promises of shared undo:
//
// - Undo takes back only this user's changes: a peer's change is never on this user's stack.
// - A figure a peer moved stays where the peer moved it: this user's step that would move it back
//   has nothing left to do, and undo skips it (as do redo and the titles).
// - A figure a peer removed takes this user's steps about it with it: the moves die as they
//   rebase, and the figure's own steps go by `removeAllActions(withTarget:)`. The buttons are
//   refreshed after every change that arrives, so their titles say so at once.
//
// **Users and relaunch.** A user is one history on the shared board: `users` has a row for each,
// with the process that holds it while one runs and its saved board (a board file, `BoardFile`,
// with the history of the board and of every figure), written with every command, at the place in
// the log that it reflects (`SavedHistory.remoteVersion`). A board that starts on the file takes a
// user that no running board holds (the one last used in the same terminal first), restores its
// board and history, and applies the changes logged since as remote changes: the restored steps
// move past what the others did meanwhile. With none free, it is a new user, with an empty board
// that it brings up to date by applying the whole log, and an empty history. (Whether the process
// that holds a user still runs is asked of this machine, by its pid: the boards that share a file
// run on one machine. The log is never compacted: a new user reads it from the start.)
//
// The saved board is this user's own copy of the board as of that place in the log, so its
// fingerprint (the board file's check that the history belongs to the board) still matches when it
// is opened again, however much the others changed since: the log brings it forward.

/// A board shared through a SQLite database with other processes (see the comment at the top of
/// this file): one user's session, with the changes of the others arriving as remote changes.
@MainActor
public final class SharedBoard {
    /// The session: the board, its history and the commands, as on a board that is not shared.
    public let session: Session
    /// This user's number on the shared board: "user 2".
    public let user: Int
    /// The database file.
    public let path: String
    /// The last entry of the log that the board reflects.
    public private(set) var version: Int64
    /// Whether this board has left the shared board (`quit`, `leave()`, or a write that failed):
    /// it then reads and writes nothing.
    public private(set) var hasLeft = false

    private let database: SharedBoardDatabase
    /// This board's id in the log, and in the `users` row it holds (one per run, so that a board
    /// that comes back is a new writer of the same user).
    private let processID: String

    /// How often the executable reads the log while it waits for input.
    nonisolated public static let pollInterval = Duration.milliseconds(500)

    /// The processes of this program that hold a user: a row held by this process's pid is held
    /// only if its process id is one of these (two boards in one process, as the tests make).
    private static var running: Set<String> = []

    private init(
        session: Session, user: Int, path: String, version: Int64, database: SharedBoardDatabase, processID: String
    ) {
        self.session = session
        self.user = user
        self.path = path
        self.version = version
        self.database = database
        self.processID = processID
    }

    isolated deinit {
        SharedBoard.running.remove(processID)
    }

    // MARK: Joining

    /// Joins the shared board at `path` (made if the file is new): takes a user that no running
    /// board holds (preferring the one last used in `terminal`), with its board and history, or a
    /// new user; then applies the changes logged since as remote changes.
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - terminal: The terminal this process runs in (its device's name), if any.
    ///   - usesColor: Whether the session draws figures in colour.
    /// - Returns: The board, and the lines that tell the user what happened.
    /// - Throws: `SharedBoardError` when the file cannot be opened or is not a shared board (it is
    ///   left as it is), or the database is busy for too long.
    public static func join(
        path: String, terminal: String? = nil, usesColor: Bool = false
    ) throws(SharedBoardError) -> (board: SharedBoard, notes: [String]) {
        let database = try SharedBoardDatabase(path: path)
        do {
            return try database.transaction {
                try join(database, path: path, terminal: terminal, usesColor: usesColor)
            }
        } catch let error as SharedBoardError {
            throw error
        } catch {
            throw .database(code: 1, message: "\(error)")
        }
    }

    /// The work of `join`, in its transaction.
    private static func join(
        _ database: SharedBoardDatabase, path: String, terminal: String?, usesColor: Bool
    ) throws(SharedBoardError) -> (board: SharedBoard, notes: [String]) {
        let users = try database.users()
        let free = users.filter { !isHeld($0) }
        let number =
            free.first { terminal != nil && $0.terminal == terminal }?.number ?? free.first?.number
            ?? (users.map(\.number).max() ?? 0) + 1
        let name = "'\(Session.printable(path))'"
        var notes: [String] = []

        // This user's board and history, as saved with its last command, and the place in the log
        // it reflects; or an empty board, before the first entry of the log.
        var board = Board()
        var version: Int64 = 0
        var restored = false
        if let saved = try database.saved(number) {
            do {
                let opened = try BoardFile.open(saved)
                if opened.historyRestored, let savedVersion = opened.board.undoStack.remoteVersion.flatMap(Int64.init) {
                    board = opened.board
                    version = savedVersion
                    restored = true
                    notes += opened.notes.map { "note: \($0)" }
                } else {
                    notes.append("note: user \(number)'s saved history could not be restored; starting from the log")
                }
            } catch {
                notes.append("note: user \(number)'s saved board could not be read (\(error)); starting from the log")
            }
        }
        let process = UUID().uuidString
        try database.claim(number, process: process, pid: getpid(), terminal: terminal)
        let shared = SharedBoard(
            session: Session(board: board, file: nil, usesColor: usesColor, isShared: true), user: number, path: path,
            version: version, database: database, processID: process)
        running.insert(process)

        let before = shared.version
        let arrived = try shared.pull()
        let caughtUp = shared.version - before
        var summary = "joined the shared board \(name) as user \(number), with "
        summary += restored ? "your history" : "a new history"
        if caughtUp > 0 { summary += "; \(count(caughtUp, "change")) \(restored ? "made since " : "")applied" }
        // The log's own notes (entries that could not be read or applied) follow.
        return (shared, [summary] + notes + arrived.filter { $0.hasPrefix("note: ") })
    }

    /// Whether another running board holds `user`.
    private static func isHeld(_ user: SharedBoardDatabase.User) -> Bool {
        guard let process = user.process, let pid = user.pid else { return false }
        if pid == getpid() { return running.contains(process) }
        // Signal 0 only asks whether the process exists (EPERM: it does, as another user's).
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private static func count(_ number: Int64, _ noun: String) -> String {
        number == 1 ? "1 \(noun)" : "\(number) \(noun)s"
    }

    // MARK: Commands and the timer

    /// Handles one command line, as `Session.handle(_:)` does, in a write transaction: first the
    /// changes the others logged since are applied (and told), then the command runs, then its
    /// changes are logged and the board and its history are saved for this user. Returns what to
    /// print.
    ///
    /// When the database cannot be written after the command ran, the board leaves the shared
    /// board (its change is not in the log, so the boards would differ): `hasLeft` is then true,
    /// and the user is told to start again, which takes the user back as it was saved.
    public func handle(_ line: String) -> [String] {
        guard !hasLeft else { return ["error: \(SharedBoardError.left)"] }
        var ran = false
        do {
            return try database.transaction {
                let arrived = try pull()
                let before = session.board.figures.map(\.record)
                ran = true
                var reply = session.handle(line)
                let changes = BoardChange.changes(from: before, to: session.board.figures.map(\.record))
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                version = try database.append(
                    try changes.map { try encoder.encode($0) }, user: user, process: processID, after: version)
                try database.save(session.board.fileContents(remoteVersion: String(version)), for: user)
                if session.isFinished {
                    try database.release(user, process: processID)
                    leftTheBoard()
                }
                // A line with no command answers nothing; what arrived is shown with the board.
                if reply.isEmpty && !arrived.isEmpty { reply = session.render() }
                return arrived + reply
            }
        } catch {
            guard ran else {
                // Nothing ran: the board is as it was, and the user may try again.
                return ["error: the shared board could not be read (\(error)); nothing was done"]
            }
            leftTheBoard()
            return [
                "error: the shared board could not be written (\(error)); this board stops here, so that "
                    + "the boards do not differ. Start it again to go on from your last command before this one."
            ]
        }
    }

    /// Reads the log and applies what the others changed since, as the executable's timer does
    /// between commands. Returns what to print: a line for each change, then the board with its
    /// buttons (whose titles may have changed); nothing when nothing arrived. A read that fails
    /// is told once, not at every poll, until a read succeeds or it fails another way.
    public func poll() -> [String] {
        guard !hasLeft else { return [] }
        do {
            let arrived = try pull()
            pollFailure = nil
            return arrived.isEmpty ? [] : arrived + session.render()
        } catch {
            let note = "note: the shared board could not be read (\(error)); trying again"
            // The executable polls twice a second while it waits: a damaged file would otherwise
            // fill the terminal with the same line, and push the line being typed out of sight.
            guard note != pollFailure else { return [] }
            pollFailure = note
            return [note]
        }
    }

    /// The note of the last poll, when it failed: the same failure is not told again.
    private var pollFailure: String?

    /// Leaves the shared board: saves the board with its history for this user and lets another
    /// board take the user. Does nothing after the board has left. (`quit` leaves by itself; the
    /// executable calls this at the end of input.)
    public func leave() {
        guard !hasLeft else { return }
        do {
            try database.transaction {
                try database.save(session.board.fileContents(remoteVersion: String(version)), for: user)
                try database.release(user, process: processID)
            }
        } catch {
            // The user stays marked as held by this process, which is about to end: the next board
            // finds the process gone, and takes the user with the board saved at the last command.
        }
        leftTheBoard()
    }

    private func leftTheBoard() {
        hasLeft = true
        SharedBoard.running.remove(processID)
    }

    // MARK: Applying the others' changes

    /// Applies the changes logged after `version`, in order, each as a remote change; returns a
    /// line for each ("user 2 moved figure #1 to (50.0, 10.0)"), or a note for an entry that
    /// cannot be read or does not fit this board (it is skipped: the stacks never hear of it).
    private func pull() throws(SharedBoardError) -> [String] {
        let entries = try database.entries(after: version)
        guard !entries.isEmpty else { return [] }
        var lines: [String] = []
        let decoder = JSONDecoder()
        for entry in entries {
            version = entry.id
            guard let change = try? decoder.decode(BoardChange.self, from: entry.change) else {
                lines.append("note: entry \(entry.id) of the shared log could not be read: skipped")
                continue
            }
            let said = describe(change, by: entry.user)
            if session.board.receive(change, version: String(entry.id)) {
                lines.append(said)
            } else {
                lines.append("note: entry \(entry.id) of the shared log does not fit this board (\(said)): skipped")
            }
        }
        // The steps that died go now, not at the save after the next command: `history` and
        // `tree` list what `history N` and `goto N` reach. Then the selection, the Edit menu and
        // the buttons, which re-read the stacks: a step that died changes the titles now.
        session.board.dropStepsThatDied()
        session.boardChanged()
        return lines
    }

    /// "user 2 moved figure #1 to (50.0, 10.0)": a change as the user is told it, before it is
    /// applied (a removed figure's number is read while it is on the board).
    private func describe(_ change: BoardChange, by author: Int) -> String {
        let who = "user \(author)"
        let number = session.board.figure(uuid: change.figure).map { "#\($0.id)" } ?? "?"
        switch change {
        case .insert(let record, _): return "\(who) put figure #\(record.number) on the board at \(record.position)"
        case .remove: return "\(who) removed figure \(number)"
        case .move(_, let point): return "\(who) moved figure \(number) to \(point)"
        case .color(_, let color): return "\(who) made figure \(number) \(color.rawValue)"
        case .radius(_, let radius): return "\(who) gave figure \(number) corner radius \(radius)"
        }
    }
}
