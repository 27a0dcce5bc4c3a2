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

/// A journal in a directory of its own, removed by `cleanUp()`.
struct RecorderFiles {
    let directory: URL
    let journal: HistoryJournal

    init(directoryExists: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-recorder-\(UUID().uuidString)")
        if directoryExists { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// The current node of each record's history and the record's fingerprint.
    func recorded() throws -> [String] {
        let archives = try HistoryRecorder.recordedArchives(in: journal, registry: hsRegistry())
        return try zip(journal.records(), archives).map { record, archive in
            let history = archive.histories[HistoryRecorder.defaultHistoryName]
            let clean = history?.clean.map { " clean \($0)" } ?? ""
            return "\(record.fingerprint ?? "-"): at \(history?.current ?? -1) of \(history?.steps.count ?? -1)\(clean)"
        }
    }
}

/// Decided #4: the journal records every change to the history, each record with the document's
/// fingerprint after it, and a recovery picks the last record that matches the document opened.
@MainActor
@Suite struct HistoryRecorderTests {
    @Test func everyChangeToTheHistoryIsRecordedOnceWithTheDocumentsFingerprint() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        #expect(recorder.recordCount == 0)  // nothing until the first change
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        stack.undo()
        stack.redo()
        stack.markClean()
        _ = stack.undoCount  // a read changes nothing
        #expect(!recorder.record())  // the same history again is not appended
        #expect(recorder.recordCount == 6)
        #expect(
            try files.recorded() == [
                "v1: at 1 of 1 clean 0", "v2: at 2 of 2 clean 0", "v3: at 3 of 3 clean 0",
                "v2: at 2 of 3 clean 0", "v3: at 3 of 3 clean 0", "v3: at 3 of 3 clean 3",
            ])
        #expect(recorder.lastError == nil)
    }

