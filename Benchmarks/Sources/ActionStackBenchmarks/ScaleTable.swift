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
import Workloads

// The scale table: what an operation costs when the stack is small and when it is 16 times larger
// (4 times for ActionStackModel). A ratio near 1 means the cost does not grow with the size; the
// verdict says "O(1)" below 2 and "grows" from 2 on. Stacks here hold one step per distinct live
// target, the case in which a cost that follows the number of targets shows.

/// One row of the scale table.
struct ScaleRow: Encodable {
    /// The operation measured.
    var operation: String
    /// What the size counts (steps on as many targets, observers, streams).
    var sizeUnit: String
    var small: Int
    var large: Int
    /// Median ns per operation at each size.
    var nsSmall: Double
    var nsLarge: Double
    var ratio: Double { nsLarge / nsSmall }
    /// "O(1)" when the ratio is below 2, "grows" otherwise.
    var verdict: String { ratio < 2 ? "O(1)" : "grows" }
    /// What the library's documentation says the operation costs.
    var documented: String
    var note: String = ""

    enum CodingKeys: String, CodingKey {
        case operation, sizeUnit, small, large, nsSmall, nsLarge, ratio, verdict, documented, note
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operation, forKey: .operation)
        try container.encode(sizeUnit, forKey: .sizeUnit)
        try container.encode(small, forKey: .small)
        try container.encode(large, forKey: .large)
        try container.encode(nsSmall, forKey: .nsSmall)
        try container.encode(nsLarge, forKey: .nsLarge)
        try container.encode(ratio, forKey: .ratio)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(documented, forKey: .documented)
        try container.encode(note, forKey: .note)
    }
}

/// Keeps a value alive and opaque to the optimiser.
@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Median ns per call of `op(i)` (i counting calls from 0) over batches. The batch grows until it
/// takes a twentieth of `budget` seconds, then batches of that size run until the budget is spent
/// (nine at most). At most `limit` calls in all, for operations that use up what they work on.
func nsPerCall(limit: Int = .max, budget: Double, _ op: (Int) -> Void) -> (ns: Double, calls: Int) {
    let budgetNs = budget * 1e9
    var calls = 0
    var batch = 1
    var spent = 0.0
    var samples: [Double] = []
    func run(_ size: Int) -> Double {
        let ns = nanoseconds { for i in calls..<(calls + size) { op(i) } }
        calls += size
        spent += ns
        return ns
    }
    while calls < limit {
        let size = min(batch, limit - calls)
        let ns = run(size)
        if ns >= budgetNs / 20 || calls >= limit {
            samples.append(ns / Double(size))
            break
        }
        batch *= 2
    }
    while spent < budgetNs && calls < limit && samples.count < 9 {
        let size = min(batch, limit - calls)
        samples.append(run(size) / Double(size))
    }
    return (median(samples), calls)
}

/// A stack of `size` one-action steps spread over `targets` live targets (notifications off,
/// explicit grouping), with what the scale table needs to run operations on it.
final class ScaleStack {
    let size: Int
    let models: [Model]
    let stack = explicitStack(notify: false)
    /// Undos measured and not yet redone.
    var undone = 0

    init(size: Int, targets: Int) {
        self.size = size
        models = (0..<targets).map { _ in Model() }
        registerGroups(1...size, on: stack, models: models)
    }

    /// One explicit group of one action on an existing target.
    func addStep(_ i: Int) {
        stack.beginUndoGrouping()
        bump(models[i % models.count], by: 1, on: stack)
        stack.endUndoGrouping()
    }
}

/// Number of alternations of the two stacks in each measurement.
let scaleRounds = 3

/// Median ns per call of `op` on `small` and on `large`, measured alternately (small, large, small,
/// large, ...) so that noise on the shared machine lands on both. `limit` caps the calls of each
/// round on a stack (for operations that add or use up steps).
func alternately(
    _ small: ScaleStack, _ large: ScaleStack, budget: Double, limit: (ScaleStack) -> Int = { _ in .max },
    _ op: (ScaleStack, Int) -> Void
) -> (small: Double, large: Double) {
    var samples: [[Double]] = [[], []]
    for _ in 0..<scaleRounds {
        for (index, scale) in [small, large].enumerated() {
            let cost = nsPerCall(limit: limit(scale), budget: budget / Double(scaleRounds)) { op(scale, $0) }
            samples[index].append(cost.ns)
        }
    }
    return (median(samples[0]), median(samples[1]))
}

