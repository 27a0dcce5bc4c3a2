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

/// Hostile and damaged archives: each refusal, each limit, each structural flaw.
struct HistoryArchiveErrorTests {
    /// A valid history with one step, as JSON, for the tests to change one thing in.
    static let oneStep =
        #"{"commands":[["test.move",1]],"current":1,"keys":["k"],"root":0,"shape":"linear","#
        + #""steps":[{"a":[[0,0,{"x":1,"y":2}]]}]}"#

    @Test func theValidBaseReads() throws {
        #expect(archiveError(archiveJSON(history: Self.oneStep)) == nil)
    }

    // MARK: - Not an archive, newer format

    @Test func dataThatIsNotAnArchive() {
        #expect(archiveError("") == .notAnArchive)
        #expect(archiveError("   ") == .notAnArchive)
        #expect(archiveError("[1, 2]") == .notAnArchive)
        #expect(archiveError(#""ActionStack.History""#) == .notAnArchive)
        #expect(archiveError(Data([0xFF, 0xFE, 0x7B, 0x00])) == .notAnArchive, "UTF-16 is not the format")
        #expect(archiveError(#"{"format":"ActionStack.Histories","version":1}"#) == .notAnArchive)
        #expect(archiveError(#"{"format":1,"version":1}"#) == .notAnArchive)
        #expect(archiveError(#"{"name":"some other file"}"#) == .notAnArchive)
        #expect(archiveError(archiveJSON(history: Self.oneStep, format: #""actionstack.history""#)) == .notAnArchive)
        // A byte-order mark before the object is allowed, as JSONDecoder allows it.
        #expect(archiveError(Data([0xEF, 0xBB, 0xBF]) + Data(archiveJSON(history: Self.oneStep).utf8)) == nil)
    }

    @Test func aNewerFormatIsRefusedAndSaysWhichVersion() {
        // The rest of a newer file may be anything: the version is read first.
        let error = archiveError(#"{"format":"ActionStack.History","version":3,"histories":"a new layout"}"#)
        #expect(error == .newerFormatVersion(3, newestSupported: 2))
        #expect(
            error?.description
                == "the history archive has format version 3, newer than the 2 this version of ActionStack reads")
        #expect(isCorrupt(archiveError(archiveJSON(history: Self.oneStep, version: "0")), "format version 0"))
        #expect(isCorrupt(archiveError(archiveJSON(history: Self.oneStep, version: "1.5"))))
        #expect(isCorrupt(archiveError(archiveJSON(history: Self.oneStep, version: #""1""#))))
    }

    // MARK: - Corrupt

    /// Every prefix of a valid archive is refused as corrupt (or, too short to show its first
    /// byte, as not an archive), never read as a smaller history.
    @Test func everyTruncationIsRefused() throws {
        let data = try HistoryArchive(fingerprint: "f", histories: ["board": richTree(), "line": linearHistory(3)])
            .encoded()
        for length in 0..<data.count {
            let error = archiveError(data.prefix(length))
            if length == 0 {
                #expect(error == .notAnArchive)
            } else {
                #expect(isCorrupt(error, "truncated"), "prefix of \(length) bytes: \(String(describing: error))")
            }
        }
    }

