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

/// A move in time passes over a number that no longer exists "to the next older node" (or newer),
/// a node found dead on the way included (BranchingHistory.md, UndoInASharedDocument.md). A move by
/// a duration counts from the date of the node it started on; when that node's own step is found
/// dead on the way (its node goes), the move still knows where it started: it passes over a dead
/// target as a move by a number of changes does, instead of ending on the target's parent.
@Suite @MainActor struct TimeMovesByDurationFromADeadStartTests {
    /// "xyz" (the root at 1000 s); #1 types "G" at 1100 s (then undone: a branch); #2 types "O" at
    /// 1200 s; #3 types "Q" at 1300 s; a peer erases the "O" and the "Q", which leaves #2 and #3
    /// with nothing to do, and nothing has looked at them.
    func document(awaited: Bool) -> DeadStepsText {
        let tree = DeadStepsText("xyz")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
        func at(_ seconds: Double) {
            stack.historyClock = { Date(timeIntervalSinceReferenceDate: seconds) }
        }
        at(1000)
        at(1100)
        step { doc.type("G", at: 0) }  // #1
        stack.undo()
        at(1200)
        if awaited { tree.awaitedStep(.insert("O", at: 0)) } else { step { doc.type("O", at: 0) } }  // #2
        at(1300)
        if awaited { tree.awaitedStep(.insert("Q", at: 1)) } else { step { doc.type("Q", at: 1) } }  // #3
        #expect(doc.text == "OQxyz")
        doc.receive(.delete("O", at: 0))
        doc.receive(.delete("Q", at: 0))
        #expect(doc.text == "xyz")
        #expect(stack.currentNode?.sequence == 3)
        return tree
    }

    /// Back by 100 s from #3 is #2 (made at 1200 s), dead: passed over to the next older node, #1
    /// (1100 s), in the other branch, as `earlier(1)` passes over it.
    @Test(arguments: [false, true])
    func aMoveBackByADurationPassesOverADeadTargetWhenItsStartWasDeadToo(awaited: Bool) async throws {
        let tree = document(awaited: awaited)
        try tree.stack.earlier(by: .seconds(100))
        if awaited {
            let request = try #require(tree.stack.startedRequest)
            _ = try await request.value()
        }
        #expect(tree.stack.currentNode?.sequence == 1)
        #expect(tree.doc.text == "Gxyz")
        tree.stack._checkInvariants()
    }

    /// The same history moved by one change: the reference for the duration move.
    @Test(arguments: [false, true])
    func aMoveBackByOneChangePassesOverTheSameDeadTarget(awaited: Bool) async throws {
        let tree = document(awaited: awaited)
        try tree.stack.earlier(1)
        if awaited {
            let request = try #require(tree.stack.startedRequest)
            _ = try await request.value()
        }
        #expect(tree.stack.currentNode?.sequence == 1)
        #expect(tree.doc.text == "Gxyz")
        tree.stack._checkInvariants()
    }
}
