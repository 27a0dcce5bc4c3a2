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

// Hostile probes of the journal and the recorder, written from the documentation alone ("Saving the
// history" and the doc comments of HistoryJournal, HistoryRecorder, HistoryJournal.Durability,
// HistoryFileStore and HistoryArchive), aimed at what the earlier probes leave out: the recorder
// mixed with the features the random drivers do not reach (a rename after the step, registration
// disabled, a clean mark inside a group, costs, branch limits, moves by time, a shape change, a
// restore, user info, scoped groups that throw, remote versions, empty groups), with the journal's
// file damaged, cut, deleted, replaced or appended to by another writer between the changes.
//
// The promise checked after every operation: "at the next launch it returns the history as a full
// save would have saved it at the last record": the journal's last record, read back, is the full
// save the stack makes now, once a change has been recorded since the file was harmed; and "after
// every call that changes a stack's history ... it appends a record": a full save that differs from
// the one before it has a new record.

/// A JPRig driven by a wider set of operations, and harmed between them.
final class JHRig {
    let rig: JPRig
    let clock = ManualClock()
    var random: SeededGenerator
    /// The encoded full save after the last operation checked.
    var lastSave: Data?
    /// Whether the file was harmed and no record has been appended since.
    var harmed = false
    /// What the driver did, for a failure's message.
    var log: [String] = []
    /// The name of the operation of each fingerprint.
    var fpLog: [String] = []
    /// The problems found.
    var problems: [String] = []
    /// A copy of the journal's bytes taken earlier (to put an older file back).
    var olderFile: Data?
    /// A second journal on the same file: another writer.
    let stranger: HistoryJournal

    init(seed: UInt64, shape: ActionStack.HistoryShape, maximumSteps: Int = .max) throws {
        random = SeededGenerator(seed: seed)
        rig = try JPRig(shape: shape, maximumSteps: maximumSteps, clock: clock)
        stranger = HistoryJournal(url: rig.journal.url, synchronizesAppends: false)
    }

    var stack: ActionStack { rig.stack }
    var box: HSBox { rig.box }

    func cleanUp() { rig.cleanUp() }

    /// The journal's last intact record of this history, recovered and encoded as the full saves
    /// are (the stranger's records stand for no history, and
    /// ``HistoryRecorder/recordedArchives(in:registry:limits:)`` throws at them, as documented).
    func journalLast() throws -> Data? {
        guard let record = try rig.journal.records().last(where: { $0.fingerprint != "stranger" }),
            let fingerprint = record.fingerprint
        else { return nil }
        return try rig.recovered(fingerprint)
    }

    /// Runs one operation under a new fingerprint, closing the event group a call outside a group
    /// opens (``ActionStack/groupsByEvent``), so that the full save noted after it is whole.
    func run(_ body: () throws -> Void) rethrows {
        try rig.run {
            try body()
            if stack.groupingLevel > 0 { stack.endEvent() }
        }
    }

    /// One operation, then the checks.
    func step(_ index: Int) throws {
        let before = rig.recorder?.recordCount ?? 0
        let count = rig.fingerprints.count
        let name = try operation()
        log.append(name)
        if rig.fingerprints.count > count { fpLog.append(name) }
        guard stack.groupingLevel == 0 else { return }
        guard let save = try? jpEncoded(stack.savedHistory(maximumSteps: rig.maximumSteps)) else { return }
        let after = rig.recorder?.recordCount ?? 0
        if after > before { harmed = false }
        if let error = rig.recorder?.lastError {
            problems.append("op \(index) \(name): the recorder failed: \(error)")
            return
        }
        if save != lastSave, after == before, lastSave != nil {
            problems.append("op \(index) \(name): the history changed and no record was appended")
        }
        lastSave = save
        guard after > 0, !harmed else { return }
        let last = try journalLast()
        if last != save {
            problems.append(
                "op \(index) \(name): the journal's last record is not the full save\n  journal: \(jpText(last))\n  save:    \(jpText(save))\n  log: \(log.suffix(12))"
            )
        }
    }

