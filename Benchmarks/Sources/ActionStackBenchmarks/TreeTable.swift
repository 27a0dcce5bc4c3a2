// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import CHeapStatistics
import Foundation
import Workloads

// The tree table (`--only tree`): what the branching history (historyShape = .tree) costs, each
// figure beside another measured in the same run.
//
// - Scale: an operation at a size and at 16 times it (a path 4 times as long for the jump), the
//   two measured alternately, medians; the expected ratio is printed beside the measured one.
// - Beside baselines: the tree against the linear history (registration, undo, redo), a fork
//   against the same change with nothing to fork, a jump against the same steps by hand.
// - Memory: malloc's bytes in use per node off the current path (in branches) beside per step on
//   it, linear and tree.

/// One row of the tree table.
struct TreeRow: Encodable {
    /// "scale", "baseline" or "memory".
    var section: String
    var operation: String
    /// What the sizes count ("scale" rows), or what the baseline is.
    var unit: String
    /// The small size ("scale"), or the size both were measured at.
    var referenceSize: Int
    /// The large size ("scale"), or the size both were measured at.
    var size: Int
    /// ns per operation (bytes per node for "memory"): at the small size, or of the baseline.
    var reference: Double
    /// ns per operation (bytes per node): at the large size, or of the tree.
    var value: Double
    /// value / reference.
    var ratio: Double { value / reference }
    /// The ratio the documented cost predicts ("scale" rows).
    var expected: String = ""
    var note: String = ""

    enum CodingKeys: String, CodingKey {
        case section, operation, unit, referenceSize, size, reference, value, ratio, expected, note
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(section, forKey: .section)
        try container.encode(operation, forKey: .operation)
        try container.encode(unit, forKey: .unit)
        try container.encode(referenceSize, forKey: .referenceSize)
        try container.encode(size, forKey: .size)
        try container.encode(reference, forKey: .reference)
        try container.encode(value, forKey: .value)
        try container.encode(ratio, forKey: .ratio)
        try container.encode(expected, forKey: .expected)
        try container.encode(note, forKey: .note)
    }
}

/// Sizes of the tree table.
struct TreeSizes {
    /// Redo steps turned into a branch by a fork (n; the large size is 16n).
    var fork: Int
    /// Nodes of the trees jumped in (N; 16N).
    var nodes: Int
    /// Steps of the shorter path jumped along (p; 4p).
    var path: Int
    /// Steps of the tree-on / tree-off runs.
    var steps: Int
    /// maximumBranchSteps of the pruning rows (M; 16M).
    var branchSteps: Int
    /// Nodes of the memory rows: averaged over sizes from this to twice it.
    var bytes: Int
    /// Timed cycles per round of the operations timed one by one.
    var cycles: Int
    /// Rounds of the scale rows (the median is printed).
    var rounds: Int
    /// Seconds spent timing each operation at each size, about.
    var budget: Double

    static let full = TreeSizes(
        fork: 62_500, nodes: 62_500, path: 8, steps: 200_000, branchSteps: 62_500, bytes: 131_072, cycles: 1_000,
        rounds: 5, budget: 0.3)
    static let quick = TreeSizes(
        fork: 1_000, nodes: 2_000, path: 8, steps: 20_000, branchSteps: 1_000, bytes: 16_384, cycles: 200,
        rounds: 3, budget: 0.05)
}

// MARK: Timing
//
// The machine is shared: other jobs take the CPU away for milliseconds at a time. The tree table
// times batches with this thread's CPU time (which does not run while the thread waits), and the
// operations it must time one by one (a fork, a prune: each needs work off the clock between two)
// with the wall clock, dropping the slowest 1% of the calls, where a preemption lands.

/// Nanoseconds of this thread's CPU time taken by `body`.
func cpuNanoseconds(_ body: () -> Void) -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
    }
    let start = now()
    body()
    return now() - start
}

