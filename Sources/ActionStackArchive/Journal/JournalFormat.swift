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

/// The bytes of a ``HistoryJournal`` file, version 1. Every number is big-endian.
///
/// The file starts with a 16-byte header:
///
/// | Offset | Size | Field |
/// |---|---|---|
/// | 0 | 4 | magic `ASHJ` (`41 53 48 4A`) |
/// | 4 | 4 | format version, `UInt32`: 1 |
/// | 8 | 8 | sequence number of the first record, `UInt64` |
///
/// Records follow, each 28 + P + F bytes, their sequence numbers counting up by one:
///
/// | Offset | Size | Field |
/// |---|---|---|
/// | 0 | 4 | magic `ASJR` (`41 53 4A 52`) |
/// | 4 | 4 | payload length P, `UInt32` |
/// | 8 | 4 | fingerprint length F, `UInt32`; `FF FF FF FF` when there is no fingerprint (F = 0) |
/// | 12 | 8 | sequence number, `UInt64` |
/// | 20 | 4 | CRC-32 of bytes 0..<20 (the lengths can be trusted before the payload is read) |
/// | 24 | P | payload |
/// | 24 + P | F | fingerprint, UTF-8 |
/// | 24 + P + F | 4 | CRC-32 of bytes 0..<24 + P + F |
///
/// The CRC-32 is the common one (IEEE 802.3, reflected, polynomial `0xEDB88320`, as in zlib, PNG
/// and Ethernet). A record is intact when both checksums match and its sequence number follows the
/// previous one. The first record that is not ends the replay: it is torn (an append cut short by
/// a crash) when it reaches the end of the file or everything from it on is zero bytes (space
/// that a system crash allotted but never wrote), and corrupt otherwise.
enum JournalFormat {
    /// The file's magic bytes, "ASHJ".
    static let fileMagic: [UInt8] = [0x41, 0x53, 0x48, 0x4A]
    /// A record's magic bytes, "ASJR".
    static let recordMagic: [UInt8] = [0x41, 0x53, 0x4A, 0x52]
    /// The format version this library writes and reads.
    static let version: UInt32 = 1
    /// The size of the file's header.
    static let fileHeaderSize = 16
    /// The size of a record's header (up to and with its checksum).
    static let recordHeaderSize = 24
    /// A record's size without its payload and fingerprint.
    static let recordOverhead = 28
    /// The fingerprint length that says there is none.
    private static let noFingerprint = UInt32.max

    /// The size of a record with this payload and fingerprint.
    static func recordSize(payload: Int, fingerprint: String?) -> Int {
        recordOverhead + payload + (fingerprint?.utf8.count ?? 0)
    }

    /// The file's header, with the sequence number of its first record.
    static func fileHeader(firstSequence: UInt64) -> Data {
        var bytes = fileMagic
        append(version, to: &bytes)
        append(firstSequence, to: &bytes)
        return Data(bytes)
    }

    /// A record's bytes.
    static func encode(_ record: JournalRecord) -> Data {
        let fingerprint = record.fingerprint.map { Array($0.utf8) }
        var bytes = recordMagic
        bytes.reserveCapacity(recordOverhead + record.payload.count + (fingerprint?.count ?? 0))
        append(UInt32(record.payload.count), to: &bytes)
        append(fingerprint.map { UInt32($0.count) } ?? noFingerprint, to: &bytes)
        append(record.sequence, to: &bytes)
        append(bytes.withUnsafeBytes { CRC32.checksum($0) }, to: &bytes)
        bytes += record.payload
        if let fingerprint { bytes += fingerprint }
        append(bytes.withUnsafeBytes { CRC32.checksum($0) }, to: &bytes)
        return Data(bytes)
    }

    /// What a journal file holds.
    struct Contents {
        /// The intact records, in order.
        var records: [JournalRecord]
        /// How the replay ended.
        var ending: HistoryJournal.Replay.Ending
        /// Where the intact part ends: where the next record goes (0 when the file needs a
        /// header first).
        var validEnd: Int
        /// The sequence number of the next record.
        var nextSequence: UInt64
        /// Where each intact record starts.
        var offsets: [Int] = []
    }

    /// Reads a journal file's bytes.
    ///
    /// - Throws: ``HistoryFileError/notAJournal(path:reason:)`` when the bytes do not start as a
    ///   journal of this version does.
    static func parse(_ data: Data, path: String) throws(HistoryFileError) -> Contents {
        let bytes = [UInt8](data)
        var contents = Contents(records: [], ending: .complete, validEnd: 0, nextSequence: 0)
        let known = fileMagic + bigEndianBytes(version)
        guard bytes.count >= fileHeaderSize else {
            // Empty, or a header cut short by a crash while the file was created (the sequence
            // number too, which can be anything).
            guard bytes.prefix(known.count).elementsEqual(known.prefix(bytes.count)) else {
                throw .notAJournal(path: path, reason: "it does not start with the journal's magic bytes")
            }
            if !bytes.isEmpty { contents.ending = .tornRecord(offset: 0, length: bytes.count) }
            return contents
        }
        guard bytes[0..<4].elementsEqual(fileMagic) else {
            throw .notAJournal(path: path, reason: "it does not start with the journal's magic bytes")
        }
        let fileVersion = UInt32(readBigEndian(bytes, at: 4, count: 4))
        guard fileVersion == version else {
            throw .notAJournal(
                path: path, reason: "its format version is \(fileVersion); this library reads version \(version)")
        }
        contents.nextSequence = readBigEndian(bytes, at: 8, count: 8)
        var offset = fileHeaderSize
        contents.validEnd = offset
        while offset < bytes.count {
            switch record(in: bytes, at: offset, sequence: contents.nextSequence) {
            case .intact(let record, let size):
                contents.records.append(record)
                contents.offsets.append(offset)
                offset += size
                contents.validEnd = offset
                contents.nextSequence &+= 1
            case .torn:
                contents.ending = .tornRecord(offset: offset, length: bytes.count - offset)
                return contents
            case .corrupt(let reason):
                contents.ending = .corruptRecord(offset: offset, reason: reason, droppedBytes: bytes.count - offset)
                return contents
            }
        }
        return contents
    }

