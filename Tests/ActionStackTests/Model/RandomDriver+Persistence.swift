// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The random driver's persistent history (section 20, ReferenceModel+Persistence.swift): the
// driver's command, the operations that save, and the save and restore that replaces a stack in
// the middle of a run, in both worlds.
//
// A save and restore (`DriverOp.saveRestore`), in each world, with the callback plan off:
// 1. `savableDepth`; in a branching history with a limit, `savedHistory()` first, to find a limit
//    that never cuts among the redo side and the branches at one distance (their order is not
//    promised); then `savedHistory(maximumSteps:)`. A save that throws ends the operation.
// 2. The stack's world only: the history through `HistoryArchive(...).encoded()` and
//    `HistoryArchive(decoding:registry:)` (it must come back as it was, and encode to the same
//    bytes); the stack saved from is left, and read (everything observable) and walked (undone and
//    redone over the saved part, recording the document) while no one listens.
// 3. A fresh stack configured as the one saved from (shape, limits, grouping, clocks, misuse
//    policy), the observers registered again, the history restored into it (every key resolving
//    to its target, but that of `unresolvedSlot`'s target, and that of `releasedSlot`'s target to
//    a new object that nobody keeps, which the restore must cut as it cuts a key that does not
//    resolve, leaving no hole). Both worlds log the report, then read
//    everything observable of the fresh stack (entries with `canBeSaved`, the state, titles, names,
//    user info, counts, `savableDepth`, the history saved again, with its costs and commands, and
//    in a tree `historyTree`, `redoBranches` and `currentNode`).
// 4. The stack's world only: the fresh stack against the one saved from (all of it when the whole
//    history was saved and restored, otherwise the part restored).
// 5. Both worlds: the fresh stack walked as the old one was (every undo step undone and redone, then
//    every redo step redone and undone, the document logged after each), which must give the
//    document states the old one gave; registration disabled again as often as it was.
// The run then goes on with the fresh stack (the model with its prediction of it).

import ActionStack
import Foundation
import Testing

/// The driver's command: adds `delta` to its target's value and registers the command that adds it
/// back, with the same registration options.
struct DriverAddCommand: UndoCommand {
    static let commandType = "driver.add"
    var delta: Int
    var cost: Int
    var coalescingKey: String?
    var window: Int?

    init(delta: Int, options: DriverOptions) {
        self.delta = delta
        cost = options.cost
        coalescingKey = options.key
        window = options.window
    }

    var options: DriverOptions { DriverOptions(cost: cost, key: coalescingKey, window: window) }

    /// `target.value += delta`, then the inverse command.
    func perform(on target: DriverTarget, in stack: ActionStack) {
        target.value += delta
        let inverse = DriverAddCommand(delta: -delta, options: options)
        if options.isPlain {
            stack.registerUndo(inverse, on: target, key: target.key)
        } else {
            stack.registerUndo(
                inverse, on: target, key: target.key,
                options: .init(
                    cost: cost, coalescingKey: coalescingKey, coalescingWindow: window.map { .milliseconds($0) }))
        }
    }
}

extension SavedHistoryText {
    /// A saved history as the library gives it.
    init(_ saved: SavedHistory) {
        let steps = saved.steps.map { step in
            SavedStepText(
                node: step.node, parent: step.parent, isRedoChoice: step.isRedoChoice,
                date: step.date.map { Int($0.timeIntervalSinceReferenceDate) }, actionName: step.actionName,
                isDiscardable: step.isDiscardable, userInfo: step.userInfo.mapValues(Self.text),
                actions: step.actions.map { action in
                    let command = action.command as? DriverAddCommand
                    return SavedActionText(
                        commandType: action.commandType, version: action.version, key: action.key, cost: action.cost,
                        delta: command?.delta, coalescingKey: command?.coalescingKey, window: command?.window)
                })
        }
        .sorted { $0.node < $1.node }
        self.init(
            tree: saved.shape == .tree, root: saved.root, current: saved.current,
            clean: saved.clean.map { Self.sameState(as: $0, in: steps) } ?? [], steps: steps,
            rootDate: saved.rootDate.map { Int($0.timeIntervalSinceReferenceDate) },
            omitted: Self.text(saved.omissions), nextNode: saved.nextNode)
    }

    /// What a save left out, as the model describes it.
    static func text(_ omissions: [SavedHistory.Omission]) -> [String] {
        omissions.map { "\($0.reason.rawValue) \($0.steps) \($0.stepName ?? "-")" }
    }

    static func text(_ value: SavedValue) -> String {
        switch value {
        case .int(let value): "int(\(value))"
        case .string(let value): "string(\(value))"
        case .double(let value): "double(\(value))"
        case .bool(let value): "bool(\(value))"
        case .date(let value): "date(\(value.timeIntervalSinceReferenceDate))"
        case .data(let value): "data(\(value.count) bytes)"
        }
    }

