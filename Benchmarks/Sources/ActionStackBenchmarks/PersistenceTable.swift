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
import Workloads

// The persistence table (`--only persistence`): what saving and restoring a history costs, beside
// the floor, and what registering a command costs, beside registering a closure.
//
// - Encode: `HistoryArchive.encoded()` of a saved history of 10,000 one-action steps, beside the
//   floor: the same 10,000 commands encoded as a plain array by `JSONEncoder` with the archive's
//   settings (sorted keys, slashes not escaped).
// - Decode: `HistoryArchive(decoding:registry:)`, beside `JSONDecoder` reading the plain array back.
// - Save and load, end to end: `savedHistory()` + `encoded()`, and decoding + `restoreHistory` into
//   an empty stack, beside the same floors.
// - Bytes per step: the archive's, beside the plain array's.
// - Registration: begin + register + end with a command (`registerUndo(_:on:key:)`), beside the same
//   with a closure that captures the same values (`registerUndo(withTarget:handler:)`), same target.
//
// Two kinds of command: a small one (a move: two Doubles) and a larger one (a text edit: an Int and
// 64 bytes of text). Times are this thread's CPU time (see TreeTable.swift), medians; every encoder
// and decoder is made inside the timing, and what a timing made is released inside it, on both sides.

// MARK: The commands

/// A command of the table: its key, a fresh target, the value of step i (step 0: the target's
/// initial state), and the same change registering its inverse as a closure.
protocol BenchmarkCommand: UndoCommand, Equatable {
    /// The target's key in saved histories.
    static var key: String { get }
    /// What the table calls it.
    static var label: String { get }
    /// A fresh target, in the state of `value(0)`.
    static func makeTarget() -> Target
    /// The change that step `index` makes (0: the target's initial state).
    static func value(_ index: Int) -> Self
    /// The target's state, as the command that would restore it.
    static func state(of target: Target) -> Self
    /// The change, registering its inverse as a closure capturing what the command holds.
    func performByClosure(on target: Target, in stack: ActionStack)
}

/// A shape on a canvas: the target of the small commands.
final class Shape {
    var x = 0.0
    var y = 0.0
}

/// Moves a shape: two Doubles.
struct MoveShape: BenchmarkCommand {
    static let commandType = "bench.move"
    static let key = "shape"
    static let label = "move (2 Doubles)"
    var x: Double
    var y: Double

    static func makeTarget() -> Shape { Shape() }

    static func value(_ index: Int) -> MoveShape {
        index == 0 ? MoveShape(x: 0, y: 0) : MoveShape(x: Double(index % 1000) + 0.5, y: Double(index % 700) * 0.25)
    }

    static func state(of shape: Shape) -> MoveShape { MoveShape(x: shape.x, y: shape.y) }

    @inline(never)
    func perform(on shape: Shape, in stack: ActionStack) {
        stack.registerUndo(MoveShape(x: shape.x, y: shape.y), on: shape, key: "shape")
        shape.x = x
        shape.y = y
    }

    @inline(never)
    func performByClosure(on shape: Shape, in stack: ActionStack) {
        let undo = MoveShape(x: shape.x, y: shape.y)
        stack.registerUndo(withTarget: shape) { undo.performByClosure(on: $0, in: stack) }
        shape.x = x
        shape.y = y
    }
}

/// A text buffer: the target of the larger commands (it keeps the last edit).
final class TextBuffer {
    var location = 0
    var text = ""
}

/// Replaces text at a location: an Int and 64 bytes of text.
struct EditText: BenchmarkCommand {
    static let commandType = "bench.edit"
    static let key = "text"
    static let label = "text edit (64 B)"
    var location: Int
    var text: String

    static func makeTarget() -> TextBuffer { TextBuffer() }

    static func value(_ index: Int) -> EditText {
        guard index > 0 else { return EditText(location: 0, text: "") }
        let line = "\(index): The quick brown fox jumps over the lazy dog, and back again."
        return EditText(location: index * 7 % 5000, text: String(line.prefix(64)))
    }

    static func state(of buffer: TextBuffer) -> EditText { EditText(location: buffer.location, text: buffer.text) }

    @inline(never)
    func perform(on buffer: TextBuffer, in stack: ActionStack) {
        stack.registerUndo(EditText(location: buffer.location, text: buffer.text), on: buffer, key: "text")
        buffer.location = location
        buffer.text = text
    }

