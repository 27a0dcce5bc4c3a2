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

#if canImport(Glibc)
    import Glibc
#endif

// What saving keeps: closure steps are barriers, freed targets are left out, maximumSteps keeps the
// nearest steps, and an open group cannot be saved.

@Suite struct SavingTests {
    @Test func closureStepIsABarrierOnBothSides() throws {
        let box = HSBox()
        let stack = makeStack()
        hsChange(box, to: 1, on: stack)
        group(stack, named: "Closure") {
            box.value = 2
            stack.registerUndo(withTarget: box) { $0.value = 1 }
        }
        hsChange(box, to: 3, on: stack)
        hsChange(box, to: 4, on: stack)
        hsChange(box, to: 5, on: stack)
        stack.undo()  // current 4: undo 4, 3, closure, 1; redo 5
        let depth = stack.savableDepth
        #expect(depth.undoSteps == 2)
        #expect(depth.redoSteps == 1)
        #expect(stack.undoEntries.map(\.canBeSaved) == [true, true, false, true])
        let saved = try stack.savedHistory()
        #expect(saved.steps.count == 3)
        // Restored: the closure step and all beyond are gone.
        let target = HSBox(value: 4)
        let fresh = makeStack()
        try hsRestore(saved, into: fresh, ["box": target])
        #expect(fresh.undoCount == 2 && fresh.redoCount == 1)
        fresh.undo()
        fresh.undo()
        #expect(target.value == 2)
    }

    @Test func mixedStepCannotBeSaved() throws {
        let box = HSBox()
        let stack = makeStack()
        group(stack, named: "Mixed") {
            HSSet(value: 1).perform(on: box, in: stack)
            stack.registerUndo(withTarget: box) { _ in }
        }
        #expect(stack.undoEntries.first?.canBeSaved == false)
        #expect(stack.savableDepth.undoSteps == 0)
        #expect(try stack.savedHistory().steps.isEmpty)
    }

    @Test func freedTargetActionsAreNotSavedAndEmptyStepsAreSkipped() throws {
        let box = HSBox()
        let stack = makeStack()
        do {
            let other = HSBox("other")
            group(stack, named: "Both") {
                HSSet(value: 1).perform(on: box, in: stack)
                HSSet(value: 1).perform(on: other, in: stack)
            }
            group(stack, named: "Other") { HSSet(value: 2).perform(on: other, in: stack) }
            hsChange(box, to: 2, on: stack)
        }
        let saved = try stack.savedHistory()
        #expect(!saved.steps.flatMap(\.actions).contains { $0.key == "other" })
        #expect(saved.steps.map(\.actionName) == ["Both", "Set 2"])
        let fresh = makeStack()
        let target = HSBox(value: 2)
        let report = try hsRestore(saved, into: fresh, ["box": target])
        #expect(report.restoredSteps == 2)
        fresh.undo()
        fresh.undo()
        #expect(target.value == 0)
    }

    @Test func maximumStepsKeepsTheNearestUndoFirst() throws {
        let box = HSBox()
        let stack = hsLinear(5, undos: 3, box: box)  // current 2: undo 2, 1; redo 3, 4, 5
        let saved = try stack.savedHistory(maximumSteps: 3)
        #expect(saved.steps.count == 3)
        #expect(Set(saved.steps.map(\.node)) == [1, 2, 3])
        let one = try stack.savedHistory(maximumSteps: 1)
        #expect(one.steps.map(\.node) == [2])
        let none = try stack.savedHistory(maximumSteps: 0)
        #expect(none.steps.isEmpty)
        let fresh = makeStack()
        let report = try hsRestore(none, into: fresh, [:])
        #expect(report.restoredSteps == 0)
        #expect(fresh.undoCount == 0)
    }

    @Test func negativeMaximumStepsDoesNotCrash() throws {
        let box = HSBox()
        let stack = hsLinear(3, box: box)
        let saved = try stack.savedHistory(maximumSteps: -5)
        #expect(saved.steps.isEmpty)
    }

    @Test func savingWithAnOpenGroupThrowsGroupIsOpen() {
        let box = HSBox()
        let stack = hsLinear(2, box: box)
        stack.beginUndoGrouping()
        #expect(hsCatch { try stack.savedHistory() } == .groupIsOpen)
        stack.endUndoGrouping()
    }

