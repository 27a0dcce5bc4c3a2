// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The remote-changes concern of one stack: how many changes from elsewhere were reported, the
/// app's version of the last one, and the rules by which the stored steps move past them.
///
/// A stack makes it on the first ``ActionStack/applyRemoteChange(_:version:_:)``; a stack that
/// never hears of one has none, and its synchronous paths pay one `nil` check.
///
/// **Where a change waits.** Rebasing is lazy. Each closed step holds, in its metadata, the remote
/// changes it has not been rebased over yet, as they read in the document the step applies to
/// (its `unseenChanges`). Every step of the history applies at one node of the history: an undo
/// step at the node it leads to, a redo step (or a branch's step) at the node it leaves from. A
/// change reported now reads in the current node's document; it is handed to every step that
/// applies there: the newest undo step, the newest redo step, and the newest step of each branch
/// that leaves from the current node. When a step is rebased (before it is performed, when it is
/// the next step of a menu, when the history is saved), it is rewritten over its unseen changes
/// one by one, and each change is carried past it (``RebasableCommand/transform(_:)``): the
/// carried changes read at the step's far node, and are handed to every step that applies there
/// except the rebased one. A change thus travels outward from where it was reported, one step at a
/// time, only as far as someone looks.
///
/// **Dead steps.** A step whose every action is a rebasable command that has nothing left to do
/// is dead: the stack drops it when it finds it (as a step whose targets were freed), and the
/// changes it had not seen pass on unchanged. Closure actions and commands that do not rebase are
/// never rewritten and never die of a remote change.
final class RemoteChanges {
    /// The number of remote changes reported.
    var count: UInt64 = 0
    /// The app's version of the last remote change reported, if it gave one.
    var version: String?
    /// Makes the stored handler of a command action holding a command, as the stack's registration
    /// makes it (a rewritten command is stored again in its action's place).
    let makeHandler: (any SavableCommand) -> ((AnyObject) -> Void)?
    /// How the changes a step holds are kept short (which types merge, learned once).
    let log = RemoteChangeLog()

    init(makeHandler: @escaping (any SavableCommand) -> ((AnyObject) -> Void)?) {
        self.makeHandler = makeHandler
    }

    /// Rebases the actions from `start` to `end` of `side` (one step, or open groups), which run
    /// newest first, over `changes`: each rebasable command is rewritten in place, and the changes
    /// are carried past it. Returns the changes as they read once every action has run, and the
    /// absolute indices of the commands left with nothing to do (still stored).
    ///
    /// - Complexity: O(a · r) for the a actions and r changes.
    func rebaseActions(
        of side: Side, from start: Int, to end: Int, over changes: [any Sendable]
    ) -> (carried: [any Sendable], dead: [Int]) {
        var carried = changes
        var dead: [Int] = []
        var index = end - 1
        while index >= start && !carried.isEmpty {
            let action = side.action(at: index)
            if let rebased = rebased(action, over: carried) {
                carried = rebased.carried
                if let handler = rebased.handler {
                    side.replaceHandler(at: index, with: handler)
                } else if rebased.isDead {
                    dead.append(index)
                }
            }
            index -= 1
        }
        return (carried, dead)
    }

    /// One action rebased over `changes`: nil when it is not a rebasable command (the changes pass
    /// it unchanged); otherwise the changes as they read past it, whether it has nothing left to do,
    /// and the new stored handler when its command was rewritten.
    func rebased(
        _ action: Action, over changes: [any Sendable]
    ) -> (carried: [any Sendable], isDead: Bool, handler: ((AnyObject) -> Void)?)? {
        guard let rebase = CommandRebase(action, over: changes) else { return nil }
        guard let rewritten = rebase.command else { return (rebase.carried, true, nil) }
        guard rebase.changed else { return (rebase.carried, false, nil) }
        return (rebase.carried, false, makeHandler(rewritten))
    }
}

@available(*, unavailable) extension RemoteChanges: Sendable {}

/// The command of one action, rebased over the remote changes a step had not seen, in order.
struct CommandRebase {
    /// The command now; nil when it has nothing left to do.
    var command: (any RebasableCommand)?
    /// The changes as they read once the command has run.
    var carried: [any Sendable] = []
    /// Whether the command changed (it must be stored again).
    var changed = false

