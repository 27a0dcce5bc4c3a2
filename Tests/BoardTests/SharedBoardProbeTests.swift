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
import ActionStackTestSupport
import Foundation
import Testing

/// Probes of collaborative undo on a shared board: interleavings of two and three users.
@MainActor
struct SharedBoardProbeTests {
    /// The suite whose helpers these probes share (joining, the figures, the status line).
    let shared = SharedBoardTests()

    func join(_ database: TemporaryDatabase, terminal: String? = nil) throws -> SharedBoard {
        try shared.join(database, terminal: terminal)
    }

    func layout(_ board: SharedBoard) -> String { shared.layout(board) }

    func status(_ board: SharedBoard) -> String { shared.status(board) }

    /// The answers of `commands`, past what arrived from the others (refusals included, unlike
    /// `SharedBoardTests.run`, which expects every command to succeed).
    @discardableResult
    func run(_ board: SharedBoard, _ commands: String...) -> [String] {
        commands.map { command in
            let lines = board.handle(command)
            return lines.first { !$0.hasPrefix("user ") && !$0.hasPrefix("note: ") } ?? ""
        }
    }

    func pollAll(_ boards: [SharedBoard]) {
        for board in boards { _ = board.poll() }
    }

    @Test func aDragGoesOnAfterAPeersMoveOfTheSameFigure() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "nudge 1 1 0")
        run(bob, "move 1 50 10")
        _ = ann.poll()
        #expect(run(ann, "nudge 1 1 0") == ["nudged figure #1 to (51.0, 10.0)"])
        #expect(status(ann) == "board: [Undo Move to (51.0, 10.0)] (Redo)")
        #expect(run(ann, "undo") == ["Undo Move to (51.0, 10.0)"])
        #expect(ann.session.board.figure(1)?.position == Point(x: 50, y: 10), "Bob's move stays")
        #expect(status(ann) == "board: [Undo Add Figure] [Redo Move to (51.0, 10.0)]")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
    }

    @Test func aPeersRadiusIsNeverUndone() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "radius 2", "color red")
        run(bob, "select 1", "radius 4")
        run(ann, "figure")
        #expect(status(ann) == "figure #1: [Undo Change Color] (Redo)")
        #expect(run(ann, "undo") == ["Undo Change Color"])
        #expect(status(ann) == "figure #1: (Undo) [Redo Change Color]")
        #expect(layout(ann) == "#1 (10.0, 20.0) black r=4.0")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
    }

    @Test func aPeersColourLeavesMyMoveAndItsRedo() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "move 1 30 5")
        run(bob, "select 1", "color blue")
        #expect(run(ann, "undo") == ["Undo Move to (30.0, 5.0)"])
        #expect(layout(ann) == "#1 (10.0, 20.0) blue r=0.0")
        run(bob, "radius 3")
        #expect(run(ann, "redo") == ["Redo Move to (30.0, 5.0)"])
        #expect(layout(ann) == "#1 (30.0, 5.0) blue r=3.0")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
    }

    @Test func addsUndoneAndRedoneAcrossUsersConverge() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        let carl = try join(database)
        let all = [ann, bob, carl]
        run(ann, "add 10 20")
        run(bob, "add 20 20")
        run(carl, "add 30 20")
        run(ann, "undo")
        run(carl, "undo")
        run(bob, "undo")
        run(carl, "redo")
        run(ann, "redo")
        run(bob, "redo")
        pollAll(all)
        #expect(layout(ann) == layout(bob))
        #expect(layout(ann) == layout(carl))
        // Bob's figure goes back where it was, at the bottom, before Ann's restored there first:
        // the documented tie rule.
        #expect(ann.session.board.figures.map(\.id) == [2, 1, 3])
        for board in all { #expect(status(board) == "board: [Undo Add Figure] (Redo)") }
    }

    @Test func threeUsersMoveOneFigure() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        let carl = try join(database)
        run(ann, "add 10 20")
        run(bob, "move 1 20 20")
        run(carl, "move 1 30 20")
        _ = bob.poll()
        #expect(status(bob) == "board: (Undo) (Redo)", "Bob's move was overwritten by Carl's")
        #expect(run(carl, "undo") == ["Undo Move to (30.0, 20.0)"])
        #expect(carl.session.board.figure(1)?.position == Point(x: 20, y: 20), "back to Bob's")
        pollAll([ann, bob])
        #expect(status(ann) == "board: [Undo Add Figure] (Redo)")
        #expect(run(ann, "undo") == ["Undo Add Figure"])
        pollAll([bob, carl])
        #expect(status(carl) == "board: (Undo) (Redo)", "Carl's redo went with the figure")
        #expect(layout(bob) == "none" && layout(carl) == "none")
        #expect(run(ann, "redo") == ["Redo Add Figure"])
        pollAll([bob, carl])
        #expect(layout(bob) == "#1 (20.0, 20.0) black r=0.0")
        #expect(layout(carl) == layout(bob))
    }

    @Test func aPeerRemovesTheFigureIAmEditing() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "color red", "figure")
        #expect(status(ann) == "figure #1: [Undo Change Color] (Redo)")
        run(bob, "remove 1")
        let arrived = ann.poll()
        #expect(arrived.last?.contains("[Undo Change Color]") == false, "\(arrived)")
        #expect(ann.handle("undo").first?.hasPrefix("error: ") == true)
        #expect(layout(ann) == "none")
        // Bob takes back his removal: the figure comes back, red, and Ann's steps about it do not.
        run(bob, "undo")
        let back = ann.poll()
        #expect(layout(ann) == "#1 (10.0, 20.0) red r=0.0", "\(back)")
        run(ann, "select 1", "figure")
        #expect(status(ann) == "figure #1: (Undo) (Redo)")
        run(ann, "board")
        #expect(status(ann) == "board: (Undo) (Redo)")
        #expect(layout(bob) == layout(ann))
    }

    @Test func aMoveOfAFigureAPeerRemovedAndBroughtBackStaysDead() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(bob, "add 10 20")
        run(ann, "move 1 30 5")
        run(bob, "remove 1", "undo")
        _ = ann.poll()
        #expect(layout(ann) == "#1 (30.0, 5.0) black r=0.0")
        #expect(status(ann) == "board: (Undo) (Redo)")
        #expect(ann.handle("undo").first?.hasPrefix("error: ") == true)
        #expect(layout(ann) == "#1 (30.0, 5.0) black r=0.0")
    }

    @Test func gotoOnASharedBoardNeverUndoesAPeersMove() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "move 1 30 5", "undo", "move 1 40 5")
        run(bob, "move 1 50 10")
        // Both moves of figure 1 died as Bob's move arrived: the tree no longer has them, and a
        // jump to one is refused rather than ending somewhere else.
        #expect(
            ann.handle("tree").last == """
                board history tree (goto N goes to node N; branch N picks where redo goes):
                0 (start)
                1 Add Figure  <- you are here
                """)
        #expect(
            ann.handle("goto 2").first
                == "error: there is no node 2 in the board's history (type tree to see its nodes)")
        #expect(ann.session.board.figure(1)?.position == Point(x: 50, y: 10))
        #expect(status(ann) == "board: [Undo Add Figure] (Redo)")
        #expect(run(ann, "earlier") == ["went back to node 0: undid 1 step"])
        #expect(layout(ann) == "none", "Ann's own add")
        #expect(run(ann, "later") == ["went forward to node 1: redid 1 step"])
        #expect(layout(ann) == "#1 (50.0, 10.0) black r=0.0")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
    }

    @Test func earlierAndLaterOnASharedBoardKeepThePeersChanges() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "add 30 20", "move 1 15 20", "move 2 35 20")
        run(bob, "move 2 60 30", "select 1", "color green")
        _ = ann.poll()
        #expect(status(ann) == "board: [Undo Move to (15.0, 20.0)] (Redo)")
        #expect(run(ann, "earlier") == ["went back to node 2: undid 1 step"])
        #expect(layout(ann) == "#1 (10.0, 20.0) green r=0.0, #2 (60.0, 30.0) black r=0.0")
        #expect(run(ann, "later 5") == ["went forward to node 3: redid 1 step"])
        #expect(layout(ann) == "#1 (15.0, 20.0) green r=0.0, #2 (60.0, 30.0) black r=0.0")
        _ = bob.poll()
        #expect(layout(bob) == layout(ann))
    }

    @Test func aBoardThatComesBackMatchesOneThatStayed() throws {
        // The same sequence twice: Ann stays and reads the log, or Ann quits and comes back.
        func play(leaving: Bool) throws -> [String] {
            let database = TemporaryDatabase()
            var ann = try join(database, terminal: "/dev/pts/1")
            let bob = try join(database, terminal: "/dev/pts/2")
            run(ann, "add 10 20", "add 60 30", "move 1 30 5", "select 1", "color red", "radius 2")
            run(bob, "add 5 5")
            run(ann, "undo", "move 2 70 35", "select 2", "color blue", "board")
            if leaving { run(ann, "quit") }
            run(bob, "move 1 1 1", "undo", "remove 2", "undo", "select 3", "color green", "remove 3", "undo")
            if leaving {
                ann = try join(database, terminal: "/dev/pts/1")
            } else {
                _ = ann.poll()
            }
            var seen = [layout(ann), status(ann)]
            seen += ann.handle("tree")
            run(ann, "select 1", "figure")
            seen.append(status(ann))
            run(ann, "select 2")
            seen.append(status(ann))
            run(ann, "board")
            while ann.session.board.undoStack.canUndo {
                seen += run(ann, "undo")
                seen.append(layout(ann))
            }
            return seen
        }
        let stayed = try play(leaving: false)
        let cameBack = try play(leaving: true)
        #expect(stayed == cameBack)
    }

    @Test func aNewUserNumbersItsFiguresPastRemovedOnes() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        run(ann, "add 10 20", "add 20 20", "remove 2")
        let carl = try join(database)
        #expect(run(carl, "add 30 20") == ["added figure #3 at (30.0, 20.0)"])
        run(ann, "undo")
        _ = carl.poll()
        #expect(layout(ann) == layout(carl))
        #expect(Set(carl.session.board.figures.map(\.id)).count == carl.session.board.figures.count, "\(layout(carl))")
    }

    @Test func aPeerNumbersItsFiguresPastOnesIRemoved() throws {
        let database = TemporaryDatabase()
        let ann = try join(database, terminal: "/dev/pts/1")
        let bob = try join(database, terminal: "/dev/pts/2")
        run(ann, "add 10 20", "add 20 20", "undo")
        #expect(run(bob, "add 30 20") == ["added figure #3 at (30.0, 20.0)"])
        run(ann, "quit")
        let back = try join(database, terminal: "/dev/pts/1")
        #expect(run(back, "add 40 20") == ["added figure #4 at (40.0, 20.0)"])
        run(back, "undo", "redo")
        _ = bob.poll()
        #expect(layout(back) == layout(bob))
    }

    /// The positions `history` lists are the ones `history N` goes to: a step a peer's change
    /// left with nothing to do is not listed, and does not shift the positions after the listing.
    @Test func historyListsThePositionsThatHistoryNGoesTo() throws {
        let database = TemporaryDatabase()
        let ann = try join(database)
        let bob = try join(database)
        run(ann, "add 10 20", "color red", "radius 2", "color blue", "radius 3", "figure")
        run(bob, "select 1", "color green")
        let listed = ann.handle("history").filter { !$0.hasPrefix("user ") }
        #expect(
            listed == [
                """
                figure #1 history (type history N to go to position N):
                  0  (start)
                  1  Change Corner Radius
                  2  Change Corner Radius  <- you are here
                """
            ])
        #expect(ann.handle("history") == listed, "the same positions at the next command")
        #expect(run(ann, "history 1") == ["jumped to position 1"])
        #expect(layout(ann) == "#1 (10.0, 20.0) green r=2.0", "the state after the step listed at 1")
    }

    // MARK: At random, against a model of the promises

    /// What the model knows of one attribute of one figure: who wrote it last.
    struct Attribute: Hashable {
        var figure: UUID
        var name: String
    }

    /// The attributes of every figure on `board`, with their values.
    func attributes(_ board: SharedBoard) -> [Attribute: String] {
        var values: [Attribute: String] = [:]
        for figure in board.session.board.figures {
            values[Attribute(figure: figure.uuid, name: "exists")] = "yes"
            values[Attribute(figure: figure.uuid, name: "position")] = "\(figure.position)"
            values[Attribute(figure: figure.uuid, name: "color")] = figure.color.rawValue
            values[Attribute(figure: figure.uuid, name: "radius")] = "\(figure.cornerRadius)"
        }
        return values
    }

    /// Three users take turns at random, some quitting and coming back. The model remembers who
    /// wrote each attribute of each figure last; an undo, a redo or a move in the tree by one user
    /// may only change what that user wrote last (a figure that goes takes its attributes with it,
    /// one that comes back brings them). Every press of undo or redo does what its title said and
    /// changes the board, and every board shows the same figures.
    @Test(arguments: [11, 12, 13, 14, 15, 16])
    func usersAtRandomNeverUndoAPeersChange(seed: UInt64) throws {
        let database = TemporaryDatabase()
        let terminals = ["/dev/pts/1", "/dev/pts/2", "/dev/pts/3"]
        var boards = try terminals.map { try join(database, terminal: $0) }
        var away: Set<Int> = []
        var writer: [Attribute: Int] = [:]
        var random = SeededGenerator(seed: seed)
        var log: [String] = []
        for step in 0..<250 {
            let index = Int.random(in: 0..<boards.count, using: &random)
            if away.contains(index) {
                let (back, _) = try SharedBoard.join(path: database.path, terminal: terminals[index])
                #expect(back.user == index + 1)
                boards[index] = back
                away.remove(index)
                log.append("\(index + 1): (back)")
                for other in boards.indices where !away.contains(other) {
                    #expect(layout(boards[other]) == layout(back), "step \(step), seed \(seed): came back\n\(log)")
                }
                continue
            }
            let board = boards[index]
            let ids = board.session.board.figures.map(\.id)
            let figure = ids.randomElement(using: &random).map(String.init) ?? "1"
            func coordinate(_ limit: Int) -> String { String(Int.random(in: 0...limit, using: &random)) }
            var commands = [
                "add \(coordinate(80)) \(coordinate(40))", "move \(figure) \(coordinate(80)) \(coordinate(40))",
                "nudge \(figure) 1 0", "remove \(figure)", "select \(figure)", "color red", "color blue",
                "radius 2", "radius 3", "undo", "undo", "undo", "redo", "redo", "board", "figure", "earlier", "later",
                "quit",
            ]
            if let tree = board.session.board.undoStack.historyTree, let node = tree.nodes.randomElement(using: &random)
            {
                commands.append("goto \(node.sequence)")
            }
            let command = commands.randomElement(using: &random)!
            let promised = (board.session.buttons.undoTitle, board.session.buttons.redoTitle)
            let before = attributes(board)
            // A live move on top of the undo stack is the last change to its figure's position.
            let positions = board.session.board.figures.map { "Undo Move to \($0.position)" }
            if command == "undo", board.session.board.undoStack === board.session.buttons.stack,
                promised.0.hasPrefix("Undo Move to ")
            {
                #expect(positions.contains(promised.0), "step \(step), seed \(seed): \(promised.0), \(layout(board))")
            }
            let answer = board.handle(command).first { !$0.hasPrefix("user ") && !$0.hasPrefix("note: ") } ?? ""
            log.append("\(index + 1): \(command) -> \(answer)")
            let after = attributes(board)
            let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
            let isHistoryMove = ["undo", "redo", "earlier", "later", "goto"].contains {
                command.hasPrefix($0)
            }
            if isHistoryMove {
                for attribute in changed {
                    // Attributes of a figure that comes or goes follow its existence.
                    let existence = Attribute(figure: attribute.figure, name: "exists")
                    if attribute.name != "exists" && before[existence] != after[existence] { continue }
                    #expect(
                        writer[attribute] == index + 1,
                        """
                        step \(step), seed \(seed): user \(index + 1)'s \(command) changed \(attribute.name) \
                        of a figure user \(writer[attribute] ?? 0) wrote last
                        \(log.suffix(30).joined(separator: "\n"))
                        """)
                }
            }
            if command == "undo" || command == "redo", !answer.hasPrefix("error: ") {
                #expect(
                    answer == (command == "undo" ? promised.0 : promised.1),
                    "step \(step), seed \(seed): \(command) did what its title said\n\(log.suffix(30).joined(separator: "\n"))"
                )
                #expect(
                    !changed.isEmpty,
                    "step \(step), seed \(seed): a press that changed nothing\n\(log.suffix(30).joined(separator: "\n"))"
                )
            }
            for attribute in changed { writer[attribute] = index + 1 }
            if command == "quit" { away.insert(index) }
            for other in boards.indices where !away.contains(other) { _ = boards[other].poll() }
            let present = boards.indices.filter { !away.contains($0) }
            if let first = present.first {
                for other in present.dropFirst() {
                    #expect(
                        layout(boards[other]) == layout(boards[first]),
                        "step \(step), seed \(seed), after '\(command)'\n\(log.suffix(30).joined(separator: "\n"))")
                }
            }
        }
    }
}
