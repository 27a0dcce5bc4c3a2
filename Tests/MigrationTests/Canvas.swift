// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The MigrationTests target is code written for Foundation's UndoManager, as an Apple developer
// writes it, ported to ActionStack with only the two lines below: `import ActionStack` and the
// typealias. Nothing else in the target may name ActionStack or use its own API.

import ActionStack
import Foundation

typealias UndoManager = ActionStack

/// A shape on the canvas of a small drawing app.
struct Shape: Equatable, Sendable {
    enum Kind: String, Sendable {
        case rectangle
        case oval
        case triangle
    }

    var kind: Kind
    var origin: CGPoint
    var color = "black"
}

/// The model of a drawing: an ordered list of shapes, changed only through undoable methods.
///
/// Every mutating method registers its inverse with the canvas's undo manager, so each user action
/// can be undone and redone, and names the step for the Edit menu.
@MainActor
final class Canvas {
    var title = "Untitled"
    private(set) var shapes: [Shape] = []

    /// The shape that the last undo or redo changed, for the view to scroll to and flash.
    private(set) var revealedIndex: Int?

    /// The shape the user selected. Selecting is undoable, but does not edit the drawing.
    private(set) var selectedIndex: Int?

    var undoManager: UndoManager?

    init(undoManager: UndoManager? = nil) {
        self.undoManager = undoManager
    }

    // MARK: Adding and deleting

    func addShape(_ shape: Shape) {
        insertShape(shape, at: shapes.count)
    }

    func insertShape(_ shape: Shape, at index: Int) {
        shapes.insert(shape, at: index)
        if let undoManager {
            undoManager.registerUndo(withTarget: self) { canvas in
                canvas.removeShape(at: index)
            }
            // While undoing a deletion this builds the redo step, which deletes again.
            undoManager.setActionName(undoManager.isUndoing ? "Delete Shape" : "Add Shape")
        }
        revealIfUndoingOrRedoing(index)
    }

    @discardableResult
    func removeShape(at index: Int) -> Shape {
        let shape = shapes.remove(at: index)
        if let undoManager {
            undoManager.registerUndo(withTarget: self) { canvas in
                canvas.insertShape(shape, at: index)
            }
            undoManager.setActionName(undoManager.isUndoing ? "Add Shape" : "Delete Shape")
        }
        revealIfUndoingOrRedoing(min(index, shapes.count - 1))
        return shape
    }

    // MARK: Editing

    func moveShape(at index: Int, to origin: CGPoint) {
        let oldOrigin = shapes[index].origin
        guard origin != oldOrigin else { return }
        undoManager?.registerUndo(withTarget: self) { canvas in
            canvas.moveShape(at: index, to: oldOrigin)
        }
        undoManager?.setActionName("Move")
        shapes[index].origin = origin
        revealIfUndoingOrRedoing(index)
    }

    func setColor(_ color: String, ofShapeAt index: Int) {
        let oldColor = shapes[index].color
        guard color != oldColor else { return }
        undoManager?.registerUndo(withTarget: self) { canvas in
            canvas.setColor(oldColor, ofShapeAt: index)
        }
        undoManager?.setActionName("Change Color")
        shapes[index].color = color
        revealIfUndoingOrRedoing(index)
    }

    /// Moves several shapes by the same offset, as one step named "Nudge" (its inverse is a nudge
    /// back, so the redo step is a "Nudge" too).
    func nudgeShapes(at indexes: [Int], byX dx: CGFloat, y dy: CGFloat) {
        undoManager?.registerUndo(withTarget: self) { canvas in
            canvas.nudgeShapes(at: indexes, byX: -dx, y: -dy)
        }
        undoManager?.setActionName("Nudge")
        for index in indexes {
            shapes[index].origin.x += dx
            shapes[index].origin.y += dy
        }
    }

    func select(_ index: Int?) {
        let oldSelection = selectedIndex
        undoManager?.registerUndo(withTarget: self) { canvas in
            canvas.select(oldSelection)
        }
        undoManager?.setActionName("Selection")
        // Only the view changes: a document is not edited by a selection.
        undoManager?.setActionIsDiscardable(true)
        selectedIndex = index
    }

    private func revealIfUndoingOrRedoing(_ index: Int) {
        guard let undoManager, undoManager.isUndoing || undoManager.isRedoing else { return }
        revealedIndex = index
    }
}

/// Counts a document's unsaved changes from its undo manager's notifications, the way
/// `NSDocument` does: each closed top-level group is a change, undo takes one back, redo makes it
/// again, and discardable groups (selection changes) are not changes.
@MainActor
final class ChangeCounter {
    let undoManager: UndoManager
    private(set) var changeCount = 0
    private var observers: [any NSObjectProtocol] = []

    var isDocumentEdited: Bool { changeCount != 0 }

    init(undoManager: UndoManager) {
        self.undoManager = undoManager
        let center = NotificationCenter.default
        observers.append(
            center.addObserver(forName: .NSUndoManagerDidCloseUndoGroup, object: undoManager, queue: nil) {
                [weak self] notification in
                let isDiscardable = notification.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool ?? false
                MainActor.assumeIsolated {
                    self?.undoGroupDidClose(isDiscardable: isDiscardable)
                }
            }
        )
        observers.append(
            center.addObserver(forName: .NSUndoManagerDidUndoChange, object: undoManager, queue: nil) {
                [weak self] notification in
                let isDiscardable = notification.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool ?? false
                MainActor.assumeIsolated {
                    if !isDiscardable { self?.changeCount -= 1 }
                }
            }
        )
        observers.append(
            center.addObserver(forName: .NSUndoManagerDidRedoChange, object: undoManager, queue: nil) {
                [weak self] notification in
                let isDiscardable = notification.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool ?? false
                MainActor.assumeIsolated {
                    if !isDiscardable { self?.changeCount += 1 }
                }
            }
        )
    }

    /// The document was saved.
    func documentSaved() {
        changeCount = 0
    }

    func stopObserving() {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
        observers.removeAll()
    }

    private func undoGroupDidClose(isDiscardable: Bool) {
        // Nested groups are part of the top-level one; the steps that undo and redo build are
        // counted by their own notifications.
        guard undoManager.groupingLevel == 0, !undoManager.isUndoing, !undoManager.isRedoing else { return }
        if !isDiscardable { changeCount += 1 }
    }
}