    /// The history as a linear stack restored from it saves it: numbered from `root` (a
    /// branching history keeps its numbers), and with nothing left out (the restored stack holds
    /// only what was saved).
    func renumbered(from newRoot: Int) -> SavedHistoryText {
        var copy = self
        copy.omitted = []
        guard !tree else { return copy }
        let offset = root - newRoot
        copy.root -= offset
        copy.current -= offset
        copy.clean = clean.map { $0 - offset }
        for index in copy.steps.indices {
            copy.steps[index].node -= offset
            copy.steps[index].parent -= offset
        }
        return copy
    }

    /// Whether every step comes after its parent's step (the promised order).
    static func parentsComeFirst(_ saved: SavedHistory) -> Bool {
        var seen: Set<Int> = [saved.root]
        for step in saved.steps {
            guard seen.contains(step.parent) else { return false }
            seen.insert(step.node)
        }
        return true
    }
}

extension RestoreReportText {
    init(_ report: ActionStack.RestoreReport) {
        let cuts = report.cuts.map { cut -> Cut in
            let reason: String
            if let key = cut.reason.key, cut.reason == .unresolvedKey(key) {
                reason = "no " + key
            } else if let key = cut.reason.key, cut.reason == .objectNotKept(key) {
                reason = "not kept " + key
            } else if cut.reason == .branchInLinearHistory {
                reason = "branch"
            } else {
                reason = "\(cut.reason)"
            }
            return Cut(node: cut.node, reason: reason, droppedSteps: cut.droppedSteps)
        }
        self.init(
            restoredSteps: report.restoredSteps, droppedSteps: report.droppedSteps,
            cuts: cuts.sorted { $0.node < $1.node },
            restoredCleanState: report.restoredCleanState, trimmedSteps: report.trimmedSteps,
            omitted: SavedHistoryText.text(report.omittedWhenSaved))
    }
}

/// A walk through the history of a stack: the document after each undo of its undo steps, after
/// redoing them again, after each redo of its redo steps, and after undoing those again.
struct WalkText: Hashable, CustomStringConvertible {
    var undone: [[Int?]]
    var back: [Int?]
    var redone: [[Int?]]
    var end: [Int?]

    var description: String {
        func values(_ list: [Int?]) -> String {
            "(" + list.map { $0.map(String.init) ?? "-" }.joined(separator: " ") + ")"
        }
        return "undone \(undone.map(values).joined()) back \(values(back)) redone \(redone.map(values).joined()) "
            + "end \(values(end))"
    }
}

// MARK: - The stack's world

extension StackWorld {
    static func text(_ error: ActionStack.HistoryPersistenceError) -> String {
        if let misuse = error.misuse { return "misuse(\(map(misuse)))" }
        if error == .groupIsOpen { return "groupIsOpen" }
        if error == .busy { return "busy" }
        if let reason = error.malformation { return "malformed(\(reason))" }
        return "unknown(\(error))"
    }

    static func text(_ depth: ActionStack.SavableDepth) -> String {
        "\(depth.undoSteps)/\(depth.redoSteps)/\(depth.branchSteps)"
    }

    func performSavableDepth() { result("savableDepth = \(Self.text(stack.savableDepth))") }

    func performSavedHistory() {
        do {
            result("savedHistory = \(SavedHistoryText(try stack.savedHistory()))")
        } catch {
            result("savedHistory threw \(Self.text(error))")
        }
    }

    /// The values of every target made (nil for a freed one).
    var documentValues: [Int?] { targets.map { $0?.value } }

    /// Undoes `undoSteps` steps (all when nil) and redoes them again, then redoes `redoSteps` steps
    /// (all when nil) and undoes them again, recording the document. The limits are lifted while it
    /// walks (a redo would trim the oldest step, and the walk could not come back), then set again.
    func walk(_ stack: ActionStack, undoSteps: Int?, redoSteps: Int?) -> WalkText {
        let limits = (stack.levelsOfUndo, stack.maximumCost, stack.maximumBranchSteps)
        (stack.levelsOfUndo, stack.maximumCost, stack.maximumBranchSteps) = (0, 0, 0)
        defer { (stack.levelsOfUndo, stack.maximumCost, stack.maximumBranchSteps) = limits }
        let undoCount = undoSteps ?? stack.undoCount
        let redoBefore = stack.redoCount
        var undone: [[Int?]] = []
        for _ in 0..<undoCount {
            stack.undo()
            undone.append(documentValues)
        }
        for _ in 0..<max(0, stack.redoCount - redoBefore) { stack.redo() }
        let back = documentValues
        let redoCount = redoSteps ?? stack.redoCount
        var redone: [[Int?]] = []
        for _ in 0..<redoCount {
            stack.redo()
            redone.append(documentValues)
        }
        for _ in 0..<redoCount { stack.undo() }
        return WalkText(undone: undone, back: back, redone: redone, end: documentValues)
    }

