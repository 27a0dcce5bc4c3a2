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

/// A save says what it left out (`SavedHistory.omissions`): the steps at and beyond a step that
/// holds a closure, named by the nearest such step, and the steps over `maximumSteps`; the archive
/// and the journal keep it, and the restore reports it again.
@Suite struct SaveOmissionsTests {
    /// A stack and the figure its steps change.
    struct Fixture {
        let stack: ActionStack
        let figure = ArchiveFigure()

        init(shape: ActionStack.HistoryShape = .linear) {
            stack = makeStack()
            stack.historyShape = shape
        }

        /// A step of one command, named `name`.
        func command(_ name: String, x: Double = 1) {
            stack.beginUndoGrouping()
            MoveFigure(x: x, y: 0).perform(on: figure, in: stack)
            stack.setActionName(name)
            stack.endUndoGrouping()
        }

        /// A step whose action is a closure, named `name` (with a command beside it when `mixed`).
        func closure(_ name: String, mixed: Bool = false) {
            stack.beginUndoGrouping()
            if mixed { MoveFigure(x: 9, y: 9).perform(on: figure, in: stack) }
            registerClosure()
            stack.setActionName(name)
            stack.endUndoGrouping()
        }

        /// A closure whose undo registers the same closure (so that an undone step can be redone).
        func registerClosure() {
            stack.registerUndo(withTarget: figure) { figure in
                self.registerClosure()
                figure.title += "!"
            }
        }

        /// The steps the stack holds.
        var heldSteps: Int {
            stack.historyTree.map { $0.nodes.count - 1 } ?? (stack.undoCount + stack.redoCount)
        }
    }

