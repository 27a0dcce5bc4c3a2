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

#if canImport(Glibc)
    import Glibc
#endif

// What restoring a saved history does: into an empty stack only, all of it or a clean prefix, the
// resolver asked once per key, the clean state never moved, one state update, limits applied after.

@Suite struct RestoreTests {
    @Test func aStackThatIsNotEmptyIsLeftExactlyAsItWas() throws {
        let (saved, _) = try hrFive()
        let stack = hrStack()
        let doc = HRDoc()
        hrChange(doc, to: 7, on: stack, name: "Mine")
        stack.undo()  // only a redo step
        let before = HRSnapshot(stack)
        var resolved = 0
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try stack.restoreHistory(saved) { _ in
                resolved += 1
                return doc
            }
        }
        #expect(resolved == 0)
        #expect(HRSnapshot(stack) == before)
        stack.redo()
        #expect(doc.value == 7)
        // An open empty group counts too.
        let open = hrStack()
        open.beginUndoGrouping()
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try open.restoreHistory(saved) { _ in doc }
        }
        #expect(open.groupingLevel == 1)
        open.endUndoGrouping()
    }

    @Test func aSecondRestoreIsAMisuseAndChangesNothing() throws {
        let (saved, value) = try hrFive(current: 3)
        let stack = hrStack()
        let doc = HRDoc("doc", value)
        try stack.restoreHistory(saved) { _ in doc }
        let before = HRSnapshot(stack)
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try stack.restoreHistory(saved) { _ in doc }
        }
        #expect(HRSnapshot(stack) == before)
    }

    @Test func restoringFromAHandlerOrAnObserverIsAMisuseAndChangesNothing() throws {
        let (saved, _) = try hrFive()
        let stack = hrStack()
        let doc = HRDoc()
        var fromHandler: (any Error)?
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: doc) { _ in
            do { try stack.restoreHistory(saved) { _ in doc } } catch { fromHandler = error }
        }
        stack.endUndoGrouping()
        stack.undo()
        #expect(
            (fromHandler as? ActionStack.HistoryPersistenceError).map {
                $0.misuse != nil
            } == true, "\(String(describing: fromHandler))")
        #expect(stack.undoCount == 0)
        // From an observer of the undo notification.
        nonisolated(unsafe) let watched = hrStack()
        nonisolated(unsafe) let unsafeDoc = doc
        hrChange(doc, to: 1, on: watched)
        nonisolated(unsafe) var fromObserver: (any Error)?
        let token = NotificationCenter.default.addObserver(
            forName: ActionStack.didUndoChangeNotification, object: watched, queue: nil
        ) { _ in
            do { try watched.restoreHistory(saved) { _ in unsafeDoc } } catch { fromObserver = error }
        }
        watched.undo()
        NotificationCenter.default.removeObserver(token)
        #expect(fromObserver != nil)
        #expect(watched.undoCount == 0 && watched.redoCount == 1)
    }

    @Test func aResolverThatChangesTheStackMakesTheRestoreAMisuse() throws {
        let (saved, value) = try hrFive()
        let stack = hrStack()
        let doc = HRDoc("doc", value)
        let other = HRDoc("other")
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try stack.restoreHistory(saved) { key in
                if stack.undoCount == 0 { hrChange(other, to: 9, on: stack, name: "Resolver") }
                return doc
            }
        }
        // Nothing of the saved history; the resolver's own change stays.
        #expect(stack.undoEntries.map(\.actionName) == ["Resolver"])
        #expect(stack.redoCount == 0)
        // A resolver that restores into the same stack: the outer restore is the misuse.
        let twice = hrStack()
        let (inner, _) = try hrFive(current: 2)
        #expect(throws: ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))) {
            try twice.restoreHistory(saved) { _ in
                if twice.undoCount == 0 { _ = try? twice.restoreHistory(inner) { _ in doc } }
                return doc
            }
        }
        #expect(twice.undoCount == 2 && twice.redoCount == 3)
    }

    @Test func aMalformedHistoryIsRefusedBeforeTheResolverRuns() throws {
        var (saved, _) = try hrFive()
        saved.steps[2].parent = 9
        let stack = hrStack()
        var calls = 0
        #expect {
            try stack.restoreHistory(saved) { _ in
                calls += 1
                return nil
            }
        } throws: { error in
            if (error as? ActionStack.HistoryPersistenceError)?.malformation != nil { return true }
            return false
        }
        #expect(calls == 0)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
        // And in a branching stack.
        let tree = hrStack(.tree)
        #expect(throws: (any Error).self) { try tree.restoreHistory(saved) { _ in nil } }
        #expect(tree.historyTree?.nodes.count == 1)
    }

    @Test func theResolverIsAskedOncePerKeyAndAWrongClassCuts() throws {
        let stack = hrStack()
        let a = HRDoc("a")
        let b = HRDoc("b")
        for value in 1...3 {
            hrChange(a, to: value, on: stack)
            hrChange(b, to: value, on: stack)
        }
        stack.jump(to: 3)
        let saved = try hrRoundTrip(try stack.savedHistory())
        var asked: [String] = []
        let fresh = hrStack()
        let copyA = HRDoc("a", a.value)
        let stranger = HRStranger()
        let report = try fresh.restoreHistory(saved) { key in
            asked.append(key)
            return key == "a" ? copyA : stranger
        }
        #expect(asked.sorted() == ["a", "b"])
        // b's steps are the wrong class: the nearest on each side cuts.
        #expect(report.cuts.count == 2)
        #expect(
            report.cuts.allSatisfy {
                if case .wrongTargetType(key: "b", commandType: "hr.set") = $0.reason { true } else { false }
            })
        #expect(report.restoredSteps + report.droppedSteps == 6)
        #expect(fresh.undoCount + fresh.redoCount == report.restoredSteps)
    }

    @Test func cutsOnBothSidesAreReportedAndTheCleanStateNeverMoves() throws {
        for clean in 0...5 {
            var (saved, value) = try hrFive(clean: clean, current: 3)
            // Step 2 (undo side, the second nearest) has a key no one resolves; step 5 (redo
            // side, the second nearest) a type no one knows.
            saved.steps[1].actions[0].key = "ghost"
            saved.steps[4].actions[0] = SavedAction(
                commandType: "hr.future", version: 1, key: "doc", cost: 0, problem: .unknownType("hr.future"))
            let fresh = hrStack()
            let doc = HRDoc("doc", value)
            let report = try fresh.restoreHistory(saved) { $0 == "doc" ? doc : nil }
            #expect(report.restoredSteps == 2, "clean \(clean): \(report)")
            #expect(report.droppedSteps == 3)
            #expect(
                hrCuts(report) == [
                    HRCut(2, .unresolvedKey("ghost"), 2), HRCut(5, .command(.unknownType("hr.future")), 1),
                ], "\(report)")
            // Nodes 2, 3 and 4 are kept (node 2 as the new root).
            let kept = (2...4).contains(clean)
            #expect(report.restoredCleanState == kept, "clean \(clean)")
            // Walk the restored part: clean exactly at the saved clean node, nowhere else.
            fresh.jump(to: 0)
            var seen: [Bool] = []
            for position in 0...2 {
                fresh.jump(to: position)
                seen.append(fresh.isClean)
            }
            #expect(seen == (2...4).map { $0 == clean }, "clean \(clean)")
        }
    }

    @Test func aCleanStateMarkedInsideAStepIsSavedAsNone() throws {
        let stack = hrStack()
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack)
        stack.beginUndoGrouping()
        HRSet(value: 2).perform(on: doc, in: stack)
        stack.markClean()
        HRSet(value: 3).perform(on: doc, in: stack)
        stack.endUndoGrouping()
        let saved = try stack.savedHistory()
        #expect(saved.clean == nil)
        let fresh = hrStack()
        let report = try fresh.restoreHistory(try hrRoundTrip(saved)) { _ in HRDoc("doc", 3) }
        #expect(!report.restoredCleanState)
        for position in [2, 1, 0, 2] {
            fresh.jump(to: position)
            stack.jump(to: position)
            #expect(fresh.isClean == stack.isClean, "at \(position)")
        }
    }

    @Test func oneStateUpdateAndNoUndoOrRedoNotification() throws {
        let (saved, value) = try hrFive(clean: 2, current: 3)
        let stack = hrStack()
        var updates = 0
        let token = stack.observe { _ in updates += 1 }
        nonisolated(unsafe) var posted: [Notification.Name] = []
        let names: [Notification.Name] = [
            ActionStack.willUndoChangeNotification, ActionStack.didUndoChangeNotification,
            ActionStack.willRedoChangeNotification, ActionStack.didRedoChangeNotification,
        ]
        let observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) { posted.append($0.name) }
        }
        let doc = HRDoc("doc", value)
        try stack.restoreHistory(saved) { _ in doc }
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        #expect(updates == 1)
        #expect(posted.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func theLimitsApplyAfterwardsNearestKept() throws {
        let (saved, value) = try hrFive(current: 4)
        let stack = hrStack()
        stack.levelsOfUndo = 2
        let doc = HRDoc("doc", value)
        var updates = 0
        let token = stack.observe { _ in updates += 1 }
        let report = try stack.restoreHistory(saved) { _ in doc }
        withExtendedLifetime(token) {}
        #expect(updates == 1)
        #expect(report.restoredSteps == 5)
        #expect(report.trimmedSteps == 2)
        #expect(stack.undoEntries.map(\.actionName) == ["S4", "S3"])
        #expect(stack.redoEntries.map(\.actionName) == ["S5"])
        // maximumCost, in a branching stack.
        let costly = hrStack(.tree)
        let target = HRDoc()
        for value in 1...4 {
            costly.beginUndoGrouping()
            HRCostly(value: value, cost: 10).perform(on: target, in: costly)
            costly.endUndoGrouping()
        }
        let history = try hrRoundTrip(try costly.savedHistory())
        let limited = hrStack(.tree)
        limited.maximumCost = 25
        let copy = HRDoc("doc", target.value)
        let limitedReport = try limited.restoreHistory(history) { _ in copy }
        #expect(limitedReport.trimmedSteps == 2)
        #expect(limited.undoCount == 2)
    }

    @Test func aRestoredStepDoesNotCoalesce() throws {
        func keystroke(_ doc: HRDoc, _ value: Int, on stack: ActionStack) {
            stack.registerUndo(HRTyping(value: doc.value), on: doc, key: "doc", options: .coalescing("typing"))
            doc.value = value
            stack.endEvent()
        }
        let stack = ActionStack()
        let doc = HRDoc()
        keystroke(doc, 1, on: stack)
        keystroke(doc, 2, on: stack)
        #expect(stack.undoCount == 1)
        let saved = try hrRoundTrip(try stack.savedHistory())
        let fresh = ActionStack()
        let copy = HRDoc("doc", doc.value)
        try fresh.restoreHistory(saved) { _ in copy }
        keystroke(copy, 3, on: fresh)
        #expect(fresh.undoCount == 2)
    }

    @Test func aBranchingHistoryCutOnTheCurrentPathDropsWhatHangsAboveTheCut() throws {
        // 0 → 1 → 2 → 3 (current), with a branch 4 from node 1 and a branch 5 from the root.
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "1")
        hrChange(doc, to: 2, on: stack, name: "2")
        hrChange(doc, to: 3, on: stack, name: "3")
        try stack.jump(toNode: .init(sequence: 1))
        hrChange(doc, to: 4, on: stack, name: "4")
        try stack.jump(toNode: .init(sequence: 0))
        hrChange(doc, to: 5, on: stack, name: "5")
        try stack.jump(toNode: .init(sequence: 3))
        var saved = try stack.savedHistory()
        #expect(saved.steps.count == 5)
        // The step to node 2 cannot come back: node 2 becomes the root; 1, 4 and 5 go with it.
        let index = try #require(saved.steps.firstIndex { $0.node == 2 })
        saved.steps[index].actions[0].key = "ghost"
        let fresh = hrStack(.tree)
        let copy = HRDoc("doc", doc.value)
        let report = try fresh.restoreHistory(try hrRoundTrip(saved)) { $0 == "doc" ? copy : nil }
        #expect(hrCuts(report) == [HRCut(2, .unresolvedKey("ghost"), 4)])
        #expect(report.restoredSteps == 1)
        let tree = try #require(fresh.historyTree)
        #expect(tree.root.sequence == 2)
        #expect(tree.nodes.map(\.sequence) == [2, 3])
        // The new root's date is the date of the change that led to it.
        let originalTwo = try #require(stack.historyTree?[.init(sequence: 2)])
        #expect(tree.nodes[0].date == originalTwo.date)
    }

    @Test func aBranchingHistoryRestoredIntoALinearStackKeepsTheCurrentPath() throws {
        let stack = hrStack(.tree)
        let doc = HRDoc()
        hrChange(doc, to: 1, on: stack, name: "1")
        hrChange(doc, to: 2, on: stack, name: "2")
        stack.undo()
        hrChange(doc, to: 3, on: stack, name: "3")  // 2 is a branch from 1
        hrChange(doc, to: 4, on: stack, name: "4")
        stack.undo()  // current 3, redo 4
        let saved = try hrRoundTrip(try stack.savedHistory())
        let fresh = hrStack()
        let copy = HRDoc("doc", doc.value)
        let report = try fresh.restoreHistory(saved) { _ in copy }
        #expect(hrCuts(report) == [HRCut(2, .branchInLinearHistory, 1)])
        #expect(fresh.undoEntries.map(\.actionName) == ["3", "1"])
        #expect(fresh.redoEntries.map(\.actionName) == ["4"])
    }

    @Test func aLinearHistoryWithAHugeRootIsRefusedByTheOneLimitOnNodes() throws {
        // Node numbers above `SavedHistory.maximumNode` are refused whatever the shape (one limit
        // for the reader, the writer and the restore; see SavedHistoryNodeLimitTests).
        let json = archive2(
            #"{"shape":"linear","root":9223372036854775805,"current":9223372036854775806,"commands":[["hr.set",1,"doc"]],"steps":[1,1],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#
        )
        #expect(archiveError(json) == .invalidHistory("h", .nodeOutOfRange(9_223_372_036_854_775_805)))
    }

    @Test func malformedHandBuiltHistoryIsRefusedByRestore() {
        var saved = hsSaved(3, current: 3)
        saved.steps[2].parent = 7
        let stack = makeStack()
        let error = hsCatch { try hsRestore(saved, into: stack, ["box": HSBox()]) }
        guard error?.malformation != nil else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
        #expect(stack.undoCount == 0)
        var cyc = hsSaved(2, current: 2)
        cyc.steps[0].parent = 2
        #expect(hsCatch { try hsRestore(cyc, into: stack, ["box": HSBox()]) } != nil)
        var nanDate = hsSaved(1, current: 1)
        nanDate.steps[0].date = Date(timeIntervalSinceReferenceDate: .nan)
        #expect((try? HistoryArchive(fingerprint: "f", histories: ["h": nanDate]).encoded()) == nil)
        #expect(stack.undoCount == 0 && stack.redoCount == 0)
    }

    @Test func negativeCostThatValidateCallsUnsafeIsRestored() throws {
        // `SavedHistory.StructuralProblem` is "a flaw ... that would make restoring it unsafe",
        // and negativeCost is one of them; restoreHistory's docs list only tree flaws as malformed.
        var negative = hsSaved(2, current: 2)
        negative.steps[1].actions = [SavedAction(HSMark(value: 1), key: "box", cost: -3)]
        #expect(throws: SavedHistory.StructuralProblem.self) { try negative.validate() }
        let stack = makeStack()
        let box = HSBox(value: 2)
        // restoreHistory validates first and throws .malformed.
        let error = hsCatch { try hsRestore(negative, into: stack, ["box": box]) }
        if error?.malformation != nil {
        } else {
            Issue.record("restored: \(String(describing: error)), undoCount \(stack.undoCount)")
        }
        #expect(stack.undoCount == 0)
        // Whatever it did, the costs do not go below zero in effect.
        stack.maximumCost = 1
        #expect(stack.undoCount <= 2)
    }

    @Test func actionWithoutCommandOrProblemIsRefusedOrCut() throws {
        var noCommand = hsSaved(2, current: 2)
        noCommand.steps[1].actions[0].command = nil
        let stack = makeStack()
        let box = HSBox(value: 2)
        let result = Result { try hsRestore(noCommand, into: stack, ["box": box]) }
        switch result {
        case .failure(let error):
            guard (error as? ActionStack.HistoryPersistenceError)?.malformation != nil else {
                Issue.record("\(error)")
                return
            }
            #expect(stack.undoCount == 0)
        case .success(let report):
            // A clean cut at the step is acceptable too.
            #expect(report.cuts.map(\.node) == [2])
            #expect(stack.undoCount == 0)
        }
    }

    @Test func hugeCostsDoNotOverflow() throws {
        var saved = hsSaved(3, current: 2)
        for index in saved.steps.indices {
            saved.steps[index].actions = [
                SavedAction(
                    HSMark(value: saved.steps[index].node <= 2 ? saved.steps[index].node - 1 : 3), key: "box",
                    cost: .max)
            ]
        }
        try saved.validate()
        let stack = makeStack()
        stack.maximumCost = .max
        let box = HSBox(value: 2)
        let report = try hsRestore(saved, into: stack, ["box": box])
        #expect(report.restoredSteps == 3)
        #expect(stack.undoCount + stack.redoCount == 3 - report.trimmedSteps)
        while stack.canUndo { stack.undo() }
        while stack.canRedo { stack.redo() }
    }

    @Test func resolverThatReentersTheStack() throws {
        let saved = hsSaved(3, current: 3)
        let stack = makeStack()
        let box = HSBox(value: 3)
        var inner: ActionStack.HistoryPersistenceError?
        var registered = false
        let result = Result {
            try stack.restoreHistory(saved) { key in
                if !registered {
                    registered = true
                    // The resolver registers a change and tries a nested restore.
                    stack.registerUndo(withTarget: box) { _ in }
                    inner = hsCatch { try stack.restoreHistory(saved) { _ in box } }
                }
                return key == "box" ? box : nil
            }
        }
        // Either the outer restore refuses, or it restores exactly the saved history; never a mix
        // with the change the resolver made.
        // The stack is checked again after the resolver ran. The nested restore found it empty and
        // restored the history; the outer one then refuses, so the history is there once, exactly.
        #expect(inner == nil)
        if case .failure(let error as ActionStack.HistoryPersistenceError) = result {
            #expect(error == .misuse(.historyNotEmpty(.restoreHistory)))
        } else {
            Issue.record("the outer restore should refuse")
        }
        #expect(stack.undoCount == 3, "\(hsEntries(stack))")
        #expect(stack.groupingLevel == 0)
    }

    @Test func resolverThatMakesAChange() throws {
        let saved = hsSaved(3, current: 3)
        let stack = makeStack()
        let box = HSBox(value: 3)
        let other = HSBox("other")
        var changed = false
        let result = Result {
            try stack.restoreHistory(saved) { key in
                if !changed {
                    changed = true
                    hsChange(other, to: 9, on: stack, named: "Sneaky")
                }
                return key == "box" ? box : nil
            }
        }
        // Never a mix: either refused (nothing but the resolver's own step), or exactly the saved history.
        let names = stack.undoEntries.map(\.actionName)
        // Refused: nothing of the saved history restored.
        if case .success = result { Issue.record("the restore should refuse") }
        #expect(names == ["Sneaky"], "\(names)")
    }

    @Test func restoreWhileRegistrationIsDisabled() throws {
        let saved = hsSaved(2, current: 2)
        let stack = makeStack()
        let box = HSBox(value: 2)
        stack.disableUndoRegistration()
        let result = Result { try hsRestore(saved, into: stack, ["box": box]) }
        stack.enableUndoRegistration()
        if case .success = result {
            #expect(stack.undoCount == 2)
            stack.undo()
            #expect(box.value == 1 && stack.redoCount == 1)
        }
    }

    @Test func aHandBuiltTreeWithoutRedoChoicesRestoresAndStaysUsable() throws {
        // Steps from the root, none of them the redo choice: valid (at most one choice a node).
        let action = SavedAction(HRSet(value: 0), key: "doc")
        func step(_ node: Int, _ parent: Int, _ choice: Bool) -> SavedStep {
            SavedStep(
                node: node, parent: parent, isRedoChoice: choice, date: nil, actionName: "\(node)",
                isDiscardable: false, userInfo: [:], actions: [action])
        }
        let history = SavedHistory(
            shape: .tree, root: 0, current: 0, clean: 0,
            steps: [step(1, 0, false), step(2, 0, false), step(3, 2, false)])
        try history.validate()
        let stack = hrStack(.tree)
        let doc = HRDoc("doc", 0)
        let report = try stack.restoreHistory(history) { _ in doc }
        #expect(report.restoredSteps == 3)
        #expect(stack.historyTree?.nodes.count == 4)
        for node in [3, 1, 2, 0] {
            try stack.jump(toNode: .init(sequence: node))
            #expect(stack.currentNode?.sequence == node)
        }
        hrChange(doc, to: 9, on: stack)
        #expect(stack.currentNode?.sequence == 4)
    }

    @Test(arguments: 0..<40)
    func randomTreesRestoreWithConsistentReportsAndAnUnmovedCleanState(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 17)
        let stack = hrStack(.tree)
        let clock = ManualClock(seconds: 700_000_000)
        stack.historyClock = { clock.tick(seconds: 1.0625) }
        let docs = [HRDoc("a"), HRDoc("b"), HRDoc("c")]
        for _ in 0..<(8 + random.next(10)) {
            switch random.next(7) {
            case 0, 1, 2:
                let doc = docs[random.next(3)]
                hrChange(doc, to: random.next(100), on: stack, name: "n\(random.next(4))")
            case 3: stack.undo()
            case 4: stack.redo()
            case 5:
                let nodes = stack.historyTree!.nodes
                try stack.jump(toNode: nodes[random.next(nodes.count)].id)
            default: stack.markClean()
            }
        }
        var saved = try stack.savedHistory()
        let total = saved.steps.count
        #expect(saved.steps.count == stack.historyTree!.nodes.count - 1)
        // Poison a few steps: an unknown key.
        for _ in 0..<random.next(3) where !saved.steps.isEmpty {
            let index = random.next(saved.steps.count)
            saved.steps[index].actions[0].key = "ghost"
        }
        saved = try hrRoundTrip(saved)
        let resolve: (String) -> AnyObject? = { key in docs.first { $0.id == key } }
        let originalTree = try #require(stack.historyTree)
        for shape in [ActionStack.HistoryShape.tree, .linear] {
            let fresh = hrStack(shape)
            let report = try fresh.restoreHistory(saved, resolvingTargets: resolve)
            let comment: Comment = "seed \(seed), \(shape): \(report)"
            #expect(report.restoredSteps + report.droppedSteps == total, comment)
            #expect(report.cuts.reduce(0) { $0 + $1.droppedSteps } == report.droppedSteps, comment)
            if shape == .tree {
                let tree = try #require(fresh.historyTree)
                #expect(tree.nodes.count - 1 == report.restoredSteps, comment)
                for cut in report.cuts {
                    #expect(tree[.init(sequence: cut.node)] == nil || tree.root.sequence == cut.node, comment)
                }
                // Every kept node as it was: parent, name, date; clean exactly where it was.
                for node in tree.nodes {
                    let old = try #require(originalTree[node.id], comment)
                    if node.id != tree.root {
                        #expect(node.parent == old.parent, comment)
                        #expect(node.actionName == old.actionName, comment)
                    }
                    #expect(node.date == old.date, comment)
                    #expect(node.isClean == (old.isClean && saved.clean == old.sequence), comment)
                }
                #expect(report.restoredCleanState == tree.nodes.contains(where: \.isClean), comment)
                #expect(tree.current == originalTree.current, comment)
            } else {
                #expect(fresh.undoCount + fresh.redoCount == report.restoredSteps, comment)
            }
        }
    }
}
