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

// The asynchronous operations beside a hand-written baseline measured in the same run: an array of
// async closures that the undo pops and awaits, each closure pushing its inverse, with no queue, no
// rollback and no notifications. Both await the same handler (a model on the main actor whose
// change does not suspend), so the figures are the cost of the machinery.

@MainActor
final class AsyncCounter {
    var value = 0

    func set(_ new: Int, on stack: ActionStack) async {
        let old = value
        value = new
        stack.registerAsyncUndo(withTarget: self) { counter in await counter.set(old, on: stack) }
    }
}

/// The baseline: an undo stack of async closures.
@MainActor
final class AsyncClosureStack {
    var undo: [() async throws -> Void] = []
    var redo: [() async throws -> Void] = []
    var isUndoing = false

    func register(_ action: @escaping () async throws -> Void) {
        if isUndoing { redo.append(action) } else { undo.append(action) }
    }

    func performUndo() async throws -> Bool {
        guard let action = undo.popLast() else { return false }
        isUndoing = true
        defer { isUndoing = false }
        try await action()
        return true
    }
}

@MainActor
final class AsyncClosureCounter {
    var value = 0

    func set(_ new: Int, on stack: AsyncClosureStack) async {
        let old = value
        value = new
        stack.register { await self.set(old, on: stack) }
    }
}

@MainActor
func asyncNanoseconds(_ body: () async throws -> Void) async -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try? await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start)
}

/// ns per action to undo `steps` steps of `actionsPerStep` actions each, with ActionStack.
@MainActor
func actionStackAsyncUndo(steps: Int, actionsPerStep: Int) async -> Double {
    let stack = ActionStack()
    stack.groupsByEvent = false
    stack.postsNotifications = false
    let counters = (0..<actionsPerStep).map { _ in AsyncCounter() }
    for step in 0..<steps {
        stack.beginUndoGrouping()
        for counter in counters { await counter.set(step + 1, on: stack) }
        stack.endUndoGrouping()
    }
    let time = await asyncNanoseconds {
        while try await stack.performUndo() {}
    }
    return time / Double(steps * actionsPerStep)
}

/// The same with the hand-written async closure stack (one closure per action, undone one by one).
@MainActor
func closureStackAsyncUndo(steps: Int, actionsPerStep: Int) async -> Double {
    let stack = AsyncClosureStack()
    let counters = (0..<actionsPerStep).map { _ in AsyncClosureCounter() }
    for step in 0..<steps {
        for counter in counters { await counter.set(step + 1, on: stack) }
    }
    let time = await asyncNanoseconds {
        while try await stack.performUndo() {}
    }
    return time / Double(steps * actionsPerStep)
}

/// ns per request for `count` undo requests queued behind one that awaits, from the release of the
/// first to the end of the last; and the bytes the process grew by per queued request.
@MainActor
func queuedRequests(_ count: Int) async -> (nanoseconds: Double, bytes: Double) {
    let stack = ActionStack()
    stack.groupsByEvent = false
    stack.postsNotifications = false
    stack.busyPolicy = .queue(limit: count + 1)
    let counter = AsyncCounter()
    for step in 0...count {
        stack.beginUndoGrouping()
        await counter.set(step + 1, on: stack)
        stack.endUndoGrouping()
    }
    // The first undo awaits a gate; the rest queue behind it.
    var release: CheckedContinuation<Void, Never>?
    let holder = AsyncCounter()
    stack.beginUndoGrouping()
    stack.registerAsyncUndo(withTarget: holder) { _ in
        await withCheckedContinuation { release = $0 }
    }
    stack.endUndoGrouping()
    let first = Task { @MainActor in _ = try? await stack.performUndo() }
    while release == nil { await Task.yield() }
    let before = residentBytes()
    var tasks: [Task<Void, Never>] = []
    tasks.reserveCapacity(count)
    for _ in 0..<count { tasks.append(Task { @MainActor in _ = try? await stack.performUndo() }) }
    while stack.pendingRequestCount < count { await Task.yield() }
    let grown = Double(residentBytes() - before) / Double(count)
    let time = await asyncNanoseconds {
        release?.resume()
        await first.value
        for task in tasks { await task.value }
    }
    return (time / Double(count), grown)
}

@MainActor
func runAsyncTable(quick: Bool, repetitions: Int) async {
    let steps = quick ? 2_000 : 50_000
    print("")
    print("Asynchronous undo (ns per action, median of \(repetitions); baseline: an array of async closures, same run)")
    print("scenario                                  ActionStack   closures   ratio   target")
    for actionsPerStep in [1, 8] {
        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<repetitions {
            ours.append(await actionStackAsyncUndo(steps: steps, actionsPerStep: actionsPerStep))
            theirs.append(await closureStackAsyncUndo(steps: steps, actionsPerStep: actionsPerStep))
        }
        let (a, b) = (median(ours), median(theirs))
        let name = "performUndo, \(actionsPerStep) async action\(actionsPerStep == 1 ? "" : "s") per step"
        print(
            name.padding(toLength: 42, withPad: " ", startingAt: 0)
                + String(format: "%11.0f %10.0f %7.2fx   ≤ 1.5x", a, b, a / b))
    }
    let small = quick ? 1_000 : 1_000
    let large = quick ? 4_000 : 16_000
    var smallRuns: [(nanoseconds: Double, bytes: Double)] = []
    var largeRuns: [(nanoseconds: Double, bytes: Double)] = []
    for _ in 0..<repetitions {
        smallRuns.append(await queuedRequests(small))
        largeRuns.append(await queuedRequests(large))
    }
    let smallNs = median(smallRuns.map(\.nanoseconds))
    let largeNs = median(largeRuns.map(\.nanoseconds))
    let bytes = median(largeRuns.map(\.bytes))
    print(
        "queued requests drained, per request: \(String(format: "%.0f", smallNs)) ns at \(small), "
            + "\(String(format: "%.0f", largeNs)) ns at \(large) (ratio \(String(format: "%.2f", largeNs / smallNs)); "
            + "O(1) per request reads as about 1)")
    print(
        "memory per queued request (resident growth, with its awaiting task): about "
            + "\(String(format: "%.0f", bytes)) bytes")
}
