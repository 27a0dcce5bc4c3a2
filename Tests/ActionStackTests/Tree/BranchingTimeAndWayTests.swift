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

// Time moves and the way a move takes: earlier and later by a count or a duration follow the nodes'
// numbers and dates, and a jump re-plans its way when a step on it goes.

struct BranchingTimeAndWayTests {
    /// earlier(by:) goes to the newest node dated at or before the current node's date minus the
    /// duration (the root when none), later(by:) to the oldest dated at or after its date plus the
    /// duration (the newest when none), across branches. A clock that goes back dates a node as the
    /// last one.
    @Test func timeMovesByDurationFollowTheNodesDates() throws {
        let clock = ManualClock()
        let start = clock.now
        let stack = makeTreeStack(clock: clock)
        let document = TreeDoc(stack: stack)
        func change(_ text: String) {
            clock.advance(seconds: 10)
            document.set(text)
        }
        change("a")  // 1 at +10
        change("ab")  // 2 at +20
        change("abc")  // 3 at +30
        stack.undo()
        stack.undo()
        change("ax")  // 4 at +40
        change("axy")  // 5 at +50
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map { $0.date.timeIntervalSince(start) } == [0, 10, 20, 30, 40, 50])

        #expect(try stack.earlier(by: .milliseconds(500)) == node(4))
        #expect(try stack.earlier(by: .seconds(15)) == node(2), "dated 20 <= 40 - 15, on the other branch")
        #expect(document.text == "ab")
        #expect(try stack.later(by: .seconds(15)) == node(4), "the oldest dated >= 35")
        #expect(document.text == "ax")
        #expect(try stack.later(by: .seconds(1000)) == node(5), "none that late: the newest")
        #expect(try stack.earlier(by: .seconds(1000)) == node(0), "none that early: the root")
        #expect(document.text == "")
        #expect(try stack.later(by: .seconds(30)) == node(3))
        #expect(document.text == "abc")

