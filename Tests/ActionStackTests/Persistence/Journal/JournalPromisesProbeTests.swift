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

// Probes of the history journal's and the recorder's promises, written from the documentation alone
// ("Saving the history" and the doc comments of HistoryJournal, HistoryRecorder, HistoryArchive,
// HistoryFileStore and CommandRegistry), before reading how they are implemented. Each test is named
// by the promise it checks. This file: a recovery is exactly the full save made at that record.

/// A stack watched by a recorder, with the full save the stack makes after each operation, by the
/// fingerprint the document had then (one fingerprint per operation, "f1", "f2", ...).
final class JPRig {
    let directory: URL
    let journal: HistoryJournal
    let stack: ActionStack
    let box = HSBox("box")
    var pen: HSBox? = HSBox("pen")
    let maximumSteps: Int
    var recorder: HistoryRecorder?
    /// The number of operations made: the document's fingerprint is "f" and this number.
    var operation = 0
    /// The encoded full save after each operation, by fingerprint.
    var expected: [String: Data] = [:]
    /// The fingerprints in the order of the operations.
    var fingerprints: [String] = []
    /// The value the next change sets (distinct values make distinct payloads).
    var nextValue = 1
    /// What starts this rig's fingerprints (two rigs can share a journal).
    let prefix: String
    /// Fingerprints whose records the test destroyed on purpose.
    var lost: Set<String> = []

    init(
        shape: ActionStack.HistoryShape = .linear, synchronizesAppends: Bool = false, maximumSteps: Int = .max,
        maximumBytes: Int = HistoryJournal.defaultMaximumBytes, clock: ManualClock? = nil, directory: URL? = nil,
        records: Bool = true, prefix: String = "f", fileName: String = "doc.journal"
    ) throws {
        self.prefix = prefix
        self.directory =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("jp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        journal = HistoryJournal(
            url: self.directory.appendingPathComponent(fileName), maximumBytes: maximumBytes,
            synchronizesAppends: synchronizesAppends)
        self.maximumSteps = maximumSteps
        stack = ActionStack()
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        stack.misusePolicy = .report
        stack.historyShape = shape
        if let clock {
            stack.historyClock = { clock.tick(seconds: 1.25) }
            clock.drive(stack)
        }
        if records {
            recorder = HistoryRecorder(journal: journal, stack: stack, maximumSteps: maximumSteps) {
                [unowned self] in self.fingerprint
            }
        }
    }

    var fingerprint: String { "\(prefix)\(operation)" }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// Runs one operation under a new fingerprint, then notes the full save the stack makes.
    func run(_ body: () throws -> Void) rethrows {
        operation += 1
        fingerprints.append(fingerprint)
        try body()
        noteSave()
    }

    /// Runs one awaited operation under a new fingerprint, then notes the full save.
    nonisolated(nonsending) func run(_ body: nonisolated(nonsending) () async throws -> Void) async rethrows {
        operation += 1
        fingerprints.append(fingerprint)
        try await body()
        noteSave()
    }

    func noteSave() {
        expected[fingerprint] = try? jpEncoded(stack.savedHistory(maximumSteps: maximumSteps))
    }

    func value() -> Int {
        nextValue += 1
        return nextValue
    }

    // MARK: Changes an app makes

    /// One step: a command on `target`, closed at the end of the event.
    func change(_ target: HSBox? = nil, name: String = "Set") {
        HSSet(value: value()).perform(on: target ?? box, in: stack)
        stack.setActionName(name)
        stack.endEvent()
    }

    /// A keystroke that continues the step before it when that step is typing too.
    func keystroke() {
        stack.registerUndo(HSSet(value: box.value), on: box, key: box.id, options: .coalescing("typing"))
        box.value = value()
        stack.setActionName("Typing")
        stack.endEvent()
    }

    /// A step registered as a closure (it cannot be saved).
    func closureChange() {
        jpClosureSet(box, to: value(), on: stack)
        stack.setActionName("Closure")
        stack.endEvent()
    }