    @Test func commandWhoseInverseIsAClosureStopsTheSaveAfterUndo() throws {
        let box = HSBox()
        let stack = makeStack()
        group(stack, named: "C") { HSClosureInverse(value: 1).perform(on: box, in: stack) }
        // The undo action registered by perform is a closure here, so the step is unsavable.
        #expect(stack.undoEntries.first?.canBeSaved == false)
        // A restored command with a closure inverse: undo works, the redo step can't be saved.
        let saved = SavedHistory(
            shape: .linear, root: 0, current: 1, clean: nil,
            steps: [
                SavedStep(
                    node: 1, parent: 0, isRedoChoice: true, date: nil, actionName: "C", isDiscardable: false,
                    userInfo: [:], actions: [SavedAction(HSClosureInverse(value: 0), key: "box")])
            ])
        let fresh = makeStack()
        let target = HSBox(value: 1)
        try hsRestore(saved, into: fresh, ["box": target])
        fresh.undo()
        #expect(target.value == 0)
        #expect(fresh.redoEntries.first?.canBeSaved == false)
        #expect(fresh.savableDepth.redoSteps == 0)
        fresh.redo()
        #expect(target.value == 1)
    }

    @Test func restoredCommandThatRegistersNothing() throws {
        let saved = SavedHistory(
            shape: .linear, root: 0, current: 2, clean: 2,
            steps: [
                SavedStep(
                    node: 1, parent: 0, isRedoChoice: true, date: nil, actionName: "A", isDiscardable: false,
                    userInfo: [:], actions: [SavedAction(HSMark(value: 0), key: "box")]),
                SavedStep(
                    node: 2, parent: 1, isRedoChoice: true, date: nil, actionName: "Noop", isDiscardable: false,
                    userInfo: [:], actions: [SavedAction(HSNoop(value: 1), key: "box")]),
            ])
        let fresh = makeStack()
        let target = HSBox(value: 2)
        try hsRestore(saved, into: fresh, ["box": target])
        fresh.undo()
        #expect(target.value == 1)
        fresh.undo()
        #expect(target.value == 0)
        while fresh.canRedo { fresh.redo() }
        // Whatever the empty redo step does, the history stays consistent and saveable.
        let again = try fresh.savedHistory()
        try again.validate()
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func theDepthReadInAHandlerIsWhatSavingGivesOnceTheFreedTargetsAreSwept(_ shape: ActionStack.HistoryShape) throws {
        let stack = hrStack(shape)
        let a = HRDoc("a")
        var gone: HRDoc? = HRDoc("gone")
        hrChange(a, to: 1, on: stack, name: "A1")
        if shape == .tree {
            hrChange(gone!, to: 1, on: stack, name: "Branch of the freed one")
            stack.undo()
            hrChange(a, to: 9, on: stack, name: "Branch of a")
            stack.undo()
        }
        hrChange(gone!, to: 2, on: stack, name: "Freed")
        hrChange(a, to: 3, on: stack, name: "A3")
        var inHandler: ActionStack.SavableDepth?
        var entriesInHandler: [String] = []
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: a) { [unowned stack] _ in
            gone = nil
            inHandler = stack.savableDepth
            entriesInHandler = stack.undoEntries.filter(\.canBeSaved).map(\.actionName)
        }
        stack.setActionName("Handler")
        stack.endUndoGrouping()
        stack.undo()
        let after = stack.savableDepth
        let saved = try stack.savedHistory()
        #expect(inHandler?.undoSteps == after.undoSteps, "\(String(describing: inHandler)) against \(after)")
        #expect(inHandler?.branchSteps == after.branchSteps, "\(String(describing: inHandler)) against \(after)")
        #expect(entriesInHandler == stack.undoEntries.filter(\.canBeSaved).map(\.actionName))
        #expect(after.undoSteps == 2)
        #expect(saved.steps.filter { $0.actionName == "Freed" || $0.actionName == "Branch of the freed one" }.isEmpty)
        try hrAgree(stack)
    }
}
