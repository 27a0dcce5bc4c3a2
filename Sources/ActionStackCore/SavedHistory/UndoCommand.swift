// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// An undoable change as a value: a command that can be saved with the history and brought back
/// after a relaunch, where a closure cannot.
///
/// A command performs itself on a target that the app finds again by a key it chooses (a document
/// id, a figure's UUID), and registers its inverse command as it does, the way an undo handler
/// re-registers:
///
/// ```swift
/// struct Recolor: UndoCommand {
///     static let commandType = "board.recolor"
///     var red: Bool
///
///     func perform(on figure: Figure, in stack: ActionStack) {
///         stack.registerUndo(
///             Recolor(red: figure.color == .red), on: figure,
///             key: "figure-1")
///         figure.color = red ? .red : .black
///     }
/// }
/// ```
///
/// Commands and closures mix freely in one history and in one step; a step can be saved when
/// every live action in it is a command (see <doc:SavingTheHistory>).
public protocol UndoCommand: SavableCommand {
    /// The class of the object the command changes.
    associatedtype Target: AnyObject

    /// Makes the change on `target`, registering the inverse command on `stack` (as an undo handler
    /// registers the redo).
    ///
    /// - Parameters:
    ///   - target: The object to change.
    ///   - stack: The stack to register the inverse on.
    func perform(on target: Target, in stack: ActionStack)
}

/// What every command that can be saved has: a stable type name and a version. Adopt
/// ``UndoCommand`` (performed synchronously) or ``AsyncUndoCommand`` (performed asynchronously).
public protocol SavableCommand: Codable, Sendable {
    /// The command's stable name in saved histories ("board.move"): never change it once files
    /// exist.
    static var commandType: String { get }

    /// The version of the command's encoded form, from 1; raise it when the encoding changes, and
    /// give the ``CommandRegistry`` a migration from the older versions.
    static var version: Int { get }
}

extension SavableCommand {
    /// Version 1, unless the command says otherwise.
    public static var version: Int { 1 }
}

/// An undoable change as a value that awaits (a write to a server or a database): the command form
/// of ``ActionStack/registerAsyncUndo(withTarget:handler:)``. It is saved and restored as
/// ``UndoCommand`` is; performing it is an asynchronous operation, which rolls its step back when
/// it throws (see <doc:UndoingThroughAServerOrADatabase>).
public protocol AsyncUndoCommand: SavableCommand {
    /// The class of the object the command changes.
    associatedtype Target: AnyObject

    /// Makes the change on `target`, registering the inverse command on `stack`; runs in the
    /// isolation of whoever performs the operation.
    ///
    /// - Parameters:
    ///   - target: The object to change.
    ///   - stack: The stack to register the inverse on.
    /// - Throws: Whatever keeps the change from being made; the operation then rolls the step back.
    nonisolated(nonsending) func perform(on target: Target, in stack: ActionStack) async throws
}

extension ActionStack {
    /// Registers `command` as the inverse of the change being made: undoing the step performs it on
    /// `target`. Like ``registerUndo(withTarget:handler:)`` in every other way: the target is held
    /// weakly, the same grouping rules apply, and removal by target reaches it.
    ///
    /// `key` is how the app finds `target` again after a relaunch (see
    /// ``restoreHistory(_:resolvingTargets:)``); a step whose live actions are all commands can be
    /// saved.
    ///
    /// - Parameters:
    ///   - command: The inverse of the change.
    ///   - target: The object the command changes.
    ///   - key: The app's key for `target`.
    ///   - options: Coalescing and cost, as for closures (see ``RegistrationOptions``).
    /// - Complexity: O(1) amortized.
    public func registerUndo<Command: UndoCommand>(
        _ command: Command, on target: Command.Target, key: String, options: RegistrationOptions = RegistrationOptions()
    ) {
        registerCommandAction(on: target, key: key, options: options, handler: commandHandler(command))
    }

    /// Registers `command`, which awaits, as the inverse of the change being made: the command form
    /// of ``registerAsyncUndo(withTarget:handler:)``, with its rules. Undoing the step is an
    /// asynchronous operation that performs it on `target`.
    ///
    /// - Parameters:
    ///   - command: The inverse of the change.
    ///   - target: The object the command changes.
    ///   - key: The app's key for `target`.
    /// - Complexity: O(1) amortized.
    public func registerAsyncUndo<Command: AsyncUndoCommand>(
        _ command: Command, on target: Command.Target, key: String
    ) {
        registerAsync(target, commandKey: key, asyncCommandHandler(command))
    }

    /// The stored handler of an asynchronous command action: it hands its work to the runner's
    /// slot, or its command to a capture.
    func asyncCommandHandler<Command: AsyncUndoCommand>(_ command: Command) -> (AnyObject) -> Void {
        let slot = steps.awaitedActionSlot()
        // As for a synchronous command; the work the handler hands over holds the stack only while
        // the operation that runs it does.
        return { [unowned(unsafe) self] object in
            if let capture = object as? CommandCapture {
                capture.command = command
                return
            }
            let target = unsafeDowncast(object, to: Command.Target.self)
            let stack = self
            slot.work = { try await command.perform(on: target, in: stack) }
        }
    }
}

/// The object a command action's handler is called with to hand over its command instead of
/// performing it (the stack knows command actions by their target box, so a closure's handler is
/// never called with it).
final class CommandCapture {
    /// Unchecked: only the saving walk that made the capture reads and writes it, one handler at
    /// a time.
    @exclusivity(unchecked) var command: (any SavableCommand)?
    /// Whether a command handed over had a type whose version is below 1 (the history saved is
    /// then not known to be valid: restoring and encoding validate it, and refuse it).
    @exclusivity(unchecked) var sawVersionBelowOne = false

    init() {}
}

@available(*, unavailable) extension CommandCapture: Sendable {}
