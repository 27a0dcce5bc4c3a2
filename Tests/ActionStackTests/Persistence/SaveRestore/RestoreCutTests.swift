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

// A restore keeps all of a side or a clean prefix of it: a step that cannot be restored cuts the
// side there, and the report says where and why.

@Suite struct RestoreCutTests {
    /// 5 steps, current 3: undo side nodes 3, 2, 1; redo side 4, 5.
    func restore(
        _ saved: SavedHistory, objects: [String: AnyObject]? = nil
    ) throws -> (ActionStack, ActionStack.RestoreReport, HSBox) {
        let box = HSBox(value: saved.current)
        let stack = makeStack()
        let report = try hsRestore(saved, into: stack, objects ?? ["box": box])
        return (stack, report, box)
    }

    @Test func unknownTypeOnTheUndoSideCutsThereAndBeyond() throws {
        var saved = hsSaved(5, current: 3)
        saved.steps[1].actions = [poisoned(.unknownType("hs.gone"))]  // the step to node 2
        let (stack, report, box) = try restore(saved)
        #expect(report.restoredSteps == 3)
        #expect(report.droppedSteps == 2)
        #expect(report.cuts.count == 1)
        #expect(report.cuts.first?.node == 2)
        #expect(report.cuts.first?.droppedSteps == 2)
        #expect(report.cuts.first?.reason == .command(.unknownType("hs.gone")))
        #expect(stack.undoCount == 1 && stack.redoCount == 2)
        stack.undo()
        #expect(box.value == 2)
        #expect(!stack.canUndo)
        stack.redo()
        stack.redo()
        stack.redo()
        #expect(box.value == 5)
    }

    @Test func newerVersionOnTheRedoSideCutsThereAndBeyond() throws {
        var saved = hsSaved(5, current: 3)
        saved.steps[3].actions = [poisoned(.newerVersion(type: "hs.mark", version: 9, known: 1))]  // node 4
        let (stack, report, box) = try restore(saved)
        #expect(report.restoredSteps == 3)
        #expect(report.cuts.map(\.node) == [4])
        #expect(report.cuts.first?.droppedSteps == 2)
        #expect(stack.undoCount == 3 && stack.redoCount == 0)
        stack.undo()
        stack.undo()
        stack.undo()
        #expect(box.value == 0)
    }

    @Test func cutsOnBothSidesAtOnce() throws {
        var saved = hsSaved(6, current: 3)
        saved.steps[0].actions = [poisoned(.decodingFailed(type: "hs.mark", reason: "x"))]  // node 1
        saved.steps[4].actions = [poisoned(.unknownType("q"))]  // node 5
        let (stack, report, _) = try restore(saved)
        #expect(Set(report.cuts.map(\.node)) == [1, 5])
        #expect(report.restoredSteps == 3)  // nodes 2, 3 and 4
        #expect(report.droppedSteps == 3)
        #expect(stack.undoCount == 2 && stack.redoCount == 1)
    }

    @Test func unresolvableKeyCutsAndTheResolverIsCalledOncePerKey() throws {
        var saved = hsSaved(4, current: 4)
        saved.steps[1].actions = [SavedAction(HSMark(value: 1), key: "missing")]
        saved.steps[0].actions = [SavedAction(HSMark(value: 0), key: "missing")]
        let box = HSBox(value: 4)
        var calls: [String: Int] = [:]
        let stack = makeStack()
        let report = try stack.restoreHistory(saved) { key in
            calls[key, default: 0] += 1
            return key == "box" ? box : nil
        }
        #expect(calls.values.allSatisfy { $0 == 1 })
        #expect(report.cuts.map(\.node) == [2])
        #expect(report.cuts.first?.reason == .unresolvedKey("missing"))
        #expect(stack.undoCount == 2)
    }

    @Test func wrongTargetClassCuts() throws {
        var saved = hsSaved(3, current: 3)
        saved.steps[1].actions = [SavedAction(HSMark(value: 1), key: "other")]
        let box = HSBox(value: 3)
        let stack = makeStack()
        let report = try hsRestore(saved, into: stack, ["box": box, "other": HSOtherBox("other")])
        #expect(report.cuts.map(\.node) == [2])
        #expect(report.cuts.first?.reason == .wrongTargetType(key: "other", commandType: "hs.mark"))
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(box.value == 2)
    }

