// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

// MARK: Closure stacks: what a careful hand-written undo stack does.

/// Two arrays of closures: the smallest undo stack with redo. Registering pushes a closure on the
/// undo array (on the redo array while undoing, and a registration outside undo and redo empties
/// the redo array); undo pops the newest closure and calls it, and the closure registers its
/// inverse, which lands on the redo array; redo is the mirror image.
///
/// The arrays hold each closure in a one-field struct. An array of bare closures stores them at
/// their most general abstraction, so every closure passed in as `() -> Void` gets wrapped in a
/// reabstraction thunk, an allocation per registration (measured: 6 allocations per step instead
/// of 3); a careful hand-written stack avoids it, and so does this baseline.
public final class ClosureStack {
    /// A stored closure.
    public struct Action {
        /// The inverse to call.
        public let body: () -> Void
    }

    /// The undo array, newest last.
    public private(set) var undoActions: [Action] = []
    /// The redo array, newest last.
    public private(set) var redoActions: [Action] = []
    private var isUndoing = false
    private var isRedoing = false

    /// An empty stack.
    public init() {}

    /// Registers the inverse of a change.
    ///
    /// - Parameter action: The inverse.
    public func register(_ action: @escaping () -> Void) {
        if isUndoing {
            redoActions.append(Action(body: action))
            return
        }
        if !isRedoing && !redoActions.isEmpty { redoActions.removeAll() }
        undoActions.append(Action(body: action))
    }

    /// Pops and calls the newest undo closure; what it registers goes to the redo array.
    public func undo() {
        guard let action = undoActions.popLast() else { return }
        isUndoing = true
        action.body()
        isUndoing = false
    }

    /// Pops and calls the newest redo closure; what it registers goes to the undo array.
    public func redo() {
        guard let action = redoActions.popLast() else { return }
        isRedoing = true
        action.body()
        isRedoing = false
    }

    /// Empties both arrays (the closures capture the stack, as ActionStack's handlers do).
    public func removeAll() {
        undoActions.removeAll()
        redoActions.removeAll()
    }
}

/// Adds `k` to the model and registers the inverse, capturing the target strongly.
///
/// - Parameters:
///   - model: The target.
///   - k: The amount.
///   - stack: The closure stack.
@inline(never)
public func bumpStrong(_ model: Model, by k: Int, on stack: ClosureStack) {
    model.value += k
    stack.register { bumpStrong(model, by: -k, on: stack) }
}

/// Adds `k` to the model and registers the inverse, capturing the target weakly (`[weak model]`),
/// as a careful hand-written stack does so that it never keeps a document's objects alive.
///
/// - Parameters:
///   - model: The target.
///   - k: The amount.
///   - stack: The closure stack.
@inline(never)
public func bumpWeak(_ model: Model, by k: Int, on stack: ClosureStack) {
    model.value += k
    stack.register { [weak model] in
        guard let model else { return }
        bumpWeak(model, by: -k, on: stack)
    }
}

/// The closure-stack baseline of scenarios 1 and 2: `n` registrations, `n` undos, `n` redos (each
/// closure re-registering its inverse). A closure stack has no groups, so the work per action is
/// the same whether the stack's side does one action per group (scenario 1) or all in one
/// (scenario 2).
///
/// - Parameters:
///   - n: The number of actions.
///   - weak: Whether the closures capture the target weakly.
///   - stack: An empty closure stack.
///   - model: The target.
public func closureStackSteps(_ n: Int, weak: Bool, on stack: ClosureStack, model: Model) {
    let start = model.value
    if weak {
        for i in 1...n { bumpWeak(model, by: i, on: stack) }
    } else {
        for i in 1...n { bumpStrong(model, by: i, on: stack) }
    }
    check(model.value == start + triangle(n), "closure stack: after register \(model.value)")
    for _ in 0..<n { stack.undo() }
    check(model.value == start, "closure stack: after undo \(model.value)")
    for _ in 0..<n { stack.redo() }
    check(model.value == start + triangle(n), "closure stack: after redo \(model.value)")
    check(stack.undoActions.count == n, "closure stack: \(stack.undoActions.count) closures")
}

// MARK: Closure stacks as the issue defines them: arrays of closures.

/// The same closure stack with the closures stored as they are, `[() -> Void]`: the way the
/// performance issue describes (and measured) its baselines, and what most hand-written stacks do.
/// Storing a closure in an array of functions wraps it in a reabstraction thunk, one more
/// allocation per registration; ``ClosureStack`` avoids that with a one-field struct. The ratio
/// table shows both.
public final class PlainClosureStack {
    /// The undo array, newest last.
    public private(set) var undoActions: [() -> Void] = []
    /// The redo array, newest last.
    public private(set) var redoActions: [() -> Void] = []
    private var isUndoing = false
    private var isRedoing = false

    /// An empty stack.
    public init() {}

    /// Registers the inverse of a change.
    ///
    /// - Parameter action: The inverse.
    public func register(_ action: @escaping () -> Void) {
        if isUndoing {
            redoActions.append(action)
            return
        }
        if !isRedoing && !redoActions.isEmpty { redoActions.removeAll() }
        undoActions.append(action)
    }

