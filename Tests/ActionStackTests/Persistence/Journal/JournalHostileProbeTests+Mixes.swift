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

// Hostile probes, continued: the recorder mixed with the journal's own limits, with a second
// recorder on the same file (two documents, one journal), with a stack group's Edit menu, with
// observers and error handlers that call back into the recorder and the journal, and with awaited
// operations whose journal is harmed while they await.

/// A stack recorded into a journal with tight limits, with simple random changes.
private final class JHLimited {
    let url: URL
    let journal: HistoryJournal
    let stack = ActionStack()
    let box = HSBox("box")
    var recorder: HistoryRecorder!
    var operation = 0
    var value = 0

    init(maximumRecords: Int, maximumBytes: Int, shape: ActionStack.HistoryShape) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("jh-limits-\(UUID().uuidString).journal")
        journal = HistoryJournal(
            url: url, maximumRecords: maximumRecords, maximumBytes: maximumBytes, durability: .system)
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        stack.historyShape = shape
        recorder = HistoryRecorder(journal: journal, stack: stack) { [unowned self] in "f\(self.operation)" }
    }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }

    func randomOperation(_ random: inout SeededGenerator) {
        operation += 1
        switch random.next(10) {
        case 0..<4:
            value += 1
            HSSet(value: value).perform(on: box, in: stack)
            stack.setActionName("Set \(value)")
            stack.endEvent()
        case 4: stack.undo()
        case 5: stack.redo()
        case 6: stack.markClean()
        case 7:
            value += 1
            stack.registerUndo(HSSet(value: box.value), on: box, key: box.id, options: .coalescing("typing"))
            box.value = value
            stack.setActionName("Typing")
            stack.endEvent()
        case 8: _ = try? stack.earlier(random.int(1...3))
        default: stack.jump(to: random.int(0...(stack.undoCount + stack.redoCount)))
        }
    }

    /// The recovery at the current fingerprint, encoded, and the full save.
    func recoveryAndSave() throws -> (Data?, Data) {
        let recovered = try HistoryRecorder.recover(
            from: journal, fingerprint: "f\(operation)", registry: testRegistry()
        )
        .map(jpEncoded)
        return (recovered, try jpEncoded(stack.savedHistory()))
    }
}

