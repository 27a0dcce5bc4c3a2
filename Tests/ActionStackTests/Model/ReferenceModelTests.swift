// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The reference model checked on its own against hand-worked examples of the documented rules (see
// ReferenceModel.swift) and the Foundation contract. Each example is written against `DriverWorld`, so the same examples run
// on a real stack too (`RandomDriverTests.swift` runs them as acceptance tests of the library).

import Testing

/// Makes a world (the model, or a real stack) for a case.
typealias WorldMaker = (DriverCase) -> any DriverWorld

/// One hand-worked example.
struct AcceptanceExample: Sendable, CustomStringConvertible {
    var name: String
    var run: @Sendable (WorldMaker) -> Void
    var description: String { name }
}

/// A world under test with small helpers for the examples.
struct Scenario {
    let world: any DriverWorld
    var mark = 0

    init(_ make: WorldMaker, groupsByEvent: Bool = true, drops: Bool = false, plan: [PlanRule] = [], tree: Bool = false)
    {
        world = make(
            DriverCase(
                seed: 0, config: DriverConfig(groupsByEvent: groupsByEvent, dropsEmptyGroups: drops, tree: tree),
                plan: plan, ops: []))
    }

    /// Performs `op` and returns the text of the result it logged (after the operation's name).
    mutating func result(_ op: DriverOp) -> String {
        world.plan.resetBudget()
        world.perform(op)
        let all = world.events
        mark = all.count
        guard case .result(let text)? = all.last else { return "(no result)" }
        return text.firstIndex(of: "=").map { String(text[text.index($0, offsetBy: 2)...]) } ?? text
    }

    /// The node numbers of `historyTree` (a query).
    mutating func treeNodes() -> [Int] {
        result(.treeQuery(.historyTree)).components(separatedBy: ": ").dropFirst().joined()
            .components(separatedBy: " | ").compactMap { Int($0.dropFirst().prefix { $0.isNumber }) }
    }

    /// One closed step: a group with one registration on `slot`.
    func change(_ slot: Int, _ delta: Int) {
        callAsFunction(.begin, .register(slot: slot, delta: delta, options: .plain), .end)
    }

    func callAsFunction(_ ops: DriverOp...) {
        for op in ops {
            world.plan.resetBudget()
            world.perform(op)
        }
    }

    /// The events since the last call (or the start), as short text.
    /// `cleanStateDidChangeNotification` is left out unless `includeClean`.
    mutating func events(includeActivities: Bool = false, includeClean: Bool = false) -> [String] {
        let all = world.events
        defer { mark = all.count }
        return all[mark...].filter { event in
            if case .posted(let posted) = event, posted.name == .cleanStateDidChange { return includeClean }
            return true
        }.map { event in
            switch event {
            case .posted(let posted):
                posted.name.rawValue + (posted.discardable ? "!" : "")
                    + (includeActivities && !posted.activities.isEmpty
                        ? "@" + posted.activities.map(\.rawValue).joined(separator: "/") : "")
            default: event.description
            }
        }
    }

    /// Performs a query and returns its result text.
    mutating func ask(_ query: DriverQuery) -> String {
        world.perform(.query(query))
        let all = world.events
        mark = all.count
        guard case .result(let text)? = all.last else { return "(no result)" }
        return String(text.dropFirst(query.rawValue.count + 3))
    }

    var structure: String { world.snapshot(readGetters: false).structure }
    var values: [Int?] { world.snapshot(readGetters: false).values }
}

