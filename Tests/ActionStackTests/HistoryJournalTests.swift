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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of a hexadecimal string.
private func hex(_ text: String) -> Data {
    var data = Data()
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        data.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return data
}

/// The size of a record in the journal's format: 28 bytes of framing, its payload and fingerprint.
private func recordSize(_ payload: Int, _ fingerprint: String?) -> Int { 28 + payload + (fingerprint?.utf8.count ?? 0) }

struct HistoryJournalTests {
    @Test func recordsComeBackInOrderAcrossInstances() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url)
        #expect(try journal.replay() == HistoryJournal.Replay(records: [], ending: .complete), "no file: no records")
        try journal.append(Data("one".utf8), fingerprint: "A")
        try journal.append(Data(), fingerprint: nil)
        try journal.append(bytes(70_000, seed: 9), fingerprint: "")
        let expected = [
            JournalRecord(sequence: 0, payload: Data("one".utf8), fingerprint: "A"),
            JournalRecord(sequence: 1, payload: Data(), fingerprint: nil),
            JournalRecord(sequence: 2, payload: bytes(70_000, seed: 9), fingerprint: ""),
        ]
        #expect(try journal.records() == expected, "an empty fingerprint is not a missing one")
        let reopened = HistoryJournal(url: url)
        #expect(try reopened.replay() == HistoryJournal.Replay(records: expected, ending: .complete))
        try reopened.append(Data("four".utf8), fingerprint: "D")
        #expect(try journal.records().map(\.sequence) == [0, 1, 2, 3], "a new instance goes on where the file ends")
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        #expect(permissions.map { $0.intValue & 0o077 } == 0, "readable by its owner only")
    }

    /// The format, byte for byte, checksums included (CRC-32 as zlib computes it), so that a change
    /// to it is deliberate.
    @Test func theFormatIsStable() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url)
        try journal.append(Data("hi".utf8), fingerprint: "f")
        try journal.append(Data(), fingerprint: nil)
        let header = "4153484a" + "00000001" + "0000000000000000"
        let first = "41534a52" + "00000002" + "00000001" + "0000000000000000" + "e35229ff" + "6869" + "66" + "9e106324"
        let second = "41534a52" + "00000000" + "ffffffff" + "0000000000000001" + "675881f1" + "72a127fc"
        #expect(try Data(contentsOf: url) == hex(header + first + second))
        // A file written by hand in that format reads back.
        try hex(header + first).write(to: url)
        #expect(
            try HistoryJournal(url: url).records() == [
                JournalRecord(sequence: 0, payload: Data("hi".utf8), fingerprint: "f")
            ])
    }

    /// A crash in the middle of an append leaves the last record short, or (a system crash) a
    /// tail of zeros: the replay ignores it and the next append overwrites it.
    @Test func aTornLastRecordIsIgnoredAndOverwritten() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let payloads = (0..<3).map { bytes(100 + $0, seed: UInt8($0)) }
        let third = 16 + recordSize(100, "A") + recordSize(101, "B")
        let full = third + recordSize(102, "C")
        for cut in [1, 4, 23, 24, 25, recordSize(102, "C") - 1] {
            try? FileManager.default.removeItem(at: url)
            let journal = HistoryJournal(url: url)
            for (payload, fingerprint) in zip(payloads, ["A", "B", "C"]) {
                try journal.append(payload, fingerprint: fingerprint)
            }
            try Data(contentsOf: url).prefix(full - cut).write(to: url)
            let replay = try HistoryJournal(url: url).replay()
            #expect(replay.records.map(\.payload) == Array(payloads.prefix(2)), "cut \(cut)")
            #expect(replay.ending == .tornRecord(offset: third, length: recordSize(102, "C") - cut), "cut \(cut)")
            try journal.append(Data("next".utf8), fingerprint: "N")
            #expect(try journal.replay().ending == .complete)
            #expect(try journal.records().map(\.sequence) == [0, 1, 2])
            #expect(try journal.records().last?.payload == Data("next".utf8))
        }
        // Zeros after the last record: space a system crash allotted and never wrote.
        var data = try Data(contentsOf: url)
        let end = data.count
        data += Data(count: 100)
        try data.write(to: url)
        let replay = try HistoryJournal(url: url).replay()
        #expect(replay.ending == .tornRecord(offset: end, length: 100))
        #expect(replay.records.count == 3)
    }

    @Test func aHeaderCutShortIsAnEmptyJournal() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        try hex("4153484a0000").write(to: url)
        let journal = HistoryJournal(url: url)
        #expect(try journal.replay() == HistoryJournal.Replay(records: [], ending: .tornRecord(offset: 0, length: 6)))
        try journal.append(Data("a".utf8), fingerprint: nil)
        #expect(
            try journal.replay()
                == HistoryJournal.Replay(
                    records: [JournalRecord(sequence: 0, payload: Data("a".utf8), fingerprint: nil)], ending: .complete)
        )
        // Cut within the sequence number: still the journal's header.
        try hex("4153484a" + "00000001" + "0000").write(to: url)
        #expect(try journal.replay() == HistoryJournal.Replay(records: [], ending: .tornRecord(offset: 0, length: 10)))
        // Another file's first bytes.
        try hex("4153484a" + "00000002" + "0000").write(to: url)
        let reason = "it does not start with the journal's magic bytes"
        #expect(throws: HistoryFileError.notAJournal(path: url.path, reason: reason)) { try journal.replay() }
    }

    /// A damaged record before the end stops the replay there: what follows cannot be trusted.
    @Test func aCorruptMiddleRecordEndsTheReplayThere() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let second = 16 + recordSize(10, "A")
        let total = second + recordSize(10, "B") + recordSize(10, "C")
        let cases: [(offset: Int, reason: String)] = [
            (second + 30, "its checksum does not match its contents"),  // the payload
            (second + 6, "its header is damaged"),  // the payload length
            (second, "its header is damaged"),  // the magic
        ]
        for (flip, reason) in cases {
            try? FileManager.default.removeItem(at: url)
            let journal = HistoryJournal(url: url)
            for name in ["A", "B", "C"] { try journal.append(bytes(10, seed: 7), fingerprint: name) }
            var data = try Data(contentsOf: url)
            data[flip] ^= 0x40
            try data.write(to: url)
            let replay = try HistoryJournal(url: url).replay()
            #expect(replay.records.map(\.fingerprint) == ["A"])
            #expect(replay.ending == .corruptRecord(offset: second, reason: reason, droppedBytes: total - second))
            #expect(replay.ending.description.contains("damaged (\(reason))"))
            // Appending goes on from the last intact record (a new instance: the flipped byte left
            // the file's size as the first one knows it).
            try HistoryJournal(url: url).append(Data(), fingerprint: "D")
            #expect(try journal.records().map(\.fingerprint) == ["A", "D"])
            #expect(try journal.records().map(\.sequence) == [0, 1])
        }
    }

    /// A record whose sequence number does not follow the previous one is out of place.
    @Test func aRecordOutOfSequenceEndsTheReplay() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url)
        try journal.append(Data("a".utf8), fingerprint: nil)
        try journal.append(Data("b".utf8), fingerprint: nil)
        // The same two records after a header that says the first is number 5.
        var data = try Data(contentsOf: url)
        data[15] = 5
        try data.write(to: url)
        let replay = try journal.replay()
        #expect(replay.records.isEmpty)
        #expect(
            replay.ending
                == .corruptRecord(
                    offset: 16, reason: "its sequence number is 0 where 5 was expected", droppedBytes: data.count - 16))
    }

    /// The decided rule: the app reopens the history as it was when the document was last saved,
    /// the last record whose fingerprint is the opened document's.
    @Test func theLastRecordWithTheOpenedDocumentsFingerprintIsChosen() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let journal = HistoryJournal(url: directory.file("doc.journal"))
        // The document was saved as "v1", changed twice (unsaved), saved as "v2", changed three
        // more times without a save, then the app crashed.
        let steps: [(String, String?)] = [
            ("history 1", "v1"), ("history 2", nil), ("history 3", nil), ("history 4", "v2"),
            ("history 5", nil), ("history 6", nil), ("history 7", nil),
        ]
        for (history, fingerprint) in steps { try journal.append(Data(history.utf8), fingerprint: fingerprint) }
        let reopened = try #require(try journal.lastRecord(matchingFingerprint: "v2"))
        #expect(reopened == JournalRecord(sequence: 3, payload: Data("history 4".utf8), fingerprint: "v2"))
        #expect(try journal.lastRecord(matchingFingerprint: "v1")?.sequence == 0)
        #expect(try journal.lastRecord(matchingFingerprint: "changed elsewhere") == nil)
        // The same fingerprint twice (the user saved, undid and redid, saved again): the later.
        try journal.append(Data("history 8".utf8), fingerprint: "v2")
        #expect(try journal.lastRecord(matchingFingerprint: "v2")?.sequence == 7)
    }

    @Test func theRecordLimitCompactsToTheNewest() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let journal = HistoryJournal(url: directory.file("doc.journal"), maximumRecords: 10)
        for index in 0..<25 {
            try journal.append(Data("\(index)".utf8), fingerprint: "f\(index)")
            let records = try journal.records()
            #expect(records.count <= 10)
            #expect(records.last?.sequence == UInt64(index), "the newest record is always kept")
            #expect(zip(records, records.dropFirst()).allSatisfy { $0.sequence + 1 == $1.sequence })
        }
        // Compacted before appending records 10, 15 and 20, each time to the newest 5.
        #expect(try journal.records().map(\.sequence) == Array(15...24))
        #expect(try journal.lastRecord(matchingFingerprint: "f3") == nil, "dropped")
        #expect(try journal.lastRecord(matchingFingerprint: "f16")?.payload == Data("16".utf8))
    }

    @Test func theByteLimitBoundsTheFile() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url, maximumBytes: 1000)
        for index in 0..<40 {
            try journal.append(bytes(60 + index % 7, seed: UInt8(index)), fingerprint: nil)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)
            #expect(size.intValue <= 1000)
            #expect(try journal.records().last?.payload == bytes(60 + index % 7, seed: UInt8(index)))
        }
        // A record that could never fit is refused, and the journal stays as it was.
        let before = try journal.records()
        let error = #expect(throws: HistoryFileError.self) { try journal.append(bytes(957, seed: 0), fingerprint: nil) }
        #expect(error == .tooLarge(path: url.path, size: 16 + 28 + 957, limit: 1000))
        #expect(try journal.records() == before)
        try journal.append(bytes(956, seed: 0), fingerprint: nil)  // exactly fills it
        #expect(try journal.records().map(\.payload) == [bytes(956, seed: 0)])
    }

    @Test func compactionKeepsSequenceNumbersAndResetStartsOver() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url)
        try journal.compact(keeping: 3)
        #expect(try directory.names().isEmpty, "compacting no journal makes none")
        for index in 0..<5 { try journal.append(Data([UInt8(index)]), fingerprint: nil) }
        try journal.compact(keeping: 2)
        #expect(try journal.records().map(\.sequence) == [3, 4])
        try journal.append(Data([5]), fingerprint: nil)
        #expect(try journal.records().map(\.sequence) == [3, 4, 5])
        try journal.compact(keeping: 0)
        #expect(try journal.records().isEmpty)
        try journal.append(Data([6]), fingerprint: nil)
        #expect(try journal.records() == [JournalRecord(sequence: 6, payload: Data([6]), fingerprint: nil)])
        try journal.reset()
        #expect(try directory.names().isEmpty, "reset removes the file")
        try journal.reset()  // no file: no error
        try journal.append(Data([7]), fingerprint: nil)
        #expect(try journal.records().map(\.sequence) == [0])
    }

    /// Another instance compacted the file (a new file, by rename): an instance that had read the
    /// old one reads the new one before it appends.
    @Test func anInstanceNoticesAFileReplacedUnderIt() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let first = HistoryJournal(url: url)
        for index in 0..<4 { try first.append(Data([UInt8(index)]), fingerprint: nil) }
        try HistoryJournal(url: url).compact(keeping: 1)
        try first.append(Data([4]), fingerprint: nil)
        #expect(try first.records().map(\.sequence) == [3, 4])
        try HistoryJournal(url: url).reset()
        try first.append(Data([5]), fingerprint: nil)
        #expect(try first.records() == [JournalRecord(sequence: 0, payload: Data([5]), fingerprint: nil)])
    }

    @Test func anotherFileIsNotAJournalAndIsLeftAlone() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let other = Data("{\"a JSON file\": true}".utf8)
        try other.write(to: url)
        let journal = HistoryJournal(url: url)
        let reason = "it does not start with the journal's magic bytes"
        #expect(throws: HistoryFileError.notAJournal(path: url.path, reason: reason)) { try journal.replay() }
        #expect(throws: HistoryFileError.notAJournal(path: url.path, reason: reason)) {
            try journal.append(Data(), fingerprint: nil)
        }
        #expect(try Data(contentsOf: url) == other, "not overwritten")
        // A newer format.
        try hex("4153484a" + "00000002" + "0000000000000000").write(to: url)
        let error = #expect(throws: HistoryFileError.self) { try journal.records() }
        #expect(
            error?.description
                == "\(url.path) is not a history journal: its format version is 2; this library reads version 1")
        try journal.reset()
        try journal.append(Data(), fingerprint: nil)
        #expect(try journal.records().count == 1)
    }

    @Test func aJournalLargerThanTheLimitIsRefusedUnread() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        try HistoryJournal(url: url).append(bytes(2000, seed: 1), fingerprint: nil)
        let small = HistoryJournal(url: url, maximumBytes: 1000)
        let size = 16 + recordSize(2000, nil)
        #expect(throws: HistoryFileError.tooLarge(path: url.path, size: size, limit: 1000)) { try small.replay() }
        #expect(throws: HistoryFileError.tooLarge(path: url.path, size: size, limit: 1000)) {
            try small.append(Data(), fingerprint: nil)
        }
        #expect(try HistoryJournal(url: url).records().count == 1, "left as it was")
    }

    @Test func aJournalInAMissingDirectoryIsACannotWrite() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("missing").appendingPathComponent("doc.journal")
        let journal = HistoryJournal(url: url)
        let error = #expect(throws: HistoryFileError.self) { try journal.append(Data(), fingerprint: nil) }
        guard case .cannotWrite(let path, let reason, let code) = error else {
            Issue.record("expected cannotWrite, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(code == ENOENT)
        #expect(reason.hasPrefix("open: "), "\(reason)")
        #expect(try journal.records().isEmpty, "and there is nothing to replay")
    }
}
