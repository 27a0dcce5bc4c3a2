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

// Remote changes (collaborative undo): reporting a peer's change to a stack that holds this user's
// text edits, beside the same change made to the model with registration disabled (what an app
// without collaborative undo would do) in the same run, at two history sizes; and an undo after r
// remote changes, which rebases its own step over them.

/// A short text that this user and a peer edit.
final class BenchText {
    var text: [Character] = Array("The quick brown fox jumps over the lazy dog")
    let stack = ActionStack()

    init() {
        stack.groupsByEvent = false
        stack.postsNotifications = false
    }

    /// This user's edit, one step.
    func edit(_ edit: SequenceEdit<Character>) {
        stack.beginUndoGrouping()
        try? edit.apply(to: &text)
        stack.registerUndo(BenchEdit(edit: edit.inverse), on: self, key: "text")
        stack.endUndoGrouping()
    }
}

struct BenchEdit: UndoCommand, RebasableCommand {
    static let commandType = "bench.edit"
    var edit: SequenceEdit<Character>

    init(edit: SequenceEdit<Character>) { self.edit = edit }

    func perform(on text: BenchText, in stack: ActionStack) {
        try? edit.apply(to: &text.text)
        stack.registerUndo(BenchEdit(edit: edit.inverse), on: text, key: "text")
    }

    func rebased(over change: SequenceEdit<Character>) -> BenchEdit? { edit.rebased(over: change).map(BenchEdit.init) }
    func transform(_ change: SequenceEdit<Character>) -> SequenceEdit<Character>? { edit.transform(change) }

    // The benchmark never saves: it encodes nothing.
    init(from decoder: any Decoder) throws { throw CocoaError(.coderReadCorrupt) }
    func encode(to encoder: any Encoder) throws {}
}

/// A text with `steps` of this user's steps (each types one letter at the end and deletes it
/// again, so the text stays short), ready for remote changes.
func benchText(steps: Int) -> BenchText {
    let text = BenchText()
    for index in 0..<steps {
        if index % 2 == 0 {
            text.edit(.insert(["x"], at: text.text.count))
        } else {
            text.edit(.delete(["x"], at: text.text.count - 1))
        }
    }
    return text
}

/// A peer's change: a letter typed at the start, then deleted (so the text keeps its length).
func peerChange(_ index: Int) -> SequenceEdit<Character> {
    index % 2 == 0 ? .insert(["p"], at: 0) : .delete(["p"], at: 0)
}

/// ns per remote change reported to a stack of `steps` steps.
func reportRemoteChanges(steps: Int, changes: Int) -> Double {
    let text = benchText(steps: steps)
    return nanoseconds {
        for index in 0..<changes {
            let change = peerChange(index)
            text.stack.applyRemoteChange(change) { try? change.apply(to: &text.text) }
        }
    } / Double(changes)
}

/// ns per change made to the same model with registration disabled, beside the same stack.
func applyWithRegistrationDisabled(steps: Int, changes: Int) -> Double {
    let text = benchText(steps: steps)
    return nanoseconds {
        for index in 0..<changes {
            let change = peerChange(index)
            text.stack.disableUndoRegistration()
            try? change.apply(to: &text.text)
            text.stack.enableUndoRegistration()
        }
    } / Double(changes)
}

/// The `count` remote changes reported before an undo: a letter typed at the start and deleted
/// again, over and over (changes that cannot be merged), or, when `typing`, a run of keys typed at
/// the start and then backspaced (two runs, each merged into one change as it arrives).
func remoteChanges(_ count: Int, typing: Bool) -> [SequenceEdit<Character>] {
    guard typing else { return (0..<count).map(peerChange) }
    let half = count / 2
    let typed = (0..<half).map { SequenceEdit<Character>.insert(["p"], at: $0) }
    let backspaced = (0..<half).reversed().map { SequenceEdit<Character>.delete(["p"], at: $0) }
    return typed + backspaced
}

/// ns per undo of a step made just before `remote` remote changes were reported: the undo rebases
/// the step over them (the changes go on below it, to the steps under it, untouched).
func undoAfterRemoteChanges(_ remote: Int, undos: Int, typing: Bool = false) -> Double {
    let text = benchText(steps: 100)
    let changes = remoteChanges(remote, typing: typing)
    var total = 0.0
    for _ in 0..<undos {
        text.edit(.insert(["x"], at: text.text.count))
        for change in changes {
            text.stack.applyRemoteChange(change) { try? change.apply(to: &text.text) }
        }
        total += nanoseconds { text.stack.undo() }
    }
    return total / Double(undos)
}

func runRemoteTable(quick: Bool, repetitions: Int) {
    let small = 1_000
    let large = 16_000
    let changes = quick ? 20_000 : 200_000
    print("")
    print(
        "Remote changes (ns, median of \(repetitions); baseline: the same change with registration disabled, same run)")
    print("scenario                                       remote   disabled   ratio   target")
    var figures: [Int: Double] = [:]
    for steps in [small, large] {
        let (ours, theirs) = {
            let values = measureTogether(
                repetitions,
                [
                    { reportRemoteChanges(steps: steps, changes: changes) },
                    { applyWithRegistrationDisabled(steps: steps, changes: changes) },
                ])
            return (values[0], values[1])
        }()
        figures[steps] = ours
        let name = "report a change, \(steps) steps held"
        print(
            name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(format: "%9.0f %10.0f %7.2fx   ≤ 1.5x", ours, theirs, ours / theirs))
    }
    if let a = figures[small], let b = figures[large] {
        print(String(format: "reporting at %d steps against %d: %.2fx (target ≤ 1.2x)", large, small, b / a))
        print(
            "  (time; the instructions per report are the same at both sizes, which the clock's figure does not "
                + "show on a shared machine: Benchmarks/callgrind.sh remote remote-16k)")
    }
    let undos = quick ? 200 : 2_000
    var undo: [Int: Double] = [:]
    for remote in [0, 10, 160] {
        undo[remote] = measureTogether(repetitions, [{ undoAfterRemoteChanges(remote, undos: undos) }])[0]
    }
    let typed = measureTogether(repetitions, [{ undoAfterRemoteChanges(160, undos: undos, typing: true) }])[0]
    let u0 = undo[0] ?? .nan
    let u10 = undo[10] ?? .nan
    let u160 = undo[160] ?? .nan
    print(
        String(
            format: "undo of a step after r remote changes: %.0f ns at r = 0, %.0f at r = 10, %.0f at r = 160", u0, u10,
            u160))
    print(
        String(
            format: "  r = 160 against r = 10: %.1fx for 16x r (O(r) reads as about 16 less the fixed part)", u160 / u10
        ))
    print(
        String(
            format: "  160 keys typed and backspaced (merged into 2 changes): %.0f ns, %.2fx r = 0 (target ≤ 2x)",
            typed, typed / u0))
}
