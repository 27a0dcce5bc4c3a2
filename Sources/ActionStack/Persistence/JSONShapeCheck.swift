// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The check a history archive passes before `JSONDecoder` reads it: one pass over the bytes,
/// without recursion, that accepts exactly RFC 8259 JSON whose top-level value is an object, and
/// refuses what `JSONDecoder` would read in a way the format must not depend on:
///
/// - nesting deeper than a limit (JSONDecoder stops at 512 levels, and recursion that deep costs
///   stack in the code that decodes it);
/// - an object with two equal keys. `JSONDecoder` keeps the first and `JSONSerialization` the last,
///   and keys are equal as Swift strings (canonically equivalent: "é" and "e\u{301}" are one key),
///   which is how they are compared here too.
///
/// It also refuses invalid UTF-8 and lone surrogates in strings, as `JSONDecoder` does.
///
/// Its memory is O(d + k) for nesting depth d and the k keys of the open objects.
struct JSONShapeCheck {
    /// Why the check refused the bytes.
    enum Failure: Error, Equatable {
        /// The first value is not an object (after white space and a byte-order mark).
        case notAnObject
        /// Deeper than the limit.
        case tooDeep
        /// Not JSON, or an object with a repeated key; the reason names the byte offset.
        case invalid(String)
    }

    /// The keys of one open object, to find a repeated one: a list while short, a set beyond.
    private struct KeySet {
        var list: [String] = []
        var set: Set<String> = []

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

    private let bytes: UnsafeRawBufferPointer
    private let maximumDepth: Int
    private var offset = 0
    /// Whether each open container is an object, innermost last.
    private var isObject: [Bool] = []
    /// The keys of each open object, innermost last; kept for reuse when objects close.
    private var keys: [KeySet] = []
    private var openObjects = 0
    /// A buffer for keys with escapes, reused.
    private var unescaped: [UInt8] = []

    /// Checks `bytes`.
    ///
    /// - Parameters:
    ///   - data: The archive.
    ///   - maximumDepth: The deepest nesting allowed: 1 for an object holding only scalars.
    /// - Throws: Why the bytes are refused.
    /// - Complexity: O(n) for n bytes (keys are compared through hashing once an object has 16).
    static func check(_ data: Data, maximumDepth: Int) throws(Failure) {
        let result = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<Void, Failure> in
            var check = JSONShapeCheck(bytes: bytes, maximumDepth: maximumDepth)
            do throws(Failure) {
                try check.run()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    private init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    private enum Expecting {
        case value
        case valueOrEnd
        case key
        case keyOrEnd
        case colon
        case commaOrEnd
    }

    private mutating func run() throws(Failure) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { offset = 3 }
        skipWhiteSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "{") else { throw .notAnObject }
        var expecting = Expecting.value
        while true {
            skipWhiteSpace()
            guard offset < bytes.count else { throw invalid("truncated") }
            let byte = bytes[offset]
            switch expecting {
            case .value, .valueOrEnd:
                if expecting == .valueOrEnd, byte == UInt8(ascii: "]") {
                    offset += 1
                    if try close() { return }
                    expecting = .commaOrEnd
                    continue
                }
                switch byte {
                case UInt8(ascii: "{"):
                    try open(object: true)
                    expecting = .keyOrEnd
                    continue
                case UInt8(ascii: "["):
                    try open(object: false)
                    expecting = .valueOrEnd
                    continue
                case UInt8(ascii: "\""): try string(isKey: false)
                case UInt8(ascii: "t"): try literal("true")
                case UInt8(ascii: "f"): try literal("false")
                case UInt8(ascii: "n"): try literal("null")
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
                default: throw invalid("expected a value")
                }
                expecting = .commaOrEnd
            case .key, .keyOrEnd:
                if expecting == .keyOrEnd, byte == UInt8(ascii: "}") {
                    offset += 1
                    if try close() { return }
                    expecting = .commaOrEnd
                    continue
                }
                guard byte == UInt8(ascii: "\"") else { throw invalid("expected a key") }
                try string(isKey: true)
                expecting = .colon
            case .colon:
                guard byte == UInt8(ascii: ":") else { throw invalid("expected ':'") }
                offset += 1
                expecting = .value
            case .commaOrEnd:
                let inObject = isObject[isObject.count - 1]
                if byte == UInt8(ascii: ",") {
                    offset += 1
                    expecting = inObject ? .key : .value
                } else if byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    offset += 1
                    if try close() { return }
                } else {
                    throw invalid(inObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            }
        }
    }

    private func invalid(_ what: String) -> Failure {
        .invalid(offset >= bytes.count ? "truncated at byte \(offset)" : "\(what) at byte \(offset)")
    }

    private mutating func skipWhiteSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    private mutating func open(object: Bool) throws(Failure) {
        guard isObject.count < maximumDepth else { throw .tooDeep }
        isObject.append(object)
        if object {
            if openObjects == keys.count { keys.append(KeySet()) }
            keys[openObjects].removeAll()
            openObjects += 1
        }
        offset += 1
    }

    /// Closes the innermost container (its closing byte is consumed); true when that ends the
    /// top-level object, and only white space follows it.
    private mutating func close() throws(Failure) -> Bool {
        if isObject.removeLast() { openObjects -= 1 }
        guard isObject.isEmpty else { return false }
        skipWhiteSpace()
        guard offset == bytes.count else { throw invalid("data after the end") }
        return true
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw invalid("truncated") }
        for index in 0..<count where bytes[offset + index] != word.utf8Start[index] {
            throw invalid("expected \(word)")
        }
        offset += count
    }

    private mutating func number() throws(Failure) {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count else { throw invalid("truncated") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else if try digits() == 0 {
            offset = start
            throw invalid("expected a digit")
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard try digits() > 0 else { throw invalid("expected a digit") }
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard try digits() > 0 else { throw invalid("expected a digit") }
        }
    }

    private mutating func digits() throws(Failure) -> Int {
        let start = offset
        while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") {
            offset += 1
        }
        return offset - start
    }

    /// Reads a string (its opening quote at `offset`); a key is checked against the keys of its
    /// object.
    private mutating func string(isKey: Bool) throws(Failure) {
        let keyOffset = offset
        offset += 1
        let start = offset
        var hasEscape = false
        if isKey { unescaped.removeAll(keepingCapacity: true) }
        while true {
            guard offset < bytes.count else { throw invalid("truncated") }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw invalid("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                if isKey, !hasEscape { unescaped.append(contentsOf: bytes[start..<offset]) }
                hasEscape = true
                try escape(into: isKey)
            } else if byte < 0x80 {
                if isKey, hasEscape { unescaped.append(byte) }
                offset += 1
            } else {
                let scalarStart = offset
                try utf8Scalar()
                if isKey, hasEscape { unescaped.append(contentsOf: bytes[scalarStart..<offset]) }
            }
        }
        let end = offset
        offset += 1
        guard isKey else { return }
        let key =
            hasEscape
            ? String(decoding: unescaped, as: UTF8.self)
            : String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard keys[openObjects - 1].insert(key) else {
            throw .invalid(
                "an object repeats the key \"\(HistoryArchiveError.shortened(key, to: 40))\" at byte \(keyOffset)")
        }
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
