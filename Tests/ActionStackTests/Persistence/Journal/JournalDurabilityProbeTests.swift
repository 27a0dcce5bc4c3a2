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

// Probes of the journal's durability choices, written from the documentation alone (the doc of
// `HistoryJournal.Durability`, `HistoryJournal`'s public API and "When a record reaches the disk" in
// SavingTheHistory.md), as a hostile user would use them. Timing is never bounded tighter than
// several seconds: the machine is small and shared, so each wait polls with a generous timeout.

/// Polls `condition` every few milliseconds until it holds or `timeout` seconds pass; whether it
/// held.
private func dpEventually(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}

/// A scratch directory with a journal file in it, removed by `cleanUp()`.
private struct DPFiles {
    let directory: URL
    var url: URL { directory.appendingPathComponent("doc.journal") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func journal(
        _ durability: HistoryJournal.Durability, maximumBytes: Int = HistoryJournal.defaultMaximumBytes,
        maximumRecords: Int = HistoryJournal.defaultMaximumRecords
    ) -> HistoryJournal {
        HistoryJournal(url: url, maximumRecords: maximumRecords, maximumBytes: maximumBytes, durability: durability)
    }

    var exists: Bool { FileManager.default.fileExists(atPath: url.path) }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }
}

/// The payload of record `index`.
private func dpPayload(_ index: Int) -> Data { Data("record \(index)".utf8) }

/// The payloads of a journal's records, as text.
private func dpTexts(_ journal: HistoryJournal) throws -> [String] {
    try journal.records().map { String(decoding: $0.payload, as: UTF8.self) }
}

/// Problems seen on several threads, collected under a lock.
private final class DPFindings: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func note(_ finding: String) {
        lock.lock()
        list.append(finding)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// Whether a flush covers what was appended: right after an append under `.within(_:)`, either a
/// flush still waits (or runs) or one finished since `before` was read. Reads the flag first: once
/// no flush waits, every flush scheduled before has counted.
private func dpCovered(_ journal: HistoryJournal, since before: Int) -> Bool {
    journal._hasScheduledFlush || journal._flushCount > before
}

// MARK: - What each choice does

@Suite struct JournalDurabilityChoiceProbeTests {
    /// "``everyAppend``: when the append returns"; "The default".
    @Test func everyAppendFlushesInTheCallersThreadAndIsTheDefault() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = HistoryJournal(url: files.url)
        #expect(journal.durability == .everyAppend)
        #expect(journal.synchronizesAppends)
        for index in 0..<5 {
            try journal.append(dpPayload(index), fingerprint: "f\(index)")
            #expect(journal._flushCount == index + 1)
            #expect(!journal._hasScheduledFlush)
        }
    }

