// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStack
public import Foundation

// The board's and the figures' undo steps, as commands: values that say what to do, instead of
// closures that do it. A closure cannot be written to a file; a command can, so a history made of
// commands can be saved with the board and brought back when the board is opened again
// (`BoardFile`).
//
// Each command performs itself the way the closure it replaces did: it calls the same undoable
// primitive, which registers the inverse command, so undo registers the redo as before, with the
// same names. A command refers to objects by what survives a relaunch: its target by a key (the
// board is "board", a figure its UUID), and the figure a board command concerns by the figure's
// UUID.
//
// The board and the figures belong to the main actor, and a command's `perform` is not isolated
// (a command is a plain value that any code may hold). A stack runs its actions synchronously on
// the thread that calls undo or redo, which here is always the main actor's, so each `perform`
// states that with `MainActor.assumeIsolated` (checked at run time) and calls into the model.

/// Moves a figure on the board to `position`: the undo (or redo) of a move or a nudge.
public struct MoveFigure: UndoCommand {
    /// The command\'s name in saved histories; never changed once files exist.
    public static let commandType = "board.move"
    /// The figure's UUID.
    public var figure: UUID
    /// Where it goes.
    public var position: Point

    /// The command that moves `figure` to `position`.
    public init(figure: UUID, position: Point) {
        self.figure = figure
        self.position = position
    }

    /// Performs the change on the board, which registers the inverse command.
    public func perform(on board: Board, in stack: ActionStack) {
        MainActor.assumeIsolated { board.perform(self) }
    }
}

/// Puts a figure on the board at `index` in the order: the undo of a removal, the redo of an
/// addition.
///
/// The figure is off the board while this command waits in the history, so the command holds it,
/// as the closure it replaces captured it: the figure, with its own history, lives as long as a
/// step that can bring it back. Only its UUID is saved; `BoardFile` hands the reopened figure to
/// the command read back from a file (`holding(_:)`).
public struct InsertFigure: UndoCommand {
    /// The command\'s name in saved histories; never changed once files exist.
    public static let commandType = "board.insert"
    /// The figure's UUID.
    public var figure: UUID
    /// Its place in the order, bottom first.
    public var index: Int
    /// The figure itself, while it is off the board (not saved).
    var object: Figure?

    private enum CodingKeys: String, CodingKey {
        case figure
        case index
    }

    /// The command that puts `figure` back at `index`.
    init(_ figure: Figure, at index: Int) {
        self.figure = figure.uuid
        self.index = index
        self.object = figure
    }

    /// The command holding `figure`, the reopened figure with this command's UUID.
    func holding(_ figure: Figure) -> InsertFigure {
        var command = self
        command.object = figure
        return command
    }

    /// Performs the change on the board, which registers the inverse command.
    public func perform(on board: Board, in stack: ActionStack) {
        MainActor.assumeIsolated { board.perform(self) }
    }
}

/// Takes the figure at `index` in the order off the board: the undo of an addition, the redo of a
/// removal.
public struct RemoveFigure: UndoCommand {
    /// The command\'s name in saved histories; never changed once files exist.
    public static let commandType = "board.remove"
    /// The UUID of the figure at `index`: the step names the figure it takes away, so that a file
    /// whose board does not have that figure cuts the history here instead of removing another.
    public var figure: UUID
    /// Its place in the order, bottom first.
    public var index: Int

    /// The command that takes `figure`, at `index`, off the board.
    public init(figure: UUID, index: Int) {
        self.figure = figure
        self.index = index
    }

    /// Performs the change on the board, which registers the inverse command.
    public func perform(on board: Board, in stack: ActionStack) {
        MainActor.assumeIsolated { board.perform(self) }
    }
}

/// Gives a figure a colour: the undo (or redo) of "Change Color", on the figure's own stack.
public struct SetColor: UndoCommand {
    /// The command\'s name in saved histories; never changed once files exist.
    public static let commandType = "figure.color"
    /// The colour.
    public var color: FigureColor

    /// The command that gives a figure `color`.
    public init(color: FigureColor) { self.color = color }

    /// Performs the change on the figure, which registers the inverse command.
    public func perform(on figure: Figure, in stack: ActionStack) {
        MainActor.assumeIsolated { figure.change(color: color) }
    }
}

/// Gives a figure a corner radius: the undo (or redo) of "Change Corner Radius", on the figure's
/// own stack.
public struct SetCornerRadius: UndoCommand {
    /// The command\'s name in saved histories; never changed once files exist.
    public static let commandType = "figure.radius"
    /// The radius, 0 to `Figure.maximumCornerRadius`.
    public var radius: Double

    /// The command that gives a figure `radius`.
    public init(radius: Double) { self.radius = radius }

    /// Performs the change on the figure, which registers the inverse command.
    public func perform(on figure: Figure, in stack: ActionStack) {
        MainActor.assumeIsolated { figure.change(cornerRadius: radius) }
    }
}
