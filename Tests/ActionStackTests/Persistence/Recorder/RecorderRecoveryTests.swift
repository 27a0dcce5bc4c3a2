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
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(Glibc)
    import Glibc
#endif

// Recovering the history from the journal after a crash: the last record of the fingerprint, damaged
// and foreign files, and a recorder that goes on appending after a reset or a damaged record.

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct RecorderRecoveryTests {
    /// After a relaunch the app sets up its stack and recorder, then recovers: the recorder records
    /// nothing until a change, so recover() still finds the three steps (it once recorded the empty
    /// history at once, under the fingerprint of the document opened).
    @Test func recoveryAfterTheNewRecorderIsCreatedStillFindsTheHistory() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        do {
            let box = HSBox()
            let stack = makeStack()
            let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
            for value in 1...3 { hsChange(box, to: value, on: stack) }
            #expect(recorder.recordCount == 3)
        }
        // Relaunch: the document on disk says 3.
        let reopened = HSBox(value: 3)
        let journal = HistoryJournal(url: files.journal.url, synchronizesAppends: false)
        let fresh = makeStack()
        let recorder = HistoryRecorder(journal: journal, stack: fresh) { "v\(reopened.value)" }
        _ = fresh.canUndo  // a query (a menu's validation) records nothing either
        let archive = try HistoryRecorder.recover(from: journal, fingerprint: "v3", registry: testRegistry())
        #expect(
            archive?.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 3,
            "the three steps come back")
        withExtendedLifetime(recorder) {}
    }

    /// After the journal is started over (reset, after a full save), record() appends the history
    /// as it is: the journal is empty, so the record repeats nothing in it.
    @Test func recordAfterAResetAppendsTheCurrentHistory() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        try files.journal.reset()
        let appended = recorder.record()
        let count = try files.journal.records().count
        #expect(appended, "the journal is empty; the record repeats nothing")
        #expect(count == 1)
    }

    /// A damaged record in the middle, while the recorder is running: the next append overwrites
    /// the damaged record and everything after it, as the docs say. (It once appended after the
    /// damage, where no replay could reach it: the journal trusted what it knew of the file.)
    @Test func aDamagedRecordIsOverwrittenByTheNextAppend() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 3)
        // Damage one byte in the middle of the file.
        var data = try Data(contentsOf: files.journal.url)
        let middle = data.count / 2
        data[middle] ^= 0xFF
        try data.write(to: files.journal.url)
        let replay = try files.journal.replay()
        guard replay.ending.reason != nil else {
            Issue.record("expected a damaged record, got \(replay.ending)")
            return
        }
        hsChange(box, to: 4, on: stack)
        #expect(recorder.lastError == nil)
        let after = try files.journal.replay()
        let recovered = try HistoryRecorder.recover(from: files.journal, fingerprint: "v4", registry: testRegistry())
        #expect(after.ending == .complete, "the damaged record was overwritten: \(after.ending)")
        #expect(after.records.last?.fingerprint == "v4")
        #expect(recovered != nil, "the newest change can be recovered")
    }

    /// The same damage with no replay between it and the next change: the recorder's append notices
    /// the file changed (its time stamps) and overwrites the damaged record all the same.
    @Test func aDamagedRecordIsOverwrittenByTheNextAppendWithoutAReplay() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 3)
        let size = try Data(contentsOf: files.journal.url).count
        try changeBehindItsBack(files.journal.url) { try flipByte($0, at: size / 2) }
        hsChange(box, to: 4, on: stack)
        #expect(recorder.lastError == nil)
        let after = try files.journal.replay()
        #expect(after.ending == .complete, "the damaged record was overwritten: \(after.ending)")
        #expect(after.records.last?.fingerprint == "v4")
        let recovered = try HistoryRecorder.recover(from: files.journal, fingerprint: "v4", registry: testRegistry())
        #expect(recovered?.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 4)
    }

    /// Control for the tests above: a journal that has not cached the file does overwrite the damage.
    @Test func aDamagedRecordIsOverwrittenByAFreshJournalsAppend() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 3)
        var data = try Data(contentsOf: files.journal.url)
        data[data.count / 2] ^= 0xFF
        try data.write(to: files.journal.url)
        let fresh = HistoryJournal(url: files.journal.url, synchronizesAppends: false)
        try fresh.append(Data("x".utf8), fingerprint: "v4")
        let after = try fresh.replay()
        #expect(after.ending == .complete)
        #expect(after.records.last?.fingerprint == "v4")
    }

    /// Recovery from a damaged journal returns the last intact matching record before the damage,
    /// and from a file that is not a journal throws a HistoryFileError.
    @Test func recoverFromDamagedAndForeignFiles() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 3)
        var data = try Data(contentsOf: files.journal.url)
        data[data.count - 40] ^= 0xFF  // inside the last record
        try data.write(to: files.journal.url)
        let fresh = HistoryJournal(url: files.journal.url)
        let archive = try HistoryRecorder.recover(from: fresh, fingerprint: "v2", registry: testRegistry())
        #expect(archive?.histories[HistoryRecorder.defaultHistoryName]?.current == 2)
        #expect(try HistoryRecorder.recover(from: fresh, fingerprint: "v3", registry: testRegistry()) == nil)
        try Data("not a journal at all, just text".utf8).write(to: files.journal.url)
        #expect(throws: HistoryFileError.self) {
            _ = try HistoryRecorder.recover(
                from: HistoryJournal(url: files.journal.url), fingerprint: "v3", registry: testRegistry())
        }
        // A payload that is intact in the journal but not an archive: a HistoryArchiveError.
        try FileManager.default.removeItem(at: files.journal.url)
        let raw = HistoryJournal(url: files.journal.url, synchronizesAppends: false)
        try raw.append(Data("{}".utf8), fingerprint: "v9")
        #expect(throws: HistoryArchiveError.self) {
            _ = try HistoryRecorder.recover(from: raw, fingerprint: "v9", registry: testRegistry())
        }
    }

    @Test func recoveryPicksTheLastRecordOfTheFingerprint() throws {
        let url = hrTemporaryURL("recover.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(doc.value)" }
        for value in 1...4 { hrChange(doc, to: value, on: stack) }
        stack.undo()
        stack.undo()  // v2, with two redo steps: recorded under "v2" twice
        stack.redo()
        #expect(recorder.recordCount == 7)
        let archive = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: "v2", registry: testRegistry()))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        #expect(history.current == 2)
        #expect(history.steps.count == 4)
        #expect(try HistoryRecorder.recover(from: journal, fingerprint: "v9", registry: testRegistry()) == nil)
        let fresh = hrStack()
        let copy = HRDoc("doc", 2)
        try fresh.restoreHistory(history) { _ in copy }
        fresh.redo()
        fresh.redo()
        #expect(copy.value == 4)
    }

    @Test func fingerprintsAreComparedAsTheAppGaveThem() throws {
        // A fingerprint is "the app's hash or revision of the document". Two fingerprints that
        // differ in their bytes are two documents; a record of one is not the history of the other.
        let url = hrTemporaryURL("fingerprint.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        try journal.append(Data("nfc".utf8), fingerprint: "caf\u{E9}")
        let found = try journal.lastRecord(matchingFingerprint: "cafe\u{301}")
        #expect(found == nil)
        #expect(try journal.lastRecord(matchingFingerprint: "caf\u{E9}")?.payload == Data("nfc".utf8))
    }

    @Test func compactionKeepsTheNewestAndRecoveryStillWorks() throws {
        let url = hrTemporaryURL("compact.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, maximumRecords: 4, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(doc.value)" }
        for value in 1...10 { hrChange(doc, to: value, on: stack) }
        #expect(recorder.recordCount == 10)
        let records = try journal.records()
        #expect(records.count <= 4)
        #expect(records.last?.sequence == 9)
        #expect(records.map(\.sequence) == Array((10 - UInt64(records.count))..<10))
        let archive = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: "v10", registry: testRegistry()))
        #expect(archive.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 10)
        #expect(try HistoryRecorder.recover(from: journal, fingerprint: "v1", registry: testRegistry()) == nil)
    }
}
