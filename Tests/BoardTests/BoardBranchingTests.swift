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

/// The board's branching history, through the session's commands: `tree`, `goto`, `earlier`,
/// `later`, `branch`, and `history` on a tree.
@MainActor
struct BoardBranchingTests {
    /// A session with three branches from node 1, saved at node 2, at node 4:
    ///
    ///     0 (start)
    ///     1 Add Figure                  figure #1 at (10.0, 20.0)
    ///     |-- 2 Move to (30.0, 5.0)     saved
    ///     |-- 3 Move to (5.0, 5.0)
    ///     `-- 4 Add Figure              figure #2 at (50.0, 30.0)
    func threeBranches() -> Session {
        let session = Session()
        for command in ["add 10 20", "move 1 30 5", "save", "undo", "move 1 5 5", "undo", "add 50 30"] {
            let output = session.handle(command)
            #expect(output.first?.hasPrefix("error: ") == false, "\(command): \(output)")
        }
        return session
    }

    /// The figures on the board: number and position.
    func figures(_ session: Session) -> [String] {
        session.board.figures.map { "#\($0.id) \($0.position)" }
    }

    /// The first line of the answer (the message), the rest (picture and status) aside.
    func answer(_ session: Session, _ command: String) -> String {
        session.handle(command).first ?? ""
    }

    @Test func aChangeAfterUndoingKeepsTheRedoFutureAsABranch() throws {
        let session = threeBranches()
        let tree = try #require(session.board.undoStack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 3, 4], "nothing was lost")
        #expect(tree[ActionStack.HistoryNode.ID(sequence: 1)]?.children.map(\.sequence) == [2, 3, 4])
        #expect(session.board.undoStack.currentNode?.sequence == 4)
        #expect(session.render().last == "board: [Undo Add Figure] (Redo)  * unsaved: board", "undo and redo as before")
    }