    @Test func invalidJSONIsCorruptAndSaysWhere() {
        let valid = archiveJSON(history: Self.oneStep)
        let cases: [(String, String)] = [
            (valid + "x", "data after the end"),
            (valid + "{}", "data after the end"),
            (valid.replacingOccurrences(of: #""x":1"#, with: #""x":01"#), "expected ',' or '}'"),
            (valid.replacingOccurrences(of: #""x":1"#, with: #""x":1."#), "expected a digit"),
            (valid.replacingOccurrences(of: #""x":1"#, with: #""x":-"#), "expected a digit"),
            (valid.replacingOccurrences(of: #""x":1"#, with: #""x":+1"#), "expected a value"),
            (valid.replacingOccurrences(of: #""x":1"#, with: #""x":NaN"#), "expected a value"),
            (valid.replacingOccurrences(of: #""x":1"#, with: #""x":tru"#), "expected true"),
            (valid.replacingOccurrences(of: #""x":1"#, with: #""x":'1'"#), "expected a value"),
            (valid.replacingOccurrences(of: #""x":1,"#, with: #""x":1,,"#), "expected a key"),
            (valid.replacingOccurrences(of: #"["k"]"#, with: #"["k",]"#), "expected a value"),
            (valid.replacingOccurrences(of: #""keys""#, with: #"keys"#), "expected a key"),
            (valid.replacingOccurrences(of: #""keys":"#, with: #""keys" "#), "expected ':'"),
            (valid.replacingOccurrences(of: #"["k"]"#, with: "[\"k\u{1}\"]"), "control character"),
            (valid.replacingOccurrences(of: #"["k"]"#, with: #"["\x"]"#), "invalid escape"),
            (valid.replacingOccurrences(of: #"["k"]"#, with: #"["\u12G4"]"#), #"invalid \u escape"#),
            (valid.replacingOccurrences(of: #"["k"]"#, with: #"["\ud800"]"#), "lone surrogate"),
            (valid.replacingOccurrences(of: #"["k"]"#, with: #"["\udc00\ud800"]"#), "lone surrogate"),
            (valid.replacingOccurrences(of: #"["k"]"#, with: #"["\ud800\u0041"]"#), "lone surrogate"),
        ]
        for (json, reason) in cases {
            let error = archiveError(json)
            #expect(isCorrupt(error, reason), "\(json): \(String(describing: error))")
            #expect(isCorrupt(error, "at byte"), "the reason says where")
        }
    }

    @Test func invalidUTF8IsCorrupt() {
        let valid = Array(archiveJSON(history: Self.oneStep).utf8)
        // The target key "k": the first "k" after the "keys" table opens.
        let key = valid.indices.first { valid[$0...].starts(with: Array(#"["k"]"#.utf8)) }! + 2
        // A lone continuation byte, an overlong "/", a surrogate, beyond U+10FFFF, a cut sequence.
        for bad: [UInt8] in [[0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            var bytes = valid
            bytes.replaceSubrange(key...key, with: bad)
            #expect(isCorrupt(archiveError(Data(bytes)), "invalid UTF-8"), "\(bad)")
        }
        var accepted = valid
        accepted.replaceSubrange(key...key, with: Array("é€🙂".utf8))
        #expect(archiveError(Data(accepted)) == nil, "valid multi-byte UTF-8 reads")
    }

    /// Two readers keep different ones of two equal keys, so the format refuses them, wherever
    /// they are (in a command's payload too), however they are spelled.
    @Test func anObjectWithARepeatedKeyIsRefused() {
        let valid = archiveJSON(history: Self.oneStep)
        let cases = [
            valid.replacingOccurrences(of: #""x":1,"#, with: #""x":1,"x":3,"#),
            valid.replacingOccurrences(of: #""x":1,"#, with: #""x":1,"\u0078":3,"#),
            valid.replacingOccurrences(of: #""current":1,"#, with: #""current":1,"current":0,"#),
            valid.replacingOccurrences(of: #""version":1"#, with: #""version":1,"version":2"#),
            valid.replacingOccurrences(of: #""root":0,"#, with: "\"root\":0,\"\u{e9}\":1,\"e\u{301}\":2,"),
            valid.replacingOccurrences(of: #""root":0,"#, with: #""root":0,"\ud83d\ude42":1,"🙂":2,"#),
        ]
        for json in cases {
            #expect(isCorrupt(archiveError(json), "repeats the key"), "\(json)")
        }
        // Keys in different objects, or different keys, are fine.
        let distinct = valid.replacingOccurrences(of: #""x":1,"#, with: #""x":1,"X":3,"xx":{"x":{"x":1}},"#)
        #expect(archiveError(distinct) == nil)
        // Many keys in one object (beyond the short list the check starts with).
        let many = (0..<100).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        #expect(archiveError(valid.replacingOccurrences(of: #""x":1,"#, with: #""x":1,\#(many),"#)) == nil)
        #expect(
            isCorrupt(
                archiveError(valid.replacingOccurrences(of: #""x":1,"#, with: #""x":1,\#(many),"k57":0,"#)),
                "repeats the key \"k57\""))
    }

    @Test func missingAndMistypedFieldsAreCorrupt() {
        let cases: [(String, String)] = [
            (#"{"format":"ActionStack.History","version":1,"histories":{}}"#, "fingerprint"),
            (#"{"fingerprint":"f","format":"ActionStack.History","version":1}"#, "histories"),
            (#"{"fingerprint":"f","format":"ActionStack.History","histories":{}}"#, "version"),
            (#"{"fingerprint":7,"format":"ActionStack.History","histories":{},"version":1}"#, "fingerprint"),
            (#"{"fingerprint":"f","format":"ActionStack.History","histories":[],"version":1}"#, "histories"),
            (archiveJSON(history: #"{"current":0,"root":0,"steps":[]}"#), "shape"),
            (archiveJSON(history: #"{"current":0,"root":0,"shape":"ring","steps":[]}"#), "unknown shape"),
            (archiveJSON(history: #"{"current":0,"shape":"tree","steps":[]}"#), "root"),
            (archiveJSON(history: #"{"current":0,"root":0,"shape":"tree"}"#), "steps"),
            (
                archiveJSON(history: #"{"current":0.5,"root":0,"shape":"tree","steps":[]}"#),
                "histories.h: numberIsNotRepresentable"
            ),
            (
                archiveJSON(history: #"{"current":0,"root":1e30,"shape":"tree","steps":[]}"#),
                "histories.h: numberIsNotRepresentable"
            ),
            (
                archiveJSON(history: Self.oneStep.replacingOccurrences(of: "}]]}", with: "}]],\"node\":1.5}")),
                "histories.h.steps[0]: numberIsNotRepresentable"
            ),
            (archiveJSON(history: #"{"current":0,"root":0,"shape":"tree","steps":[{}]}"#), "a"),
            (archiveJSON(history: Self.oneStep.replacingOccurrences(of: "[[0,0,", with: "[[0,5,")), "key index 5"),
            (
                archiveJSON(history: Self.oneStep.replacingOccurrences(of: "[[0,0,", with: "[[-1,0,")),
                "command index -1"
            ),
            (archiveJSON(history: Self.oneStep.replacingOccurrences(of: "}]]}", with: "}]],\"n\":0}")), "name index 0"),
            (archiveJSON(history: Self.oneStep.replacingOccurrences(of: "[[0,0,{", with: "[[0,{")), "3 or 4 elements"),
            (
                archiveJSON(history: Self.oneStep.replacingOccurrences(of: "2}]]}", with: "2},1,2]]}")),
                "3 or 4 elements"
            ),
            (archiveJSON(history: Self.oneStep.replacingOccurrences(of: "2}]]}", with: "2},\"1\"]]}")), "[3]"),
            (
                archiveJSON(
                    history: Self.oneStep.replacingOccurrences(of: #"["test.move",1]"#, with: #"["test.move"]"#)), ""
            ),
            (
                archiveJSON(
                    history: Self.oneStep.replacingOccurrences(of: #"["test.move",1]"#, with: #"["test.move",1,0]"#)),
                "more than a type and a version"
            ),
            (
                archiveJSON(history: Self.oneStep.replacingOccurrences(of: #""keys":["k"]"#, with: #""keys":[3]"#)),
                "keys"
            ),
            (archiveJSON(history: Self.oneStep.replacingOccurrences(of: "}]]}", with: "}]],\"redo\":1}")), "redo"),
            (archiveJSON(history: Self.oneStep.replacingOccurrences(of: "}]]}", with: "}]],\"d\":\"today\"}")), "d"),
            (
                archiveJSON(history: Self.oneStep.replacingOccurrences(of: "}]]}", with: "}]],\"userInfo\":[]}")),
                "userInfo"
            ),
            (
                archiveJSON(
                    history: Self.oneStep.replacingOccurrences(of: "}]]}", with: "}]],\"userInfo\":{\"u\":{}}}")),
                "no single kind"
            ),
            (
                archiveJSON(
                    history: Self.oneStep.replacingOccurrences(
                        of: "}]]}", with: "}]],\"userInfo\":{\"u\":{\"int\":1,\"bool\":true}}}")),
                "no single kind"
            ),
            (
                archiveJSON(
                    history: Self.oneStep.replacingOccurrences(
                        of: "}]]}", with: "}]],\"userInfo\":{\"u\":{\"int\":\"1\"}}}")),
                "u"
            ),
            (
                archiveJSON(
                    history: Self.oneStep.replacingOccurrences(
                        of: "}]]}", with: "}]],\"userInfo\":{\"u\":{\"data\":\"@@\"}}}")),
                "not base64"
            ),
        ]
        for (json, reason) in cases {
            let error = archiveError(json)
            #expect(isCorrupt(error, reason), "\(json): \(String(describing: error))")
        }
    }

    @Test func unknownKeysAreIgnored() throws {
        let json = archiveJSON(
            history: Self.oneStep.replacingOccurrences(of: #""root":0"#, with: #""root":0,"future":[1,{"a":2}]"#)
                .replacingOccurrences(of: "}]]}", with: "}]],\"later\":true}"))
        let archive = try HistoryArchive(decoding: Data(json.utf8), registry: testRegistry())
        #expect(archive.histories["h"]?.steps[0].actions[0].command as? MoveFigure == MoveFigure(x: 1, y: 2))
    }

    @Test func errorMessagesStayShortWhateverTheInput() {
        let long = String(repeating: "z", count: 3_000)
        let json = archiveJSON(history: #"{"current":0,"root":0,"shape":"\#(long)","steps":[]}"#)
        let error = archiveError(json)
        #expect(isCorrupt(error, "unknown shape"))
        #expect((error?.description.count ?? .max) < 200)
        let repeated = archiveJSON(history: #"{"\#(long)":0,"\#(long)":0}"#)
        #expect((archiveError(repeated)?.description.count ?? .max) < 200)
        let named =
            #"{"fingerprint":"f","format":"ActionStack.History","histories":{"\#(long)":{"current":5,"root":0,"#
            + #""shape":"tree","steps":[]}},"version":1}"#
        #expect((archiveError(named)?.description.count ?? .max) < 200)
    }

    // MARK: - Limits

    @Test func eachLimitIsEnforcedWhileReading() throws {
        let archive = HistoryArchive(
            fingerprint: "fingerprint",
            histories: [
                "a": linearHistory(3, key: "a-long-key"),
                "b": SavedHistory(
                    shape: .linear, root: 0, current: 1, clean: nil,
                    steps: [
                        savedStep(
                            1, userInfo: ["one": .int(1), "two": .int(2)],
                            actions: [
                                SavedAction(MoveFigure(x: 0, y: 0), key: "k"),
                                SavedAction(MoveFigure(x: 1, y: 1), key: "k"),
                            ])
                    ]),
            ])
        let data = try archive.encoded()
        #expect(archiveError(data) == nil)
        let cases: [(HistoryArchive.Limits, HistoryArchive.Limits.Kind, Int)] = [
            (.init(maximumBytes: data.count - 1), .bytes, data.count - 1),
            (.init(maximumNestingDepth: 6), .nestingDepth, 6),
            (.init(maximumHistories: 1), .histories, 1),
            (.init(maximumSteps: 2), .steps, 2),
            (.init(maximumActionsPerStep: 1), .actionsPerStep, 1),
            (.init(maximumUserInfoEntries: 1), .userInfoEntries, 1),
            (.init(maximumStringLength: 9), .stringLength, 9),
        ]
        for (limits, kind, maximum) in cases {
            #expect(archiveError(data, limits: limits) == .tooLarge(kind, maximum: maximum))
            #expect(HistoryArchive.Limits.default[kind] > limits[kind])
        }
        // At the limits exactly, it reads.
        let exact = HistoryArchive.Limits(
            maximumBytes: data.count, maximumNestingDepth: 7, maximumHistories: 2, maximumSteps: 3,
            maximumActionsPerStep: 2, maximumUserInfoEntries: 2, maximumStringLength: 11)
        #expect(archiveError(data, limits: exact) == nil)
        #expect(
            HistoryArchiveError.tooLarge(.steps, maximum: 2).description
                == "the history archive is over the limit of 2 steps in a history")
    }

    @Test func theSizeLimitIsCheckedBeforeAnythingIsRead() {
        // Over the limit and not even JSON: the size is what is reported.
        let data = Data(repeating: 0x5B, count: 1_001)
        #expect(archiveError(data, limits: .init(maximumBytes: 1_000)) == .tooLarge(.bytes, maximum: 1_000))
    }

    @Test func deepNestingIsRefusedWithoutRecursion() {
        // Far beyond what a recursive reader could take on a thread's stack.
        for depth in [65, 600, 200_000] {
            let payload = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let json = archiveJSON(history: Self.oneStep.replacingOccurrences(of: #"{"x":1,"y":2}"#, with: payload))
            #expect(archiveError(json) == .tooLarge(.nestingDepth, maximum: 64))
        }
        let objects = String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(archiveError(objects) == .tooLarge(.nestingDepth, maximum: 64))
        // A payload nested up to the limit reads (the archive's own structure takes 7 levels).
        let deepest = String(repeating: "[", count: 57) + String(repeating: "]", count: 57)
        let json = archiveJSON(history: Self.oneStep.replacingOccurrences(of: #"{"x":1,"y":2}"#, with: deepest))
        #expect(archiveError(json) == nil)
    }

    @Test func hugeAndLongNumbersAreRefusedOrReadNeverCrash() throws {
        let cases: [(String, Bool)] = [
            ("1e999", false), ("-1e999", false), ("9223372036854775808", false), ("-9223372036854775809", false),
            ("1" + String(repeating: "0", count: 100_000), false),
            ("0." + String(repeating: "1", count: 100_000), false),
            ("9223372036854775807", true), ("-9223372036854775808", true), ("1e2", true), ("1.0", true),
        ]
        for (number, reads) in cases {
            // As a node number (an Int of the format).
            let node = archiveJSON(
                history: Self.oneStep.replacingOccurrences(of: "}]]}", with: "}]],\"node\":\(number),\"parent\":0}")
                    .replacingOccurrences(of: #""current":1"#, with: #""current":0"#))
            let error = archiveError(node)
            if reads {
                // Read as a number; a node above `SavedHistory.maximumNode` is then refused.
                #expect(
                    error == nil || error == .invalidHistory("h", .negativeNode(Int.min))
                        || error == .invalidHistory("h", .nodeOutOfRange(Int.max)), "\(number.prefix(30))")
            } else {
                #expect(isCorrupt(error), "\(number.prefix(30)): \(String(describing: error))")
            }
        }
        // In a payload, a number a command cannot take is the command's problem, not the file's.
        let payload = archiveJSON(history: Self.oneStep.replacingOccurrences(of: #""x":1"#, with: #""x":1e999"#))
        let archive = try HistoryArchive(decoding: Data(payload.utf8), registry: testRegistry())
        let problem = archive.histories["h"]?.steps[0].actions[0].problem
        guard problem?.commandType == "test.move", let reason = problem?.reason else {
            Issue.record("a number out of range is a decoding failure of the command")
            return
        }
        #expect(reason.contains("1e999"), "\(reason)")
    }

    // MARK: - Structural flaws

    /// Each flaw, in a file: the decoder hands a stack only well-formed trees.
    @Test func structuralFlawsInAFileAreRefused() {
        func tree(_ steps: String, root: Int = 0, current: Int = 0, clean: String = "") -> String {
            archiveJSON(
                history: #"{\#(clean)"commands":[["test.move",1]],"current":\#(current),"keys":["k"],"root":\#(root),"#
                    + #""shape":"tree","steps":[\#(steps)]}"#)
        }
        let action = #""a":[[0,0,{"x":0,"y":0}]]"#
        let cases: [(String, SavedHistory.StructuralProblem)] = [
            (tree("", root: -1, current: -1), .negativeNode(-1)),
            (tree(#"{\#(action),"node":-5,"parent":0}"#), .negativeNode(-5)),
            (tree(#"{\#(action)},{\#(action),"node":1,"parent":0}"#), .duplicateNode(1)),
            (tree(#"{\#(action),"node":0,"parent":0}"#), .duplicateNode(0)),
            (tree(#"{\#(action),"node":1,"parent":9}"#), .missingParent(node: 1, parent: 9)),
            (
                tree(#"{\#(action),"node":2,"parent":1},{\#(action),"node":1,"parent":0}"#),
                .parentAfterChild(node: 2, parent: 1)
            ),
            (tree(#"{\#(action),"node":1,"parent":1}"#), .cycle(node: 1)),
            (tree(#"{\#(action),"node":1,"parent":2},{\#(action),"node":2,"parent":1}"#), .cycle(node: 1)),
            (
                tree(
                    #"{\#(action),"node":3,"parent":1},{\#(action),"node":1,"parent":2},"#
                        + #"{\#(action),"node":2,"parent":1}"#
                ),
                .cycle(node: 1)
            ),
            (
                tree(#"{\#(action),"node":3,"parent":2},{\#(action),"node":2,"parent":7}"#),
                .missingParent(node: 2, parent: 7)
            ),
            (tree(#"{\#(action)},{\#(action),"node":2,"parent":0,"redo":true}"#), .twoRedoChoices(parent: 0)),
            (tree(#"{\#(action)}"#, current: 4), .currentNotInHistory(4)),
            (tree(#"{\#(action)}"#, clean: #""clean":2,"#), .cleanNotInHistory(2)),
            (tree(#"{"a":[[0,0,{"x":0,"y":0},-3]]}"#), .negativeCost(node: 1, cost: -3)),
            (
                archiveJSON(
                    history: Self.oneStep.replacingOccurrences(of: #"["test.move",1]"#, with: #"["test.move",0]"#)),
                .invalidCommandVersion(type: "test.move", version: 0)
            ),
            (
                archiveJSON(
                    history: Self.oneStep.replacingOccurrences(of: "}]]}", with: "}]]},{\"a\":[],\"parent\":0}")
                        .replacingOccurrences(of: #""current":1"#, with: #""current":2"#)),
                .branchInLinearHistory(parent: 0)
            ),
        ]
        for (json, problem) in cases {
            let error = archiveError(json)
            #expect(error == .invalidHistory("h", problem), "\(json)")
        }
        #expect(
            HistoryArchiveError.invalidHistory("board", .cycle(node: 3)).description
                == #"the history "board" cannot be restored: node 3 is its own ancestor"#)
    }

    /// The same checks, on a history built in memory (as a restore may run them).
    @Test func validateFindsEachFlawInMemory() {
        let move = SavedAction(MoveFigure(x: 0, y: 0), key: "k")
        func history(_ steps: [SavedStep], shape: ActionStack.HistoryShape = .tree, current: Int = 0, clean: Int? = nil)
            -> SavedHistory
        {
            SavedHistory(shape: shape, root: 0, current: current, clean: clean, steps: steps)
        }
        var costly = move
        costly.cost = -1
        var unversioned = move
        unversioned.version = 0
        var empty = move
        empty.command = nil
        let cases: [(SavedHistory, SavedHistory.StructuralProblem)] = [
            (history([savedStep(1, actions: [move]), savedStep(1, parent: 0, actions: [move])]), .duplicateNode(1)),
            (history([savedStep(2, parent: 1, actions: [move])]), .missingParent(node: 2, parent: 1)),
            (history([savedStep(1, parent: -2, actions: [move])]), .negativeNode(-2)),
            (
                history([savedStep(1, actions: [move]), savedStep(2, parent: 0, actions: [move])], shape: .linear),
                .branchInLinearHistory(parent: 0)
            ),
            (history([savedStep(1, actions: [costly])]), .negativeCost(node: 1, cost: -1)),
            (history([savedStep(1, actions: [unversioned])]), .invalidCommandVersion(type: "test.move", version: 0)),
            (history([savedStep(1, actions: [empty])]), .actionWithoutCommand(node: 1)),
            (history([], current: 1), .currentNotInHistory(1)),
            (history([], clean: 3), .cleanNotInHistory(3)),
        ]
        for (history, problem) in cases {
            #expect(throws: problem) { try history.validate() }
        }
        #expect(throws: Never.self) { try richTree().validate() }
        #expect(throws: Never.self) { try linearHistory(100).validate() }
    }
}