    @inline(never)
    func performByClosure(on buffer: TextBuffer, in stack: ActionStack) {
        let undo = EditText(location: buffer.location, text: buffer.text)
        stack.registerUndo(withTarget: buffer) { undo.performByClosure(on: $0, in: stack) }
        buffer.location = location
        buffer.text = text
    }
}

// MARK: The work

/// Makes the changes `commands[1...]`, one explicit group each, registering each inverse as a
/// command or as a closure. The target must be in the state of `commands[0]`.
func registerChanges<Command: BenchmarkCommand>(
    _ commands: [Command], on stack: ActionStack, target: Command.Target, byClosure: Bool
) {
    if byClosure {
        for command in commands.dropFirst() {
            stack.beginUndoGrouping()
            command.performByClosure(on: target, in: stack)
            stack.endUndoGrouping()
        }
    } else {
        for command in commands.dropFirst() {
            stack.beginUndoGrouping()
            command.perform(on: target, in: stack)
            stack.endUndoGrouping()
        }
    }
}

/// The values of steps 0...n.
func commandValues<Command: BenchmarkCommand>(_: Command.Type, _ n: Int) -> [Command] {
    (0...n).map(Command.value)
}

/// ns of CPU time per step of registering n changes (begin + register + end), the release untimed.
func timeRegistration<Command: BenchmarkCommand>(_ commands: [Command], byClosure: Bool) -> Double {
    let stack = explicitStack(notify: false)
    let target = Command.makeTarget()
    let ns = cpuNanoseconds { registerChanges(commands, on: stack, target: target, byClosure: byClosure) }
    check(Command.state(of: target) == commands.last, "registration: target not in the last state")
    check(stack.undoCount == commands.count - 1, "registration: undo count \(stack.undoCount)")
    stack.removeAllActions()
    return ns / Double(commands.count - 1)
}

/// The encoder settings of `HistoryArchive.encoded()`, for the floor.
func floorEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}

/// One kind of command's history of n steps, its archive and the floor's array.
final class PersistenceBench<Command: BenchmarkCommand> {
    let steps: Int
    let target = Command.makeTarget()
    let stack = explicitStack(notify: false)
    /// The commands the history holds, oldest first: the floor's array.
    let held: [Command]
    let registry: CommandRegistry
    private(set) var archive = Data()
    private(set) var plain = Data()

    init(steps: Int) {
        self.steps = steps
        let commands = commandValues(Command.self, steps)
        held = Array(commands.dropLast())
        for command in commands.dropFirst() {
            stack.beginUndoGrouping()
            command.perform(on: target, in: stack)
            stack.setActionName("Change")
            stack.endUndoGrouping()
        }
        var registry = CommandRegistry()
        registry.register(Command.self)
        self.registry = registry
    }

    /// `savedHistory()` + `encoded()`: ns per step.
    func encode() -> Double {
        var data = Data()
        let ns = cpuNanoseconds {
            do {
                let history = try stack.savedHistory()
                data = try HistoryArchive(fingerprint: "benchmark", histories: ["main": history]).encoded()
            } catch {
                check(false, "encode: \(error)")
            }
        }
        archive = data
        return ns / Double(steps)
    }

    /// `encoded()` alone, of a history saved beforehand: ns per step.
    func encodeArchive() -> Double {
        guard let history = try? stack.savedHistory() else {
            check(false, "encode: no history")
            return 0
        }
        var data = Data()
        let ns = cpuNanoseconds {
            do {
                data = try HistoryArchive(fingerprint: "benchmark", histories: ["main": history]).encoded()
            } catch {
                check(false, "encode: \(error)")
            }
        }
        check(
            data == archive || archive.isEmpty, "encode: the archive alone differs from the archive saved and encoded")
        return ns / Double(steps)
    }

    /// The plain array with the same encoder: ns per step.
    func encodeFloor() -> Double {
        var data = Data()
        let ns = cpuNanoseconds {
            do { data = try floorEncoder().encode(held) } catch { check(false, "floor encode: \(error)") }
        }
        plain = data
        return ns / Double(steps)
    }

    /// `HistoryArchive(decoding:registry:)` + `restoreHistory` into an empty stack: ns per step
    /// (the restored stack is checked and released untimed).
    func decode() -> Double {
        let restored = explicitStack(notify: false)
        let fresh = Command.makeTarget()
        var steps = 0
        let ns = cpuNanoseconds {
            do {
                let archive = try HistoryArchive(decoding: archive, registry: registry)
                guard let history = archive.histories["main"] else { return }
                steps = try restored.restoreHistory(history) { $0 == Command.key ? fresh : nil }.restoredSteps
            } catch {
                check(false, "decode: \(error)")
            }
        }
        check(steps == self.steps && restored.undoCount == self.steps, "decode: restored \(steps) steps")
        restored.undo()
        check(Command.state(of: fresh) == held.last, "decode: the restored undo did not restore the state")
        restored.removeAllActions()
        return ns / Double(self.steps)
    }

