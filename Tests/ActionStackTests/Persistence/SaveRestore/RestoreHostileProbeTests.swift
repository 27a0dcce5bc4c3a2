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

/// A restore driven by a hostile app: resolvers that make objects nobody keeps, give one object for
/// every key, the wrong class or nothing, free objects or call back into the stack while the
/// restore runs; targets whose deinit calls into the stack; commands that misbehave; limits,
/// observers, a recorder and damaged archives. The restore reads its steps through pointers and
/// holds targets, command kinds, the history and the side unretained, so these run under
/// AddressSanitizer too (`--sanitize=address`). After each restore the stack must hold what the
/// report says, and every step must undo and redo.
@Suite struct RestoreHostileProbeTests {
    /// Something a step changes.
    final class Part {
        let key: String
        var value: Int
        var onDeinit: (() -> Void)?
        /// Runs when a command is performed on the part, before it changes it.
        var onPerform: ((ActionStack) -> Void)?

        init(_ key: String, value: Int = 0) {
            self.key = key
            self.value = value
        }

        deinit { onDeinit?() }
    }

    /// An object of a class no command changes.
    final class Stranger {}

    /// Sets a part's value and registers the command that sets it back.
    struct SetPart: UndoCommand {
        static let commandType = "hostile.set"
        var value: Int

        func perform(on part: Part, in stack: ActionStack) {
            part.onPerform?(stack)
            stack.registerUndo(SetPart(value: part.value), on: part, key: part.key)
            part.value = value
        }
    }

    /// A command whose payload does not decode when its value is negative.
    struct Picky: UndoCommand {
        static let commandType = "hostile.picky"
        var value: Int

        init(value: Int) { self.value = value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            value = try container.decode(Int.self)
            if value < 0 { throw DecodingError.dataCorruptedError(in: container, debugDescription: "negative") }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }

        func perform(on part: Part, in stack: ActionStack) {
            stack.registerUndo(Picky(value: part.value), on: part, key: part.key)
            part.value = value
        }
    }

    func registry() -> CommandRegistry {
        var registry = CommandRegistry()
        registry.register(SetPart.self)
        registry.register(Picky.self)
        return registry
    }

    /// A stack with one step per key of `keys`, each setting its part to the step's number; the
    /// parts are returned with it.
    func stack(
        _ keys: [String], shape: ActionStack.HistoryShape = .linear, undoing: Int = 0
    ) -> (stack: ActionStack, parts: [String: Part]) {
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
        return (stack, parts)
    }

    func history(
        _ keys: [String], shape: ActionStack.HistoryShape = .linear, undoing: Int = 0
    ) throws -> SavedHistory {
        let made = stack(keys, shape: shape, undoing: undoing)
        return try made.stack.savedHistory()
    }

    /// A history with a branch: 1 (a), 2 (b) left as a branch from 1, then 3 (a) where the
    /// document is.
    func branchingHistory() throws -> SavedHistory {
        let stack = makeStack()
        stack.historyShape = .tree
        let a = Part("a")
        let b = Part("b")
        for (value, part) in [(1, a), (2, b)] {
            stack.beginUndoGrouping()
            SetPart(value: value).perform(on: part, in: stack)
            stack.endUndoGrouping()
        }
        stack.undo()
        stack.beginUndoGrouping()
        SetPart(value: 3).perform(on: a, in: stack)
        stack.endUndoGrouping()
        return try stack.savedHistory()
    }

    /// The steps a stack holds, as the report counts them.
    func heldSteps(_ stack: ActionStack) -> Int {
        if let tree = stack.historyTree { return tree.nodes.count - 1 }
        return stack.undoCount + stack.redoCount
    }

