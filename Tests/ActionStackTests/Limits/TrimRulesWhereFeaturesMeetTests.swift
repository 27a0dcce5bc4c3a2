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

/// Three rules where they meet the other features, written from the documentation alone (a review
/// with a fresh context): an awaited undo, redo or jump trims the group it closes at once; every
/// move is trimmed once at its end; a throwing `asyncGroup` leaves the redo stack as it was, where
/// `group(named:)` leaves it emptied in a linear history and as it was in a branching one.
@Suite(.serialized, .timeLimit(.minutes(5))) @MainActor struct TrimRulesWhereFeaturesMeetTests {
    final class Box: @unchecked Sendable {  // used on the main actor only
        var value = 0
        func set(_ new: Int, cost: Int = 1, on stack: ActionStack) {
            let old = value
            value = new
            stack.registerUndo(withTarget: self, options: .init(cost: cost)) { $0.set(old, cost: cost, on: stack) }
        }
    }

    struct Failure: Error {}

    func change(_ box: Box, _ new: Int, cost: Int = 1, on stack: ActionStack) {
        stack.beginUndoGrouping()
        box.set(new, cost: cost, on: stack)
        stack.setActionName("v\(new)")
        stack.endUndoGrouping()
    }

    /// 1...n closed steps, then `open` values in one open group.
    func history(_ n: Int, open: Int = 0, levels: Int = 0, tree: Bool = false) -> (ActionStack, Box) {
        let stack = makeStack()
        if tree { stack.historyShape = .tree }
        let box = Box()
        for v in stride(from: 1, through: n, by: 1) { change(box, v, on: stack) }
        stack.levelsOfUndo = levels
        if open > 0 {
            stack.beginUndoGrouping()
            box.set(100 + open, on: stack)
        }
        return (stack, box)
    }

    struct Snapshot: Equatable {
        var value: Int
        var undo: [String]
        var redo: [String]
        var position: Int
        var level: Int
    }

    func snap(_ stack: ActionStack, _ box: Box) -> Snapshot {
        Snapshot(
            value: box.value, undo: stack.undoEntries.map(\.actionName), redo: stack.redoEntries.map(\.actionName),
            position: stack.historyPosition, level: stack.groupingLevel)
    }

    /// Makes two copies, runs the synchronous call on the first and the awaited one on the second,
    /// and expects the same snapshot of both.
    func agree(
        _ make: () -> (ActionStack, Box), sync: (ActionStack) -> Void,
        awaited: @MainActor (ActionStack) async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let (a, boxA) = make()
        let (b, boxB) = make()
        sync(a)
        try await awaited(b)
        #expect(snap(a, boxA) == snap(b, boxB), sourceLocation: sourceLocation)
    }

    // MARK: Rule 1: awaited steps close and trim the open group at once

    /// "it keeps what undo() keeps" (performUndo doc comment).
    @Test(arguments: [false, true]) func performUndoKeepsWhatUndoKeeps(tree: Bool) async throws {
        let (a, boxA) = history(3, open: 1, levels: 2, tree: tree)
        let (b, boxB) = history(3, open: 1, levels: 2, tree: tree)
        a.undo()
        try await b.performUndo()
        #expect(snap(a, boxA) == snap(b, boxB))
        a.redo()
        try await b.performRedo()
        #expect(snap(a, boxA) == snap(b, boxB))
        #expect(a.lastMisuse == nil && b.lastMisuse == nil)
    }

    /// "so the jump counts its steps in the history jump(to:) counts them in" (performJump).
    @Test(arguments: [false, true], [0, 1, 2, 3]) func performJumpCountsAsJumpCounts(tree: Bool, to: Int) async throws {
        let (a, boxA) = history(4, open: 1, levels: 2, tree: tree)
        let (b, boxB) = history(4, open: 1, levels: 2, tree: tree)
        a.jump(to: to)
        try await b.performJump(to: to)
        #expect(snap(a, boxA) == snap(b, boxB), "to \(to)")
        #expect(a.lastMisuse == nil && b.lastMisuse == nil)
    }

    /// Under maximumCost rather than levelsOfUndo.
    @Test(arguments: [0, 1, 2]) func performJumpUnderACostLimitAgrees(to: Int) async throws {
        func make() -> (ActionStack, Box) {
            let stack = makeStack()
            let box = Box()
            for v in 1...4 { change(box, v, cost: 2, on: stack) }
            stack.maximumCost = 6
            stack.beginUndoGrouping()
            box.set(50, cost: 3, on: stack)
            return (stack, box)
        }
        try await agree(make, sync: { $0.jump(to: to) }, awaited: { try await $0.performJump(to: to) })
    }

    /// dropsEmptyGroups: an empty open group closed by the undo is dropped, the undo undoes the step below.
    @Test(arguments: [false, true]) func emptyOpenGroupWithDropsEmptyGroupsAgrees(drops: Bool) async throws {
        func make() -> (ActionStack, Box) {
            let stack = makeStack(dropsEmptyGroups: drops)
            let box = Box()
            for v in 1...3 { change(box, v, on: stack) }
            stack.levelsOfUndo = 2
            stack.beginUndoGrouping()
            return (stack, box)
        }
        try await agree(make, sync: { $0.undo() }, awaited: { try await $0.performUndo() })
        try await agree(make, sync: { $0.jump(to: 0) }, awaited: { try await $0.performJump(to: 0) })
    }

    /// groupsByEvent: a change outside any group opens the event's automatic group.
    @Test func groupsByEventAgrees() async throws {
        func make() -> (ActionStack, Box) {
            let stack = makeStack(groupsByEvent: true)
            let box = Box()
            for v in 1...3 {
                box.set(v, on: stack)
                stack.endEvent()
            }
            stack.levelsOfUndo = 2
            box.set(9, on: stack)  // left in the open automatic group
            return (stack, box)
        }
        try await agree(make, sync: { $0.jump(to: 0) }, awaited: { try await $0.performJump(to: 0) })
    }

    /// "The current position does nothing" (jump(to:)): a jump to where it is with a group open.
    @Test func jumpOfZeroStepsWithAnOpenGroupAgrees() async throws {
        let (a, boxA) = history(3, open: 1, levels: 2)
        let (b, boxB) = history(3, open: 1, levels: 2)
        let here = a.historyPosition
        a.jump(to: here)
        try await b.performJump(to: here)
        #expect(snap(a, boxA) == snap(b, boxB))
    }

    // MARK: Rule 2: a move is trimmed once, at its end

    /// Observers of a step's notifications see the steps redone so far untrimmed; after the call,
    /// the limit holds; observe(_:) hears the jump once, never over the limit.
    @Test(arguments: [false, true]) func observersOfAJumpForward(awaited: Bool) async throws {
        let (stack, box) = history(4, levels: 0)
        stack.jump(to: 0)
        stack.levelsOfUndo = 2
        #expect(stack.undoCount == 0 && stack.redoCount == 4)
        let seen = TrimRulesBox<[Int]>([])
        let token = observe(ActionStack.didRedoChangeNotification, of: stack) { s in
            nonisolated(unsafe) let s = s
            MainActor.assumeIsolated { seen.value.append(s.undoCount) }
        }
        var states: [ActionStack.State] = []
        let watch = stack.observe { states.append($0) }
        if awaited { try await stack.performJump(to: 4) } else { stack.jump(to: 4) }
        NotificationCenter.default.removeObserver(token)
        withExtendedLifetime(watch) {}
        #expect(box.value == 4)
        #expect(seen.value == [1, 2, 3, 4], "untrimmed during the jump")
        #expect(stack.undoCount == 2 && stack.redoCount == 0)
        #expect(states.last?.undoCount == 2)
        #expect(states.allSatisfy { $0.undoCount <= 2 }, "\(states.map(\.undoCount))")
    }

    /// "Limits set meanwhile wait until it has ended, so they never cut it short" (performJump),
    /// and "Setting levelsOfUndo during an activity trims at the end of the outermost call"
    /// (Reentrancy) for the synchronous jump.
    @Test(arguments: [false, true]) func limitSetByAnObserverDuringAJump(awaited: Bool) async throws {
        let (stack, box) = history(4)
        stack.jump(to: 0)
        let token = observe(ActionStack.didRedoChangeNotification, of: stack) { s in
            nonisolated(unsafe) let s = s
            MainActor.assumeIsolated { if s.levelsOfUndo == 0 { s.levelsOfUndo = 1 } }
        }
        if awaited { try await stack.performJump(to: 4) } else { stack.jump(to: 4) }
        NotificationCenter.default.removeObserver(token)
        #expect(box.value == 4, "not cut short")
        #expect(stack.undoCount == 1 && stack.redoCount == 0)
        #expect(stack.levelsOfUndo == 1)
    }

    /// An observer that calls undo() or registers during a jump is refused; the jump goes on.
    @Test(arguments: [false, true]) func observerCallingUndoDuringAJumpIsRefused(awaited: Bool) async throws {
        let (stack, box) = history(4, levels: 3)
        stack.jump(to: 0)
        let other = Box()
        let token = observe(ActionStack.didRedoChangeNotification, of: stack) { s in
            nonisolated(unsafe) let s = s
            MainActor.assumeIsolated {
                s.undo()
                other.set(7, on: s)
            }
        }
        if awaited { try await stack.performJump(to: 3) } else { stack.jump(to: 3) }
        NotificationCenter.default.removeObserver(token)
        // Four changes under three levels: v1 was trimmed before the jumps.
        #expect(box.value == 4)
        #expect(stack.lastMisuse != nil)
        #expect(other.value == 7, "the observer's own change ran; its registration was refused")
        #expect(stack.undoEntries.map(\.actionName) == ["v4", "v3", "v2"])
        #expect(stack.redoEntries.isEmpty)
    }

    /// A jump from an undo handler is the misuse reentrantCall; nothing else changes.
    @Test func jumpFromAnUndoHandlerIsRefused() {
        let stack = makeStack()
        let box = Box()
        change(box, 1, on: stack)
        change(box, 2, on: stack)
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: box) { _ in stack.jump(to: 0) }
        stack.endUndoGrouping()
        stack.levelsOfUndo = 2
        stack.undo()
        #expect(stack.lastMisuse != nil)
        #expect(box.value == 2)
        #expect(stack.undoEntries.map(\.actionName) == ["v2"])
        stack._checkInvariants()
    }

    /// A jump inside a scoped group body closes the scope's group (the one open group), jumps,
    /// and the scope ends; with a limit the trimmed history is consistent.
    @Test(arguments: [false, true]) func jumpInsideAScopedGroupBody(throwing: Bool) {
        let (stack, box) = history(3, levels: 2)
        do {
            try stack.group(named: "G") {
                box.set(10, on: stack)
                stack.jump(to: 0)
                if throwing { throw Failure() }
            }
        } catch {}
        stack._checkInvariants()
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 0)
        // The jump undid everything it could reach: two levels kept, so v1 is gone, value 1.
        #expect(box.value == 1, "\(snap(stack, box))")
    }

    /// "While registration is disabled each step builds nothing on the opposite stack... the
    /// position stays where it was" (jump(to:)); the awaited form agrees.
    @Test(arguments: [0, 2]) func jumpWithRegistrationDisabledAgrees(levels: Int) async throws {
        let (a, boxA) = history(4, levels: levels)
        let (b, boxB) = history(4, levels: levels)
        a.disableUndoRegistration()
        b.disableUndoRegistration()
        a.jump(to: 0)
        try await b.performJump(to: 0)
        #expect(snap(a, boxA) == snap(b, boxB))
        a.enableUndoRegistration()
        b.enableUndoRegistration()
    }

    /// ActionStackModel never shows a state over the limit once the call has ended.
    @Test(arguments: [false, true]) func modelAfterAJumpUnderALimit(awaited: Bool) async throws {
        let (stack, box) = history(4)
        stack.jump(to: 0)
        stack.levelsOfUndo = 2
        #expect(stack.undoCount == 0 && stack.redoCount == 4)
        let model = ActionStackModel(stack)
        #expect(model.undoCount == 0 && model.redoCount == 4, "model \(model.undoCount) \(model.redoCount)")
        if awaited { try await stack.performJump(to: 4) } else { stack.jump(to: 4) }
        #expect(model.undoCount == 2)
        #expect(model.undoCount == stack.undoCount, "stack \(stack.undoCount) \(stack.redoCount)")
        withExtendedLifetime(model) {}
        #expect(box.value == 4)
    }

    /// Branching: maximumBranchSteps applied once at the end of a move, both forms agree.
    @Test(arguments: [false, true]) func moveWithMaximumBranchStepsAgrees(toNodeForm: Bool) async throws {
        func make() -> (ActionStack, Box) {
            let stack = makeStack()
            stack.historyShape = .tree
            let box = Box()
            change(box, 1, on: stack)
            change(box, 2, on: stack)
            change(box, 3, on: stack)
            stack.undo()
            stack.undo()
            change(box, 4, on: stack)  // a branch #2-#3 off #1
            change(box, 5, on: stack)
            stack.maximumBranchSteps = 1
            stack.levelsOfUndo = 2
            return (stack, box)
        }
        let (a, boxA) = make()
        let (b, boxB) = make()
        let target = ActionStack.HistoryNode.ID(sequence: 2)
        if toNodeForm {
            try a.jump(toNode: target)
            try await b.performJump(toNode: target)
        } else {
            _ = try a.earlier(3)  // #5 -> #2 in time order (#3 was pruned)
            try await b.performJump(toNode: target)
        }
        #expect(snap(a, boxA) == snap(b, boxB))
        #expect(a.historyTree?.nodes.map(\.sequence) == b.historyTree?.nodes.map(\.sequence))
        a._checkInvariants()
        b._checkInvariants()
    }

    /// "at the next launch it returns the history as a full save would have saved it at the last
    /// record" (SavingTheHistory): after a move whose redos were trimmed at its end.
    @Test(arguments: [false, true], [false, true])
    func recoveryAfterAMoveTrimmedAtItsEndEqualsAFullSave(tree: Bool, awaited: Bool) async throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        if tree { stack.historyShape = .tree }
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        stack.undo()
        hsChange(box, to: 9, on: stack)  // in a tree: a branch (#3) off #2
        for value in 4...6 { hsChange(box, to: value, on: stack) }
        stack.jump(to: 0)
        stack.levelsOfUndo = 2
        if awaited { try await stack.performJump(to: 3) } else { stack.jump(to: 3) }
        #expect(stack.undoCount == 2)
        let saved = try stack.savedHistory()
        let archive = try HistoryRecorder.recover(
            from: files.journal, fingerprint: "v\(box.value)", registry: testRegistry())
        let recovered = try #require(archive?.histories[HistoryRecorder.defaultHistoryName])
        func shape(_ h: SavedHistory) -> [String] {
            ["root \(h.root) current \(h.current) clean \(String(describing: h.clean))"]
                + h.steps.map { "\($0.node)<\($0.parent) \($0.isRedoChoice) \($0.actionName)" }
        }
        #expect(shape(recovered) == shape(saved))
        withExtendedLifetime(recorder) {}
    }

    /// A handler of a jump's step frees the target of the next step: the jump stops there
    /// ("a step freed by a handler cannot make it overshoot"), and the trim at its end still holds.
    @Test(arguments: [false, true]) func freedTargetDuringAJumpStopsItAndTheTrimHolds(awaited: Bool) async throws {
        let stack = makeStack()
        let first = Box()
        var second: Box? = Box()
        change(first, 1, on: stack)
        change(second!, 2, on: stack)
        change(first, 3, on: stack)
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: first) { _ in second = nil }
        stack.setActionName("free")
        stack.endUndoGrouping()
        stack.levelsOfUndo = 3
        if awaited { try await stack.performJump(to: 0) } else { stack.jump(to: 0) }
        #expect(second == nil)
        #expect(stack.undoCount <= 3 && stack.redoCount <= 3)
        #expect(first.value == 1, "v3 undone, stopped at the step whose target was freed: \(snap(stack, first))")
        stack._checkInvariants()
    }

    final class SlowBox: @unchecked Sendable {  // used on the main actor only
        var value = 0
        var slowAt: Int?
        func set(_ new: Int, on stack: ActionStack) {
            let old = value
            value = new
            stack.registerUndo(withTarget: self) { $0.set(old, on: stack) }
            let slow = slowAt
            stack.registerAsyncUndo(withTarget: self) { box in
                if slow == old || box.slowAt == old { try await Task.sleep(for: .seconds(30)) }
            }
        }
    }

    /// Cancelled while its third redo runs, an awaited jump forward stops at the position it
    /// reached, rolls the step back, and is trimmed at its end: never over the limit afterwards.
    @Test func cancelledAwaitedJumpIsTrimmedAtItsEnd() async throws {
        let stack = makeStack()
        let box = SlowBox()
        for v in 1...4 {
            stack.beginUndoGrouping()
            box.set(v, on: stack)
            stack.endUndoGrouping()
        }
        try await stack.performJump(to: 0)
        #expect(box.value == 0 && stack.redoCount == 4)
        stack.levelsOfUndo = 1
        box.slowAt = 3  // the redo that sets 3 awaits until cancelled
        let task = Task { @MainActor in try await stack.performJump(to: 4) }
        for _ in 0..<400 where !(stack.isBusy && box.value >= 2 && stack.state.isRedoInFlight) {
            try await Task.sleep(for: .milliseconds(5))
        }
        task.cancel()
        let result = await task.result
        #expect(throws: (any Error).self) { try result.get() }
        #expect(box.value == 2, "\(snap(stack, Box()))")
        #expect(stack.undoCount == 1, "trimmed to the limit at the jump's end")
        #expect(stack.redoCount == 2)
        #expect(stack.state.undoCount == 1)
        stack._checkInvariants()
    }

    /// Misuse: two groups open. The awaited jump, as jump(to:), refuses and changes nothing.
    @Test(arguments: [false, true]) func jumpWithTwoGroupsOpenChangesNothing(awaited: Bool) async {
        let (stack, box) = history(3, open: 1, levels: 2)
        stack.beginUndoGrouping()
        let before = snap(stack, box)
        if awaited { _ = try? await stack.performJump(to: 0) } else { stack.jump(to: 0) }
        #expect(stack.lastMisuse != nil)
        #expect(snap(stack, box) == before)
    }

    /// A jump that passes over a step a peer's change left dead, under a limit, in both forms
    /// and both shapes: the two agree, and the limit holds when the jump has ended.
    @Test(arguments: [false, true], [false, true]) func jumpOverADeadStepAgrees(tree: Bool, forward: Bool) async throws
    {
        func make() -> SharedText {
            let stack = makeStack()
            if tree { stack.historyShape = .tree }
            let doc = SharedText(stack: stack)
            for (offset, letter) in ["a", "b", "c", "d"].enumerated() {
                stack.beginUndoGrouping()
                doc.type(letter, at: offset)
                stack.endUndoGrouping()
            }
            doc.receive(.delete("b", at: 1))  // the step that typed b has nothing left to do
            stack.levelsOfUndo = 3
            return doc
        }
        let a = make()
        let b = make()
        if forward {
            a.stack.jump(to: 0)
            try await b.stack.performJump(to: 0)
        }
        let target = forward ? 4 : 0
        a.stack.jump(to: target)
        try await b.stack.performJump(to: target)
        #expect(a.text == b.text)
        #expect(a.stack.undoCount == b.stack.undoCount && a.stack.redoCount == b.stack.redoCount)
        #expect(a.stack.undoEntries.map(\.actionName) == b.stack.undoEntries.map(\.actionName))
        func shape(_ t: ActionStack.HistoryTree?) -> [String] {  // all but the dates
            (t?.nodes ?? []).map { "\($0.id) \(String(describing: $0.parent)) \($0.children) \($0.isCurrent)" }
        }
        #expect(shape(a.stack.historyTree) == shape(b.stack.historyTree))
        #expect(a.stack.undoCount <= 3 && a.stack.state.undoCount == a.stack.undoCount)
        a.stack._checkInvariants()
        b.stack._checkInvariants()
    }

    /// "a redo on its own trims at once": levelsOfUndo trims "when a top-level group closes on
    /// the undo stack (the group a redo builds included)", so the observers of the redo's
    /// did-notification already see the trimmed stack, awaited or not.
    @Test(arguments: [false, true]) func aRedoOnItsOwnTrimsAtOnce(awaited: Bool) async throws {
        let (stack, box) = history(3)
        stack.undo()
        stack.levelsOfUndo = 2
        #expect(stack.undoCount == 2 && stack.redoCount == 1)
        let seen = TrimRulesBox<[Int]>([])
        let token = observe(ActionStack.didRedoChangeNotification, of: stack) { s in
            nonisolated(unsafe) let s = s
            MainActor.assumeIsolated { seen.value.append(s.undoCount) }
        }
        var states: [ActionStack.State] = []
        let watch = stack.observe { states.append($0) }
        if awaited { try await stack.performRedo() } else { stack.redo() }
        NotificationCenter.default.removeObserver(token)
        withExtendedLifetime(watch) {}
        #expect(box.value == 3)
        // The synchronous redo trims before its did-notification; an awaited redo is trimmed when
        // its request ends (nothing is trimmed while a request holds the turn), so its
        // did-observers see the step it built on top of the limit (`performRedo(isolation:)` says
        // so). State observers never see the stack over the limit.
        #expect(seen.value == (awaited ? [3] : [2]))
        #expect(states.allSatisfy { $0.undoCount <= 2 }, "\(states.map(\.undoCount))")
        #expect(stack.undoEntries.map(\.actionName) == ["v3", "v2"])
    }

    // MARK: Rule 3: a throwing group and the redo stack

    @Test(arguments: [false, true]) func throwingAsyncGroupLeavesTheRedoStack(tree: Bool) async {
        let (stack, box) = history(3, tree: tree)
        stack.undo()
        let redoBefore = stack.redoEntries.map(\.actionName)
        do {
            try await stack.asyncGroup(named: "A") {
                box.set(20, on: stack)
                await Task.yield()
                throw Failure()
            }
        } catch {}
        #expect(stack.redoEntries.map(\.actionName) == redoBefore)
        #expect(box.value == 2)
        stack.redo()
        #expect(box.value == 3)
    }

    /// A throwing `group(named:)`: in a linear history the redo stack the body's registrations
    /// emptied stays empty; in a branching history they made it a branch, and the rollback leaves
    /// the tree as it was, redo choice included (the doc comment and BranchingHistory.md).
    @Test(arguments: [false, true]) func throwingScopedGroupEmptiesTheRedoStackOnlyInALinearHistory(tree: Bool) {
        let (stack, box) = history(3, tree: tree)
        stack.undo()
        do {
            try stack.group(named: "G") {
                box.set(20, on: stack)
                throw Failure()
            }
        } catch {}
        #expect(stack.redoEntries.map(\.actionName) == (tree ? ["v3"] : []))
        #expect(box.value == 2)
    }

    /// A throwing asyncGroup under a limit: the trim waits, nothing below is lost.
    @Test func throwingAsyncGroupUnderALimitKeepsTheUndoStack() async {
        let (stack, box) = history(3, levels: 3)
        stack.undo()
        do {
            try await stack.asyncGroup(named: "A") {
                box.set(20, on: stack)
                box.set(21, on: stack)
                throw Failure()
            }
        } catch {}
        #expect(stack.undoEntries.map(\.actionName) == ["v2", "v1"])
        #expect(stack.redoEntries.map(\.actionName) == ["v3"])
    }
}

/// A reference a notification observer can write to.
final class TrimRulesBox<Value>: @unchecked Sendable {  // written on the main actor only
    var value: Value
    init(_ value: Value) { self.value = value }
}