    /// `HistoryArchive(decoding:registry:)` alone: ns per step.
    func decodeArchive() -> Double {
        var steps = 0
        let ns = cpuNanoseconds {
            do {
                let archive = try HistoryArchive(decoding: archive, registry: registry)
                steps = archive.histories["main"]?.steps.count ?? 0
            } catch {
                check(false, "decode: \(error)")
            }
        }
        check(steps == self.steps, "decode: read \(steps) steps")
        return ns / Double(self.steps)
    }

    /// The plain array read back with `JSONDecoder`: ns per step.
    func decodeFloor() -> Double {
        var count = 0
        let ns = cpuNanoseconds {
            do { count = try JSONDecoder().decode([Command].self, from: plain).count } catch {
                check(false, "floor decode: \(error)")
            }
        }
        check(count == steps, "floor decode: \(count) commands")
        return ns / Double(steps)
    }
}

// MARK: The table

/// One row of the persistence table.
struct PersistenceRow: Encodable {
    /// The kind of command.
    var command: String
    /// "encode", "decode", "bytes" or "register".
    var operation: String
    /// Steps measured.
    var steps: Int
    /// ns per step (bytes per step for "bytes").
    var value: Double
    /// What the baseline is.
    var baseline: String
    /// The baseline's figure, measured in the same run.
    var baselineValue: Double
    /// value / baselineValue.
    var ratio: Double
    /// The goal for the ratio.
    var goal: Double
}

let persistenceWidths = [17, 34, 9, 22, 9, 6, 8]

func printPersistenceRow(_ row: PersistenceRow, first: Bool) {
    let unit = row.operation == "bytes" ? " B" : ""
    let met = row.ratio <= row.goal ? "met" : "not met"
    printCells(
        [
            first ? row.command : "", row.operation, format(row.value) + unit, row.baseline,
            format(row.baselineValue) + unit,
            formatRatio(row.ratio), "<= \(row.goal)x", met,
        ], widths: persistenceWidths, leftAligned: [0, 1, 3])
}

/// Runs the persistence table: 10,000 steps of each kind of command, `repetitions` interleaved
/// rounds, and registration over `registrationSteps` steps.
func runPersistenceTable(repetitions: Int, registrationSteps: Int) -> [PersistenceRow] {
    let steps = 10_000
    print("")
    print(
        "ActionStack persistence table: \(steps) one-action steps saved and restored, registration over "
            + "\(registrationSteps) steps; ns of CPU time per step, medians of \(repetitions), interleaved with "
            + "the baselines (floor: the same commands as a plain array, JSONEncoder/JSONDecoder, sorted keys)")
    printCells(
        ["command", "operation", "per step", "baseline (same run)", "base", "ratio", "goal", ""],
        widths: persistenceWidths, leftAligned: [0, 1, 3])
    var rows: [PersistenceRow] = []
    func add(_ row: PersistenceRow) {
        printPersistenceRow(row, first: rows.last?.command != row.command)
        rows.append(row)
    }
    func run<Command: BenchmarkCommand>(_: Command.Type) {
        let bench = PersistenceBench<Command>(steps: steps)
        let commands = commandValues(Command.self, registrationSteps)
        // Warm up once (page in the code, grow the heap).
        _ = (bench.encode(), bench.encodeFloor(), bench.decode(), bench.decodeFloor())
        let figures = measureTogether(
            repetitions,
            [
                { bench.encode() }, { bench.encodeFloor() }, { bench.decode() }, { bench.decodeFloor() },
                { timeRegistration(commands, byClosure: false) }, { timeRegistration(commands, byClosure: true) },
                { bench.encodeArchive() }, { bench.decodeArchive() },
            ])
        let label = Command.label
        let floor = "plain array, JSON"
        add(
            PersistenceRow(
                command: label, operation: "encode: encoded()", steps: steps, value: figures[6],
                baseline: floor + "Encoder", baselineValue: figures[1], ratio: figures[6] / figures[1], goal: 1.3))
        add(
            PersistenceRow(
                command: label, operation: "decode: HistoryArchive(decoding:)", steps: steps, value: figures[7],
                baseline: floor + "Decoder", baselineValue: figures[3], ratio: figures[7] / figures[3], goal: 1.3))
        add(
            PersistenceRow(
                command: label, operation: "save: savedHistory + encoded()", steps: steps, value: figures[0],
                baseline: floor + "Encoder", baselineValue: figures[1], ratio: figures[0] / figures[1], goal: 1.3))
        add(
            PersistenceRow(
                command: label, operation: "load: decoding + restoreHistory", steps: steps, value: figures[2],
                baseline: floor + "Decoder", baselineValue: figures[3], ratio: figures[2] / figures[3], goal: 1.3))
        let bytes = Double(bench.archive.count) / Double(steps)
        let plainBytes = Double(bench.plain.count) / Double(steps)
        add(
            PersistenceRow(
                command: label, operation: "bytes", steps: steps, value: bytes, baseline: "plain array",
                baselineValue: plainBytes, ratio: bytes / plainBytes, goal: 1.3))
        add(
            PersistenceRow(
                command: label, operation: "register: command (group + reg.)", steps: registrationSteps,
                value: figures[4], baseline: "closure, same captures", baselineValue: figures[5],
                ratio: figures[4] / figures[5], goal: 1.5))
    }
    run(MoveShape.self)
    run(EditText.self)
    printRecorderCosts(repetitions: repetitions)
    return rows
}

