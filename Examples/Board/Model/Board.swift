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

/// Why a board operation was refused. The board is unchanged when one is thrown.
public enum BoardError: Error, Equatable, CustomStringConvertible {
    /// No figure with this number is on the board.
    case noSuchFigure(Int)
    /// The position is outside the board.
    case offBoard(Point)
    /// The corner radius is outside 0...`Figure.maximumCornerRadius`.
    case radiusOutOfRange(Double)
    /// Every figure number up to `Board.largestNumber` is taken.
    case noNumberLeft

    /// A one-line explanation for the user.
    public var description: String {
        switch self {
        case .noSuchFigure(let id): "there is no figure #\(id) on the board"
        case .offBoard(let point):
            "\(point) is off the board (x from 0 to \(plain(Board.width)), y from 0 to \(plain(Board.height)))"
        case .radiusOutOfRange(let radius) where radius < 0: "the radius must not be negative"
        case .radiusOutOfRange:
            // The numbers as `help` states them, and as every answer prints a radius: "4.0".
            "the radius must be at most \(Figure.maximumCornerRadius), half the figure's height "
                + "(figures are \(Figure.width) by \(Figure.height))"
        case .noNumberLeft: "no figure number is left (figures are numbered up to \(Board.largestNumber))"
        }
    }

    /// A limit as a person writes it: "80", not "80.0"; "2.5" stays.
    private func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// The board: an ordered set of figures, and the undo stack for adding, moving and removing them.
///
/// Every change follows the same pattern, the heart of target/action undo: remember the old
/// state, register an action that restores it **by calling the same kind of method**, then make
/// the change. Because the action goes through an undoable method, undoing registers the redo
/// automatically. The actions are commands (`MoveFigure`, `InsertFigure`, `RemoveFigure`), values
/// rather than closures, so that the history can be saved with the board and brought back when
/// it is opened again (`BoardFile`).
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
    /// Nudges of one figure closer together than this are one "Move" step.
    nonisolated public static let nudgeWindow = Duration.seconds(1)
    /// The largest figure number: the largest whole number a command reads (nine digits), so that
    /// the user can type every figure's number. A file or a peer's change with a larger one is
    /// refused, which also keeps the next number from overflowing, and `addFigure` stops there.
    nonisolated public static let largestNumber = 999_999_999

    /// The figures, bottom to top.
    public private(set) var figures: [Figure] = []

    /// The board's own history: add, move, nudge, remove. It is a tree
    /// (`historyShape = .tree`): a change made after undoing keeps what redo would have brought
    /// back as a branch, and the session's `goto`, `earlier`, `later` and `branch` reach it.
    public let undoStack: ActionStack

    private var nextID = 1

    /// Creates an empty board.
    public init() {
        undoStack = ActionStack()
        // This program has no run loop that turns: the session calls `endEvent()` after each
        // command, which closes the command's automatic group (one command, one undo step).
        undoStack.automaticGroupClosing = .manual
        // A branching history: nothing the user did is lost by undoing and then doing something
        // else. Undo and redo work as before (redo takes the branch visited last).
        //
        // Every step below can be redone from where it was made, whichever branch the user went
        // through in between: a jump climbs to the fork and redoes from there, so the board is in
        // the same state as when the step was made. That is what lets the steps record places in
        // the order (`insert(_:at:)`, `remove(at:)`) instead of searching for the figure.
        undoStack.historyShape = .tree
    }

    /// The figure with number `id`, if it is on the board.
    public func figure(_ id: Int) -> Figure? {
        figures.first { $0.id == id }
    }

    /// Whether `point` lies on the board.
    nonisolated public static func contains(_ point: Point) -> Bool {
        (0...width).contains(point.x) && (0...height).contains(point.y)
    }

    /// The name of a step that moves a figure to `point`: "Move to (30.0, 5.0)". Both buttons
    /// read it the right way round: "Undo Move to (30.0, 5.0)" takes the figure away from there,
    /// "Redo Move to (30.0, 5.0)" takes it there.
    nonisolated public static func moveName(to point: Point) -> String { "Move to \(point)" }

    // MARK: What the user does

    /// Adds a new figure at `point` ("Add Figure") and returns it.
    @discardableResult
    public func addFigure(at point: Point) throws(BoardError) -> Figure {
        guard Board.contains(point) else { throw .offBoard(point) }
        guard nextID <= Board.largestNumber else { throw .noNumberLeft }
        let figure = Figure(id: nextID, position: point)
        nextID += 1
        insert(figure, at: figures.count)
        return figure
    }

