public import ActionStack

/// Which history the undo and redo commands act on.
public enum Context: String, Sendable {
    /// The board's stack: add, move, remove.
    case board
    /// The selected figure's stack: colour and corner radius.
    case figure
}

/// The board program without its terminal: it takes one command line at a time (one user event)
/// and answers with the lines to print. The executable and the tests both drive it.
@MainActor
public final class Session {
    /// The board being edited.
    public let board = Board()
    /// The selected figure's number, if any.
    public private(set) var selectedID: Int?
    /// Which history undo and redo act on.
    public private(set) var context: Context = .board
    /// The Undo and Redo buttons of the active context.
    public let buttons: UndoButtons
    /// One Edit menu over the board's stack and every figure's stack: undo and redo act on its
    /// active stack, which follows the chosen context.
    public let edit = ActionStackGroup()
    /// Set by `quit`.
    public private(set) var isFinished = false

    /// Creates a session on an empty board.
    public init() {
        buttons = UndoButtons(following: board.undoStack)
        edit.activeStack = board.undoStack
    }

    /// The selected figure, if it is (still) on the board.
    public var selectedFigure: Figure? { selectedID.flatMap(board.figure) }

    /// The stack of the active context, or nil when the figure context has no figure.
    public var activeStack: ActionStack? {
        switch context {
        case .board: board.undoStack
        case .figure: selectedFigure?.undoStack
        }
    }

    /// Handles one command line as one user event; returns what to print.
    public func handle(_ line: String) -> [String] {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let command = words.first?.lowercased() else { return [] }
        let arguments = Array(words.dropFirst())
        do {
            let message = try perform(command, arguments)
            endEvent()
            var output = message.map { [$0] } ?? []
            let listsOnly = command == "help" || command == "quit" || (command == "history" && arguments.isEmpty)
            if !listsOnly { output += render() }
            return output
        } catch {
            // Bad input changes nothing: each command checks everything before it acts.
            endEvent()
            return ["error: \(error)"]
        }
    }

    /// The end of a user event. This program has no turning run loop, so it closes each stack's
    /// automatic group itself: everything one command registered becomes one undo step.
    private func endEvent() {
        board.undoStack.endEvent()
        for figure in board.figures { figure.undoStack.endEvent() }
        // A figure removed (or un-added) by the last command leaves the selection.
        if selectedID != nil && selectedFigure == nil {
            selectedID = nil
            context = .board
        }
        let active = activeStack ?? board.undoStack
        edit.activeStack = active
        if buttons.stack !== active { buttons.follow(active) } else { buttons.refresh() }
    }

    private func perform(_ command: String, _ arguments: [String]) throws(CommandError) -> String? {
        switch command {
        case "add":
            let point = try point(arguments, from: 0, usage: "add X Y")
            let figure = try attempt { () throws(BoardError) in try board.addFigure(at: point) }
            selectedID = figure.id
            return "added figure #\(figure.id) at \(point)"
        case "move":
            try expectCount(arguments, 3, usage: "move N X Y")
            let id = try number(arguments[0], what: "figure number")
            let point = try self.point(arguments, from: 1, usage: "move N X Y")
            try attempt { () throws(BoardError) in try board.move(id, to: point) }
            return "moved figure #\(id) to \(point)"
        case "remove":
            try expectCount(arguments, 1, usage: "remove N")
            let id = try number(arguments[0], what: "figure number")
            try attempt { () throws(BoardError) in try board.removeFigure(id) }
            return "removed figure #\(id)"
        case "select":
            try expectCount(arguments, 1, usage: "select N")
            let id = try number(arguments[0], what: "figure number")
            guard board.figure(id) != nil else { throw .board(.noSuchFigure(id)) }
            selectedID = id
            return "selected figure #\(id)"
        case "color", "colour":
            try expectCount(arguments, 1, usage: "color NAME")
            guard let color = FigureColor(rawValue: arguments[0].lowercased()) else {
                let names = FigureColor.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalid("unknown colour '\(arguments[0])' (one of: \(names))")
            }
            try requireSelection().setColor(color)
            return nil
        case "radius":
            try expectCount(arguments, 1, usage: "radius R")
            let radius = try value(arguments[0], what: "radius")
            guard radius >= 0 else { throw .invalid("the radius must not be negative") }
            let figure = try requireSelection()
            try attempt { () throws(BoardError) in try figure.setCornerRadius(radius) }
            return nil
        case "undo", "redo":
            try expectCount(arguments, 0, usage: command)
            guard activeStack != nil else { throw .invalid("no figure is selected; use select N") }
            let possible = command == "undo" ? edit.canUndo : edit.canRedo
            guard possible else { throw .invalid("nothing to \(command) in the \(context.rawValue) context") }
            let title = command == "undo" ? edit.undoMenuItemTitle : edit.redoMenuItemTitle
            if command == "undo" { edit.undo() } else { edit.redo() }
            return title
        case "board":
            try expectCount(arguments, 0, usage: "board")
            context = .board
            return "undo and redo now act on the board"
        case "figure":
            try expectCount(arguments, 0, usage: "figure")
            let figure = try requireSelection()
            context = .figure
            return "undo and redo now act on figure #\(figure.id)"
        case "history":
            guard arguments.count <= 1 else { throw .invalid("usage: history [N]") }
            guard let position = arguments.first else { return history() }
            let stack = activeStack ?? board.undoStack
            let target = try number(position, what: "history position")
            let last = stack.undoCount + stack.redoCount
            guard (0...last).contains(target) else { throw .invalid("history positions run from 0 to \(last)") }
            stack.jump(to: target)
            return "jumped to position \(target)"
        case "help":
            return Session.help
        case "quit", "exit":
            isFinished = true
            return "bye"
        default:
            throw .invalid("unknown command '\(command)'; type help for the list")
        }
    }