/// ``nsPerCall(limit:budget:_:)`` in this thread's CPU time, with three batches at least (an
/// operation that takes longer than the budget is still timed three times, so that the median
/// leaves out a first call that pays for fresh memory).
func cpuNsPerCall(budget: Double, _ op: (Int) -> Void) -> Double {
    let budgetNs = budget * 1e9
    var calls = 0
    var batch = 1
    var spent = 0.0
    var samples: [Double] = []
    func run(_ size: Int) -> Double {
        let ns = cpuNanoseconds { for i in calls..<(calls + size) { op(i) } }
        calls += size
        spent += ns
        return ns
    }
    while true {
        let ns = run(batch)
        if ns >= budgetNs / 20 {
            samples.append(ns / Double(batch))
            break
        }
        batch *= 2
    }
    while (spent < budgetNs || samples.count < 3) && samples.count < 9 { samples.append(run(batch) / Double(batch)) }
    return median(samples)
}

/// The mean of `samples` without the slowest 1%.
func trimmedMean(_ samples: [Double]) -> Double {
    let kept = samples.sorted().prefix(max(1, samples.count * 99 / 100))
    return kept.reduce(0, +) / Double(kept.count)
}

/// Median over `rounds` rounds of the ns of `timed`, each round `cycles` cycles of `timed` (on the
/// wall clock, one by one; the slowest 1% dropped) then `untimed` (off it), for operations that
/// need work between two calls; the two sizes alternate, so noise lands on both.
func alternateCycles<State>(
    _ small: State, _ large: State, rounds: Int, cycles: Int, timed: (State) -> Void, untimed: (State) -> Void
) -> (small: Double, large: Double) {
    var samples: [[Double]] = [[], []]
    for _ in 0..<rounds {
        for (index, state) in [small, large].enumerated() {
            var times: [Double] = []
            times.reserveCapacity(cycles)
            for _ in 0..<cycles {
                times.append(nanoseconds { timed(state) })
                untimed(state)
            }
            samples[index].append(trimmedMean(times))
        }
    }
    return (median(samples[0]), median(samples[1]))
}

/// ns of CPU time per call of `op` on each state, alternately, medians of `rounds`; `prepare` runs
/// untimed before each round.
func alternateCalls<State>(
    _ small: State, _ large: State, rounds: Int, budget: Double, prepare: (State) -> Void = { _ in },
    _ op: (State, Int) -> Void
) -> (small: Double, large: Double) {
    var samples: [[Double]] = [[], []]
    for _ in 0..<rounds {
        for (index, state) in [small, large].enumerated() {
            prepare(state)
            samples[index].append(cpuNsPerCall(budget: budget / Double(rounds)) { op(state, $0) })
        }
    }
    return (median(samples[0]), median(samples[1]))
}

// MARK: Forks

/// A tree stack whose redo stack is a chain of `length` steps, forked again and again: each cycle
/// makes a change (the fork, timed: the chain becomes a branch of the root), undoes it, and
/// selects the chain again as the redo stack (untimed). The root gains a one-node branch a cycle.
final class ForkBench {
    let model = Model()
    let stack: ActionStack
    let first: ActionStack.HistoryNode.ID
    let length: Int

    init(length: Int) {
        self.length = length
        (stack, first) = treeStackWithRedo(length, model: model)
    }

    func fork() { change(on: stack, model: model) }

    func restore() {
        stack.undo()
        selectBranch(first, on: stack)
        check(stack.redoCount == length && model.value == 0, "fork: redo \(stack.redoCount), model \(model.value)")
    }

    func release() { stack.removeAllActions() }
}

/// ns of the change that empties a linear redo stack of `length` steps (it releases them), one
/// change per stack built.
func linearClearingChange(length: Int) -> Double {
    let stack = explicitStack(notify: false)
    let model = Model()
    registerGroups(1...length, on: stack, models: [model])
    for _ in 0..<length { stack.undo() }
    let ns = cpuNanoseconds { change(on: stack, model: model) }
    check(stack.redoCount == 0 && model.value == 1, "linear clear: redo \(stack.redoCount)")
    stack.removeAllActions()
    return ns
}

// MARK: Pruning

/// A tree stack with ``ActionStack/maximumBranchSteps`` = `limit`, its branches full: each cycle
/// makes `chain` changes and undoes them (untimed), then makes the change that turns them into a
/// branch (timed), which prunes as many steps from the least recently left branches. Each cycle's
/// branch leaves from a node of its own.
final class PruneBench {
    let model = Model()
    let stack = treeStack()
    let chain: Int