    /// Undoes every step, redoes every step, then goes back to where it was; checks the stack's
    /// invariants on the way.
    func walk(_ stack: ActionStack, sourceLocation: SourceLocation = #_sourceLocation) {
        let redos = stack.redoCount
        var undone = 0
        while stack.canUndo && undone < 1000 {
            stack.undo()
            undone += 1
        }
        var redone = 0
        while stack.canRedo && redone < 1000 {
            stack.redo()
            redone += 1
        }
        for _ in 0..<redos where stack.canUndo { stack.undo() }
        #expect(stack._invariantViolations().isEmpty, sourceLocation: sourceLocation)
    }

    /// The report's counts are what the stack holds.
    func expectHeld(
        _ stack: ActionStack, _ report: ActionStack.RestoreReport, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(heldSteps(stack) == report.restoredSteps - report.trimmedSteps, sourceLocation: sourceLocation)
    }

    // MARK: Resolvers

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aFreshObjectForEveryKeyRestoresNothing(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b", "a", "c"], shape: shape, undoing: 2)
        let fresh = makeStack()
        fresh.historyShape = shape
        let report = try fresh.restoreHistory(saved) { Part($0) }
        #expect(report.restoredSteps == 0)
        #expect(report.droppedSteps == 4)
        #expect(Set(report.cuts.map(\.reason)) == [.objectNotKept("b"), .objectNotKept("a")])
        expectHeld(fresh, report)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func oneObjectForEveryKeyComesBackUnderEachKey(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b", "a", "c"], shape: shape, undoing: 1)
        let only = Part("a", value: 3)
        let fresh = makeStack()
        fresh.historyShape = shape
        let report = try fresh.restoreHistory(saved) { _ in only }
        #expect(report.restoredSteps == 4 && report.cuts.isEmpty)
        expectHeld(fresh, report)
        // Saved again, each action keeps its own key (the commands performed register under the
        // part's own key, so before any undo).
        let again = try fresh.savedHistory()
        #expect(again.steps.map { $0.actions.map(\.key) } == saved.steps.map { $0.actions.map(\.key) })
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func theWrongClassOrNothingCutsAtTheNearestStep(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b", "a", "c", "a"], shape: shape, undoing: 2)
        let a = Part("a")
        let stranger = Stranger()
        let fresh = makeStack()
        fresh.historyShape = shape
        let report = try fresh.restoreHistory(saved) { key in
            switch key {
            case "a": a
            case "b": stranger
            default: nil
            }
        }
        // Node 3 only: node 2 ("b") is of the wrong class, node 4 ("c") does not resolve.
        #expect(report.restoredSteps == 1)
        #expect(
            Set(report.cuts.map(\.reason)) == [
                .wrongTargetType(key: "b", commandType: "hostile.set"), .unresolvedKey("c"),
            ])
        expectHeld(fresh, report)
        walk(fresh)
        withExtendedLifetime(stranger) {}
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func anObjectTheResolverLetsDieIsNotKept(_ shape: ActionStack.HistoryShape) throws {
        // The app holds "a" until the resolver, asked for "b", drops it.
        let saved = try history(["a", "b", "a"], shape: shape)
        var held: [String: Part] = ["a": Part("a", value: 3), "b": Part("b", value: 2)]
        let fresh = makeStack()
        fresh.historyShape = shape
        let report = try fresh.restoreHistory(saved) { key in
            let part = held[key]
            if key == "b" { held["a"] = nil }
            return part
        }
        #expect(report.restoredSteps == 0)
        #expect(report.cuts.map(\.reason) == [.objectNotKept("a")])
        expectHeld(fresh, report)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aResolverThatChangesTheStackMakesTheRestoreAMisuse(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b"], shape: shape)
        let parts = ["a": Part("a", value: 1), "b": Part("b", value: 2)]
        let other = Part("x")
        let fresh = makeStack()
        fresh.historyShape = shape
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try fresh.restoreHistory(saved) { key in
                if key == "b" {
                    fresh.beginUndoGrouping()
                    fresh.registerUndo(withTarget: other) { $0.value = 0 }
                    fresh.endUndoGrouping()
                }
                return parts[key]
            }
        }
        // Only the app's own change is there.
        #expect(fresh.undoCount == 1 && fresh.redoCount == 0)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aResolverThatRestoresTheSameStackWinsAndTheOuterRestoreIsAMisuse(
        _ shape: ActionStack.HistoryShape
    ) throws {
        let saved = try history(["a", "b"], shape: shape)
        let parts = ["a": Part("a", value: 1), "b": Part("b", value: 2)]
        let fresh = makeStack()
        fresh.historyShape = shape
        var inner: ActionStack.RestoreReport?
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try fresh.restoreHistory(saved) { key in
                if inner == nil { inner = try? fresh.restoreHistory(saved) { parts[$0] } }
                return parts[key]
            }
        }
        #expect(inner?.restoredSteps == 2)
        #expect(heldSteps(fresh) == 2)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aResolverThatRestoresNothingIntoTheSameStackLeavesItEmpty(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b"], shape: shape)
        let empty = try makeStack().savedHistory()
        let parts = ["a": Part("a", value: 1), "b": Part("b", value: 2)]
        let fresh = makeStack()
        fresh.historyShape = shape
        let report = try fresh.restoreHistory(saved) { key in
            _ = try? fresh.restoreHistory(empty) { _ in nil }
            return parts[key]
        }
        #expect(report.restoredSteps == 2)
        expectHeld(fresh, report)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aResolverThatOnlyReadsOrEmptiesTheStackChangesNothing(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b", "a"], shape: shape, undoing: 1)
        let parts = ["a": Part("a", value: 3), "b": Part("b", value: 2)]
        let fresh = makeStack()
        fresh.historyShape = shape
        let neighbour = makeStack()
        let report = try fresh.restoreHistory(saved) { key in
            fresh.undo()
            fresh.redo()
            fresh.removeAllActions()
            fresh.removeAllActions(withTarget: parts["a"]!)
            _ = try? fresh.savedHistory()
            _ = fresh.undoEntries
            // Another stack: a change, and a restore of the same history.
            neighbour.beginUndoGrouping()
            neighbour.registerUndo(withTarget: parts["a"]!) { $0.value = 0 }
            neighbour.endUndoGrouping()
            _ = try? makeStack().restoreHistory(saved) { parts[$0] }
            return parts[key]
        }
        #expect(report.restoredSteps == 3)
        expectHeld(fresh, report)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aResolverThatSwitchesTheShapeMakesTheRestoreAMisuse(_ shape: ActionStack.HistoryShape) throws {
        let saved = try branchingHistory()
        let parts = ["a": Part("a", value: 3), "b": Part("b", value: 0)]
        let fresh = makeStack()
        fresh.historyShape = shape
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try fresh.restoreHistory(saved) { key in
                fresh.historyShape = shape == .linear ? .tree : .linear
                return parts[key]
            }
        }
        #expect(heldSteps(fresh) == 0)
        walk(fresh)
        // The stack is usable: a restore in its new shape.
        let report = try fresh.restoreHistory(saved) { parts[$0] }
        expectHeld(fresh, report)
        walk(fresh)
    }

    // MARK: Deinits

    /// The deinit of an object freed when the restore lets go, whose key only a step already cut
    /// names: `change` runs in it.
    func restoreWhoseLetGoRuns(
        _ shape: ActionStack.HistoryShape, _ change: @escaping (ActionStack) -> Void
    ) throws -> (ActionStack, Result<ActionStack.RestoreReport, ActionStack.HistoryPersistenceError>) {
        // Step 1 on "a", step 2 on "c" and "b" (a redo step, read from its newest action). "b" resolves to an object nobody
        // keeps, and "c" to nothing: step 2 is cut at "c", and "b" is named by no kept step.
        let stack = makeStack()
        stack.historyShape = shape
        let old = ["a": Part("a"), "b": Part("b"), "c": Part("c")]
        stack.beginUndoGrouping()
        SetPart(value: 1).perform(on: old["a"]!, in: stack)
        stack.endUndoGrouping()
        stack.beginUndoGrouping()
        SetPart(value: 2).perform(on: old["c"]!, in: stack)
        SetPart(value: 2).perform(on: old["b"]!, in: stack)
        stack.endUndoGrouping()
        stack.undo()
        let saved = try stack.savedHistory()
        let parts = ["a": Part("a", value: 1)]
        let fresh = makeStack()
        fresh.historyShape = shape
        var freed = false
        let result = Result { () throws(ActionStack.HistoryPersistenceError) in
            try fresh.restoreHistory(saved) { key in
                if key == "b" {
                    let made = Part("b")
                    made.onDeinit = { [unowned fresh] in
                        freed = true
                        change(fresh)
                    }
                    return made
                }
                return parts[key]
            }
        }
        #expect(freed)
        return (fresh, result)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aDeinitThatRegistersWhenTheRestoreLetsGoMakesItAMisuse(_ shape: ActionStack.HistoryShape) throws {
        let other = Part("x")
        let (fresh, result) = try restoreWhoseLetGoRuns(shape) { stack in
            stack.beginUndoGrouping()
            stack.registerUndo(withTarget: other) { $0.value = 0 }
            stack.endUndoGrouping()
        }
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try result.get()
        }
        #expect(fresh.undoCount == 1 && fresh.redoCount == 0)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aDeinitThatRestoresWhenTheRestoreLetsGoMakesItAMisuse(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["x", "x"], shape: .tree)
        let x = Part("x", value: 2)
        let (fresh, result) = try restoreWhoseLetGoRuns(shape) { stack in
            _ = try? stack.restoreHistory(saved) { _ in x }
        }
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try result.get()
        }
        #expect(heldSteps(fresh) == 2)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aDeinitThatSwitchesTheShapeWhenTheRestoreLetsGoMakesItAMisuse(
        _ shape: ActionStack.HistoryShape
    ) throws {
        let (fresh, result) = try restoreWhoseLetGoRuns(shape) { stack in
            stack.historyShape = shape == .linear ? .tree : .linear
        }
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try result.get()
        }
        #expect(heldSteps(fresh) == 0)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aTargetFreedAfterTheRestoreTakesItsStepsAndItsDeinitMayCallIn(
        _ shape: ActionStack.HistoryShape
    ) throws {
        let saved = try history(["a", "b", "a", "b"], shape: shape, undoing: 1)
        let a = Part("a", value: 3)
        var b: Part? = Part("b", value: 2)
        let fresh = makeStack()
        fresh.historyShape = shape
        let report = try fresh.restoreHistory(saved) { $0 == "a" ? a : b }
        #expect(report.restoredSteps == 4)
        var calledIn = false
        b?.onDeinit = { [unowned fresh] in
            calledIn = true
            _ = fresh.canUndo
            _ = try? fresh.savedHistory()
            fresh.removeAllActions(withTarget: a)
        }
        b = nil
        #expect(calledIn)
        // Its deinit took "a"'s steps too; the stack is empty and consistent.
        #expect(!fresh.canUndo && !fresh.canRedo)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aTargetFreedAfterTheRestoreIsSkippedByUndo(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b", "a", "b"], shape: shape, undoing: 1)
        let a = Part("a", value: 3)
        var b: Part? = Part("b", value: 2)
        let fresh = makeStack()
        fresh.historyShape = shape
        _ = try fresh.restoreHistory(saved) { $0 == "a" ? a : b }
        b = nil
        #expect(fresh.undoEntries.map(\.actionName) == ["Step 3", "Step 1"])
        fresh.undo()
        #expect(a.value == 1)
        fresh.undo()
        #expect(a.value == 0)
        #expect(!fresh.canUndo)
        walk(fresh)
        let again = try fresh.savedHistory()
        #expect(again.steps.allSatisfy { $0.actions.allSatisfy { $0.key == "a" } })
    }

