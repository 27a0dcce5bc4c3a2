// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// A hostile user's review of the persistent history, judged against its documentation alone
// (README, SavingTheHistory.md, Performance.md, RecordingTheRightSteps.md, BranchingHistory.md and
// the doc comments of Persistence/). It found seven contradictions (a root too large for a
// branching history trapped, keys checked in quadratic time, memory beyond the documented bound, a
// step count escaping a limit, Foundation numbers changing kind, long UTF-8 file names, fingerprints
// matched as canonically equivalent strings); all are fixed, and their probes are plain tests now.

import ActionStack
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Support

private final class HRDoc {
    let id: String
    var value: Int
    init(_ id: String = "doc", _ value: Int = 0) {
        self.id = id
        self.value = value
    }
}

private final class HRStranger {}

/// Sets the value, registering the inverse command.
private struct HRSet: UndoCommand, Equatable {
    static let commandType = "hr.set"
    var value: Int

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRSet(value: doc.value), on: doc, key: doc.id)
        doc.value = value
    }
}

/// Sets the value with a cost.
private struct HRCostly: UndoCommand, Equatable {
    static let commandType = "hr.costly"
    var value: Int
    var cost: Int

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRCostly(value: doc.value, cost: cost), on: doc, key: doc.id, options: .init(cost: cost))
        doc.value = value
    }
}

/// Sets the value with a coalescing key.
private struct HRTyping: UndoCommand, Equatable {
    static let commandType = "hr.typing"
    var value: Int

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRTyping(value: doc.value), on: doc, key: doc.id)
        doc.value = value
    }
}

/// A command that awaits, and can be told to fail.
private struct HRAsyncSet: AsyncUndoCommand, Equatable {
    static let commandType = "hr.async"
    var value: Int
    var fails: Bool

    struct Refused: Error {}

    nonisolated(nonsending) func perform(on doc: HRDoc, in stack: ActionStack) async throws {
        if fails { throw Refused() }
        stack.registerAsyncUndo(HRAsyncSet(value: doc.value, fails: fails), on: doc, key: doc.id)
        doc.value = value
    }
}

/// A command whose payload is a free-form dictionary (to put many keys in a payload).
private struct HRBag: UndoCommand {
    static let commandType = "hr.bag"
    var values: [String: Int]

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRBag(values: values), on: doc, key: doc.id)
    }
}

private func hrRegistry() -> CommandRegistry {
    var registry = CommandRegistry()
    registry.register(HRSet.self)
    registry.register(HRCostly.self)
    registry.register(HRTyping.self)
    registry.register(HRAsyncSet.self)
    registry.register(HRBag.self)
    return registry
}

private func hrStack(_ shape: ActionStack.HistoryShape = .linear) -> ActionStack {
    let stack = ActionStack()
    stack.groupsByEvent = false
    stack.historyShape = shape
    stack.misusePolicy = .report
    return stack
}

/// One closed step: a command that sets `doc` to `value`, named `name`.
private func hrChange(_ doc: HRDoc, to value: Int, on stack: ActionStack, name: String = "Set") {
    stack.beginUndoGrouping()
    HRSet(value: value).perform(on: doc, in: stack)
    stack.setActionName(name)
    stack.endUndoGrouping()
}

/// Sets `doc` to `value`, registering the inverse as a closure that re-registers its own.
private func hrClosureSet(_ doc: HRDoc, to value: Int, on stack: ActionStack) {
    let old = doc.value
    stack.registerUndo(withTarget: doc) { [unowned stack] doc in hrClosureSet(doc, to: old, on: stack) }
    doc.value = value
}

/// One closed step registered as a closure (cannot be saved).
private func hrClosureChange(_ doc: HRDoc, to value: Int, on stack: ActionStack, name: String = "Closure") {
    stack.beginUndoGrouping()
    hrClosureSet(doc, to: value, on: stack)
    stack.setActionName(name)
    stack.endUndoGrouping()
}

/// A version 2 archive around one history's JSON object, named "h".
private func hrV2(_ history: String, fingerprint: String = "f") -> String {
    #"{"format":"ActionStack.History","version":2,"fingerprint":"\#(fingerprint)","histories":{"h":\#(history)}}"#
}

/// A valid version 2 history of two steps setting "doc", current at the end.
private let hrValidHistory =
    #"{"shape":"linear","root":0,"current":2,"commands":[["hr.set",1,"doc"]],"steps":[1,1],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#

private func hrDecode(_ json: String, limits: HistoryArchive.Limits = .default) -> Result<
    HistoryArchive, HistoryArchiveError
> {
    hrDecode(Data(json.utf8), limits: limits)
}

private func hrDecode(_ data: Data, limits: HistoryArchive.Limits = .default) -> Result<
    HistoryArchive, HistoryArchiveError
> {
    do throws(HistoryArchiveError) {
        return .success(try HistoryArchive(decoding: data, registry: hrRegistry(), limits: limits))
    } catch {
        return .failure(error)
    }
}

private func hrError(_ json: String) -> HistoryArchiveError? {
    if case .failure(let error) = hrDecode(json) { return error }
    return nil
}

private func hrIsCorrupt(_ error: HistoryArchiveError?) -> Bool {
    if error?.corruption != nil { return true }
    return false
}

/// Observable state of a stack, for comparing an original with its restored copy.
private struct HRSnapshot: Equatable, CustomStringConvertible {
    var undoCount: Int
    var redoCount: Int
    var undoTitle: String
    var redoTitle: String
    var isClean: Bool
    var undoNames: [String]
    var redoNames: [String]
    var undoClean: [Bool]
    var redoClean: [Bool]
    var canBeSaved: [Bool]

    init(_ stack: ActionStack) {
        let state = stack.state
        undoCount = state.undoCount
        redoCount = state.redoCount
        undoTitle = stack.undoMenuItemTitle
        redoTitle = stack.redoMenuItemTitle
        isClean = stack.isClean
        let undo = stack.undoEntries
        let redo = stack.redoEntries
        undoNames = undo.map(\.actionName)
        redoNames = redo.map(\.actionName)
        undoClean = undo.map(\.isClean)
        redoClean = redo.map(\.isClean)
        canBeSaved = (undo + redo).map(\.canBeSaved)
    }

    var description: String {
        "undo \(undoCount) \(undoNames) \(undoClean), redo \(redoCount) \(redoNames) \(redoClean), clean \(isClean)"
    }
}

/// The tree as a comparable value: each node's sequence, parent, redo child, date, name, count,
/// clean, current.
private struct HRTreeShape: Equatable {
    struct Node: Equatable {
        var sequence: Int
        var parent: Int?
        var redoChild: Int?
        var date: Double
        var name: String
        var actionCount: Int
        var isClean: Bool
        var isCurrent: Bool
    }
    var nodes: [Node]
    var root: Int
    var current: Int

    init?(_ stack: ActionStack) {
        guard let tree = stack.historyTree else { return nil }
        nodes = tree.nodes.map {
            Node(
                sequence: $0.sequence, parent: $0.parent?.sequence, redoChild: $0.redoChild?.sequence,
                date: $0.date.timeIntervalSinceReferenceDate, name: $0.actionName, actionCount: $0.actionCount,
                isClean: $0.isClean, isCurrent: $0.isCurrent)
        }
        root = tree.root.sequence
        current = tree.current.sequence
    }
}

/// The peak resident memory of this process in KiB (VmHWM), and its current one (VmRSS).
private func hrMemory() -> (peak: Int, current: Int) {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    var peak = 0
    var current = 0
    for line in text.split(separator: "\n") {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if parts.first == "VmHWM:", parts.count > 1 { peak = Int(parts[1]) ?? 0 }
        if parts.first == "VmRSS:", parts.count > 1 { current = Int(parts[1]) ?? 0 }
    }
    return (peak, current)
}

// MARK: - Hostile archive files

