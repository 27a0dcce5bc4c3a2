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

// Probes written from the documentation alone: rarer changes a recorder must record exactly (costs
// and their limit, branch limits, a clock set back, undo with registration disabled, user info,
// nested and empty groups, an observer's clean mark), the journal's own limits, permissions and
// fingerprints, and the file store's limits.

extension JPRig {
    /// A random operation among the rarer ones the documentation names.
    func rareOperation(_ random: inout SeededGenerator, clock: ManualClock, autosave: inout Bool) {
        let tree = stack.historyShape == .tree
        switch random.next(tree ? 17 : 15) {
        case 0, 1:
            HSCostly(value: value(), cost: random.int(1...60)).perform(on: box, in: stack)
            stack.setActionName("Costly")
            stack.endEvent()
        case 2: stack.maximumCost = [0, 0, 90, 200][random.next(4)]
        case 3:
            // An undo while registration is disabled builds nothing on the redo side.
            stack.disableUndoRegistration()
            stack.undo()
            stack.enableUndoRegistration()
        case 4:
            HSSet(value: value()).perform(on: box, in: stack)
            stack.setActionName("Info")
            stack.setActionUserInfoValue("text \(nextValue) \"quoted\" é", forKey: "s")
            stack.setActionUserInfoValue(0.1 * Double(nextValue), forKey: "d")
            stack.setActionUserInfoValue(nextValue, forKey: "i")
            stack.setActionUserInfoValue(Date(timeIntervalSinceReferenceDate: 1.5), forKey: "date")
            stack.setActionUserInfoValue(Data([1, 2, 3]), forKey: "data")
            stack.setActionUserInfoValue(Double.nan, forKey: "nan")
            stack.setActionUserInfoValue(true, forKey: "b")
            stack.endEvent()
        case 5:
            stack.beginUndoGrouping()
            HSSet(value: value()).perform(on: box, in: stack)
            stack.beginUndoGrouping()
            HSSet(value: value()).perform(on: livePen(), in: stack)
            stack.endUndoGrouping()
            stack.setActionName("Nested")
            stack.endUndoGrouping()
            stack.endEvent()
        case 6:
            stack.beginUndoGrouping()
            stack.endUndoGrouping()
            stack.endEvent()
        case 7: autosave.toggle()
        case 8:
            clock.advance(seconds: random.chance(50) ? 0.2 : 5)
            stack.registerUndo(
                HSSet(value: box.value), on: box, key: box.id, options: .coalescing("typing", within: .seconds(1)))
            box.value = value()
            stack.setActionName("Typing")
            stack.endEvent()
        case 9: stack.undo()
        case 10: stack.redo()
        case 11: stack.levelsOfUndo = [0, 0, 4, 7][random.next(4)]
        case 12: stack.jump(to: random.int(0...(stack.undoCount + stack.redoCount)))
        case 13:
            stack.removeAllActions(withTarget: box)
            change()
        case 14: change()
        case 15:
            // A clock set behind the dates held: "a snapshot".
            clock.advance(seconds: -Double(random.int(1...500)))
            change()
        default: stack.maximumBranchSteps = [0, 0, 6, 12][random.next(4)]
        }
    }
}

@Suite struct JournalRarerChangesAndLimitsProbeTests {
    /// "after every call that changes a stack's history (a closed step, an undo, a redo, a jump, a
    /// clean mark, a removal, a trim) it appends a record", and the recovery is "exactly as a full
    /// save would have saved it then", with costs, dates, user info and an observer's clean mark
    /// ("what an observer changes in its turn (an autosave's ``ActionStack/markClean()``) is in
    /// the same record").
    @Test(arguments: [301, 302, 303, 304, 305, 306] as [UInt64])
    func recoveryEqualsTheFullSaveAfterRarerChanges(seed: UInt64) throws {
        let clock = ManualClock()
        let rig = try JPRig(shape: seed.isMultiple(of: 2) ? .tree : .linear, clock: clock)
        defer { rig.cleanUp() }
        var autosave = false
        final class Flag { var on = false }
        let flag = Flag()
        let token = rig.stack.observe { [weak stack = rig.stack] _ in
            if flag.on, let stack, !stack.isClean { stack.markClean() }
        }
        var random = SeededGenerator(seed: seed)
        for _ in 0..<140 {
            rig.run {
                rig.rareOperation(&random, clock: clock, autosave: &autosave)
                flag.on = autosave
            }
        }
        let mismatches = try rig.mismatches()
        #expect(mismatches == [], "\(mismatches.count) mismatches, the first: \(mismatches.first ?? "")")
        #expect(rig.recorder?.lastError == nil)
        withExtendedLifetime(token) {}
    }

