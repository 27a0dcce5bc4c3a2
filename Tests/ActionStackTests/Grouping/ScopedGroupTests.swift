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

/// A counter that a `@Sendable` notification block may use (the stack posts on the test's thread).
final class ObserverCounter: @unchecked Sendable {
    let counter = Counter()
    var armed = false
}

struct ScopedGroupTests {

    @Test func aScopedGroupIsOneNamedStep() {
        let stack = makeStack()
        let counter = Counter()
        let result = stack.group(named: "Twice") {
            counter.set(1, on: stack)
            counter.set(2, on: stack)
            return counter.value
        }
        #expect(result == 2)
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Twice")
        stack.undo()
        #expect(counter.value == 0)
    }

    @Test func aThrowingBodyIsRolledBackAndTheErrorPassedOn() {
        let stack = makeStack()
        let counter = Counter()
        group(stack, named: "Keep") { counter.set(1, on: stack) }
        let recorder = NotificationRecorder(stack)
        #expect(throws: Failure()) {
            try stack.group(named: "Fails") {
                counter.set(2, on: stack)
                counter.set(3, on: stack)
                throw Failure()
            }
        }
        #expect(counter.value == 1, "the model is back where it was")
        #expect(stack.undoCount == 1)
        #expect(stack.undoActionName == "Keep")
        #expect(stack.groupingLevel == 0)
        #expect(recorder.withoutCheckpoints == ["DidOpen", "WillClose", "DidClose"], "balanced")
        stack.undo()
        #expect(counter.value == 0)
    }

    @Test func nestedScopesRollBackOnlyTheFailingOne() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        stack.group(named: "Outer") {
            a.set(1, on: stack)
            try? stack.group {
                b.set(1, on: stack)
                stack.beginUndoGrouping()  // left open by the failing body
                b.set(2, on: stack)
                throw Failure()
            }
            #expect(b.value == 0)
            #expect(stack.groupingLevel == 1)
        }
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(a.value == 0)
        #expect(stack.redoCount == 1)
    }

    @Test func scopesCloseWhatTheBodyLeftOpen() {
        let stack = makeStack()
        let a = Counter()
        stack.group(named: "Sloppy") {
            stack.beginUndoGrouping()
            a.set(1, on: stack)
        }
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoMenuItemTitle == "Undo Sloppy")
    }

    @Test func aScopeInsideAnUndoHandlerRollsBackWithinTheRedoGroup() {
        let stack = makeStack()
        let a = Counter()
        group(stack) {
            stack.registerUndo(withTarget: a) { a in
                a.set(10, on: stack)  // kept: part of the redo step
                try? stack.group {
                    a.set(99, on: stack)
                    throw Failure()
                }
            }
        }
        stack.undo()
        #expect(a.value == 10)
        #expect(stack.redoCount == 1)
        #expect(stack.lastMisuse == nil)
        stack.redo()
        #expect(a.value == 0)
    }

    @Test(arguments: [false, true])
    func withGroupsByEventTheScopeNestsInTheAutomaticGroup(dropsEmptyGroups: Bool) {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
        stack.automaticGroupClosing = .manual
        let a = Counter()
        let b = Counter()
        group(stack) { b.set(1, on: stack) }
        stack.undo()  // something to redo, which a failed scope must not take away
        let recorder = NotificationRecorder(stack)
        #expect(throws: Failure.self) {
            try stack.group {
                #expect(stack.groupingLevel == 2)
                a.set(1, on: stack)
                throw Failure()
            }
        }
        // The automatic group the scope opened is left empty: closed and dropped with the scope's
        // group, whatever dropsEmptyGroups says, so the failed scope leaves no step.
        #expect(stack.groupingLevel == 0)
        #expect(
            recorder.withoutCheckpoints == ["DidOpen", "DidOpen", "WillClose", "DidClose", "WillClose", "DidClose"])
        #expect(a.value == 0)
        #expect(stack.isClean, "the rollback restored the state")
        #expect(!stack.canUndo)
        #expect(!stack.canRedo, "the body's registration emptied the redo stack, and it stays empty")
        stack.endEvent()  // nothing pending
        #expect(stack.undoCount == 0)
    }

    /// A failed scope whose body registered nothing keeps the redo stack, with groupsByEvent on.
    @Test(arguments: [false, true])
    func aFailedEmptyScopeLeavesNoStepAndKeepsRedo(dropsEmptyGroups: Bool) {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
        stack.automaticGroupClosing = .manual
        let b = Counter()
        b.set(1, on: stack)
        stack.endEvent()
        stack.undo()
        #expect(stack.canRedo)
        try? stack.group(named: "Import") { throw Failure() }
        stack.endEvent()
        #expect(stack.undoCount == 0)
        #expect(stack.canRedo)
        #expect(stack.redoMenuItemTitle == "Redo")
        stack.redo()
        #expect(b.value == 1)
    }

    /// A group the body closed itself is not named by the scope; it stays a step of its own.
    @Test func aGroupTheBodyClosedItselfIsNotNamed() {
        let stack = makeStack()
        let counter = Counter()
        stack.group(named: "Import") {
            counter.set(1, on: stack)
            stack.endUndoGrouping()
        }
        #expect(stack.lastMisuse == nil)
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo")
        stack.undo()
        #expect(counter.value == 0)
    }

    /// A body that undoes its own group (`undo()` closes it, then undoes it) leaves the scope
    /// nothing to roll back and nothing to name, whether the body then returns or throws: the redo
    /// step that the undo built stays, unnamed, as any undone step does.
    @Test(arguments: [false, true])
    func aScopeWhoseBodyUndidItsOwnGroupLeavesTheRedoStep(throwing: Bool) {
        let stack = makeStack()
        let counter = Counter()
        group(stack, named: "Keep") { counter.set(1, on: stack) }
        try? stack.group(named: "Import") {
            counter.set(2, on: stack)
            stack.undo()
            #expect(counter.value == 1)
            if throwing { throw Failure() }
        }
        #expect(counter.value == 1)
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1)
        #expect(stack.undoActionName == "Keep")
        #expect(stack.redoCount == 1)
        #expect(stack.redoMenuItemTitle == "Redo")
        stack.redo()
        #expect(counter.value == 2)
    }

    /// A scope inside an automatic group that was already open leaves that group alone.
    @Test func aFailedScopeLeavesAnAutomaticGroupItDidNotOpen() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let a = Counter()
        a.set(1, on: stack)
        try? stack.group { throw Failure() }
        #expect(stack.groupingLevel == 1)
        stack.endEvent()
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(a.value == 0)
    }

    /// The rollback leads to the state the scope's group began in only if all of its actions ran:
    /// one removed or freed in the body makes the document a new, unsaved state.
    @Test(arguments: ["removed", "freed and swept", "freed"])
    func aRollbackThatCannotUndoEverythingIsNotClean(how: String) {
        let stack = makeStack()
        let kept = Counter()
        var lost: Counter? = Counter()
        stack.markClean()
        try? stack.group(named: "Import") {
            kept.set(1, on: stack)
            lost?.set(1, on: stack)
            switch how {
            case "removed": stack.removeAllActions(withTarget: lost!)
            case "freed and swept":
                lost = nil
                _ = stack.undoCount  // sweeps the freed target's action now
            default: lost = nil
            }
            throw Failure()
        }
        #expect(kept.value == 0, "the live action ran")
        #expect(!stack.isClean, "the document is not the saved one")
        #expect(!stack.canUndo)
    }

    /// Actions an observer of the scope's own did-open registered are part of the scope: the
    /// rollback undoes them, and the state is the one the scope's group began in.
    @Test func aRollbackReturnsToTheStateTheScopesGroupBeganIn() {
        let stack = makeStack()
        let observed = ObserverCounter()
        stack.markClean()
        let hook = NotificationHook(ActionStack.didOpenUndoGroupNotification, stack) { stack in
            guard observed.armed else { return }
            observed.armed = false
            observed.counter.set(1, on: stack)  // lands in the scope's group
        }
        observed.armed = true
        let a = Counter()
        try? stack.group {
            a.set(1, on: stack)
            throw Failure()
        }
        withExtendedLifetime(hook) {}
        #expect(observed.counter.value == 0 && a.value == 0, "both rolled back")
        #expect(stack.isClean, "back in the saved state")
        #expect(!stack.canUndo)
    }

    /// `endEvent()` called inside a scope's body (a helper that handles one event) waits until the
    /// outermost scope ends: the scope's group is named and rolled back as a whole.
    @Test(arguments: [false, true])
    func endEventInsideAScopeWaitsForTheScope(throwing: Bool) {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        func handleOneEvent(_ value: Int) {
            counter.set(value, on: stack)
            stack.endEvent()
        }
        _ = try? stack.group(named: "Twice") {
            handleOneEvent(1)
            #expect(stack.groupingLevel == 2, "the scope's group is still open")
            handleOneEvent(2)
            if throwing { throw Failure() }
        }
        #expect(stack.groupingLevel == 0, "the put-off end closed the event's group")
        if throwing {
            #expect(counter.value == 0)
            #expect(!stack.canUndo)
        } else {
            #expect(stack.undoCount == 1)
            #expect(stack.undoMenuItemTitle == "Undo Twice")
            stack.undo()
            #expect(counter.value == 0)
        }
        #expect(stack.lastMisuse == nil)
    }

    @Test func whileDisabledTheBodyJustRuns() {
        let stack = makeStack()
        stack.disableUndoRegistration()
        let value = stack.group(named: "X") { 7 }
        #expect(value == 7)
        stack.enableUndoRegistration()
        #expect(stack.lastMisuse == nil)
    }
}
