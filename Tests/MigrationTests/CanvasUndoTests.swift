// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation
import XCTest

@MainActor
final class CanvasUndoTests: XCTestCase {
    private var undoManager: UndoManager!
    private var canvas: Canvas!

    private let square = Shape(kind: .rectangle, origin: CGPoint(x: 10, y: 10))
    private let circle = Shape(kind: .oval, origin: CGPoint(x: 50, y: 20))

    override func setUp() async throws {
        undoManager = UndoManager()
        undoManager.groupsByEvent = false
        canvas = Canvas(undoManager: undoManager)
    }

    override func tearDown() async throws {
        canvas = nil
        undoManager = nil
    }

    /// One user action: one undo group, as the event loop would make it.
    private func userAction(_ body: () -> Void) {
        undoManager.beginUndoGrouping()
        body()
        undoManager.endUndoGrouping()
    }

    func testAddingAShapeCanBeUndoneAndRedone() async {
        XCTAssertFalse(undoManager.canUndo)
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo")

        userAction { canvas.addShape(square) }

        XCTAssertTrue(undoManager.canUndo)
        XCTAssertFalse(undoManager.canRedo)
        XCTAssertEqual(undoManager.undoActionName, "Add Shape")
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Add Shape")

        undoManager.undo()

        XCTAssertEqual(canvas.shapes, [])
        XCTAssertFalse(undoManager.canUndo)
        XCTAssertTrue(undoManager.canRedo)
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo Add Shape")

        undoManager.redo()

        XCTAssertEqual(canvas.shapes, [square])
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Add Shape")
        XCTAssertFalse(undoManager.canRedo)
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo")
    }

    func testDeletingIsNamedFromTheUsersPointOfView() async {
        userAction { canvas.addShape(square) }
        userAction { canvas.addShape(circle) }
        userAction { canvas.removeShape(at: 0) }
        XCTAssertEqual(canvas.shapes, [circle])
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Delete Shape")

        // The undo inserts the square again, but the step the user undid is still a deletion.
        undoManager.undo()
        XCTAssertEqual(canvas.shapes, [square, circle])
        XCTAssertEqual(canvas.revealedIndex, 0)
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo Delete Shape")
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Add Shape")

        undoManager.redo()
        XCTAssertEqual(canvas.shapes, [circle])
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Delete Shape")

        undoManager.undo()
        undoManager.undo()
        XCTAssertEqual(canvas.shapes, [square])
        XCTAssertEqual(canvas.revealedIndex, 0)
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo Add Shape")
    }

    func testEditsAreUndoneInReverseOrder() async {
        userAction { canvas.addShape(square) }
        userAction { canvas.moveShape(at: 0, to: CGPoint(x: 30, y: 40)) }
        userAction { canvas.setColor("red", ofShapeAt: 0) }

        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Change Color")
        undoManager.undo()
        XCTAssertEqual(canvas.shapes[0].color, "black")
        XCTAssertEqual(canvas.shapes[0].origin, CGPoint(x: 30, y: 40))

        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Move")
        undoManager.undo()
        XCTAssertEqual(canvas.shapes[0].origin, square.origin)

        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo Move")
        undoManager.redo()
        undoManager.redo()
        XCTAssertEqual(canvas.shapes, [Shape(kind: .rectangle, origin: CGPoint(x: 30, y: 40), color: "red")])
    }

    func testANewEditClearsRedo() async {
        userAction { canvas.addShape(square) }
        userAction { canvas.setColor("red", ofShapeAt: 0) }
        undoManager.undo()
        XCTAssertTrue(undoManager.canRedo)

        userAction { canvas.setColor("blue", ofShapeAt: 0) }

        XCTAssertFalse(undoManager.canRedo)
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo")
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Change Color")
    }

    func testNudgeIsOneStep() async {
        userAction {
            canvas.addShape(square)
            canvas.addShape(circle)
        }
        userAction { canvas.nudgeShapes(at: [0, 1], byX: 5, y: -5) }

        XCTAssertEqual(canvas.shapes.map(\.origin), [CGPoint(x: 15, y: 5), CGPoint(x: 55, y: 15)])
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Nudge")

        undoManager.undo()
        XCTAssertEqual(canvas.shapes.map(\.origin), [square.origin, circle.origin])
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo Nudge")
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Add Shape")

        undoManager.redo()
        XCTAssertEqual(canvas.shapes.map(\.origin), [CGPoint(x: 15, y: 5), CGPoint(x: 55, y: 15)])
    }

    func testNestedGroupsAreUndoneTogether() async {
        userAction { canvas.addShape(square) }
        undoManager.beginUndoGrouping()
        canvas.setColor("green", ofShapeAt: 0)
        undoManager.beginUndoGrouping()
        XCTAssertEqual(undoManager.groupingLevel, 2)
        canvas.moveShape(at: 0, to: .zero)
        undoManager.endUndoGrouping()
        undoManager.setActionName("Reset Shape")
        undoManager.endUndoGrouping()
        XCTAssertEqual(undoManager.groupingLevel, 0)

        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Reset Shape")
        undoManager.undo()
        XCTAssertEqual(canvas.shapes, [square])
    }

    func testAMoveThatChangesNothingStillLeavesAnUndoStep() async {
        userAction { canvas.addShape(square) }

        // The user dropped the shape where it was: the group closes with nothing registered.
        userAction { canvas.moveShape(at: 0, to: square.origin) }

        XCTAssertTrue(undoManager.canUndo)
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo")
        undoManager.undo()
        XCTAssertEqual(canvas.shapes, [square])
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Add Shape")
        undoManager.undo()
        XCTAssertEqual(canvas.shapes, [])
    }