    /// Makes one random operation and names it.
    func operation() throws -> String {
        let tree = stack.historyShape == .tree
        switch random.next(48) {
        case 0..<14:
            run { rig.randomOperation(&random) }
            return "rig"
        case 14:
            run { stack.setActionName("Renamed \(rig.operation)") }
            return "rename"
        case 15:
            run {
                stack.disableUndoRegistration()
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.enableUndoRegistration()
                stack.endEvent()
            }
            return "disabled change"
        case 16:
            run {
                stack.beginUndoGrouping()
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.markClean()
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.endUndoGrouping()
                stack.endEvent()
            }
            return "clean mark inside a group"
        case 17:
            run {
                HSCostly(value: rig.value(), cost: random.int(1...4)).perform(on: box, in: stack)
                stack.endEvent()
            }
            return "costly change"
        case 18:
            let cost = [0, 0, 5, 9][random.next(4)]
            run { stack.maximumCost = cost }
            return "maximumCost \(cost)"
        case 19 where tree:
            let steps = [0, 2, 4][random.next(3)]
            run { stack.maximumBranchSteps = steps }
            return "maximumBranchSteps \(steps)"
        case 20:
            run { stack.undoNestedGroup() }
            return "undoNestedGroup"
        case 21 where tree:
            let seconds = Double(random.int(1...6))
            let earlier = random.chance(50)
            run {
                if earlier {
                    _ = try? stack.earlier(by: .seconds(seconds))
                } else {
                    _ = try? stack.later(by: .seconds(seconds))
                }
            }
            return earlier ? "earlier(by: \(seconds))" : "later(by: \(seconds))"
        case 22:
            run { stack.historyShape = stack.historyShape == .tree ? .linear : .tree }
            return "shape"
        case 23:
            guard let saved = try? stack.savedHistory() else { return "no restore" }
            let pen = rig.livePen()
            // Now and then the pen does not come back (the restore cuts the history at its first
            // step), or comes back as an object nothing keeps (cut as not kept).
            let how = random.next(4)
            try run {
                stack.removeAllActions()
                switch how {
                case 0: _ = try stack.restoreHistory(saved) { $0 == box.id ? box : nil }
                case 1: _ = try stack.restoreHistory(saved) { $0 == box.id ? box : HSBox($0) }
                default: _ = try hsRestore(saved, into: stack, [box.id: box, pen.id: pen])
                }
            }
            return ["restore without the pen", "restore with a pen nothing keeps", "restore", "restore"][how]
        case 24:
            run {
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.setActionName("Info")
                stack.setActionUserInfoValue("text \(rig.operation)", forKey: "note")
                stack.setActionUserInfoValue(rig.operation, forKey: "number")
                // Values of every kind, and some that JSON cannot hold or that bridge oddly.
                let odd: [Any?] = [
                    true, false, 1.5, -0.0, Double.nan, Double.infinity, Int64.max, UInt64.max, Int8(-3),
                    Float(0.1), Date(timeIntervalSinceReferenceDate: 0.1), Data([0, 255]), ["a": [1, "x"]],
                    [1, true, 2.5, "s"], NSNumber(value: true), NSNumber(value: 1), "\u{0}\u{FFFF}é", nil,
                    HSBox("not a value"), [String: Any](), [Any](),
                ]
                let value = odd[random.next(odd.count)]
                stack.setActionUserInfoValue(value, forKey: "odd")
                stack.setActionUserInfoValue(odd[random.next(odd.count)], forKey: "number")
                stack.endEvent()
            }
            return "user info"
        case 25:
            run {
                stack.breakCoalescing()
                rig.keystroke()
            }
            return "break coalescing"
        case 26:
            struct Thrown: Error {}
            run {
                _ = try? stack.group(named: "Scoped") {
                    HSSet(value: rig.value()).perform(on: box, in: stack)
                    throw Thrown()
                }
                stack.endEvent()
            }
            return "throwing group"
        case 27:
            run { stack.applyRemoteChange("peer", version: "v\(rig.operation)") {} }
            return "remote version"
        case 28:
            run {
                stack.beginUndoGrouping()
                stack.endUndoGrouping()
                stack.endEvent()
            }
            return "empty group"
        case 29:
            run { stack.dropsEmptyGroups.toggle() }
            return "dropsEmptyGroups"
        case 30:
            run {
                HSNoop(value: rig.value()).perform(on: box, in: stack)
                stack.setActionName("Nothing")
                stack.endEvent()
            }
            return "a step that registers nothing"
        case 31:
            try rig.journal.reset()
            rig.lost.formUnion(rig.fingerprints)
            harmed = true
            return "reset"
        case 32:
            return try harm()
        case 33:
            try stranger.append(Data("not a history".utf8), fingerprint: "stranger")
            return "another writer appends"
        case 34:
            try rig.journal.synchronize()
            return "synchronize"
        case 35:
            run {
                clock.advance(seconds: -30)
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.endEvent()
            }
            return "clock set back"
        case 36:
            // Misuses, which change nothing: an end without a begin, an undo with two groups open.
            run {
                stack.endUndoGrouping()
                stack.beginUndoGrouping()
                stack.beginUndoGrouping()
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.undo()
                stack.endUndoGrouping()
                stack.endUndoGrouping()
                stack.endEvent()
            }
            return "misuses"
        case 37:
            run { stack.postsNotifications.toggle() }
            return "postsNotifications"
        case 38:
            // A nested group undone inside the open one, then the outer group closed.
            run {
                stack.beginUndoGrouping()
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.beginUndoGrouping()
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.endUndoGrouping()
                stack.undoNestedGroup()
                stack.setActionName("Outer")
                stack.endUndoGrouping()
                stack.endEvent()
            }
            return "undoNestedGroup inside a group"
        case 39:
            struct Thrown: Error {}
            run {
                stack.group(named: "Outer") {
                    HSSet(value: rig.value()).perform(on: box, in: stack)
                    _ = try? stack.group(named: "Inner") {
                        HSSet(value: rig.value()).perform(on: box, in: stack)
                        throw Thrown()
                    }
                }
                stack.endEvent()
            }
            return "a scoped group whose inner group throws"
        case 40:
            run {
                _ = try? stack.jump(toNode: .init(sequence: 1_000_000))
                _ = try? stack.selectRedoBranch(.init(sequence: -4))
                _ = try? stack.earlier(0)
                _ = try? stack.later(-2)
            }
            return "moves to nowhere"
        case 41:
            run {
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.setActionName("Discardable")
                stack.setActionIsDiscardable(true)
                stack.endEvent()
                stack.setActionIsDiscardable(false)
                stack.endEvent()
            }
            return "discardable, then not"
        case 42:
            run {
                stack.groupsByEvent = false
                stack.beginUndoGrouping()
                HSSet(value: rig.value()).perform(on: box, in: stack)
                stack.endUndoGrouping()
                stack.groupsByEvent = true
            }
            return "a group not by event"
        default:
            run { rig.change() }
            return "change"
        }
    }

