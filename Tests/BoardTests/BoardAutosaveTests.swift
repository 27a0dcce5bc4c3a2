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

/// `board --autosave FILE` in the model (`BoardAutosave`): a session that ends without `quit`
/// leaves FILE.autosave and FILE.journal, and the next session with the autosave opens the board
/// as the last command left it, with every history, saved marks included; `quit` removes them;
/// damaged files are refused and left as they were.
@MainActor
struct BoardAutosaveTests {
    /// A directory in the temporary directory, removed when the test ends.
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("board-autosave-\(UUID().uuidString)")

        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

        deinit { try? FileManager.default.removeItem(at: url) }

        /// The board file the tests autosave.
        var file: URL { url.appendingPathComponent("b.board") }
        /// The names in the directory, sorted.
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }
    }

    let reference = BoardFileTests()

    /// Runs `commands` on `session`, none refused.
    func run(_ commands: [String], on session: Session) {
        for command in commands {
            let output = session.handle(command)
            #expect(output.first?.hasPrefix("error: ") == false, "\(command): \(output)")
            #expect(!output.contains { $0.hasPrefix("warning: ") }, "\(command): \(output)")
        }
    }

    /// The board and its histories, as `observed` shows them, through every undo on the board's
    /// stack to the start and back by redo: two boards that agree at each step behave alike.
    func walk(_ board: Board) -> [[String]] {
        var states = [reference.observed(board)]
        var undone = 0
        while board.undoStack.canUndo {
            board.undoStack.undo()
            undone += 1
            states.append(reference.observed(board))
        }
        for _ in 0..<undone {
            board.undoStack.redo()
            states.append(reference.observed(board))
        }
        return states
    }

    @Test func aSessionThatEndsWithoutQuitComesBackAsItsLastCommandLeftIt() throws {
        let directory = try Directory()
        let (session, notes) = try Session.opening(directory.file, autosave: true)
        #expect(notes.contains { $0.hasPrefix("autosave: every change is kept in ") }, "\(notes)")
        // A rich history: moves, a coalesced nudge, removals, colours, branches, a figure that
        // exists only on an abandoned branch; saved halfway, so that some changes are unsaved.
        run(["add 10 20", "add 40 8", "move 1 30 5", "select 2", "color red", "save"], on: session)
        run(
            [
                "nudge 1 2 0", "nudge 1 2 0", "radius 2", "add 60 30", "color blue", "remove 2", "undo", "move 3 70 35",
                "remove 3", "select 1", "color green", "add 5 5", "move 4 6 6", "undo", "undo", "move 1 20 20",
            ], on: session)
        #expect(session.board.hasUnsavedChanges)
        #expect(try directory.names() == ["b.board", "b.board.autosave", "b.board.journal", "b.board.lock"])
        let before = reference.observed(session.board)

        // The session ends without quit (a crash, a closed terminal): the next one recovers.
        let (recovered, recoveryNotes) = try Session.opening(directory.file, autosave: true)
        #expect(
            recoveryNotes.first
                == "recovered the board from '\(BoardAutosave.documentURL(for: directory.file).relativePath)': "
                + "as it was after the last command, with its history", "\(recoveryNotes)")
        #expect(reference.observed(recovered.board) == before)
        #expect(recovered.board.hasUnsavedChanges, "the changes after the save are still unsaved")
        #expect(walk(recovered.board) == walk(session.board))
        // Each figure's own history came back too, with its saved mark.
        for (old, new) in zip(session.board.figures, recovered.board.figures) {
            #expect(new.undoStack.undoMenuItemTitle == old.undoStack.undoMenuItemTitle)
            #expect(new.undoStack.isClean == old.undoStack.isClean)
        }
    }

    @Test func quitRemovesTheAutosaveAndLeavesTheFileAsSaved() throws {
        let directory = try Directory()
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "save", "move 1 30 5"], on: session)
        let saved = try Data(contentsOf: directory.file)
        #expect(session.handle("quit").first?.hasPrefix("the board has unsaved changes") == true)
        #expect(try directory.names().count == 4, "a refused quit keeps the autosave and its lock")
        #expect(session.handle("quit") == ["bye"])
        #expect(try directory.names() == ["b.board"])
        #expect(try Data(contentsOf: directory.file) == saved, "the unsaved move was left, as quit twice says")
        let (reopened, notes) = try Session.opening(directory.file, autosave: true)
        #expect(notes.first == "opened '\(directory.file.relativePath)' with its history", "\(notes)")
        #expect(reopened.board.figures.map(\.position) == [Point(x: 10, y: 20)])
    }

    @Test func aCrashBetweenTheRecordAndTheDocumentOpensTheBoardBeforeTheCommand() throws {
        let directory = try Directory()
        let documentURL = BoardAutosave.documentURL(for: directory.file)
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "add 40 8", "move 1 30 5", "select 2", "color red"], on: session)
        let before = reference.observed(session.board)
        let beforeWalk = walk(session.board)
        let olderDocument = try Data(contentsOf: documentURL)
        run(["move 2 50 9", "radius 3"], on: session)
        // The journal's record of the last command was appended, its document not yet written:
        // the document on disk is an older one, and the journal holds that one's records too.
        try olderDocument.write(to: documentURL)
        let (recovered, _) = try Session.opening(directory.file, autosave: true)
        #expect(reference.observed(recovered.board) == before)
        #expect(walk(recovered.board) == beforeWalk)
    }

    @Test func aJournalWithNoRecordForTheDocumentOpensTheBoardUnsavedWithoutHistory() throws {
        let directory = try Directory()
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "move 1 30 5", "save"], on: session)
        try FileManager.default.removeItem(at: BoardAutosave.journalURL(for: directory.file))
        let (recovered, notes) = try Session.opening(directory.file, autosave: true)
        #expect(notes.contains("note: the journal holds no history for it: the board opens without its history"))
        #expect(recovered.board.figures.map(\.position) == [Point(x: 30, y: 5)])
        #expect(!recovered.board.undoStack.canUndo)
        #expect(recovered.board.hasUnsavedChanges, "no history says the document is the saved one")
    }

    /// A board saved, then killed, whose FILE is then removed or replaced by another board: the
    /// recovered board is not in FILE, so it must not say it is saved (a `quit` would remove the
    /// autosave at once, and with it the only copy of the board).
    @Test(arguments: ["removed", "replaced"])
    func aRecoveredBoardThatFileNoLongerHoldsIsUnsaved(what: String) throws {
        let directory = try Directory()
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "add 40 8", "save"], on: session)
        #expect(!session.board.hasUnsavedChanges)
        if what == "removed" {
            try FileManager.default.removeItem(at: directory.file)
        } else {
            let other = Session(board: Board(), file: directory.file)
            #expect(other.handle("add 70 30").first?.hasPrefix("error: ") == false)
            #expect(other.handle("save").first?.hasPrefix("saved the board") == true)
        }
        let (recovered, notes) = try Session.opening(directory.file, autosave: true)
        #expect(recovered.board.figures.map(\.position) == [Point(x: 10, y: 20), Point(x: 40, y: 8)])
        #expect(recovered.board.hasUnsavedChanges, "'\(directory.file.lastPathComponent)' does not hold it: \(notes)")
        #expect(notes.contains { $0.hasPrefix("note: ") && $0.contains("does not hold") }, "\(notes)")
        #expect(recovered.handle("quit").first?.hasPrefix("the board has unsaved changes") == true)
        #expect(BoardAutosave.exists(for: directory.file), "the refused quit keeps the autosave")
        #expect(recovered.board.undoStack.undoMenuItemTitle == "Undo Add Figure", "the history came back")
    }

    /// As above, with changes after the save: the recovered board is unsaved anyway, but undoing
    /// them came back to a step that said "saved" while FILE did not hold it, and one quit lost
    /// the board. FILE removed, or saved by a board without --autosave (a figure this board never
    /// had): no saved mark stays.
    @Test(arguments: ["removed", "saved by another board"])
    func aRecoveredBoardKeepsNoSavedMarkThatFileNoLongerHolds(what: String) throws {
        let directory = try Directory()
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "add 40 8", "save", "move 1 30 5"], on: session)
        if what == "removed" {
            try FileManager.default.removeItem(at: directory.file)
        } else {
            let (other, _) = try Session.opening(directory.file)
            run(["add 70 30", "save"], on: other)
        }
        let (recovered, notes) = try Session.opening(directory.file, autosave: true)
        #expect(recovered.board.figures.map(\.position) == [Point(x: 30, y: 5), Point(x: 40, y: 8)])
        #expect(notes.contains { $0.hasPrefix("note: ") && $0.contains("does not hold") }, "\(notes)")
        run(["undo"], on: recovered)
        #expect(recovered.board.figures.map(\.position) == [Point(x: 10, y: 20), Point(x: 40, y: 8)])
        #expect(recovered.board.hasUnsavedChanges, "the step saved to a file that no longer holds it")
        #expect(recovered.handle("quit").first?.hasPrefix("the board has unsaved changes") == true)
    }

    /// The other side: a recovered board at its saved step, whose FILE holds it, is saved.
    @Test func aRecoveredBoardThatFileHoldsIsSaved() throws {
        let directory = try Directory()
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "add 40 8", "save", "add 5 5", "undo"], on: session)
        #expect(!session.board.hasUnsavedChanges)
        let (recovered, notes) = try Session.opening(directory.file, autosave: true)
        #expect(!recovered.board.hasUnsavedChanges, "\(notes)")
        #expect(notes.count == 2, "\(notes)")
    }

    /// The first line of a recovery without the history does not say it came with it (the note
    /// after it says the opposite).
    @Test func aRecoveryWithoutTheHistoryDoesNotSayItCameWithIt() throws {
        let directory = try Directory()
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "move 1 30 5"], on: session)
        try Data().write(to: BoardAutosave.journalURL(for: directory.file))
        let (_, notes) = try Session.opening(directory.file, autosave: true)
        #expect(
            notes.first
                == "recovered the board from '\(BoardAutosave.documentURL(for: directory.file).relativePath)': "
                + "as it was after the last command", "\(notes)")
        #expect(notes.contains("note: the journal holds no history for it: the board opens without its history"))
    }

    @Test(arguments: ["document", "journal"])
    func aDamagedAutosaveIsRefusedAndEveryFileIsLeftAsItWas(damaged: String) throws {
        let directory = try Directory()
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "save", "move 1 30 5"], on: session)
        let target =
            damaged == "document"
            ? BoardAutosave.documentURL(for: directory.file) : BoardAutosave.journalURL(for: directory.file)
        try Data("not a board, not a journal\n".utf8).write(to: target)
        let contents = try directory.names().map { try Data(contentsOf: directory.url.appendingPathComponent($0)) }
        #expect {
            _ = try Session.opening(directory.file, autosave: true)
        } throws: { error in
            guard case BoardAutosaveError.unreadable(let path, _) = error else { return false }
            return path == target.relativePath && "\(error)".contains("nothing was changed: move it away")
        }
        #expect(
            try directory.names().map { try Data(contentsOf: directory.url.appendingPathComponent($0)) } == contents)
        // Without the autosave the file opens as saved, and a note says the autosave is there.
        let (plain, notes) = try Session.opening(directory.file)
        #expect(plain.board.figures.map(\.position) == [Point(x: 10, y: 20)])
        #expect(notes.last?.contains("holds changes made after the last save") == true, "\(notes)")
    }

    /// A byte changed inside the journal (the disk, a stray write): its replay stops at the
    /// damaged record, so the records after it, the history of the document on disk among them,
    /// cannot be read. Opening without the history would start the journal over and lose them
    /// for good; the board is refused instead, with every file as it was, as a damaged document
    /// is.
    @Test func aJournalDamagedBeforeTheDocumentsRecordIsRefused() throws {
        let directory = try Directory()
        let journalURL = BoardAutosave.journalURL(for: directory.file)
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "add 40 8", "move 1 30 5"], on: session)
        var journal = try Data(contentsOf: journalURL)
        journal[journal.startIndex + 200] ^= 0x04
        try journal.write(to: journalURL)
        let contents = try directory.names().map { try Data(contentsOf: directory.url.appendingPathComponent($0)) }
        #expect {
            _ = try Session.opening(directory.file, autosave: true)
        } throws: { error in
            guard case BoardAutosaveError.unreadable(let path, let reason) = error else { return false }
            return path == journalURL.relativePath && reason.contains("damaged")
                && "\(error)".contains("nothing was changed: move it away")
        }
        #expect(
            try directory.names().map { try Data(contentsOf: directory.url.appendingPathComponent($0)) } == contents)
    }

    /// What a refused journal says: moving it away loses the history, not the changes (the
    /// document holds them), and it is no autosave of the board.
    @Test func aRefusedJournalSaysWhatMovingItAwayLoses() throws {
        let directory = try Directory()
        let journalURL = BoardAutosave.journalURL(for: directory.file)
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20"], on: session)
        try Data("not a journal\n".utf8).write(to: journalURL)
        #expect {
            _ = try Session.opening(directory.file, autosave: true)
        } throws: { error in
            "\(error)".hasPrefix("the journal '\(journalURL.relativePath)' cannot be read (")
                && "\(error)".hasSuffix("nothing was changed: move it away to open the board without its history")
        }
    }

    /// The board that recovers must not start the journal over: killed between the reset and
    /// its first record (a few milliseconds at the start), it left the recovered document with an
    /// empty journal, and the next launch opened the board without any history. It appends after
    /// the records it recovered from instead.
    @Test func aRecoveringBoardKeepsTheRecordsItRecoveredFrom() throws {
        let directory = try Directory()
        let journalURL = BoardAutosave.journalURL(for: directory.file)
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "add 40 8", "move 1 30 5"], on: session)
        let before = reference.observed(session.board)
        let beforeWalk = walk(session.board)
        let journal = try Data(contentsOf: journalURL)
        let (recovered, _) = try Session.opening(directory.file, autosave: true)
        #expect(try Data(contentsOf: journalURL).starts(with: journal), "the records are still there")
        #expect(reference.observed(recovered.board) == before)
        // And the journal it appended to recovers the board as well.
        let (again, _) = try Session.opening(directory.file, autosave: true)
        #expect(reference.observed(again.board) == before)
        #expect(walk(again.board) == beforeWalk)
    }

    /// A journal left without its document (removed by hand): its histories have no board to go
    /// with, and the journal starts over; a note says so, rather than nothing.
    @Test func aJournalWithoutItsDocumentIsStartedOverWithANote() throws {
        let directory = try Directory()
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "save", "move 1 30 5"], on: session)
        try FileManager.default.removeItem(at: BoardAutosave.documentURL(for: directory.file))
        let (reopened, notes) = try Session.opening(directory.file, autosave: true)
        #expect(reopened.board.figures.map(\.position) == [Point(x: 10, y: 20)], "FILE, as saved")
        #expect(
            notes.contains {
                $0.hasPrefix("note: ") && $0.contains(BoardAutosave.journalURL(for: directory.file).lastPathComponent)
                    && $0.contains("starts over")
            }, "\(notes)")
    }

    /// A journal kept for its records but that cannot take one more (a torn tail that makes it
    /// larger than the board's journals grow) starts over after all, rather than refusing a board
    /// that came back whole.
    @Test func aKeptJournalThatCannotTakeARecordStartsOver() throws {
        let directory = try Directory()
        let journalURL = BoardAutosave.journalURL(for: directory.file)
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "move 1 30 5"], on: session)
        let before = reference.observed(session.board)
        let handle = try FileHandle(forWritingTo: journalURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 17 << 20))
        try handle.close()
        let (recovered, notes) = try Session.opening(directory.file, autosave: true)
        #expect(notes.first?.hasSuffix("with its history") == true, "\(notes)")
        #expect(reference.observed(recovered.board) == before)
        let (again, _) = try Session.opening(directory.file, autosave: true)
        #expect(reference.observed(again.board) == before)
    }

    @Test func aTornLastRecordIsIgnored() throws {
        let directory = try Directory()
        let journalURL = BoardAutosave.journalURL(for: directory.file)
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "move 1 30 5"], on: session)
        let before = reference.observed(session.board)
        let beforeWalk = walk(session.board)
        // A crash in the middle of the next command's append: half a record at the end, and the
        // document not yet written.
        let size = try Data(contentsOf: journalURL).count
        let olderDocument = try Data(contentsOf: BoardAutosave.documentURL(for: directory.file))
        run(["move 1 40 6"], on: session)
        let journal = try Data(contentsOf: journalURL)
        #expect(journal.count > size + 1)
        try journal.prefix(size + (journal.count - size) / 2).write(to: journalURL)
        try olderDocument.write(to: BoardAutosave.documentURL(for: directory.file))
        let (recovered, _) = try Session.opening(directory.file, autosave: true)
        #expect(reference.observed(recovered.board) == before)
        #expect(walk(recovered.board) == beforeWalk)
    }

    @Test func saveToAnotherFileTakesTheAutosaveWithIt() throws {
        let directory = try Directory()
        let other = directory.url.appendingPathComponent("c.board")
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20", "save \(other.path)", "move 1 30 5"], on: session)
        #expect(try directory.names() == ["c.board", "c.board.autosave", "c.board.journal", "c.board.lock"])
        let (recovered, notes) = try Session.opening(other, autosave: true)
        #expect(notes.first?.hasPrefix("recovered the board from") == true, "\(notes)")
        #expect(recovered.board.figures.map(\.position) == [Point(x: 30, y: 5)])
        #expect(recovered.board.undoStack.undoMenuItemTitle == "Undo Move to (30.0, 5.0)")
        #expect(recovered.board.hasUnsavedChanges)
    }

    /// `save OTHER` moves the autosave to OTHER's: after a crash, `board --autosave FILE` opens
    /// FILE without the changes, so the save says where they are kept now, and what opens them.
    @Test func saveToAnotherFileSaysWhereTheAutosaveWent() throws {
        let directory = try Directory()
        let other = directory.url.appendingPathComponent("c.board")
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20"], on: session)
        let reply = session.handle("save \(other.path)")
        #expect(
            reply.first?.contains(
                "autosave: every change is now kept in '\(other.path).autosave' and '\(other.path).journal' "
                    + "until quit (board --autosave '\(other.path)' opens them)") == true, "\(reply)")
        #expect(!session.handle("save").first!.contains("autosave:"), "saving to the same file moves nothing")
    }

    /// `save OTHER` while OTHER's autosave holds a crashed session's changes: the move of the
    /// autosave would start OTHER's journal over and write over its document, the only copy of
    /// those changes. The save is refused, and every file is left as it was.
    @Test func saveToAFileWhoseAutosaveHoldsChangesIsRefused() throws {
        let directory = try Directory()
        let other = directory.url.appendingPathComponent("c.board")
        do {
            let (crashed, _) = try Session.opening(other, autosave: true)
            run(["add 70 30", "save", "move 1 60 20"], on: crashed)
        }
        let contents = try directory.names().map { try Data(contentsOf: directory.url.appendingPathComponent($0)) }
        let (session, _) = try Session.opening(directory.file, autosave: true)
        run(["add 10 20"], on: session)
        let files = try directory.names().filter { !$0.hasPrefix("b.board") }
        let reply = session.handle("save \(other.path)")
        #expect(reply.first?.hasPrefix("error: ") == true, "\(reply)")
        #expect(reply.first?.contains("holds changes") == true, "\(reply)")
        #expect(try directory.names().filter { !$0.hasPrefix("b.board") } == files)
        #expect(
            try files.map { try Data(contentsOf: directory.url.appendingPathComponent($0)) } == contents,
            "c.board and its autosave are as they were")
        let (recovered, _) = try Session.opening(other, autosave: true)
        #expect(recovered.board.figures.map(\.position) == [Point(x: 60, y: 20)])
        // Saving to the session's own file, spelled another way, is no other file.
        let again = session.handle("save \(directory.url.path)/./b.board")
        #expect(again.first?.hasPrefix("saved the board") == true, "\(again)")
    }

    @Test func anAutosaveThatCannotBeWrittenIsRefusedAtTheStart() throws {
        let directory = try Directory()
        let missing = directory.url.appendingPathComponent("no-such-directory/b.board")
        #expect {
            _ = try Session.opening(missing, autosave: true)
        } throws: { error in
            guard case BoardAutosaveError.cannotStart = error else { return false }
            return true
        }
    }

    /// What a start that cannot write says: why, once, not a command's warning inside it. (A
    /// directory that is there, readable, where no file can be made: Linux's /proc.)
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self")))
    func aStartThatCannotWriteSaysWhyOnce() throws {
        #expect {
            _ = try Session.opening(URL(fileURLWithPath: "/proc/board-autosave-\(UUID().uuidString)"), autosave: true)
        } throws: { error in
            guard case BoardAutosaveError.cannotStart = error else { return false }
            return "\(error)".hasPrefix("the autosave cannot be written (") && !"\(error)".contains("warning:")
                && !"\(error)".contains("the changes since")
        }
    }
}
