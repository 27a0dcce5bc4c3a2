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

/// An observer of an operation in progress (``ActionStack/didUndoChangeNotification``, where an
/// app following Foundation updates its Edit menu) reads the next step as the next press will find
/// it: a step that a peer's change left with nothing to do is not offered, although the stack finds
/// it dead (and drops it from the counts) only once the call has ended. Found by the collaborative
/// driver (`CollaborativeDriverTests`, its notification observer).
@Suite @MainActor struct DeadStepsSeenByObserversTests {
    /// What an observer of one notification of `stack` read, once per notification.
    @MainActor final class Reader {
        let stack: ActionStack
        typealias Read = (
            canUndo: Bool, undoTitle: String, canRedo: Bool, redoTitle: String, undoCount: Int, redoCount: Int
        )
        var reads: [Read] = []
        var observer: (any NSObjectProtocol)?

        init(_ stack: ActionStack, _ name: Notification.Name) {
            self.stack = stack
            observer = NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) {
                [weak self] _ in
                MainActor.assumeIsolated {
                    guard let self else { return }
                    let stack = self.stack
                    self.reads.append(
                        (
                            stack.canUndo, stack.undoMenuItemTitle, stack.canRedo, stack.redoMenuItemTitle,
                            stack.undoCount, stack.redoCount
                        ))
                }
            }
        }

        func stop() { if let observer { NotificationCenter.default.removeObserver(observer) } }
    }

    func document(_ text: String = "") -> SharedText {
        let stack = ActionStack()
        stack.groupsByEvent = false
        return SharedText(text, stack: stack)
    }

    func step(_ document: SharedText, _ name: String, _ edit: TextEdit) {
        document.stack.beginUndoGrouping()
        document.edit(edit)
        document.stack.setActionName(name)
        document.stack.endUndoGrouping()
    }

    @Test func anObserverOfAnUndoIsNotOfferedAStepAPeerLeftWithNothingToDo() {
        let doc = document()
        step(doc, "Type A", .insert("A", at: 0))
        step(doc, "Type B", .insert("B", at: 1))
        doc.receive(.delete("A", at: 0))  // the peer deleted this user's A: "Type A" is dead
        let reader = Reader(doc.stack, ActionStack.didUndoChangeNotification)
        defer { reader.stop() }
        doc.stack.undo()
        #expect(doc.text == "")
        #expect(reader.reads.count == 1)
        let read = reader.reads[0]
        #expect(!read.canUndo, "the next undo does nothing: the menu must not offer it")
        #expect(read.undoTitle == "Undo")
        #expect(read.canRedo && read.redoTitle == "Redo Type B")
        #expect(read.undoCount == 1, "the dead step is found only once the call has ended")
        #expect(!doc.stack.canUndo)
        #expect(doc.stack.undoCount == 0, "found once the call has ended")
    }

    @Test func anObserverOfARedoIsNotOfferedARedoStepAPeerLeftWithNothingToDo() {
        let doc = document("xy")
        step(doc, "Erase y", .delete("y", at: 1))
        step(doc, "Erase x", .delete("x", at: 0))
        doc.stack.undo()
        doc.stack.undo()
        #expect(doc.text == "xy")
        doc.receive(.delete("x", at: 0))  // the peer erased x: redoing "Erase x" does nothing
        let reader = Reader(doc.stack, ActionStack.didRedoChangeNotification)
        defer { reader.stop() }
        doc.stack.redo()
        #expect(doc.text == "")
        let read = reader.reads[0]
        #expect(!read.canRedo, "the next redo does nothing: the menu must not offer it")
        #expect(read.redoTitle == "Redo")
        #expect(read.canUndo && read.undoTitle == "Undo Erase y")
        #expect(read.redoCount == 1, "the dead step is found only once the call has ended")
        #expect(!doc.stack.canRedo)
        #expect(doc.stack.redoCount == 0)
    }

    @Test func aLiveStepBelowADeadOneIsOfferedWithTheChangesCarriedPastTheDeadOne() {
        let doc = document()
        step(doc, "Type A", .insert("A", at: 0))
        step(doc, "Type B", .insert("B", at: 1))
        step(doc, "Type C", .insert("C", at: 2))
        doc.receive(.delete("B", at: 1))  // "Type B" is dead; "Type A" is live below it
        let reader = Reader(doc.stack, ActionStack.didUndoChangeNotification)
        defer { reader.stop() }
        doc.stack.undo()
        #expect(doc.text == "A")
        #expect(reader.reads[0].canUndo)
        #expect(reader.reads[0].undoTitle == "Undo Type A", "the dead step is passed over")
        doc.stack.undo()
        #expect(doc.text == "")
        #expect(!doc.stack.canUndo)
    }
}
