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

/// A recorder's snapshots copy the encoded commands of the steps unchanged since its last record
/// (issue 29): whatever mix of a peer's changes, branches, removals by target, freed targets,
/// coalescing keystrokes, trims and journal resets came between, a recovery is exactly the full
/// save. Small journals make nearly every record a snapshot, so that copies are taken constantly.
/// Not on the main actor: the walk takes seconds, and would hold up the main-actor suites (whose
/// time limits count the wait) in a parallel run.
@Suite struct SnapshotsAfterRemoteChangesTests {
    static func registry() -> CommandRegistry {
        // The shared registry and this suite's own note command, which no other suite records.
        var registry = testRegistry()
        registry.register(NoteCommand.self)
        return registry
    }

    /// A second kind of target, whose commands a peer's text change passes unchanged.
    final class Note {
        var items: [String] = []
    }

    /// Adds an item to a note (or takes the last off, when `add` is nil), registering its inverse.
    struct NoteCommand: UndoCommand {
        static let commandType = "test.snapshot-note"
        var add: String?

        func perform(on note: Note, in stack: ActionStack) {
            if let add {
                note.items.append(add)
                stack.registerUndo(NoteCommand(add: nil), on: note, key: "note")
            } else {
                let last = note.items.popLast()
                stack.registerUndo(NoteCommand(add: last ?? "?"), on: note, key: "note")
            }
        }
    }

    /// The recovery from `journal` and a full save of `stack`, as archive bytes.
    static func recoveredAndSaved(_ journal: HistoryJournal, _ stack: ActionStack) throws -> (Data, Data)? {
        guard let saved = try? stack.savedHistory() else { return nil }
        let archive = try #require(try HistoryRecorder.recover(from: journal, fingerprint: "doc", registry: registry()))
        let replayed = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        return (try bytes(replayed), try bytes(saved))
    }

    let trace = ProcessInfo.processInfo.environment["ACTIONSTACK_SNAPSHOT_TRACE"] != nil

