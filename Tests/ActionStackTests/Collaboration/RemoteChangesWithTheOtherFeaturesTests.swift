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

/// The inverse of an edit of a ``SharedText`` that a server must confirm: the edit is made in the
/// model first, then the server is awaited (a failure throws, and the step rolls back).
struct AsyncTextCommand: AsyncUndoCommand, RebasableCommand {
    static let commandType = "test.text.async"
    var edit: TextEdit
    nonisolated(unsafe) static var gate: Gate?
    /// How many of the next performances fail (after awaiting the gate).
    nonisolated(unsafe) static var failures = 0

    nonisolated(nonsending) func perform(on document: SharedText, in stack: ActionStack) async throws {
        try edit.apply(to: &document.text)
        stack.registerAsyncUndo(AsyncTextCommand(edit: edit.inverse), on: document, key: SharedText.key)
        await Self.gate?.pass()
        if Self.failures > 0 {
            Self.failures -= 1
            throw RemoteFailure(value: 0)
        }
    }

    func rebased(over change: TextEdit) -> AsyncTextCommand? { edit.rebased(over: change).map(AsyncTextCommand.init) }
    func transform(_ change: TextEdit) -> TextEdit? { edit.transform(change) }
}

/// A remote change with the other features, as "Undo in a Shared Document" promises ("With the
/// other features"): a jump into a branch lands on the rewritten steps; a change reported while an
/// asynchronous step awaits rewrites the rest of the step and what it built, and a failure then
/// rolls back to the start with the peer's change in it; a saved history keeps the remote version,
/// and a restore moves past the changes made since; a change from a handler is a misuse; and a
/// change whose closure throws, one that fits nothing, one that removes a target's actions, and
/// one that kills the next step (its observers hear it) each leave the stack consistent.
/// Serialized: the awaited command's gate and failures are shared by the tests.
@Suite(.serialized, .timeLimit(.minutes(10))) @MainActor struct RemoteChangesWithTheOtherFeaturesTests {
    func document(_ text: String = "", shape: ActionStack.HistoryShape = .linear) -> SharedText {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.historyShape = shape
        return SharedText(text, stack: stack)
    }

    func step(_ document: SharedText, _ body: () -> Void) {
        document.stack.beginUndoGrouping()
        body()
        document.stack.endUndoGrouping()
    }

    @Test func aBranchMovesPastARemoteChangeAndAJumpLandsOnTheRewrittenStep() throws {
        let doc = document(shape: .tree)
        step(doc) { doc.type("a", at: 0) }
        step(doc) { doc.type("b", at: 1) }
        let bNode = try #require(doc.stack.historyTree?.current)
        doc.stack.undo()
        step(doc) { doc.type("c", at: 1) }  // "b" becomes a branch
        #expect(doc.text == "ac")
        doc.receive(.insert("Q", at: 0))
        try doc.stack.jump(toNode: bNode)
        #expect(doc.text == "Qab")
        doc.stack.undo()
        doc.stack.undo()
        #expect(doc.text == "Q")
    }

    @Test func aRemoteChangeWhileAnAsyncStepAwaitsRewritesTheRestOfTheStepAndWhatItBuilt() async throws {
        let doc = document()
        let gate = Gate()
        AsyncTextCommand.gate = gate
        AsyncTextCommand.failures = 0
        defer { AsyncTextCommand.gate = nil }
        step(doc) {
            doc.text = "abcd"
            doc.stack.registerAsyncUndo(AsyncTextCommand(edit: .delete("ab", at: 0)), on: doc, key: SharedText.key)
            doc.stack.registerAsyncUndo(AsyncTextCommand(edit: .delete("cd", at: 2)), on: doc, key: SharedText.key)
        }
        let undo = Task { @MainActor in try await doc.stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        #expect(doc.text == "ab")
        doc.receive(.insert("Q", at: 1))
        #expect(doc.text == "aQb")
        gate.openForGood()
        #expect(try await undo.value)
        #expect(doc.text == "Q")
        #expect(try await doc.stack.performRedo())
        #expect(doc.text == "aQbcd")
    }

    @Test func aRemoteChangeBeforeAFailureRollsBackToTheStartPlusThePeersChange() async throws {
        let doc = document()
        let gate = Gate()
        AsyncTextCommand.gate = gate
        AsyncTextCommand.failures = 0
        defer {
            AsyncTextCommand.gate = nil
            AsyncTextCommand.failures = 0
        }
        step(doc) {
            doc.text = "abcd"
            doc.stack.registerAsyncUndo(AsyncTextCommand(edit: .delete("ab", at: 0)), on: doc, key: SharedText.key)
            doc.stack.registerAsyncUndo(AsyncTextCommand(edit: .delete("cd", at: 2)), on: doc, key: SharedText.key)
        }
        let undo = Task { @MainActor in try await doc.stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        doc.receive(.insert("Q", at: 1))
        AsyncTextCommand.failures = 1
        gate.openForGood()
        await #expect(throws: ActionStack.OperationError.self) { try await undo.value }
        // The step rolled back: the document is where it was, with the peer's change in it.
        #expect(doc.text == "aQbcd")
        #expect(doc.stack.canUndo)
        #expect(try await doc.stack.performUndo())
        #expect(doc.text == "Q")
    }

    @Test func aSavedHistoryRecordsTheRemoteVersionAndARestoreMovesPastLaterChanges() throws {
        let doc = document()
        step(doc) { doc.type("Hello", at: 0) }
        doc.stack.applyRemoteChange(TextEdit.insert("!", at: 5), version: "v1") { doc.text += "!" }
        step(doc) { doc.type(" world", at: 5) }
        #expect(doc.stack.remoteVersion == "v1")
        let saved = try doc.stack.savedHistory()
        #expect(saved.remoteVersion == "v1")
        let archive = try HistoryArchive(
            decoding: HistoryArchive(fingerprint: "note", histories: ["main": saved]).encoded(),
            registry: testRegistry())
        let restoredHistory = try #require(archive.histories["main"])
        #expect(restoredHistory.remoteVersion == "v1")

        // A second launch: the document as it is now, with a peer's change made since v1.
        let reopened = document("> Hello world!")
        try reopened.stack.restoreHistory(restoredHistory) { _ in reopened }
        #expect(reopened.stack.remoteVersion == "v1")
        reopened.stack.applyRemoteChange(TextEdit.insert("> ", at: 0), version: "v2") {}  // already in the document
        reopened.stack.undo()
        #expect(reopened.text == "> Hello!")
        reopened.stack.undo()
        #expect(reopened.text == "> !")
        #expect(reopened.stack.remoteVersion == "v2")
    }

    @Test func aRemoteChangeFromAHandlerIsAMisuseAndAppliesNothing() {
        let doc = document()
        doc.stack.misusePolicy = .report
        var applied = false
        var returned = true
        let target = SharedText()
        step(doc) {
            doc.stack.registerUndo(withTarget: target) { _ in
                returned = doc.stack.applyRemoteChange(TextEdit.insert("x", at: 0)) { applied = true }
            }
        }
        doc.stack.undo()
        #expect(!applied && !returned)
        #expect(doc.stack.lastMisuse == .reentrantCall(.applyRemoteChange, during: .undoing))
    }

    @Test func anApplyThatThrowsChangesNothing() {
        struct Stale: Error {}
        let doc = document("abc")
        step(doc) { doc.type("X", at: 0) }
        doc.stack.markClean()
        #expect(throws: Stale.self) {
            try doc.stack.applyRemoteChange(TextEdit.delete("zz", at: 9)) { throw Stale() }
        }
        #expect(doc.stack.isClean)
        #expect(doc.stack.remoteChangeCount == 0)
        #expect(doc.stack.isUndoRegistrationEnabled)
        doc.stack.undo()
        #expect(doc.text == "abc")
    }

    @Test func aChangeThatFitsNothingNeverCrashesAndKeepsTheLiveSteps() {
        let doc = document("abc")
        step(doc) { doc.type("XY", at: 1) }
        // The app reports changes that do not fit its own document (stale, out of range); the
        // stack only rewrites positions.
        doc.stack.applyRemoteChange(TextEdit.delete("qqqqqqqq", at: 40)) {}
        doc.stack.applyRemoteChange(TextEdit.insert("zz", at: -5)) {}
        doc.stack.applyRemoteChange(TextEdit.delete("q", at: -3)) {}
        #expect(doc.stack.canUndo)
        #expect(doc.stack.undoCount == 1)
    }

    @Test func aPeersDeletionOfAnObjectRemovesItsActionsWhileItApplies() {
        let doc = document()
        let figure = SharedText()
        step(doc) { doc.stack.registerUndo(withTarget: figure) { _ in } }
        doc.stack.misusePolicy = .report
        doc.stack.applyRemoteChange(TextEdit.insert("", at: 0)) {
            doc.stack.removeAllActions(withTarget: figure)
        }
        #expect(doc.stack.lastMisuse == nil)
        #expect(!doc.stack.canUndo)
    }

    @Test func observersHearWhenARemoteChangeKillsTheNextStep() {
        let doc = document()
        step(doc) { doc.type("ab", at: 0) }
        var heard: [Bool] = []
        let token = doc.stack.observe { heard.append($0.canUndo) }
        doc.receive(.delete("ab", at: 0))
        #expect(heard.last == false)
        token.cancel()
    }

    @Test func theStepBelowAnAwaitedUndoHearsAChangeMadeWhileItAwaited() async throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        let doc = SharedText("", stack: stack)
        stack.beginUndoGrouping()
        try TextEdit.insert("ABCDEFGHIJ", at: 0).apply(to: &doc.text)
        stack.registerAsyncUndo(AsyncTextCommand(edit: .delete("ABCDEFGHIJ", at: 0)), on: doc, key: SharedText.key)
        stack.endUndoGrouping()
        stack.beginUndoGrouping()
        try TextEdit.insert("X", at: 5).apply(to: &doc.text)
        stack.registerAsyncUndo(AsyncTextCommand(edit: .delete("X", at: 5)), on: doc, key: SharedText.key)
        stack.endUndoGrouping()
        let gate = Gate()
        AsyncTextCommand.gate = gate
        AsyncTextCommand.failures = 0
        defer { AsyncTextCommand.gate = nil }
        let task = Task { @MainActor in try await stack.performUndo() }
        await settle { gate.waitingCount == 1 }
        #expect(doc.text == "ABCDEFGHIJ")
        doc.receive(.insert("q", at: 2))
        gate.openForGood()
        #expect(try await task.value)
        #expect(doc.text == "ABqCDEFGHIJ")
        #expect(try await stack.performUndo())
        #expect(doc.text == "q")
    }
}
