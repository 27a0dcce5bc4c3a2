// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// Cuts the bytes of standard input into lines as they arrive, in time linear in the input.
///
/// The program reads its input in chunks and appends each one here. Each byte is looked at once:
/// the search for a line break starts where the previous search ended, not at the start of the
/// line, so a line that arrives in many chunks costs no more than one that arrives whole (a 10 MB
/// line used to take minutes, rescanned after every 4 KB read).
///
/// A line longer than `maximumLength` bytes is no command anyone typed. It is not kept: its bytes
/// are dropped as they arrive, up to and including its line break, and it is answered once, as
/// `.tooLong`, so memory stays bounded whatever the input.
public struct LineBuffer: Sendable {
    /// The longest line taken, in bytes, without its line break. Commands are a few dozen bytes.
    public static let maximumLength = 65_536

    /// What the input holds next.
    public enum Line: Equatable, Sendable {
        /// A line without its line break ("\n" or "\r\n"), and whether it had one: the last line
        /// of the input may end without one (Ctrl-D typed after some text at a terminal).
        case text(String, endedWithNewline: Bool)
        /// A line longer than `maximumLength` bytes, dropped whole; `start` is its first few
        /// characters, to show which line it was.
        case tooLong(start: String)
    }

    /// How many characters of a dropped line `Line.tooLong` keeps.
    static let keptStart = 40

    /// The bytes received and not yet returned start at `start`.
    private var bytes: [UInt8] = []
    private var start = 0
    /// `bytes[start..<scanned]` holds no line break: the next search starts at `scanned`.
    private var scanned = 0
    /// Set while the line being received is too long: its bytes are dropped until its line break.
    private var dropping: String?

    /// How many bytes the searches for line breaks have looked at (a test hook of the example: it
    /// is at most the number of bytes received).
    public private(set) var bytesExamined = 0

    /// An empty buffer.
    public init() {}

    /// Adds bytes read from the input.
    public mutating func append(_ chunk: some Collection<UInt8>) {
        bytes.append(contentsOf: chunk)
    }

    /// The next complete line (one that ended with a line break), or nil when the bytes received
    /// so far hold none.
    public mutating func nextLine() -> Line? {
        let newline = bytes[scanned...].firstIndex(of: UInt8(ascii: "\n"))
        bytesExamined += (newline.map { $0 + 1 } ?? bytes.count) - scanned
        guard let newline else {
            scanned = bytes.count
            keepOnlyThePartialLine()
            return nil
        }
        var end = newline
        if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = take(start..<end)
        start = newline + 1
        scanned = start
        return line
    }

    /// At the end of the input: the last line, which had no line break, or nil when there is none.
    /// The buffer is empty afterwards.
    public mutating func finish() -> Line? {
        defer {
            bytes.removeAll()
            start = 0
            scanned = 0
        }
        guard start < bytes.count || dropping != nil else { return nil }
        switch take(start..<bytes.count) {
        case .text(let text, _): return .text(text, endedWithNewline: false)
        case let line: return line
        }
    }

    /// The line in `range` (a line break already removed), or `.tooLong` when it or the bytes
    /// dropped before it are too many; either way the line is done.
    private mutating func take(_ range: Range<Int>) -> Line {
        if let dropped = dropping {
            dropping = nil
            return .tooLong(start: dropped)
        }
        let line = bytes[range]
        guard line.count <= Self.maximumLength else { return .tooLong(start: Self.start(of: line)) }
        return .text(String(decoding: line, as: UTF8.self), endedWithNewline: true)
    }

    /// Called when no line break is left: drops the lines already returned, and the bytes of a
    /// line that has grown too long (keeping its start to show). This stays linear too: the bytes
    /// of the partial line are moved to the front at most once (they stay there until the line
    /// ends), and a line too long to keep is dropped, not moved.
    private mutating func keepOnlyThePartialLine() {
        if bytes.count - start > Self.maximumLength + 1 {
            if dropping == nil { dropping = Self.start(of: bytes[start...]) }
            bytes.removeAll(keepingCapacity: true)
        } else if start > 0 {
            bytes.removeSubrange(..<start)
        } else {
            return
        }
        start = 0
        scanned = bytes.count
    }

    /// The first `keptStart` characters of a long line.
    private static func start(of line: ArraySlice<UInt8>) -> String {
        String(String(decoding: line.prefix(keptStart * 4), as: UTF8.self).prefix(keptStart))
    }
}
