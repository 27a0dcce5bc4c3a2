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
@Suite(.timeLimit(.minutes(5)))
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
            if case .corruptRecord = replay.ending { Issue.record("kill \(kill): \(replay.ending)") }
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
}