    /// Stops recording `stack`: its notifications, misuses and observers.
    func stopListening(to stack: ActionStack) {
        for token in notificationTokens { NotificationCenter.default.removeObserver(token) }
        notificationTokens = []
        for observer in observers { observer.token.cancel() }
        stack.onMisuse = nil
    }

    /// A fresh stack with the settings of `old`.
    func freshStack(like old: ActionStack) -> ActionStack {
        let fresh = ActionStack()
        fresh.automaticGroupClosing = .manual
        fresh.groupsByEvent = old.groupsByEvent
        fresh.dropsEmptyGroups = old.dropsEmptyGroups
        fresh.misusePolicy = old.misusePolicy
        let base = ContinuousClock.now
        fresh.coalescingClock = { [unowned self] in base.advanced(by: .milliseconds(clock)) }
        fresh.historyClock = { [unowned self] in Date(timeIntervalSinceReferenceDate: Double(clock)) }
        fresh.historyShape = old.historyShape
        fresh.levelsOfUndo = old.levelsOfUndo
        fresh.maximumCost = old.maximumCost
        fresh.maximumBranchSteps = old.maximumBranchSteps
        return fresh
    }

    /// Resolves a key to its target, unless the target is freed or is `unresolvedSlot`'s; the key
    /// of `releasedSlot`'s live target to a new target that nobody keeps. Logs a key resolved twice
    /// (the resolver is called once per key).
    func resolver(_ unresolvedSlot: Int?, releasedSlot: Int? = nil) -> (String) -> AnyObject? {
        let unresolved = unresolvedSlot.map { ReferenceModel.key(of: slotTarget[$0]) }
        let released = releasedSlot.map { ReferenceModel.key(of: slotTarget[$0]) }
        var resolved: Set<String> = []
        return { [unowned self] key in
            if !resolved.insert(key).inserted { result("key \(key) resolved twice") }
            guard key != unresolved, key.hasPrefix("t"), let index = Int(key.dropFirst()), index < targets.count
            else { return nil }
            if key == released, targets[index] != nil { return DriverTarget(key: key) }
            return targets[index]
        }
    }

    func performRestoreSaved(unresolvedSlot: Int?) {
        let saved =
            lastSaved ?? SavedHistory(shape: stack.historyShape, root: 0, current: 0, clean: nil, steps: [])
        do {
            let report = try stack.restoreHistory(saved, resolvingTargets: resolver(unresolvedSlot))
            result("restoreSaved = \(RestoreReportText(report))")
        } catch {
            result("restoreSaved threw \(Self.text(error))")
        }
    }

