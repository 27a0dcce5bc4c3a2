// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore

/// A reader of JSON that checks the bytes as it reads them: it accepts exactly RFC 8259 JSON, and
/// refuses what a reader of a history archive must not depend on:
///
/// - nesting deeper than a limit (`JSONDecoder` stops at 512 levels, and recursion that deep costs
///   stack in the code that decodes it);
/// - an object with two equal keys. `JSONDecoder` keeps the first and `JSONSerialization` the last.
///   Keys are equal as Swift strings (canonically equivalent: "é" and "e\u{301}" are one key), which
///   is how they are compared here too;
/// - invalid UTF-8 and lone surrogates in strings, as `JSONDecoder` does.
///
/// The caller walks the structure it expects (``beginObject()``, ``nextKey(in:)``,
/// ``beginArray()``, ``nextElement(in:)``, the scalar readers) and skips what it does not read
/// (``skipValue()``, which checks everything it passes over, without recursion). Every read is
/// bounds-checked: damaged input throws, it never traps.
///
/// Its memory is O(d + k) for nesting depth d and the k keys of the open objects.
struct JSONCursor {
    /// Why the cursor refused the bytes.
    enum Failure: Error, Equatable {
        /// The first value is not an object (after white space and a byte-order mark).
        case notAnObject
        /// Deeper than the limit.
        case tooDeep
        /// Not JSON, an object with a repeated key, or not what the caller expected; the reason
        /// names the byte offset.
        case invalid(String)
    }

    /// The keys of one object, to find a repeated one: a list while short, a set beyond.
    struct KeySet {
        private var list: [String] = []
        private var set: Set<String> = []

        init() {}

        mutating func removeAll() {
            list.removeAll(keepingCapacity: true)
            if !set.isEmpty { set.removeAll(keepingCapacity: false) }
        }

        /// Adds `key`; false when it was there already.
        mutating func insert(_ key: String) -> Bool {
            if list.count < 16 {
                if list.contains(key) { return false }
                list.append(key)
                if list.count == 16 { set = Set(list) }
                return true
            }
            return set.insert(key).inserted
        }
    }

    /// Where the caller is in an object it reads key by key.
    struct ObjectState {
        fileprivate var first = true
        fileprivate var keys = KeySet()

        init() {}
    }

    /// Where the caller is in an array it reads element by element.
    struct ArrayState {
        fileprivate var first = true
        /// The index of the element last returned by ``JSONCursor/nextElement(in:)``.
        private(set) var index = -1

        init() {}

        fileprivate mutating func advance() { index += 1 }
    }

    let bytes: UnsafeRawBufferPointer
    let maximumDepth: Int
    /// The offset of the next byte to read.
    private(set) var offset = 0
    /// The containers opened by ``beginObject()`` and ``beginArray()`` and not yet closed.
    private(set) var depth = 0

    // The skipper's state, kept for reuse: whether each container it opened is an object, and the
    // keys of each object it opened.
    private var skipIsObject: [Bool] = []
    /// The keys of the open objects being skipped, as byte ranges, outermost object's first.
    private var skipKeyRanges: [Range<Int>] = []
    /// Where each open object's keys begin in `skipKeyRanges`.
    private var skipKeyStarts: [Int] = []
    /// For an open object (by its level among the objects) whose keys are compared as strings,
    /// their set.
    private var skipKeySets: [Int: KeySet] = [:]
    /// A buffer for strings with escapes, reused.
    private var unescaped: [UInt8] = []

    /// A cursor at the start of `bytes` (after a byte-order mark, if any).
    init(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { offset = 3 }
    }

    /// A cursor over part of a buffer, at `offset`, with `depth` containers open around it.
    init(_ bytes: UnsafeRawBufferPointer, at offset: Int, depth: Int, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.offset = offset
        self.depth = depth
    }

    // MARK: Structure