    /// "``system``: when the system writes its cache": nothing flushes, nothing is scheduled, but
    /// ``synchronize()`` flushes at once.
    @Test func systemNeverFlushesUntilSynchronize() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.system)
        #expect(!journal.synchronizesAppends)
        for index in 0..<20 { try journal.append(dpPayload(index), fingerprint: nil) }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(journal._flushCount == 0)
        #expect(!journal._hasScheduledFlush)
        try journal.synchronize()
        #expect(journal._flushCount == 1)
        #expect(try journal.records().count == 20)
    }

    /// The convenience initializer's `synchronizesAppends` picks ``everyAppend`` or ``system``.
    @Test func synchronizesAppendsMapsToTheTwoEndChoices() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        #expect(HistoryJournal(url: files.url, synchronizesAppends: true).durability == .everyAppend)
        #expect(HistoryJournal(url: files.url, synchronizesAppends: false).durability == .system)
        #expect(!files.journal(.within(.seconds(1))).synchronizesAppends)
        #expect(!files.journal(.within(.zero)).synchronizesAppends)
    }

    /// "``within(_:)``: at most the interval after the append ... one flush per interval".
    @Test func withinFlushesOnceAfterTheInterval() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(200)))
        try journal.append(dpPayload(0), fingerprint: "a")
        #expect(dpCovered(journal, since: 0))
        #expect(dpEventually { journal._flushCount >= 1 && !journal._hasScheduledFlush })
        #expect(journal._flushCount == 1)
    }

    /// "a burst of changes shares one flush, and a quiet document pays none".
    @Test func aBurstSharesOneFlushAndAQuietJournalPaysNone() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.seconds(2)))
        for index in 0..<100 { try journal.append(dpPayload(index), fingerprint: nil) }
        #expect(journal._hasScheduledFlush || journal._flushCount >= 1)
        #expect(dpEventually { journal._flushCount >= 1 && !journal._hasScheduledFlush })
        // 100 appends of a few microseconds each: one or two intervals at most, never 100 flushes.
        #expect(journal._flushCount <= 3)
        let settled = journal._flushCount
        Thread.sleep(forTimeInterval: 0.3)
        #expect(journal._flushCount == settled)
        #expect(!journal._hasScheduledFlush)
    }

    /// A record appended under any choice is in the system's cache when the append returns: another
    /// journal (as the next launch after an app's crash) reads it before any flush.
    @Test(arguments: [
        HistoryJournal.Durability.everyAppend, .system, .within(.seconds(600)), .within(.zero),
    ])
    func aRecordIsReadableAsSoonAsTheAppendReturns(_ durability: HistoryJournal.Durability) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(durability)
        try journal.append(dpPayload(0), fingerprint: "a")
        try journal.append(dpPayload(1), fingerprint: "b")
        let reader = files.journal(.system)
        #expect(try dpTexts(reader) == ["record 0", "record 1"])
        #expect(try reader.lastRecord(matchingFingerprint: "b")?.sequence == 1)
    }

    /// The article's example, as written.
    @Test func theArticlesExampleRuns() throws {
        let journalURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("notes-\(UUID().uuidString).journal")
        let journal = HistoryJournal(url: journalURL, durability: .within(.seconds(1)))
        try journal.append(Data("a change".utf8), fingerprint: "v1")
        try journal.synchronize()
        #expect(try journal.records().count == 1)
        try journal.reset()
        #expect(!FileManager.default.fileExists(atPath: journalURL.path))
        // The flush that the append scheduled still comes, and does not bring the file back.
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(!FileManager.default.fileExists(atPath: journalURL.path))
    }
}

// MARK: - Durability as a value

@Suite struct JournalDurabilityValueProbeTests {
    /// `Durability` is `Hashable`: equal intervals are equal however they are spelled.
    @Test func equalityAndHashingFollowTheInterval() {
        typealias D = HistoryJournal.Durability
        #expect(D.within(.seconds(1)) == D.within(.milliseconds(1000)))
        #expect(D.within(.seconds(1)).hashValue == D.within(.milliseconds(1000)).hashValue)
        #expect(D.within(.seconds(1)) != D.within(.seconds(2)))
        #expect(D.within(.zero) != D.everyAppend)
        #expect(D.within(.zero) != D.system)
        #expect(D.everyAppend != D.system)
        let set: Set<D> = [.everyAppend, .system, .within(.seconds(1)), .within(.milliseconds(1000)), .within(.zero)]
        #expect(set.count == 4)
        let dictionary: [D: String] = [.within(.nanoseconds(5)): "five"]
        #expect(dictionary[.within(.nanoseconds(5))] == "five")
    }

