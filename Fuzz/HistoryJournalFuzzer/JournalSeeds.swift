// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// Real journals, made by recorders over stacks: the base journal that the second check appends
// its payloads after, and the seeds of Fuzz/corpus/history-journal.

import ActionStackArchive
import ActionStackCore
import Foundation

/// A generator of the same numbers for the same seed (SplitMix64).
struct SeededNumbers {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        value ^= value >> 31
        return Int(value % UInt64(bound))
    }
}

/// A clock that moves on 1.25 s at each reading, so that the journals are the same at each run.
/// Read by one thread only (the fuzzer's), which is why it needs no lock.
final class FuzzClock: @unchecked Sendable {
    private var time = 800_000_000.0

    func tick() -> Date {
        time += 1.25
        return Date(timeIntervalSinceReferenceDate: time)
    }
}

/// A stack watched by a recorder, changed as an app changes it, under a new fingerprint per
/// operation ("<prefix><n>").
final class RecordedStack {
    let journal: HistoryJournal
    let stack = ActionStack()
    let box = FuzzBox("box")
    var pen: FuzzBox? = FuzzBox("pen")
    var recorder: HistoryRecorder?
    var operation = 0
    var nextValue = 0
    let prefix: String

    init(
        file: URL, shape: ActionStack.HistoryShape, maximumSteps: Int = .max, compactionFloor: Int? = nil,
        prefix: String
    ) {
        try? FileManager.default.removeItem(at: file)
        journal = HistoryJournal(url: file, maximumBytes: 1 << 20, durability: .system)
        self.prefix = prefix
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        stack.misusePolicy = .report
        stack.historyShape = shape
        let clock = FuzzClock()
        stack.historyClock = { clock.tick() }
        let recorder = HistoryRecorder(journal: journal, stack: stack, maximumSteps: maximumSteps) {
            [unowned self] in "\(self.prefix)\(self.operation)"
        }
        if let compactionFloor { recorder._compactionFloor = compactionFloor }
        self.recorder = recorder
    }

    func value() -> Int {
        nextValue += 1
        return nextValue
    }

    func run(_ body: () -> Void) {
        operation += 1
        body()
    }

    func change(_ target: FuzzBox? = nil, name: String = "Set") {
        FuzzSet(value: value()).perform(on: target ?? box, in: stack)
        stack.setActionName(name)
        stack.endEvent()
    }

    func keystroke() {
        stack.registerUndo(FuzzSet(value: box.value), on: box, key: box.id, options: .coalescing("typing"))
        box.value = value()
        stack.setActionName("Typing")
        stack.endEvent()
    }

    func note() {
        let pen = livePen()
        FuzzNote(text: "note \(value())", tags: ["size": nextValue, "weight": 2], note: nil).perform(on: pen, in: stack)
        FuzzSet(value: value()).perform(on: box, in: stack)
        stack.setActionName("Note")
        stack.setActionUserInfoValue(1.5, forKey: "weight")
        stack.setActionUserInfoValue("blue", forKey: "colour")
        stack.endEvent()
    }

    func closureChange() {
        let box = self.box
        let old = box.value
        stack.registerUndo(withTarget: box) { $0.value = old }
        box.value = value()
        stack.setActionName("Closure")
        stack.endEvent()
    }

    func livePen() -> FuzzBox {
        if let pen { return pen }
        let made = FuzzBox("pen")
        pen = made
        return made
    }

