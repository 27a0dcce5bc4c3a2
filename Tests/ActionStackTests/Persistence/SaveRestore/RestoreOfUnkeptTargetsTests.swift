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
import Testing

/// A restore whose resolver gives an object that nobody keeps: the stack holds targets weakly, so
/// the restore cuts the history at the first step that names it (never a hole that undo skips),
/// and its report says what the stack holds.
@Suite struct RestoreOfUnkeptTargetsTests {
    /// Something a step changes: a log of the values it was set to.
    final class Part {
        let key: String
        var value: Int
        var onDeinit: (() -> Void)?

        init(_ key: String, value: Int = 0) {
            self.key = key
            self.value = value
        }

        deinit { onDeinit?() }
    }

    /// Sets a part's value and registers the command that sets it back.
    struct SetPart: UndoCommand {
        static let commandType = "unkept.set"
        var value: Int

        func perform(on part: Part, in stack: ActionStack) {
            stack.registerUndo(SetPart(value: part.value), on: part, key: part.key)
            part.value = value
        }
    }

    /// A stack with one step per key of `keys`, each setting its part to the step's number.
    func history(_ keys: [String], shape: ActionStack.HistoryShape, undoing: Int = 0) throws -> SavedHistory {
        let stack = makeStack()
        stack.historyShape = shape
        var parts: [String: Part] = [:]
        for (index, key) in keys.enumerated() {
            let part = parts[key] ?? Part(key)
            parts[key] = part
            stack.beginUndoGrouping()
            SetPart(value: index + 1).perform(on: part, in: stack)
            stack.setActionName("Step \(index + 1)")
            stack.endUndoGrouping()
        }
        for _ in 0..<undoing { stack.undo() }
        return try stack.savedHistory()
    }

    /// The steps a stack holds, as the report counts them.
    func heldSteps(_ stack: ActionStack) -> Int {
        if let tree = stack.historyTree { return tree.nodes.count - 1 }
        return stack.undoCount + stack.redoCount
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func anObjectNobodyKeepsCutsTheHistoryThereInsteadOfLeavingAHole(_ shape: ActionStack.HistoryShape) throws {
        // The case: steps on "doc", "fig-7", "doc"; the resolver makes a new "fig-7".
        let saved = try history(["doc", "fig-7", "doc"], shape: shape)
        let doc = Part("doc", value: 3)
        let fresh = makeStack()
        fresh.historyShape = shape
        var asked: [String] = []
        let report = try fresh.restoreHistory(saved) { key in
            asked.append(key)
            return key == "doc" ? doc : Part(key, value: 2)
        }
        #expect(asked.sorted() == ["doc", "fig-7"])
        #expect(report.restoredSteps == 1)
        #expect(report.droppedSteps == 2)
        #expect(report.cuts.map(\.node) == [2])
        #expect(report.cuts.map(\.reason) == [.objectNotKept("fig-7")])
        #expect(report.cuts.map(\.droppedSteps) == [2])
        #expect(
            report.description
                == "restored 1 steps; dropped 2 (node 2: the object for key \"fig-7\" was freed: nothing but the "
                + "restore kept it alive)")
        // The stack holds what the report says, and undo takes back the third step only.
        #expect(heldSteps(fresh) == report.restoredSteps - report.trimmedSteps)
        #expect(fresh.undoEntries.map(\.actionName) == ["Step 3"])
        fresh.undo()
        #expect(doc.value == 1)
        #expect(!fresh.canUndo)
        fresh.redo()
        #expect(doc.value == 3)
        #expect(fresh._invariantViolations().isEmpty)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func onTheRedoSideTheCutTakesTheStepsBeyond(_ shape: ActionStack.HistoryShape) throws {
        // Current at the start: the three steps are redo steps, "fig-7" the second.
        let saved = try history(["doc", "fig-7", "doc"], shape: shape, undoing: 3)
        let doc = Part("doc", value: 0)
        let fresh = makeStack()
        fresh.historyShape = shape
        let report = try fresh.restoreHistory(saved) { key in key == "doc" ? doc : Part(key) }
        #expect(report.restoredSteps == 1)
        #expect(report.cuts.map(\.reason) == [.objectNotKept("fig-7")])
        #expect(heldSteps(fresh) == 1)
        #expect(fresh.redoEntries.map(\.actionName) == ["Step 1"])
        fresh.redo()
        #expect(doc.value == 1)
        #expect(!fresh.canRedo)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func objectsTheAppKeepsComeBackWhole(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["doc", "fig-7", "doc"], shape: shape)
        let parts = ["doc": Part("doc", value: 3), "fig-7": Part("fig-7", value: 2)]
        let fresh = makeStack()
        fresh.historyShape = shape
        let report = try fresh.restoreHistory(saved) { parts[$0] }
        #expect(report.restoredSteps == 3 && report.cuts.isEmpty)
        #expect(heldSteps(fresh) == 3)
        fresh.undo()
        fresh.undo()
        #expect(parts["fig-7"]!.value == 0)
        fresh.undo()
        #expect(parts["doc"]!.value == 0)
    }

