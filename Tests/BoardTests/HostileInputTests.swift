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

/// What a hostile user can hand the board besides typed commands: a file edited by hand (the
/// history line has no fingerprint of its own, so any history can be written under a valid one)
/// and a shared board's database written by another program. None of it may crash the program,
/// break the terminal, or leave the board in a state its own file then refuses.
@MainActor
struct HostileInputTests {
    /// A one-figure document with `nextNumber`, encoded.
    func document(nextNumber: Int, figures: [FigureRecord] = []) throws -> Data {
        try BoardFile.encode(BoardDocument(nextNumber: nextNumber, figures: figures, offBoard: []))
    }

    /// A file whose history is `session`'s, edited by `edit` (a JSON object: the archive), under a
    /// fingerprint that matches, as someone who edits the history line by hand can write it.
    func editedHistory(_ session: Session, _ edit: (inout [String: Any]) throws -> Void) throws -> Data {
        let (line, archive) = BoardFile.split(try session.board.fileContents())
        var object = try #require(try JSONSerialization.jsonObject(with: archive) as? [String: Any])
        try edit(&object)
        object["fingerprint"] = BoardFile.fingerprint(of: line)
        return BoardFile.contents(document: line, archive: try JSONSerialization.data(withJSONObject: object))
    }

    /// Runs `body` on the history named `name` in an archive object.
    func history(
        _ object: inout [String: Any], _ name: String, _ body: (inout [String: Any]) throws -> Void
    ) throws {
        var histories = try #require(object["histories"] as? [String: Any])
        var history = try #require(histories[name] as? [String: Any])
        try body(&history)
        histories[name] = history
        object["histories"] = histories
    }

    // MARK: Figure numbers