    /// One operation of those a recorder records, chosen by `numbers`.
    func randomOperation(_ numbers: inout SeededNumbers) {
        let tree = stack.historyShape == .tree
        switch numbers.next(tree ? 21 : 17) {
        case 0, 1, 2: change()
        case 3, 4: keystroke()
        case 5, 6: stack.undo()
        case 7: stack.redo()
        case 8: stack.jump(to: numbers.next(stack.undoCount + stack.redoCount + 1))
        case 9: stack.markClean()
        case 10: change(livePen(), name: "Pen")
        case 11: if let pen { stack.removeAllActions(withTarget: pen) }
        case 12: stack.levelsOfUndo = [0, 0, 3, 6][numbers.next(4)]
        case 13: if numbers.next(3) == 0 { closureChange() } else { note() }
        case 14:
            pen = nil
            change()
        case 15: if numbers.next(8) == 0 { stack.removeAllActions() } else { change() }
        case 16:
            FuzzSet(value: value()).perform(on: box, in: stack)
            stack.setActionName("Select")
            stack.setActionIsDiscardable(true)
            stack.endEvent()
        case 17:
            let branches = stack.redoBranches
            if !branches.isEmpty { try? stack.selectRedoBranch(branches[numbers.next(branches.count)]) }
        case 18:
            if let nodes = stack.historyTree?.nodes, !nodes.isEmpty {
                try? stack.jump(toNode: nodes[numbers.next(nodes.count)].id)
            }
        case 19: _ = try? stack.earlier(1 + numbers.next(3))
        default: _ = try? stack.later(1 + numbers.next(3))
        }
    }

    /// The journal's records.
    func records() -> [JournalRecord] {
        do {
            return try journal.records()
        } catch {
            fuzzFailure("a real journal does not replay: \(error)")
        }
    }
}

/// The real records that the second check appends its payloads after, and what each fingerprint
/// of them recovers.
struct BaseJournal {
    var records: [JournalRecord]
    /// The described archive at each fingerprint of the records.
    var outcomes: [String: String]
    /// The described archive of the first record (a snapshot), alone under `appendedFingerprint`.
    var appendedOutcome: String
}

/// A branching history with undo, a branch, a jump, a clean mark and a keystroke.
let baseJournal: BaseJournal = {
    let file = fuzzDirectory.appendingPathComponent("base.journal")
    let recorded = RecordedStack(file: file, shape: .tree, prefix: "base-")
    recorded.run { recorded.change() }
    recorded.run { recorded.note() }
    recorded.run { recorded.keystroke() }
    recorded.run { recorded.keystroke() }
    recorded.run { recorded.stack.undo() }
    recorded.run { recorded.change() }
    recorded.run { recorded.stack.markClean() }
    recorded.run { _ = try? recorded.stack.earlier(2) }
    let records = recorded.records()
    precondition(records.count >= 6, "the base journal has \(records.count) records")
    var outcomes: [String: String] = [:]
    for fingerprint in Set(records.compactMap(\.fingerprint)) {
        guard case .archive(let described) = recover(recorded.journal, fingerprint) else {
            fuzzFailure("the base journal does not recover at \(fingerprint)")
        }
        outcomes[fingerprint] = described
    }
    let alone = HistoryJournal(url: fuzzDirectory.appendingPathComponent("alone.journal"), durability: .system)
    try? alone.reset()
    do {
        try alone.append(records[0].payload, fingerprint: appendedFingerprint)
    } catch {
        fuzzFailure("cannot write a journal: \(error)")
    }
    guard case .archive(let appended) = recover(alone, appendedFingerprint) else {
        fuzzFailure("the base journal's first record does not recover alone")
    }
    return BaseJournal(records: records, outcomes: outcomes, appendedOutcome: appended)
}()

// MARK: - Seeds

