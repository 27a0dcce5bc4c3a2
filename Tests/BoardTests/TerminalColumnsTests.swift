// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackBoardModel
import Testing

/// The columns a character takes at a terminal, and the prompt's row built on them: a line with
/// Chinese characters or emoji puts the cursor where the terminal shows it, and never wraps.
struct TerminalColumnsTests {
    @Test(
        arguments: [
            // One column: ASCII, accented letters however written, other scripts, symbols shown as text.
            ("a", 1), ("é", 1), ("e\u{0301}", 1), ("Ж", 1), ("א", 1), ("€", 1), ("©", 1), ("1", 1), ("☺", 1),
            ("\u{FF71}", 1),  // halfwidth katakana
            // Two: East Asian Wide and Fullwidth, and emoji shown as pictures.
            ("你", 2), ("世", 2), ("あ", 2), ("カ", 2), ("한", 2), ("\u{1100}\u{1161}", 2), ("\u{FF21}", 2), ("\u{3000}", 2),
            ("\u{20000}", 2), ("😀", 2), ("👍🏽", 2), ("👩‍💻", 2), ("🇫🇷", 2), ("☺\u{FE0F}", 2), ("1\u{FE0F}\u{20E3}", 2),
            ("⌚", 2), ("⌚\u{FE0E}", 1),
            // None: a mark with nothing before it, joiners, variation selectors, controls and format characters.
            ("\u{0301}", 0), ("\u{200D}", 0), ("\u{FE0F}", 0), ("\u{E0100}", 0), ("\u{1B}", 0), ("\u{200B}", 0),
            ("\u{1160}", 0),
        ] as [(Character, Int)])
    func theWidthOfACharacter(character: Character, columns: Int) {
        #expect(
            TerminalColumns.width(of: character) == columns,
            "\(character.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func theWidthOfALine() {
        #expect(TerminalColumns.width(of: "add 你好世界") == 12)
        #expect(TerminalColumns.width(of: "> ") == 2)
        #expect(TerminalColumns.width(of: "") == 0)
    }

    /// The reviewer's case: `add 你好世界` typed, then Left twice. The cursor is before 世, 8
    /// columns after the prompt (4 for "add ", 2 for each of 你 and 好), not 6, as a count of
    /// characters put it; from the end of the line it goes back 4 columns, not 2.
    @Test func theCursorCountsTwoColumnsForEachWideCharacter() {
        var editor = LineEditor()
        for byte in "add 你好世界\u{1B}[D\u{1B}[D".utf8 { _ = editor.feed(byte) }
        #expect(editor.cursor == 6)
        let view = LineView(text: editor.text, cursor: editor.cursor, scroll: 0, room: 77)
        #expect(view.shown == 0..<8)
        #expect(view.cursorColumn == 8)
        #expect(view.width == 12)
        #expect(view.width - view.cursorColumn == 4)
    }

    /// A line wider than the room, in columns, is scrolled so that the cursor stays in view and
    /// what is shown fits: the row never reaches the last column, so the terminal never wraps it.
    @Test func aWideLineScrollsByColumnsAndNeverFillsTheRow() {
        let text = Array("add " + String(repeating: "你好", count: 30))  // 124 columns
        let room = 20
        var scroll = 0
        for cursor in [text.count, 0, 10, text.count - 3, 40, 2, text.count] {
            let view = LineView(text: text, cursor: cursor, scroll: scroll, room: room)
            scroll = view.shown.lowerBound
            #expect(view.width <= room, "cursor \(cursor)")
            #expect(view.shown.contains(cursor) || view.shown.upperBound == cursor, "cursor \(cursor) is shown")
            #expect(view.cursorColumn == TerminalColumns.width(of: text[view.shown.lowerBound..<cursor]))
            #expect(view.cursorColumn <= room)
        }
        // At the end, the row shows as much of the end as fits, and the cursor after it.
        let end = LineView(text: text, cursor: text.count, scroll: 0, room: room)
        #expect(end.shown == (text.count - 10)..<text.count)
        #expect(end.cursorColumn == 20)
        // A short line is shown whole, from its start, whatever the previous view scrolled to.
        let short = LineView(text: Array("undo"), cursor: 4, scroll: 50, room: room)
        #expect(short.shown == 0..<4 && short.cursorColumn == 4)
        // A control character is shown as "?": one column.
        let control = LineView(text: Array("a\u{1B}b"), cursor: 3, scroll: 0, room: room)
        #expect(control.width == 3)
    }

    /// The view moves no further than it must: moving the cursor inside the part shown keeps it.
    @Test func theViewStaysPutWhileTheCursorIsInIt() {
        let text = Array(String(repeating: "ab", count: 50))
        let atEnd = LineView(text: text, cursor: 100, scroll: 0, room: 20)
        #expect(atEnd.shown == 80..<100)
        let moved = LineView(text: text, cursor: 85, scroll: atEnd.shown.lowerBound, room: 20)
        #expect(moved.shown == 80..<100)
        #expect(moved.cursorColumn == 5)
        let before = LineView(text: text, cursor: 70, scroll: moved.shown.lowerBound, room: 20)
        #expect(before.shown.lowerBound == 70 && before.cursorColumn == 0)
    }
}
