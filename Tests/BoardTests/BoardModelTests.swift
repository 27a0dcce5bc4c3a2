import ActionStack
import BoardModel
import Testing

/// The board and figure logic, driven directly.
@MainActor
struct BoardModelTests {
    /// Ends the current event on every stack, as the session does after each command.
    func endEvent(_ board: Board) {
        board.undoStack.endEvent()
        for figure in board.figures { figure.undoStack.endEvent() }
    }

    @Test func addMoveRemoveAreUndoableOnTheBoard() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 10, y: 20))
        endEvent(board)
        #expect(board.undoStack.undoMenuItemTitle == "Undo Add Figure")
        try board.move(figure.id, to: Point(x: 30, y: 5))
        endEvent(board)
        #expect(board.undoStack.undoMenuItemTitle == "Undo Move to (30.0, 5.0)", "named after the place moved to")
        try board.removeFigure(figure.id)
        endEvent(board)
        #expect(board.figures.isEmpty)
        #expect(board.undoStack.undoMenuItemTitle == "Undo Remove Figure")

        board.undoStack.undo()
        #expect(board.figures.first === figure)
        #expect(board.undoStack.redoMenuItemTitle == "Redo Remove Figure")
        board.undoStack.undo()
        #expect(figure.position == Point(x: 10, y: 20))
        #expect(board.undoStack.redoMenuItemTitle == "Redo Move to (30.0, 5.0)")
        board.undoStack.undo()
        #expect(board.figures.isEmpty)
        #expect(board.undoStack.redoMenuItemTitle == "Redo Add Figure")
        #expect(board.undoStack.undoMenuItemTitle == "Undo")

        board.undoStack.redo()
        #expect(board.undoStack.undoMenuItemTitle == "Undo Add Figure")
        #expect(board.undoStack.redoMenuItemTitle == "Redo Move to (30.0, 5.0)")
        board.undoStack.redo()
        #expect(board.figures.first?.position == Point(x: 30, y: 5))
        #expect(board.undoStack.undoMenuItemTitle == "Undo Move to (30.0, 5.0)")
        #expect(board.undoStack.redoMenuItemTitle == "Redo Remove Figure")
    }

    /// The names of the board's steps, oldest first, as a history panel lists them.
    func steps(_ stack: ActionStack) -> [String] {
        (stack.undoEntries.reversed() + stack.redoEntries).map(\.actionName)
    }

    /// The bug report: add #1 and #2, move #1, undo two steps and redo two. The second step must
    /// still be "Add Figure", and undoing it must remove figure #2.
    @Test func titlesSurviveUndoAndRedo() throws {
        let board = Board()
        try board.addFigure(at: Point(x: 10, y: 20))
        endEvent(board)
        try board.addFigure(at: Point(x: 50, y: 20))
        endEvent(board)
        try board.move(1, to: Point(x: 30, y: 5))
        endEvent(board)
        board.undoStack.undo()
        board.undoStack.undo()
        #expect(board.undoStack.redoMenuItemTitle == "Redo Add Figure")
        board.undoStack.redo()
        board.undoStack.redo()
        #expect(steps(board.undoStack) == ["Add Figure", "Add Figure", "Move to (30.0, 5.0)"])
        board.undoStack.undo()
        #expect(board.undoStack.undoMenuItemTitle == "Undo Add Figure")
        board.undoStack.undo()
        #expect(board.figures.map(\.id) == [1], "undoing an add removes the figure it added")
    }

    /// The other direction of the bug: remove, undo, redo; the step stays "Remove Figure" and
    /// undoing it puts the figure back.
    @Test func aRedoneRemovalIsStillARemoval() throws {
        let board = Board()
        try board.addFigure(at: Point(x: 10, y: 20))
        endEvent(board)
        try board.removeFigure(1)
        endEvent(board)
        board.undoStack.undo()
        #expect(board.undoStack.redoMenuItemTitle == "Redo Remove Figure")
        #expect(board.undoStack.undoMenuItemTitle == "Undo Add Figure")
        board.undoStack.redo()
        #expect(board.figures.isEmpty, "redoing a removal removes")
        #expect(board.undoStack.undoMenuItemTitle == "Undo Remove Figure")
        board.undoStack.undo()
        #expect(board.figures.map(\.id) == [1])
        #expect(board.undoStack.redoMenuItemTitle == "Redo Remove Figure")
    }

    @Test func figureChangesLiveOnTheFiguresOwnStack() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 1, y: 1))
        endEvent(board)
        figure.setColor(.red)
        endEvent(board)
        figure.setCornerRadius(4)
        endEvent(board)
        #expect(figure.undoStack.undoMenuItemTitle == "Undo Change Corner Radius")
        #expect(board.undoStack.undoMenuItemTitle == "Undo Add Figure")
        figure.undoStack.undo()
        #expect(figure.cornerRadius == 0)
        #expect(figure.undoStack.undoMenuItemTitle == "Undo Change Color")
        figure.undoStack.undo()
        #expect(figure.color == .black)
        figure.undoStack.redo()
        #expect(figure.color == .red)
        #expect(figure.undoStack.redoMenuItemTitle == "Redo Change Corner Radius")
    }

    @Test func undoingAMoveNeverTouchesColourOrRadiusAndTheReverse() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 1, y: 1))
        endEvent(board)
        try board.move(figure.id, to: Point(x: 5, y: 5))
        endEvent(board)
        figure.setColor(.blue)
        endEvent(board)
        board.undoStack.undo()
        #expect(figure.position == Point(x: 1, y: 1))
        #expect(figure.color == .blue)
        figure.undoStack.undo()
        #expect(figure.color == .black)
        #expect(figure.position == Point(x: 1, y: 1))
        #expect(board.undoStack.canRedo)
    }

    @Test func aRemovedFigureKeepsItsHistoryWhenTheRemovalIsUndone() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 1, y: 1))
        endEvent(board)
        figure.setColor(.green)
        endEvent(board)
        try board.removeFigure(figure.id)
        endEvent(board)
        board.undoStack.undo()
        #expect(board.figure(figure.id) === figure)
        #expect(figure.undoStack.undoMenuItemTitle == "Undo Change Color")
        figure.undoStack.undo()
        #expect(figure.color == .black)
    }

    @Test func removalPutsTheFigureBackAtItsPlaceInTheOrder() throws {
        let board = Board()
        for x in [1.0, 2, 3] { try board.addFigure(at: Point(x: x, y: 0)) }
        endEvent(board)
        try board.removeFigure(2)
        endEvent(board)
        board.undoStack.undo()
        #expect(board.figures.map(\.id) == [1, 2, 3])
    }

    @Test func badInputThrowsAndChangesNothing() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 1, y: 1))
        endEvent(board)
        let before = board.undoStack.undoCount
        #expect(throws: BoardError.offBoard(Point(x: 500, y: 1))) { try board.addFigure(at: Point(x: 500, y: 1)) }
        #expect(throws: BoardError.noSuchFigure(9)) { try board.move(9, to: Point(x: 1, y: 1)) }
        #expect(throws: BoardError.offBoard(Point(x: -1, y: 1))) { try board.move(figure.id, to: Point(x: -1, y: 1)) }
        #expect(throws: BoardError.noSuchFigure(9)) { try board.removeFigure(9) }
        endEvent(board)
        #expect(board.undoStack.undoCount == before)
        #expect(figure.position == Point(x: 1, y: 1))
        #expect(board.figures.count == 1)
    }
}

