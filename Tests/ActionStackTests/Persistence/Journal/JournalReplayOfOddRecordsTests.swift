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

/// The journal's replay of records that are valid but unusual: a history whose root is numbered
/// above other nodes keeps every date, and a record of many chain operations replays in linear
/// time. (Both were found broken by replaying about 48,000 damaged journals, none of which crashed.)
@Suite(.timeLimit(.minutes(10))) @MainActor struct JournalReplayOfOddRecordsTests {
    final class Note {
        let id = "n"
        var value = 0
    }

    struct SetNote: UndoCommand {
        static let commandType = "replay.set"
        var value: Int
        func perform(on note: Note, in stack: ActionStack) {
            stack.registerUndo(SetNote(value: note.value), on: note, key: note.id)
            note.value = value
        }
    }

    func journalURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).journal")
    }

    /// A restored history may have its root numbered above other nodes (the archive allows it);
    /// the recorder's snapshot of it, replayed, keeps every date, as a full save does.
    @Test func aRootNumberedAboveOtherNodesKeepsEveryDateInTheReplay() throws {
        var registry = CommandRegistry()
        registry.register(SetNote.self)
        let json =
            #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"h":{"shape":"tree","root":9,"#
            + #""current":2,"clean":9,"rootDate":100.0,"commands":[["replay.set",1,"n"]],"names":["A","B"],"#
            + #""steps":[{"a":1,"n":0,"node":1,"d":101.0},{"a":1,"n":1,"node":2,"d":102.0}],"actions":[0,0],"#
            + #""payloads":[{"value":1},{"value":2}]}}}"#
        let saved = try #require(try HistoryArchive(decoding: Data(json.utf8), registry: registry).histories["h"])
        let url = journalURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = ActionStack()
        stack.historyShape = .tree
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "doc" }
        let note = Note()
        try stack.restoreHistory(saved) { $0 == note.id ? note : nil }
        let full = try HistoryArchive(
            fingerprint: "doc", histories: [HistoryRecorder.defaultHistoryName: stack.savedHistory()])
        let recovered = try #require(try HistoryRecorder.recover(from: journal, fingerprint: "doc", registry: registry))
        withExtendedLifetime(recorder) {}
        #expect(
            String(decoding: try recovered.encoded(), as: UTF8.self)
                == String(decoding: try full.encoded(), as: UTF8.self))
        let history = try #require(recovered.histories[HistoryRecorder.defaultHistoryName])
        #expect(history.rootDate == Date(timeIntervalSinceReferenceDate: 100))
        #expect(history.steps.first { $0.node == 1 }?.date == Date(timeIntervalSinceReferenceDate: 101))
    }

    /// A record of 64,000 chain operations on a long chain is replayed in linear time (each
    /// operation changes the chain in place); it took minutes when each one copied the chain (13 s at a quarter of the size).
    /// The suite's time limit turns a return of the quadratic replay into a failure.
    @Test func aRecordOfManyChainOperationsIsReplayedInLinearTime() throws {
        let n = 64_000
        var operations = [#"["u",0,0,0,\#(n)]"#]
        for _ in 0..<n { operations.append(#"["u",0,\#(n - 1),0,1]"#) }
        let steps = Array(repeating: #"{"a":0,"l":0,"h":0}"#, count: 2 * n).joined(separator: ",")
        let payload =
            #"{"format":"ActionStack.Journal","version":1,"kind":"snapshot","chain":"00000000000000a1","index":0,"#
            + #""histories":{"history":{"shape":"linear","current":0,"clean":0,"ops":["#
            + operations.joined(separator: ",") + #"],"steps":["# + steps + "]}}}"
        let url = journalURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        try journal.append(Data(payload.utf8), fingerprint: "doc")
        // Whatever it holds, the replay returns: a history or a clear refusal.
        let recovered = try? HistoryRecorder.recover(from: journal, fingerprint: "doc", registry: CommandRegistry())
        if let history = recovered?.histories[HistoryRecorder.defaultHistoryName] {
            #expect(history.steps.count <= 2 * n)
        }
        #expect(try journal.records().count == 1)
    }
}
