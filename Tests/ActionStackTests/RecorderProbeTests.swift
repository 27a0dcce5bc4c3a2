// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// Hostile probes of HistoryRecorder (and the journal and command fixes it ships with), written
// from the documentation: HistoryRecorder.swift, HistoryJournal.swift and SavingTheHistory.md
// ("Writing to disk"). Each probe asserts what the documentation promises.

import ActionStack
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Support

/// Gates that the gated asynchronous command waits at, one per box id (main actor only).
@MainActor
enum RPGates {
    static var gates: [String: Gate] = [:]
    static func pass(_ id: String) async {
        if let gate = gates[id] { await gate.pass() }
    }
}

/// An asynchronous command that waits at its box's gate (if any), then sets the value.
struct RPGatedSet: AsyncUndoCommand {
    static let commandType = "rp.gated"
    var value: Int
    nonisolated(nonsending) func perform(on box: HSBox, in stack: ActionStack) async throws {
        let id = box.id
        await RPGates.pass(id)
        stack.registerAsyncUndo(RPGatedSet(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

func rpRegistry() -> CommandRegistry {
    var registry = hsRegistry()
    registry.register(RPGatedSet.self)
    return registry
}

/// The history of each record appended, decoded.
func rpHistories(_ files: RecorderFiles, name: String = HistoryRecorder.defaultHistoryName) throws -> [SavedHistory] {
    try HistoryRecorder.recordedArchives(in: files.journal, registry: rpRegistry()).compactMap { $0.histories[name] }
}

/// Runs `body` with standard error sent to a file; returns what was written there.
func rpCapturingStandardError(_ body: () throws -> Void) rethrows -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("rp-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: url) }
    fflush(nil)
    let saved = dup(2)
    let fd = open(url.path, O_WRONLY | O_TRUNC)
    dup2(fd, 2)
    close(fd)
    defer {
        fflush(nil)
        dup2(saved, 2)
        close(saved)
    }
    try body()
    fflush(nil)
    return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
}

struct RPUnchecked<T>: @unchecked Sendable {
    let value: T
}

final class RPWeakStack {
    weak var stack: ActionStack?
}

// MARK: - Probes

@MainActor
@Suite(.serialized, .timeLimit(.minutes(5))) struct RecorderProbeTests {

    // MARK: Records missed

    /// "Watching a stack twice watches it once" is decided by ObjectIdentifier, and the token of a
    /// freed stack stays in the table: a new stack at the freed one's address is never watched.
    @Test func rpAStackAtAFreedStacksAddressIsWatched() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let holder = RPWeakStack()
        let recorder = HistoryRecorder(journal: files.journal) {
            guard let stack = holder.stack else { return nil }
            return HistoryArchive(fingerprint: "v\(box.value)", histories: ["doc": try stack.savedHistory()])
        }
        var freedIDs = Set<ObjectIdentifier>()
        for _ in 0..<32 {
            let stack = makeStack()
            recorder.watch(stack)
            freedIDs.insert(ObjectIdentifier(stack))
        }
        // A document reopened: its new stack may land where a freed one was.
        var alive: [ActionStack] = []
        var reused: ActionStack?
        for _ in 0..<256 {
            let stack = makeStack()
            if freedIDs.contains(ObjectIdentifier(stack)) {
                reused = stack
                break
            }
            alive.append(stack)
        }
        // Without a reused address the probe is inconclusive (allocator-dependent): nothing to check.
        guard let stack = reused else { return }
        holder.stack = stack
        recorder.watch(stack)
        hsChange(box, to: 1, on: stack)
        #expect(recorder.recordCount == 1, "a change of a watched stack is recorded")
        withExtendedLifetime(alive) {}
    }

    /// A keystroke that continues the previous step (coalescing) changes the history and the
    /// document, but not the observable State: the doc promises a record after every change.
    @Test func rpACoalescedKeystrokeIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack(groupsByEvent: true)
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        func type(_ value: Int) {
            stack.registerUndo(HSSet(value: box.value), on: box, key: box.id, options: .coalescing("typing"))
            box.value = value
            stack.setActionName("Typing")
            stack.endEvent()
        }
        type(1)
        type(2)
        type(3)
        #expect(stack.undoCount == 1)
        #expect(try stack.savedHistory().steps.first?.actions.count == 3)
        let last = try files.recorded().last
        // After a crash with the document saved at "v3":
        let recovered = try HistoryRecorder.recover(from: files.journal, fingerprint: "v3", registry: rpRegistry())
        #expect(last == "v3: at 1 of 1 clean 0", "the last keystroke is in the journal")
        #expect(recovered != nil, "the history of the document as saved can be recovered")
        #expect(recorder.lastError == nil)
    }

    /// removeAllActions(withTarget:) that leaves the step (it has actions on another target) changes
    /// the saved history but not the State. The doc lists "a removal" among the recorded changes.
    @Test func rpARemovalThatKeepsTheStepIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox("other")
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        stack.beginUndoGrouping()
        HSSet(value: 1).perform(on: box, in: stack)
        HSSet(value: 5).perform(on: other, in: stack)
        stack.setActionName("Both")
        stack.endUndoGrouping()
        #expect(recorder.recordCount == 1)
        stack.removeAllActions(withTarget: other)
        #expect(try stack.savedHistory().steps.first?.actions.count == 1)
        let lastActions = try rpHistories(files).last?.steps.first?.actions.count
        #expect(recorder.recordCount == 2, "the removal is recorded")
        #expect(lastActions == 1)
    }

    /// Lowering maximumBranchSteps drops branch steps (a trim) without changing the State of the
    /// current path.
    @Test func rpABranchTrimByMaximumBranchStepsIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        stack.historyShape = .tree
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        stack.undo()
        stack.undo()
        hsChange(box, to: 4, on: stack)  // nodes 2 and 3 are now a branch
        #expect(try stack.savedHistory().steps.count == 4)
        let count = recorder.recordCount
        stack.maximumBranchSteps = 1
        #expect(try stack.savedHistory().steps.count == 3)
        let lastSteps = try rpHistories(files).last?.steps.count
        #expect(recorder.recordCount == count + 1, "the trim is recorded")
        #expect(lastSteps == 3)
    }