    // MARK: Commands

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aCommandThatCallsBackWhenUndoneIsRefusedAsReentrant(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "a"], shape: shape)
        let a = Part("a", value: 2)
        let fresh = makeStack()
        fresh.historyShape = shape
        _ = try fresh.restoreHistory(saved) { _ in a }
        var errors: [ActionStack.HistoryPersistenceError] = []
        a.onPerform = { stack in
            // A restore, a save and an emptying of the stack from the command.
            do throws(ActionStack.HistoryPersistenceError) {
                try stack.restoreHistory(saved) { _ in a }
            } catch {
                errors.append(error)
            }
            do throws(ActionStack.HistoryPersistenceError) {
                _ = try stack.savedHistory()
            } catch {
                errors.append(error)
            }
            stack.removeAllActions()
        }
        fresh.undo()
        a.onPerform = nil
        #expect(a.value == 1)
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.misuse != nil })
        #expect(fresh.undoCount == 1 && fresh.redoCount == 1)
        walk(fresh)
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aCommandThatFreesItsTargetOrTheStackWhileItRunsIsSafe(_ shape: ActionStack.HistoryShape) throws {
        // A restored command's handler holds the stack unowned(unsafe) and its target only
        // through the stack's weak box: the app lets go of both from the command itself.
        let saved = try history(["a", "b", "a"], shape: shape, undoing: 1)
        var parts: [String: Part] = ["a": Part("a", value: 1), "b": Part("b", value: 2)]
        var fresh: ActionStack? = makeStack()
        fresh?.historyShape = shape
        _ = try fresh?.restoreHistory(saved) { parts[$0] }
        parts["b"]?.onPerform = { _ in parts["b"] = nil }
        fresh?.undo()
        #expect(parts["b"] == nil)
        parts["a"]?.onPerform = { _ in fresh = nil }
        fresh?.undo()
        #expect(fresh == nil)
        #expect(parts["a"]?.value == 0)
    }

    @Test func aPayloadThatDoesNotDecodeCutsTheHistoryThere() throws {
        let stack = makeStack()
        let a = Part("a")
        for value in [1, -5, 3] {
            stack.beginUndoGrouping()
            Picky(value: value).perform(on: a, in: stack)
            stack.endUndoGrouping()
        }
        // The undo of the third step sets -5 back: that command's payload does not decode.
        let data = try HistoryArchive(fingerprint: "f", histories: ["s": try stack.savedHistory()]).encoded()
        let archive = try HistoryArchive(decoding: data, registry: registry())
        let saved = try #require(archive.histories["s"])
        let fresh = makeStack()
        let report = try fresh.restoreHistory(saved) { _ in a }
        #expect(report.restoredSteps == 0)
        #expect(report.cuts.first?.reason.commandProblem != nil)
        expectHeld(fresh, report)
        walk(fresh)
    }

    // MARK: Limits, observers, a recorder

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func smallLimitsTrimAndTheReportSaysSo(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b", "a", "b", "a"], shape: shape, undoing: 2)
        let parts = ["a": Part("a", value: 3), "b": Part("b", value: 2)]
        // The steps state no cost (each counts 0), so the levels trim.
        for (levels, cost) in [(1, 0), (1, 1), (2, 5)] {
            let fresh = makeStack()
            fresh.historyShape = shape
            fresh.levelsOfUndo = levels
            fresh.maximumCost = cost
            let report = try fresh.restoreHistory(saved) { parts[$0] }
            #expect(report.trimmedSteps > 0)
            expectHeld(fresh, report)
            walk(fresh)
        }
    }

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func observersThatCallBackSeeARestoredHistory(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b", "a"], shape: shape, undoing: 1)
        let parts = ["a": Part("a", value: 1), "b": Part("b", value: 2)]
        let fresh = makeStack()
        fresh.historyShape = shape
        var seen: [Int] = []
        // Once: an observer that changes the stack at every delivery hears its own changes forever.
        var calledBack = false
        let observation = fresh.observe { _ in
            guard !calledBack else { return }
            calledBack = true
            seen.append((try? fresh.savedHistory())?.steps.count ?? -1)
            // Calls back: an undo and a redo, and a restore that must be refused.
            fresh.undo()
            fresh.redo()
            _ = try? fresh.restoreHistory(saved) { parts[$0] }
        }
        // A notification observer that calls back too (the restore posts no undo or redo
        // notification, but the observer's undo does).
        let center = NotificationCenter.default
        nonisolated(unsafe) let unsafeStack = fresh
        let token = center.addObserver(forName: ActionStack.didUndoChangeNotification, object: fresh, queue: nil) {
            _ in
            _ = try? unsafeStack.savedHistory()
            _ = unsafeStack.undoEntries
        }
        let report = try fresh.restoreHistory(saved) { parts[$0] }
        center.removeObserver(token)
        observation.cancel()
        #expect(seen.first == 3)
        expectHeld(fresh, report)
        walk(fresh)
    }

    @Test @MainActor func aRecorderWatchingRecordsTheRestoredHistory() throws {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let saved = try history(["a", "b", "a"], undoing: 1)
        let parts = ["a": Part("a", value: 1), "b": Part("b", value: 2)]
        let fresh = makeStack()
        let recorder = HistoryRecorder(journal: files.journal, stack: fresh) { "doc" }
        let report = try fresh.restoreHistory(saved) { parts[$0] }
        expectHeld(fresh, report)
        fresh.undo()
        let archive = try HistoryRecorder.recover(from: files.journal, fingerprint: "doc", registry: registry())
        let recovered = try #require(archive?.histories[HistoryRecorder.defaultHistoryName])
        #expect(recovered.steps.count == 3)
        #expect(recovered.current == (try fresh.savedHistory()).current)
        let again = makeStack()
        let second = try again.restoreHistory(recovered) { parts[$0] }
        expectHeld(again, second)
        walk(again)
        withExtendedLifetime(recorder) {}
    }

    @Test func oneSavedHistoryRestoresIntoStacksOnSeveralThreadsAtOnce() async throws {
        // The restore reads the saved steps where they lie, through pointers: a value shared by
        // several restores at once (it is Sendable) is only read.
        let saved = try history(["a", "b", "a"], undoing: 1)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let parts = ["a": Part("a", value: 1), "b": Part("b", value: 2)]
                    let fresh = makeStack()
                    let report = try fresh.restoreHistory(saved) { parts[$0] }
                    walk(fresh)
                    return heldSteps(fresh) == report.restoredSteps ? report.restoredSteps : -1
                }
            }
            for try await count in group { #expect(count == 3) }
        }
    }

    // MARK: Damaged archives

    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func damagedArchivesAreRefusedOrRestoreConsistently(_ shape: ActionStack.HistoryShape) throws {
        let saved = try history(["a", "b", "a", "c"], shape: shape, undoing: 1)
        let data = try HistoryArchive(fingerprint: "f", histories: ["s": saved]).encoded()
        let parts = ["a": Part("a", value: 3), "b": Part("b"), "c": Part("c")]
        let bytes = [UInt8](data)
        var restored = 0
        // Every byte replaced by each of a few others, and the archive cut at every 7th byte.
        var damaged: [[UInt8]] = []
        for index in bytes.indices {
            for replacement in [UInt8(ascii: "0"), UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "\"")]
            where bytes[index] != replacement {
                var copy = bytes
                copy[index] = replacement
                damaged.append(copy)
            }
        }
        for end in stride(from: 0, to: bytes.count, by: 7) { damaged.append(Array(bytes[..<end])) }
        for copy in damaged {
            guard let archive = try? HistoryArchive(decoding: Data(copy), registry: registry()),
                let history = archive.histories["s"]
            else { continue }
            let fresh = makeStack()
            fresh.historyShape = shape
            guard let report = try? fresh.restoreHistory(history, resolvingTargets: { parts[$0] }) else { continue }
            restored += 1
            expectHeld(fresh, report)
            walk(fresh)
        }
        #expect(restored > 0)
    }
}
