// ActionStack benchmarks: each scenario beside a baseline measured in the same run.
//
//   swift run -c release --package-path Benchmarks            N = 1,000,000, 5 repetitions
//   swift run -c release --package-path Benchmarks --quick    N = 20,000, 3 repetitions
//   ... --json results.json                                   also write the rows as JSON
//
// Figures are medians of the repetitions; the machine is shared and noisy, so read the ratios.

import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--memory-probe", arguments.count == 3, let n = Int(arguments[2]) {
    print(memoryProbe(arguments[1], n))
    exit(0)
}

if arguments.first == "--profile-each", arguments.count == 2, let n = Int(arguments[1]) {
    profileEach(n)
    exit(0)
}

if arguments.first == "--profile-single", arguments.count == 2, let n = Int(arguments[1]) {
    profileSingle(n)
    exit(0)
}

if arguments.first == "--profile-remove", arguments.count == 2, let n = Int(arguments[1]) {
    profileRemove(n)
    exit(0)
}

let quick = arguments.contains("--quick")
var jsonPath: String?
if let index = arguments.firstIndex(of: "--json"), index + 1 < arguments.count { jsonPath = arguments[index + 1] }
var only: String?
if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count { only = arguments[index + 1] }
var n = quick ? 20_000 : 1_000_000
if let index = arguments.firstIndex(of: "-n"), index + 1 < arguments.count, let value = Int(arguments[index + 1]) {
    n = value
}
/// Whether scenario `number` runs (all of them unless `--only NUMBER`).
@MainActor func selected(_ number: String) -> Bool { only == nil || only == number }
let repetitions = quick ? 3 : 5
#if DEBUG
    print("note: built in debug mode; use -c release for meaningful figures")
#endif

@MainActor func measure(_ body: () -> Double) -> Double {
    median((0..<repetitions).map { _ in body() })
}

var rows: [Row] = []
@MainActor func add(_ row: Row) {
    rows.append(row)
    let bytes = row.bytesPerAction.map { String(format: "%.1f", $0) } ?? "-"
    let timing =
        row.nsPerAction.isNaN
        ? ["-", "-", "-"]
        : [
            String(format: "%.1f", row.nsPerAction), String(format: "%.1f", row.baselineNsPerAction),
            String(format: "%.2fx", row.ratio),
        ]
    printRow([row.scenario, row.variant, String(row.n)] + timing + [bytes, row.note])
}

print("ActionStack benchmarks, N = \(n), median of \(repetitions) (ns per action; ratio = ActionStack / baseline)")
/// Prints one table row in fixed-width columns.
func printRow(_ cells: [String]) {
    let widths = [12, 22, 9, 10, 12, 8, 9]
    var line = ""
    for (index, cell) in cells.enumerated() {
        guard index < widths.count else {
            line += "  " + cell
            continue
        }
        let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
        line += index < 2 ? cell + pad + " " : pad + cell + " "
    }
    print(line)
}
printRow(["scenario", "variant", "N", "ns/action", "baseline ns", "ratio", "B/action", "baseline and target"])

// Warm up (page in the code, grow the heap once).
if only == nil { _ = scenarioEach(min(n, 20_000), notify: true) }

