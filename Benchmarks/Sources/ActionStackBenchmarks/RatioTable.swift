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

// The same-run ratio table: each scenario beside baselines measured in the same run, interleaved.

// MARK: Timed runs (ns per action)

func timeEach(_ n: Int, notify: Bool) -> Double {
    let stack = explicitStack(notify: notify)
    let model = Model()
    let ns = nanoseconds { eachSteps(n, on: stack, model: model) }
    check(stack.undoCount == n, "each: undo count \(stack.undoCount)")
    stack.removeAllActions()
    // Swift may end an object's life at its last use; the target must outlive the queries above.
    withExtendedLifetime(model) {}
    return ns / Double(n)
}

func timeSingle(_ n: Int, notify: Bool) -> Double {
    let stack = explicitStack(notify: notify)
    let model = Model()
    let ns = nanoseconds { singleSteps(n, on: stack, model: model) }
    stack.removeAllActions()
    return ns / Double(n)
}

func timeClosureStack(_ n: Int, weak: Bool) -> Double {
    let stack = ClosureStack()
    let model = Model()
    let ns = nanoseconds { closureStackSteps(n, weak: weak, on: stack, model: model) }
    stack.removeAll()
    return ns / Double(n)
}

func timePlainClosureStack(_ n: Int, weak: Bool) -> Double {
    let stack = PlainClosureStack()
    let model = Model()
    let ns = nanoseconds { plainClosureStackSteps(n, weak: weak, on: stack, model: model) }
    stack.removeAll()
    return ns / Double(n)
}

func timeClosuresRegisterUndo(_ n: Int) -> Double {
    let model = Model()
    return nanoseconds { closuresRegisterUndo(n, model: model) } / Double(n)
}

/// The timing includes releasing every step in both runs (trimming frees steps as it goes; the
/// unlimited run frees them all at the end), so the two runs do the same work.
func timeLevels(_ n: Int, limit: Int, notify: Bool) -> Double {
    let stack = explicitStack(notify: notify)
    stack.levelsOfUndo = limit
    let model = Model()
    return nanoseconds { levelsSteps(n, on: stack, model: model) } / Double(n)
}

/// ns per stored action of removing 1 target of 1000 (the undo of the rest is checked, untimed).
func timeRemove(_ n: Int) -> Double {
    let models = (0..<1000).map { _ in Model() }
    let stack = removalStack(n, models: models)
    let ns = nanoseconds { removeFirstTarget(from: stack, models: models, n: n) }
    undoRest(of: stack, models: models, n: n)
    return ns / Double(n)
}

func timeFilterPairs(_ n: Int) -> Double {
    let models = (0..<1000).map { _ in Model() }
    var pairs = targetClosurePairs(n, models: models)
    let ns = nanoseconds { filterPairs(&pairs, removing: models[0]) }
    check(pairs.count == n - n / 1000, "baseline remove: \(pairs.count)")
    return ns / Double(n)
}

func timeRunLoop(_ n: Int, events: Int, notify: Bool) -> Double {
    let stack = ActionStack()
    stack.postsNotifications = notify
    let model = Model()
    let perEvent = n / events
    let ns = nanoseconds { runLoopSteps(events: events, perEvent: perEvent, on: stack, model: model) }
    stack.removeAllActions()
    return ns / Double(perEvent * events)
}

func timeClosuresWithRunLoop(_ n: Int, events: Int) -> Double {
    let model = Model()
    let perEvent = n / events
    return nanoseconds { closuresWithRunLoop(events: events, perEvent: perEvent, model: model) }
        / Double(perEvent * events)
}

/// Registers `n` one-action steps spread over `targets` distinct live targets, then times undo of
/// all and redo of all: ns per undo + redo. Swift gives no signal when a weakly held object dies;
/// undo and redo look for freed targets only in the steps they perform, so their cost must not
/// grow with the number of targets (before that change, 1000 targets made them 75 times slower).
func timeManyTargets(_ n: Int, targets: Int) -> Double {
    let stack = explicitStack(notify: false)
    let models = (0..<targets).map { _ in Model() }
    registerGroups(1...n, on: stack, models: models)
    let ns = nanoseconds {
        for _ in 0..<n { stack.undo() }
        for _ in 0..<n { stack.redo() }
    }
    let total = models.reduce(0) { $0 + $1.value }
    check(total == triangle(n), "targets: model sum \(total)")
    stack.removeAllActions()
    return ns / Double(n)
}