    /// "An interval of zero or less flushes as soon as the queue runs."
    @Test(arguments: [
        Duration.zero, .seconds(-1), .nanoseconds(-1), .seconds(Int64.min),
        Duration(secondsComponent: Int64.min, attosecondsComponent: -999_999_999_999_999_999),
    ])
    func anIntervalOfZeroOrLessFlushesSoon(_ interval: Duration) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(interval))
        #expect(journal.durability == .within(interval))
        try journal.append(dpPayload(0), fingerprint: nil)
        #expect(dpEventually { journal._flushCount >= 1 && !journal._hasScheduledFlush })
        try journal.append(dpPayload(1), fingerprint: nil)
        #expect(dpEventually { journal._flushCount >= 2 && !journal._hasScheduledFlush })
        #expect(try dpTexts(journal) == ["record 0", "record 1"])
    }

    /// A huge interval traps nowhere: the append returns, the flush waits, ``synchronize()`` still
    /// flushes at once, and the records are all there.
    @Test(arguments: [
        Duration.seconds(Int64.max),
        Duration(secondsComponent: Int64.max, attosecondsComponent: 999_999_999_999_999_999),
        .seconds(366 * 86_400), .seconds(1e15),
    ])
    func aHugeIntervalTrapsNowhere(_ interval: Duration) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(interval))
        for index in 0..<3 { try journal.append(dpPayload(index), fingerprint: nil) }
        #expect(journal._hasScheduledFlush)
        #expect(journal._flushCount == 0)
        try journal.synchronize()
        #expect(journal._flushCount == 1)
        #expect(try dpTexts(journal) == ["record 0", "record 1", "record 2"])
    }

    /// An interval of one attosecond, less than any clock's tick.
    @Test func anIntervalOfOneAttosecondFlushes() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(Duration(secondsComponent: 0, attosecondsComponent: 1)))
        try journal.append(dpPayload(0), fingerprint: nil)
        #expect(dpEventually { journal._flushCount >= 1 && !journal._hasScheduledFlush })
    }
}

// MARK: - Races and changes between the append and the flush

