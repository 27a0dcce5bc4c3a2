// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation
import Testing

/// The journal's CRC-32 (eight bytes at a time) is the CRC-32 of IEEE 802.3 that zlib and PNG
/// compute, at every length and alignment: a record's checksums are read by common tools.
@Suite struct JournalChecksumTests {
    /// The CRC-32 computed a bit at a time, from its definition.
    static func definition(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func theCheckValueOfTheStandardIsMet() {
        let check = Array("123456789".utf8)
        #expect(check.withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0) } == 0)
    }

    @Test func everyLengthAndAlignmentAgreesWithTheDefinition() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { buffer in
            for start in 0..<9 {
                for end in start...bytes.count where end - start <= 80 || end == bytes.count {
                    let slice = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
                    #expect(
                        CRC32.checksum(slice) == Self.definition(bytes[start..<end]),
                        "bytes \(start)..<\(end)")
                }
            }
        }
    }
}