    func text(_ omissions: [SavedHistory.Omission]) -> [String] {
        omissions.map { "\($0.reason.rawValue) \($0.steps) \($0.stepName ?? "-")" }
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aClosureOnTheUndoSideLeavesOutItAndTheStepsBeyondAndSaysSo(_ shape: ActionStack.HistoryShape) throws {
        let fixture = Fixture(shape: shape)
        fixture.command("One")
        fixture.closure("Paste", mixed: true)
        fixture.command("Two")
        fixture.command("Three")
        let saved = try fixture.stack.savedHistory()
        #expect(saved.steps.map(\.actionName) == ["Two", "Three"])
        #expect(text(saved.omissions) == ["closure 2 Paste"])
        #expect(saved.omittedSteps == 2)
        #expect(saved.steps.count + saved.omittedSteps == fixture.heldSteps)
        #expect(
            saved.omissions[0].description == #"2 steps at and beyond "Paste", which holds a closure, not a command"#)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func onBothSidesTheNearestClosureNamesTheOmission(_ shape: ActionStack.HistoryShape) throws {
        let fixture = Fixture(shape: shape)
        fixture.closure("Far")
        fixture.command("A")
        fixture.command("B")
        fixture.closure("Near")
        fixture.command("C")
        // Undo C and Near: the current state is after B; the redo side holds Near, then C; the
        // undo side B, A, then Far.
        fixture.stack.undo()
        fixture.stack.undo()
        let saved = try fixture.stack.savedHistory()
        #expect(saved.steps.map(\.actionName) == ["A", "B"])
        #expect(text(saved.omissions) == ["closure 3 Near"])
        // At the same distance, the undo side's comes first.
        let tie = Fixture(shape: shape)
        tie.closure("Undo side")
        tie.closure("Redo side")
        tie.stack.undo()
        #expect(text(try tie.stack.savedHistory().omissions) == ["closure 2 Undo side"])
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func theLimitLeavesOutTheFarthestStepsAndSaysSo(_ shape: ActionStack.HistoryShape) throws {
        let fixture = Fixture(shape: shape)
        for name in ["1", "2", "3", "4", "5"] { fixture.command(name) }
        fixture.stack.undo()
        let saved = try fixture.stack.savedHistory(maximumSteps: 2)
        #expect(saved.steps.map(\.actionName) == ["4", "5"])
        #expect(text(saved.omissions) == ["maximumSteps 3 -"])
        #expect(saved.omissions[0].description == "3 steps over maximumSteps")
        #expect(text(try fixture.stack.savedHistory().omissions) == [])
        #expect(text(try fixture.stack.savedHistory(maximumSteps: 0).omissions) == ["maximumSteps 5 -"])
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func eachStepCountsForTheFirstReasonOnItsWayOut(_ shape: ActionStack.HistoryShape) throws {
        // Undo side: 3 (saved), 2 (over the limit), then a closure and a step beyond it: the limit
        // stopped the walk first, so all three count for it. Redo side: a closure at once.
        let fixture = Fixture(shape: shape)
        fixture.command("0")
        fixture.closure("Closure")
        fixture.command("2")
        fixture.command("3")
        fixture.closure("Redo closure")
        fixture.command("5")
        fixture.stack.undo()
        fixture.stack.undo()
        let saved = try fixture.stack.savedHistory(maximumSteps: 1)
        #expect(saved.steps.map(\.actionName) == ["3"])
        #expect(text(saved.omissions) == ["closure 2 Redo closure", "maximumSteps 3 -"])
        #expect(saved.omittedSteps + saved.steps.count == fixture.heldSteps)
    }

    @Test func anAsynchronousClosureIsAClosureToo() throws {
        let fixture = Fixture()
        fixture.command("One")
        fixture.stack.beginUndoGrouping()
        fixture.stack.registerAsyncUndo(withTarget: fixture.figure) { _ in }
        fixture.stack.setActionName("Upload")
        fixture.stack.endUndoGrouping()
        let saved = try fixture.stack.savedHistory()
        #expect(saved.steps.isEmpty)
        #expect(text(saved.omissions) == ["closure 2 Upload"])
    }

    @Test func aBranchBeyondAClosureCountsForIt() throws {
        // 1 (command), then 2 (closure) and 3 (command) as a branch from 1, and 4 (command) where the
        // document is, from 1: the branch is cut at its closure.
        let fixture = Fixture(shape: .tree)
        fixture.command("1")
        fixture.closure("Closure")
        fixture.command("3")
        fixture.stack.undo()
        fixture.stack.undo()
        fixture.command("4")
        let saved = try fixture.stack.savedHistory()
        #expect(saved.steps.map(\.actionName).sorted() == ["1", "4"])
        #expect(text(saved.omissions) == ["closure 2 Closure"])
        #expect(saved.steps.count + saved.omittedSteps == fixture.heldSteps)
    }

    @Test func aHistoryOfCommandsLeavesNothingOut() throws {
        let fixture = Fixture()
        fixture.command("One")
        fixture.command("Two")
        fixture.stack.undo()
        let saved = try fixture.stack.savedHistory()
        #expect(saved.omissions.isEmpty && saved.omittedSteps == 0)
        let report = try makeStack().restoreHistory(saved) { _ in ArchiveFigure() as AnyObject }
        #expect(report.omittedWhenSaved.isEmpty)
    }

    @Test func theArchiveKeepsTheOmissionsAndTheRestoreReportsThem() throws {
        let fixture = Fixture()
        fixture.command("Start")
        fixture.closure("Paste")
        fixture.command("Typing")
        fixture.command("Typing")
        fixture.stack.undo()
        // Undo side: Typing (saved), then Paste and Start; redo side: Typing, over the limit.
        let saved = try fixture.stack.savedHistory(maximumSteps: 1)
        #expect(text(saved.omissions) == ["closure 2 Paste", "maximumSteps 1 -"])
        let data = try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded()
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains(#""omitted":[["closure",2,"Paste"],["maximumSteps",1]]"#))
        let read = try #require(try HistoryArchive(decoding: data, registry: testRegistry()).histories["h"])
        #expect(text(read.omissions) == text(saved.omissions))
        // The same bytes again.
        #expect(try HistoryArchive(fingerprint: "f", histories: ["h": read]).encoded() == data)
        let figure = ArchiveFigure()
        let report = try makeStack().restoreHistory(read) { _ in figure }
        #expect(report.restoredSteps == 1 && report.droppedSteps == 0)
        #expect(report.omittedWhenSaved == saved.omissions)
        #expect(
            report.description
                == #"restored 1 steps; dropped 0; the save left out 2 steps at and beyond "Paste", which holds a "#
                + "closure, not a command, and 1 step over maximumSteps")
    }

    @Test func theReaderKeepsAReasonItDoesNotKnowAndRefusesABrokenEntry() throws {
        func history(_ omitted: String) -> String {
            archiveJSON(
                history:
                    #"{"shape":"linear","root":0,"current":0,"omitted":\#(omitted),"steps":[],"actions":[],"payloads":[]}"#,
                version: "2")
        }
        let read = try HistoryArchive(
            decoding: Data(history(#"[["closure",3],["someday",2,"x"]]"#).utf8), registry: testRegistry())
        #expect(text(read.histories["h"]!.omissions) == ["closure 3 -", "someday 2 x"])
        #expect(read.histories["h"]!.omissions[1].description == "2 steps someday")
        for broken in [#"[["closure",-1]]"#, #"[[]]"#, #"[["closure"]]"#, #"[["closure",1,"a","b"]]"#, #"[[1,1]]"#] {
            #expect(isCorrupt(archiveError(history(broken))), "\(broken)")
        }
        let long = String(repeating: "n", count: 10)
        let limits = HistoryArchive.Limits(maximumStringLength: 5)
        #expect(
            archiveError(history(#"[["closure",1,"\#(long)"]]"#), limits: limits)
                == .tooLarge(.stringLength, maximum: 5))
        let saved = SavedHistory(
            shape: .linear, root: 0, current: 0, clean: nil, steps: [],
            omissions: [.init(reason: .closure, steps: 1, stepName: long)])
        #expect(throws: HistoryArchiveError.tooLarge(.stringLength, maximum: 5)) {
            try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded(limits: limits)
        }
        #expect(SavedHistory.Omission(reason: .closure, steps: -4).steps == 0)
    }

    @Test func theJournalKeepsTheOmissions() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("omissions-\(UUID()).journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = HistoryJournal(url: url, synchronizesAppends: false)
        let fixture = Fixture()
        let recorder = HistoryRecorder(journal: journal, stack: fixture.stack) { "\(fixture.figure.x)" }
        fixture.closure("Paste")
        fixture.command("Move", x: 5)
        #expect(recorder.recordCount >= 1)
        let archive = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: "5.0", registry: testRegistry()))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        #expect(text(history.omissions) == ["closure 1 Paste"])
    }
}
