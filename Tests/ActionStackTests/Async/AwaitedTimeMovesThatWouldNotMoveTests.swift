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

/// "A move that would not move (a jump to the current node, a time move by 0 or past an end) does
/// nothing at all and leaves an open group open" (BranchingHistory.md), whether the move runs at
/// once or is started as a request because the open group holds an asynchronous action. The
/// request decides whether it moves from where the document is, before it closes the group, as the
/// synchronous move does; before, it closed the group first, so the group became a node and the
/// move then found nothing to do from it.
@MainActor @Suite(.serialized, .timeLimit(.minutes(10))) struct AwaitedTimeMovesThatWouldNotMoveTests {
    enum Move: String, CaseIterable, Sendable {
        case earlierByZero, laterAtTheNewest, earlierByNoTime, laterByAnHourAtTheNewest

        @MainActor func run(on stack: ActionStack) throws {
            switch self {
            case .earlierByZero: try stack.earlier(0)
            case .laterAtTheNewest: try stack.later()
            case .earlierByNoTime: try stack.earlier(by: .zero)
            case .laterByAnHourAtTheNewest: try stack.later(by: .seconds(3600))
            }
        }
    }

    @Test(arguments: Move.allCases, [false, true])
    func aTimeMoveThatWouldNotMoveLeavesTheOpenGroupOpen(move: Move, awaited: Bool) async throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        try await remote.change(to: 2, on: stack)
        #expect(stack.currentNode?.sequence == 2)
        stack.beginUndoGrouping()
        if awaited {
            try await remote.set(3, on: stack)
        } else {
            let other = RemoteValue()
            stack.registerUndo(withTarget: other) { _ in }
        }
        try move.run(on: stack)
        if let request = stack.startedRequest {
            _ = try await request.value()
        }
        #expect(stack.groupingLevel == 1, "the open group stays open")
        #expect(stack.currentNode?.sequence == 2)
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2])
        stack.endUndoGrouping()
        #expect(stack.currentNode?.sequence == 3, "the group, closed by its owner, is the next change")
        stack._checkInvariants()
    }
}