    /// Moves a figure to `point` ("Move to (x, y)", named after `point`). Returns false, and
    /// registers nothing, when the figure is already there.
    @discardableResult
    public func move(_ id: Int, to point: Point) throws(BoardError) -> Bool {
        guard let figure = figure(id) else { throw .noSuchFigure(id) }
        guard Board.contains(point) else { throw .offBoard(point) }
        guard figure.position != point else { return false }
        move(figure, to: point)
        return true
    }

    /// Moves a figure by a small offset, as an arrow key does. Nudges of the same figure less
    /// than `nudgeWindow` apart continue one step (coalescing), named after where the figure
    /// ends: three nudges right are one "Move to (13.0, 20.0)", undone at once. Returns false,
    /// and registers nothing, when the offset is zero.
    @discardableResult
    public func nudge(_ id: Int, by dx: Double, _ dy: Double) throws(BoardError) -> Bool {
        guard let figure = figure(id) else { throw .noSuchFigure(id) }
        let point = figure.position.offset(by: dx, dy)
        guard Board.contains(point) else { throw .offBoard(point) }
        guard figure.position != point else { return false }
        nudge(figure, to: point)
        return true
    }

    /// Removes a figure ("Remove Figure"). Undo puts the same figure back at its place in the
    /// order, as it was, with its own history: the board's undo step holds the figure, and so
    /// its stack, for as long as the removal can be undone. The board's history is a tree, so a
    /// new change after undoing the removal keeps that step, in a branch, and `goto` can take the
    /// figure off the board again and back. Only when the step leaves the history
    /// (`removeAllActions()`, or trimming and pruning if the stack had limits) is the figure freed,
    /// and its history with it.
    public func removeFigure(_ id: Int) throws(BoardError) {
        guard let index = figures.firstIndex(where: { $0.id == id }) else { throw .noSuchFigure(id) }
        remove(at: index)
    }

    /// Whether anything changed since the last `save()`: the board's history is not at its
    /// saved step, or a figure's history is not at its own, on the board or off it.
    ///
    /// A figure off the board must be asked too: undoing its removal, changing its history, and
    /// redoing the removal brings the board back to its saved step with the figure's history
    /// elsewhere, and quitting then lost that change without a word.
    public var hasUnsavedChanges: Bool {
        !undoStack.isClean || figures.contains { !$0.isSaved } || figuresOffBoard().contains { !$0.isSaved }
    }

    /// Which histories changed since the last `save()`, each by the state of its own stack: the
    /// board's ("board"), and those of the figures on the board ("figure #2"), in that order; when
    /// the board's is at its saved step, those of the figures off it that its history can bring
    /// back ("figure #3 (off the board)"), which nothing else would show. (While the board's is
    /// not, "board" says it: only undo and redo on the board bring such a figure back.) Empty
    /// exactly when `hasUnsavedChanges` is false.
    ///
    /// Each stack has its own saved state: a figure's history can be at its saved step while the
    /// board's is not (a figure moved on the board: a board step), and the other way round (a
    /// figure recoloured: a figure step). The status line names them, so that its mark and the
    /// `saved` mark of a history listing never seem to disagree.
    ///
    /// - Complexity: O(*n* log *n*) in the actions of the board's history when it is at its saved
    ///   step; O(*f*) for the *f* figures on the board otherwise.
    public var unsavedHistories: [String] {
        let onBoard = figures.filter { !$0.isSaved }.map { "figure #\($0.id)" }
        guard undoStack.isClean else { return ["board"] + onBoard }
        return onBoard + figuresOffBoard().filter { !$0.isSaved }.map { "figure #\($0.id) (off the board)" }
    }

    /// The figures off the board that its history can bring back, as `file()` saves them; none
    /// while a change is in progress (the history cannot be taken then).
    ///
    /// - Complexity: O(*n* log *n*) in the actions of the board's history.
    private func figuresOffBoard() -> [Figure] {
        guard let history = try? undoStack.savedHistory() else { return [] }
        return figuresOffBoard(in: history)
    }

    /// Marks the board saved (the session's `save FILE` first writes `fileContents()` to the file,
    /// and calls this once the write succeeded): the board's stack and the stack of every figure on
    /// it are marked clean, so `hasUnsavedChanges` is false until the next change, and true again
    /// after undoing past this point.
    ///
    /// The figures off the board that the board's history can bring back are marked clean too:
    /// the file holds each of them as it is now, with its history saved there (`file()`). A figure
    /// that undo or redo brings back is then as it was saved, and its history says so, in this
    /// session as after the file is opened again. (Were they left as they were, a figure the file
    /// holds as it is would come back from the file "unsaved", its saved mark where it was before.)
    public func save() {
        // `markClean()` also ends coalescing: a nudge after a save starts a new step, so the
        // saved step stays as it was saved.
        undoStack.markClean()
        for figure in figures { figure.markSaved() }
        // Found as `file()` finds them. The history cannot be taken only while a change is in
        // progress, and then no file was written either.
        if let history = try? undoStack.savedHistory() {
            for figure in figuresOffBoard(in: history) { figure.markSaved() }
        }
    }

