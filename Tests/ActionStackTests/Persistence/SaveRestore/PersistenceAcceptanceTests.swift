// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// Hand-worked examples of the persistent history (section 20, the SavingTheHistory article), each
// written against `DriverWorld`: the reference model must give what the rules say, and so must the
// real stack, so that a mistake the model and the library share still shows.

import Testing

enum PersistenceAcceptance {
    /// Three closed steps on `slot`s: each one registration of `delta`, named.
    static func steps(_ s: Scenario, _ changes: [(slot: Int, delta: Int, name: String, command: Bool)]) {
        for change in changes {
            let op: DriverOp =
                change.command
                ? .command(slot: change.slot, delta: change.delta, options: .plain)
                : .register(slot: change.slot, delta: change.delta, options: .plain)
            s(.begin, op, .name(change.name), .end)
        }
    }

    /// The result texts the last operation logged, by their names ("restore", "walk"...).
    static func results(_ s: inout Scenario) -> [String: String] {
        var found: [String: String] = [:]
        for event in s.events() where event.hasPrefix("result ") {
            let text = event.dropFirst("result ".count)
            guard let equals = text.range(of: " = ") else { continue }
            found[String(text[..<equals.lowerBound])] = String(text[equals.upperBound...])
        }
        return found
    }

    static let all: [AcceptanceExample] = [
        .init(name: "canBeSaved: every live action a command; the open group never; a closure step is a barrier") {
            make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .command(slot: 0, delta: 1, options: .plain), .name("A"), .end)
            s(.begin, .register(slot: 1, delta: 2, options: .plain), .command(slot: 0, delta: 3, options: .plain))
            s(.name("B"), .end)
            s(.begin, .command(slot: 0, delta: 4, options: .plain), .name("C"), .end, .undo)
            #expect(s.ask(.undoEntries) == "[Entry('B' 'Undo B' n=2), Entry('A' 'Undo A' n=1 savable)]")
            #expect(s.ask(.redoEntries) == "[Entry('C' 'Redo C' n=1 savable)]")
            #expect(s.result(.savableDepth) == "0/1/0")
            // An empty step can be saved; the open group cannot.
            s(.begin, .end, .begin)
            #expect(
                s.ask(.undoEntries)
                    == "[Entry('' 'Undo' n=0 open), Entry('' 'Undo' n=0 savable), Entry('B' 'Undo B' n=2), "
                    + "Entry('A' 'Undo A' n=1 savable)]")
            #expect(s.result(.savedHistory) == "savedHistory threw groupIsOpen")
        },
        .init(name: "savedHistory: nearest first, the undo side first at each distance") { make in
            var s = Scenario(make, groupsByEvent: false)
            steps(s, [(0, 1, "a", true), (0, 2, "b", true), (0, 3, "c", true), (0, 4, "d", true)])
            s(.undo, .undo)
            #expect(s.result(.savableDepth) == "2/2/0")
            s(.saveRestore(limit: 2, unresolvedSlot: nil))
            var found = results(&s)
            // The limit leaves out "a" and "d", and the save says so, as the restore does.
            #expect(
                found["savedHistory(2)"]
                    == "linear root #1 current #2: #2<#1* 'b' [driver.add/1@t0 -2] | #3<#2* 'c' [driver.add/1@t0 3] "
                    + "(left out: maximumSteps 2 -)")
            #expect(found["restore"] == "restored 2, dropped 0, the save left out maximumSteps 2 -")
            #expect(s.ask(.undoEntries) == "[Entry('b' 'Undo b' n=1 savable)]")
            #expect(s.ask(.redoEntries) == "[Entry('c' 'Redo c' n=1 savable)]")
            #expect(s.values == [3, 0, 0])
            s(.saveRestore(limit: 1, unresolvedSlot: nil))
            found = results(&s)
            #expect(
                found["savedHistory(1)"]
                    == "linear root #0 current #1: #1<#0* 'b' [driver.add/1@t0 -2] (left out: maximumSteps 1 -)")
            #expect(s.ask(.redoCount) == "0")
        },
        .init(name: "the clean state: saved where it lies in the saved part, never moved") { make in
            var s = Scenario(make, groupsByEvent: false)
            steps(s, [(0, 1, "a", true), (1, 2, "b", false), (0, 3, "c", true)])
            // Clean at "a": beyond the closure step "b", so not saved.
            s(.undo, .undo, .markClean, .redo, .redo, .saveRestore(limit: nil, unresolvedSlot: nil))
            var found = results(&s)
            // The closure step "b" and "a" beyond it are left out, and the save says so.
            #expect(
                found["savedHistory(9223372036854775807)"]
                    == "linear root #2 current #3: #3<#2* 'c' [driver.add/1@t0 -3] (left out: closure 2 b)")
            #expect(found["restore"] == "restored 1, dropped 0, the save left out closure 2 b")
            #expect(s.ask(.isClean) == "false")
            #expect(s.ask(.isCleanAtStart) == "false")
            // Clean at the current node: saved, and clean again once restored.
            s(.markClean, .saveRestore(limit: nil, unresolvedSlot: nil))
            found = results(&s)
            #expect(found["restore"] == "restored 1, dropped 0, clean")
            #expect(s.ask(.isClean) == "true")
            #expect(s.ask(.undoEntries) == "[Entry('c' 'Undo c' n=1 clean savable)]")
        },
        .init(name: "the clean state marked inside a step is saved as none") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .command(slot: 0, delta: 1, options: .plain), .markClean)
            s(.command(slot: 0, delta: 2, options: .plain), .end, .saveRestore(limit: nil, unresolvedSlot: nil))
            let found = results(&s)
            #expect(
                found["savedHistory(9223372036854775807)"]
                    == "linear root #0 current #1: #1<#0* '' [driver.add/1@t0 -1, driver.add/1@t0 -2]")
            #expect(found["restore"] == "restored 1, dropped 0")
            #expect(s.ask(.isClean) == "false")
            #expect(s.ask(.isCleanAtStart) == "false")
        },
        .init(name: "freed targets' actions are not saved, and a step left with none is not saved at all") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .command(slot: 0, delta: 1, options: .plain), .command(slot: 1, delta: 2, options: .plain))
            s(.name("a"), .end)
            steps(s, [(1, 3, "b", true), (0, 4, "c", true)])
            s(.free(slot: 1))
            #expect(
                s.result(.savedHistory)
                    == "linear root #0 current #2: #1<#0* 'a' [driver.add/1@t0 -1] | #2<#1* 'c' [driver.add/1@t0 -4]")
        },
        .init(name: "a key that does not resolve cuts the history: the path from the step up, a subtree down") {
            make in
            var s = Scenario(make, groupsByEvent: false)
            steps(s, [(0, 1, "a", true), (1, 2, "b", true), (0, 3, "c", true), (1, 4, "d", true), (0, 5, "e", true)])
            s(.undo, .undo)
            s(.saveRestore(limit: nil, unresolvedSlot: 1))
            let found = results(&s)
            // Up: "b" (node 2) goes with "a" above it; down: "d" (node 4) goes with "e" below it.
            #expect(found["restore"] == "restored 1, dropped 4 (cut #2: no t1, 2 steps) (cut #4: no t1, 2 steps)")
            #expect(s.ask(.undoEntries) == "[Entry('c' 'Undo c' n=1 savable)]")
            #expect(s.ask(.redoEntries) == "[]")
            #expect(s.values == [4, 2, 0])
        },
        .init(name: "a branching history: the branches come back with their numbers, dates and redo choices") {
            make in
            var s = Scenario(make, groupsByEvent: false, tree: true)
            steps(s, [(0, 1, "a", true), (0, 2, "b", true)])
            s(.undo, .advanceClock(5))
            steps(s, [(0, 3, "c", true)])
            s(.undo, .advanceClock(5))
            steps(s, [(0, 4, "d", true)])
            s(.advanceClock(5))
            let before = s.result(.treeQuery(.historyTree))
            #expect(
                before
                    == "root #0 current #4: #0 [#1] redo #1 @0 '' '' n=0 clean path | #1<#0 [#2,#3,#4] redo #4 @0 'a' 'Undo a' "
                    + "n=1 path | #2<#1 [] @0 'b' 'Redo b' n=1 | #3<#1 [] @5 'c' 'Redo c' n=1 | #4<#1 [] @10 'd' "
                    + "'Undo d' n=1 current path")
            #expect(s.result(.savableDepth) == "2/0/2")
            s(.saveRestore(limit: nil, unresolvedSlot: nil))
            let found = results(&s)
            #expect(found["restore"] == "restored 4, dropped 0, clean")
            // The same tree, the root's date included (it is saved with the history).
            #expect(s.result(.treeQuery(.historyTree)) == before)
            #expect(s.values == [5, 0, 0])
            // The change numbered 2, on a branch: undo "d", enter "b", redo it.
            #expect(s.result(.earlier(2)) == "#2")
            #expect(s.values == [3, 0, 0])
            #expect(s.result(.treeQuery(.redoBranches)) == "[]")
        },
    ]
}