/// Per-call costs of the stack's operations at two sizes (small, large), measured alternately.
func stackOperationCosts(small: ScaleStack, large: ScaleStack, budget: Double) -> [String: (Double, Double)] {
    var costs: [String: (Double, Double)] = [:]
    func measure(_ key: String, limit: (ScaleStack) -> Int = { _ in .max }, _ op: (ScaleStack, Int) -> Void) {
        let pair = alternately(small, large, budget: budget, limit: limit, op)
        costs[key] = (pair.small, pair.large)
    }
    // Operations that add or use up steps stay under a sixteenth of the size in all, so the size
    // stays the size.
    let perRound = { (scale: ScaleStack) in max(1, scale.size / 16 / scaleRounds) }
    measure("canUndo") { scale, _ in consume(scale.stack.canUndo) }
    measure("canRedo") { scale, _ in consume(scale.stack.canRedo) }
    measure("undoMenuItemTitle") { scale, _ in consume(scale.stack.undoMenuItemTitle) }
    measure("undoActionName") { scale, _ in consume(scale.stack.undoActionName) }
    measure("markClean") { scale, _ in scale.stack.markClean() }
    measure("disable+enable") { scale, _ in
        scale.stack.disableUndoRegistration()
        scale.stack.enableUndoRegistration()
    }
    measure("undo", limit: perRound) { scale, _ in
        scale.stack.undo()
        scale.undone += 1
    }
    let redoable = { (scale: ScaleStack) in min(perRound(scale), scale.undone) }
    measure("redo", limit: redoable) { scale, _ in
        scale.stack.redo()
        scale.undone -= 1
    }
    for scale in [small, large] {
        // What the budget left undone is redone untimed, so the redo stack is empty again.
        while scale.undone > 0 {
            scale.stack.redo()
            scale.undone -= 1
        }
    }
    measure("register", limit: perRound) { scale, i in scale.addStep(i) }
    for scale in [small, large] {
        scale.stack.groupsByEvent = true
        scale.stack.automaticGroupClosing = .manual
    }
    measure("endEvent", limit: perRound) { scale, i in
        bump(scale.models[i % scale.models.count], by: 1, on: scale.stack)
        scale.stack.endEvent()
    }
    for scale in [small, large] {
        scale.stack.groupsByEvent = false
        scale.stack.levelsOfUndo = scale.stack.undoCount
    }
    measure("trim", limit: perRound) { scale, i in scale.addStep(i) }
    for scale in [small, large] {
        let stack = scale.stack
        check(stack.undoCount == stack.levelsOfUndo, "scale: \(stack.undoCount) steps, limit \(stack.levelsOfUndo)")
        stack.levelsOfUndo = 0
    }
    return costs
}

/// ns per `observe` and per `cancel()` with `count` observers: all registered, then `cancels` of
/// them (all, if fewer) cancelled, spread evenly over the list in the order they were registered.
func observerCosts(count: Int, cancels wanted: Int) -> (observe: Double, cancel: Double) {
    var stack: ActionStack? = explicitStack(notify: false)
    var tokens: [ObservationToken] = []
    tokens.reserveCapacity(count)
    let observeNs = nanoseconds {
        for _ in 0..<count { tokens.append(stack!.observe { _ in }) }
    }
    let cancels = min(count, wanted)
    let spacing = count / cancels
    let cancelNs = nanoseconds {
        for index in 0..<cancels { tokens[index * spacing].cancel() }
    }
    // Free the stack before the tokens, whose release then finds no list to search.
    stack = nil
    tokens.removeAll()
    return (observeNs / Double(count), cancelNs / Double(cancels))
}

