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
@Suite(.timeLimit(.minutes(5))) @MainActor struct MovesTrimOnceAtTheirEndTests {
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
}