    func testRedoThatRegistersNothingStillLeavesAnUndoStep() async {
        userAction { canvas.addShape(square) }
        userAction {
            let oldTitle = canvas.title
            canvas.title = "Sketch"
            undoManager.registerUndo(withTarget: canvas) { canvas in
                // The redo only sets the title again; it registers no undo of its own.
                canvas.undoManager?.registerUndo(withTarget: canvas) { $0.title = "Sketch" }
                canvas.title = oldTitle
            }
            undoManager.setActionName("Rename")
        }

        undoManager.undo()
        XCTAssertEqual(canvas.title, "Untitled")
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo Rename")

        undoManager.redo()
        XCTAssertEqual(canvas.title, "Sketch")

        // The redo left a step with nothing in it: undoing it changes nothing.
        XCTAssertTrue(undoManager.canUndo)
        undoManager.undo()
        XCTAssertEqual(canvas.title, "Sketch")
        XCTAssertEqual(canvas.shapes, [square])
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Add Shape")
    }

    func testLevelsOfUndoKeepsTheNewestSteps() async {
        undoManager.levelsOfUndo = 3
        for index in 0..<5 {
            userAction { canvas.addShape(Shape(kind: .triangle, origin: CGPoint(x: index, y: index))) }
        }

        var undos = 0
        while undoManager.canUndo && undos < 10 {
            undoManager.undo()
            undos += 1
        }

        XCTAssertEqual(undos, 3)
        XCTAssertEqual(canvas.shapes.count, 2)
    }

    func testSelectionIsDiscardable() async {
        userAction { canvas.addShape(square) }
        XCTAssertFalse(undoManager.undoActionIsDiscardable)

        userAction { canvas.select(0) }
        XCTAssertTrue(undoManager.undoActionIsDiscardable)
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Selection")

        undoManager.undo()
        XCTAssertNil(canvas.selectedIndex)
        XCTAssertTrue(undoManager.redoActionIsDiscardable)
        XCTAssertFalse(undoManager.undoActionIsDiscardable)
    }

    func testRemovingAPageRemovesOnlyItsActions() async {
        // Two pages of one document share the document's undo manager.
        let firstPage = canvas!
        let secondPage = Canvas(undoManager: undoManager)
        userAction { firstPage.addShape(square) }
        userAction { secondPage.addShape(circle) }
        userAction { firstPage.setColor("red", ofShapeAt: 0) }
        userAction { secondPage.moveShape(at: 0, to: .zero) }

        // The second page is deleted; its undo actions must go with it.
        undoManager.removeAllActions(withTarget: secondPage)

        var undos = 0
        while undoManager.canUndo && undos < 10 {
            undoManager.undo()
            undos += 1
        }
        XCTAssertEqual(firstPage.shapes, [])
        XCTAssertEqual(secondPage.shapes, [Shape(kind: .oval, origin: .zero)])
    }

    func testRemoveAllActionsForgetsEverything() async {
        userAction { canvas.addShape(square) }
        userAction { canvas.addShape(circle) }
        undoManager.undo()

        undoManager.removeAllActions()

        XCTAssertFalse(undoManager.canUndo)
        XCTAssertFalse(undoManager.canRedo)
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo")
        XCTAssertEqual(undoManager.redoMenuItemTitle, "Redo")
        XCTAssertEqual(canvas.shapes, [square])
    }

    func testUndoManagersAreComparedByIdentity() async {
        let otherCanvas = Canvas(undoManager: UndoManager())

        XCTAssertEqual(canvas.undoManager, undoManager)
        XCTAssertTrue(canvas.undoManager == undoManager)
        XCTAssertNotEqual(otherCanvas.undoManager, undoManager)
        XCTAssertFalse(otherCanvas.undoManager == canvas.undoManager)
    }

    func testWithoutAnUndoManagerEditsStillWork() async {
        let scratch = Canvas()
        scratch.addShape(square)
        scratch.moveShape(at: 0, to: .zero)
        scratch.removeShape(at: 0)
        XCTAssertEqual(scratch.shapes, [])
    }
}

/// With `groupsByEvent` on (the default), everything registered in one pass of the run loop is one
/// undo step, closed when the run loop turns.
@MainActor
final class EventGroupingTests: XCTestCase {
    func testRegistrationsOfOneEventAreOneStep() async {
        let undoManager = UndoManager()
        let canvas = Canvas(undoManager: undoManager)
        XCTAssertTrue(undoManager.groupsByEvent)

        canvas.addShape(Shape(kind: .rectangle, origin: .zero))
        canvas.setColor("red", ofShapeAt: 0)
        XCTAssertEqual(undoManager.groupingLevel, 1)
        XCTAssertTrue(undoManager.canUndo)

        // undo() closes the event's group first.
        undoManager.undo()
        XCTAssertEqual(undoManager.groupingLevel, 0)
        XCTAssertEqual(canvas.shapes, [])
    }

    func testTheRunLoopEndsEachEvent() async {
        let undoManager = UndoManager()
        let canvas = Canvas(undoManager: undoManager)

        canvas.addShape(Shape(kind: .rectangle, origin: .zero))
        letTheRunLoopTurn()
        XCTAssertEqual(undoManager.groupingLevel, 0)

        canvas.setColor("red", ofShapeAt: 0)
        letTheRunLoopTurn()

        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Change Color")
        undoManager.undo()
        XCTAssertEqual(canvas.shapes, [Shape(kind: .rectangle, origin: .zero)])
        XCTAssertEqual(undoManager.undoMenuItemTitle, "Undo Add Shape")
    }
}

/// Lets the current run loop turn, as the app's event loop does between two events.
private func letTheRunLoopTurn() {
    RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.05))
}
