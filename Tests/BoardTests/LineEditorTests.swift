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

/// The prompt's line editor, driven with the bytes a terminal sends.
struct LineEditorTests {
    /// The escape sequences of the keys, as xterm and tmux send them.
    enum Key {
        static let up = "\u{1B}[A"
        static let down = "\u{1B}[B"
        static let right = "\u{1B}[C"
        static let left = "\u{1B}[D"
        static let home = "\u{1B}[H"
        static let end = "\u{1B}[F"
        static let delete = "\u{1B}[3~"
        static let homeSS3 = "\u{1B}OH"
        static let endTilde = "\u{1B}[4~"
    }

    /// Feeds `input` byte by byte; returns the events other than `.none` and `.changed`.
    @discardableResult
    func type(_ input: String, into editor: inout LineEditor) -> [LineEditor.Event] {
        var events: [LineEditor.Event] = []
        for byte in input.utf8 {
            let event = editor.feed(byte)
            if event != .none && event != .changed { events.append(event) }
        }
        return events
    }

    func line(_ editor: LineEditor) -> String { String(editor.text) }

    @Test func typingAndReturnEnterTheLine() {
        var editor = LineEditor()
        #expect(type("add 1 1\r", into: &editor) == [.entered("add 1 1")])
        #expect(editor.text.isEmpty && editor.cursor == 0, "a new, empty line")
        #expect(type("undo\n", into: &editor) == [.entered("undo")], "a line feed enters too")
    }

    @Test func arrowsHomeAndEndMoveTheCursorToInsertAnywhere() {
        var editor = LineEditor()
        type("ad 3 3" + Key.home + Key.right + Key.right + "d", into: &editor)
        #expect(line(editor) == "add 3 3")
        #expect(editor.cursor == 3)
        type(Key.end + "0", into: &editor)
        #expect(line(editor) == "add 3 30")
        type(Key.homeSS3 + "x" + Key.endTilde + "y" + Key.left + Key.left + Key.left, into: &editor)
        #expect(line(editor) == "xadd 3 30y")
        #expect(editor.cursor == 7)
        type("\u{01}" + "\u{06}" + "\u{05}" + "\u{02}", into: &editor)  // Ctrl-A, Ctrl-F, Ctrl-E, Ctrl-B
        #expect(editor.cursor == line(editor).count - 1)
    }

    @Test func deletingKeys() {
        var editor = LineEditor()
        type("color red" + "\u{7F}", into: &editor)  // Backspace
        #expect(line(editor) == "color re")
        type(Key.home + Key.delete, into: &editor)
        #expect(line(editor) == "olor re")
        type(Key.end + "\u{17}", into: &editor)  // Ctrl-W: the word before the cursor
        #expect(line(editor) == "olor ")
        type(Key.left + Key.left + "\u{0B}", into: &editor)  // Ctrl-K: to the end
        #expect(line(editor) == "olo")
        type("\u{15}", into: &editor)  // Ctrl-U: to the start
        #expect(editor.text.isEmpty)
    }

    @Test func upAndDownGoThroughTheHistoryAndKeepTheDraft() {
        var editor = LineEditor()
        type("add 1 1\r" + "undo\r" + "undo\r" + "   \r", into: &editor)
        #expect(editor.history == ["add 1 1", "undo"], "no repeats, no blank lines")
        type("red", into: &editor)
        type(Key.up, into: &editor)
        #expect(line(editor) == "undo")
        type(Key.up + Key.up, into: &editor)
        #expect(line(editor) == "add 1 1", "stops at the oldest")
        type(Key.down + Key.down, into: &editor)
        #expect(line(editor) == "red", "the line being typed comes back")
        type("\u{10}" + " 2\r", into: &editor)  // Ctrl-P, then edit the recalled line
        #expect(editor.history.last == "undo 2")
    }

