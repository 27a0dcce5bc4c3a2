// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStack

/// The `todo` program without its terminal: it takes one command line at a time and answers with
/// the lines to print (what happened, the list, and the Undo and Redo titles). The executable and
/// the tests both drive it.
@MainActor
public final class TodoSession {
    /// The list being edited.
    public let list: TodoList
    /// Set by `quit`.
    public private(set) var isFinished = false

    /// The commands, for `help`.
    public static let help = """
        commands:
          add TEXT          add an item at the end
          rename N TEXT     change item N's text
          done N            mark item N done, or not done when it is
          remove N          remove item N
          clear             remove every done item, in one step (one database write per item)
          undo, redo        undo or redo the last step, through the database
          list              show the list
          fail on|off       make the database refuse every write to the items, or stop refusing
          fail after K      let K writes succeed, refuse the next one, then stop refusing
          help, quit
        """

    /// The commands that take no argument.
    private static let takingNoArgument: Set = ["clear", "undo", "redo", "list", "help", "quit"]

    /// Creates a session over `list`.
    public init(list: TodoList) {
        self.list = list
    }

    /// The list and the state of its Undo and Redo buttons: `[Undo Name]` when enabled,
    /// `(Undo)` when not.
    public func render() -> [String] {
        var lines = list.items.isEmpty ? ["  (no items)"] : []
        for (offset, item) in list.items.enumerated() {
            lines.append("  \(offset + 1). [\(item.isDone ? "x" : " ")] \(item.text)")
        }
        let stack = list.undoStack
        let undo = stack.canUndo ? "[\(stack.undoMenuItemTitle)]" : "(Undo)"
        let redo = stack.canRedo ? "[\(stack.redoMenuItemTitle)]" : "(Redo)"
        lines.append("todo: \(undo) \(redo)")
        return lines.map(Self.printable)
    }

    /// Handles one command line; returns what to print (then the list and the buttons).
    public func handle(_ line: String) async -> [String] {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let command = words.first.map(String.init) else { return [] }
        let rest = line.drop { $0 == " " }.dropFirst(command.count).drop { $0 == " " }
        // A command that takes no argument refuses one: `undo 3` must not undo one step as if it
        // had undone three, nor `quit now` or `clear 2` pass for what they say.
        if Self.takingNoArgument.contains(command) && !rest.isEmpty {
            return ["error: \(command) takes no arguments"] + render()
        }
        let answer: [String]
        do {
            switch command {
            case "add": answer = try await add(String(rest))
            case "rename": answer = try await rename(String(rest))
            case "done": answer = try await toggle(String(rest))
            case "remove": answer = try await remove(String(rest))
            case "clear": answer = try await clear()
            case "undo": answer = await undo()
            case "redo": answer = await redo()
            case "list": answer = []
            case "fail": answer = try await fail(String(rest))
            case "help": return Self.help.split(separator: "\n").map(String.init)
            case "quit":
                isFinished = true
                return ["bye"]
            default: answer = ["error: unknown command '\(command)'; type help for the list"]
            }
        } catch {
            answer = ["error: \(error)"]
        }
        return answer.map(Self.printable) + render()
    }

    /// `text` as it can be printed: a tab is a space, and each character that is or holds a control
    /// character (escape, carriage return, NUL, ...), an invisible format character (a
    /// bidirectional override such as U+202E, a zero-width space) or a line or paragraph separator
    /// is shown as "?". An item's text is stored as typed (an arrow key that a terminal without
    /// line editing passes on is an escape sequence in it, and a database file may come from
    /// anyone), so printing it as it is could move the cursor, clear the screen or make the list
    /// show a text that is not the one stored. The joiners that emoji sequences and some scripts
    /// are written with (U+200D, U+200C) are kept.
    public static func printable(_ text: String) -> String {
        String(
            text.map { character in
                character == "\t" ? " " : character.unicodeScalars.contains(where: isHidden) ? "?" : character
            })
    }

