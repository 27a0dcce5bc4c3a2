// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The libFuzzer target for the history archive's reader. Scripts/fuzz-history-archive.sh compiles
// it as a module of its own that imports the library's two modules with code, ActionStackCore and
// ActionStackArchive (built by the script too; the umbrella only re-exports them), all
// with `-sanitize=fuzzer,address`.
//
// For each input it checks what the reader promises: it reads into histories that validate and
// write back to bytes that read the same and write again to the same bytes, or it refuses the
// input with a HistoryArchiveError; each history read restores into a new stack, whose undo and
// redo then walk it. Anything else stops the process (a crash, which libFuzzer
// saves as an artifact): an AddressSanitizer report, a trap, or one of the checks below.

import ActionStackArchive
import ActionStackCore
import Foundation

/// A move: two doubles.
private struct FuzzMove: UndoCommand {
    static let commandType = "test.move"
    var x: Double
    var y: Double
    func perform(on target: FuzzTarget, in stack: ActionStack) {}
}

/// A rename at version 2, read from version 1 (`{"name": ...}`) through a migration.
private struct FuzzRename: UndoCommand {
    static let commandType = "test.rename"
    static let version = 2
    var title: String
    var isCapitals: Bool
    func perform(on target: FuzzTarget, in stack: ActionStack) {}

    struct Version1: Decodable {
        var name: String
    }

    struct UnknownVersion: Error {}

    static func migrate(from version: Int, decoder: any Decoder) throws -> FuzzRename {
        guard version == 1 else { throw UnknownVersion() }
        let old = try Version1(from: decoder)
        return FuzzRename(title: old.name, isCapitals: old.name == old.name.uppercased())
    }
}

/// A nested payload: arrays, objects, optionals, a dictionary.
private struct FuzzReplace: UndoCommand {
    static let commandType = "test.replace"
    struct Edit: Codable {
        var range: [Int]
        var text: String
        var note: String?
    }
    var edits: [Edit]
    var attributes: [String: Int]
    func perform(on target: FuzzTarget, in stack: ActionStack) {}
}

private final class FuzzTarget {}

/// Restores `history` and walks it (Fuzz/Shared/RestoreWalk.swift), with this target's commands'
/// target.
private func restoreAndWalk(_ history: SavedHistory) {
    restoreAndWalk(history, makeTarget: { _ in FuzzTarget() }, fail: { preconditionFailure($0) })
}

private let registry: CommandRegistry = {
    var registry = CommandRegistry()
    registry.register(FuzzMove.self)
    registry.register(FuzzRename.self, migrating: FuzzRename.migrate(from:decoder:))
    registry.register(FuzzReplace.self)
    return registry
}()

/// Everything observable about an archive, as text, commands as sorted-key JSON.
private func describe(_ archive: HistoryArchive) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var text = "fingerprint \(archive.fingerprint)\n"
    for (name, history) in archive.histories.sorted(by: { $0.key < $1.key }) {
        let rootDate = history.rootDate.map { "\($0.timeIntervalSinceReferenceDate.bitPattern)" } ?? "nil"
        let omissions = history.omissions.map { "\($0.reason.rawValue)/\($0.steps)/\($0.stepName ?? "nil")" }
        text +=
            "[\(name)] \(history.shape) \(history.root) \(history.current) \(String(describing: history.clean)) "
            + "\(rootDate) \(omissions)\n"
        for step in history.steps {
            let date = step.date.map { "\($0.timeIntervalSinceReferenceDate.bitPattern)" } ?? "nil"
            let userInfo = step.userInfo.sorted { $0.key < $1.key }.map { key, value in
                switch value {
                case .double(let double): "\(key)=d\(double.bitPattern)"
                case .date(let date): "\(key)=t\(date.timeIntervalSinceReferenceDate.bitPattern)"
                default: "\(key)=\(value)"
                }
            }
            text +=
                "\(step.node)<-\(step.parent) \(step.isRedoChoice) \(date) \(step.actionName) \(step.isDiscardable) "
                + "\(userInfo)\n"
            for action in step.actions {
                let command = action.command.map { command in
                    (try? encoder.encode(command)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                }
                text +=
                    "  \(action.commandType) \(action.version) \(action.key) \(action.cost) \(command ?? "nil") "
                    + "\(action.problem.map(\.description) ?? "nil")\n"
            }
        }
    }
    return text
}

private func check(_ data: Data) {
    let archive: HistoryArchive
    do {
        archive = try HistoryArchive(decoding: data, registry: registry)
    } catch {
        // Refused, with the reader's own error type (the signature says so); its text is short.
        precondition(error.description.count < 400, "an error message of \(error.description.count) characters")
        return
    }
    var hasProblems = false
    for (name, history) in archive.histories {
        do {
            try history.validate()
        } catch {
            preconditionFailure("history \(name) was read but does not validate: \(error)")
        }
        restoreAndWalk(history)
        for step in history.steps {
            for action in step.actions {
                precondition((action.command == nil) == (action.problem != nil), "an action with both or neither")
                if action.problem != nil { hasProblems = true }
            }
        }
    }
    if hasProblems {
        do {
            _ = try archive.encoded()
            preconditionFailure("an archive with an action that was not read back was written")
        } catch {
            return
        }
    }
    do {
        let written = try archive.encoded()
        let reread = try HistoryArchive(decoding: written, registry: registry)
        precondition(describe(reread) == describe(archive), "read back differently")
        let rewritten = try reread.encoded()
        precondition(rewritten == written, "writing is not stable")
    } catch {
        preconditionFailure("an archive that was read could not be written and read back: \(error)")
    }
}

/// libFuzzer's entry point: checks one input.
///
/// - Parameters:
///   - start: The input's bytes.
///   - count: The number of bytes.
/// - Returns: 0 (libFuzzer's "keep going"); a failed check stops the process instead.
/// - Complexity: O(n) for n bytes, plus the commands' decoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func historyArchiveFuzzerTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}