    /// Pops and calls the newest undo closure.
    public func undo() {
        guard let action = undoActions.popLast() else { return }
        isUndoing = true
        action()
        isUndoing = false
    }

    /// Pops and calls the newest redo closure.
    public func redo() {
        guard let action = redoActions.popLast() else { return }
        isRedoing = true
        action()
        isRedoing = false
    }

    /// Empties both arrays.
    public func removeAll() {
        undoActions.removeAll()
        redoActions.removeAll()
    }
}

/// ``bumpStrong(_:by:on:)`` on a ``PlainClosureStack``.
///
/// - Parameters:
///   - model: The target.
///   - k: The amount.
///   - stack: The closure stack.
@inline(never)
public func bumpPlainStrong(_ model: Model, by k: Int, on stack: PlainClosureStack) {
    model.value += k
    stack.register { bumpPlainStrong(model, by: -k, on: stack) }
}

/// ``bumpWeak(_:by:on:)`` on a ``PlainClosureStack``.
///
/// - Parameters:
///   - model: The target.
///   - k: The amount.
///   - stack: The closure stack.
@inline(never)
public func bumpPlainWeak(_ model: Model, by k: Int, on stack: PlainClosureStack) {
    model.value += k
    stack.register { [weak model] in
        guard let model else { return }
        bumpPlainWeak(model, by: -k, on: stack)
    }
}

/// ``closureStackSteps(_:weak:on:model:)`` on a ``PlainClosureStack``.
///
/// - Parameters:
///   - n: The number of actions.
///   - weak: Whether the closures capture the target weakly.
///   - stack: An empty closure stack.
///   - model: The target.
public func plainClosureStackSteps(_ n: Int, weak: Bool, on stack: PlainClosureStack, model: Model) {
    let start = model.value
    if weak {
        for i in 1...n { bumpPlainWeak(model, by: i, on: stack) }
    } else {
        for i in 1...n { bumpPlainStrong(model, by: i, on: stack) }
    }
    check(model.value == start + triangle(n), "plain closure stack: after register \(model.value)")
    for _ in 0..<n { stack.undo() }
    check(model.value == start, "plain closure stack: after undo \(model.value)")
    for _ in 0..<n { stack.redo() }
    check(model.value == start + triangle(n), "plain closure stack: after redo \(model.value)")
    check(stack.undoActions.count == n, "plain closure stack: \(stack.undoActions.count) closures")
}

// MARK: The first baseline: an array of closures, register + undo.

/// Registers `n` closures on an array (each subtracting from the model), then pops and calls them
/// all: register + undo, no redo, no re-registration. The benchmark's first baseline, kept beside
/// the closure stacks so that old and new figures can be compared.
///
/// - Parameters:
///   - n: The number of closures.
///   - model: The target.
public func closuresRegisterUndo(_ n: Int, model: Model) {
    let start = model.value
    var closures: [() -> Void] = []
    for i in 1...n {
        model.value += i
        closures.append { [model] in model.value -= i }
    }
    while let closure = closures.popLast() { closure() }
    check(model.value == start, "closures: model \(model.value)")
}

// MARK: Other baselines

/// `count` posts of a notification with an object and no observers.
///
/// - Parameter count: The number of posts.
public func barePosts(_ count: Int) {
    let object = Model()
    let name = Notification.Name("ActionStackBenchmarkBarePost")
    for _ in 0..<count { NotificationCenter.default.post(name: name, object: object) }
}

/// The pairs of scenario 4's baseline: `n` (target, closure) pairs over `models` round-robin.
///
/// - Parameters:
///   - n: The number of pairs.
///   - models: The targets.
/// - Returns: The pairs.
public func targetClosurePairs(_ n: Int, models: [Model]) -> [(Model, () -> Void)] {
    var pairs: [(Model, () -> Void)] = []
    pairs.reserveCapacity(n)
    for i in 1...n {
        let model = models[i % models.count]
        pairs.append((model, { [model] in model.value -= i }))
    }
    return pairs
}

/// Scenario 4's baseline removal: filter the pairs by the target's identity.
///
/// - Parameters:
///   - pairs: The pairs of ``targetClosurePairs(_:models:)``.
///   - target: The target to remove.
public func filterPairs(_ pairs: inout [(Model, () -> Void)], removing target: Model) {
    pairs.removeAll { $0.0 === target }
}

/// Scenario 5's baseline: the same closures appended, the same run-loop passes (each running one
/// block), then every closure popped and called.
///
/// - Parameters:
///   - events: The number of events.
///   - perEvent: Closures per event.
///   - model: The target.
public func closuresWithRunLoop(events: Int, perEvent: Int, model: Model) {
    let start = model.value
    var closures: [() -> Void] = []
    var k = 0
    for _ in 0..<events {
        for _ in 0..<perEvent {
            k += 1
            let amount = k
            model.value += amount
            closures.append { [model] in model.value -= amount }
        }
        RunLoop.current.perform(inModes: [.default]) {}
        _ = RunLoop.current.run(mode: .default, before: Date.distantPast)
    }
    while let closure = closures.popLast() { closure() }
    check(model.value == start, "automatic baseline: model \(model.value)")
}
