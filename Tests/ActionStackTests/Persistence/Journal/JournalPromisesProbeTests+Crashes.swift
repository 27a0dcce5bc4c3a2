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

// Probes of the journal and the file store against writers killed at random points, written from
// the documentation alone. Each writer is a child process (an exit test) that kills itself with
// SIGKILL after a random delay while it records; the parent then reads what the child left.

/// The operations of a killed writer's run, the same in the child and in the parent that checks
/// it: a dated history (a manual clock), so that the parent's full saves are the child's.
func jpKilledRun(directory: URL, seed: UInt64, synchronizes: Bool, limit: Int, each: (JPRig) -> Void) throws {
    let rig = try JPRig(
        shape: seed.isMultiple(of: 2) ? .tree : .linear, synchronizesAppends: synchronizes,
        maximumBytes: 24 << 10, clock: ManualClock(), directory: directory)
    // Snapshots compact the journal at once (the test hook's floor), so that a kill can land in a
    // compaction too.
    rig.recorder?._compactionFloor = 2_048
    rig.stack.levelsOfUndo = 60
    var random = SeededGenerator(seed: seed)
    for _ in 0..<limit {
        rig.run { rig.randomOperation(&random) }
        each(rig)
    }
}

/// Kills this process with SIGKILL after `microseconds`, from another thread.
func jpKillAfter(microseconds: Int) {
    let thread = Thread {
        usleep(useconds_t(microseconds))
        kill(getpid(), SIGKILL)
    }
    thread.start()
}

