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

/// Saving the board with its history and opening it again (`BoardFile`), in the model: the
/// reopened board is a fresh set of objects that must behave as the saved one did, step for step.
@MainActor
struct BoardFileTests {
    /// A session whose board's history has moves, a coalesced nudge, removals, colour and radius
    /// changes, and two branches: one holding a removal, one of two steps holding a figure (#4)
    /// that exists only there. Its current node is the newest change, so redoing everything from the start ends
    /// where it is.
    ///
    /// The board ends with #1 and #2 on it; #3 is off it (removed on the current path) and #4 too
    /// (its addition is on an abandoned branch).
    func richSession() -> Session {
        let session = Session()
        let script = [
            "add 10 20", "add 40 8", "move 1 30 5", "nudge 1 2 0", "nudge 1 2 0", "select 2", "color red", "radius 2",
            "add 60 30", "color blue", "remove 2", "undo", "move 3 70 35", "remove 3", "select 1", "color green",
            "add 5 5", "move 4 6 6", "undo", "undo", "move 1 20 20",
        ]
        for command in script {
            let output = session.handle(command)
            #expect(output.first?.hasPrefix("error: ") == false, "\(command): \(output)")
        }
        return session
    }

    /// Everything observable about a board: each figure on it (number, UUID, place, colour,
    /// radius, and its own stack's titles and clean state), the board's titles and clean state,
    /// whether anything is unsaved, and its history tree drawn node by node.
    func observed(_ board: Board) -> [String] {
        var lines = board.figures.map { figure in
            let stack = figure.undoStack
            return "#\(figure.id) \(figure.uuid) \(figure.position) \(figure.color.rawValue) r=\(figure.cornerRadius) "
                + "[\(stack.undoMenuItemTitle) | \(stack.redoMenuItemTitle) | clean: \(stack.isClean)]"
        }
        let stack = board.undoStack
        lines.append(
            "board [\(stack.undoMenuItemTitle) | \(stack.redoMenuItemTitle) | clean: \(stack.isClean)] "
                + "unsaved: \(board.hasUnsavedChanges)")
        if let tree = stack.historyTree { lines += HistoryTreeText.lines(of: tree) }
        return lines
    }

    /// The figures on the board, as the session lists them.
    func figures(_ board: Board) -> [String] {
        board.figures.map { "#\($0.id) \($0.position) \($0.color.rawValue) r=\($0.cornerRadius)" }
    }

    /// Saves `session`'s board as the session's `save FILE` does (the file's bytes, then the
    /// saved mark), and opens the bytes into fresh objects.
    func saveAndReopen(_ session: Session) throws -> (data: Data, opened: OpenedBoard) {
        let data = try session.board.fileContents()
        session.board.save()
        return (data, try BoardFile.open(data))
    }