    /// The figures off the board that `history`, the board's, can bring back: those its
    /// `InsertFigure` commands hold, in the order of their numbers. A file holds them (`file()`).
    ///
    /// - Complexity: O(*n* log *n*) in the actions of `history`.
    func figuresOffBoard(in history: SavedHistory) -> [Figure] {
        var offBoard: [UUID: Figure] = [:]
        let onBoard = Set(figures.map(\.uuid))
        for step in history.steps {
            for action in step.actions {
                if let insert = action.command as? InsertFigure, let figure = insert.object,
                    !onBoard.contains(figure.uuid)
                {
                    offBoard[figure.uuid] = figure
                }
            }
        }
        return offBoard.values.sorted { $0.id < $1.id }
    }

    // MARK: Changes made elsewhere (a shared board)

    /// The figure with `uuid`, if it is on the board.
    public func figure(uuid: UUID) -> Figure? {
        figures.first { $0.uuid == uuid }
    }

    /// Finds the steps that the changes made elsewhere left with nothing to do, in the board's
    /// history and in every figure's history it holds, and drops them, as a save does (a saved
    /// history is rebased step by step). A shared board saves after every command: without this,
    /// `history` and `tree` would list dead steps that the save then drops, and the positions and
    /// node numbers the user read would no longer be the ones `history N` and `goto N` reach.
    ///
    /// - Complexity: O(n + r) for the n steps of the histories and the r remote changes they have
    ///   not seen yet.
    public func dropStepsThatDied() {
        guard let history = try? undoStack.savedHistory() else { return }
        for figure in figures + figuresOffBoard(in: history) { _ = try? figure.undoStack.savedHistory() }
    }

    /// Applies a change that another board made (`SharedBoard` reads it from the shared log),
    /// as a change that is not this user's: undo never reverts it, and this user's steps move
    /// past it. Returns false, changing nothing, when the change does not fit this board (a figure
    /// it does not have, or one it has already); true when it was applied.
    ///
    /// The change goes through the library's `applyRemoteChange(_:version:_:)`: the closure makes
    /// the change to the model, and what it would register is not recorded (here it registers
    /// nothing: it sets the figures directly, not through the undoable primitives). Then every
    /// stored step of the board's stack, in every branch, moves past the change: the commands are
    /// `RebasableCommand`s over `BoardChange` (see Commands.swift), rewritten lazily, when a step
    /// is performed, saved, or looked at as the next step. `version` is the change's place in the
    /// shared log; the stack keeps the last one (`remoteVersion`) and saves it with the history.
    ///
    /// The board's stack hears every change (so any peer's change ends a run of nudges: the next
    /// nudge starts a step of its own); a figure's own stack hears the changes to that figure (its
    /// colour and radius steps move past them, `Figure.receive(_:version:)`). When a peer removes
    /// a figure, the figure's own steps go with it, by `removeAllActions(withTarget:)` inside the
    /// closure; the board's steps that move it name it by UUID on the board's stack (their target
    /// is the board, which is how a saved history finds them again), so there they die as they
    /// rebase over the removal (`MoveFigure.rebased(over:)`).
    @discardableResult
    public func receive(_ change: BoardChange, version: String) -> Bool {
        // The change as it applies here: an index is where the figure is on this board (the same
        // on every board that applied the same log, and repaired if not).
        let applied: BoardChange
        switch change {
        case .insert(let record, let index):
            guard figure(uuid: record.uuid) == nil, !figures.contains(where: { $0.id == record.number }),
                (1...Board.largestNumber).contains(record.number), Board.contains(record.position),
                (0...Figure.maximumCornerRadius).contains(record.cornerRadius)
            else { return false }
            applied = .insert(record, at: min(max(index, 0), figures.count))
        case .remove(let uuid, _):
            guard let index = figures.firstIndex(where: { $0.uuid == uuid }) else { return false }
            applied = .remove(figure: uuid, at: index)
        case .move(let uuid, let point):
            guard figure(uuid: uuid) != nil, Board.contains(point) else { return false }
            applied = change
        case .color(let uuid, _), .radius(let uuid, _):
            // The figure's stack hears it (and applies it); the board's stack hears it next, with
            // nothing to apply, so that it too has seen every change and keeps the version.
            guard let target = figure(uuid: uuid), target.receive(change, version: version) else { return false }
            undoStack.applyRemoteChange(change, version: version) {}
            return true
        }
        undoStack.applyRemoteChange(applied, version: version) {
            switch applied {
            case .insert(let record, let index):
                // A new object, with an empty history: a figure a peer put (back) on the board is
                // the peer's, and this user's older steps about it died when it was removed.
                figures.insert(Figure(record), at: index)
                nextID = max(nextID, record.number + 1)
            case .remove(_, let index):
                let figure = figures.remove(at: index)
                figure.undoStack.removeAllActions(withTarget: figure)
            case .move(let uuid, let point):
                self.figure(uuid: uuid)?.position = point
            case .color, .radius:
                break
            }
        }
        return true
    }