struct PersistenceAcceptanceTests {
    /// The model against itself with commands, saves and restores: deterministic, it terminates,
    /// and its own invariants hold (the driver's plumbing runs without the library).
    @Test(arguments: [false, true])
    func theModelAgreesWithItselfThroughSavesAndRestores(tree: Bool) {
        #expect(
            DriverGenerator.makeCase(seed: 5, count: 200, tree: tree, commands: true)
                == DriverGenerator.makeCase(seed: 5, count: 200, tree: tree, commands: true))
        var saves = 0
        for seed in UInt64(1)...20 {
            let driverCase = DriverGenerator.makeCase(seed: seed, count: 200, tree: tree, commands: true)
            saves += driverCase.ops.filter { if case .saveRestore = $0 { true } else { false } }.count
            let problem = DriverRunner.run(driverCase, expected: { ModelWorld($0) }, actual: { ModelWorld($0) })
            #expect(problem == nil, "seed \(seed): \(problem ?? "")")
        }
        #expect(saves >= 30, "saves and restores among the operations")
    }

    @Test(arguments: PersistenceAcceptance.all)
    func theModelFollowsTheHandWorkedExample(_ example: AcceptanceExample) {
        example.run { ModelWorld($0) }
    }

    @Test(arguments: PersistenceAcceptance.all)
    func theStackFollowsTheHandWorkedExample(_ example: AcceptanceExample) {
        example.run { StackWorld($0) }
    }
}
