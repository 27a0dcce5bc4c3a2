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

/// Reading version 2 of the archive: each way a file can be damaged or hostile is refused with a
/// reason that says what and where, and nothing of it is returned; what the format leaves open
/// (key order, unknown keys) reads.
@Suite struct HistoryArchiveVersion2Tests {
    /// Two moves and a rename, every column present.
    static let valid =
        #"{"shape":"linear","root":0,"current":2,"clean":1,"#
        + #""commands":[["test.move",1,"k"],["test.rename",2,"k"]],"names":["Move","Rename"],"#
        + #""steps":[{"a":1,"n":0},{"a":2,"n":1}],"actions":[0,0,1],"costs":[[1,5]],"#
        + #""payloads":[{"x":1,"y":2},{"x":3,"y":4},{"isCapitals":false,"title":"t"}]}"#

    @Test func theValidHistoryReadsWithEveryField() throws {
        let archive = try HistoryArchive(decoding: Data(archive2(Self.valid).utf8), registry: testRegistry())
        let history = try #require(archive.histories["h"])
        #expect(history.current == 2 && history.clean == 1 && history.root == 0)
        #expect(history.steps.map(\.actionName) == ["Move", "Rename"])
        #expect(history.steps.map(\.actions.count) == [1, 2])
        #expect(history.steps[1].actions.map(\.cost) == [5, 0])
        #expect(history.steps[1].actions[0].command as? MoveFigure == MoveFigure(x: 3, y: 4))
        #expect(history.steps[1].actions[1].command as? RenameFigure == RenameFigure(title: "t", isCapitals: false))
        #expect(history.steps.allSatisfy { $0.actions.allSatisfy { $0.key == "k" } })
    }

    /// The valid history with `old` replaced by `new`.
    static func damaged(_ old: String, with new: String) -> String {
        valid.replacingOccurrences(of: old, with: new)
    }