    /// "A recorder also writes a snapshot before the journal's own limits
    /// (``HistoryJournal/maximumRecords``, half of ``HistoryJournal/maximumBytes``) would drop the
    /// one its records follow": with tight limits, every record the journal keeps still recovers.
    @Test(arguments: [(8, 1 << 20), (1_000, 6_000), (3, 4_000)])
    func tightJournalLimitsNeverLeaveARecordWithoutItsSnapshot(maximumRecords: Int, maximumBytes: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jp-\(UUID().uuidString)")
        let rig = try JPRig(directory: directory, records: false)
        defer { rig.cleanUp() }
        let journal = HistoryJournal(
            url: directory.appendingPathComponent("limited.journal"), maximumRecords: maximumRecords,
            maximumBytes: maximumBytes, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: rig.stack) { rig.fingerprint }
        rig.stack.levelsOfUndo = 12
        var random = SeededGenerator(seed: 311)
        for _ in 0..<150 {
            rig.run { rig.randomOperation(&random) }
            let records = try journal.records()
            #expect(records.count <= maximumRecords)
            #expect(((try? jpFileSize(journal.url)) ?? 0) <= maximumBytes)
            // The last record recovers (``HistoryRecorder/recordedArchives(in:registry:limits:)`` may
            // throw at older records of what changed whose snapshot the journal's limits dropped, as
            // its documentation says).
            if let fingerprint = records.last?.fingerprint {
                let archive = try HistoryRecorder.recover(
                    from: journal, fingerprint: fingerprint, registry: testRegistry())
                #expect(try archive.map(jpEncoded) == rig.expected[fingerprint], "at \(rig.fingerprint)")
            }
        }
        #expect(recorder.lastError == nil)
    }

