// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Workloads

// `--single-run SCENARIO COUNT`: one scenario's work for COUNT steps and nothing else, for
// profilers (Benchmarks/callgrind.sh runs it at two counts and divides the difference).

/// The scenarios `--single-run` knows, with what a step is.
let singleRunScenarios: [(name: String, step: String)] = [
    ("each", "scenario 1, notifications off: group + register, undo, redo"),
    ("each-notify", "scenario 1, notifications on"),
    ("single", "scenario 2, notifications off: one action of a group of COUNT, its undo and redo"),
    ("each-tree", "scenario 1 with historyShape = .tree (nothing forks)"),
    ("single-tree", "scenario 2 with historyShape = .tree"),
    ("fork", "tree: a change that turns a one-step redo stack into a branch, then an undo"),
    ("jump", "tree: jump(toNode:) along a path of 8 in a tree of 2,000 nodes over 100 targets (set-up included)"),
    ("command", "a move command (two Doubles): group + registerUndo(_:on:key:), released at the end"),
    ("command-closure", "the same change registering a closure with the same captures instead"),
    ("strong", "strong closure stack: register, undo, redo"),
    ("weak", "weak closure stack: register, undo, redo"),
    ("closures", "closures register+undo (the first baseline)"),
    ("remove", "scenario 4: removal of 1 target of 1000, per stored action (set-up included)"),
    ("remove-setup", "scenario 4's set-up alone (callgrind.sh subtracts it from remove)"),
    ("recorded", "2,000 move commands on a stack of COUNT steps held, watched by a HistoryRecorder"),
    ("queried", "100,000 queries (canUndo + undoMenuItemTitle) on a stack of COUNT steps, watched by a recorder"),
    ("remote", "COUNT remote changes reported to a text stack of 1,000 steps"),
    ("remote-disabled", "the same COUNT changes made with registration disabled (the remote table's baseline)"),
    ("remote-16k", "COUNT remote changes reported to a text stack of 16,000 steps (flat against remote)"),
    ("remote-disabled-16k", "the same COUNT changes made with registration disabled, 16,000 steps"),
    ("remote-undo", "COUNT undos, each of a step made before 10 remote changes"),
    ("load", "COUNT loads of an archive of 1,000 move steps: HistoryArchive(decoding:) + restoreHistory"),
    ("decode", "COUNT reads of the same archive: HistoryArchive(decoding:) alone"),
    ("decode-floor", "COUNT reads of the same 1,000 commands as a plain array with JSONDecoder (the baseline)"),
]

/// Runs `scenario` for `count` steps, releasing what it stored; false if the name is unknown.
func singleRun(_ scenario: String, _ count: Int) -> Bool {
    switch scenario {
    case "each", "each-notify":
        let stack = explicitStack(notify: scenario == "each-notify")
        eachSteps(count, on: stack, model: Model())
        stack.removeAllActions()
    case "single":
        let stack = explicitStack(notify: false)
        singleSteps(count, on: stack, model: Model())
        stack.removeAllActions()
    case "each-tree":
        let stack = treeStack()
        treeEachSteps(count, on: stack, model: Model())
        stack.removeAllActions()
    case "single-tree":
        let stack = treeStack()
        singleSteps(count, on: stack, model: Model())
        stack.removeAllActions()
    case "fork":
        let stack = treeStack()
        forkSteps(count, on: stack, model: Model())
        stack.removeAllActions()
    case "jump":
        let comb = CombTree(nodes: 2_000, tooth: 3, probeDepths: [4], targets: 100)
        for _ in 0..<count { comb.move(0) }
        comb.checkAtTip(0)
        comb.release()
    case "command", "command-closure":
        // The values are made first (a few instructions per step, the same in both scenarios).
        let stack = explicitStack(notify: false)
        registerChanges(
            commandValues(MoveShape.self, count), on: stack, target: Shape(), byClosure: scenario == "command-closure")
        stack.removeAllActions()
    case "strong", "weak":
        let stack = ClosureStack()
        closureStackSteps(count, weak: scenario == "weak", on: stack, model: Model())
        stack.removeAll()
    case "closures":
        closuresRegisterUndo(count, model: Model())
    case "remove", "remove-setup":
        let models = (0..<1000).map { _ in Model() }
        let stack = removalStack(count, models: models)
        if scenario == "remove" { removeFirstTarget(from: stack, models: models, n: count) }
        stack.removeAllActions()
        withExtendedLifetime(models) {}
    case "recorded":
        _ = timeRecordedChanges(held: count, changes: 2_000, recorded: true)
    case "queried":
        _ = timeQueries(held: count, watched: true)
    case "remote", "remote-16k":
        _ = reportRemoteChanges(steps: scenario == "remote" ? 1_000 : 16_000, changes: count)
    case "remote-disabled", "remote-disabled-16k":
        _ = applyWithRegistrationDisabled(steps: scenario == "remote-disabled" ? 1_000 : 16_000, changes: count)
    case "remote-undo":
        _ = undoAfterRemoteChanges(10, undos: count)
    case "load", "decode", "decode-floor":
        let bench = PersistenceBench<MoveShape>(steps: 1_000)
        // The archive and the plain array, made once (the same set-up in the three scenarios).
        _ = (bench.encode(), bench.encodeFloor())
        for _ in 0..<count {
            switch scenario {
            case "load": _ = bench.decode()
            case "decode": _ = bench.decodeArchive()
            default: _ = bench.decodeFloor()
            }
        }
    default:
        return false
    }
    return true
}
