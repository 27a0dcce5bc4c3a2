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

/// Which history the undo and redo commands act on.
public enum Context: String, Sendable {
    /// The board's stack: add, move, nudge, remove.
    case board
    /// The selected figure's stack: colour and corner radius.
    case figure
}

/// The board program without its terminal: it takes one command line at a time (one user event)
/// and answers with the lines to print. The executable and the tests both drive it.
///
/// A refused line (bad input, no such figure, nothing to undo) answers with one `error:` line and
/// changes nothing: every command checks all of its input before it acts.
@MainActor
public final class Session {
    /// The board being edited.
    public let board: Board
    /// The file that `save` without a name writes: the file the board came from, or the one it
    /// was last saved to (nil: `save` only marks the board saved).
    public private(set) var file: URL?
    /// The selected figure's number, if any.
    public private(set) var selectedID: Int?
    /// Which history undo and redo act on.
    public private(set) var context: Context = .board
    /// The Undo and Redo buttons of the active context.
    public let buttons: UndoButtons
    /// One Edit menu over the board's stack and the stacks of the figures on the board: undo and
    /// redo act on its active stack, which follows the chosen context.
    public let edit = ActionStackGroup()
    /// Set by `quit`.
    public private(set) var isFinished = false
    /// Keeps the changes made since the last save safe from a crash, when the session was opened
    /// with `autosave` (`board --autosave FILE`); nil otherwise.
    public private(set) var autosave: BoardAutosave?
    /// Whether the last command was a `quit` refused for unsaved changes: a `quit` right after it
    /// quits anyway.
    private var quitWasRefused = false
    /// Whether the picture draws figures in their colours (ANSI escape sequences). The executable
    /// turns it on when standard output is a terminal and `NO_COLOR` is not set.
    public var usesColor: Bool

    /// The longest piece of the user's input that an error message quotes.
    public static let longestQuote = 40

    /// The answer to a line longer than `LineBuffer.maximumLength` bytes, which is not read.
    public static let lineTooLong = "error: line too long (over \(LineBuffer.maximumLength) bytes); it was ignored"

    /// Creates a session on an empty board.
    public convenience init(usesColor: Bool = false) {
        self.init(board: Board(), file: nil, usesColor: usesColor)
    }

    /// Creates a session on `board`, which `save` without a name writes to `file`.
    public convenience init(board: Board, file: URL?, usesColor: Bool = false) {
        self.init(board: board, file: file, usesColor: usesColor, isShared: false)
    }

    /// Whether the board is shared (`SharedBoard`): every change is written to the shared
    /// database as it is made, so the status line shows no `* unsaved`, `quit` quits at once, and
    /// `save` is refused.
    public let isShared: Bool

    /// Creates a session on `board`; `isShared` for a `SharedBoard`'s session.
    init(board: Board, file: URL?, usesColor: Bool, isShared: Bool) {
        self.board = board
        self.file = file
        self.usesColor = usesColor
        self.isShared = isShared
        buttons = UndoButtons(following: board.undoStack)
        edit.activeStack = board.undoStack
        updateEditMenu()
    }

    /// A session on the board saved in `url`, with its history (`BoardFile`), or on a new board
    /// that `save` will write there when there is no such file; and the lines that tell the user
    /// what was opened, and what of the history was left out and why.
    ///
    /// - Throws: `HistoryFileError` when the file cannot be read, `BoardFileError` when it does
    ///   not hold a board.
    ///
    /// With `autosave` (`board --autosave FILE`), the session keeps its changes safe from a crash
    /// in FILE.autosave and FILE.journal (`BoardAutosave`), and opens from them instead of FILE
    /// when an earlier session left them (it ended without `quit`): the board as it was after its
    /// last command, with its histories. Without it, a note says when they are there.
    ///
    /// - Throws: `HistoryFileError` when the file cannot be read, `BoardFileError` when it does
    ///   not hold a board, `BoardAutosaveError` when the autosave cannot be read or written.
    public static func opening(
        _ url: URL, autosave: Bool = false, usesColor: Bool = false
    ) throws -> (session: Session, notes: [String]) {
        let name = quotedPath(url)
        let opened: (session: Session, notes: [String])
        // Taken before the files are read: they may be another running board's.
        let lock = autosave ? try BoardAutosave.Lock(for: url) : nil
        var recoveredHistory = false
        // A journal without its document (removed by hand) has no board for its histories: it
        // starts over, as at any start without a recovery, and a note says so.
        var strayJournal = autosave && FileManager.default.fileExists(atPath: BoardAutosave.journalURL(for: url).path)
        if autosave, let recovered = try BoardAutosave.recover(file: url) {
            recoveredHistory = recovered.historyRestored
            strayJournal = false
            let autosaved = quotedPath(BoardAutosave.documentURL(for: url))
            opened = (
                Session(board: recovered.board, file: url, usesColor: usesColor),
                [
                    "recovered the board from \(autosaved): as it was after the last command"
                        + (recovered.historyRestored ? ", with its history" : "")
                ]
                    + recovered.notes
            )
        } else if let data = try HistoryFileStore(url: url).read() {
            let file = try BoardFile.open(data)
            let summary = "opened \(name)" + (file.historyRestored ? " with its history" : "")
            opened = (
                Session(board: file.board, file: url, usesColor: usesColor),
                [summary] + file.notes.map { "note: \($0)" }
            )
        } else {
            opened = (
                Session(board: Board(), file: url, usesColor: usesColor), ["\(name) is a new file: save writes it"]
            )
        }
        guard autosave else {
            guard BoardAutosave.exists(for: url) else { return opened }
            return (
                opened.session,
                opened.notes + [
                    "note: \(quotedPath(BoardAutosave.documentURL(for: url))) holds changes made after the last save "
                        + "(a session with --autosave ended without quit); board --autosave \(name) opens them"
                ]
            )
        }
        opened.session.autosave = try BoardAutosave(
            file: url, board: opened.session.board, lock: lock, keepsJournal: recoveredHistory)
        return (
            opened.session,
            opened.notes
                + (strayJournal
                    ? [
                        "note: \(quotedPath(BoardAutosave.journalURL(for: url))) was left without "
                            + "\(quotedPath(BoardAutosave.documentURL(for: url))), the board its histories go with: "
                            + "it starts over"
                    ] : []) + [
                    "autosave: every change is kept in \(quotedPath(BoardAutosave.documentURL(for: url))) and \(quotedPath(BoardAutosave.journalURL(for: url))) until quit"
                ]
        )
    }

