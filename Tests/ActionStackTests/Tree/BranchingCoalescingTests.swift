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

// Coalescing in a branching history: every tree move ends coalescing, and a step never grows across
// a fork.

struct BranchingCoalescingTests {
    enum Move: CaseIterable { case jump, timeMove }

    /// Typing coalesces within a branch, and a tree move ends it: back at the node typed last,
    /// the next keystroke is a new node, never part of the old step.
    @Test(arguments: Move.allCases)
    func aTreeMoveEndsCoalescing(move: Move) throws {
        let stack = makeTreeStack()
        stack.groupsByEvent = true
        stack.automaticGroupClosing = .manual
        let field = Field()
        func type(_ character: Character) {
            field.type(character, on: stack)
            stack.endEvent()
        }
        type("a")
        type("b")
        #expect(shape(stack.historyTree) == "0:[1] *1:[]")
        #expect(stack.historyTree?[node(1)]?.actionCount == 2, "typing coalesces")
        stack.undo()
        type("x")  // 2, a fork at the root
        #expect(shape(stack.historyTree) == "0:[1,2] 1:[] *2:[]")
        switch move {
        case .jump:
            try stack.jump(toNode: node(1))
            #expect(field.text == "ab")
            try stack.jump(toNode: node(2))
        case .timeMove:
            #expect(try stack.earlier() == node(1))
            #expect(field.text == "ab")
            #expect(try stack.later() == node(2))
        }
        #expect(field.text == "x")
        type("y")
        #expect(shape(stack.historyTree) == "0:[1,2] 1:[] 2:[3] *3:[]", "a new node, not a join")
        #expect(stack.historyTree?[node(2)]?.actionCount == 1)
        type("z")
        #expect(stack.historyTree?[node(3)]?.actionCount == 2, "coalescing goes on in the new branch")
        stack.undo()
        #expect(field.text == "x")
        try stack.jump(toNode: node(1))
        #expect(field.text == "ab")
        stack._checkInvariants()
    }

    @Test func coalescingNeverGrowsAcrossAFork() throws {
        let (stack, _, _) = htTree(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        func type(_ value: Int) {
            let old = counter.value
            stack.registerUndo(withTarget: counter, options: .coalescing("typing")) { c in
                c.set(old, on: stack)
            }
            counter.value = value
            stack.endEvent()
        }
        type(1)
        type(2)  // coalesces into node 1
        #expect(stack.currentNode == node(1))
        #expect(stack.undoCount == 1)
        stack.undo()
        type(3)  // node 2, child of 0
        #expect(stack.currentNode == node(2))
        try stack.jump(toNode: node(1))
        #expect(counter.value == 2)
        type(4)  // must be node 3, not coalesced into node 1 (the move ended coalescing)
        #expect(stack.currentNode == node(3))
        #expect(stack.historyTree?[node(3)]?.parent == node(1))
        try stack.jump(toNode: node(2))
        #expect(counter.value == 3)
        type(5)  // node 4, child of 2
        #expect(stack.currentNode == node(4))
        try stack.jump(toNode: node(3))
        #expect(counter.value == 4)
        stack.undo()
        #expect(counter.value == 2)
        // A time move ends coalescing too, even one that lands on a coalescing leaf.
        try stack.earlier(1)  // 1 -> 0
        #expect(try stack.later(4) == node(4))
        type(6)
        #expect(stack.currentNode == node(5))
        stack.undo()
        #expect(counter.value == 5)
    }
}