    @Test func aPoisonedActionAmongGoodOnesCutsTheWholeStep() throws {
        var saved = hsSaved(3, current: 3)
        saved.steps[2].actions.append(poisoned(.unknownType("zz")))
        let (stack, report, _) = try restore(saved)
        #expect(report.restoredSteps == 0)
        #expect(report.droppedSteps == 3)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
    }

    @Test func cutThroughAnArchiveForNewerVersionAndBadPayload() throws {
        // Step 2 is saved under hs.set (only there), everything else under hs.mark.
        var saved = hsSaved(4, current: 4)
        saved.steps[1].actions = [SavedAction(HSSet(value: 1), key: "box")]
        let data = try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#"["hs.set",1,"box"]"#))
        for (mutated, expected) in [
            (
                text.replacingOccurrences(of: #"["hs.set",1,"box"]"#, with: #"["hs.set",7,"box"]"#),
                SavedActionProblem.newerVersion(type: "hs.set", version: 7, known: 1)
            ),
            (
                text.replacingOccurrences(of: #"["hs.set",1,"box"]"#, with: #"["hs.unknown",1,"box"]"#),
                SavedActionProblem.unknownType("hs.unknown")
            ),
        ] {
            let archive = try HistoryArchive(decoding: Data(mutated.utf8), registry: testRegistry())
            let history = try #require(archive.histories["h"])
            let stack = makeStack()
            let report = try hsRestore(history, into: stack, ["box": HSBox(value: 4)])
            #expect(report.cuts.map(\.node) == [2])
            #expect(report.cuts.first?.reason == .command(expected))
            #expect(stack.undoCount == 2)
        }
        let badPayload = text.replacingOccurrences(of: #"{"value":1}"#, with: #"{"value":"one"}"#)
        #expect(badPayload != text)
        let archive = try HistoryArchive(decoding: Data(badPayload.utf8), registry: testRegistry())
        let history = try #require(archive.histories["h"])
        guard history.steps[1].actions[0].problem?.commandType == "hs.set",
            history.steps[1].actions[0].problem?.reason != nil
        else {
            Issue.record("expected decodingFailed, got \(String(describing: history.steps[1].actions[0].problem))")
            return
        }
    }

    @Test func treeCutOnABranchDropsOnlyThatBranch() throws {
        // root 0 -> 1 -> 2 (current); 1 -> 3 (branch, poisoned) -> 4; 2 -> 5 (redo)
        func step(_ node: Int, _ parent: Int, redo: Bool, _ action: SavedAction) -> SavedStep {
            SavedStep(
                node: node, parent: parent, isRedoChoice: redo,
                date: Date(timeIntervalSinceReferenceDate: Double(node)),
                actionName: "N\(node)", isDiscardable: false, userInfo: [:], actions: [action])
        }
        let saved = SavedHistory(
            shape: .tree, root: 0, current: 2, clean: 4,
            steps: [
                step(1, 0, redo: true, SavedAction(HSMark(value: 0), key: "box")),
                step(2, 1, redo: true, SavedAction(HSMark(value: 1), key: "box")),
                step(3, 1, redo: false, poisoned(.unknownType("zz"))),
                step(4, 3, redo: true, SavedAction(HSMark(value: 4), key: "box")),
                step(5, 2, redo: true, SavedAction(HSMark(value: 5), key: "box")),
            ])
        try saved.validate()
        let stack = makeStack()
        stack.historyShape = .tree
        let report = try hsRestore(saved, into: stack, ["box": HSBox(value: 2)])
        #expect(report.cuts.map(\.node) == [3])
        #expect(report.cuts.first?.droppedSteps == 2)
        #expect(report.restoredSteps == 3)
        #expect(!report.restoredCleanState)
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 1, 2, 5])
        #expect(tree.clean == nil)
        #expect(tree.current.sequence == 2)
    }

    @Test func treeRestoredIntoALinearStackKeepsTheCurrentPath() throws {
        let box = HSBox()
        let source = makeStack()
        source.historyShape = .tree
        hsChange(box, to: 1, on: source)
        hsChange(box, to: 2, on: source)
        source.undo()
        hsChange(box, to: 3, on: source)  // branch 1 -> 3, node 2 is a branch
        hsChange(box, to: 4, on: source)
        source.undo()  // current 3, redo 4
        let saved = try source.savedHistory()
        let stack = makeStack()
        let target = HSBox(value: box.value)
        let report = try hsRestore(saved, into: stack, ["box": target])
        #expect(report.cuts.contains { $0.reason == .branchInLinearHistory })
        #expect(stack.undoCount == 2 && stack.redoCount == 1)
        stack.redo()
        #expect(target.value == 4)
    }

    @Test func cleanAtTheRootOfTheKeptPartSurvivesTheCut() throws {
        // current 3, clean at node 1; the step to node 1 is cut: node 1 is still reachable (the
        // new root), so the clean state lies in the restored part.
        var saved = hsSaved(3, current: 3, clean: 1)
        saved.steps[0].actions = [poisoned(.unknownType("zz"))]
        let stack = makeStack()
        let report = try hsRestore(saved, into: stack, ["box": HSBox(value: 3)])
        #expect(stack.undoCount == 2)
        #expect(!stack.isClean)
        stack.undo()
        #expect(!stack.isClean)
        stack.undo()
        #expect(stack.isClean)
        #expect(report.restoredCleanState)
    }

    @Test func cleanInTheDroppedPartDoesNotMoveToAnotherStep() throws {
        var saved = hsSaved(4, current: 3, clean: 1)
        saved.steps[1].actions = [poisoned(.unknownType("zz"))]  // node 2: drops 2 and 1
        let stack = makeStack()
        let report = try hsRestore(saved, into: stack, ["box": HSBox(value: 3)])
        #expect(!report.restoredCleanState)
        #expect(!hsCleanWalk(stack).contains(true))
        #expect(!stack.redoEntries.contains { $0.isClean })
    }

    @Test func cleanOnTheDroppedRedoSideDoesNotMove() throws {
        var saved = hsSaved(5, current: 2, clean: 5)
        saved.steps[3].actions = [poisoned(.unknownType("zz"))]  // node 4: drops 4 and 5
        let stack = makeStack()
        let report = try hsRestore(saved, into: stack, ["box": HSBox(value: 2)])
        #expect(!report.restoredCleanState)
        stack.redo()
        #expect(!stack.isClean)
        #expect(!stack.canRedo)
    }

    /// Decided: the clean state is saved where it is. `markClean()` inside a group marks a state in
    /// the middle of a step, which no undo or redo can reach again once the group closes: it is saved
    /// as no clean node (never moved to the step's either end), and the restored stack, like the one
    /// that saved it, is clean nowhere.
    @Test func aCleanStateMarkedInsideAStepIsSavedAsNoneAndReachedNowhere() throws {
        let box = HSBox()
        let stack = makeStack()
        hsChange(box, to: 1, on: stack)
        stack.beginUndoGrouping()
        HSSet(value: 2).perform(on: box, in: stack)
        stack.markClean()  // the document was written in the middle of the step
        #expect(stack.isClean)
        HSSet(value: 3).perform(on: box, in: stack)
        stack.setActionName("Two sets")
        stack.endUndoGrouping()
        hsChange(box, to: 4, on: stack)
        stack.undo()
        let saved = try stack.savedHistory()
        #expect(saved.clean == nil)
        let restoredBox = HSBox(value: box.value)
        let restored = makeStack()
        let report = try hsRestore(saved, into: restored, ["box": restoredBox])
        #expect(!report.restoredCleanState)
        let original = hsCleanWalk(stack)
        #expect(!original.contains(true))
        #expect(hsCleanWalk(restored) == original)
        #expect(restoredBox.value == box.value)
    }

    @Test func reportCountsAddUp() throws {
        var saved = hsSaved(8, current: 4, clean: 2)
        saved.steps[1].actions = [poisoned(.unknownType("a"))]
        saved.steps[6].actions = [poisoned(.unknownType("b"))]
        let stack = makeStack()
        stack.levelsOfUndo = 1
        let report = try hsRestore(saved, into: stack, ["box": HSBox(value: 4)])
        #expect(report.restoredSteps + report.droppedSteps == saved.steps.count)
        #expect(report.cuts.reduce(0) { $0 + $1.droppedSteps } == report.droppedSteps)
        #expect(stack.undoCount + stack.redoCount == report.restoredSteps - report.trimmedSteps)
    }
}