    @Test func anObjectThatAKeptObjectHoldsIsKept() throws {
        // The resolver makes the figure, and the document it returns for "doc" holds it: alive.
        final class Holder {
            var held: Part?
        }
        let saved = try history(["doc", "fig-7", "doc"], shape: .linear)
        let doc = Part("doc", value: 3)
        let holder = Holder()
        let fresh = makeStack()
        let report = try fresh.restoreHistory(saved) { key in
            if key == "doc" { return doc }
            let figure = Part(key, value: 2)
            holder.held = figure
            return figure
        }
        #expect(report.restoredSteps == 3 && report.cuts.isEmpty)
        fresh.undo()
        fresh.undo()
        #expect(holder.held?.value == 0)
    }

    @Test func theDeinitOfAnUnkeptObjectRunsDuringTheRestoreAndChangesNothingElse() throws {
        let saved = try history(["doc", "fig-7"], shape: .linear)
        let doc = Part("doc", value: 1)
        let fresh = makeStack()
        var freed = 0
        let report = try fresh.restoreHistory(saved) { key in
            if key == "doc" { return doc }
            let figure = Part(key, value: 2)
            // A deinit that calls into the stack, as a target's deinit may.
            figure.onDeinit = { [unowned fresh] in
                freed += 1
                fresh.removeAllActions(withTarget: doc)
            }
            return figure
        }
        #expect(freed == 1)
        #expect(report.restoredSteps == 0)
        #expect(report.cuts.map(\.reason) == [.objectNotKept("fig-7")])
        #expect(!fresh.canUndo && !fresh.canRedo)
    }

    @Test func aBranchNamingAnUnkeptObjectIsCutAlone() throws {
        // A tree: 1 (doc), then 2 (fig-7) as a branch from 1, and 3 (doc) where the document is.
        let stack = makeStack()
        stack.historyShape = .tree
        let doc = Part("doc")
        let figure = Part("fig-7")
        for (value, part) in [(1, doc), (2, figure)] {
            stack.beginUndoGrouping()
            SetPart(value: value).perform(on: part, in: stack)
            stack.endUndoGrouping()
        }
        stack.undo()
        stack.beginUndoGrouping()
        SetPart(value: 3).perform(on: doc, in: stack)
        stack.endUndoGrouping()
        let saved = try stack.savedHistory()
        let fresh = makeStack()
        fresh.historyShape = .tree
        let copy = Part("doc", value: 3)
        let report = try fresh.restoreHistory(saved) { key in key == "doc" ? copy : Part(key) }
        #expect(report.restoredSteps == 2)
        #expect(report.cuts.map(\.node) == [2])
        #expect(report.cuts.map(\.reason) == [.objectNotKept("fig-7")])
        #expect(heldSteps(fresh) == 2)
        #expect(fresh.historyTree?.nodes.map(\.sequence).sorted() == [0, 1, 3])
    }
}
