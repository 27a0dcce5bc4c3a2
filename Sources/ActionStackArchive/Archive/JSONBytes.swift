// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore
import Foundation

/// JSON written byte by byte: the history archive's own structure, which is small and fixed, costs
/// far less written this way than through `Encoder` containers (the commands themselves go through
/// `JSONEncoder`).
///
/// Strings are escaped as `JSONEncoder` escapes them with `.withoutEscapingSlashes`: `"`, `\` and
/// the control characters, nothing else. Numbers are written so that they read back to the same
/// value (a `Double` to the same bits).
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends ASCII text as it is (punctuation, keys known to need no escape).
    @inline(__always)
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends one byte.
    @inline(__always)
    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// Appends bytes written elsewhere (a command payload that `JSONEncoder` wrote).
    mutating func append<Bytes: Sequence>(contentsOf other: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: other)
    }

    /// Appends `value` as a JSON string.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                }
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `value` in decimal.
    mutating func int(_ value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
        }
    }

    /// Appends a finite `value` so that it reads back to the same bits (Swift's shortest
    /// round-trip form, which is a JSON number: `0.5`, `5.0`, `1e-05`, `1.5e+300`).
    ///
    /// - Precondition: `value.isFinite` (the caller refuses the others first).
    mutating func double(_ value: Double) {
        precondition(value.isFinite, "a JSON number must be finite")
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Appends `true` or `false`.
    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }
}

extension JSONBytes {
    /// The deepest nesting of arrays and objects in `json`, which must be JSON that `JSONEncoder`
    /// wrote (well-formed: this only follows brackets outside strings).
    ///
    /// - Complexity: O(n) for n bytes.
    static func nestingDepth(of json: Data) -> Int {
        json.withUnsafeBytes { bytes in
            var depth = 0
            var deepest = 0
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    // To the closing quote, past escapes.
                    while index < count {
                        let inner = bytes[index]
                        index += 1
                        if inner == UInt8(ascii: "\"") { break }
                        if inner == UInt8(ascii: "\\") { index += 1 }
                    }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    if depth > deepest { deepest = depth }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                default:
                    break
                }
            }
            return deepest
        }
    }
}
