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

// Several watched stacks, calls from handlers and notification observers, a recorder or a stack freed
// while the other lives.

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct RecorderReentrancyTests {
    /// A board step's undo handler clears a figure's stack (both watched by one recorder): the
    /// figure's call ends inside the board's undo, the recorder records from the figure's
    /// observer and calls board.savedHistory() in the middle of the board's undo.
    @Test func aCallOnOneWatchedStackFromAHandlerOfAnotherIsNoMisuse() throws {
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
        let archive = try #require(
            try HistoryRecorder.recordedArchives(in: files.journal, registry: testRegistry()).last)
        #expect(archive.histories["board"]?.current == 0 && archive.histories["figure"]?.steps.isEmpty == true)
    }

    /// record() called from an undo handler and from a did-undo notification observer: the
    /// recorder's docs do not say it is a misuse; what happens?
    @Test func recordFromAnUndoHandlerOrANotificationObserver() throws {
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
    @Test func unwatchDuringADelivery() throws {
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
    @Test func theRecorderFreedWhileItsStackLives() throws {
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
    @Test func aWatchedStackFreedWhileOthersGoOn() throws {
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
}