/// The command session: parsing, contexts, buttons driven by notifications.
@MainActor
struct SessionTests {
    @Test func eachCommandIsOneStepAndButtonsFollowTheActiveContext() {
        let session = Session()
        #expect(session.buttons.rendered == "(Undo) (Redo)")
        _ = session.handle("add 10 20")
        #expect(session.buttons.rendered == "[Undo Add Figure] (Redo)")
        _ = session.handle("move 1 30 5")
        #expect(session.buttons.undoTitle == "Undo Move to (30.0, 5.0)")
        _ = session.handle("color red")
        #expect(session.buttons.undoTitle == "Undo Move to (30.0, 5.0)", "board context still active")
        _ = session.handle("figure")
        #expect(session.buttons.rendered == "[Undo Change Color] (Redo)")
        let output = session.handle("undo")
        #expect(output.first == "Undo Change Color")
        #expect(session.buttons.rendered == "(Undo) [Redo Change Color]")
        #expect(session.board.figure(1)?.color == .black)
        _ = session.handle("board")
        #expect(session.buttons.rendered == "[Undo Move to (30.0, 5.0)] (Redo)")
    }

    @Test func buttonsAreRefreshedByTheStacksNotifications() {
        let session = Session()
        _ = session.handle("add 1 1")
        let before = session.buttons.refreshCount
        session.board.undoStack.undo()  // not through the session: only the notification tells
        #expect(session.buttons.refreshCount > before)
        #expect(session.buttons.rendered == "(Undo) [Redo Add Figure]")
    }

