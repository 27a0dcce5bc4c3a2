// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackExampleTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real process, killed with SIGKILL at random moments while it writes a saved history and
/// appends to its journal: after each kill, the file is exactly one complete generation and the
/// journal replays every record it acknowledged.
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.timeLimit(.minutes(10)))
struct CrashSafetyTests {
    /// How many times the writer is killed.
    static let kills = 30

    /// What the writer said it finished before it was killed: the last "wrote N" and
    /// "appended N" lines.
    struct Progress {
        var wrote: UInt64?
        var appended: UInt64?

        init(_ output: String) {
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count == 2, let generation = UInt64(words[1]) else { continue }
                if words[0] == "wrote" { wrote = generation }
                if words[0] == "appended" { appended = generation }
            }
        }
    }

    @Test func aKilledWriterLeavesOneCompleteFileAndAnIntactJournal() throws {
        let writer = try ChildProcess.builtExecutable(named: "history-writer")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = HistoryFileStore(url: directory.appendingPathComponent("doc.history"))
        let journal = HistoryJournal(
            url: directory.appendingPathComponent("doc.history.journal"),
            maximumRecords: HistoryWriterContent.journalMaximumRecords,
            maximumBytes: HistoryWriterContent.journalMaximumBytes
        )

        // The generation the file holds (0: no file yet) and the journal's last record has.
        var fileGeneration: UInt64 = 0
        var journalGeneration: UInt64 = 0
        var generationsWritten: UInt64 = 0
        for kill in 1...Self.kills {
            let child = try ChildProcess.start(
                writer, [store.url.path, journal.url.path, String(fileGeneration + 1)], separateErrors: true)
            // Once the writer has finished its first write (it has started up), a random moment
            // within its next few generations.
            let started = ContinuousClock.now
            while child.outputSoFar().isEmpty && ContinuousClock.now - started < .seconds(10) { usleep(1_000) }
            usleep(UInt32.random(in: 0...40_000))
            child.send(SIGKILL)
            let result = try child.wait(timeLimit: .seconds(20))
            try #require(result.status == 128 + SIGKILL, "kill \(kill): the writer was not killed: \(result.errors)")
            let progress = Progress(result.output)

            // The file: one generation's complete contents, the last one the writer finished or
            // the one it was writing; never a mix, never empty, never missing once written.
            let knownFile = progress.wrote ?? fileGeneration
            let data = try store.read()
            let found = data.map { HistoryWriterContent.generation(of: $0, kind: .savedFile) } ?? 0
            let contents = data.map { "\($0.count) bytes" } ?? "nothing"
            let seen = found.map { "generation \($0)" } ?? "no generation's contents"
            try #require(
                found == knownFile || found == knownFile + 1,
                "kill \(kill): the file holds \(contents), \(seen), where \(knownFile) or \(knownFile + 1) was expected"
            )
            generationsWritten += found! - fileGeneration
            fileGeneration = found!

            // The journal: no damaged record (a torn last one is allowed and ignored), every
            // record whole and in order, and the last one the writer acknowledged or the one it
            // was appending (each generation's record is appended after its "wrote" line).
            let replay = try journal.replay()
            if replay.ending.reason != nil { Issue.record("kill \(kill): \(replay.ending)") }
            var previous: UInt64 = 0
            for record in replay.records {
                let generation = HistoryWriterContent.generation(of: record.payload, kind: .journalRecord)
                try #require(generation != nil, "kill \(kill): record \(record.sequence) is no generation's")
                #expect(record.fingerprint == HistoryWriterContent.fingerprint(generation!))
                #expect(generation! > previous, "kill \(kill): records in the order they were appended")
                previous = generation!
            }
            let knownJournal = progress.appended ?? journalGeneration
            let inProgress = progress.wrote ?? knownJournal
            #expect(
                previous == knownJournal || previous == inProgress,
                "kill \(kill): the journal ends at \(previous), where \(knownJournal) or \(inProgress) was expected"
            )
            #expect(previous <= fileGeneration, "a record is appended after its generation is saved")
            journalGeneration = previous
            if previous == fileGeneration && previous > 0 {
                // The app opens the saved file: its record is the journal's last.
                let record = try journal.lastRecord(matchingFingerprint: HistoryWriterContent.fingerprint(previous))
                #expect(record == replay.records.last)
            }
            // The read and the replay deleted the temporary files that the killed write or
            // compaction left (they can hold history text).
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names.allSatisfy { !$0.hasSuffix(".partial") }, "kill \(kill): \(names)")
        }
        #expect(generationsWritten > 0, "the writer got to write between the kills")
    }

    /// Two writers, in two processes, appending to one journal (each with its own saved file) and
    /// killed at random moments, while this process replays it again and again: they take turns
    /// under the journal's lock, so the journal never holds a damaged record (a torn last one is
    /// allowed and ignored), each writer's records are in its order, and each append follows the
    /// other's records: a record once seen is never overwritten by another with its sequence
    /// number, nor cut off. The journal's tight limits make them compact, renaming new files over
    /// each other's, every few appends.
    @Test func twoWritersOnOneJournalTakeTurns() throws {
        let writer = try ChildProcess.builtExecutable(named: "history-writer")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = HistoryJournal(
            url: directory.appendingPathComponent("doc.history.journal"),
            maximumRecords: HistoryWriterContent.journalMaximumRecords,
            maximumBytes: HistoryWriterContent.journalMaximumBytes
        )
        // Writer 0's generations are 1, 2, ... and writer 1's 1_000_001, 1_000_002, ... after
        // 2_000_000 times the round: each record tells its writer, and counts up with the rounds.
        let span: UInt64 = 1_000_000
        let writerOf = { (generation: UInt64) in Int((generation - 1) / span % 2) }
        // The generation of each record seen, by sequence number, and the last sequence number seen.
        var seen: [UInt64: UInt64] = [:]
        var newest: UInt64?
        func observe(_ replay: HistoryJournal.Replay, _ round: Int) {
            for record in replay.records {
                guard let generation = HistoryWriterContent.generation(of: record.payload, kind: .journalRecord) else {
                    continue  // reported below
                }
                if let known = seen[record.sequence], known != generation {
                    let sequence = record.sequence
                    Issue.record("round \(round): record \(sequence) was of generation \(known), then \(generation)")
                }
                seen[record.sequence] = generation
            }
            if let newest, (replay.records.last?.sequence).map({ $0 < newest }) ?? true {
                let sequences = replay.records.map(\.sequence)
                Issue.record("round \(round): record \(newest) was seen, and is gone: \(sequences)")
            }
            newest = Swift.max(newest ?? 0, replay.records.last?.sequence ?? 0)
        }
        for round in 1...8 {
            let children = try (0..<2).map { index in
                let store = directory.appendingPathComponent("doc-\(index).history")
                let first = UInt64(round) * 2 * span + UInt64(index) * span + 1
                return try ChildProcess.start(
                    writer, [store.path, journal.url.path, String(first)], separateErrors: true)
            }
            // Once both have appended (each got a turn), a random moment later; replaying meanwhile.
            let started = ContinuousClock.now
            while !children.allSatisfy({ $0.outputSoFar().contains("appended") })
                && ContinuousClock.now - started < .seconds(20)
            {
                usleep(1_000)
            }
            let end = ContinuousClock.now + .microseconds(Int.random(in: 0...200_000))
            repeat { observe(try journal.replay(), round) } while ContinuousClock.now < end
            for child in children { child.send(SIGKILL) }
            var inProgress: [UInt64] = []
            for (index, child) in children.enumerated() {
                let result = try child.wait(timeLimit: .seconds(20))
                try #require(
                    result.status == 128 + SIGKILL, "round \(round): writer \(index) failed: \(result.errors)")
                let progress = Progress(result.output)
                try #require(progress.appended != nil, "round \(round): writer \(index) never appended")
                inProgress.append(progress.wrote ?? progress.appended!)
            }

            let replay = try journal.replay()
            observe(replay, round)
            if replay.ending.reason != nil { Issue.record("round \(round): \(replay.ending)") }
            #expect(!replay.records.isEmpty, "round \(round)")
            var previous: [UInt64] = [0, 0]
            for record in replay.records {
                let generation = HistoryWriterContent.generation(of: record.payload, kind: .journalRecord)
                try #require(generation != nil, "round \(round): record \(record.sequence) is no generation's")
                #expect(record.fingerprint == HistoryWriterContent.fingerprint(generation!))
                let index = writerOf(generation!)
                #expect(generation! > previous[index], "round \(round): writer \(index)'s records in its order")
                #expect(generation! <= inProgress[index], "round \(round): a record its writer wrote")
                previous[index] = generation!
            }
            // The last record is its writer's last acknowledged append, or the one it was making:
            // no later append of the other writer overwrote it.
            if let last = replay.records.last,
                let generation = HistoryWriterContent.generation(of: last.payload, kind: .journalRecord)
            {
                #expect(generation >= inProgress[writerOf(generation)] - 1, "round \(round)")
            }
            // The replay deleted the temporary files that killed compactions left (they can hold
            // history text); the saved files' are their stores' to delete.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            let journalName = journal.url.lastPathComponent
            #expect(names.allSatisfy { !$0.hasPrefix(".\(journalName).") }, "round \(round): \(names)")
        }
    }
}
