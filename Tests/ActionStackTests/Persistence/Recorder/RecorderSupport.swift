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
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// What the recorder's tests share: a gated asynchronous command, the histories a journal holds, and
// standard error captured.

/// Gates that the gated asynchronous command waits at, one per box id (main actor only).
@MainActor
enum RPGates {
    static var gates: [String: Gate] = [:]
    static func pass(_ id: String) async {
        if let gate = gates[id] { await gate.pass() }
    }
}

/// An asynchronous command that waits at its box's gate (if any), then sets the value.
struct RPGatedSet: AsyncUndoCommand {
    static let commandType = "rp.gated"
    var value: Int
    nonisolated(nonsending) func perform(on box: HSBox, in stack: ActionStack) async throws {
        let id = box.id
        await RPGates.pass(id)
        stack.registerAsyncUndo(RPGatedSet(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

/// The history of each record appended, decoded.
func rpHistories(_ files: RecorderFiles, name: String = HistoryRecorder.defaultHistoryName) throws -> [SavedHistory] {
    try HistoryRecorder.recordedArchives(in: files.journal, registry: testRegistry()).compactMap { $0.histories[name] }
}

/// Runs `body` with standard error sent to a file; returns what was written there.
func rpCapturingStandardError(_ body: () throws -> Void) rethrows -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("rp-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: url) }
    fflush(nil)
    let saved = dup(2)
    let fd = open(url.path, O_WRONLY | O_TRUNC)
    dup2(fd, 2)
    close(fd)
    defer {
        fflush(nil)
        dup2(saved, 2)
        close(saved)
    }
    try body()
    fflush(nil)
    return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
}

struct RPUnchecked<T>: @unchecked Sendable {
    let value: T
}

final class RPWeakStack {
    weak var stack: ActionStack?
}

/// A journal in a directory of its own, removed by `cleanUp()`.
struct RecorderFiles {
    let directory: URL
    let journal: HistoryJournal

    init(directoryExists: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-recorder-\(UUID().uuidString)")
        if directoryExists { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// The current node of each record's history and the record's fingerprint.
    func recorded() throws -> [String] {
        let archives = try HistoryRecorder.recordedArchives(in: journal, registry: testRegistry())
        return try zip(journal.records(), archives).map { record, archive in
            let history = archive.histories[HistoryRecorder.defaultHistoryName]
            let clean = history?.clean.map { " clean \($0)" } ?? ""
            return "\(record.fingerprint ?? "-"): at \(history?.current ?? -1) of \(history?.steps.count ?? -1)\(clean)"
        }
    }
}
