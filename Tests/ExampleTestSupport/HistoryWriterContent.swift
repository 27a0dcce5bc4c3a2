// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// What the `history-writer` test program writes, generation after generation, and how a test
/// checks it: each generation's contents say which generation they are and how long, and the rest
/// is a pseudo-random sequence seeded by the generation, so that any mix of two generations, a
/// cut, or a file of zeros fails ``generation(of:kind:)``.
public enum HistoryWriterContent: Sendable {
    /// Which of the writer's files the contents are for.
    public enum Kind: UInt64, Sendable {
        /// The saved history (written through `HistoryFileStore`): large, two sizes in turn.
        case savedFile = 0x5341_5645
        /// A journal record's payload: smaller, four sizes in turn.
        case journalRecord = 0x4A52_4E4C
    }

    /// The journal's limits: few records, so that the writer compacts the journal every two or
    /// three appends and kills land in compactions too (a compaction written in place, not through
    /// a rename, fails the test). The test reads the journal with the same.
    public static let journalMaximumRecords = 4
    /// See ``journalMaximumRecords``.
    public static let journalMaximumBytes = 512 << 10

    /// The magic bytes that start the contents.
    private static let magic = Array("HWRITER1".utf8)

    /// The fingerprint of the journal record for `generation`.
    public static func fingerprint(_ generation: UInt64) -> String { "gen-\(generation)" }

    /// The size of a generation's contents.
    public static func size(of generation: UInt64, kind: Kind) -> Int {
        switch kind {
        case .savedFile: generation % 2 == 0 ? 768 << 10 : (320 << 10) + Int(generation % 7) * 1000
        case .journalRecord: (8 << 10) * (1 + Int(generation % 4))
        }
    }

    /// A generation's contents: the magic, the generation and the size (8 bytes each,
    /// big-endian), then pseudo-random bytes.
    public static func contents(of generation: UInt64, kind: Kind) -> Data {
        let size = size(of: generation, kind: kind)
        var words = [UInt64](repeating: 0, count: (size + 7) / 8)
        words.withUnsafeMutableBufferPointer { words in
            words[0] = magic.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            words[1] = generation.bigEndian
            words[2] = UInt64(size).bigEndian
            var state = generation &* 0x9E37_79B9_7F4A_7C15 ^ kind.rawValue
            for index in 3..<words.count {
                // SplitMix64.
                state &+= 0x9E37_79B9_7F4A_7C15
                var word = state
                word = (word ^ (word >> 30)) &* 0xBF58_476D_1CE4_E5B9
                word = (word ^ (word >> 27)) &* 0x94D0_49BB_1331_11EB
                words[index] = word ^ (word >> 31)
            }
        }
        return words.withUnsafeBytes { Data($0.prefix(size)) }
    }

    /// The generation whose complete contents `data` is, or nil when it is no generation's: a
    /// mix, a cut, zeros, nothing.
    public static func generation(of data: Data, kind: Kind) -> UInt64? {
        guard data.count >= 24, data.prefix(8).elementsEqual(magic) else { return nil }
        let generation = data.dropFirst(8).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard generation < 1 << 40, size(of: generation, kind: kind) == data.count else { return nil }
        return contents(of: generation, kind: kind) == data ? generation : nil
    }
}
