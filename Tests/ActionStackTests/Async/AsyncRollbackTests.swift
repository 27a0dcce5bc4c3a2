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

// A step whose action fails is rolled back whole: synchronous and asynchronous actions mixed, on undo
// and on redo, and what happens when the rollback itself cannot complete.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncRollbackTests {
    @Test(arguments: [0, 2, 4])
    func aFailureAtEachAsyncIndexOfAMixedStepRestoresEverything(failing index: Int) async throws {
        let stack = makeStack()
        let remotes = [RemoteValue("r0"), RemoteValue("r2"), RemoteValue("r4")]
        let counters = [Counter("c1"), Counter("c3")]
        stack.beginUndoGrouping()
        try await remotes[0].set(1, on: stack)
        counters[0].set(1, on: stack)
        try await remotes[1].set(1, on: stack)
        counters[1].set(1, on: stack)
        try await remotes[2].set(1, on: stack)
        stack.setActionName("Mixed")
        stack.endUndoGrouping()
        stack.markClean()
        remotes[index / 2].refused = [0]
        let log = OperationLog(stack)
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(outcome) == "actionFailed(\(index),restored)")
        #expect(remotes.map(\.value) == [1, 1, 1])
        #expect(counters.map(\.value) == [1, 1])
        #expect(stack.isClean)
        #expect(stack.undoCount == 1 && stack.redoCount == 0 && stack.undoMenuItemTitle == "Undo Mixed")
        #expect(log.events == ["willUndo", "failUndo"])
        remotes[index / 2].refused = []
        #expect(try await stack.performUndo())
        #expect(remotes.map(\.value) == [0, 0, 0] && counters.map(\.value) == [0, 0])
        #expect(!stack.isClean)
        #expect(try await stack.performRedo())
        #expect(stack.isClean)
    }

    @Test func aFailingRedoIsRolledBackAndLeavesTheRedoStepWhereItWas() async throws {
        let stack = makeStack()
        let a = RemoteValue("a")
        let b = RemoteValue("b")
        try await probeStep(stack, [a, b], to: 1, named: "Both")
        #expect(try await stack.performUndo())
        stack.markClean()
        let log = OperationLog(stack)
        a.refused = [1]
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performRedo()
        }
        #expect(probeTag(outcome) == "actionFailed(1,restored)")
        #expect(a.value == 0 && b.value == 0)
        #expect(stack.redoCount == 1 && stack.undoCount == 0)
        #expect(stack.redoMenuItemTitle == "Redo Both")
        #expect(stack.isClean)
        #expect(log.events == ["willRedo", "failRedo"])
    }

    @Test func anActorActionThatCannotBeRolledBackMakesTheRollbackIncomplete() async throws {
        let stack = makeStack()
        let store = Store()
        let remote = RemoteValue()
        stack.beginUndoGrouping()
        try await remote.set(1, on: stack)
        await store.append("x")
        stack.registerAsyncUndo(withActor: store) { store in store.rows.removeLast() }
        stack.endUndoGrouping()
        stack.markClean()
        remote.refused = [0]
        let outcome = await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo()
        }
        #expect(probeTag(outcome) == "actionFailed(0,incomplete[1])")
        #expect(await store.rows.isEmpty)
        #expect(!stack.isClean)
        #expect(stack.brokenStep == nil)
    }
}