    func performSaveRestore(limit: Int?, unresolvedSlot: Int?, releasedSlot: Int? = nil) {
        let planWasEnabled = plan.enabled
        plan.enabled = false
        defer { plan.enabled = planWasEnabled }
        let old = stack
        // 1. The save.
        result("savableDepth = \(Self.text(old.savableDepth))")
        var maximum = limit ?? .max
        if let limit, old.historyShape == .tree {
            do {
                let unlimited = SavedHistoryText(try old.savedHistory())
                result("savedHistory = \(unlimited)")
                maximum = unlimited.tieFreeLimit(limit)
            } catch {
                result("savedHistory threw \(Self.text(error))")
                return
            }
        }
        let saved: SavedHistory
        do {
            saved = try old.savedHistory(maximumSteps: maximum)
        } catch {
            result("savedHistory(\(maximum)) threw \(Self.text(error))")
            return
        }
        let savedText = SavedHistoryText(saved)
        result("savedHistory(\(maximum)) = \(savedText)")
        if !SavedHistoryText.parentsComeFirst(saved) {
            result("saved steps not parents first: \(saved.steps.map(\.node))")
        }
        // 2. The archive, the old stack read and walked.
        let restored: SavedHistory
        do {
            let data = try HistoryArchive(fingerprint: "driver", histories: ["stack": saved]).encoded()
            let archive = try HistoryArchive(decoding: data, registry: testRegistry())
            guard let history = archive.histories["stack"], archive.fingerprint == "driver" else {
                result("the archive lost the history")
                return
            }
            restored = history
            if SavedHistoryText(history) != savedText {
                result("the archive changed the history: \(SavedHistoryText(history))")
            }
            if try HistoryArchive(fingerprint: "driver", histories: ["stack": history]).encoded() != data {
                result("the archive read back encodes to other bytes")
            }
        } catch {
            result("the archive threw \(error)")
            return
        }
        stopListening(to: old)
        let original = ObservedStack(old)
        let fresh = freshStack(like: old)
        var disabled = 0
        while !old.isUndoRegistrationEnabled && disabled < 100 {
            old.enableUndoRegistration()
            disabled += 1
        }
        let sides = savedText.sideCounts
        let document = documentValues
        let originalWalk = walk(old, undoSteps: sides.undo, redoSteps: sides.redo)
        if originalWalk.back != document || originalWalk.end != document {
            result("the walk through the old stack did not come back: \(originalWalk)")
        }
        // 3. The fresh stack, the restore, everything observable.
        stack = fresh
        listen(to: fresh)
        observers = observers.map { ($0.index, makeObserver($0.index)) }
        lastSaved = restored
        do {
            let report = try fresh.restoreHistory(
                restored, resolvingTargets: resolver(unresolvedSlot, releasedSlot: releasedSlot))
            result("restore = \(RestoreReportText(report))")
            // The report says what the stack holds: no step the restore built has lost its target.
            let held = fresh.historyTree.map { $0.nodes.count - 1 } ?? (fresh.undoCount + fresh.redoCount)
            if held != report.restoredSteps - report.trimmedSteps {
                result("the restored stack holds \(held) steps, the report says \(report)")
            }
            muted = true
            let now = ObservedStack(fresh)
            let resaved = SavedHistoryText(try fresh.savedHistory())
            muted = false
            readEverything()
            // 4. Against the stack saved from, and its history saved again: the same steps, costs,
            // commands, dates and redo choices (a linear history numbered from its new root).
            let whole =
                report.cuts.isEmpty && report.trimmedSteps == 0 && savedText.steps.count == original.stepCount
            var problems = now.differences(from: original, whole: whole, saved: savedText)
            if report.cuts.isEmpty && report.trimmedSteps == 0 && resaved != savedText.renumbered(from: resaved.root) {
                problems.append("saved again: \(resaved)")
            }
            if !problems.isEmpty {
                result("the restored stack differs from the one saved: " + problems.joined(separator: "; "))
            }
        } catch {
            result("restore threw \(Self.text(error))")
            return
        }
        // 5. The walk.
        let freshWalk = walk(fresh, undoSteps: nil, redoSteps: nil)
        result("walk = \(freshWalk)")
        if !freshWalk.undone.elementsEqual(originalWalk.undone.prefix(freshWalk.undone.count))
            || !freshWalk.redone.elementsEqual(originalWalk.redone.prefix(freshWalk.redone.count))
            || freshWalk.back != originalWalk.back || freshWalk.end != originalWalk.end
        {
            result("the restored stack's document states differ from the old one's: \(originalWalk)")
        }
        for _ in 0..<disabled { fresh.disableUndoRegistration() }
    }
}

/// Everything observable of a stack at rest, for comparing a restored stack with the one saved.
struct ObservedStack {
    var state: ReferenceModel.State
    var undoEntries: [ReferenceModel.Entry]
    var redoEntries: [ReferenceModel.Entry]
    var undoDiscardable: Bool
    var redoDiscardable: Bool
    var undoInfo: Int?
    var redoInfo: Int?
    var historyPosition: Int
    var isCleanAtStart: Bool
    var depth: String
    var tree: TreeSnapshot?
    var stepCount: Int

    init(_ stack: ActionStack) {
        state = StackWorld.map(stack.state)
        undoEntries = stack.undoEntries.map(StackWorld.map)
        redoEntries = stack.redoEntries.map(StackWorld.map)
        undoDiscardable = stack.undoActionIsDiscardable
        redoDiscardable = stack.redoActionIsDiscardable
        undoInfo = stack.undoActionUserInfoValue(forKey: "k1") as? Int
        redoInfo = stack.redoActionUserInfoValue(forKey: "k1") as? Int
        historyPosition = stack.historyPosition
        isCleanAtStart = stack.isCleanAtStart
        depth = StackWorld.text(stack.savableDepth)
        tree = stack.historyTree.map(StackWorld.map)
        stepCount = tree.map { $0.nodes.count - 1 } ?? (undoEntries.count + redoEntries.count)
    }

