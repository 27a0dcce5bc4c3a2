// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// ActionStack benchmarks: each scenario beside baselines measured in the same run (the ratio
// table), then what operations cost at a size and at 16 times it (the scale table), the
// asynchronous operations (the async table), the branching history (the tree table) and saving the
// history (the persistence table).
//
//   swift run -c release --package-path Benchmarks ActionStackBenchmarks            N = 1,000,000, 5 repetitions
//   swift run -c release --package-path Benchmarks ActionStackBenchmarks --quick    N = 20,000, 3 repetitions
//   ... -n N                         another N
//   ... --only 1,2,scale,async,tree,persistence,remote  only these scenarios (1-7), these tables
//   ... --json results.json          also write every row as JSON
//   ... --single-run SCENARIO COUNT  one scenario's work only, for profilers (see callgrind.sh)
//
// Figures are medians of the repetitions; the machine is shared and noisy, so read the ratios.

import Foundation
import Workloads

let arguments = Array(CommandLine.arguments.dropFirst())

func value(after flag: String) -> String? {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

if arguments.first == "--memory-probe", arguments.count == 3, let n = Int(arguments[2]) {
    print(memoryProbe(arguments[1], n))
    exit(0)
}

if arguments.first == "--single-run" {
    guard arguments.count == 3, let count = Int(arguments[2]), count > 0, singleRun(arguments[1], count) else {
        print("usage: ActionStackBenchmarks --single-run SCENARIO COUNT, SCENARIO one of:")
        for scenario in singleRunScenarios { print("  \(scenario.name): \(scenario.step)") }
        exit(2)
    }
    exit(0)
}

let quick = arguments.contains("--quick")
var n = quick ? 20_000 : 1_000_000
if let text = value(after: "-n") {
    guard let value = Int(text), value >= 1000 else {
        print("-n needs a number of at least 1000")
        exit(2)
    }
    n = value
}
let only = value(after: "--only").map { Set($0.split(separator: ",").map(String.init)) }
/// Whether a scenario ("1" ... "7") or a table ("scale", "async", "tree", "persistence", "remote") runs.
func selected(_ name: String) -> Bool { only?.contains(name) ?? true }
let repetitions = quick ? 3 : 5
#if DEBUG
    print("note: built in debug mode; use -c release for meaningful figures")
#endif

/// What `--json` writes.
struct Report: Encodable {
    var n: Int
    var repetitions: Int
    var quick: Bool
    var rows: [Row]
    var scale: [ScaleRow]
    var tree: [TreeRow]
    var persistence: [PersistenceRow]
}

var report = Report(n: n, repetitions: repetitions, quick: quick, rows: [], scale: [], tree: [], persistence: [])
if (1...7).contains(where: { selected(String($0)) }) {
    report.rows = runRatioTable(n: n, repetitions: repetitions, quick: quick, selected: selected)
}
if selected("scale") {
    report.scale = runScaleTable(quick ? .quick : .full)
}
if selected("async") {
    await runAsyncTable(quick: quick, repetitions: repetitions)
}
if selected("tree") {
    report.tree = runTreeTable(quick ? .quick : .full, repetitions: repetitions)
}
if selected("persistence") {
    // 10,000 steps whatever N (the size); registration over N steps, 200,000 at most.
    report.persistence = runPersistenceTable(repetitions: quick ? 5 : 11, registrationSteps: min(n, 200_000))
}
if selected("remote") {
    runRemoteTable(quick: quick, repetitions: repetitions)
}
if let path = value(after: "--json") { writeJSON(report, to: path) }