// MARK: The history recorder

/// ns of CPU time per change (begin + register a move command + end) on a stack that holds `held`
/// steps (its `levelsOfUndo`), with a `HistoryRecorder` journaling it after each change or without.
/// The recorder's first record (a snapshot of the whole history) is made before the timing starts;
/// the records timed are records of what changed (a compaction, amortized over as many changes as
/// a snapshot outweighs records, falls outside runs this short at large sizes). The journal keeps
/// its default limits; it flushes to the disk as `durability` says (by default, never).
func timeRecordedChanges(
    held: Int, changes: Int, recorded: Bool, durability: HistoryJournal.Durability = .system
) -> Double {
    let stack = explicitStack(notify: false)
    stack.levelsOfUndo = held
    let target = MoveShape.makeTarget()
    let commands = commandValues(MoveShape.self, held + changes + 1)
    registerChanges(Array(commands.prefix(held + 1)), on: stack, target: target, byClosure: false)
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("actionstack-bench-\(UUID().uuidString).journal")
    let journal = HistoryJournal(url: url, durability: durability)
    let recorder = recorded ? HistoryRecorder(journal: journal, stack: stack) { "document" } : nil
    // The first record, a snapshot, untimed (`registerChanges` registers all but the first
    // command it is given: here command held + 1).
    registerChanges(Array(commands[held...(held + 1)]), on: stack, target: target, byClosure: false)
    check(recorder.map { $0.recordCount == 1 } ?? true, "recorder: the first change made no record")
    // Commands held + 2 ... held + changes: changes - 1 of them.
    let ns = cpuNanoseconds {
        registerChanges(Array(commands[(held + 1)...]), on: stack, target: target, byClosure: false)
    }
    check(
        recorder.map { $0.recordCount >= changes - 1 && $0.lastError == nil } ?? true,
        "recorder: \(recorder?.recordCount ?? 0) records for \(changes) changes, error \(String(describing: recorder?.lastError))"
    )
    check(stack.undoCount == held, "recorder: undo count \(stack.undoCount)")
    withExtendedLifetime(recorder) {}
    try? journal.reset()
    try? FileManager.default.removeItem(at: url)
    stack.removeAllActions()
    return ns / Double(changes - 1)
}

/// The floor of any journal of JSON commands: ns of CPU time per command encoded alone with a
/// `JSONEncoder` (as a record of one step encodes its command), with no stack and no file.
func timeEncodingOneCommand(changes: Int) -> Double {
    let commands = commandValues(MoveShape.self, changes)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var bytes = 0
    let ns = cpuNanoseconds {
        for command in commands { bytes &+= (try? encoder.encode([command]))?.count ?? 0 }
    }
    check(bytes > 0, "floor: nothing encoded")
    return ns / Double(changes)
}

