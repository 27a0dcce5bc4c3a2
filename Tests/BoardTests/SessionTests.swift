import ActionStack
import BoardModel
import Testing

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
