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

/// Whether `line` holds a character that would drive the terminal or hide text when printed.
func holdsHiddenCharacter(_ line: String) -> Bool {
    line.unicodeScalars.contains { scalar in
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}

/// The `todo` commands as a user types them, through `TodoSession`, against a real SQLite file:
/// what a hostile user types is refused or shown safely, and the list stays what the file holds.
@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.timeLimit(.minutes(10)))
struct TodoSessionTests {
    /// An item's text is stored as typed, but printed with each control or invisible format
    /// character as "?": an escape sequence in a text (an arrow key that a terminal without line
    /// editing passes on, or a file written by someone else) must not move the cursor, recolour or
    /// clear the screen, or make the list lie about what the item says.
    @Test func controlCharactersAreShownAsQuestionMarks() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let session = TodoSession(list: fixture.list)
        var lines = await session.handle("add left\u{1B}[D\u{1B}[DZ")
        #expect(lines.first == "added “left?[D?[DZ”")
        lines += await session.handle("rename 1 bell\u{7} cr\r\u{202E}rtl\ttab")
        #expect(lines.contains("  1. [ ] bell? cr??rtl tab"))
        lines += await session.handle("\u{1B}[A")
        #expect(lines.contains("error: unknown command '?[A'; type help for the list"))
        lines += session.render()
        for line in lines { #expect(!holdsHiddenCharacter(line), "printed as is: \(line.debugDescription)") }
        try await fixture.expectStored([("bell\u{7} cr\r\u{202E}rtl\ttab", false)])
    }

    /// Another connection to the file (a second `todo`) arms `fail after 1`: undoing a clear of two
    /// rows puts one back, is refused the other, and its rollback is refused too, so the step is
    /// broken. The stack then refuses every undo and redo until the app discards or retries the
    /// step, which a user of `todo` cannot do (a retry would put back a row that is already there):
    /// the session takes the step out of the history at once, and undo goes on below it.
    @Test func aBrokenStepLeavesTheHistoryAndUndoGoesOn() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let session = TodoSession(list: fixture.list)
        for command in ["add Buy milk", "add Call mom", "add Water plants", "done 1", "done 2", "clear"] {
            _ = await session.handle(command)
        }
        let other = try TodoDatabase(path: fixture.list.database.path)
        try await other.refuseWrite(after: 1)
        let refused = await session.handle("undo")
        #expect(refused.first?.hasPrefix("error: Undo Clear 2 Done Items failed: action 0 of 2 failed") == true)
        #expect(refused.first?.contains("the step is broken") == true)
        #expect(fixture.stack.brokenStep == nil)
        #expect(fixture.stack.undoMenuItemTitle == "Undo Mark “Call mom” Done")
        try await fixture.expectStored([("Call mom", true), ("Water plants", false)])

        try await other.setRefusesWrites(false)
        let undone = await session.handle("undo")
        #expect(undone.first == "Undo Mark “Call mom” Done")
        try await fixture.expectStored([("Call mom", false), ("Water plants", false)])
    }

    /// A command that takes no argument refuses one, as board's commands do: `undo 3` must not undo
    /// one step as if it had undone three, `clear 2` must not remove every done item, and `quit
    /// now` or `help me` must not pass for what they say.
    @Test func aCommandThatTakesNoArgumentRefusesOne() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let session = TodoSession(list: fixture.list)
        _ = await session.handle("add Buy milk")
        _ = await session.handle("done 1")
        for command in ["undo 3", "redo 1", "clear 2", "list all", "help me", "quit now"] {
            let lines = await session.handle(command)
            #expect(lines.first == "error: \(command.prefix { $0 != " " }) takes no arguments")
        }
        #expect(!session.isFinished)
        #expect(fixture.stack.undoMenuItemTitle == "Undo Mark “Buy milk” Done")
        try await fixture.expectStored([("Buy milk", true)])
        #expect(await session.handle("undo  ").first == "Undo Mark “Buy milk” Done", "spaces are no argument")
    }

    /// A number that names no item is refused as such, not as a missing number: `done 9` on a list
    /// of one item says there is no item 9.
    @Test func aNumberThatNamesNoItemIsRefusedAsSuch() async throws {
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let session = TodoSession(list: fixture.list)
        _ = await session.handle("add Buy milk")
        for command in ["done 9", "remove 0", "rename 2 Call mom"] {
            let number = command.split(separator: " ")[1]
            #expect(await session.handle(command).first == "error: there is no item \(number); the list has 1")
        }
        #expect(await session.handle("done x").first == "error: done needs an item number: done N")
        try await fixture.expectStored([("Buy milk", false)])
    }
}