    @Test func treeDrawsEveryNodeWithWhereYouAreAndTheSavedNode() {
        let session = threeBranches()
        let output = session.handle("tree")
        #expect(output.count == 1, "the tree without the board")
        #expect(
            output.first == """
                board history tree (goto N goes to node N; branch N picks where redo goes):
                0 (start)
                1 Add Figure
                |-- 2 Move to (30.0, 5.0)  saved
                |-- 3 Move to (5.0, 5.0)
                `-- 4 Add Figure           <- you are here
                """)
        // After a jump, the marks follow: the current node moves, the saved one stays on its node,
        // and the way redo goes from the new place is marked.
        _ = session.handle("goto 0")
        #expect(
            session.handle("tree").first == """
                board history tree (goto N goes to node N; branch N picks where redo goes):
                0 (start)                  <- you are here
                1 Add Figure               (redo)
                |-- 2 Move to (30.0, 5.0)  saved
                |-- 3 Move to (5.0, 5.0)
                `-- 4 Add Figure           (redo)
                """)
        _ = session.handle("goto 2")
        #expect(session.handle("tree").first?.contains("|-- 2 Move to (30.0, 5.0)  <- you are here, saved") == true)
    }

    @Test func gotoGoesToAnAbandonedBranchWithItsFiguresAndTitles() {
        let session = threeBranches()
        #expect(figures(session) == ["#1 (10.0, 20.0)", "#2 (50.0, 30.0)"])

        var output = session.handle("goto 3")
        #expect(output.first == "went to node 3: undid 1 step, then redid 1 step")
        #expect(figures(session) == ["#1 (5.0, 5.0)"], "figure #2 was added on another branch")
        #expect(output.contains("selected: none"), "the selected figure left the board with its branch")
        #expect(output.last == "board: [Undo Move to (5.0, 5.0)] (Redo)  * unsaved: board")

        output = session.handle("goto 2")
        #expect(output.first == "went to node 2: undid 1 step, then redid 1 step")
        #expect(figures(session) == ["#1 (30.0, 5.0)"])
        #expect(output.last == "board: [Undo Move to (30.0, 5.0)] (Redo)", "the saved node: nothing unsaved")
        #expect(!session.board.hasUnsavedChanges)

        output = session.handle("goto 4")
        #expect(output.first == "went to node 4: undid 1 step, then redid 1 step")
        #expect(figures(session) == ["#1 (10.0, 20.0)", "#2 (50.0, 30.0)"], "figure #2 is back")
        #expect(output.last == "board: [Undo Add Figure] (Redo)  * unsaved: board")

        #expect(answer(session, "goto 0") == "went to node 0: undid 2 steps")
        #expect(figures(session).isEmpty)
        #expect(answer(session, "goto #2") == "went to node 2: redid 2 steps", "a number as the tree shows it")
        #expect(answer(session, "goto 2") == "already at node 2")
        #expect(session.board.undoStack.currentNode?.sequence == 2)
    }

    @Test func undoAndRedoAfterAJumpFollowTheBranchThatWasEntered() {
        let session = threeBranches()
        _ = session.handle("goto 3")
        _ = session.handle("undo")
        #expect(session.render().last == "board: [Undo Add Figure] [Redo Move to (5.0, 5.0)]  * unsaved: board")
        #expect(answer(session, "redo") == "Redo Move to (5.0, 5.0)", "redo takes the branch visited last")
        #expect(figures(session) == ["#1 (5.0, 5.0)"])
    }

    @Test func earlierAndLaterGoInTheOrderTheChangesWereMadeAcrossBranches() {
        let session = threeBranches()
        var output = session.handle("earlier")
        #expect(output.first == "went back to node 3: undid 1 step, then redid 1 step")
        #expect(figures(session) == ["#1 (5.0, 5.0)"])
        #expect(output.last == "board: [Undo Move to (5.0, 5.0)] (Redo)  * unsaved: board")
        output = session.handle("earlier")
        #expect(output.first == "went back to node 2: undid 1 step, then redid 1 step")
        #expect(output.last == "board: [Undo Move to (30.0, 5.0)] (Redo)", "back at the saved node")
        #expect(answer(session, "earlier 5") == "went back to node 0: undid 2 steps", "no further than the start")
        #expect(session.handle("earlier") == ["already at node 0, the oldest state"])
        #expect(answer(session, "later 3") == "went forward to node 3: redid 2 steps")
        #expect(figures(session) == ["#1 (5.0, 5.0)"])
        #expect(answer(session, "later 99") == "went forward to node 4: undid 1 step, then redid 1 step")
        #expect(figures(session) == ["#1 (10.0, 20.0)", "#2 (50.0, 30.0)"])
        #expect(session.handle("later") == ["already at node 4, the newest change"])
        #expect(session.board.undoStack.currentNode?.sequence == 4)
    }

    /// `earlier 90s` and `later 1m` go by when the changes were made. The stack's clock is set
    /// before each change, so the test need not wait.
    @Test func earlierAndLaterByTime() throws {
        let session = Session()
        let stack = session.board.undoStack
        let start = try #require(stack.historyTree?.nodes.first?.date)
        // Node n is made n minutes after the start.
        for (minute, command) in ["add 10 20", "move 1 20 20", "move 1 30 20", "move 1 40 20"].enumerated() {
            let date = start.addingTimeInterval(Double(minute + 1) * 60)
            stack.historyClock = { date }
            _ = session.handle(command)
        }
        #expect(stack.historyTree?.nodes.map(\.date) == (0...4).map { start.addingTimeInterval(Double($0) * 60) })
        // From node 4 (minute 4): the newest node made at minute 2.5 or before is node 2.
        #expect(answer(session, "earlier 90s") == "went back to node 2: undid 2 steps")
        #expect(figures(session) == ["#1 (20.0, 20.0)"])
        // From node 2 (minute 2): the oldest node made at minute 3 or after is node 3.
        #expect(answer(session, "later 1m") == "went forward to node 3: redid 1 step")
        #expect(answer(session, "later 1h") == "went forward to node 4: redid 1 step", "none that late: the newest")
        #expect(answer(session, "earlier 1D") == "went back to node 0: undid 4 steps", "none that early: the start")
        #expect(answer(session, "later 2m") == "went forward to node 2: redid 2 steps")
        #expect(answer(session, "earlier 4s") == "went back to node 1: undid 1 step")
    }

    @Test func branchListsAndChoosesWhereRedoGoes() {
        let session = threeBranches()
        #expect(
            session.handle("branch") == ["no branch leaves node 4, where you are: there is nothing to redo here"])
        _ = session.handle("goto 1")
        #expect(
            session.handle("branch") == [
                """
                redo from node 1 can take (branch N makes it take N):
                  2  Move to (30.0, 5.0)
                  3  Move to (5.0, 5.0)
                  4  Add Figure           <- redo takes this one
                """
            ])
        let output = session.handle("branch 3")
        #expect(output.first == "redo now takes node 3: Move to (5.0, 5.0)")
        #expect(output.last == "board: [Undo Add Figure] [Redo Move to (5.0, 5.0)]  * unsaved: board")
        #expect(figures(session) == ["#1 (10.0, 20.0)"], "choosing a branch does not move the board")
        #expect(session.handle("branch 3") == ["redo already takes node 3"])
        #expect(answer(session, "redo") == "Redo Move to (5.0, 5.0)")
        #expect(figures(session) == ["#1 (5.0, 5.0)"])
        #expect(session.board.undoStack.currentNode?.sequence == 3)
        _ = session.handle("undo")
        #expect(session.handle("branch").first?.contains("  3  Move to (5.0, 5.0)   <- redo takes this one") == true)
    }

    /// Refusals that depend on where the user is in the tree: one error line, nothing changed.
    @Test(arguments: [
        ("branch 2", "error: node 2 is not a branch from node 0, where you are; the only branch here is 1"),
        ("branch 9", "error: there is no node 9 in the board's history (type tree to see its nodes)"),
        ("goto 5", "error: there is no node 5 in the board's history (type tree to see its nodes)"),
        ("history 5", "error: there is no node 5 in the board's history (type tree to see its nodes)"),
    ])
    func refusalsInTheTree(command: String, message: String) {
        let session = threeBranches()
        _ = session.handle("goto 0")
        let before = session.render()
        let tree = session.board.undoStack.historyTree
        #expect(session.handle(command) == [message])
        #expect(session.render() == before)
        #expect(session.board.undoStack.historyTree == tree, "the same nodes, marks and redo choices")
    }

    @Test func historyListsThePathWithTheBranchesThatLeaveIt() {
        let session = threeBranches()
        #expect(
            session.handle("history") == [
                """
                board history (goto N goes to node N; tree draws every branch):
                  0  (start)
                  1  Add Figure  other branches: 2 and 3
                  4  Add Figure  <- you are here
                """
            ])
        // history N takes the numbers it lists: nodes, on any branch.
        #expect(answer(session, "history 2") == "went to node 2: undid 1 step, then redid 1 step")
        _ = session.handle("undo")
        #expect(
            session.handle("history") == [
                """
                board history (goto N goes to node N; tree draws every branch):
                  0  (start)
                  1  Add Figure           <- you are here, other branches: 3 and 4
                  2  Move to (30.0, 5.0)  saved, (redo)
                """
            ])
    }

    /// A figure's history is linear: the tree commands say so and change nothing, and `history`
    /// lists positions there as before.
    @Test(arguments: ["tree", "goto 0", "earlier", "later 2", "earlier 10s", "branch", "branch 1"])
    func aFiguresLinearHistoryRefusesTheTreeCommands(command: String) throws {
        let session = threeBranches()
        _ = session.handle("color red")
        _ = session.handle("figure")
        let before = session.render()
        let board = session.board.undoStack.currentNode
        #expect(
            session.handle(command) == [
                "error: figure #2's history is linear: only the board's history branches (type board to use it)"
            ])
        #expect(session.render() == before)
        #expect(session.board.undoStack.currentNode == board)
        #expect(session.board.figure(2)?.color == .red)
        let history = try #require(session.handle("history").first)
        #expect(history.hasPrefix("figure #2 history (type history N to go to position N):"), "\(history)")
    }

    /// Where the board was saved is marked on its node however the user got there, and the
    /// status line agrees: nothing unsaved exactly there.
    @Test func theSavedNodeIsFoundAfterEveryKindOfMove() throws {
        let session = threeBranches()
        for command in ["goto 2", "goto 0", "later 2", "earlier", "later", "undo", "branch 2", "redo", "history 3"] {
            _ = session.handle(command)
            let tree = try #require(session.board.undoStack.historyTree)
            #expect(tree.clean?.sequence == 2, "after \(command)")
            let atSaved = tree.current.sequence == 2
            #expect(session.board.hasUnsavedChanges == !atSaved, "after \(command)")
            #expect(session.render().last?.hasSuffix("* unsaved: board") == !atSaved, "after \(command)")
            let drawing = try #require(session.handle("tree").first)
            #expect(drawing.contains("2 Move to (30.0, 5.0)  \(atSaved ? "<- you are here, " : "")saved"), "\(drawing)")
        }
        // Saved again elsewhere: the mark moves.
        _ = session.handle("goto 3")
        _ = session.handle("save")
        #expect(session.handle("tree").first?.contains("|-- 3 Move to (5.0, 5.0)  <- you are here, saved") == true)
        #expect(answer(session, "goto 4").hasPrefix("went to node 4"))
        #expect(session.board.hasUnsavedChanges)
    }

    /// A figure taken off the board on a branch (its addition undone, then another change made)
    /// stays held by that branch, with its own history: going back to the branch brings it back
    /// as it was.
    @Test func aFigureOnAnAbandonedBranchComesBackWithItsHistory() throws {
        let session = Session()
        weak var second: Figure?
        for command in ["add 10 20", "add 40 8", "color green", "undo", "move 1 20 20"] {
            _ = session.handle(command)
            if second == nil { second = session.board.figure(2) }
        }
        #expect(figures(session) == ["#1 (20.0, 20.0)"])
        #expect(second != nil, "held by the abandoned branch")
        #expect(answer(session, "goto 2") == "went to node 2: undid 1 step, then redid 1 step")
        let figure = try #require(session.board.figure(2))
        #expect(figure === second)
        #expect(figure.color == .green)
        _ = session.handle("select 2")
        _ = session.handle("figure")
        #expect(session.render().last == "figure #2: [Undo Change Color] (Redo)  * unsaved: board, figure #2")
        #expect(answer(session, "undo") == "Undo Change Color")
        #expect(figure.color == .black)
    }

    /// The argument of `earlier` and `later`: a count or a time, checked before anything moves.
    @Test(arguments: [
        ("earlier x", "error: earlier takes a number of changes (earlier 3) or a time (10s, 5m, 2h, 1d), not 'x'"),
        ("later 1.5m", "error: later takes a number of changes (later 3) or a time (10s, 5m, 2h, 1d), not '1.5m'"),
        ("later 10w", "error: later takes a number of changes (later 3) or a time (10s, 5m, 2h, 1d), not '10w'"),
        ("earlier -1", "error: earlier takes a number of changes (earlier 3) or a time (10s, 5m, 2h, 1d), not '-1'"),
        ("earlier s", "error: earlier takes a number of changes (earlier 3) or a time (10s, 5m, 2h, 1d), not 's'"),
        ("earlier 0", "error: earlier goes at least 1 change or 1 second, not '0'"),
        ("later 0s", "error: later goes at least 1 change or 1 second, not '0s'"),
        ("earlier 1 2", "error: usage: earlier [N | Ns | Nm | Nh | Nd]"),
    ])
    func earlierAndLaterReadTheirArgument(command: String, message: String) {
        let session = threeBranches()
        _ = session.handle("goto 2")
        let before = session.render()
        #expect(session.handle(command) == [message])
        #expect(session.render() == before)
    }
}
