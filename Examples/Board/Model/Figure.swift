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

/// A rectangle on the board, `Figure.width` by `Figure.height` units, centred on its position.
///
/// A figure owns its **own** undo stack for the changes that belong to it alone (colour and corner
/// radius), as each figure did in the classic NSUndoManager demo. Undoing on the board never
/// touches these, and undoing here never moves the figure.
@MainActor
public final class Figure {
    /// A figure's width in board units.
    nonisolated public static let width = 10.0
    /// A figure's height in board units.
    nonisolated public static let height = 8.0
    /// The largest corner radius: half the shorter side, where the two roundings of a side meet.
    nonisolated public static let maximumCornerRadius = min(width, height) / 2

    /// The number the user types to refer to the figure; never reused.
    public let id: Int
    /// The figure's stable identity: how the commands of saved histories name it, and the key of
    /// its own history's commands (see `historyKey`). Numbers are for people; a UUID stays unique
    /// across files and relaunches.
    public let uuid: UUID
    /// Where the figure's centre is. Changed by the board, which owns moves.
    public internal(set) var position: Point
    /// The figure's colour.
    public private(set) var color: FigureColor = .black
    /// The figure's corner radius, 0 (square corners) to `maximumCornerRadius`.
    public private(set) var cornerRadius: Double = 0

    /// The figure's own history: colour and corner-radius changes.
    public let undoStack: ActionStack

    init(
        id: Int, uuid: UUID = UUID(), position: Point, color: FigureColor = .black, cornerRadius: Double = 0
    ) {
        self.id = id
        self.uuid = uuid
        self.position = position
        self.color = color
        self.cornerRadius = cornerRadius
        undoStack = ActionStack()
        // This program has no turning run loop: the session ends each event itself.
        undoStack.automaticGroupClosing = .manual
        // The figure's history stays linear (`historyShape` keeps its default, Foundation's
        // behaviour), on purpose: it holds a few colour and radius changes, each one command to
        // make again, so a branch would keep little worth keeping. The board's history, which
        // holds the layout and the removed figures with their own histories, is the one that
        // branches. The shape is chosen per stack; the session's tree commands say so when asked
        // about a figure.
    }

    /// The key of the figure in its own history's commands: its UUID, as text.
    public var historyKey: String { uuid.uuidString }

    /// Whether the figure is as it was at the last save.
    public var isSaved: Bool { undoStack.isClean }

    /// Changes the colour, undoably ("Change Color"). Returns false, registering nothing, when the
    /// figure already has that colour: a step that changes nothing would be a do-nothing undo.
    @discardableResult
    public func setColor(_ newColor: FigureColor) -> Bool {
        guard newColor != color else { return false }
        change(color: newColor)
        return true
    }

    /// Changes the corner radius, undoably ("Change Corner Radius"), kept within
    /// 0...`maximumCornerRadius`: a larger radius would draw the same as the largest, since the
    /// roundings of the shorter sides already meet. (The session refuses such input instead.)
    /// Returns false, registering nothing, when that leaves the radius as it is.
    @discardableResult
    public func setCornerRadius(_ newRadius: Double) -> Bool {
        guard !newRadius.isNaN else { return false }
        let radius = min(max(newRadius, 0), Figure.maximumCornerRadius)
        guard radius != cornerRadius else { return false }
        change(cornerRadius: radius)
        return true
    }

    // MARK: The undoable primitives

    // Each registers the command that sets the old value back, which registers the redo in turn
    // when it runs (see Commands.swift). The name is the same both ways, so it is set each time.

    func change(color newColor: FigureColor) {
        undoStack.registerUndo(SetColor(color: color), on: self, key: historyKey)
        undoStack.setActionName("Change Color")
        color = newColor
    }

    func change(cornerRadius newRadius: Double) {
        undoStack.registerUndo(SetCornerRadius(radius: cornerRadius), on: self, key: historyKey)
        undoStack.setActionName("Change Corner Radius")
        cornerRadius = newRadius
    }

    /// Applies a colour or corner radius that another board gave the figure (a shared board; the
    /// board calls this from its `receive(_:version:)`). The figure's stack hears it as a remote
    /// change: nothing is registered, and this user's steps move past it (a colour step dies when
    /// a peer recoloured the figure since: undo leaves the peer's colour). Returns false, changing
    /// nothing, for any other change, or a radius out of range.
    @discardableResult
    func receive(_ change: BoardChange, version: String) -> Bool {
        switch change {
        case .color(_, let newColor):
            undoStack.applyRemoteChange(change, version: version) { color = newColor }
        case .radius(_, let newRadius):
            guard (0...Figure.maximumCornerRadius).contains(newRadius) else { return false }
            undoStack.applyRemoteChange(change, version: version) { cornerRadius = newRadius }
        case .insert, .remove, .move:
            return false
        }
        return true
    }

    /// Called by the board's save: the figure as it is now is the saved figure.
    func markSaved() {
        undoStack.markClean()
    }
}
