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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(Glibc)
    import Glibc
#endif

// Asynchronous operations are recorded once, when they settle; a rollback or a broken step is not an
// ordinary step. (More in RecorderAsyncTests+AwaitedOperations.swift: what each awaited operation
// leaves in the journal, whatever happens while it awaits.)

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct RecorderAsyncTests {
    /// A two-action async step whose undo fails on its second action: the first is rolled back; the
    /// history ends where it started; no error, no misuse, no record of anything in between.
    @Test func aFailingAsyncUndoRollsBackAndTheJournalEndsWhereItStarted() async throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let a = HSBox("a")
        let b = HSBox("b")
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(a.value)-\(b.value)" }
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HSAsyncSet(value: 0), on: b, key: b.id)
        b.value = 1
        stack.registerAsyncUndo(HSAsyncSet(value: 0), on: a, key: a.id)
        a.value = 1
        stack.setActionName("Both")
        stack.endUndoGrouping()
        let before = try files.journal.records().last
        let count = recorder.recordCount
        b.value = -1  // the server refuses b's undo
        recorder.record()  // the new fingerprint
        let afterFingerprint = try files.journal.records().last
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performUndo() }
        #expect(a.value == 1 && b.value == -1)
        #expect(stack.undoCount == 1 && !stack.isBusy)
        #expect(recorder.recordCount == count + 1)  // only the explicit record
        #expect(try files.journal.records().last == afterFingerprint)
        #expect(before != nil)
        #expect(recorder.lastError == nil)
        #expect(stack.lastMisuse == nil)
    }

    /// Two undos queued behind a gated first one: recorded once everything settles.
    @Test func queuedAsyncUndosAreRecordedWhenTheySettle() async throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox("q")
        let gate = Gate()
        RPGates.gates[box.id] = gate
        defer { RPGates.gates[box.id] = nil }
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...2 {
            stack.beginUndoGrouping()
            stack.registerAsyncUndo(RPGatedSet(value: box.value), on: box, key: box.id)
            box.value = value
            stack.endUndoGrouping()
        }
        #expect(recorder.recordCount == 2)
        let first = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        let second = Task { @MainActor in try await stack.performUndo() }
        await settle(until: { stack.pendingRequestCount == 1 })
        #expect(recorder.recordCount == 2)  // nothing whole to record meanwhile
        gate.openForGood()
        _ = try await first.value
        _ = try await second.value
        await settle(until: { !stack.isBusy })
        #expect(box.value == 0)
        let currents = try rpHistories(files).map(\.current)
        #expect(currents.last == 0, "the settled history is recorded: \(currents)")
        #expect(recorder.lastError == nil)
        // Decided and documented: the record waits until the queue is empty, so the state between
        // the two undos (current 1), which the next request was already waiting to leave, is not
        // recorded.
        #expect(currents == [1, 2, 0], "\(currents)")
    }

    /// An undo started by the synchronous undo() (an Edit menu) on an async command step: recorded
    /// once the started request settles.
    @Test func aSynchronousUndoOfAnAsyncStepIsRecordedWhenItSettles() async throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox("s")
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HSAsyncSet(value: 0), on: box, key: box.id)
        box.value = 1
        stack.endUndoGrouping()
        stack.undo()
        let request = try #require(stack.startedRequest)
        _ = try await request.value()
        await settle(until: { !stack.isBusy })
        #expect(box.value == 0)
        #expect(try files.recorded().last == "v0: at 0 of 1 clean 0")
        #expect(recorder.recordCount == 2)
        #expect(recorder.lastError == nil && stack.lastMisuse == nil)
    }

    /// A rollback that fails leaves a broken step ("the document is partly changed, and the stack
    /// cannot tell how"). What does the recorder append?
    @Test func aBrokenStepIsNotRecordedAsAnOrdinaryStep() async throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let a = HSBox("a")
        let b = HSBox("b")
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(a.value)/\(b.value)" }
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HSAsyncSet(value: 0), on: a, key: a.id)
        a.value = 1
        stack.registerAsyncUndo(HSAsyncSet(value: -5), on: b, key: b.id)  // undo sets b to -5
        b.value = 1
        stack.setActionName("Both")
        stack.endUndoGrouping()
        a.value = -1  // a's undo fails; then b's rollback (from -5) fails too
        let count = recorder.recordCount
        await #expect(throws: ActionStack.OperationError.self) { try await stack.performUndo() }
        #expect(stack.brokenStep != nil)
        let records = try files.recorded()
        // Whatever is recorded now goes with a document the stack itself cannot describe.
        #expect(
            recorder.recordCount == count, "a broken history is not journaled as a whole one: \(records.suffix(2))")
        stack.discardBrokenStep()
        #expect(try files.recorded().last == "v-1/-5: at 0 of 0")
    }

    /// The unowned capture of command actions: an async command in flight when the last reference
    /// to the stack (the app's) is dropped. The operation must finish, and the stack then go.
    @Test func aStackDroppedWhileItsAsyncCommandIsInFlight() async throws {
        let box = HSBox("u")
        let gate = Gate()
        RPGates.gates[box.id] = gate
        defer { RPGates.gates[box.id] = nil }
        var stack: ActionStack? = makeStack()
        let tracker = LifetimeTracker(stack!)
        stack!.beginUndoGrouping()
        stack!.registerAsyncUndo(RPGatedSet(value: 0), on: box, key: box.id)
        box.value = 1
        stack!.endUndoGrouping()
        stack!.undo()  // starts a request from the synchronous call
        let request = try #require(stack!.startedRequest)
        await settle(until: { gate.waitingCount == 1 })
        stack = nil
        gate.openForGood()
        let result = try await request.value()
        #expect(result)
        #expect(box.value == 0)
        await settle(until: { !tracker.isAlive })
        #expect(!tracker.isAlive)
    }

    /// Same, with the operation awaited by a task that holds the stack, which is then cancelled
    /// (the rollback runs in a new task) after the app dropped its reference.
    @Test func aStackDroppedWhileItsCancelledAsyncCommandRollsBack() async throws {
        let box = HSBox("c")
        let other = HSBox("c2")
        let gate = Gate()
        RPGates.gates[other.id] = gate
        defer { RPGates.gates[other.id] = nil }
        var stack: ActionStack? = makeStack()
        let tracker = LifetimeTracker(stack!)
        stack!.beginUndoGrouping()
        stack!.registerAsyncUndo(RPGatedSet(value: 0), on: other, key: other.id)  // runs second, gated
        other.value = 1
        stack!.registerAsyncUndo(RPGatedSet(value: 0), on: box, key: box.id)  // runs first
        box.value = 1
        stack!.endUndoGrouping()
        let task = Task { @MainActor [stack] in try await stack!.performUndo() }
        await settle(until: { gate.waitingCount == 1 })
        stack = nil
        task.cancel()
        gate.openForGood()
        _ = try? await task.value
        await settle(until: { !tracker.isAlive })
        #expect(!tracker.isAlive)
        #expect(box.value == 1 || box.value == 0)  // no crash is the point
    }

    @Test @MainActor func anAsyncUndoIsRecordedOnceWhenItSettles() async throws {
        let url = hrTemporaryURL("async.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "\(doc.value)" }
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HRAsyncSet(value: 0, fails: false), on: doc, key: "doc")
        doc.value = 1
        stack.endUndoGrouping()
        #expect(recorder.recordCount == 1)
        try await stack.performUndo()
        #expect(recorder.recordCount == 2)
        try await stack.performRedo()
        #expect(recorder.recordCount == 3)
        // A failing undo leaves the history as it was: nothing new to record.
        let failing = hrStack()
        let target = HRDoc()
        let failingJournal = HistoryJournal(url: url.appendingPathExtension("2"), synchronizesAppends: false)
        defer { try? FileManager.default.removeItem(at: url.appendingPathExtension("2")) }
        let second = HistoryRecorder(journal: failingJournal, stack: failing) { "\(target.value)" }
        failing.beginUndoGrouping()
        failing.registerAsyncUndo(HRAsyncSet(value: 0, fails: true), on: target, key: "doc")
        target.value = 1
        failing.endUndoGrouping()
        #expect(second.recordCount == 1)
        await #expect(throws: (any Error).self) { try await failing.performUndo() }
        #expect(second.recordCount == 1)
        #expect(second.lastError == nil)
    }
}
