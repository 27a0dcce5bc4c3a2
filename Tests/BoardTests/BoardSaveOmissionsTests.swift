// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackBoardModel
import Foundation
import Testing

/// The board's `save FILE` says what a history left out (a step that holds a closure, and the
/// steps beyond it), and opening the file says it again: a save never loses steps silently.
@MainActor
@Suite struct BoardSaveOmissionsTests {
    @Test func aClosureStepInAFiguresHistoryIsReportedAtSaveAndAtOpen() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("board-omissions-\(UUID().uuidString).board")
        defer { try? FileManager.default.removeItem(at: url) }
        let session = Session(board: Board(), file: nil)
        _ = session.handle("add 10 20")
        _ = session.handle("select 1")
        _ = session.handle("color red")
        let figure = try #require(session.selectedFigure)
        // A change registered as a closure, as an app's own code might: it cannot be saved.
        var tinted = true
        figure.undoStack.registerUndo(withTarget: figure) { _ in tinted = false }
        figure.undoStack.setActionName("Tint")
        figure.undoStack.endEvent()
        #expect(tinted)
        _ = session.handle("color blue")
        let saved = try #require(session.handle("save \(url.path)").first).components(separatedBy: "\n")
        #expect(saved.first == "saved the board and its history to '\(url.path)'")
        #expect(
            saved.dropFirst().first
                == "note: not saved, in figure #1's history: 2 steps at and beyond \"Tint\", which holds a closure, "
                + "not a command")

        let (reopened, notes) = try Session.opening(url)
        #expect(notes.first == "opened '\(url.path)' with its history")
        #expect(
            notes.contains(
                "note: figure #1's history: restored 1 steps; dropped 0; clean state restored; the save left out 2 "
                    + "steps at and beyond \"Tint\", which holds a closure, not a command"))
        // What was saved comes back: the last colour change, and not the steps behind the closure.
        let figureAgain = try #require(reopened.board.figure(1))
        #expect(figureAgain.undoStack.undoCount == 1)
    }

    @Test func aHistoryOfCommandsSavesWithNoNote() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("board-omissions-\(UUID().uuidString).board")
        defer { try? FileManager.default.removeItem(at: url) }
        let session = Session(board: Board(), file: nil)
        _ = session.handle("add 10 20")
        #expect(session.handle("save \(url.path)").first == "saved the board and its history to '\(url.path)'")
        #expect(try session.board.file().leftOut.isEmpty)
    }
}
