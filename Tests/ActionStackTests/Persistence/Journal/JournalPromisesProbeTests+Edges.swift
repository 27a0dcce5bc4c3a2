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

// Probes written from the documentation alone: a compaction by another journal of the same file, one
// journal used from many threads, a recorder of several stacks, a freed stack, and the errors of a
// record of what changed whose snapshot cannot be read.

@Suite struct JournalEdgeProbeTests {
    /// "Two journals on one file ... take turns: each append, compaction and reset holds the file's
    /// advisory lock", and a file "replaced by another journal (renamed over it)" is followed: one
    /// journal compacts, the other appends after the compacted records.
    @Test func anAppendAfterAnotherJournalCompactedTheFileFollowsTheCompactedRecords() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let first = files.journal()
        let second = files.journal()
        for index in 0..<6 { try first.append(Data("a\(index)".utf8), fingerprint: "a\(index)") }
        try second.append(Data("b0".utf8), fingerprint: "b0")
        try first.compact(keeping: 2)
        try second.append(Data("b1".utf8), fingerprint: "b1")
        try first.append(Data("a6".utf8), fingerprint: "a6")
        let replay = try files.journal().replay()
        #expect(replay.records.map(\.fingerprint) == ["a5", "b0", "b1", "a6"])
        #expect(replay.records.map(\.sequence) == [5, 6, 7, 8])
        #expect(replay.ending == .complete)
        // And a reset by one of them: the other's next record is number 0 of a new file.
        try second.reset()
        try first.append(Data("a7".utf8), fingerprint: "a7")
        #expect(try files.journal().records().map(\.sequence) == [0])
    }

    /// Two recorders on one file, one of which compacts the journal often (its records outweigh its
    /// snapshots): the other's records that follow a snapshot compacted away are followed by a new
    /// snapshot ("when the record before it is no longer in the journal (... compacted behind the
    /// journal's back)"), so each one's last record always recovers exactly.
    @Test func twoRecordersOneOfWhichCompactsBothRecoverTheirLastRecord() throws {
        let first = try JPRig(prefix: "A")
        defer { first.cleanUp() }
        let second = try JPRig(directory: first.directory, prefix: "B")
        first.recorder?._compactionFloor = 1_024
        first.stack.levelsOfUndo = 5
        var randomA = SeededGenerator(seed: 401)
        var randomB = SeededGenerator(seed: 402)
        // Each rig's last record is checked when its own change appended it: between, a compaction by the
        // other may have dropped the snapshot it follows ("A record that cannot be replayed (its
        // snapshot was compacted away by a program other than the recorder ...) throws").
        func check(_ rig: JPRig, _ round: Int) throws {
            guard let last = try rig.journal.records().last(where: { $0.fingerprint?.hasPrefix(rig.prefix) ?? false }),
                let fingerprint = last.fingerprint
            else { return }
            #expect(try rig.recovered(fingerprint) == rig.expected[fingerprint], "\(fingerprint) at round \(round)")
        }
        var checked = 0
        for round in 0..<120 {
            var before = first.recorder?.recordCount
            first.run { first.randomOperation(&randomA) }
            if first.recorder?.recordCount != before {
                try check(first, round)
                checked += 1
            }
            guard round % 2 == 0 else { continue }
            before = second.recorder?.recordCount
            second.run { second.randomOperation(&randomB) }
            if second.recorder?.recordCount != before {
                try check(second, round)
                checked += 1
            }
        }
        #expect(checked > 100)
        #expect(first.recorder?.lastError == nil && second.recorder?.lastError == nil)
    }

    /// "The journal's methods are safe to call from any thread (a lock orders them)": one journal,
    /// appends and replays from four tasks at once.
    @Test func oneJournalUsedFromManyThreadsAtOnceStaysWhole() async throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = files.journal()
        let count = 80
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in 0..<count {
                        try? journal.append(Data("w\(writer)-\(index)".utf8), fingerprint: "w\(writer)")
                        if index % 10 == 0 { _ = try? journal.replay() }
                    }
                }
            }
        }
        let replay = try journal.replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.map(\.sequence) == Array(0..<UInt64(4 * count)))
        for writer in 0..<4 {
            let mine = replay.records.filter { $0.fingerprint == "w\(writer)" }.map(\.payload)
            #expect(mine == (0..<count).map { Data("w\(writer)-\($0)".utf8) })
        }
    }

    /// A recorder of several stacks (``HistoryRecorder/init(journal:archive:)``): "appends a whole
    /// ``HistoryArchive`` at the end of every call on a watched stack, unless it repeats the last
    /// one appended", and each record recovers to the archive the app made then.
    @Test func aRecorderOfSeveralStacksRecoversEveryHistory() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = files.journal()
        let board = JPRig.plainStack()
        let figure = JPRig.plainStack()
        let boardBox = HSBox("board")
        let figureBox = HSBox("figure")
        var revision = 0
        func archive() throws -> HistoryArchive {
            HistoryArchive(
                fingerprint: "r\(revision)",
                histories: ["board": try board.savedHistory(), "figure.1": try figure.savedHistory()])
        }
        let recorder = HistoryRecorder(journal: journal, archive: archive)
        recorder.watch(board)
        recorder.watch(figure)
        recorder.watch(figure)
        var expected: [String: Data] = [:]
        var random = SeededGenerator(seed: 411)
        for _ in 0..<60 {
            revision += 1
            let (stack, box) = random.chance(50) ? (board, boardBox) : (figure, figureBox)
            switch random.next(4) {
            case 0: stack.undo()
            case 1: stack.redo()
            case 2: stack.markClean()
            default:
                HSSet(value: revision).perform(on: box, in: stack)
                stack.endEvent()
            }
            expected["r\(revision)"] = try jpEncoded(archive())
        }
        _ = stack(board, figure)
        let records = try journal.records()
        #expect(Set(records.compactMap(\.fingerprint)).count == records.count, "no record repeats the one before")
        for record in records {
            let fingerprint = try #require(record.fingerprint)
            let recovered = try HistoryRecorder.recover(
                from: journal, fingerprint: fingerprint, registry: testRegistry())
            #expect(try recovered.map(jpEncoded) == expected[fingerprint], "at \(fingerprint)")
        }
        #expect(recorder.lastError == nil)
        // Unwatched, a stack's changes are not recorded.
        recorder.unwatch(figure)
        let count = records.count
        HSSet(value: 1_000).perform(on: figureBox, in: figure)
        figure.endEvent()
        #expect(try journal.records().count == count)
    }

    /// "It holds the stacks weakly": a stack freed while watched leaves a recorder that records
    /// nothing and does not crash.
    @Test func aFreedStackLeavesARecorderThatRecordsNothing() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = files.journal()
        var stack: ActionStack? = JPRig.plainStack()
        let box = HSBox()
        let recorder = HistoryRecorder(journal: journal, stack: stack!) { "f" }
        HSSet(value: 1).perform(on: box, in: stack!)
        stack?.endEvent()
        #expect(recorder.recordCount == 1)
        weak let freed = stack
        stack = nil
        #expect(freed == nil, "the recorder does not keep the stack alive")
        #expect(recorder.record() == false)
        #expect(recorder.recordCount == 1)
    }

    /// ``HistoryArchiveError/tooLarge(_:maximum:)``: "The archive is over one of the limits it was
    /// read with", and the `limits` of ``HistoryRecorder/recover(from:fingerprint:registry:limits:)``
    /// are "The bounds each record must hold to". A record of what changed whose snapshot is over
    /// the limits should be refused as over the limits, as the snapshot itself is; it is reported
    /// instead as a damaged journal ("the record does not follow the records before it (its snapshot
    /// is gone or damaged)"), which an app cannot tell from real damage.
    @Test
    func aRecordWhoseSnapshotIsOverTheLimitsIsRefusedAsTooLarge() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        rig.run { rig.change() }
        rig.run { rig.change() }
        let records = try rig.journal.records()
        var limits = HistoryArchive.Limits()
        // Between the delta's size and the snapshot's.
        limits.maximumBytes = records[1].payload.count + 1
        #expect(records[0].payload.count > limits.maximumBytes)
        do {
            _ = try HistoryRecorder.recover(
                from: rig.journal, fingerprint: "f1", registry: testRegistry(), limits: limits)
        } catch let error as HistoryArchiveError {
            #expect(error.limit == .bytes, "the snapshot itself: \(error)")
        }
        do {
            _ = try HistoryRecorder.recover(
                from: rig.journal, fingerprint: "f2", registry: testRegistry(), limits: limits)
            Issue.record("recovered past the limits")
        } catch let error as HistoryArchiveError {
            #expect(error.limit == .bytes, "the record after it: \(error)")
        }
    }

    /// The record format (`JournalRecordFormat.swift`, which the article points to): "A record of a
    /// newer version than this library's is refused (`HistoryArchiveError.newerFormatVersion`), and
    /// so are the records of what changed that follow it." The record after a newer snapshot is
    /// refused, but as a damaged record, so an app opening a journal a newer version of itself
    /// wrote tells the user it is damaged.
    @Test
    func aRecordAfterANewerSnapshotIsRefusedAsNewer() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        rig.run { rig.change() }
        rig.run { rig.change() }
        let records = try rig.journal.records()
        let newer = String(decoding: records[0].payload, as: UTF8.self)
            .replacingOccurrences(of: #""version":1"#, with: #""version":2"#)
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = files.journal()
        try journal.append(Data(newer.utf8), fingerprint: "snapshot")
        try journal.append(records[1].payload, fingerprint: "delta")
        #expect(throws: HistoryArchiveError.newerFormatVersion(2, newestSupported: 1)) {
            try HistoryRecorder.recover(from: journal, fingerprint: "snapshot", registry: testRegistry())
        }
        #expect(throws: HistoryArchiveError.newerFormatVersion(2, newestSupported: 1)) {
            try HistoryRecorder.recover(from: journal, fingerprint: "delta", registry: testRegistry())
        }
    }
}

