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

// Saving the board with its history, and opening it again after a relaunch.
//
// A board file holds two JSON texts, each on one line:
//
// 1. The document (`BoardDocument`): the figures on the board, bottom first, and the figures off
//    the board that the history can bring back (removed, or added on a branch and undone), each
//    with its number, UUID, position, colour and corner radius. Saving the figures that the
//    history can bring back is what makes undoing everything after a relaunch reach the first
//    board: the history refers to them, and a history is restored only as far as every object it
//    refers to is there.
// 2. A `HistoryArchive` with the histories, "board" and "figure.<UUID>" for each figure in the
//    document, under one fingerprint: the SHA-256 of the document's line, byte for byte.
//
// Opening a file reads the document, then the histories only if the fingerprint matches: a
// document changed since (by hand, or by a program that did not write the history) opens with no
// history, since the old steps would act on a board that is no longer the one they were made on.
// Each history is then restored into the fresh stack it belongs to, with a resolver that finds the
// reopened board and figures by their keys; a step that refers to something the file does not have
// is cut, with everything beyond it, and the report says so.
//
// Privacy: the history keeps what undo can bring back, removed figures included, so the file
// holds what the user deleted as long as the removal can be undone.

/// The board as a file stores it: its figures, without history.
public struct BoardDocument: Codable, Hashable, Sendable {
    /// Always `BoardDocument.formatName`.
    public var format = BoardDocument.formatName
    /// The version of this layout (`BoardDocument.formatVersion`).
    public var version = BoardDocument.formatVersion
    /// The number the next figure added will get.
    public var nextNumber: Int
    /// The figures on the board, bottom first.
    public var figures: [FigureRecord]
    /// The figures off the board that its history can bring back, by number.
    public var offBoard: [FigureRecord]

    /// The value of `format` that marks a board document.
    public static let formatName = "ActionStack.Board"
    /// The version this example writes, and the newest it reads.
    public static let formatVersion = 1

    /// A document.
    public init(nextNumber: Int, figures: [FigureRecord], offBoard: [FigureRecord]) {
        self.nextNumber = nextNumber
        self.figures = figures
        self.offBoard = offBoard
    }
}

/// One figure as a file stores it.
public struct FigureRecord: Codable, Hashable, Sendable {
    /// The figure's UUID.
    public var uuid: UUID
    /// The number the user types.
    public var number: Int
    /// Where its centre is.
    public var position: Point
    /// Its colour.
    public var color: FigureColor
    /// Its corner radius.
    public var cornerRadius: Double

    /// A record.
    public init(uuid: UUID, number: Int, position: Point, color: FigureColor, cornerRadius: Double) {
        self.uuid = uuid
        self.number = number
        self.position = position
        self.color = color
        self.cornerRadius = cornerRadius
    }
}

/// Why a board file could not be opened or saved.
public enum BoardFileError: Error, Hashable, CustomStringConvertible {
    /// The first line is not a board document.
    case notABoardFile(String)
    /// A board document of a newer version than this program reads.
    case newerVersion(Int)
    /// The document does not describe a board this program can show.
    case invalidDocument(String)
    /// The history could not be taken from the stacks (a change in progress).
    case historyNotSavable(String)

    /// What went wrong, as a sentence fragment.
    public var description: String {
        switch self {
        case .notABoardFile(let reason): "not a board file (\(reason))"
        case .newerVersion(let version):
            "the board file has version \(version), newer than the \(BoardDocument.formatVersion) this program reads"
        case .invalidDocument(let reason): "the board in the file is invalid: \(reason)"
        case .historyNotSavable(let reason): "the history cannot be saved now: \(reason)"
        }
    }
}

/// A board read from a file, and what to tell the user about its history.
@MainActor
public struct OpenedBoard {
    /// The board, with its history and its figures' as far as they could be restored.
    public let board: Board
    /// Whether the file's histories were restored (false: the board opened with none).
    public let historyRestored: Bool
    /// The restore report of each history, by its name in the file ("board", "figure.<UUID>").
    public let reports: [String: ActionStack.RestoreReport]
    /// What the user should know: a history left out, or cut, and why. Empty when everything
    /// came back.
    public let notes: [String]
}

/// Reads and writes board files (see the comment at the top of this file).
public enum BoardFile: Sendable {
    /// The command types a board file's histories hold.
    public static let registry: CommandRegistry = {
        var registry = CommandRegistry()
        registry.register(MoveFigure.self)
        registry.register(InsertFigure.self)
        registry.register(RemoveFigure.self)
        registry.register(SetColor.self)
        registry.register(SetCornerRadius.self)
        return registry
    }()

    /// The name of the board's history in the archive.
    public static let boardHistoryName = "board"

    /// The name of a figure's history in the archive: "figure.<UUID>".
    public static func historyName(of figure: UUID) -> String { "figure.\(figure.uuidString)" }

