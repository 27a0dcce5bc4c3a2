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

/// A move in a branching history closes the one open group first: "it is the newest change and
/// becomes a node of its own" (BranchingHistory.md), trimmed to ``ActionStack/levelsOfUndo`` as any
/// closed group is, before the move finds its way. The awaited move (a request, since the group's
/// step awaits) does the same as the synchronous one: before, the request put the group's trim off
/// until the move had ended (a limit set during a move waits; this one was set before it), so the
/// move went into a branch the synchronous move had already lost with the old root, and reached
/// another node (found by `AwaitedTimeMovesAgreeTests`, seed 1).
@Suite(.timeLimit(.minutes(10))) @MainActor struct TreeMovesThatCloseAnOpenGroupUnderALimitTests {
    /// "" at 1000 s; #1 types "A" at 1010 s; #2 types "B" at 1020 s; both undone; #3 types "C" at
    /// 1030 s (#1 and #2 a branch of the root); the undo levels set to 1; a group typing "D" is open
    /// at 1040 s. Back by 25 s: the group closes (#4) and the trim makes #3 the root, which drops
    /// the root's other branch; from #4 the move resolves to #1, gone, so to the root, #3.
    @Test(arguments: [false, true])
    func aMoveClosesTheOpenGroupAndTrimsItBeforeItFindsItsWay(awaited: Bool) async throws {
        let tree = DeadStepsText("")
        let (stack, doc) = (tree.stack, tree.doc)
        func at(_ seconds: Double) { stack.historyClock = { Date(timeIntervalSinceReferenceDate: seconds) } }
        func type(_ string: String) {
            stack.beginUndoGrouping()
            AwaitedTimeMovesAgreeTests.type(string, at: 0, in: doc, awaited: awaited)
            stack.endUndoGrouping()
        }
        at(1000)
        at(1010)
        type("A")
        at(1020)
        type("B")
        try await stack.performUndo()
        try await stack.performUndo()
        at(1030)
        type("C")
        stack.levelsOfUndo = 1
        at(1040)
        stack.beginUndoGrouping()
        AwaitedTimeMovesAgreeTests.type("D", at: 0, in: doc, awaited: awaited)
        let before = stack.startedRequest
        try stack.earlier(by: .seconds(25))
        if let request = stack.startedRequest, request !== before { _ = try await request.value() }
        #expect(stack.groupingLevel == 0)
        #expect(doc.text == "C")
        #expect(stack.currentNode?.sequence == 3)
        #expect(stack.historyTree?.nodes.map(\.sequence) == [3, 4])
        #expect(stack.redoCount == 1)
        stack._checkInvariants()
    }
}