    /// Whether printing `scalar` as it is could hide or rearrange text, or drive the terminal.
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        case .format: scalar != "\u{200D}" && scalar != "\u{200C}"
        default: false
        }
    }

    // MARK: Commands

    private func add(_ text: String) async throws -> [String] {
        guard !text.isEmpty else { return ["error: add needs a text: add TEXT"] }
        let item = try await list.add(text)
        return ["added \(TodoList.quote(item.text))"]
    }

    private func rename(_ arguments: String) async throws -> [String] {
        let parts = arguments.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let item = try item(String(parts[0])) else {
            return ["error: rename needs an item number and a text: rename N TEXT"]
        }
        try await list.rename(item.id, to: String(parts[1]))
        return ["renamed \(TodoList.quote(item.text)) to \(TodoList.quote(String(parts[1])))"]
    }

    private func toggle(_ argument: String) async throws -> [String] {
        guard let item = try item(argument) else { return ["error: done needs an item number: done N"] }
        try await list.toggle(item.id)
        return ["\(TodoList.quote(item.text)) is \(item.isDone ? "not done" : "done")"]
    }

    private func remove(_ argument: String) async throws -> [String] {
        guard let item = try item(argument) else { return ["error: remove needs an item number: remove N"] }
        try await list.remove(item.id)
        return ["removed \(TodoList.quote(item.text))"]
    }

    private func clear() async throws -> [String] {
        let removed = try await list.clearDone()
        return ["removed \(removed.count) done item\(removed.count == 1 ? "" : "s")"]
    }

    private func undo() async -> [String] {
        let stack = list.undoStack
        guard stack.canUndo else { return ["error: nothing to undo"] }
        let title = stack.undoMenuItemTitle
        do {
            try await stack.performUndo()
            return [title]
        } catch {
            return ["error: \(title) failed: \(Self.explain(error))\(await discardBrokenStep())"]
        }
    }

    private func redo() async -> [String] {
        let stack = list.undoStack
        guard stack.canRedo else { return ["error: nothing to redo"] }
        let title = stack.redoMenuItemTitle
        do {
            try await stack.performRedo()
            return [title]
        } catch {
            return ["error: \(title) failed: \(Self.explain(error))\(await discardBrokenStep())"]
        }
    }

    /// Takes a broken step out of the history, if the operation that just failed left one, and
    /// reads the list again; returns what to add to the error, or "" when no step is broken.
    ///
    /// Until a broken step is discarded or retried, the stack refuses every undo and redo, and the
    /// user of `todo` has no command for either. A retry would not help: it runs every action of
    /// the step again, from the state the database is in, and the rows already put back are there.
    private func discardBrokenStep() async -> String {
        guard list.undoStack.brokenStep != nil else { return "" }
        list.undoStack.discardBrokenStep()
        // The list is what the database holds already (a write that fails changes neither), unless
        // another connection changed the rows; reading them again shows what is there.
        try? await list.reload()
        return ": it leaves the history, and the list shows what the database holds"
    }

    private func fail(_ argument: String) async throws -> [String] {
        let words = argument.split(separator: " ")
        switch words.first {
        case "on" where words.count == 1:
            try await list.database.setRefusesWrites(true)
            return ["the database now refuses every write to the items"]
        case "off" where words.count == 1:
            try await list.database.setRefusesWrites(false)
            return ["the database accepts writes again"]
        case "after" where words.count == 2:
            guard let count = Int(words[1]), count >= 0 else { break }
            try await list.database.refuseWrite(after: count)
            return ["the database will accept \(count) write\(count == 1 ? "" : "s"), then refuse one"]
        default:
            break
        }
        return ["error: fail needs on, off or after K"]
    }

    /// The item numbered `argument` (from 1) in the list; nil when `argument` is not a number.
    ///
    /// - Throws: ``NoSuchItem`` when it is a number that names no item, so that the error says so
    ///   rather than asking for a number.
    private func item(_ argument: String) throws -> TodoItem? {
        guard let number = Int(argument.trimmingPrefix(" ")) else { return nil }
        guard list.items.indices.contains(number - 1) else { throw NoSuchItem(number: number, count: list.items.count) }
        return list.items[number - 1]
    }

    /// A command named an item number that the list does not have.
    private struct NoSuchItem: Error, CustomStringConvertible {
        var number: Int
        var count: Int
        var description: String {
            "there is no item \(number); " + (count == 0 ? "the list is empty" : "the list has \(count)")
        }
    }

    /// Says which action failed, why, and what the rollback did, for a person.
    ///
    /// Actions are counted as the library counts them (`ActionFailure.actionIndex`): within the
    /// step, in the order they were registered, from 0, whatever the order they ran in (an undo
    /// runs them newest first). `clear` registers one action per row removed, so "action 0 of 2"
    /// is the first row it removed, which the undo puts back last.
    public static func explain(_ error: ActionStack.OperationError) -> String {
        guard let failure = error.actionFailure else { return "\(error)" }
        let rollback = failure.rollback
        let outcome: String
        if rollback.isRestored {
            outcome = "the rollback restored the list; the step can be tried again"
        } else if let actions = rollback.unrestoredActions {
            outcome = "the rollback could not undo actions \(actions); the list is changed"
        } else if let index = rollback.failedActionIndex {
            let reason = rollback.error.map { "\($0)" } ?? ""
            outcome = "the rollback failed at action \(index) (\(reason)); the step is broken"
        } else {
            // An outcome that a later version of ActionStack adds: its own sentence.
            outcome = "\(rollback)"
        }
        return "action \(failure.actionIndex) of \(failure.actionCount) failed: \(failure.underlying); \(outcome)"
    }
}
