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
//
// A shared board (`SharedBoard`, `swift run board --shared FILE`) also receives changes that other
// boards made (`BoardChange`), and every command here is a `RebasableCommand` over them: it says
// how it reads after a peer's change (`rebased(over:)`: the same, rewritten, or nil when nothing is
// left for it to do) and how a peer's change reads once it has run (`transform(_:)`, for the steps
// below it). A figure is found by its UUID, so no peer's change moves a command that names one;
// what a peer's change can do is make a step pointless, and a step with nothing left to do is
// skipped by undo, redo and the titles (the stack drops it when it finds it):
//
// - A peer wrote the same field of the same figure after this user's step (moved it, recoloured
//   it): the step would revert the peer's change, so nothing is left for it to do. Undo never
//   reverts a peer's change, and neither does redo.
// - A peer removed the figure: the steps that move it go with it.
//
// Only the order of the figures is positional (`InsertFigure` and `RemoveFigure` hold an index):
// there `SequenceEdit`, the library's list edit, moves the index past what a peer inserted or
// removed below it, and at a tie puts this user's figure first.
//
// A board that is not shared never hears of a remote change, and these methods are never called.

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

// MARK: Moving past a peer's changes (a shared board)

extension MoveFigure: RebasableCommand {
    /// Nil when the peer moved or removed this figure, or put it on the board anew: moving it back
    /// would revert the peer's move, and a removed figure takes its moves with it. Any other
    /// change leaves the command as it is (figures are found by UUID).
    public func rebased(over change: BoardChange) -> MoveFigure? {
        switch change {
        case .move(let moved, _), .remove(let moved, _): moved == figure ? nil : self
        case .insert(let record, _): record.uuid == figure ? nil : self
        case .color, .radius: self
        }
    }

    /// A move changes nothing a peer's change depends on: the change reads the same.
    public func transform(_ change: BoardChange) -> BoardChange? { change }
}

extension InsertFigure: RebasableCommand {
    /// The figure goes back at its index moved past what the peer inserted or removed below it
    /// (and before a figure the peer inserted at the same place). Nil when a peer put this very
    /// figure on the board: it is there already, and the peer's figure is left alone.
    public func rebased(over change: BoardChange) -> InsertFigure? {
        guard change.figure != figure else { return nil }
        guard let peer = change.orderEdit else { return self }
        guard let offset = SequenceEdit.insert([figure], at: index).rebased(over: peer)?.pieces.first?.offset else {
            return nil
        }
        var command = self
        command.index = offset
        return command
    }

    /// The peer's change once this figure is back: an index at or above it moves up by one.
    public func transform(_ change: BoardChange) -> BoardChange? {
        guard let peer = change.orderEdit else { return change }
        return change.reindexed(SequenceEdit.insert([figure], at: index).transform(peer))
    }
}

extension RemoveFigure: RebasableCommand {
    /// The figure is taken off at its index moved past what the peer inserted or removed below
    /// it. Nil when the peer removed it first: nothing is left to take off.
    public func rebased(over change: BoardChange) -> RemoveFigure? {
        guard let peer = change.orderEdit else { return self }
        if case .insert(let record, _) = change, record.uuid == figure { return nil }
        guard let offset = SequenceEdit.delete([figure], at: index).rebased(over: peer)?.pieces.first?.offset else {
            return nil
        }
        var command = self
        command.index = offset
        return command
    }

    /// The peer's change once this figure is off the board: indices above it move down by one,
    /// and a change to the figure itself has nothing left to change (the steps below this one are
    /// from before the figure was on the board).
    public func transform(_ change: BoardChange) -> BoardChange? {
        guard let peer = change.orderEdit else { return change.figure == figure ? nil : change }
        return change.reindexed(SequenceEdit.delete([figure], at: index).transform(peer))
    }
}

// A figure's own stack hears only the changes to that figure (`Figure.receive(_:version:)`), so
// its commands need not check which figure a change is about.

extension SetColor: RebasableCommand {
    /// Nil when the peer recoloured the figure: this user's undo leaves the peer's colour.
    public func rebased(over change: BoardChange) -> SetColor? {
        if case .color = change { return nil }
        return self
    }

    /// A colour changes nothing a peer's change depends on.
    public func transform(_ change: BoardChange) -> BoardChange? { change }
}

extension SetCornerRadius: RebasableCommand {
    /// Nil when the peer changed the figure's corner radius: this user's undo leaves the peer's.
    public func rebased(over change: BoardChange) -> SetCornerRadius? {
        if case .radius = change { return nil }
        return self
    }

    /// A radius changes nothing a peer's change depends on.
    public func transform(_ change: BoardChange) -> BoardChange? { change }
}