    /// The fingerprint of a document's encoded line: its SHA-256, in hexadecimal.
    public static func fingerprint(of document: Data) -> String { SHA256.hex(of: document) }

    /// A document as one line of JSON (keys sorted, so the same document always gives the same
    /// bytes, and the same fingerprint).
    public static func encode(_ document: BoardDocument) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    /// A file: the document's line, then the archive's.
    public static func contents(document: Data, archive: Data) -> Data {
        document + Data("\n".utf8) + archive + Data("\n".utf8)
    }

    /// A file for `document` and `histories`, the archive under the document's fingerprint.
    public static func contents(document: BoardDocument, histories: [String: SavedHistory]) throws -> Data {
        let line = try encode(document)
        let archive = try HistoryArchive(fingerprint: fingerprint(of: line), histories: histories).encoded()
        return contents(document: line, archive: archive)
    }

    /// A file's two parts: the document's line and the archive's (empty when the file has none).
    ///
    /// A file that an editor or a checkout wrote back with CRLF line ends, or with a byte order
    /// mark in front, holds the same two lines: those bytes are no part of them, nor of the
    /// fingerprint, so the file still opens with its history (it did not, and said that the
    /// board had changed).
    public static func split(_ data: Data) -> (document: Data, archive: Data) {
        let carriageReturn = UInt8(ascii: "\r")
        let text = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        guard let newline = text.firstIndex(of: UInt8(ascii: "\n")) else { return (Data(text), Data()) }
        var document = text[..<newline]
        if document.last == carriageReturn { document = document.dropLast() }
        var archive = text[text.index(after: newline)...]
        while archive.last == UInt8(ascii: "\n") || archive.last == carriageReturn { archive = archive.dropLast() }
        return (Data(document), Data(archive))
    }

    /// Reads a document's line.
    public static func decodeDocument(_ line: Data) throws(BoardFileError) -> BoardDocument {
        struct Header: Decodable {
            var format: String?
            var version: Int?
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: line),
            header.format == BoardDocument.formatName, let version = header.version
        else {
            throw .notABoardFile("its first line is not a board document")
        }
        guard version <= BoardDocument.formatVersion else { throw .newerVersion(version) }
        do {
            return try JSONDecoder().decode(BoardDocument.self, from: line)
        } catch {
            throw .notABoardFile("the board document does not decode: \(error)")
        }
    }

    /// Opens a board file: the document, then its history when the fingerprint matches.
    ///
    /// - Throws: `BoardFileError` when the document cannot be read; a history that cannot be read
    ///   or does not match is no error (the board opens without it, and `notes` say why).
    @MainActor
    public static func open(_ data: Data) throws(BoardFileError) -> OpenedBoard {
        let (line, archiveData) = split(data)
        let document = try decodeDocument(line)
        let board = try Board(document: document)
        var notes: [String] = []
        var reports: [String: ActionStack.RestoreReport] = [:]
        func withoutHistory(_ reason: String) -> OpenedBoard {
            // The board is as its file has it: saved, with an empty history.
            board.save()
            return OpenedBoard(
                board: board, historyRestored: false, reports: [:], notes: ["\(reason): opened without its history"])
        }
        guard !archiveData.isEmpty else { return withoutHistory("the file holds no history") }
        let archive: HistoryArchive
        do {
            archive = try HistoryArchive(decoding: archiveData, registry: registry)
        } catch {
            return withoutHistory("the history could not be read (\(error))")
        }
        // The histories only if they were saved with the board as it is: a board edited since
        // (by hand, by another program) opens without them.
        let histories: [String: SavedHistory]
        do {
            histories = try archive.histories(forFingerprint: fingerprint(of: line))
        } catch {
            return withoutHistory("the board changed after its history was saved (the fingerprint does not match)")
        }

        // The figures the board's commands name, on the board or off it. Those off it live on only
        // if a restored step holds them (`bind`).
        var known: [UUID: Figure] = [:]
        for figure in board.figures { known[figure.uuid] = figure }
        for record in document.offBoard { known[record.uuid] = Figure(record) }

        func restore(_ name: String, into stack: ActionStack, what: String, resolve: (String) -> AnyObject?) {
            guard var history = histories[name] else { return }
            history = name == boardHistoryName ? bind(history, to: known) : checkRadii(history)
            // The names are shown as they are (titles, `history`, `tree`): one with an escape
            // sequence or a newline, written by hand, would drive the terminal or break the lines.
            for step in history.steps.indices {
                history.steps[step].actionName = Session.printable(history.steps[step].actionName)
            }
            do {
                let report = try stack.restoreHistory(history, resolvingTargets: resolve)
                reports[name] = report
                if report.droppedSteps > 0 || report.trimmedSteps > 0 || !report.omittedWhenSaved.isEmpty {
                    notes.append("\(what): \(report)")
                }
            } catch {
                notes.append("\(what) could not be restored: \(error)")
            }
        }
        restore(boardHistoryName, into: board.undoStack, what: "the board's history") { key in
            key == Board.historyKey ? board : nil
        }
        for figure in known.values.sorted(by: { $0.id < $1.id }) {
            restore(historyName(of: figure.uuid), into: figure.undoStack, what: "figure #\(figure.id)'s history") {
                key in key == figure.historyKey ? figure : nil
            }
        }
        for name in histories.keys.sorted()
        where name != boardHistoryName && !known.keys.contains(where: { historyName(of: $0) == name }) {
            notes.append("the history \"\(name)\" belongs to no figure in the file: left out")
        }
        return OpenedBoard(board: board, historyRestored: true, reports: reports, notes: notes)
    }