    /// ``JournalRecord/sequence``: "Compaction drops the oldest records and keeps the numbers of
    /// the others", and ``HistoryJournal/compact(keeping:)`` "drops the rest, a torn or damaged end
    /// included".
    @Test func compactionKeepsTheNumbersAndDropsADamagedEnd() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = files.journal()
        for index in 0..<10 { try journal.append(Data("r\(index)".utf8), fingerprint: "p\(index)") }
        try journal.compact(keeping: 4)
        #expect(try journal.records().map(\.sequence) == [6, 7, 8, 9])
        try journal.append(Data("next".utf8), fingerprint: "n")
        #expect(try journal.records().map(\.sequence) == [6, 7, 8, 9, 10])
        // A damaged end, then a compaction.
        var bytes = try files.bytes()
        bytes[bytes.count - 3] ^= 0xFF
        try files.write(bytes + [1, 2, 3])
        try files.journal().compact(keeping: 100)
        let replay = try files.journal().replay()
        #expect(replay.records.map(\.sequence) == [6, 7, 8, 9])
        #expect(replay.ending == .complete)
        try files.journal().compact(keeping: 0)
        #expect(try files.journal().records().isEmpty)
        // "A journal without a file stays without one."
        let missing = HistoryJournal(url: files.directory.appendingPathComponent("none"))
        try missing.compact(keeping: 3)
        #expect(!FileManager.default.fileExists(atPath: missing.url.path))
        try missing.reset()
    }

    /// ``HistoryJournal/maximumRecords``: "An append that would pass either first compacts the
    /// journal to the newest records that fit in half of each limit".
    @Test func anAppendPastTheLimitsCompactsToTheNewestRecords() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = HistoryJournal(url: files.url, maximumRecords: 10, synchronizesAppends: false)
        for index in 0..<57 {
            try journal.append(Data("r\(index)".utf8), fingerprint: "p\(index)")
            let records = try journal.records()
            #expect(records.count <= 10)
            #expect(records.last?.sequence == UInt64(index))
            #expect(records.map(\.sequence) == Array((records.first?.sequence ?? 0)...UInt64(index)))
        }
    }

    /// ``HistoryJournal/append(_:fingerprint:)``: "tooLarge ... when the record alone, with the
    /// file's header, is larger than ``maximumBytes``", and "After a failure the journal holds the
    /// records it held before."
    @Test func aRecordLargerThanTheLimitIsRefusedAndNothingChanges() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = HistoryJournal(url: files.url, maximumBytes: 200, synchronizesAppends: false)
        try journal.append(Data(repeating: 1, count: 10), fingerprint: "a")
        let before = try files.bytes()
        // 16 + 28 + P + F: P = 155 with a one-byte fingerprint is 200 bytes, just fits.
        try journal.append(Data(repeating: 2, count: 155), fingerprint: "b")
        #expect(try journal.records().map(\.fingerprint) == ["b"], "compacted to make room")
        do {
            try journal.append(Data(repeating: 3, count: 156), fingerprint: "c")
            Issue.record("a record over the limit was appended")
        } catch {
            #expect(error.kind == .tooLarge)
        }
        #expect(try journal.records().map(\.fingerprint) == ["b"])
        _ = before
    }

    /// "The journal creates its files readable by their owner only", after a compaction's rewrite
    /// too; and the file store's files ("The store creates its files readable by their owner only").
    @Test func journalAndStoreFilesAreReadableByTheirOwnerOnly() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let saved = umask(0o022)
        defer { umask(saved) }
        let journal = files.journal()
        try journal.append(Data("secret".utf8), fingerprint: "a")
        #expect(try jpPermissions(files.url) == 0o600)
        try journal.append(Data("more".utf8), fingerprint: "b")
        try journal.compact(keeping: 1)
        #expect(try jpPermissions(files.url) == 0o600, "after a compaction")
        let small = HistoryJournal(url: files.url, maximumRecords: 2, synchronizesAppends: false)
        for index in 0..<5 { try small.append(Data("r\(index)".utf8), fingerprint: nil) }
        #expect(try jpPermissions(files.url) == 0o600, "after an append that compacted")
        let store = HistoryFileStore(url: files.directory.appendingPathComponent("doc.history"))
        try store.write(Data("history".utf8))
        #expect(try jpPermissions(store.url) == 0o600)
        try store.write(Data("history again".utf8))
        #expect(try jpPermissions(store.url) == 0o600)
    }

    /// ``HistoryJournal/lastRecord(matchingFingerprint:)``: "byte for byte in UTF-8"; a record
    /// without a fingerprint matches none.
    @Test func fingerprintsMatchByteForByte() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = files.journal()
        try journal.append(Data("composed".utf8), fingerprint: "caf\u{E9}")
        try journal.append(Data("decomposed".utf8), fingerprint: "cafe\u{301}")
        try journal.append(Data("none".utf8), fingerprint: nil)
        try journal.append(Data("empty".utf8), fingerprint: "")
        #expect(try journal.lastRecord(matchingFingerprint: "caf\u{E9}")?.payload == Data("composed".utf8))
        #expect(try journal.lastRecord(matchingFingerprint: "cafe\u{301}")?.payload == Data("decomposed".utf8))
        #expect(try journal.lastRecord(matchingFingerprint: "")?.payload == Data("empty".utf8))
        let records = try journal.records()
        #expect(records.map(\.fingerprint) == ["caf\u{E9}", "cafe\u{301}", nil, ""])
    }

    /// "The recorder appends nothing until a watched history changes, so the app may recover
    /// before or after creating it."
    @Test func aRecorderCreatedBeforeTheRecoveryAppendsNothingUntilAChange() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: 321)
        for _ in 0..<20 { rig.run { rig.randomOperation(&random) } }
        let last = try #require(try rig.journal.records().last?.fingerprint)
        let bytes = try Data(contentsOf: rig.journal.url)
        // The relaunch: a new stack and recorder first, then queries, then the recovery.
        let stack = ActionStack()
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        let recorder = HistoryRecorder(journal: rig.journal, stack: stack) { "relaunched" }
        _ = stack.canUndo
        _ = stack.undoMenuItemTitle
        stack.endEvent()
        let archive = try #require(
            try HistoryRecorder.recover(from: rig.journal, fingerprint: last, registry: testRegistry()))
        #expect(try Data(contentsOf: rig.journal.url) == bytes, "nothing appended")
        #expect(recorder.recordCount == 0)
        #expect(try jpEncoded(archive) == rig.expected[last])
    }

    /// ``HistoryFileStore/read()``: "refusing a file larger than ``maximumSize`` before it
    /// allocates anything"; ``HistoryFileStore/write(_:)``: tooLarge "when `data` is larger than
    /// ``maximumSize``", and "If any step fails ... the file is as it was".
    @Test func theFileStoreHoldsToItsLimit() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let url = files.directory.appendingPathComponent("doc.history")
        let store = HistoryFileStore(url: url, maximumSize: 100)
        try store.write(Data(repeating: 1, count: 100))
        do {
            try store.write(Data(repeating: 2, count: 101))
            Issue.record("a write over the limit")
        } catch {
            #expect(error.kind == .tooLarge)
        }
        #expect(try store.read() == Data(repeating: 1, count: 100))
        try Data(repeating: 3, count: 5_000).write(to: url)
        do {
            _ = try store.read()
            Issue.record("a read over the limit")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.size == 5_000)
        }
        #expect(try HistoryFileStore(url: files.directory.appendingPathComponent("none")).read() == nil)
        do {
            _ = try HistoryFileStore(url: files.directory).read()
            Issue.record("a directory was read")
        } catch {
            #expect(error.kind == .cannotRead)
        }
        let missing = HistoryFileStore(url: files.directory.appendingPathComponent("no/such/dir/doc.history"))
        do {
            try missing.write(Data("x".utf8))
            Issue.record("a write into a missing directory")
        } catch {
            #expect(error.kind == .cannotWrite)
        }
        try store.remove()
        try store.remove()
        #expect(try store.read() == nil)
    }
}

func jpPermissions(_ url: URL) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
}
