// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// What the prompt's row shows of the line being edited (`LineEditor`), and where the cursor goes
/// in it, counted in terminal columns (`TerminalColumns`): a wide character, Chinese or an emoji,
/// takes two. A line wider than the room is scrolled sideways so that the cursor stays in view; it
/// never reaches the edge of the terminal, which would wrap it onto a second row that the next
/// redraw (which goes back to the start of the row) would leave behind.
///
/// Each character counts as `Session.printable` shows it (a control character is a "?", one
/// column). Making a view looks only at the characters near the part shown, so a redraw costs
/// the same on a long line as on a short one.
public struct LineView: Equatable, Sendable {
    /// The characters shown: `text[shown]`.
    public let shown: Range<Int>
    /// The cursor's column, counted from the first character shown (0 puts it on that character).
    public let cursorColumn: Int
    /// How many columns the characters shown take.
    public let width: Int

    /// The view of `text` with the cursor before `text[cursor]` (at the end when it equals
    /// `text.count`), in `room` columns, the characters and the cursor included (at least 2, for a
    /// wide character). `scroll` is the first character the previous view showed: the view moves
    /// from there only as far as it must, to keep the cursor in view and to show as much of the end
    /// of the line as fits.
    public init(text: [Character], cursor: Int, scroll: Int, room: Int) {
        let room = max(room, 2)
        let cursor = min(max(cursor, 0), text.count)
        func columns(_ index: Int) -> Int { TerminalColumns.width(of: Session.printable(text[index])) }
        /// The first character of the longest run that ends at `end` and fits in the room.
        func firstFitting(endingAt end: Int) -> Int {
            var start = end
            var used = 0
            while start > 0 && used + columns(start - 1) <= room {
                start -= 1
                used += columns(start)
            }
            return start
        }
        // No room is left empty after the end of the line while characters before it are hidden.
        var start = min(max(scroll, 0), firstFitting(endingAt: text.count))
        // The cursor in view: not before the first character shown, nor beyond the room.
        start = max(min(start, cursor), firstFitting(endingAt: cursor))
        var end = start
        var used = 0
        var cursorColumn = 0
        while end < text.count && used + columns(end) <= room {
            if end == cursor { cursorColumn = used }
            used += columns(end)
            end += 1
        }
        if end == cursor { cursorColumn = used }
        shown = start..<end
        self.cursorColumn = cursorColumn
        width = used
    }
}
