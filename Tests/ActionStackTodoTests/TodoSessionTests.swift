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
@Suite(.timeLimit(.minutes(5)))
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
}
