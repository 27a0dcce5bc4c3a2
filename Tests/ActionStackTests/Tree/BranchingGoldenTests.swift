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

// Golden tests: histories from the two anchors of the branching history, rebuilt step by step with
// ActionStack, checked against the texts (and, for vim, the change numbers) the anchors give.

struct VimGoldenTests {
    /// vim's `:help undo-branches` (runtime/doc/undo.txt, section 4, "EXAMPLE"), word for word:
    ///
    ///     Start with this text:            one two three
    ///     Delete the first word by pressing "x" three times:
    ///                                      ne two three / e two three / " two three"
    ///     Now undo that by pressing "u" three times:
    ///                                      e two three / ne two three / one two three
    ///     Delete the second word by pressing "x" three times:
    ///                                      one wo three / one o three / "one  three"
    ///     Now undo that by using "g-" three times:
    ///                                      one o three / one wo three / " two three"
    ///     You are now back in the first undo branch, after deleting "one".  Repeating
    ///     "g-" will now bring you back to the original text:
    ///                                      e two three / ne two three / one two three
    ///     Jump to the last change with ":later 1h":     "one  three"
    ///     And back to the start again with ":earlier 1h":   one two three
    ///
    /// The change numbers in the comments are vim 9.0's `changenr()` after each command, from
    /// `vim -Nu NONE -es` running the same keys (with the undo sequence broken after each "x").
    @Test func theOneTwoThreeExampleOfUndoBranches() throws {
        let clock = ManualClock()
        let stack = makeTreeStack(clock: clock)
        let document = TreeDoc("one two three", stack: stack)
        func change(_ text: String) {
            clock.advance(seconds: 1)  // a keystroke a second
            document.set(text, named: "x")
        }
        var seen: [String] = []

        // Delete the first word by pressing "x" three times: changes 1, 2, 3.
        for text in ["ne two three", "e two three", " two three"] {
            change(text)
            seen.append(document.text)
        }
        #expect(seen == ["ne two three", "e two three", " two three"])
        #expect(stack.currentNode == node(3))

        // Now undo that by pressing "u" three times: 2, 1, 0.
        seen = []
        for _ in 0..<3 {
            stack.undo()
            seen.append(document.text)
        }
        #expect(seen == ["e two three", "ne two three", "one two three"])
        #expect(stack.currentNode == node(0))

        // Delete the second word by pressing "x" three times: changes 4, 5, 6, a second branch.
        seen = []
        for text in ["one wo three", "one o three", "one  three"] {
            change(text)
            seen.append(document.text)
        }
        #expect(seen == ["one wo three", "one o three", "one  three"])
        #expect(stack.currentNode == node(6))
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[2] 2:[3] 3:[] 4:[5] 5:[6] *6:[]")
        // `:undolist` shows the leaves 3 and 6, each 3 changes from the root.
        let tree = try #require(stack.historyTree)
        #expect(tree.leaves.map(\.sequence) == [3, 6])
        #expect(tree.leaves.map { tree.path(to: $0.id).count - 1 } == [3, 3])

        // Now undo that by using "g-" three times: 5, 4, then 3, in the first branch.
        var reached: [Int] = []
        seen = []
        for _ in 0..<3 {
            reached.append(try stack.earlier().sequence)
            seen.append(document.text)
        }
        #expect(seen == ["one o three", "one wo three", " two three"])
        #expect(reached == [5, 4, 3])

        // Repeating "g-" will now bring you back to the original text: 2, 1, 0.
        reached = []
        seen = []
        for _ in 0..<3 {
            reached.append(try stack.earlier().sequence)
            seen.append(document.text)
        }
        #expect(seen == ["e two three", "ne two three", "one two three"])
        #expect(reached == [2, 1, 0])
        // (vim: one more "g-" at the original text stays at 0.)
        #expect(try stack.earlier() == node(0))
        #expect(document.text == "one two three")

        // Jump to the last change with ":later 1h": 6.
        #expect(try stack.later(by: .seconds(3600)) == node(6))
        #expect(document.text == "one  three")

        // And back to the start again with ":earlier 1h": 0.
        #expect(try stack.earlier(by: .seconds(3600)) == node(0))
        #expect(document.text == "one two three")

        // vim, beyond the help: "g+" from the start visits every state in change order (1 to 6),
        // then stays at 6.
        reached = []
        seen = []
        for _ in 0..<7 {
            reached.append(try stack.later().sequence)
            seen.append(document.text)
        }
        #expect(reached == [1, 2, 3, 4, 5, 6, 6])
        #expect(
            seen == [
                "ne two three", "e two three", " two three", "one wo three", "one o three", "one  three",
                "one  three",
            ])

