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

/// Issue 29: a compaction of a file as the journal left it reads only the records it keeps, and
/// the append after it does not read the new file again; a file another writer touched meanwhile
/// is still read whole, and nothing is lost or misnumbered either way.
@Suite struct JournalCompactionReadsTests {
    static func payload(_ index: Int) -> Data { Data("record \(index)".utf8) }

    @Test func aCompactionAndTheAppendAfterItReadNoWholeFile() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let journal = HistoryJournal(url: directory.file("doc.journal"), durability: .system)
        for index in 0..<10 { try journal.append(Self.payload(index), fingerprint: "f\(index)") }
        let reads = journal._wholeFileReads
        try journal.compact(keeping: 3)
        try journal.append(Self.payload(10), fingerprint: "f10")
        try journal.compact(keeping: 2)
        try journal.compact(keeping: 5)  // more than it holds: all of them
        try journal.append(Self.payload(11), fingerprint: "f11")
        #expect(journal._wholeFileReads == reads, "no whole read after the first")
        let expected = (9...11).map {
            JournalRecord(sequence: UInt64($0), payload: Self.payload($0), fingerprint: "f\($0)")
        }
        #expect(try HistoryJournal(url: journal.url).replay() == .init(records: expected, ending: .complete))
        try journal.compact(keeping: 0)
        try journal.append(Self.payload(12), fingerprint: nil)
        #expect(journal._wholeFileReads == reads)
        #expect(try journal.records() == [JournalRecord(sequence: 12, payload: Self.payload(12), fingerprint: nil)])
    }

    @Test func anAppendCompactingWithinItsLimitsReadsNoWholeFile() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let journal = HistoryJournal(url: directory.file("doc.journal"), maximumRecords: 8, durability: .system)
        try journal.append(Self.payload(0), fingerprint: nil)
        let reads = journal._wholeFileReads
        for index in 1..<40 { try journal.append(Self.payload(index), fingerprint: nil) }
        #expect(journal._wholeFileReads == reads)
        let sequences = try journal.records().map(\.sequence)
        #expect(sequences == Array(UInt64(40 - sequences.count)..<40))
        #expect(try journal.records().map(\.payload) == sequences.map { Self.payload(Int($0)) })
    }

    /// Another journal appends to the new file before this one looks at it again, or compacts it
    /// in turn: this one reads it, and follows the other's records.
    @Test func anotherWritersRecordsAfterACompactionAreFollowed() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let first = HistoryJournal(url: url, durability: .system)
        let second = HistoryJournal(url: url, durability: .system)
        for index in 0..<6 { try first.append(Self.payload(index), fingerprint: nil) }
        try first.compact(keeping: 2)
        try second.append(Self.payload(6), fingerprint: nil)
        let reads = first._wholeFileReads
        try first.append(Self.payload(7), fingerprint: nil)
        #expect(first._wholeFileReads == reads + 1, "the file another writer changed is read")
        try second.compact(keeping: 3)
        try first.compact(keeping: 2)
        try second.append(Self.payload(8), fingerprint: nil)
        try first.append(Self.payload(9), fingerprint: nil)
        let replay = try HistoryJournal(url: url).replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.map(\.sequence) == [6, 7, 8, 9])
        #expect(replay.records.map(\.payload) == (6...9).map(Self.payload))
    }
}