@Suite struct JournalKilledWriterProbeTests {
    /// "a crash loses at most the change in progress, and a torn last record is ignored", and a
    /// recovery is "the history as a full save would have saved it at the last record": a writer
    /// killed at a random point leaves a journal whose every record recovers to the full save made
    /// at that record, and the last change recorded is at most one behind the last change made.
    @Test(arguments: [
        (UInt64(101), false, 30_000), (102, false, 120_000), (103, false, 250_000), (104, false, 8_000),
        (105, true, 60_000), (106, true, 200_000), (107, false, 400_000), (108, true, 400_000),
    ])
    func aWriterKilledAtARandomPointLeavesARecoverableJournal(seed: UInt64, synchronizes: Bool, delay: Int) async throws
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jp-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(atPath: directory.path + ".progress")
        }
        let path = directory.path
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [path = path as String, seed = seed as UInt64, synchronizes = synchronizes as Bool, delay = delay as Int] in
            jpKillAfter(microseconds: delay)
            // What the child has done, written after each operation beside the journal's directory,
            // in one write of 16 bytes at the start of the file (a kill cannot split it).
            let progress = open(path + ".progress", O_WRONLY | O_CREAT, 0o600)
            try jpKilledRun(
                directory: URL(fileURLWithPath: path), seed: seed, synchronizes: synchronizes, limit: 100_000
            ) {
                rig in
                let text = Array(rig.fingerprint.utf8) + [UInt8](repeating: 32, count: 16 - rig.fingerprint.utf8.count)
                _ = text.withUnsafeBytes { pwrite(progress, $0.baseAddress, 16, 0) }
            }
        }
        // The parent: the same run, with the full saves it makes.
        let check = FileManager.default.temporaryDirectory.appendingPathComponent("jp-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: check) }
        let done = (try? String(contentsOfFile: directory.path + ".progress", encoding: .utf8)) ?? "f0"
        let made = Int(done.trimmingCharacters(in: .whitespaces).dropFirst()) ?? 0
        var expected: [String: Data] = [:]
        try jpKilledRun(directory: check, seed: seed, synchronizes: false, limit: made + 1) { rig in
            expected[rig.fingerprint] = rig.expected[rig.fingerprint]
        }
        let journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
        let replay = try journal.replay()
        #expect(replay.ending.reason == nil, "a kill leaves no damaged record: \(replay.ending)")
        let archives = try HistoryRecorder.recordedArchives(in: journal, registry: testRegistry())
        var mismatches: [String] = []
        for (record, archive) in zip(replay.records, archives) {
            let fingerprint = record.fingerprint ?? "-"
            if try jpEncoded(archive) != expected[fingerprint] { mismatches.append(fingerprint) }
        }
        #expect(mismatches == [], "records that are not the full save made then")
        // At most the change in progress is lost: the operations made after the last record
        // changed no history (their full saves are the last record's).
        if let last = replay.records.last?.fingerprint.flatMap({ Int($0.dropFirst()) }) {
            #expect(last <= made + 1)
            let unrecorded = (last..<(made + 1)).filter { expected["f\($0)"] != expected["f\(last)"] }
            #expect(unrecorded == [], "operations made after the last record (f\(last)) that changed the history")
        }
        // "Replaying also deletes the temporary files that compactions interrupted by a crash left".
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left.filter { $0 != "doc.journal" } == [], "files left: \(left)")
        // (The journal's file may be there with no record: a kill between its creation and the
        // end of its first append leaves it empty or torn, which a replay reads as no record.)
        if !replay.records.isEmpty { #expect(left.contains("doc.journal")) }
        // The next append goes on after the last intact record.
        try journal.append(Data("after".utf8), fingerprint: "after")
        let after = try journal.replay()
        #expect(after.ending == .complete)
        #expect(after.records.count == replay.records.count + 1)
    }

    /// "Two journals on one file, in one process or in two, take turns": a child process and this
    /// one appending at once never interleave inside a record, and each one's records follow.
    @Test func aChildProcessAndThisOneAppendingAtOnceNeverInterleave() async throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let path = files.url.path
        let count = 250
        let url = files.url
        let parent = Thread {
            let journal = HistoryJournal(url: url, synchronizesAppends: false)
            // Wait for the child's first record, so that the two overlap.
            let deadline = Date().addingTimeInterval(20)
            while ((try? journal.records().count) ?? 0) == 0, Date() < deadline { usleep(500) }
            for index in 0..<count {
                try? journal.append(Data("parent-\(index)".utf8), fingerprint: "parent\(index)")
                usleep(150)
            }
        }
        parent.start()
        await #expect(processExitsWith: .success) { [path = path as String, count = count as Int] in
            let journal = HistoryJournal(url: URL(fileURLWithPath: path), synchronizesAppends: false)
            for index in 0..<count {
                try journal.append(Data("child-\(index)".utf8), fingerprint: "child\(index)")
                usleep(150)
            }
        }
        while !parent.isFinished { try await Task.sleep(for: .milliseconds(5)) }
        let replay = try files.journal().replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.count == 2 * count)
        #expect(replay.records.map(\.sequence) == Array(0..<UInt64(2 * count)))
        for writer in ["parent", "child"] {
            let mine = replay.records.filter { $0.fingerprint?.hasPrefix(writer) ?? false }
            #expect(mine.map(\.payload) == (0..<count).map { Data("\(writer)-\($0)".utf8) })
        }
    }

    /// ``HistoryFileStore``: "the file holds either its previous contents or the new ones, never a
    /// mix and never nothing, whenever the process is killed", and ``HistoryFileStore/read()``
    /// "deletes the temporary files that writes interrupted by a crash left in the directory".
    @Test(arguments: [5_000, 40_000, 90_000])
    func aFileStoreWriterKilledAtARandomPointLeavesOneWholeVersion(delay: Int) async throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let url = files.directory.appendingPathComponent("doc.history")
        let path = url.path
        try HistoryFileStore(url: url).write(Data(repeating: UInt8(ascii: "a"), count: 300_000))
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String, delay = delay as Int] in
            let store = HistoryFileStore(url: URL(fileURLWithPath: path))
            jpKillAfter(microseconds: delay)
            var round = 0
            while true {
                round += 1
                let letter = UInt8(ascii: "a") + UInt8(round % 26)
                try store.write(Data(repeating: letter, count: 300_000 + round * 1000))
            }
        }
        let read = try #require(try HistoryFileStore(url: url).read())
        let letter = read.first ?? 0
        let round = (read.count - 300_000) / 1000
        #expect(read.allSatisfy { $0 == letter }, "never a mix")
        #expect(read.count >= 300_000 && (read.count - 300_000) % 1000 == 0, "one whole version: \(read.count) bytes")
        #expect(letter == UInt8(ascii: "a") + UInt8(round % 26), "the letter of its round")
        let left = try FileManager.default.contentsOfDirectory(atPath: files.directory.path)
        #expect(left == ["doc.history"], "files left after a read: \(left)")
    }

    /// A hostile header: the format documents the header's "sequence number of the first record,
    /// `UInt64`", any value. ``HistoryJournal/append(_:fingerprint:)`` throws for a file it cannot
    /// use ("``HistoryFileError/notAJournal(path:reason:)`` when the file is something else ...
    /// After a failure the journal holds the records it held before"); it must not crash. A
    /// 16-byte file whose first sequence number is `UInt64.max` makes the append trap (the next
    /// number overflows). Run in a child process, so that the crash fails this test only.
    @Test
    func anAppendAfterTheLastSequenceNumberThrowsOrWrapsButNeverCrashes() async throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        try files.write(jpFileHeader(firstSequence: UInt64.max))
        let path = files.url.path
        await #expect(processExitsWith: .success) { [path = path as String] in
            let journal = HistoryJournal(url: URL(fileURLWithPath: path), synchronizesAppends: false)
            try? journal.append(Data("x".utf8), fingerprint: "x")
            try? journal.append(Data("y".utf8), fingerprint: "y")
        }
    }

    /// The same file with an intact record numbered `UInt64.max`: ``HistoryJournal/compact(keeping:)``
    /// ("Throws: As ``replay()``, and ``HistoryFileError/cannotWrite(path:reason:code:)``") traps.
    @Test
    func aCompactionOfARecordNumberedUInt64MaxNeverCrashes() async throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        try files.write(
            jpFileHeader(firstSequence: UInt64.max)
                + jpRecord(payload: Array("p".utf8), fingerprint: Array("f".utf8), sequence: UInt64.max))
        let path = files.url.path
        await #expect(processExitsWith: .success) { [path = path as String] in
            let journal = HistoryJournal(url: URL(fileURLWithPath: path), synchronizesAppends: false)
            _ = try? journal.replay()
            try? journal.compact(keeping: 5)
        }
    }

    /// The records the hostile header's journal holds are read without a crash, and an append after
    /// a record numbered `UInt64.max` does not crash either.
    @Test func aReplayOfRecordsNumberedUpToUInt64MaxNeverCrashes() async throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        try files.write(
            jpFileHeader(firstSequence: UInt64.max - 1)
                + jpRecord(payload: Array("p".utf8), fingerprint: Array("f".utf8), sequence: UInt64.max - 1)
                + jpRecord(payload: Array("q".utf8), fingerprint: Array("g".utf8), sequence: UInt64.max))
        let path = files.url.path
        await #expect(processExitsWith: .success) { [path = path as String] in
            let journal = HistoryJournal(url: URL(fileURLWithPath: path), synchronizesAppends: false)
            let replay = try journal.replay()
            #expect(replay.records.map(\.sequence) == [UInt64.max - 1, UInt64.max])
            _ = try? journal.lastRecord(matchingFingerprint: "g")
            try? journal.append(Data("x".utf8), fingerprint: "x")
            _ = try? journal.replay()
        }
    }
}
