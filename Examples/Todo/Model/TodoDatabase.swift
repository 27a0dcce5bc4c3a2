// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

internal import ActionStackCSQLite

/// One row of the to-do list.
public struct TodoItem: Hashable, Sendable {
    /// The row's primary key: stable across undo and redo (an undone removal puts the row back
    /// with the same id).
    public var id: Int64
    /// Where the item sorts in the list (items are listed by position).
    public var position: Int64
    /// What is to be done.
    public var text: String
    /// Whether it is done.
    public var isDone: Bool

    /// Creates an item.
    public init(id: Int64, position: Int64, text: String, isDone: Bool) {
        self.id = id
        self.position = position
        self.text = text
        self.isDone = isDone
    }
}

/// An error reported by SQLite: its result code and its message (for a write refused by the fault
/// triggers, the trigger's `RAISE` message).
public struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite's (extended) result code, such as 19 (`SQLITE_CONSTRAINT`) or 1811
    /// (`SQLITE_CONSTRAINT_TRIGGER`).
    public var code: Int32
    /// SQLite's message.
    public var message: String

    /// A sentence that says what happened.
    public var description: String { "the database refused the write: \(message) (SQLite error \(code))" }
}

/// The to-do list's SQLite database, behind an actor that owns the connection: every read and
/// write is a call that the model awaits, as a call to a real database server would be.
///
/// Fault injection is the database's own: a `faults` row that triggers on `items` read before every
/// insert, update and delete. With `writes_left` set to 0, every write to `items` fails with
/// `RAISE(ABORT, ...)` (a real constraint error, `SQLITE_CONSTRAINT_TRIGGER`); set to k > 0, k writes
/// succeed (each counts itself down) and the one after them fails. A one-shot fault
/// (``refuseWrite(after:)``) is turned off by the actor once it has refused a write, so that the
/// writes of a rollback go through.
public actor TodoDatabase {
    /// The connection's owner, which closes it when the actor is freed (a nonisolated `deinit` of
    /// the actor could not touch the pointer, which is not `Sendable`).
    private let owner: Connection
    /// The open connection.
    private var connection: OpaquePointer { owner.handle }
    /// Whether the armed fault turns itself off after refusing one write.
    private var faultIsOneShot = false

    /// The file the database lives in.
    public nonisolated let path: String

    /// The message of the write refused by the fault triggers.
    public static let refusalMessage = "writes are refused (fault injected)"

    /// Opens (creating if needed) the database at `path` and makes its tables and triggers.
    ///
    /// - Throws: ``DatabaseError`` when the file cannot be opened or the schema cannot be made.
    public init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw DatabaseError(code: status, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        self.owner = Connection(handle)
        self.path = path
        try Self.execute(Self.schema, on: handle)
    }

    /// Owns an open connection; only its actor uses it.
    private final class Connection {
        let handle: OpaquePointer
        init(_ handle: OpaquePointer) { self.handle = handle }
        deinit { sqlite3_close(handle) }
    }

    /// The tables and the fault triggers.
    private static let schema = """
        CREATE TABLE IF NOT EXISTS items (
            id INTEGER PRIMARY KEY,
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1))
        );
        CREATE TABLE IF NOT EXISTS faults (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            writes_left INTEGER
        );
        INSERT OR IGNORE INTO faults (id, writes_left) VALUES (1, NULL);
        \(["INSERT", "UPDATE", "DELETE"].map(faultTriggers).joined(separator: "\n"))
        """

    /// The two triggers of one kind of write: one refuses it when no write is left, one counts it.
    private static func faultTriggers(_ write: String) -> String {
        let name = write.lowercased()
        return """
            CREATE TRIGGER IF NOT EXISTS refuse_\(name) BEFORE \(write) ON items
            WHEN (SELECT writes_left FROM faults WHERE id = 1) = 0
            BEGIN SELECT RAISE(ABORT, '\(refusalMessage)'); END;
            CREATE TRIGGER IF NOT EXISTS count_\(name) AFTER \(write) ON items
            WHEN (SELECT writes_left FROM faults WHERE id = 1) > 0
            BEGIN UPDATE faults SET writes_left = writes_left - 1 WHERE id = 1; END;
            """
    }

    // MARK: Reading

    /// Every item, by position.
    public func items() throws -> [TodoItem] {
        try query("SELECT id, position, text, done FROM items ORDER BY position, id") { statement in
            TodoItem(
                id: sqlite3_column_int64(statement, 0), position: sqlite3_column_int64(statement, 1),
                text: Self.text(of: statement, column: 2),
                isDone: sqlite3_column_int(statement, 3) != 0)
        }
    }

    /// The text in `column` of the current row, all its bytes: a text may hold a NUL character,
    /// which `String(cString:)` would cut it at.
    private static func text(of statement: OpaquePointer, column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The position after the last item.
    public func nextPosition() throws -> Int64 {
        try query("SELECT COALESCE(MAX(position), 0) + 1 FROM items") { sqlite3_column_int64($0, 0) }.first ?? 1
    }

    // MARK: Writing

    /// Inserts a new item after the last one; returns it with its id and position.
    public func insertNew(text: String) throws -> TodoItem {
        try writing {
            let position = try nextPosition()
            try run("INSERT INTO items (position, text, done) VALUES (?, ?, 0)", .integer(position), .text(text))
            return TodoItem(id: sqlite3_last_insert_rowid(connection), position: position, text: text, isDone: false)
        }
    }

    /// Puts back an item that was removed (same id, same position).
    public func insert(_ item: TodoItem) throws {
        try writing {
            try run(
                "INSERT INTO items (id, position, text, done) VALUES (?, ?, ?, ?)", .integer(item.id),
                .integer(item.position), .text(item.text), .integer(item.isDone ? 1 : 0))
        }
    }

    /// Changes an item's text.
    public func setText(_ text: String, of id: Int64) throws {
        try writing { try runOnItem(id, "UPDATE items SET text = ? WHERE id = ?", .text(text)) }
    }

    /// Marks an item done or not done.
    public func setDone(_ isDone: Bool, of id: Int64) throws {
        try writing { try runOnItem(id, "UPDATE items SET done = ? WHERE id = ?", .integer(isDone ? 1 : 0)) }
    }

    /// Deletes an item.
    public func delete(_ id: Int64) throws {
        try writing { try runOnItem(id, "DELETE FROM items WHERE id = ?") }
    }

    /// Deletes several items in one transaction: all of them or none.
    public func delete(_ ids: [Int64]) throws {
        try writing {
            try Self.execute("BEGIN IMMEDIATE", on: connection)
            do {
                for id in ids { try runOnItem(id, "DELETE FROM items WHERE id = ?") }
                try Self.execute("COMMIT", on: connection)
            } catch {
                try? Self.execute("ROLLBACK", on: connection)
                throw error
            }
        }
    }

    // MARK: Faults

    /// Refuses every write to the items from now on (`fail on`), or no write (`fail off`).
    public func setRefusesWrites(_ refuses: Bool) throws {
        faultIsOneShot = false
        try run("UPDATE faults SET writes_left = ? WHERE id = 1", refuses ? .integer(0) : .null)
    }

    /// Lets `count` writes to the items succeed and refuses the one after them, once.
    public func refuseWrite(after count: Int) throws {
        faultIsOneShot = true
        try run("UPDATE faults SET writes_left = ? WHERE id = 1", .integer(Int64(max(0, count))))
    }

    /// Whether a fault is armed, and how many writes it lets through before refusing (0: it refuses
    /// the next one); nil when writes are not refused.
    public func writesLeftBeforeRefusal() throws -> Int? {
        try query("SELECT writes_left FROM faults WHERE id = 1") { statement in
            sqlite3_column_type(statement, 0) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, 0))
        }.first ?? nil
    }

    // MARK: Statements

    /// A value bound to a statement's parameter.
    private enum Value {
        case integer(Int64)
        case text(String)
        case null
    }

    /// SQLite's `SQLITE_TRANSIENT`: it copies a bound text before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Runs one statement that returns no rows.
    private func run(_ sql: String, _ values: Value...) throws {
        _ = try query(sql, values) { _ in () }
    }

    /// Runs an update or delete of the item `id`; throws when no such item exists.
    private func runOnItem(_ id: Int64, _ sql: String, _ values: Value...) throws {
        _ = try query(sql, values + [.integer(id)]) { _ in () }
        guard sqlite3_changes(connection) == 1 else {
            throw DatabaseError(code: SQLITE_NOTFOUND, message: "no item has id \(id)")
        }
    }

    /// Runs the writes of one public call; turns a one-shot fault off once it has refused a write
    /// (after a transaction's rollback, which would undo the change of the `faults` row).
    private func writing<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as DatabaseError where error.message == Self.refusalMessage && faultIsOneShot {
            faultIsOneShot = false
            try? run("UPDATE faults SET writes_left = NULL WHERE id = 1")
            throw error
        }
    }

    private func query<Row>(_ sql: String, _ values: Value..., row: (OpaquePointer) -> Row) throws -> [Row] {
        try query(sql, values, row: row)
    }

    /// Prepares `sql`, binds `values`, steps through every row and finalizes.
    private func query<Row>(_ sql: String, _ values: [Value], row: (OpaquePointer) -> Row) throws -> [Row] {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            throw lastError()
        }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let integer): sqlite3_bind_int64(statement, index, integer)
            case .text(let text):
                // Bound by its length, not up to its first NUL (-1 would cut a text that holds one).
                sqlite3_bind_text64(
                    statement, index, text, sqlite3_uint64(text.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
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

    private func lastError() -> DatabaseError {
        DatabaseError(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)))
    }

    /// Runs SQL statements with no parameters and no rows.
    private static func execute(_ sql: String, on connection: OpaquePointer) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(connection, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(connection))
            sqlite3_free(message)
            throw DatabaseError(code: sqlite3_extended_errcode(connection), message: text)
        }
    }
}