    /// How this stack, restored from `original`, differs from it: in everything when the whole
    /// history came back, otherwise in the part that did.
    ///
    /// Which nodes are clean is checked against the saved history: the restored stack is clean at
    /// the saved clean node and at the nodes that do-nothing steps join to it, which must be a node
    /// the original called clean (and its current node, when the original was clean). The original
    /// may call other nodes clean, or not call these, where its document states were irregular: a
    /// step with an action that left the state as it was (an observer that registered during an
    /// undo's handlers), a current state that was not its step's (after the step that led to it
    /// was swept away); a restore gives each step with an action a new state.
    func differences(from original: ObservedStack, whole: Bool, saved: SavedHistoryText) -> [String] {
        var problems: [String] = []
        func check(_ ok: Bool, _ what: @autoclosure () -> String) { if !ok { problems.append(what()) } }
        var original = original
        let joined = Set(saved.clean)
        // The saved history's node of each entry and of the start (a linear history is saved as
        // the original numbers it).
        let linear = original.tree == nil
        func undoNode(_ index: Int, _ entry: ReferenceModel.Entry) -> Int { entry.node ?? saved.current - index }
        func redoNode(_ index: Int, _ entry: ReferenceModel.Entry) -> Int { entry.node ?? saved.current + 1 + index }
        var originalClean: Set<Int> = original.state.isClean ? [saved.current] : []
        for (index, entry) in original.undoEntries.enumerated() where entry.isClean {
            originalClean.insert(undoNode(index, entry))
        }
        for (index, entry) in original.redoEntries.enumerated() where entry.isClean {
            originalClean.insert(redoNode(index, entry))
        }
        if linear && original.isCleanAtStart { originalClean.insert(saved.current - original.undoEntries.count) }
        for node in original.tree?.nodes ?? [] where node.isClean { originalClean.insert(node.number) }
        check(
            joined.isEmpty || !joined.isDisjoint(with: originalClean),
            "the saved clean nodes \(joined.sorted()) are none the original called clean (\(originalClean.sorted()))")
        check(
            !original.state.isClean || joined.contains(saved.current),
            "the original was clean, the saved clean nodes \(joined.sorted()) are not its current node")
        // From here on, the original's clean flags as the saved history has them.
        for (index, entry) in original.undoEntries.enumerated() {
            original.undoEntries[index].isClean = joined.contains(undoNode(index, entry))
        }
        for (index, entry) in original.redoEntries.enumerated() {
            original.redoEntries[index].isClean = joined.contains(redoNode(index, entry))
        }
        if var tree = original.tree {
            for index in tree.nodes.indices { tree.nodes[index].isClean = joined.contains(tree.nodes[index].number) }
            original.tree = tree
        }
        original.state.isClean = joined.contains(saved.current)
        original.isCleanAtStart = joined.contains(tree?.root ?? (saved.current - undoEntries.count))
        func withoutRootDate(_ tree: TreeSnapshot?) -> TreeSnapshot? {
            guard var tree else { return nil }
            for index in tree.nodes.indices where tree.nodes[index].number == tree.root { tree.nodes[index].date = 0 }
            return tree
        }
        if whole {
            check(state == original.state, "state \(state) != \(original.state)")
            check(undoEntries == original.undoEntries, "undo entries \(undoEntries) != \(original.undoEntries)")
            check(redoEntries == original.redoEntries, "redo entries \(redoEntries) != \(original.redoEntries)")
            check(
                (undoDiscardable, redoDiscardable, undoInfo, redoInfo)
                    == (original.undoDiscardable, original.redoDiscardable, original.undoInfo, original.redoInfo),
                "discardable or user info")
            check(historyPosition == original.historyPosition, "historyPosition")
            check(isCleanAtStart == original.isCleanAtStart, "isCleanAtStart")
            check(depth == original.depth, "savableDepth \(depth) != \(original.depth)")
            // The root, which is no step, is dated at the restore.
            check(
                withoutRootDate(tree) == withoutRootDate(original.tree),
                "tree \(tree?.description ?? "nil") != \(original.tree?.description ?? "nil")")
            return problems
        }
        check(
            undoEntries.elementsEqual(original.undoEntries.prefix(undoEntries.count)),
            "undo entries \(undoEntries) not the first of \(original.undoEntries)")
        check(
            redoEntries.elementsEqual(original.redoEntries.prefix(redoEntries.count)),
            "redo entries \(redoEntries) not the first of \(original.redoEntries)")
        check(state.isClean == original.state.isClean, "isClean")
        check(state.currentNode == original.state.currentNode, "currentNode")
        if let next = undoEntries.first {
            check(
                state.undoMenuItemTitle == original.state.undoMenuItemTitle && next.title == state.undoMenuItemTitle
                    && undoDiscardable == original.undoDiscardable && undoInfo == original.undoInfo,
                "the next undo step")
        } else {
            check(!state.canUndo && state.undoMenuItemTitle == "Undo", "no undo step")
        }
        if let next = redoEntries.first {
            check(
                state.redoMenuItemTitle == original.state.redoMenuItemTitle && next.title == state.redoMenuItemTitle
                    && redoDiscardable == original.redoDiscardable && redoInfo == original.redoInfo,
                "the next redo step")
        } else {
            check(!state.canRedo && state.redoMenuItemTitle == "Redo", "no redo step")
        }
        if let tree, let originalTree = original.tree {
            let kept = Set(tree.nodes.map(\.number))
            let before = Dictionary(uniqueKeysWithValues: originalTree.nodes.map { ($0.number, $0) })
            for node in tree.nodes {
                guard let old = before[node.number] else {
                    problems.append("node #\(node.number) was not in the tree saved")
                    continue
                }
                var expected = old
                expected.children = old.children.filter(kept.contains)
                expected.redoChild = old.redoChild.flatMap { kept.contains($0) ? $0 : nil }
                if node.number == tree.root {
                    // The root is no step of the restored history, and is dated at the restore.
                    expected.parent = nil
                    expected.actionName = node.actionName
                    expected.title = node.title
                    expected.actionCount = node.actionCount
                    expected.date = node.date
                }
                check(node == expected, "node \(node) != \(expected)")
            }
        }
        return problems
    }
}

