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

// Stacks owned by an actor, and calls from outside the stack's isolation.

@MainActor
// The limit catches a hang. It is generous because these tests share the main actor with
// seconds-long seeded walks, and under a sanitizer on two cores a test can wait a minute for
// its turns.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncActorIsolationTests {
    @Test func anActorOwnedUndoTakesAForeignChangeFromAnotherTaskOnTheActorAsANewStep() async throws {
        let doc = ProbeDocActor2()
        await doc.recordBoxStep(1)
        await doc.closeGate()
        let undo = Task { await doc.undo() }
        // Until the group waits at the gate, however loaded the machine; the suite's limit bounds it.
        while await doc.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(await doc.waitingCount == 1)
        #expect(await doc.counts().busy)
        await doc.foreignChange(7)
        await doc.openGate()
        #expect(await undo.value == "ok(true)")
        let counts = await doc.counts()
        #expect(counts.undo == 1 && counts.redo == 0 && !counts.busy)
        let values = await doc.values()
        #expect(values.box == 0 && values.other == 7)
        #expect(await doc.undo() == "ok(true)")
        #expect(await doc.values().other == 0)
        #expect(await doc.counts().clean)
    }

    @Test func anActorOwnedAsyncGroupGoesOnTopOfAForeignChangeMadeWhileItAwaits() async throws {
        let doc = ProbeDocActor2()
        await doc.closeGate()
        let group = Task { try await doc.groupWithGate(5) }
        // Until the group waits at the gate, however loaded the machine; the suite's limit bounds it.
        while await doc.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        await doc.foreignChange(3)
        await doc.openGate()
        try await group.value
        let counts = await doc.counts()
        #expect(counts.undo == 2 && counts.title == "Undo Actor Group")
        #expect(await doc.undo() == "ok(true)")
        let values = await doc.values()
        #expect(values.value == 0 && values.other == 3)
        #expect(await doc.undo() == "ok(true)")
        #expect(await doc.values().other == 0)
    }

    @Test func anActorHandlerReRegistersItsInverseSoUndoAndRedoCycle() async throws {
        let doc = ProbeDocActor2()
        try await doc.recordValueStep([1, 2])
        for _ in 0..<2 {
            #expect(await doc.undo() == "ok(true)")
            #expect(await doc.values().value == 0)
            #expect(await doc.redo() == "ok(true)")
            #expect(await doc.values().value == 2)
        }
        let counts = await doc.counts()
        #expect(counts.undo == 1 && counts.redo == 0)
    }

    @Test func aFailingActorHandlerIsRolledBackThroughTheActorsOwnInverse() async throws {
        let doc = ProbeDocActor2()
        try await doc.recordValueStep([1, 2])
        // Undoing runs setValue(1) (the newest inverse) and then setValue(0), which is refused.
        await doc.setRefused([0])
        #expect(await doc.undo() == "actionFailed(0,restored)")
        #expect(await doc.values().value == 2)
        let counts = await doc.counts()
        #expect(counts.undo == 1 && counts.redo == 0 && !counts.busy && !counts.clean)
        await doc.setRefused([])
        #expect(await doc.undo() == "ok(true)")
        #expect(await doc.values().value == 0)
        #expect(await doc.counts().clean)
    }

    @Test func theEditMenusCallsOnAnActorOwnedStackAreNeedsAwaitAndChangeNothing() async throws {
        let doc = ProbeDocActor2()
        await doc.recordBoxStep(1)
        await doc.closeGate()
        let undo = Task { await doc.undo() }
        // Until the group waits at the gate, however loaded the machine; the suite's limit bounds it.
        while await doc.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        // An operation holds the turn: even a synchronous step needs an await here.
        let seen = await doc.synchronousCalls()
        #expect(seen == [.needsAwait(.redo), .needsAwait(.jump), .needsAwait(.undo)])
        await doc.openGate()
        #expect(await undo.value == "ok(true)")
        let counts = await doc.counts()
        #expect(counts.undo == 0 && counts.redo == 1)
    }

    @Test func aNonisolatedCallerOfAMainActorStackRunsTheHandlersInItsOwnIsolation() async throws {
        // Reaches the stack from a nonisolated function through an unchecked wrapper: the main
        // actor stays suspended meanwhile.
        let stack = makeStack()
        let flags = ProbeFlags2()
        let target = Captured()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: target) { _ in
            flags.ranOnMainThread.append(Thread.isMainThread)
        }
        stack.endUndoGrouping()
        let outcome = await probeUndoFromNonisolated2(ProbeUnsafeStack2(stack: stack))
        #expect(outcome == "ok(true)")
        // The documented rule: the handlers run in the caller's isolation, here none (not the main
        // actor).
        #expect(flags.ranOnMainThread == [false])
        withExtendedLifetime(target) {}
    }

    @Test func theEditMenusUndoFromADetachedTaskIsNeedsAwaitAndChangesNothing() async throws {
        // The stack crosses to a detached task through an unchecked wrapper; the main actor waits.
        let stack = makeStack()
        let remote = RemoteValue()
        try await remote.change(to: 1, on: stack)
        let misuse = await probeSynchronousUndoOffMain2(ProbeUnsafeStack2(stack: stack))
        #expect(misuse == .needsAwait(.undo))
        #expect(stack.undoCount == 1 && !stack.isBusy && remote.value == 1)
    }

    @Test func anActorOwnedStackRefusesTheSynchronousUndoAndAwaitsOnItsActor() async throws {
        let owner = ProbeOwner()
        let result = await owner.run()
        #expect(result.misuse == .needsAwait(.undo))
        #expect(result.countAfterUndo == 1)
        #expect(result.awaited == "ok(true)")
        #expect(result.value == 0)
    }
}