@Suite struct HostileReviewArchiveTests {
    @Test func baselineHistoryDecodes() throws {
        let archive = try hrDecode(hrV2(hrValidHistory)).get()
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
                hrV2(
                    #"{"shape":"linear","root":0,"current":0,"extra":\#(object),"steps":[],"actions":[],"payloads":[]}"#
                ).utf8)
        }
        #expect(throws: Never.self) { try hrDecode(archive(keys: 200_000, repeatingAtTheEnd: false)).get() }
        guard case .failure(let error) = hrDecode(archive(keys: 200_000, repeatingAtTheEnd: true)),
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
        let clock = HRClock(786_000_000.125)
        stack.historyClock = { clock.tick() }
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
        #expect(throws: Never.self) { try HistoryArchive(decoding: data, registry: hrRegistry()) }
        for length in 0..<data.count {
            if case .success = hrDecode(data.prefix(length)) {
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
                guard case .success(let archive) = hrDecode(mutated) else { continue }
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
                hrV2(#"{"shape":"linear","root":0,"root":0,"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "history field, escaped",
                hrV2(#"{"shape":"linear","root":0,"r\u006fot":0,"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "step",
                hrV2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"a":1}],"actions":[0],"payloads":[{"value":0}]}"#
                )
            ),
            (
                "step, escaped",
                hrV2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"\u0061":1}],"actions":[0],"payloads":[{"value":0}]}"#
                )
            ),
            (
                "user info, canonically equivalent",
                hrV2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"userInfo":{""#
                        + acuteNFC + #"":{"int":1},""# + acuteNFD
                        + #"":{"int":2}}}],"actions":[0],"payloads":[{"value":0}]}"#)
            ),
            (
                "user-info kind",
                hrV2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"userInfo":{"u":{"int":1,"int":1}}}],"actions":[0],"payloads":[{"value":0}]}"#
                )
            ),
            ("payload", hrV2(payloadHistory(#"{"values":{"a":0,"a":1}}"#))),
            ("payload, escaped", hrV2(payloadHistory(#"{"values":{"a":0,"\u0061":1}}"#))),
            ("payload, Kelvin sign", hrV2(payloadHistory(#"{"values":{"K":0,""# + kelvin + #"":1}}"#))),
            (
                "payload, canonically equivalent",
                hrV2(payloadHistory(#"{"values":{""# + acuteNFC + #"":0,""# + acuteNFD + #"":1}}"#))
            ),
            ("payload, the 17th key repeats the first", hrV2(payloadHistory(#"{"values":{\#(sixteen),"k0":1}}"#))),
            ("payload, past 16 keys", hrV2(payloadHistory(#"{"values":{\#(twenty),"k3":1}}"#))),
            (
                "payload, past 16 keys, Kelvin",
                hrV2(payloadHistory(#"{"values":{\#(twenty),"K":1,""# + kelvin + #"":1}}"#))
            ),
            ("payload, after a nested object", hrV2(payloadHistory(#"{"values":{"a":{"b":1},"b":2,"a":3}}"#))),
            (
                "payload, after a nested object of many keys",
                hrV2(payloadHistory(#"{"values":{"z":{\#(twenty)},"y":1,"z":1}}"#))
            ),
            ("payload, the wrapper", hrV2(payloadHistory(#"{"values":{},"values":{}}"#))),
            (
                "ignored key",
                hrV2(
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
            let error = hrError(json)
            #expect(hrIsCorrupt(error), "\(name): \(String(describing: error))")
        }
        // Not repeats: the same key in two objects, and keys that differ only in case.
        let fine: [(String, String)] = [
            ("two objects", hrV2(payloadHistory(#"{"values":{"x":1},"other":{"x":1}}"#))),
            ("case", hrV2(payloadHistory(#"{"values":{"k":1,"K":2}}"#))),
        ]
        for (name, json) in fine {
            #expect(hrError(json) == nil, "\(name)")
        }
    }

    @Test func countsColumnsAndIndicesThatDoNotAddUpAreRefused() {
        func history(steps: String, actions: String = "[0]", payloads: String = #"[{"value":0}]"#, extra: String = "")
            -> String
        {
            hrV2(
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
                hrV2(
                    #"{"shape":"linear","root":0,"current":0,"commands":[["hr.set",1]],"steps":[],"actions":[],"payloads":[]}"#
                )
            ),
            (
                "a command entry of four values",
                hrV2(
                    #"{"shape":"linear","root":0,"current":0,"commands":[["hr.set",1,"k",2]],"steps":[],"actions":[],"payloads":[]}"#
                )
            ),
            (
                "a root that is not whole",
                hrV2(#"{"shape":"linear","root":1.0,"current":1,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "a root with an exponent",
                hrV2(#"{"shape":"linear","root":1e2,"current":100,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "a root as a string",
                hrV2(#"{"shape":"linear","root":"0","current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            (
                "a root past Int",
                hrV2(
                    #"{"shape":"linear","root":9223372036854775808,"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            ),
            ("a date past Double", history(steps: #"[{"a":1,"d":1e400}]"#)),
            (
                "a root date past Double",
                hrV2(
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
            ("an unknown shape", hrV2(#"{"shape":"ring","root":0,"current":0,"steps":[],"actions":[],"payloads":[]}"#)),
            ("no shape", hrV2(#"{"root":0,"current":0,"steps":[],"actions":[],"payloads":[]}"#)),
            ("no payloads", hrV2(#"{"shape":"linear","root":0,"current":0,"steps":[],"actions":[]}"#)),
            ("a history that is an array", hrV2("[]")),
            ("data after the end", hrV2(hrValidHistory) + " {}"),
            ("two archives", hrV2(hrValidHistory) + hrV2(hrValidHistory)),
            (
                "a form feed as white space",
                hrV2(hrValidHistory).replacingOccurrences(of: #","version""#, with: "\u{0C},\"version\"")
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
            switch hrDecode(json) {
            case .success: Issue.record("\(name): read")
            case .failure(let error) where error.corruption != nil || error.structuralProblem != nil: break
            case .failure(let other): Issue.record("\(name): \(other)")
            }
        }
        // The negative cost and the node out of place are flaws of the history.
        #expect(
            hrError(history(steps: "[1]", extra: #","costs":[[0,-1]]"#))
                == .invalidHistory("h", .negativeCost(node: 1, cost: -1)))
        #expect(
            hrError(hrV2(#"{"shape":"linear","root":-1,"current":-1,"steps":[],"actions":[],"payloads":[]}"#))
                == .invalidHistory("h", .negativeNode(-1)))
        #expect(
            hrError(history(steps: #"[{"a":1,"node":0}]"#)).map { $0.structuralProblem != nil }
                == true)
        #expect(
            hrError(#"{"format":"ActionStack.History","version":3,"fingerprint":"f","histories":{}}"#)
                == .newerFormatVersion(3, newestSupported: 2))
        #expect(hrError(#"{"format":"Other","version":2,"fingerprint":"f","histories":{}}"#) == .notAnArchive)
        #expect(hrError("[]") == .notAnArchive)
        #expect(hrError(#"{"version":2}"#) == .notAnArchive)
        #expect(hrError("") != nil)
        #expect(hrError("   ") != nil)
    }

    @Test func invalidUTF8AndLoneSurrogatesAreRefused() throws {
        let good = Array(hrV2(hrValidHistory).utf8)
        func replacing(_ marker: String, with bytes: [UInt8], in json: String) -> Data {
            let text = Array(json.utf8)
            let needle = Array(marker.utf8)
            for start in 0...(text.count - needle.count) where Array(text[start..<start + needle.count]) == needle {
                return Data(text[..<start] + bytes + text[(start + needle.count)...])
            }
            Issue.record("no \(marker)")
            return Data()
        }
        let json = hrV2(
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.bag",1,"doc"]],"steps":[{"a":1,"n":0}],"names":["NAME"],"actions":[0],"payloads":[{"values":{"KEY":0}}]}"#,
            fingerprint: "FP")
        #expect(throws: Never.self) { try HistoryArchive(decoding: Data(json.utf8), registry: hrRegistry()) }
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
            let result = hrDecode(replacing(marker, with: bytes, in: json))
            #expect(hrIsCorrupt(result.failureValue), "\(marker) as \(bytes): \(result)")
        }
        // A byte that is not JSON between tokens.
        var outside = good
        outside.insert(0xFF, at: 1)
        #expect(hrIsCorrupt(hrDecode(Data(outside)).failureValue))
        // A valid escaped pair and raw four-byte scalars read.
        let fine = replacing("NAME", with: Array(#"\ud83d\ude00 😀 \u212a"#.utf8), in: json)
        #expect(try hrDecode(fine).get().histories["h"]?.steps.first?.actionName == "😀 😀 \u{212A}")
    }

    @Test func deepNestingIsRefusedAsTooLarge() {
        let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        let payload = hrV2(
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.bag",1,"doc"]],"steps":[1],"actions":[0],"payloads":[\#(deep)]}"#
        )
        #expect(hrError(payload) == .tooLarge(.nestingDepth, maximum: 64))
        let veryDeep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        let ignored = hrV2(
            #"{"shape":"linear","root":0,"current":0,"extra":\#(veryDeep),"steps":[],"actions":[],"payloads":[]}"#)
        #expect(hrError(ignored) == .tooLarge(.nestingDepth, maximum: 64))
        let objects = String(repeating: #"{"a":"#, count: 200_000) + "1" + String(repeating: "}", count: 200_000)
        #expect(hrError(objects) == .tooLarge(.nestingDepth, maximum: 64))
        // Truncated deep input: refused, not read past the end.
        #expect(hrError(String(repeating: "[", count: 10)) != nil)
        #expect(hrError("{" + String(repeating: #""a":{"#, count: 30)) != nil)
        // The documented levels: a payload object is at level 5; 64 levels in all are accepted.
        let deepest = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        let atLimit = hrV2(
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.bag",1,"doc"]],"steps":[1],"actions":[0],"payloads":[\#(deepest)]}"#
        )
        #expect(hrError(atLimit) == nil)
    }

    @Test func limitsAreEnforcedAsTooLarge() {
        var limits = HistoryArchive.Limits.default
        limits.maximumSteps = 2
        #expect(
            hrDecode(
                hrV2(#"{"shape":"linear","root":0,"current":0,"steps":[0,0,0],"actions":[],"payloads":[]}"#),
                limits: limits
            )
            .failureValue == .tooLarge(.steps, maximum: 2))
        limits = .default
        limits.maximumActionsPerStep = 1
        #expect(hrDecode(hrV2(hrValidHistory), limits: limits).failureValue == nil)
        // The same step as an object is refused...
        #expect(
            hrDecode(
                hrV2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":2}],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#
                ),
                limits: limits
            ).failureValue == .tooLarge(.actionsPerStep, maximum: 1))
        // ...and as a bare count of one digit it is not.
        #expect(
            hrDecode(
                hrV2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[2],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#
                ),
                limits: limits
            ).failureValue == .tooLarge(.actionsPerStep, maximum: 1))
        limits = .default
        limits.maximumStringLength = 3
        #expect(
            hrDecode(hrV2(hrValidHistory, fingerprint: "abcd"), limits: limits).failureValue
                == .tooLarge(.stringLength, maximum: 3))
        limits = .default
        limits.maximumBytes = 10
        #expect(hrDecode(hrV2(hrValidHistory), limits: limits).failureValue == .tooLarge(.bytes, maximum: 10))
        limits = .default
        limits.maximumUserInfoEntries = 1
        #expect(
            hrDecode(
                hrV2(
                    #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"userInfo":{"a":{"int":1},"b":{"int":2}}}],"actions":[0],"payloads":[{"value":0}]}"#
                ),
                limits: limits
            ).failureValue == .tooLarge(.userInfoEntries, maximum: 1))
        limits = .default
        limits.maximumHistories = 1
        #expect(
            hrDecode(
                #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"a":\#(hrValidHistory),"b":\#(hrValidHistory)}}"#,
                limits: limits
            ).failureValue == .tooLarge(.histories, maximum: 1))
    }

    @Test func unknownKeysAreIgnoredAndASliceReads() throws {
        let json = hrV2(
            #"{"future":{"x":[1,2,{"y":null}]},"shape":"linear","root":0,"current":2,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"later":true},1],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#
        ).replacingOccurrences(of: #""fingerprint""#, with: #""also":[true],"fingerprint""#)
        let archive = try hrDecode(json).get()
        #expect(archive.histories["h"]?.steps.count == 2)
        // A Data slice that does not start at index 0, with a byte-order mark in front.
        let padded = Data([0x20, 0x20]) + Data([0xEF, 0xBB, 0xBF]) + Data(hrV2(hrValidHistory).utf8)
        let slice = padded[2...]
        let fromSlice = try hrDecode(Data(slice)).get()
        #expect(fromSlice.histories["h"]?.steps.count == 2)
        let fromRealSlice = try hrDecode(slice).get()
        #expect((fromRealSlice.histories["h"]?.steps[1].actions[0].command as? HRSet) == HRSet(value: 1))
    }

    // MARK: Version 1

    static let version1 =
        #"{"fingerprint":"f","format":"ActionStack.History","histories":{"h":{"commands":[["hr.set",1]],"current":2,"keys":["doc"],"names":["One","Two"],"root":0,"shape":"linear","steps":[{"a":[[0,0,{"value":0}]],"n":0},{"a":[[0,0,{"value":1},3]],"n":1,"userInfo":{"u":{"double":0.5}}}]}},"version":1}"#

    @Test func version1StillReadsAndReEncodesStably() throws {
        let archive = try hrDecode(Self.version1).get()
        let history = try #require(archive.histories["h"])
        #expect(history.steps.map(\.actionName) == ["One", "Two"])
        #expect(history.steps[1].actions[0].cost == 3)
        #expect(history.steps[1].userInfo["u"] == .double(0.5))
        let again = try archive.encoded()
        #expect(try hrDecode(again).get().encoded() == again)
        // In a slice, behind a byte-order mark.
        let padded = Data([0x20]) + Data([0xEF, 0xBB, 0xBF]) + Data(Self.version1.utf8)
        #expect(try hrDecode(padded[1...]).get().histories["h"]?.steps.count == 2)
    }

    @Test func hostileVersion1FilesAreRefused() throws {
        let base = Self.version1
        for length in 0..<base.utf8.count {
            if case .success = hrDecode(Data(base.utf8.prefix(length))) {
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
            switch hrDecode(json) {
            case .success: Issue.record("\(name): read")
            case .failure: break
            }
        }
        // A payload that does not decode is the action's problem, not the file's.
        let badPayload = try? hrDecode(variant(#"{"value":0}"#, #"{"value":"zero"}"#)).get()
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
                .write(toFile: "/tmp/hostile-review-memory.txt", atomically: true, encoding: .utf8)
            if ratio > 200 { exit(1) }
        }
    }
}

private final class HRClock: @unchecked Sendable {
    var now: Double
    init(_ start: Double) { now = start }
    func tick() -> Date {
        now += 1.0625
        return Date(timeIntervalSinceReferenceDate: now)
    }
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

// MARK: - Round trips

/// Encodes and reads back, checking that encoding again gives the same bytes.
private func hrRoundTrip(_ history: SavedHistory, name: String = "h", fingerprint: String = "f") throws -> SavedHistory
{
    let data = try HistoryArchive(fingerprint: fingerprint, histories: [name: history]).encoded()
    let archive = try HistoryArchive(decoding: data, registry: hrRegistry())
    let again = try archive.encoded()
    #expect(again == data, "encode → decode → encode changed the bytes")
    return try #require(archive.histories[name])
}

@Suite struct HostileReviewRoundTripTests {
    static let nastyString =
        "ctrl \u{0}\u{1}\u{1F}\u{7F}\t\n\r\u{8}\u{C} \"q\" \\ / // 😀 \u{212A} e\u{301} \u{E9} \u{2028}\u{2029} \u{FEFF}"

    nonisolated(unsafe) static let userInfo: [String: Any] = [
        "s": nastyString,
        "empty string": "",
        "i min": Int.min, "i max": Int.max, "i zero": 0,
        "d 0.1": 0.1, "d -0": -0.0, "d 1e300": 1e300, "d tiny": Double.leastNonzeroMagnitude,
        "d max": Double.greatestFiniteMagnitude,
        "d small": -1.5e-7, "d one": 1.0, "d big": 123456789012345680000.0, "d -1e-300": -1e-300,
        "b true": true, "b false": false,
        "date": Date(timeIntervalSinceReferenceDate: 0.1), "date old": Date(timeIntervalSinceReferenceDate: -1e9 + 0.5),
        "date -0": Date(timeIntervalSinceReferenceDate: -0.0),
        "data": Data([0, 255, 1, 0x22, 0x5C]), "data empty": Data(),
        "": "the empty key",
        "\u{212A}": "the Kelvin sign as a key",
        "key \"with\" \\ / \u{1}": 1,
    ]

    /// A branching history with dates, branches from the root and elsewhere, names, costs, user
    /// info of every kind, discardable steps and a clean state.
    fileprivate static func richTree() -> (ActionStack, HRDoc) {
        let stack = hrStack(.tree)
        let clock = HRClock(786_000_000.1)
        stack.historyClock = { clock.tick() }
        let doc = HRDoc()
        func step(_ value: Int, _ name: String, cost: Int = 0, info: [String: Any] = [:], discardable: Bool = false) {
            stack.beginUndoGrouping()
            if cost > 0 {
                HRCostly(value: value, cost: cost).perform(on: doc, in: stack)
            } else {
                HRSet(value: value).perform(on: doc, in: stack)
            }
            stack.setActionName(name)
            for (key, value) in info { stack.setActionUserInfoValue(value, forKey: .init(rawValue: key)) }
            if discardable { stack.setActionIsDiscardable(true) }
            stack.endUndoGrouping()
        }
        step(1, "One", info: userInfo)  // 1
        step(2, "Two \u{212A}", cost: 3)  // 2
        step(3, "", discardable: true)  // 3
        stack.undo()
        stack.undo()
        step(4, "Four", info: ["d": 0.1])  // 4, from 1: 2-3 a branch
        stack.undo()
        stack.undo()
        step(5, "Five")  // 5, from the root: 1-4 a branch
        stack.markClean()
        step(6, "Six", cost: 2)  // 6
        stack.undo()  // current 5, redo 6
        return (stack, doc)
    }

    @Test func aRichBranchingHistoryRoundTripsByteForByte() throws {
        let (stack, doc) = Self.richTree()
        defer { withExtendedLifetime(doc) {} }
        let saved = try stack.savedHistory()
        let depth = stack.savableDepth
        #expect(depth.undoSteps + depth.redoSteps + depth.branchSteps == saved.steps.count)
        #expect(saved.steps.count == 6)
        let archive = HistoryArchive(
            fingerprint: Self.nastyString, histories: [Self.nastyString: saved, "\u{212A}": saved, "k": saved])
        let data = try archive.encoded()
        let read = try HistoryArchive(decoding: data, registry: hrRegistry())
        #expect(try read.encoded() == data)
        #expect(read.fingerprint == Self.nastyString)
        #expect(Set(read.histories.keys) == [Self.nastyString, "\u{212A}", "k"])
        let history = try #require(read.histories["\u{212A}"])
        #expect(history.rootDate == saved.rootDate)
        #expect(history.rootDate != nil)
        // Every user-info value comes back of its kind, doubles to the same bits.
        let original = try #require(saved.steps.first { $0.actionName == "One" })
        let back = try #require(history.steps.first { $0.actionName == "One" })
        #expect(original.userInfo.count == Self.userInfo.count)
        #expect(back.userInfo.keys.sorted() == original.userInfo.keys.sorted())
        for (key, value) in original.userInfo {
            let other = back.userInfo[key]
            switch (value, other) {
            case (.double(let a), .double(let b)): #expect(a.bitPattern == b.bitPattern, "\(key)")
            case (.date(let a), .date(let b)):
                #expect(
                    a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern, "\(key)"
                )
            default: #expect(other == value, "\(key)")
            }
        }
        for (step, readStep) in zip(saved.steps, history.steps) {
            #expect(step.node == readStep.node)
            #expect(step.parent == readStep.parent)
            #expect(step.isRedoChoice == readStep.isRedoChoice)
            #expect(step.date == readStep.date)
            #expect(step.actionName == readStep.actionName)
            #expect(step.isDiscardable == readStep.isDiscardable)
            #expect(step.actions.map(\.cost) == readStep.actions.map(\.cost))
            #expect(step.actions.map(\.key) == readStep.actions.map(\.key))
        }
    }

    @Test func aRestoredBranchingHistoryAgreesEverywhere() throws {
        let (stack, doc) = Self.richTree()
        let history = try hrRoundTrip(try stack.savedHistory())
        let fresh = hrStack(.tree)
        let copy = HRDoc("doc", doc.value)
        let report = try fresh.restoreHistory(history) { $0 == "doc" ? copy : nil }
        #expect(report.restoredSteps == 6)
        #expect(report.droppedSteps == 0)
        #expect(report.restoredCleanState)
        #expect(HRTreeShape(fresh) == HRTreeShape(stack))
        #expect(HRSnapshot(fresh) == HRSnapshot(stack))
        // Every node, reached in both.
        let nodes = try #require(stack.historyTree).nodes.map(\.id)
        for node in nodes + nodes.reversed() {
            try stack.jump(toNode: node)
            try fresh.jump(toNode: node)
            #expect(doc.value == copy.value, "at \(node)")
            #expect(HRSnapshot(fresh) == HRSnapshot(stack), "at \(node)")
            #expect(HRTreeShape(fresh) == HRTreeShape(stack), "at \(node)")
        }
        // The user info as the stack hands it back.
        try stack.jump(toNode: .init(sequence: 1))
        try fresh.jump(toNode: .init(sequence: 1))
        #expect(fresh.undoActionUserInfoValue(forKey: "d -0") as? Double == -0.0)
        #expect((fresh.undoActionUserInfoValue(forKey: "d -0") as? Double)?.sign == .minus)
        #expect(fresh.undoActionUserInfoValue(forKey: "s") as? String == Self.nastyString)
        #expect(fresh.undoActionUserInfoValue(forKey: "i min") as? Int == Int.min)
        #expect(fresh.undoActionUserInfoValue(forKey: "data") as? Data == Data([0, 255, 1, 0x22, 0x5C]))
    }

    /// Steps 1...4, the clean state at `clean` (nil: never marked, so at the start), the document
    /// at `current`.
    fileprivate static func linear(_ shape: ActionStack.HistoryShape, clean: Int?, current: Int) -> (ActionStack, HRDoc)
    {
        let stack = hrStack(shape)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "A")
        hrChange(doc, to: 2, on: stack, name: "B")
        hrChange(doc, to: 3, on: stack, name: "C")
        hrChange(doc, to: 4, on: stack, name: "D")
        if let clean {
            stack.jump(to: clean)
            stack.markClean()
        }
        stack.jump(to: current)
        return (stack, doc)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func theCleanStateComesBackExactlyWhereverItAndTheDocumentAre(_ shape: ActionStack.HistoryShape) throws {
        for clean in [nil, 0, 1, 2, 3, 4] as [Int?] {
            for current in 0...4 {
                let (stack, doc) = Self.linear(shape, clean: clean, current: current)
                let history = try hrRoundTrip(try stack.savedHistory())
                let fresh = hrStack(shape)
                let copy = HRDoc("doc", doc.value)
                let report = try fresh.restoreHistory(history) { $0 == "doc" ? copy : nil }
                let place = "clean \(String(describing: clean)), saved at \(current)"
                #expect(report.restoredSteps == 4, "\(place): \(report)")
                // Never marked: a new stack is clean at its start.
                #expect(report.restoredCleanState, "\(place)")
                for position in [0, 1, 2, 3, 4, 2, 0, 4] {
                    stack.jump(to: position)
                    fresh.jump(to: position)
                    #expect(HRSnapshot(fresh) == HRSnapshot(stack), "\(place), at \(position)")
                    #expect(doc.value == copy.value)
                }
            }
        }
    }

    @Test func linearRootOfACutHistoryAndCostsComeBack() throws {
        // A closure step below three command steps: the saved part starts above it.
        let stack = hrStack()
        let doc = HRDoc()
        hrClosureChange(doc, to: 1, on: stack)
        stack.beginUndoGrouping()
        HRCostly(value: 2, cost: 5).perform(on: doc, in: stack)
        HRCostly(value: 3, cost: 0).perform(on: doc, in: stack)
        HRCostly(value: 4, cost: 9).perform(on: doc, in: stack)
        stack.endUndoGrouping()
        hrChange(doc, to: 5, on: stack)
        stack.markClean()
        stack.undo()
        let saved = try stack.savedHistory()
        #expect(saved.root == 1)
        #expect(saved.steps.count == 2)
        let history = try hrRoundTrip(saved)
        #expect(history.steps[0].actions.map(\.cost) == [5, 0, 9])
        let fresh = hrStack()
        fresh.maximumCost = 100
        let copy = HRDoc("doc", doc.value)
        try fresh.restoreHistory(history) { $0 == "doc" ? copy : nil }
        #expect(fresh.undoCount == 1 && fresh.redoCount == 1)
        #expect(!fresh.isClean)
        fresh.redo()
        #expect(fresh.isClean)
        fresh.undo()
        fresh.undo()
        #expect(copy.value == 1)
    }
}

// MARK: - Restore semantics

/// Five command steps on "doc" (values 1...5), the clean state at `clean`, the document at
/// `current`; the history saved.
private func hrFive(clean: Int? = nil, current: Int = 5, shape: ActionStack.HistoryShape = .linear) throws -> (
    SavedHistory, value: Int
) {
    let stack = hrStack(shape)
    let doc = HRDoc()
    for value in 1...5 { hrChange(doc, to: value, on: stack, name: "S\(value)") }
    if let clean {
        stack.jump(to: clean)
        stack.markClean()
    }
    stack.jump(to: current)
    return (try stack.savedHistory(), doc.value)
}

private struct HRCut: Equatable, CustomStringConvertible {
    var node: Int
    var reason: ActionStack.RestoreReport.Reason
    var dropped: Int
    init(_ node: Int, _ reason: ActionStack.RestoreReport.Reason, _ dropped: Int) {
        self.node = node
        self.reason = reason
        self.dropped = dropped
    }
    var description: String { "node \(node): \(reason), \(dropped)" }
}

/// A report's cuts, by node.
private func hrCuts(_ report: ActionStack.RestoreReport) -> [HRCut] {
    report.cuts.map { HRCut($0.node, $0.reason, $0.droppedSteps) }.sorted { $0.node < $1.node }
}

@Suite struct HostileReviewRestoreTests {
    @Test func aStackThatIsNotEmptyIsLeftExactlyAsItWas() throws {
        let (saved, _) = try hrFive()
        let stack = hrStack()
        let doc = HRDoc()
        hrChange(doc, to: 7, on: stack, name: "Mine")
        stack.undo()  // only a redo step
        let before = HRSnapshot(stack)
        var resolved = 0
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try stack.restoreHistory(saved) { _ in
                resolved += 1
                return doc
            }
        }
        #expect(resolved == 0)
        #expect(HRSnapshot(stack) == before)
        stack.redo()
        #expect(doc.value == 7)
        // An open empty group counts too.
        let open = hrStack()
        open.beginUndoGrouping()
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try open.restoreHistory(saved) { _ in doc }
        }
        #expect(open.groupingLevel == 1)
        open.endUndoGrouping()
    }

    @Test func aSecondRestoreIsAMisuseAndChangesNothing() throws {
        let (saved, value) = try hrFive(current: 3)
        let stack = hrStack()
        let doc = HRDoc("doc", value)
        try stack.restoreHistory(saved) { _ in doc }
        let before = HRSnapshot(stack)
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try stack.restoreHistory(saved) { _ in doc }
        }
        #expect(HRSnapshot(stack) == before)
    }

    @Test func restoringFromAHandlerOrAnObserverIsAMisuseAndChangesNothing() throws {
        let (saved, _) = try hrFive()
        let stack = hrStack()
        let doc = HRDoc()
        var fromHandler: (any Error)?
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: doc) { _ in
            do { try stack.restoreHistory(saved) { _ in doc } } catch { fromHandler = error }
        }
        stack.endUndoGrouping()
        stack.undo()
        #expect(
            (fromHandler as? ActionStack.HistoryPersistenceError).map {
                $0.misuse != nil
            } == true, "\(String(describing: fromHandler))")
        #expect(stack.undoCount == 0)
        // From an observer of the undo notification.
        nonisolated(unsafe) let watched = hrStack()
        nonisolated(unsafe) let unsafeDoc = doc
        hrChange(doc, to: 1, on: watched)
        nonisolated(unsafe) var fromObserver: (any Error)?
        let token = NotificationCenter.default.addObserver(
            forName: ActionStack.didUndoChangeNotification, object: watched, queue: nil
        ) { _ in
            do { try watched.restoreHistory(saved) { _ in unsafeDoc } } catch { fromObserver = error }
        }
        watched.undo()
        NotificationCenter.default.removeObserver(token)
        #expect(fromObserver != nil)
        #expect(watched.undoCount == 0 && watched.redoCount == 1)
    }

    @Test func aResolverThatChangesTheStackMakesTheRestoreAMisuse() throws {
        let (saved, value) = try hrFive()
        let stack = hrStack()
        let doc = HRDoc("doc", value)
        let other = HRDoc("other")
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try stack.restoreHistory(saved) { key in
                if stack.undoCount == 0 { hrChange(other, to: 9, on: stack, name: "Resolver") }
                return doc
            }
        }
        // Nothing of the saved history; the resolver's own change stays.
        #expect(stack.undoEntries.map(\.actionName) == ["Resolver"])
        #expect(stack.redoCount == 0)
        // A resolver that restores into the same stack: the outer restore is the misuse.
        let twice = hrStack()
        let (inner, _) = try hrFive(current: 2)
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try twice.restoreHistory(saved) { _ in
                if twice.undoCount == 0 { _ = try? twice.restoreHistory(inner) { _ in doc } }
                return doc
            }
        }
        #expect(twice.undoCount == 2 && twice.redoCount == 3)
    }

    @Test func aMalformedHistoryIsRefusedBeforeTheResolverRuns() throws {
        var (saved, _) = try hrFive()
        saved.steps[2].parent = 9
        let stack = hrStack()
        var calls = 0
        #expect {
            try stack.restoreHistory(saved) { _ in
                calls += 1
                return nil
            }
        } throws: { error in
            if (error as? ActionStack.HistoryPersistenceError)?.malformation != nil { return true }
            return false
        }
        #expect(calls == 0)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        // And in a branching stack.
        let tree = hrStack(.tree)
        #expect(throws: (any Error).self) { try tree.restoreHistory(saved) { _ in nil } }
        #expect(tree.historyTree?.nodes.count == 1)
    }

    @Test func theResolverIsAskedOncePerKeyAndAWrongClassCuts() throws {
        let stack = hrStack()
        let a = HRDoc("a")
        let b = HRDoc("b")
        for value in 1...3 {
            hrChange(a, to: value, on: stack)
            hrChange(b, to: value, on: stack)
        }
        stack.jump(to: 3)
        let saved = try hrRoundTrip(try stack.savedHistory())
        var asked: [String] = []
        let fresh = hrStack()
        let copyA = HRDoc("a", a.value)
        let stranger = HRStranger()
        let report = try fresh.restoreHistory(saved) { key in
            asked.append(key)
            return key == "a" ? copyA : stranger
        }
        #expect(asked.sorted() == ["a", "b"])
        // b's steps are the wrong class: the nearest on each side cuts.
        #expect(report.cuts.count == 2)
        #expect(
            report.cuts.allSatisfy {
                if case .wrongTargetType(key: "b", commandType: "hr.set") = $0.reason { true } else { false }
            })
        #expect(report.restoredSteps + report.droppedSteps == 6)
        #expect(fresh.undoCount + fresh.redoCount == report.restoredSteps)
    }

    @Test func cutsOnBothSidesAreReportedAndTheCleanStateNeverMoves() throws {
        for clean in 0...5 {
            var (saved, value) = try hrFive(clean: clean, current: 3)
            // Step 2 (undo side, the second nearest) has a key no one resolves; step 5 (redo
            // side, the second nearest) a type no one knows.
            saved.steps[1].actions[0].key = "ghost"
            saved.steps[4].actions[0] = SavedAction(
                commandType: "hr.future", version: 1, key: "doc", cost: 0, problem: .unknownType("hr.future"))
            let fresh = hrStack()
            let doc = HRDoc("doc", value)
            let report = try fresh.restoreHistory(saved) { $0 == "doc" ? doc : nil }
            #expect(report.restoredSteps == 2, "clean \(clean): \(report)")
            #expect(report.droppedSteps == 3)
            #expect(
                hrCuts(report) == [
                    HRCut(2, .unresolvedKey("ghost"), 2), HRCut(5, .command(.unknownType("hr.future")), 1),
                ], "\(report)")
            // Nodes 2, 3 and 4 are kept (node 2 as the new root).
            let kept = (2...4).contains(clean)
            #expect(report.restoredCleanState == kept, "clean \(clean)")
            // Walk the restored part: clean exactly at the saved clean node, nowhere else.
            fresh.jump(to: 0)
            var seen: [Bool] = []
            for position in 0...2 {
                fresh.jump(to: position)
                seen.append(fresh.isClean)
            }
            #expect(seen == (2...4).map { $0 == clean }, "clean \(clean)")
        }
    }

    @Test func aCleanStateMarkedInsideAStepIsSavedAsNone() throws {
        let stack = hrStack()
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack)
        stack.beginUndoGrouping()
        HRSet(value: 2).perform(on: doc, in: stack)
        stack.markClean()
        HRSet(value: 3).perform(on: doc, in: stack)
        stack.endUndoGrouping()
        let saved = try stack.savedHistory()
        #expect(saved.clean == nil)
        let fresh = hrStack()
        let report = try fresh.restoreHistory(try hrRoundTrip(saved)) { _ in HRDoc("doc", 3) }
        #expect(!report.restoredCleanState)
        for position in [2, 1, 0, 2] {
            fresh.jump(to: position)
            stack.jump(to: position)
            #expect(fresh.isClean == stack.isClean, "at \(position)")
        }
    }

    @Test func oneStateUpdateAndNoUndoOrRedoNotification() throws {
        let (saved, value) = try hrFive(clean: 2, current: 3)
        let stack = hrStack()
        var updates = 0
        let token = stack.observe { _ in updates += 1 }
        nonisolated(unsafe) var posted: [Notification.Name] = []
        let names: [Notification.Name] = [
            ActionStack.willUndoChangeNotification, ActionStack.didUndoChangeNotification,
            ActionStack.willRedoChangeNotification, ActionStack.didRedoChangeNotification,
        ]
        let observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) { posted.append($0.name) }
        }
        let doc = HRDoc("doc", value)
        try stack.restoreHistory(saved) { _ in doc }
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        #expect(updates == 1)
        #expect(posted.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func theLimitsApplyAfterwardsNearestKept() throws {
        let (saved, value) = try hrFive(current: 4)
        let stack = hrStack()
        stack.levelsOfUndo = 2
        let doc = HRDoc("doc", value)
        var updates = 0
        let token = stack.observe { _ in updates += 1 }
        let report = try stack.restoreHistory(saved) { _ in doc }
        withExtendedLifetime(token) {}
        #expect(updates == 1)
        #expect(report.restoredSteps == 5)
        #expect(report.trimmedSteps == 2)
        #expect(stack.undoEntries.map(\.actionName) == ["S4", "S3"])
        #expect(stack.redoEntries.map(\.actionName) == ["S5"])
        // maximumCost, in a branching stack.
        let costly = hrStack(.tree)
        let target = HRDoc()
        for value in 1...4 {
            costly.beginUndoGrouping()
            HRCostly(value: value, cost: 10).perform(on: target, in: costly)
            costly.endUndoGrouping()
        }
        let history = try hrRoundTrip(try costly.savedHistory())
        let limited = hrStack(.tree)
        limited.maximumCost = 25
        let copy = HRDoc("doc", target.value)
        let limitedReport = try limited.restoreHistory(history) { _ in copy }
        #expect(limitedReport.trimmedSteps == 2)
        #expect(limited.undoCount == 2)
    }

    @Test func aRestoredStepDoesNotCoalesce() throws {
        func keystroke(_ doc: HRDoc, _ value: Int, on stack: ActionStack) {
            stack.registerUndo(HRTyping(value: doc.value), on: doc, key: "doc", options: .coalescing("typing"))
            doc.value = value
            stack.endEvent()
        }
        let stack = ActionStack()
        let doc = HRDoc()
        keystroke(doc, 1, on: stack)
        keystroke(doc, 2, on: stack)
        #expect(stack.undoCount == 1)
        let saved = try hrRoundTrip(try stack.savedHistory())
        let fresh = ActionStack()
        let copy = HRDoc("doc", doc.value)
        try fresh.restoreHistory(saved) { _ in copy }
        keystroke(copy, 3, on: fresh)
        #expect(fresh.undoCount == 2)
    }

    @Test func aBranchingHistoryCutOnTheCurrentPathDropsWhatHangsAboveTheCut() throws {
        // 0 → 1 → 2 → 3 (current), with a branch 4 from node 1 and a branch 5 from the root.
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "1")
        hrChange(doc, to: 2, on: stack, name: "2")
        hrChange(doc, to: 3, on: stack, name: "3")
        try stack.jump(toNode: .init(sequence: 1))
        hrChange(doc, to: 4, on: stack, name: "4")
        try stack.jump(toNode: .init(sequence: 0))
        hrChange(doc, to: 5, on: stack, name: "5")
        try stack.jump(toNode: .init(sequence: 3))
        var saved = try stack.savedHistory()
        #expect(saved.steps.count == 5)
        // The step to node 2 cannot come back: node 2 becomes the root; 1, 4 and 5 go with it.
        let index = try #require(saved.steps.firstIndex { $0.node == 2 })
        saved.steps[index].actions[0].key = "ghost"
        let fresh = hrStack(.tree)
        let copy = HRDoc("doc", doc.value)
        let report = try fresh.restoreHistory(try hrRoundTrip(saved)) { $0 == "doc" ? copy : nil }
        #expect(hrCuts(report) == [HRCut(2, .unresolvedKey("ghost"), 4)])
        #expect(report.restoredSteps == 1)
        let tree = try #require(fresh.historyTree)
        #expect(tree.root.sequence == 2)
        #expect(tree.nodes.map(\.sequence) == [2, 3])
        // The new root's date is the date of the change that led to it.
        let originalTwo = try #require(stack.historyTree?[.init(sequence: 2)])
        #expect(tree.nodes[0].date == originalTwo.date)
    }

    @Test func aBranchingHistoryRestoredIntoALinearStackKeepsTheCurrentPath() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "1")
        hrChange(doc, to: 2, on: stack, name: "2")
        stack.undo()
        hrChange(doc, to: 3, on: stack, name: "3")  // 2 is a branch from 1
        hrChange(doc, to: 4, on: stack, name: "4")
        stack.undo()  // current 3, redo 4
        let saved = try hrRoundTrip(try stack.savedHistory())
        let fresh = hrStack()
        let copy = HRDoc("doc", doc.value)
        let report = try fresh.restoreHistory(saved) { _ in copy }
        #expect(hrCuts(report) == [HRCut(2, .branchInLinearHistory, 1)])
        #expect(fresh.undoEntries.map(\.actionName) == ["3", "1"])
        #expect(fresh.redoEntries.map(\.actionName) == ["4"])
    }

    @Test func aLinearHistoryWithAHugeRootIsRefusedByTheOneLimitOnNodes() throws {
        // Node numbers above `SavedHistory.maximumNode` are refused whatever the shape (one limit
        // for the reader, the writer and the restore; see SavedHistoryNodeLimitTests).
        let json = hrV2(
            #"{"shape":"linear","root":9223372036854775805,"current":9223372036854775806,"commands":[["hr.set",1,"doc"]],"steps":[1,1],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#
        )
        #expect(hrError(json) == .invalidHistory("h", .nodeOutOfRange(9_223_372_036_854_775_805)))
    }
}

// MARK: - Commands

/// Checks that savableDepth, the entries' canBeSaved and savedHistory agree.
private func hrAgree(_ stack: ActionStack, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation)
    throws
{
    let depth = stack.savableDepth
    let saved = try stack.savedHistory()
    #expect(
        depth.undoSteps + depth.redoSteps + depth.branchSteps == saved.steps.count, comment,
        sourceLocation: sourceLocation)
    // The undo entries are savable up to the depth, and the first one beyond it is not.
    let undo = stack.undoEntries.filter { !$0.isOpen }
    let redo = stack.redoEntries
    let undoSavable = undo.prefix(depth.undoSteps).allSatisfy { $0.canBeSaved }
    let redoSavable = redo.prefix(depth.redoSteps).allSatisfy { $0.canBeSaved }
    #expect(undoSavable, comment, sourceLocation: sourceLocation)
    #expect(redoSavable, comment, sourceLocation: sourceLocation)
    if depth.undoSteps < undo.count {
        #expect(!undo[depth.undoSteps].canBeSaved, comment, sourceLocation: sourceLocation)
    }
    if depth.redoSteps < redo.count {
        #expect(!redo[depth.redoSteps].canBeSaved, comment, sourceLocation: sourceLocation)
    }
    // Saved steps are as many undo steps as the depth says.
    if stack.historyShape == .linear {
        #expect(saved.current - saved.root == depth.undoSteps, comment, sourceLocation: sourceLocation)
    }
}

@Suite struct HostileReviewCommandTests {
    @Test func aStepThatMixesACommandAndAClosureIsABarrier() throws {
        let stack = hrStack()
        let doc = HRDoc()
        let other = HRDoc("other")
        hrChange(doc, to: 1, on: stack, name: "A")
        stack.beginUndoGrouping()
        HRSet(value: 2).perform(on: doc, in: stack)
        let old = other.value
        stack.registerUndo(withTarget: other) { $0.value = old }
        other.value = 2
        stack.setActionName("Mixed")
        stack.endUndoGrouping()
        hrChange(doc, to: 3, on: stack, name: "C")
        #expect(stack.undoEntries.map(\.canBeSaved) == [true, false, true])
        try hrAgree(stack)
        #expect(try stack.savedHistory().steps.map(\.actionName) == ["C"])
        stack.undo()
        stack.undo()  // the mixed step; its closure re-registers nothing
        try hrAgree(stack)
        stack.undo()
        try hrAgree(stack)
    }

    @Test(arguments: [true, false])
    func aCommandAndAClosureThatCoalesceMakeAStepThatCannotBeSaved(commandFirst: Bool) throws {
        let stack = ActionStack()
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "Before")
        stack.endEvent()
        func command(_ value: Int) {
            stack.registerUndo(HRTyping(value: doc.value), on: doc, key: "doc", options: .coalescing("typing"))
            doc.value = value
            stack.endEvent()
        }
        func closure(_ value: Int) {
            let old = doc.value
            stack.registerUndo(withTarget: doc, options: .coalescing("typing")) { $0.value = old }
            doc.value = value
            stack.endEvent()
        }
        if commandFirst {
            command(2)
            closure(3)
        } else {
            closure(2)
            command(3)
        }
        #expect(stack.undoCount == 2)
        #expect(stack.undoEntries.first?.actionCount == 2)
        #expect(stack.undoEntries.first?.canBeSaved == false)
        try hrAgree(stack)
        #expect(try stack.savedHistory().steps.isEmpty)
    }

    @Test func commandsThatCoalesceRestoreAsOneStep() throws {
        let stack = ActionStack()
        let doc = HRDoc()
        for value in 1...3 {
            stack.registerUndo(HRTyping(value: doc.value), on: doc, key: "doc", options: .coalescing("typing"))
            doc.value = value
            stack.endEvent()
        }
        #expect(stack.undoCount == 1)
        try hrAgree(stack)
        let fresh = ActionStack()
        let copy = HRDoc("doc", 3)
        try fresh.restoreHistory(try hrRoundTrip(try stack.savedHistory())) { _ in copy }
        fresh.undo()
        #expect(copy.value == 0)
        fresh.redo()
        #expect(copy.value == 3)
    }

    @Test func freedTargetsAreLeftOutEverywhereAlike() throws {
        let stack = hrStack()
        let keep = HRDoc("keep")
        var gone: HRDoc? = HRDoc("gone")
        hrChange(keep, to: 1, on: stack, name: "Keep")
        stack.beginUndoGrouping()
        HRSet(value: 2).perform(on: keep, in: stack)
        HRSet(value: 2).perform(on: gone!, in: stack)
        stack.setActionName("Both")
        stack.endUndoGrouping()
        hrChange(gone!, to: 3, on: stack, name: "Gone only")
        // A closure on a freed target does not block either.
        stack.beginUndoGrouping()
        HRSet(value: 4).perform(on: keep, in: stack)
        stack.registerUndo(withTarget: gone!) { _ in }
        stack.setActionName("Closure on the freed one")
        stack.endUndoGrouping()
        gone = nil
        // Read from an undo observer, before the stack sweeps.
        let watched = stack
        var depthDuringUndo: ActionStack.SavableDepth?
        var entriesDuringUndo: [Bool] = []
        let token = stack.observe { _ in
            if depthDuringUndo == nil {
                depthDuringUndo = watched.savableDepth
                entriesDuringUndo = watched.undoEntries.map(\.canBeSaved) + watched.redoEntries.map(\.canBeSaved)
            }
        }
        stack.undo()
        withExtendedLifetime(token) {}
        let saved = try stack.savedHistory()
        #expect(depthDuringUndo == stack.savableDepth)
        #expect(entriesDuringUndo == stack.undoEntries.map(\.canBeSaved) + stack.redoEntries.map(\.canBeSaved))
        try hrAgree(stack)
        #expect(saved.steps.map(\.actionName) == ["Keep", "Both", "Closure on the freed one"])
        #expect(saved.steps.map(\.actions.count) == [1, 1, 1])
        #expect(saved.steps.allSatisfy { $0.actions.allSatisfy { $0.key == "keep" } })
    }

    @Test func aBranchingHistoryAgreesWithBranchesFromTheRootAndAClosureInABranch() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "1")
        hrChange(doc, to: 2, on: stack, name: "2")
        try stack.jump(toNode: .init(sequence: 0))
        hrChange(doc, to: 3, on: stack, name: "3")  // from the root
        hrClosureChange(doc, to: 4, on: stack, name: "4 closure")
        hrChange(doc, to: 5, on: stack, name: "5")
        try stack.jump(toNode: .init(sequence: 0))
        hrChange(doc, to: 6, on: stack, name: "6")  // from the root again
        try hrAgree(stack)
        let depth = stack.savableDepth
        #expect(depth.undoSteps == 1)
        // 1, 2 and 3 are savable branch steps; 4 blocks 5.
        #expect(depth.branchSteps == 3, "\(depth)")
        // With a group open: the closed steps.
        stack.beginUndoGrouping()
        HRSet(value: 7).perform(on: doc, in: stack)
        #expect(stack.savableDepth == depth)
        #expect(stack.undoEntries.first?.isOpen == true)
        #expect(stack.undoEntries.first?.canBeSaved == false)
        #expect(throws: ActionStack.HistoryPersistenceError.groupIsOpen) { try stack.savedHistory() }
        stack.endUndoGrouping()
        try hrAgree(stack)
        // At every node.
        for node in try #require(stack.historyTree).nodes.map(\.id) {
            try stack.jump(toNode: node)
            try hrAgree(stack, "at \(node)")
            let saved = try stack.savedHistory()
            let fresh = hrStack(.tree)
            let copy = HRDoc("doc", doc.value)
            let report = try fresh.restoreHistory(try hrRoundTrip(saved)) { _ in copy }
            #expect(report.droppedSteps == 0)
            #expect(report.restoredSteps == saved.steps.count)
        }
    }

    @Test func maximumStepsKeepsTheNearestUndoThenRedoThenBranches() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        for value in 1...4 { hrChange(doc, to: value, on: stack, name: "\(value)") }
        try stack.jump(toNode: .init(sequence: 2))
        hrChange(doc, to: 5, on: stack, name: "5")  // from 2: 3-4 a branch
        stack.undo()  // current 2; redo 5, branch 3-4
        #expect(try stack.savedHistory(maximumSteps: 1).steps.map(\.actionName) == ["2"])
        #expect(try stack.savedHistory(maximumSteps: 2).steps.map(\.actionName).sorted() == ["2", "5"])
        #expect(try stack.savedHistory(maximumSteps: 3).steps.map(\.actionName).sorted() == ["2", "3", "5"])
        #expect(try stack.savedHistory(maximumSteps: 4).steps.map(\.actionName).sorted() == ["1", "2", "3", "5"])
        #expect(try stack.savedHistory(maximumSteps: 0).steps.isEmpty)
        #expect(try stack.savedHistory(maximumSteps: -5).steps.isEmpty)
        for limit in 0...6 {
            let saved = try stack.savedHistory(maximumSteps: limit)
            #expect(throws: Never.self) { try saved.validate() }
            let fresh = hrStack(.tree)
            let copy = HRDoc("doc", doc.value)
            let report = try fresh.restoreHistory(try hrRoundTrip(saved)) { _ in copy }
            #expect(report.restoredSteps == min(limit, 5))
        }
    }

    @Test @MainActor func anAsyncCommandIsSavedRestoredAndRollsBackWhenItThrows() async throws {
        let stack = hrStack()
        let doc = HRDoc()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HRAsyncSet(value: doc.value, fails: false), on: doc, key: "doc")
        doc.value = 1
        stack.setActionName("Write")
        stack.endUndoGrouping()
        hrChange(doc, to: 2, on: stack, name: "Sync")
        try hrAgree(stack)
        let saved = try hrRoundTrip(try stack.savedHistory())
        #expect(saved.steps.count == 2)
        let fresh = hrStack()
        let copy = HRDoc("doc", 2)
        try fresh.restoreHistory(saved) { _ in copy }
        try await fresh.performUndo()
        try await fresh.performUndo()
        #expect(copy.value == 0)
        try await fresh.performRedo()
        #expect(copy.value == 1)
        try hrAgree(fresh)
        // A command that throws after a restore: its step rolls back and stays.
        let failing = hrStack()
        let target = HRDoc()
        failing.beginUndoGrouping()
        failing.registerAsyncUndo(HRAsyncSet(value: 0, fails: true), on: target, key: "doc")
        target.value = 1
        failing.endUndoGrouping()
        let again = hrStack()
        let copy2 = HRDoc("doc", 1)
        try again.restoreHistory(try hrRoundTrip(try failing.savedHistory())) { _ in copy2 }
        await #expect(throws: (any Error).self) { try await again.performUndo() }
        #expect(copy2.value == 1)
        #expect(again.undoCount == 1)
        #expect(again.brokenStep == nil)
    }

    @Test func aResolverThatReturnsAnotherClassForAnAsyncCommandCuts() throws {
        let stack = hrStack()
        let doc = HRDoc()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HRAsyncSet(value: 0, fails: false), on: doc, key: "doc")
        stack.endUndoGrouping()
        let fresh = hrStack()
        let stranger = HRStranger()
        let report = try fresh.restoreHistory(try hrRoundTrip(try stack.savedHistory())) { _ in stranger }
        #expect(hrCuts(report) == [HRCut(1, .wrongTargetType(key: "doc", commandType: "hr.async"), 1)])
        #expect(fresh.undoCount == 0)
    }
}

// MARK: - Recorder, journal and file store

private func hrTemporaryURL(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("hostile-review-\(name)-\(UUID().uuidString)")
}

@Suite struct HostileReviewRecorderTests {
    @Test func everyChangeIsRecordedOnceAndQueriesAreNot() throws {
        let url = hrTemporaryURL("once.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack(.tree)
        let doc = HRDoc()
        let other = HRDoc("other")
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        var expected = 0
        func changed(_ what: String, _ body: () throws -> Void) rethrows {
            try body()
            expected += 1
            #expect(recorder.recordCount == expected, "\(what)")
        }
        func query(_ what: String, _ body: () throws -> Void) rethrows {
            try body()
            #expect(recorder.recordCount == expected, "\(what) was recorded")
        }
        changed("a step") { hrChange(doc, to: 1, on: stack) }
        changed("a second step") { hrChange(doc, to: 2, on: stack) }
        changed("a step on another target") { hrChange(other, to: 1, on: stack) }
        changed("an undo") { stack.undo() }
        changed("a redo") { stack.redo() }
        changed("a clean mark") { stack.markClean() }
        try changed("a jump") { try stack.jump(toNode: .init(sequence: 1)) }
        changed("a branch") { hrChange(doc, to: 5, on: stack) }
        changed("a removal") { stack.removeAllActions(withTarget: other) }
        changed("a trim") { stack.levelsOfUndo = 1 }
        try query("queries") {
            _ = stack.canUndo
            _ = stack.canRedo
            _ = stack.undoMenuItemTitle
            _ = stack.undoEntries
            _ = stack.redoEntries
            _ = stack.savableDepth
            _ = stack.historyTree
            _ = stack.isClean
            _ = stack.state
            _ = try stack.savedHistory()
            _ = stack.redoBranches
        }
        query("an undo with nothing to undo") {
            stack.levelsOfUndo = 0
            while stack.canUndo { stack.undo() }
            expected = recorder.recordCount
            stack.undo()
        }
        #expect(recorder.lastError == nil)
        let records = try journal.records()
        #expect(records.count == recorder.recordCount)
        // No two records in a row are the same.
        for (a, b) in zip(records, records.dropFirst()) { #expect(a.payload != b.payload) }
    }

    @Test func recoveryPicksTheLastRecordOfTheFingerprint() throws {
        let url = hrTemporaryURL("recover.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(doc.value)" }
        for value in 1...4 { hrChange(doc, to: value, on: stack) }
        stack.undo()
        stack.undo()  // v2, with two redo steps: recorded under "v2" twice
        stack.redo()
        #expect(recorder.recordCount == 7)
        let archive = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: "v2", registry: hrRegistry()))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        #expect(history.current == 2)
        #expect(history.steps.count == 4)
        #expect(try HistoryRecorder.recover(from: journal, fingerprint: "v9", registry: hrRegistry()) == nil)
        let fresh = hrStack()
        let copy = HRDoc("doc", 2)
        try fresh.restoreHistory(history) { _ in copy }
        fresh.redo()
        fresh.redo()
        #expect(copy.value == 4)
    }

    @Test func fingerprintsAreComparedAsTheAppGaveThem() throws {
        // A fingerprint is "the app's hash or revision of the document". Two fingerprints that
        // differ in their bytes are two documents; a record of one is not the history of the other.
        let url = hrTemporaryURL("fingerprint.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        try journal.append(Data("nfc".utf8), fingerprint: "caf\u{E9}")
        let found = try journal.lastRecord(matchingFingerprint: "cafe\u{301}")
        #expect(found == nil)
        #expect(try journal.lastRecord(matchingFingerprint: "caf\u{E9}")?.payload == Data("nfc".utf8))
    }

    @Test func aRecordThatCannotBeWrittenChangesNoStackAndIsRetried() throws {
        let directory = hrTemporaryURL("blocked")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("history.journal")
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        var errors = 0
        recorder.onError = { _ in errors += 1 }
        hrChange(doc, to: 1, on: stack)
        #expect(recorder.recordCount == 1)
        // Replaced behind its back by a file that is not a journal.
        try Data("not a journal at all".utf8).write(to: url)
        hrChange(doc, to: 2, on: stack)
        #expect(errors == 1)
        #expect(recorder.lastError is HistoryFileError)
        #expect(stack.undoCount == 2)
        #expect(doc.value == 2)
        #expect(try Data(contentsOf: url) == Data("not a journal at all".utf8))
        // Deleted: the next change starts a new journal.
        try FileManager.default.removeItem(at: url)
        hrChange(doc, to: 3, on: stack)
        #expect(recorder.lastError == nil)
        #expect(try journal.records().map(\.sequence) == [0])
        #expect(try journal.records().last?.fingerprint == "3")
    }

    @Test func damageBehindTheJournalsBackIsFoundAndOverwritten() throws {
        let url = hrTemporaryURL("damage.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        for index in 0..<4 { try journal.append(Data("record \(index)".utf8), fingerprint: "f\(index)") }
        var bytes = try Data(contentsOf: url)
        let size = bytes.count
        // A byte changed in the second record, keeping the size.
        let recordSize = (size - 16) / 4
        bytes[16 + recordSize + 26] ^= 0xFF
        try bytes.write(to: url)
        let replay = try journal.replay()
        #expect(replay.records.count == 1)
        if let offset = replay.ending.offset, let dropped = replay.ending.droppedBytes {
            #expect(offset == 16 + recordSize)
            #expect(dropped == size - offset)
        } else {
            Issue.record("\(replay.ending)")
        }
        try journal.append(Data("after damage".utf8), fingerprint: "g")
        let after = try journal.records()
        #expect(after.map(\.sequence) == [0, 1])
        #expect(after.last?.payload == Data("after damage".utf8))
        // Cut short behind its back, without a replay in between.
        try journal.append(Data("one more".utf8), fingerprint: "h")
        var cut = try Data(contentsOf: url)
        cut.removeLast(5)
        try cut.write(to: url)
        try journal.append(Data("after the cut".utf8), fingerprint: "i")
        #expect(
            try journal.records().map(\.payload) == [
                Data("record 0".utf8), Data("after damage".utf8), Data("after the cut".utf8),
            ])
        // Cut to less than its header.
        try Data(try Data(contentsOf: url).prefix(3)).write(to: url)
        try journal.append(Data("fresh".utf8), fingerprint: "j")
        #expect(try journal.records().map(\.payload) == [Data("fresh".utf8)])
        // Another journal appends: this one follows its records.
        let second = HistoryJournal(url: url, synchronizesAppends: false)
        try second.append(Data("from the second".utf8), fingerprint: "k")
        try journal.append(Data("from the first".utf8), fingerprint: "l")
        #expect(try journal.records().map(\.sequence) == [0, 1, 2])
        // Garbage appended behind its back: a torn end, overwritten.
        var garbage = try Data(contentsOf: url)
        garbage += Data(repeating: 0x41, count: 40)
        try garbage.write(to: url)
        try journal.append(Data("last".utf8), fingerprint: "m")
        let final = try journal.replay()
        #expect(final.ending == .complete)
        #expect(final.records.map(\.sequence) == [0, 1, 2, 3])
    }

    @Test func theFileStoreRefusesWhatItShouldAndKeepsTheOldFile() throws {
        let url = hrTemporaryURL("store.history")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = HistoryFileStore(url: url, maximumSize: 64)
        #expect(try store.read() == nil)
        try store.write(Data("first".utf8))
        #expect(throws: HistoryFileError.self) { try store.write(Data(repeating: 1, count: 65)) }
        #expect(try store.read() == Data("first".utf8))
        try Data(repeating: 2, count: 65).write(to: url)
        #expect(throws: HistoryFileError.self) { try store.read() }
        try store.remove()
        try store.remove()
        #expect(try store.read() == nil)
        let directory = hrTemporaryURL("store-directory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: HistoryFileError.self) { try HistoryFileStore(url: directory).read() }
        #expect(throws: HistoryFileError.self) {
            try HistoryFileStore(url: URL(string: "https://example.com/x")!).read()
        }
    }
}

// MARK: - More probes

/// A command whose payload is a bare JSON string.
private struct HRScalar: UndoCommand, Equatable {
    static let commandType = "hr.scalar"
    var text: String

    init(text: String) { self.text = text }
    init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRScalar(text: "\(doc.value)"), on: doc, key: doc.id)
        doc.value = Int(text) ?? -1
    }
}

/// A command with nothing to say.
private struct HRNothing: UndoCommand {
    static let commandType = "hr.nothing"
    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRNothing(), on: doc, key: doc.id)
    }
}

@Suite struct HostileReviewMoreTests {
    @Test func whatEncodingWritesUnderLimitsIsWhatReadingAcceptsUnderThem() throws {
        let (stack, doc) = HostileReviewRoundTripTests.richTree()
        defer { withExtendedLifetime(doc) {} }
        let archive = HistoryArchive(fingerprint: "rev", histories: ["tree": try stack.savedHistory()])
        let data = try archive.encoded()
        func agree(_ limits: HistoryArchive.Limits, _ what: String) {
            let written = (try? archive.encoded(limits: limits)) != nil
            let read = (try? HistoryArchive(decoding: data, registry: hrRegistry(), limits: limits)) != nil
            #expect(written == read, "\(what): written \(written), read \(read)")
        }
        for depth in 1...10 {
            var limits = HistoryArchive.Limits.default
            limits.maximumNestingDepth = depth
            agree(limits, "depth \(depth)")
        }
        for length in [0, 1, 3, 4, 5, 8, 40, 60, 80, 200] {
            var limits = HistoryArchive.Limits.default
            limits.maximumStringLength = length
            agree(limits, "string length \(length)")
        }
        for bytes in [data.count - 1, data.count, data.count + 1] {
            var limits = HistoryArchive.Limits.default
            limits.maximumBytes = bytes
            agree(limits, "bytes \(bytes)")
        }
        for steps in 0...7 {
            var limits = HistoryArchive.Limits.default
            limits.maximumSteps = steps
            agree(limits, "steps \(steps)")
        }
        for entries in 0...30 {
            var limits = HistoryArchive.Limits.default
            limits.maximumUserInfoEntries = entries
            agree(limits, "user-info entries \(entries)")
        }
        for histories in 0...1 {
            var limits = HistoryArchive.Limits.default
            limits.maximumHistories = histories
            agree(limits, "histories \(histories)")
        }
    }

    @Test func payloadsOfEveryJSONShapeRoundTrip() throws {
        let stack = hrStack()
        let doc = HRDoc()
        stack.beginUndoGrouping()
        HRScalar(text: "7 \"q\" \\ / \u{0} 😀").perform(on: doc, in: stack)
        HRNothing().perform(on: doc, in: stack)
        stack.endUndoGrouping()
        var registry = hrRegistry()
        registry.register(HRScalar.self)
        registry.register(HRNothing.self)
        let data = try HistoryArchive(fingerprint: "f", histories: ["h": try stack.savedHistory()]).encoded()
        let archive = try HistoryArchive(decoding: data, registry: registry)
        #expect(try archive.encoded() == data)
        let actions = try #require(archive.histories["h"]?.steps.first?.actions)
        #expect(actions.map(\.problem) == [nil, nil])
        #expect((actions[0].command as? HRScalar)?.text == "0")
    }

    @Test func anAutosaveInAnObserverIsInTheSameRecord() throws {
        let url = hrTemporaryURL("autosave.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        let watched = stack
        let token = stack.observe { state in
            if !state.isClean { watched.markClean() }
        }
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        stack.undo()
        withExtendedLifetime(token) {}
        #expect(recorder.recordCount == 3)
        for archive in try HistoryRecorder.recordedArchives(in: journal, registry: hrRegistry()) {
            let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
            #expect(history.clean == history.current)
        }
    }

    @Test func aChangeThatOnErrorMakesIsRecordedAfterIt() throws {
        let url = hrTemporaryURL("onerror.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let stack = hrStack()
        let doc = HRDoc()
        // Room for a record of a few steps only.
        let probe = try HistoryArchive(
            fingerprint: "0",
            histories: [
                HistoryRecorder.defaultHistoryName: try {
                    let s = hrStack()
                    let d = HRDoc()
                    for value in 1...2 { hrChange(d, to: value, on: s) }
                    return try s.savedHistory()
                }()
            ]
        ).encoded()
        let journal = HistoryJournal(url: url, maximumBytes: probe.count + 80, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        var errors = 0
        recorder.onError = { _ in
            errors += 1
            stack.removeAllActions()
        }
        for value in 1...6 { hrChange(doc, to: value, on: stack) }
        #expect(errors >= 1)
        #expect(recorder.lastError == nil)
        // The last record is the history after onError's removal (or a later change), never older.
        let last = try #require(try journal.records().last)
        let archive = try #require(try HistoryRecorder.recordedArchives(in: journal, registry: hrRegistry()).last)
        let saved = try stack.savedHistory()
        let recorded = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        #expect(recorded.steps.count == saved.steps.count)
        #expect(last.fingerprint == "\(doc.value)")
    }

    @Test func compactionKeepsTheNewestAndRecoveryStillWorks() throws {
        let url = hrTemporaryURL("compact.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, maximumRecords: 4, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(doc.value)" }
        for value in 1...10 { hrChange(doc, to: value, on: stack) }
        #expect(recorder.recordCount == 10)
        let records = try journal.records()
        #expect(records.count <= 4)
        #expect(records.last?.sequence == 9)
        #expect(records.map(\.sequence) == Array((10 - UInt64(records.count))..<10))
        let archive = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: "v10", registry: hrRegistry()))
        #expect(archive.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 10)
        #expect(try HistoryRecorder.recover(from: journal, fingerprint: "v1", registry: hrRegistry()) == nil)
    }

    @Test func theRootDateOfAHistoryCutAtAClosureStepComesBack() throws {
        let stack = hrStack(.tree)
        let clock = HRClock(800_000_000.5)
        stack.historyClock = { clock.tick() }
        let doc = HRDoc()
        hrClosureChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        hrChange(doc, to: 3, on: stack)
        let saved = try stack.savedHistory()
        #expect(saved.root == 1)
        let original = try #require(stack.historyTree)
        #expect(saved.rootDate == original[.init(sequence: 1)]?.date)
        let fresh = hrStack(.tree)
        let copy = HRDoc("doc", 3)
        try fresh.restoreHistory(try hrRoundTrip(saved)) { _ in copy }
        let tree = try #require(fresh.historyTree)
        #expect(tree.root.sequence == 1)
        #expect(tree.nodes.map(\.date) == original.nodes.dropFirst().map(\.date))
        // A linear history has no dates; restored into a branching stack, its root is dated now.
        let linear = hrStack()
        hrChange(doc, to: 4, on: linear)
        let dated = hrStack(.tree)
        dated.historyClock = { Date(timeIntervalSinceReferenceDate: 5) }
        try dated.restoreHistory(try linear.savedHistory()) { _ in doc }
        #expect(dated.historyTree?.nodes.map(\.date.timeIntervalSinceReferenceDate) == [5, 5])
    }

    @Test func aHandBuiltTreeWithoutRedoChoicesRestoresAndStaysUsable() throws {
        // Steps from the root, none of them the redo choice: valid (at most one choice a node).
        let action = SavedAction(HRSet(value: 0), key: "doc")
        func step(_ node: Int, _ parent: Int, _ choice: Bool) -> SavedStep {
            SavedStep(
                node: node, parent: parent, isRedoChoice: choice, date: nil, actionName: "\(node)",
                isDiscardable: false, userInfo: [:], actions: [action])
        }
        let history = SavedHistory(
            shape: .tree, root: 0, current: 0, clean: 0,
            steps: [step(1, 0, false), step(2, 0, false), step(3, 2, false)])
        try history.validate()
        let stack = hrStack(.tree)
        let doc = HRDoc("doc", 0)
        let report = try stack.restoreHistory(history) { _ in doc }
        #expect(report.restoredSteps == 3)
        #expect(stack.historyTree?.nodes.count == 4)
        for node in [3, 1, 2, 0] {
            try stack.jump(toNode: .init(sequence: node))
            #expect(stack.currentNode?.sequence == node)
        }
        hrChange(doc, to: 9, on: stack)
        #expect(stack.currentNode?.sequence == 4)
    }
}

// MARK: - Random branching histories

private struct HRRandom {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

@Suite struct HostileReviewRandomTreeTests {
    @Test(arguments: 0..<40)
    func randomTreesRestoreWithConsistentReportsAndAnUnmovedCleanState(seed: Int) throws {
        var random = HRRandom(state: UInt64(seed) &* 7919 &+ 17)
        let stack = hrStack(.tree)
        let clock = HRClock(700_000_000)
        stack.historyClock = { clock.tick() }
        let docs = [HRDoc("a"), HRDoc("b"), HRDoc("c")]
        for _ in 0..<(8 + random.next(10)) {
            switch random.next(7) {
            case 0, 1, 2:
                let doc = docs[random.next(3)]
                hrChange(doc, to: random.next(100), on: stack, name: "n\(random.next(4))")
            case 3: stack.undo()
            case 4: stack.redo()
            case 5:
                let nodes = stack.historyTree!.nodes
                try stack.jump(toNode: nodes[random.next(nodes.count)].id)
            default: stack.markClean()
            }
        }
        var saved = try stack.savedHistory()
        let total = saved.steps.count
        #expect(saved.steps.count == stack.historyTree!.nodes.count - 1)
        // Poison a few steps: an unknown key.
        for _ in 0..<random.next(3) where !saved.steps.isEmpty {
            let index = random.next(saved.steps.count)
            saved.steps[index].actions[0].key = "ghost"
        }
        saved = try hrRoundTrip(saved)
        let resolve: (String) -> AnyObject? = { key in docs.first { $0.id == key } }
        let originalTree = try #require(stack.historyTree)
        for shape in [ActionStack.HistoryShape.tree, .linear] {
            let fresh = hrStack(shape)
            let report = try fresh.restoreHistory(saved, resolvingTargets: resolve)
            let comment: Comment = "seed \(seed), \(shape): \(report)"
            #expect(report.restoredSteps + report.droppedSteps == total, comment)
            #expect(report.cuts.reduce(0) { $0 + $1.droppedSteps } == report.droppedSteps, comment)
            if shape == .tree {
                let tree = try #require(fresh.historyTree)
                #expect(tree.nodes.count - 1 == report.restoredSteps, comment)
                for cut in report.cuts {
                    #expect(tree[.init(sequence: cut.node)] == nil || tree.root.sequence == cut.node, comment)
                }
                // Every kept node as it was: parent, name, date; clean exactly where it was.
                for node in tree.nodes {
                    let old = try #require(originalTree[node.id], comment)
                    if node.id != tree.root {
                        #expect(node.parent == old.parent, comment)
                        #expect(node.actionName == old.actionName, comment)
                    }
                    #expect(node.date == old.date, comment)
                    #expect(node.isClean == (old.isClean && saved.clean == old.sequence), comment)
                }
                #expect(report.restoredCleanState == tree.nodes.contains(where: \.isClean), comment)
                #expect(tree.current == originalTree.current, comment)
            } else {
                #expect(fresh.undoCount + fresh.redoCount == report.restoredSteps, comment)
            }
        }
    }
}

@Suite struct HostileReviewEdgeTests {
    @Test func nodeNumbersNearTheTopOfTheRangeDoNotTrapLaterChanges() async {
        // The restore takes nodes below UInt32.max - 1; the changes after it number on from there.
        do {
            await #expect(processExitsWith: .success) {
                let json =
                    #"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"h":{"shape":"tree","root":4294967292,"current":4294967293,"commands":[["hr.set",1,"doc"]],"steps":[1],"actions":[0],"payloads":[{"value":0}]}}}"#
                guard let archive = try? HistoryArchive(decoding: Data(json.utf8), registry: hrRegistry()),
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
            let root = hrV2(#"{"shape":"linear","root":\#(number),"current":0,"steps":[],"actions":[],"payloads":[]}"#)
            #expect(hrIsCorrupt(hrError(root)), "root \(number)")
            let date = hrV2(
                #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"d":\#(number)}],"actions":[0],"payloads":[{"value":0}]}"#
            )
            #expect(hrIsCorrupt(hrError(date)), "date \(number)")
            let payload = hrV2(
                #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[1],"actions":[0],"payloads":[{"value":\#(number)}]}"#
            )
            #expect(hrIsCorrupt(hrError(payload)), "payload \(number)")
        }
        // Within the grammar, a date that underflows reads as a number.
        let tiny = hrV2(
            #"{"shape":"linear","root":0,"current":1,"commands":[["hr.set",1,"doc"]],"steps":[{"a":1,"d":1e-400}],"actions":[0],"payloads":[{"value":0}]}"#
        )
        #expect(hrError(tiny) == nil)
    }

    @Test func afterAResetTheRecorderAppendsEvenARepeat() throws {
        let url = hrTemporaryURL("reset.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        hrChange(doc, to: 1, on: stack)
        #expect(recorder.recordCount == 1)
        try journal.reset()
        try journal.reset()
        #expect(recorder.record())
        #expect(!recorder.record())
        #expect(try journal.records().map(\.sequence) == [0])
        try journal.compact(keeping: 0)
        #expect(try journal.records().isEmpty)
    }

    @Test @MainActor func anAsyncUndoIsRecordedOnceWhenItSettles() async throws {
        let url = hrTemporaryURL("async.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HRAsyncSet(value: 0, fails: false), on: doc, key: "doc")
        doc.value = 1
        stack.endUndoGrouping()
        #expect(recorder.recordCount == 1)
        try await stack.performUndo()
        #expect(recorder.recordCount == 2)
        try await stack.performRedo()
        #expect(recorder.recordCount == 3)
        // A failing undo leaves the history as it was: nothing new to record.
        let failing = hrStack()
        let target = HRDoc()
        let failingJournal = HistoryJournal(url: url.appendingPathExtension("2"), synchronizesAppends: false)
        defer { try? FileManager.default.removeItem(at: url.appendingPathExtension("2")) }
        let second = HistoryRecorder(journal: failingJournal, stack: failing) { "\(target.value)" }
        failing.beginUndoGrouping()
        failing.registerAsyncUndo(HRAsyncSet(value: 0, fails: true), on: target, key: "doc")
        target.value = 1
        failing.endUndoGrouping()
        #expect(second.recordCount == 1)
        await #expect(throws: (any Error).self) { try await failing.performUndo() }
        #expect(second.recordCount == 1)
        #expect(second.lastError == nil)
    }
}

// MARK: - The documentation's own examples and promises

private final class HRNote {
    let id = "note-1"
    var text = ""
}

private struct HRSetText: UndoCommand {
    static let commandType = "notes.setText"
    var text: String

    func perform(on note: HRNote, in stack: ActionStack) {
        stack.registerUndo(HRSetText(text: note.text), on: note, key: note.id)
        note.text = text
    }
}

private struct HRMove: UndoCommand {
    static let commandType = "board.move"
    var x: Int
    var y: Int
    func perform(on doc: HRDoc, in stack: ActionStack) {}
}

@Suite struct HostileReviewDocumentationTests {
    @Test func theFirstExampleOfSavingTheHistory() throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        let note = HRNote()
        for text in ["one", "one two"] {
            stack.beginUndoGrouping()
            HRSetText(text: text).perform(on: note, in: stack)
            stack.setActionName("Typing")
            stack.endUndoGrouping()
        }
        stack.markClean()
        let saved = try stack.savedHistory()
        let reopened = HRNote()
        reopened.text = note.text
        let fresh = ActionStack()
        let report = try fresh.restoreHistory(saved) { key in key == reopened.id ? reopened : nil }
        #expect(report.restoredSteps == 2)
        #expect(fresh.isClean)
        fresh.undo()
        #expect(reopened.text == "one")
    }

    @Test func theRecorderExampleOfSavingTheHistory() throws {
        let url = hrTemporaryURL("note.journal")
        let journal = HistoryJournal(url: url)
        let note = HRNote()
        let stack = ActionStack()
        stack.groupsByEvent = false
        let recorder = HistoryRecorder(journal: journal, stack: stack) { note.text }
        for text in ["one", "one two"] {
            stack.beginUndoGrouping()
            HRSetText(text: text).perform(on: note, in: stack)
            stack.endUndoGrouping()
        }
        #expect(recorder.recordCount == 2)
        var registry = CommandRegistry()
        registry.register(HRSetText.self)
        let reopened = HRNote()
        reopened.text = "one two"
        let archive = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: reopened.text, registry: registry))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        let fresh = ActionStack()
        _ = try fresh.restoreHistory(history) { key in key == reopened.id ? reopened : nil }
        fresh.undo()
        #expect(reopened.text == "one")
        try journal.reset()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func theFormatExampleIsWhatTheLibraryWrites() throws {
        let documented =
            #"{"format":"ActionStack.History","version":2,"fingerprint":"rev-42","histories":{"board":{"#
            + #""shape":"linear","root":0,"current":2,"clean":1,"commands":[["board.move",1,"F1E2"]],"#
            + #""names":["Move"],"steps":[{"a":1,"n":0},1],"actions":[0,0],"#
            + #""payloads":[{"x":10,"y":20},{"x":0,"y":5}]}}}"#
        func step(_ node: Int, _ move: HRMove) -> SavedStep {
            SavedStep(
                node: node, parent: node - 1, isRedoChoice: true, date: nil, actionName: "Move", isDiscardable: false,
                userInfo: [:], actions: [SavedAction(move, key: "F1E2")])
        }
        let history = SavedHistory(
            shape: .linear, root: 0, current: 2, clean: 1,
            steps: [step(1, HRMove(x: 10, y: 20)), step(2, HRMove(x: 0, y: 5))])
        let data = try HistoryArchive(fingerprint: "rev-42", histories: ["board": history]).encoded()
        #expect(String(decoding: data, as: UTF8.self) == documented)
        var registry = CommandRegistry()
        registry.register(HRMove.self)
        #expect(try HistoryArchive(decoding: Data(documented.utf8), registry: registry).encoded() == data)
    }

    @Test func savingFromAHandlerIsAMisuseAndTheDepthThenIsWhatSavingGivesAfter() throws {
        let stack = hrStack()
        let doc = HRDoc()
        var gone: HRDoc? = HRDoc("gone")
        hrChange(doc, to: 1, on: stack, name: "A")
        hrChange(gone!, to: 1, on: stack, name: "Gone")
        var fromHandler: Result<SavedHistory, ActionStack.HistoryPersistenceError>?
        var depthInHandler: ActionStack.SavableDepth?
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: doc) { [unowned stack] _ in
            gone = nil
            depthInHandler = stack.savableDepth
            fromHandler = Result { () throws(ActionStack.HistoryPersistenceError) in try stack.savedHistory() }
        }
        stack.endUndoGrouping()
        stack.undo()
        if case .failure(let error) = fromHandler, error.misuse?.kind == .reentrantCall {
        } else {
            Issue.record("\(String(describing: fromHandler))")
        }
        #expect(depthInHandler == stack.savableDepth)
        #expect(try stack.savedHistory().steps.map(\.actionName) == ["A"])
    }

    @Test func aRecorderHoldsItsStackWeakly() throws {
        let url = hrTemporaryURL("weak.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        weak var weakStack: ActionStack?
        let recorder: HistoryRecorder
        let doc = HRDoc()
        do {
            let stack = hrStack()
            weakStack = stack
            recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
            hrChange(doc, to: 1, on: stack)
        }
        #expect(weakStack == nil)
        #expect(recorder.recordCount == 1)
        #expect(!recorder.record())
    }
}

@Suite struct HostileReviewFileNameTests {
    @Test func aLegalNameOfMultiByteCharactersCanBeWritten() throws {
        // HistoryFileStore: the temporary file's name is "short enough to leave room for the rest
        // within the usual 255-byte limit on a name". A 240-byte name is legal.
        let directory = hrTemporaryURL("names")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = String(repeating: "😀", count: 60)
        #expect(name.utf8.count == 240)
        let url = directory.appendingPathComponent(name)
        try Data("a file of that name can exist".utf8).write(to: url)
        try FileManager.default.removeItem(at: url)
        let store = HistoryFileStore(url: url)
        try store.write(Data("history".utf8))
        #expect(try store.read() == Data("history".utf8))
        // The journal's compaction rewrites the same way: once full, such a journal takes no record.
        let journalURL = directory.appendingPathComponent(String(repeating: "😀", count: 61))
        let journal = HistoryJournal(url: journalURL, maximumRecords: 2, synchronizesAppends: false)
        try journal.append(Data("1".utf8), fingerprint: "a")
        try journal.append(Data("2".utf8), fingerprint: "b")
        try journal.append(Data("3".utf8), fingerprint: "c")
    }
}

@Suite struct HostileReviewUserInfoTests {
    @Test func numbersAsFoundationHoldsThemKeepTheirKind() throws {
        // SavedValue: "the JSON kinds, a date and data". Foundation's JSON numbers are NSNumbers
        // (JSONSerialization, user info ported from UndoManager code).
        #expect(SavedValue(NSNumber(value: 2)) == .int(2))
        #expect(SavedValue(NSNumber(value: 0.5)) == .double(0.5))
        #expect(SavedValue(NSNumber(value: true)) == .bool(true))
        #expect(SavedValue(NSNumber(value: 1)) == .int(1))
        #expect(SavedValue(NSNumber(value: 0)) == .int(0))
        #expect(SavedValue(NSNumber(value: 1.0)) == .double(1.0))
        #expect(SavedValue(NSNumber(value: 2.0)) == .double(2.0))
        // Through a stack: the count the app stored reads back as a count.
        let stack = hrStack()
        let doc = HRDoc()
        stack.beginUndoGrouping()
        HRSet(value: 1).perform(on: doc, in: stack)
        stack.setActionUserInfoValue(NSNumber(value: 1), forKey: "count")
        stack.endUndoGrouping()
        let fresh = hrStack()
        try fresh.restoreHistory(try hrRoundTrip(try stack.savedHistory())) { _ in doc }
        #expect(stack.undoActionUserInfoValue(forKey: "count") as? Int == 1)
        #expect(fresh.undoActionUserInfoValue(forKey: "count") as? Int == 1)
    }
}

@Suite struct HostileReviewJournalConcurrencyTests {
    @Test func twoJournalsOnOneFileFromManyThreadsNeverInterleave() throws {
        let url = hrTemporaryURL("threads.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journals = [
            HistoryJournal(url: url, synchronizesAppends: false), HistoryJournal(url: url, synchronizesAppends: false),
        ]
        let failures = HRCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<25 {
                do {
                    try journals[thread % 2].append(
                        Data(repeating: UInt8(thread), count: 100 + index), fingerprint: "t\(thread)-\(index)")
                } catch {
                    failures.add()
                }
                if index % 10 == 0 { _ = try? journals[(thread + 1) % 2].replay() }
            }
        }
        #expect(failures.value == 0)
        let replay = try journals[0].replay()
        #expect(replay.ending == .complete)
        #expect(replay.records.map(\.sequence) == Array(0..<200))
        #expect(Set(replay.records.compactMap(\.fingerprint)).count == 200)
        for record in replay.records {
            let thread = Int(record.fingerprint!.dropFirst().prefix { $0 != "-" })!
            #expect(record.payload.allSatisfy { $0 == UInt8(thread) })
        }
    }
}

private final class HRCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite struct HostileReviewHandlerDepthTests {
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func theDepthReadInAHandlerIsWhatSavingGivesOnceTheFreedTargetsAreSwept(_ shape: ActionStack.HistoryShape) throws {
        let stack = hrStack(shape)
        let a = HRDoc("a")
        var gone: HRDoc? = HRDoc("gone")
        hrChange(a, to: 1, on: stack, name: "A1")
        if shape == .tree {
            hrChange(gone!, to: 1, on: stack, name: "Branch of the freed one")
            stack.undo()
            hrChange(a, to: 9, on: stack, name: "Branch of a")
            stack.undo()
        }
        hrChange(gone!, to: 2, on: stack, name: "Freed")
        hrChange(a, to: 3, on: stack, name: "A3")
        var inHandler: ActionStack.SavableDepth?
        var entriesInHandler: [String] = []
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: a) { [unowned stack] _ in
            gone = nil
            inHandler = stack.savableDepth
            entriesInHandler = stack.undoEntries.filter(\.canBeSaved).map(\.actionName)
        }
        stack.setActionName("Handler")
        stack.endUndoGrouping()
        stack.undo()
        let after = stack.savableDepth
        let saved = try stack.savedHistory()
        #expect(inHandler?.undoSteps == after.undoSteps, "\(String(describing: inHandler)) against \(after)")
        #expect(inHandler?.branchSteps == after.branchSteps, "\(String(describing: inHandler)) against \(after)")
        #expect(entriesInHandler == stack.undoEntries.filter(\.canBeSaved).map(\.actionName))
        #expect(after.undoSteps == 2)
        #expect(saved.steps.filter { $0.actionName == "Freed" || $0.actionName == "Branch of the freed one" }.isEmpty)
        try hrAgree(stack)
    }
}