enum Acceptance {
    static let all: [AcceptanceExample] = [
        .init(name: "groupsByEvent: three registrations then the end of the event") { make in
            var s = Scenario(make)
            s(.register(slot: 0, delta: 1, options: .plain), .register(slot: 0, delta: 2, options: .plain))
            s(.register(slot: 1, delta: 3, options: .plain), .endEvent)
            #expect(s.events() == ["DidOpen", "C", "WillClose", "DidClose"])
            #expect(s.structure == "undo([a a a]) redo()")
        },
        .init(name: "groupsByEvent: three registrations then undo() in the same pass") { make in
            var s = Scenario(make)
            s(.register(slot: 0, delta: 1, options: .plain), .register(slot: 0, delta: 2, options: .plain))
            s(.register(slot: 1, delta: 3, options: .plain))
            #expect(s.events() == ["DidOpen"])
            s(.undo)
            #expect(s.events() == ["C", "C", "WillClose", "DidClose", "C", "WillUndo", "C", "DidUndo"])
            #expect(s.structure == "undo() redo([a a a])")
            #expect(s.values == [0, 0, 0])
        },
        .init(name: "undo() posts in preparingUndo, its step's activities stacked on it") { make in
            var s = Scenario(make)
            s(.register(slot: 0, delta: 1, options: .plain), .undo)
            #expect(
                s.events(includeActivities: true) == [
                    "DidOpen", "C", "C@preparingUndo", "WillClose@preparingUndo/closingGroup", "DidClose@preparingUndo",
                    "C@preparingUndo", "WillUndo@preparingUndo/notifyingUndo", "C@preparingUndo/undoing",
                    "DidUndo@preparingUndo/notifyingUndo",
                ])
            s(.redo)
            #expect(
                s.events(includeActivities: true) == [
                    "C", "WillRedo@preparingRedo/notifyingRedo", "C@preparingRedo/redoing",
                    "DidRedo@preparingRedo/notifyingRedo",
                ])
        },
        .init(name: "begin with the automatic group: DidOpen, C (openingGroup), DidOpen; level 2") { make in
            var s = Scenario(make)
            s(.begin)
            #expect(s.events(includeActivities: true) == ["DidOpen@openingGroup", "C@openingGroup", "DidOpen"])
            #expect(s.ask(.groupingLevel) == "2")
            #expect(s.structure == "undo(<<>>) redo()")
        },
        .init(name: "a checkpoint observer's own calls post no checkpoint (canRedo, endUndoGrouping)") { make in
            let rules = [
                PlanRule(trigger: .notification(.checkpoint), nth: 1, every: nil, op: .query(.canRedo)),
                PlanRule(trigger: .notification(.checkpoint), nth: 2, every: nil, op: .end),
            ]
            var s = Scenario(make, groupsByEvent: false, plan: rules)
            s(.begin)
            #expect(s.events() == ["C", "result canRedo = false", "DidOpen"])
            s(.begin)
            // The observer's endUndoGrouping() closes the frame 0 the first begin opened, posting no C.
            #expect(s.events() == ["C", "WillClose", "DidClose", "DidOpen"])
            #expect(s.structure == "undo([] <>) redo()")
        },
        .init(name: "undoNestedGroup() and endUndoGrouping() post in their own activities") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(
                .begin, .register(slot: 0, delta: 1, options: .plain), .begin,
                .register(slot: 0, delta: 1, options: .plain))
            _ = s.events()
            s(.end, .undoNested)
            #expect(
                s.events(includeActivities: true) == [
                    "C", "WillClose@closingGroup", "DidClose", "C", "WillUndo@notifyingUndo", "C@undoing",
                    "DidUndo@notifyingUndo",
                ])
        },
        .init(name: "a jump's steps run inside jumping, and their handlers can register") { make in
            var s = Scenario(make)
            s(.register(slot: 0, delta: 1, options: .plain), .endEvent, .register(slot: 1, delta: 1, options: .plain))
            _ = s.events()
            s(.jump(0))
            #expect(
                s.events(includeActivities: true) == [
                    "C@jumping", "WillClose@jumping/closingGroup", "DidClose@jumping",
                    "C@jumping", "WillUndo@jumping/notifyingUndo", "C@jumping/undoing", "DidUndo@jumping/notifyingUndo",
                    "C@jumping", "WillUndo@jumping/notifyingUndo", "C@jumping/undoing", "DidUndo@jumping/notifyingUndo",
                ])
            #expect(s.structure == "undo() redo([a] [a])")
            s(.jump(2))
            #expect(s.structure == "undo([a] [a]) redo()")
            #expect(s.values == [1, 1, 0])
        },
        .init(name: "an empty group, Foundation mode: an empty step that empties the redo side") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end, .undo)
            #expect(s.structure == "undo() redo([a])")
            _ = s.events()
            s(.begin, .end)
            #expect(s.events() == ["C", "DidOpen", "C", "WillClose", "DidClose"])
            #expect(s.structure == "undo([]) redo()")
            #expect(s.ask(.canUndo) == "true")
            s(.undo)
            #expect(s.structure == "undo() redo()")
        },
        .init(name: "an empty group, drop mode: dropped, redo side kept, notifications balanced") { make in
            var s = Scenario(make, groupsByEvent: false, drops: true)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end, .undo)
            _ = s.events()
            s(.begin, .discardable(true), .end)
            #expect(s.events() == ["C", "DidOpen", "C", "WillClose", "DidClose!"])
            #expect(s.structure == "undo() redo([a])")
            #expect(s.ask(.canRedo) == "true")
        },
        .init(name: "redo() closing an empty group in Foundation mode has nothing left to redo") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end, .undo, .begin, .redo)
            #expect(s.structure == "undo([]) redo()")
            #expect(s.values == [0, 0, 0])
        },
        .init(name: "clean after A, then B, then removal of B's target: not clean") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end, .markClean)
            s(.begin, .register(slot: 1, delta: 1, options: .plain), .end, .removeTarget(slot: 1))
            #expect(s.structure == "undo([a]) redo()")
            #expect(s.ask(.isClean) == "false")
            #expect(s.ask(.undoEntries).contains("clean") == false)
        },
        .init(name: "two steps from clean, remove the first step's target, undo: not clean") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.markClean, .begin, .register(slot: 0, delta: 1, options: .plain), .end)
            s(.begin, .register(slot: 1, delta: 1, options: .plain), .end)
            s(.removeTarget(slot: 0), .undo)
            #expect(s.structure == "undo() redo([a])")
            #expect(s.ask(.isClean) == "false")
        },
        .init(name: "begin, add, begin, add, end, markClean, undoNestedGroup: not clean") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .begin)
            s(.register(slot: 0, delta: 2, options: .plain), .end, .markClean, .undoNested)
            #expect(s.structure == "undo(<a>) redo([a])")
            #expect(s.ask(.isClean) == "false")
            #expect(s.values == [1, 0, 0])
        },
        .init(name: "undo back to the clean point and redo away from it") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end, .markClean)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end)
            #expect(s.ask(.isClean) == "false")
            s(.undo)
            #expect(s.ask(.isClean) == "true")
            s(.redo)
            #expect(s.ask(.isClean) == "false")
            #expect(s.ask(.isCleanAtStart) == "false")
        },
        .init(name: "coalescing and setActionName per keystroke: one named step, no group opened") { make in
            var s = Scenario(make)
            for _ in 0..<3 {
                s(.register(slot: 0, delta: 1, options: .init(key: "k1")), .name("Typing"), .endEvent)
            }
            #expect(s.structure == "undo([a a a]:Typing) redo()")
            #expect(s.events().filter { $0 == "DidOpen" }.count == 1)
            #expect(s.ask(.undoMenuItemTitle) == "Undo Typing")
        },
        .init(name: "a keystroke does not join a step that holds another target's change") { make in
            var s = Scenario(make)
            s(.register(slot: 1, delta: 1, options: .plain), .register(slot: 0, delta: 1, options: .init(key: "k1")))
            s(.endEvent, .register(slot: 0, delta: 1, options: .init(key: "k1")), .endEvent)
            #expect(s.structure == "undo([a a] [a]) redo()")
        },
        .init(name: "a keystroke outside the window does not join") { make in
            var s = Scenario(make)
            s(.register(slot: 0, delta: 1, options: .init(key: "k1", window: 50)), .endEvent)
            s(.advanceClock(40), .register(slot: 0, delta: 1, options: .init(key: "k1", window: 50)), .endEvent)
            s(.advanceClock(60), .register(slot: 0, delta: 1, options: .init(key: "k1", window: 50)), .endEvent)
            #expect(s.structure == "undo([a a] [a]) redo()")
        },
        .init(name: "a refused undoNestedGroup does not end coalescing") { make in
            // Refused by the activity: a WillClose observer of the event's close calls it.
            let rule = PlanRule(trigger: .notification(.willClose), nth: 1, every: nil, op: .undoNested)
            var s = Scenario(make, plan: [rule])
            s(.register(slot: 0, delta: 1, options: .init(key: "k1")), .endEvent)
            #expect(s.events().contains("misuse reentrantCall(undoNestedGroup, during: closingGroup)"))
            s(.register(slot: 0, delta: 1, options: .init(key: "k1")), .endEvent)
            #expect(s.structure == "undo([a a]) redo()")
        },
        .init(name: "a new top-level group ends coalescing, even one dropped empty (drop mode)") { make in
            // Decided (section 7): opening a top-level group puts a new step on top, so nothing
            // older can be continued, whatever becomes of that group.
            var s = Scenario(make, groupsByEvent: false, drops: true)
            s(.begin, .register(slot: 0, delta: 1, options: .init(key: "k1")), .end)
            s(.begin, .undoNested, .end)
            #expect(s.events().contains("misuse undoNestedGroupWithOpenGroup"))
            s(.begin, .register(slot: 0, delta: 1, options: .init(key: "k1")), .end)
            #expect(s.structure == "undo([a] [a]) redo()")
        },
        .init(name: "markClean ends coalescing") { make in
            var s = Scenario(make)
            s(.register(slot: 0, delta: 1, options: .init(key: "k1")), .endEvent, .markClean)
            s(.register(slot: 0, delta: 1, options: .init(key: "k1")), .endEvent)
            #expect(s.structure == "undo([a] [a]) redo()")
        },
        .init(name: "maximumCost set with a group open keeps the newest closed step") { make in
            var s = Scenario(make, groupsByEvent: false)
            for _ in 0..<2 { s(.begin, .register(slot: 0, delta: 1, options: .init(cost: 5)), .end) }
            s(.begin, .register(slot: 0, delta: 1, options: .init(cost: 5)), .maximumCost(1))
            #expect(s.structure == "undo([a] <a>) redo()")
        },
        .init(name: "levelsOfUndo counts held steps, dead ones included") { make in
            var s = Scenario(make, groupsByEvent: false)
            for slot in 0..<3 { s(.begin, .register(slot: slot, delta: 1, options: .plain), .end) }
            s(.free(slot: 2), .levels(2))
            #expect(s.structure == "undo([a] [x]) redo()")
            #expect(s.ask(.undoCount) == "1")
        },
        .init(name: "a scope that closes its own group then throws, levelsOfUndo = 2, keeps 2 steps") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.levels(2))
            for _ in 0..<2 { s(.begin, .register(slot: 0, delta: 1, options: .plain), .end) }
            s(.scope(name: "S", body: [.register(slot: 1, delta: 5, options: .plain), .end], throwing: true))
            #expect(s.structure == "undo([a] [a]) redo()")
            #expect(s.values == [2, 0, 0])
        },
        .init(name: "a scope that throws is rolled back and never becomes a step") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end, .undo, .markClean)
            _ = s.events()
            s(.scope(name: "S", body: [.register(slot: 1, delta: 5, options: .plain)], throwing: true))
            #expect(
                s.events(includeActivities: true) == [
                    "C", "DidOpen", "C@closingScope", "WillClose@closingScope/closingGroup", "DidClose@closingScope",
                    "result scope threw",
                ])
            #expect(s.structure == "undo() redo()")
            #expect(s.values == [0, 0, 0])
            #expect(s.ask(.isClean) == "true")
        },
        .init(name: "a scope that succeeds names and closes its group") { make in
            var s = Scenario(make)
            s(.scope(name: "S", body: [.register(slot: 1, delta: 5, options: .plain), .begin], throwing: false))
            #expect(s.structure == "undo(<[a]>:S) redo()")
            s(.endEvent)
            #expect(s.structure == "undo([a]:S) redo()")
        },
        .init(name: "endEvent while registration is disabled closes the automatic group") { make in
            var s = Scenario(make)
            s(.register(slot: 0, delta: 1, options: .plain), .disable, .endEvent)
            #expect(s.events() == ["DidOpen", "C", "WillClose", "DidClose"])
            #expect(s.structure == "undo([a]) redo()")
        },
        .init(name: "jump(to: historyPosition) with the automatic group holding an action does not undo it") { make in
            var s = Scenario(make)
            s(.register(slot: 0, delta: 1, options: .plain), .endEvent, .register(slot: 0, delta: 1, options: .plain))
            #expect(s.ask(.historyPosition) == "2")
            _ = s.events()
            s(.jump(2))
            #expect(s.events().isEmpty)
            #expect(s.structure == "undo([a] <a>) redo()")
            s(.jump(0))
            #expect(s.structure == "undo() redo([a] [a])")
            #expect(s.values == [0, 0, 0])
            s(.jump(9))
            #expect(s.structure == "undo([a] [a]) redo()")
        },
        .init(name: "drop mode: setActionName on an empty automatic group does not change the undo title") { make in
            var s = Scenario(make, drops: true)
            s(.register(slot: 0, delta: 1, options: .plain), .name("Move"), .endEvent, .name("Type"))
            #expect(s.ask(.undoMenuItemTitle) == "Undo Move")
            #expect(s.structure == "undo([a]:Move <>:Type) redo()")
        },
        .init(name: "an observer that calls markClean is published") { make in
            let rule = PlanRule(trigger: .observe, nth: 1, every: nil, op: .markClean)
            var s = Scenario(make, plan: [rule])
            s(.addObserver, .register(slot: 0, delta: 1, options: .plain))
            let clean = ReferenceModel.State(
                canUndo: true, canRedo: false, undoCount: 0, redoCount: 0, undoActionName: "", redoActionName: "",
                undoMenuItemTitle: "Undo", redoMenuItemTitle: "Redo", isClean: true, groupingLevel: 1)
            var dirty = clean
            dirty.isClean = false
            #expect(
                s.events(includeClean: true) == [
                    "DidOpen", "CleanChanged", DriverEvent.heard(observer: 0, dirty).description, "CleanChanged",
                    DriverEvent.heard(observer: 0, clean).description,
                ])
        },
        .init(name: "publishing: queued states reach every observer in order, once each") { make in
            let rule = PlanRule(trigger: .observe, nth: 1, every: nil, op: .markClean)
            var s = Scenario(make, plan: [rule])
            s(.addObserver, .addObserver, .register(slot: 0, delta: 1, options: .plain))
            var dirty = ReferenceModel.State(
                canUndo: true, canRedo: false, undoCount: 0, redoCount: 0, undoActionName: "", redoActionName: "",
                undoMenuItemTitle: "Undo", redoMenuItemTitle: "Redo", isClean: false, groupingLevel: 1)
            let first = dirty
            dirty.isClean = true
            let second = dirty
            #expect(
                s.events(includeClean: true) == [
                    "DidOpen", "CleanChanged", DriverEvent.heard(observer: 0, first).description,
                    DriverEvent.heard(observer: 1, first).description, "CleanChanged",
                    DriverEvent.heard(observer: 0, second).description,
                    DriverEvent.heard(observer: 1, second).description,
                ])
        },
        .init(name: "publishing: an observer cancelled during a delivery gets nothing more") { make in
            let rule = PlanRule(trigger: .observe, nth: 1, every: nil, op: .cancelObserver(1))
            var s = Scenario(make, plan: [rule])
            s(.addObserver, .addObserver, .register(slot: 0, delta: 1, options: .plain))
            #expect(s.events().filter { $0.hasPrefix("observer") }.count == 1)
        },
        .init(name: "a sweep during an activity is computed as if; the undone step is detached after WillUndo") {
            make in
            let rule = PlanRule(trigger: .notification(.willUndo), nth: 1, every: nil, op: .query(.undoCount))
            var s = Scenario(make, groupsByEvent: false, plan: [rule])
            for slot in 0..<3 { s(.begin, .register(slot: slot, delta: 1, options: .plain), .end) }
            s(.free(slot: 0))
            _ = s.events()
            s(.undo)
            #expect(s.events() == ["C", "C", "WillUndo", "result undoCount = 2", "C", "DidUndo"])
            #expect(s.structure == "undo([x] [a]) redo([a])")
            #expect(s.ask(.undoCount) == "1")
            #expect(s.structure == "undo([a]) redo([a])")
        },
        .init(name: "maximumCost after a coalescing join drops older steps, keeps the newest") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.maximumCost(2), .begin, .register(slot: 1, delta: 1, options: .init(cost: 1)), .end)
            s(.begin, .register(slot: 0, delta: 1, options: .init(cost: 1, key: "k1")), .end)
            s(.register(slot: 0, delta: 1, options: .init(cost: 1, key: "k1")))
            #expect(s.structure == "undo([a a]) redo()")
            s(.register(slot: 0, delta: 1, options: .init(cost: 1, key: "k1")))
            #expect(s.structure == "undo([a a a]) redo()")
        },
        .init(name: "redo while registration is disabled: Foundation mode builds no step") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end, .undo, .disable, .redo)
            #expect(s.structure == "undo() redo()")
            #expect(s.values == [1, 0, 0])
        },
        .init(name: "redo while registration is disabled: drop mode builds no step") { make in
            var s = Scenario(make, groupsByEvent: false, drops: true)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end, .undo, .disable, .redo)
            #expect(s.structure == "undo() redo()")
            #expect(s.values == [1, 0, 0])
        },
        .init(name: "jump forward while registration is disabled redoes every step and builds none") { make in
            var s = Scenario(make, groupsByEvent: false)
            for slot in 0..<3 { s(.begin, .register(slot: slot, delta: 1, options: .plain), .end) }
            s(.jump(0), .disable, .jump(2))
            #expect(s.structure == "undo() redo([a])")
            #expect(s.values == [1, 1, 0])
        },
        .init(name: "history entries: titles, counts, clean flags, isCleanAtStart") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .name("A"), .end, .markClean)
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .name("B"), .end)
            #expect(s.ask(.undoEntries) == "[Entry('B' 'Undo B' n=1), Entry('A' 'Undo A' n=1 clean)]")
            #expect(s.ask(.isCleanAtStart) == "false")
            #expect(s.ask(.historyPosition) == "2")
            s(.undo)
            #expect(s.ask(.redoEntries) == "[Entry('B' 'Redo B' n=1)]")
            #expect(s.ask(.undoEntries) == "[Entry('A' 'Undo A' n=1 clean)]")
            s(.begin, .register(slot: 1, delta: 1, options: .plain))
            #expect(s.ask(.undoEntries) == "[Entry('' 'Undo' n=1 open), Entry('A' 'Undo A' n=1 clean)]")
        },
        .init(name: "setValue: one named step, undone and redone") { make in
            var s = Scenario(make)
            s(.setValue(slot: 0, value: 5, name: "Set"), .endEvent)
            #expect(s.structure == "undo([a]:Set) redo()")
            #expect(s.values == [5, 0, 0])
            s(.undo)
            #expect(s.values == [0, 0, 0])
            #expect(s.structure == "undo() redo([a]:Set)")
            s(.redo)
            #expect(s.values == [5, 0, 0])
            #expect(s.structure == "undo([a]:Set) redo()")
        },
        .init(name: "a DidOpen observer inside begin (openingGroup) cannot begin a group") { make in
            let rule = PlanRule(trigger: .notification(.didOpen), nth: 1, every: nil, op: .begin)
            var s = Scenario(make, plan: [rule])
            s(.begin)
            #expect(
                s.events() == [
                    "DidOpen", "misuse reentrantCall(beginUndoGrouping, during: openingGroup)", "C", "DidOpen",
                ])
        },
        .init(name: "a WillClose observer of endUndoGrouping registers into the closing group") { make in
            let rule = PlanRule(
                trigger: .notification(.willClose), nth: 1, every: nil,
                op: .register(slot: 0, delta: 1, options: .plain))
            var s = Scenario(make, groupsByEvent: false, plan: [rule])
            s(.begin, .end)
            #expect(s.structure == "undo([a]) redo()")
        },
        .init(name: "a WillClose observer of undo()'s close adds to the closing group, as at any close") { make in
            let rule = PlanRule(
                trigger: .notification(.willClose), nth: 1, every: nil,
                op: .register(slot: 0, delta: 1, options: .plain))
            var s = Scenario(make, plan: [rule])
            s(.register(slot: 1, delta: 1, options: .plain), .undo)
            #expect(!s.events().contains { $0.hasPrefix("misuse") })
            #expect(s.structure == "undo() redo([a a])", "both actions were in the step undo() closed and undid")
        },
        .init(name: "a registration from a WillUndo observer is refused; from a DidOpen observer it works") { make in
            let rules = [
                PlanRule(trigger: .notification(.willUndo), nth: 1, every: nil, op: .markClean),
                PlanRule(
                    trigger: .notification(.willUndo), nth: 2, every: nil,
                    op: .register(slot: 1, delta: 1, options: .plain)),
            ]
            var s = Scenario(make, groupsByEvent: false, plan: rules)
            for _ in 0..<2 { s(.begin, .register(slot: 0, delta: 1, options: .plain), .end) }
            s(.undo, .undo)
            #expect(s.events().contains("misuse reentrantCall(registerUndo, during: notifyingUndo)"))
            #expect(s.structure == "undo() redo([a] [a])")
        },
        .init(name: "redo from an undo handler's checkpoint is redoWhileUndoing") { make in
            // Checkpoints: begin 1, end 2, undo 3, its preparingUndo one 4, the one after the handlers 5.
            let rule = PlanRule(trigger: .notification(.checkpoint), nth: 5, every: nil, op: .redo)
            var s = Scenario(make, groupsByEvent: false, plan: [rule])
            s(.begin, .register(slot: 0, delta: 1, options: .plain), .end)
            _ = s.events()
            s(.undo)
            #expect(s.events().contains("misuse redoWhileUndoing"))
        },
        .init(name: "a dead step on top is dropped by canUndo; its far end is new after partial removal") { make in
            var s = Scenario(make, groupsByEvent: false)
            s(.markClean, .begin, .register(slot: 0, delta: 1, options: .plain))
            s(
                .register(slot: 1, delta: 1, options: .plain), .end, .begin,
                .register(slot: 2, delta: 1, options: .plain))
            s(.end, .free(slot: 2))
            #expect(s.structure == "undo([a a] [x]) redo()")
            #expect(s.ask(.canUndo) == "true")
            #expect(s.structure == "undo([a a]) redo()")
            s(.removeTarget(slot: 1), .undo)
            #expect(s.ask(.isClean) == "false")
            #expect(s.values == [0, 1, nil])
        },
        // Section 19: a branching history (worked out by hand from the rules).
        .init(name: "tree: a change after an undo keeps the redo future; vim's g- and g+ by numbers") { make in
            var s = Scenario(make, groupsByEvent: false, tree: true)
            s.change(0, 1)  // #1
            s.change(0, 2)  // #2
            s(.undo)
            s.change(0, 4)  // #3, a child of #1; #2 is kept
            #expect(s.result(.treeQuery(.currentNode)) == "#3")
            #expect(s.treeNodes() == [0, 1, 2, 3])
            #expect(s.values == [5, 0, 0])
            #expect(s.result(.earlier(1)) == "#2")
            #expect(s.values == [3, 0, 0])
            #expect(s.result(.earlier(1)) == "#1")
            #expect(s.result(.later(2)) == "#3")
            #expect(s.values == [5, 0, 0])
            #expect(s.result(.later(1)) == "#3", "forward at the newest does not move")
            #expect(s.result(.earlier(10)) == "#0")
            #expect(s.values == [0, 0, 0])
            s(.redo)
            // Redo enters the child entered last: #3, by the way down of later(2).
            #expect(s.result(.treeQuery(.redoBranches)) == "[#2, #3]")
            s(.redo)
            #expect(s.values == [5, 0, 0])
            s(.undo)
            #expect(s.result(.selectRedoBranch(0)) == "selectRedoBranch(#2)")
            s(.redo)
            #expect(s.values == [3, 0, 0])
            #expect(s.result(.jumpToNode(7)) == "jumpToNode(#9) threw noSuchNode(#9)")
        },
        .init(name: "tree: pruning takes the deepest step of the least recently left branch") { make in
            var s = Scenario(make, groupsByEvent: false, tree: true)
            s(.maximumBranchSteps(2))
            s.change(0, 1)  // #1
            s.change(0, 2)  // #2
            s(.undo, .undo)
            s.change(1, 1)  // #3: [#1, #2] is a branch of #0
            s(.undo)
            s.change(2, 1)  // #4: [#3] a branch too, three branch steps: #2 goes
            #expect(s.treeNodes() == [0, 1, 3, 4])
            #expect(s.result(.jumpToNode(-3)) == "jumpToNode(#1)")
            #expect(s.values == [1, 0, 0])
        },
        .init(name: "tree: a scope that throws keeps the redo stack it made a branch, and its choice") { make in
            var s = Scenario(make, groupsByEvent: false, tree: true)
            s(.levels(5), .maximumBranchSteps(1))
            s.change(0, 1)  // #1
            s.change(0, 2)  // #2
            s(.undo, .undo)
            s(.scope(name: nil, body: [.register(slot: 1, delta: 9, options: .plain)], throwing: true))
            #expect(s.treeNodes() == [0, 1, 2])
            #expect(s.result(.treeQuery(.redoBranches)) == "[#1]")
            s(.redo, .redo)
            #expect(s.values == [3, 0, 0])
        },
        .init(name: "tree: removeAllActions numbers the new root after every node; a freed target's steps go") {
            make in
            var s = Scenario(make, groupsByEvent: false, tree: true)
            s.change(0, 1)  // #1
            s.change(1, 1)  // #2
            s(.removeAll)
            #expect(s.result(.treeQuery(.currentNode)) == "#3")
            s.change(0, 1)  // #4
            s.change(1, 1)  // #5
            s.change(0, 1)  // #6
            s(.undo, .undo)
            s.change(2, 1)  // #7: [#5, #6] a branch of #4
            s(.free(slot: 1))
            // #5 held only the freed target's action: it goes, #6 hangs from #4.
            #expect(s.treeNodes() == [3, 4, 6, 7])
            #expect(s.result(.jumpToNode(-1)) == "jumpToNode(#6)")
            #expect(s.values == [3, nil, 0])
        },
        .init(name: "tree: a move from a handler or an observer of an operation is a re-entrant call") { make in
            let rules = [PlanRule(trigger: .notification(.willUndo), nth: 1, every: nil, op: .earlier(1))]
            var s = Scenario(make, groupsByEvent: false, plan: rules, tree: true)
            s.change(0, 1)
            s.change(0, 1)
            _ = s.events()
            s(.undo)
            #expect(s.events().contains("misuse reentrantCall(earlier, during: notifyingUndo)"))
            #expect(s.result(.treeQuery(.currentNode)) == "#1")
        },
    ]
}

