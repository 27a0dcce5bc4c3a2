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

/// Per-call costs of the stack's operations on a stack of `size` one-action steps, each on its own
/// live target (notifications off, explicit grouping unless said).
func stackOperationCosts(size: Int, budget: Double) -> [String: Double] {
    let models = (0..<size).map { _ in Model() }
    let stack = explicitStack(notify: false)
    registerGroups(1...size, on: stack, models: models)
    // Operations that add steps stay under a sixteenth of the size, so the size stays the size.
    let adding = max(1, size / 16)
    var costs: [String: Double] = [:]
    costs["canUndo"] = nsPerCall(budget: budget) { _ in consume(stack.canUndo) }.ns
    costs["canRedo"] = nsPerCall(budget: budget) { _ in consume(stack.canRedo) }.ns
    costs["undoMenuItemTitle"] = nsPerCall(budget: budget) { _ in consume(stack.undoMenuItemTitle) }.ns
    costs["undoActionName"] = nsPerCall(budget: budget) { _ in consume(stack.undoActionName) }.ns
    costs["markClean"] = nsPerCall(budget: budget) { _ in stack.markClean() }.ns
    costs["disable+enable"] =
        nsPerCall(budget: budget) { _ in
            stack.disableUndoRegistration()
            stack.enableUndoRegistration()
        }.ns
    let undo = nsPerCall(limit: adding, budget: budget) { _ in stack.undo() }
    costs["undo"] = undo.ns
    costs["redo"] = nsPerCall(limit: undo.calls, budget: budget) { _ in stack.redo() }.ns
    check(stack.redoCount == 0, "scale: \(stack.redoCount) steps left to redo")
    costs["register"] =
        nsPerCall(limit: adding, budget: budget) { i in
            stack.beginUndoGrouping()
            bump(models[i % size], by: 1, on: stack)
            stack.endUndoGrouping()
        }.ns
    stack.groupsByEvent = true
    stack.automaticGroupClosing = .manual
    costs["endEvent"] =
        nsPerCall(limit: adding, budget: budget) { i in
            bump(models[i % size], by: 1, on: stack)
            stack.endEvent()
        }.ns
    stack.groupsByEvent = false
    stack.levelsOfUndo = stack.undoCount
    costs["trim"] =
        nsPerCall(limit: adding, budget: budget) { i in
            stack.beginUndoGrouping()
            bump(models[i % size], by: 1, on: stack)
            stack.endUndoGrouping()
        }.ns
    check(stack.undoCount == stack.levelsOfUndo, "scale: \(stack.undoCount) steps, limit \(stack.levelsOfUndo)")
    stack.removeAllActions()
    // The targets must live until here: Swift may end an object's life at its last use, and a
    // freed target's steps would vanish from the stack.
    withExtendedLifetime(models) {}
    return costs
}

/// ns per `canUndo` on a stack of `steps` one-action steps all on one target.
func canUndoOneTarget(steps: Int, budget: Double) -> Double {
    let model = Model()
    let stack = explicitStack(notify: false)
    registerGroups(1...steps, on: stack, models: [model])
    let ns = nsPerCall(budget: budget) { _ in consume(stack.canUndo) }.ns
    stack.removeAllActions()
    withExtendedLifetime(model) {}
    return ns
}