/// ns per action of `count` bare notification posts (no observers), as many as a step makes.
func timeBarePosts(_ count: Int, per actions: Int) -> Double {
    nanoseconds { barePosts(count) } / Double(actions)
}

/// How many notifications `body` makes a stack post, per action (counted with an observer).
func postsPerAction(_ n: Int, _ body: (ActionStack) -> Void) -> Double {
    let stack = ActionStack()
    final class Count: @unchecked Sendable { var value = 0 }
    let count = Count()
    let names = [
        ActionStack.checkpointNotification, ActionStack.didOpenUndoGroupNotification,
        ActionStack.willCloseUndoGroupNotification, ActionStack.didCloseUndoGroupNotification,
        ActionStack.willUndoChangeNotification, ActionStack.didUndoChangeNotification,
        ActionStack.willRedoChangeNotification, ActionStack.didRedoChangeNotification,
    ]
    let tokens = names.map {
        NotificationCenter.default.addObserver(forName: $0, object: stack, queue: nil) { _ in count.value += 1 }
    }
    body(stack)
    for token in tokens { NotificationCenter.default.removeObserver(token) }
    stack.removeAllActions()
    return Double(count.value) / Double(n)
}

// MARK: Memory (each in a fresh process)

/// Holds N actions (one per group, or all in one group) and returns resident bytes per action
/// above what the process had before.
func memoryProbe(_ kind: String, _ n: Int) -> Double {
    let before = residentBytes()
    let model = Model()
    switch kind {
    case "each", "single":
        let stack = explicitStack(notify: false)
        if kind == "single" { stack.beginUndoGrouping() }
        for i in 1...n {
            if kind == "each" { stack.beginUndoGrouping() }
            // The same capture as the baseline: the model (weakly, as target) and an Int.
            model.value += i
            stack.registerUndo(withTarget: model) { $0.value -= i }
            if kind == "each" { stack.endUndoGrouping() }
        }
        if kind == "single" { stack.endUndoGrouping() }
        let bytes = Double(peakResidentBytes() - before) / Double(n)
        withExtendedLifetime(stack) {}
        return bytes
    default:
        var closures: [() -> Void] = []
        for i in 1...n {
            model.value += i
            closures.append { [model] in model.value -= i }
        }
        let bytes = Double(peakResidentBytes() - before) / Double(n)
        withExtendedLifetime(closures) {}
        return bytes
    }
}

/// The path of this executable, to run a fresh copy of it.
func ownExecutable() -> URL {
    let url = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
}

/// Runs `memoryProbe` in a fresh copy of this program, so heaps freed by other scenarios do not
/// hide growth.
func memoryInChild(_ kind: String, _ n: Int) -> Double {
    let process = Process()
    process.executableURL = ownExecutable()
    process.arguments = ["--memory-probe", kind, String(n)]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return .nan }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
}

// MARK: The table

let ratioWidths = [11, 18, 9, 9, 36, 9, 7]

func printRatioHeader(n: Int, repetitions: Int) {
    print(
        "ActionStack ratio table, N = \(n), median of \(repetitions), interleaved with the baselines "
            + "(ns per action; ratio = ActionStack / baseline)")
    printCells(
        ["scenario", "variant", "N", "ns/action", "baseline (same run)", "base ns", "ratio", "target"],
        widths: ratioWidths, leftAligned: [0, 1, 4])
}