    @Test func controlCAbandonsTheLineAndControlDEndsTheInputOnlyWhenEmpty() {
        var editor = LineEditor()
        #expect(type("remove 1\u{03}", into: &editor) == [.cancelled])
        #expect(editor.text.isEmpty)
        #expect(editor.history.isEmpty, "an abandoned line is not remembered")
        type("ab" + Key.left, into: &editor)
        #expect(type("\u{04}", into: &editor).isEmpty, "Ctrl-D with text deletes at the cursor")
        #expect(line(editor) == "a")
        type("\u{7F}", into: &editor)
        #expect(type("\u{04}", into: &editor) == [.endOfInput])
    }

    @Test func multiByteCharactersAndCombiningMarksAreOneCharacter() {
        var editor = LineEditor()
        type("é€😀" + "e\u{0301}", into: &editor)
        #expect(editor.text.count == 4)
        #expect(editor.cursor == 4)
        type(Key.left + "\u{7F}", into: &editor)
        #expect(line(editor) == "é€e\u{0301}")
    }

    @Test func unknownKeysAndMalformedBytesChangeNothing() {
        var editor = LineEditor()
        type("ok", into: &editor)
        // F5, Alt-x, a mouse report, a lone continuation byte, Ctrl-G, and an overlong sequence.
        for input in ["\u{1B}[15~", "\u{1B}x", "\u{1B}[<0;10;5M"] {
            for byte in input.utf8 { _ = editor.feed(byte) }
        }
        for byte: UInt8 in [0x80, 0x07, 0xC0, 0x80] { _ = editor.feed(byte) }
        #expect(line(editor) == "ok")
        #expect(editor.cursor == 2)
    }

    @Test func theLineIsAsLongAsTheProgramTakesAndNoLonger() {
        var editor = LineEditor()
        for _ in 0..<(LineBuffer.maximumLength + 10) { _ = editor.feed(UInt8(ascii: "a")) }
        #expect(editor.text.count == LineBuffer.maximumLength)
        // Combining marks all join one character: the limit is on bytes, not on characters.
        var marks = LineEditor()
        _ = marks.feed(UInt8(ascii: "e"))
        for _ in 0..<(LineBuffer.maximumLength / 2 + 10) {
            for byte in "\u{0301}".utf8 { _ = marks.feed(byte) }
        }
        #expect(marks.text.count == 1)
        #expect(marks.text[0].unicodeScalars.count == 32, "one character holds at most 32 scalars")
    }

    /// A line that lost what was typed beyond the limit is refused on Return, as the same line
    /// piped is (the program answers `Session.lineTooLong`): it is not entered cut short, and not
    /// remembered. A line of exactly the limit is entered.
    @Test func aLineCutAtTheLimitIsRefusedNotEnteredCutShort() {
        var editor = LineEditor()
        type("add 1 1" + String(repeating: " ", count: LineBuffer.maximumLength), into: &editor)
        #expect(editor.isCut)
        #expect(type("\r", into: &editor) == [.tooLong])
        #expect(editor.text.isEmpty && !editor.isCut, "a new, empty line")
        #expect(editor.history.isEmpty, "a refused line is not remembered")

        let longest = "add 1 1" + String(repeating: " ", count: LineBuffer.maximumLength - 7)
        #expect(type(longest + "\r", into: &editor) == [.entered(longest)])

        // An earlier line recalled over a cut one is entered; back at the cut line, it is refused.
        type(String(repeating: "9", count: LineBuffer.maximumLength + 1) + Key.up, into: &editor)
        #expect(!editor.isCut)
        #expect(type(Key.down + "\r", into: &editor) == [.tooLong])
        // Emptied, nothing of the cut line is left: what is typed next is a line of its own.
        type(String(repeating: "9", count: LineBuffer.maximumLength + 1) + "\u{15}", into: &editor)
        #expect(type("undo\r", into: &editor) == [.entered("undo")])
        // Ctrl-C drops a cut line as any other.
        type(String(repeating: "9", count: LineBuffer.maximumLength + 1), into: &editor)
        #expect(type("\u{03}" + "redo\r", into: &editor) == [.cancelled, .entered("redo")])
    }

    @Test func aTabIsASpace() {
        var editor = LineEditor()
        #expect(type("add\t1 1\r", into: &editor) == [.entered("add 1 1")])
    }
}
