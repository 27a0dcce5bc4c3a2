// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTodoModel
import Foundation
import Testing

/// A to-do list on a fresh database file in its own temporary directory.
@MainActor
struct Fixture {
    let directory: URL
    let list: TodoList

    init() async throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-todo-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try TodoDatabase(path: directory.appendingPathComponent("todo.sqlite").path)
        list = try await TodoList(database: database)
    }

    var stack: ActionStack { list.undoStack }

    /// What the database file holds, read through a connection of its own: the truth, not the
    /// model's in-memory copy.
    func stored() async throws -> [TodoItem] {
        try await TodoDatabase(path: list.database.path).items()
    }

    /// Checks that the database holds `texts` (with their done marks) and that the in-memory list
    /// is the same.
    func expectStored(
        _ expected: [(String, Bool)], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let rows = try await stored()
        #expect(rows.map(\.text) == expected.map(\.0), sourceLocation: sourceLocation)
        #expect(rows.map(\.isDone) == expected.map(\.1), sourceLocation: sourceLocation)
        #expect(rows == list.items, "the in-memory list is what the database holds", sourceLocation: sourceLocation)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The failure inside an operation error, or nil (recording an issue) when it is something else.
func actionFailure(_ error: ActionStack.OperationError) -> ActionStack.ActionFailure? {
    guard let failure = error.actionFailure else {
        Issue.record("expected an action failure, got \(error)")
        return nil
    }
    return failure
}

/// The to-do model driven end to end against a real SQLite file.
///
/// The time limit turns a hang into a failure: an awaited undo that never returns (as it did
/// when the first request of an idle stack was never granted its turn) fails the test instead of
/// stopping the run.
@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.timeLimit(.minutes(10)))
struct TodoListTests {
    @Test func addUndoRedo() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let added = try await fixture.list.add("Buy milk")
        try await fixture.expectStored([("Buy milk", false)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Add “Buy milk”")

        #expect(try await fixture.stack.performUndo())
        try await fixture.expectStored([])
        #expect(fixture.stack.redoMenuItemTitle == "Redo Add “Buy milk”")
        #expect(!fixture.stack.canUndo)

        #expect(try await fixture.stack.performRedo())
        try await fixture.expectStored([("Buy milk", false)])
        #expect(try await fixture.stored().first?.id == added.id, "redo puts the same row back")
        #expect(fixture.stack.undoMenuItemTitle == "Undo Add “Buy milk”")
        #expect(!fixture.stack.canRedo)
    }

    @Test func renameUndoRedo() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let item = try await fixture.list.add("Buy milk")
        try await fixture.list.rename(item.id, to: "Buy oat milk")
        try await fixture.expectStored([("Buy oat milk", false)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Rename “Buy milk”")

        try await fixture.stack.performUndo()
        try await fixture.expectStored([("Buy milk", false)])
        try await fixture.stack.performRedo()
        try await fixture.expectStored([("Buy oat milk", false)])
        try await fixture.stack.performUndo()
        try await fixture.stack.performUndo()
        try await fixture.expectStored([])
        try await fixture.stack.performRedo()
        try await fixture.stack.performRedo()
        try await fixture.expectStored([("Buy oat milk", false)])
    }

    @Test func toggleUndoRedo() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let item = try await fixture.list.add("Buy milk")
        try await fixture.list.toggle(item.id)
        try await fixture.expectStored([("Buy milk", true)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Mark “Buy milk” Done")
        try await fixture.list.toggle(item.id)
        try await fixture.expectStored([("Buy milk", false)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Mark “Buy milk” Not Done")

        try await fixture.stack.performUndo()
        try await fixture.expectStored([("Buy milk", true)])
        try await fixture.stack.performUndo()
        try await fixture.expectStored([("Buy milk", false)])
        try await fixture.stack.performRedo()
        try await fixture.expectStored([("Buy milk", true)])
    }

    @Test func removeUndoRedoKeepsTheRowsPlace() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        try await fixture.list.add("Buy milk")
        let middle = try await fixture.list.add("Call mom")
        try await fixture.list.add("Water plants")
        try await fixture.list.remove(middle.id)
        try await fixture.expectStored([("Buy milk", false), ("Water plants", false)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Remove “Call mom”")

        try await fixture.stack.performUndo()
        try await fixture.expectStored([("Buy milk", false), ("Call mom", false), ("Water plants", false)])
        #expect(try await fixture.stored()[1] == middle, "the same id and position")
        try await fixture.stack.performRedo()
        try await fixture.expectStored([("Buy milk", false), ("Water plants", false)])
    }

    /// `fail on`: the database's trigger refuses the undo's write; the step stays, the database
    /// and the list are unchanged, and once writes are accepted again the same undo succeeds.
    @Test func refusedUndoRollsBackAndStaysUndoable() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let item = try await fixture.list.add("Buy milk")
        try await fixture.list.rename(item.id, to: "Buy oat milk")
        try await fixture.list.database.setRefusesWrites(true)

        var failures: [ActionStack.OperationError] = []
        let observer = NotificationCenter.default.addObserver(
            forName: ActionStack.didFailUndoChangeNotification, object: fixture.stack, queue: nil
        ) { notification in
            if let error = notification.userInfo?[ActionStack.operationErrorUserInfoKey] as? ActionStack.OperationError
            {
                MainActor.assumeIsolated { failures.append(error) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let thrown = await #expect(throws: ActionStack.OperationError.self) { try await fixture.stack.performUndo() }
        let failure = try #require(thrown.flatMap(actionFailure))
        #expect(failure.isUndo)
        #expect(failure.stepName == "Rename “Buy milk”")
        #expect(failure.actionIndex == 0)
        #expect(failure.actionCount == 1)
        #expect((failure.underlying as? DatabaseError)?.message == TodoDatabase.refusalMessage)
        guard failure.rollback.isRestored else {
            Issue.record("the rollback should restore the list, got \(failure.rollback)")
            return
        }
        #expect(failures.count == 1, "one fail notification, carrying the error")

        try await fixture.expectStored([("Buy oat milk", false)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Rename “Buy milk”", "the step is still there")
        #expect(!fixture.stack.canRedo)
        #expect(fixture.stack.brokenStep == nil)

        try await fixture.list.database.setRefusesWrites(false)
        #expect(try await fixture.stack.performUndo())
        try await fixture.expectStored([("Buy milk", false)])
        #expect(fixture.stack.redoMenuItemTitle == "Redo Rename “Buy milk”")
    }

    /// A change whose write is refused records no step.
    @Test func refusedChangeRecordsNothing() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let item = try await fixture.list.add("Buy milk")
        try await fixture.list.database.setRefusesWrites(true)
        await #expect(throws: DatabaseError.self) { try await fixture.list.add("Call mom") }
        await #expect(throws: DatabaseError.self) { try await fixture.list.toggle(item.id) }
        try await fixture.expectStored([("Buy milk", false)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Add “Buy milk”")
        #expect(fixture.stack.undoEntries.count == 1)
    }

    /// "Clear done" is one step of one action per row. When undoing it, the row put back k-th is
    /// refused: the rows put back before it are deleted again (the rollback goes through the
    /// database), the step stays, and the next undo puts every row back.
    @Test(arguments: 0..<3) func multiActionUndoRollsBackEarlierRows(writesBeforeRefusal: Int) async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        for text in ["Buy milk", "Call mom", "Water plants"] {
            let item = try await fixture.list.add(text)
            try await fixture.list.toggle(item.id)
        }
        let keep = try await fixture.list.add("Write report")
        let removed = try await fixture.list.clearDone()
        #expect(removed.count == 3)
        try await fixture.expectStored([("Write report", false)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Clear 3 Done Items")

        try await fixture.list.database.refuseWrite(after: writesBeforeRefusal)
        let thrown = await #expect(throws: ActionStack.OperationError.self) { try await fixture.stack.performUndo() }
        let failure = try #require(thrown.flatMap(actionFailure))
        // The actions run newest first: the last row registered is put back first.
        #expect(failure.actionIndex == 2 - writesBeforeRefusal)
        #expect(failure.actionCount == 3)
        guard failure.rollback.isRestored else {
            Issue.record("the rollback should restore the list, got \(failure.rollback)")
            return
        }
        try await fixture.expectStored([("Write report", false)])
        #expect(try await fixture.list.database.writesLeftBeforeRefusal() == nil, "the fault was one-shot")
        #expect(fixture.stack.undoMenuItemTitle == "Undo Clear 3 Done Items")

        #expect(try await fixture.stack.performUndo())
        try await fixture.expectStored([
            ("Buy milk", true), ("Call mom", true), ("Water plants", true), ("Write report", false),
        ])
        #expect(try await fixture.stored().map(\.id) == removed.map(\.id) + [keep.id])

        // The redo is a step of three deletes: refused at the second, it puts the first back.
        try await fixture.list.database.refuseWrite(after: 1)
        let redoError = await #expect(throws: ActionStack.OperationError.self) {
            try await fixture.stack.performRedo()
        }
        let redoFailure = try #require(redoError.flatMap(actionFailure))
        #expect(!redoFailure.isUndo)
        guard redoFailure.rollback.isRestored else {
            Issue.record("the rollback should restore the list, got \(redoFailure.rollback)")
            return
        }
        try await fixture.expectStored([
            ("Buy milk", true), ("Call mom", true), ("Water plants", true), ("Write report", false),
        ])
        #expect(try await fixture.stack.performRedo())
        try await fixture.expectStored([("Write report", false)])
    }

    /// A clear-done refused at its second row deletes none: the rows go in one transaction.
    @Test func refusedClearDoneDeletesNothing() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        for text in ["Buy milk", "Call mom"] {
            let item = try await fixture.list.add(text)
            try await fixture.list.toggle(item.id)
        }
        try await fixture.list.database.refuseWrite(after: 1)
        await #expect(throws: DatabaseError.self) { try await fixture.list.clearDone() }
        try await fixture.expectStored([("Buy milk", true), ("Call mom", true)])
        #expect(fixture.stack.undoMenuItemTitle == "Undo Mark “Call mom” Done")
    }

    /// A text that holds a NUL character is stored whole, and read back whole: the list shows
    /// what the file holds, not a text the database cut at the NUL.
    @Test func aTextWithANulCharacterIsStoredWhole() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let item = try await fixture.list.add("Buy\u{0}milk")
        try await fixture.expectStored([("Buy\u{0}milk", false)])
        try await fixture.list.rename(item.id, to: "Call\u{0}mom")
        try await fixture.expectStored([("Call\u{0}mom", false)])
        try await fixture.stack.performUndo()
        try await fixture.expectStored([("Buy\u{0}milk", false)])
    }

    /// A list reopened on the same file shows what was stored; its history starts empty.
    @Test func reopeningReadsTheFile() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        try await fixture.list.add("Buy milk")
        let reopened = try await TodoList(database: TodoDatabase(path: fixture.list.database.path))
        #expect(reopened.items == fixture.list.items)
        #expect(!reopened.undoStack.canUndo)
    }
}
