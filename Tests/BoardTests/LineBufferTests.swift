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

/// Standard input cut into lines: line breaks, the last line, and lines of any length in time
/// linear in the input.
struct LineBufferTests {
    /// Feeds `input` in chunks of `size` bytes and collects every line, the last one included.
    static func lines(_ input: [UInt8], chunk size: Int) -> (lines: [LineBuffer.Line], examined: Int) {
        var buffer = LineBuffer()
        var lines: [LineBuffer.Line] = []
        var offset = 0
        while offset < input.count {
            buffer.append(input[offset..<min(input.count, offset + size)])
            offset += size
            while let line = buffer.nextLine() { lines.append(line) }
        }
        if let last = buffer.finish() { lines.append(last) }
        return (lines, buffer.bytesExamined)
    }

    @Test(arguments: [1, 2, 3, 4096])
    func linesAreCutAtEachLineBreak(chunk: Int) {
        let (lines, _) = Self.lines(Array("add 1 1\r\n\nmove 1 2 2\nundo".utf8), chunk: chunk)
        #expect(
            lines == [
                .text("add 1 1", endedWithNewline: true), .text("", endedWithNewline: true),
                .text("move 1 2 2", endedWithNewline: true), .text("undo", endedWithNewline: false),
            ])
    }

    @Test func anEmptyInputHasNoLines() {
        var buffer = LineBuffer()
        #expect(buffer.nextLine() == nil)
        #expect(buffer.finish() == nil)
        buffer.append(Array("quit\n".utf8))
        #expect(buffer.nextLine() == .text("quit", endedWithNewline: true))
        #expect(buffer.finish() == nil, "a line that ended with its break is not returned again")
    }

    /// Each byte is looked at once, however the line is cut into chunks: a 1 MB line read 4 KB
    /// at a time used to be rescanned from its start after every read (quadratic).
    @Test func eachByteIsExaminedOnce() {
        let long = [UInt8](repeating: UInt8(ascii: " "), count: 1_000_000)
        let input = Array("add 1 1\n".utf8) + long + Array("\nquit\n".utf8)
        let (lines, examined) = Self.lines(input, chunk: 4096)
        #expect(examined == input.count)
        #expect(lines.count == 3)
        #expect(lines.first == .text("add 1 1", endedWithNewline: true))
        #expect(lines.last == .text("quit", endedWithNewline: true))
    }

    /// A line longer than the limit is answered once, whether it arrives whole or in pieces and
    /// whether or not it ends with a line break; the lines around it are read as usual.
    @Test(arguments: [1000, 4096, 200_000])
    func aLineTooLongIsDroppedAndReportedOnce(chunk: Int) {
        let limit = LineBuffer.maximumLength
        let longest = String(repeating: "x", count: limit)
        let tooLong = "add " + String(repeating: "9", count: limit)
        let input = "undo\n\(longest)\r\n\(longest)x\n\(tooLong)\nredo\n\(tooLong)"
        let (lines, examined) = Self.lines(Array(input.utf8), chunk: chunk)
        let start = "add " + String(repeating: "9", count: 36)
        #expect(
            lines == [
                .text("undo", endedWithNewline: true), .text(longest, endedWithNewline: true),
                .tooLong(start: String(repeating: "x", count: 40)), .tooLong(start: start),
                .text("redo", endedWithNewline: true), .tooLong(start: start),
            ])
        #expect(examined == input.utf8.count)
    }
}
