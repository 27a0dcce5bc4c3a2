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

#if canImport(Glibc)
    import Glibc
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

/// Changes the journal's file at `url` in place (the same file, opened for updating) with `edit`,
/// behind the back of any journal that has it open: as a program that ignores the journal's lock
/// would, or a disk that rewrote a block.
///
/// A journal notices such a change by the file's time stamps. When the edit left the modification
/// time as it was (a file system whose clock did not tick since the journal's last write, which
/// some keep to a few milliseconds), the time is set a second later, as it is for an edit made a
/// moment later: an edit within the same tick is the journal's documented blind spot.
func changeBehindItsBack(_ url: URL, _ edit: (FileHandle) throws -> Void) throws {
    let modified = { () throws -> Date? in
        try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
    }
    let before = try modified()
    let handle = try FileHandle(forUpdating: url)
    try edit(handle)
    try handle.close()
    if let before, try modified() == before {
        try FileManager.default.setAttributes([.modificationDate: before + 1], ofItemAtPath: url.path)
    }
}

/// Inverts the byte at `offset` of an open file.
func flipByte(_ handle: FileHandle, at offset: Int) throws {
    try handle.seek(toOffset: UInt64(offset))
    let byte = try #require(try handle.read(upToCount: 1)?.first)
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: [~byte])
}

/// Renames `source` over `destination`, as an editor that saves atomically does.
private func renameOver(_ source: URL, _ destination: URL) throws {
    guard rename(source.path, destination.path) == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
    }
}

