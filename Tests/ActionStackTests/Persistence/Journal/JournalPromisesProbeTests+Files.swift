// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Probes of the journal's file written from the documentation alone: torn and damaged records, a
// file changed behind the journal's back, two journals on one file, hostile files and records.

/// A scratch directory with a journal file in it.
struct JPFiles {
    let directory: URL
    var url: URL { directory.appendingPathComponent("doc.journal") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("jp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func journal(maximumBytes: Int = HistoryJournal.defaultMaximumBytes) -> HistoryJournal {
        HistoryJournal(url: url, maximumBytes: maximumBytes, synchronizesAppends: false)
    }

    func bytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    func write(_ bytes: [UInt8]) throws { try Data(bytes).write(to: url) }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// Fills a journal with `count` records "payload-i" under fingerprint "p<i>".
    func filled(_ count: Int) throws -> HistoryJournal {
        let journal = journal()
        for index in 0..<count {
            try journal.append(
                Data("payload-\(index) \(String(repeating: "x", count: index * 7))".utf8), fingerprint: "p\(index)")
        }
        return journal
    }
}

/// Where each record starts in the file, as `JournalFormat.swift` documents the format: a 16-byte
/// header, then 28 + P + F bytes a record.
func jpOffsets(_ records: [JournalRecord]) -> [Int] {
    var offsets: [Int] = []
    var offset = 16
    for record in records {
        offsets.append(offset)
        offset += 28 + record.payload.count + (record.fingerprint?.utf8.count ?? 0)
    }
    return offsets
}

/// The common CRC-32 (IEEE 802.3, reflected, 0xEDB88320), as the format's documentation names it.
func jpCRC32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
    }
    return ~crc
}

func jpBigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// A record's bytes built by hand: any lengths, the header's checksum right or wrong.
func jpRecord(
    payload: [UInt8], fingerprint: [UInt8]?, sequence: UInt64, payloadLength: UInt32? = nil,
    fingerprintLength: UInt32? = nil, headerChecksumRight: Bool = true
) -> [UInt8] {
    var bytes: [UInt8] = Array("ASJR".utf8)
    bytes += jpBigEndian(payloadLength ?? UInt32(payload.count))
    bytes += jpBigEndian(fingerprintLength ?? fingerprint.map { UInt32($0.count) } ?? UInt32.max)
    bytes += jpBigEndian(sequence)
    bytes += jpBigEndian(jpCRC32(bytes) ^ (headerChecksumRight ? 0 : 1))
    bytes += payload
    bytes += fingerprint ?? []
    bytes += jpBigEndian(jpCRC32(bytes))
    return bytes
}

func jpFileHeader(version: UInt32 = 1, firstSequence: UInt64 = 0) -> [UInt8] {
    Array("ASHJ".utf8) + jpBigEndian(version) + jpBigEndian(firstSequence)
}

@Suite struct JournalFileProbeTests {
    // MARK: Torn last records

