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

/// A move (`jump(to:)`, `jump(toNode:)`, `later(_:)`), synchronous or awaited, is trimmed to
/// ``ActionStack/levelsOfUndo`` and ``ActionStack/maximumCost`` once, at its end, not after each
/// redo it takes (an awaited move never trims between its steps). In a linear history the two give
/// the same steps; in a branching one the cost counts the branches, and a trim after a middle redo
/// could drop a branch that the trim at the end keeps: before, a synchronous `jump(to:)` lost a
/// branch that the awaited jump kept (found by `AwaitedStepsAgreeTests`; the moves through the tree
/// already held their pruning until their end, and now their trims too).
///
/// Around that rule: the observers of a move's steps see them untrimmed, while state observers and
/// the model never see the stack over the limit; a limit set during a move waits for its end; a
/// move stopped early (a freed target, a cancellation) is trimmed where it stopped; a move refused
/// as a misuse changes nothing; and a recovery after a trimmed move is the full save. Serialized:
/// one test cancels an awaited jump while a step of it runs, and waits for that step to start.
@Suite(.serialized, .timeLimit(.minutes(10))) @MainActor struct MovesTrimOnceAtTheirEndTests: TrimRulesFixtures {
    /// A value whose changes cost `cost`, undone synchronously or awaited.
    final class Value {
        var value = 0
        let awaited: Bool
        init(awaited: Bool) { self.awaited = awaited }

        func set(_ new: Int, cost: Int, on stack: ActionStack) {
            let old = value
            value = new
            stack.registerUndo(withTarget: self, options: .init(cost: cost)) { $0.set(old, cost: cost, on: stack) }
            if awaited { stack.registerAsyncUndo(withTarget: self) { _ in await Task.yield() } }
        }
    }

    enum Move: String, CaseIterable, Sendable {
        case jumpToPosition, jumpToNode, later
    }

    /// In a branching history: a (#1, cost 2), then x (#2, cost 2) undone, so a branch of #1; b
    /// (#3, cost 2) and c (#4, cost 1); everything undone, then `levelsOfUndo` 2 and `maximumCost`
    /// 5 (the branch, 2, is all that counts at the root). The move redoes a, b and c: after b the
    /// undo path and the branch cost 6, but after c the trim to two levels drops a first (its node
    /// #1 becomes the root, and x leaves from it), which leaves 3 + 2: x stays.
    @Test(arguments: [false, true], Move.allCases)
    func aMoveForwardKeepsTheBranchThatTheTrimAtItsEndKeeps(awaited: Bool, move: Move) async throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let value = Value(awaited: awaited)
        func change(_ new: Int, cost: Int, _ name: String) {
            stack.beginUndoGrouping()
            value.set(new, cost: cost, on: stack)
            stack.setActionName(name)
            stack.endUndoGrouping()
        }
        change(1, cost: 2, "a")
        change(2, cost: 2, "x")
        try await stack.performUndo()
        change(3, cost: 2, "b")
        change(4, cost: 1, "c")
        for _ in 0..<3 { try await stack.performUndo() }
        stack.levelsOfUndo = 2
        stack.maximumCost = 5
        #expect(stack.historyTree?.nodes.map(\.actionName) == ["", "a", "x", "b", "c"])

        let before = stack.startedRequest
        switch move {
        case .jumpToPosition: stack.jump(to: 3)
        case .jumpToNode: try stack.jump(toNode: .init(sequence: 4))
        case .later: try stack.later(4)  // #0 + 4 changes: #4
        }
        if let request = stack.startedRequest, request !== before { _ = try await request.value() }
        #expect(value.value == 4)
        #expect(stack.undoEntries.map(\.actionName) == ["c", "b"])
        #expect(stack.historyTree?.nodes.map(\.actionName) == ["", "x", "b", "c"], "the root (#1), x, b, c")
        #expect(stack.historyTree?.root.sequence == 1)
        stack._checkInvariants()
    }

    /// A redo that is not a step of a move trims at once, as Foundation's does.
    @Test func aRedoOnItsOwnTrimsAtOnce() {
        let stack = makeStack()
        let value = Value(awaited: false)
        for new in 1...3 {
            stack.beginUndoGrouping()
            value.set(new, cost: 1, on: stack)
            stack.endUndoGrouping()
        }
        stack.undo()
        stack.levelsOfUndo = 1
        #expect(stack.undoCount == 1)
        final class Counts: @unchecked Sendable {
            var seen: [Int] = []
            weak var stack: ActionStack?
        }
        let counts = Counts()
        counts.stack = stack
        let token = NotificationCenter.default.addObserver(
            forName: ActionStack.didRedoChangeNotification, object: stack, queue: nil
        ) { _ in
            MainActor.assumeIsolated {
                if let stack = counts.stack { counts.seen.append(stack.undoCount) }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        stack.redo()
        #expect(counts.seen == [1], "the did-redo observers see the stack trimmed")
        #expect(stack.undoCount == 1)
    }

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
}