// MARK: - The model's world

extension ModelWorld {
    static func text(_ depth: (undo: Int, redo: Int, branch: Int)) -> String {
        "\(depth.undo)/\(depth.redo)/\(depth.branch)"
    }

    func performSavableDepth() { result("savableDepth = \(Self.text(model.savableDepthQuery))") }

    func performSavedHistory() {
        switch model.savedHistory() {
        case .success(let saved): result("savedHistory = \(saved.text)")
        case .failure(let failure): result("savedHistory threw \(failure)")
        }
    }

    /// The values of every target made (nil for a freed one).
    var documentValues: [Int?] { model.values.indices.map { model.alive[$0] ? model.values[$0] : nil } }

    /// The walk of `StackWorld.walk(_:undoSteps:redoSteps:)` through the whole history.
    func walk() -> WalkText {
        let limits = (model.levels, model.maximumCostLimit, model.maximumBranchStepsSetting)
        model.setLevelsOfUndo(0)
        model.setMaximumCost(0)
        model.setMaximumBranchSteps(0)
        defer {
            model.setLevelsOfUndo(limits.0)
            model.setMaximumCost(limits.1)
            model.setMaximumBranchSteps(limits.2)
        }
        let undoCount = model.undoCount
        let redoBefore = model.redoCount
        var undone: [[Int?]] = []
        for _ in 0..<undoCount {
            model.undo()
            undone.append(documentValues)
        }
        for _ in 0..<max(0, model.redoCount - redoBefore) { model.redo() }
        let back = documentValues
        let redoCount = model.redoCount
        var redone: [[Int?]] = []
        for _ in 0..<redoCount {
            model.redo()
            redone.append(documentValues)
        }
        for _ in 0..<redoCount { model.undo() }
        return WalkText(undone: undone, back: back, redone: redone, end: documentValues)
    }

    /// The targets whose keys do not resolve: `unresolvedSlot`'s, and those the driver let go.
    func unresolvedTargets(_ unresolvedSlot: Int?) -> Set<Int> {
        var unresolved = Set(model.values.indices.filter { !hasTarget($0) })
        if let unresolvedSlot { unresolved.insert(slotTarget[unresolvedSlot]) }
        return unresolved
    }

    func performRestoreSaved(unresolvedSlot: Int?) {
        let saved =
            lastSaved
            ?? ReferenceModel.ModelSave(
                tree: model.tree != nil, root: 0, current: 0, clean: [], steps: [],
                text: SavedHistoryText(tree: model.tree != nil, root: 0, current: 0, clean: [], steps: []))
        switch model.restoreHistory(saved, unresolved: unresolvedTargets(unresolvedSlot)) {
        case .success(let report):
            model.count("history restored in place")
            result("restoreSaved = \(report)")
        case .failure(let failure): result("restoreSaved threw \(failure)")
        }
    }

    /// The live target of `releasedSlot`, which the stack's world resolves to an object nobody
    /// keeps (unless its key does not resolve at all).
    func releasedTargets(_ releasedSlot: Int?, unresolved: Set<Int>) -> Set<Int> {
        guard let releasedSlot, !unresolved.contains(slotTarget[releasedSlot]) else { return [] }
        return [slotTarget[releasedSlot]]
    }

    func performSaveRestore(limit: Int?, unresolvedSlot: Int?, releasedSlot: Int? = nil) {
        let planWasEnabled = plan.enabled
        plan.enabled = false
        defer { plan.enabled = planWasEnabled }
        result("savableDepth = \(Self.text(model.savableDepthQuery))")
        var maximum = limit ?? .max
        if let limit, model.tree != nil {
            switch model.savedHistory() {
            case .success(let unlimited):
                result("savedHistory = \(unlimited.text)")
                maximum = unlimited.text.tieFreeLimit(limit)
            case .failure(let failure):
                result("savedHistory threw \(failure)")
                return
            }
        }
        let saved: ReferenceModel.ModelSave
        switch model.savedHistory(maximumSteps: maximum) {
        case .success(let made): saved = made
        case .failure(let failure):
            result("savedHistory(\(maximum)) threw \(failure)")
            return
        }
        result("savedHistory(\(maximum)) = \(saved.text)")
        model.count(limit == nil ? "history saved" : "history saved with a limit")
        if maximum != limit ?? .max { model.count("save limit lowered to a tie-free one") }
        let held = model.saveLayout().steps.count
        model.tally["saved steps", default: 0] += saved.steps.count
        model.tally["held steps", default: 0] += held
        model.tally["saved branch steps", default: 0] += saved.steps.filter { $0.place == .branch }.count
        let disabled = model.disableCount
        lastSaved = saved
        let unresolved = unresolvedTargets(unresolvedSlot)
        let report = model.restoreIntoFreshStack(
            saved, unresolved: unresolved, released: releasedTargets(releasedSlot, unresolved: unresolved))
        result("restore = \(report)")
        if report.cuts.contains(where: { $0.reason.hasPrefix("not kept") }) { model.count("unkept object cut") }
        if report.cuts.isEmpty && report.trimmedSteps == 0 && saved.steps.count == held {
            model.count("whole history restored")
        }
        if report.restoredCleanState { model.count("clean state restored") }
        if report.trimmedSteps > 0 { model.count("restore trimmed") }
        readEverything()
        result("walk = \(walk())")
        for _ in 0..<disabled { model.disableUndoRegistration() }
    }
}