    /// "An append that a crash cuts short leaves a torn last record, which a replay detects and
    /// ignores (``Replay/Ending/tornRecord(offset:length:)``) and the next append overwrites."
    @Test func aLastRecordCutAtAnyByteIsIgnoredAndOverwritten() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let whole = try files.filled(6).records()
        let original = try files.bytes()
        let start = jpOffsets(whole).last!
        #expect(start + 28 + whole.last!.payload.count + 2 == original.count, "the documented format")
        for cut in start..<original.count {
            try files.write(Array(original[..<cut]))
            let reader = files.journal()
            let replay = try reader.replay()
            #expect(replay.records == Array(whole.prefix(5)), "cut at \(cut)")
            if cut == start {
                #expect(replay.ending == .complete)
            } else {
                #expect(replay.ending == .tornRecord(offset: start, length: cut - start), "cut at \(cut)")
            }
            #expect(try reader.lastRecord(matchingFingerprint: "p5") == nil)
            #expect(try reader.lastRecord(matchingFingerprint: "p4") == whole[4])
            // The next append overwrites the torn bytes.
            try files.journal().append(Data("next".utf8), fingerprint: "n")
            let after = try files.journal().replay()
            #expect(after.ending == .complete, "cut at \(cut)")
            #expect(after.records.map(\.sequence) == [0, 1, 2, 3, 4, 5], "cut at \(cut)")
            #expect(after.records.last?.payload == Data("next".utf8))
            #expect(try files.bytes().count == start + 28 + 4 + 1, "cut at \(cut): the torn bytes are overwritten")
        }
    }

    /// The format's documentation: a record is torn when "everything from it on is zero bytes
    /// (space that a system crash allotted but never wrote)".
    @Test func zeroBytesAfterTheLastRecordAreATornRecord() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let whole = try files.filled(4).records()
        let original = try files.bytes()
        let start = jpOffsets(whole).last!
        for zeros in [1, 27, 28, 100, 4096] {
            try files.write(original + [UInt8](repeating: 0, count: zeros))
            let replay = try files.journal().replay()
            #expect(replay.records == whole)
            #expect(replay.ending.length == zeros, "\(zeros) zero bytes: \(replay.ending)")
            #expect(replay.ending.reason == nil, "torn, not damaged: \(replay.ending)")
        }
        // The last record's bytes zeroed from its start on: torn. Zeroed from any later byte (a
        // record cut by a system crash inside a page): not in the documented rule, so torn or
        // damaged, but either way ignored and overwritten.
        for from in start..<original.count {
            var zeroed = original
            for index in from..<zeroed.count { zeroed[index] = 0 }
            try files.write(zeroed)
            let replay = try files.journal().replay()
            #expect(replay.records == Array(whole.prefix(3)), "zeroed from \(from)")
            #expect(replay.ending.offset == start, "zeroed from \(from)")
            if from == start {
                #expect(replay.ending == .tornRecord(offset: start, length: original.count - start))
            }
            try files.journal().append(Data("next".utf8), fingerprint: nil)
            #expect(try files.journal().replay().records.map(\.sequence) == [0, 1, 2, 3], "zeroed from \(from)")
        }
    }

    /// A file cut inside its header: "cut short | overwrites the torn record, or writes a new header".
    @Test func aHeaderCutShortIsRewritten() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        _ = try files.filled(1)
        let original = try files.bytes()
        for cut in 0..<16 {
            try files.write(Array(original[..<cut]))
            let replay = try files.journal().replay()
            #expect(replay.records.isEmpty, "cut at \(cut)")
            try files.journal().append(Data("again".utf8), fingerprint: "a")
            let after = try files.journal().replay()
            #expect(after.records.map(\.payload) == [Data("again".utf8)], "cut at \(cut)")
            #expect(after.ending == .complete)
        }
    }

    /// A recorder's journal cut inside its last record: "A torn last record (a crash in the middle
    /// of an append) is ignored", the recovery is the previous record's history, and "the next
    /// record appended after it is a snapshot" that recovers exactly.
    @Test func aRecorderJournalCutInItsLastRecordRecoversThePreviousRecord() throws {
        let rig = try JPRig(shape: .tree)
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: 51)
        for _ in 0..<25 { rig.run { rig.randomOperation(&random) } }
        rig.run { rig.change() }
        rig.run { rig.stack.undo() }
        let records = try rig.journal.records()
        let original = try [UInt8](Data(contentsOf: rig.journal.url))
        let start = jpOffsets(records).last!
        let last = try #require(records.last?.fingerprint)
        let previous = try #require(records.dropLast().last?.fingerprint)
        for cut in stride(from: start, to: original.count, by: 3) {
            try Data(original[..<cut]).write(to: rig.journal.url)
            #expect(try rig.recovered(last) == nil, "cut at \(cut)")
            #expect(try rig.recovered(previous) == rig.expected[previous], "cut at \(cut)")
        }
        // The recorder goes on after the cut.
        rig.lost.insert(last)
        rig.run { rig.stack.redo() }
        rig.run { rig.change() }
        #expect(try rig.mismatches() == [])
        #expect(rig.recorder?.lastError == nil)
    }

    // MARK: Damaged records

    /// "A damaged record before the end stops the replay there
    /// (``Replay/Ending/corruptRecord(offset:reason:droppedBytes:)``): the records after it cannot
    /// be trusted to follow it", and "The next append overwrites them", whichever byte is damaged.
    @Test func aDamagedByteInAMiddleRecordStopsTheReplayThere() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let whole = try files.filled(6).records()
        let original = try files.bytes()
        let offsets = jpOffsets(whole)
        let start = offsets[2]
        for index in start..<offsets[3] {
            var damaged = original
            damaged[index] ^= 0x5A
            try files.write(damaged)
            let replay = try files.journal().replay()
            #expect(replay.records == Array(whole.prefix(2)), "byte \(index)")
            #expect(replay.ending.offset == start, "byte \(index): \(replay.ending)")
            #expect(replay.ending.droppedBytes == original.count - start, "byte \(index): \(replay.ending)")
            #expect(replay.ending.reason != nil, "byte \(index): damaged, not torn: \(replay.ending)")
            try files.journal().append(Data("after".utf8), fingerprint: "a")
            let after = try files.journal().replay()
            #expect(after.records.map(\.sequence) == [0, 1, 2], "byte \(index)")
            #expect(after.records.last?.payload == Data("after".utf8))
            #expect(after.ending == .complete)
        }
    }

    /// A recorder whose journal is damaged in the middle: the recovery at a fingerprint before the
    /// damage still works, the ones after are gone, and the recorder goes on ("a record appended
    /// after damage overwrites the damage").
    @Test func aRecorderGoesOnAfterItsJournalIsDamagedInTheMiddle() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: 61)
        for _ in 0..<30 { rig.run { rig.randomOperation(&random) } }
        let records = try rig.journal.records()
        #expect(records.count > 10)
        let offsets = jpOffsets(records)
        var bytes = try [UInt8](Data(contentsOf: rig.journal.url))
        bytes[offsets[6] + 30] ^= 0x01
        // Past the file system's time-stamp tick, so that the journal can see the change.
        Thread.sleep(forTimeInterval: 0.05)
        try Data(bytes).write(to: rig.journal.url)
        let replay = try rig.journal.replay()
        #expect(replay.records.count == 6)
        #expect(replay.ending.offset == offsets[6])
        for record in records.dropFirst(6) { rig.lost.insert(record.fingerprint!) }
        let before = records[5].fingerprint!
        #expect(try rig.recovered(before) == rig.expected[before])
        for _ in 0..<15 { rig.run { rig.randomOperation(&random) } }
        #expect(try rig.mismatches() == [])
        #expect(try rig.journal.replay().ending == .complete)
    }

    // MARK: Changes behind the journal's back

    /// "damaged (a byte changed in a record) | overwrites the damaged record and everything after it"
    @Test func anAppendAfterABytePastTheClockTickWasChangedOverwritesTheDamage() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = try files.filled(6)
        let offsets = jpOffsets(try journal.records())
        var bytes = try files.bytes()
        bytes[offsets[2] + 25] ^= 0x10
        Thread.sleep(forTimeInterval: 0.05)
        // In place, keeping the file (the same inode), as a disk or another program would.
        let handle = try FileHandle(forWritingTo: files.url)
        try handle.seek(toOffset: UInt64(offsets[2] + 25))
        try handle.write(contentsOf: [bytes[offsets[2] + 25]])
        try handle.close()
        try journal.append(Data("after".utf8), fingerprint: "a")
        let replay = try files.journal().replay()
        #expect(replay.records.map(\.sequence) == [0, 1, 2])
        #expect(replay.records.last?.payload == Data("after".utf8))
        #expect(replay.ending == .complete)
    }

    /// "cut short | overwrites the torn record, or writes a new header"
    @Test func anAppendAfterTheFileWasCutShortGoesOnFromTheLastIntactRecord() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = try files.filled(6)
        let offsets = jpOffsets(try journal.records())
        let handle = try FileHandle(forWritingTo: files.url)
        try handle.truncate(atOffset: UInt64(offsets[4] + 9))
        try handle.close()
        try journal.append(Data("after".utf8), fingerprint: "a")
        let replay = try files.journal().replay()
        #expect(replay.records.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(replay.records.last?.payload == Data("after".utf8))
        #expect(replay.ending == .complete)
        // Cut inside the header: a new header.
        let second = try FileHandle(forWritingTo: files.url)
        try second.truncate(atOffset: 7)
        try second.close()
        try journal.append(Data("fresh".utf8), fingerprint: "f")
        let fresh = try files.journal().replay()
        #expect(fresh.records.map(\.payload) == [Data("fresh".utf8)])
        #expect(fresh.ending == .complete)
    }

    /// "replaced by another journal (renamed over it) | goes on after the new file's intact records"
    @Test func anAppendAfterTheFileWasReplacedByAnotherJournalFollowsItsRecords() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = try files.filled(5)
        let otherURL = files.directory.appendingPathComponent("other.journal")
        let other = HistoryJournal(url: otherURL, synchronizesAppends: false)
        for index in 0..<3 { try other.append(Data("other-\(index)".utf8), fingerprint: "o\(index)") }
        #expect(rename(otherURL.path, files.url.path) == 0)
        try journal.append(Data("after".utf8), fingerprint: "a")
        let replay = try files.journal().replay()
        #expect(
            replay.records.map { String(decoding: $0.payload, as: UTF8.self) } == [
                "other-0", "other-1", "other-2", "after",
            ])
        #expect(replay.records.map(\.sequence) == [0, 1, 2, 3])
        #expect(replay.ending == .complete)
    }

    /// "replaced by a file that is not a journal | throws ``HistoryFileError/notAJournal(path:reason:)``
    /// and leaves it as it is"
    @Test func anAppendAfterTheFileWasReplacedByANonJournalThrowsAndLeavesIt() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = try files.filled(3)
        let strangerURL = files.directory.appendingPathComponent("stranger")
        let stranger = Data("{\"not\": \"a journal\"}\n".utf8)
        try stranger.write(to: strangerURL)
        #expect(rename(strangerURL.path, files.url.path) == 0)
        #expect(throws: HistoryFileError.self) { try journal.append(Data("after".utf8), fingerprint: "a") }
        do {
            try journal.append(Data("after".utf8), fingerprint: "a")
        } catch {
            #expect(error.kind == .notAJournal)
        }
        #expect(try Data(contentsOf: files.url) == stranger)
        #expect(throws: HistoryFileError.self) { try journal.replay() }
        #expect(throws: HistoryFileError.self) { try files.journal().records() }
        #expect(throws: HistoryFileError.self) {
            try HistoryRecorder.recover(from: journal, fingerprint: "p1", registry: testRegistry())
        }
        #expect(try Data(contentsOf: files.url) == stranger)
        // reset() removes it.
        try journal.reset()
        try journal.append(Data("new".utf8), fingerprint: "n")
        #expect(try journal.records().map(\.sequence) == [0])
    }

    /// A recorder whose journal is replaced by a non-journal: "A record that cannot be written ...
    /// changes no stack: the recorder reports it".
    @Test func aRecorderWhoseJournalBecameANonJournalReportsAndChangesNoStack() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<3 { rig.run { rig.change() } }
        let stranger = Data("plain text".utf8)
        try stranger.write(to: rig.journal.url)
        rig.run { rig.change() }
        #expect((rig.recorder?.lastError as? HistoryFileError)?.kind == .notAJournal)
        #expect(rig.stack.undoCount == 4)
        #expect(try Data(contentsOf: rig.journal.url) == stranger, "left as it is")
        try rig.journal.reset()
        rig.run { rig.stack.undo() }
        #expect(rig.recorder?.lastError == nil)
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
    }

    /// "deleted | starts a new file at record 0, as after ``HistoryJournal/reset()``"
    @Test func anAppendAfterTheFileWasDeletedStartsANewFileAtRecordZero() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = try files.filled(4)
        try FileManager.default.removeItem(at: files.url)
        try journal.append(Data("after".utf8), fingerprint: "a")
        let replay = try files.journal().replay()
        #expect(replay.records.map(\.sequence) == [0])
        #expect(replay.records.first?.payload == Data("after".utf8))
    }

    /// A recorder's journal deleted behind its back: the next record is a snapshot that recovers
    /// exactly ("when the record before it is no longer in the journal").
    @Test func aRecorderWhoseJournalWasDeletedStartsOverWithASnapshot() throws {
        let rig = try JPRig(shape: .tree)
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: 71)
        for _ in 0..<20 { rig.run { rig.randomOperation(&random) } }
        try FileManager.default.removeItem(at: rig.journal.url)
        rig.run { rig.change() }
        rig.run { rig.stack.undo() }
        #expect(try rig.journal.records().map(\.sequence) == [0, 1])
        #expect(try rig.mismatches() == [])
    }

    /// "appended to by another journal or process | follows its records", with two recorders of two
    /// stacks appending alternately to one file: "Neither ever writes inside the other's record",
    /// and each history recovers exactly.
    @Test func twoRecordersOnOneFileAppendingInTurnBothRecoverExactly() throws {
        let first = try JPRig(prefix: "A")
        defer { first.cleanUp() }
        let second = try JPRig(directory: first.directory, prefix: "B")
        var randomA = SeededGenerator(seed: 81)
        var randomB = SeededGenerator(seed: 82)
        for round in 0..<80 {
            first.run { first.randomOperation(&randomA) }
            if round % 3 != 0 { second.run { second.randomOperation(&randomB) } }
        }
        let replay = try first.journal.replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.map(\.sequence) == Array(0..<UInt64(replay.records.count)))
        #expect(try first.mismatches() == [])
        #expect(try second.mismatches() == [])
        #expect(first.recorder?.lastError == nil && second.recorder?.lastError == nil)
        for rig in [first, second] {
            let last = rig.fingerprints.last!
            let recovered = try rig.recovered(last)
            if rig.expected[last] != nil, recovered != nil { #expect(recovered == rig.expected[last]) }
        }
    }

    /// "Two journals on one file, in one process or in two, take turns ... they never interleave
    /// inside a record": two threads appending at once.
    @Test func twoJournalsAppendingAtOnceFromTwoThreadsNeverInterleave() async throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let url = files.url
        let count = 150
        await withTaskGroup(of: Void.self) { group in
            for writer in ["left", "right"] {
                group.addTask {
                    let journal = HistoryJournal(url: url, synchronizesAppends: false)
                    for index in 0..<count {
                        let payload =
                            "\(writer)-\(index)-" + String(repeating: String(writer.prefix(1)), count: 200 + index)
                        try? journal.append(Data(payload.utf8), fingerprint: "\(writer)\(index)")
                    }
                }
            }
        }
        let replay = try files.journal().replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.count == 2 * count)
        #expect(replay.records.map(\.sequence) == Array(0..<UInt64(2 * count)))
        for writer in ["left", "right"] {
            let mine = replay.records.filter { $0.fingerprint?.hasPrefix(writer) ?? false }
            #expect(mine.map(\.fingerprint) == (0..<count).map { "\(writer)\($0)" })
            for (index, record) in mine.enumerated() {
                let payload = "\(writer)-\(index)-" + String(repeating: String(writer.prefix(1)), count: 200 + index)
                #expect(record.payload == Data(payload.utf8))
            }
        }
    }

    // MARK: Hostile files

    /// A file that does not start as a journal: "a file that is not a journal is refused
    /// (``HistoryFileError/notAJournal(path:reason:)``) and left as it is".
    static let strangers: [[UInt8]] = [
        Array("ASHX".utf8) + [0, 0, 0, 1] + [UInt8](repeating: 0, count: 8),
        Array("hello, world, this is text".utf8),
        [UInt8](repeating: 0xFF, count: 64),
    ]

    @Test(arguments: strangers)
    func aFileWithTheWrongMagicIsNotAJournal(bytes: [UInt8]) throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        try files.write(bytes)
        let journal = files.journal()
        #expect(throws: HistoryFileError.self) { try journal.replay() }
        #expect(throws: HistoryFileError.self) { try journal.append(Data("x".utf8), fingerprint: nil) }
        #expect(throws: HistoryFileError.self) { try journal.lastRecord(matchingFingerprint: "x") }
        #expect(throws: HistoryFileError.self) { try journal.compact(keeping: 1) }
        #expect(try files.bytes() == bytes, "left as it is")
        do {
            _ = try journal.replay()
        } catch {
            #expect(error.kind == .notAJournal)
        }
    }

    /// A journal of a newer format version: ``HistoryFileError/notAJournal(path:reason:)`` ("another
    /// file, or a journal in a newer format. The journal leaves it alone").
    @Test func aJournalOfANewerFormatVersionIsRefusedAndLeftAlone() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let bytes =
            jpFileHeader(version: 2)
            + jpRecord(payload: Array("p".utf8), fingerprint: Array("f".utf8), sequence: 0)
        try files.write(bytes)
        let journal = files.journal()
        do {
            _ = try journal.replay()
            Issue.record("a newer version was read")
        } catch {
            #expect(error.kind == .notAJournal)
        }
        #expect(throws: HistoryFileError.self) { try journal.append(Data("x".utf8), fingerprint: nil) }
        #expect(try files.bytes() == bytes)
    }

    /// A record whose header says it is gigabytes long (its header checksum right): read as a
    /// torn record without allocating it, and overwritten by the next append.
    static let hugeLengths: [(payload: UInt32, fingerprint: UInt32)] = [
        (0xFFFF_FFF0, 2), (16, 0xFFFF_FFF0), (0x7FFF_FFFF, 0x7FFF_FFFF), (0xFFFF_FFFF, 0xFFFF_FFFE),
    ]

    @Test(arguments: hugeLengths)
    func aRecordWithHugeLengthsIsTornNotAllocated(payloadLength: UInt32, fingerprintLength: UInt32) throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let whole = try files.filled(3).records()
        let original = try files.bytes()
        let hostile = jpRecord(
            payload: [UInt8](repeating: 7, count: 16), fingerprint: [1, 2], sequence: 3, payloadLength: payloadLength,
            fingerprintLength: fingerprintLength)
        try files.write(original + hostile)
        let replay = try files.journal().replay()
        #expect(replay.records == whole)
        #expect(replay.ending.offset == original.count, "\(replay.ending)")
        try files.journal().append(Data("after".utf8), fingerprint: "a")
        let after = try files.journal().replay()
        #expect(after.records.map(\.sequence) == [0, 1, 2, 3])
        #expect(after.ending == .complete)
    }

    /// A record with huge lengths followed by more bytes, its header checksum wrong: damaged, and no
    /// allocation or crash.
    @Test func aRecordWithHugeLengthsAndAWrongChecksumStopsTheReplay() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let whole = try files.filled(3).records()
        let original = try files.bytes()
        let hostile = jpRecord(
            payload: [UInt8](repeating: 7, count: 16), fingerprint: nil, sequence: 3, payloadLength: 0xFFFF_FFFF,
            headerChecksumRight: false)
        try files.write(original + hostile + jpRecord(payload: [1], fingerprint: nil, sequence: 4))
        let replay = try files.journal().replay()
        #expect(replay.records == whole)
        #expect(replay.ending.offset == original.count, "\(replay.ending)")
    }

    /// A file larger than ``HistoryJournal/maximumBytes``: "``HistoryFileError/tooLarge(path:size:limit:)``
    /// when the file is larger than ``maximumBytes`` (nothing is read)".
    @Test func aFileOverTheLimitIsRefusedUnread() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        _ = try files.filled(20)
        let bytes = try files.bytes()
        let small = files.journal(maximumBytes: 256)
        do {
            _ = try small.replay()
            Issue.record("a file over the limit was read")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.size == bytes.count)
            #expect(error.limit == 256)
        }
        #expect(try files.bytes() == bytes)
    }
}