    init(limit: Int, chain: Int) {
        self.chain = chain
        stack.maximumBranchSteps = limit
        // The first branch: `limit` steps.
        for _ in 0..<limit { change(on: stack, model: model) }
        for _ in 0..<limit { stack.undo() }
        change(on: stack, model: model)
        check(branchSteps == limit, "prune: \(branchSteps) branch steps, want \(limit)")
    }

    /// Steps held in branches: every node but those on the undo path and the root.
    var branchSteps: Int { (stack.historyTree?.nodes.count ?? 0) - stack.undoCount - stack.redoCount - 1 }

    func prepare() {
        for _ in 0..<chain { change(on: stack, model: model) }
        for _ in 0..<chain { stack.undo() }
    }

    func forkAndPrune() { change(on: stack, model: model) }

    func release() { stack.removeAllActions() }
}

// MARK: Tree on and off

/// ns per registration (begin + registerUndo + end), per undo and per redo of `n` one-action steps,
/// on a linear or a tree stack.
func treePhases(_ n: Int, tree: Bool) -> [Double] {
    let stack = tree ? treeStack() : explicitStack(notify: false)
    let model = Model()
    let register = cpuNanoseconds { registerGroups(1...n, on: stack, models: [model]) }
    let undo = cpuNanoseconds { for _ in 0..<n { stack.undo() } }
    let redo = cpuNanoseconds { for _ in 0..<n { stack.redo() } }
    check(model.value == triangle(n) && stack.undoCount == n, "phases: model \(model.value)")
    if tree { check(stack.currentNode?.sequence == n, "phases: at \(String(describing: stack.currentNode))") }
    stack.removeAllActions()
    return [register / Double(n), undo / Double(n), redo / Double(n)]
}

// MARK: Memory

/// Bytes malloc holds for the program: in use in its arenas plus mmapped chunks (large buffers).
/// Chunk headers and rounding count; freed chunks do not.
func heapBytes() -> Int { Int(actionstack_heap_bytes_in_use()) }

/// Where the memory rows hold their nodes.
enum Holding: CaseIterable {
    case linearPath, treePath, oneBranch, oneNodeBranches

    var name: String {
        switch self {
        case .linearPath: "a step on the path, linear history"
        case .treePath: "a node on the path (undo stack), tree"
        case .oneBranch: "a node off the path: one branch of n nodes"
        case .oneNodeBranches: "a node off the path: n one-node branches"
        }
    }
}

/// Bytes per node (or step) of `n` nodes held as `holding` says. On the path: what building them
/// added to `heapBytes()` (the stack included). Off the path: what dropping the branches (switching
/// to a linear history) gives back, so that the undo stack's buffers, which keep the capacity of
/// the `n` steps it held before they were undone, are not counted as the branches'.
func bytesPerNode(_ holding: Holding, _ n: Int) -> Double {
    let model = Model()
    let before = heapBytes()
    let stack = holding == .linearPath ? explicitStack(notify: false) : treeStack()
    var bytes = 0
    switch holding {
    case .linearPath, .treePath:
        for _ in 0..<n { change(on: stack, model: model) }
        bytes = heapBytes() - before
    case .oneBranch, .oneNodeBranches:
        if holding == .oneBranch {
            for _ in 0..<n { change(on: stack, model: model) }
            for _ in 0..<n { stack.undo() }
        } else {
            forkSteps(n, on: stack, model: model)
        }
        change(on: stack, model: model)
        let off = stack.historyTree?.nodes.filter { !$0.isOnCurrentPath }.count ?? 0
        check(off == n, "memory: \(off) nodes off the path, want \(n)")
        let held = heapBytes()
        stack.historyShape = .linear
        bytes = held - heapBytes()
    }
    stack.removeAllActions()
    return Double(bytes) / Double(n)
}

/// ``bytesPerNode(_:_:)`` averaged over four sizes from `n` to about `2n` (a geometric spread), so
/// that the slack of buffers that grow by doubling counts as it does on average.
func averageBytesPerNode(_ holding: Holding, from n: Int) -> Double {
    let sizes = (0..<4).map { Int((Double(n) * pow(2, Double($0) / 4)).rounded()) }
    return sizes.map { bytesPerNode(holding, $0) }.reduce(0, +) / Double(sizes.count)
}

