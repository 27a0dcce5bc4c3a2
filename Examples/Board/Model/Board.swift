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
/// state, register a handler that restores it **by calling the same kind of method**, then make
/// the change. Because the handler goes through an undoable method, undoing registers the redo
/// automatically.
///
/// **Names.** A step's name travels with it: undo moves the step (name included) to the redo
/// stack, redo moves it back. Inside an undo handler, `setActionName` names the *redo* step being
/// built, so a method that names its step must not do it while undoing or redoing, or an undone
/// "Add Figure" would come back as "Remove Figure". Each primitive below names its step only when
/// the user acts (`isUndoing` and `isRedoing` both false), the pattern of Foundation's
/// documentation.
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
        return figure
    }

    /// Moves a figure ("Move to (x, y)", named after the place it goes to).
    public func move(_ id: Int, to point: Point) throws(BoardError) {
        guard let figure = figure(id) else { throw .noSuchFigure(id) }
        guard Board.contains(point) else { throw .offBoard(point) }
        move(figure, to: point)
    }

    /// Removes a figure ("Remove Figure"). Undo puts the same figure back, with its own history.
    public func removeFigure(_ id: Int) throws(BoardError) {
        guard let index = figures.firstIndex(where: { $0.id == id }) else { throw .noSuchFigure(id) }
        remove(at: index)
    }

    /// The name of a step that moves a figure to `point`: "Move to (30.0, 5.0)". Both buttons
    /// read it the right way round: "Undo Move to (30.0, 5.0)" takes the figure away from there,
    /// "Redo Move to (30.0, 5.0)" takes it there.
    nonisolated public static func moveName(to point: Point) -> String { "Move to \(point)" }

    // MARK: The undoable primitives

    private func move(_ figure: Figure, to point: Point) {
        let old = figure.position
        // The target is the board (held weakly by the stack); the figure is captured, so a figure
        // that is no longer on the board can still be moved back by an older step.
        undoStack.registerUndo(withTarget: self) { board in board.move(figure, to: old) }
        // Named where the user moves. While undoing, this call builds the redo step, which
        // already carries the name "Move to <point the user chose>"; renaming it "Move to <old>"
        // would make the Redo button lie.
        if !undoStack.isUndoing && !undoStack.isRedoing { undoStack.setActionName(Board.moveName(to: point)) }
        figure.position = point
    }

    private func insert(_ figure: Figure, at index: Int) {
        undoStack.registerUndo(withTarget: self) { board in board.remove(at: index) }
        // "Add Figure" only when the user adds. `insert` also runs as the undo of a removal, and
        // that undo must leave the step named "Remove Figure" for the Redo button.
        if !undoStack.isUndoing && !undoStack.isRedoing { undoStack.setActionName("Add Figure") }
        figures.insert(figure, at: index)
    }

    private func remove(at index: Int) {
        let figure = figures[index]
        undoStack.registerUndo(withTarget: self) { board in board.insert(figure, at: index) }
        // "Remove Figure" only when the user removes; `remove` also runs as the undo of an add.
        if !undoStack.isUndoing && !undoStack.isRedoing { undoStack.setActionName("Remove Figure") }
        figures.remove(at: index)
    }
}