    @Test func theFingerprintIsSHA256() {
        #expect(
            BoardFile.fingerprint(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            BoardFile.fingerprint(of: Data("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // Two blocks: the padding does not fit in the first.
        let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(
            BoardFile.fingerprint(of: Data(twoBlocks.utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// The round trip: the reopened board agrees with the saved one on everything observable, at
    /// every node of the tree, after every undo back to the empty board and every redo forward to
    /// the last change.
    @Test func aReopenedBoardBehavesAsTheSavedOneStepForStep() throws {
        let session = richSession()
        let saved = session.board
        let (_, opened) = try saveAndReopen(session)
        let reopened = opened.board
        #expect(opened.historyRestored)
        #expect(opened.notes.isEmpty, "\(opened.notes)")
        #expect(reopened !== saved)
        #expect(observed(reopened) == observed(saved))
        #expect(figures(reopened) == ["#1 (20.0, 20.0) green r=0.0", "#2 (40.0, 8.0) red r=2.0"])
        #expect(!reopened.hasUnsavedChanges, "a file just saved opens saved")

        // Undo everything: back to the empty board, title by title.
        var undone = 0
        while saved.undoStack.canUndo {
            let title = saved.undoStack.undoMenuItemTitle
            #expect(reopened.undoStack.undoMenuItemTitle == title)
            saved.undoStack.undo()
            reopened.undoStack.undo()
            undone += 1
            #expect(observed(reopened) == observed(saved), "after \(title)")
        }
        #expect(!reopened.undoStack.canUndo)
        #expect(reopened.figures.isEmpty, "the initial board")
        #expect(undone == 8, "the path from the start: the branches are off it")

        // Redo everything: forward to the board as it was saved.
        while saved.undoStack.canRedo {
            let title = saved.undoStack.redoMenuItemTitle
            #expect(reopened.undoStack.redoMenuItemTitle == title)
            saved.undoStack.redo()
            reopened.undoStack.redo()
            #expect(observed(reopened) == observed(saved), "after \(title)")
        }
        #expect(!reopened.undoStack.canRedo)
        #expect(figures(reopened) == ["#1 (20.0, 20.0) green r=0.0", "#2 (40.0, 8.0) red r=2.0"])
        #expect(!reopened.hasUnsavedChanges, "back at the saved node")

        // Every node, branches included: the figure that lives only on a branch comes back too.
        let tree = try #require(saved.undoStack.historyTree)
        #expect(tree.nodes.count == 12)
        for node in tree.nodes {
            try saved.undoStack.jump(toNode: node.id)
            try reopened.undoStack.jump(toNode: node.id)
            #expect(observed(reopened) == observed(saved), "at node \(node.sequence)")
        }
        let branchOnly = try #require(tree.nodes.first { $0.actionName == "Add Figure" && $0.sequence > 5 })
        try reopened.undoStack.jump(toNode: branchOnly.id)
        #expect(reopened.figure(4)?.position == Point(x: 5, y: 5))
        reopened.undoStack.redo()
        #expect(reopened.figure(4)?.position == Point(x: 6, y: 6), "the branch's second step")
        reopened.undoStack._checkInvariants()
    }

    /// A removed figure is saved with its own history, and comes back with it when its removal is
    /// undone after reopening.
    @Test func aRemovedFigureComesBackWithItsHistory() throws {
        let session = Session()
        for command in ["add 10 20", "add 40 8", "select 2", "color red", "radius 3", "color blue", "remove 2"] {
            _ = session.handle(command)
        }
        let (_, opened) = try saveAndReopen(session)
        let board = opened.board
        #expect(board.figure(2) == nil)
        #expect(board.undoStack.undoMenuItemTitle == "Undo Remove Figure")
        board.undoStack.undo()
        let figure = try #require(board.figure(2))
        #expect(figure.color == .blue && figure.cornerRadius == 3)
        #expect(figure.undoStack.undoMenuItemTitle == "Undo Change Color")
        figure.undoStack.undo()
        #expect(figure.color == .red)
        #expect(figure.undoStack.undoMenuItemTitle == "Undo Change Corner Radius")
        figure.undoStack.undo()
        figure.undoStack.undo()
        #expect(figure.color == .black && figure.cornerRadius == 0)
        #expect(!figure.undoStack.canUndo)
        #expect(figure.undoStack.redoMenuItemTitle == "Redo Change Color")
        // Taken off the board again and back: the same figure, with its history.
        board.undoStack.redo()
        #expect(board.figure(2) == nil)
        board.undoStack.undo()
        #expect(board.figure(2) === figure)
        #expect(figure.undoStack.redoMenuItemTitle == "Redo Change Color")
    }

    /// Where the board was saved is where the reopened board is saved: undoing past it is a
    /// change, coming back is not.
    @Test func theSavedStateSurvivesReopening() throws {
        let session = Session()
        for command in ["add 10 20", "move 1 30 5", "save", "move 1 5 5", "select 1", "color red"] {
            _ = session.handle(command)
        }
        #expect(session.board.hasUnsavedChanges)
        let (_, opened) = try saveAndReopen(session)
        let board = opened.board
        #expect(!board.hasUnsavedChanges)
        board.undoStack.undo()
        #expect(board.hasUnsavedChanges)
        board.undoStack.redo()
        #expect(!board.hasUnsavedChanges)
        let figure = try #require(board.figure(1))
        figure.undoStack.undo()
        #expect(board.hasUnsavedChanges, "a figure's change counts")
        figure.undoStack.redo()
        #expect(!board.hasUnsavedChanges)
        // The earlier save's node is not saved any more: the last save moved the mark.
        let tree = try #require(board.undoStack.historyTree)
        #expect(tree.clean == tree.current)
    }

    /// A document changed after its history was saved opens as it is, with no history (which
    /// would act on a board that is no longer the one it was made on), and says so.
    @Test func aTamperedDocumentOpensWithoutHistory() throws {
        let session = richSession()
        let (data, _) = try saveAndReopen(session)
        let (line, archive) = BoardFile.split(data)
        var document = try BoardFile.decodeDocument(line)
        document.figures[0].position = Point(x: 1, y: 1)
        let tampered = BoardFile.contents(document: try BoardFile.encode(document), archive: archive)
        let opened = try BoardFile.open(tampered)
        #expect(!opened.historyRestored)
        #expect(opened.notes.count == 1)
        #expect(opened.notes.first?.contains("the fingerprint does not match") == true)
        #expect(opened.notes.first?.hasSuffix("opened without its history") == true)
        #expect(figures(opened.board) == ["#1 (1.0, 1.0) green r=0.0", "#2 (40.0, 8.0) red r=2.0"])
        #expect(!opened.board.undoStack.canUndo && !opened.board.undoStack.canRedo)
        #expect(opened.board.figures.allSatisfy { !$0.undoStack.canUndo })
        #expect(!opened.board.hasUnsavedChanges, "the board is as its file has it")
        // A change after opening is undoable as usual.
        try opened.board.move(2, to: Point(x: 3, y: 3))
        opened.board.undoStack.endEvent()
        opened.board.undoStack.undo()
        #expect(opened.board.figure(2)?.position == Point(x: 40, y: 8))
    }

    /// A file whose document lacks a figure that the history brings back (written by another
    /// program, with a fresh fingerprint): the board's history is cut at the first step that
    /// needs the figure, and the report says where and why; the figure's own history, with no
    /// figure to go to, is left out and reported.
    @Test func aFileMissingAFigureCutsTheHistoryThere() throws {
        let session = Session()
        for command in ["add 10 20", "add 40 8", "select 2", "color red", "remove 2", "move 1 30 5"] {
            _ = session.handle(command)
        }
        let (data, _) = try saveAndReopen(session)
        let (line, archiveData) = BoardFile.split(data)
        var document = try BoardFile.decodeDocument(line)
        let missing = try #require(document.offBoard.first)
        #expect(missing.number == 2)
        document.offBoard.removeAll()
        let archive = try HistoryArchive(decoding: archiveData, registry: BoardFile.registry)
        let edited = try BoardFile.contents(document: document, histories: archive.histories)

        let opened = try BoardFile.open(edited)
        #expect(opened.historyRestored)
        let report = try #require(opened.reports[BoardFile.boardHistoryName])
        #expect(report.restoredSteps == 1, "only the move, after the removal")
        #expect(report.droppedSteps == 3)
        let cut = try #require(report.cuts.first)
        #expect(
            cut.reason
                == .command(
                    .decodingFailed(type: "board.insert", reason: "no figure \(missing.uuid.uuidString) in the file"))
        )
        #expect(
            opened.notes == [
                "the board's history: \(report)",
                "the history \"\(BoardFile.historyName(of: missing.uuid))\" belongs to no figure in the file: left out",
            ])
        let board = opened.board
        #expect(board.undoStack.undoMenuItemTitle == "Undo Move to (30.0, 5.0)")
        board.undoStack.undo()
        #expect(figures(board) == ["#1 (10.0, 20.0) black r=0.0"])
        #expect(!board.undoStack.canUndo, "the cut: nothing can bring back a figure the file does not have")
    }

    @Test func anUnreadableHistoryOpensTheBoardWithoutIt() throws {
        let session = Session()
        _ = session.handle("add 10 20")
        let (data, _) = try saveAndReopen(session)
        let line = BoardFile.split(data).document
        for archive in ["{\"format\":\"ActionStack.History\"", "[]", ""] {
            let opened = try BoardFile.open(BoardFile.contents(document: line, archive: Data(archive.utf8)))
            #expect(!opened.historyRestored)
            #expect(figures(opened.board) == ["#1 (10.0, 20.0) black r=0.0"])
            #expect(!opened.board.undoStack.canUndo)
            #expect(opened.notes.count == 1 && opened.notes[0].hasSuffix("opened without its history"))
        }
    }

    @Test func aFileThatIsNoBoardIsRefused() throws {
        #expect(throws: BoardFileError.notABoardFile("its first line is not a board document")) {
            try BoardFile.open(Data("hello\nworld\n".utf8))
        }
        #expect(throws: BoardFileError.newerVersion(2)) {
            try BoardFile.open(Data(#"{"format":"ActionStack.Board","version":2}"#.utf8))
        }
        let twice = BoardDocument(
            nextNumber: 3,
            figures: [
                FigureRecord(uuid: UUID(), number: 1, position: Point(x: 1, y: 1), color: .red, cornerRadius: 0),
                FigureRecord(uuid: UUID(), number: 1, position: Point(x: 2, y: 2), color: .red, cornerRadius: 0),
            ], offBoard: [])
        #expect(throws: BoardFileError.self) { try BoardFile.open(try BoardFile.encode(twice)) }
        let offBoard = BoardDocument(
            nextNumber: 2,
            figures: [
                FigureRecord(uuid: UUID(), number: 1, position: Point(x: 99, y: 1), color: .red, cornerRadius: 0)
            ],
            offBoard: [])
        #expect(throws: BoardFileError.self) { try BoardFile.open(try BoardFile.encode(offBoard)) }
    }

    /// The document is one line, so that the file splits into its two parts at the first newline,
    /// whatever the figures hold.
    @Test func theDocumentIsOneLineAndTheFileTwo() throws {
        let (data, _) = try saveAndReopen(richSession())
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty, "two lines, each ended")
        let (line, archive) = BoardFile.split(data)
        let decoded = try HistoryArchive(decoding: archive, registry: BoardFile.registry)
        #expect(decoded.fingerprint == BoardFile.fingerprint(of: line))
        let document = try BoardFile.decodeDocument(line)
        #expect(document.figures.map(\.number) == [1, 2])
        #expect(document.offBoard.map(\.number) == [3, 4], "removed on the path, and added on a branch")
        #expect(
            decoded.histories.keys.sorted()
                == ([BoardFile.boardHistoryName]
                + (document.figures + document.offBoard).map { BoardFile.historyName(of: $0.uuid) }).sorted())
        // Saving the same board again gives the same bytes.
        #expect(try BoardFile.encode(document) == line)
    }
}

/// `save FILE` and `save` in the session, and `Session.opening`.
@MainActor
struct SessionFileTests {
    func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID().uuidString).board")
    }

    @Test func saveFileWritesAndSaveAloneWritesItAgain() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let session = Session()
        _ = session.handle("add 10 20")
        let output = session.handle("save \(url.path)")
        #expect(output.first == "saved the board and its history to '\(url.path)'")
        #expect(output.last == "board: [Undo Add Figure] (Redo)", "saved: nothing unsaved")
        #expect(session.file?.path == url.path)
        _ = session.handle("move 1 30 5")
        #expect(session.handle("save").first == "saved the board and its history to '\(url.path)'")

        let (reopened, notes) = try Session.opening(url)
        #expect(notes == ["opened '\(url.path)' with its history"])
        #expect(reopened.render().last == "board: [Undo Move to (30.0, 5.0)] (Redo)")
        #expect(reopened.handle("undo").first == "Undo Move to (30.0, 5.0)")
        #expect(reopened.handle("undo").first == "Undo Add Figure")
        #expect(reopened.board.figures.isEmpty)
    }

