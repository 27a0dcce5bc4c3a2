// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStack

/// A to-do list document whose every change is a write to a SQLite database, with undo and redo
/// that go through the database too.
///
/// The pattern, used by each change below: a *primitive* (``insert(_:)``, ``delete(_:)``,
/// ``write(text:of:)``, ``write(isDone:of:)``, all private) awaits the database, then updates the
/// in-memory list, then registers its inverse with `registerAsyncUndo(withTarget:)`; the inverse is
/// another primitive, so undoing a change registers the redo, and redoing it registers the undo.
/// A primitive registers only after its write has succeeded: a refused write registers nothing and
/// leaves the in-memory list as it was.
///
/// The user's commands (``add(_:)``, ``rename(_:to:)``, ``toggle(_:)``, ``remove(_:)``,
/// ``clearDone()``) each make one named step. ``clearDone()`` is a step of several actions, one per
/// removed row: when undoing it fails at the k-th row, the stack rolls back the rows already put
/// back, through the database, and the step stays undoable.
@MainActor
public final class TodoList {
    /// The database the list lives in.
    public let database: TodoDatabase
    /// The list's history. Steps are grouped explicitly, one per command (`groupsByEvent` is off).
    public let undoStack = ActionStack()
    /// The items, by position: always what the database holds, once each call has returned.
    public private(set) var items: [TodoItem]

    /// Why a command was refused before anything was written.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// No item has this id.
        case noSuchItem(Int64)
        /// No item is done.
        case nothingDone

        /// A sentence that says what happened.
        public var description: String {
            switch self {
            case .noSuchItem(let id): "no item has id \(id)"
            case .nothingDone: "no item is done"
            }
        }
    }

    /// Opens the list stored in `database`; its history starts empty.
    ///
    /// - Throws: ``DatabaseError`` when the items cannot be read.
    public init(database: TodoDatabase) async throws {
        self.database = database
        items = try await database.items()
        undoStack.groupsByEvent = false
        // A command whose write is refused records nothing: its group closes empty and goes.
        undoStack.dropsEmptyGroups = true
    }

    /// The item with `id`.
    public func item(_ id: Int64) -> TodoItem? { items.first { $0.id == id } }

    // MARK: Commands: one named step each

    /// Adds an item at the end of the list; returns it.
    @discardableResult
    public func add(_ text: String) async throws -> TodoItem {
        try await step(named: "Add \(Self.quote(text))") {
            let item = try await database.insertNew(text: text)
            didInsert(item)
            return item
        }
    }

    /// Changes an item's text.
    public func rename(_ id: Int64, to text: String) async throws {
        guard let item = item(id) else { throw Refusal.noSuchItem(id) }
        try await step(named: "Rename \(Self.quote(item.text))") { try await write(text: text, of: id) }
    }

    /// Marks a done item not done, or an item that is not done done.
    public func toggle(_ id: Int64) async throws {
        guard let item = item(id) else { throw Refusal.noSuchItem(id) }
        let name = "Mark \(Self.quote(item.text)) \(item.isDone ? "Not Done" : "Done")"
        try await step(named: name) { try await write(isDone: !item.isDone, of: id) }
    }

    /// Removes an item.
    public func remove(_ id: Int64) async throws {
        guard let item = item(id) else { throw Refusal.noSuchItem(id) }
        try await step(named: "Remove \(Self.quote(item.text))") { try await delete(id) }
    }

    /// Removes every done item, in one database transaction and one step of one action per item;
    /// returns the removed items.
    @discardableResult
    public func clearDone() async throws -> [TodoItem] {
        let done = items.filter(\.isDone)
        guard !done.isEmpty else { throw Refusal.nothingDone }
        let name = done.count == 1 ? "Clear 1 Done Item" : "Clear \(done.count) Done Items"
        return try await step(named: name) {
            // All the rows or none: a refused delete rolls the transaction back, and nothing is
            // registered.
            try await database.delete(done.map(\.id))
            for item in done { didDelete(item) }
            return done
        }
    }

    /// Reads the items again from the database (what another connection may have changed is not
    /// undoable).
    public func reload() async throws {
        items = try await database.items()
    }

    /// Quotes a text for a step name with typographic quotes, as a Mac menu would.
    public static func quote(_ text: String) -> String { "\u{201C}\(text)\u{201D}" }

    /// Runs `body` as one step named `name`. An async body cannot use the stack's scoped
    /// `group(named:_:)`, whose body is synchronous, so the group is opened and closed here.
    private func step<Result>(named name: String, _ body: () async throws -> Result) async throws -> Result {
        undoStack.beginUndoGrouping()
        defer {
            undoStack.setActionName(name)
            undoStack.endUndoGrouping()
        }
        return try await body()
    }

    // MARK: Primitives: write, update the list, register the inverse

    /// Puts `item` back into the database and the list (same id, same position).
    private func insert(_ item: TodoItem) async throws {
        try await database.insert(item)
        didInsert(item)
    }

    /// `item` was inserted: the list shows it and the inverse deletes it.
    private func didInsert(_ item: TodoItem) {
        items.append(item)
        items.sort { ($0.position, $0.id) < ($1.position, $1.id) }
        undoStack.registerAsyncUndo(withTarget: self) { list in try await list.delete(item.id) }
    }

    /// Deletes the item `id` from the database and the list.
    private func delete(_ id: Int64) async throws {
        guard let item = item(id) else { throw Refusal.noSuchItem(id) }
        try await database.delete(id)
        didDelete(item)
    }

    /// `item` was deleted: the list drops it and the inverse puts it back.
    private func didDelete(_ item: TodoItem) {
        items.removeAll { $0.id == item.id }
        undoStack.registerAsyncUndo(withTarget: self) { list in try await list.insert(item) }
    }

    /// Sets the text of the item `id`.
    private func write(text: String, of id: Int64) async throws {
        guard let old = item(id)?.text else { throw Refusal.noSuchItem(id) }
        try await database.setText(text, of: id)
        update(id) { $0.text = text }
        undoStack.registerAsyncUndo(withTarget: self) { list in try await list.write(text: old, of: id) }
    }

    /// Marks the item `id` done or not done.
    private func write(isDone: Bool, of id: Int64) async throws {
        guard let old = item(id)?.isDone else { throw Refusal.noSuchItem(id) }
        try await database.setDone(isDone, of: id)
        update(id) { $0.isDone = isDone }
        undoStack.registerAsyncUndo(withTarget: self) { list in try await list.write(isDone: old, of: id) }
    }

    private func update(_ id: Int64, _ change: (inout TodoItem) -> Void) {
        guard let index = items.firstIndex(where: { $0.id == id }) else { return }
        change(&items[index])
    }
}
