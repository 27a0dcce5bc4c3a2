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
#endif

// The examples and promises of SavingTheHistory.md, run as written.

@Suite struct SavingTheHistoryArticleTests {
    @Test func theFirstExampleOfSavingTheHistory() throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        let note = HRNote()
        for text in ["one", "one two"] {
            stack.beginUndoGrouping()
            HRSetText(text: text).perform(on: note, in: stack)
            stack.setActionName("Typing")
            stack.endUndoGrouping()
        }
        stack.markClean()
        let saved = try stack.savedHistory()
        let reopened = HRNote()
        reopened.text = note.text
        let fresh = ActionStack()
        let report = try fresh.restoreHistory(saved) { key in key == reopened.id ? reopened : nil }
        #expect(report.restoredSteps == 2)
        #expect(fresh.isClean)
        fresh.undo()
        #expect(reopened.text == "one")
    }

    @Test func theRecorderExampleOfSavingTheHistory() throws {
        let url = hrTemporaryURL("note.journal")
        let journal = HistoryJournal(url: url)
        let note = HRNote()
        let stack = ActionStack()
        stack.groupsByEvent = false
        let recorder = HistoryRecorder(journal: journal, stack: stack) { note.text }
        for text in ["one", "one two"] {
            stack.beginUndoGrouping()
            HRSetText(text: text).perform(on: note, in: stack)
            stack.endUndoGrouping()
        }
        #expect(recorder.recordCount == 2)
        var registry = CommandRegistry()
        registry.register(HRSetText.self)
        let reopened = HRNote()
        reopened.text = "one two"
        let archive = try #require(
            try HistoryRecorder.recover(from: journal, fingerprint: reopened.text, registry: registry))
        let history = try #require(archive.histories[HistoryRecorder.defaultHistoryName])
        let fresh = ActionStack()
        _ = try fresh.restoreHistory(history) { key in key == reopened.id ? reopened : nil }
        fresh.undo()
        #expect(reopened.text == "one")
        try journal.reset()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func theFormatExampleIsWhatTheLibraryWrites() throws {
        let documented =
            #"{"format":"ActionStack.History","version":2,"fingerprint":"rev-42","histories":{"board":{"#
            + #""shape":"linear","root":0,"current":2,"clean":1,"commands":[["board.move",1,"F1E2"]],"#
            + #""names":["Move"],"steps":[{"a":1,"n":0},1],"actions":[0,0],"#
            + #""payloads":[{"x":10,"y":20},{"x":0,"y":5}]}}}"#
        func step(_ node: Int, _ move: HRMove) -> SavedStep {
            SavedStep(
                node: node, parent: node - 1, isRedoChoice: true, date: nil, actionName: "Move", isDiscardable: false,
                userInfo: [:], actions: [SavedAction(move, key: "F1E2")])
        }
        let history = SavedHistory(
            shape: .linear, root: 0, current: 2, clean: 1,
            steps: [step(1, HRMove(x: 10, y: 20)), step(2, HRMove(x: 0, y: 5))])
        let data = try HistoryArchive(fingerprint: "rev-42", histories: ["board": history]).encoded()
        #expect(String(decoding: data, as: UTF8.self) == documented)
        var registry = CommandRegistry()
        registry.register(HRMove.self)
        #expect(try HistoryArchive(decoding: Data(documented.utf8), registry: registry).encoded() == data)
    }

    @Test func savingFromAHandlerIsAMisuseAndTheDepthThenIsWhatSavingGivesAfter() throws {
        let stack = hrStack()
        let doc = HRDoc()
        var gone: HRDoc? = HRDoc("gone")
        hrChange(doc, to: 1, on: stack, name: "A")
        hrChange(gone!, to: 1, on: stack, name: "Gone")
        var fromHandler: Result<SavedHistory, ActionStack.HistoryPersistenceError>?
        var depthInHandler: ActionStack.SavableDepth?
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: doc) { [unowned stack] _ in
            gone = nil
            depthInHandler = stack.savableDepth
            fromHandler = Result { () throws(ActionStack.HistoryPersistenceError) in try stack.savedHistory() }
        }
        stack.endUndoGrouping()
        stack.undo()
        if case .failure(let error) = fromHandler, error.misuse?.kind == .reentrantCall {
        } else {
            Issue.record("\(String(describing: fromHandler))")
        }
        #expect(depthInHandler == stack.savableDepth)
        #expect(try stack.savedHistory().steps.map(\.actionName) == ["A"])
    }

}
