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

// MARK: Scenario 1: one action per explicit group; register all, undo all, redo all.

/// Scenario 1: `n` one-action groups registered, then `n` undos, then `n` redos: `n` steps of
/// register + undo + redo. The model must start at 0; `stack` must be empty, with explicit grouping.
///
/// - Parameters:
///   - n: The number of steps.
///   - stack: The stack.
///   - model: The target.
public func eachSteps(_ n: Int, on stack: ActionStack, model: Model) {
    let start = model.value
    registerGroups(1...n, on: stack, models: [model])
    check(model.value == start + triangle(n), "each: after register \(model.value)")
    for _ in 0..<n { stack.undo() }
    check(model.value == start, "each: after undo \(model.value)")
    for _ in 0..<n { stack.redo() }
    check(model.value == start + triangle(n), "each: after redo \(model.value)")
}

// MARK: Scenario 2: n actions in one group, one undo, one redo.

/// Scenario 2: `n` actions registered in one explicit group, one undo, one redo.
///
/// - Parameters:
///   - n: The number of actions.
///   - stack: An empty stack with explicit grouping.
///   - model: The target.
public func singleSteps(_ n: Int, on stack: ActionStack, model: Model) {
    let start = model.value
    stack.beginUndoGrouping()
    for i in 1...n { bump(model, by: i, on: stack) }
    stack.endUndoGrouping()
    stack.undo()
    check(model.value == start, "single: after undo \(model.value)")
    stack.redo()
    check(model.value == start + triangle(n), "single: after redo \(model.value)")
}

// MARK: Scenario 3: levelsOfUndo with n groups (trimming).

/// Scenario 3: `n` one-action groups on a stack whose ``ActionStack/levelsOfUndo`` is set by the
/// caller (0 for no limit), then every step released.
///
/// - Parameters:
///   - n: The number of groups.
///   - stack: An empty stack with explicit grouping.
///   - model: The target.
public func levelsSteps(_ n: Int, on stack: ActionStack, model: Model) {
    let start = model.value
    registerGroups(1...n, on: stack, models: [model])
    let limit = stack.levelsOfUndo
    check(stack.undoCount == (limit == 0 ? n : min(n, limit)), "levels: count \(stack.undoCount)")
    stack.removeAllActions()
    check(model.value == start + triangle(n), "levels: model \(model.value)")
}

// MARK: Scenario 4: removal by target.

/// The stack of scenario 4: `n` one-action groups spread over `models` round-robin.
///
/// - Parameters:
///   - n: The number of groups.
///   - models: The targets.
/// - Returns: The stack, with explicit grouping and notifications off.
public func removalStack(_ n: Int, models: [Model]) -> ActionStack {
    let stack = explicitStack(notify: false)
    registerGroups(1...n, on: stack, models: models)
    return stack
}

/// Scenario 4's removal: every action of `models[0]` from a ``removalStack(_:models:)``.
///
/// - Parameters:
///   - stack: The stack.
///   - models: The targets it was built with.
///   - n: The number of groups it was built with.
public func removeFirstTarget(from stack: ActionStack, models: [Model], n: Int) {
    stack.removeAllActions(withTarget: models[0])
    let left = n - n / models.count
    check(stack.undoCount == left, "remove: count \(stack.undoCount), want \(left)")
}

/// Scenario 4's check after the removal: undoes what remains; the removed target's amounts stay.
///
/// - Parameters:
///   - stack: The stack after ``removeFirstTarget(from:models:n:)``.
///   - models: The targets.
///   - n: The number of groups.
public func undoRest(of stack: ActionStack, models: [Model], n: Int) {
    for _ in 0..<stack.undoCount { stack.undo() }
    let removedSum = stride(from: models.count, through: n, by: models.count).reduce(0, +)
    let left = models.reduce(0) { $0 + $1.value }
    check(left == removedSum, "remove: left \(left), want \(removedSum)")
    stack.removeAllActions()
}

// MARK: Scenario 5: automatic grouping.

/// Scenario 5 with the program ending each event: ``ActionStack/groupsByEvent`` on,
/// ``ActionStack/automaticGroupClosing`` `.manual`; `events` events of `perEvent` registrations,
/// each ended by ``ActionStack/endEvent()``, then every event undone.
///
/// - Parameters:
///   - events: The number of events.
///   - perEvent: Registrations per event.
///   - stack: An empty stack set up as above.
///   - model: The target.
public func endEventSteps(events: Int, perEvent: Int, on stack: ActionStack, model: Model) {
    let start = model.value
    var k = 0
    for _ in 0..<events {
        for _ in 0..<perEvent {
            k += 1
            bump(model, by: k, on: stack)
        }
        stack.endEvent()
    }
    check(stack.undoCount == events, "endEvent: \(stack.undoCount) groups, want \(events)")
    for _ in 0..<events { stack.undo() }
    check(model.value == start, "endEvent: model \(model.value)")
}

/// A stack for ``endEventSteps(events:perEvent:on:model:)``.
///
/// - Parameter notify: Whether it posts notifications.
/// - Returns: The stack.
public func endEventStack(notify: Bool) -> ActionStack {
    let stack = ActionStack()
    stack.automaticGroupClosing = .manual
    stack.postsNotifications = notify
    return stack
}

/// Scenario 5 with the run loop ending each event: `events` events of `perEvent` registrations,
/// each followed by one pass of the current run loop (which closes the automatic group), then
/// every event undone.
///
/// - Parameters:
///   - events: The number of events.
///   - perEvent: Registrations per event.
///   - stack: An empty stack with ``ActionStack/groupsByEvent`` on.
///   - model: The target.
public func runLoopSteps(events: Int, perEvent: Int, on stack: ActionStack, model: Model) {
    let start = model.value
    var k = 0
    for _ in 0..<events {
        for _ in 0..<perEvent {
            k += 1
            bump(model, by: k, on: stack)
        }
        _ = RunLoop.current.run(mode: .default, before: Date.distantPast)
    }
    check(stack.undoCount == events, "automatic: \(stack.undoCount) groups, want \(events)")
    for _ in 0..<events { stack.undo() }
    check(model.value == start, "automatic: model \(model.value)")
}

// MARK: Queries

/// `count` reads of ``ActionStack/canUndo`` and ``ActionStack/undoMenuItemTitle``, as a menu that
/// validates on every event does.
///
/// - Parameters:
///   - count: The number of reads of each.
///   - stack: A stack with something to undo.
/// - Returns: The total length of the titles (so the reads are not optimised away).
@discardableResult
public func queries(_ count: Int, on stack: ActionStack) -> Int {
    var total = 0
    for _ in 0..<count {
        check(stack.canUndo, "queries: nothing to undo")
        total &+= stack.undoMenuItemTitle.utf8.count
    }
    return total
}