        // vim: ":undo 3", "u", CTRL-R gives " two three" (3): redo enters the branch the jump
        // entered. ":undo 0", CTRL-R gives "ne two three" (1).
        try stack.jump(toNode: node(3))
        #expect(document.text == " two three")
        stack.undo()
        #expect(document.text == "e two three")
        #expect(stack.currentNode == node(2))
        stack.redo()
        #expect(document.text == " two three")
        #expect(stack.currentNode == node(3))
        try stack.jump(toNode: node(0))
        stack.redo()
        #expect(document.text == "ne two three")
        #expect(stack.currentNode == node(1))
        #expect(stack.historyTree.map(\.nodes.count) == 7, "no move made or lost a node")
        stack._checkInvariants()
    }

    /// vim's user manual, `:help usr_32.txt`, sections 32.2 and 32.3:
    ///
    ///     Let's start with the text "one".  The first change to make is to append " too".  And
    ///     then move to the first 'o' and change it into 'w'.  [...] If we now undo one change,
    ///     back to "one too", and change "one" to "me" we create a branch in the undo tree [...]
    ///     You can now use the |u| command to undo.  If you do this twice you get to "one".  Use
    ///     |CTRL-R| to redo, and you will go to "one too".  One more |CTRL-R| takes you to
    ///     "me too".  [...] :undo 2  The text is now "one two" [...] Now make another change:
    ///     change "one" to "not" [...] You can repeat |g-| and you will see the text change:
    ///         me too / one two / one too / one
    ///     Use |g+| to move forward in time:
    ///         one / one too / one two / me too / not two
    ///
    /// (vim 9.0 run headless gives the same change numbers: 1, 2, 3, then 4 for "not two".)
    @Test func theUserManualsOneTooExample() throws {
        let stack = makeTreeStack()
        let document = TreeDoc("one", stack: stack)
        document.set("one too")  // change 1
        document.set("one two")  // change 2
        stack.undo()
        #expect(document.text == "one too")
        document.set("me too")  // change 3
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[] *3:[]")

        stack.undo()
        stack.undo()
        #expect(document.text == "one")
        stack.redo()
        #expect(document.text == "one too")
        stack.redo()
        #expect(document.text == "me too", "undo and redo use the branch that was last used")

        try stack.jump(toNode: node(2))  // :undo 2
        #expect(document.text == "one two")
        document.set("not two")  // change 4
        #expect(stack.currentNode == node(4))
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[4] 3:[] *4:[]")

        var seen: [String] = []
        for _ in 0..<4 {
            try stack.earlier()
            seen.append(document.text)
        }
        #expect(seen == ["me too", "one two", "one too", "one"])

        seen = [document.text]
        for _ in 0..<4 {
            try stack.later()
            seen.append(document.text)
        }
        #expect(seen == ["one", "one too", "one two", "me too", "not two"])
        stack._checkInvariants()
    }
}

