public import ActionStack

/// A rectangle on the board.
///
/// A figure owns its **own** undo stack for the changes that belong to it alone (colour and corner
/// radius), as each figure did in the classic NSUndoManager demo. Undoing on the board never
/// touches these, and undoing here never moves the figure.
@MainActor
public final class Figure {
    /// The number the user types to refer to the figure; never reused.
    public let id: Int
    /// Where the figure is. Changed by the board, which owns moves.
    public internal(set) var position: Point
    /// The figure's colour.
    public private(set) var color: FigureColor = .black
    /// The figure's corner radius.
    public private(set) var cornerRadius: Double = 0

    /// The figure's own history: colour and corner-radius changes.
    public let undoStack: ActionStack

    init(id: Int, position: Point) {
        self.id = id
        self.position = position
        undoStack = ActionStack()
        // This program has no turning run loop: the session ends each event itself.
        undoStack.automaticGroupClosing = .manual
    }

    /// Changes the colour, undoably ("Change Color").
    public func setColor(_ newColor: FigureColor) {
        // The one-line form: set the property through its key path and register the inverse,
        // which registers the redo in turn.
        undoStack.setValue(newColor, for: \.color, on: self, actionName: "Change Color")
    }

    /// Changes the corner radius, undoably ("Change Corner Radius").
    public func setCornerRadius(_ newRadius: Double) {
        undoStack.setValue(newRadius, for: \.cornerRadius, on: self, actionName: "Change Corner Radius")
    }
}