struct ReferenceModelTests {
    @Test(arguments: Acceptance.all)
    func modelFollowsTheHandWorkedExample(_ example: AcceptanceExample) {
        example.run { ModelWorld($0) }
    }

    @Test func structureAndStateShapeFormats() {
        let model = ReferenceModel(targets: 2, groupsByEvent: false)
        #expect(model.structure == "undo() redo()")
        #expect(model.stateShape == "0 0 |  |  |  | ")
        model.beginUndoGrouping()
        model.registerUndo(target: 0, kind: .add(-1))
        model.setActionName("Move")
        model.endUndoGrouping()
        model.beginUndoGrouping()
        model.registerUndo(target: 0, kind: .add(-1))
        model.beginUndoGrouping()
        model.registerUndo(target: 1, kind: .add(-1))
        model.endUndoGrouping()
        model.beginUndoGrouping()
        model.setActionName("Type")
        model.setActionIsDiscardable(true)
        model.setActionUserInfoValue(1, forKey: "k2")
        model.setActionUserInfoValue(1, forKey: "k1")
        model.free(1)
        #expect(model.structure == "undo([a]:Move <a [x] <>>:Type!{k1,k2}) redo()")
        // current = 3, clean = 0; step (0, 1); frames: frame 0 low 1, nested group (2, 3), frame 2 low 3.
        // Renamed in order of first appearance: 3 -> 0, 0 -> 1, 1 -> 2, 2 -> 3.
        #expect(model.stateShape == "0 1 | 1 2 | 2 3 0 0 |  | ")
    }