func printRow(_ row: Row) {
    let isMemory = row.bytesPerAction != nil
    let own = isMemory ? format(row.bytesPerAction ?? .nan) + " B" : format(row.nsPerAction)
    for (index, comparison) in row.comparisons.enumerated() {
        let lead = index == 0 ? [row.scenario, row.variant, String(row.n), own] : ["", "", "", ""]
        let value = format(comparison.baselineValue) + (isMemory ? " B" : "")
        let ratio = formatRatio(comparison.ratio)
        var target = comparison.target.map { "target <= \($0)" } ?? ""
        if index == 0 && !row.note.isEmpty { target += (target.isEmpty ? "" : "; ") + row.note }
        printCells(lead + [comparison.baseline, value, ratio, target], widths: ratioWidths, leftAligned: [0, 1, 4])
    }
}

/// The closure baselines of scenarios 1 and 2, with the targets for scenario `scenario`.
func closureComparisons(
    own: Double, closures: Double, strong: Double, weak: Double, plainStrong: Double = .nan,
    plainWeak: Double = .nan, extra: Double = 0, suffix: String = "", targets: [String?]
) -> [Comparison] {
    var names = ["closures register+undo", "strong closure stacks", "weak closure stacks"]
    var values = [closures, strong, weak]
    if !plainStrong.isNaN {
        names += ["strong, plain closure arrays", "weak, plain closure arrays"]
        values += [plainStrong, plainWeak]
    }
    return zip(names, values).enumerated().map { index, pair in
        let base = pair.1 + extra
        return Comparison(
            baseline: pair.0 + suffix, baselineValue: base, ratio: own / base,
            target: index < targets.count ? targets[index] : nil)
    }
}