@Suite struct JournalDeferredFlushProbeTests {
    /// "every record appended meanwhile is flushed": appends from several threads; right after each
    /// one returns, a flush is pending or has happened since, and in the end every record is there
    /// and no flush waits.
    @Test(arguments: [Duration.zero, .microseconds(300), .milliseconds(20)])
    func appendsFromSeveralThreadsAreAllCovered(_ interval: Duration) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(interval))
        let findings = DPFindings()
        let threads = 4
        let each = 150
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<each {
                let before = journal._flushCount
                do {
                    try journal.append(dpPayload(thread * 1000 + index), fingerprint: "t\(thread)")
                } catch {
                    findings.note("append \(thread)/\(index): \(error)")
                }
                if !dpCovered(journal, since: before) { findings.note("no flush covers \(thread)/\(index)") }
            }
        }
        #expect(findings.all.isEmpty, "\(findings.all.prefix(5))")
        #expect(dpEventually { !journal._hasScheduledFlush })
        let records = try journal.records()
        #expect(records.count == threads * each)
        #expect(records.map(\.sequence) == (0..<UInt64(threads * each)).map { $0 })
        #expect(Set(records.map(\.payload)).count == threads * each)
        let settled = journal._flushCount
        #expect(settled >= 1)
        // One flush per interval: never more than the appends.
        #expect(settled <= threads * each)
    }

    /// A compaction (a tiny `maximumBytes`) between the appends and their flush: the flush still
    /// comes, nothing throws, and the journal holds its newest records.
    @Test func compactionsBetweenTheAppendAndTheFlush() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(50)), maximumBytes: 400)
        for index in 0..<200 {
            try journal.append(dpPayload(index), fingerprint: "f\(index)")
            if index % 37 == 0 { Thread.sleep(forTimeInterval: 0.06) }
        }
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(journal._flushCount >= 1)
        let texts = try dpTexts(journal)
        #expect(texts.last == "record 199")
        #expect(!texts.isEmpty && texts.count < 200)
        #expect(try journal.replay().ending == .complete)
        // A record appended after the compactions is flushed too.
        let before = journal._flushCount
        try journal.append(dpPayload(200), fingerprint: nil)
        #expect(dpEventually { journal._flushCount > before && !journal._hasScheduledFlush })
    }

    /// ``HistoryJournal/reset()`` between the append and the flush: the flush comes, does not throw
    /// anywhere, and does not bring the file back.
    @Test func aResetBetweenTheAppendAndTheFlush() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(300)))
        try journal.append(dpPayload(0), fingerprint: nil)
        try journal.reset()
        #expect(!files.exists)
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(!files.exists)
        try journal.append(dpPayload(1), fingerprint: nil)
        #expect(try journal.records().map(\.sequence) == [0])
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(try dpTexts(journal) == ["record 1"])
    }

    /// The file deleted, or renamed away, between the append and the flush: the flush does not
    /// recreate it, the renamed file keeps its records, and the next append starts over at 0.
    @Test(arguments: [false, true])
    func theFileDeletedOrRenamedBetweenTheAppendAndTheFlush(_ renames: Bool) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(300)))
        try journal.append(dpPayload(0), fingerprint: nil)
        try journal.append(dpPayload(1), fingerprint: nil)
        let moved = files.directory.appendingPathComponent("moved.journal")
        if renames {
            try FileManager.default.moveItem(at: files.url, to: moved)
        } else {
            try FileManager.default.removeItem(at: files.url)
        }
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(!files.exists)
        if renames {
            #expect(try dpTexts(HistoryJournal(url: moved, synchronizesAppends: false)) == ["record 0", "record 1"])
        }
        try journal.append(dpPayload(2), fingerprint: nil)
        #expect(try journal.records().map(\.sequence) == [0])
        #expect(dpEventually { !journal._hasScheduledFlush })
    }

    /// "The flush happens even when the journal has been released meanwhile".
    @Test func aReleasedJournalsFlushStillHappens() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        var counter: (() -> Int)?
        do {
            let journal = files.journal(.within(.milliseconds(300)))
            try journal.append(dpPayload(0), fingerprint: nil)
            counter = journal._flushCounter
            #expect(counter?() == 0)
        }
        let flushes = try #require(counter)
        #expect(dpEventually { flushes() >= 1 })
        #expect(flushes() == 1)
        #expect(try dpTexts(files.journal(.system)) == ["record 0"])
    }

    /// Released with a flush pending, and the file removed before it comes: nothing traps or comes
    /// back.
    @Test func aReleasedJournalsFlushOfARemovedFile() throws {
        let files = try DPFiles()
        var counter: (() -> Int)?
        do {
            let journal = files.journal(.within(.milliseconds(200)))
            try journal.append(dpPayload(0), fingerprint: nil)
            counter = journal._flushCounter
        }
        files.cleanUp()
        let flushes = try #require(counter)
        #expect(dpEventually { flushes() >= 1 })
        #expect(!FileManager.default.fileExists(atPath: files.directory.path))
    }

    /// Many journals with flushes pending at once, most of them released: every one flushes.
    @Test func manyJournalsWithPendingFlushesAllFlush() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        var counters: [() -> Int] = []
        var kept: [HistoryJournal] = []
        for index in 0..<60 {
            let url = files.directory.appendingPathComponent("j\(index).journal")
            let interval: Duration = .milliseconds(index % 3 == 0 ? 0 : 50 * (index % 7))
            let journal = HistoryJournal(url: url, durability: .within(interval))
            try journal.append(dpPayload(index), fingerprint: nil)
            try journal.append(dpPayload(index + 1), fingerprint: nil)
            counters.append(journal._flushCounter)
            if index % 5 == 0 { kept.append(journal) }
        }
        #expect(dpEventually { counters.allSatisfy { $0() >= 1 } })
        #expect(dpEventually { kept.allSatisfy { !$0._hasScheduledFlush } })
        for index in 0..<60 {
            let url = files.directory.appendingPathComponent("j\(index).journal")
            #expect(try HistoryJournal(url: url, synchronizesAppends: false).records().count == 2)
        }
    }

    /// Two journals on one file with different choices: each keeps its own, and both take turns.
    @Test func twoJournalsOnOneFileWithDifferentChoices() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let every = files.journal(.everyAppend)
        let within = files.journal(.within(.milliseconds(30)))
        let system = files.journal(.system)
        for index in 0..<30 {
            let journal = [every, within, system][index % 3]
            try journal.append(dpPayload(index), fingerprint: "f\(index)")
        }
        #expect(every._flushCount == 10)
        #expect(dpEventually { within._flushCount >= 1 && !within._hasScheduledFlush })
        #expect(system._flushCount == 0)
        #expect(!every._hasScheduledFlush && !system._hasScheduledFlush)
        #expect(try dpTexts(system) == (0..<30).map { "record \($0)" })
        #expect(try every.records().map(\.sequence) == (0..<30).map { UInt64($0) })
    }

    /// Two journals on one file from several threads, one deferring: every record is there.
    @Test func twoJournalsOnOneFileFromSeveralThreads() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journals = [files.journal(.within(.zero)), files.journal(.within(.milliseconds(5)))]
        let findings = DPFindings()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            let journal = journals[thread % 2]
            for index in 0..<60 {
                let before = journal._flushCount
                do {
                    try journal.append(dpPayload(thread * 100 + index), fingerprint: nil)
                } catch {
                    findings.note("\(error)")
                }
                if !dpCovered(journal, since: before) { findings.note("no flush covers \(thread)/\(index)") }
            }
        }
        #expect(findings.all.isEmpty, "\(findings.all.prefix(5))")
        #expect(dpEventually { journals.allSatisfy { !$0._hasScheduledFlush } })
        #expect(try journals[0].records().count == 240)
        #expect(try journals[0].replay().ending == .complete)
    }
}

