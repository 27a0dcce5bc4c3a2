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

// Commands in a saved history: a step that mixes a command and a closure is a barrier, commands that
// coalesce restore as one step, freed targets are left out, asynchronous commands roll back.

@Suite struct SavedCommandTests {
    @Test func aStepThatMixesACommandAndAClosureIsABarrier() throws {
        let stack = hrStack()
        let doc = HRDoc()
        let other = HRDoc("other")
        hrChange(doc, to: 1, on: stack, name: "A")
        stack.beginUndoGrouping()
        HRSet(value: 2).perform(on: doc, in: stack)
        let old = other.value
        stack.registerUndo(withTarget: other) { $0.value = old }
        other.value = 2
        stack.setActionName("Mixed")
        stack.endUndoGrouping()
        hrChange(doc, to: 3, on: stack, name: "C")
        #expect(stack.undoEntries.map(\.canBeSaved) == [true, false, true])
        try hrAgree(stack)
        #expect(try stack.savedHistory().steps.map(\.actionName) == ["C"])
        stack.undo()
        stack.undo()  // the mixed step; its closure re-registers nothing
        try hrAgree(stack)
        stack.undo()
        try hrAgree(stack)
    }

    @Test(arguments: [true, false])
    func aCommandAndAClosureThatCoalesceMakeAStepThatCannotBeSaved(commandFirst: Bool) throws {
        let stack = ActionStack()
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "Before")
        stack.endEvent()
        func command(_ value: Int) {
            stack.registerUndo(HRTyping(value: doc.value), on: doc, key: "doc", options: .coalescing("typing"))
            doc.value = value
            stack.endEvent()
        }
        func closure(_ value: Int) {
            let old = doc.value
            stack.registerUndo(withTarget: doc, options: .coalescing("typing")) { $0.value = old }
            doc.value = value
            stack.endEvent()
        }
        if commandFirst {
            command(2)
            closure(3)
        } else {
            closure(2)
            command(3)
        }
        #expect(stack.undoCount == 2)
        #expect(stack.undoEntries.first?.actionCount == 2)
        #expect(stack.undoEntries.first?.canBeSaved == false)
        try hrAgree(stack)
        #expect(try stack.savedHistory().steps.isEmpty)
    }

    @Test func commandsThatCoalesceRestoreAsOneStep() throws {
        let stack = ActionStack()
        let doc = HRDoc()
        for value in 1...3 {
            stack.registerUndo(HRTyping(value: doc.value), on: doc, key: "doc", options: .coalescing("typing"))
            doc.value = value
            stack.endEvent()
        }
        #expect(stack.undoCount == 1)
        try hrAgree(stack)
        let fresh = ActionStack()
        let copy = HRDoc("doc", 3)
        try fresh.restoreHistory(try hrRoundTrip(try stack.savedHistory())) { _ in copy }
        fresh.undo()
        #expect(copy.value == 0)
        fresh.redo()
        #expect(copy.value == 3)
    }

    @Test func freedTargetsAreLeftOutEverywhereAlike() throws {
        let stack = hrStack()
        let keep = HRDoc("keep")
        var gone: HRDoc? = HRDoc("gone")
        hrChange(keep, to: 1, on: stack, name: "Keep")
        stack.beginUndoGrouping()
        HRSet(value: 2).perform(on: keep, in: stack)
        HRSet(value: 2).perform(on: gone!, in: stack)
        stack.setActionName("Both")
        stack.endUndoGrouping()
        hrChange(gone!, to: 3, on: stack, name: "Gone only")
        // A closure on a freed target does not block either.
        stack.beginUndoGrouping()
        HRSet(value: 4).perform(on: keep, in: stack)
        stack.registerUndo(withTarget: gone!) { _ in }
        stack.setActionName("Closure on the freed one")
        stack.endUndoGrouping()
        gone = nil
        // Read from an undo observer, before the stack sweeps.
        let watched = stack
        var depthDuringUndo: ActionStack.SavableDepth?
        var entriesDuringUndo: [Bool] = []
        let token = stack.observe { _ in
            if depthDuringUndo == nil {
                depthDuringUndo = watched.savableDepth
                entriesDuringUndo = watched.undoEntries.map(\.canBeSaved) + watched.redoEntries.map(\.canBeSaved)
            }
        }
        stack.undo()
        withExtendedLifetime(token) {}
        let saved = try stack.savedHistory()
        #expect(depthDuringUndo == stack.savableDepth)
        #expect(entriesDuringUndo == stack.undoEntries.map(\.canBeSaved) + stack.redoEntries.map(\.canBeSaved))
        try hrAgree(stack)
        #expect(saved.steps.map(\.actionName) == ["Keep", "Both", "Closure on the freed one"])
        #expect(saved.steps.map(\.actions.count) == [1, 1, 1])
        #expect(saved.steps.allSatisfy { $0.actions.allSatisfy { $0.key == "keep" } })
    }

    @Test func aBranchingHistoryAgreesWithBranchesFromTheRootAndAClosureInABranch() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "1")
        hrChange(doc, to: 2, on: stack, name: "2")
        try stack.jump(toNode: .init(sequence: 0))
        hrChange(doc, to: 3, on: stack, name: "3")  // from the root
        hrClosureChange(doc, to: 4, on: stack, name: "4 closure")
        hrChange(doc, to: 5, on: stack, name: "5")
        try stack.jump(toNode: .init(sequence: 0))
        hrChange(doc, to: 6, on: stack, name: "6")  // from the root again
        try hrAgree(stack)
        let depth = stack.savableDepth
        #expect(depth.undoSteps == 1)
        // 1, 2 and 3 are savable branch steps; 4 blocks 5.
        #expect(depth.branchSteps == 3, "\(depth)")
        // With a group open: the closed steps.
        stack.beginUndoGrouping()
        HRSet(value: 7).perform(on: doc, in: stack)
        #expect(stack.savableDepth == depth)
        #expect(stack.undoEntries.first?.isOpen == true)
        #expect(stack.undoEntries.first?.canBeSaved == false)
        #expect(throws: ActionStack.HistoryPersistenceError.groupIsOpen) { try stack.savedHistory() }
        stack.endUndoGrouping()
        try hrAgree(stack)
        // At every node.
        for node in try #require(stack.historyTree).nodes.map(\.id) {
            try stack.jump(toNode: node)
            try hrAgree(stack, "at \(node)")
            let saved = try stack.savedHistory()
            let fresh = hrStack(.tree)
            let copy = HRDoc("doc", doc.value)
            let report = try fresh.restoreHistory(try hrRoundTrip(saved)) { _ in copy }
            #expect(report.droppedSteps == 0)
            #expect(report.restoredSteps == saved.steps.count)
        }
    }

    @Test func maximumStepsKeepsTheNearestUndoThenRedoThenBranches() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        for value in 1...4 { hrChange(doc, to: value, on: stack, name: "\(value)") }
        try stack.jump(toNode: .init(sequence: 2))
        hrChange(doc, to: 5, on: stack, name: "5")  // from 2: 3-4 a branch
        stack.undo()  // current 2; redo 5, branch 3-4
        #expect(try stack.savedHistory(maximumSteps: 1).steps.map(\.actionName) == ["2"])
        #expect(try stack.savedHistory(maximumSteps: 2).steps.map(\.actionName).sorted() == ["2", "5"])
        #expect(try stack.savedHistory(maximumSteps: 3).steps.map(\.actionName).sorted() == ["2", "3", "5"])
        #expect(try stack.savedHistory(maximumSteps: 4).steps.map(\.actionName).sorted() == ["1", "2", "3", "5"])
        #expect(try stack.savedHistory(maximumSteps: 0).steps.isEmpty)
        #expect(try stack.savedHistory(maximumSteps: -5).steps.isEmpty)
        for limit in 0...6 {
            let saved = try stack.savedHistory(maximumSteps: limit)
            #expect(throws: Never.self) { try saved.validate() }
            let fresh = hrStack(.tree)
            let copy = HRDoc("doc", doc.value)
            let report = try fresh.restoreHistory(try hrRoundTrip(saved)) { _ in copy }
            #expect(report.restoredSteps == min(limit, 5))
        }
    }

    @Test @MainActor func anAsyncCommandIsSavedRestoredAndRollsBackWhenItThrows() async throws {
        let stack = hrStack()
        let doc = HRDoc()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HRAsyncSet(value: doc.value, fails: false), on: doc, key: "doc")
        doc.value = 1
        stack.setActionName("Write")
        stack.endUndoGrouping()
        hrChange(doc, to: 2, on: stack, name: "Sync")
        try hrAgree(stack)
        let saved = try hrRoundTrip(try stack.savedHistory())
        #expect(saved.steps.count == 2)
        let fresh = hrStack()
        let copy = HRDoc("doc", 2)
        try fresh.restoreHistory(saved) { _ in copy }
        try await fresh.performUndo()
        try await fresh.performUndo()
        #expect(copy.value == 0)
        try await fresh.performRedo()
        #expect(copy.value == 1)
        try hrAgree(fresh)
        // A command that throws after a restore: its step rolls back and stays.
        let failing = hrStack()
        let target = HRDoc()
        failing.beginUndoGrouping()
        failing.registerAsyncUndo(HRAsyncSet(value: 0, fails: true), on: target, key: "doc")
        target.value = 1
        failing.endUndoGrouping()
        let again = hrStack()
        let copy2 = HRDoc("doc", 1)
        try again.restoreHistory(try hrRoundTrip(try failing.savedHistory())) { _ in copy2 }
        await #expect(throws: (any Error).self) { try await again.performUndo() }
        #expect(copy2.value == 1)
        #expect(again.undoCount == 1)
        #expect(again.brokenStep == nil)
    }

    @Test func aResolverThatReturnsAnotherClassForAnAsyncCommandCuts() throws {
        let stack = hrStack()
        let doc = HRDoc()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(HRAsyncSet(value: 0, fails: false), on: doc, key: "doc")
        stack.endUndoGrouping()
        let fresh = hrStack()
        let stranger = HRStranger()
        let report = try fresh.restoreHistory(try hrRoundTrip(try stack.savedHistory())) { _ in stranger }
        #expect(hrCuts(report) == [HRCut(1, .wrongTargetType(key: "doc", commandType: "hr.async"), 1)])
        #expect(fresh.undoCount == 0)
    }
}