extension DriverWorld {
    /// Everything observable of the stack, as queries: both worlds log the same.
    func readEverything() {
        for op: DriverOp in [
            .allQueries, .savableDepth, .savedHistory, .treeQuery(.historyTree), .treeQuery(.redoBranches),
            .treeQuery(.currentNode),
        ] {
            perform(op)
        }
    }
}

// MARK: - Tests

/// The random driver with commands among the closures and saves and restores among the operations,
/// in linear and branching histories.
///
///   swift test --filter SaveRestoreDriverTests
///   ACTIONSTACK_SAVE_SOAK_OPERATIONS=1000000 swift test --filter SaveRestoreDriverTests/soak
///   (ACTIONSTACK_SOAK_SEED, DRIVER_FIRST_SEED, DRIVER_TRACE and DRIVER_DECISIONS as for RandomDriverTests)
struct SaveRestoreDriverTests {
    /// Failing cases found by the driver, pasted from its reports: replayed in every run.
    static let regressions: [DriverCase] = [
        // A save at the root of a tree whose four redo steps are more than levelsOfUndo: walking
        // the old stack's redo side trimmed its oldest step, so the walk could not come back and
        // left the document where the restored stack did not expect it (the soak found the
        // driver's walk wrong; both walks now lift the limits while they walk).
        DriverCase(
            seed: 2_000_715,
            config: .init(
                groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3, tree: true, commands: 100),
            plan: [],
            ops: [
                .begin, .command(slot: 0, delta: 60, options: .plain), .end, .begin,
                .command(slot: 0, delta: 90, options: .plain), .end, .begin,
                .command(slot: 2, delta: 84, options: .plain), .end, .begin,
                .command(slot: 1, delta: 27, options: .plain), .jumpToNode(-3), .levels(3),
                .saveRestore(limit: nil, unresolvedSlot: nil),
            ]
        ),
        // Issue 28, item 9: three command steps on the targets of slots 0, 1 and 0, the key of slot
        // 1's target resolved to a new object that nobody keeps. The restore held it while it
        // decided and built the middle step on it; freed after the restore, it left a hole that
        // undo skipped, and the report counted 3 steps where the stack held 2. The restore now cuts
        // there, and the report says what the stack holds.
        DriverCase(
            seed: 2_000_716,
            config: .init(
                groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 2, tree: false, commands: 100),
            plan: [],
            ops: [
                .begin, .command(slot: 0, delta: 1, options: .plain), .end, .begin,
                .command(slot: 1, delta: 2, options: .plain), .end, .begin,
                .command(slot: 0, delta: 3, options: .plain), .end,
                .saveRestore(limit: nil, unresolvedSlot: nil, releasedSlot: 1), .undo, .undo, .redo,
            ]
        ),
        // A step with an action on an object nobody keeps and one on a key that does not resolve:
        // the restore cuts it for the key that does not resolve, and, keeping no step that names
        // the other, does not decide again (the model had the first failing action's reason).
        DriverCase(
            seed: 76,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3, commands: 90),
            plan: [],
            ops: [
                .begin, .command(slot: 1, delta: 5, options: .plain), .command(slot: 0, delta: 41, options: .plain),
                .end, .saveRestore(limit: 8, unresolvedSlot: 0, releasedSlot: 1),
            ]
        ),
        // The same in a branching history, with the middle step a branch.
        DriverCase(
            seed: 2_000_717,
            config: .init(
                groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 2, tree: true, commands: 100),
            plan: [],
            ops: [
                .begin, .command(slot: 0, delta: 1, options: .plain), .end, .begin,
                .command(slot: 1, delta: 2, options: .plain), .end, .undo, .begin,
                .command(slot: 0, delta: 3, options: .plain), .end,
                .saveRestore(limit: nil, unresolvedSlot: nil, releasedSlot: 1), .undo, .undo, .redo,
            ]
        ),
        // A jump whose last redo freed the target of the oldest step: the stack looks for freed
        // targets once more when it arrives and drops that step; the model kept it until the next
        // sweep (the soak found it: the walk swept only before each step).
        DriverCase(
            seed: 92_000_300,
            config: .init(
                groupsByEvent: true, dropsEmptyGroups: false, logsMisuse: false, slots: 3, tree: true, commands: 100),
            plan: [
                .init(trigger: .notification(.didRedo), nth: nil, every: 4, op: .free(slot: 0))
            ],
            ops: [
                .command(slot: 0, delta: 66, options: .plain), .end, .command(slot: 1, delta: 7, options: .plain),
                .endEvent, .setValue(slot: 2, value: 9, name: "Draw"), .undo,
                .command(slot: 2, delta: 48, options: .init(cost: 3)), .endEvent,
                .saveRestore(limit: 3, unresolvedSlot: nil), .command(slot: 1, delta: 56, options: .plain), .undo,
                .undo, .command(slot: 1, delta: 54, options: .plain), .endEvent, .jumpToNode(-2),
            ]
        ),
    ]

    /// A divergence a soak found (seed 81002151, shrunk) and not yet explained, kept visible: an
    /// empty step named "Type" is undone, and an observer of its checkpoint registers a command
    /// while it is undone (so its redo now changes the document); a new change makes the redo
    /// side a branch; a jump back onto that step; then a save. The stack saves the clean state on
    /// that step's node, the model on the root (nothing was ever marked: the initial state is the
    /// saved one). After the jump the document holds what it held at the start (every slot 0),
    /// which the stack's answer says and the model's does not (the root now holds the observer's
    /// +16), so the model is the likelier one to be wrong: CleanStateAndHistory.md's exact states
    /// say how a registration from that checkpoint should count, and the model should follow it.
    static let unexplainedDivergence =
        DriverCase(
            seed: 81_002_151,
            config: .init(
                groupsByEvent: true, dropsEmptyGroups: false, logsMisuse: false, slots: 3, tree: true, commands: 90),
            plan: [
                .init(
                    trigger: .notification(.checkpoint), nth: nil, every: 6,
                    op: .command(slot: 0, delta: 16, options: .plain))
            ],
            ops: [
                .name("Type"), .endEvent, .command(slot: 1, delta: 43, options: .init(cost: 1, key: "c2", window: 50)),
                .undo, .undo, .undo, .command(slot: 2, delta: 12, options: .plain), .endEvent, .jumpToNode(-3),
                .saveRestore(limit: 1, unresolvedSlot: 1),
            ]
        )

    @Test(
        .disabled(
            "open: the clean node after a jump onto a step that an observer filled while it was undone (seed 81002151)")
    )
    func aStepFilledWhileUndoneKeepsTheCleanStateTheModelExpects() {
        replayedRegression(Self.unexplainedDivergence)
    }

    static let environment = ProcessInfo.processInfo.environment

    @Test(arguments: [false, true])
    func stackAgreesWithTheModelThroughSavesAndRestores(tree: Bool) async {
        let first = (UInt64(Self.environment["DRIVER_FIRST_SEED"] ?? "") ?? 1) &+ (tree ? 500_000 : 0)
        let sequences = Workload.scaled(tree ? 150 : 200)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = await RandomDriverTests().drive(
            firstSeed: first, sequences: sequences, length: 200, tree: tree, commands: true)
        print(
            "random driver (commands\(tree ? ", tree" : "")): \(outcome.operations) operations from seed \(first) in "
                + "\(clock.now - start)")
        if outcome.agreed { #expect(outcome.operations >= sequences * 200) }
    }

    @Test(arguments: regressions)
    func replayedRegression(_ driverCase: DriverCase) {
        if let problem = RandomDriverTests.run(driverCase) { Issue.record("seed \(driverCase.seed): \(problem)") }
    }

    /// A long soak, linear and branching histories in turn:
    /// ACTIONSTACK_SAVE_SOAK_OPERATIONS=1000000 swift test --filter SaveRestoreDriverTests/soak
    @Test(.enabled(if: ProcessInfo.processInfo.environment["ACTIONSTACK_SAVE_SOAK_OPERATIONS"] != nil))
    func soak() async {
        let wanted = Int(Self.environment["ACTIONSTACK_SAVE_SOAK_OPERATIONS"] ?? "") ?? 1_000_000
        let seed = UInt64(Self.environment["ACTIONSTACK_SOAK_SEED"] ?? "") ?? 2_000_000
        var operations = 0
        var next = seed
        var tree = false
        while operations < wanted {
            let outcome = await RandomDriverTests().drive(
                firstSeed: next, sequences: 100, length: 1_000, tree: tree, commands: true)
            operations += outcome.operations
            next &+= 100
            if !outcome.agreed { return }  // the divergence is recorded
            print("save soak: \(operations) operations so far (seeds \(seed)..<\(next))")
            tree.toggle()
        }
        print("save soak: \(operations) operations from seed \(seed)")
    }
}