// MARK: - A flush that fails

@Suite struct JournalFailedFlushProbeTests {
    /// "A flush that fails is not lost: the next append flushes before it returns": the failure
    /// injected, the next append flushes in its own call, does not throw (its flush succeeds), and
    /// its record is kept.
    @Test func aFailedDeferredFlushMakesTheNextAppendFlush() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(20)))
        journal._failNextDeferredFlush()
        try journal.append(dpPayload(0), fingerprint: "a")
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(journal._flushCount == 0)
        try journal.append(dpPayload(1), fingerprint: "b")
        #expect(journal._flushCount >= 1)
        #expect(try dpTexts(journal) == ["record 0", "record 1"])
        #expect(try journal.lastRecord(matchingFingerprint: "b")?.sequence == 1)
        // The record of that append is flushed too, by the append itself or by a flush to come.
        #expect(dpEventually { !journal._hasScheduledFlush })
    }

    /// After the failure is made good, the journal defers again: with a long interval, the next
    /// append flushes nothing in its call and leaves a flush waiting.
    @Test func afterTheRecoveringAppendTheJournalDefersAgain() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(20)))
        journal._failNextDeferredFlush()
        try journal.append(dpPayload(0), fingerprint: nil)
        #expect(dpEventually { !journal._hasScheduledFlush })
        try journal.append(dpPayload(1), fingerprint: nil)
        #expect(dpEventually { !journal._hasScheduledFlush })
        let settled = journal._flushCount
        // Appends long after: each either finds a flush waiting or schedules one; none flushes twice.
        for index in 2..<40 { try journal.append(dpPayload(index), fingerprint: nil) }
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(journal._flushCount > settled)
        #expect(journal._flushCount <= settled + 5)
    }

    /// ``synchronize()`` after a failed deferred flush flushes, and the next append has nothing to
    /// report.
    @Test func synchronizeAfterAFailedDeferredFlush() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(20)))
        journal._failNextDeferredFlush()
        try journal.append(dpPayload(0), fingerprint: nil)
        #expect(dpEventually { !journal._hasScheduledFlush })
        try journal.synchronize()
        #expect(journal._flushCount == 1)
        try journal.append(dpPayload(1), fingerprint: nil)
        #expect(dpEventually { journal._flushCount == 2 && !journal._hasScheduledFlush })
        #expect(try dpTexts(journal) == ["record 0", "record 1"])
    }

    /// A failure injected, then the file deleted before the next append: it starts a new file at 0
    /// and throws nothing.
    @Test func aFailedDeferredFlushThenTheFileDeleted() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(20)))
        journal._failNextDeferredFlush()
        try journal.append(dpPayload(0), fingerprint: nil)
        #expect(dpEventually { !journal._hasScheduledFlush })
        try FileManager.default.removeItem(at: files.url)
        try journal.append(dpPayload(1), fingerprint: nil)
        #expect(try journal.records().map(\.sequence) == [0])
        #expect(try dpTexts(journal) == ["record 1"])
    }

    /// A failure injected while several threads append: no append throws (each flush that an
    /// append makes itself succeeds), no record is lost.
    @Test func aFailedDeferredFlushUnderSeveralThreads() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.zero))
        let findings = DPFindings()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<80 {
                if index % 10 == 0 { journal._failNextDeferredFlush() }
                do {
                    try journal.append(dpPayload(thread * 100 + index), fingerprint: nil)
                } catch {
                    findings.note("\(error)")
                }
            }
        }
        #expect(findings.all.isEmpty, "\(findings.all.prefix(5))")
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(try journal.records().count == 320)
    }
}