    /// The board's history with the figures its commands name bound to them: an `InsertFigure`
    /// holds its figure (as the command that was saved did), and a command that names a figure the
    /// file does not have, a place off the board or an index past the file's figures cannot be
    /// read, so the restore cuts the history there.
    static func bind(_ history: SavedHistory, to figures: [UUID: Figure]) -> SavedHistory {
        var bound = history
        for step in bound.steps.indices {
            for index in bound.steps[step].actions.indices {
                let action = bound.steps[step].actions[index]
                func refuse(_ reason: String) {
                    bound.steps[step].actions[index] = SavedAction(
                        commandType: action.commandType, version: action.version, key: action.key, cost: action.cost,
                        problem: .decodingFailed(type: action.commandType, reason: reason))
                }
                // A value the board's own commands never hold (a file edited by hand) is cut too:
                // a move off the board would leave a figure no picture can draw, and an index past
                // every figure the file has would make the step do nothing while undo names it.
                let named: UUID
                let place: Int?
                switch action.command {
                case let command as MoveFigure:
                    guard Board.contains(command.position) else {
                        refuse("\(command.position) is off the board")
                        continue
                    }
                    (named, place) = (command.figure, nil)
                case let command as RemoveFigure: (named, place) = (command.figure, command.index)
                case let command as InsertFigure: (named, place) = (command.figure, command.index)
                default: continue
                }
                guard let figure = figures[named] else {
                    refuse("no figure \(named.uuidString) in the file")
                    continue
                }
                if let place, !(0..<figures.count).contains(place) {
                    refuse("index \(place) is outside the \(figures.count) figures in the file")
                    continue
                }
                if let insert = action.command as? InsertFigure {
                    bound.steps[step].actions[index] = SavedAction(
                        insert.holding(figure), key: action.key, cost: action.cost)
                }
            }
        }
        return bound
    }
}

extension BoardFile {
    /// A figure's history with each corner radius outside 0...`Figure.maximumCornerRadius` made
    /// unreadable, so that the restore cuts the history there: undoing it would give the figure a
    /// radius the document of its own file is then refused for (a file edited by hand can hold
    /// any value; the figure's commands never do).
    ///
    /// - Complexity: O(*n*) in the actions of `history`.
    static func checkRadii(_ history: SavedHistory) -> SavedHistory {
        var checked = history
        for step in checked.steps.indices {
            for index in checked.steps[step].actions.indices {
                let action = checked.steps[step].actions[index]
                guard let command = action.command as? SetCornerRadius,
                    !(0...Figure.maximumCornerRadius).contains(command.radius)
                else { continue }
                checked.steps[step].actions[index] = SavedAction(
                    commandType: action.commandType, version: action.version, key: action.key, cost: action.cost,
                    problem: .decodingFailed(
                        type: action.commandType, reason: "corner radius \(command.radius) is out of range"))
            }
        }
        return checked
    }
}

extension Figure {
    /// A figure as a file records it, with an empty history.
    convenience init(_ record: FigureRecord) {
        self.init(
            id: record.number, uuid: record.uuid, position: record.position, color: record.color,
            cornerRadius: record.cornerRadius)
    }

    /// The figure as a file records it.
    var record: FigureRecord {
        FigureRecord(uuid: uuid, number: id, position: position, color: color, cornerRadius: cornerRadius)
    }
}

extension Board {
    /// The file for the board as it is: its document and every history, the board's and each
    /// figure's, with the saved state where the board is now (as `save()` will mark it once the
    /// file is written).
    ///
    /// The figures saved are those on the board and those off it that the board's history can
    /// bring back: the figures the history's `InsertFigure` commands hold. Call `save()` after the
    /// file is written, and not before: if writing fails, nothing is marked saved.
    ///
    /// A shared board (`SharedBoard`) gives `remoteVersion`, the place in the shared log that the
    /// board reflects: every history is saved with it (`SavedHistory.remoteVersion`), and when the
    /// board is opened again, the changes logged after it are applied as remote changes, which the
    /// restored steps move past. (It is the app's version, not the stack's own `remoteVersion`,
    /// which names the last change another board made: this board's own changes are in the log
    /// too, and in the saved board.)
    ///
    /// - Throws: `BoardFileError.historyNotSavable` while a change is in progress, or an encoding
    ///   error.
    public func fileContents(remoteVersion: String? = nil) throws -> Data {
        try file(remoteVersion: remoteVersion).data
    }