    @Test(arguments: [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("add 10", "usage: add X Y"),
        ("add ten 20", "x must be a number, not 'ten'"),
        ("add 1000 1", "off the board"),
        ("move 7 1 1", "there is no figure #7 on the board"),
        ("move 1 1 1 1", "usage: move N X Y"),
        ("remove x", "figure number must be a whole number"),
        ("select 3", "there is no figure #3"),
        ("color mauve", "unknown colour 'mauve'"),
        ("radius -2", "must not be negative"),
        ("radius", "usage: radius R"),
        ("redo", "nothing to redo"),
        ("undo now", "usage: undo"),
    ])
    func badInputGetsOneLineAndChangesNothing(command: String, message: String) throws {
        let session = Session()
        _ = session.handle("add 10 20")
        let before = session.render()
        let undoCount = session.board.undoStack.undoCount
        let output = session.handle(command)
        #expect(output.count == 1)
        let line = try #require(output.first)
        #expect(line.hasPrefix("error: "))
        #expect(line.contains(message), "\(line)")
        #expect(session.render() == before)
        #expect(session.board.undoStack.undoCount == undoCount)
    }

    @Test func figureContextNeedsASelection() {
        let session = Session()
        #expect(session.handle("figure").first?.contains("no figure is selected") == true)
        #expect(session.handle("color red").first?.contains("no figure is selected") == true)
    }

    @Test func removingTheSelectedFigureFallsBackToTheBoardContext() {
        let session = Session()
        _ = session.handle("add 1 1")
        _ = session.handle("figure")
        #expect(session.context == .figure)
        _ = session.handle("board")
        _ = session.handle("remove 1")
        #expect(session.selectedID == nil)
        _ = session.handle("undo")
        #expect(session.board.figures.count == 1)
    }

    @Test func renderShowsTheBoardTheSelectionAndTheButtons() {
        let session = Session()
        let lines = session.handle("add 10 20")
        #expect(lines.first == "added figure #1 at (10.0, 20.0)")
        #expect(lines.contains { $0.contains("[*1]") })
        #expect(lines.contains("selected: #1 at (10.0, 20.0), color black, corner radius 0.0"))
        #expect(lines.last == "board: [Undo Add Figure] (Redo)")
        _ = session.handle("radius 3")
        #expect(session.render().contains { $0.contains("(*1)") }, "rounded figures are drawn with parentheses")
    }

    @Test func historyListsTheStepsAndJumpsToAPosition() throws {
        let session = Session()
        _ = session.handle("add 1 1")
        _ = session.handle("move 1 5 5")
        _ = session.handle("move 1 9 9")
        let listing = try #require(session.handle("history").first)
        #expect(listing.contains("> 3  Move to (9.0, 9.0)"))
        #expect(listing.contains("  1  Add Figure"))
        let jump = session.handle("history 1")
        #expect(jump.first == "jumped to position 1")
        #expect(session.board.figure(1)?.position == Point(x: 1, y: 1))
        #expect(jump.last == "board: [Undo Add Figure] [Redo Move to (5.0, 5.0)]")
        let after = try #require(session.handle("history").first)
        #expect(after.contains("  2  Move to (5.0, 5.0)  (redo)"))
        #expect(after.contains("  3  Move to (9.0, 9.0)  (redo)"))
        #expect(session.handle("history 9").first?.contains("history positions run from 0 to 3") == true)
    }

    @Test func theEditMenuGroupFollowsTheContext() {
        let session = Session()
        _ = session.handle("add 1 1")
        _ = session.handle("color red")
        #expect(session.edit.activeStack === session.board.undoStack)
        _ = session.handle("figure")
        #expect(session.edit.activeStack === session.board.figure(1)?.undoStack)
        #expect(session.edit.undoMenuItemTitle == "Undo Change Color")
    }

    @Test func quitFinishesTheSession() {
        let session = Session()
        #expect(session.handle("quit") == ["bye"])
        #expect(session.isFinished)
    }
}
