// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

internal import ActionStackCSQLite
import Foundation

/// Why a shared board could not be opened, read or written.
public enum SharedBoardError: Error, Hashable, CustomStringConvertible {
    /// The file holds a SQLite database of something else (or of a shared board that this program
    /// cannot read): it is left as it is.
    case notASharedBoard(String)
    /// The database refused an operation: SQLite's (extended) result code and message, such as
    /// 26 (`SQLITE_NOTADB`, "file is not a database") or 5 (`SQLITE_BUSY`, another board held the
    /// database for longer than the wait).
    case database(code: Int32, message: String)
    /// The shared board was left (`SharedBoard.leave()`); nothing is read or written any more.
    case left

    /// What went wrong, as a sentence fragment.
    public var description: String {
        switch self {
        case .notASharedBoard(let reason): "not a shared board (\(reason))"
        case .database(let code, let message): "\(message) (SQLite error \(code))"
        case .left: "this board has left the shared board"
        }
    }
}

/// The shared board's SQLite database: the log of every change, and each user's board with its
/// history. (See `SharedBoard` for how the boards use it.)
///
/// It reaches the system's libsqlite3 as the to-do example does (Examples/Todo/Model/
/// TodoDatabase.swift), through the `ActionStackCSQLite` system-library target, so the package
/// still has no dependencies. Unlike the to-do list's, this database is used synchronously: the
/// board is a terminal program that handles one command at a time on the main actor, and every
/// call here is short. Several processes open the same file; SQLite's locks keep them apart, and a
/// call that finds the database locked waits up to `busyTimeout` for it.
@MainActor
final class SharedBoardDatabase {
    /// The connection's owner, which closes it when the database is freed (also when the
    /// initializer throws after opening it).
    private let owner: Connection
    /// The open connection.
    private var connection: OpaquePointer { owner.handle }

    /// Owns an open connection.
    private final class Connection {
        let handle: OpaquePointer
        init(_ handle: OpaquePointer) { self.handle = handle }
        deinit { sqlite3_close(handle) }
    }

    /// How long a call waits for another board that holds the database (SQLite's busy timeout).
    static let busyTimeout: Int32 = 5000

    /// The value of `shared_board.format` that marks a shared board.
    static let formatName = "ActionStack.SharedBoard"
    /// The version of the schema this program writes, and the newest it reads.
    static let formatVersion = 1

    /// The tables:
    ///
    /// - `shared_board`: one row that says what the file is.
    /// - `operations`: the log, in the order the changes were made (`id`, never reused). Each
    ///   row is one `BoardChange` as JSON, with the user and the process that wrote it. Every
    ///   board applies the log in this order, so every board ends up the same.
    /// - `users`: one row per history: the process that holds it while one runs (and its pid, to
    ///   tell whether it still does), the terminal it last ran in, and `saved`, its board with its
    ///   history as a board file (`BoardFile`), written with every command.
    private static let schema = """
        CREATE TABLE shared_board (format TEXT NOT NULL, version INTEGER NOT NULL);
        INSERT INTO shared_board (format, version) VALUES ('\(formatName)', \(formatVersion));
        CREATE TABLE operations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user INTEGER NOT NULL,
            process TEXT NOT NULL,
            change TEXT NOT NULL
        );
        CREATE TABLE users (
            number INTEGER PRIMARY KEY,
            process TEXT,
            pid INTEGER,
            terminal TEXT,
            saved BLOB
        );
        """