    /// Each damaged history, and a word of the reason it is refused with.
    static let damagedHistories: [(String, String)] = [
        (damaged(#""shape":"linear","#, with: ""), #"no "shape""#),
        (damaged(#""root":0,"#, with: ""), #"no "root""#),
        (damaged(#""current":2,"#, with: ""), #"no "current""#),
        (damaged(#""actions":[0,0,1],"#, with: ""), #"no "actions""#),
        (
            damaged(#","payloads":[{"x":1,"y":2},{"x":3,"y":4},{"isCapitals":false,"title":"t"}]"#, with: ""),
            #"no "payloads""#
        ),
        (damaged(#""steps":[{"a":1,"n":0},{"a":2,"n":1}],"#, with: ""), #"no "steps""#),
        (damaged(#""linear""#, with: #""circle""#), "unknown shape"),
        (damaged(#""actions":[0,0,1]"#, with: #""actions":[0,0]"#), "the steps hold 3 actions"),
        (damaged(#""actions":[0,0,1]"#, with: #""actions":[0,0,1,1]"#), "the steps hold 3 actions"),
        (damaged(#""actions":[0,0,1]"#, with: #""actions":[0,0,2]"#), "command index 2 out of range"),
        (damaged(#""actions":[0,0,1]"#, with: #""actions":[0,0,-1]"#), "negative command index"),
        (damaged(#""actions":[0,0,1]"#, with: #""actions":[0,0,1.5]"#), "whole number"),
        (damaged(#"{"a":2,"n":1}"#, with: #"{"a":2,"n":2}"#), "name index 2 out of range"),
        (damaged(#"{"a":2,"n":1}"#, with: #"{"n":1}"#), #"a step without "a""#),
        (damaged(#"{"a":2,"n":1}"#, with: #"{"a":-2,"n":1}"#), "negative number of actions"),
        (damaged(#"{"a":1,"n":0}"#, with: #""one""#), "step 0"),
        (damaged(#""costs":[[1,5]]"#, with: #""costs":[[1,5],[0,5]]"#), "out of order"),
        (damaged(#""costs":[[1,5]]"#, with: #""costs":[[3,5]]"#), "out of range"),
        (damaged(#""costs":[[1,5]]"#, with: #""costs":[[1,5,6]]"#), "three numbers"),
        (damaged(#""costs":[[1,5]]"#, with: #""costs":[[1]]"#), "without its value"),
        (damaged(#"["test.move",1,"k"]"#, with: #"["test.move",1]"#), "without a key"),
        (damaged(#"["test.move",1,"k"]"#, with: #"["test.move",1,"k",2]"#), "four values"),
        (damaged(#"["test.move",1,"k"]"#, with: #"["test.move","1","k"]"#), #""commands""#),
        (
            damaged(#""payloads":["#, with: #""payloads":{"#).replacingOccurrences(of: "}]}", with: "}}}"),
            "not an array"
        ),
        (damaged(#"{"isCapitals":false,"title":"t"}"#, with: ""), "payloads"),
        (damaged(#"{"x":1,"y":2}"#, with: #"{"x":1,"x":2}"#), #"repeats the key "x""#),
        (damaged(#"{"x":1,"y":2}"#, with: #"{"x":1,"\u0078":2}"#), #"repeats the key "x""#),
        (damaged(#"{"x":1,"y":2}"#, with: #"{"K":1,"\u212A":2}"#), "repeats the key"),
        (damaged(#"{"a":1,"n":0}"#, with: #"{"a":1,"n":0,"a":1}"#), #"repeats the key "a""#),
        (damaged(#""root":0,"#, with: #""root":0,"root":0,"#), #"repeats the key "root""#),
        (damaged(#"{"x":1,"y":2}"#, with: #"{"x":1,"y":2"#), "payloads"),
        (damaged(#""root":0"#, with: #""root":99999999999999999999"#), "out of range"),
    ]

    @Test(arguments: damagedHistories)
    func aDamagedHistoryIsCorruptAndSaysWhy(history: String, reason: String) {
        let error = archiveError(archive2(history))
        #expect(isCorrupt(error, reason), "\(history): \(String(describing: error))")
    }

    @Test func flawsOfTheHistoryItselfAreNamedWithIt() {
        #expect(
            archiveError(archive2(Self.valid.replacingOccurrences(of: #""costs":[[1,5]]"#, with: #""costs":[[1,-5]]"#)))
                == .invalidHistory("h", .negativeCost(node: 2, cost: -5)))
        #expect(
            archiveError(
                archive2(Self.valid.replacingOccurrences(of: #"["test.move",1,"k"]"#, with: #"["test.move",0,"k"]"#)))
                == .invalidHistory("h", .invalidCommandVersion(type: "test.move", version: 0)))
        #expect(
            archiveError(archive2(Self.valid.replacingOccurrences(of: #""current":2"#, with: #""current":5"#)))
                == .invalidHistory("h", .currentNotInHistory(5)))
        #expect(
            archiveError(
                archive2(Self.valid.replacingOccurrences(of: #"{"a":2,"n":1}"#, with: #"{"a":2,"n":1,"parent":0}"#)))
                == .invalidHistory("h", .branchInLinearHistory(parent: 0)))
    }

    @Test func theEnvelopeIsCheckedFirst() {
        #expect(
            archiveError(#"{"format":"ActionStack.History","version":3,"histories":7}"#)
                == .newerFormatVersion(3, newestSupported: 2))
        #expect(
            isCorrupt(
                archiveError(#"{"format":"ActionStack.History","version":"2","fingerprint":"f","histories":{}}"#),
                "not a whole number"))
        #expect(
            isCorrupt(
                archiveError(#"{"format":"ActionStack.History","fingerprint":"f","histories":{}}"#), #"no "version""#))
        #expect(
            isCorrupt(
                archiveError(#"{"format":"ActionStack.History","version":2,"histories":{}}"#), #"no "fingerprint""#))
        #expect(
            isCorrupt(
                archiveError(#"{"format":"ActionStack.History","version":2,"fingerprint":"f"}"#), #"no "histories""#))
        #expect(
            isCorrupt(
                archiveError(#"{"format":"ActionStack.History","version":2,"fingerprint":7,"histories":{}}"#),
                #""fingerprint""#))
        #expect(archiveError(#"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{}} "#) == nil)
        #expect(
            isCorrupt(
                archiveError(#"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{}} x"#),
                "data after the end"))
        #expect(archiveError(#"{"version":"1.0","name":"another app's file"}"#) == .notAnArchive)
        #expect(
            isCorrupt(
                archiveError(
                    #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"h":\#(Self.valid),"h":\#(Self.valid)}}"#
                ),
                #"repeats the key "h""#))
    }

    /// What the format leaves open reads the same: the envelope's keys in any order, keys this
    /// version does not know, white space, and a `clean` of null.
    @Test func whatTheFormatLeavesOpenReadsTheSame() throws {
        let reference = dump(try HistoryArchive(decoding: Data(archive2(Self.valid).utf8), registry: testRegistry()))
        let variants = [
            #"{"histories":{"h":\#(Self.valid)},"fingerprint":"f","version":2,"format":"ActionStack.History"}"#,
            archive2(
                Self.valid.replacingOccurrences(of: #""root":0"#, with: #""root":0,"later":{"a":[1,{"b":null}]}"#)),
            archive2(Self.valid.replacingOccurrences(of: #"{"a":2,"n":1}"#, with: #"{"a":2,"n":1,"later":true}"#)),
            archive2(Self.valid).replacingOccurrences(of: ",", with: " ,\n\t").replacingOccurrences(
                of: ":", with: " : "),
        ]
        for variant in variants {
            let read = try HistoryArchive(decoding: Data(variant.utf8), registry: testRegistry())
            #expect(dump(read) == reference, "\(variant)")
        }
        let withNull = try HistoryArchive(
            decoding: Data(archive2(Self.valid.replacingOccurrences(of: #""clean":1"#, with: #""clean":null"#)).utf8),
            registry: testRegistry())
        #expect(withNull.histories["h"]?.clean == nil)
    }

    @Test func theLimitsHoldInEachColumn() {
        let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        #expect(
            archiveError(archive2(Self.valid.replacingOccurrences(of: #"{"x":1,"y":2}"#, with: deep)))
                == .tooLarge(.nestingDepth, maximum: 64))
        #expect(
            archiveError(archive2(Self.valid), limits: .init(maximumSteps: 1)) == .tooLarge(.steps, maximum: 1))
        #expect(
            archiveError(archive2(Self.valid), limits: .init(maximumActionsPerStep: 1))
                == .tooLarge(.actionsPerStep, maximum: 1))
        #expect(
            archiveError(archive2(Self.valid), limits: .init(maximumStringLength: 5))
                == .tooLarge(.stringLength, maximum: 5))
        // A step that claims more actions than the limit is refused before anything is sized by it.
        #expect(
            archiveError(
                archive2(Self.valid.replacingOccurrences(of: #"{"a":2,"n":1}"#, with: #"{"a":4000000000,"n":1}"#)))
                == .tooLarge(.actionsPerStep, maximum: 100_000))
    }

    /// A payload that does not decode, or whose command is unknown or newer, is that action's
    /// problem, not the file's: the rest reads, and a restore cuts there.
    @Test func anUnreadablePayloadIsTheActionsProblem() throws {
        let history = Self.valid.replacingOccurrences(of: #"{"x":3,"y":4}"#, with: #"{"x":"three","y":4}"#)
            .replacingOccurrences(of: #"["test.rename",2,"k"]"#, with: #"["test.rename",9,"k"]"#)
        let archive = try HistoryArchive(decoding: Data(archive2(history).utf8), registry: testRegistry())
        let step = try #require(archive.histories["h"]?.steps[1])
        guard step.actions[0].problem?.commandType == "test.move", step.actions[0].problem?.reason != nil else {
            Issue.record("\(String(describing: step.actions[0].problem))")
            return
        }
        #expect(step.actions[1].problem == .newerVersion(type: "test.rename", version: 9, known: 2))
        #expect(archive.histories["h"]?.steps[0].actions[0].command as? MoveFigure == MoveFigure(x: 1, y: 2))
    }

    /// Every prefix of a valid archive is refused, never read in part.
    @Test func everyPrefixIsRefused() {
        let bytes = Array(archive2(Self.valid).utf8)
        for length in 0..<bytes.count - 1 {
            #expect(archiveError(Data(bytes[..<length])) != nil, "a prefix of \(length) bytes read")
        }
    }
}

/// A fingerprint that does not match restores nothing and says why; one that matches gives the
/// histories. Compared byte for byte.
@Suite struct HistoryArchiveFingerprintTests {
    @Test func anArchiveOfAnotherDocumentStateGivesNoHistory() throws {
        let archive = HistoryArchive(fingerprint: "rev-42", histories: ["h": linearHistory(2)])
        #expect(try archive.histories(forFingerprint: "rev-42")["h"]?.steps.count == 2)
        #expect(throws: HistoryArchiveError.fingerprintMismatch(expected: "rev-43", found: "rev-42")) {
            try archive.histories(forFingerprint: "rev-43")
        }
        let error = HistoryArchiveError.fingerprintMismatch(expected: "rev-43", found: "rev-42")
        #expect(error.description.contains(#""rev-42""#) && error.description.contains(#""rev-43""#))
        // Canonically equivalent, different bytes: another fingerprint.
        let composed = HistoryArchive(fingerprint: "caf\u{E9}", histories: ["h": linearHistory(1)])
        #expect(throws: HistoryArchiveError.self) { try composed.histories(forFingerprint: "cafe\u{301}") }
        // Read back from the file, the check is the same.
        let read = try HistoryArchive(decoding: try archive.encoded(), registry: testRegistry())
        #expect(throws: HistoryArchiveError.fingerprintMismatch(expected: "", found: "rev-42")) {
            try read.histories(forFingerprint: "")
        }
    }
}

/// A history saved from a stack is known to be valid, so restoring and encoding it do not check
/// it again, except when a command type gives a version below 1: then both refuse it, as they
/// refuse such a history made by hand.
@Suite struct SavedVersionBelowOneTests {
    struct Unversioned: UndoCommand {
        static let commandType = "test.unversioned"
        static let version = 0
        var value: Int

        func perform(on box: HSBox, in stack: ActionStack) {
            stack.registerUndo(Unversioned(value: box.value), on: box, key: box.id)
            box.value = value
        }
    }

    @Test func aSavedVersionBelowOneIsRefusedByRestoreAndEncoding() throws {
        let box = HSBox()
        let stack = makeStack()
        stack.beginUndoGrouping()
        Unversioned(value: 1).perform(on: box, in: stack)
        stack.endUndoGrouping()
        let saved = try stack.savedHistory()
        #expect(saved.steps.count == 1)
        #expect(
            throws: HistoryArchiveError.invalidHistory(
                "h", .invalidCommandVersion(type: "test.unversioned", version: 0))
        ) {
            try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded()
        }
        let fresh = makeStack()
        #expect(throws: ActionStack.HistoryPersistenceError.self) { try fresh.restoreHistory(saved) { _ in box } }
        #expect(fresh.undoCount == 0 && fresh.redoCount == 0)
    }
}