/// The floor of any journal that a crash of the app cannot outrun: ns of CPU time per system call
/// that writes `bytes` bytes at the end of a file (one `write` of an open file, no lock, no check,
/// no encoding), as each record must reach the system before its change returns.
func timeOneWrite(bytes: Int, writes: Int) -> Double {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("actionstack-bench-\(UUID().uuidString).write")
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else { return .nan }
    defer { try? FileManager.default.removeItem(at: url) }
    guard let handle = try? FileHandle(forWritingTo: url) else { return .nan }
    defer { try? handle.close() }
    let descriptor = handle.fileDescriptor
    let record = [UInt8](repeating: 0x2A, count: bytes)
    var written = 0
    let ns = cpuNanoseconds {
        for _ in 0..<writes { written &+= record.withUnsafeBytes { write(descriptor, $0.baseAddress, bytes) } }
    }
    check(written == bytes * writes, "floor: a write fell short")
    return ns / Double(writes)
}

/// ns of CPU time per query (`canUndo` and `undoMenuItemTitle`) on a stack of `held` steps,
/// watched by a recorder or not.
func timeQueries(held: Int, watched: Bool) -> Double {
    let stack = explicitStack(notify: false)
    let target = MoveShape.makeTarget()
    let commands = commandValues(MoveShape.self, held + 1)
    registerChanges(Array(commands.prefix(held)), on: stack, target: target, byClosure: false)
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("actionstack-bench-\(UUID().uuidString).journal")
    let journal = HistoryJournal(url: url, synchronizesAppends: false)
    let recorder = watched ? HistoryRecorder(journal: journal, stack: stack) { "document" } : nil
    // One change after the recorder starts watching, so that its first record is made, untimed.
    registerChanges(Array(commands[(held - 1)...]), on: stack, target: target, byClosure: false)
    _ = stack.canUndo
    let recordsBefore = recorder?.recordCount
    check(recorder.map { $0.recordCount >= 1 } ?? true, "queries: the change made no record")
    let queries = 100_000
    var seen = 0
    let ns = cpuNanoseconds {
        for _ in 0..<queries {
            if stack.canUndo { seen &+= stack.undoMenuItemTitle.utf8.count }
        }
    }
    check(seen > 0, "queries: nothing to undo")
    check(recorder?.recordCount == recordsBefore, "queries: a query appended a record")
    withExtendedLifetime(recorder) {}
    try? FileManager.default.removeItem(at: url)
    stack.removeAllActions()
    return ns / Double(queries)
}

/// What a `HistoryRecorder` adds to each change: a record of what changed, appended to the
/// journal (issue 29's goal: the same cost at n and 16n steps held, and at most 3 times the change
/// without a recorder, durability left to the system), beside the same changes without one,
/// measured together; then the fsync-per-record mode, and a query on a watched stack beside an
/// unwatched one.
func printRecorderCosts(repetitions: Int) {
    print("")
    print(
        "HistoryRecorder: ns of CPU time per change (a move command, group + register, trimming the oldest step) "
            + "with the recorder appending a record of what changed, beside the same change without one; medians of "
            + "\(repetitions)")
    var with: [Int: Double] = [:]
    for held in [100, 1_600, 100_000] {
        let changes = 400
        let figures = measureTogether(
            repetitions,
            [
                { timeRecordedChanges(held: held, changes: changes, recorded: true) },
                { timeRecordedChanges(held: held, changes: changes, recorded: false) },
            ])
        with[held] = figures[0]
        print(
            "  \(held) steps held: \(format(figures[0])) ns with the recorder, \(format(figures[1])) ns without "
                + "(\(formatRatio(figures[0] / figures[1])); goal ≤ 3x)")
    }
    let floor = measureTogether(
        repetitions,
        [
            { timeEncodingOneCommand(changes: 2_000) },
            { timeRecordedChanges(held: 100, changes: 400, recorded: false) },
        ])
    print(
        "  the floor of a journal of JSON commands: encoding the one command with JSONEncoder alone costs "
            + "\(format(floor[0])) ns, \(formatRatio(floor[0] / floor[1])) the change (\(format(floor[1])) ns); "
            + "the recorder's record is \(formatRatio((with[100] ?? 0) / floor[0])) that encoding")
    let writeFloor = measureTogether(
        repetitions,
        [
            { timeOneWrite(bytes: 300, writes: 2_000) },
            { timeRecordedChanges(held: 100, changes: 400, recorded: false) },
        ])
    print(
        "  the floor of a journal that survives the app's crash: one write call of a 300-byte record "
            + "costs \(format(writeFloor[0])) ns, \(formatRatio(writeFloor[0] / writeFloor[1])) the change "
            + "(\(format(writeFloor[1])) ns), before any lock, check or encoding")
    if let n = with[100], let n16 = with[1_600], let big = with[100_000] {
        print(
            "  with the recorder, 1,600 against 100 steps held: \(formatRatio(n16 / n)) (goal ≤ 1.2x); "
                + "100,000 against 100: \(formatRatio(big / n))")
    }
    let synced = measureTogether(
        repetitions,
        [
            { timeRecordedChanges(held: 100, changes: 100, recorded: true, durability: .everyAppend) },
            { timeRecordedChanges(held: 100, changes: 100, recorded: true, durability: .within(.milliseconds(50))) },
            { timeRecordedChanges(held: 100, changes: 100, recorded: true) },
        ])
    print(
        "  fsync per record (.everyAppend, the default): \(format(synced[0])) ns of CPU time per change at "
            + "100 steps; a deferred fsync within 50 ms (.within): \(format(synced[1])) ns (the flush runs on the "
            + "background queue, not timed); left to the system (.system): \(format(synced[2])) ns "
            + "(\(formatRatio(synced[0] / synced[2])) and \(formatRatio(synced[1] / synced[2]))); "
            + "the wait for the disk is not CPU time")
    printJournalFootprint()
    let queries = measureTogether(
        repetitions,
        [
            { timeQueries(held: 1_000, watched: true) },
            { timeQueries(held: 1_000, watched: false) },
        ])
    print(
        "  a query (canUndo + undoMenuItemTitle) at 1,000 steps: \(format(queries[0])) ns watched, "
            + "\(format(queries[1])) ns unwatched (\(formatRatio(queries[0] / queries[1])); goal within 1.05x)")
}