// MARK: - synchronize()

@Suite struct JournalSynchronizeProbeTests {
    /// "``HistoryJournal/synchronize()`` flushes at once, whatever the choice".
    @Test(arguments: [
        HistoryJournal.Durability.everyAppend, .system, .within(.seconds(600)), .within(.zero),
    ])
    func synchronizeFlushesUnderEveryChoice(_ durability: HistoryJournal.Durability) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(durability)
        try journal.append(dpPayload(0), fingerprint: nil)
        let before = journal._flushCount
        try journal.synchronize()
        #expect(journal._flushCount >= before + 1)
        try journal.synchronize()
        #expect(try dpTexts(journal) == ["record 0"])
    }

    /// "A journal without a file has nothing to flush": no error, and no file made.
    @Test(arguments: [
        HistoryJournal.Durability.everyAppend, .system, .within(.seconds(1)),
    ])
    func synchronizeWithoutAFileIsNoErrorAndMakesNone(_ durability: HistoryJournal.Durability) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(durability)
        try journal.synchronize()
        #expect(!files.exists)
        // Nor when the directory is missing.
        let lost = HistoryJournal(
            url: files.directory.appendingPathComponent("missing/doc.journal"), durability: durability)
        try lost.synchronize()
        #expect(!FileManager.default.fileExists(atPath: files.directory.appendingPathComponent("missing").path))
        // After a reset, likewise.
        try journal.append(dpPayload(0), fingerprint: nil)
        try journal.reset()
        try journal.synchronize()
        #expect(!files.exists)
    }

    /// A journal whose path is a directory: ``synchronize()`` makes nothing, changes nothing, and
    /// an append is refused with an error that names the path.
    @Test func synchronizeOnADirectoryPath() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        try FileManager.default.createDirectory(at: files.url, withIntermediateDirectories: false)
        let journal = files.journal(.within(.zero))
        do {
            try journal.synchronize()
        } catch {
            #expect(error.path == files.url.path)
        }
        do {
            try journal.append(dpPayload(0), fingerprint: nil)
            Issue.record("an append to a directory returned")
        } catch {
            #expect(error.path == files.url.path)
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: files.url.path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(!journal._hasScheduledFlush || dpEventually { !journal._hasScheduledFlush })
    }

    /// A file that its owner may only read (mode 0400) still flushes: a flush writes nothing the
    /// permissions guard. The records stay.
    @Test func synchronizeOnAReadOnlyFile() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.system)
        try journal.append(dpPayload(0), fingerprint: nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: files.url.path)
        try journal.synchronize()
        #expect(try dpTexts(journal) == ["record 0"])
    }

    /// A file replaced by something that is not a journal: synchronize() either flushes it or
    /// throws naming the path, and leaves it as it is.
    @Test func synchronizeAfterTheFileWasReplacedByAnotherFile() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.seconds(600)))
        try journal.append(dpPayload(0), fingerprint: nil)
        let other = files.directory.appendingPathComponent("other")
        try Data("not a journal".utf8).write(to: other)
        #expect(rename(other.path, files.url.path) == 0)
        do {
            try journal.synchronize()
        } catch {
            #expect(error.path == files.url.path)
        }
        #expect(try Data(contentsOf: files.url) == Data("not a journal".utf8))
    }

    /// synchronize() from several threads while others append under `.within(_:)`: no error, no
    /// record lost, and every flush is counted.
    @Test func synchronizeConcurrentlyWithAppends() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.milliseconds(2)))
        let findings = DPFindings()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<60 {
                do {
                    if thread % 2 == 0 {
                        try journal.append(dpPayload(thread * 100 + index), fingerprint: nil)
                    } else {
                        try journal.synchronize()
                    }
                } catch {
                    findings.note("\(error)")
                }
            }
        }
        #expect(findings.all.isEmpty, "\(findings.all.prefix(5))")
        #expect(dpEventually { !journal._hasScheduledFlush })
        #expect(try journal.records().count == 120)
        #expect(journal._flushCount >= 1)
    }
}