/// Runs the selected scenarios of the ratio table, printing each row as it is measured.
func runRatioTable(n: Int, repetitions: Int, quick: Bool, selected: (String) -> Bool) -> [Row] {
    var rows: [Row] = []
    func add(_ row: Row) {
        rows.append(row)
        printRow(row)
    }
    printRatioHeader(n: n, repetitions: repetitions)

    // Warm up (page in the code, grow the heap once).
    _ = timeEach(min(n, 20_000), notify: true)
    _ = timeClosureStack(min(n, 20_000), weak: true)

    let (one, two) = (selected("1"), selected("2"))
    if one || two {
        // Notifications a step of scenario 1 posts, and what as many bare posts cost.
        let posts = postsPerAction(1000) { stack in
            stack.groupsByEvent = false
            eachSteps(1000, on: stack, model: Model())
        }
        let postRun = min(n, 200_000)
        let postCount = Int((posts * Double(postRun)).rounded())
        let figures = measureTogether(
            repetitions,
            [
                { one ? timeEach(n, notify: false) : .nan },
                { one ? timeEach(n, notify: true) : .nan },
                { two ? timeSingle(n, notify: false) : .nan },
                { two ? timeSingle(n, notify: true) : .nan },
                { timeClosuresRegisterUndo(n) },
                { timeClosureStack(n, weak: false) },
                { timeClosureStack(n, weak: true) },
                { one ? timeBarePosts(postCount, per: postRun) : .nan },
                { timePlainClosureStack(n, weak: false) },
                { timePlainClosureStack(n, weak: true) },
            ])
        let (closures, strong, weak, postCost) = (figures[4], figures[5], figures[6], figures[7])
        let (plainStrong, plainWeak) = (figures[8], figures[9])
        if one {
            add(
                Row(
                    scenario: "1 each", variant: "notifications off", n: n, nsPerAction: figures[0],
                    comparisons: closureComparisons(
                        own: figures[0], closures: closures, strong: strong, weak: weak, plainStrong: plainStrong,
                        plainWeak: plainWeak, targets: [nil, "1.5x", "0.8x", "1.5x", "0.8x"]),
                    note: "register + undo + redo per step"))
            add(
                Row(
                    scenario: "1 each", variant: "notifications on", n: n, nsPerAction: figures[1],
                    comparisons: closureComparisons(
                        own: figures[1], closures: closures, strong: strong, weak: weak, extra: postCost,
                        suffix: String(format: " + %.0f posts", posts), targets: ["1.15x"]),
                    note: String(format: "%.0f bare posts = %.0f ns", posts, postCost)))
        }
        if two {
            for (index, notify) in [false, true].enumerated() {
                let own = figures[2 + index]
                add(
                    Row(
                        scenario: "2 single", variant: notify ? "notifications on" : "notifications off", n: n,
                        nsPerAction: own,
                        comparisons: closureComparisons(
                            own: own, closures: closures, strong: strong, weak: weak, plainStrong: plainStrong,
                            plainWeak: plainWeak, targets: [nil, notify ? nil : "1.3x", nil, notify ? nil : "1.3x"]),
                        note: "per action"))
            }
        }
    }

    if selected("3") {
        // levelsOfUndo = 100: per-group cost with the limit, against the same without a limit.
        let figures = measureTogether(
            repetitions,
            [
                { timeLevels(n, limit: 100, notify: false) }, { timeLevels(n, limit: 0, notify: false) },
                { timeLevels(n, limit: 100, notify: true) }, { timeLevels(n, limit: 0, notify: true) },
            ])
        for (index, notify) in [false, true].enumerated() {
            let own = figures[2 * index]
            let base = figures[2 * index + 1]
            add(
                Row(
                    scenario: "3 levels100", variant: notify ? "notifications on" : "notifications off", n: n,
                    nsPerAction: own,
                    comparisons: [
                        Comparison(baseline: "same, no limit", baselineValue: base, ratio: own / base, target: "1.5x")
                    ],
                    note: "per group, releases included"))
        }
    }

    if selected("4") {
        // Removal by target: ns per stored action, against filtering an array of (target, closure).
        let figures = measureTogether(repetitions, [{ timeRemove(n) }, { timeFilterPairs(n) }])
        add(
            Row(
                scenario: "4 remove", variant: "1 of 1000 targets", n: n, nsPerAction: figures[0],
                comparisons: [
                    Comparison(
                        baseline: "array filter by identity", baselineValue: figures[1], ratio: figures[0] / figures[1],
                        target: nil)
                ],
                note: "per stored action; target <= 20 ns"))
    }

    if selected("5") {
        // Automatic grouping over run-loop events, then undo all.
        let events = quick ? 100 : 1000
        let figures = measureTogether(
            repetitions,
            [
                { timeRunLoop(n, events: events, notify: false) }, { timeRunLoop(n, events: events, notify: true) },
                { timeClosuresWithRunLoop(n, events: events) },
            ])
        for (index, notify) in [false, true].enumerated() {
            add(
                Row(
                    scenario: "5 automatic", variant: notify ? "notifications on" : "notifications off", n: n,
                    nsPerAction: figures[index],
                    comparisons: [
                        Comparison(
                            baseline: "closures + same run-loop passes", baselineValue: figures[2],
                            ratio: figures[index] / figures[2], target: nil)
                    ],
                    note: "\(events) events"))
        }
    }

    if selected("6") {
        // Memory: peak resident bytes per stored action, each in a fresh process.
        let baselineBytes = memoryInChild("baseline", n)
        for kind in ["each", "single"] {
            let bytes = memoryInChild(kind, n)
            add(
                Row(
                    scenario: "6 memory", variant: kind == "each" ? "one action per group" : "all in one group", n: n,
                    nsPerAction: .nan, bytesPerAction: bytes,
                    comparisons: [
                        Comparison(
                            baseline: "closures array", baselineValue: baselineBytes, ratio: bytes / baselineBytes,
                            target: nil)
                    ],
                    note: String(format: "beyond the closures: %.1f B; target <= 100", bytes - baselineBytes)))
        }
    }

    if selected("7") {
        // Undo + redo with 1000 distinct live targets, against one target (20,000 steps at most, so
        // that a regression to an O(targets) check per operation stays quick to see).
        let steps = min(n, 20_000)
        let figures = measureTogether(
            repetitions, [{ timeManyTargets(steps, targets: 1000) }, { timeManyTargets(steps, targets: 1) }])
        add(
            Row(
                scenario: "7 targets", variant: "1000 live targets", n: steps, nsPerAction: figures[0],
                comparisons: [
                    Comparison(
                        baseline: "same, 1 target", baselineValue: figures[1], ratio: figures[0] / figures[1],
                        target: nil)
                ],
                note: "undo + redo"))
    }
    return rows
}
