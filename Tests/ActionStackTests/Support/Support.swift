// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation
import Testing

/// A model object to undo changes on: a value and a log of the handler calls it received.
final class Counter {
    let name: String
    var value = 0
    var log: [String] = []

    init(_ name: String = "c", value: Int = 0) {
        self.name = name
        self.value = value
    }

    /// Sets the value and registers the inverse, which in turn registers its own inverse (so undo
    /// and redo both work), the way an app writes an undoable setter.
    func set(_ newValue: Int, on stack: ActionStack) {
        let old = value
        stack.registerUndo(withTarget: self) { counter in
            counter.log.append("\(counter.name)=\(old)")
            counter.set(old, on: stack)
        }
        value = newValue
    }
}

/// A stack with the internal invariant check running after every mutating call.
func makeStack(groupsByEvent: Bool = false, dropsEmptyGroups: Bool = false) -> ActionStack {
    let stack = ActionStack()
    stack._checksInvariantsAfterEveryMutation = true
    stack.groupsByEvent = groupsByEvent
    stack.dropsEmptyGroups = dropsEmptyGroups
    stack.misusePolicy = .report
    return stack
}

/// One observed notification: its short name and what the stack looked like then.
struct Observed: Equatable, CustomStringConvertible {
    var name: String
    var isUndoing: Bool
    var isRedoing: Bool
    var groupingLevel: Int
    var discardable: Bool
    var hasUserInfo: Bool

    var description: String { name }
}

/// Records the eight notifications a stack posts on the real `NotificationCenter.default`.
final class NotificationRecorder: @unchecked Sendable {  // state guarded by `lock`
    static let names: [(Notification.Name, String)] = [
        (ActionStack.checkpointNotification, "C"),
        (ActionStack.didOpenUndoGroupNotification, "DidOpen"),
        (ActionStack.willCloseUndoGroupNotification, "WillClose"),
        (ActionStack.didCloseUndoGroupNotification, "DidClose"),
        (ActionStack.willUndoChangeNotification, "WillUndo"),
        (ActionStack.didUndoChangeNotification, "DidUndo"),
        (ActionStack.willRedoChangeNotification, "WillRedo"),
        (ActionStack.didRedoChangeNotification, "DidRedo"),
    ]

    private let lock = NSLock()
    private var events: [Observed] = []
    private var tokens: [any NSObjectProtocol] = []

    init(_ stack: ActionStack) {
        let center = NotificationCenter.default
        var made: [any NSObjectProtocol] = []
        for (name, short) in Self.names {
            made.append(
                center.addObserver(forName: name, object: stack, queue: nil) { [unowned self] note in
                    // The stack posts synchronously on the thread that uses it, so reading it here
                    // happens inside that thread's call.
                    guard let stack = note.object as? ActionStack else { return }
                    let observed = Observed(
                        name: short,
                        isUndoing: stack.isUndoing,
                        isRedoing: stack.isRedoing,
                        groupingLevel: stack.groupingLevel,
                        discardable: (note.userInfo?[ActionStack.groupIsDiscardableUserInfoKey] as? Bool) == true,
                        hasUserInfo: note.userInfo != nil
                    )
                    lock.withLock { events.append(observed) }
                }
            )
        }
        tokens = made
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }

    /// Everything observed so far.
    var all: [Observed] { lock.withLock { events } }
    /// The names observed so far, checkpoints included.
    var names: [String] { all.map(\.name) }
    /// The names observed so far, without checkpoints.
    var withoutCheckpoints: [String] { names.filter { $0 != "C" } }

    func reset() { lock.withLock { events.removeAll() } }
}

/// Adds an observer for one notification of `stack` that runs `body` synchronously; returns the
/// token to remove.
func observe(
    _ name: Notification.Name,
    of stack: ActionStack,
    _ body: @escaping @Sendable (ActionStack) -> Void
) -> any NSObjectProtocol {
    NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) { note in
        if let stack = note.object as? ActionStack { body(stack) }
    }
}

/// Spins the current thread's run loop once, so a scheduled automatic close runs.
func spinRunLoop() {
    _ = RunLoop.current.run(mode: .default, before: Date())
}

/// Runs one closed group of registrations.
func group(_ stack: ActionStack, named name: String? = nil, _ body: () -> Void) {
    stack.beginUndoGrouping()
    body()
    if let name { stack.setActionName(name) }
    stack.endUndoGrouping()
}

/// Tracks whether an object was freed.
final class LifetimeTracker: @unchecked Sendable {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
    var isAlive: Bool { object != nil }
}

/// Something a handler captures, to check when the stack lets it go.
final class Captured {}

/// Observes one notification of `stack` for the life of the value.
final class NotificationHook {
    private let token: any NSObjectProtocol
    init(_ name: Notification.Name, _ stack: ActionStack, _ body: @escaping @Sendable (ActionStack) -> Void) {
        token = observe(name, of: stack, body)
    }
    deinit { NotificationCenter.default.removeObserver(token) }
}

/// A flag that a `@Sendable` notification block may set (the stack posts on the test's thread).
final class Flag: @unchecked Sendable {
    var isSet = false
    var count = 0
}

/// Every misuse a stack reports, in order (with the `.report` policy).
final class MisuseLog {
    private(set) var all: [ActionStack.Misuse] = []
    init(_ stack: ActionStack) {
        stack.misusePolicy = .report
        stack.onMisuse = { [unowned self] in self.all.append($0) }
    }
}

struct Failure: Error, Equatable {}