    @Test func theTableOfSection9() {
        #expect(ReferenceModel.allows(.registerUndo, during: .closingGroup))
        #expect(!ReferenceModel.allows(.registerUndo, during: .closingScope))
        #expect(ReferenceModel.allows(.markClean, during: .notifyingUndo))
        #expect(!ReferenceModel.allows(.markClean, during: .rollingBack))
        #expect(ReferenceModel.allows(.endUndoGrouping, during: .redoing))
        #expect(!ReferenceModel.allows(.undo, during: .openingGroup))
    }

    /// The model against itself on random sequences: deterministic, terminates, and its own
    /// invariants hold (the driver's plumbing is exercised without the library).
    @Test func theModelAgreesWithItselfOnRandomSequences() {
        // A seed always makes the same case (replays depend on it).
        #expect(DriverGenerator.makeCase(seed: 77, count: 300) == DriverGenerator.makeCase(seed: 77, count: 300))
        for seed in UInt64(1)...60 {
            let driverCase = DriverGenerator.makeCase(seed: seed, count: 300)
            let problem = DriverRunner.run(driverCase, expected: { ModelWorld($0) }, actual: { ModelWorld($0) })
            #expect(problem == nil, "seed \(seed): \(problem ?? "")")
        }
        // Branching histories too (section 19).
        for seed in UInt64(1)...20 {
            let driverCase = DriverGenerator.makeCase(seed: seed, count: 300, tree: true)
            let problem = DriverRunner.run(driverCase, expected: { ModelWorld($0) }, actual: { ModelWorld($0) })
            #expect(problem == nil, "tree seed \(seed): \(problem ?? "")")
        }
    }

    /// The shrinker on a real divergence: the model against itself with one rule switched.
    @Test func theShrinkerShortensADivergence() {
        var flipped = ReferenceModel.Decisions()
        flipped.removalRenamesOpenGroups = false
        let other: WorldMaker = { ModelWorld($0, decisions: flipped) }
        func fails(_ driverCase: DriverCase) -> Bool {
            DriverRunner.run(driverCase, expected: { ModelWorld($0) }, actual: other) != nil
        }
        var failing: DriverCase?
        for seed in UInt64(1)...200 {
            let driverCase = DriverGenerator.makeCase(seed: seed, count: 200)
            if fails(driverCase) {
                failing = driverCase
                break
            }
        }
        guard let failing else {
            Issue.record("no seed showed the flipped decision")
            return
        }
        let short = DriverRunner.shrink(failing, fails: fails)
        #expect(fails(short))
        #expect(short.size < failing.size)
        #expect(short.size <= 12, "\(short)")
    }
}
