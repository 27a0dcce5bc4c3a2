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
import ActionStackCSQLite
import ActionStackTestSupport
import Foundation
import Testing

/// A shared board's database file in the temporary directory, removed (with SQLite's write-ahead
/// log beside it) when the test ends.
final class TemporaryDatabase {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("board-shared-\(UUID().uuidString).db").path

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Runs `sql` on the file through a connection of its own, as another program would.
    func execute(_ sql: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let handle else { throw SQLFailure(sql: sql) }
        defer { sqlite3_close(handle) }
        sqlite3_busy_timeout(handle, 5000)
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw SQLFailure(sql: sql) }
    }

    struct SQLFailure: Error {
        var sql: String
    }
}

/// Two boards, each its own session on its own connection to one database file, as two processes
/// would be (`swift run board --shared FILE` in two terminals): the promises of shared undo.
@MainActor
struct SharedBoardTests {
    /// Joins the shared board in `database`.
    func join(_ database: TemporaryDatabase, terminal: String? = nil) throws -> SharedBoard {
        try SharedBoard.join(path: database.path, terminal: terminal).board
    }

    /// The figures of a board, bottom first, as the picture's list shows them.
    func layout(_ board: SharedBoard) -> String {
        let figures = board.session.board.figures
        guard !figures.isEmpty else { return "none" }
        return figures.map { "#\($0.id) \($0.position) \($0.color.rawValue) r=\($0.cornerRadius)" }
            .joined(separator: ", ")
    }

    /// The status line: the buttons of the active context.
    func status(_ board: SharedBoard) -> String {
        board.session.render().last ?? ""
    }

    /// Runs `commands` on `board`, each expected to succeed; returns the answers (the first line
    /// after what arrived from the others).
    @discardableResult
    func run(_ board: SharedBoard, _ commands: String...) -> [String] {
        commands.map { command in
            let lines = board.handle(command)
            let answer = lines.first { !$0.hasPrefix("user ") && !$0.hasPrefix("note: ") } ?? ""
            #expect(!answer.hasPrefix("error: "), "\(command): \(answer)")
            return answer
        }
    }

    // MARK: The promises

