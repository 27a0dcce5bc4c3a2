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

// Probes of what a journal record may hold, written from the documentation alone: old-format
// records, records of a newer format, and hostile payloads in intact records.

/// The snapshot's chain name and the history's current state in a recorder's record, read as JSON.
func jpChain(of record: JournalRecord) throws -> String {
    let object = try JSONSerialization.jsonObject(with: record.payload) as? [String: Any]
    return try #require(object?["chain"] as? String)
}

@Suite struct JournalRecordProbeTests {
    /// "Journals written before records of what changed hold a whole ``HistoryArchive`` in each
    /// record; they are still read (each such record is its own snapshot)".
    @Test func anOldFormatJournalOfWholeArchivesIsStillRead() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = files.journal()
        let box = HSBox("box")
        let stack = hsLinear(4, undos: 1, box: box, clean: 2)
        let saved = try stack.savedHistory()
        let archive = HistoryArchive(fingerprint: "old", histories: [HistoryRecorder.defaultHistoryName: saved])
        try journal.append(try archive.encoded(), fingerprint: "old")
        // Version 1 of the archive format, as the registry's documentation shows it.
        let version1 = #"""
            {"fingerprint":"r1","format":"ActionStack.History","histories":{"history":{
            "commands":[["hs.set",1]],"current":1,"keys":["box"],"root":0,"shape":"linear",
            "steps":[{"a":[[0,0,{"value":3}]]}]}},"version":1}
            """#
        try journal.append(Data(version1.utf8), fingerprint: "v1")
        let recovered = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: "old", registry: testRegistry()))
        #expect(try jpEncoded(recovered) == jpEncoded(saved))
        let older = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: "v1", registry: testRegistry()))
        #expect(older.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 1)
        let all = try HistoryRecorder.recordedArchives(in: journal, registry: testRegistry())
        #expect(all.count == 2)
        // A recorder appends after them, and recovers its own records exactly.
        var fingerprint = "new0"
        let recorder = HistoryRecorder(journal: journal, stack: stack) { fingerprint }
        fingerprint = "new1"
        stack.undo()
        #expect(
            try HistoryRecorder.recover(from: journal, fingerprint: "new1", registry: testRegistry()).map(jpEncoded)
                == jpEncoded(stack.savedHistory()))
        #expect(recorder.lastError == nil)
    }

    /// "a record of a newer version is refused with ``HistoryArchiveError/newerFormatVersion(_:newestSupported:)``".
    @Test func aRecordOfANewerFormatIsRefusedWithNewerFormatVersion() throws {
        let files = try JPFiles()
        defer { files.cleanUp() }
        let journal = files.journal()
        let newer =
            #"{"format":"ActionStack.Journal","version":2,"kind":"snapshot","chain":"0123456789abcdef","index":0,"histories":{}}"#
        try journal.append(Data(newer.utf8), fingerprint: "n")
        do {
            _ = try HistoryRecorder.recover(from: journal, fingerprint: "n", registry: testRegistry())
            Issue.record("a record of a newer format was read")
        } catch let error as HistoryArchiveError {
            #expect(error == .newerFormatVersion(2, newestSupported: 1))
        }
        // An archive of a newer version, in a record, likewise.
        let archive = #"{"format":"ActionStack.History","version":3,"fingerprint":"a","histories":{}}"#
        try journal.append(Data(archive.utf8), fingerprint: "a")
        do {
            _ = try HistoryRecorder.recover(from: journal, fingerprint: "a", registry: testRegistry())
            Issue.record("an archive of a newer format was read")
        } catch let error as HistoryArchiveError {
            #expect(error.formatVersion == 3)
        }
    }

    /// "A record that cannot be replayed (its snapshot was compacted away by a program other than
    /// the recorder ...) throws ``HistoryArchiveError``".
    @Test func aRecordOfWhatChangedWhoseSnapshotIsGoneThrows() throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<6 { rig.run { rig.change() } }
        let last = rig.fingerprint
        try rig.journal.compact(keeping: 2)
        #expect(throws: HistoryArchiveError.self) {
            try HistoryRecorder.recover(from: rig.journal, fingerprint: last, registry: testRegistry())
        }
        #expect(throws: HistoryArchiveError.self) {
            try HistoryRecorder.recordedArchives(in: rig.journal, registry: testRegistry())
        }
        // The recorder goes on with a snapshot: "when the record before it is no longer in the
        // journal (... compacted behind the journal's back)".
        rig.lost.formUnion(rig.fingerprints)
        rig.run { rig.stack.undo() }
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
    }

    /// A hostile archive in an intact record ("Reading is bounded ... it never crashes, and never
    /// allocates more than a bound set by the input's size and the limits, whatever the input"):
    /// a clear ``HistoryArchiveError``, and nothing lost (the file, and the recoveries before it).
    @Test(arguments: [
        String(repeating: "[", count: 200_000),
        #"{"format":"ActionStack.History","version":2,"fingerprint":"e","histories":{"history":"#
            + String(repeating: #"{"a":"#, count: 50_000) + "1" + String(repeating: "}", count: 50_000) + "}}",
        #"{"format":"ActionStack.History","version":2,"fingerprint":"e","histories":{"history":{"shape":"linear","root":0,"current":1,"commands":[["hs.set",1,"box"]],"steps":[{"a":4000000000}],"actions":[0],"payloads":[{"value":1}]}}}"#,
        #"{"format":"ActionStack.History","version":2,"fingerprint":"e","histories":{"history":{"shape":"linear","root":0,"current":999999999,"commands":[["hs.set",1,"box"]],"steps":[999999999],"actions":[0],"payloads":[{"value":1}]}}}"#,
        #"{"format":"ActionStack.History","version":2,"fingerprint":"e","histories":{"history":{"shape":"tree","root":0,"current":1,"commands":[["hs.set",1,"box"]],"steps":[{"a":1,"node":1,"parent":1}],"actions":[0],"payloads":[{"value":1}]}}}"#,
        #"{"format":"ActionStack.History","version":1e300,"fingerprint":"e","histories":{}}"#,
        #"{"format":"ActionStack.Journal","version":1,"kind":"snapshot","chain":"00000000000000000","index":-1,"histories":{"history":{"shape":"linear","current":0,"clean":0,"ops":[["u",0,0,0,1000000000]],"steps":[],"names":[],"commands":[],"actions":[],"payloads":[]}}}"#,
        #"{"format":"ActionStack.Journal","version":1,"kind":"snapshot","chain":"0000000000000000","index":0,"histories":{"history":"#
            + String(repeating: "[", count: 100_000) + "}}",
        "\u{FEFF}\u{0}\u{0}",
    ])
    func aHostileArchiveInAnIntactRecordIsAClearErrorAndLosesNothing(payload: String) throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<4 { rig.run { rig.change() } }
        let good = rig.fingerprint
        try rig.journal.append(Data(payload.utf8), fingerprint: "evil")
        let bytes = try Data(contentsOf: rig.journal.url)
        do {
            _ = try HistoryRecorder.recover(from: rig.journal, fingerprint: "evil", registry: testRegistry())
            Issue.record("a hostile record was read")
        } catch {
            #expect(error is HistoryArchiveError, "\(error)")
        }
        #expect(try rig.recovered(good) == rig.expected[good], "the records before it still recover")
        #expect(try Data(contentsOf: rig.journal.url) == bytes, "a recovery changes nothing")
        // The recorder goes on after it.
        rig.run { rig.stack.undo() }
        #expect(try rig.recovered(rig.fingerprint) == rig.expected[rig.fingerprint])
    }

    /// Records of what changed that do not fit the history they follow (counts past its chains,
    /// negative or huge numbers, unknown operations): "A record that cannot be replayed ... throws
    /// ``HistoryArchiveError``", never a crash.
    @Test(arguments: [
        #"[["u",0,1000000000,0,0]]"#,
        #"[["u",1000000000,0,0,0]]"#,
        #"[["u",0,0,0,1000000000]]"#,
        #"[["u",-1,0,0,0]]"#,
        #"[["u",0,2,1,0]]"#,
        #"[["r",0,5,0,0]]"#,
        #"[["b",7,0,0,0,0]]"#,
        #"[["enter",7,0,1]]"#,
        #"[["drop",-3]]"#,
        #"[["zap"]]"#,
        #"[["u"]]"#,
        #"[[]]"#,
        #"[["u",0,0,0,1e300]]"#,
        #"[["u",0,2.5,0,0]]"#,
    ])
    func aHostileRecordOfWhatChangedThrowsAnArchiveError(ops: String) throws {
        let rig = try JPRig()
        defer { rig.cleanUp() }
        for _ in 0..<3 { rig.run { rig.change() } }
        let records = try rig.journal.records()
        let chain = try jpChain(of: records[0])
        let delta =
            #"{"format":"ActionStack.Journal","version":1,"kind":"delta","chain":"\#(chain)","index":\#(records.count),"histories":{"history":{"current":3,"ops":\#(ops),"steps":[],"names":[],"commands":[],"actions":[],"payloads":[]}}}"#
        try rig.journal.append(Data(delta.utf8), fingerprint: "evil")
        do {
            let got = try HistoryRecorder.recover(from: rig.journal, fingerprint: "evil", registry: testRegistry())
            Issue.record(
                "a record that does not fit was replayed: \(ops): \(try got.map(jpEncoded).map(jpText) ?? "nil")")
        } catch {
            #expect(error is HistoryArchiveError, "\(ops): \(error)")
        }
        let good = rig.fingerprint
        #expect(try rig.recovered(good) == rig.expected[good])
    }
}
