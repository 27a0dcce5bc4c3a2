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

// A history is restored only into a stack with nothing to undo or redo, outside any operation.

@Suite struct RestoreIntoAnEmptyStackTests {
    let saved = hsSaved(2, current: 2)

    @Test func restoreIntoStackWithAStepIsMisuseAndChangesNothing() {
        let box = HSBox()
        let stack = hsLinear(2, box: box)
        let before = hsEntries(stack)
        let error = hsCatch { try hsRestore(saved, into: stack, ["box": box]) }
        #expect(isNotEmptyMisuse(error))
        #expect(stack.lastMisuse != nil)
        #expect(hsEntries(stack) == before)
    }

    @Test func restoreWithOnlyRedoStepsIsMisuse() {
        let box = HSBox()
        let stack = hsLinear(1, undos: 1, box: box)
        let error = hsCatch { try hsRestore(saved, into: stack, ["box": box]) }
        #expect(isNotEmptyMisuse(error))
        #expect(stack.redoCount == 1 && stack.undoCount == 0)
    }

    @Test func restoreWithAnOpenEmptyGroupIsMisuse() {
        let stack = makeStack()
        stack.beginUndoGrouping()
        let error = hsCatch { try hsRestore(saved, into: stack, ["box": HSBox()]) }
        #expect(isNotEmptyMisuse(error))
        #expect(stack.groupingLevel == 1)
        #expect(stack.undoCount == 0)
        stack.endUndoGrouping()
    }

    @Test func restoreWithAnOpenEmptyGroupAndDropsEmptyGroupsIsMisuse() {
        let stack = makeStack(dropsEmptyGroups: true)
        stack.beginUndoGrouping()
        let error = hsCatch { try hsRestore(saved, into: stack, ["box": HSBox()]) }
        #expect(isNotEmptyMisuse(error))
        stack.endUndoGrouping()
        #expect(stack.undoCount == 0)
    }

    @Test func stepsOfFreedTargetsCountAsEmpty() throws {
        let stack = makeStack()
        do {
            let gone = HSBox("gone")
            hsChange(gone, to: 5, on: stack)
            hsChange(gone, to: 6, on: stack)
            stack.undo()
        }
        let box = HSBox(value: 2)
        let report = try hsRestore(saved, into: stack, ["box": box])
        #expect(report.restoredSteps == 2)
        #expect(stack.undoCount == 2 && stack.redoCount == 0)
    }

    @Test func branchingHistoryAtTheRootWithABranchIsNotEmpty() {
        let box = HSBox()
        let stack = makeStack()
        stack.historyShape = .tree
        hsChange(box, to: 1, on: stack)
        stack.undo()
        hsChange(box, to: 2, on: stack)
        stack.undo()
        // At the root, two branches, nothing on the undo side.
        #expect(stack.undoCount == 0)
        let before = hsTree(stack)
        var tree = saved
        tree.shape = .tree
        let error = hsCatch { try hsRestore(tree, into: stack, ["box": box]) }
        #expect(isNotEmptyMisuse(error))
        #expect(hsTree(stack) == before)
    }

    @Test func branchWhoseTargetsWereFreedCountsAsEmpty() throws {
        let stack = makeStack()
        stack.historyShape = .tree
        do {
            let gone = HSBox("gone")
            hsChange(gone, to: 1, on: stack)
            stack.undo()
            hsChange(gone, to: 2, on: stack)
            stack.undo()
        }
        var tree = saved
        tree.shape = .tree
        let report = try hsRestore(tree, into: stack, ["box": HSBox(value: 2)])
        #expect(report.restoredSteps == 2)
    }

    @Test @MainActor func restoreWhileAnAsyncOperationRunsIsMisuse() async throws {
        let stack = makeStack()
        let box = HSBox()
        let gate = AsyncStream<Void>.makeStream()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: box) { _ in
            for await _ in gate.stream { break }
        }
        stack.endUndoGrouping()
        let task = Task { @MainActor in try await stack.performUndo() }
        // Let the undo start: its only step leaves the undo stack.
        for _ in 0..<50 where !stack.isBusy { await Task.yield() }
        #expect(stack.isBusy)
        let error = hsCatch { try hsRestore(saved, into: stack, ["box": box]) }
        #expect(isNotEmptyMisuse(error) || isReentrant(error))
        let saveError = hsCatch { try stack.savedHistory() }
        #expect(saveError == .busy)
        gate.continuation.yield()
        gate.continuation.finish()
        _ = try await task.value
        #expect(stack.undoCount == 0)
    }

    @Test func restoreFromAHandlerIsReentrantMisuse() {
        let stack = makeStack()
        let box = HSBox()
        let saved = self.saved
        var restoreError: ActionStack.HistoryPersistenceError?
        var saveError: ActionStack.HistoryPersistenceError?
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: box) { box in
            // The only step is being undone: the undo stack is empty now.
            restoreError = hsCatch { try hsRestore(saved, into: stack, ["box": box]) }
            saveError = hsCatch { try stack.savedHistory() }
        }
        stack.endUndoGrouping()
        stack.undo()
        #expect(isReentrant(restoreError))
        #expect(isReentrant(saveError))
        #expect(stack.undoCount == 0)
    }

    @Test func restoreFromAnUndoNotificationObserverIsMisuse() {
        let stack = makeStack()
        let box = HSBox()
        let saved = self.saved
        nonisolated(unsafe) var restoreError: ActionStack.HistoryPersistenceError?
        hsChange(box, to: 1, on: stack)
        nonisolated(unsafe) let unsafeBox = box
        let token = observe(ActionStack.didUndoChangeNotification, of: stack) { stack in
            restoreError = hsCatch { try hsRestore(saved, into: stack, ["box": unsafeBox]) }
        }
        stack.undo()
        NotificationCenter.default.removeObserver(token)
        #expect(restoreError != nil)
        #expect(stack.redoCount == 1 && stack.undoCount == 0)
    }

    @Test func savingFromAStateObserverWorks() throws {
        // `observe` bodies run after the outermost call: the docs say they may call anything.
        let stack = makeStack()
        let box = HSBox()
        var saves: [Int] = []
        var failures = 0
        var errors: [String] = []
        let token = stack.observe { state in
            guard state.groupingLevel == 0 else { return }
            do { saves.append(try stack.savedHistory().steps.count) } catch {
                failures += 1
                errors.append("\(error)")
            }
        }
        hsChange(box, to: 1, on: stack)
        hsChange(box, to: 2, on: stack)
        token.cancel()
        #expect(failures == 0, "\(errors)")
        #expect(saves.last == 2)
    }
}
