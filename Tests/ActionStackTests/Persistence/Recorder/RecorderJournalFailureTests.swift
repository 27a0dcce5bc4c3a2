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

// A journal that cannot take a record changes no stack: the recorder reports and tries again.

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct RecorderJournalFailureTests {
    /// The journal's path is a directory: every append fails, each change reports, no stack changes.
    @Test func anUnwritableJournalChangesNoStack() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let journal = HistoryJournal(url: files.directory, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        var errors: [any Error] = []
        recorder.onError = { errors.append($0) }
        hsChange(box, to: 1, on: stack)
        hsChange(box, to: 2, on: stack)
        stack.undo()
        stack.markClean()
        #expect(errors.count == 4)
        #expect(errors.allSatisfy { $0 is HistoryFileError })
        #expect(box.value == 1 && stack.undoCount == 1 && stack.canRedo && stack.isClean)
        #expect(stack.undoActionName == "Set 1" && stack.redoActionName == "Set 2")
        #expect(recorder.recordCount == 0 && stack.lastMisuse == nil)
    }

    /// maximumBytes smaller than one record: tooLarge at each change, the journal stays as it was.
    @Test func aRecordLargerThanTheJournalChangesNoStack() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let journal = HistoryJournal(url: files.journal.url, maximumBytes: 64, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        var errors: [any Error] = []
        recorder.onError = { errors.append($0) }
        hsChange(box, to: 1, on: stack)
        stack.undo()
        stack.redo()
        #expect(errors.count == 3)
        for error in errors {
            guard (error as? HistoryFileError)?.kind == .tooLarge else {
                Issue.record("unexpected \(error)")
                continue
            }
        }
        #expect(box.value == 1 && stack.undoCount == 1)
        #expect(try journal.records().isEmpty)
    }

    /// A full journal in a directory that cannot take the compaction's temporary file... (root can
    /// write anywhere, so this test uses a journal whose every record needs a compaction: maximumRecords 1).
    @Test func aCompactingJournalKeepsRecording() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let journal = HistoryJournal(url: files.journal.url, maximumRecords: 1, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        for value in 1...5 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 5 && recorder.lastError == nil)
        let records = try journal.records()
        #expect(records.count == 1 && records.last?.fingerprint == "v5")
        #expect(records.last?.sequence == 4)
    }

    @Test func aRecordThatCannotBeWrittenChangesNoStackAndIsRetried() throws {
        let directory = hrTemporaryURL("blocked")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("history.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        var errors = 0
        recorder.onError = { _ in errors += 1 }
        hrChange(doc, to: 1, on: stack)
        #expect(recorder.recordCount == 1)
        // Replaced behind its back by a file that is not a journal.
        try Data("not a journal at all".utf8).write(to: url)
        hrChange(doc, to: 2, on: stack)
        #expect(errors == 1)
        #expect(recorder.lastError is HistoryFileError)
        #expect(stack.undoCount == 2)
        #expect(doc.value == 2)
        #expect(try Data(contentsOf: url) == Data("not a journal at all".utf8))
        // Deleted: the next change starts a new journal.
        try FileManager.default.removeItem(at: url)
        hrChange(doc, to: 3, on: stack)
        #expect(recorder.lastError == nil)
        #expect(try journal.records().map(\.sequence) == [0])
        #expect(try journal.records().last?.fingerprint == "3")
    }
}
