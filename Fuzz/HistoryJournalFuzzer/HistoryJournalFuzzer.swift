// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The libFuzzer target for the history journal and its replay. Scripts/fuzz-history-journal.sh
// compiles it as a module of its own that imports the library's two modules with code,
// ActionStackCore and ActionStackArchive (built by Scripts/fuzz-common.sh, shared with the archive's
// target), all with `-sanitize=fuzzer,address`.
//
// Each input is used twice, for what the documentation promises ("Saving the history",
// HistoryJournal, HistoryRecorder):
//
// 1. As a journal file's bytes (JournalChecks.checkFile). A replay reads it or refuses it as not a
//    journal, and leaves the file as it was; a recovery with each fingerprint of its records (and
//    one that none has) returns nil, an archive whose histories validate and restore into a new
//    stack, whose undo and redo then walk them, or throws a HistoryArchiveError; every archive of
//    the journal (`recordedArchives`) is the one a recovery at its fingerprint gives. An append
//    then works, and the replay after it finds the intact records before it and the new one; the
//    recoveries of the earlier fingerprints are unchanged, and the new record recovers.
// 2. As record payloads (JournalChecks.checkFramed): the input split at each 0xFF byte (never in
//    UTF-8, so never inside JSON text), each part appended with `HistoryJournal.append`, after the
//    records of a real recorder. The framing and checksums are valid, so the mutations reach the
//    record reader and the replay of what changed: the chain operations' counts, branch numbers,
//    anchors and nodes, tables out of step with one another. Each recovery throws a
//    HistoryArchiveError or gives an archive that validates and restores, and the real records
//    before them still recover as they did.
//
// Anything else stops the process (a crash, which libFuzzer saves as an artifact): an
// AddressSanitizer report, a trap, a hang (libFuzzer's -timeout), or one of the checks below.
//
// With HISTORY_JOURNAL_FUZZER_SEEDS set to a folder, the target writes its seeds there (journals
// of recorders over stacks with undo, redo, jumps, branches, removals, limits and compactions, as
// files and as split payloads) and exits: Fuzz/corpus/history-journal was made so.

import ActionStackArchive
import ActionStackCore
import Foundation

// MARK: - Commands and targets

/// An object whose value the commands set.
final class FuzzBox {
    let id: String
    var value = 0
    init(_ id: String) { self.id = id }
}