// MARK: - A recorder over each choice

@Suite struct JournalDurabilityRecorderProbeTests {
    /// "Each append is flushed ... as the journal's ``HistoryJournal/durability`` says": whatever
    /// the choice, the recorder's records recover the history exactly, as a full save saves it.
    @Test(arguments: [
        HistoryJournal.Durability.everyAppend, .system, .within(.zero), .within(.milliseconds(50)),
        .within(.seconds(600)),
    ])
    func aRecorderOverEachChoiceRecoversExactly(_ durability: HistoryJournal.Durability) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(durability)
        let box = HSBox("box")
        let stack = hsLinear(3, box: box)
        var version = 0
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(version)" }
        var saves: [String: Data] = [:]
        for step in 0..<24 {
            version += 1
            switch step % 6 {
            case 2, 4: stack.undo()
            case 3: stack.redo()
            case 5: stack.markClean()
            default: hsChange(box, to: 100 + step, on: stack)
            }
            saves["v\(version)"] = try jpEncoded(stack.savedHistory())
        }
        #expect(recorder.lastError == nil)
        for (fingerprint, saved) in saves {
            let recovered = try HistoryRecorder.recover(
                from: journal, fingerprint: fingerprint, registry: testRegistry())
            #expect(try recovered.map(jpEncoded) == saved, "at \(fingerprint)")
        }
        // A second journal, as the next launch, recovers the same before any flush.
        let reader = files.journal(.system)
        let last = try HistoryRecorder.recover(from: reader, fingerprint: "v\(version)", registry: testRegistry())
        #expect(try last.map(jpEncoded) == saves["v\(version)"])
        try journal.synchronize()
    }

    /// A recorder over `.within(_:)` with deferred flushes failing now and then: the appends that
    /// follow flush themselves and succeed, so the recorder sees no error and recovers exactly.
    @Test func aRecorderOverFailingDeferredFlushes() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let journal = files.journal(.within(.zero))
        let box = HSBox("box")
        let stack = hsLinear(2, box: box)
        var version = 0
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(version)" }
        for step in 0..<12 {
            journal._failNextDeferredFlush()
            version += 1
            if step % 4 == 3 { stack.undo() } else { hsChange(box, to: step, on: stack) }
            _ = dpEventually { !journal._hasScheduledFlush }
        }
        #expect(recorder.lastError == nil)
        let recovered = try HistoryRecorder.recover(from: journal, fingerprint: "v\(version)", registry: testRegistry())
        #expect(try recovered.map(jpEncoded) == jpEncoded(stack.savedHistory()))
    }
}

// MARK: - A path that is not a regular file

/// A flag set on one thread and read on another.
private final class DPFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false
    func set() {
        lock.lock()
        isSet = true
        lock.unlock()
    }
    var value: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isSet
    }
}

/// Opens the FIFO at `path` for writing without blocking, which releases a reader blocked in its
/// `open`, until one was released or `timeout` seconds pass; closes it again when `done` is set.
private func dpReleaseFIFOReader(_ path: String, until done: DPFlag, timeout: Double = 30) {
    let deadline = Date().addingTimeInterval(timeout)
    var descriptor: Int32 = -1
    while descriptor < 0 && Date() < deadline {
        descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 { Thread.sleep(forTimeInterval: 0.01) }
    }
    _ = dpEventually(timeout: timeout) { done.value }
    if descriptor >= 0 { close(descriptor) }
}

/// Runs `body` on a thread of its own and waits up to 5 s for it to return; when it has not, a
/// reader blocked on the FIFO at `path` is released (so that the test ends). Returns whether it
/// returned in time, and what it did ("returned", or "threw ...").
private func dpReturnsPromptly(fifo path: String, _ body: @escaping @Sendable () throws -> Void) -> (Bool, [String]) {
    let done = DPFlag()
    let outcome = DPFindings()
    Thread.detachNewThread {
        do {
            try body()
            outcome.note("returned")
        } catch {
            outcome.note("threw \(error)")
        }
        done.set()
    }
    let returned = dpEventually(timeout: 5) { done.value }
    if !returned { dpReleaseFIFOReader(path, until: done) }
    return (returned, outcome.all)
}

