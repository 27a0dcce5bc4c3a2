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

/// Issue 29: a recorded change costs what changed, not what the history holds; a query records
/// nothing; the journal stays within a small factor of one full save; a damaged journal is read up
/// to its last intact record; a record of a newer format is refused with a clear error.
@MainActor
@Suite struct JournalRecordSizeTests {
    static let deltaPrefix = Data(#"{"format":"ActionStack.Journal","version":1,"kind":"delta""#.utf8)
    static let snapshotPrefix = Data(#"{"format":"ActionStack.Journal","version":1,"kind":"snapshot""#.utf8)

    /// A change in an event of its own.
    func change(_ box: HSBox, to value: Int, on stack: ActionStack) {
        hsChange(box, to: value, on: stack)
        stack.endEvent()
    }

    /// A stack holding `count` steps on `box`, recorded into `files`' journal.
    func recordedStack(_ count: Int, box: HSBox, files: RecorderFiles) -> (ActionStack, HistoryRecorder) {
        let stack = makeStack(groupsByEvent: true)
        stack._checksInvariantsAfterEveryMutation = false
        for value in 1...count { change(box, to: value, on: stack) }
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        return (stack, recorder)
    }

    /// The bytes of the records each change appends, by name: each a delta.
    func recordSizes(holding count: Int) throws -> [String: Int] {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let (stack, recorder) = recordedStack(count, box: box, files: files)
        // The first change is a snapshot (the journal starts over); the sizes are measured after.
        change(box, to: -1, on: stack)
        var sizes: [String: Int] = [:]
        func measure(_ name: String, _ change: () -> Void) throws {
            let before = try files.journal.records().count
            change()
            let records = try files.journal.records()
            #expect(records.count == before + 1, "\(name) appends one record")
            guard let last = records.last else { return }
            #expect(last.payload.starts(with: Self.deltaPrefix), "\(name) appends a delta")
            sizes[name] = last.payload.count
        }
        try measure("a new step") { change(box, to: 1000, on: stack) }
        try measure("an undo") { stack.undo() }
        try measure("a redo") { stack.redo() }
        try measure("a clean mark") { stack.markClean() }
        try measure("a new step") { change(box, to: 1001, on: stack) }
        try measure("a coalescing keystroke") {
            stack.registerUndo(HSSet(value: box.value), on: box, key: box.id, options: .coalescing("typing"))
            box.value += 1
            stack.endEvent()
        }
        try measure("another keystroke") {
            stack.registerUndo(HSSet(value: box.value), on: box, key: box.id, options: .coalescing("typing"))
            box.value += 1
            stack.endEvent()
        }
        try measure("an undo") { stack.undo() }
        try measure("a step that discards the redo side") { change(box, to: 1002, on: stack) }
        try measure("a trim") { stack.levelsOfUndo = count }
        #expect(recorder.lastError == nil)
        return sizes
    }

    @Test func aRecordedChangeCostsTheSameWhateverTheHistoryHolds() throws {
        let small = try recordSizes(holding: 200)
        let large = try recordSizes(holding: 4_000)
        #expect(small.count == 8)
        for (name, size) in small {
            let other = try #require(large[name])
            // The same change: the same record, but for the digits of the state ids.
            #expect(abs(other - size) <= 16, "\(name): \(size) bytes at 200 steps, \(other) at 4,000")
            #expect(size < 400, "\(name): \(size) bytes")
        }
    }

    @Test func aQueryAppendsNothing() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let (stack, recorder) = recordedStack(50, box: box, files: files)
        change(box, to: 51, on: stack)
        let count = recorder.recordCount
        let bytes = try Data(contentsOf: files.journal.url)
        for _ in 0..<100 {
            _ = stack.canUndo
            _ = stack.canRedo
            _ = stack.undoMenuItemTitle
            _ = stack.undoEntries
            _ = stack.isClean
            _ = stack.state
            _ = try stack.savedHistory()
        }
        #expect(recorder.recordCount == count)
        #expect(try Data(contentsOf: files.journal.url) == bytes)
    }

    @Test func theJournalStaysWithinASmallFactorOfAFullSave() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack(groupsByEvent: true)
        stack._checksInvariantsAfterEveryMutation = false
        stack.levelsOfUndo = 100
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        recorder._compactionFloor = 0
        var largest = 0
        for value in 1...3_000 {
            change(box, to: value, on: stack)
            if value % 7 == 0 { stack.undo() }
            if value % 11 == 0 { stack.markClean() }
            if value % 250 == 0 {
                let full = try HistoryArchive(
                    fingerprint: "v\(box.value)", histories: [HistoryRecorder.defaultHistoryName: stack.savedHistory()]
                ).encoded().count
                let journal = try Data(contentsOf: files.journal.url).count
                largest = max(largest, journal)
                #expect(journal <= 6 * full, "the journal holds \(journal) bytes, a full save \(full)")
            }
        }
        #expect(recorder.lastError == nil)
        #expect(recorder.recordCount > 3_000)
        let recovered = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v\(box.value)", registry: testRegistry()))
        let saved = try stack.savedHistory()
        #expect(recovered.histories[HistoryRecorder.defaultHistoryName]?.steps.count == saved.steps.count)
        #expect(recovered.histories[HistoryRecorder.defaultHistoryName]?.current == saved.current)
    }

