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

// When a record reaches the disk (`HistoryJournal.Durability`): at each append, within an interval
// (one deferred flush for the records appended meanwhile), or when the system writes its cache;
// `synchronize()` at once. The flushes are counted by a test hook, since whether the disk has a
// record cannot be seen from a test.

/// A journal in a new temporary directory, and a way to remove the directory.
private func durabilityJournal(_ durability: HistoryJournal.Durability) throws -> (HistoryJournal, () -> Void) {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("actionstack-durability-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), durability: durability)
    return (journal, { try? FileManager.default.removeItem(at: directory) })
}

/// Waits until `condition` holds, for at most `seconds`; whether it held.
private func eventually(within seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

@Suite(.timeLimit(.minutes(10))) struct JournalDurabilityTests {
    /// The default, and `synchronizesAppends: true`: each append is flushed before it returns.
    @Test func everyAppendFlushesEachAppendBeforeItReturns() throws {
        let (journal, cleanUp) = try durabilityJournal(.everyAppend)
        defer { cleanUp() }
        for index in 0..<3 {
            try journal.append(Data("record \(index)".utf8), fingerprint: nil)
            #expect(journal._flushCount == index + 1)
            #expect(!journal._hasScheduledFlush)
        }
        #expect(journal.synchronizesAppends)
        #expect(HistoryJournal(url: journal.url).durability == .everyAppend, "the default")
        #expect(HistoryJournal(url: journal.url, synchronizesAppends: false).durability == .system)
    }

    /// Left to the system: no append flushes, nothing is scheduled; `synchronize()` flushes.
    @Test func systemNeverFlushesUntilAskedTo() throws {
        let (journal, cleanUp) = try durabilityJournal(.system)
        defer { cleanUp() }
        for index in 0..<3 { try journal.append(Data("record \(index)".utf8), fingerprint: nil) }
        #expect(journal._flushCount == 0)
        #expect(!journal._hasScheduledFlush)
        #expect(!journal.synchronizesAppends)
        try journal.synchronize()
        #expect(journal._flushCount == 1)
        #expect(try journal.records().count == 3)
    }

    /// Within an interval: the appends return without a flush, and the first one schedules one
    /// flush for all; `synchronize()` flushes at once.
    @Test func withinAnIntervalDefersOneFlushForAllTheAppends() throws {
        let (journal, cleanUp) = try durabilityJournal(.within(.seconds(3_600)))
        defer { cleanUp() }
        for index in 0..<5 { try journal.append(Data("record \(index)".utf8), fingerprint: nil) }
        #expect(journal._flushCount == 0, "no append waited for the disk")
        #expect(journal._hasScheduledFlush, "a flush waits for the interval")
        #expect(!journal.synchronizesAppends)
        try journal.synchronize()
        #expect(journal._flushCount == 1)
        #expect(try journal.records().count == 5)
    }

    /// The deferred flush happens after the interval, once for a burst of appends, and the next
    /// burst schedules the next.
    @Test func theDeferredFlushHappensOncePerBurst() async throws {
        let (journal, cleanUp) = try durabilityJournal(.within(.milliseconds(300)))
        defer { cleanUp() }
        for index in 0..<20 { try journal.append(Data("record \(index)".utf8), fingerprint: nil) }
        #expect(await eventually { journal._flushCount >= 1 && !journal._hasScheduledFlush })
        let first = journal._flushCount
        #expect(first < 20, "the appends shared their flushes (\(first) for 20)")
        try journal.append(Data("later".utf8), fingerprint: nil)
        #expect(journal._hasScheduledFlush)
        #expect(await eventually { journal._flushCount == first + 1 && !journal._hasScheduledFlush })
    }

    /// An interval of zero or less flushes as soon as the queue runs: no append waits for it.
    @Test func aZeroOrNegativeIntervalFlushesSoonAfter() async throws {
        for interval in [Duration.zero, .seconds(-5)] {
            let (journal, cleanUp) = try durabilityJournal(.within(interval))
            defer { cleanUp() }
            try journal.append(Data("record".utf8), fingerprint: nil)
            #expect(await eventually { journal._flushCount == 1 && !journal._hasScheduledFlush })
        }
    }

    /// A journal released while its flush waits is still flushed: the records it appended reach the
    /// disk within the interval all the same.
    @Test func aReleasedJournalIsStillFlushed() async throws {
        var journal: HistoryJournal? = try durabilityJournal(.within(.milliseconds(100))).0
        let url = journal!.url
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try journal!.append(Data("record".utf8), fingerprint: nil)
        let flushes = journal!._flushCounter
        journal = nil
        #expect(await eventually { flushes() == 1 })
        #expect(try HistoryJournal(url: url).records().count == 1)
    }

    /// A deferred flush that fails is not lost: the next append flushes before it returns (and
    /// would throw what the flush throws); the append after is deferred again.
    @Test func aFailedDeferredFlushMakesTheNextAppendFlush() async throws {
        let (journal, cleanUp) = try durabilityJournal(.within(.milliseconds(50)))
        defer { cleanUp() }
        journal._failNextDeferredFlush()
        try journal.append(Data("first".utf8), fingerprint: nil)
        #expect(await eventually { !journal._hasScheduledFlush })
        #expect(journal._flushCount == 0, "the deferred flush failed")
        try journal.append(Data("second".utf8), fingerprint: nil)
        #expect(journal._flushCount == 1, "the append flushed both records itself")
        #expect(!journal._hasScheduledFlush)
        try journal.append(Data("third".utf8), fingerprint: nil)
        #expect(journal._hasScheduledFlush, "deferred again")
        #expect(await eventually { journal._flushCount == 2 })
        #expect(try journal.records().map(\.payload) == ["first", "second", "third"].map { Data($0.utf8) })
    }

    /// A journal without a file has nothing to flush: `synchronize()` is no error.
    @Test func synchronizingAJournalWithoutAFileIsNoError() throws {
        let (journal, cleanUp) = try durabilityJournal(.system)
        defer { cleanUp() }
        try journal.synchronize()
        #expect(try journal.records().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: journal.url.path), "no file made")
    }

    /// A recorder's journal recovers the same history whatever its durability (what a crash of the
    /// app keeps).
    @MainActor
    @Test(arguments: [
        HistoryJournal.Durability.everyAppend, .within(.milliseconds(20)), .within(.seconds(3_600)), .system,
    ])
    func aRecorderRecoversTheSameHistoryWhateverTheDurability(_ durability: HistoryJournal.Durability) throws {
        let (journal, cleanUp) = try durabilityJournal(durability)
        defer { cleanUp() }
        let box = HSBox()
        let stack = ActionStack()
        stack.groupsByEvent = false
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        for value in 1...4 { hsChange(box, to: value, on: stack) }
        stack.undo()
        #expect(recorder.recordCount == 5)
        #expect(recorder.lastError == nil)
        let recovered = try HistoryRecorder.recover(
            from: HistoryJournal(url: journal.url), fingerprint: "v3", registry: testRegistry())
        let saved = HistoryArchive(
            fingerprint: "v3", histories: [HistoryRecorder.defaultHistoryName: try stack.savedHistory()])
        #expect(try recovered?.encoded() == saved.encoded(), "what a full save saves")
    }
}
