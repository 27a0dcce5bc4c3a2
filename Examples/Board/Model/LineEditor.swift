// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The editing of the interactive prompt's line: the keys a shell user expects, fed one byte at a
/// time as they arrive from a terminal in raw mode.
///
/// - Left and Right (or Ctrl-B, Ctrl-F) move the cursor; Home and End (or Ctrl-A, Ctrl-E) go to
///   the start and the end of the line.
/// - Backspace deletes before the cursor, Delete at the cursor; Ctrl-U deletes to the start of the
///   line, Ctrl-K to its end, and Ctrl-W the word before the cursor.
/// - Up and Down (or Ctrl-P, Ctrl-N) go through the lines entered before; the line being typed is
///   kept, and comes back below the newest one.
/// - Return enters the line; Ctrl-C abandons it; Ctrl-D on an empty line ends the input, and on a
///   line with text deletes at the cursor.
/// - A line is at most `LineBuffer.maximumLength` bytes, the longest line the program reads. What
///   is typed (or pasted) beyond that is dropped, and Return then refuses the line (`tooLong`)
///   rather than enter a line cut short, as the program refuses such a line piped to it.
///
/// The editor only keeps the state; the program draws it (`text`, `cursor`, fitted to the
/// terminal's row by `LineView`) once the bytes that arrived together are fed. It holds no
/// terminal and does no I/O, so tests drive it with bytes.
public struct LineEditor: Sendable {
    /// What a byte did.
    public enum Event: Equatable, Sendable {
        /// Nothing to show: the byte is part of a longer key, or the key does nothing here.
        case none
        /// The line or the cursor changed: redraw it.
        case changed
        /// Return: the line is entered (the editor starts an empty line).
        case entered(String)
        /// Ctrl-C: the line is abandoned (the editor starts an empty line).
        case cancelled
        /// Ctrl-D on an empty line: the end of input.
        case endOfInput
        /// Return on a line that lost what was typed beyond `LineBuffer.maximumLength` bytes: the
        /// line is refused whole, and not remembered (the editor starts an empty line).
        case tooLong
    }

    /// The line being edited.
    public private(set) var text: [Character] = []
    /// Where the cursor is: before `text[cursor]`, or at the end when it equals `text.count`.
    public private(set) var cursor = 0

    /// The lines entered, oldest first (blank lines and repeats of the newest are not kept).
    public private(set) var history: [String] = []
    /// The most Unicode scalars one character of the line may have (a letter and its marks).
    static let longestCharacter = 32
    /// The most lines `history` keeps.
    public static let historyLimit = 500
    /// Which history line is shown: `history.count` for the line being typed.
    private var historyIndex = 0
    /// The line being typed, kept while the user looks through the history.
    private var draft: [Character] = []

    /// `String(text).utf8.count`, kept up to date so that typing a long line stays linear.
    private var byteCount = 0

    /// Whether something typed on this line was dropped for the length limit: the line is not
    /// what the user typed, and Return refuses it. Emptying the line clears it.
    public private(set) var isCut = false
    /// `isCut` of the line being typed, kept while the user looks through the history.
    private var draftIsCut = false

    /// The bytes of a character or an escape sequence that has not arrived whole.
    private var pending: [UInt8] = []

    /// Creates an editor with an empty line and no history.
    public init() {}

    /// Feeds one byte from the terminal; returns what it did.
    public mutating func feed(_ byte: UInt8) -> Event {
        if !pending.isEmpty {
            pending.append(byte)
            return pending[0] == 0x1B ? escapeSequence() : utf8Character()
        }
        switch byte {
        case 0x0D, 0x0A: return enter()
        case 0x03: return reset(.cancelled)
        case 0x04:
            if text.isEmpty { return .endOfInput }
            return edit { $0.deleteAtCursor() }
        case 0x7F, 0x08: return edit { $0.deleteBeforeCursor() }
        case 0x01: return move(to: 0)
        case 0x05: return move(to: text.count)
        case 0x02: return move(to: cursor - 1)
        case 0x06: return move(to: cursor + 1)
        case 0x10: return showHistory(historyIndex - 1)
        case 0x0E: return showHistory(historyIndex + 1)
        case 0x15: return edit { $0.deleteToStart() }
        case 0x0B: return edit { $0.text.removeSubrange($0.cursor...) }
        case 0x17: return edit { $0.deleteWordBeforeCursor() }
        case 0x09: return insert(" ")  // a tab separates words, as a space does
        case 0x1B:
            pending = [byte]
            return .none
        case 0x00..<0x20: return .none  // other control keys do nothing
        case 0x80...:
            pending = [byte]
            return utf8Character()
        default: return insert(Character(Unicode.Scalar(byte)))
        }
    }

    // MARK: Keys