    /// What lies at an offset of a journal.
    private enum Found {
        case intact(JournalRecord, size: Int)
        case torn
        case corrupt(String)
    }

    /// The record at `offset`, which should have sequence number `sequence`.
    private static func record(in bytes: [UInt8], at offset: Int, sequence expected: UInt64) -> Found {
        let remaining = bytes.count - offset
        // Bytes that end the file and were never written (zeros) are an append cut short too.
        let restIsZero = { bytes[offset...].allSatisfy { $0 == 0 } }
        guard remaining >= recordHeaderSize else { return .torn }
        let headerSum = bytes.withUnsafeBytes {
            CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + 20]))
        }
        guard bytes[offset..<offset + 4].elementsEqual(recordMagic),
            UInt32(readBigEndian(bytes, at: offset + 20, count: 4)) == headerSum
        else { return restIsZero() ? .torn : .corrupt("its header is damaged") }
        let payloadLength = readBigEndian(bytes, at: offset + 4, count: 4)
        let rawFingerprintLength = UInt32(readBigEndian(bytes, at: offset + 8, count: 4))
        let fingerprintLength = rawFingerprintLength == noFingerprint ? 0 : UInt64(rawFingerprintLength)
        let sequence = readBigEndian(bytes, at: offset + 12, count: 8)
        // In 64 bits, so that lengths near 4 GiB cannot overflow an Int on a 32-bit platform.
        let size = UInt64(recordOverhead) + payloadLength + fingerprintLength
        guard size <= UInt64(remaining) else { return .torn }
        let end = offset + Int(size)
        let sum = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[offset..<end - 4])) }
        guard UInt32(readBigEndian(bytes, at: end - 4, count: 4)) == sum else {
            return end == bytes.count || restIsZero() ? .torn : .corrupt("its checksum does not match its contents")
        }
        guard sequence == expected else {
            return .corrupt("its sequence number is \(sequence) where \(expected) was expected")
        }
        let payloadStart = offset + recordHeaderSize
        let fingerprintStart = payloadStart + Int(payloadLength)
        var fingerprint: String?
        if rawFingerprintLength != noFingerprint {
            guard let text = String(bytes: bytes[fingerprintStart..<end - 4], encoding: .utf8) else {
                return .corrupt("its fingerprint is not UTF-8")
            }
            fingerprint = text
        }
        let payload = Data(bytes[payloadStart..<fingerprintStart])
        return .intact(JournalRecord(sequence: sequence, payload: payload, fingerprint: fingerprint), size: Int(size))
    }

    private static func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return bytes
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        for shift in stride(from: T.bitWidth - 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    private static func readBigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + count] { value = value << 8 | UInt64(byte) }
        return value
    }
}

/// The CRC-32 of IEEE 802.3 (reflected, polynomial `0xEDB88320`): the checksum of zlib, PNG and
/// Ethernet, so that a journal can be checked with common tools. Its check value, the checksum of
/// the ASCII "123456789", is `0xCBF43926`.
///
/// Computed eight bytes at a time ("slicing-by-8": eight tables of 256 remainders, 8 KiB), which
/// takes about a quarter of the time of a byte at a time: every record is checksummed when it is
/// appended, and every record a compaction keeps or a replay reads is checked again.
package enum CRC32 {
    /// The remainders: table k (entries `k * 256 ..< (k + 1) * 256`) holds those of each byte
    /// value followed by k zero bytes; table 0 is the classic byte-at-a-time table.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for value in 0..<256 {
            var remainder = UInt32(value)
            for _ in 0..<8 { remainder = remainder & 1 == 1 ? (remainder >> 1) ^ 0xEDB8_8320 : remainder >> 1 }
            tables[value] = remainder
        }
        for table in 1..<8 {
            for value in 0..<256 {
                let previous = tables[(table - 1) * 256 + value]
                tables[table * 256 + value] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    ///
    /// - Complexity: O(n) for the n bytes.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0xFFFF_FFFF
            var offset = 0
            let count = bytes.count
            while count - offset >= 8 {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let low = UInt32(truncatingIfNeeded: word) ^ crc
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
            return crc ^ 0xFFFF_FFFF
        }
    }
}