    func walk(seed: UInt64, shape: ActionStack.HistoryShape) throws -> (compared: Int, reused: Int, failed: Bool) {
        var random = SeededGenerator(seed: seed)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-snapshots-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let maximumRecords = [4, 6, 10, HistoryJournal.defaultMaximumRecords][random.int(0...3)]
        let journal = HistoryJournal(
            url: directory.appendingPathComponent("doc.journal"), maximumRecords: maximumRecords,
            synchronizesAppends: false)
        let stack = ActionStack()
        stack.historyShape = shape
        stack.groupsByEvent = false
        let document = SharedText("", stack: stack)
        var note: Note? = Note()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "doc" }
        recorder._compactionFloor = 0
        var letter = 0
        func word() -> String {
            letter += 1
            return String(UnicodeScalar(UInt8(97 + letter % 26)))
        }
        var log: [String] = []
        var compared = 0
        var lastWasKeystroke = false
        for index in 0..<160 {
            let text = document.text
            let count = text.unicodeScalars.count
            let what: String
            if trace {
                print("seed \(seed) op \(index) text \(document.text) undo \(stack.undoCount) redo \(stack.redoCount)")
            }
            switch random.next(20) {
            case 0, 1, 2:
                let offset = random.int(0...count)
                what = "edit at \(offset)"
                stack.beginUndoGrouping()
                document.edit(.insert(word(), at: offset))
                if random.next(3) == 0, let note {
                    note.items.append("n")
                    stack.registerUndo(NoteCommand(add: nil), on: note, key: "note")
                }
                stack.endUndoGrouping()
            case 3:
                // A keystroke: the first opens its step, the next ones join it.
                let offset = random.int(0...count)
                // A keystroke joins only a keystroke made just before (registered with no group
                // open, it would otherwise stand alone).
                let first = !lastWasKeystroke || random.next(2) == 0
                what = "keystroke at \(offset)\(first ? " (first)" : "")"
                if first { stack.beginUndoGrouping() }
                let edit = TextEdit.insert(word(), at: offset)
                try! edit.apply(to: &document.text)
                stack.registerUndo(
                    TextCommand(edit: edit.inverse), on: document, key: SharedText.key,
                    options: .coalescing("typing"))
                if first { stack.endUndoGrouping() }
            case 4, 5:
                guard count > 0 else { continue }
                let offset = random.int(0...(count - 1))
                let scalars = text.unicodeScalars
                let scalar = String(scalars[scalars.index(scalars.startIndex, offsetBy: offset)])
                what = "peer deletes at \(offset)"
                document.receive(.delete(scalar, at: offset))
            case 6:
                let offset = random.int(0...count)
                what = "peer types at \(offset)"
                document.receive(.insert("P", at: offset))
            case 7:
                what = "undo"
                if stack.canUndo { stack.undo() }
            case 8:
                what = "redo"
                if stack.canRedo { stack.redo() }
            case 9:
                what = "earlier"
                if shape == .tree { _ = try? stack.earlier(random.int(1...3)) } else if stack.canUndo { stack.undo() }
            case 10:
                what = "later"
                if shape == .tree { _ = try? stack.later(random.int(1...3)) } else if stack.canRedo { stack.redo() }
            case 11:
                guard shape == .tree, let tree = stack.historyTree, !tree.nodes.isEmpty else { continue }
                let node = tree.nodes[random.int(0...(tree.nodes.count - 1))].id
                what = "jump to \(node)"
                try? stack.jump(toNode: node)
            case 12:
                guard let note else { continue }
                what = "note step"
                stack.beginUndoGrouping()
                note.items.append("m")
                stack.registerUndo(NoteCommand(add: nil), on: note, key: "note")
                stack.endUndoGrouping()
            case 13:
                guard let current = note else { continue }
                what = "remove the note's actions"
                stack.removeAllActions(withTarget: current)
            case 14:
                what = "free the note"
                note = Note()
            case 15:
                what = "reset the journal"
                try journal.reset()
                recorder.record()
            case 16:
                let levels = [0, 0, 3, 6][random.int(0...3)]
                what = "levels \(levels)"
                stack.levelsOfUndo = levels
            case 17:
                guard shape == .tree else { continue }
                let limit = [0, 0, 2, 5][random.int(0...3)]
                what = "branch steps \(limit)"
                stack.maximumBranchSteps = limit
            case 18:
                what = "record"
                recorder.record()
            default:
                what = "mark clean"
                stack.markClean()
            }
            lastWasKeystroke = what.hasPrefix("keystroke")
            log.append("\(index) \(what) -> \(document.text)")
            if trace { print("  \(what) -> \(document.text)") }
            #expect(recorder.lastError == nil, "seed \(seed) op \(index) \(what)")
            guard recorder.recordCount > 0 else { continue }
            guard let (recovered, saved) = try Self.recoveredAndSaved(journal, stack) else { continue }
            if recovered != saved {
                Issue.record(
                    """
                    seed \(seed) \(shape) (records \(maximumRecords)) op \(index) \(what): the recovery \
                    differs from a full save
                      \(log.suffix(12).joined(separator: "\n  "))
                      saved:     \(String(decoding: saved, as: UTF8.self))
                      recovered: \(String(decoding: recovered, as: UTF8.self))
                    """)
                return (compared, recorder._reusedCommandEncodings, true)
            }
            compared += 1
        }
        return (compared, recorder._reusedCommandEncodings, false)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aRecoveryIsTheFullSaveWhateverCameBetweenSnapshots(shape: ActionStack.HistoryShape) throws {
        var compared = 0
        var reused = 0
        for seed in UInt64(1)...UInt64(Workload.scaled(8)) {
            let result = try walk(seed: seed &+ (shape == .tree ? 7_000 : 3_000), shape: shape)
            compared += result.compared
            reused += result.reused
            if result.failed { return }
        }
        #expect(compared > 200 / Workload.divisor)
        #expect(reused > 0, "the snapshots copied some steps' commands")
    }
}
