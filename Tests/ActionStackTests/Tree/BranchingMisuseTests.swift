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

// Misuse in a branching history: tree moves from a handler or from an operation's observers are
// refused and change nothing; observers may move at the end of a call.

struct BranchingMisuseTests {
    /// 0 - 1 - {2, 3 - 4}, at 4, whose undo handler runs `body`.
    private func makeTree(_ body: @escaping (ActionStack) -> Void) -> (ActionStack, TreeDoc, MisuseLog) {
        let stack = makeTreeStack()
        let misuses = MisuseLog(stack)
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        document.set("ac")  // 3
        group(stack) {
            stack.registerUndo(withTarget: document) { document in
                body(stack)
                document.replace(with: "ac")
            }
            document.text = "acd"
        }  // 4
        return (stack, document, misuses)
    }

    @Test func treeMovesFromAHandlerAreRefusedAndChangeNothing() throws {
        let (stack, document, misuses) = makeTree { stack in
            _ = try? stack.jump(toNode: node(0))
            _ = try? stack.selectRedoBranch(node(2))
            _ = try? stack.earlier()
            _ = try? stack.later()
            _ = try? stack.earlier(by: .seconds(60))
            _ = try? stack.later(by: .seconds(60))
        }
        stack.undo()
        #expect(
            misuses.all == [
                .reentrantCall(.jumpToNode, during: .undoing),
                .reentrantCall(.selectRedoBranch, during: .undoing),
                .reentrantCall(.earlier, during: .undoing),
                .reentrantCall(.later, during: .undoing),
                .reentrantCall(.earlier, during: .undoing),
                .reentrantCall(.later, during: .undoing),
            ])
        #expect(document.text == "ac")
        #expect(stack.currentNode == node(3))
        #expect(stack.state.redoNode == node(4))
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[] *3:[4] 4:[]")
        stack._checkInvariants()
    }

    @Test func treeMovesFromNotificationObserversAreRefusedAndChangeNothing() throws {
        let stack = makeTreeStack()
        let misuses = MisuseLog(stack)
        let document = TreeDoc(stack: stack)
        document.set("a")  // 1
        document.set("ab")  // 2
        stack.undo()
        document.set("ac")  // 3
        let hooks = [
            NotificationHook(ActionStack.willUndoChangeNotification, stack) { _ = try? $0.jump(toNode: node(0)) },
            NotificationHook(ActionStack.didUndoChangeNotification, stack) { _ = try? $0.earlier(2) },
            NotificationHook(ActionStack.willRedoChangeNotification, stack) { _ = try? $0.selectRedoBranch(node(2)) },
            NotificationHook(ActionStack.didRedoChangeNotification, stack) { _ = try? $0.later() },
            NotificationHook(ActionStack.willCloseUndoGroupNotification, stack) { _ = try? $0.jump(toNode: node(1)) },
        ]
        stack.undo()
        #expect(
            misuses.all == [
                .reentrantCall(.jumpToNode, during: .notifyingUndo),
                .reentrantCall(.earlier, during: .notifyingUndo),
            ])
        #expect(stack.currentNode == node(1))
        #expect(document.text == "a")
        stack.redo()
        #expect(stack.currentNode == node(3))
        #expect(document.text == "ac")
        // During a jump: each step's observers are refused too, and the jump ends where it meant.
        try stack.jump(toNode: node(2))
        #expect(stack.currentNode == node(2))
        #expect(document.text == "ab")
        // A group's will-close observer is refused as well.
        document.set("abx")  // 4
        #expect(stack.currentNode == node(4))
        #expect(
            misuses.all == [
                .reentrantCall(.jumpToNode, during: .notifyingUndo),
                .reentrantCall(.earlier, during: .notifyingUndo),
                .reentrantCall(.selectRedoBranch, during: .notifyingRedo),
                .reentrantCall(.later, during: .notifyingRedo),
                // The jump 3 -> 1 -> 2: one undo, one redo.
                .reentrantCall(.jumpToNode, during: .notifyingUndo),
                .reentrantCall(.earlier, during: .notifyingUndo),
                .reentrantCall(.selectRedoBranch, during: .notifyingRedo),
                .reentrantCall(.later, during: .notifyingRedo),
                .reentrantCall(.jumpToNode, during: .closingGroup),
            ])
        #expect(shape(stack.historyTree) == "0:[1] 1:[2,3] 2:[4] 3:[] *4:[]")
        withExtendedLifetime(hooks) {}
        stack._checkInvariants()
    }

    @Test func movesFromAHandlerAreRefused() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let probe = Counter("probe")
        var misuses: [ActionStack.Misuse] = []
        stack.onMisuse = { misuses.append($0) }
        group(stack) {
            stack.registerUndo(withTarget: probe) { _ in
                _ = try? stack.jump(toNode: node(3))
                _ = try? stack.earlier()
                _ = try? stack.later(by: .seconds(1))
                _ = try? stack.selectRedoBranch(node(2))
            }
        }
        // Node 5: its undo runs the probe handler.
        stack.undo()
        #expect(
            misuses == [
                .reentrantCall(.jumpToNode, during: .undoing),
                .reentrantCall(.earlier, during: .undoing),
                .reentrantCall(.later, during: .undoing),
                .reentrantCall(.selectRedoBranch, during: .undoing),
            ])
        #expect(stack.currentNode == node(4))
        #expect(doc.text == "aX")
    }

    @Test func movesFromObserversOfAnOperationAreRefused() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let seen = HTBox<[ActionStack.Misuse?]>([])
        let willUndo = observe(ActionStack.willUndoChangeNotification, of: stack) { stack in
            stack.lastMisuse = nil
            _ = try? stack.jump(toNode: node(3))
            seen.value.append(stack.lastMisuse)
            stack.lastMisuse = nil
            _ = try? stack.selectRedoBranch(node(2))
            seen.value.append(stack.lastMisuse)
        }
        stack.undo()
        NotificationCenter.default.removeObserver(willUndo)
        #expect(
            seen.value == [
                .reentrantCall(.jumpToNode, during: .notifyingUndo),
                .reentrantCall(.selectRedoBranch, during: .notifyingUndo),
            ])
        #expect(stack.currentNode == node(1))
        #expect(stack.state.redoNode == node(4))
        // A checkpoint observer of a jump is in `jumping`.
        let jumpSeen = HTBox<[ActionStack.Misuse?]>([])
        let checkpoint = observe(ActionStack.checkpointNotification, of: stack) { stack in
            stack.lastMisuse = nil
            _ = try? stack.later()
            jumpSeen.value.append(stack.lastMisuse)
        }
        stack.beginUndoGrouping()
        doc.replace(with: "open")
        stack.lastMisuse = nil
        try stack.jump(toNode: node(3))
        NotificationCenter.default.removeObserver(checkpoint)
        #expect(jumpSeen.value.contains(.reentrantCall(.later, during: .jumping)))
        #expect(doc.text == "abc")
    }

    @Test func observersMayMoveAtTheEndOfACall() throws {
        // An app's "follow the newest" observer: after any change, go to the newest node.
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        var moves = 0
        let token = stack.observe { state in
            guard moves < 3, state.currentNode == node(1) else { return }
            moves += 1
            _ = try? stack.later(100)
        }
        stack.undo()  // to 1; the observer moves to the newest (4)
        #expect(stack.lastMisuse == nil)
        #expect(stack.currentNode == node(4))
        #expect(doc.text == "aX")
        _ = token
    }

    @Test func cleanStateObserverJumps() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        stack.markClean()  // 4 clean
        let jumps = HTBox(0)
        let token = observe(ActionStack.cleanStateDidChangeNotification, of: stack) { stack in
            guard jumps.value == 0, !stack.isClean else { return }
            jumps.value += 1
            try? stack.jump(toNode: node(3))
        }
        stack.undo()
        NotificationCenter.default.removeObserver(token)
        #expect(stack.lastMisuse == nil)
        #expect(stack.currentNode == node(3))
        #expect(doc.text == "abc")
        #expect(stack.isClean == false)
    }

    @Test func markCleanFromADidRedoObserverOfAJump() throws {
        let (stack, doc, clock) = htTree()
        htFork(doc, clock)
        let marked = HTBox(false)
        let token = observe(ActionStack.didRedoChangeNotification, of: stack) { stack in
            guard !marked.value else { return }
            marked.value = true
            stack.markClean()  // allowed in notifyingRedo: the document is in node 2 now
        }
        try stack.jump(toNode: node(3))
        NotificationCenter.default.removeObserver(token)
        #expect(stack.lastMisuse == nil)
        #expect(stack.historyTree?.clean == node(2))
        #expect(stack.isClean == false)
        stack.undo()
        #expect(stack.isClean)
        #expect(doc.text == "ab")
    }
}