/// ns per stream of creating `count` `stateUpdates()` streams that are dropped at once, and of
/// the first change after it (which finds every stream ended); also the ns of the change after.
func droppedStreamCosts(count: Int) -> (create: Double, firstChange: Double, nextChange: Double) {
    let stack = explicitStack(notify: false)
    let model = Model()
    let createNs = nanoseconds {
        for _ in 0..<count { consume(stack.stateUpdates()) }
    }
    func change(_ k: Int) {
        stack.beginUndoGrouping()
        bump(model, by: k, on: stack)
        stack.endUndoGrouping()
    }
    let firstNs = nanoseconds { change(1) }
    let nextNs = nanoseconds { change(2) }
    check(model.value == 3, "streams: model \(model.value)")
    stack.removeAllActions()
    return (createNs / Double(count), firstNs / Double(count), nextNs)
}

/// ns per step of `steps` one-action steps on as many distinct targets with an `ActionStackModel`
/// following the stack.
func followedStepCost(steps: Int) -> Double {
    let stack = explicitStack(notify: false)
    let models = (0..<steps).map { _ in Model() }
    let follower = ActionStackModel(stack)
    let ns = nanoseconds { registerGroups(1...steps, on: stack, models: models) }
    check(follower.undoCount == steps, "model: \(follower.undoCount) steps, want \(steps)")
    stack.removeAllActions()
    withExtendedLifetime(models) {}
    return ns / Double(steps)
}

let scaleWidths = [40, 16, 9, 11, 9, 11, 9, 7, 20]

func printScaleRow(_ row: ScaleRow) {
    printCells(
        [
            row.operation, row.sizeUnit, String(row.small), format(row.nsSmall), String(row.large),
            format(row.nsLarge), formatRatio(row.ratio), row.verdict, row.documented, row.note,
        ],
        widths: scaleWidths, leftAligned: [0, 1, 7, 8])
}

/// Sizes of the scale table.
struct ScaleSizes {
    /// Steps (on as many targets) of the stack operations; the large size is 16 times this.
    var steps: Int
    /// Observers of the cancel rows; the large size is 16 times this.
    var observers: Int
    /// Dropped streams; the large size is 16 times this.
    var streams: Int
    /// Steps followed by an ActionStackModel; the large size is 4 times this.
    var followed: Int
    /// Seconds spent timing each operation at each size, about.
    var budget: Double

    static let full = ScaleSizes(steps: 62_500, observers: 6_250, streams: 1_000, followed: 1_000, budget: 0.3)
    static let quick = ScaleSizes(steps: 2_000, observers: 625, streams: 250, followed: 250, budget: 0.06)
}

