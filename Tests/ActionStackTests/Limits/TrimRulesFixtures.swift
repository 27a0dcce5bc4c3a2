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

/// What the tests of the trim rules share (`AwaitedStepsThatCloseAnOpenGroupUnderALimitTests`,
/// `MovesTrimOnceAtTheirEndTests`, `GroupsThatThrowAndTheRedoStackTests`): a box whose changes
/// cost what they are told, a history of closed steps with a group left open, what a caller sees of
/// a stack, and two copies of a history moved by the synchronous and the awaited form of a call.
/// A suite that conforms has them as its own members.
@MainActor protocol TrimRulesFixtures {}

/// A value whose changes cost `cost`, undone synchronously.
final class TrimRulesValue: @unchecked Sendable {  // used on the main actor only
    var value = 0
    func set(_ new: Int, cost: Int = 1, on stack: ActionStack) {
        let old = value
        value = new
        stack.registerUndo(withTarget: self, options: .init(cost: cost)) { $0.set(old, cost: cost, on: stack) }
    }
}

/// What a caller sees of a stack after a move: the value, the entries' names, the position and the
/// grouping level.
struct TrimRulesSnapshot: Equatable {
    var value: Int
    var undo: [String]
    var redo: [String]
    var position: Int
    var level: Int
}

extension TrimRulesFixtures {
    typealias Box = TrimRulesValue
    typealias Snapshot = TrimRulesSnapshot

    /// One closed step that sets `box` to `new`, named "v`new`".
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

    /// What a caller sees of `stack` and `box`.
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
}

/// A reference a notification observer can write to.
final class TrimRulesBox<Value>: @unchecked Sendable {  // written on the main actor only
    var value: Value
    init(_ value: Value) { self.value = value }
}