struct UndoCrateGoldenTests {
    /// The tree of the Rust `undo` crate's `go_to` test: evenorog/undo, tests/history.rs (commit
    /// 69710712888ac51c6ac538f6958c039efa765a36). Its target is a `String` and each edit `Add(c)`
    /// pushes one character:
    ///
    ///     //          m
    ///     //          |
    ///     //    j  k  l
    ///     //     \ | /
    ///     //       i
    ///     //       |
    ///     // e  g  h
    ///     // |  | /
    ///     // d  f  p - q *
    ///     // | /  /
    ///     // c  n - o
    ///     // | /
    ///     // b
    ///     // |
    ///     // a
    ///
    /// The same edits, undos and `go_to` jumps, with ActionStack's numbers: a change takes the next
    /// number, so `a` is node 1 ... `q` node 17, and the crate's `At::new(abc.root, 2)` (the state
    /// after two edits on the root branch) is node 2, "ab".
    @Test func theGoToTreeOfTheUndoCrate() throws {
        let stack = makeTreeStack()
        let target = TreeDoc(stack: stack)
        for character in ["a", "b", "c", "d", "e"] { target.append(character) }
        #expect(target.text == "abcde")
        stack.undo()
        stack.undo()
        #expect(target.text == "abc")
        let abc = try #require(stack.currentNode)

        target.append("f")
        target.append("g")
        #expect(target.text == "abcfg")
        let abcfg = try #require(stack.currentNode)

        stack.undo()
        target.append("h")
        target.append("i")
        target.append("j")
        #expect(target.text == "abcfhij")
        let abcfhij = try #require(stack.currentNode)

        stack.undo()
        target.append("k")
        #expect(target.text == "abcfhik")
        let abcfhik = try #require(stack.currentNode)

        stack.undo()
        target.append("l")
        #expect(target.text == "abcfhil")
        target.append("m")
        #expect(target.text == "abcfhilm")
        let abcfhilm = try #require(stack.currentNode)
        try stack.jump(toNode: node(2))  // history.go_to(&mut target, At::new(abc.root, 2))
        #expect(target.text == "ab")
        target.append("n")
        target.append("o")
        #expect(target.text == "abno")
        let abno = try #require(stack.currentNode)

        stack.undo()
        target.append("p")
        target.append("q")
        #expect(target.text == "abnpq")
        let abnpq = try #require(stack.currentNode)

        #expect(sequences([abc, abcfg, abcfhij, abcfhik, abcfhilm, abno, abnpq]) == [3, 7, 10, 11, 13, 15, 17])
        // The picture: b forks to c and n; c to d and f; f to g and h; i to j, k and l; n to o and p.
        #expect(
            shape(stack.historyTree)
                == "0:[1] 1:[2] 2:[3,14] 3:[4,6] 4:[5] 5:[] 6:[7,8] 7:[] 8:[9] 9:[10,11,12] 10:[] 11:[] "
                + "12:[13] 13:[] 14:[15,16] 15:[] 16:[17] *17:[]")
        let tree = try #require(stack.historyTree)
        #expect(tree.leaves.map(\.sequence) == [5, 7, 10, 11, 13, 15, 17])
        #expect(tree[node(13)]?.actionName == "m")
        #expect(tree.path(to: node(13)).map(\.actionName).joined() == "abcfhilm")

        var seen: [String] = []
        for id in [abc, abcfg, abcfhij, abcfhik, abcfhilm, abno, abnpq] {
            try stack.jump(toNode: id)  // history.go_to(&mut target, ...)
            #expect(stack.currentNode == id)
            seen.append(target.text)
        }
        #expect(seen == ["abc", "abcfg", "abcfhij", "abcfhik", "abcfhilm", "abno", "abnpq"])
        #expect(shape(stack.historyTree) == shape(tree), "the jumps neither made nor lost a node")
        // Each fork remembers the child entered last; undo never changed it.
        let after = try #require(stack.historyTree)
        #expect([2, 3, 6, 9, 14].map { after[node($0)]?.redoChild?.sequence } == [14, 6, 8, 12, 16])
        stack._checkInvariants()
    }
}
