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

/// `undo()`, `redo()` and `jump(to:)` close the one open group first, as Foundation's `undo()`
/// does, and a closed group is trimmed to the limits (``ActionStack/levelsOfUndo``,
/// ``ActionStack/maximumCost``) at once. Their awaited forms (`performUndo()`, `performRedo()`,
/// `performJump(to:)`, requests since the steps await) do the same: the trim of the group they
/// close is not put off until the request ends, as a limit set while a request runs is. Before, an
/// awaited undo kept one step more than `undo()`, and an awaited jump went one step further back
/// than `jump(to:)` (the same flaw as `TreeMovesThatCloseAnOpenGroupUnderALimitTests`, in the
/// linear history).
///
/// The two forms are also compared on two copies of one history (`TrimRulesFixtures`): in both
/// shapes, under either limit, with an empty group that is dropped, with the event's automatic
/// group, and for a jump to where the stack already is.
@Suite(.timeLimit(.minutes(10))) @MainActor struct AwaitedStepsThatCloseAnOpenGroupUnderALimitTests: TrimRulesFixtures {
    /// A value whose changes cost 1 and are undone synchronously or awaited: an awaited step holds
    /// an asynchronous action beside the synchronous one that states its cost (an asynchronous
    /// registration states none).
    final class Value {
        var value = 0
        let awaited: Bool
        init(awaited: Bool) { self.awaited = awaited }

        func set(_ new: Int, on stack: ActionStack) {
            let old = value
            value = new
            stack.registerUndo(withTarget: self, options: .init(cost: 1)) { $0.set(old, on: stack) }
            if awaited { stack.registerAsyncUndo(withTarget: self) { _ in await Task.yield() } }
        }
    }

    /// Steps "1" and "2" closed; a group setting 3 open, named "3".
    private func history(_ setting: Setting) -> (ActionStack, Value) {
        let stack = makeStack()
        if setting.tree { stack.historyShape = .tree }
        let value = Value(awaited: setting.awaited)
        for new in 1...2 {
            stack.beginUndoGrouping()
            value.set(new, on: stack)
            stack.setActionName("\(new)")
            stack.endUndoGrouping()
        }
        if setting.limit == "levelsOfUndo" { stack.levelsOfUndo = 2 } else { stack.maximumCost = 2 }
        stack.beginUndoGrouping()
        value.set(3, on: stack)
        stack.setActionName("3")
        return (stack, value)
    }

    /// Synchronous or awaited steps, the limit that trims, and the history's shape.
    struct Setting: Sendable, CustomTestStringConvertible {
        var awaited: Bool
        var limit: String
        var tree: Bool
        var testDescription: String { "\(awaited ? "awaited" : "synchronous"), \(limit), \(tree ? "tree" : "linear")" }
    }

    nonisolated static let settings: [Setting] = [false, true].flatMap { awaited in
        ["levelsOfUndo", "maximumCost"].flatMap { limit in
            [false, true].map { Setting(awaited: awaited, limit: limit, tree: $0) }
        }
    }

    /// The group closes as "3", the trim drops "1", and the undo undoes "3".
    @Test(arguments: settings)
    func anUndoTrimsTheGroupItClosesBeforeItUndoes(_ setting: Setting) async throws {
        let (stack, value) = history(setting)
        if setting.awaited { #expect(try await stack.performUndo()) } else { stack.undo() }
        #expect(value.value == 2)
        #expect(stack.undoEntries.map(\.actionName) == ["2"])
        #expect(stack.redoEntries.map(\.actionName) == ["3"])
        #expect(stack.groupingLevel == 0)
        stack._checkInvariants()
    }

    /// Position 3 (the open group is listed) to 1: the group closes as "3" and the trim drops "1",
    /// so one step is undone to leave one to undo.
    @Test(arguments: settings)
    func aJumpTrimsTheGroupItClosesBeforeItCountsItsSteps(_ setting: Setting) async throws {
        let (stack, value) = history(setting)
        #expect(stack.historyPosition == 3)
        if setting.awaited { #expect(try await stack.performJump(to: 1)) } else { stack.jump(to: 1) }
        #expect(value.value == 2)
        #expect(stack.historyPosition == 1)
        #expect(stack.undoEntries.map(\.actionName) == ["2"])
        #expect(stack.redoEntries.map(\.actionName) == ["3"])
        stack._checkInvariants()
    }

    /// A redo closes the group (a new change: nothing is left to redo) and trims it; it redoes
    /// nothing either way, and what is left is the same.
    @Test(arguments: settings)
    func aRedoTrimsTheGroupItCloses(_ setting: Setting) async throws {
        let (stack, value) = history(setting)
        if setting.awaited { #expect(try await stack.performRedo() == false) } else { stack.redo() }
        #expect(value.value == 3)
        #expect(stack.undoEntries.map(\.actionName) == ["3", "2"])
        #expect(stack.redoEntries.isEmpty)
        stack._checkInvariants()
    }

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
}