    /// A next number near `Int.max` crashed the first `add` (the number after it overflowed); one
    /// past the numbers a command reads made figures no command could name. Such a file is
    /// refused, and a board that has used every number refuses `add`, changing nothing.
    @Test func aNextNumberOutOfRangeIsRefusedAndAddStopsAtTheLast() throws {
        for next in [Int.max, Board.largestNumber + 2, 0, -5] {
            #expect(throws: BoardFileError.self, "nextNumber \(next)") {
                try BoardFile.open(try document(nextNumber: next))
            }
        }
        let figure = FigureRecord(
            uuid: UUID(), number: Board.largestNumber, position: Point(x: 1, y: 1), color: .red, cornerRadius: 0)
        let opened = try BoardFile.open(try document(nextNumber: Board.largestNumber + 1, figures: [figure]))
        let session = Session(board: opened.board, file: nil)
        #expect(session.handle("select 999999999").first == "selected figure #999999999")
        #expect(
            session.handle("add 10 10")
                == ["error: no figure number is left (figures are numbered up to 999999999)"])
        #expect(session.board.figures.count == 1)
        #expect(!session.board.undoStack.canUndo)
    }

    /// A peer's change that puts a figure numbered `Int.max` on the board crashed every board
    /// that read it (the next number overflowed): it does not fit, and is skipped like any entry
    /// that does not fit.
    @Test func aPeersFigureWithAHugeNumberIsSkipped() throws {
        let database = TemporaryDatabase()
        let ann = try SharedBoard.join(path: database.path).board
        #expect(ann.handle("add 10 20").first == "added figure #1 at (10.0, 20.0)")
        for number in [Int.max, Board.largestNumber + 1] {
            try database.execute(
                """
                INSERT INTO operations (user, process, change) VALUES (2, 'p', '{"insert":{"_0":{"color":"black",\
                "cornerRadius":0,"number":\(number),"position":{"x":60,"y":10},\
                "uuid":"\(UUID().uuidString)"},"at":0}}');
                """)
        }
        let arrived = ann.poll()
        #expect(arrived.filter { $0.hasPrefix("note: ") }.count == 2, "\(arrived)")
        #expect(ann.session.board.figures.map(\.id) == [1])
        #expect(ann.handle("add 30 20").first == "added figure #2 at (30.0, 20.0)")
    }

    // MARK: Histories edited by hand

    /// A session with two board steps: "Add Figure" (its undo a `RemoveFigure` at index 0), then
    /// "Move to (20.0, 20.0)" (its undo a `MoveFigure` back to (10.0, 20.0)).
    func addedAndMoved() -> Session {
        let session = Session()
        _ = session.handle("add 10 20")
        _ = session.handle("move 1 20 20")
        return session
    }

    /// A move off the board in the history crashed the picture after undo (a position of 1e308
    /// has no column); an index past the file's figures made "Undo Add Figure" do nothing, and
    /// the step vanished. Both are cut when the file is opened, as a step naming a figure the
    /// file lacks is, and the report says why.
    @Test func aBoardStepWithAValueItsCommandsNeverHoldIsCut() throws {
        let offBoard = try editedHistory(addedAndMoved()) { object in
            try history(&object, "board") { board in
                var payloads = try #require(board["payloads"] as? [[String: Any]])
                payloads[1]["position"] = ["x": 1e308, "y": -5]
                board["payloads"] = payloads
            }
        }
        var opened = try BoardFile.open(offBoard)
        #expect(opened.notes.count == 1 && opened.notes[0].contains("is off the board"), "\(opened.notes)")
        #expect(!opened.board.undoStack.canUndo)
        var session = Session(board: opened.board, file: nil)
        #expect(session.handle("undo") == ["error: nothing to undo in the board context"])
        #expect(session.render().contains("figures: #1 (20.0, 20.0) black r=0.0"))

        for place in [1_000_000_000_000_000, 1, -1] {
            let badIndex = try editedHistory(addedAndMoved()) { object in
                try history(&object, "board") { board in
                    var payloads = try #require(board["payloads"] as? [[String: Any]])
                    payloads[0]["index"] = place
                    board["payloads"] = payloads
                }
            }
            opened = try BoardFile.open(badIndex)
            #expect(
                opened.notes.count == 1 && opened.notes[0].contains("index \(place) is outside the 1 figures"),
                "\(opened.notes)")
            session = Session(board: opened.board, file: nil)
            #expect(session.handle("undo").first == "Undo Move to (20.0, 20.0)")
            #expect(session.board.figure(1)?.position == Point(x: 10, y: 20))
            #expect(
                session.handle("undo") == ["error: nothing to undo in the board context"],
                "no Undo Add Figure that would leave the figure where it is")
        }
    }

    /// A corner radius out of range in a figure's history was restored, and undo gave the figure
    /// a radius of -7: saved, the board made a file that the program then refused to open. The
    /// step is cut when the file is opened.
    @Test func aFigureStepWithARadiusOutOfRangeIsCut() throws {
        for radius in [-7.0, 1e300] {
            let session = Session()
            for command in ["add 10 20", "color red", "radius 2"] { _ = session.handle(command) }
            let uuid = try #require(session.board.figure(1)).uuid
            let data = try editedHistory(session) { object in
                try history(&object, BoardFile.historyName(of: uuid)) { figure in
                    var payloads = try #require(figure["payloads"] as? [[String: Any]])
                    payloads[1]["radius"] = radius
                    figure["payloads"] = payloads
                }
            }
            let opened = try BoardFile.open(data)
            #expect(
                opened.notes.count == 1 && opened.notes[0].contains("corner radius \(radius) is out of range"),
                "\(opened.notes)")
            let reopened = Session(board: opened.board, file: nil)
            for command in ["select 1", "figure"] { _ = reopened.handle(command) }
            #expect(reopened.handle("undo") == ["error: nothing to undo in the figure context"])
            #expect(reopened.board.figure(1)?.cornerRadius == 2)
            #expect(throws: Never.self) { try BoardFile.open(try reopened.board.fileContents()) }
        }
    }

    /// Step names with escape sequences, a bell or a newline were printed as they were, in the
    /// titles, `history` and `tree`: a file could recolour the terminal, set its title, or break
    /// the status line in two. They are shown as typed input is (`Session.printable`).
    @Test func stepNamesFromAFileCannotDriveTheTerminal() throws {
        let session = addedAndMoved()
        _ = session.handle("select 1")
        _ = session.handle("color red")
        let uuid = try #require(session.board.figure(1)).uuid
        let data = try editedHistory(session) { object in
            try history(&object, "board") { board in
                board["names"] = ["Add \u{1B}[31mRED\u{1B}]0;pwned\u{07} Figure", "Move\nto\rX\u{202E}"]
            }
            try history(&object, BoardFile.historyName(of: uuid)) { figure in
                figure["names"] = ["Tint\u{1B}[2J"]
            }
        }
        let reopened = Session(board: try BoardFile.open(data).board, file: nil)
        var shown = reopened.render() + reopened.handle("history") + reopened.handle("tree")
        shown += reopened.handle("undo") + reopened.handle("select 1") + reopened.handle("figure")
        shown += reopened.handle("history")
        let hidden = shown.joined(separator: "\n").unicodeScalars.filter {
            $0.properties.generalCategory == .control && $0 != "\n" || $0 == "\u{202E}"
        }
        #expect(hidden.isEmpty, "\(shown)")
        #expect(shown.contains("board: [Undo Move?to?X?] (Redo)"), "\(shown)")
        #expect(shown.contains("figure #1: [Undo Tint?[2J] (Redo)  * unsaved: board"), "\(shown)")
    }

    // MARK: A damaged shared board

    /// With the database file destroyed under a running board, every poll (twice a second while
    /// the board waits for a key) printed the same note, without end. It is told once; a command
    /// still says it could not read the board.
    @Test func aDamagedSharedBoardIsToldOnceWhileWaiting() throws {
        let database = TemporaryDatabase()
        let ann = try SharedBoard.join(path: database.path).board
        #expect(ann.handle("add 10 20").first == "added figure #1 at (10.0, 20.0)")
        // Everything in the file itself, then the file emptied, as `: > FILE` in a shell does.
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let url = URL(fileURLWithPath: database.path)
        func empty() throws {
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 0)
            try handle.close()
        }
        try empty()
        let first = ann.poll()
        #expect(first.count == 1 && first[0].hasPrefix("note: the shared board could not be read"), "\(first)")
        #expect(ann.poll() == [])
        #expect(ann.poll() == [])
        #expect(ann.handle("add 30 20").first?.hasPrefix("error: the shared board could not be read") == true)
    }

    // MARK: Line ends

    /// A board file written back with CRLF line ends (an editor, a Windows checkout) or with a
    /// byte order mark opened without its history, with a note that the board had changed since
    /// the history was saved, which it had not. It opens as it was saved.
    @Test func aFileWithCRLFLineEndsOrAByteOrderMarkOpensWithItsHistory() throws {
        let session = addedAndMoved()
        let data = try session.board.fileContents()
        let text = try #require(String(data: data, encoding: .utf8))
        let crlf = Data(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        for variant in [crlf, Data([0xEF, 0xBB, 0xBF]) + data, Data([0xEF, 0xBB, 0xBF]) + crlf] {
            let opened = try BoardFile.open(variant)
            #expect(opened.historyRestored && opened.notes.isEmpty, "\(opened.notes)")
            #expect(opened.board.undoStack.undoMenuItemTitle == "Undo Move to (20.0, 20.0)")
            #expect(try opened.board.fileContents() == data, "saved again, it is the file it was")
        }
    }

    // MARK: Quitting

    /// A figure's history changed while the figure was back on the board, then the removal was
    /// redone: the board was at its saved step again, and `quit` quit at once, losing the
    /// figure's change (reopened, undoing the removal brought the figure back red, its undone
    /// colour change gone). The status line names the figure, and `quit` warns.
    @Test func aChangeToAFigureOffTheBoardIsNotLostByQuitting() throws {
        let session = Session()
        for command in ["add 10 20", "color red", "remove 1", "save", "undo", "select 1", "figure", "undo", "board"] {
            #expect(session.handle(command).first?.hasPrefix("error: ") == false, "\(command)")
        }
        #expect(session.handle("redo").first == "Redo Remove Figure")
        #expect(session.board.undoStack.isClean, "the board is back at its saved step")
        #expect(session.render().last == "board: [Undo Remove Figure] (Redo)  * unsaved: figure #1 (off the board)")
        #expect(session.board.hasUnsavedChanges)
        #expect(session.handle("quit").first?.hasPrefix("the board has unsaved changes") == true)
        #expect(!session.isFinished)
        _ = session.handle("save")
        #expect(!session.board.hasUnsavedChanges)
        #expect(session.render().last == "board: [Undo Remove Figure] (Redo)")
    }
}