/// The journal's size after `changes` changes on a stack of `held` steps (trimming the oldest),
/// beside one full save of the history, and the CPU time of a recovery from it.
func journalFootprint(held: Int, changes: Int) -> (journal: Int, fullSave: Int, recoverNs: Double) {
    let stack = explicitStack(notify: false)
    stack.levelsOfUndo = held
    let target = MoveShape.makeTarget()
    let commands = commandValues(MoveShape.self, held + changes + 1)
    registerChanges(Array(commands.prefix(held + 1)), on: stack, target: target, byClosure: false)
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("actionstack-bench-\(UUID().uuidString).journal")
    let journal = HistoryJournal(url: url, synchronizesAppends: false)
    let recorder = HistoryRecorder(journal: journal, stack: stack) { "document" }
    registerChanges(Array(commands[held...]), on: stack, target: target, byClosure: false)
    check(recorder.lastError == nil, "footprint: \(String(describing: recorder.lastError))")
    let journalBytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    let archive = try? HistoryArchive(
        fingerprint: "document", histories: [HistoryRecorder.defaultHistoryName: stack.savedHistory()])
    let fullSave = (try? archive?.encoded().count) ?? 0
    var registry = CommandRegistry()
    registry.register(MoveShape.self)
    var recovered: HistoryArchive?
    let ns = cpuNanoseconds {
        recovered = try? HistoryRecorder.recover(from: journal, fingerprint: "document", registry: registry)
    }
    check(recovered?.histories[HistoryRecorder.defaultHistoryName]?.steps.count == held, "footprint: recovery")
    withExtendedLifetime(recorder) {}
    try? journal.reset()
    try? FileManager.default.removeItem(at: url)
    stack.removeAllActions()
    return (journalBytes, fullSave, ns)
}

/// Issue 29's footprint goals: the journal stays within a small factor of one full save however
/// many changes are made, and a recovery's time is linear in the journal's size.
func printJournalFootprint() {
    print("  the journal after n changes at 1,000 steps held (its size against one full save; recovery time):")
    var perByte: [Double] = []
    for changes in [1_000, 10_000, 100_000] {
        let figures = journalFootprint(held: 1_000, changes: changes)
        let ratio = Double(figures.journal) / Double(max(1, figures.fullSave))
        perByte.append(figures.recoverNs / Double(max(1, figures.journal)))
        print(
            "    \(changes) changes: \(figures.journal / 1024) KiB, \(formatRatio(ratio)) a full save "
                + "(\(figures.fullSave / 1024) KiB); recovery \(format(figures.recoverNs / 1e6)) ms, "
                + "\(format(figures.recoverNs / Double(max(1, figures.journal)))) ns per byte")
    }
    if let first = perByte.first, let last = perByte.last {
        print("    recovery per byte, 100,000 changes against 1,000: \(formatRatio(last / first)) (linear: about 1x)")
    }
}