    /// A figure off the board when the board is saved is saved as the file holds it, with its
    /// history: brought back by `goto`, its history is saved where it is and the status line does
    /// not call it unsaved, in the session that saved it and after reopening alike. (Its stack once
    /// kept its old saved mark, at its start: reopened, the figure the file holds as it is came back
    /// "unsaved".) The reviewer's steps: figure #1 recoloured and rounded, the rounding undone,
    /// its addition undone, another figure added, `save FILE`.
    @Test func aFigureOffTheBoardIsSavedAsTheFileHoldsIt() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let session = Session()
        for command in [
            "add 10 20", "color red", "radius 2", "figure", "undo", "board", "undo", "add 40 8", "save \(url.path)",
        ] {
            let output = session.handle(command)
            #expect(output.first?.hasPrefix("error: ") == false, "\(command): \(output)")
        }
        #expect(session.board.figure(1) == nil, "figure #1 is off the board when it is saved")
        let (reopened, _) = try Session.opening(url)
        for (name, session) in [("saved", session), ("reopened", reopened)] {
            #expect(session.handle("goto 1").first == "went to node 1: undid 1 step, then redid 1 step", "\(name)")
            let figure = try #require(session.board.figure(1), "\(name)")
            #expect(figure.color == .red && figure.cornerRadius == 0, "\(name)")
            #expect(figure.isSaved, "\(name): as the file holds it")
            _ = session.handle("select 1")
            _ = session.handle("figure")
            let history = try #require(session.handle("history").first).split(separator: "\n").map(String.init)
            #expect(history.count == 4, "\(name): \(history)")
            #expect(history.dropFirst().first == "  0  (start)", "\(name): \(history)")
            #expect(history.dropFirst(2).first?.hasPrefix("  1  Change Color") == true, "\(name): \(history)")
            #expect(history.dropFirst(2).first?.hasSuffix("<- you are here, saved") == true, "\(name): \(history)")
            // Only the board moved away from where it was saved.
            #expect(
                session.render().last == "figure #1: [Undo Change Color] [Redo Change Corner Radius]  * unsaved: board",
                "\(name)")
        }
    }

    @Test func aFailedSaveChangesNothing() throws {
        let session = Session()
        _ = session.handle("add 10 20")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-dir-\(UUID())/b.board")
        let output = session.handle("save \(url.path)")
        #expect(output.count == 1)
        #expect(output.first?.hasPrefix("error: cannot save: ") == true, "\(output)")
        #expect(session.board.hasUnsavedChanges, "nothing was saved, so nothing is marked saved")
        #expect(session.file == nil)
    }

    @Test func openingAFileThatDoesNotExistStartsANewBoardThatSaveWrites() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let (session, notes) = try Session.opening(url)
        #expect(notes == ["'\(url.path)' is a new file: save writes it"])
        #expect(session.board.figures.isEmpty)
        _ = session.handle("add 1 1")
        _ = session.handle("save")
        #expect(FileManager.default.fileExists(atPath: url.path))
    }
}
