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

/// A jump to the node the document is on does nothing, awaited as synchronously, even when the
/// step that leads there has nothing left to do after a peer's change and nothing has found it
/// dead yet: the awaited jump used to rebase that step, drop it and end on its parent (and on
/// through the dead steps above), where the synchronous jump stays.
@Suite @MainActor struct JumpToTheCurrentNodeAwaitedTests {
    /// "xyz": #1 types "A", #2 types "B", #3 types "C"; the peer erases the "B" (#2 has nothing
    /// left to do, not yet found), and an undo of #3 lands on #2.
    func document() -> SharedText {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = .tree
        let doc = SharedText("xyz", stack: stack)
        for (letter, offset) in [("A", 0), ("B", 1), ("C", 2)] {
            stack.beginUndoGrouping()
            doc.type(letter, at: offset)
            stack.endUndoGrouping()
        }
        doc.receive(.delete("B", at: 1))
        stack.undo()
        return doc
    }

    @Test(arguments: [false, true])
    func aJumpToTheCurrentNodeDoesNothing(awaited: Bool) async throws {
        let doc = document()
        let before = (doc.stack.currentNode, doc.stack.undoCount, doc.stack.redoCount, doc.text)
        #expect(before.0?.sequence == 2, "the undo lands on #2")
        #expect(before.1 == 2, "#2's dead step is not found yet: it counts")
        let moved: Bool
        if awaited {
            moved = try await doc.stack.performJump(toNode: .init(sequence: 2))
        } else {
            try doc.stack.jump(toNode: .init(sequence: 2))
            moved = doc.stack.currentNode != before.0
        }
        #expect(!moved)
        #expect(doc.stack.currentNode == before.0)
        #expect(doc.stack.undoCount == before.1)
        #expect(doc.stack.redoCount == before.2)
        #expect(doc.text == before.3)
    }
}