/// A command that cannot be encoded when its value is 13 (a command whose `encode(to:)` throws).
struct JPFragileSet: UndoCommand {
    static let commandType = "jp.fragile"
    var value: Int

    struct Unlucky: Error {}

    init(value: Int) { self.value = value }

    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
        if value == 13 { throw Unlucky() }
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    func perform(on box: HSBox, in stack: ActionStack) {
        stack.registerUndo(JPFragileSet(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

/// The shared test registry and the fragile command.
func jpRegistry() -> CommandRegistry {
    var registry = testRegistry()
    registry.register(JPFragileSet.self)
    return registry
}

extension JournalEdgeProbeTests {
    /// "A record that cannot be made or appended (a full disk, a command that cannot encode) changes
    /// nothing on any stack; the recorder keeps the error in ``HistoryRecorder/lastError``, passes it
    /// to ``HistoryRecorder/onError``, and tries again at the next change."
    @Test func aCommandThatCannotEncodeIsReportedAndTheRecorderGoesOn() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        var errors: [any Error] = []
        rig.recorder?.onError = { errors.append($0) }
        func fragile(_ value: Int) {
            rig.run {
                JPFragileSet(value: value).perform(on: rig.box, in: rig.stack)
                rig.stack.endEvent()
            }
        }
        fragile(1)
        fragile(2)
        #expect(errors.isEmpty)
        // The inverse registered now sets 13, which cannot encode.
        rig.box.value = 13
        fragile(3)
        #expect(errors.count == 1)
        #expect(rig.recorder?.lastError is JPFragileSet.Unlucky)
        #expect(rig.stack.undoCount == 3, "the stack is as if nothing failed")
        // A full save cannot be made while that step is held, and neither can a record.
        fragile(4)
        #expect(rig.expected[rig.fingerprint] == nil)
        #expect(errors.count == 2, "tried again at the next change")
        // Undone, the step holds its redo (which sets 3): the record can be made again.
        rig.run { rig.stack.undo() }
        rig.run { rig.stack.undo() }
        #expect(rig.box.value == 13)
        #expect(rig.recorder?.lastError == nil, "nil once a record is appended")
        let archive = try HistoryRecorder.recover(
            from: rig.journal, fingerprint: rig.fingerprint, registry: jpRegistry())
        #expect(try archive.map(jpEncoded) == rig.expected[rig.fingerprint])
    }

    /// The snapshot a recorder's records follow damaged behind its back (past the clock's tick):
    /// the next append overwrites it and everything after it, and the recorder's next record is a
    /// snapshot ("when the record before it is no longer in the journal"), with no replay between.
    @Test func aRecorderWhoseSnapshotWasDamagedStartsANewSnapshot() throws {
        let rig = try JPRig(shape: .tree)
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: 421)
        for _ in 0..<30 { rig.run { rig.randomOperation(&random) } }
        let records = try rig.journal.records()
        let snapshots = records.indices.filter {
            String(decoding: records[$0].payload, as: UTF8.self).contains(#""kind":"snapshot""#)
        }
        let damaged = try #require(snapshots.last)
        let offsets = jpOffsets(records)
        Thread.sleep(forTimeInterval: 0.05)
        let handle = try FileHandle(forUpdating: rig.journal.url)
        try handle.seek(toOffset: UInt64(offsets[damaged] + 40))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offsets[damaged] + 40))
        try handle.write(contentsOf: [byte ^ 0x20])
        try handle.close()
        for record in records[damaged...] { rig.lost.insert(record.fingerprint ?? "") }
        var changed = false
        while !changed {
            let before = rig.recorder?.recordCount
            rig.run { rig.change() }
            changed = rig.recorder?.recordCount != before
        }
        let after = try rig.journal.records()
        #expect(after.count == damaged + 1)
        let lastRecord = String(decoding: after.last?.payload ?? Data(), as: UTF8.self)
        #expect(lastRecord.contains(#""kind":"snapshot""#))
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
        for _ in 0..<10 { rig.run { rig.randomOperation(&random) } }
        #expect(try rig.mismatches() == [])
    }
}

extension JournalEdgeProbeTests {
    /// ``HistoryRecorder/record()``: "Makes a record now and appends it unless it repeats the last
    /// one: for a change the stacks do not see, such as a new fingerprint."
    @Test func recordAfterANewFingerprintMakesTheHistoryRecoverableUnderIt() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<4 { rig.run { rig.change() } }
        rig.run { rig.stack.undo() }
        // The document is written: its fingerprint changes, its history does not.
        rig.operation += 1
        rig.fingerprints.append(rig.fingerprint)
        rig.noteSave()
        #expect(try rig.recovered(rig.fingerprint) == nil)
        #expect(rig.recorder?.record() == true)
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
        #expect(rig.recorder?.record() == false, "a record that repeats the last one is not appended")
        #expect(try rig.mismatches() == [])
    }

