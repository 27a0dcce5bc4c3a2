// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// What a restore needs to know of a command's type: whether it awaits, whether an object is of the
/// class it changes, and how to make the stored handler that performs it.
///
/// A saved action holds its command as `any SavableCommand`; learning that it is an
/// ``UndoCommand`` (or an ``AsyncUndoCommand``) and of what target class takes a lookup of the
/// conformance, which costs more than all the rest of restoring the action. ``RestoreCache`` does
/// it once per command type and restore.
final class CommandKind {
    /// Whether performing the command awaits (an ``AsyncUndoCommand``).
    let isAsync: Bool
    /// Whether `object` is of the class the command changes.
    let fits: (AnyObject) -> Bool
    /// The stored handler of an action that performs `command` (whose type is this kind's) on
    /// `stack`.
    let makeHandler: (_ command: any SavableCommand, _ stack: ActionStack) -> (AnyObject) -> Void

    /// The kind of `command`'s type; nil for a type that is neither an ``UndoCommand`` nor an
    /// ``AsyncUndoCommand`` (one that adopted only ``SavableCommand``: it cannot be performed).
    static func of(_ command: any SavableCommand) -> CommandKind? {
        if let command = command as? any AsyncUndoCommand { return asynchronous(command) }
        if let command = command as? any UndoCommand { return synchronous(command) }
        return nil
    }

    private init(
        isAsync: Bool, fits: @escaping (AnyObject) -> Bool,
        makeHandler: @escaping (any SavableCommand, ActionStack) -> (AnyObject) -> Void
    ) {
        self.isAsync = isAsync
        self.fits = fits
        self.makeHandler = makeHandler
    }

    private static func synchronous<Command: UndoCommand>(_: Command) -> CommandKind {
        CommandKind(
            isAsync: false, fits: { $0 is Command.Target },
            makeHandler: { command, stack in stack.commandHandler(unbox(command, as: Command.self)) })
    }

    private static func asynchronous<Command: AsyncUndoCommand>(_: Command) -> CommandKind {
        CommandKind(
            isAsync: true, fits: { $0 is Command.Target },
            makeHandler: { command, stack in stack.asyncCommandHandler(unbox(command, as: Command.self)) })
    }

    /// `command`, whose dynamic type is `Command` (``RestoreCache`` finds a kind by the command's
    /// dynamic type), as a `Command`: the existential is opened and its value taken as it is,
    /// where `as!` would ask the runtime to cast.
    private static func unbox<Command: SavableCommand>(_ command: any SavableCommand, as _: Command.Type) -> Command {
        func take<Dynamic: SavableCommand>(_ value: Dynamic) -> Command {
            precondition(Dynamic.self == Command.self, "a command kind used for another type")
            return unsafeBitCast(value, to: Command.self)
        }
        return take(command)
    }
}

/// What one restore looks up again and again: the kinds of the command types it meets, the
/// objects of the target keys, and the metadata of the step restored last.
struct RestoreCache {
    private var kinds: [ObjectIdentifier: CommandKind?] = [:]
    private var lastType: ObjectIdentifier?
    private var lastKind: CommandKind?
    /// The metadata of the step restored last, which the next step shares when it is alike.
    var lastMetadata: StepMetadata?
    /// The objects of the target keys (resolved before the restore changes anything).
    private var objects: [String: AnyObject]
    private var lastKey: String?
    private var lastObject: AnyObject?

    /// A cache for a restore whose keys resolved to `objects`.
    init(objects: [String: AnyObject] = [:]) { self.objects = objects }

    /// The object of `key`, which resolved to one.
    ///
    /// - Complexity: O(1).
    mutating func object(for key: String) -> AnyObject? {
        if key == lastKey { return lastObject }
        lastKey = key
        lastObject = objects[key]
        return lastObject
    }

    /// The kind of `command`'s type.
    ///
    /// - Complexity: O(1); the first command of a type pays for its conformance lookup.
    mutating func kind(of command: any SavableCommand) -> CommandKind? {
        let type = ObjectIdentifier(Swift.type(of: command))
        if type == lastType { return lastKind }
        let kind: CommandKind?
        if let known = kinds[type] {
            kind = known
        } else {
            kind = CommandKind.of(command)
            kinds[type] = kind
        }
        lastType = type
        lastKind = kind
        return kind
    }
}
