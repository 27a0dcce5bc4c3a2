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

// Handlers and observers of an awaited operation that call back into the stack.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncReentrancyTests {
    @Test func anObserverOfTheDidUndoOfAnAsyncUndoMayMarkTheDocumentClean() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let token = observe(ActionStack.didUndoChangeNotification, of: stack) { $0.markClean() }
        defer { NotificationCenter.default.removeObserver(token) }
        #expect(try await stack.performUndo())
        #expect(stack.lastMisuse == nil)
        #expect(stack.isClean)
    }

    @Test func anObserverOfTheWillUndoOfAnAsyncUndoCannotUndo() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        for value in 1...2 { try await remote.change(to: value, on: stack) }
        let token = observe(ActionStack.willUndoChangeNotification, of: stack) { $0.undo() }
        defer { NotificationCenter.default.removeObserver(token) }
        #expect(try await stack.performUndo())
        #expect(stack.lastMisuse == .reentrantCall(.undo, during: .notifyingUndo))
        await settle(until: { !stack.isBusy }, turns: 200)
        #expect(remote.value == 1 && stack.undoCount == 1)
    }

    @Test func anObserverOfTheFailNotificationThatCallsBackKeepsThePairing() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let log = OperationLog(stack)
        let token = observe(ActionStack.didFailUndoChangeNotification, of: stack) { stack in
            stack.undo()
            stack.registerUndo(withTarget: stack) { _ in }
            stack.removeAllActions()
        }
        defer { NotificationCenter.default.removeObserver(token) }
        remote.refused = [0]
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(outcome) == "actionFailed(0,restored)")
        await settle(until: { !stack.isBusy }, turns: 200)
        #expect(stack.lastMisuse != nil)
        #expect(stack.undoCount == 1 && remote.value == 1)
        #expect(probePaired(log.events))
    }

    @Test func aHandlerCannotRemoveAllActionsOrMarkCleanAfterItsAwait() async throws {
        let stack = makeStack()
        let counter = Counter()
        var misuses: [ActionStack.Misuse?] = []
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            await Task.yield()
            stack.removeAllActions()
            misuses.append(stack.lastMisuse)
            stack.markClean()
            misuses.append(stack.lastMisuse)
            stack.redo()
            misuses.append(stack.lastMisuse)
            counter.set(0, on: stack)
        }
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(
            misuses == [
                .reentrantCall(.removeAllActions, during: .undoing), .reentrantCall(.markClean, during: .undoing),
                .redoWhileUndoing,
            ])
        #expect(stack.redoCount == 1)
    }

    @Test func aTaskAHandlerStartsBuildsTheOppositeStep() async throws {
        let stack = makeStack()
        let counter = Counter()
        let remote = RemoteValue()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: remote) { remote in
            remote.value = 0
            let child = Task { @MainActor in
                stack.registerUndo(withTarget: counter) { $0.set(1, on: stack) }
                stack.registerAsyncUndo(withTarget: remote) { remote in
                    remote.value = 1
                    stack.registerAsyncUndo(withTarget: remote) { $0.value = 0 }
                }
            }
            await child.value
        }
        remote.value = 1
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(stack.undoCount == 0 && stack.redoCount == 1)
        #expect(stack.redoEntries.first?.actionCount == 2)
        #expect(try await stack.performRedo())
        #expect(remote.value == 1 && counter.value == 1)
    }

    @Test func anAsyncHandlerThatRegistersNoInverseKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            await Task.yield()
            counter.value = 0
        }
        stack.endUndoGrouping()
        stack.markClean()
        #expect(try await stack.performUndo())
        #expect(counter.value == 0)
        #expect(!stack.isClean)
        #expect(stack.undoCount == 0)
    }

    @Test
    func anAwaitedRedoWhoseHandlerRegistersNoInverseKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            counter.value = 0
            stack.registerUndo(withTarget: counter) { $0.value = 1 }
        }
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(try await stack.performRedo())
        #expect(counter.value == 1)
        #expect(stack.undoCount + stack.redoCount <= 1)
    }

    @Test
    func anAwaitedRedoOfASynchronousStepWhoseHandlerRegistersNoInverseKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: counter) { counter in
            counter.value = 0
            stack.registerUndo(withTarget: counter) { $0.value = 1 }
        }
        stack.endUndoGrouping()
        stack.undo()
        #expect(try await stack.performRedo())
        #expect(counter.value == 1)
    }

    @Test func aSynchronousRedoWhoseHandlerRegistersNoInverseKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: counter) { counter in
            counter.value = 0
            stack.registerUndo(withTarget: counter) { $0.value = 1 }
        }
        stack.endUndoGrouping()
        stack.undo()
        stack.redo()
        #expect(counter.value == 1)
    }

    @Test func aSynchronousHandlerThatRegistersNoInverseInAnAwaitedUndoKeepsTheStackConsistent() async throws {
        let stack = makeStack()
        let counter = Counter()
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: counter) { $0.value = 0 }
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(counter.value == 0)
    }

    @Test func aHandlerMayRegisterSynchronousAndAsynchronousInversesAroundItsAwait() async throws {
        let stack = makeStack()
        let counter = Counter()
        let remote = RemoteValue()
        remote.value = 1
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: remote) { remote in
            stack.registerUndo(withTarget: counter) { $0.set(1, on: stack) }
            await Task.yield()
            remote.value = 0
            counter.value = 0
            stack.registerAsyncUndo(withTarget: remote) { remote in
                await Task.yield()
                remote.value = 1
                stack.registerAsyncUndo(withTarget: remote) { $0.value = 0 }
            }
        }
        stack.setActionName("Pair")
        stack.endUndoGrouping()
        #expect(try await stack.performUndo())
        #expect(stack.redoMenuItemTitle == "Redo Pair")
        #expect(try await stack.performRedo())
        #expect(remote.value == 1 && counter.value == 1)
    }

    @Test
    func undoNestedGroupOnAStepWithAnAsyncActionIsNotWhileAsyncAndChangesNothing() async throws {
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack, named: "Remote")
        stack.undoNestedGroup()
        #expect(stack.lastMisuse == .notWhileAsync(.undoNestedGroup))
        await settle(turns: 50)
        #expect(remote.value == 1)
        #expect(stack.undoCount == 1 && stack.undoMenuItemTitle == "Undo Remote")
        #expect(try await stack.performUndo())
        #expect(remote.value == 0)
    }

    @Test func undoNestedGroupWhileAnOperationHoldsTheTurnIsNotWhileAsync() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        let counter = Counter()
        group(stack) { counter.set(1, on: stack) }
        try await remote.change(to: 2, on: stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.undoNestedGroup()
        #expect(stack.lastMisuse == .notWhileAsync(.undoNestedGroup))
        gate.openForGood()
        _ = await undo.value
        #expect(remote.value == 0)
        #expect(counter.value == 1 && stack.undoCount == 1)
    }
}