    /// "a version newer than the registry knows cuts the history there, as an unknown type does":
    /// a recovery with a registry that lacks the command types is no error; the restore cuts.
    @Test func aRecoveryWithoutTheCommandTypesIsNoErrorAndTheRestoreCuts() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<3 { rig.run { rig.change() } }
        let archive = try #require(
            try HistoryRecorder.recover(from: rig.journal, fingerprint: rig.fingerprint, registry: CommandRegistry()))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        #expect(history.steps.count == 3)
        #expect(history.steps.allSatisfy { $0.actions.allSatisfy { $0.command == nil && $0.problem != nil } })
        let fresh = JPRig.plainStack()
        let report = try fresh.restoreHistory(history) { _ in rig.box }
        #expect(report.restoredSteps == 0)
        #expect(report.droppedSteps == 3)
    }

    /// "Replaying also deletes the temporary files that compactions interrupted by a crash left in
    /// the directory": only those. The app's other files beside the journal stay.
    @Test func aReplayLeavesTheOtherFilesOfTheDirectoryAlone() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = try files.filled(3)
        let others = [
            "doc.journal.bak", "doc.journal~", ".doc.journal", ".doc.journal.txt", "other.journal", "doc.history",
            ".doc.journal.partial", "notes.txt",
        ]
        for name in others { try Data("keep".utf8).write(to: files.directory.appendingPathComponent(name)) }
        _ = try journal.replay()
        try journal.compact(keeping: 2)
        try journal.append(Data("x".utf8), fingerprint: nil)
        _ = try HistoryFileStore(url: files.directory.appendingPathComponent("doc.history")).read()
        let left = try FileManager.default.contentsOfDirectory(atPath: files.directory.path).sorted()
        #expect(left == (others + ["doc.journal"]).sorted())
    }

    /// A journal whose path is a directory: "``HistoryFileError/cannotRead(path:reason:code:)``"
    /// or another ``HistoryFileError``, never a crash, and the directory is left alone.
    @Test func aJournalWhosePathIsADirectoryThrows() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        try FileManager.default.createDirectory(at: files.url, withIntermediateDirectories: true)
        let journal = files.journal()
        #expect(throws: HistoryFileError.self) { try journal.replay() }
        #expect(throws: HistoryFileError.self) { try journal.append(Data("x".utf8), fingerprint: nil) }
        #expect(throws: HistoryFileError.self) {
            try HistoryRecorder.recover(from: journal, fingerprint: "x", registry: testRegistry())
        }
        var isDirectory: ObjCBool = false
        #expect(
            FileManager.default.fileExists(atPath: files.url.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}

extension JPRig {
    /// A stack set up as the rigs' are, without a recorder.
    static func plainStack() -> ActionStack {
        let stack = ActionStack()
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        stack.misusePolicy = .report
        return stack
    }
}

/// Keeps two stacks alive to the end of a test.
private func stack(_ first: ActionStack, _ second: ActionStack) -> Int {
    withExtendedLifetime((first, second)) { 0 }
}