/// Runs the scale table, printing each row as it is measured.
func runScaleTable(_ sizes: ScaleSizes) -> [ScaleRow] {
    var rows: [ScaleRow] = []
    func add(_ row: ScaleRow) {
        rows.append(row)
        printScaleRow(row)
    }
    print("")
    print(
        "ActionStack scale table: ns per operation at a size and at 16 times it (4 times for "
            + "ActionStackModel), the two measured alternately, medians of \(scaleRounds); "
            + "ratio = large / small, \"O(1)\" below 2x")
    printCells(
        ["operation", "size unit", "n", "ns at n", "large", "ns at large", "ratio", "verdict", "documented", "note"],
        widths: scaleWidths, leftAligned: [0, 1, 7, 8])

    let small = sizes.steps
    let large = 16 * sizes.steps
    let smallStack = ScaleStack(size: small, targets: small)
    let largeStack = ScaleStack(size: large, targets: large)
    let costs = stackOperationCosts(small: smallStack, large: largeStack, budget: sizes.budget)
    let operations: [(key: String, name: String, documented: String)] = [
        ("register", "begin + registerUndo + end", "O(1) amortized"),
        ("undo", "undo()", "O(1) per action"),
        ("redo", "redo()", "O(1) per action"),
        ("canUndo", "canUndo", "O(1) amortized"),
        ("canRedo", "canRedo", "O(1) amortized"),
        ("undoMenuItemTitle", "undoMenuItemTitle", "O(1) amortized"),
        ("undoActionName", "undoActionName", "O(1) amortized"),
        ("trim", "register with levelsOfUndo full (trims)", "O(1) per dropped action"),
        ("endEvent", "registerUndo + endEvent()", "O(1) amortized"),
        ("markClean", "markClean()", "O(1)"),
        ("disable+enable", "disable + enableUndoRegistration()", "O(1)"),
    ]
    for operation in operations {
        add(
            ScaleRow(
                operation: operation.name, sizeUnit: "targets", small: small, large: large,
                nsSmall: costs[operation.key]?.0 ?? .nan, nsLarge: costs[operation.key]?.1 ?? .nan,
                documented: operation.documented))
    }

    // canUndo with as many live targets as steps, against the same number of steps on one target.
    let oneTarget = ScaleStack(size: large, targets: 1)
    let canUndo = alternately(oneTarget, largeStack, budget: sizes.budget) { scale, _ in consume(scale.stack.canUndo) }
    add(
        ScaleRow(
            operation: "canUndo: \(large) targets vs 1 target", sizeUnit: "(\(large) steps)", small: 1,
            large: large, nsSmall: canUndo.small, nsLarge: canUndo.large, documented: "O(1) amortized",
            note: "target: within 2x"))
    for scale in [smallStack, largeStack, oneTarget] {
        scale.stack.removeAllActions()
        // The targets must live until here: Swift may end an object's life at its last use, and a
        // freed target's steps would vanish from the stack.
        withExtendedLifetime(scale.models) {}
    }

    // The rows below build what they measure anew each time; the two sizes alternate, three times.
    func alternate<T>(_ body: (Int) -> T, _ small: Int, _ large: Int) -> (small: [T], large: [T]) {
        var results: (small: [T], large: [T]) = ([], [])
        for _ in 0..<scaleRounds {
            results.small.append(body(small))
            results.large.append(body(large))
        }
        return results
    }
    let observers = alternate(
        { observerCosts(count: $0, cancels: 1000 / scaleRounds) }, sizes.observers, 16 * sizes.observers)
    let observersSmall = (
        observe: median(observers.small.map(\.observe)), cancel: median(observers.small.map(\.cancel))
    )
    let observersLarge = (
        observe: median(observers.large.map(\.observe)), cancel: median(observers.large.map(\.cancel))
    )
    add(
        ScaleRow(
            operation: "observe { _ in }", sizeUnit: "observers", small: sizes.observers,
            large: 16 * sizes.observers, nsSmall: observersSmall.observe, nsLarge: observersLarge.observe,
            documented: "O(1)"))
    add(
        ScaleRow(
            operation: "ObservationToken.cancel()", sizeUnit: "observers", small: sizes.observers,
            large: 16 * sizes.observers, nsSmall: observersSmall.cancel, nsLarge: observersLarge.cancel,
            documented: "O(1) amortized", note: "\(1000 / scaleRounds) cancels, spread"))

    let streams = alternate(droppedStreamCosts, sizes.streams, 16 * sizes.streams)
    let streamsSmall = (
        create: median(streams.small.map(\.create)), firstChange: median(streams.small.map(\.firstChange))
    )
    let streamsLarge = (
        create: median(streams.large.map(\.create)), firstChange: median(streams.large.map(\.firstChange)),
        nextChange: median(streams.large.map(\.nextChange))
    )
    add(
        ScaleRow(
            operation: "stateUpdates(), dropped at once", sizeUnit: "streams", small: sizes.streams,
            large: 16 * sizes.streams, nsSmall: streamsSmall.create, nsLarge: streamsLarge.create,
            documented: "O(1)"))
    add(
        ScaleRow(
            operation: "next change, per dropped stream", sizeUnit: "streams", small: sizes.streams,
            large: 16 * sizes.streams, nsSmall: streamsSmall.firstChange, nsLarge: streamsLarge.firstChange,
            documented: "O(1) per stream", note: "then \(format(streamsLarge.nextChange, 0)) ns for the change after"))

    let followed = alternate(followedStepCost, sizes.followed, 4 * sizes.followed)
    let followedSmall = median(followed.small)
    let followedLarge = median(followed.large)
    add(
        ScaleRow(
            operation: "step with an ActionStackModel following", sizeUnit: "targets", small: sizes.followed,
            large: 4 * sizes.followed, nsSmall: followedSmall, nsLarge: followedLarge, documented: "O(1) per change",
            note: "4x the size; target O(1)/change"))
    return rows
}
