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
import Foundation
import Testing

/// Issue 29: the reference model predicts a recovery. The random driver's operations run on a
/// recorded stack; at a few random points and at the end, the journal is replayed and restored
/// into a fresh stack, which must be, in everything observable, the stack the model predicts for a
/// save and a restore at that point (`ReferenceModel+Persistence.swift`): the restore's report,
/// the state (canUndo, canRedo, the counts, the names and menu titles of the next steps,
/// isClean, and in a tree the current node and the node redo enters), the undo and redo entries,
/// the history tree, and the document at every step of a walk that undoes everything and redoes
/// everything.
///
/// The model is run again from the start for each point (its prediction turns it into the fresh
/// stack), with the saves the stack made at the points before, which sweep freed targets as the
/// stack's do. A recorded stack also sweeps freed targets at the end of every change (a record is
/// what a full save would save), which an unrecorded one and the model do later: so the recorded
/// stack is compared with the model in its document and what its getters read after every
/// operation (not in its dead actions), and no one observes it.
@MainActor
@Suite struct JournalRecoveryModelTests {
    struct Outcome {
        var compared = 0
        var steps = 0
        var failed = false
    }

    func run(seed: UInt64, tree: Bool, floor: Int) throws -> Outcome {
        var driverCase = DriverGenerator.makeCase(seed: seed, count: 150, tree: tree, commands: true)
        // No one listens: a recorder sweeps freed targets at the end of every change, as a save does
        // (documented in the Saving the History article), so the observers of a recorded stack hear
        // a state there that the model's (an unrecorded stack's) do not, and a callback plan would
        // act on it. What is compared is the document and the history, which the sweep leaves alone.
        func unobserved(_ op: DriverOp) -> DriverOp {
            switch op {
            case .addObserver, .cancelObserver: .query(.state)
            case .scope(let name, let body, let throwing):
                .scope(name: name, body: body.map(unobserved), throwing: throwing)
            default: op
            }
        }
        driverCase.plan = []
        driverCase.ops = driverCase.ops.map(unobserved)
        var random = SeededGenerator(seed: seed &* 31 &+ 7)
        var points = Set((0..<3).map { _ in random.int(0...(driverCase.ops.count - 1)) })
        points.insert(driverCase.ops.count - 1)
        let world = StackWorld(driverCase)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-journal-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var generation = 0
        func makeRecorder() -> (HistoryJournal, HistoryRecorder, ActionStack) {
            generation += 1
            let journal = HistoryJournal(
                url: directory.appendingPathComponent("doc\(generation).journal"), synchronizesAppends: false)
            let recorder = HistoryRecorder(journal: journal, stack: world.stack) { "doc" }
            recorder._compactionFloor = floor
            return (journal, recorder, world.stack)
        }
        var (journal, recorder, recorded) = makeRecorder()
        var outcome = Outcome()
        var saves: Set<Int> = []

        /// One operation as the random driver's runner makes it: the callback budget reset, the
        /// operation, then everything read (but the getters after a target is freed), which sweeps
        /// freed targets as the runner's comparison does.
        func advance(_ world: some DriverWorld, _ op: DriverOp) -> String {
            world.plan.resetBudget()
            world.perform(op)
            if case .free = op { return "\(world.snapshot(readGetters: false).values)" }
            let snapshot = world.snapshot(readGetters: true)
            return
                "\(snapshot.values) \(String(describing: snapshot.getters)) \(snapshot.tree.map(\.description) ?? "-")"
        }
        /// The model after the operations up to `index`, with the saves at the points before.
        func model(through index: Int) -> ModelWorld {
            let model = ModelWorld(driverCase)
            for (position, op) in driverCase.ops.prefix(index + 1).enumerated() {
                _ = advance(model, op)
                if saves.contains(position) {
                    _ = advance(model, .savedHistory)
                    if position < index { save(model) }
                }
            }
            return model
        }
        // The model in step with the stack, to tell a divergence of the model from one of the journal.
        let lockstep = ModelWorld(driverCase)
        func save(_ model: ModelWorld) {
            let planWasEnabled = model.plan.enabled
            model.plan.enabled = false
            defer { model.plan.enabled = planWasEnabled }
            _ = model.model.savedHistory()
        }

        for (index, op) in driverCase.ops.enumerated() {
            let expected = advance(lockstep, op)
            let actual = advance(world, op)
            if expected != actual {
                // The random driver's tests own this: here it would only hide what the journal does.
                Issue.record(
                    "seed \(seed) op \(index) \(op) \(points.sorted()): the stack and the model diverge\n  \(expected)\n  \(actual)"
                )
                outcome.failed = true
                return outcome
            }
            if world.stack !== recorded { (journal, recorder, recorded) = makeRecorder() }
            guard points.contains(index) else { continue }
            // The save is a call (it sweeps freed targets, and the recorder records at its end):
            // the driver's operation in both worlds, then once more for the history itself, with the
            // callback plan off.
            saves.insert(index)
            if advance(lockstep, .savedHistory) != advance(world, .savedHistory) {
                Issue.record("seed \(seed) op \(index): the stack and the model diverge at a save")
                outcome.failed = true
                return outcome
            }
            save(lockstep)
            let planWasEnabled = world.plan.enabled
            world.plan.enabled = false
            defer { world.plan.enabled = planWasEnabled }
            guard let fullSave = try? world.stack.savedHistory(), recorder.recordCount > 0 else { continue }
            let recovered = try #require(
                try HistoryRecorder.recover(from: journal, fingerprint: "doc", registry: testRegistry()))
            let replayed = try #require(recovered.histories[HistoryRecorder.defaultHistoryName])
            let replayedText = SavedHistoryText(replayed)
            let savedText = SavedHistoryText(fullSave)

            // The fresh stack, the replayed history restored into it.
            let fresh = world.freshStack(like: world.stack)
            let report = RestoreReportText(try fresh.restoreHistory(replayed, resolvingTargets: world.resolver(nil)))
            let state = StackWorld.map(fresh.state)
            let entries = (fresh.undoEntries.map(StackWorld.map), fresh.redoEntries.map(StackWorld.map))
            let treeNow = fresh.historyTree.map(StackWorld.map)
            let walk = world.walk(fresh, undoSteps: nil, redoSteps: nil)

            // The model's prediction: a save and a restore into a fresh stack there.
            let predicted = model(through: index)
            let planWas = predicted.plan.enabled
            predicted.plan.enabled = false
            guard case .success(let save) = predicted.model.savedHistory() else {
                Issue.record("seed \(seed) op \(index): the model refuses a save the stack made")
                outcome.failed = true
                return outcome
            }
            let predictedReport = predicted.model.restoreIntoFreshStack(
                save, unresolved: predicted.unresolvedTargets(nil))
            let predictedState = predicted.model.state
            let predictedEntries = (predicted.model.undoEntries, predicted.model.redoEntries)
            let predictedTree = predicted.model.tree == nil ? nil : predicted.model.historyTreeQuery
            let predictedWalk = predicted.walk()
            predicted.plan.enabled = planWas

            var problems: [String] = []
            if replayedText != savedText {
                problems.append("replayed \(replayedText) where a full save is \(savedText)")
            }
            if save.text != savedText {
                problems.append("the model saves \(save.text) where the stack saves \(savedText)")
            }
            if report != predictedReport { problems.append("report \(report) where the model says \(predictedReport)") }
            if state != predictedState { problems.append("state \(state) where the model says \(predictedState)") }
            if entries.0 != predictedEntries.0 || entries.1 != predictedEntries.1 {
                problems.append("entries \(entries) where the model says \(predictedEntries)")
            }
            if treeNow != predictedTree {
                problems.append(
                    "tree \(treeNow.map(\.description) ?? "nil") where the model says \(predictedTree.map(\.description) ?? "nil")"
                )
            }
            if walk != predictedWalk { problems.append("walk \(walk) where the model says \(predictedWalk)") }
            if !problems.isEmpty {
                Issue.record(
                    """
                    seed \(seed)\(tree ? " (tree)" : "") op \(index) \(op): the journal's recovery is not the model's
                      \(problems.joined(separator: "\n  "))
                    """)
                outcome.failed = true
                return outcome
            }
            outcome.compared += 1
            outcome.steps += state.undoCount + state.redoCount
        }
        return outcome
    }

    @Test(arguments: [false, true])
    func aRecoveredJournalIsTheStackTheModelPredicts(tree: Bool) throws {
        var compared = 0
        var steps = 0
        for seed in UInt64(1)...UInt64(Workload.scaled(24)) {
            let outcome = try run(
                seed: seed &+ (tree ? 81_000 : 80_000), tree: tree, floor: seed % 3 == 0 ? 0 : 1 << 18)
            compared += outcome.compared
            steps += outcome.steps
            if outcome.failed { return }
        }
        print("journal recovery against the model\(tree ? " (tree)" : ""): \(compared) recoveries, \(steps) steps")
        #expect(compared > 30 / Workload.divisor)
        #expect(steps > 0)
    }
}