/// Sets a box's value, registering the inverse.
struct FuzzSet: UndoCommand {
    static let commandType = "fuzz.set"
    var value: Int
    func perform(on box: FuzzBox, in stack: ActionStack) {
        stack.registerUndo(FuzzSet(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

/// A command with a nested payload: text, a dictionary, an optional.
struct FuzzNote: UndoCommand {
    static let commandType = "fuzz.note"
    var text: String
    var tags: [String: Int]
    var note: String?
    func perform(on box: FuzzBox, in stack: ActionStack) {
        stack.registerUndo(FuzzNote(text: "\(box.value)", tags: [:], note: nil), on: box, key: box.id)
        box.value = text.count
    }
}

let fuzzRegistry: CommandRegistry = {
    var registry = CommandRegistry()
    registry.register(FuzzSet.self)
    registry.register(FuzzNote.self)
    return registry
}()

// MARK: - Checks

/// Fails the run with `message` (libFuzzer saves the input).
func fuzzFailure(_ message: String) -> Never {
    preconditionFailure(message)
}

/// Everything observable about an archive, as text (the commands by their JSON).
func describe(_ archive: HistoryArchive) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var text = "fingerprint \(archive.fingerprint)\n"
    for (name, history) in archive.histories.sorted(by: { $0.key < $1.key }) {
        let rootDate = history.rootDate.map { "\($0.timeIntervalSinceReferenceDate.bitPattern)" } ?? "nil"
        text +=
            "[\(name)] \(history.shape) \(history.root) \(history.current) \(String(describing: history.clean)) "
            + "\(rootDate) \(history.omissions.count)\n"
        for step in history.steps {
            let date = step.date.map { "\($0.timeIntervalSinceReferenceDate.bitPattern)" } ?? "nil"
            text +=
                "\(step.node)<-\(step.parent) \(step.isRedoChoice) \(date) \(step.actionName) \(step.isDiscardable) "
                + "\(step.userInfo.count)\n"
            for action in step.actions {
                let command = action.command.map { command in
                    (try? encoder.encode(command)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                }
                text += "  \(action.commandType) \(action.version) \(action.key) \(action.cost) \(command ?? "nil")\n"
            }
        }
    }
    return text
}

/// Checks a recovered archive: each history validates, restores into a new stack of its shape
/// (keys resolved to boxes that live through the walk, to nothing, to an object of the wrong
/// class, or to one nobody keeps, by the key's first byte), whose undo and redo then walk it and
/// which saves a history that validates.
func checkRecovered(_ archive: HistoryArchive) {
    for (name, history) in archive.histories {
        do {
            try history.validate()
        } catch {
            fuzzFailure("history \(name) was recovered but does not validate: \(error)")
        }
        restoreAndWalk(history, makeTarget: { FuzzBox($0) }, fail: fuzzFailure)
    }
}

/// What a recovery gave.
enum Outcome: Equatable {
    case none
    case archive(String)
    case failure(String)
}

/// Recovers from `journal` at `fingerprint`, checking that it throws only a HistoryArchiveError
/// and that what it returns restores.
func recover(_ journal: HistoryJournal, _ fingerprint: String) -> Outcome {
    do {
        guard let archive = try HistoryRecorder.recover(from: journal, fingerprint: fingerprint, registry: fuzzRegistry)
        else { return .none }
        precondition(archive.fingerprint == fingerprint, "a recovery at \(fingerprint) gave \(archive.fingerprint)")
        checkRecovered(archive)
        return .archive(describe(archive))
    } catch let error as HistoryArchiveError {
        precondition(error.description.count < 2_000, "an error message of \(error.description.count) characters")
        return .failure(error.description)
    } catch {
        fuzzFailure("a recovery threw \(type(of: error)), not a HistoryArchiveError: \(error)")
    }
}

/// The journal's file and its folder, one per process (in memory when /dev/shm is there).
let fuzzDirectory: URL = {
    let shared = URL(fileURLWithPath: "/dev/shm")
    let parent = FileManager.default.fileExists(atPath: shared.path) ? shared : FileManager.default.temporaryDirectory
    let directory = parent.appendingPathComponent(
        "history-journal-fuzzer-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}()
let fuzzFile = fuzzDirectory.appendingPathComponent("fuzz.journal")

/// A new journal on the fuzzer's file, holding `bytes` (no file when nil).
func freshJournal(holding bytes: Data?) -> HistoryJournal {
    try? FileManager.default.removeItem(at: fuzzFile)
    if let bytes {
        do {
            try bytes.write(to: fuzzFile)
        } catch {
            fuzzFailure("cannot write the fuzzer's file: \(error)")
        }
    }
    // No flush to the disk: a crash of the machine is not what is tested, and fsync is slow.
    return HistoryJournal(url: fuzzFile, maximumBytes: 1 << 20, durability: .system)
}

func fileBytes() -> Data {
    (try? Data(contentsOf: fuzzFile)) ?? Data()
}

/// The record appended after the input in the first check: the base journal's first snapshot, a
/// whole record that recovers on its own.
let appendedFingerprint = "fuzz-appended"

/// Check 1: the input as a journal's file.
func checkFile(_ data: Data) {
    let journal = freshJournal(holding: data)
    let replay: HistoryJournal.Replay
    do {
        replay = try journal.replay()
    } catch {
        precondition(error.kind == .notAJournal, "a replay of a small file threw \(error)")
        precondition(fileBytes() == data, "a replay that refused the file changed it")
        // A recovery refuses it too, and so does an append, which leaves it as it is.
        do {
            _ = try HistoryRecorder.recover(from: journal, fingerprint: "f", registry: fuzzRegistry)
            fuzzFailure("a recovery read a file that a replay refused")
        } catch let error as HistoryFileError {
            precondition(error.kind == .notAJournal, "a recovery threw \(error)")
        } catch {
            fuzzFailure("a recovery of a file that is not a journal threw \(error)")
        }
        do {
            try journal.append(Data("{}".utf8), fingerprint: nil)
            fuzzFailure("an append wrote to a file that is not a journal")
        } catch {
            precondition(error.kind == .notAJournal, "an append threw \(error)")
        }
        precondition(fileBytes() == data, "an append refused changed the file")
        return
    }
    let records = replay.records
    for (index, record) in records.enumerated().dropFirst() {
        precondition(record.sequence == records[index - 1].sequence &+ 1, "sequence numbers that do not count up")
    }
    // The intact records are the file from its header on, and the ending says where they stop and
    // what follows: nothing, a torn record to the end, or a damaged one whose bytes are dropped.
    var end = records.isEmpty && data.count < 16 ? 0 : 16
    for record in records { end += 28 + record.payload.count + (record.fingerprint?.utf8.count ?? 0) }
    let ending = replay.ending
    if ending == .complete {
        precondition(end == data.count, "a complete replay of \(end) bytes of \(data.count)")
    } else {
        precondition(ending.offset == end, "the replay ended at \(String(describing: ending.offset)), not \(end)")
        precondition(
            (ending.length ?? ending.droppedBytes) == data.count - end, "the ending's bytes are not the rest")
        precondition((ending.length == nil) != (ending.reason == nil), "an ending both torn and damaged")
    }
    for fingerprint in Set(records.suffix(4).compactMap(\.fingerprint)) {
        let last = records.last { $0.fingerprint == fingerprint }
        precondition(
            (try? journal.lastRecord(matchingFingerprint: fingerprint)) == last, "lastRecord is not the last one")
    }
    // The fingerprints to recover at: the last few distinct ones, and one that no record has.
    var fingerprints: [String] = []
    for record in records.reversed() {
        guard let fingerprint = record.fingerprint, !fingerprints.contains(fingerprint) else { continue }
        fingerprints.append(fingerprint)
        if fingerprints.count == 4 { break }
    }
    fingerprints.append("no such fingerprint")
    var outcomes: [String: Outcome] = [:]
    for fingerprint in fingerprints {
        outcomes[fingerprint] = recover(journal, fingerprint)
    }
    precondition(outcomes["no such fingerprint"] == Outcome.none, "a recovery at a fingerprint no record has")
    precondition(fileBytes() == data, "a recovery changed the file")
    // Each record's archive is the one a recovery at its fingerprint gives, at its last record.
    do {
        let archives = try HistoryRecorder.recordedArchives(in: journal, registry: fuzzRegistry)
        precondition(archives.count == records.count, "\(archives.count) archives of \(records.count) records")
        for (index, record) in records.enumerated() {
            guard let fingerprint = record.fingerprint, let outcome = outcomes[fingerprint],
                records[(index + 1)...].allSatisfy({ $0.fingerprint != fingerprint })
            else { continue }
            precondition(outcome == .archive(describe(archives[index])), "a recovery differs from its record's archive")
        }
    } catch is HistoryArchiveError {
    } catch {
        fuzzFailure("recordedArchives threw \(type(of: error)), not a HistoryArchiveError: \(error)")
    }
    // An append goes after the intact records (over a torn or damaged end), and loses none.
    let base = baseJournal
    do {
        try journal.append(base.records[0].payload, fingerprint: appendedFingerprint)
    } catch {
        fuzzFailure("an append to a journal that replayed failed: \(error)")
    }
    let after: HistoryJournal.Replay
    do {
        after = try journal.replay()
    } catch {
        fuzzFailure("a journal that replayed does not after an append: \(error)")
    }
    precondition(after.ending == .complete, "the append left \(after.ending)")
    precondition(after.records.count == records.count + 1, "the append kept \(after.records.count - 1) records")
    precondition(Array(after.records.dropLast()) == records, "the records before the append changed")
    let appended = after.records[records.count]
    precondition(appended.payload == base.records[0].payload, "the appended record reads back differently")
    precondition(appended.fingerprint == appendedFingerprint, "the appended record has another fingerprint")
    if let last = records.last {
        precondition(appended.sequence == last.sequence &+ 1, "the appended record does not follow the last")
    }
    for fingerprint in fingerprints where fingerprint != appendedFingerprint {
        precondition(recover(journal, fingerprint) == outcomes[fingerprint], "a recovery changed after an append")
    }
    let outcome = recover(journal, appendedFingerprint)
    precondition(outcome == .archive(base.appendedOutcome), "the appended record recovers as \(outcome)")
}

/// The most payloads the second check appends, and the most recoveries of them it makes (each
/// replays the journal up to its record).
let maximumPayloads = 64
let maximumRecoveries = 6

/// Check 2: the input as record payloads, appended after a real recorder's records.
func checkFramed(_ data: Data) {
    let payloads = data.split(separator: 0xFF, maxSplits: maximumPayloads, omittingEmptySubsequences: false)
        .prefix(maximumPayloads)
    let journal = freshJournal(holding: nil)
    let base = baseJournal
    do {
        for record in base.records { try journal.append(record.payload, fingerprint: record.fingerprint) }
        for (index, payload) in payloads.enumerated() { try journal.append(Data(payload), fingerprint: "p\(index)") }
    } catch {
        fuzzFailure("an append of \(payloads.count) payloads failed: \(error)")
    }
    // Every payload's record, the last ones first, and evenly before them.
    var indices = Set<Int>()
    let count = payloads.count
    for index in stride(from: count - 1, through: 0, by: -Swift.max(1, count / maximumRecoveries)) {
        indices.insert(index)
        if indices.count == maximumRecoveries { break }
    }
    for index in indices.sorted() {
        if case .none = recover(journal, "p\(index)") { fuzzFailure("no record of payload \(index)") }
    }
    // The real records before them recover as they did (the first and the last checked, for speed).
    for fingerprint in [base.records[0].fingerprint, base.records.last?.fingerprint] {
        guard let fingerprint, let outcome = base.outcomes[fingerprint] else { continue }
        precondition(recover(journal, fingerprint) == .archive(outcome), "a real record recovers differently")
    }
    do {
        let archives = try HistoryRecorder.recordedArchives(in: journal, registry: fuzzRegistry)
        precondition(archives.count == base.records.count + count, "archives for records that are not there")
        for archive in archives.suffix(count) { checkRecovered(archive) }
    } catch is HistoryArchiveError {
    } catch {
        fuzzFailure("recordedArchives threw \(type(of: error)), not a HistoryArchiveError: \(error)")
    }
    // The history of the last payload that recovers, restored, goes on being recorded (last:
    // the recorder's snapshot may compact the journal, dropping the records before it).
    for index in indices.sorted().reversed() {
        guard
            let archive = try? HistoryRecorder.recover(from: journal, fingerprint: "p\(index)", registry: fuzzRegistry),
            let history = archive.histories[HistoryRecorder.defaultHistoryName]
        else { continue }
        continueRecording(history, in: journal)
        break
    }
}

/// Restores `history` into a stack that a new recorder on `journal` watches, changes it, undoes
/// the change and jumps to the start: a recovery at each of these calls' fingerprints is the full
/// save the stack makes then.
func continueRecording(_ history: SavedHistory, in journal: HistoryJournal) {
    let stack = ActionStack()
    stack.misusePolicy = .report
    stack.groupsByEvent = true
    stack.automaticGroupClosing = .manual
    stack.historyShape = history.shape
    var fingerprint = "continued-0"
    let recorder = HistoryRecorder(journal: journal, stack: stack) { fingerprint }
    var boxes: [String: FuzzBox] = [:]
    do {
        _ = try stack.restoreHistory(history) { key in
            let box = FuzzBox(key)
            boxes[key] = box
            return box
        }
    } catch {
        fuzzFailure("a recovered history was not restored: \(error)")
    }
    let box = boxes.values.first ?? FuzzBox("box")
    var expected: [String: String] = [:]
    func note() {
        do {
            let saved = try stack.savedHistory()
            try saved.validate()
            expected[fingerprint] = describe(
                HistoryArchive(fingerprint: fingerprint, histories: [HistoryRecorder.defaultHistoryName: saved]))
        } catch {
            fuzzFailure("a restored stack cannot save its history: \(error)")
        }
    }
    note()
    fingerprint = "continued-1"
    FuzzSet(value: 7).perform(on: box, in: stack)
    stack.endEvent()
    note()
    fingerprint = "continued-2"
    stack.undo()
    note()
    fingerprint = "continued-3"
    stack.jump(to: 0)
    note()
    precondition(recorder.lastError == nil, "the recorder failed: \(String(describing: recorder.lastError))")
    for (fingerprint, described) in expected {
        let outcome = recover(journal, fingerprint)
        // A call that changed nothing made no record: the one before it stands for it.
        if outcome == Outcome.none { continue }
        precondition(outcome == .archive(described), "a recovery at \(fingerprint) is not the save made then")
    }
    withExtendedLifetime((recorder, boxes, box)) {}
}

// MARK: - Entry points

/// libFuzzer's entry point: checks one input, as a journal's file and as record payloads.
///
/// - Parameters:
///   - start: The input's bytes.
///   - count: The number of bytes.
/// - Returns: 0 (libFuzzer's "keep going"); a failed check stops the process instead.
/// - Complexity: O(n) for n bytes, times the recoveries made, plus the commands' decoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func historyJournalFuzzerTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    checkFile(data)
    checkFramed(data)
    return 0
}

/// libFuzzer's initialization: builds the base journal, or writes the seeds and exits when
/// HISTORY_JOURNAL_FUZZER_SEEDS names a folder.
///
/// - Returns: 0.
/// - Complexity: O(1) inputs' worth.
@_cdecl("LLVMFuzzerInitialize")
public func historyJournalFuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    if let folder = ProcessInfo.processInfo.environment["HISTORY_JOURNAL_FUZZER_SEEDS"] {
        writeSeeds(to: URL(fileURLWithPath: folder))
        try? FileManager.default.removeItem(at: fuzzDirectory)
        exit(0)
    }
    _ = baseJournal
    // The folder goes when libFuzzer ends the run (a crash leaves it, for a look).
    atexit { try? FileManager.default.removeItem(at: fuzzDirectory) }
    return 0
}