    /// Opens the shared board at `path`, making its tables if the file is new (or an empty
    /// database). A file that is not a SQLite database, or a database of something else, is
    /// refused and left as it is.
    ///
    /// - Throws: `SharedBoardError`.
    init(path: String) throws(SharedBoardError) {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw .database(code: status, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Self.busyTimeout)
        owner = Connection(handle)
        do {
            try transaction {
                let tables = try query("SELECT name FROM sqlite_master WHERE type = 'table'") { Self.text($0, 0) }
                if tables.isEmpty {
                    try execute(Self.schema)
                    return
                }
                guard tables.contains("shared_board") else {
                    throw SharedBoardError.notASharedBoard("it is a SQLite database of something else")
                }
                let rows = try query("SELECT format, version FROM shared_board") {
                    (Self.text($0, 0), sqlite3_column_int64($0, 1))
                }
                guard let (format, version) = rows.first, format == Self.formatName else {
                    throw SharedBoardError.notASharedBoard("its shared_board table does not name a shared board")
                }
                guard version <= Self.formatVersion else {
                    throw SharedBoardError.notASharedBoard(
                        "it has version \(version), newer than the \(Self.formatVersion) this program reads")
                }
            }
            // Write-ahead logging: a board reading the log is never held up by one writing it.
            // (Set once the file is known to be a shared board: a foreign database is not changed.)
            try execute("PRAGMA journal_mode = WAL")
        } catch let error as SharedBoardError {
            throw error
        } catch {
            throw .database(code: SQLITE_ERROR, message: "\(error)")
        }
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`: no other board writes until it
    /// ends), committed when `body` returns and rolled back when it throws.
    ///
    /// - Throws: `SharedBoardError` when the transaction cannot start or commit (another board
    ///   held the database for longer than `busyTimeout`), or what `body` throws.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN IMMEDIATE")
        let result: Result
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        return result
    }

    // MARK: The log

    /// One row of the log.
    struct Entry {
        /// Its place in the log.
        var id: Int64
        /// The user whose board wrote it.
        var user: Int
        /// The change, as JSON.
        var change: Data
    }

    /// The log's entries after `id`, in order.
    func entries(after id: Int64) throws(SharedBoardError) -> [Entry] {
        try query("SELECT id, user, change FROM operations WHERE id > ? ORDER BY id", .integer(id)) {
            Entry(id: sqlite3_column_int64($0, 0), user: Int(sqlite3_column_int64($0, 1)), change: Self.blob($0, 2))
        }
    }

    /// Appends `changes` (JSON) to the log for `user` and `process`; returns the last entry's id
    /// (or `after`, when there is no change). Call it in a transaction.
    func append(_ changes: [Data], user: Int, process: String, after: Int64) throws(SharedBoardError) -> Int64 {
        var last = after
        for change in changes {
            try run(
                "INSERT INTO operations (user, process, change) VALUES (?, ?, ?)", .integer(Int64(user)),
                .text(process), .text(String(decoding: change, as: UTF8.self)))
            last = sqlite3_last_insert_rowid(connection)
        }
        return last
    }

    // MARK: Users

    /// One row of `users`.
    struct User {
        var number: Int
        /// The process that holds the user, if one does (or did, and stopped without leaving).
        var process: String?
        var pid: Int32?
        var terminal: String?
    }

    /// Every user, by number.
    func users() throws(SharedBoardError) -> [User] {
        try query("SELECT number, process, pid, terminal FROM users ORDER BY number") { row in
            User(
                number: Int(sqlite3_column_int64(row, 0)),
                process: sqlite3_column_type(row, 1) == SQLITE_NULL ? nil : Self.text(row, 1),
                pid: sqlite3_column_type(row, 2) == SQLITE_NULL ? nil : sqlite3_column_int(row, 2),
                terminal: sqlite3_column_type(row, 3) == SQLITE_NULL ? nil : Self.text(row, 3))
        }
    }

    /// Marks `user` (made if it is new) as held by `process`, running as `pid` in `terminal`.
    func claim(_ user: Int, process: String, pid: Int32, terminal: String?) throws(SharedBoardError) {
        try run(
            """
            INSERT INTO users (number, process, pid, terminal) VALUES (?, ?, ?, ?)
            ON CONFLICT (number) DO UPDATE SET process = excluded.process, pid = excluded.pid,
                terminal = excluded.terminal
            """, .integer(Int64(user)), .text(process), .integer(Int64(pid)), terminal.map(Value.text) ?? .null)
    }

    /// The board file saved for `user`, if any.
    func saved(_ user: Int) throws(SharedBoardError) -> Data? {
        try query("SELECT saved FROM users WHERE number = ? AND saved IS NOT NULL", .integer(Int64(user))) {
            Self.blob($0, 0)
        }.first
    }

    /// Saves `contents`, a board file, for `user`.
    func save(_ contents: Data, for user: Int) throws(SharedBoardError) {
        try run("UPDATE users SET saved = ? WHERE number = ?", .blob(contents), .integer(Int64(user)))
    }

    /// Marks `user` as held by no process, if `process` holds it.
    func release(_ user: Int, process: String) throws(SharedBoardError) {
        try run(
            "UPDATE users SET process = NULL, pid = NULL WHERE number = ? AND process = ?", .integer(Int64(user)),
            .text(process))
    }

    // MARK: Statements

    /// A value bound to a statement's parameter.
    enum Value {
        case integer(Int64)
        case text(String)
        case blob(Data)
        case null
    }

    /// SQLite's `SQLITE_TRANSIENT`: it copies a bound value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
    }

    private static func blob(_ statement: OpaquePointer, _ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Runs one statement that returns no rows.
    private func run(_ sql: String, _ values: Value...) throws(SharedBoardError) {
        _ = try query(sql, values) { _ in () }
    }

    private func query<Row>(
        _ sql: String, _ values: Value..., row: (OpaquePointer) -> Row
    ) throws(SharedBoardError) -> [Row] {
        try query(sql, values, row: row)
    }

    /// Prepares `sql`, binds `values`, steps through every row and finalizes.
    private func query<Row>(
        _ sql: String, _ values: [Value], row: (OpaquePointer) -> Row
    ) throws(SharedBoardError) -> [Row] {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            throw lastError()
        }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let integer): sqlite3_bind_int64(statement, index, integer)
            case .text(let text): sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .blob(let data):
                _ = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
                }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        var rows: [Row] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_ROW {
                rows.append(row(statement))
            } else if status == SQLITE_DONE {
                return rows
            } else {
                throw lastError()
            }
        }
    }

    private func lastError() -> SharedBoardError {
        .database(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)))
    }

    /// Runs SQL statements with no parameters and no rows.
    private func execute(_ sql: String) throws(SharedBoardError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(connection, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(connection))
            sqlite3_free(message)
            throw .database(code: sqlite3_extended_errcode(connection), message: text)
        }
    }
}