    private mutating func enter() -> Event {
        if isCut { return reset(.tooLong) }
        let line = String(text)
        if !line.allSatisfy(\.isWhitespace) && history.last != line {
            history.append(line)
            if history.count > Self.historyLimit { history.removeFirst() }
        }
        return reset(.entered(line))
    }

    private mutating func reset(_ event: Event) -> Event {
        text = []
        cursor = 0
        byteCount = 0
        isCut = false
        draft = []
        draftIsCut = false
        historyIndex = history.count
        return event
    }

    private mutating func insert(_ character: Character) -> Event {
        // At most `LineBuffer.maximumLength` bytes, the longest line the program takes.
        guard byteCount + character.utf8.count <= LineBuffer.maximumLength else {
            isCut = true
            return .none
        }
        // A combining mark joins the character before it ("e" then U+0301 is one "é").
        if cursor > 0, String([text[cursor - 1], character]).count == 1 {
            // No real character has this many scalars; more would make each key cost more.
            guard text[cursor - 1].unicodeScalars.count < Self.longestCharacter else { return .none }
            text[cursor - 1] = Character(String([text[cursor - 1], character]))
        } else {
            text.insert(character, at: cursor)
            cursor += 1
        }
        byteCount += character.utf8.count
        return .changed
    }

    private mutating func move(to position: Int) -> Event {
        let position = min(max(position, 0), text.count)
        guard position != cursor else { return .none }
        cursor = position
        return .changed
    }

    private mutating func edit(_ change: (inout LineEditor) -> Void) -> Event {
        let before = (text, cursor)
        change(&self)
        if before == (text, cursor) { return .none }
        byteCount = String(text).utf8.count
        if text.isEmpty { isCut = false }  // nothing is left of the line that was cut
        return .changed
    }

    private mutating func deleteBeforeCursor() {
        guard cursor > 0 else { return }
        text.remove(at: cursor - 1)
        cursor -= 1
    }

    private mutating func deleteAtCursor() {
        guard cursor < text.count else { return }
        text.remove(at: cursor)
    }

    private mutating func deleteToStart() {
        text.removeSubrange(0..<cursor)
        cursor = 0
    }

    private mutating func deleteWordBeforeCursor() {
        var start = cursor
        while start > 0 && text[start - 1].isWhitespace { start -= 1 }
        while start > 0 && !text[start - 1].isWhitespace { start -= 1 }
        text.removeSubrange(start..<cursor)
        cursor = start
    }

    private mutating func showHistory(_ index: Int) -> Event {
        guard (0...history.count).contains(index), index != historyIndex else { return .none }
        if historyIndex == history.count { (draft, draftIsCut) = (text, isCut) }
        historyIndex = index
        text = index == history.count ? draft : Array(history[index])
        isCut = index == history.count ? draftIsCut : false
        cursor = text.count
        byteCount = String(text).utf8.count
        return .changed
    }

    // MARK: Multi-byte keys

    /// A character of several UTF-8 bytes, once all have arrived; a malformed one is dropped.
    private mutating func utf8Character() -> Event {
        let expected =
            switch pending[0] {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
        guard expected > 0, pending.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }) else {
            pending = []
            return .none
        }
        guard pending.count == expected else { return .none }
        let decoded = String(decoding: pending, as: UTF8.self)
        pending = []
        guard let character = decoded.first, decoded.count == 1, character != "\u{FFFD}" else { return .none }
        return insert(character)
    }

    /// An escape sequence, once its last byte has arrived: `ESC [ params final` (CSI) or `ESC O x`
    /// (SS3). The keys it can be are acted on; any other is read whole and ignored.
    private mutating func escapeSequence() -> Event {
        guard pending.count >= 2 else { return .none }
        let kind = pending[1]
        guard kind == UInt8(ascii: "[") || kind == UInt8(ascii: "O") else {
            pending = []  // Alt and a key, or a lone Escape followed by a key: ignored
            return .none
        }
        guard pending.count >= 3 else { return .none }
        let final = pending[pending.count - 1]
        // CSI parameters and intermediates are 0x20...0x3F; the final byte is 0x40...0x7E.
        if kind == UInt8(ascii: "[") && (0x20...0x3F).contains(final) {
            if pending.count > 32 { pending = [] }  // no key is that long
            return .none
        }
        let parameters = String(decoding: pending[2..<(pending.count - 1)], as: UTF8.self)
        pending = []
        switch (Character(Unicode.Scalar(final)), parameters) {
        case ("A", _): return showHistory(historyIndex - 1)
        case ("B", _): return showHistory(historyIndex + 1)
        case ("C", _): return move(to: cursor + 1)
        case ("D", _): return move(to: cursor - 1)
        case ("H", _), ("~", "1"), ("~", "7"): return move(to: 0)
        case ("F", _), ("~", "4"), ("~", "8"): return move(to: text.count)
        case ("~", "3"): return edit { $0.deleteAtCursor() }
        default: return .none
        }
    }
}