/// Writes the seed corpus: for each scenario the journal's file, and its payloads joined by 0xFF;
/// for the first, a file with a torn last record and one with a damaged record in its middle; and
/// a recorder of its own archives' file.
func writeSeeds(to folder: URL) {
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    func write(_ data: Data, _ name: String) {
        do {
            try data.write(to: folder.appendingPathComponent(name))
        } catch {
            fuzzFailure("cannot write seed \(name): \(error)")
        }
        print("\(name): \(data.count) bytes")
    }
    let scenarios: [(name: String, shape: ActionStack.HistoryShape, operations: Int, maximumSteps: Int, floor: Int?)] =
        [
            ("linear", .linear, 24, .max, nil),
            ("tree", .tree, 24, .max, nil),
            ("tree-limited", .tree, 24, 5, nil),
            ("linear-compacted", .linear, 40, .max, 1024),
            ("tree-compacted", .tree, 40, .max, 2048),
        ]
    for (index, scenario) in scenarios.enumerated() {
        let file = fuzzDirectory.appendingPathComponent("seed.journal")
        let recorded = RecordedStack(
            file: file, shape: scenario.shape, maximumSteps: scenario.maximumSteps, compactionFloor: scenario.floor,
            prefix: "f")
        var numbers = SeededNumbers(state: UInt64(index + 1))
        for _ in 0..<scenario.operations { recorded.run { recorded.randomOperation(&numbers) } }
        let bytes = (try? Data(contentsOf: file)) ?? Data()
        write(bytes, "\(scenario.name).journal")
        var framed = Data()
        for (position, record) in recorded.records().enumerated() {
            if position > 0 { framed.append(0xFF) }
            framed.append(record.payload)
        }
        write(framed, "\(scenario.name).framed")
        if index == 0 {
            write(bytes.prefix(bytes.count - 9), "\(scenario.name)-torn.journal")
            var damaged = bytes
            damaged[damaged.count / 2] ^= 0x20
            write(damaged, "\(scenario.name)-damaged.journal")
        }
    }
    // Branches made, entered, moved and dropped (the operations "fork", "enter", "anchor" and
    // "drop"), by a fixed round of operations.
    do {
        let file = fuzzDirectory.appendingPathComponent("seed.journal")
        let recorded = RecordedStack(file: file, shape: .tree, prefix: "f")
        let stack = recorded.stack
        var numbers = SeededNumbers(state: 99)
        for round in 0..<4 {
            recorded.run { recorded.change() }
            recorded.run { recorded.change(recorded.livePen(), name: "Pen") }
            recorded.run { stack.undo() }
            recorded.run { stack.undo() }
            recorded.run { recorded.change() }
            recorded.run {
                let branches = stack.redoBranches
                if !branches.isEmpty { try? stack.selectRedoBranch(branches[numbers.next(branches.count)]) }
            }
            recorded.run { stack.redo() }
            recorded.run {
                if let nodes = stack.historyTree?.nodes, !nodes.isEmpty {
                    try? stack.jump(toNode: nodes[numbers.next(nodes.count)].id)
                }
            }
            recorded.run { _ = try? stack.earlier(2) }
            recorded.run { _ = try? stack.later(1) }
            if round == 2 { recorded.run { stack.maximumBranchSteps = 3 } }
            if round == 3, let pen = recorded.pen { recorded.run { stack.removeAllActions(withTarget: pen) } }
        }
        write((try? Data(contentsOf: file)) ?? Data(), "tree-branches.journal")
        var framed = Data()
        for (position, record) in recorded.records().enumerated() {
            if position > 0 { framed.append(0xFF) }
            framed.append(record.payload)
        }
        write(framed, "tree-branches.framed")
    }
    // A recorder of its own archives: whole archives in its records.
    let file = fuzzDirectory.appendingPathComponent("seed.journal")
    try? FileManager.default.removeItem(at: file)
    let journal = HistoryJournal(url: file, durability: .system)
    let stacks = [ActionStack(), ActionStack()]
    let box = FuzzBox("box")
    var step = 0
    let recorder = HistoryRecorder(journal: journal) {
        var histories: [String: SavedHistory] = [:]
        for (index, stack) in stacks.enumerated() { histories["s\(index)"] = try stack.savedHistory() }
        return HistoryArchive(fingerprint: "a\(step)", histories: histories)
    }
    for stack in stacks {
        stack.misusePolicy = .report
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        recorder.watch(stack)
    }
    for index in 0..<6 {
        step += 1
        FuzzSet(value: index).perform(on: box, in: stacks[index % 2])
        stacks[index % 2].endEvent()
        if index == 3 { stacks[0].undo() }
    }
    write((try? Data(contentsOf: file)) ?? Data(), "archives.journal")
    withExtendedLifetime(recorder) {}
}