    @Test func eachBoardAppliesTheOthersChangesAsRemoteChanges() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        #expect((ann.user, bob.user) == (1, 2))
        run(ann, "add 10 20")
        let arrived = bob.poll()
        #expect(arrived.first == "user 1 put figure #1 on the board at (10.0, 20.0)")
        #expect(arrived.last == "board: (Undo) (Redo)", "a peer's change is no undo step here")
        #expect(layout(bob) == "#1 (10.0, 20.0) black r=0.0")
        #expect(bob.session.board.undoStack.remoteVersion == "1", "the version is the change's place in the log")
        #expect(bob.poll().isEmpty, "nothing new: nothing printed")
        // A command reads the log first: what arrived is told before the command's answer.
        run(ann, "move 1 30 5")
        let answer = bob.handle("add 40 8")
        #expect(Array(answer.prefix(2)) == ["user 1 moved figure #1 to (30.0, 5.0)", "added figure #2 at (40.0, 8.0)"])
        #expect(status(bob) == "board: [Undo Add Figure] (Redo)", "no * unsaved: every change is written at once")
        _ = ann.poll()
        #expect(layout(ann) == layout(bob))
    }

    @Test func undoTakesBackOnlyThisBoardsChanges() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20")
        run(bob, "add 40 8", "move 1 30 5")
        let undone = ann.handle("undo")
        #expect(undone.contains("Undo Add Figure"))
        #expect(layout(ann) == "#2 (40.0, 8.0) black r=0.0", "Ann's figure went, with Bob's move of it; Bob's stays")
        #expect(status(ann) == "board: (Undo) [Redo Add Figure]")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
        #expect(status(bob) == "board: [Undo Add Figure] (Redo)", "Bob's move of the figure Ann took away is gone")
        #expect(run(bob, "undo") == ["Undo Add Figure"])
        #expect(layout(bob) == "none")
        #expect(run(ann, "redo") == ["Redo Add Figure"])
        #expect(layout(ann) == "#1 (30.0, 5.0) black r=0.0", "redo brings the figure back with Bob's move")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
        #expect(status(bob) == "board: (Undo) [Redo Add Figure]")
    }

    /// Decided rule 1: a peer moved the figure after this user's move, so the undo leaves the
    /// peer's position; the step is skipped, and the titles say what the next press does.
    @Test func aFigureAPeerMovedStaysWhereThePeerMovedIt() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "add 60 30", "move 1 30 5", "move 2 70 35")
        run(bob, "move 1 50 10")
        _ = ann.poll()
        #expect(status(ann) == "board: [Undo Move to (70.0, 35.0)] (Redo)")
        #expect(run(ann, "undo") == ["Undo Move to (70.0, 35.0)"])
        // The move of figure 1 has nothing left to do: the next press undoes the add below it.
        #expect(status(ann) == "board: [Undo Add Figure] [Redo Move to (70.0, 35.0)]")
        #expect(run(ann, "undo") == ["Undo Add Figure"])
        #expect(layout(ann) == "#1 (50.0, 10.0) black r=0.0", "figure 1 stays where Bob moved it")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
    }

    /// Decided rule 4: a peer's move between this user's undo and redo is not reverted by the
    /// redo either.
    @Test func redoNeverRevertsAPeersMoveEither() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "move 1 30 5", "undo")
        #expect(status(ann) == "board: [Undo Add Figure] [Redo Move to (30.0, 5.0)]")
        run(bob, "move 1 50 10")
        _ = ann.poll()
        #expect(status(ann) == "board: [Undo Add Figure] (Redo)")
        #expect(ann.handle("redo").first == "error: nothing to redo in the board context")
        #expect(layout(ann) == "#1 (50.0, 10.0) black r=0.0")
    }

    /// A figure's own stack: a peer's colour is never undone, and a peer's colour does not touch
    /// this user's radius step.
    @Test func aPeersColourIsNeverUndone() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "color red", "radius 2")
        run(bob, "select 1", "color blue")
        _ = ann.poll()
        #expect(layout(ann) == "#1 (10.0, 20.0) blue r=2.0")
        run(ann, "figure")
        #expect(status(ann) == "figure #1: [Undo Change Corner Radius] (Redo)")
        #expect(run(ann, "undo") == ["Undo Change Corner Radius"])
        #expect(status(ann) == "figure #1: (Undo) [Redo Change Corner Radius]", "the colour step died")
        #expect(layout(ann) == "#1 (10.0, 20.0) blue r=0.0", "Bob's blue stays")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
    }

    /// A figure a peer removed takes this user's steps about it with it, and the buttons say so
    /// as soon as the removal arrives (the timer's poll), not at the next command.
    @Test func aFigureAPeerRemovedTakesItsStepsWithIt() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "add 60 30", "move 2 70 35", "select 2", "color red")
        let two = try #require(ann.session.board.figure(2))
        #expect(two.undoStack.canUndo)
        #expect(status(ann) == "board: [Undo Move to (70.0, 35.0)] (Redo)")
        run(bob, "remove 2")
        let arrived = ann.poll()
        #expect(arrived.first == "user 2 removed figure #2")
        #expect(arrived.last == "board: [Undo Add Figure] (Redo)", "the titles change at once")
        #expect(arrived.contains("selected: none"), "the removed figure leaves the selection")
        #expect(!two.undoStack.canUndo, "the figure's own steps went with it")
        #expect(run(ann, "undo") == ["Undo Add Figure"])
        #expect(layout(ann) == "none", "the press undid Ann's add of figure 1, the step below the dead ones")
        #expect(ann.handle("undo").first == "error: nothing to undo in the board context")
    }

    /// The order of the figures is positional: this user's steps that put a figure back at its
    /// place, or take it off from there, move past what the others inserted and removed below it.
    @Test func theOrderOfTheFiguresIsTheSameOnEveryBoard() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "add 20 20", "add 30 20", "remove 1")
        run(bob, "remove 2", "add 40 20")
        #expect(run(ann, "undo") == ["Undo Remove Figure"])
        #expect(ann.session.board.figures.map(\.id) == [1, 3, 4], "figure 1 back at the bottom")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
        // Ann's newest figure is taken off where it is now, after Bob removed one below it.
        run(ann, "add 50 20")
        run(bob, "remove 3")
        #expect(run(ann, "undo") == ["Undo Add Figure"])
        #expect(ann.session.board.figures.map(\.id) == [1, 4])
        #expect(run(ann, "redo") == ["Redo Add Figure"])
        #expect(ann.session.board.figures.map(\.id) == [1, 4, 5])
        // Ann takes figure 5 off; Bob removes figure 1 below it and adds figure 6 where 5 was.
        // Ann's undo puts 5 back one place lower, before Bob's figure 6 (a tie: the restored
        // figure goes first, as restored text goes before a peer's at the same place).
        run(ann, "remove 5")
        run(bob, "remove 1", "add 1 1")
        #expect(run(ann, "undo") == ["Undo Remove Figure"])
        #expect(ann.session.board.figures.map(\.id) == [4, 5, 6])
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
    }

    // MARK: Quitting and coming back

    @Test func aBoardThatComesBackHasItsHistoryWithTheOthersChangesApplied() throws {
        let database = TemporaryDatabase()
        let ann = try join(database, terminal: "/dev/pts/1")
        let bob = try join(database, terminal: "/dev/pts/2")
        run(ann, "add 10 20", "add 60 30", "move 1 30 5", "move 2 70 35", "select 2", "color red")
        #expect(run(ann, "quit") == ["bye"], "a shared board quits at once: everything is written")
        #expect(ann.hasLeft)
        #expect(ann.handle("add 1 1").first?.hasPrefix("error: ") == true)
        // Meanwhile Bob moves figure 2 (after Ann's move of it) and adds figure 3.
        run(bob, "move 2 5 5", "add 40 8")

        let (back, notes) = try SharedBoard.join(path: database.path, terminal: "/dev/pts/1")
        #expect(back.user == ann.user)
        #expect(
            notes.first == "joined the shared board '\(database.path)' as user 1, with your history; "
                + "2 changes made since applied")
        #expect(layout(back) == layout(bob))
        #expect(back.session.board.undoStack.remoteVersion == String(bob.version))
        // The restored steps moved past Bob's changes: Ann's move of figure 2 died.
        #expect(status(back) == "board: [Undo Move to (30.0, 5.0)] (Redo)")
        #expect(run(back, "undo") == ["Undo Move to (30.0, 5.0)"])
        #expect(back.session.board.figure(1)?.position == Point(x: 10, y: 20))
        #expect(back.session.board.figure(2)?.position == Point(x: 5, y: 5), "Bob's move stays")
        run(back, "select 2", "figure")
        #expect(status(back) == "figure #2: [Undo Change Color] (Redo)", "the figure's history came back too")
        #expect(
            run(back, "undo", "board", "undo") == [
                "Undo Change Color", "undo and redo now act on the board", "Undo Add Figure",
            ])
        _ = bob.poll()
        #expect(layout(bob) == layout(back))
        #expect(layout(bob) == "#1 (10.0, 20.0) black r=0.0, #3 (40.0, 8.0) black r=0.0")
    }

    /// A board that ends without `quit` (the input ended, or the process was killed) comes back
    /// with its history as it was at its last command.
    @Test func aBoardThatStoppedWithoutQuittingComesBackAsOfItsLastCommand() throws {
        let database = TemporaryDatabase()
        var ann: SharedBoard? = try join(database)
        run(try #require(ann), "add 10 20", "move 1 30 5")
        ann = nil  // gone without leaving: its process is no longer running
        let back = try join(database)
        #expect(back.user == 1)
        #expect(status(back) == "board: [Undo Move to (30.0, 5.0)] (Redo)")
        #expect(layout(back) == "#1 (30.0, 5.0) black r=0.0")
    }

    @Test func aNewUserStartsFromTheWholeLogWithAnEmptyHistory() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        run(ann, "add 10 20", "add 60 30", "remove 1", "select 2", "color green")
        let (carl, notes) = try SharedBoard.join(path: database.path)
        #expect(carl.user == 2)
        #expect(
            notes.first == "joined the shared board '\(database.path)' as user 2, with a new history; 4 changes applied"
        )
        #expect(layout(carl) == layout(ann))
        #expect(status(carl) == "board: (Undo) (Redo)")
    }

    @Test func eachUserIsHeldByOneRunningBoardAtATime() throws {
        let database = TemporaryDatabase()
        let ann = try join(database, terminal: "/dev/pts/1")
        let bob = try join(database, terminal: "/dev/pts/2")
        #expect((ann.user, bob.user) == (1, 2))
        ann.leave()
        bob.leave()
        // The terminal a user last ran in takes it back first; another takes the first free one.
        let bobAgain = try join(database, terminal: "/dev/pts/2")
        #expect(bobAgain.user == 2)
        let annAgain = try join(database, terminal: "/dev/pts/7")
        #expect(annAgain.user == 1)
        let third = try join(database, terminal: "/dev/pts/2")
        #expect(third.user == 3, "users 1 and 2 are held by the boards joined above, still running")
        // A user held by a process that is gone (killed) is free again.
        try database.execute("UPDATE users SET process = 'gone', pid = 2147483646 WHERE number = 3")
        let revived = try join(database)
        #expect(revived.user == 3)
        // So is one held by a board of this process that is gone without leaving.
        var fourth: SharedBoard? = try join(database)
        #expect(fourth?.user == 4)
        fourth = nil
        #expect(try join(database).user == 4)
        #expect([bobAgain, annAgain, third, revived].allSatisfy { !$0.hasLeft })
    }

    @Test func saveIsRefusedAndQuitQuitsAtOnce() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        run(ann, "add 10 20")
        let refused = ann.handle("save")
        #expect(
            refused == ["error: a shared board is written to its database with every change: there is nothing to save"])
        #expect(ann.handle("save other.board").first == refused.first)
        #expect(ann.handle("quit") == ["bye"])
        #expect(ann.hasLeft && ann.session.isFinished)
    }

    // MARK: Bad input

    @Test func aFileThatIsNoSharedBoardIsRefusedAndLeftAsItIs() throws {
        let database = TemporaryDatabase()
        try Data("not a database, just text\n".utf8).write(to: URL(fileURLWithPath: database.path))
        let before = try Data(contentsOf: URL(fileURLWithPath: database.path))
        #expect {
            try SharedBoard.join(path: database.path)
        } throws: { error in
            guard case .database(let code, let message) = error as? SharedBoardError else { return false }
            return code == SQLITE_NOTADB && message == "file is not a database"
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: database.path)) == before)

        let other = TemporaryDatabase()
        try other.execute("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me');")
        let otherBefore = try Data(contentsOf: URL(fileURLWithPath: other.path))
        #expect(throws: SharedBoardError.notASharedBoard("it is a SQLite database of something else")) {
            try SharedBoard.join(path: other.path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: other.path)) == otherBefore)
        #expect(!FileManager.default.fileExists(atPath: other.path + "-wal"), "not even its journal mode changed")
    }

    @Test func logEntriesThatDoNotFitAreSkippedAndChangeNothing() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        run(ann, "add 10 20", "move 1 30 5")
        let nobody = UUID().uuidString
        try database.execute(
            """
            INSERT INTO operations (user, process, change) VALUES (2, 'p', 'not json');
            INSERT INTO operations (user, process, change)
                VALUES (2, 'p', '{"move":{"figure":"\(nobody)","to":{"x":1,"y":1}}}');
            INSERT INTO operations (user, process, change)
                VALUES (2, 'p', '{"move":{"figure":"\(ann.session.board.figures[0].uuid.uuidString)","to":{"x":500,"y":1}}}');
            """)
        let arrived = ann.poll()
        #expect(arrived.filter { $0.hasPrefix("note: ") }.count == 3, "\(arrived)")
        #expect(arrived.first == "note: entry 3 of the shared log could not be read: skipped")
        #expect(layout(ann) == "#1 (30.0, 5.0) black r=0.0")
        #expect(ann.session.board.undoStack.remoteChangeCount == 0, "the stack heard of none of them")
        #expect(status(ann) == "board: [Undo Move to (30.0, 5.0)] (Redo)")
        #expect(ann.version == 5, "and they are not read again")
        #expect(ann.poll().isEmpty)
    }

    // MARK: At random

    /// Three boards take turns at random (every board command, undo, redo and jumps in the tree
    /// included); after each command every board reads the log. Every board shows the same
    /// figures, and the title each shows before an undo or a redo names what that press does.
    @Test(arguments: [1, 2, 3])
    func boardsThatTakeTurnsAtRandomAlwaysAgree(seed: UInt64) throws {
        let database = TemporaryDatabase()
        let boards = try (0..<3).map { _ in try join(database) }
        var random = SeededGenerator(seed: seed)
        for step in 0..<150 {
            let board = boards[Int.random(in: 0..<boards.count, using: &random)]
            let ids = board.session.board.figures.map(\.id)
            let figure = ids.randomElement(using: &random).map(String.init) ?? "1"
            func coordinate(_ limit: Int) -> String { String(Int.random(in: 0...limit, using: &random)) }
            let commands = [
                "add \(coordinate(80)) \(coordinate(40))", "move \(figure) \(coordinate(80)) \(coordinate(40))",
                "nudge \(figure) 1 0", "remove \(figure)", "select \(figure)", "color red", "color blue", "radius 2",
                "undo", "undo", "redo", "board", "figure", "earlier", "later", "goto 1",
            ]
            let command = commands.randomElement(using: &random)!
            // What the buttons promise before the press (read after the log, as the command reads it).
            _ = board.poll()
            let promised = (board.session.buttons.undoTitle, board.session.buttons.redoTitle)
            let answer = board.handle(command).first { !$0.hasPrefix("user ") && !$0.hasPrefix("note: ") }
            if command == "undo" && answer?.hasPrefix("error: ") == false {
                #expect(answer == promised.0, "step \(step): undo did what its title said")
            }
            if command == "redo" && answer?.hasPrefix("error: ") == false {
                #expect(answer == promised.1, "step \(step): redo did what its title said")
            }
            for other in boards { _ = other.poll() }
            let first = layout(boards[0])
            for other in boards.dropFirst() {
                #expect(layout(other) == first, "step \(step), seed \(seed), after '\(command)'")
            }
        }
        // Every board then undoes all it can: each press does what its title said, and the boards
        // still agree.
        for board in boards {
            run(board, "board")
            while board.session.board.undoStack.canUndo {
                let promised = board.session.buttons.undoTitle
                #expect(board.handle("undo").first { !$0.hasPrefix("user ") } == promised)
                for other in boards { _ = other.poll() }
            }
            #expect(boards.allSatisfy { layout($0) == layout(board) })
        }
    }
}