/// ns per `observe` and per `cancel()` with `count` observers: all registered, then a thousand
/// (or all, if fewer) cancelled, spread evenly over the list in the order they were registered.
func observerCosts(count: Int) -> (observe: Double, cancel: Double) {
    var stack: ActionStack? = explicitStack(notify: false)
    var tokens: [ObservationToken] = []
    tokens.reserveCapacity(count)
    let observeNs = nanoseconds {
        for _ in 0..<count { tokens.append(stack!.observe { _ in }) }
    }
    let cancels = min(count, 1000)
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

    static let full = ScaleSizes(steps: 62_500, observers: 6_250, streams: 1_000, followed: 2_000, budget: 0.2)
    static let quick = ScaleSizes(steps: 2_000, observers: 625, streams: 250, followed: 500, budget: 0.05)
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
            + "ActionStackModel); ratio = large / small, \"O(1)\" below 2x")
    printCells(
        ["operation", "size unit", "n", "ns at n", "large", "ns at large", "ratio", "verdict", "documented", "note"],
        widths: scaleWidths, leftAligned: [0, 1, 7, 8])

    let small = sizes.steps
    let large = 16 * sizes.steps
    let costsSmall = stackOperationCosts(size: small, budget: sizes.budget)
    let costsLarge = stackOperationCosts(size: large, budget: sizes.budget)
    let operations: [(key: String, name: String, documented: String)] = [
        ("register", "begin + registerUndo + end", "O(1) amortized"),
        ("undo", "undo()", "O(1) per action"),
        ("redo", "redo()", "O(1) per action"),
        ("canUndo", "canUndo", "O(t), t targets"),
        ("canRedo", "canRedo", "O(t)"),
        ("undoMenuItemTitle", "undoMenuItemTitle", "O(t)"),
        ("undoActionName", "undoActionName", "O(t)"),
        ("trim", "register with levelsOfUndo full (trims)", "O(1)/dropped + O(t)"),
        ("endEvent", "registerUndo + endEvent()", "O(1) amortized"),
        ("markClean", "markClean()", "O(1)"),
        ("disable+enable", "disable + enableUndoRegistration()", "O(1)"),
    ]
    for operation in operations {
        add(
            ScaleRow(
                operation: operation.name, sizeUnit: "targets", small: small, large: large,
                nsSmall: costsSmall[operation.key] ?? .nan, nsLarge: costsLarge[operation.key] ?? .nan,
                documented: operation.documented))
    }

    // canUndo with as many live targets as steps, against the same number of steps on one target.
    let oneTarget = canUndoOneTarget(steps: large, budget: sizes.budget)
    add(
        ScaleRow(
            operation: "canUndo: \(large) targets vs 1 target", sizeUnit: "(\(large) steps)", small: 1,
            large: large, nsSmall: oneTarget, nsLarge: costsLarge["canUndo"] ?? .nan, documented: "O(t)",
            note: "target: within 2x"))

    let observersSmall = observerCosts(count: sizes.observers)
    let observersLarge = observerCosts(count: 16 * sizes.observers)
    add(
        ScaleRow(
            operation: "observe { _ in }", sizeUnit: "observers", small: sizes.observers,
            large: 16 * sizes.observers, nsSmall: observersSmall.observe, nsLarge: observersLarge.observe,
            documented: "O(1)"))
    add(
        ScaleRow(
            operation: "ObservationToken.cancel()", sizeUnit: "observers", small: sizes.observers,
            large: 16 * sizes.observers, nsSmall: observersSmall.cancel, nsLarge: observersLarge.cancel,
            documented: "O(k), k observers", note: "1000 cancels, spread"))

    let streamsSmall = droppedStreamCosts(count: sizes.streams)
    let streamsLarge = droppedStreamCosts(count: 16 * sizes.streams)
    add(
        ScaleRow(
            operation: "stateUpdates(), dropped at once", sizeUnit: "streams", small: sizes.streams,
            large: 16 * sizes.streams, nsSmall: streamsSmall.create, nsLarge: streamsLarge.create,
            documented: "O(1)"))
    add(
        ScaleRow(
            operation: "next change, per dropped stream", sizeUnit: "streams", small: sizes.streams,
            large: 16 * sizes.streams, nsSmall: streamsSmall.firstChange, nsLarge: streamsLarge.firstChange,
            documented: "-", note: "then \(format(streamsLarge.nextChange, 0)) ns for the change after"))

    let followedSmall = followedStepCost(steps: sizes.followed)
    let followedLarge = followedStepCost(steps: 4 * sizes.followed)
    add(
        ScaleRow(
            operation: "step with an ActionStackModel following", sizeUnit: "targets", small: sizes.followed,
            large: 4 * sizes.followed, nsSmall: followedSmall, nsLarge: followedLarge, documented: "-",
            note: "4x the size; target O(1)/change"))
    return rows
}