/// Errors and checks from several threads, collected under a lock.
private final class Findings: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    func add(_ finding: String) {
        lock.lock()
        defer { lock.unlock() }
        list.append(finding)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

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
        guard let error, error.kind == .cannotWrite, let reason = error.reason else {
            Issue.record("expected cannotWrite, got \(String(describing: error))")
            return
        }
        let path = error.path
        let code = error.code
        #expect(path == url.path)
        #expect(code == ENOENT)
        #expect(reason.hasPrefix("open: "), "\(reason)")
        #expect(try journal.records().isEmpty, "and there is nothing to replay")
    }

    // MARK: Changes behind the journal's back

    /// A byte changed in the middle of the file behind the journal's back (the same file, the same
    /// size): the next append notices (the file's time stamps changed), reads the file again and
    /// overwrites the damaged record and what follows it, so that the record appended is reachable.
    @Test func aByteChangedInTheMiddleIsOverwrittenByTheNextAppend() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let second = 16 + recordSize(10, "A")
        let third = second + recordSize(10, "B")
        let end = third + recordSize(10, "C")
        let checksum = "its checksum does not match its contents"
        let header = "its header is damaged"
        let cases: [(flip: Int, intact: [String], ending: HistoryJournal.Replay.Ending)] = [
            // A byte of the middle record's payload, and of its header.
            (second + 30, ["A"], .corruptRecord(offset: second, reason: checksum, droppedBytes: end - second)),
            (second + 6, ["A"], .corruptRecord(offset: second, reason: header, droppedBytes: end - second)),
            // A byte of the last record's payload: a damaged last record reads as a torn one.
            (third + 30, ["A", "B"], .tornRecord(offset: third, length: end - third)),
        ]
        for (flip, intact, ending) in cases {
            try? FileManager.default.removeItem(at: url)
            let journal = HistoryJournal(url: url, synchronizesAppends: false)
            for name in ["A", "B", "C"] { try journal.append(bytes(10, seed: 7), fingerprint: name) }
            try changeBehindItsBack(url) { try flipByte($0, at: flip) }
            let damaged = try HistoryJournal(url: url).replay()
            #expect(damaged.records.map(\.fingerprint) == intact, "flip at \(flip)")
            #expect(damaged.ending == ending, "flip at \(flip)")
            try journal.append(Data("next".utf8), fingerprint: "D")
            let replay = try HistoryJournal(url: url).replay()
            #expect(replay.ending == .complete, "flip at \(flip)")
            #expect(replay.records.map(\.fingerprint) == intact + ["D"], "flip at \(flip)")
            #expect(replay.records.map(\.sequence) == Array(0...UInt64(intact.count)), "flip at \(flip)")
            #expect(replay.records.last?.payload == Data("next".utf8))
            // And the journal goes on from there, at its usual cost.
            try journal.append(Data(), fingerprint: "E")
            #expect(try journal.records().map(\.fingerprint) == intact + ["D", "E"])
        }
    }

    /// The end of the file rewritten with its size kept (the last record zeroed, as a system crash
    /// can leave it): the next append overwrites it.
    @Test func aLastRecordZeroedBehindItsBackIsOverwritten() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        for name in ["A", "B", "C"] { try journal.append(bytes(10, seed: 1), fingerprint: name) }
        let third = 16 + 2 * recordSize(10, "A")
        try changeBehindItsBack(url) { handle in
            try handle.seek(toOffset: UInt64(third))
            try handle.write(contentsOf: Data(count: recordSize(10, "C")))
        }
        #expect(
            try HistoryJournal(url: url).replay().ending == .tornRecord(offset: third, length: recordSize(10, "C")))
        try journal.append(Data("next".utf8), fingerprint: "D")
        let replay = try HistoryJournal(url: url).replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.map(\.fingerprint) == ["A", "B", "D"])
    }

    /// The file cut short behind the journal's back: the next append goes on where its intact
    /// records end, after a torn one, or at a new header when too little is left.
    @Test func aFileTruncatedBehindItsBackIsAppendedToWhereItsIntactRecordsEnd() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let third = 16 + 2 * recordSize(10, "A")
        // Inside the last record, at its start, inside the header, nothing left.
        for (length, kept) in [(third + 5, ["A", "B"]), (third, ["A", "B"]), (10, []), (0, [])] {
            try? FileManager.default.removeItem(at: url)
            let journal = HistoryJournal(url: url, synchronizesAppends: false)
            for name in ["A", "B", "C"] { try journal.append(bytes(10, seed: 2), fingerprint: name) }
            try changeBehindItsBack(url) { try $0.truncate(atOffset: UInt64(length)) }
            try journal.append(Data("next".utf8), fingerprint: "D")
            let replay = try HistoryJournal(url: url).replay()
            #expect(replay.ending == .complete, "cut to \(length)")
            #expect(replay.records.map(\.fingerprint) == kept + ["D"], "cut to \(length)")
            #expect(replay.records.map(\.sequence) == Array(0...UInt64(kept.count)), "cut to \(length)")
        }
    }

    /// The file replaced behind the journal's back (another file renamed over it): the next append
    /// goes on where the new file's intact records end; a new file that is not a journal is
    /// refused, and left as it is.
    @Test func aFileReplacedBehindItsBackIsReadAgain() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        for name in ["A", "B", "C"] { try journal.append(bytes(10, seed: 3), fingerprint: name) }
        // Another journal, of two records, written beside it and renamed over it.
        let other = directory.file("other.journal")
        let writer = HistoryJournal(url: other, synchronizesAppends: false)
        for name in ["X", "Y"] { try writer.append(Data(name.utf8), fingerprint: name) }
        try renameOver(other, url)
        try journal.append(Data("Z".utf8), fingerprint: "Z")
        let replay = try HistoryJournal(url: url).replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.map(\.fingerprint) == ["X", "Y", "Z"])
        #expect(replay.records.map(\.sequence) == [0, 1, 2])
        // A copy with a byte of its middle record changed: the same size and the same last bytes,
        // only the file (and its time stamps) differ.
        var copy = try Data(contentsOf: url)
        copy[16 + recordSize(1, "X") + 24] ^= 0xFF
        try copy.write(to: other)
        try renameOver(other, url)
        try journal.append(Data("W".utf8), fingerprint: "W")
        #expect(try journal.records().map(\.fingerprint) == ["X", "W"])
        #expect(try journal.replay().ending == .complete)
        // A file that is not a journal.
        let text = Data("a note saved over the journal by mistake".utf8)
        try text.write(to: other)
        try renameOver(other, url)
        let reason = "it does not start with the journal's magic bytes"
        #expect(throws: HistoryFileError.notAJournal(path: url.path, reason: reason)) {
            try journal.append(Data("V".utf8), fingerprint: "V")
        }
        #expect(try Data(contentsOf: url) == text, "left as it is")
    }

    /// The file deleted behind the journal's back: the next append starts a new one, as after
    /// reset(), readable by its owner only.
    @Test func aFileDeletedBehindItsBackStartsOver() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        for name in ["A", "B", "C"] { try journal.append(bytes(10, seed: 4), fingerprint: name) }
        try FileManager.default.removeItem(at: url)
        try journal.append(Data("next".utf8), fingerprint: "D")
        #expect(
            try HistoryJournal(url: url).replay()
                == HistoryJournal.Replay(
                    records: [JournalRecord(sequence: 0, payload: Data("next".utf8), fingerprint: "D")],
                    ending: .complete))
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        #expect(permissions.map { $0.intValue & 0o077 } == 0, "readable by its owner only")
        // Deleted, and a copy made at the path (perhaps with the same inode number, which the
        // system gives again) with the same size and last bytes, and a byte of its record changed.
        try journal.append(bytes(100, seed: 5), fingerprint: "E")
        var copy = try Data(contentsOf: url)
        copy[16 + recordSize(4, "D") + 24] ^= 0xFF
        try FileManager.default.removeItem(at: url)
        try copy.write(to: url)
        try journal.append(Data("more".utf8), fingerprint: "F")
        #expect(try journal.records().map(\.fingerprint) == ["D", "F"])
        #expect(try journal.replay().ending == .complete)
    }

    /// A journal with a second name (a hard link, as some backup tools make): another journal's
    /// compaction renames a new file over its name, the link keeps the old file, and the first
    /// journal appends to the new file, the one its name names.
    @Test func aHardLinkedJournalFollowsItsName() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        for name in ["A", "B", "C"] { try journal.append(Data(name.utf8), fingerprint: name) }
        let backup = directory.file("backup.journal")
        #expect(link(url.path, backup.path) == 0)
        try journal.append(Data("D".utf8), fingerprint: "D")
        try HistoryJournal(url: url).compact(keeping: 1)
        try journal.append(Data("E".utf8), fingerprint: "E")
        #expect(try HistoryJournal(url: url).records().map(\.fingerprint) == ["D", "E"])
        #expect(try HistoryJournal(url: backup).records().map(\.fingerprint) == ["A", "B", "C", "D"])
    }

    // MARK: Two journals on one file

    /// Two journal objects on one file, taking turns (as two windows or two processes would): each
    /// append follows the other's records, so every record is reachable, in the order appended.
    @Test func twoJournalsOnOneFileAlternatingKeepEveryRecordInOrder() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let first = HistoryJournal(url: url, synchronizesAppends: false)
        let second = HistoryJournal(url: url, synchronizesAppends: false)
        var expected: [JournalRecord] = []
        for index in 0..<40 {
            // Irregular turns: sometimes the same object twice in a row.
            let journal = index % 3 == 1 ? second : first
            let record = JournalRecord(
                sequence: UInt64(index), payload: bytes(5 + index, seed: UInt8(index)), fingerprint: "r\(index)")
            try journal.append(record.payload, fingerprint: record.fingerprint)
            expected.append(record)
        }
        #expect(try HistoryJournal(url: url).replay() == HistoryJournal.Replay(records: expected, ending: .complete))
        #expect(try first.records() == expected)
        #expect(try second.records() == expected)
        // With compactions (each rewrites the file and renames it over the other's).
        try first.reset()
        let small = (
            HistoryJournal(url: url, maximumRecords: 6, synchronizesAppends: false),
            HistoryJournal(url: url, maximumRecords: 6, synchronizesAppends: false)
        )
        for index in 0..<30 {
            try (index % 2 == 0 ? small.0 : small.1).append(Data("\(index)".utf8), fingerprint: nil)
            let records = try HistoryJournal(url: url).records()
            #expect(records.last?.payload == Data("\(index)".utf8), "the newest record is the last")
            #expect(records.count <= 6)
            #expect(records.map(\.sequence) == Array(UInt64(index + 1 - records.count)...UInt64(index)))
        }
    }

    /// Two journal objects on one file appending from two threads at once, while a third replays:
    /// the file's lock makes them take turns, so no record is torn or lost, each thread's records
    /// are in its order, and no replay sees a record half written.
    @Test func twoJournalsAppendingAtOnceNeverInterleave() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.journal")
        let perWriter = 150
        for maximumRecords in [HistoryJournal.defaultMaximumRecords, 16] {
            try? FileManager.default.removeItem(at: url)
            let findings = Findings()
            DispatchQueue.concurrentPerform(iterations: 3) { worker in
                let journal = HistoryJournal(url: url, maximumRecords: maximumRecords, synchronizesAppends: false)
                do {
                    if worker == 2 {
                        for _ in 0..<40 {
                            let ending = try journal.replay().ending
                            if ending != .complete { findings.add("a replay ended: \(ending)") }
                        }
                    } else {
                        for index in 0..<perWriter {
                            // Sizes that vary, so that a record written at a stale offset shows.
                            let payload = bytes(20 + (index * 7 + worker * 13) % 300, seed: UInt8(worker))
                            try journal.append(payload, fingerprint: "w\(worker)-\(index)")
                        }
                    }
                } catch {
                    findings.add("worker \(worker): \(error)")
                }
            }
            #expect(findings.all.isEmpty, "\(findings.all)")
            let replay = try HistoryJournal(url: url).replay()
            #expect(replay.ending == .complete)
            let total = maximumRecords > 2 * perWriter ? 2 * perWriter : replay.records.count
            #expect(replay.records.count == total)
            #expect(replay.records.map(\.sequence).last == UInt64(2 * perWriter - 1))
            for worker in 0..<2 {
                let indexes = replay.records.compactMap { record -> Int? in
                    guard let parts = record.fingerprint?.split(separator: "-"), parts[0] == "w\(worker)" else {
                        return nil
                    }
                    return Int(parts[1])
                }
                #expect(indexes == indexes.sorted(), "worker \(worker)'s records in its order")
                if maximumRecords > 2 * perWriter { #expect(indexes == Array(0..<perWriter)) }
            }
        }
    }

    @Test func journalTornTailAndFingerprints() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("doc.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        try journal.append(Data("r0".utf8), fingerprint: "A")
        try journal.append(Data("r1".utf8), fingerprint: "B")
        try journal.append(Data("r2".utf8), fingerprint: "A")
        try journal.append(Data("r3".utf8), fingerprint: "C")
        #expect(try journal.lastRecord(matchingFingerprint: "A")?.payload == Data("r2".utf8))
        // Tear the last record.
        var bytes = try Data(contentsOf: url)
        bytes.removeLast(3)
        try bytes.write(to: url)
        let fresh = HistoryJournal(url: url, synchronizesAppends: false)
        let replay = try fresh.replay()
        #expect(replay.records.map(\.sequence) == [0, 1, 2])
        guard replay.ending.length != nil else {
            Issue.record("\(replay.ending)")
            return
        }
        #expect(try fresh.lastRecord(matchingFingerprint: "C") == nil)
        try fresh.append(Data("r3b".utf8), fingerprint: "C")
        let after = try fresh.replay()
        #expect(after.ending == .complete)
        #expect(after.records.map(\.sequence) == [0, 1, 2, 3])
        #expect(after.records.last?.payload == Data("r3b".utf8))
        // The first journal object, with its cache, sees the new file state.
        #expect(try journal.records().map(\.payload) == after.records.map(\.payload))
        // Two journal objects on one file: the first one's append follows the other's record (it
        // once appended at its stale offset, and both records were lost).
        try journal.append(Data("r4".utf8), fingerprint: nil)
        let final = try fresh.replay()
        #expect(final.records.map(\.sequence) == [0, 1, 2, 3, 4], "\(final.ending)")
        #expect(final.records.map(\.payload).suffix(2) == [Data("r3b".utf8), Data("r4".utf8)])
        #expect(final.ending == .complete)
        // And without a replay between: the other object appends, then the first.
        try fresh.append(Data("r5".utf8), fingerprint: nil)
        try journal.append(Data("r6".utf8), fingerprint: nil)
        #expect(try fresh.records().map(\.sequence) == [0, 1, 2, 3, 4, 5, 6])
    }

    @Test func journalCorruptMiddleAndGarbage() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("doc.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        for index in 0..<3 { try journal.append(Data(repeating: UInt8(index), count: 40), fingerprint: "F\(index)") }
        var bytes = try Data(contentsOf: url)
        let middle = bytes.count / 2
        bytes[middle] ^= 0xFF
        try bytes.write(to: url)
        let replay = try HistoryJournal(url: url).replay()
        #expect(replay.records.count < 3)
        if replay.ending == .complete { Issue.record("corruption not reported") }
        // Garbage file: notAJournal, left alone.
        let other = dir.appendingPathComponent("other.journal")
        try Data("hello, not a journal at all, definitely".utf8).write(to: other)
        let garbage = HistoryJournal(url: other)
        do {
            _ = try garbage.replay()
            Issue.record("garbage accepted")
        } catch {
            guard error.kind == .notAJournal else {
                Issue.record("\(error)")
                return
            }
        }
        do {
            try garbage.append(Data("x".utf8), fingerprint: nil)
            Issue.record("appended to garbage")
        } catch {}
        #expect(try Data(contentsOf: other) == Data("hello, not a journal at all, definitely".utf8))
        // Every truncation of a good journal replays without throwing.
        let good = dir.appendingPathComponent("good.journal")
        let goodJournal = HistoryJournal(url: good, synchronizesAppends: false)
        for index in 0..<3 { try goodJournal.append(Data(repeating: UInt8(index), count: 9), fingerprint: "F") }
        let all = try Data(contentsOf: good)
        // (A prefix within the header's sequence number once read as "not a journal".)
        for length in 0..<all.count {
            try all.prefix(length).write(to: good)
            do {
                let replay = try HistoryJournal(url: good).replay()
                #expect(replay.records.count <= 3)
            } catch {
                Issue.record("prefix \(length): \(error)")
            }
        }
    }

    @Test func journalLimitsAndTooLargeRecord() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("doc.journal")
        let journal = HistoryJournal(url: url, maximumRecords: 4, maximumBytes: 4096, synchronizesAppends: false)
        do {
            try journal.append(Data(count: 5000), fingerprint: nil)
            Issue.record("accepted")
        } catch {
            guard error.kind == .tooLarge else {
                Issue.record("\(error)")
                return
            }
        }
        for index in 0..<10 { try journal.append(Data("r\(index)".utf8), fingerprint: "F\(index)") }
        let records = try journal.records()
        #expect(records.count <= 4)
        #expect(records.last?.sequence == 9)
        #expect(try journal.lastRecord(matchingFingerprint: "F9")?.payload == Data("r9".utf8))
        try journal.reset()
        try journal.append(Data("new".utf8), fingerprint: nil)
        #expect(try journal.records().map(\.sequence) == [0])
    }

    @Test func damageBehindTheJournalsBackIsFoundAndOverwritten() throws {
        let url = hrTemporaryURL("damage.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        for index in 0..<4 { try journal.append(Data("record \(index)".utf8), fingerprint: "f\(index)") }
        var bytes = try Data(contentsOf: url)
        let size = bytes.count
        // A byte changed in the second record, keeping the size.
        let recordSize = (size - 16) / 4
        bytes[16 + recordSize + 26] ^= 0xFF
        try bytes.write(to: url)
        let replay = try journal.replay()
        #expect(replay.records.count == 1)
        if let offset = replay.ending.offset, let dropped = replay.ending.droppedBytes {
            #expect(offset == 16 + recordSize)
            #expect(dropped == size - offset)
        } else {
            Issue.record("\(replay.ending)")
        }
        try journal.append(Data("after damage".utf8), fingerprint: "g")
        let after = try journal.records()
        #expect(after.map(\.sequence) == [0, 1])
        #expect(after.last?.payload == Data("after damage".utf8))
        // Cut short behind its back, without a replay in between.
        try journal.append(Data("one more".utf8), fingerprint: "h")
        var cut = try Data(contentsOf: url)
        cut.removeLast(5)
        try cut.write(to: url)
        try journal.append(Data("after the cut".utf8), fingerprint: "i")
        #expect(
            try journal.records().map(\.payload) == [
                Data("record 0".utf8), Data("after damage".utf8), Data("after the cut".utf8),
            ])
        // Cut to less than its header.
        try Data(try Data(contentsOf: url).prefix(3)).write(to: url)
        try journal.append(Data("fresh".utf8), fingerprint: "j")
        #expect(try journal.records().map(\.payload) == [Data("fresh".utf8)])
        // Another journal appends: this one follows its records.
        let second = HistoryJournal(url: url, synchronizesAppends: false)
        try second.append(Data("from the second".utf8), fingerprint: "k")
        try journal.append(Data("from the first".utf8), fingerprint: "l")
        #expect(try journal.records().map(\.sequence) == [0, 1, 2])
        // Garbage appended behind its back: a torn end, overwritten.
        var garbage = try Data(contentsOf: url)
        garbage += Data(repeating: 0x41, count: 40)
        try garbage.write(to: url)
        try journal.append(Data("last".utf8), fingerprint: "m")
        let final = try journal.replay()
        #expect(final.ending == .complete)
        #expect(final.records.map(\.sequence) == [0, 1, 2, 3])
    }

    @Test func twoJournalsOnOneFileFromManyThreadsNeverInterleave() throws {
        let url = hrTemporaryURL("threads.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journals = [
            HistoryJournal(url: url, synchronizesAppends: false), HistoryJournal(url: url, synchronizesAppends: false),
        ]
        let failures = HRCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<25 {
                do {
                    try journals[thread % 2].append(
                        Data(repeating: UInt8(thread), count: 100 + index), fingerprint: "t\(thread)-\(index)")
                } catch {
                    failures.add()
                }
                if index % 10 == 0 { _ = try? journals[(thread + 1) % 2].replay() }
            }
        }
        #expect(failures.value == 0)
        let replay = try journals[0].replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.map(\.sequence) == Array(0..<200))
        #expect(Set(replay.records.compactMap(\.fingerprint)).count == 200)
        for record in replay.records {
            let thread = Int(record.fingerprint!.dropFirst().prefix { $0 != "-" })!
            #expect(record.payload.allSatisfy { $0 == UInt8(thread) })
        }
    }
}
