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
import Testing

/// The board and figure logic, driven directly.
@MainActor
struct BoardModelTests {
    /// Ends the current event on every stack, as the session does after each command.
    func endEvent(_ board: Board) {
        board.undoStack.endEvent()
        for figure in board.figures { figure.undoStack.endEvent() }
    }

    /// The names of the board's steps, oldest first, as a history panel lists them.
    func steps(_ stack: ActionStack) -> [String] {
        (stack.undoEntries.reversed() + stack.redoEntries).map(\.actionName)
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

    @Test func aRemovedFigureKeepsItsOwnHistoryWhileTheRemovalCanBeUndone() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 1, y: 1))
        endEvent(board)
        figure.setColor(.green)
        endEvent(board)
        try board.removeFigure(figure.id)
        endEvent(board)
        #expect(figure.undoStack.canUndo, "the board's undo step holds the figure, and its history")
        board.undoStack.undo()
        #expect(board.figure(figure.id) === figure)
        #expect(figure.color == .green, "the figure comes back as it was")
        #expect(figure.undoStack.undoMenuItemTitle == "Undo Change Color")
        figure.undoStack.undo()
        #expect(figure.color == .black)
        figure.undoStack.redo()
        #expect(figure.color == .green)
    }

    @Test func aRemovedFigureIsFreedWithItsHistoryOnceTheRemovalCannotBeUndone() throws {
        let board = Board()
        weak var removed: Figure?
        do {
            let figure = try board.addFigure(at: Point(x: 1, y: 1))
            endEvent(board)
            figure.setColor(.green)
            endEvent(board)
            try board.removeFigure(figure.id)
            endEvent(board)
            removed = figure
        }
        #expect(removed != nil, "still held by the removal's undo step")
        board.undoStack.removeAllActions()
        #expect(removed == nil, "freed, with its stack and the handlers it held")
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
        #expect(throws: BoardError.offBoard(Point(x: 81, y: 1))) { try board.nudge(figure.id, by: 80, 0) }
        #expect(throws: BoardError.noSuchFigure(9)) { try board.nudge(9, by: 1, 0) }
        #expect(throws: BoardError.noSuchFigure(9)) { try board.removeFigure(9) }
        endEvent(board)
        #expect(board.undoStack.undoCount == before)
        #expect(!figure.undoStack.canUndo)
        #expect(figure.position == Point(x: 1, y: 1))
        #expect(board.figures.count == 1)
    }

    /// A change to what already is registers nothing and names nothing: once empty groups are
    /// kept (Foundation's behaviour), a name alone would make a do-nothing undo step.
    @Test func changingNothingRegistersNothing() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 10, y: 20))
        endEvent(board)
        #expect(try board.move(1, to: Point(x: 10, y: 20)) == false)
        #expect(try board.nudge(1, by: 0, 0) == false)
        #expect(figure.setColor(.black) == false)
        #expect(figure.setCornerRadius(0) == false)
        #expect(board.undoStack.groupingLevel == 0 && figure.undoStack.groupingLevel == 0, "no group was opened")
        endEvent(board)
        #expect(steps(board.undoStack) == ["Add Figure"])
        #expect(!figure.undoStack.canUndo)
    }

    @Test func nudgesWithinTheWindowAreOneMoveNamedAfterWhereTheFigureEnds() throws {
        let board = Board()
        let clock = ManualClock()
        clock.drive(board.undoStack)
        try board.addFigure(at: Point(x: 10, y: 20))
        endEvent(board)
        for _ in 0..<3 {
            clock.advance(by: .milliseconds(400))
            try board.nudge(1, by: 1, -0.5)
            endEvent(board)
        }
        #expect(steps(board.undoStack) == ["Add Figure", "Move to (13.0, 18.5)"])
        #expect(board.undoStack.undoMenuItemTitle == "Undo Move to (13.0, 18.5)")
        board.undoStack.undo()
        #expect(board.figures[0].position == Point(x: 10, y: 20), "one undo takes back the whole drag")
        #expect(board.undoStack.redoMenuItemTitle == "Redo Move to (13.0, 18.5)")
        board.undoStack.redo()
        #expect(board.figures[0].position == Point(x: 13, y: 18.5))
        #expect(board.undoStack.undoMenuItemTitle == "Undo Move to (13.0, 18.5)")
    }

    @Test func aPauseLongerThanTheWindowStartsANewStep() throws {
        let board = Board()
        let clock = ManualClock()
        clock.drive(board.undoStack)
        try board.addFigure(at: Point(x: 10, y: 20))
        endEvent(board)
        try board.nudge(1, by: 1, 0)
        endEvent(board)
        clock.advance(by: .seconds(1))
        try board.nudge(1, by: 1, 0)  // exactly the window: still the same drag
        endEvent(board)
        clock.advance(by: .milliseconds(1001))
        try board.nudge(1, by: 1, 0)
        endEvent(board)
        #expect(steps(board.undoStack) == ["Add Figure", "Move to (12.0, 20.0)", "Move to (13.0, 20.0)"])
        board.undoStack.undo()
        #expect(board.figures[0].position == Point(x: 12, y: 20))
    }

    @Test func anotherChangeUndoRedoOrSaveEndsADrag() throws {
        let board = Board()
        let clock = ManualClock()
        clock.drive(board.undoStack)
        try board.addFigure(at: Point(x: 10, y: 20))
        try board.addFigure(at: Point(x: 50, y: 20))
        endEvent(board)
        try board.nudge(1, by: 1, 0)
        endEvent(board)
        try board.nudge(2, by: 1, 0)  // another figure: another drag
        endEvent(board)
        try board.nudge(1, by: 1, 0)  // figure #1 again, but #2 moved in between
        endEvent(board)
        board.save()
        try board.nudge(1, by: 1, 0)  // the saved step stays as saved
        endEvent(board)
        board.undoStack.undo()
        board.undoStack.redo()
        try board.nudge(1, by: 1, 0)  // after an undo and a redo
        endEvent(board)
        #expect(
            steps(board.undoStack) == [
                "Add Figure", "Move to (11.0, 20.0)", "Move to (51.0, 20.0)", "Move to (12.0, 20.0)",
                "Move to (13.0, 20.0)", "Move to (14.0, 20.0)",
            ])
    }

    @Test func nudgesAddUpInHundredths() throws {
        let board = Board()
        try board.addFigure(at: Point(x: 0, y: 0))
        endEvent(board)
        for _ in 0..<3 { try board.nudge(1, by: 0.1, 0.2) }
        endEvent(board)
        #expect(board.figures[0].position == Point(x: 0.3, y: 0.6))
        #expect(board.undoStack.undoMenuItemTitle == "Undo Move to (0.3, 0.6)")
    }

    @Test func saveMarksEveryStackCleanAndUndoingPastItIsAChange() throws {
        let board = Board()
        #expect(!board.hasUnsavedChanges, "a new board has nothing to save")
        let figure = try board.addFigure(at: Point(x: 10, y: 20))
        endEvent(board)
        #expect(board.hasUnsavedChanges)
        figure.setColor(.red)
        endEvent(board)
        board.save()
        #expect(!board.hasUnsavedChanges)
        figure.undoStack.undo()
        #expect(board.hasUnsavedChanges, "a figure's change is a change of the board")
        figure.undoStack.redo()
        #expect(!board.hasUnsavedChanges, "back at the saved state")
        try board.move(1, to: Point(x: 0, y: 0))
        endEvent(board)
        #expect(board.hasUnsavedChanges)
        board.undoStack.undo()
        #expect(!board.hasUnsavedChanges)
    }

    /// A removed figure keeps its history, so undoing the removal brings back its unsaved change
    /// and the board says so.
    @Test func unsavedChangesOfARemovedFigureAreNotForgotten() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 10, y: 20))
        endEvent(board)
        board.save()
        figure.setColor(.red)
        endEvent(board)
        try board.removeFigure(1)
        endEvent(board)
        board.undoStack.undo()
        #expect(!figure.undoStack.isClean, "the red change is still in its history")
        #expect(board.hasUnsavedChanges, "the figure is red and was saved black")
        figure.undoStack.undo()
        #expect(figure.undoStack.isClean && figure.color == .black)
        board.save()
        #expect(!board.hasUnsavedChanges)
    }

    @Test func theRadiusIsBoundedByTheFiguresSize() throws {
        let board = Board()
        let figure = try board.addFigure(at: Point(x: 10, y: 20))
        #expect(Figure.maximumCornerRadius == min(Figure.width, Figure.height) / 2)
        #expect(figure.setCornerRadius(1e9))
        #expect(figure.cornerRadius == Figure.maximumCornerRadius, "kept within the figure's size")
        #expect(figure.setCornerRadius(Figure.maximumCornerRadius) == false)
        #expect(figure.setCornerRadius(-1))
        #expect(figure.cornerRadius == 0)
        #expect(figure.setCornerRadius(.nan) == false)
    }
}
