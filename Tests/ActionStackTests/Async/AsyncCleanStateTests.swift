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

// `isClean` is exact with asynchronous operations too (issue 28, item 4). A `markClean()` made while
// an undo or redo is running its actions (another task saved the half-changed document) names a
// state that no node has: the document is clean until the operation moves it, and clean again only
// if it comes back to exactly that state, which no undo, redo or rollback does. Every outcome of the
// operation is checked: success, a full rollback, a failed rollback, a cancellation.

/// A two-action step on two servers, undone while the test holds the second action at its gate.
@MainActor
private struct HalfUndone {
    let stack: ActionStack
    let gate: Gate
    let a: RemoteValue
    let b: RemoteValue
    let undo: Task<ProbeOutcome, Never>

    /// The step "Both" sets a and b to 1 (a first); its undo runs b's inverse, then a's. Returns with
    /// b undone and a's inverse waiting at the gate.
    static func make(markCleanFirst: Bool = true) async throws -> HalfUndone {
        let stack = makeAsyncStack()
        let gate = Gate()
        let a = RemoteValue("a", gate: gate)
        let b = RemoteValue("b", gate: gate)
        gate.isClosed = false
        stack.beginUndoGrouping()
        try await a.set(1, on: stack)
        try await b.set(1, on: stack)
        stack.setActionName("Both")
        stack.endUndoGrouping()
        gate.isClosed = true
        if markCleanFirst { stack.markClean() }
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        gate.openOne()
        await settle { b.value == 0 && gate.waitingCount == 1 }
        #expect(b.value == 0 && a.value == 1 && gate.waitingCount == 1)
        return HalfUndone(stack: stack, a: a, b: b, undo: undo, gate: gate)
    }

    init(stack: ActionStack, a: RemoteValue, b: RemoteValue, undo: Task<ProbeOutcome, Never>, gate: Gate) {
        self.stack = stack
        self.a = a
        self.b = b
        self.undo = undo
        self.gate = gate
    }

