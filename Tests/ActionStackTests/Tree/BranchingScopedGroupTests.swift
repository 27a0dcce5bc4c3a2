// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

// Scoped groups in a branching history: a scope that succeeds is one node; one that throws leaves
// the tree exactly as it was, with or without event groups.

struct BranchingScopedGroupTests {
    /// A scoped group whose body throws leaves the tree as it was: the branch its registration
    /// left is entered again (the redo choice restored), nothing is pruned (the limit is applied
    /// after the rollback), and no number is taken.
    @Test(arguments: [false, true])
    func aThrowingScopedGroupLeavesTheTreeExactlyAsItWas(groupsByEvent: Bool) throws {
        let stack = makeTreeStack()
        stack.maximumBranchSteps = 1
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        document.set("ac")  // 3
        stack.undo()
        try stack.selectRedoBranch(node(2))
        stack.groupsByEvent = groupsByEvent  // the scope's begin opens the event's group too
        stack.automaticGroupClosing = .manual
        let before = Seen(stack, document)
        #expect(before.state.redoNode == node(2))
        #expect(shape(before.tree) == "0:[1] *1:[2,3] 2:[] 3:[]")

        #expect(throws: Failure.self) {
            try stack.group(named: "Fail") {
                document.replace(with: "zzz")
                document.replace(with: "zzzz")
                throw Failure()
            }
        }
        #expect(Seen(stack, document) == before)
        #expect(stack.groupingLevel == 0)
        stack.redo()
        #expect(document.text == "ab", "redo still enters the chosen branch")
        stack.undo()
        stack.groupsByEvent = false
        document.set("ad")
        #expect(stack.currentNode == node(4), "the failed scope took no number")
        stack._checkInvariants()
    }

    @Test func aScopedGroupThatSucceedsIsOneNode() throws {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        document.set("a")
        stack.undo()
        stack.group(named: "Both") {
            document.replace(with: "b")
            document.replace(with: "bc")
        }
        let tree = try #require(stack.historyTree)
        #expect(shape(tree) == "0:[1,2] 1:[] *2:[]")
        #expect(tree[node(2)]?.actionName == "Both")
        #expect(tree[node(2)]?.actionCount == 2)
        #expect(tree[node(2)]?.title == "Undo Both")
        #expect(tree[node(1)]?.title == "Redo Edit")
    }

    @Test func throwingScopedGroupLeavesTheTreeAsItWas() throws {
        struct Boom: Error {}
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.undo()
        try stack.selectRedoBranch(node(2))
        let before = stack.historyTree
        #expect(throws: Boom.self) {
            try stack.group(named: "Fail") {
                doc.replace(with: "zzz")
                doc.replace(with: "zzzz")
                throw Boom()
            }
        }
        #expect(doc.text == "a")
        #expect(stack.historyTree == before)
        #expect(stack.state.redoNode == node(2))
        #expect(stack.redoBranches == [node(2), node(4)])
        stack.redo()
        #expect(doc.text == "ab")
        stack.undo()
        doc.set("n", named: "N")
        #expect(stack.currentNode == node(5), "the tree 'as it was': the next change is #5")
    }

    @Test func throwingScopedGroupWithEventGroupLeavesTheTreeAsItWas() throws {
        struct Boom: Error {}
        let (stack, doc, clock) = htTree(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        doc.set("a", named: "A")
        doc.set("ab", named: "B")
        stack.endEvent()
        stack.undo()
        let before = stack.historyTree
        #expect(throws: Boom.self) {
            try stack.group(named: "Fail") {
                doc.replace(with: "zzz")
                throw Boom()
            }
        }
        stack.endEvent()
        #expect(doc.text == "")
        #expect(stack.historyTree == before)
        #expect(stack.canRedo)
        _ = clock
    }
}