    /// The file for the board as it is (see `fileContents()`), and what its histories left out,
    /// one line per history that left something out ("figure #2's history: 1 step at and beyond
    /// "Tint", which holds a closure, not a command"), for the user to be told: a save never loses
    /// steps silently. Every step of the example is a command, so nothing is left out unless a
    /// step holds a closure (as one registered with `registerUndo(withTarget:handler:)` would).
    ///
    /// - Throws: As `fileContents()`.
    public func file(remoteVersion: String? = nil) throws -> (data: Data, leftOut: [String]) {
        let parts = try contents(markingSaved: true, remoteVersion: remoteVersion)
        return (BoardFile.contents(document: parts.document, archive: try parts.archive.encoded()), parts.leftOut)
    }

    /// The board as it is, as a file or a journal's record holds it: the document's line, and an
    /// archive of every history (the board's, and each figure's on the board or off it that the
    /// board's history can bring back) under the line's fingerprint; and what the histories left
    /// out. `markingSaved` sets each history's saved state where the board is now, as a file is
    /// written (see `file()`); without it each history keeps its own, as an autosave's record
    /// must: a crash must not make unsaved changes look saved (`BoardAutosave`).
    ///
    /// - Throws: `BoardFileError.historyNotSavable` while a change is in progress, or an encoding
    ///   error.
    func contents(markingSaved: Bool, remoteVersion: String? = nil) throws -> (
        document: Data, archive: HistoryArchive, leftOut: [String]
    ) {
        var histories: [String: SavedHistory] = [:]
        var leftOut: [String] = []
        func history(of stack: ActionStack, named name: String) throws -> SavedHistory {
            var history: SavedHistory
            do {
                history = try stack.savedHistory()
            } catch {
                throw BoardFileError.historyNotSavable(error.description)
            }
            // The file will hold the board as it is now: its history's saved state is the current
            // one. `save()` marks the stacks clean once the file is written, and not before, so a
            // write that fails leaves the board unsaved, as it is.
            if markingSaved { history.clean = history.current }
            if !history.omissions.isEmpty {
                leftOut.append("\(name): " + history.omissions.map(\.description).joined(separator: ", and "))
            }
            if let remoteVersion { history.remoteVersion = remoteVersion }
            return history
        }
        let boardHistory = try history(of: undoStack, named: "the board's history")
        histories[BoardFile.boardHistoryName] = boardHistory
        let removed = figuresOffBoard(in: boardHistory)
        // A figure off the board is saved as it is now, as one on the board is: the file holds
        // it so, and `save()` marks its stack clean too.
        for figure in figures + removed {
            histories[BoardFile.historyName(of: figure.uuid)] = try history(
                of: figure.undoStack, named: "figure #\(figure.id)'s history")
        }
        let document = BoardDocument(
            nextNumber: nextNumber, figures: figures.map(\.record), offBoard: removed.map(\.record))
        let line = try BoardFile.encode(document)
        let archive = HistoryArchive(fingerprint: BoardFile.fingerprint(of: line), histories: histories)
        return (line, archive, leftOut)
    }

    /// A board with the document's figures, and an empty history.
    convenience init(document: BoardDocument) throws(BoardFileError) {
        // A number past what a command reads could not be typed, and the next one could overflow.
        guard (1...Board.largestNumber + 1).contains(document.nextNumber) else {
            throw .invalidDocument(
                "the next figure number \(document.nextNumber) is out of range (1 to \(Board.largestNumber + 1))")
        }
        let all = document.figures + document.offBoard
        var uuids: Set<UUID> = []
        var numbers: Set<Int> = []
        for record in all {
            guard uuids.insert(record.uuid).inserted else {
                throw .invalidDocument("two figures have the UUID \(record.uuid.uuidString)")
            }
            guard record.number >= 1, record.number < document.nextNumber, numbers.insert(record.number).inserted
            else {
                throw .invalidDocument("figure number \(record.number) is repeated, or not below the next number")
            }
            guard Board.contains(record.position) else {
                throw .invalidDocument("figure #\(record.number) is off the board at \(record.position)")
            }
            guard (0...Figure.maximumCornerRadius).contains(record.cornerRadius) else {
                throw .invalidDocument("figure #\(record.number) has corner radius \(record.cornerRadius)")
            }
        }
        self.init()
        restoreContents(figures: document.figures.map(Figure.init), nextNumber: document.nextNumber)
    }
}