    /// The next byte after white space, not consumed; nil at the end.
    mutating func peek() -> UInt8? {
        skipWhiteSpace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    /// Opens an object.
    mutating func beginObject() throws(Failure) {
        skipWhiteSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "{") else { throw invalid("expected an object") }
        guard depth < maximumDepth else { throw .tooDeep }
        depth += 1
        offset += 1
    }

    /// The next key of the object being read (its colon consumed), or nil when the object has
    /// ended (its closing brace consumed). A key that the object had already is refused.
    mutating func nextKey(in object: inout ObjectState) throws(Failure) -> String? {
        skipWhiteSpace()
        guard offset < bytes.count else { throw invalid("truncated") }
        if bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return nil
        }
        if !object.first {
            guard bytes[offset] == UInt8(ascii: ",") else { throw invalid("expected ',' or '}'") }
            offset += 1
            skipWhiteSpace()
        }
        object.first = false
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw invalid("expected a key") }
        let keyOffset = offset
        let key = try string(decoding: true)!
        guard object.keys.insert(key) else { throw repeated(key, at: keyOffset) }
        skipWhiteSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw invalid("expected ':'") }
        offset += 1
        return key
    }

    /// Opens an array.
    mutating func beginArray() throws(Failure) {
        skipWhiteSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "[") else { throw invalid("expected an array") }
        guard depth < maximumDepth else { throw .tooDeep }
        depth += 1
        offset += 1
    }

    /// Whether the array being read has another element (the cursor is then at it); false when
    /// it has ended (its closing bracket consumed).
    mutating func nextElement(in array: inout ArrayState) throws(Failure) -> Bool {
        skipWhiteSpace()
        guard offset < bytes.count else { throw invalid("truncated") }
        if bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return false
        }
        if !array.first {
            guard bytes[offset] == UInt8(ascii: ",") else { throw invalid("expected ',' or ']'") }
            offset += 1
        }
        array.first = false
        array.advance()
        return true
    }

    /// Runs `body`, naming `field` in the reason of a failure: `"steps": expected an array at byte 40`.
    mutating func field<T>(_ field: String, _ body: (inout JSONCursor) throws(Failure) -> T) throws(Failure) -> T {
        do {
            return try body(&self)
        } catch .invalid(let reason) {
            throw .invalid("\"\(HistoryArchiveError.shortened(field, to: 40))\": \(reason)")
        }
    }

    /// Checks that only white space follows the top-level value.
    mutating func end() throws(Failure) {
        skipWhiteSpace()
        guard offset == bytes.count else { throw invalid("data after the end") }
    }

    // MARK: Scalars

    /// Reads a string.
    mutating func readString() throws(Failure) -> String {
        skipWhiteSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw invalid("expected a string") }
        return try string(decoding: true)!
    }

    /// Reads a whole number that fits in `Int` (no fraction, no exponent).
    mutating func readInt() throws(Failure) -> Int {
        skipWhiteSpace()
        let start = offset
        let isWhole = try number()
        guard isWhole else {
            offset = start
            throw invalid("expected a whole number")
        }
        var index = start
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value = 0
        while index < offset {
            let digit = Int(bytes[index] &- UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else {
                offset = start
                throw invalid("a number out of range")
            }
            value = next
            index += 1
        }
        return value
    }

    /// Reads a single digit followed by `,` or `]` (no white space), the common element of an
    /// array of small counts; nil, having read nothing, for anything else.
    mutating func readSmallCount() -> Int? {
        guard offset + 1 < bytes.count else { return nil }
        let digit = bytes[offset]
        let next = bytes[offset + 1]
        guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9"),
            next == UInt8(ascii: ",") || next == UInt8(ascii: "]")
        else { return nil }
        offset += 1
        return Int(digit &- UInt8(ascii: "0"))
    }

    /// Reads a number as a `Double` (rounded to the nearest); a number too large for one is refused.
    mutating func readDouble() throws(Failure) -> Double {
        skipWhiteSpace()
        let start = offset
        _ = try number()
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            offset = start
            throw invalid("a number out of range")
        }
        return value
    }

    /// Reads `true` or `false`.
    mutating func readBool() throws(Failure) -> Bool {
        skipWhiteSpace()
        guard offset < bytes.count else { throw invalid("truncated") }
        if bytes[offset] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        guard bytes[offset] == UInt8(ascii: "f") else { throw invalid("expected true or false") }
        try literal("false")
        return false
    }

    /// Skips one value of any kind, checking all of it.
    mutating func skipValue() throws(Failure) {
        skipWhiteSpace()
        guard offset < bytes.count else { throw invalid("truncated") }
        switch bytes[offset] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): try skipContainer()
        case UInt8(ascii: "\""): _ = try string(decoding: false)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try number()
        default: throw invalid("expected a value")
        }
    }

    /// The failure for something the caller did not expect at the current offset.
    func invalid(_ what: String) -> Failure {
        .invalid(offset >= bytes.count ? "truncated at byte \(offset)" : "\(what) at byte \(offset)")
    }

    // MARK: Lexing

    private func repeated(_ key: String, at keyOffset: Int) -> Failure {
        .invalid("an object repeats the key \"\(HistoryArchiveError.shortened(key, to: 40))\" at byte \(keyOffset)")
    }

    private mutating func skipWhiteSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    private enum Expecting {
        case value
        case valueOrEnd
        case key
        case keyOrEnd
        case colon
        case commaOrEnd
    }

    /// Skips the object or array at `offset`, checking it: a state machine with an explicit stack,
    /// so that deep input costs heap, not call stack. It reads through a local index, and takes
    /// the common forms (ASCII strings without escapes, plain numbers) in line, calling out for
    /// the rest.
    private mutating func skipContainer() throws(Failure) {
        skipIsObject.removeAll(keepingCapacity: true)
        skipKeyRanges.removeAll(keepingCapacity: true)
        skipKeyStarts.removeAll(keepingCapacity: true)
        let count = bytes.count
        var index = offset
        var expecting = Expecting.value
        // Every exit writes the index back (the messages name `offset`).
        defer { offset = index }
        while true {
            while index < count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { break }
                index += 1
            }
            guard index < count else {
                offset = index
                throw invalid("truncated")
            }
            let byte = bytes[index]
            switch expecting {
            case .value, .valueOrEnd:
                if expecting == .valueOrEnd, byte == UInt8(ascii: "]") {
                    index += 1
                    if closeSkipped() { return }
                    expecting = .commaOrEnd
                    continue
                }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = byte == UInt8(ascii: "{")
                    guard depth + skipIsObject.count < maximumDepth else { throw .tooDeep }
                    if isObject, let end = flatObjectEnd(from: index) {
                        // The common payload, an object of scalars, checked in one pass.
                        index = end
                        if skipIsObject.isEmpty { return }
                        expecting = .commaOrEnd
                        continue
                    }
                    skipIsObject.append(isObject)
                    if isObject { skipKeyStarts.append(skipKeyRanges.count) }
                    index += 1
                    expecting = isObject ? .keyOrEnd : .valueOrEnd
                    continue
                case UInt8(ascii: "\""):
                    if let end = plainStringEnd(from: index + 1) {
                        index = end + 1
                    } else {
                        offset = index
                        _ = try string(decoding: false)
                        index = offset
                    }
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if let end = plainNumberEnd(from: index) {
                        index = end
                    } else {
                        // The full reader names what is wrong.
                        offset = index
                        _ = try number()
                        index = offset
                    }
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    offset = index
                    try literal(byte == UInt8(ascii: "t") ? "true" : byte == UInt8(ascii: "f") ? "false" : "null")
                    index = offset
                default:
                    offset = index
                    throw invalid("expected a value")
                }
                expecting = .commaOrEnd
            case .key, .keyOrEnd:
                if expecting == .keyOrEnd, byte == UInt8(ascii: "}") {
                    index += 1
                    if closeSkipped() { return }
                    expecting = .commaOrEnd
                    continue
                }
                offset = index
                guard byte == UInt8(ascii: "\"") else { throw invalid("expected a key") }
                try skipKey()
                index = offset
                expecting = .colon
            case .colon:
                guard byte == UInt8(ascii: ":") else {
                    offset = index
                    throw invalid("expected ':'")
                }
                index += 1
                expecting = .value
            case .commaOrEnd:
                let inObject = skipIsObject[skipIsObject.count - 1]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    expecting = inObject ? .key : .value
                } else if byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    if closeSkipped() { return }
                } else {
                    offset = index
                    throw invalid(inObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            }
        }
    }

    /// Where the object whose opening brace is at `start` ends (after its closing brace), when it
    /// is well-formed and simple: at most 8 keys, each printable ASCII with no escape and none
    /// repeated, and only plain scalars as values (strings of printable ASCII with no escape,
    /// numbers, `true`, `false`, `null`); nil otherwise, having changed nothing (the caller then
    /// reads the object in full, which finds what is wrong if anything is). No state is kept:
    /// the keys are compared where they lie.
    private func flatObjectEnd(from start: Int) -> Int? {
        let count = bytes.count
        var index = start + 1
        @inline(__always) func skipSpace() {
            while index < count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                index += 1
            }
        }
        skipSpace()
        guard index < count else { return nil }
        if bytes[index] == UInt8(ascii: "}") { return index + 1 }
        // The keys so far, as offsets of their first byte and lengths.
        var keyStarts = EightInts()
        var keyLengths = EightInts()
        var keys = 0
        while true {
            guard keys < 8, index < count, bytes[index] == UInt8(ascii: "\""),
                let keyEnd = plainStringEnd(from: index + 1)
            else { return nil }
            let keyStart = index + 1
            let length = keyEnd - keyStart
            for other in 0..<keys where keyLengths[other] == length {
                if Self.equal(bytes, keyStarts[other], keyStart, length) { return nil }
            }
            keyStarts[keys] = keyStart
            keyLengths[keys] = length
            keys += 1
            index = keyEnd + 1
            skipSpace()
            guard index < count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpace()
            guard index < count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard let end = plainStringEnd(from: index + 1) else { return nil }
                index = end + 1
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let end = plainNumberEnd(from: index) else { return nil }
                index = end
            case UInt8(ascii: "t"):
                guard Self.matches(bytes, index, "true") else { return nil }
                index += 4
            case UInt8(ascii: "f"):
                guard Self.matches(bytes, index, "false") else { return nil }
                index += 5
            case UInt8(ascii: "n"):
                guard Self.matches(bytes, index, "null") else { return nil }
                index += 4
            default:
                return nil
            }
            skipSpace()
            guard index < count else { return nil }
            if bytes[index] == UInt8(ascii: "}") { return index + 1 }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            skipSpace()
        }
    }

    /// Whether the bytes at `offset` are `word`'s.
    private static func matches(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard offset + length <= bytes.count else { return false }
        for index in 0..<length where bytes[offset + index] != word.utf8Start[index] { return false }
        return true
    }

    /// Closes the innermost container being skipped; true when it was the outermost.
    private mutating func closeSkipped() -> Bool {
        if skipIsObject.removeLast() {
            let start = skipKeyStarts.removeLast()
            skipKeyRanges.removeSubrange(start...)
            if !skipKeySets.isEmpty { skipKeySets[skipKeyStarts.count] = nil }
        }
        return skipIsObject.isEmpty
    }

    /// Reads a key of the innermost object being skipped (its opening quote at `offset`), refusing
    /// one the object had already.
    ///
    /// Most keys are short ASCII with no escape, and are compared as bytes where they lie with the
    /// object's other keys. Once an object has another kind of key, or more than 16, all of its
    /// keys are compared as Swift strings, through a set (canonical equivalence: the Kelvin sign
    /// is "K").
    private mutating func skipKey() throws(Failure) {
        let keyOffset = offset
        let start = offset + 1
        let level = skipKeyStarts.count - 1
        let first = skipKeyStarts[level]
        if let end = plainStringEnd(from: start), skipKeySets.isEmpty || skipKeySets[level] == nil,
            skipKeyRanges.count - first < 16
        {
            let length = end - start
            var other = first
            while other < skipKeyRanges.count {
                let range = skipKeyRanges[other]
                if range.count == length, Self.equal(bytes, range.lowerBound, start, length) {
                    throw repeated(
                        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self),
                        at: keyOffset)
                }
                other += 1
            }
            skipKeyRanges.append(start..<end)
            offset = end + 1
            return
        }
        let key = try string(decoding: true)!
        if skipKeySets[level] == nil {
            var keys = KeySet()
            for range in skipKeyRanges[first...] {
                _ = keys.insert(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
            }
            skipKeySets[level] = keys
        }
        // In place: a copy of the set taken out and put back would copy its storage at every key.
        guard skipKeySets[level]!.insert(key) else { throw repeated(key, at: keyOffset) }
    }

    /// Whether the `length` bytes at `first` and at `second` are the same.
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ first: Int, _ second: Int, _ length: Int) -> Bool {
        var index = 0
        while index < length {
            if bytes[first + index] != bytes[second + index] { return false }
            index += 1
        }
        return true
    }

    /// Where the number whose first byte is at `start` ends, when it follows JSON's grammar; nil
    /// otherwise (the caller then reads it in full, for the reason).
    private func plainNumberEnd(from start: Int) -> Int? {
        let count = bytes.count
        var index = start
        @inline(__always) func isDigit(_ at: Int) -> Bool {
            at < count && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9")
        }
        if index < count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { return nil }
            while isDigit(index) { index += 1 }
        }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { return nil }
            while isDigit(index) { index += 1 }
        }
        return index
    }

    /// Where the string whose first byte is at `start` ends (its closing quote), when it is
    /// printable ASCII with no escape; nil otherwise (the caller then reads it in full).
    private func plainStringEnd(from start: Int) -> Int? {
        var index = start
        // Eight bytes at a time while none of them ends the string or needs a closer look (a
        // quote, a backslash, a control character, a byte of a multi-byte scalar): the bit tricks
        // find a zero byte in `x` as `(x - 0x01…) & ~x & 0x80…`.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let found =
                (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) | word
            if found & highs != 0 { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return index }
            if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\\") { return nil }
            index += 1
        }
        return nil
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw invalid("truncated") }
        for index in 0..<count where bytes[offset + index] != word.utf8Start[index] {
            throw invalid("expected \(word)")
        }
        offset += count
    }

    /// Reads a number's text, checking its grammar; returns whether it is whole (no fraction and
    /// no exponent).
    private mutating func number() throws(Failure) -> Bool {
        guard offset < bytes.count else { throw invalid("truncated") }
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count else { throw invalid("truncated") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else if digits() == 0 {
            throw invalid("expected a digit")
        }
        var isWhole = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw invalid("expected a digit") }
            isWhole = false
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard digits() > 0 else { throw invalid("expected a digit") }
            isWhole = false
        }
        return isWhole
    }

    private mutating func digits() -> Int {
        let start = offset
        while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") {
            offset += 1
        }
        return offset - start
    }

    /// Reads a string (its opening quote at `offset`), checking it; returns its value when
    /// `decoding`.
    private mutating func string(decoding: Bool) throws(Failure) -> String? {
        offset += 1
        let start = offset
        var hasEscape = false
        if decoding { unescaped.removeAll(keepingCapacity: true) }
        while true {
            guard offset < bytes.count else { throw invalid("truncated") }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw invalid("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                if decoding, !hasEscape { unescaped.append(contentsOf: bytes[start..<offset]) }
                hasEscape = true
                try escape(into: decoding)
            } else if byte < 0x80 {
                if decoding, hasEscape { unescaped.append(byte) }
                offset += 1
            } else {
                let scalarStart = offset
                try utf8Scalar()
                if decoding, hasEscape { unescaped.append(contentsOf: bytes[scalarStart..<offset]) }
            }
        }
        let end = offset
        offset += 1
        guard decoding else { return nil }
        return hasEscape
            ? String(decoding: unescaped, as: UTF8.self)
            : String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Reads an escape (its backslash at `offset`), appending what it stands for to `unescaped`
    /// when `keep`.
    private mutating func escape(into keep: Bool) throws(Failure) {
        guard offset + 1 < bytes.count else { throw invalid("truncated") }
        let kind = bytes[offset + 1]
        let simple: UInt8? =
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): kind
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        if let simple {
            if keep { unescaped.append(simple) }
            offset += 2
            return
        }
        guard kind == UInt8(ascii: "u") else { throw invalid("invalid escape") }
        offset += 2
        var scalar = try hex4()
        if scalar >= 0xD800, scalar < 0xDC00 {
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else { throw invalid("lone surrogate") }
            offset += 2
            let low = try hex4()
            guard low >= 0xDC00, low < 0xE000 else { throw invalid("lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if scalar >= 0xDC00, scalar < 0xE000 {
            throw invalid("lone surrogate")
        }
        if keep, let value = Unicode.Scalar(scalar) { unescaped.append(contentsOf: UTF8.encode(value)!) }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw invalid("truncated") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw invalid("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// Reads one multi-byte UTF-8 scalar (its lead byte at `offset`), refusing overlong forms,
    /// surrogates and values beyond U+10FFFF.
    private mutating func utf8Scalar() throws(Failure) {
        let lead = bytes[offset]
        let count: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 1
        case 0xE0:
            count = 2
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 2
        case 0xED:
            count = 2
            high = 0x9F
        case 0xF0:
            count = 3
            low = 0x90
        case 0xF1...0xF3: count = 3
        case 0xF4:
            count = 3
            high = 0x8F
        default: throw invalid("invalid UTF-8")
        }
        guard offset + count < bytes.count else { throw invalid("truncated") }
        for index in 1...count {
            let byte = bytes[offset + index]
            let (lowest, highest) = index == 1 ? (low, high) : (0x80, 0xBF)
            guard byte >= lowest, byte <= highest else { throw invalid("invalid UTF-8") }
        }
        offset += count + 1
    }
}

extension JSONCursor {
    /// Checks that `bytes` hold one JSON object and nothing else (the whole-file check a reader
    /// that hands the bytes to `JSONDecoder` runs first).
    ///
    /// - Complexity: O(n) for n bytes.
    static func check(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int) throws(Failure) {
        var cursor = JSONCursor(bytes, maximumDepth: maximumDepth)
        guard cursor.peek() == UInt8(ascii: "{") else { throw .notAnObject }
        try cursor.skipValue()
        try cursor.end()
    }
}

/// Eight integers held in place, for a reader that must not allocate: a tuple, since
/// `InlineArray` needs macOS 26 and the package supports macOS 14.
private struct EightInts {
    private var storage: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// The integer at `index`, in `0..<8`.
    ///
    /// - Complexity: O(1).
    subscript(index: Int) -> Int {
        get {
            switch index {
            case 0: return storage.0
            case 1: return storage.1
            case 2: return storage.2
            case 3: return storage.3
            case 4: return storage.4
            case 5: return storage.5
            case 6: return storage.6
            default:
                precondition(index == 7, "an index past eight")
                return storage.7
            }
        }
        set {
            switch index {
            case 0: storage.0 = newValue
            case 1: storage.1 = newValue
            case 2: storage.2 = newValue
            case 3: storage.3 = newValue
            case 4: storage.4 = newValue
            case 5: storage.5 = newValue
            case 6: storage.6 = newValue
            default:
                precondition(index == 7, "an index past eight")
                storage.7 = newValue
            }
        }
    }
}