// MARK: The table

let treeScaleWidths = [46, 11, 7, 9, 7, 9, 7, 13]
let treeBaselineWidths = [46, 11, 42, 11, 7]

func printTreeScaleRow(_ row: TreeRow) {
    printCells(
        [
            row.operation, row.unit, String(row.referenceSize), format(row.reference), String(row.size),
            format(row.value), formatRatio(row.ratio), row.expected, row.note,
        ],
        widths: treeScaleWidths, leftAligned: [0, 1, 7])
}

func printTreeBaselineRow(_ row: TreeRow, unit: String) {
    printCells(
        [
            row.operation, format(row.value) + unit, row.unit, format(row.reference) + unit, formatRatio(row.ratio),
            row.note,
        ],
        widths: treeBaselineWidths, leftAligned: [0, 2])
}

/// Runs the tree table, printing each row as it is measured.
func runTreeTable(_ sizes: TreeSizes, repetitions: Int) -> [TreeRow] {
    var rows: [TreeRow] = []
    func scale(_ row: TreeRow) {
        rows.append(row)
        printTreeScaleRow(row)
    }
    func beside(_ row: TreeRow, unit: String = "") {
        rows.append(row)
        printTreeBaselineRow(row, unit: unit)
    }
    print("")
    print(
        "ActionStack tree table (historyShape = .tree, notifications off): ns of CPU time per operation at a size "
            + "and at 16 times it (a path 4 times as long), measured alternately, medians of \(sizes.rounds)")
    printCells(
        ["operation", "size unit", "n", "ns at n", "large", "ns large", "ratio", "expected", "note"],
        widths: treeScaleWidths, leftAligned: [0, 1, 7])

    // Forks: the change that turns a redo stack of n steps into a branch.
    let (n, bigN) = (sizes.fork, 16 * sizes.fork)
    let forks = (ForkBench(length: n), ForkBench(length: bigN))
    let fork = alternateCycles(
        forks.0, forks.1, rounds: sizes.rounds, cycles: sizes.cycles, timed: { $0.fork() }, untimed: { $0.restore() })
    scale(
        TreeRow(
            section: "scale", operation: "fork: a change with a redo stack of n", unit: "redo steps",
            referenceSize: n, size: bigN, reference: fork.small, value: fork.large, expected: "~1 (O(1))",
            note: "wall clock, one by one"))
    forks.0.release()
    forks.1.release()
    var clearing: (small: [Double], large: [Double]) = ([], [])
    for _ in 0..<sizes.rounds {
        clearing.small.append(linearClearingChange(length: n))
        clearing.large.append(linearClearingChange(length: bigN))
    }
    scale(
        TreeRow(
            section: "scale", operation: "linear: that change empties the redo stack", unit: "redo steps",
            referenceSize: n, size: bigN, reference: median(clearing.small), value: median(clearing.large),
            expected: "~16 (O(n))", note: "it releases the n steps"))

    // Jumps, in combs of N and 16N nodes: with 100 targets, and with a target per change.
    let p = sizes.path
    let depths = [p / 2, 2 * p]
    let (nodes, bigNodes) = (sizes.nodes, 16 * sizes.nodes)
    var combs: [Int: (small: CombTree, large: CombTree)] = [:]
    for targets in [100, 0] {
        let pair = (
            small: CombTree(nodes: nodes, tooth: 3, probeDepths: depths, targets: targets),
            large: CombTree(nodes: bigNodes, tooth: 3, probeDepths: depths, targets: targets)
        )
        combs[targets] = pair
        let jumps = alternateCalls(pair.small, pair.large, rounds: sizes.rounds, budget: sizes.budget) { comb, _ in
            comb.move(0)
        }
        pair.small.checkAtTip(0)
        pair.large.checkAtTip(0)
        scale(
            TreeRow(
                section: "scale",
                operation: "jump(toNode:), path \(p), " + (targets == 0 ? "a target per change" : "\(targets) targets"),
                unit: "tree nodes", referenceSize: pair.small.nodeCount, size: pair.large.nodeCount,
                reference: jumps.small, value: jumps.large, expected: targets == 0 ? "O(t) a step" : "~1",
                note: targets == 0 ? "t targets: as many as nodes" : ""))
    }
    guard let (comb, bigComb) = combs[100], let perChange = combs[0] else { return rows }
    perChange.small.release()
    perChange.large.release()
    // Path p against path 4p in the large tree.
    // Each round starts at a tip of its pair (the move there is not timed).
    let paths = alternateCalls(
        0, 1, rounds: sizes.rounds, budget: sizes.budget, prepare: { bigComb.move($0) },
        { index, _ in bigComb.move(index) })
    bigComb.checkAtTip(1)
    bigComb.move(0)
    scale(
        TreeRow(
            section: "scale", operation: "jump(toNode:), path p and 4p, 100 targets", unit: "path steps",
            referenceSize: p, size: 4 * p, reference: paths.small, value: paths.large, expected: "~4 (O(path))",
            note: "\(bigComb.nodeCount) nodes"))
    // At the probes' fork: selectRedoBranch between two of its children, earlier(1) + later(1).
    for tree in [comb, bigComb] { jump(to: tree.pairs[0].fork, on: tree.stack) }
    let select = alternateCalls(comb, bigComb, rounds: sizes.rounds, budget: sizes.budget) { tree, i in
        let pair = tree.pairs[0]
        selectBranch(i % 2 == 0 ? pair.firstA : pair.firstB, on: tree.stack)
    }
    scale(
        TreeRow(
            section: "scale", operation: "selectRedoBranch, at a node of 6 children", unit: "tree nodes",
            referenceSize: comb.nodeCount, size: bigComb.nodeCount, reference: select.small, value: select.large,
            expected: "~1 (O(b))"))
    let time = alternateCalls(comb, bigComb, rounds: sizes.rounds, budget: sizes.budget) { tree, _ in
        do {
            try tree.stack.earlier(1)
            try tree.stack.later(1)
        } catch {
            check(false, "earlier/later: \(error)")
        }
    }
    for tree in [comb, bigComb] {
        check(
            tree.stack.currentNode == tree.pairs[0].fork,
            "earlier/later: at \(String(describing: tree.stack.currentNode))")
    }
    scale(
        TreeRow(
            section: "scale", operation: "earlier(1) + later(1), a path of 4 each way", unit: "tree nodes",
            referenceSize: comb.nodeCount, size: bigComb.nodeCount, reference: time.small, value: time.large,
            expected: "~1"))
    let snapshot = alternateCalls(comb, bigComb, rounds: sizes.rounds, budget: sizes.budget) { tree, _ in
        consume(tree.stack.historyTree)
    }
    scale(
        TreeRow(
            section: "scale", operation: "historyTree snapshot, per node", unit: "tree nodes",
            referenceSize: comb.nodeCount, size: bigComb.nodeCount, reference: snapshot.small / Double(comb.nodeCount),
            value: snapshot.large / Double(bigComb.nodeCount), expected: "~1 (s log s)"))

    // Pruning: maximumBranchSteps M and 16M, full; each fork of a 16-step chain prunes 16 steps.
    let (m, bigM) = (sizes.branchSteps, 16 * sizes.branchSteps)
    let chain = 16
    let prunes = (PruneBench(limit: m, chain: chain), PruneBench(limit: bigM, chain: chain))
    let prune = alternateCycles(
        prunes.0, prunes.1, rounds: sizes.rounds, cycles: max(1, sizes.cycles / 4), timed: { $0.forkAndPrune() },
        untimed: { $0.prepare() })
    for bench in [prunes.0, prunes.1] {
        let limit = bench.stack.maximumBranchSteps
        check(bench.branchSteps == limit, "prune: \(bench.branchSteps) steps held, limit \(limit)")
        bench.release()
    }
    scale(
        TreeRow(
            section: "scale", operation: "pruning, per step pruned (a fork prunes \(chain))", unit: "branch steps",
            referenceSize: m, size: bigM, reference: prune.small / Double(chain), value: prune.large / Double(chain),
            expected: "~1 (O(1))", note: "maximumBranchSteps, full"))

    // Beside baselines measured in the same run.
    print("")
    print(
        "Beside baselines (same run, interleaved; ns of CPU time, medians of \(repetitions); ratio = tree / baseline)")
    printCells(
        ["operation", "tree", "baseline (same run)", "baseline", "ratio"], widths: treeBaselineWidths,
        leftAligned: [0, 2])
    var phases: [[Double]] = [[], [], [], [], [], []]
    for _ in 0..<repetitions {
        let tree = treePhases(sizes.steps, tree: true)
        let linear = treePhases(sizes.steps, tree: false)
        for index in 0..<3 {
            phases[2 * index].append(tree[index])
            phases[2 * index + 1].append(linear[index])
        }
    }
    for (index, name) in ["begin + registerUndo + end", "undo()", "redo()"].enumerated() {
        beside(
            TreeRow(
                section: "baseline", operation: name, unit: "the same, linear history", referenceSize: sizes.steps,
                size: sizes.steps, reference: median(phases[2 * index + 1]), value: median(phases[2 * index]),
                note: "\(sizes.steps) one-action steps"))
    }
    // A fork against the same change with no redo stack (nothing to fork).
    let forkBench = ForkBench(length: n)
    let plain = (stack: treeStack(), model: Model())
    var forkSamples: [[Double]] = [[], []]
    for _ in 0..<repetitions {
        var (forkTimes, plainTimes): ([Double], [Double]) = ([], [])
        for _ in 0..<sizes.cycles {
            forkTimes.append(nanoseconds { forkBench.fork() })
            forkBench.restore()
            plainTimes.append(nanoseconds { change(on: plain.stack, model: plain.model) })
        }
        forkSamples[0].append(trimmedMean(forkTimes))
        forkSamples[1].append(trimmedMean(plainTimes))
    }
    forkBench.release()
    plain.stack.removeAllActions()
    beside(
        TreeRow(
            section: "baseline", operation: "fork: a change with a redo stack of \(n)",
            unit: "the same change, no redo stack", referenceSize: n, size: n, reference: median(forkSamples[1]),
            value: median(forkSamples[0]), note: "wall clock, one by one"))
    // A jump against the same steps by hand: over 100 targets, and over one (the jump looks for
    // freed targets before each step, O(t) each time; by hand, undo and redo look only at the step
    // they perform).
    let oneTarget = CombTree(nodes: nodes, tooth: 3, probeDepths: [p / 2], targets: 1)
    for (tree, targets) in [(bigComb, 100), (oneTarget, 1)] {
        let byHand = measureTogether(
            repetitions,
            [
                { cpuNsPerCall(budget: sizes.budget / Double(repetitions)) { _ in tree.move(0) } },
                { cpuNsPerCall(budget: sizes.budget / Double(repetitions)) { _ in tree.moveByHand(0) } },
            ])
        tree.checkAtTip(0)
        beside(
            TreeRow(
                section: "baseline", operation: "jump(toNode:), path \(p), \(targets) target\(targets == 1 ? "" : "s")",
                unit: "\(p / 2) undo(), selectRedoBranch, \(p / 2) redo()", referenceSize: p, size: p,
                reference: byHand[1], value: byHand[0], note: "\(tree.nodeCount) nodes"))
    }
    oneTarget.release()
    comb.release()
    bigComb.release()

    // Memory.
    print("")
    print(
        "Memory: bytes malloc holds per node (mallinfo2: uordblks + hblkhd, so chunk headers and the slack of "
            + "doubling buffers count), averaged over n = \(sizes.bytes) to \(2 * sizes.bytes); on the path: what "
            + "building n steps adds; off it: what dropping the branches frees. A change holds one action and its "
            + "handler's closure context")
    printCells(
        ["held as", "bytes", "baseline (same run)", "bytes", "ratio"], widths: treeBaselineWidths, leftAligned: [0, 2])
    var bytes: [Holding: Double] = [:]
    for holding in Holding.allCases { bytes[holding] = averageBytesPerNode(holding, from: sizes.bytes) }
    for holding in Holding.allCases where holding != .linearPath {
        let baseline: Holding = holding == .treePath ? .linearPath : .treePath
        beside(
            TreeRow(
                section: "memory", operation: holding.name, unit: baseline.name, referenceSize: sizes.bytes,
                size: sizes.bytes, reference: bytes[baseline] ?? .nan, value: bytes[holding] ?? .nan),
            unit: " B")
    }
    return rows
}