    /// One step of two actions, on the box and on the pen.
    func twoActionChange() {
        let pen = livePen()
        HSSet(value: value()).perform(on: box, in: stack)
        HSSet(value: value()).perform(on: pen, in: stack)
        stack.setActionName("Both")
        stack.endEvent()
    }

    /// A discardable step with user info of the JSON kinds.
    func discardableChange() {
        HSSet(value: value()).perform(on: box, in: stack)
        stack.setActionName("Select")
        stack.setActionIsDiscardable(true)
        stack.endEvent()
    }

    func livePen() -> HSBox {
        if let pen { return pen }
        let made = HSBox("pen")
        pen = made
        return made
    }

    /// A random operation of those the documentation says the recorder records.
    func randomOperation(_ random: inout SeededGenerator) {
        let tree = stack.historyShape == .tree
        let choice = random.next(tree ? 22 : 18)
        switch choice {
        case 0, 1, 2: change()
        case 3, 4: keystroke()
        case 5, 6: stack.undo()
        case 7: stack.redo()
        case 8: stack.jump(to: random.int(0...(stack.undoCount + stack.redoCount)))
        case 9: stack.markClean()
        case 10: change(livePen(), name: "Pen")
        case 11: if let pen { stack.removeAllActions(withTarget: pen) }
        case 12: stack.levelsOfUndo = [0, 0, 3, 5, 9][random.next(5)]
        case 13: if random.chance(40) { closureChange() } else { change() }
        case 14: twoActionChange()
        case 15:
            // The pen is freed: its actions go at the next change, which is made at once.
            pen = nil
            change()
        case 16: if random.chance(10) { stack.removeAllActions() } else { change() }
        case 17: discardableChange()
        case 18:
            let branches = stack.redoBranches
            if !branches.isEmpty { try? stack.selectRedoBranch(branches[random.next(branches.count)]) }
        case 19:
            if let nodes = stack.historyTree?.nodes, !nodes.isEmpty {
                try? stack.jump(toNode: nodes[random.next(nodes.count)].id)
            }
        case 20: _ = try? stack.earlier(random.int(1...3))
        default: _ = try? stack.later(random.int(1...3))
        }
    }

    // MARK: What the journal gives back

    /// The mismatches between each intact record's archive and the full save at its fingerprint,
    /// and the operations that changed the history but left no record.
    func mismatches() throws -> [String] {
        var found: [String] = []
        let records = try journal.records()
        let archives = try HistoryRecorder.recordedArchives(in: journal, registry: testRegistry())
        #expect(records.count == archives.count)
        var recorded: Set<String> = []
        // One operation can make several calls, each recorded: its last record is the one a
        // recovery at its fingerprint returns, and the one to compare with the save after it.
        var lastOfFingerprint: [String: UInt64] = [:]
        for record in records {
            if let fingerprint = record.fingerprint { lastOfFingerprint[fingerprint] = record.sequence }
        }
        for (record, archive) in zip(records, archives)
        where record.fingerprint.map({ lastOfFingerprint[$0] == record.sequence }) ?? true {
            guard let fingerprint = record.fingerprint else {
                found.append("record \(record.sequence) has no fingerprint")
                continue
            }
            guard expected[fingerprint] != nil || fingerprints.contains(fingerprint) else { continue }
            recorded.insert(fingerprint)
            let got = try jpEncoded(archive)
            if got != expected[fingerprint] {
                found.append(
                    "record \(record.sequence) at \(fingerprint): \(jpText(got)) != save \(jpText(expected[fingerprint]))"
                )
            }
        }
        // An operation that left no record changed no history: its save is the one before it
        // (from the oldest record the journal keeps on).
        let first = records.first(where: { $0.fingerprint?.hasPrefix(prefix) ?? false })?.fingerprint.flatMap {
            fingerprints.firstIndex(of: $0)
        }
        if let first {
            for index in fingerprints.indices.dropFirst(first + 1) {
                let fingerprint = fingerprints[index]
                if !recorded.contains(fingerprint), !lost.contains(fingerprint),
                    expected[fingerprint] != expected[fingerprints[index - 1]]
                {
                    found.append("\(fingerprint) changed the history and left no record")
                }
            }
        }
        return found
    }