/// An asynchronous command that waits at its box's gate, then fails when the box's value is
/// negative.
struct JHGatedSet: AsyncUndoCommand {
    static let commandType = "jh.gated"
    var value: Int
    struct Refused: Error {}
    nonisolated(nonsending) func perform(on box: HSBox, in stack: ActionStack) async throws {
        await RPGates.pass(box.id)
        if box.value < 0 { throw Refused() }
        stack.registerAsyncUndo(JHGatedSet(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

/// The recovery at `fingerprint`, read with the gated command's type too.
private func jhRecovered(_ rig: JPRig, _ fingerprint: String) throws -> Data? {
    var registry = testRegistry()
    registry.register(JHGatedSet.self)
    return try HistoryRecorder.recover(from: rig.journal, fingerprint: fingerprint, registry: registry).map(jpEncoded)
}

/// The last record's archive, read with the gated command's type too.
private func jhLastRecorded(_ rig: JPRig) throws -> Data? {
    var registry = testRegistry()
    registry.register(JHGatedSet.self)
    return try HistoryRecorder.recordedArchives(in: rig.journal, registry: registry).last.map(jpEncoded)
}

@Suite(.serialized) struct JournalHostileMixProbeTests {
    /// "A recorder also writes a snapshot before the journal's own limits (maximumRecords, half of
    /// maximumBytes) would drop the one its records follow": whatever the limits, the recovery at
    /// the document's fingerprint after each change is the full save.
    @Test(arguments: [(2, 1 << 20), (5, 1 << 20), (1_000, 3_000), (4, 5_000)])
    func aRecorderUnderTightLimitsRecoversEveryChange(maximumRecords: Int, maximumBytes: Int) throws {
        for shape in [ActionStack.HistoryShape.linear, .tree] {
            let world = JHLimited(maximumRecords: maximumRecords, maximumBytes: maximumBytes, shape: shape)
            defer { world.cleanUp() }
            var random = SeededGenerator(seed: UInt64(maximumRecords &* 31 &+ maximumBytes))
            for index in 0..<30 {
                let before = world.recorder.recordCount
                world.randomOperation(&random)
                guard world.recorder.recordCount > before else { continue }
                #expect(world.recorder.lastError == nil, "\(shape) op \(index): \(world.recorder.lastError!)")
                let (recovered, saved) = try world.recoveryAndSave()
                if recovered != saved {
                    Issue.record(
                        "\(maximumRecords)/\(maximumBytes) \(shape) op \(index): recovered \(jpText(recovered)) != save \(jpText(saved))"
                    )
                    return
                }
            }
        }
    }

    /// Two documents' recorders append to one journal (``HistoryJournal`` allows two journals on
    /// one file; "each one's append follows the other's records"), each compacting in its turn:
    /// every record each journal holds is its own full save at that fingerprint.
    @Test(arguments: [31, 32, 33] as [UInt64])
    func twoRecordersOnOneFileWithCompactionsKeepEachOthersHistories(seed: UInt64) throws {
        let first = try JPRig(maximumBytes: 1 << 20, prefix: "a")
        defer { first.cleanUp() }
        let second = try JPRig(maximumBytes: 1 << 20, directory: first.directory, prefix: "b")
        first.recorder?._compactionFloor = 2_000
        second.recorder?._compactionFloor = 2_000
        var random = SeededGenerator(seed: seed)
        for index in 0..<120 {
            let rig = random.chance(50) ? first : second
            let before = rig.recorder?.recordCount
            rig.run { rig.randomOperation(&random) }
            // Between its own records, a recorder's snapshot may be compacted away by the other
            // ("A record that cannot be replayed (its snapshot was compacted away by a program other
            // than the recorder ...) throws"): each is checked when it has just appended.
            for rig in [rig] where rig.recorder?.recordCount != before {
                #expect(rig.recorder?.lastError == nil, "op \(index): \(String(describing: rig.recorder?.lastError))")
                let last = rig.fingerprints.last!
                // The last fingerprint may have made no record (a query); the recovery at the newest
                // recorded fingerprint must be the save made then.
                guard
                    let record = try rig.journal.records().last(where: {
                        $0.fingerprint?.hasPrefix(rig.prefix) ?? false
                    }),
                    let fingerprint = record.fingerprint
                else { continue }
                let recovered: Data?
                do {
                    recovered = try rig.recovered(fingerprint)
                } catch {
                    Issue.record(
                        "seed \(seed) op \(index) \(rig.prefix): the recovery at \(fingerprint) throws \(error)")
                    return
                }
                if recovered != rig.expected[fingerprint] {
                    Issue.record(
                        "seed \(seed) op \(index) \(rig.prefix) (last \(last)): recovered at \(fingerprint) \(jpText(recovered)) != \(jpText(rig.expected[fingerprint]))"
                    )
                    return
                }
            }
        }
    }

    /// A stack group's Edit menu acts on the active stack; each stack's recorder records what the
    /// group's undo and redo did to it, and nothing for the stacks it did not touch.
    @Test func aStackGroupsUndoAndRedoAreRecordedForTheActiveStackOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jh-group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let group = ActionStackGroup()
        var rigs: [JPRig] = []
        for name in ["a", "b"] {
            let rig = try JPRig(directory: directory, prefix: name, fileName: "\(name).journal")
            group.add(rig.stack)
            rigs.append(rig)
        }
        var random = SeededGenerator(seed: 41)
        for index in 0..<120 {
            let rig = rigs[random.next(2)]
            group.activeStack = rig.stack
            let counts = rigs.map { $0.recorder?.recordCount ?? 0 }
            switch random.next(4) {
            case 0: rig.run { rig.change() }
            case 1: rig.run { group.undo() }
            case 2: rig.run { group.redo() }
            default: rig.run { rig.stack.markClean() }
            }
            for (other, count) in zip(rigs, counts) where other !== rig {
                #expect(other.recorder?.recordCount == count, "op \(index): a stack nobody touched was recorded")
            }
        }
        for rig in rigs {
            // Operations made through the group on the other stack belong to it: note their saves.
            let mismatches = try rig.mismatches()
            #expect(mismatches.isEmpty, "\(mismatches)")
            let records = try rig.journal.records()
            let archives = try HistoryRecorder.recordedArchives(in: rig.journal, registry: testRegistry())
            #expect(records.count == archives.count)
            #expect(
                try archives.last.map(jpEncoded) == jpEncoded(rig.stack.savedHistory()), "the last record is the save")
        }
    }

    /// A state observer runs "after the outermost call has finished" (``ActionStack/observe(_:)``),
    /// so ``HistoryRecorder/record()`` from one is not "in the middle of a call": it appends the
    /// record the call's end would have appended, and the call's end appends no repeat. A journal
    /// reset from an observer is followed by a snapshot at the call's end when the recorder has not
    /// recorded yet, and at the next change when it has ("after ``HistoryJournal/reset()``", and a
    /// reset followed by a query appends nothing): the journal is then either empty or its last
    /// record is the full save.
    @Test(arguments: ["record", "reset", "both"])
    func anObserverThatCallsTheRecorderOrResetsTheJournal(what: String) throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        var appended: [Bool] = []
        let token = rig.stack.observe { (_: ActionStack.State) in
            if what != "reset" { appended.append(rig.recorder?.record() ?? false) }
            if what != "record" { try? rig.journal.reset() }
        }
        defer { token.cancel() }
        for round in 0..<6 {
            let before = rig.recorder?.recordCount ?? 0
            rig.run { rig.change() }
            #expect(rig.recorder?.recordCount == before + 1, "\(what) round \(round): one record for one change")
            rig.run { rig.stack.undo() }
            rig.run { rig.stack.markClean() }
            rig.run { rig.keystroke() }
            #expect(rig.recorder?.lastError == nil)
            let records = try rig.journal.records()
            let last = try HistoryRecorder.recordedArchives(in: rig.journal, registry: testRegistry()).last
            if what == "both" && records.isEmpty { continue }
            #expect(try last.map(jpEncoded) == jpEncoded(rig.stack.savedHistory()), "\(what): the last record")
        }
        if what != "reset" { #expect(appended.contains(true), "record() from a state observer appends") }
    }

    /// ``HistoryRecorder/onError`` that resets the journal, then the journal deleted and its
    /// directory made unwritable: the error is reported, no stack changes, and the first change
    /// after the directory is back is recorded as a snapshot that recovers.
    @Test func anErrorHandlerThatResetsTheJournalAndARetryAfterTheDirectoryComesBack() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        var errors = 0
        rig.recorder?.onError = { _ in
            errors += 1
            try? rig.journal.reset()
        }
        for _ in 0..<3 { rig.run { rig.change() } }
        let moved = rig.directory.appendingPathExtension("away")
        try FileManager.default.moveItem(at: rig.directory, to: moved)
        rig.run { rig.change() }
        rig.run { rig.stack.undo() }
        #expect(errors >= 1)
        #expect(rig.stack.undoCount == 3 && rig.stack.redoCount == 1, "a failed record changes no stack")
        try FileManager.default.moveItem(at: moved, to: rig.directory)
        rig.run { rig.stack.redo() }
        #expect(rig.recorder?.lastError == nil)
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
    }

    /// An asynchronous group whose body awaits while the journal's file is deleted, and another
    /// replaced, under it: the record made when the group closes is a snapshot that recovers the
    /// full save, and a recovery made while the group runs returns the history as it was before.
    @MainActor @Test(arguments: ["deleted", "cut", "replaced"])
    func anAsyncGroupWhoseJournalIsHarmedWhileItAwaits(harm: String) async throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<3 { rig.run { rig.change() } }
        let before = rig.fingerprint
        let gate = Gate()
        rig.operation += 1
        rig.fingerprints.append(rig.fingerprint)
        let task = Task { @MainActor in
            try await rig.stack.asyncGroup(named: "Awaited") {
                HSSet(value: 100).perform(on: rig.box, in: rig.stack)
                await gate.pass()
                rig.stack.registerAsyncUndo(HSAsyncSet(value: rig.box.value), on: rig.box, key: rig.box.id)
                rig.box.value = 101
            }
        }
        while gate.waitingCount == 0 { await Task.yield() }
        // A replay in the middle: the history as it was before the group.
        #expect(try rig.recovered(before) == rig.expected[before])
        let url = rig.journal.url
        switch harm {
        case "deleted": try FileManager.default.removeItem(at: url)
        case "cut":
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(bytes.count - 7).write(to: url)
        default:
            let other = HistoryJournal(url: url.appendingPathExtension("other"), synchronizesAppends: false)
            try other.append(Data("someone else's".utf8), fingerprint: "other")
            #expect(rename(other.url.path, url.path) == 0)
        }
        gate.openForGood()
        try await task.value
        rig.noteSave()
        #expect(rig.recorder?.lastError == nil)
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint], "\(harm)")
        rig.run { rig.stack.undo() }
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint], "\(harm): the undo after it")
    }

    /// A performUndo waiting at a gate while the user types: the requests queue, a recovery in the
    /// middle returns the last settled history, and once everything settles the journal's last
    /// record is the full save; an undo that fails rolls back and leaves the journal where it was.
    @MainActor @Test(arguments: [false, true])
    func anAwaitedUndoInFlightWithChangesAndAReplayMeanwhile(fails: Bool) async throws {
        let rig = try JPRig(shape: .tree)
        defer { rig.cleanUp() }
        let gate = Gate()
        RPGates.gates[rig.box.id] = gate
        defer { RPGates.gates[rig.box.id] = nil }
        for value in 1...3 {
            rig.run {
                rig.stack.registerAsyncUndo(JHGatedSet(value: rig.box.value), on: rig.box, key: rig.box.id)
                rig.box.value = value
                rig.stack.setActionName("Set \(value)")
                rig.stack.endEvent()
            }
        }
        let settled = rig.fingerprint
        if fails { rig.box.value = -5 }
        let undo = Task { @MainActor in try await rig.stack.performUndo() }
        while gate.waitingCount == 0 { await Task.yield() }
        // Meanwhile: a change of another box (a step of its own), a queued redo, a clean mark.
        let pen = rig.livePen()
        HSSet(value: 9).perform(on: pen, in: rig.stack)
        rig.stack.endEvent()
        rig.stack.markClean()
        #expect(try jhRecovered(rig, settled) == rig.expected[settled], "a replay while the undo awaits")
        rig.operation += 1
        rig.fingerprints.append(rig.fingerprint)
        gate.openForGood()
        _ = try? await undo.value
        if fails { rig.box.value = 3 }
        rig.noteSave()
        #expect(rig.recorder?.lastError == nil)
        #expect(try jhLastRecorded(rig) == jpEncoded(rig.stack.savedHistory()), "fails \(fails)")
    }

    /// "Journals written before records of what changed hold a whole HistoryArchive in each
    /// record; they are still read (each such record is its own snapshot), and a recorder of several
    /// stacks still appends whole archives": the two kinds of recorder taking turns on one journal,
    /// every record is the full save at its fingerprint.
    @Test func wholeArchivesAndRecordsOfWhatChangedTakingTurnsOnOneJournal() throws {
        let rig = try JPRig(records: false)
        defer { rig.cleanUp() }
        func archiveRecorder() -> HistoryRecorder {
            let recorder = HistoryRecorder(journal: rig.journal) { [unowned rig] in
                HistoryArchive(
                    fingerprint: rig.fingerprint,
                    histories: [HistoryRecorder.defaultHistoryName: try rig.stack.savedHistory()])
            }
            recorder.watch(rig.stack)
            return recorder
        }
        func changeRecorder() -> HistoryRecorder {
            HistoryRecorder(journal: rig.journal, stack: rig.stack) { [unowned rig] in rig.fingerprint }
        }
        var random = SeededGenerator(seed: 3)
        for round in 0..<4 {
            var old: HistoryRecorder? = round.isMultiple(of: 2) ? archiveRecorder() : nil
            rig.recorder = round.isMultiple(of: 2) ? nil : changeRecorder()
            for _ in 0..<12 { rig.run { rig.randomOperation(&random) } }
            #expect(old?.lastError == nil && rig.recorder?.lastError == nil)
            old = nil
        }
        let mismatches = try rig.mismatches()
        #expect(mismatches.isEmpty, "\(mismatches.first ?? "")")
    }

    /// "Everything observable about a step comes back: ... the user-info values of the JSON kinds
    /// (a value of another kind, and a double that is not finite, which JSON cannot hold, are left
    /// out of the step's user info)": a record of what changed holds the user info a full save does,
    /// whatever the value's kind or bridging.
    @Test func oddUserInfoValuesAreRecordedAsAFullSaveHasThem() throws {
        let odd: [Any?] = [
            true, false, 1.5, -0.0, Double.nan, Double.infinity, Int64.max, UInt64.max, Int8(-3), Float(0.1),
            Date(timeIntervalSinceReferenceDate: 0.1), Data([0, 255]), ["a": [1, "x"]], [1, true, 2.5, "s"],
            NSNumber(value: true), NSNumber(value: 1), "\u{0}\u{FFFF}é", nil, HSBox("not a value"), [String: Any](),
            [Any](), 1e300, Double.leastNonzeroMagnitude, NSNull(), ["k": Double.nan], [Double.infinity],
            Date(timeIntervalSinceReferenceDate: .nan), UInt(9), 0.1 + 0.2, Double(Int64.max),
        ]
        for (index, value) in odd.enumerated() {
            for shape in [ActionStack.HistoryShape.linear, .tree] {
                let rig = try JPRig(shape: shape)
                defer { rig.cleanUp() }
                rig.run { rig.change() }
                rig.run {
                    HSSet(value: 9).perform(on: rig.box, in: rig.stack)
                    rig.stack.setActionUserInfoValue(value, forKey: "odd")
                    rig.stack.endEvent()
                }
                rig.run { rig.stack.undo() }
                rig.run { rig.change() }
                let mismatches = try rig.mismatches()
                #expect(mismatches.isEmpty, "\(index) \(shape): \(mismatches.first ?? "")")
                #expect(rig.recorder?.lastError == nil, "\(index): \(String(describing: rig.recorder?.lastError))")
            }
        }
    }
}
