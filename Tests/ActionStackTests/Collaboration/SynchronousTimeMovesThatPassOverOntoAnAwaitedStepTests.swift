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

/// A synchronous move in a branching history never performs an asynchronous step as if it were
/// synchronous (its awaited work dropped, its inverse never registered, the document not changed
/// while the history says it moved). A time move decides whether it is a request from the steps on
/// the way to the node it resolves to; when that node is found dead on the way and the move passes
/// over it to a node whose way holds an asynchronous step, the rest of the move is started as a
/// request, as a move with that step on its way from the start is (found by
/// `AwaitedTimeMovesAgreeTests`, seed 58).
@Suite(.timeLimit(.minutes(10))) @MainActor struct SynchronousTimeMovesThatPassOverOntoAnAwaitedStepTests {
    /// "xyz"; #1 types "E", awaited (then undone: a branch); #2 types "F"; the peer erases the "F"
    /// (#2 has nothing left to do, and nothing has looked at it); #3 types "G". Back by one from #3
    /// is #2, reached by undoing #3 (a synchronous step): #2 found dead, the move passes over it to
    /// #1, whose step awaits.
    @Test func aTimeMoveThatPassesOverADeadTargetOntoAnAwaitedStepAwaitsIt() async throws {
        let tree = DeadStepsText("xyz")
        let (stack, doc, step) = (tree.stack, tree.doc, tree.step)
        tree.awaitedStep(.insert("E", at: 0))  // #1
        try await stack.performUndo()
        step { doc.type("F", at: 0) }  // #2
        doc.receive(.delete("F", at: 0))
        step { doc.type("G", at: 0) }  // #3
        #expect(doc.text == "Gxyz")
        let before = stack.startedRequest
        try stack.earlier(1)
        if let request = stack.startedRequest, request !== before { _ = try await request.value() }
        #expect(stack.currentNode?.sequence == 1)
        #expect(doc.text == "Exyz", "#1's awaited edit ran")
        #expect(stack.historyTree?[.init(sequence: 1)]?.actionCount == 1, "#1's inverse was registered")
        try await stack.performUndo()
        #expect(doc.text == "xyz")
        #expect(stack.currentNode?.sequence == 0)
        stack._checkInvariants()
    }
}