    /// The recovery at `fingerprint`, encoded as the full saves are.
    func recovered(_ fingerprint: String) throws -> Data? {
        try HistoryRecorder.recover(from: journal, fingerprint: fingerprint, registry: testRegistry()).map(jpEncoded)
    }
}

/// A history encoded as a one-history archive under a fixed fingerprint, for comparing bytes.
func jpEncoded(_ history: SavedHistory) throws -> Data {
    try HistoryArchive(fingerprint: "x", histories: [HistoryRecorder.defaultHistoryName: history]).encoded()
}

/// An archive's histories encoded under a fixed fingerprint.
func jpEncoded(_ archive: HistoryArchive) throws -> Data {
    try HistoryArchive(fingerprint: "x", histories: archive.histories).encoded()
}

func jpText(_ data: Data?) -> String {
    data.map { String(decoding: $0, as: UTF8.self) } ?? "nil"
}

/// Sets `box` to `value`, registering the inverse as a closure that registers its own.
func jpClosureSet(_ box: HSBox, to value: Int, on stack: ActionStack) {
    let old = box.value
    stack.registerUndo(withTarget: box) { [unowned stack] box in jpClosureSet(box, to: old, on: stack) }
    box.value = value
}

@Suite struct JournalRecoveryIsExactProbeTests {
    /// "at the next launch it returns the history as a full save would have saved it at the last
    /// record that matches the document the app opened", after any mix of the recorded changes.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func recoveryEqualsTheFullSaveAtEveryRecordOfALinearHistory(seed: UInt64) throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: seed)
        for _ in 0..<160 { rig.run { rig.randomOperation(&random) } }
        #expect(try rig.mismatches() == [])
        #expect(rig.recorder?.lastError == nil)
        for fingerprint in rig.fingerprints.suffix(12) where rig.expected[fingerprint] != nil {
            let recovered = try rig.recovered(fingerprint)
            if recovered != nil { #expect(recovered == rig.expected[fingerprint], "recover at \(fingerprint)") }
        }
    }

