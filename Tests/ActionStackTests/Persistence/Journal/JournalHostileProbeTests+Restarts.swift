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

// Hostile probes, continued: the app killed at random points (now and then in the middle of an
// append, which leaves a torn last record), relaunched, its history recovered from the journal and
// restored into a fresh stack, a new recorder made on the same journal, and the editing going on,
// again and again. The promises: "a crash loses at most the change in progress, and a torn last
// record is ignored"; the recovery is "the history as a full save would have saved it at the last
// record that matches the document the app opened"; "the first record is made by the stack's next
// change (a restore from the journal included)".

/// A document that is edited, killed and relaunched.
final class JHRelaunches {
    let directory: URL
    let clock = ManualClock()
    let shape: ActionStack.HistoryShape
    let maximumSteps: Int
    var rig: JPRig
    /// The document's values (the box's and the pen's, if any) after each fingerprint.
    var documents: [String: (Int, Int?)] = [:]
    /// The encoded full saves, by fingerprint, over every launch.
    var expected: [String: Data] = [:]
    var operation = 0
    var launches = 1
    /// The steps the relaunches restored, over every launch.
    var restoredSteps = 0

    init(shape: ActionStack.HistoryShape, maximumSteps: Int) throws {
        self.shape = shape
        self.maximumSteps = maximumSteps
        rig = try JPRig(shape: shape, maximumSteps: maximumSteps, clock: clock)
        directory = rig.directory
    }

    func cleanUp() { rig.cleanUp() }

    /// One random operation of the rig's, noted.
    func edit(_ random: inout SeededGenerator) {
        rig.run { rig.randomOperation(&random) }
        operation = rig.operation
        expected[rig.fingerprint] = rig.expected[rig.fingerprint]
        documents[rig.fingerprint] = (rig.box.value, rig.pen?.value)
    }

    /// Kills the app (after cutting its last record at `cut` bytes from its end, if any), then
    /// relaunches it: the document as it was at the journal's last intact record, its history
    /// recovered and restored, and a new recorder. Returns the problems found.
    func killAndRelaunch(cut: Int?, restoreFirst: Bool) throws -> [String] {
        var problems: [String] = []
        let url = rig.journal.url
        rig.recorder = nil
        if let cut, let bytes = try? Data(contentsOf: url), cut < bytes.count {
            try bytes.prefix(bytes.count - cut).write(to: url)
        }
        // The document on disk is the one of the journal's last intact record (the app writes
        // the document and its journal in step).
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        // With no intact record, the document is the one before the first change: no history.
        let fingerprint = try journal.records().last?.fingerprint ?? "start"
        guard let document = fingerprint == "start" ? (0, 0) : documents[fingerprint] else {
            return ["launch \(launches): the journal's last record \(fingerprint) is no document's"]
        }
        let recovered = try HistoryRecorder.recover(from: journal, fingerprint: fingerprint, registry: testRegistry())
        let history = recovered?.histories[HistoryRecorder.defaultHistoryName]
        let got = try history.map(jpEncoded)
        if fingerprint != "start", got != expected[fingerprint] {
            problems.append(
                "launch \(launches): the recovery at \(fingerprint) is not its full save\n  got:  \(jpText(got))\n  save: \(jpText(expected[fingerprint]))"
            )
            return problems
        }
        launches += 1
        let next = try JPRig(
            shape: shape, maximumSteps: maximumSteps, clock: clock, directory: directory, records: false)
        next.operation = operation
        next.nextValue = rig.nextValue
        next.box.value = document.0
        if let pen = document.1 { next.livePen().value = pen } else { next.pen = nil }
        let objects: [String: HSBox] = ["box": next.box, "pen": next.pen].compactMapValues { $0 }
        func startRecording() {
            next.recorder = HistoryRecorder(journal: next.journal, stack: next.stack, maximumSteps: maximumSteps) {
                [unowned next] in next.fingerprint
            }
        }
        if !restoreFirst { startRecording() }
        if let history {
            let report = try next.stack.restoreHistory(history) { objects[$0] }
            restoredSteps += report.restoredSteps
            if !report.cuts.isEmpty { problems.append("launch \(launches): the restore cut \(report.cuts)") }
            let resaved = try jpEncoded(next.stack.savedHistory(maximumSteps: maximumSteps))
            if history.omittedSteps == 0, resaved != got {
                problems.append(
                    "launch \(launches): the restored stack saves another history\n  restored: \(jpText(resaved))\n  recovered: \(jpText(got))"
                )
            }
        }
        if restoreFirst { startRecording() }
        rig = next
        return problems
    }
}

@Suite(.serialized) struct JournalHostileRelaunchProbeTests {
    /// Edits, a kill now and then (one in three in the middle of an append), a relaunch that
    /// recovers and restores, and the edits going on: every recovery is the full save made at its
    /// record, and after each relaunch every later record is too.
    @Test(arguments: [51, 52] as [UInt64], [ActionStack.HistoryShape.linear, .tree])
    func killedAndRelaunchedAgainAndAgain(seed: UInt64, shape: ActionStack.HistoryShape) throws {
        let app = try JHRelaunches(shape: shape, maximumSteps: seed.isMultiple(of: 2) ? .max : 7)
        defer { app.cleanUp() }
        var random = SeededGenerator(seed: seed &* 6_151 &+ (shape == .tree ? 1 : 0))
        var problems: [String] = []
        for _ in 0..<10 {
            for _ in 0..<random.int(1...14) { app.edit(&random) }
            problems += try app.rig.mismatches().map { "launch \(app.launches): \($0)" }
            let cut = random.chance(33) ? random.int(1...40) : nil
            problems += try app.killAndRelaunch(cut: cut, restoreFirst: random.chance(50))
            if !problems.isEmpty { break }
        }
        #expect(problems.isEmpty, "seed \(seed) \(shape): \(problems.first ?? "")")
        #expect(app.launches > 5 && app.restoredSteps > 5, "the relaunches restored histories")
    }
}