    @Test func aTornLastDeltaIsIgnoredAndTheRecordBeforeItRecovered() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let (stack, recorder) = recordedStack(200, box: box, files: files)
        for value in 201...204 { change(box, to: value, on: stack) }
        let before = try stack.savedHistory()
        change(box, to: 205, on: stack)
        #expect(recorder.lastError == nil)
        let last = try #require(try files.journal.records().last)
        #expect(last.payload.starts(with: Self.deltaPrefix))
        // A crash in the middle of the last append.
        let handle = try FileHandle(forWritingTo: files.journal.url)
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size - 5)
        try handle.close()
        let recovered = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v204", registry: testRegistry()))
        #expect(try HistoryRecorder.recover(from: files.journal, fingerprint: "v205", registry: testRegistry()) == nil)
        let history = try #require(recovered.histories[HistoryRecorder.defaultHistoryName])
        #expect(history.steps.count == before.steps.count)
        #expect(history.current == before.current)
        // The next change overwrites the torn record; the record it would have followed is gone,
        // so it is a snapshot.
        change(box, to: 206, on: stack)
        #expect(recorder.lastError == nil)
        #expect(try files.journal.records().last?.payload.starts(with: Self.snapshotPrefix) == true)
        let again = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v206", registry: testRegistry()))
        #expect(again.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 206)
        change(box, to: 207, on: stack)
        #expect(try files.journal.records().last?.payload.starts(with: Self.deltaPrefix) == true)
        let next = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v207", registry: testRegistry()))
        #expect(next.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 207)
    }

    @Test func aRecordWhoseSnapshotIsGoneIsRefusedWithAClearError() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let (stack, recorder) = recordedStack(200, box: box, files: files)
        defer { withExtendedLifetime(recorder) {} }
        for value in 201...203 { change(box, to: value, on: stack) }
        #expect(try files.journal.records().last?.payload.starts(with: Self.deltaPrefix) == true)
        // Keep only the newest record: a delta whose snapshot is gone.
        try files.journal.compact(keeping: 1)
        #expect(throws: HistoryArchiveError.self) {
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v203", registry: testRegistry())
        }
        // The next change notices, and appends a snapshot.
        change(box, to: 204, on: stack)
        #expect(try files.journal.records().last?.payload.starts(with: Self.snapshotPrefix) == true)
        #expect(try HistoryRecorder.recover(from: files.journal, fingerprint: "v204", registry: testRegistry()) != nil)
    }

    /// Asynchronous steps are recorded when they settle, as records of what changed, and the
    /// journal replays to a full save after each, in a branching history with a branch made.
    @Test func asyncStepsAndBranchesReplayToAFullSave() async throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        stack.historyShape = .tree
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        func check(_ what: String) throws {
            guard let saved = try? stack.savedHistory() else {
                Issue.record("\(what): the stack cannot be saved")
                return
            }
            let recovered = try #require(
                try HistoryRecorder.recover(from: files.journal, fingerprint: "v\(box.value)", registry: testRegistry())
            )
            let expected = try HistoryArchive(fingerprint: "x", histories: ["h": saved]).encoded()
            let actual = try HistoryArchive(
                fingerprint: "x",
                histories: ["h": try #require(recovered.histories[HistoryRecorder.defaultHistoryName])]
            ).encoded()
            #expect(expected == actual, "\(what)")
        }
        for value in 1...30 {
            stack.beginUndoGrouping()
            stack.registerAsyncUndo(HSAsyncSet(value: box.value), on: box, key: box.id)
            box.value = value
            stack.endUndoGrouping()
        }
        try check("thirty async steps")
        try await stack.performUndo()
        try check("an awaited undo")
        try await stack.performUndo()
        try await stack.performRedo()
        try check("an awaited redo")
        try await stack.performUndo()
        hsChange(box, to: 100, on: stack)
        try check("a branch made")
        try await stack.performUndo()
        try check("an awaited undo back to where the branch leaves")
        #expect(recorder.lastError == nil)
        let deltas = try files.journal.records().filter { $0.payload.starts(with: Self.deltaPrefix) }
        #expect(deltas.count >= 5)
    }

    /// Two recorders of one stack each see every change; two recorders of two stacks on one
    /// journal file take turns, and each one's records follow its own snapshot.
    @Test func recordersShareAStackOrAJournal() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox()
        let stack = makeStack()
        let second = makeStack()
        let secondJournal = HistoryJournal(url: files.journal.url, synchronizesAppends: false)
        let ownJournal = HistoryJournal(
            url: files.directory.appendingPathComponent("own.journal"), synchronizesAppends: false)
        let first = HistoryRecorder(journal: files.journal, stack: stack) { "a\(box.value)" }
        let again = HistoryRecorder(journal: ownJournal, stack: stack) { "a\(box.value)" }
        let secondRecorder = HistoryRecorder(journal: secondJournal, stack: second) { "b\(other.value)" }
        for value in 1...20 {
            hsChange(box, to: value, on: stack)
            hsChange(other, to: value, on: second)
            if value % 3 == 0 { stack.undo() }
            if value % 4 == 0 { second.undo() }
        }
        for recorder in [first, again, secondRecorder] { #expect(recorder.lastError == nil) }
        func replayed(_ journal: HistoryJournal, _ fingerprint: String) throws -> Data {
            let archive = try #require(
                try HistoryRecorder.recover(from: journal, fingerprint: fingerprint, registry: testRegistry()))
            return try HistoryArchive(fingerprint: "x", histories: archive.histories).encoded()
        }
        func full(_ stack: ActionStack) throws -> Data {
            try HistoryArchive(fingerprint: "x", histories: [HistoryRecorder.defaultHistoryName: stack.savedHistory()])
                .encoded()
        }
        #expect(try replayed(files.journal, "a\(box.value)") == full(stack))
        #expect(try replayed(ownJournal, "a\(box.value)") == full(stack))
        #expect(try replayed(files.journal, "b\(other.value)") == full(second))
        let deltas = try files.journal.records().filter { $0.payload.starts(with: Self.deltaPrefix) }
        #expect(deltas.count > 20)
    }

    /// A remote change rewrites the steps it moves past: the record after it holds them as they
    /// read then, with the new remote version, and replays to a full save.
    @Test func aRemoteChangeIsRecordedWithTheStepsItRewrote() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let stack = makeStack(groupsByEvent: true)
        let document = SharedText(stack: stack)
        let registry = testRegistry()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { document.text }
        func check(_ what: String) throws {
            let saved = try stack.savedHistory()
            let recovered = try #require(
                try HistoryRecorder.recover(from: files.journal, fingerprint: document.text, registry: registry))
            let expected = try HistoryArchive(fingerprint: "x", histories: ["h": saved]).encoded()
            let actual = try HistoryArchive(
                fingerprint: "x",
                histories: ["h": try #require(recovered.histories[HistoryRecorder.defaultHistoryName])]
            ).encoded()
            #expect(expected == actual, "\(what)")
        }
        for word in ["one ", "two ", "three "] {
            document.type(word, at: document.text.count)
            stack.endEvent()
        }
        try check("three steps")
        stack.applyRemoteChange(TextEdit.insert(">> ", at: 0), version: "r1") {
            try! TextEdit.insert(">> ", at: 0).apply(to: &document.text)
        }
        try check("a remote change at the front")
        #expect(try stack.savedHistory().remoteVersion == "r1")
        stack.undo()
        try check("an undo after it")
        #expect(recorder.lastError == nil)
    }

    @Test func aRecordOfANewerFormatIsRefusedAndAnOldJournalIsRead() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        // An old journal: whole archives, as the recorder wrote before records of what changed.
        let box = HSBox()
        let stack = makeStack()
        for value in 1...3 { change(box, to: value, on: stack) }
        let archive = try HistoryArchive(
            fingerprint: "v3", histories: [HistoryRecorder.defaultHistoryName: stack.savedHistory()])
        try files.journal.append(archive.encoded(), fingerprint: "v3")
        let old = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v3", registry: testRegistry()))
        #expect(old.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 3)
        // A record of a newer journal format.
        let newer =
            #"{"format":"ActionStack.Journal","version":2,"kind":"snapshot","chain":"0000000000000001","index":0,"histories":{}}"#
        try files.journal.append(Data(newer.utf8), fingerprint: "v4")
        do {
            _ = try HistoryRecorder.recover(from: files.journal, fingerprint: "v4", registry: testRegistry())
            Issue.record("a newer format was read")
        } catch let error as HistoryArchiveError {
            #expect(error == .newerFormatVersion(2, newestSupported: 1), "\(error)")
        }
    }
}