    @Test func removalsTrimsAndADiscardedRedoSideAreRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox("other")
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        hsChange(other, to: 5, on: stack)
        stack.undo()
        hsChange(box, to: 2, on: stack)  // the redo side goes
        stack.levelsOfUndo = 1  // the oldest step goes
        hsChange(other, to: 6, on: stack)
        stack.removeAllActions(withTarget: other)
        #expect(recorder.recordCount == 7)
        // The undo, the redo side discarded (the clean root still held), the trim that takes the
        // root and its clean state, the next change trimmed again, the removal that empties it.
        #expect(
            try files.recorded().suffix(5) == [
                "v1: at 1 of 2 clean 0", "v2: at 2 of 2 clean 0", "v2: at 1 of 1", "v2: at 1 of 1", "v2: at 0 of 0",
            ])
    }

    @Test func nothingIsRecordedWhileAGroupIsOpenAndTheCallThatClosesItIs() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        stack.beginUndoGrouping()
        HSSet(value: 1).perform(on: box, in: stack)
        HSSet(value: 2).perform(on: box, in: stack)
        #expect(recorder.recordCount == 0)
        stack.endUndoGrouping()
        #expect(recorder.recordCount == 1)
        #expect(try files.recorded().last == "v2: at 1 of 1 clean 0")
    }

    @Test func anAsyncOperationIsRecordedWhenItSettles() async throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HSAsyncSet(value: 0), on: box, key: box.id)
        box.value = 1
        stack.endUndoGrouping()
        #expect(recorder.recordCount == 1)
        try await stack.performUndo()
        #expect(box.value == 0)
        #expect(recorder.recordCount == 2)
        #expect(try files.recorded() == ["v1: at 1 of 1 clean 0", "v0: at 0 of 1 clean 0"])
        #expect(recorder.lastError == nil)
    }

    /// A document last written three changes ago reopens with the history as it was then.
    @Test func recoveryRestoresTheHistoryOfTheDocumentAsItWasOpened() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...6 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 6)
        // The app crashed; the file on disk holds the document as it was at value 3.
        let archive = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v3", registry: hsRegistry()))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        let reopened = HSBox(value: 3)
        let restored = makeStack()
        let report = try hsRestore(history, into: restored, ["box": reopened])
        #expect(report.restoredSteps == 3 && report.cuts.isEmpty)
        #expect(restored.undoCount == 3 && !restored.canRedo)
        while restored.canUndo { restored.undo() }
        #expect(reopened.value == 0)
        while restored.canRedo { restored.redo() }
        #expect(reopened.value == 3)
        #expect(try HistoryRecorder.recover(from: files.journal, fingerprint: "v9", registry: hsRegistry()) == nil)
    }

    @Test func aTornLastRecordIsIgnored() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        stack.markClean()  // same document, a second record: the one the crash tears
        #expect(recorder.recordCount == 2)
        let handle = try FileHandle(forUpdating: files.journal.url)
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size - 3)
        try handle.close()
        let archive = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v1", registry: hsRegistry()))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        #expect(history.current == 1 && history.clean == 0)  // the record before the clean mark
    }

    @Test func aFailedAppendChangesNoStackAndTheNextChangeTriesAgain() throws {
        let files = try RecorderFiles(directoryExists: false)
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        var errors: [String] = []
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        recorder.onError = { errors.append("\($0)") }
        hsChange(box, to: 1, on: stack)
        #expect(errors.count == 1 && recorder.lastError is HistoryFileError)
        #expect(stack.undoCount == 1 && box.value == 1 && stack.undoActionName == "Set 1")
        try FileManager.default.createDirectory(at: files.directory, withIntermediateDirectories: true)
        hsChange(box, to: 2, on: stack)
        #expect(recorder.lastError == nil && recorder.recordCount == 1)
        #expect(try files.recorded() == ["v2: at 2 of 2 clean 0"])
    }

    @Test func aStepThatIsNotAllCommandsEndsWhatEachRecordHolds() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: box) { $0.value = 1 }
        box.value = 2
        stack.endUndoGrouping()
        hsChange(box, to: 3, on: stack)
        #expect(recorder.recordCount == 3)
        // Saved from the current state outward to the closure step: none, then the step above it.
        #expect(try files.recorded().suffix(2) == ["v2: at 2 of 0", "v3: at 3 of 1"])
    }

    @Test func severalStacksOneJournal() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox("other")
        let board = makeStack()
        let figure = makeStack()
        let recorder = HistoryRecorder(journal: files.journal) {
            HistoryArchive(
                fingerprint: "v\(box.value)-\(other.value)",
                histories: ["board": try board.savedHistory(), "figure": try figure.savedHistory()])
        }
        recorder.watch(board)
        recorder.watch(figure)
        recorder.watch(figure)
        hsChange(box, to: 1, on: board)
        hsChange(other, to: 7, on: figure)
        #expect(recorder.recordCount == 2)
        recorder.unwatch(figure)
        hsChange(other, to: 8, on: figure)
        #expect(recorder.recordCount == 2)
        #expect(recorder.record())  // asked for: the figure's change
        let archive = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v1-8", registry: hsRegistry()))
        #expect(archive.histories["board"]?.steps.count == 1 && archive.histories["figure"]?.steps.count == 2)
    }

    /// The recorder runs after the observers of the call: what an observer changes in its turn is
    /// in the same record.
    @Test func anObserverThatChangesTheStackIsInTheSameRecord() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        // An autosave observer: it marks the stack clean after every closed change.
        let token = stack.observe { state in if !state.isClean && state.groupingLevel == 0 { stack.markClean() } }
        hsChange(box, to: 1, on: stack)
        withExtendedLifetime(token) {}
        #expect(try files.recorded() == ["v1: at 1 of 1 clean 1"])
        #expect(recorder.recordCount == 1)
    }

    @Test func theRecorderHoldsItsStackWeakly() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        var stack: ActionStack? = makeStack()
        let tracker = LifetimeTracker(stack!)
        let recorder = HistoryRecorder(journal: files.journal, stack: stack!) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack!)
        stack = nil
        #expect(!tracker.isAlive)
        #expect(!recorder.record())
        #expect(recorder.recordCount == 1)
    }
}
