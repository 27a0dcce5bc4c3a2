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

/// Issue 29: a recorder that appends records of what changed is killed at random moments of a walk
/// through its history (new steps, coalescing, steps whose actions await, undo, redo and jumps, some
/// awaited and some of those failing and rolled back, clean marks, removals, trims, and in a
/// branching history time moves, jumps to nodes and branches); each time, the journal's last record, replayed, is
/// the history a full save would have saved after the step it names. The branching walk's journal
/// defers its flushes (`HistoryJournal.Durability.within`), so kills also fall while a flush runs.
@Suite(.timeLimit(.minutes(10)))
struct RecorderCrashTests {
    static let kills = 8

    /// The archive of a full save after `steps` steps of the walk from `seed`, and the operations
    /// it awaited and saw fail. On the main actor, as the writer's walk runs: there the Edit menu's
    /// undo of a step that awaits starts a request, where off the main thread it is refused as a
    /// misuse, and the two walks would part.
    @MainActor
    static func walk(
        seed: UInt64, tree: Bool, steps: Int, fingerprint: String
    ) async throws -> (archive: Data, (awaited: Int, failed: Int)) {
        var walk = RecorderWalk(seed: seed, tree: tree)
        for _ in 0..<steps { await walk.step() }
        let archive = try HistoryArchive(
            fingerprint: fingerprint, histories: [HistoryRecorder.defaultHistoryName: walk.stack.savedHistory()]
        ).encoded()
        return (archive, (walk.awaited, walk.failed))
    }

    @Test(arguments: [false, true])
    func aKilledRecordersJournalReplaysToAFullSave(tree: Bool) async throws {
        let writer = try ChildProcess.builtExecutable(named: "history-writer")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-recorder-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"))
        var deltas = 0
        var checked = 0
        var awaited = 0
        var failed = 0
        for kill in 1...Self.kills {
            let seed = UInt64(kill) &* 7_919 &+ (tree ? 1 : 0)
            let child = try ChildProcess.start(
                writer, ["--recorder", journal.url.path, String(seed), tree ? "tree" : "linear"],
                separateErrors: true)
            let started = ContinuousClock.now
            while child.outputSoFar().isEmpty && ContinuousClock.now - started < .seconds(10) { usleep(1_000) }
            usleep(UInt32.random(in: 20_000...150_000))
            child.send(SIGKILL)
            let result = try child.wait(timeLimit: .seconds(20))
            try #require(result.status == 128 + SIGKILL, "kill \(kill): the writer was not killed: \(result.errors)")
            var acknowledged = 0
            for line in result.output.split(separator: "\n") {
                let words = line.split(separator: " ")
                if words.count == 2, words[0] == "recorded", let step = Int(words[1]) { acknowledged = step }
            }
            let records = try journal.records()
            guard let last = records.last, let fingerprint = last.fingerprint else { continue }
            deltas +=
                records.filter {
                    $0.payload.starts(with: Data(#"{"format":"ActionStack.Journal","version":1,"kind":"delta""#.utf8))
                }.count
            let step = try #require(Int(fingerprint.dropFirst("step-".count)))
            // The last record is of a step the writer finished, or of the one it was in.
            #expect(step <= acknowledged + 1, "kill \(kill): a record of step \(step) after \(acknowledged)")
            let recovered = try #require(
                try HistoryRecorder.recover(from: journal, fingerprint: fingerprint, registry: RecorderWalk.registry))
            // The same walk in this process, up to that step.
            let (expected, walked) = try await Self.walk(seed: seed, tree: tree, steps: step, fingerprint: fingerprint)
            awaited += walked.awaited
            failed += walked.failed
            let actual = try HistoryArchive(
                fingerprint: fingerprint, histories: recovered.histories
            ).encoded()
            checked += 1
            #expect(
                expected == actual,
                "kill \(kill) at step \(step) of \(acknowledged): \(String(decoding: actual, as: UTF8.self)) where a full save is \(String(decoding: expected, as: UTF8.self))"
            )
        }
        print(
            "killed recorder\(tree ? " (tree)" : ""): \(checked) recoveries compared, \(deltas) delta records, "
                + "\(awaited) awaited operations before the kills, \(failed) failed and rolled back")
        #expect(checked > 0)
        #expect(deltas > 0)
        // The walks the writers were killed in awaited operations, and some failed.
        #expect(awaited > 0)
        #expect(failed > 0)
    }
}