    /// Damages the journal's file as the documentation's table lists.
    func harm() throws -> String {
        let url = rig.journal.url
        guard var bytes = try? Data(contentsOf: url), bytes.count > 40 else { return "no harm" }
        defer { olderFile = bytes }
        rig.lost.formUnion(rig.fingerprints)
        harmed = true
        switch random.next(5) {
        case 0:
            let cut = random.int(0...(bytes.count - 1))
            try bytes.prefix(cut).write(to: url)
            return "cut to \(cut) of \(bytes.count)"
        case 1:
            // A byte of the last 64 changes, so the check sees it whatever the clock's tick.
            let offset = bytes.count - 1 - random.int(0...min(63, bytes.count - 1))
            bytes[offset] ^= 0x5A
            let handle = try FileHandle(forWritingTo: url)
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: Data([bytes[offset]]))
            try handle.close()
            return "byte \(offset) of \(bytes.count) changed"
        case 2:
            let handle = try FileHandle(forWritingTo: url)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data((0..<random.int(1...300)).map { _ in UInt8(random.next(256)) }))
            try handle.close()
            return "garbage appended"
        case 3:
            try FileManager.default.removeItem(at: url)
            return "deleted"
        default:
            guard let olderFile else { return "no older file" }
            let other = url.appendingPathExtension("older")
            try olderFile.write(to: other)
            #expect(rename(other.path, url.path) == 0)
            return "an older copy renamed over it"
        }
    }
}

