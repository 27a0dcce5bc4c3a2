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

#if canImport(Glibc)
    import Glibc
#endif

// Reading an archive that anyone could have written: every truncation, byte mutation, repeated key,
// count that does not add up, invalid UTF-8, nesting and limit is refused with an error, and
// nothing crashes or hangs, whatever the input (SavingTheHistory.md, HistoryArchive's docs).

@Suite struct UntrustedArchiveTests {
    @Test func baselineHistoryDecodes() throws {
        let archive = try decoded(archive2(hrValidHistory)).get()
        #expect(archive.histories["h"]?.steps.count == 2)
    }

    @Test func hugeRootRestoredIntoABranchingStackDoesNotCrash() async {
        // A hostile file whose root is a node number no tree can hold. validate() accepts a root of
        // 0 or more, so the archive reads; the docs promise nothing crashes, whatever the input.
        await #expect(processExitsWith: .success) {
            let json =
                #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"h":{"shape":"tree","root":4294967296,"current":4294967296,"steps":[],"actions":[],"payloads":[]}}}"#
            guard let archive = try? HistoryArchive(decoding: Data(json.utf8), registry: CommandRegistry()) else {
                return
            }
            let stack = ActionStack()
            stack.groupsByEvent = false
            stack.historyShape = .tree
            _ = try? stack.restoreHistory(archive.histories["h"]!) { _ in nil }
        }
    }

    @Test func rootAtTheLastNodeNumberRestoredIntoABranchingStackDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            let history = SavedHistory(
                shape: .linear, root: Int(UInt32.max), current: Int(UInt32.max), clean: nil, steps: [])
            let stack = ActionStack()
            stack.groupsByEvent = false
            stack.historyShape = .tree
            _ = try? stack.restoreHistory(history) { _ in nil }
        }
    }

    @Test func anObjectOfManyKeysReadsAndARepeatAmongThemIsFound() {
        // "Reading never crashes, whatever the input" and a hostile file must not hang: an object
        // with many distinct keys (in a key the reader ignores, or in a command payload) is
        // checked for repeated keys. Checking them was quadratic once (a copy of the key set per
        // key), and this object took hours; linear, it takes a fraction of a second. No time is
        // asserted: a hang fails the run by its time limit.
        func archive(keys: Int, repeatingAtTheEnd: Bool) -> Data {
            var object = "{"
            for index in 0..<keys {
                if index > 0 { object += "," }
                object += "\"k\(index)\":0"
            }
            if repeatingAtTheEnd { object += ",\"k17\":1" }
            object += "}"
            return Data(
                archive2(
                    #"{"shape":"linear","root":0,"current":0,"extra":\#(object),"steps":[],"actions":[],"payloads":[]}"#
                ).utf8)
        }
        #expect(throws: Never.self) { try decoded(archive(keys: 200_000, repeatingAtTheEnd: false)).get() }
        guard case .failure(let error) = decoded(archive(keys: 200_000, repeatingAtTheEnd: true)),
            let reason = error.corruption
        else {
            Issue.record("a repeated key among 200,000 was not found")
            return
        }
        #expect(reason.contains(#"repeats the key "k17""#))
    }

    /// A rich archive that the library wrote: a branching history with dates, names, costs, user
    /// info and a clean state, and a linear one.
    static func writtenArchive() throws -> Data {
        let stack = hrStack(.tree)
        let clock = ManualClock(seconds: 786_000_000.125)
        stack.historyClock = { clock.tick(seconds: 1.0625) }
        let doc = HRDoc()
        for value in 1...3 { hrChange(doc, to: value, on: stack, name: "Set \(value)") }
        stack.undo()
        stack.undo()
        stack.beginUndoGrouping()
        HRCostly(value: 9, cost: 7).perform(on: doc, in: stack)
        stack.setActionName("Costly")
        stack.setActionUserInfoValue("x\"\\\u{1}😀", forKey: "s")
        stack.setActionUserInfoValue(0.1, forKey: "d")
        stack.setActionIsDiscardable(true)
        stack.endUndoGrouping()
        stack.markClean()
        let linear = hrStack()
        for value in 1...3 { hrChange(doc, to: value, on: linear) }
        linear.undo()
        return try HistoryArchive(
            fingerprint: "rev", histories: ["tree": try stack.savedHistory(), "line": try linear.savedHistory()]
        ).encoded()
    }

    @Test func everyTruncationOfAWrittenArchiveIsRefused() throws {
        let data = try Self.writtenArchive()
        #expect(throws: Never.self) { try HistoryArchive(decoding: data, registry: testRegistry()) }
        for length in 0..<data.count {
            if case .success = decoded(data.prefix(length)) {
                Issue.record("a prefix of \(length) of \(data.count) bytes was read")
            }
        }
    }

    @Test func everyByteMutationIsRefusedOrReadWhole() throws {
        let data = try Self.writtenArchive()
        var accepted = 0
        for index in 0..<data.count {
            for replacement: UInt8 in [
                data[index] ^ 0x01, UInt8(ascii: "9"), UInt8(ascii: "\""), UInt8(ascii: "{"), 0xFF,
            ]
            where replacement != data[index] {
                var mutated = data
                mutated[index] = replacement
                guard case .success(let archive) = decoded(mutated) else { continue }
                accepted += 1
                for (name, history) in archive.histories {
                    #expect(throws: Never.self, "history \(name) after a mutation at \(index)") {
                        try history.validate()
                    }
                }
            }
        }
        #expect(accepted < data.count * 5)
    }

    @Test func repeatedKeysAreRefusedEverywhere() {
        let kelvin = "\u{212A}"
        let acuteNFC = "\u{E9}"
        let acuteNFD = "e\u{301}"
        func payloadHistory(_ payload: String) -> String {
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.bag",1,"doc"]],"steps":[1],"actions":[0],"payloads":[\#(payload)]}"#
        }
        let sixteen = (0..<16).map { #""k\#($0)":0"# }.joined(separator: ",")
        let twenty = (0..<20).map { #""k\#($0)":0"# }.joined(separator: ",")
        let cases: [(String, String)] = [
            ("envelope", #"{"format":"ActionStack.History","version":2,"version":2,"fingerprint":"f","histories":{}}"#),
            (
                "envelope, escaped",
                #"{"format":"ActionStack.History","version":2,"fingerprint":"f","fingerpr\u0069nt":"g","histories":{}}"#
            ),
            (
                "history names, Kelvin sign",
                #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"K":\#(hrValidHistory),""#
                    + kelvin + #"":\#(hrValidHistory)}}"#
            ),
            (
                "history names, escaped Kelvin sign",
                #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"K":\#(hrValidHistory),"\u212a":\#(hrValidHistory)}}"#
            ),
            (
                "history field",
                archive2(#"{"shape":"linear","root":0,"root":0,"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "history field, escaped",
                archive2(
                    #"{"shape":"linear","root":0,"r\u006fot":0,"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "step",
                archive2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"a":1}],"actions":[0],"payloads":[{"value":0}]}"#
                )
            ),
            (
                "step, escaped",
                archive2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"\u0061":1}],"actions":[0],"payloads":[{"value":0}]}"#
                )
            ),
            (
                "user info, canonically equivalent",
                archive2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"userInfo":{""#
                        + acuteNFC + #"":{"int":1},""# + acuteNFD
                        + #"":{"int":2}}}],"actions":[0],"payloads":[{"value":0}]}"#)
            ),
            (
                "user-info kind",
                archive2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"userInfo":{"u":{"int":1,"int":1}}}],"actions":[0],"payloads":[{"value":0}]}"#
                )
            ),
            ("payload", archive2(payloadHistory(#"{"values":{"a":0,"a":1}}"#))),
            ("payload, escaped", archive2(payloadHistory(#"{"values":{"a":0,"\u0061":1}}"#))),
            ("payload, Kelvin sign", archive2(payloadHistory(#"{"values":{"K":0,""# + kelvin + #"":1}}"#))),
            (
                "payload, canonically equivalent",
                archive2(payloadHistory(#"{"values":{""# + acuteNFC + #"":0,""# + acuteNFD + #"":1}}"#))
            ),
            ("payload, the 17th key repeats the first", archive2(payloadHistory(#"{"values":{\#(sixteen),"k0":1}}"#))),
            ("payload, past 16 keys", archive2(payloadHistory(#"{"values":{\#(twenty),"k3":1}}"#))),
            (
                "payload, past 16 keys, Kelvin",
                archive2(payloadHistory(#"{"values":{\#(twenty),"K":1,""# + kelvin + #"":1}}"#))
            ),
            ("payload, after a nested object", archive2(payloadHistory(#"{"values":{"a":{"b":1},"b":2,"a":3}}"#))),
            (
                "payload, after a nested object of many keys",
                archive2(payloadHistory(#"{"values":{"z":{\#(twenty)},"y":1,"z":1}}"#))
            ),
            ("payload, the wrapper", archive2(payloadHistory(#"{"values":{},"values":{}}"#))),
            (
                "ignored key",
                archive2(
                    #"{"shape":"linear","root":0,"current":0,"extra":{"x":1,"x":2},"steps":[],"actions":[],"payloads":[]}"#
                )
            ),
            (
                "version 1, step",
                #"{"fingerprint":"f","format":"ActionStack.History","histories":{"h":{"commands":[["hr.set",1]],"current":1,"keys":["doc"],"root":0,"shape":"linear","steps":[{"a":[[0,0,{"value":0}]],"a":[[0,0,{"value":0}]]}]}},"version":1}"#
            ),
            (
                "version 1, history names",
                #"{"fingerprint":"f","format":"ActionStack.History","histories":{"K":{"current":0,"root":0,"shape":"linear","steps":[]},""#
                    + kelvin + #"":{"current":0,"root":0,"shape":"linear","steps":[]}},"version":1}"#
            ),
            (
                "version 1, payload",
                #"{"fingerprint":"f","format":"ActionStack.History","histories":{"h":{"commands":[["hr.set",1]],"current":1,"keys":["doc"],"root":0,"shape":"linear","steps":[{"a":[[0,0,{"value":0,"value":1}]]}]}},"version":1}"#
            ),
        ]
        for (name, json) in cases {
            let error = archiveError(json)
            #expect(isCorrupt(error), "\(name): \(String(describing: error))")
        }
        // Not repeats: the same key in two objects, and keys that differ only in case.
        let fine: [(String, String)] = [
            ("two objects", archive2(payloadHistory(#"{"values":{"x":1},"other":{"x":1}}"#))),
            ("case", archive2(payloadHistory(#"{"values":{"k":1,"K":2}}"#))),
        ]
        for (name, json) in fine {
            #expect(archiveError(json) == nil, "\(name)")
        }
    }

    @Test func countsColumnsAndIndicesThatDoNotAddUpAreRefused() {
        func history(steps: String, actions: String = "[0]", payloads: String = #"[{"value":0}]"#, extra: String = "")
            -> String
        {
            archive2(
                #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]]\#(extra),"steps":\#(steps),"actions":\#(actions),"payloads":\#(payloads)}"#
            )
        }
        let corrupt: [(String, String)] = [
            ("a step claims more actions than there are", history(steps: #"[{"a":100000}]"#)),
            ("a step claims a negative number", history(steps: #"[{"a":-1}]"#)),
            ("a count out of range", history(steps: "[99999999999999999999]")),
            ("a count that is not whole", history(steps: "[1.0]")),
            ("a count as a string", history(steps: #"["1"]"#)),
            (
                "steps hold fewer actions than listed",
                history(steps: "[1]", actions: "[0,0]", payloads: #"[{"value":0},{"value":1}]"#)
            ),
            ("more payloads than actions", history(steps: "[1]", payloads: #"[{"value":0},{"value":1}]"#)),
            ("fewer payloads than actions", history(steps: "[2]", actions: "[0,0]")),
            ("no payload at all", history(steps: "[1]", payloads: "[]")),
            ("a command index out of range", history(steps: "[1]", actions: "[5]")),
            ("a negative command index", history(steps: "[1]", actions: "[-1]")),
            ("a command index that is not whole", history(steps: "[1]", actions: "[0.0]")),
            ("a name index out of range", history(steps: #"[{"a":1,"n":3}]"#)),
            ("a negative name index", history(steps: #"[{"a":1,"n":-1}]"#, extra: #","names":["x"]"#)),
            (
                "costs out of order",
                history(
                    steps: "[2]", actions: "[0,0]", payloads: #"[{"value":0},{"value":1}]"#,
                    extra: #","costs":[[1,5],[0,3]]"#)
            ),
            (
                "a cost twice",
                history(
                    steps: "[2]", actions: "[0,0]", payloads: #"[{"value":0},{"value":1}]"#,
                    extra: #","costs":[[0,1],[0,2]]"#)
            ),
            ("a cost out of range", history(steps: "[1]", extra: #","costs":[[1,1]]"#)),
            ("a negative cost index", history(steps: "[1]", extra: #","costs":[[-1,1]]"#)),
            ("a cost of one number", history(steps: "[1]", extra: #","costs":[[0]]"#)),
            ("a cost of three numbers", history(steps: "[1]", extra: #","costs":[[0,1,2]]"#)),
            ("a cost that is not whole", history(steps: "[1]", extra: #","costs":[[0,1.5]]"#)),
            ("costs that are not an array", history(steps: "[1]", extra: #","costs":{}"#)),
            ("payloads that are an object", history(steps: "[1]", payloads: #"{"0":{"value":0}}"#)),
            ("payloads that are a string", history(steps: "[1]", payloads: #""[{\"value\":0}]""#)),
            ("payloads that are null", history(steps: "[1]", payloads: "null")),
            (
                "a command entry of two values",
                archive2(
                    #"{"shape":"linear","root":0,"current":0,"commands":[["hr.set",1]],"steps":[],"actions":[],"payloads":[]}"#
                )
            ),
            (
                "a command entry of four values",
                archive2(
                    #"{"shape":"linear","root":0,"current":0,"commands":[["hr.set",1,"k",2]],"steps":[],"actions":[],"payloads":[]}"#
                )
            ),
            (
                "a root that is not whole",
                archive2(#"{"shape":"linear","root":1.0,"current":1,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "a root with an exponent",
                archive2(#"{"shape":"linear","root":1e2,"current":100,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "a root as a string",
                archive2(#"{"shape":"linear","root":"0","current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "a root past Int",
                archive2(
                    #"{"shape":"linear","root":9223372036854775808,"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            ("a date past Double", history(steps: #"[{"a":1,"d":1e400}]"#)),
            (
                "a root date past Double",
                archive2(
                    #"{"shape":"linear","root":0,"current":0,"rootDate":-1e999,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            ("a user-info double past Double", history(steps: #"[{"a":1,"userInfo":{"u":{"double":1e309}}}]"#)),
            ("a user-info date past Double", history(steps: #"[{"a":1,"userInfo":{"u":{"date":-1e309}}}]"#)),
            ("NaN", history(steps: #"[{"a":1,"d":NaN}]"#)),
            ("Infinity", history(steps: #"[{"a":1,"d":Infinity}]"#)),
            ("a user-info value without a kind", history(steps: #"[{"a":1,"userInfo":{"u":{}}}]"#)),
            ("a user-info value of an unknown kind", history(steps: #"[{"a":1,"userInfo":{"u":{"float":1}}}]"#)),
            ("a user-info value of two kinds", history(steps: #"[{"a":1,"userInfo":{"u":{"int":1,"string":"x"}}}]"#)),
            ("a user-info value that nests", history(steps: #"[{"a":1,"userInfo":{"u":{"string":{"x":1}}}}]"#)),
            ("user-info data that is not base64", history(steps: #"[{"a":1,"userInfo":{"u":{"data":"***"}}}]"#)),
            (
                "an unknown shape",
                archive2(#"{"shape":"ring","root":0,"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            ("no shape", archive2(#"{"root":0,"current":0,"steps":[],"actions":[],"payloads":[]}"#)),
            ("no payloads", archive2(#"{"shape":"linear","root":0,"current":0,"steps":[],"actions":[]}"#)),
            ("a history that is an array", archive2("[]")),
            ("data after the end", archive2(hrValidHistory) + " {}"),
            ("two archives", archive2(hrValidHistory) + archive2(hrValidHistory)),
            (
                "a form feed as white space",
                archive2(hrValidHistory).replacingOccurrences(of: #","version""#, with: "\u{0C},\"version\"")
            ),
            (
                "a version that is a string",
                #"{"format":"ActionStack.History","version":"2","fingerprint":"f","histories":{}}"#
            ),
            (
                "a version that is not whole",
                #"{"format":"ActionStack.History","version":2.0,"fingerprint":"f","histories":{}}"#
            ),
            ("version 0", #"{"format":"ActionStack.History","version":0,"fingerprint":"f","histories":{}}"#),
            ("version -1", #"{"format":"ActionStack.History","version":-1,"fingerprint":"f","histories":{}}"#),
            ("no version", #"{"format":"ActionStack.History","fingerprint":"f","histories":{}}"#),
            ("no fingerprint", #"{"format":"ActionStack.History","version":2,"histories":{}}"#),
            (
                "a fingerprint that is a number",
                #"{"format":"ActionStack.History","version":2,"fingerprint":1,"histories":{}}"#
            ),
        ]
        for (name, json) in corrupt {
            switch decoded(json) {
            case .success: Issue.record("\(name): read")
            case .failure(let error) where error.corruption != nil || error.structuralProblem != nil: break
            case .failure(let other): Issue.record("\(name): \(other)")
            }
        }
        // The negative cost and the node out of place are flaws of the history.
        #expect(
            archiveError(history(steps: "[1]", extra: #","costs":[[0,-1]]"#))
                == .invalidHistory("h", .negativeCost(node: 1, cost: -1)))
        #expect(
            archiveError(archive2(#"{"shape":"linear","root":-1,"current":-1,"steps":[],"actions":[],"payloads":[]}"#))
                == .invalidHistory("h", .negativeNode(-1)))
        #expect(
            archiveError(history(steps: #"[{"a":1,"node":0}]"#)).map { $0.structuralProblem != nil }
                == true)
        #expect(
            archiveError(#"{"format":"ActionStack.History","version":3,"fingerprint":"f","histories":{}}"#)
                == .newerFormatVersion(3, newestSupported: 2))
        #expect(archiveError(#"{"format":"Other","version":2,"fingerprint":"f","histories":{}}"#) == .notAnArchive)
        #expect(archiveError("[]") == .notAnArchive)
        #expect(archiveError(#"{"version":2}"#) == .notAnArchive)
        #expect(archiveError("") != nil)
        #expect(archiveError("   ") != nil)
    }

    @Test func invalidUTF8AndLoneSurrogatesAreRefused() throws {
        let good = Array(archive2(hrValidHistory).utf8)
        func replacing(_ marker: String, with bytes: [UInt8], in json: String) -> Data {
            let text = Array(json.utf8)
            let needle = Array(marker.utf8)
            for start in 0...(text.count - needle.count) where Array(text[start..<start + needle.count]) == needle {
                return Data(text[..<start] + bytes + text[(start + needle.count)...])
            }
            Issue.record("no \(marker)")
            return Data()
        }
        let json = archive2(
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.bag",1,"doc"]],"steps":[{"a":1,"n":0}],"names":["NAME"],"actions":[0],"payloads":[{"values":{"KEY":0}}]}"#,
            fingerprint: #""FP""#)
        #expect(throws: Never.self) { try HistoryArchive(decoding: Data(json.utf8), registry: testRegistry()) }
        let cases: [(String, [UInt8])] = [
            ("FP", [0xFF]),
            ("FP", [0xC0, 0x80]),
            ("NAME", [0xED, 0xA0, 0x80]),
            ("NAME", [0xF4, 0x90, 0x80, 0x80]),
            ("NAME", [0xE2, 0x82]),
            ("KEY", [0xFE]),
            ("KEY", [0xC3]),
            ("KEY", Array(#"\udc00"#.utf8)),
            ("KEY", Array(#"\ud800\u0041"#.utf8)),
            ("NAME", Array(#"\ud800"#.utf8)),
        ]
        for (marker, bytes) in cases {
            let result = decoded(replacing(marker, with: bytes, in: json))
            #expect(isCorrupt(result.failureValue), "\(marker) as \(bytes): \(result)")
        }
        // A byte that is not JSON between tokens.
        var outside = good
        outside.insert(0xFF, at: 1)
        #expect(isCorrupt(decoded(Data(outside)).failureValue))
        // A valid escaped pair and raw four-byte scalars read.
        let fine = replacing("NAME", with: Array(#"\ud83d\ude00 😀 \u212a"#.utf8), in: json)
        #expect(try decoded(fine).get().histories["h"]?.steps.first?.actionName == "😀 😀 \u{212A}")
    }

    @Test func deepNestingIsRefusedAsTooLarge() {
        let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        let payload = archive2(
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.bag",1,"doc"]],"steps":[1],"actions":[0],"payloads":[\#(deep)]}"#
        )
        #expect(archiveError(payload) == .tooLarge(.nestingDepth, maximum: 64))
        let veryDeep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        let ignored = archive2(
            #"{"shape":"linear","root":0,"current":0,"extra":\#(veryDeep),"steps":[],"actions":[],"payloads":[]}"#)
        #expect(archiveError(ignored) == .tooLarge(.nestingDepth, maximum: 64))
        let objects = String(repeating: #"{"a":"#, count: 200_000) + "1" + String(repeating: "}", count: 200_000)
        #expect(archiveError(objects) == .tooLarge(.nestingDepth, maximum: 64))
        // Truncated deep input: refused, not read past the end.
        #expect(archiveError(String(repeating: "[", count: 10)) != nil)
        #expect(archiveError("{" + String(repeating: #""a":{"#, count: 30)) != nil)
        // The documented levels: a payload object is at level 5; 64 levels in all are accepted.
        let deepest = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        let atLimit = archive2(
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.bag",1,"doc"]],"steps":[1],"actions":[0],"payloads":[\#(deepest)]}"#
        )
        #expect(archiveError(atLimit) == nil)
    }

    @Test func limitsAreEnforcedAsTooLarge() {
        var limits = HistoryArchive.Limits.default
        limits.maximumSteps = 2
        #expect(
            decoded(
                archive2(#"{"shape":"linear","root":0,"current":0,"steps":[0,0,0],"actions":[],"payloads":[]}"#),
                limits: limits
            )
            .failureValue == .tooLarge(.steps, maximum: 2))
        limits = .default
        limits.maximumActionsPerStep = 1
        #expect(decoded(archive2(hrValidHistory), limits: limits).failureValue == nil)
        // The same step as an object is refused...
        #expect(
            decoded(
                archive2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":2}],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#
                ),
                limits: limits
            ).failureValue == .tooLarge(.actionsPerStep, maximum: 1))
        // ...and as a bare count of one digit it is not.
        #expect(
            decoded(
                archive2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[2],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#
                ),
                limits: limits
            ).failureValue == .tooLarge(.actionsPerStep, maximum: 1))
        limits = .default
        limits.maximumStringLength = 3
        #expect(
            decoded(archive2(hrValidHistory, fingerprint: #""abcd""#), limits: limits).failureValue
                == .tooLarge(.stringLength, maximum: 3))
        limits = .default
        limits.maximumBytes = 10
        #expect(decoded(archive2(hrValidHistory), limits: limits).failureValue == .tooLarge(.bytes, maximum: 10))
        limits = .default
        limits.maximumUserInfoEntries = 1
        #expect(
            decoded(
                archive2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"userInfo":{"a":{"int":1},"b":{"int":2}}}],"actions":[0],"payloads":[{"value":0}]}"#
                ),
                limits: limits
            ).failureValue == .tooLarge(.userInfoEntries, maximum: 1))
        limits = .default
        limits.maximumHistories = 1
        #expect(
            decoded(
                #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"a":\#(hrValidHistory),"b":\#(hrValidHistory)}}"#,
                limits: limits
            ).failureValue == .tooLarge(.histories, maximum: 1))
    }

    @Test func unknownKeysAreIgnoredAndASliceReads() throws {
        let json = archive2(
            #"{"future":{"x":[1,2,{"y":null}]},"shape":"linear","root":0,"current":2,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"later":true},1],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#
        ).replacingOccurrences(of: #""fingerprint""#, with: #""also":[true],"fingerprint""#)
        let archive = try decoded(json).get()
        #expect(archive.histories["h"]?.steps.count == 2)
        // A Data slice that does not start at index 0, with a byte-order mark in front.
        let padded = Data([0x20, 0x20]) + Data([0xEF, 0xBB, 0xBF]) + Data(archive2(hrValidHistory).utf8)
        let slice = padded[2...]
        let fromSlice = try decoded(Data(slice)).get()
        #expect(fromSlice.histories["h"]?.steps.count == 2)
        let fromRealSlice = try decoded(slice).get()
        #expect((fromRealSlice.histories["h"]?.steps[1].actions[0].command as? HRSet) == HRSet(value: 1))
    }

    // MARK: Version 1

    static let version1 =
        #"{"fingerprint":"f","format":"ActionStack.History","histories":{"h":{"commands":[["hr.set",1]],"current":2,"keys":["doc"],"names":["One","Two"],"root":0,"shape":"linear","steps":[{"a":[[0,0,{"value":0}]],"n":0},{"a":[[0,0,{"value":1},3]],"n":1,"userInfo":{"u":{"double":0.5}}}]}},"version":1}"#

    @Test func version1StillReadsAndReEncodesStably() throws {
        let archive = try decoded(Self.version1).get()
        let history = try #require(archive.histories["h"])
        #expect(history.steps.map(\.actionName) == ["One", "Two"])
        #expect(history.steps[1].actions[0].cost == 3)
        #expect(history.steps[1].userInfo["u"] == .double(0.5))
        let again = try archive.encoded()
        #expect(try decoded(again).get().encoded() == again)
        // In a slice, behind a byte-order mark.
        let padded = Data([0x20]) + Data([0xEF, 0xBB, 0xBF]) + Data(Self.version1.utf8)
        #expect(try decoded(padded[1...]).get().histories["h"]?.steps.count == 2)
    }

    @Test func hostileVersion1FilesAreRefused() throws {
        let base = Self.version1
        for length in 0..<base.utf8.count {
            if case .success = decoded(Data(base.utf8.prefix(length))) {
                Issue.record("a prefix of \(length) bytes was read")
            }
        }
        func variant(_ old: String, _ new: String) -> String {
            #expect(base.contains(old), "\(old)")
            return base.replacingOccurrences(of: old, with: new)
        }
        let refused: [(String, String)] = [
            ("an action of two", variant(#"[[0,0,{"value":0}]]"#, "[[0,0]]")),
            ("an action of five", variant(#"[[0,0,{"value":0}]]"#, #"[[0,0,{"value":0},1,2]]"#)),
            ("a key index out of range", variant(#"[[0,0,{"value":0}]]"#, #"[[0,3,{"value":0}]]"#)),
            ("a negative command index", variant(#"[[0,0,{"value":0}]]"#, #"[[-1,0,{"value":0}]]"#)),
            ("a command version 0", variant(#"["hr.set",1]"#, #"["hr.set",0]"#)),
            ("a negative cost", variant(#"{"value":1},3]"#, #"{"value":1},-3]"#)),
            ("a cost that is not whole", variant(#"{"value":1},3]"#, #"{"value":1},3.5]"#)),
            ("a step that is not an object", variant(#"{"a":[[0,0,{"value":0}]],"n":0}"#, "1")),
            ("a step without actions", variant(#"{"a":[[0,0,{"value":0}]],"n":0}"#, #"{"n":0}"#)),
            ("a name index out of range", variant(#""n":1,"#, #""n":7,"#)),
            ("a user-info value of two kinds", variant(#"{"double":0.5}"#, #"{"double":0.5,"int":1}"#)),
            ("a user-info double past Double", variant(#"{"double":0.5}"#, #"{"double":1e999}"#)),
            ("a date past Double", variant(#""n":0}"#, #""n":0,"d":1e999}"#)),
            ("a root past Int", variant(#""root":0"#, #""root":99999999999999999999"#)),
            ("a current node not in the history", variant(#""current":2"#, #""current":9"#)),
            ("an unknown shape", variant(#""shape":"linear""#, #""shape":"ring""#)),
            (
                "histories that are an array",
                #"{"fingerprint":"f","format":"ActionStack.History","histories":[],"version":1}"#
            ),
            (
                "deep payload",
                variant(#"{"value":0}"#, String(repeating: "[", count: 70) + String(repeating: "]", count: 70))
            ),
        ]
        for (name, json) in refused {
            switch decoded(json) {
            case .success: Issue.record("\(name): read")
            case .failure: break
            }
        }
        // A payload that does not decode is the action's problem, not the file's.
        let badPayload = try? decoded(variant(#"{"value":0}"#, #"{"value":"zero"}"#)).get()
        #expect(badPayload?.histories["h"]?.steps[0].actions[0].problem != nil)
    }

    @Test(
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads /proc"),
        .disabled(if: runsUnderASanitizer, "a sanitizer's shadow memory and redzones are not the reader's"))
    func memoryForAFileOfEmptyStepsStaysWithinTheDocumentedBound() async {
        // Limits.maximumBytes: "about 300 bytes per step ... a file of empty steps (2 bytes each:
        // about 150 times the input ...)". A child process, so that the peak is this reading's.
        await #expect(processExitsWith: .success) {
            let count = 1_000_000
            var json = Array(
                #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"h":{"shape":"linear","root":0,"current":0,"steps":["#
                    .utf8)
            json.reserveCapacity(count * 2 + 200)
            for index in 0..<count {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                json.append(UInt8(ascii: "0"))
            }
            json += Array(#"],"actions":[],"payloads":[]}}}"#.utf8)
            let data = Data(json)
            json = []
            let before = hrMemory().current
            // Resets the peak to the current size (Linux 4.0 and later).
            try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
            let archive = try? HistoryArchive(decoding: data, registry: CommandRegistry())
            let peak = hrMemory().peak
            let used = (peak - before) * 1024
            let ratio = Double(used) / Double(data.count)
            try? "\(data.count) bytes, \(used) bytes more at the peak: \(ratio) times; read: \(archive != nil)\n"
                .write(toFile: "/tmp/actionstack-archive-memory.txt", atomically: true, encoding: .utf8)
            if ratio > 200 { exit(1) }
        }
    }

    func validData() throws -> Data {
        var saved = hsSaved(4, current: 2, clean: 3)
        saved.steps[1].userInfo = ["k": .string("v"), "d": .double(1.5)]
        saved.steps[2].date = Date(timeIntervalSinceReferenceDate: 12.5)
        return try HistoryArchive(fingerprint: "fp", histories: ["h": saved, "g": hsSaved(1, current: 0)]).encoded()
    }

    @Test func everyTruncationThrows() throws {
        let data = try validData()
        for length in 0..<data.count {
            #expect(archiveError(data.prefix(length)) != nil, "prefix \(length)")
        }
    }

    @Test func byteMutationsThrowOrRestoreCleanly() throws {
        let data = try validData()
        let replacements: [UInt8] = [0x00, 0x22, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x30, 0x39, 0x2D, 0xFF]
        for index in stride(from: 0, to: data.count, by: 1) {
            for byte in replacements where data[index] != byte {
                var mutated = data
                mutated[index] = byte
                guard let archive = try? HistoryArchive(decoding: mutated, registry: testRegistry()) else { continue }
                for (_, history) in archive.histories {
                    try history.validate()
                    let stack = makeStack()
                    stack.historyShape = history.shape
                    if let report = try? hsRestore(history, into: stack, ["box": HSBox(value: history.current)]) {
                        #expect(report.restoredSteps + report.droppedSteps == history.steps.count)
                        while stack.canUndo { stack.undo() }
                        while stack.canRedo { stack.redo() }
                    }
                }
            }
        }
    }

    @Test func wrongMagicAndNewerFormat() {
        let body = hsHistory(#"[{"a":[[0,0,{"value":0}]]}]"#)
        #expect(
            archiveError(
                archiveJSON(history: body).replacingOccurrences(of: "ActionStack.History", with: "ActionStack.Histor"))
                == .notAnArchive)
        #expect(archiveError("[]") == .notAnArchive)
        #expect(archiveError(archiveJSON(history: body, version: "3")) == .newerFormatVersion(3, newestSupported: 2))
        #expect(archiveError(archiveJSON(history: body, version: "99999999999999999999")) != nil)
        #expect(archiveError(archiveJSON(history: body, version: "0")) != nil)
        #expect(archiveError(archiveJSON(history: body, version: "-1")) != nil)
        #expect(archiveError(archiveJSON(history: body)) == nil)
    }

    @Test func duplicateKeysAnywhereAreRefused() {
        let body = hsHistory(#"[{"a":[[0,0,{"value":0,"value":1}]]}]"#)
        #expect(archiveError(archiveJSON(history: body)) != nil)
        let twoCurrents = hsHistory(#"[{"a":[[0,0,{"value":0}]]}]"#, extra: #","current":0"#)
        #expect(archiveError(archiveJSON(history: twoCurrents)) != nil)
        let escaped = hsHistory(#"[{"a":[[0,0,{"value":0,"val\u0075e":1}]]}]"#)
        #expect(archiveError(archiveJSON(history: escaped)) != nil)
    }

    @Test func structuralAttacksAreRefused() {
        let a = #"[[0,0,{"value":0}]]"#
        let cases: [(String, String)] = [
            ("cycle", hsHistory(#"[{"a":\#(a),"node":1,"parent":2},{"a":\#(a),"node":2,"parent":1}]"#)),
            ("missing parent", hsHistory(#"[{"a":\#(a),"node":1,"parent":7}]"#)),
            ("negative node", hsHistory(#"[{"a":\#(a),"node":-1}]"#, current: -1)),
            (
                "negative root",
                #"{"commands":[["hs.mark",1]],"current":-1,"keys":["box"],"root":-1,"shape":"linear","steps":[]}"#
            ),
            ("duplicate node", hsHistory(#"[{"a":\#(a)},{"a":\#(a),"node":1,"parent":0,"redo":false}]"#)),
            ("step to root", hsHistory(#"[{"a":\#(a),"node":0,"parent":0}]"#)),
            ("current missing", hsHistory(#"[{"a":\#(a)}]"#, current: 5)),
            ("clean missing", hsHistory(#"[{"a":\#(a)}]"#, extra: #","clean":9"#)),
            ("branch in linear", hsHistory(#"[{"a":\#(a)},{"a":\#(a),"node":2,"parent":0}]"#)),
            ("command index", hsHistory(#"[{"a":[[5,0,{"value":0}]]}]"#)),
            ("key index", hsHistory(#"[{"a":[[0,-1,{"value":0}]]}]"#)),
            ("name index", hsHistory(#"[{"a":\#(a),"n":3}]"#)),
            ("negative cost", hsHistory(#"[{"a":[[0,0,{"value":0},-4]]}]"#)),
            ("huge node", hsHistory(#"[{"a":\#(a),"node":1e400}]"#)),
            ("fractional node", hsHistory(#"[{"a":\#(a),"node":1.5}]"#)),
            ("infinite date", hsHistory(#"[{"a":\#(a),"d":1e400}]"#)),
            ("NaN date", hsHistory(#"[{"a":\#(a),"d":NaN}]"#)),
            ("bad shape", hsHistory(#"[{"a":\#(a)}]"#).replacingOccurrences(of: "linear", with: "spiral")),
            ("action not array", hsHistory(#"[{"a":[{"x":1}]}]"#)),
            ("action short", hsHistory(#"[{"a":[[0]]}]"#)),
            (
                "two redo choices",
                #"{"commands":[["hs.mark",1]],"current":0,"keys":["box"],"root":0,"shape":"tree","steps":[{"a":\#(a)},{"a":\#(a),"node":2,"parent":0,"redo":true}]}"#
            ),
            ("user info kind", hsHistory(#"[{"a":\#(a),"userInfo":{"k":{"string":"a","int":1}}}]"#)),
            ("user info unknown kind", hsHistory(#"[{"a":\#(a),"userInfo":{"k":{"set":[1]}}}]"#)),
            ("bad base64", hsHistory(#"[{"a":\#(a),"userInfo":{"k":{"data":"!!!"}}}]"#)),
            ("lone surrogate", hsHistory(#"[{"a":\#(a)}]"#, extra: #","names":["\ud800"]"#)),
        ]
        for (name, body) in cases {
            let error = archiveError(archiveJSON(history: body))
            #expect(error != nil, "\(name) was accepted")
        }
    }

    @Test func hugeNodeNumbersDoNotOverflowLaterChanges() async {
        // A valid tree whose newest node is Int.max: the next change needs a number past it.
        // Run in a child process, so that a trap there fails this test and not the whole run.
        await #expect(processExitsWith: .success) {
            let body =
                #"{"commands":[["hs.mark",1]],"current":9223372036854775807,"keys":["box"],"root":9223372036854775806,"shape":"tree","steps":[{"a":[[0,0,{"value":0}]]}]}"#
            guard
                let archive = try? HistoryArchive(
                    decoding: Data(archiveJSON(history: body).utf8), registry: testRegistry())
            else {
                return  // refusing it is fine too
            }
            let history = archive.histories["h"]!
            let stack = makeStack()
            stack.historyShape = .tree
            let box = HSBox(value: 1)
            guard (try? hsRestore(history, into: stack, ["box": box])) != nil else { return }
            hsChange(box, to: 5, on: stack)
            stack.undo()
            hsChange(box, to: 6, on: stack)
        }
    }

    @Test func deepNestingAndLimitsThrowTooLarge() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(archiveError(deep) != nil)
        let deepPayload = hsHistory(
            #"[{"a":[[0,0,"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "]]}]")
        #expect(archiveError(archiveJSON(history: deepPayload)) == .tooLarge(.nestingDepth, maximum: 64))
        let steps = "[" + Array(repeating: #"{"a":[[0,0,{"value":0}]]}"#, count: 11).joined(separator: ",") + "]"
        #expect(
            archiveError(archiveJSON(history: hsHistory(steps)), limits: .init(maximumSteps: 10))
                == .tooLarge(.steps, maximum: 10))
        #expect(archiveError(Data(count: 100), limits: .init(maximumBytes: 99)) == .tooLarge(.bytes, maximum: 99))
        let longKey = String(repeating: "k", count: 5000)
        #expect(
            archiveError(
                archiveJSON(
                    history:
                        hsHistory(#"[{"a":[[0,0,{"value":0}]]}]"#).replacingOccurrences(
                            of: #"["box"]"#, with: "[\"\(longKey)\"]"))) == .tooLarge(.stringLength, maximum: 4096))
        // A huge count claimed by a number does not allocate.
        #expect(
            archiveError(archiveJSON(history: hsHistory(#"[{"a":[[0,0,{"value":0},9223372036854775807]]}]"#))) == nil)
    }

    @Test func emptyActionStepInAFile() throws {
        // A step with no actions: never saved by the library, but a file can say it.
        let body = hsHistory(#"[{"a":[[0,0,{"value":0}]]},{"a":[]}]"#, current: 2)
        guard
            let archive = try? HistoryArchive(decoding: Data(archiveJSON(history: body).utf8), registry: testRegistry())
        else {
            return
        }
        let history = archive.histories["h"]!
        let stack = makeStack()
        let box = HSBox(value: 1)
        let report = try hsRestore(history, into: stack, ["box": box])
        #expect(report.restoredSteps + report.droppedSteps == 2)
        while stack.canUndo { stack.undo() }
        #expect(box.value == 0)
        let again = try stack.savedHistory()
        try again.validate()
    }

    @Test func nodeNumbersNearTheTopOfTheRangeDoNotTrapLaterChanges() async {
        // The restore takes nodes below UInt32.max - 1; the changes after it number on from there.
        do {
            await #expect(processExitsWith: .success) {
                let json =
                    #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"h":{"shape":"tree","root":4294967292,"current":4294967293,"commands":[["hr.set",1,"doc"]],"steps":[1],"actions":[0],"payloads":[{"value":0}]}}}"#
                guard let archive = try? HistoryArchive(decoding: Data(json.utf8), registry: testRegistry()),
                    let history = archive.histories["h"]
                else { return }
                let stack = ActionStack()
                stack.groupsByEvent = false
                stack.historyShape = .tree
                let doc = HRDoc("doc", 1)
                guard (try? stack.restoreHistory(history, resolvingTargets: { _ in doc })) != nil else { return }
                for value in 2...6 { hrChange(doc, to: value, on: stack) }
                stack.undo()
                hrChange(doc, to: 9, on: stack)
                _ = stack.historyTree
            }
        }
    }

    @Test func numbersOutsideJSONsGrammarAreRefused() {
        for number in [
            "+1", "-", "01", "1.", ".5", "1e", "1e+", "--1", "0x10", "1_000", "Infinity", "-Infinity", "NaN", "1.5.5",
        ] {
            let root = archive2(
                #"{"shape":"linear","root":\#(number),"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            #expect(isCorrupt(archiveError(root)), "root \(number)")
            let date = archive2(
                #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"d":\#(number)}],"actions":[0],"payloads":[{"value":0}]}"#
            )
            #expect(isCorrupt(archiveError(date)), "date \(number)")
            let payload = archive2(
                #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[1],"actions":[0],"payloads":[{"value":\#(number)}]}"#
            )
            #expect(isCorrupt(archiveError(payload)), "payload \(number)")
        }
        // Within the grammar, a date that underflows reads as a number.
        let tiny = archive2(
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"d":1e-400}],"actions":[0],"payloads":[{"value":0}]}"#
        )
        #expect(archiveError(tiny) == nil)
    }
}