    /// The same in a branching history: "Every other change, jumps and branches included, is a
    /// record of what changed", and the recovery keeps "the node numbers and redo choices".
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func recoveryEqualsTheFullSaveAtEveryRecordOfABranchingHistory(seed: UInt64) throws {
        let rig = try JPRig(shape: .tree)
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: seed)
        for _ in 0..<160 { rig.run { rig.randomOperation(&random) } }
        #expect(try rig.mismatches() == [])
        #expect(rig.recorder?.lastError == nil)
    }

    /// "what a full save leaves out (closure steps and what lies beyond them, the steps over
    /// `maximumSteps`) is left out the same way."
    @Test(arguments: [(UInt64(21), ActionStack.HistoryShape.linear), (22, .tree)])
    func recoveryUnderASaveLimitEqualsTheLimitedFullSave(seed: UInt64, shape: ActionStack.HistoryShape) throws {
        let rig = try JPRig(shape: shape, maximumSteps: 3)
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: seed)
        for _ in 0..<120 { rig.run { rig.randomOperation(&random) } }
        #expect(try rig.mismatches() == [])
    }

    /// A history switched between the shapes, restored from its own recovery, and started over
    /// after a reset: "a snapshot ... for the changes that only a snapshot describes".
    @Test func recoveryIsExactAcrossShapeChangesRestoresAndResets() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        var random = SeededGenerator(seed: 31)
        for round in 0..<6 {
            for _ in 0..<20 { rig.run { rig.randomOperation(&random) } }
            rig.run { rig.stack.historyShape = round.isMultiple(of: 2) ? .tree : .linear }
            for _ in 0..<10 { rig.run { rig.randomOperation(&random) } }
        }
        #expect(try rig.mismatches() == [])
        // A relaunch: the recovered history restored into a new stack that the same journal records.
        let last = rig.fingerprints.last!
        let archive = try #require(
            try HistoryRecorder.recover(from: rig.journal, fingerprint: last, registry: testRegistry()))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        let box = HSBox("box")
        box.value = rig.box.value
        let pen = HSBox("pen")
        pen.value = rig.pen?.value ?? 0
        let fresh = ActionStack()
        fresh.groupsByEvent = true
        fresh.automaticGroupClosing = .manual
        var fingerprint = "g0"
        let recorder = HistoryRecorder(journal: rig.journal, stack: fresh) { fingerprint }
        fingerprint = "g1"
        _ = try fresh.restoreHistory(history) { key in key == "box" ? box : key == "pen" ? pen : nil }
        let restoredSave = try jpEncoded(fresh.savedHistory())
        #expect(try rig.recovered("g1") == restoredSave, "a restore is recorded (as a snapshot)")
        fingerprint = "g2"
        fresh.undo()
        #expect(try rig.recovered("g2") == jpEncoded(fresh.savedHistory()))
        // After a full save the app resets the journal: the next change starts it over.
        try rig.journal.reset()
        fingerprint = "g3"
        HSSet(value: 99).perform(on: box, in: fresh)
        fresh.endEvent()
        let records = try rig.journal.records()
        #expect(records.map(\.sequence) == [0], "the next record appended is number 0 again")
        #expect(try rig.recovered("g3") == jpEncoded(fresh.savedHistory()))
        #expect(try rig.recovered(last) == nil, "records before the reset are gone")
        #expect(recorder.lastError == nil)
        withExtendedLifetime((box, pen)) {}
    }

    /// Awaited operations ("an undo, a redo" through ``ActionStack/performUndo(isolation:)`` and
    /// ``ActionStack/performRedo(isolation:)``, an asynchronous group, a failed undo rolled back)
    /// are recorded like the others: each record recovers to the full save made then.
    @MainActor @Test(arguments: [201, 202, 203, 204] as [UInt64])
    func recoveryEqualsTheFullSaveAfterAwaitedOperations(seed: UInt64) async throws {
        let rig = try JPRig(shape: seed.isMultiple(of: 2) ? .tree : .linear)
        defer { rig.cleanUp() }
        let stack = rig.stack
        let box = rig.box
        var random = SeededGenerator(seed: seed)
        for _ in 0..<90 {
            switch random.next(9) {
            case 0, 1:
                rig.run {
                    stack.registerAsyncUndo(HSAsyncSet(value: box.value), on: box, key: box.id)
                    box.value = rig.value()
                    stack.setActionName("Await")
                    stack.endEvent()
                }
            case 2, 3: await rig.run { _ = try? await stack.performUndo() }
            case 4: await rig.run { _ = try? await stack.performRedo() }
            case 5:
                await rig.run {
                    try? await stack.asyncGroup(named: "Group") {
                        stack.registerAsyncUndo(HSAsyncSet(value: box.value), on: box, key: box.id)
                        box.value = rig.value()
                        await Task.yield()
                        HSSet(value: rig.value()).perform(on: rig.livePen(), in: stack)
                    }
                }
            case 6:
                // A group whose body throws: rolled back, "the redo stack as it was".
                await rig.run {
                    try? await stack.asyncGroup(named: "Failing") {
                        stack.registerAsyncUndo(HSAsyncSet(value: box.value), on: box, key: box.id)
                        box.value = rig.value()
                        await Task.yield()
                        throw HSAsyncSet.Refused()
                    }
                }
            case 7:
                // An undo whose command throws: "its step is rolled back and stays where it was".
                await rig.run {
                    let kept = box.value
                    box.value = -1
                    _ = try? await stack.performUndo()
                    box.value = kept
                }
            default:
                rig.run {
                    switch random.next(4) {
                    case 0: rig.change()
                    case 1: rig.keystroke()
                    case 2: stack.markClean()
                    default: rig.twoActionChange()
                    }
                }
            }
        }
        #expect(try rig.mismatches() == [])
        #expect(rig.recorder?.lastError == nil)
    }

    /// "A document last written to disk three changes ago reopens with the history as it was then."
    @Test func aDocumentWrittenThreeChangesAgoReopensWithTheHistoryAsItWasThen() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<5 { rig.run { rig.change() } }
        let written = rig.fingerprint
        for _ in 0..<3 { rig.run { rig.change() } }
        let recovered = try #require(try rig.recovered(written))
        #expect(recovered == rig.expected[written])
        let history = try #require(
            try HistoryRecorder.recover(from: rig.journal, fingerprint: written, registry: testRegistry())?
                .histories[HistoryRecorder.defaultHistoryName])
        let restored = ActionStack()
        let box = HSBox("box")
        _ = try restored.restoreHistory(history) { _ in box }
        #expect(restored.undoCount == 5)
        #expect(restored.redoCount == 0, "the three later changes cannot come back as steps to redo")
    }

    /// "A call that changes no history (a query ...) appends nothing".
    @Test func queriesAppendNothing() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<4 { rig.run { rig.change() } }
        rig.run { rig.stack.undo() }
        let size = try FileManager.default.attributesOfItem(atPath: rig.journal.url.path)[.size] as? Int
        let count = rig.recorder?.recordCount
        rig.operation += 1
        _ = rig.stack.canUndo
        _ = rig.stack.canRedo
        _ = rig.stack.undoMenuItemTitle
        _ = rig.stack.redoEntries
        _ = rig.stack.undoEntries
        _ = rig.stack.isClean
        _ = try rig.stack.savedHistory()
        _ = rig.stack.historyPosition
        rig.stack.endEvent()
        rig.stack.undo()
        rig.stack.redo()
        #expect(rig.recorder?.recordCount == (count ?? 0) + 2, "the undo and the redo, nothing for the queries")
        rig.recorder?.record()
        let after = try rig.journal.records()
        #expect(after.count == (count ?? 0) + 2, "record() with nothing new appends nothing")
        #expect(size != nil)
    }

    /// "A clean mark is a few bytes", while a snapshot is the size of a full save.
    @Test func aCleanMarkIsAFewBytes() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<300 { rig.run { rig.change(name: "A rather long action name for every step") } }
        rig.run { rig.stack.markClean() }
        let records = try rig.journal.records()
        let full = try #require(rig.expected[rig.fingerprint]).count
        let mark = try #require(records.last).payload.count
        #expect(full > 4_000)
        #expect(mark < 300, "a clean mark: \(mark) bytes (full save \(full))")
        #expect(try rig.mismatches() == [])
    }

    /// "A record that cannot be written (a full disk) changes no stack: the recorder reports it
    /// (``HistoryRecorder/onError``) and tries again at the next change, with a snapshot."
    @Test func aRecordThatCannotBeWrittenIsRetriedAtTheNextChange() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        var errors: [any Error] = []
        rig.recorder?.onError = { errors.append($0) }
        for _ in 0..<3 { rig.run { rig.change() } }
        // The journal's directory goes away: the appends fail.
        try FileManager.default.removeItem(at: rig.directory)
        rig.run { rig.change() }
        rig.run { rig.stack.undo() }
        #expect(errors.count == 2)
        #expect((rig.recorder?.lastError as? HistoryFileError)?.kind == .cannotWrite)
        #expect(rig.stack.undoCount == 3 && rig.stack.redoCount == 1, "the stack is as if nothing failed")
        try FileManager.default.createDirectory(at: rig.directory, withIntermediateDirectories: true)
        rig.run { rig.change() }
        #expect(rig.recorder?.lastError == nil, "nil once a record is appended")
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
        rig.run { rig.stack.undo() }
        rig.run { rig.stack.markClean() }
        #expect(try rig.mismatches() == [])
    }

    /// ``HistoryJournal/synchronizesAppends``: "Whatever the choice, a record is whole or ignored".
    @Test(arguments: [true, false])
    func bothDurabilitySettingsRecoverExactly(synchronizes: Bool) throws {
        let rig = try JPRig(synchronizesAppends: synchronizes)
        defer { rig.cleanUp() }
        #expect(rig.journal.synchronizesAppends == synchronizes)
        var random = SeededGenerator(seed: 41)
        for _ in 0..<40 { rig.run { rig.randomOperation(&random) } }
        #expect(try rig.mismatches() == [])
        let reopened = HistoryJournal(url: rig.journal.url, synchronizesAppends: !synchronizes)
        let last = try #require(try reopened.records().last?.fingerprint)
        let archive = try HistoryRecorder.recover(from: reopened, fingerprint: last, registry: testRegistry())
        #expect(try archive.map(jpEncoded) == rig.expected[last])
    }

    /// "the journal stays within a few full saves however many changes are made": thousands of
    /// changes on a history of a few hundred steps.
    @Test func thousandsOfChangesKeepTheJournalWithinAFewFullSaves() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        rig.stack.levelsOfUndo = 400
        var largest = 0
        var largestFull = 0
        for index in 0..<6_000 {
            operationOfTheCompactionRun(rig, index)
            if index % 500 == 499 {
                let size = try jpFileSize(rig.journal.url)
                let full = try jpEncoded(rig.stack.savedHistory()).count
                largest = max(largest, size)
                largestFull = max(largestFull, full)
            }
        }
        rig.noteSave()
        let full = try jpEncoded(rig.stack.savedHistory()).count
        let size = try jpFileSize(rig.journal.url)
        // The doc: compaction when the journal holds more than four times the new snapshot and
        // more than 256 KiB; so at most about max(256 KiB, 4 snapshots) plus the last records.
        #expect(
            size <= max(1 << 18, 6 * full) + 2 * full,
            "journal \(size) bytes after 6,000 changes, full save \(full) bytes (largest seen \(largest))")
        #expect(largest <= max(1 << 18, 6 * largestFull) + 2 * largestFull)
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
    }

    /// The same with a history whose full save is larger than the 256 KiB floor, so that the
    /// bound is a small factor of the save itself.
    @Test func aLargeHistoryKeepsTheJournalWithinASmallFactorOfOneFullSave() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        rig.stack.levelsOfUndo = 1_500
        let doc = HRDoc("doc")
        var largest = 0
        for index in 0..<4_000 {
            rig.operation += 1
            rig.box.value = index
            rig.stack.registerUndo(
                HRBag(values: Dictionary(uniqueKeysWithValues: (0..<12).map { ("key\($0)", index + $0) })),
                on: doc, key: "doc")
            rig.stack.registerUndo(HSSet(value: index), on: rig.box, key: rig.box.id)
            rig.stack.setActionName("Bag")
            rig.stack.endEvent()
            if index % 4 == 3 { rig.stack.undo() }
            if index % 500 == 499 { largest = max(largest, try jpFileSize(rig.journal.url)) }
        }
        let full = try jpEncoded(rig.stack.savedHistory()).count
        #expect(full > 1 << 18, "the full save (\(full) bytes) is above the compaction floor")
        #expect(largest <= 8 * full, "largest journal \(largest) bytes, full save \(full) bytes")
        rig.noteSave()
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
        withExtendedLifetime(doc) {}
    }
}

/// One operation of the compaction runs: mostly new steps, some undos, redos and clean marks.
func operationOfTheCompactionRun(_ rig: JPRig, _ index: Int) {
    // Not `run`: a full save after each of thousands of operations would be the test's whole cost.
    rig.operation += 1
    switch index % 10 {
    case 3: rig.stack.undo()
    case 6: rig.stack.redo()
    case 8: rig.stack.markClean()
    case 9: rig.keystroke()
    default: rig.change()
    }
}

func jpFileSize(_ url: URL) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
}