    var document: [Int] { [a.value, b.value] }
}

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct AsyncCleanStateTests {
    @Test func aMarkWhileTheActionsRunIsCleanUntilTheOperationMovesTheDocument() async throws {
        let run = try await HalfUndone.make()
        run.stack.markClean()
        // The document is, for now, the one just saved.
        #expect(run.stack.isClean && run.stack.state.isClean)
        run.gate.openForGood()
        #expect(probeTag(await run.undo.value) == "ok(true)")
        // The undo went on: the document is no longer the saved one.
        #expect(run.document == [0, 0])
        #expect(!run.stack.isClean)
    }

    @Test func afterASuccessNoUndoOrRedoComesBackToTheMark() async throws {
        let run = try await HalfUndone.make()
        run.stack.markClean()
        run.gate.openForGood()
        _ = await run.undo.value
        #expect(try await run.stack.performRedo())
        #expect(run.document == [1, 1] && !run.stack.isClean)
        #expect(try await run.stack.performUndo())
        #expect(run.document == [0, 0] && !run.stack.isClean)
        #expect(!run.stack.undoEntries.map(\.isClean).contains(true))
        #expect(!run.stack.redoEntries.map(\.isClean).contains(true))
        #expect(!run.stack.isCleanAtStart)
    }

    @Test func afterAFullRollbackTheDocumentIsBackAtTheStartAndNotClean() async throws {
        // The sequence: saved half undone, then the second action fails and the step rolls
        // back. The file holds the half-undone document; the document is back at the start.
        let run = try await HalfUndone.make()
        run.stack.markClean()
        run.a.refused = [0]
        run.gate.openForGood()
        #expect(probeTag(await run.undo.value) == "actionFailed(0,restored)")
        #expect(run.document == [1, 1])
        #expect(!run.stack.isClean)
        #expect(run.stack.undoCount == 1)
        // Undoing and redoing never reaches the half-undone document either.
        run.a.refused = []
        #expect(try await run.stack.performUndo())
        #expect(!run.stack.isClean)
        #expect(try await run.stack.performRedo())
        #expect(!run.stack.isClean)
    }

    @Test func afterAFailedRollbackTheBrokenStepIsNotClean() async throws {
        let run = try await HalfUndone.make()
        run.stack.markClean()
        run.a.refused = [0]
        run.b.refused = [1]
        run.gate.openForGood()
        #expect(probeTag(await run.undo.value) == "actionFailed(0,failed(1))")
        #expect(run.stack.brokenStep != nil)
        #expect(!run.stack.isClean)
        run.stack.discardBrokenStep()
        #expect(!run.stack.isClean)
    }

    @Test func afterACancellationTheRolledBackDocumentIsNotClean() async throws {
        let run = try await HalfUndone.make()
        run.stack.markClean()
        run.undo.cancel()
        // The handler ignores cancellation: it finishes, then the step fails and rolls back.
        run.gate.openForGood()
        #expect(probeTag(await run.undo.value) == "actionFailed(0,restored)")
        #expect(run.document == [1, 1])
        #expect(!run.stack.isClean)
    }

    @Test func aMarkThenANewChangeFromAnotherTaskLeadsBackToNoCleanState() async throws {
        let run = try await HalfUndone.make()
        run.stack.markClean()
        let other = RemoteValue("other")
        try await other.change(to: 5, on: run.stack, named: "Other")
        #expect(!run.stack.isClean)
        run.a.refused = [0]
        run.gate.openForGood()
        #expect(probeTag(await run.undo.value) == "actionFailed(0,restored)")
        // Undoing the other change leads to the document before the undo, not to the saved one.
        #expect(try await run.stack.performUndo())
        #expect(other.value == 0 && run.document == [1, 1])
        #expect(!run.stack.isClean)
    }

    @Test func aNewChangeThenAMarkLeadsBackToNoCleanStateEither() async throws {
        let run = try await HalfUndone.make()
        let other = RemoteValue("other")
        try await other.change(to: 5, on: run.stack, named: "Other")
        run.stack.markClean()
        #expect(run.stack.isClean)
        run.gate.openForGood()
        #expect(probeTag(await run.undo.value) == "ok(true)")
        #expect(!run.stack.isClean)
        #expect(try await run.stack.performUndo())
        #expect(!run.stack.isClean)
        #expect(try await run.stack.performRedo())
        #expect(other.value == 5 && !run.stack.isClean)
    }

    @Test func removeAllActionsWhileTheActionsRunMarksAStateNoNodeHas() async throws {
        let run = try await HalfUndone.make(markCleanFirst: false)
        run.stack.removeAllActions()
        #expect(run.stack.isClean)
        run.gate.openForGood()
        #expect(probeTag(await run.undo.value) == "ok(true)")
        #expect(run.document == [0, 0])
        #expect(!run.stack.isClean && run.stack.undoCount == 0 && run.stack.redoCount == 0)
    }

    @Test func aMarkWhileTheOperationWaitsForItsTurnIsExact() async throws {
        // Not running actions yet: the document is the one it names.
        let run = try await HalfUndone.make(markCleanFirst: false)
        let queued = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await run.stack.performRedo() }
        }
        await settle { run.stack.pendingRequestCount == 1 }
        run.gate.openForGood()
        _ = await run.undo.value
        _ = await queued.value
        #expect(run.document == [1, 1])
        run.stack.markClean()
        #expect(try await run.stack.performUndo())
        #expect(try await run.stack.performRedo())
        #expect(run.stack.isClean)
    }

    @Test func aMarkByAnObserverOfTheDidNotificationIsExact() async throws {
        let run = try await HalfUndone.make(markCleanFirst: false)
        let token = observe(ActionStack.didUndoChangeNotification, of: run.stack) { $0.markClean() }
        run.gate.openForGood()
        _ = await run.undo.value
        NotificationCenter.default.removeObserver(token)
        #expect(run.stack.isClean)
        #expect(try await run.stack.performRedo())
        #expect(!run.stack.isClean)
        #expect(try await run.stack.performUndo())
        #expect(run.stack.isClean)
    }

    @Test func aMarkBeforeTheOperationStaysExactWhenItRollsBack() async throws {
        let run = try await HalfUndone.make()
        run.a.refused = [0]
        run.gate.openForGood()
        #expect(probeTag(await run.undo.value) == "actionFailed(0,restored)")
        #expect(run.stack.isClean)
    }

    @Test func markCleanFromAnotherTaskMarksAStateNoNodeHas() async throws {
        let stack = makeStack()
        let gate = Gate()
        let remote = RemoteValue(gate: gate)
        try await remote.change(to: 1, on: stack)
        let undo = Task { @MainActor in
            await probeAttempt { () async throws(ActionStack.OperationError) in try await stack.performUndo() }
        }
        await settle { gate.waitingCount == 1 }
        stack.markClean()
        #expect(stack.lastMisuse == nil)
        gate.openForGood()
        #expect(probeTag(await undo.value) == "ok(true)")
        #expect(!stack.isClean)
        // The mark named the document while the step's action ran, a state no node has: no redo
        // comes back to it (see AsyncCleanStateTests).
        #expect(try await stack.performRedo())
        #expect(!stack.isClean)
    }
}
