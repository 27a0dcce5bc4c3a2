public import ActionStack

/// Why a board operation was refused. The board is unchanged when one is thrown.
public enum BoardError: Error, Equatable, CustomStringConvertible {
    /// No figure with this number is on the board.
    case noSuchFigure(Int)
    /// The position is outside the board.
    case offBoard(Point)

    /// A one-line explanation for the user.
    public var description: String {
        switch self {
        case .noSuchFigure(let id): "there is no figure #\(id) on the board"
        case .offBoard(let point):
            "\(point) is off the board (x 0...\(Board.width), y 0...\(Board.height))"
        }
    }
}

/// The board: an ordered set of figures, and the undo stack for adding, moving and removing them.
///
/// Every change follows the same pattern, the heart of target/action undo: remember the old
/// state, register a handler that restores it **by calling the same method**, then make the change.
/// Because the handler goes through the same method, undoing registers the redo automatically.
@MainActor
public final class Board {
    /// Board size in units; positions run from 0 to these, inclusive.
    nonisolated public static let width = 80.0
    /// Board size in units.
    nonisolated public static let height = 40.0

    /// The figures, bottom to top.
    public private(set) var figures: [Figure] = []

    /// The board's own history: add, move, remove.
    public let undoStack: ActionStack

    private var nextID = 1

    /// Creates an empty board.
    public init() {
        undoStack = ActionStack()
        undoStack.automaticGroupClosing = .manual
    }

    /// The figure with number `id`, if it is on the board.
    public func figure(_ id: Int) -> Figure? {
        figures.first { $0.id == id }
    }

    /// Whether `point` lies on the board.
    nonisolated public static func contains(_ point: Point) -> Bool {
        (0...width).contains(point.x) && (0...height).contains(point.y)
    }

    /// Adds a new figure at `point` ("Add Figure") and returns it.
    @discardableResult
    public func addFigure(at point: Point) throws(BoardError) -> Figure {
        guard Board.contains(point) else { throw .offBoard(point) }
        let figure = Figure(id: nextID, position: point)
        nextID += 1
        insert(figure, at: figures.count)
        undoStack.setActionName("Add Figure")
        return figure
    }

    /// Moves a figure. The step is named after the position that undo moves it back to:
    /// "Move to (10.0, 20.0)".
    public func move(_ id: Int, to point: Point) throws(BoardError) {
        guard let figure = figure(id) else { throw .noSuchFigure(id) }
        guard Board.contains(point) else { throw .offBoard(point) }
        move(figure, to: point)
    }

    /// Removes a figure ("Remove Figure"). Undo puts the same figure back, with its own history.
    public func removeFigure(_ id: Int) throws(BoardError) {
        guard let index = figures.firstIndex(where: { $0.id == id }) else { throw .noSuchFigure(id) }
        remove(at: index)
        undoStack.setActionName("Remove Figure")
    }

    // MARK: The undoable primitives

    private func move(_ figure: Figure, to point: Point) {
        let old = figure.position
        // The target is the board (held weakly by the stack); the figure is captured, so a figure
        // that is no longer on the board can still be moved back by an older step.
        undoStack.registerUndo(withTarget: self) { board in board.move(figure, to: old) }
        undoStack.setActionName("Move to \(old)")
        figure.position = point
    }

    private func insert(_ figure: Figure, at index: Int) {
        undoStack.registerUndo(withTarget: self) { board in
            board.remove(at: index)
            board.undoStack.setActionName("Add Figure")
        }
        figures.insert(figure, at: index)
    }

    private func remove(at index: Int) {
        let figure = figures[index]
        undoStack.registerUndo(withTarget: self) { board in
            board.insert(figure, at: index)
            board.undoStack.setActionName("Remove Figure")
        }
        figures.remove(at: index)
    }
}