// 1. one action per explicit group: register + undo + redo, against closures' register + undo.
let base1 = measure { baselineRegisterUndo(n) }
if selected("1") {
    add(
        Row(
            scenario: "1 each", variant: "notifications off", n: n,
            nsPerAction: measure { scenarioEach(n, notify: false) }, baselineNsPerAction: base1,
            baselineName: "closures register+undo", note: "closures register+undo; target <= 3x"
        )
    )
    let posts1 = postsPerAction(1000) { stack in
        stack.groupsByEvent = false
        let model = Model()
        for i in 1...1000 {
            stack.beginUndoGrouping()
            bump(model, by: i, on: stack)
            stack.endUndoGrouping()
        }
        for _ in 0..<1000 { stack.undo() }
        for _ in 0..<1000 { stack.redo() }
    }
    let postCost = measure { barePosts(Int(posts1 * Double(min(n, 200_000)))) / Double(min(n, 200_000)) }
    add(
        Row(
            scenario: "1 each", variant: "notifications on", n: n,
            nsPerAction: measure { scenarioEach(n, notify: true) }, baselineNsPerAction: base1 + postCost,
            baselineName: "closures + \(posts1) bare posts",
            note: String(format: "closures + %.0f bare posts/action; target <= 1.3x", posts1)
        )
    )

}
if selected("2") {
    // 2. N actions in one group, one undo, one redo.
    for notify in [false, true] {
        add(
            Row(
                scenario: "2 single", variant: notify ? "notifications on" : "notifications off", n: n,
                nsPerAction: measure { scenarioSingle(n, notify: notify) }, baselineNsPerAction: base1,
                baselineName: "closures register+undo", note: "closures register+undo"
            )
        )
    }

}
if selected("3") {
    // 3. levelsOfUndo = 100: per-group cost with the limit, against the same without a limit.
    for notify in [false, true] {
        let unlimited = measure { scenarioLevels(n, limit: 0, notify: notify) }
        add(
            Row(
                scenario: "3 levels100", variant: notify ? "notifications on" : "notifications off", n: n,
                nsPerAction: measure { scenarioLevels(n, limit: 100, notify: notify) }, baselineNsPerAction: unlimited,
                baselineName: "same, no limit", note: "same run without a limit; target <= 1.5x"
            )
        )
    }

}
if selected("4") {
    // 4. removal by target: ns per stored action, against filtering an array of (target, closure).
    let base4 = measure { baselineRemove(n) }
    add(
        Row(
            scenario: "4 remove", variant: "1 of 1000 targets", n: n,
            nsPerAction: measure { scenarioRemove(n, notify: false) }, baselineNsPerAction: base4,
            baselineName: "array filter", note: "array filter by identity; target <= 20 ns/action"
        )
    )

}
if selected("5") {
    // 5. automatic grouping over 1000 run-loop events, then undo all.
    let events = quick ? 100 : 1000
    let base5 = measure { baselineAutomatic(n, events: events) }
    for notify in [false, true] {
        add(
            Row(
                scenario: "5 automatic", variant: notify ? "notifications on" : "notifications off", n: n,
                nsPerAction: measure { scenarioAutomatic(n, events: events, notify: notify) },
                baselineNsPerAction: base5,
                baselineName: "closures + run loop", note: "closures + the same run-loop passes"
            )
        )
    }

}
if selected("6") {
    // 6. memory: peak resident bytes per stored action, each in a fresh process.
    let baselineBytes = memoryInChild("baseline", n)
    for kind in ["each", "single"] {
        let bytes = memoryInChild(kind, n)
        add(
            Row(
                scenario: "6 memory", variant: kind == "each" ? "one action per group" : "all in one group", n: n,
                nsPerAction: .nan, baselineNsPerAction: .nan, baselineName: "closures array",
                bytesPerAction: bytes, baselineBytesPerAction: baselineBytes,
                note: String(
                    format: "closures array: %.1f B/action; beyond it: %.1f; target <= 100", baselineBytes,
                    bytes - baselineBytes)
            )
        )
    }

}

if selected("7") {
    // 7. undo + redo with 1000 distinct live targets, against the same with one target (20,000 steps
    //    at most, so that a regression to an O(targets) check per operation stays quick to see).
    let steps = min(n, 20_000)
    let oneTarget = measure { scenarioManyTargets(steps, targets: 1) }
    add(
        Row(
            scenario: "7 targets", variant: "1000 live targets", n: steps,
            nsPerAction: measure { scenarioManyTargets(steps, targets: 1000) }, baselineNsPerAction: oneTarget,
            baselineName: "same, 1 target", note: "undo + redo; same run with 1 target"
        )
    )
}

if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    do {
        try encoder.encode(rows).write(to: URL(fileURLWithPath: jsonPath))
        print("wrote \(jsonPath)")
    } catch {
        print("could not write \(jsonPath): \(error)")
        exit(1)
    }
}