    /// The command of `action` (taken out of its handler, a copy) rebased over `changes`; nil when
    /// the action is not a rebasable command (the changes pass it unchanged).
    init?(_ action: Action, over changes: [any Sendable]) {
        guard action.box.commandKey != nil else { return nil }
        let capture = CommandCapture()
        action.handler(capture)
        guard let command = capture.command as? any RebasableCommand else { return nil }
        self.init(command, over: changes)
    }

    /// Rebases `command` over `changes`, oldest first.
    init(_ command: any RebasableCommand, over changes: [any Sendable]) {
        self.command = command
        carried.reserveCapacity(changes.count)
        for change in changes {
            guard let current = self.command else {
                // A command with nothing left to do no longer changes anything: changes pass.
                carried.append(change)
                continue
            }
            let (rebased, transformed, matched) = Self.rebase(current, change)
            if matched {
                self.command = rebased
                changed = true
            }
            if let transformed { carried.append(transformed) }
        }
    }

    private static func rebase<Command: RebasableCommand>(
        _ command: Command, _ change: any Sendable
    ) -> (command: (any RebasableCommand)?, change: (any Sendable)?, matched: Bool) {
        let (rebased, transformed, matched) = command.rebase(with: change)
        return (rebased, transformed, matched)
    }
}

/// The remote changes a step has not seen, kept short: a change that can be merged with the one
/// before it (``MergeableChange``, of the same type) is merged into it, so that a peer's burst of
/// typing waits as one change, and a step rebased later pays for one. Changes of a class type never
/// merge: they are held by reference, and a merge would change an object others hold.
///
/// Whether a type merges is learned once per type and kept (the last type seen), so that a
/// change of the same type as the one before it costs two casts to its own type, not a search for a
/// conformance (a change reported to a stack paid 2.0 times the change alone with the search).
final class RemoteChangeLog {
    /// The type of the last change appended, and how changes of that type merge (nil: they do not).
    private var lastType: ObjectIdentifier?
    private var lastMerge: ((inout [any Sendable], any Sendable) -> Bool)?

    /// Appends `change` to `log`, merged into the last change when both can be.
    ///
    /// - Complexity: O(1) amortized, plus the merge (which an in-place merge makes O(1) amortized
    ///   per element of `change`: the last change is taken out of `log`, so it is held once).
    func append(_ change: any Sendable, to log: inout [any Sendable]) {
        // Only changes of one type merge: compare the types before asking how they merge.
        guard !log.isEmpty else { return log.append(change) }
        let type = ObjectIdentifier(Swift.type(of: change))
        guard ObjectIdentifier(Swift.type(of: log[log.count - 1])) == type else { return log.append(change) }
        if lastType != type {
            lastType = type
            // A change of a class type is shared (the steps on each side of the current node
            // hold the same object, and so may the app): merging would change it under them, so
            // only value types merge.
            lastMerge =
                Swift.type(of: change) is AnyClass ? nil : (change as? any MergeableChange).map { Self.merging($0) }
        }
        guard let merge = lastMerge, merge(&log, change) else { return log.append(change) }
    }

    /// How changes of the type of `change` merge: the last change of a log (of that type) is taken
    /// out, merged with the next (of that type too), and put back; false when they stay apart.
    ///
    /// The caller compared the types, so the changes are opened as `Change` without a cast (a
    /// cast to a generic type looks up its optional's metadata on every call).
    private static func merging<Change: MergeableChange>(
        _ change: Change
    ) -> (inout [any Sendable], any Sendable) -> Bool {
        func typed<Value>(_ value: Value) -> Change {
            precondition(Value.self == Change.self, "a change merged with a change of another type")
            return unsafeBitCast(value, to: Change.self)
        }
        return { log, next in
            guard var last = log.popLast() else { return false }
            let next = _openExistential(next, do: typed)
            var first = _openExistential(last, do: typed)
            last = ()  // The log's copy goes, so the change taken out is held once.
            let merged = first.merge(next)
            log.append(first)
            return merged
        }
    }
}

@available(*, unavailable) extension RemoteChangeLog: Sendable {}