    /// A file's path as messages show it: as given, made printable, in quotes.
    private static func quotedPath(_ url: URL) -> String { "'\(printable(url.relativePath))'" }

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
        guard let command = words.first else { return [] }
        let arguments = Array(words.dropFirst())
        // Only a `quit` right after the warning quits with unsaved changes.
        let quitIsConfirmed = quitWasRefused
        quitWasRefused = false
        do {
            let reply = try perform(command, arguments, quitIsConfirmed: quitIsConfirmed)
            endEvent()
            return [reply.message] + (reply.showsBoard ? render() : []) + autosaved()
        } catch {
            // Nothing was changed (every command checks its input first), but end the event
            // anyway: it is the end of a user event, whatever happened in it.
            endEvent()
            return ["error: \(error)"] + autosaved()
        }
    }

    /// After a command: the autosave records the board as the command left it, or, after `quit`,
    /// removes its files. Returns its warning, if it failed.
    private func autosaved() -> [String] {
        guard let autosave else { return [] }
        if isFinished {
            autosave.discard()
            self.autosave = nil
            return []
        }
        return autosave.commandEnded().map { [$0] } ?? []
    }

    /// The end of a user event. This program has no turning run loop, so it closes each stack's
    /// automatic group itself: everything one command registered becomes one undo step.
    private func endEvent() {
        board.undoStack.endEvent()
        for figure in board.figures { figure.undoStack.endEvent() }
        boardChanged()
    }

    /// After the board changed, by a command or by another board (`SharedBoard`): a figure that
    /// left the board leaves the selection, and the Edit menu and the buttons are brought up to
    /// date. The buttons re-read the stacks: a peer's change can leave the next step with nothing
    /// to do, and the titles then name the step that the next press will undo.
    func boardChanged() {
        if selectedID != nil && selectedFigure == nil {
            selectedID = nil
            context = .board
        }
        updateEditMenu()
    }

    /// Makes the Edit menu cover the stacks of the figures on the board, and act on the active
    /// context's stack.
    private func updateEditMenu() {
        // The Edit menu covers the stacks of the figures on the board, and no others. Compared by
        // identity through sets, so that this takes time linear in the figures, not quadratic
        // (`add` and `remove` each search the group's stacks).
        let onBoard = Set(board.figures.map { ObjectIdentifier($0.undoStack) })
        for stack in edit.stacks where stack !== board.undoStack && !onBoard.contains(ObjectIdentifier(stack)) {
            edit.remove(stack)
        }
        let inMenu = Set(edit.stacks.map(ObjectIdentifier.init))
        for figure in board.figures where !inMenu.contains(ObjectIdentifier(figure.undoStack)) {
            edit.add(figure.undoStack)
        }
        let active = activeStack ?? board.undoStack
        edit.activeStack = active
        if buttons.stack !== active { buttons.follow(active) } else { buttons.refresh() }
    }

    /// What a command answers: a message, and whether the board follows it.
    private struct Reply {
        var message: String
        var showsBoard = true
    }

    /// Performs `typed`, a command in any case ("add", "ADD").
    private func perform(
        _ typed: String, _ arguments: [String], quitIsConfirmed: Bool
    ) throws(CommandError) -> Reply {
        let command = typed.lowercased()
        switch command {
        case "add":
            let point = try point(arguments, from: 0, usage: "add X Y")
            let figure = try attempt { () throws(BoardError) in try board.addFigure(at: point) }
            selectedID = figure.id
            return Reply(message: "added figure #\(figure.id) at \(point)")
        case "move":
            try expectCount(arguments, 3, usage: "move N X Y")
            let id = try number(arguments[0], what: "figure number")
            let point = try self.point(arguments, from: 1, usage: "move N X Y")
            let moved = try attempt { () throws(BoardError) in try board.move(id, to: point) }
            return Reply(message: moved ? "moved figure #\(id) to \(point)" : "figure #\(id) is already at \(point)")
        case "nudge":
            try expectCount(arguments, 3, usage: "nudge N DX DY")
            let id = try number(arguments[0], what: "figure number")
            let dx = try decimal(arguments[1], what: "dx")
            let dy = try decimal(arguments[2], what: "dy")
            let moved = try attempt { () throws(BoardError) in try board.nudge(id, by: dx, dy) }
            let position = board.figure(id)?.position ?? Point(x: 0, y: 0)
            return Reply(message: moved ? "nudged figure #\(id) to \(position)" : "figure #\(id) stays at \(position)")
        case "remove":
            try expectCount(arguments, 1, usage: "remove N")
            let id = try number(arguments[0], what: "figure number")
            try attempt { () throws(BoardError) in try board.removeFigure(id) }
            return Reply(message: "removed figure #\(id)")
        case "select":
            try expectCount(arguments, 1, usage: "select N")
            let id = try number(arguments[0], what: "figure number")
            guard board.figure(id) != nil else { throw .board(.noSuchFigure(id)) }
            selectedID = id
            return Reply(message: "selected figure #\(id)")
        case "color", "colour":
            try expectCount(arguments, 1, usage: "color NAME")
            guard let color = FigureColor(rawValue: arguments[0].lowercased()) else {
                throw .invalid("unknown colour \(Session.quote(arguments[0])) (one of: \(FigureColor.names))")
            }
            let figure = try requireSelection()
            let changed = figure.setColor(color)
            return Reply(message: "figure #\(figure.id) \(changed ? "is now" : "is already") \(color.rawValue)")
        case "radius":
            try expectCount(arguments, 1, usage: "radius R")
            let radius = try decimal(arguments[0], what: "radius")
            let figure = try requireSelection()
            guard (0...Figure.maximumCornerRadius).contains(radius) else { throw .board(.radiusOutOfRange(radius)) }
            let changed = figure.setCornerRadius(radius)
            return Reply(
                message: "figure #\(figure.id) \(changed ? "now has" : "already has") corner radius \(radius)")
        case "undo", "redo":
            try expectNoArguments(command, arguments)
            guard activeStack != nil else { throw .invalid("no figure is selected; use select N") }
            let possible = command == "undo" ? edit.canUndo : edit.canRedo
            guard possible else { throw .invalid("nothing to \(command) in the \(context.rawValue) context") }
            // The title is read before pressing: it says what the press does.
            let title = command == "undo" ? edit.undoMenuItemTitle : edit.redoMenuItemTitle
            if command == "undo" { edit.undo() } else { edit.redo() }
            return Reply(message: title)
        case "board":
            try expectNoArguments(command, arguments)
            context = .board
            return Reply(message: "undo and redo now act on the board")
        case "figure":
            try expectNoArguments(command, arguments)
            let figure = try requireSelection()
            context = .figure
            return Reply(message: "undo and redo now act on figure #\(figure.id)")
        case "history":
            guard arguments.count <= 1 else { throw .invalid("usage: history [N]") }
            let stack = activeStack ?? board.undoStack
            if let tree = stack.historyTree {
                // A branching history lists node numbers, so N is a node, as `goto N` takes it.
                guard let argument = arguments.first else {
                    return Reply(message: history(of: tree), showsBoard: false)
                }
                return try go(to: try number(argument, what: "node number"), in: (stack, tree))
            }
            guard let argument = arguments.first else { return Reply(message: history(of: stack), showsBoard: false) }
            let position = try number(argument, what: "history position")
            let last = stack.undoCount + stack.redoCount
            guard (0...last).contains(position) else { throw .invalid("history positions run from 0 to \(last)") }
            guard position != stack.historyPosition else { return Reply(message: "already at position \(position)") }
            // Undoes or redoes step by step, as clicks in a history panel would.
            stack.jump(to: position)
            return Reply(message: "jumped to position \(position)")
        case "tree":
            try expectNoArguments(command, arguments)
            return Reply(message: drawing(of: try branching().tree), showsBoard: false)
        case "goto":
            try expectCount(arguments, 1, usage: "goto N")
            let id = try number(arguments[0], what: "node number")
            return try go(to: id, in: branching())
        case "earlier", "later":
            guard arguments.count <= 1 else { throw .invalid("usage: \(command) [N | Ns | Nm | Nh | Nd]") }
            let distance = try arguments.first.map { (text) throws(CommandError) in try travel(text, command) }
            return try move(backwards: command == "earlier", by: distance ?? .changes(1), in: branching())
        case "branch":
            guard arguments.count <= 1 else { throw .invalid("usage: branch [N]") }
            guard let argument = arguments.first else {
                return Reply(message: branches(of: try branching().tree), showsBoard: false)
            }
            let id = try number(argument, what: "node number")
            return try chooseBranch(id, in: branching())
        case "save":
            guard arguments.count <= 1 else { throw .invalid("usage: save [FILE]") }
            if isShared {
                throw .invalid(
                    "a shared board is written to its database with every change: there is nothing to save")
            }
            guard let target = arguments.first.map({ URL(fileURLWithPath: $0) }) ?? file else {
                board.save()
                return Reply(message: "saved: the board and its figures are marked clean (no file is written)")
            }
            // The autosave follows the file that `save` writes (below): a session that ended
            // without quit left OTHER's autosave, the only copy of its changes, which the move
            // would write over.
            if let autosave, !BoardAutosave.isSameFile(autosave.file, target), BoardAutosave.exists(for: target) {
                throw .invalid(
                    "\(Session.quotedPath(BoardAutosave.documentURL(for: target))) holds changes made to "
                        + "\(Session.quotedPath(target)) after its last save (by a board with --autosave that is "
                        + "running on it, or ended without quit): board --autosave \(Session.quotedPath(target)) "
                        + "opens them; nothing was saved")
            }
            let leftOut = try write(to: target)
            file = target
            // A save never loses steps silently: what the histories left out is said.
            var lines =
                ["saved the board and its history to \(Session.quotedPath(target))"]
                + leftOut.map { "note: not saved, in \($0)" }
            if let autosave, !BoardAutosave.isSameFile(autosave.file, target) {
                // The autosave follows the file that `save` writes: the next launch with
                // --autosave and that file finds it.
                autosave.discard()
                self.autosave = nil
                do {
                    self.autosave = try BoardAutosave(file: target, board: board)
                    // Said, since a crash now leaves the changes where `--autosave FILE` with the
                    // old name does not look.
                    lines.append(
                        "autosave: every change is now kept in \(Session.quotedPath(BoardAutosave.documentURL(for: target))) "
                            + "and \(Session.quotedPath(BoardAutosave.journalURL(for: target))) until quit "
                            + "(board --autosave \(Session.quotedPath(target)) opens them)")
                } catch {
                    lines.append("warning: \(error); the changes from now on are not safe from a crash")
                }
            }
            return Reply(message: lines.joined(separator: "\n"))
        case "help":
            try expectNoArguments(command, arguments)
            return Reply(message: Session.help, showsBoard: false)
        case "quit", "exit":
            try expectNoArguments(command, arguments)
            if board.hasUnsavedChanges && !quitIsConfirmed && !isShared {
                quitWasRefused = true
                return Reply(
                    message: "the board has unsaved changes; type \(command) again to quit without saving, "
                        + "or save first",
                    showsBoard: false)
            }
            isFinished = true
            return Reply(message: "bye", showsBoard: false)
        default:
            // Quoted as typed: the user looks for what they typed, not for its lower case.
            throw .invalid("unknown command \(Session.quote(typed)); type help for the list")
        }
    }

    // MARK: Saving to a file

    /// Writes the board, with its history and every figure's, to `url` (atomically: a failed
    /// write leaves the file as it was), then marks the board saved; returns what the histories
    /// left out (see `Board.file()`). Nothing is marked saved when the write fails.
    private func write(to url: URL) throws(CommandError) -> [String] {
        let file: (data: Data, leftOut: [String])
        do {
            file = try board.file()
        } catch {
            throw .invalid("cannot save: \(error)")
        }
        do {
            try HistoryFileStore(url: url).write(file.data)
        } catch {
            throw .invalid("cannot save: \(error)")
        }
        board.save()
        return file.leftOut
    }

    // MARK: Moving in a branching history

    /// The active context's stack and a snapshot of its tree; refused for a linear history (a
    /// figure's): the tree commands change nothing there.
    private func branching() throws(CommandError) -> (stack: ActionStack, tree: ActionStack.HistoryTree) {
        let stack = activeStack ?? board.undoStack
        guard let tree = stack.historyTree else {
            throw .invalid(
                "\(contextName)'s history is linear: only the board's history branches (type board to use it)")
        }
        return (stack, tree)
    }

    /// "the board's history" or "figure #2's history", for messages.
    private var historyName: String {
        context == .figure ? "figure #\(selectedID ?? 0)'s history" : "the board's history"
    }

    /// The refusal of a node number that the tree does not hold (never made, or gone).
    private func noSuchNode(_ number: Int) -> CommandError {
        .invalid("there is no node \(number) in \(historyName) (type tree to see its nodes)")
    }

    /// `goto N`, and `history N` in a branching history.
    private func go(
        to number: Int, in history: (stack: ActionStack, tree: ActionStack.HistoryTree)
    ) throws(CommandError) -> Reply {
        let target = ActionStack.HistoryNode.ID(sequence: number)
        guard history.tree[target] != nil else { throw noSuchNode(number) }
        guard target != history.tree.current else { return Reply(message: "already at node \(number)") }
        do {
            try history.stack.jump(toNode: target)
        } catch {
            // Not reached: the node was checked above, and the history is a tree.
            throw .invalid(error.description)
        }
        return Reply(message: "went to node \(reached(history))")
    }

    /// How far `earlier` or `later` moves: a number of changes, or a time.
    private enum Distance {
        case changes(Int)
        case time(Duration)
    }

    /// Reads the argument of `earlier` and `later`: "3" (changes), or "10s", "5m", "2h", "1d".
    private func travel(_ text: String, _ command: String) throws(CommandError) -> Distance {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let unit = text.last.flatMap { units[Character($0.lowercased())] }
        let digits = unit == nil ? Substring(text) : text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }),
            digits.drop(while: { $0 == "0" }).count <= Session.digitsBeforePoint, let value = Int(digits)
        else {
            throw .invalid(
                "\(command) takes a number of changes (\(command) 3) or a time (10s, 5m, 2h, 1d), "
                    + "not \(Session.quote(text))")
        }
        guard value > 0 else {
            throw .invalid("\(command) goes at least 1 change or 1 second, not \(Session.quote(text))")
        }
        guard let unit else { return .changes(value) }
        return .time(.seconds(Int64(value) * unit))
    }

    /// `earlier` and `later`: in the order the changes were made, across branches (vim's `g-`,
    /// `g+`, `:earlier 10s`, `:later 1m`).
    private func move(
        backwards: Bool, by distance: Distance, in history: (stack: ActionStack, tree: ActionStack.HistoryTree)
    ) throws(CommandError) -> Reply {
        let (stack, tree) = history
        do {
            switch distance {
            case .changes(let count): _ = try backwards ? stack.earlier(count) : stack.later(count)
            case .time(let duration): _ = try backwards ? stack.earlier(by: duration) : stack.later(by: duration)
            }
        } catch {
            // Not reached: the history is a tree.
            throw .invalid(error.description)
        }
        let current = tree.current.sequence
        if stack.currentNode == tree.current {
            if backwards && tree.current == tree.root {
                return Reply(message: "already at node \(current), the oldest state", showsBoard: false)
            }
            if !backwards && tree.current == tree.newest {
                return Reply(message: "already at node \(current), the newest change", showsBoard: false)
            }
            return Reply(
                message: "stayed at node \(current): no change was made that long \(backwards ? "before" : "after")")
        }
        return Reply(message: "went \(backwards ? "back" : "forward") to node \(reached(history))")
    }

    /// "3: undid 2 steps, then redid 1 step": the node the stack is at now, and how it got there
    /// from the node it was at in `history.tree` (up to the fork they share, then down).
    private func reached(_ history: (stack: ActionStack, tree: ActionStack.HistoryTree)) -> String {
        guard let now = history.stack.currentNode else { return "?" }
        let from = history.tree.path(to: history.tree.current).map(\.id)
        let to = history.tree.path(to: now).map(\.id)
        let shared = zip(from, to).prefix { $0 == $1 }.count
        func steps(_ count: Int) -> String { count == 1 ? "1 step" : "\(count) steps" }
        var moves: [String] = []
        if from.count > shared { moves.append("undid \(steps(from.count - shared))") }
        if to.count > shared { moves.append("redid \(steps(to.count - shared))") }
        return "\(now.sequence): " + moves.joined(separator: ", then ")
    }

    /// `branch N`: makes redo take node N, a child of the current node.
    private func chooseBranch(
        _ number: Int, in history: (stack: ActionStack, tree: ActionStack.HistoryTree)
    ) throws(CommandError) -> Reply {
        let (stack, tree) = history
        let target = ActionStack.HistoryNode.ID(sequence: number)
        guard let node = tree[target] else { throw noSuchNode(number) }
        let current = tree.current.sequence
        let children = tree[tree.current]?.children ?? []
        guard children.contains(target) else {
            if children.isEmpty {
                throw .invalid("no branch leaves node \(current), where you are: there is nothing to redo here")
            }
            let here =
                children.count == 1
                ? "the only branch here is \(children[0].sequence)"
                : "the branches here are \(Session.list(children.map(\.sequence)))"
            throw .invalid("node \(number) is not a branch from node \(current), where you are; \(here)")
        }
        guard tree[tree.current]?.redoChild != target else {
            return Reply(message: "redo already takes node \(number)", showsBoard: false)
        }
        do {
            try stack.selectRedoBranch(target)
        } catch {
            // Not reached: the node was checked above.
            throw .invalid(error.description)
        }
        return Reply(message: "redo now takes node \(number): \(HistoryTreeText.defaultLabel(node))")
    }

    /// "4", "4 and 6", "4, 6 and 8".
    private static func list(_ numbers: [Int]) -> String {
        let text = numbers.map(String.init)
        guard let last = text.last, text.count > 1 else { return text.first ?? "" }
        return text.dropLast().joined(separator: ", ") + " and " + last
    }

    // MARK: Output

    /// The board picture, the selection, and the status line: the buttons of the active context's
    /// stack ("board:", "figure #1:"), and `* unsaved:` with the histories changed since the last
    /// save while any did ("* unsaved: board, figure #1"). Each stack has its own saved state, and
    /// the `saved` mark of `history` and `tree` is that history's own: the status line names which
    /// histories are not at theirs, so that it never seems to contradict a history that says
    /// "saved".
    public func render() -> [String] {
        var lines = BoardPicture.draw(board, selected: selectedID, colored: usesColor)
        if let figure = selectedFigure {
            let color = BoardPicture.paint(figure.color.rawValue, figure.color, colored: usesColor)
            lines.append(
                "selected: #\(figure.id) at \(figure.position), color \(color), corner radius \(figure.cornerRadius)"
            )
        } else {
            lines.append("selected: none")
        }
        // A shared board is saved with every command: it is never unsaved.
        let unsaved = isShared ? [] : board.unsavedHistories
        lines.append(
            "\(contextName): \(buttons.rendered)"
                + (unsaved.isEmpty ? "" : "  * unsaved: " + unsaved.joined(separator: ", ")))
        return lines
    }

    /// "board" or "figure #2".
    private var contextName: String {
        context == .figure ? "figure #\(selectedID ?? 0)" : "board"
    }

    /// A branching history as a history panel shows it: the path from the start through the
    /// current node to where redo leads, one numbered node a line, with where you are, the saved
    /// node, the redo steps, and at each fork the branches that leave from it for elsewhere.
    private func history(of tree: ActionStack.HistoryTree) -> String {
        let redo = HistoryTreeText.redoPath(of: tree)
        let path = tree.path(to: tree.current) + redo
        let redoIDs = Set(redo.map(\.id))
        let labels = path.map(HistoryTreeText.defaultLabel)
        let width = labels.map(\.count).max() ?? 0
        let numberWidth = String(path.last?.sequence ?? 0).count
        var lines = ["\(contextName) history (goto N goes to node N; tree draws every branch):"]
        for (index, node) in path.enumerated() {
            var notes: [String] = []
            if node.isCurrent { notes.append(HistoryTreeText.currentMark) }
            if node.isClean { notes.append(HistoryTreeText.savedMark) }
            if redoIDs.contains(node.id) { notes.append(HistoryTreeText.redoMark) }
            let next = index + 1 < path.count ? path[index + 1].id : nil
            let others = node.children.filter { $0 != next }.map(\.sequence)
            if !others.isEmpty { notes.append("other branch\(others.count == 1 ? "" : "es"): \(Session.list(others))") }
            let number =
                String(repeating: " ", count: numberWidth - String(node.sequence).count) + String(node.sequence)
            let line = "  \(number)  \(labels[index])" + String(repeating: " ", count: width - labels[index].count)
            lines.append(notes.isEmpty ? line : line + "  " + notes.joined(separator: ", "))
        }
        return lines.map { $0.trimmingTrailingSpaces }.joined(separator: "\n")
    }

    /// The whole tree, drawn by `HistoryTreeText`.
    private func drawing(of tree: ActionStack.HistoryTree) -> String {
        (["\(contextName) history tree (goto N goes to node N; branch N picks where redo goes):"]
            + HistoryTreeText.lines(of: tree)).joined(separator: "\n")
    }

    /// The children of the current node: the branches redo can take from here.
    private func branches(of tree: ActionStack.HistoryTree) -> String {
        let current = tree.current.sequence
        let children = (tree[tree.current]?.children ?? []).compactMap { tree[$0] }
        guard !children.isEmpty else {
            return "no branch leaves node \(current), where you are: there is nothing to redo here"
        }
        let labels = children.map(HistoryTreeText.defaultLabel)
        let width = labels.map(\.count).max() ?? 0
        let numberWidth = String(children.last?.sequence ?? 0).count
        var lines = ["redo from node \(current) can take (branch N makes it take N):"]
        for (node, label) in zip(children, labels) {
            let number =
                String(repeating: " ", count: numberWidth - String(node.sequence).count) + String(node.sequence)
            let line = "  \(number)  \(label)" + String(repeating: " ", count: width - label.count)
            lines.append(node.id == tree[tree.current]?.redoChild ? line + "  <- redo takes this one" : line)
        }
        return lines.map { $0.trimmingTrailingSpaces }.joined(separator: "\n")
    }

    /// A linear stack's history, as a history panel shows it: every position from the start,
    /// oldest first, with the step that leads to it, where you are, the saved position, and the
    /// steps that redo would bring back.

    private func history(of stack: ActionStack) -> String {
        // Undo entries come newest first and redo entries next-first: lay them out oldest first.
        let steps = stack.undoEntries.reversed() + stack.redoEntries
        let position = stack.historyPosition
        let rows =
            [("(start)", stack.isCleanAtStart)]
            + steps.map { ($0.actionName, $0.isClean) }
        let width = rows.map(\.0.count).max() ?? 0
        let numberWidth = String(rows.count - 1).count
        var lines = ["\(contextName) history (type history N to go to position N):"]
        for (index, (name, isSaved)) in rows.enumerated() {
            var notes: [String] = []
            if index == position { notes.append("<- you are here") }
            if isSaved { notes.append("saved") }
            if index > position { notes.append("(redo)") }
            let number = String(repeating: " ", count: numberWidth - String(index).count) + String(index)
            let label = name.isEmpty ? "(unnamed)" : name
            let line = "  \(number)  \(label)" + String(repeating: " ", count: width - label.count)
            lines.append(notes.isEmpty ? line : line + "  " + notes.joined(separator: ", "))
        }
        return lines.map { $0.trimmingTrailingSpaces }.joined(separator: "\n")
    }

    /// The list of commands.
    public static let help = """
        commands (one command is one event; what it changes is one undo step):
          add X Y         add a figure centred at (X, Y) and select it       (board)
          move N X Y      move figure N to (X, Y)                            (board)
          nudge N DX DY   move figure N by (DX, DY); nudges of one figure
                          at most a second apart are one step, a drag        (board)
          remove N        remove figure N (undo restores its history)        (board)
          select N        select figure N
          color NAME      recolour the selected figure                       (figure)
                          NAME: \(FigureColor.names)
          radius R        round the selected figure's corners (0 to \(Figure.maximumCornerRadius))     (figure)
          board | figure  choose the history that undo, redo, history, tree,
                          goto, earlier, later and branch act on
          undo | redo     undo or redo in the chosen context
          history [N]     list the chosen context's steps, or go to N (a node
                          of the board's history, a position in a figure's)
          tree            draw the board's history, with every branch
          goto N          go to node N, on any branch (undoing, then redoing)
          earlier [N]     go back N changes (1 if no N) in the order they were
                          made, across branches; earlier 10s, 5m, 2h or 1d: by time
          later [N]       go forward likewise; later 10s, 5m, 2h or 1d: by time
          branch [N]      list the branches redo can take from here, or make
                          redo take node N
          save [FILE]     save the board and its history, the board's and every
                          figure's, to FILE (then save alone writes FILE again);
                          with no file, mark it saved only. Each history has
                          its own saved step (history and tree mark it saved);
                          the status line ends with * unsaved: and the
                          histories changed since (board, figure #N)
          help | quit     show this list, or leave (with unsaved changes,
                          quit asks to be typed twice)
        the board's history branches: a change made after undoing keeps what redo
        would have brought back, as a branch; a figure's history stays linear
        numbers are decimal, with at most two decimals: 12, 12.5, -0.25
        the board runs from (0.0, 0.0), top left, to (\(Board.width), \(Board.height)), bottom right
        figures are \(Figure.width) by \(Figure.height), drawn [1], or (1) with rounded corners;
        the selected one has a star: [*1]
        at a terminal, Left, Right, Home, End, Backspace and Delete edit the line,
        Ctrl-U deletes to its start, Ctrl-K to its end and Ctrl-W the word before
        the cursor; Up and Down bring back earlier lines, Ctrl-C drops the line,
        and Ctrl-D on an empty line is quit (with unsaved changes, a second Ctrl-D
        or quit leaves); piped input that ends leaves at once
        board FILE (swift run board FILE) opens a saved board with its history:
        undo then takes back the step that led to where it was saved
        board --shared FILE (swift run board --shared FILE, in two terminals)
        edits one board from several: each change goes to the SQLite database
        FILE at once, and the others' changes show up as they are made. Undo
        takes back only your own changes: it skips a move of a figure that
        someone moved since, and the steps of a figure someone removed. A board
        that quits and starts again gets its history back; save is not needed
        privacy: the saved history keeps what undo can bring back, so the file
        holds what you removed (figures, old positions and colours) for as long
        as undo could bring it back
        """

    // MARK: Parsing

    /// `text` in quotes for an error message: at most `longestQuote` characters (a long input is
    /// cut, ending in "..."), made `printable`.
    public static func quote(_ text: String) -> String {
        let visible = printable(text)
        let shown = visible.count <= longestQuote ? visible : visible.prefix(longestQuote - 3) + "..."
        return "'\(shown)'"
    }

    /// `text` as it can be printed back to the user: a tab is a space, and each character that is
    /// or holds a control character (escape, backspace, ...), an invisible format character (a
    /// bidirectional override such as U+202E, a zero-width space) or a line or paragraph separator
    /// (U+2028, U+2029) is shown as "?". Printing what the user typed can then never drive the
    /// terminal, reorder the line it is on, or break it. The joiners that emoji sequences and some
    /// scripts are written with (U+200D, U+200C) are kept.
    public static func printable(_ text: String) -> String {
        String(text.map(printable))
    }

    /// `character` as `printable(_:)` shows it: itself, a space for a tab, or "?".
    nonisolated public static func printable(_ character: Character) -> Character {
        character == "\t" ? " " : character.unicodeScalars.contains(where: isHidden) ? "?" : character
    }

    /// Whether printing `scalar` as it is could hide or rearrange text, or drive the terminal.
    nonisolated private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        case .format: scalar != "\u{200D}" && scalar != "\u{200C}"
        default: false
        }
    }

    /// The most digits a number has before its point, leading zeros aside: numbers are less than
    /// 1,000,000,000 in size. Larger ones are off the board anyway, and this keeps every number the
    /// board prints in plain decimal notation ("(999999999.99, 1.0) is off the board").
    public static let digitsBeforePoint = 9

    /// The largest number `decimal(_:)` reads, as error messages state it.
    static let largestDecimal = String(repeating: "9", count: digitsBeforePoint) + ".99"

    /// The rule `decimal(_:)` follows, as error messages state it.
    static let decimalRule = "at most two decimals, from -\(largestDecimal) to \(largestDecimal): 12 or -0.25"

    /// Whether `text` is written as `decimal(_:)` reads numbers (digits, a sign, a point and at most
    /// two decimals), whatever its size: such a text that `decimal(_:)` refuses is out of range,
    /// not a typing mistake.
    static func isWrittenAsDecimal(_ text: String) -> Bool {
        var body = Substring(text)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = parts.count == 2 ? parts[1] : ""
        func digits(_ part: Substring) -> Bool { part.allSatisfy { ("0"..."9").contains($0) } }
        return parts[0].count + fraction.count > 0 && fraction.count <= 2 && digits(parts[0]) && digits(fraction)
    }

    /// The largest whole number (figure numbers, history positions) that `number` reads.
    static let largestWhole = Int(String(repeating: "9", count: digitsBeforePoint))!

    /// Reads a decimal number: ASCII digits, an optional sign, an optional point and at most two
    /// decimals ("12", "-0.5", "3.25", ".5", "007"), with at most `digitsBeforePoint` digits
    /// before the point once leading zeros are set aside. `Double(_:)` alone would also take
    /// "0x10", "1e9", "inf" and "nan", which no one means as a coordinate. "-0" reads as 0.
    public static func decimal(_ text: String) -> Double? {
        var body = Substring(text)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        func digits(_ part: Substring) -> Bool { part.allSatisfy { ("0"..."9").contains($0) } }
        // The limit is on the size of the number, not on how it is written: leading zeros are fine.
        let significant = whole.drop { $0 == "0" }
        guard whole.count + fraction.count > 0, significant.count <= digitsBeforePoint, fraction.count <= 2,
            digits(whole), digits(fraction)
        else { return nil }
        // "-0" is zero: without this it would be -0.0, and printed as "-0.0" in answers and names.
        guard let value = Double(text) else { return nil }
        return value == 0 ? 0 : value
    }

    private func requireSelection() throws(CommandError) -> Figure {
        guard let figure = selectedFigure else { throw .invalid("no figure is selected; use select N") }
        return figure
    }

    private func expectCount(_ arguments: [String], _ count: Int, usage: String) throws(CommandError) {
        guard arguments.count == count else { throw .invalid("usage: \(usage)") }
    }

    /// Refuses arguments after a command that takes none, all alike: "save now" must not save,
    /// and "quit now" must not quit.
    private func expectNoArguments(_ command: String, _ arguments: [String]) throws(CommandError) {
        guard arguments.isEmpty else { throw .invalid("\(command) takes no arguments") }
    }

    private func point(_ arguments: [String], from start: Int, usage: String) throws(CommandError) -> Point {
        guard arguments.count == start + 2 else { throw .invalid("usage: \(usage)") }
        return Point(x: try decimal(arguments[start], what: "x"), y: try decimal(arguments[start + 1], what: "y"))
    }

    private func decimal(_ text: String, what: String) throws(CommandError) -> Double {
        guard let value = Session.decimal(text) else {
            if Session.isWrittenAsDecimal(text) {
                throw .invalid(
                    "\(what) is out of range: \(Session.quote(text)) "
                        + "(from -\(Session.largestDecimal) to \(Session.largestDecimal))")
            }
            throw .invalid("\(what) must be a number, not \(Session.quote(text)) (\(Session.decimalRule))")
        }
        return value
    }

    /// Reads a whole number, "12" or "#12": ASCII digits, at most `digitsBeforePoint` of them
    /// once leading zeros are set aside.
    private func number(_ text: String, what: String) throws(CommandError) -> Int {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        func allDigits(_ part: Substring) -> Bool { !part.isEmpty && part.allSatisfy { ("0"..."9").contains($0) } }
        // A whole number the user meant, but outside what is allowed: say so, not "not a number".
        if digits.first == "-" && allDigits(digits.dropFirst()) {
            throw .invalid("\(what) must not be negative: \(Session.quote(text)) (0 to \(Session.largestWhole))")
        }
        if allDigits(digits) && digits.drop(while: { $0 == "0" }).count > Session.digitsBeforePoint {
            throw .invalid("\(what) is out of range: \(Session.quote(text)) (0 to \(Session.largestWhole))")
        }
        guard allDigits(digits), let value = Int(digits) else {
            throw .invalid(
                "\(what) must be a whole number, not \(Session.quote(text)) (0 to \(Session.largestWhole))")
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

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        String(self[..<(lastIndex { $0 != " " }.map(index(after:)) ?? startIndex)])
    }
}
