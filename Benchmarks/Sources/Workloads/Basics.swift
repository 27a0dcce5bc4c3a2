// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The work each benchmark scenario does, written once and timed by every harness: the ratio table
// (ActionStackBenchmarks), package-benchmark's counters (Benchmarks/ActionStackMetrics) and
// callgrind (ActionStackBenchmarks --callgrind).
//
// Every function checks its result against a closed form, so a broken run stops instead of
// measuring nothing.

import ActionStack

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A model that every action does real work on.
public final class Model {
    /// The value the actions add to and subtract from.
    public var value = 0

    /// A model with value 0.
    public init() {}
}

/// Stops the process when a check fails: a benchmark whose work is wrong measures nothing.
///
/// - Parameters:
///   - condition: What must hold.
///   - message: What to print when it does not.
public func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        print("CHECK FAILED: \(message())")
        exit(1)
    }
}

/// 1 + 2 + ... + n.
///
/// - Parameter n: The last term.
/// - Returns: The sum.
public func triangle(_ n: Int) -> Int { n * (n + 1) / 2 }

/// A stack with explicit grouping (``ActionStack/groupsByEvent`` off), posting notifications or not.
///
/// - Parameter notify: Whether the stack posts its notifications.
/// - Returns: The stack.
public func explicitStack(notify: Bool) -> ActionStack {
    let stack = ActionStack()
    stack.groupsByEvent = false
    stack.postsNotifications = notify
    return stack
}

/// Adds `k` to the model and registers the inverse, which registers its own inverse (the redo).
///
/// The handler captures `k` and the stack, so each registration allocates one closure context, as
/// a client's handler does.
///
/// - Parameters:
///   - model: The target.
///   - k: The amount.
///   - stack: The stack to register on.
@inline(never)
public func bump(_ model: Model, by k: Int, on stack: ActionStack) {
    model.value += k
    stack.registerUndo(withTarget: model) { model in bump(model, by: -k, on: stack) }
}

/// Registers `+first`, ..., `+last`, one action per explicit group, on the models in turn.
///
/// - Parameters:
///   - range: The amounts, one group each.
///   - stack: A stack with explicit grouping.
///   - models: The targets, used round-robin by amount.
public func registerGroups(_ range: ClosedRange<Int>, on stack: ActionStack, models: [Model]) {
    for i in range {
        stack.beginUndoGrouping()
        bump(models[i % models.count], by: i, on: stack)
        stack.endUndoGrouping()
    }
}