@Suite struct JournalNotARegularFileProbeTests {
    /// "Flushes the journal's file to the disk now ... O(1), plus the wait for the disk", and
    /// ``HistoryFileError/cannotRead(path:reason:code:)`` is the error of a path that "is not a
    /// regular file". A named pipe at the journal's path (another program, or a hostile one, made
    /// it) makes `synchronize()` wait in `open(O_RDONLY)` until some program opens the pipe for
    /// writing: forever. The append refuses the same path at once ("not a regular file").
    ///
    /// Reproduction: `mkfifo(path, 0o600)`, then
    /// `HistoryJournal(url: URL(fileURLWithPath: path), durability: .system).synchronize()` never
    /// returns. (The probe releases it after 5 s by opening the pipe for writing.)
    @Test
    func synchronizeOnANamedPipeReturns() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        #expect(mkfifo(files.url.path, 0o600) == 0)
        let journal = files.journal(.system)
        do {
            try journal.append(dpPayload(0), fingerprint: nil)
            Issue.record("an append to a named pipe returned")
        } catch {
            #expect(error.kind == .cannotWrite)
        }
        let (returned, outcome) = dpReturnsPromptly(fifo: files.url.path) { try journal.synchronize() }
        #expect(returned, "synchronize() was still waiting after 5 s; released: \(outcome)")
    }

    /// "at most the interval after the append" for every journal: the deferred flushes of all the
    /// journals run on one queue, one after the other. A named pipe renamed over one journal's file
    /// while its flush waits makes that flush wait in `open` forever, and no other journal of the
    /// process is flushed again: their records never reach the disk within their interval.
    ///
    /// Reproduction: journal A `.within(.milliseconds(200))` appends; `mkfifo(tmp)`,
    /// `rename(tmp, A's path)`; a second later journal B (another file, `.within(.zero)`) appends:
    /// B's `_flushCount` stays 0 and `_hasScheduledFlush` true until a program opens the pipe for
    /// writing. (The probe releases it after 5 s.)
    @Test
    func aNamedPipeOverOneJournalStallsNoOtherJournalsFlush() throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        let first = files.journal(.within(.milliseconds(200)))
        try first.append(dpPayload(0), fingerprint: nil)
        let pipe = files.directory.appendingPathComponent("pipe")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        #expect(rename(pipe.path, files.url.path) == 0)
        // Long enough for the first journal's flush to have started.
        Thread.sleep(forTimeInterval: 1)
        let second = HistoryJournal(
            url: files.directory.appendingPathComponent("other.journal"), durability: .within(.zero))
        try second.append(dpPayload(1), fingerprint: nil)
        let flushed = dpEventually(timeout: 5) { second._flushCount >= 1 }
        if !flushed {
            let done = DPFlag()
            DispatchQueue.global().async {
                _ = dpEventually { !first._hasScheduledFlush }
                done.set()
            }
            dpReleaseFIFOReader(files.url.path, until: done)
        }
        #expect(flushed, "another journal's deferred flush did not come within 5 s")
        #expect(dpEventually { second._flushCount >= 1 })
    }

    /// The same named pipe for a replay, a record read and a saved history's read: each refuses it
    /// at once ("not a regular file", or no record), never waiting for a writer to open the pipe.
    @Test(arguments: ["replay", "records", "file store read"])
    func theReadersOfANamedPipeReturn(_ reader: String) throws {
        let files = try DPFiles()
        defer { files.cleanUp() }
        #expect(mkfifo(files.url.path, 0o600) == 0)
        let journal = files.journal(.system)
        let path = files.url
        let (returned, outcome) = dpReturnsPromptly(fifo: files.url.path) {
            switch reader {
            case "replay": _ = try journal.replay()
            case "records": _ = try journal.records()
            default: _ = try HistoryFileStore(url: path).read()
            }
        }
        #expect(returned, "\(reader) was still waiting after 5 s; released: \(outcome)")
    }
}