@Suite(.serialized) struct JournalHostileProbeTests {
    /// The wide driver: every operation, harm between them; the journal's last record is the full
    /// save after every recorded change.
    @Test(arguments: [1, 2, 3] as [UInt64], [ActionStack.HistoryShape.linear, .tree])
    func theJournalKeepsUpWithEveryFeatureAndEveryHarm(seed: UInt64, shape: ActionStack.HistoryShape) throws {
        let rig = try JHRig(seed: seed &* 7919 &+ (shape == .tree ? 1 : 0), shape: shape)
        defer { rig.cleanUp() }
        for index in 0..<120 {
            try rig.step(index)
            if rig.problems.count > 0 { break }
        }
        #expect(rig.problems.isEmpty, "seed \(seed) \(shape): \(rig.problems.first ?? "")")
    }

    /// The same without harm, where every record the journal holds must be the full save made at
    /// its fingerprint (``HistoryRecorder/recordedArchives(in:registry:limits:)``).
    @Test(arguments: [11, 12] as [UInt64], [ActionStack.HistoryShape.linear, .tree])
    func everyRecordIsTheFullSaveAtItsFingerprint(seed: UInt64, shape: ActionStack.HistoryShape) throws {
        let rig = try JHRig(seed: seed &* 104_729 &+ (shape == .tree ? 1 : 0), shape: shape, maximumSteps: 6)
        defer { rig.cleanUp() }
        var index = 0
        while index < 100 {
            // No harm, no reset: re-draw those.
            let draw = rig.random
            var peek = draw
            let choice = peek.next(48)
            if choice == 31 || choice == 32 || choice == 33 {
                _ = rig.random.next(48)
                continue
            }
            try rig.step(index)
            index += 1
            if rig.problems.count > 0 { break }
        }
        #expect(rig.problems.isEmpty, "seed \(seed) \(shape): \(rig.problems.first ?? "")")
        let mismatches = try rig.rig.mismatches()
        #expect(mismatches.isEmpty, "seed \(seed) \(shape): \(mismatches.first ?? "") log \(rig.log.suffix(10))")
        if !mismatches.isEmpty, ProcessInfo.processInfo.environment["JH_DEBUG"] != nil {
            print("records:", try rig.rig.journal.records().map { "\($0.sequence):\($0.fingerprint ?? "-")" })
            print("ops:", zip(rig.rig.fingerprints, rig.fpLog).map { "\($0)=\($1)" })
        }
    }

    /// A recorder's `maximumSteps` is "the most steps each record saves (see
    /// ``ActionStack/savedHistory(maximumSteps:)``)", and a save reads a negative limit as 0. A
    /// recorder made with a negative one wrote it into every snapshot, whose reader refuses it
    /// ("a negative maximumSteps"): nothing it recorded could be recovered, and it reported no
    /// error. Now its records are those of a limit of 0.
    @Test(arguments: [-3, 0, 1])
    func aRecorderWithANegativeOrTinySaveLimitRecoversWhatTheSaveGives(maximum: Int) throws {
        for shape in [ActionStack.HistoryShape.linear, .tree] {
            let rig = try JPRig(shape: shape, maximumSteps: maximum)
            defer { rig.cleanUp() }
            var random = SeededGenerator(seed: UInt64(maximum + 10))
            for _ in 0..<40 { rig.run { rig.randomOperation(&random) } }
            let mismatches = try rig.mismatches()
            #expect(mismatches.isEmpty, "\(maximum) \(shape): \(mismatches.first ?? "")")
            #expect(rig.recorder?.lastError == nil)
            #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint] || rig.expected.isEmpty)
        }
    }
}