        clock.advance(seconds: -100)
        change("abcd")  // 6: the clock went back
        #expect(stack.historyTree?[node(6)]?.date == stack.historyTree?[node(5)]?.date)
    }

    /// A jump sweeps freed targets between its steps: when a handler on the way frees the target of
    /// a step further on, that step's node goes and the jump still reaches its target.
    @Test func aJumpReplansWhenAStepOnTheWayGoes() throws {
        final class Holder { var counter: Counter? = Counter("b") }
        let stack = makeTreeStack()
        let a = Counter("a")
        let holder = Holder()
        group(stack) { a.set(1, on: stack) }  // 1
        group(stack) { holder.counter!.set(1, on: stack) }  // 2: only b
        group(stack) { a.set(3, on: stack) }  // 3
        stack.undo()
        stack.undo()
        stack.undo()
        group(stack) {  // 4: its undo frees b
            stack.registerUndo(withTarget: a) { a in
                holder.counter = nil
                a.set(0, on: stack)
            }
            a.value = 4
        }
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[2] 2:[3] 3:[] *4:[]")
        let recorder = NotificationRecorder(stack)
        try stack.jump(toNode: node(3))
        #expect(stack.currentNode == node(3))
        #expect(a.value == 3)
        #expect(shape(stack.historyTree) == "0:[1,4] 1:[3] *3:[] 4:[]")
        #expect(recorder.withoutCheckpoints == ["WillUndo", "DidUndo", "WillRedo", "DidRedo", "WillRedo", "DidRedo"])
        stack._checkInvariants()
    }

    /// When the chain redo would enter goes (its target freed), redo has nothing to enter; the
    /// other children stay, and choosing one makes redo enter it.
    @Test func whenTheRedoChainGoesTheOtherBranchesCanStillBeChosen() throws {
        let stack = makeTreeStack()
        let a = Counter("a")
        var b: Counter? = Counter("b")
        group(stack) { a.set(1, on: stack) }  // 1
        group(stack) { a.set(2, on: stack) }  // 2
        stack.undo()
        group(stack) { b!.set(3, on: stack) }  // 3: only b
        stack.undo()  // at 1: children 2 and 3, redo enters 3
        #expect(stack.state.redoNode == node(3))
        b = nil
        #expect(shape(stack.historyTree) == "0:[1] *1:[2] 2:[]")
        #expect(stack.redoBranches == [node(2)])
        #expect(stack.state.redoNode == nil)
        #expect(!stack.canRedo, "redo enters the child entered last, which is gone")
        try stack.selectRedoBranch(node(2))
        #expect(stack.state.redoNode == node(2))
        stack.redo()
        #expect(stack.currentNode == node(2))
        #expect(a.value == 2)
        stack._checkInvariants()
    }

    @Test func earlierLaterByCount() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        #expect(try stack.earlier(0) == node(4))
        #expect(try stack.earlier(-3) == node(4))
        #expect(try stack.earlier() == node(3), "g- crosses branches")
        #expect(doc.text == "abc")
        #expect(try stack.earlier(100) == node(0))
        #expect(doc.text == "")
        #expect(try stack.earlier() == node(0), "at the root nothing moves")
        #expect(try stack.later(100) == node(4))
        #expect(doc.text == "aX")
        #expect(try stack.later() == node(4))
        #expect(try stack.earlier(Int.max) == node(0))
        #expect(throws: ActionStack.HistoryTreeError.linearHistory) { try makeStack().earlier() }
        #expect(throws: ActionStack.HistoryTreeError.linearHistory) { try makeStack().later(by: .seconds(1)) }
    }

    @Test func laterByAHugeCountStopsAtTheNewest() async {
        // "forward by n to current + n (the newest node at most)": a count as large as the caller
        // likes (a UI passing Int.max for "go to the newest") must not trap.
        // Run in a child process, so that a regression is a failed test rather than a crashed run.
        await #expect(processExitsWith: .success) {
            let (stack, doc, clock) = htTree()
            htFork(doc, clock)
            try stack.jump(toNode: node(1))
            #expect(try stack.later(Int.max) == node(4))
        }
    }

    @Test func timeMovesPassOverMissingNumbers() throws {
        let (stack, doc, clock) = htTree()
        let pen = Pen(doc)
        doc.set("a", named: "A")  // 1
        doc.set("ab", named: "B", pen: pen)  // 2 (on the pen)
        stack.undo()
        doc.set("aY", named: "Y")  // 3
        stack.removeAllActions(withTarget: pen)  // node 2 goes
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 3])
        #expect(try stack.earlier() == node(1), "3 - 1 = 2 is gone: passed over to 1")
        #expect(try stack.later() == node(3), "1 + 1 = 2 is gone: passed over to 3")
        _ = clock
    }

    @Test func earlierLaterByDuration() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)  // 1 @10, 2 @20, 3 @30, 4 @40
        #expect(try stack.earlier(by: .zero) == node(4))
        #expect(try stack.earlier(by: .seconds(-5)) == node(4))
        #expect(try stack.earlier(by: .seconds(15)) == node(2), "newest made at or before 25 s")
        #expect(doc.text == "ab")
        #expect(try stack.later(by: .seconds(5)) == node(3), "oldest made at or after 25 s")
        #expect(try stack.later(by: .seconds(1000)) == node(4), "the newest node when none was")
        #expect(try stack.earlier(by: .seconds(1000)) == node(0))
        #expect(try stack.earlier(by: .milliseconds(1)) == node(0), "at the root nothing moves")
        #expect(doc.text == "")
    }

    /// The stated choice where vim differs (BranchingHistory, "move by time"): with changes made at
    /// 10 s and 20 s, `earlier(by: 8 s)` from the second goes to the first, the document as it was
    /// at 12 s; vim's `:earlier 8s` goes to the state before the change closest to that time, the
    /// root (recorded with `test_settime()` in vim 9.0). After an undo the move counts from the
    /// current node's date, where vim counts from the change just undone.
    @Test func aMoveByTimeGoesToTheNewestNodeMadeBeforeThatTimeNotVimsClosestChange() throws {
        let (stack, doc, clock) = htTree()
        clock.advance(seconds: 10)
        doc.set("a", named: "A")  // 1 @10
        clock.advance(seconds: 10)
        doc.set("ab", named: "B")  // 2 @20
        #expect(try stack.earlier(by: .seconds(8)) == node(1), "vim: node 0")
        #expect(doc.text == "a")
        try stack.jump(toNode: node(2))
        clock.advance(seconds: 80)
        doc.set("abc", named: "C")  // 3 @100
        stack.undo()  // at 2 (@20); vim counts from 3's time (100)
        #expect(try stack.earlier(by: .seconds(50)) == node(0), "20 - 50 s is before every change; vim: node 1")
    }

    @Test func earlierByDurationWithAClockThatWentBack() throws {
        // An app's clock is not monotonic (NTP, the user). The docs promise a node "made at least
        // that long before the current node's change"; earlier must never move forward in time.
        let (stack, doc, clock) = htTree()
        doc.set("a", named: "A")  // 1 @0
        clock.advance(seconds: -100)
        doc.set("ab", named: "B")  // 2 @-100
        clock.advance(seconds: 200)
        doc.set("abc", named: "C")  // 3 @100
        let reached = try stack.earlier(by: .seconds(50))
        #expect(reached < node(3))
        let date = try #require(stack.historyTree?[reached]?.date)
        #expect(date <= clock.now - 50)
        _ = doc
    }
}
