// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// A test program, not an example to copy: it writes a saved history and its journal as fast as it
// can, until a test kills it, so that the test can check that a crash at any moment leaves both
// files readable (Tests/HistoryCrashTests).
//
// Usage: history-writer FILE JOURNAL FIRST-GENERATION
//
// For each generation from FIRST-GENERATION on, it replaces FILE with that generation's contents
// (HistoryFileStore.write), prints "wrote N", appends the generation's journal record
// (HistoryJournal.append, fingerprint "gen-N") and prints "appended N". The lines go straight to
// standard output (no buffer), so that what a killed writer printed is what it had finished. It
// stops by itself after 30 seconds, in case no one kills it.

import ActionStack
import ActionStackExampleTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a line to standard output with one system call, unbuffered.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

let arguments = CommandLine.arguments.dropFirst()

// history-writer --recorder JOURNAL SEED TREE: walks a `RecorderWalk` under a `HistoryRecorder`
// that appends to JOURNAL (started over), printing "recorded N" after step N has ended (and its
// record, if it changed the history, is appended), until it is killed. The linear walk leaves the
// flushes to the system; the branching one defers them (`.within`, 5 ms), so that kills also fall
// while a flush runs on the journal's queue beside the appends.
if arguments.first == "--recorder", arguments.count == 4, let seed = UInt64(arguments[arguments.startIndex + 2]) {
    let journal = HistoryJournal(
        url: URL(fileURLWithPath: arguments[arguments.startIndex + 1]),
        durability: arguments.last == "tree" ? .within(.milliseconds(5)) : .system)
    try? journal.reset()
    var walk = RecorderWalk(seed: seed, tree: arguments.last == "tree")
    var steps = 0
    let recorder = HistoryRecorder(journal: journal, stack: walk.stack) { RecorderWalk.fingerprint(steps) }
    let deadline = ContinuousClock.now.advanced(by: .seconds(30))
    while ContinuousClock.now < deadline {
        steps += 1
        await walk.step()
        if let error = recorder.lastError {
            FileHandle.standardError.write(Data("history-writer: \(error)\n".utf8))
            exit(1)
        }
        say("recorded \(steps)")
    }
    exit(0)
}

guard arguments.count == 3, let first = UInt64(arguments.last!) else {
    FileHandle.standardError.write(Data("usage: history-writer FILE JOURNAL FIRST-GENERATION\n".utf8))
    exit(2)
}
let store = HistoryFileStore(url: URL(fileURLWithPath: arguments[arguments.startIndex]))
let journal = HistoryJournal(
    url: URL(fileURLWithPath: arguments[arguments.startIndex + 1]),
    maximumRecords: HistoryWriterContent.journalMaximumRecords,
    maximumBytes: HistoryWriterContent.journalMaximumBytes
)
let deadline = ContinuousClock.now.advanced(by: .seconds(30))
var generation = first
do {
    while ContinuousClock.now < deadline {
        try store.write(HistoryWriterContent.contents(of: generation, kind: .savedFile))
        say("wrote \(generation)")
        try journal.append(
            HistoryWriterContent.contents(of: generation, kind: .journalRecord),
            fingerprint: HistoryWriterContent.fingerprint(generation)
        )
        say("appended \(generation)")
        generation += 1
    }
} catch {
    FileHandle.standardError.write(Data("history-writer: \(error)\n".utf8))
    exit(1)
}
