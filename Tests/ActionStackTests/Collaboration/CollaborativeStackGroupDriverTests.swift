// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Testing

/// The collaborative driver on two shared documents in one ``ActionStackGroup``, each with its own
/// stack and its own model (one linear, one branching in every other run): peers' edits arrive for
/// both, focus moves between them, and Undo and Redo go through the group.
///
/// The properties checked after every operation: each document is its own model's, whichever stack
/// is active (a remote change reported to one stack never touches the other's steps); the group's
/// `canUndo`, `canRedo` and titles are the active document's; a press through the group does what
/// the active model's does, and only in the active document; the group's observer heard the active
/// stack's state; and every per-document property of the driver.
extension CollaborativeDriverTests {
    @MainActor final class GroupRun {
        let runs: [Run]
        let group = ActionStackGroup()
        var random: SeededGenerator
        var active = 0
        var heard: ActionStack.State??
        var token: ObservationToken?

        init(seed: UInt64) {
            random = SeededGenerator(seed: seed)
            runs = [
                Run(seed: seed &* 2 + 1, async: false, shape: .linear, label: "group seed \(seed), document 0"),
                Run(
                    seed: seed &* 2 + 2, async: false, shape: seed % 2 == 0 ? .tree : .linear,
                    label: "group seed \(seed), document 1"),
            ]
            for run in runs { group.add(run.stack) }
            group.activeStack = runs[0].stack
            token = group.observe { [unowned self] state in self.heard = state }
        }

        func note(_ entry: String) {
            for run in runs { run.log.append("[group] \(entry)") }
        }

        /// A press of Undo or Redo through the group: the active document's model presses too; the
        /// other document stays as it was.
        func press(undo: Bool) {
            let run = runs[active]
            let other = runs[1 - active]
            note("\(undo ? "undo" : "redo") through the group (document \(active))")
            let expected = undo ? run.model.canUndo : run.model.canRedo
            #expect((undo ? group.canUndo : group.canRedo) == expected, "the group's menu: \(run.trace)")
            let otherText = String(other.document.text)
            if undo { group.undo() } else { group.redo() }
            if undo { run.model.undo() } else { run.model.redo() }
            #expect(String(other.document.text) == otherText, "the other document stayed: \(other.trace)")
        }

        func operation() async {
            let index = random.int(0...1)
            let run = runs[index]
            switch random.int(0...99) {
            case 0..<8:
                note("document \(index) active")
                active = index
                group.activeStack = run.stack
            case 8..<35: run.local()
            case 35..<60: run.remote()
            case 60..<75: press(undo: true)
            case 75..<85: press(undo: false)
            default:
                // Anything else, on either document's own stack (saves and restores, jumps, groups).
                let old = run.stack
                await run.operation()
                if run.stack !== old {
                    // A restore made a new stack: the group follows it.
                    group.remove(old)
                    group.add(run.stack)
                    if index == active { group.activeStack = run.stack }
                }
            }
            check()
        }

        func check() {
            for run in runs { run.check() }
            let run = runs[active]
            #expect(group.activeStack === run.stack)
            #expect(group.canUndo == run.model.canUndo, "the group's canUndo: \(run.trace)")
            #expect(group.canRedo == run.model.canRedo, "the group's canRedo: \(run.trace)")
            #expect(group.undoMenuItemTitle == run.stack.undoMenuItemTitle, "the group's Undo title: \(run.trace)")
            #expect(group.redoMenuItemTitle == run.stack.redoMenuItemTitle, "the group's Redo title: \(run.trace)")
            if let heard { #expect(heard == run.stack.state, "the group's observer heard the state: \(run.trace)") }
        }
    }

    /// 16,000 operations in 40 runs of two documents.
    @Test(arguments: 0..<Workload.scaled(16))
    func twoSharedDocumentsInOneGroupAreEachTheirOwnModel(seed: Int) async {
        let run = GroupRun(seed: UInt64(40_000 + seed))
        for _ in 0..<400 { await run.operation() }
        await Workload.yield()
    }
}
