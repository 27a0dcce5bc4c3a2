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
class CommandKind {
    /// Whether performing the command awaits (an ``AsyncUndoCommand``).
    let isAsync: Bool

    /// The kind of `command`'s type; nil for a type that is neither an ``UndoCommand`` nor an
    /// ``AsyncUndoCommand`` (one that adopted only ``SavableCommand``: it cannot be performed).
    static func of(_ command: any SavableCommand) -> CommandKind? {
        if let command = command as? any AsyncUndoCommand { return asynchronous(command) }
        if let command = command as? any UndoCommand { return synchronous(command) }
        return nil
    }

    fileprivate init(isAsync: Bool) {
        self.isAsync = isAsync
    }

    /// Whether `object` is of the class the command changes.
    ///
    /// - Complexity: O(1).
    func fits(_ object: AnyObject) -> Bool { false }

    /// The stored handler of an action that performs `command` (whose type is this kind's) on
    /// `stack`.
    ///
    /// - Complexity: O(1).
    func makeHandler(_ command: any SavableCommand, _ stack: ActionStack) -> (AnyObject) -> Void {
        preconditionFailure("a command kind of no type")
    }

    private static func synchronous<Command: UndoCommand>(_: Command) -> CommandKind {
        SynchronousCommandKind<Command>(isAsync: false)
    }

    private static func asynchronous<Command: AsyncUndoCommand>(_: Command) -> CommandKind {
        AsynchronousCommandKind<Command>(isAsync: true)
    }

    /// `command`, whose dynamic type is `Command` (``RestoreCache`` finds a kind by the command's
    /// dynamic type), as a `Command`: the existential is opened and its value taken as it is,
    /// where `as!` would ask the runtime to cast.
    fileprivate static func unbox<Command: SavableCommand>(
        _ command: any SavableCommand, as _: Command.Type
    ) -> Command {
        func take<Dynamic: SavableCommand>(_ value: Dynamic) -> Command {
            precondition(Dynamic.self == Command.self, "a command kind used for another type")
            return unsafeBitCast(value, to: Command.self)
        }
        return take(command)
    }
}

// The kinds are subclasses with methods, not one class with closures: calling a closure stored in
// an object retains and releases its context, twice per restored action.

/// The kind of an ``UndoCommand`` type.
private final class SynchronousCommandKind<Command: UndoCommand>: CommandKind {
    override func fits(_ object: AnyObject) -> Bool { object is Command.Target }

    override func makeHandler(_ command: any SavableCommand, _ stack: ActionStack) -> (AnyObject) -> Void {
        stack.commandHandler(Self.unbox(command, as: Command.self))
    }
}

/// The kind of an ``AsyncUndoCommand`` type.
private final class AsynchronousCommandKind<Command: AsyncUndoCommand>: CommandKind {
    override func fits(_ object: AnyObject) -> Bool { object is Command.Target }

    override func makeHandler(_ command: any SavableCommand, _ stack: ActionStack) -> (AnyObject) -> Void {
        stack.asyncCommandHandler(Self.unbox(command, as: Command.self))
    }
}

/// What one restore looks up again and again: the kinds of the command types it meets, the
/// objects of the target keys, and the metadata of the step restored last.
struct RestoreCache {
    private var kinds: [ObjectIdentifier: CommandKind?] = [:]
    private var lastType: ObjectIdentifier?
    private var lastKind: Unmanaged<CommandKind>?
    /// The metadata of the step restored last, which the next step shares when it is alike.
    var lastMetadata: StepMetadata?
    /// The objects of the target keys (resolved before the restore changes anything).
    private var objects: [String: AnyObject]
    private var lastKey: String?
    private var lastObject: Unmanaged<AnyObject>?

    /// A cache for a restore whose keys resolved to `objects`.
    init(objects: [String: AnyObject] = [:]) { self.objects = objects }

    // Both lookups return their result unretained: the cache holds every object and every kind
    // for as long as it lives, and a restore looks them up at every action, where a retain and a
    // release of each (an object a stack holds weakly takes the slow path) cost more than the
    // rest of the look-up.

    /// The object of `key`, which resolved to one, unretained (the cache holds it).
    ///
    /// - Complexity: O(1).
    mutating func object(for key: String) -> Unmanaged<AnyObject>? {
        if key == lastKey { return lastObject }
        lastKey = key
        lastObject = objects[key].map { Unmanaged.passUnretained($0) }
        return lastObject
    }

    /// The kind of `command`'s type, unretained (the cache holds it).
    ///
    /// - Complexity: O(1); the first command of a type pays for its conformance lookup.
    mutating func kind(of command: any SavableCommand) -> Unmanaged<CommandKind>? {
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
        lastKind = kind.map { Unmanaged.passUnretained($0) }
        return lastKind
    }
}