    // MARK: Output

    /// The board picture, the selection and the buttons of the active context.
    public func render() -> [String] {
        var lines = BoardPicture.draw(board, selected: selectedID)
        if let figure = selectedFigure {
            lines.append(
                "selected: #\(figure.id) at \(figure.position), color \(figure.color.rawValue), "
                    + "corner radius \(figure.cornerRadius)"
            )
        } else {
            lines.append("selected: none")
        }
        let name = context == .figure ? "figure #\(selectedID ?? 0)" : "board"
        lines.append("\(name): \(buttons.rendered)")
        return lines
    }

    /// The active context's history, as a history panel: every step with its position, the
    /// current position marked, the saved (clean) point unused here.
    private func history() -> String {
        let stack = activeStack ?? board.undoStack
        let name = context == .figure ? "figure #\(selectedID ?? 0)" : "board"
        // Undo entries come newest first and redo entries next-first: lay them out oldest first.
        let steps = stack.undoEntries.reversed().map(\.actionName) + stack.redoEntries.map(\.actionName)
        let position = stack.historyPosition
        var lines = ["\(name) history (type history N to jump to position N):"]
        lines.append("\(position == 0 ? ">" : " ") 0  (start)")
        for (index, step) in steps.enumerated() {
            let number = index + 1
            let marker = number == position ? ">" : " "
            lines.append(
                "\(marker) \(number)  \(step.isEmpty ? "(unnamed)" : step)\(number > position ? "  (redo)" : "")")
        }
        return lines.joined(separator: "\n")
    }

    /// The list of commands.
    public static let help = """
        commands (each line is one undoable event):
          add X Y          add a figure at (X, Y) and select it    (board)
          move N X Y       move figure N to (X, Y)                 (board)
          remove N         remove figure N                         (board)
          select N         select figure N
          color NAME       recolour the selected figure            (figure)
          radius R         round the selected figure's corners     (figure)
          board | figure   choose what undo and redo act on
          undo | redo      undo or redo in the chosen context
          history [N]      list the steps, or jump to position N
          help | quit
        the board runs from (0, 0) at the top left to (\(Board.width), \(Board.height))
        """

    // MARK: Parsing

    private func requireSelection() throws(CommandError) -> Figure {
        guard let figure = selectedFigure else { throw .invalid("no figure is selected; use select N") }
        return figure
    }

    private func expectCount(_ arguments: [String], _ count: Int, usage: String) throws(CommandError) {
        guard arguments.count == count else { throw .invalid("usage: \(usage)") }
    }

    private func point(_ arguments: [String], from start: Int, usage: String) throws(CommandError) -> Point {
        guard arguments.count == start + 2 else { throw .invalid("usage: \(usage)") }
        return Point(x: try value(arguments[start], what: "x"), y: try value(arguments[start + 1], what: "y"))
    }

    private func value(_ text: String, what: String) throws(CommandError) -> Double {
        guard let value = Double(text), value.isFinite else {
            throw .invalid("\(what) must be a number, not '\(text)'")
        }
        return value
    }

    private func number(_ text: String, what: String) throws(CommandError) -> Int {
        guard let value = Int(text.hasPrefix("#") ? String(text.dropFirst()) : text) else {
            throw .invalid("\(what) must be a whole number, not '\(text)'")
        }
        return value
    }

    @discardableResult
    private func attempt<T>(_ body: () throws(BoardError) -> T) throws(CommandError) -> T {
        do { return try body() } catch { throw .board(error) }
    }
}

/// Why a command was refused.
enum CommandError: Error, CustomStringConvertible {
    case invalid(String)
    case board(BoardError)

    var description: String {
        switch self {
        case .invalid(let message): message
        case .board(let error): error.description
        }
    }
}
