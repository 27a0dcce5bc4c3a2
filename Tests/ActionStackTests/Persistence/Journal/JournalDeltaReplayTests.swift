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

/// Issue 29: a recorder appends what changed, and a recovery replays the last snapshot and the
/// records after it into exactly the history a full save would have saved.
@MainActor
@Suite struct JournalDeltaReplayTests {
    /// Runs the random driver's operations (commands among closures, undo, redo, coalescing, clean
    /// marks, removals, trims, jumps, branches, saves and restores) on a recorded stack, and after
    /// each one compares the recovery from the journal with a full save.
    func replayAgreesWithAFullSave(seed: UInt64, tree: Bool, floor: Int) throws -> (checked: Int, deltas: Int) {
        let driverCase = DriverGenerator.makeCase(seed: seed, count: 150, tree: tree, commands: true)
        let world = StackWorld(driverCase)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-delta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var generation = 0
        func makeRecorder() -> (HistoryJournal, HistoryRecorder, ActionStack) {
            generation += 1
            let journal = HistoryJournal(
                url: directory.appendingPathComponent("doc\(generation).journal"), synchronizesAppends: false)
            let recorder = HistoryRecorder(journal: journal, stack: world.stack) { "doc" }
            recorder._compactionFloor = floor
            return (journal, recorder, world.stack)
        }
        var (journal, recorder, recorded) = makeRecorder()
        var checked = 0
        var deltas = 0
        for (index, op) in driverCase.ops.enumerated() {
            world.plan.resetBudget()
            world.perform(op)
            if world.stack !== recorded { (journal, recorder, recorded) = makeRecorder() }
            // The full save is a call: it sweeps freed targets, and the recorder records at its end.
            // The driver's observers make no change meanwhile (they could open a group, and the
            // recorder would rightly wait).
            let planWasEnabled = world.plan.enabled
            world.plan.enabled = false
            defer { world.plan.enabled = planWasEnabled }
            guard let saved = try? world.stack.savedHistory() else { continue }
            #expect(
                recorder.lastError == nil, "seed \(seed) op \(index) \(op): \(String(describing: recorder.lastError))")
            guard recorder.recordCount > 0 else { continue }
            let recovered = try #require(
                try HistoryRecorder.recover(from: journal, fingerprint: "doc", registry: testRegistry()))
            let replayed = try #require(recovered.histories[HistoryRecorder.defaultHistoryName])
            let expected = try bytes(saved)
            let actual = try bytes(replayed)
            if expected != actual {
                Issue.record(
                    """
                    seed \(seed) op \(index) \(op): the replayed journal differs from a full save
                      saved:    \(String(decoding: expected, as: UTF8.self))
                      replayed: \(String(decoding: actual, as: UTF8.self))
                    """)
                return (checked, deltas)
            }
            checked += 1
        }
        for record in try journal.records()
        where !record.payload.starts(with: Data(#"{"format":"ActionStack.Journal","version":1,"kind":"snapshot""#.utf8))
        {
            deltas += 1
        }
        return (checked, deltas)
    }

    @Test(arguments: [false, true])
    func aReplayedJournalIsTheFullSaveAfterEveryOperation(tree: Bool) throws {
        var checked = 0
        var deltas = 0
        for seed in UInt64(1)...UInt64(Workload.scaled(12)) {
            let result = try replayAgreesWithAFullSave(seed: seed &+ (tree ? 900_000 : 0), tree: tree, floor: 1 << 18)
            checked += result.checked
            deltas += result.deltas
        }
        print("journal replay\(tree ? " (tree)" : ""): \(checked) full saves compared, \(deltas) delta records")
        // The sanitized runs divide the seeds (Workload): fewer comparisons, and a run of one seed
        // may end on a snapshot; the comparisons made still hold.
        #expect(checked > 100 / Workload.divisor)
        if Workload.divisor == 1 { #expect(deltas > 0) }
    }

    /// A longer run: JOURNAL_SOAK_SEEDS=500 swift test --filter JournalDeltaReplayTests/soak
    @Test(.enabled(if: ProcessInfo.processInfo.environment["JOURNAL_SOAK_SEEDS"] != nil))
    func soak() throws {
        let seeds = UInt64(ProcessInfo.processInfo.environment["JOURNAL_SOAK_SEEDS"] ?? "") ?? 500
        var checked = 0
        for seed in UInt64(1_000_000)..<(1_000_000 + seeds) {
            for tree in [false, true] {
                checked += try replayAgreesWithAFullSave(seed: seed, tree: tree, floor: seed % 2 == 0 ? 0 : 1 << 18)
                    .checked
            }
        }
        print("journal replay soak: \(checked) full saves compared")
    }

    @Test(arguments: [false, true])
    func aReplayedJournalIsTheFullSaveThroughCompactions(tree: Bool) throws {
        var checked = 0
        for seed in UInt64(1)...UInt64(Workload.scaled(6)) {
            checked += try replayAgreesWithAFullSave(seed: seed &+ (tree ? 700_000 : 300_000), tree: tree, floor: 0)
                .checked
        }
        #expect(checked > 50 / Workload.divisor)
    }
}
