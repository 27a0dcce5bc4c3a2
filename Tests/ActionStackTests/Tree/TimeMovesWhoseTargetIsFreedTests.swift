// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Testing

/// The synchronous and the awaited moves take their steps from one walk (issue 31's one step
/// machine), so they keep one rule where the way changes under them. Here: a time move whose target
/// goes because its step's target is freed on the way (by a handler of a step the move undoes) ends
/// where it is, synchronous or awaited. Before the walk was shared, the awaited move resolved its
/// target again from where it started and went on to the root, past a step the synchronous move
/// kept (a step found dead once rebased is passed over by both: see `TreeMovesPastDeadStepsTests`).
@MainActor @Suite struct TimeMovesWhoseTargetIsFreedTests {
    final class Box {}

    /// #1 a step on a box held only by `holder`; #2 a step on another object (awaited, with
    /// `awaited`); #3 a step whose undo lets the box go. `earlier(2)` from #3 aims at #1: the first
    /// undo frees the box, #1 goes with its step, and the move ends on #2.
    @Test(arguments: [false, true])
    func aTimeMoveWhoseTargetIsFreedOnTheWayEndsWhereItIs(awaited: Bool) async throws {
        let stack = makeStack()
        stack.historyShape = .tree
        var holder: Box? = Box()
        let other = Box()
        let remote = RemoteValue()
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: holder!) { _ in }
        stack.endUndoGrouping()
        if awaited {
            try await remote.change(to: 1, on: stack)
        } else {
            stack.beginUndoGrouping()
            stack.registerUndo(withTarget: other) { _ in }
            stack.endUndoGrouping()
        }
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: other) { _ in holder = nil }
        stack.endUndoGrouping()
        #expect(stack.currentNode?.sequence == 3)
        let reached = try stack.earlier(2)
        // Synchronous: the node reached; routed to a request: its target when it was asked.
        #expect(reached.sequence == (awaited ? 1 : 2))
        if awaited {
            let request = try #require(stack.startedRequest)
            _ = try await request.value()
            #expect(remote.value == 1, "the awaited step #2 was not undone")
        }
        #expect(holder == nil)
        #expect(stack.currentNode?.sequence == 2, "the move ended where its target went")
        // #3's undo registered no redo: its node went with its empty redo step.
        #expect(stack.historyTree?.nodes.map(\.sequence).sorted() == [0, 2])
        #expect(stack.undoCount == 1)
        stack._checkInvariants()
    }
}