    // MARK: Opening a file

    /// The number the next figure added will get.
    var nextNumber: Int { nextID }

    /// Puts figures on an empty board, with nothing to undo: the board as a file has it.
    func restoreContents(figures: [Figure], nextNumber: Int) {
        self.figures = figures
        nextID = nextNumber
    }

    // MARK: The undoable primitives

    /// The key of the board in its own history's commands: how a reopened history finds the
    /// board (see `BoardFile`).
    nonisolated public static let historyKey = "board"

    /// Every registration below is a command (see Commands.swift) whose target is the *board*,
    /// held weakly by the stack, and which names its figure by UUID; the command that puts a
    /// figure back holds the figure, so a figure that is no longer on the board can still be put
    /// back, with its own history, by an older step.
    private func move(_ figure: Figure, to point: Point) {
        let old = figure.position
        undoStack.registerUndo(MoveFigure(figure: figure.uuid, position: old), on: self, key: Board.historyKey)
        // Named where the user moves. While undoing, this call builds the redo step, which
        // already carries the name "Move to <point the user chose>"; renaming it "Move to <old>"
        // would make the Redo button lie.
        if !undoStack.isUndoing && !undoStack.isRedoing { undoStack.setActionName(Board.moveName(to: point)) }
        figure.position = point
    }

    private func insert(_ figure: Figure, at index: Int) {
        undoStack.registerUndo(RemoveFigure(figure: figure.uuid, index: index), on: self, key: Board.historyKey)
        // "Add Figure" only when the user adds. `insert` also runs as the undo of a removal, and
        // that undo must leave the step named "Remove Figure" for the Redo button.
        if !undoStack.isUndoing && !undoStack.isRedoing { undoStack.setActionName("Add Figure") }
        figures.insert(figure, at: index)
    }

    private func remove(at index: Int) {
        let figure = figures[index]
        undoStack.registerUndo(InsertFigure(figure, at: index), on: self, key: Board.historyKey)
        // "Remove Figure" only when the user removes; `remove` also runs as the undo of an add.
        if !undoStack.isUndoing && !undoStack.isRedoing { undoStack.setActionName("Remove Figure") }
        figures.remove(at: index)
        // The figure keeps its own history while it is off the board: the command just registered
        // holds it, so undoing the removal brings it back with the colours it went through.
    }

    // MARK: Performing the commands

    // Each step is undone or redone in the state it was made in (a jump in the tree climbs to the
    // fork and redoes from there), so the figure a command names is where the command expects
    // it. A history read from a file is checked before it is restored (`BoardFile`); the guards
    // below only keep a command that does not fit the board from doing anything else.

    func perform(_ command: MoveFigure) {
        guard let figure = figures.first(where: { $0.uuid == command.figure }) else { return }
        move(figure, to: command.position)
    }

    func perform(_ command: InsertFigure) {
        guard let figure = command.object, command.index >= 0, command.index <= figures.count else { return }
        insert(figure, at: command.index)
    }

    func perform(_ command: RemoveFigure) {
        guard figures.indices.contains(command.index), figures[command.index].uuid == command.figure else { return }
        remove(at: command.index)
    }

    /// The options of a nudge: coalesce with the previous step if that was a nudge of the same
    /// figure (the key) on this board (the target) less than `nudgeWindow` ago, measured with the
    /// stack's `coalescingClock` (tests replace it instead of sleeping). Any other registration on
    /// this stack, an undo, a redo or a save ends the run of nudges.
    private static func nudging(_ figure: Figure) -> ActionStack.RegistrationOptions {
        .coalescing("nudge figure #\(figure.id)", within: nudgeWindow)
    }

    private func nudge(_ figure: Figure, to point: Point) {
        let old = figure.position
        // The inverse is a plain move: undoing a run of nudges runs these newest first and puts
        // the figure back where the run began.
        undoStack.registerUndo(
            MoveFigure(figure: figure.uuid, position: old), on: self, key: Board.historyKey,
            options: Board.nudging(figure))
        figure.position = point
        // Named after where the figure is now, each time: on the new step this nudge opened, or,
        // when it continued the previous nudge's step, on that step (right after a registration
        // that continues a coalesced step, the name goes to that step, not to a new group).
        undoStack.setActionName(Board.moveName(to: point))
    }
}