    /// A removal that empties a step in a branch off the current path changes the saved tree, not
    /// the State.
    @Test func rpARemovalInABranchOffThePathIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox("other")
        let stack = makeStack()
        stack.historyShape = .tree
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)-\(other.value)" }
        hsChange(box, to: 1, on: stack)
        hsChange(other, to: 7, on: stack)
        stack.undo()
        hsChange(box, to: 2, on: stack)  // the "other" step is a branch now
        #expect(try stack.savedHistory().steps.count == 3)
        let count = recorder.recordCount
        stack.removeAllActions(withTarget: other)
        #expect(try stack.savedHistory().steps.count == 2)
        let lastSteps = try rpHistories(files).last?.steps.count
        #expect(recorder.recordCount == count + 1, "the removal is recorded")
        #expect(lastSteps == 2)
    }

    /// Branching history: jumps, earlier/later and a redo-branch choice are each recorded once, with
    /// the current node of the stack.
    @Test func rpTreeJumpsEarlierLaterAndBranchChoicesAreEachRecordedOnce() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        stack.historyShape = .tree
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        hsChange(box, to: 2, on: stack)
        stack.undo()
        hsChange(box, to: 3, on: stack)  // node 1 has children 2 and 3
        var count = recorder.recordCount
        func check(_ what: String) throws {
            count += 1
            #expect(recorder.recordCount == count, "\(what) is recorded once")
            #expect(try rpHistories(files).last?.current == stack.currentNode?.sequence, "\(what): current node")
        }
        try stack.jump(toNode: .init(sequence: 2))
        try check("jump(toNode:)")
        try stack.earlier(1)
        try check("earlier(1)")
        try stack.later(1)
        try check("later(1)")
        stack.undo()
        try check("undo")
        try stack.selectRedoBranch(.init(sequence: 3))
        try check("selectRedoBranch")
        stack.redo()
        try check("redo")
        #expect(box.value == 3)
        #expect(recorder.lastError == nil)
    }

    /// maximumCost lowered: a trim, recorded.
    @Test func rpACostTrimIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 {
            stack.beginUndoGrouping()
            HSCostly(value: value, cost: 10).perform(on: box, in: stack)
            stack.endUndoGrouping()
        }
        let count = recorder.recordCount
        stack.maximumCost = 15
        #expect(stack.undoCount == 1)
        #expect(recorder.recordCount == count + 1)
        #expect(try rpHistories(files).last?.steps.count == 1)
    }

    /// An app observer marks the stack clean after each change. The recorder runs after every
    /// observer of the call, whichever was added first, so the change and the clean mark are one
    /// record (decided; the docs say so).
    @Test func rpAnObserverAheadOfTheRecorderThatChangesTheStack() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let token = stack.observe { state in if !state.isClean && state.groupingLevel == 0 { stack.markClean() } }
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        withExtendedLifetime(token) {}
        #expect(try files.recorded().last == "v1: at 1 of 1 clean 1")
        #expect(recorder.recordCount == 1)
    }

    /// onError changes the stack (drops the history that no longer fits the journal) during an
    /// explicit record(): the change is made inside the recording and is never recorded.
    @Test func rpAChangeMadeByOnErrorDuringRecordIsRecorded() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        for value in 1...20 { hsChange(box, to: value, on: stack, named: String(repeating: "x", count: 40)) }
        let big = try HistoryArchive(fingerprint: "v20", histories: ["history": stack.savedHistory()]).encoded()
        let journal = HistoryJournal(
            url: files.journal.url, maximumBytes: big.count / 2, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        var errors = 0
        recorder.onError = { _ in
            errors += 1
            stack.removeAllActions()  // too big for the journal: start the history over
        }
        hsChange(box, to: 21, on: stack)  // its record does not fit
        #expect(errors == 1)
        #expect(stack.undoCount == 0)
        let recordCount = try journal.records().count
        #expect(recordCount == 1, "the removal, which leaves a history that fits, is recorded")
        #expect(recorder.lastError == nil)
    }

    // MARK: Several stacks, handlers, notifications, misuse

    /// A board step's undo handler clears a figure's stack (both watched by one recorder): the
    /// figure's call ends inside the board's undo, the recorder records from the figure's
    /// observer and calls board.savedHistory() in the middle of the board's undo.
    @Test func rpACallOnOneWatchedStackFromAHandlerOfAnotherIsNoMisuse() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox("other")
        let board = makeStack()
        let figure = makeStack()
        var misuses: [ActionStack.Misuse] = []
        board.onMisuse = { misuses.append($0) }
        figure.onMisuse = { misuses.append($0) }
        var errors: [String] = []
        let recorder = HistoryRecorder(journal: files.journal) {
            HistoryArchive(
                fingerprint: "v\(box.value)-\(other.value)",
                histories: ["board": try board.savedHistory(), "figure": try figure.savedHistory()])
        }
        recorder.onError = { errors.append("\($0)") }
        recorder.watch(board)
        recorder.watch(figure)
        hsChange(other, to: 7, on: figure)
        board.beginUndoGrouping()
        board.registerUndo(withTarget: box) { _ in figure.removeAllActions() }  // the figure goes away
        board.setActionName("Add figure")
        board.endUndoGrouping()
        let output = rpCapturingStandardError {
            board.misusePolicy = .log  // the default policy of a plain ActionStack()
            board.undo()
            board.misusePolicy = .report
        }
        #expect(figure.undoCount == 0)
        #expect(misuses.isEmpty, "the recorder causes no misuse: \(misuses)")
        #expect(board.lastMisuse == nil)
        #expect(errors.isEmpty, "no error for a correct program: \(errors)")
        #expect(!output.contains("ActionStack misuse"), "no line on standard error: \(output)")
        // The board's own delivery, after its undo, records the final state.
        #expect(recorder.lastError == nil)
        let archive = try #require(try HistoryRecorder.recordedArchives(in: files.journal, registry: rpRegistry()).last)
        #expect(archive.histories["board"]?.current == 0 && archive.histories["figure"]?.steps.isEmpty == true)
    }

    /// record() called from an undo handler and from a did-undo notification observer: the
    /// recorder's docs do not say it is a misuse; what happens?
    @Test func rpRecordFromAnUndoHandlerOrANotificationObserver() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        var errors: [String] = []
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        recorder.onError = { errors.append("\($0)") }
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: box) { _ in _ = recorder.record() }
        stack.endUndoGrouping()
        let unchecked = RPUnchecked(value: recorder)
        let token = NotificationCenter.default.addObserver(
            forName: ActionStack.didUndoChangeNotification, object: stack, queue: nil
        ) { _ in MainActor.assumeIsolated { _ = unchecked.value.record() } }
        defer { NotificationCenter.default.removeObserver(token) }
        let output = rpCapturingStandardError {
            stack.misusePolicy = .log
            stack.undo()
            stack.misusePolicy = .report
        }
        // Documented: from inside a call on a watched stack, record() records nothing; the call's
        // end records.
        #expect(errors.isEmpty, "errors: \(errors)")
        #expect(stack.lastMisuse == nil, "misuse: \(String(describing: stack.lastMisuse))")
        #expect(!output.contains("ActionStack misuse"), "stderr: \(output)")
        // The step (a closure) and its undo are each recorded once, by the ends of their calls.
        #expect(try recorder.recordCount == 2 && files.journal.records().count == 2)
    }

    /// An observer ahead of the recorder unwatches it during a delivery: the recorder gets nothing
    /// more ("a cancelled one gets nothing more"), and nothing breaks.
    @Test func rpUnwatchDuringADelivery() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal) {
            HistoryArchive(fingerprint: "v\(box.value)", histories: ["history": try stack.savedHistory()])
        }
        let token = stack.observe { _ in recorder.unwatch(stack) }
        recorder.watch(stack)
        hsChange(box, to: 1, on: stack)
        #expect(recorder.recordCount == 0)
        hsChange(box, to: 2, on: stack)
        #expect(recorder.recordCount == 0)
        token.cancel()
        // Watching again works.
        recorder.watch(stack)
        hsChange(box, to: 3, on: stack)
        #expect(recorder.recordCount == 1)
    }

    /// The recorder freed while its stacks live: nothing more is recorded, nothing crashes.
    @Test func rpTheRecorderFreedWhileItsStackLives() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        var recorder: HistoryRecorder? = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        let tracker = LifetimeTracker(recorder!)
        hsChange(box, to: 1, on: stack)
        #expect(recorder?.recordCount == 1)
        recorder = nil
        #expect(!tracker.isAlive)
        hsChange(box, to: 2, on: stack)
        stack.undo()
        #expect(try files.journal.records().count == 1)
        #expect(box.value == 1)
    }

    /// A watched stack freed with the recorder alive, then others changed: no crash, records go on.
    @Test func rpAWatchedStackFreedWhileOthersGoOn() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let other = HSBox("other")
        let board = makeStack()
        let figureHolder = RPWeakStack()
        var figure: ActionStack? = makeStack()
        figureHolder.stack = figure
        let recorder = HistoryRecorder(journal: files.journal) {
            var histories = ["board": try board.savedHistory()]
            if let figure = figureHolder.stack { histories["figure"] = try figure.savedHistory() }
            return HistoryArchive(fingerprint: "v\(box.value)-\(other.value)", histories: histories)
        }
        recorder.watch(board)
        recorder.watch(figure!)
        hsChange(other, to: 1, on: figure!)
        figure = nil
        #expect(figureHolder.stack == nil)
        hsChange(box, to: 1, on: board)
        #expect(recorder.recordCount == 2)
        #expect(try rpHistories(files, name: "board").count == 2)
        #expect(recorder.lastError == nil)
    }

    // MARK: Asynchronous operations

    /// A two-action async step whose undo fails on its second action: the first is rolled back; the
    /// history ends where it started; no error, no misuse, no record of anything in between.
    @Test func rpAFailingAsyncUndoRollsBackAndTheJournalEndsWhereItStarted() async throws {
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
    @Test func rpQueuedAsyncUndosAreRecordedWhenTheySettle() async throws {
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
    @Test func rpASynchronousUndoOfAnAsyncStepIsRecordedWhenItSettles() async throws {
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
    @Test func rpABrokenStepIsNotRecordedAsAnOrdinaryStep() async throws {
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
    @Test func rpAStackDroppedWhileItsAsyncCommandIsInFlight() async throws {
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
    @Test func rpAStackDroppedWhileItsCancelledAsyncCommandRollsBack() async throws {
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

    // MARK: Journal failures

    /// The journal's path is a directory: every append fails, each change reports, no stack changes.
    @Test func rpAnUnwritableJournalChangesNoStack() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let journal = HistoryJournal(url: files.directory, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        var errors: [any Error] = []
        recorder.onError = { errors.append($0) }
        hsChange(box, to: 1, on: stack)
        hsChange(box, to: 2, on: stack)
        stack.undo()
        stack.markClean()
        #expect(errors.count == 4)
        #expect(errors.allSatisfy { $0 is HistoryFileError })
        #expect(box.value == 1 && stack.undoCount == 1 && stack.canRedo && stack.isClean)
        #expect(stack.undoActionName == "Set 1" && stack.redoActionName == "Set 2")
        #expect(recorder.recordCount == 0 && stack.lastMisuse == nil)
    }

    /// maximumBytes smaller than one record: tooLarge at each change, the journal stays as it was.
    @Test func rpARecordLargerThanTheJournalChangesNoStack() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let journal = HistoryJournal(url: files.journal.url, maximumBytes: 64, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        var errors: [any Error] = []
        recorder.onError = { errors.append($0) }
        hsChange(box, to: 1, on: stack)
        stack.undo()
        stack.redo()
        #expect(errors.count == 3)
        for error in errors {
            guard (error as? HistoryFileError)?.kind == .tooLarge else {
                Issue.record("unexpected \(error)")
                continue
            }
        }
        #expect(box.value == 1 && stack.undoCount == 1)
        #expect(try journal.records().isEmpty)
    }

    /// A full journal in a directory that cannot take the compaction's temporary file... (root can
    /// write anywhere, so this probe uses a journal whose every record needs a compaction: maximumRecords 1).
    @Test func rpACompactingJournalKeepsRecording() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let journal = HistoryJournal(url: files.journal.url, maximumRecords: 1, synchronizesAppends: false)
        let recorder = HistoryRecorder(journal: journal, stack: stack) { "v\(box.value)" }
        for value in 1...5 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 5 && recorder.lastError == nil)
        let records = try journal.records()
        #expect(records.count == 1 && records.last?.fingerprint == "v5")
        #expect(records.last?.sequence == 4)
    }

    // MARK: Recovery

    /// After a relaunch the app sets up its stack and recorder, then recovers: the recorder records
    /// nothing until a change, so recover() still finds the three steps (it once recorded the empty
    /// history at once, under the fingerprint of the document opened).
    @Test func rpRecoveryAfterTheNewRecorderIsCreatedStillFindsTheHistory() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        do {
            let box = HSBox()
            let stack = makeStack()
            let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
            for value in 1...3 { hsChange(box, to: value, on: stack) }
            #expect(recorder.recordCount == 3)
        }
        // Relaunch: the document on disk says 3.
        let reopened = HSBox(value: 3)
        let journal = HistoryJournal(url: files.journal.url, synchronizesAppends: false)
        let fresh = makeStack()
        let recorder = HistoryRecorder(journal: journal, stack: fresh) { "v\(reopened.value)" }
        _ = fresh.canUndo  // a query (a menu's validation) records nothing either
        let archive = try HistoryRecorder.recover(from: journal, fingerprint: "v3", registry: rpRegistry())
        #expect(
            archive?.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 3,
            "the three steps come back")
        withExtendedLifetime(recorder) {}
    }

    /// After the journal is started over (reset, after a full save), record() appends the history
    /// as it is: the journal is empty, so the record repeats nothing in it.
    @Test func rpRecordAfterAResetAppendsTheCurrentHistory() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        hsChange(box, to: 1, on: stack)
        try files.journal.reset()
        let appended = recorder.record()
        let count = try files.journal.records().count
        #expect(appended, "the journal is empty; the record repeats nothing")
        #expect(count == 1)
    }

    /// A damaged record in the middle, while the recorder is running: the next append overwrites
    /// the damaged record and everything after it, as the docs say. (It once appended after the
    /// damage, where no replay could reach it: the journal trusted what it knew of the file.)
    @Test func rpADamagedRecordIsOverwrittenByTheNextAppend() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 3)
        // Damage one byte in the middle of the file.
        var data = try Data(contentsOf: files.journal.url)
        let middle = data.count / 2
        data[middle] ^= 0xFF
        try data.write(to: files.journal.url)
        let replay = try files.journal.replay()
        guard replay.ending.reason != nil else {
            Issue.record("expected a damaged record, got \(replay.ending)")
            return
        }
        hsChange(box, to: 4, on: stack)
        #expect(recorder.lastError == nil)
        let after = try files.journal.replay()
        let recovered = try HistoryRecorder.recover(from: files.journal, fingerprint: "v4", registry: rpRegistry())
        #expect(after.ending == .complete, "the damaged record was overwritten: \(after.ending)")
        #expect(after.records.last?.fingerprint == "v4")
        #expect(recovered != nil, "the newest change can be recovered")
    }

    /// The same damage with no replay between it and the next change: the recorder's append notices
    /// the file changed (its time stamps) and overwrites the damaged record all the same.
    @Test func rpADamagedRecordIsOverwrittenByTheNextAppendWithoutAReplay() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 3)
        let size = try Data(contentsOf: files.journal.url).count
        try changeBehindItsBack(files.journal.url) { try flipByte($0, at: size / 2) }
        hsChange(box, to: 4, on: stack)
        #expect(recorder.lastError == nil)
        let after = try files.journal.replay()
        #expect(after.ending == .complete, "the damaged record was overwritten: \(after.ending)")
        #expect(after.records.last?.fingerprint == "v4")
        let recovered = try HistoryRecorder.recover(from: files.journal, fingerprint: "v4", registry: rpRegistry())
        #expect(recovered?.histories[HistoryRecorder.defaultHistoryName]?.steps.count == 4)
    }

    /// Control for the probes above: a journal that has not cached the file does overwrite the damage.
    @Test func rpADamagedRecordIsOverwrittenByAFreshJournalsAppend() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 3)
        var data = try Data(contentsOf: files.journal.url)
        data[data.count / 2] ^= 0xFF
        try data.write(to: files.journal.url)
        let fresh = HistoryJournal(url: files.journal.url, synchronizesAppends: false)
        try fresh.append(Data("x".utf8), fingerprint: "v4")
        let after = try fresh.replay()
        #expect(after.ending == .complete)
        #expect(after.records.last?.fingerprint == "v4")
    }

    /// Recovery from a damaged journal returns the last intact matching record before the damage,
    /// and from a file that is not a journal throws a HistoryFileError.
    @Test func rpRecoverFromDamagedAndForeignFiles() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let box = HSBox()
        let stack = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack) { "v\(box.value)" }
        for value in 1...3 { hsChange(box, to: value, on: stack) }
        #expect(recorder.recordCount == 3)
        var data = try Data(contentsOf: files.journal.url)
        data[data.count - 40] ^= 0xFF  // inside the last record
        try data.write(to: files.journal.url)
        let fresh = HistoryJournal(url: files.journal.url)
        let archive = try HistoryRecorder.recover(from: fresh, fingerprint: "v2", registry: rpRegistry())
        #expect(archive?.histories[HistoryRecorder.defaultHistoryName]?.current == 2)
        #expect(try HistoryRecorder.recover(from: fresh, fingerprint: "v3", registry: rpRegistry()) == nil)
        try Data("not a journal at all, just text".utf8).write(to: files.journal.url)
        #expect(throws: HistoryFileError.self) {
            _ = try HistoryRecorder.recover(
                from: HistoryJournal(url: files.journal.url), fingerprint: "v3", registry: rpRegistry())
        }
        // A payload that is intact in the journal but not an archive: a HistoryArchiveError.
        try FileManager.default.removeItem(at: files.journal.url)
        let raw = HistoryJournal(url: files.journal.url, synchronizesAppends: false)
        try raw.append(Data("{}".utf8), fingerprint: "v9")
        #expect(throws: HistoryArchiveError.self) {
            _ = try HistoryRecorder.recover(from: raw, fingerprint: "v9", registry: rpRegistry())
        }
    }
}
