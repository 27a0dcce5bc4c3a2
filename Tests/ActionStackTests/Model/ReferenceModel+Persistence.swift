// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The reference model's persistent history (section 20: the SavingTheHistory article and the doc
// comments of UndoCommand.swift, SavedHistory.swift and ActionStack+SaveRestore.swift).
//
// The rules, as the model has them:
// - A step can be saved when every live action in it is a command (`Action.command`); an empty
//   step can, the open group cannot (`HistoryEntry.canBeSaved`).
// - The saved part: walking outward from the current node over the tree of steps (the undo side
//   up, the redo side and every branch down), each walk stopping at the first step that cannot be
//   saved. `savableDepth` counts its steps by where they are (undo side, redo side, branches).
// - `savedHistory(maximumSteps:)` sweeps freed targets first (so dead actions and steps left
//   empty are not saved), then keeps the nearest steps of the saved part: by the number of steps
//   between the current node and the step's far end, the undo side first at each distance.
// - Nodes: a branching history saves its own numbers and dates; a linear history is saved as a line
//   numbered from its oldest undo step's parent, 0, then its steps in order (the undo steps oldest
//   first, then the redo steps, next first). The root of the saved part is the parent of its
//   farthest undo step (the current node when none). A step is its parent's redo choice when it is
//   the next step of its chain (the undo path, the redo side, a branch after its first step).
// - What the save leaves out is said (`SavedHistory.omissions`): walking outward from the current
//   node over every step, a step not saved counts for the first step not saved on its way, itself
//   included: "closure" when that step cannot be saved (named by the nearest such step: the fewest
//   steps away, then the undo side, the redo side and the branches, then the lowest node), and
//   "maximumSteps" when it could. At most one entry per reason, "closure" first. The restore
//   reports them again.
// - The clean state is saved as a node of the saved part whose document state it is, and never as
//   another: a clean state marked inside a step (no node has it), or beyond the saved part, is
//   saved as none (Decided: never moved to another step).
// - A restore into an empty stack, walking outward from the saved current node, leaves out a step
//   one of whose keys cannot be resolved, or resolves to an object that nothing but the restore
//   keeps alive (the stack holds targets weakly: the restore lets go of the objects once before it
//   builds anything, and a key whose object was freed then is cut as "not kept"), with everything
//   beyond it (up the current path: it and
//   every step above it, its node becoming the root; down: its subtree). The rest comes back as
//   saved, with new document states: the root a new one, each step's node a new one unless the
//   step holds no action (then its parent's, as a do-nothing step leaves the document as it was).
//   The clean state comes back where it was saved, if kept. Then the limits apply; coalescing does
//   not continue a restored step. The restore is one call (one publish), with no undo or redo
//   notification.
//
// SPEC-QUESTION readings (the rules are silent; the library agrees):
// - The order among the redo side and the branches at the same distance is not promised (the undo
//   side comes first): the driver never asks for a limit that would cut among them
//   (`SavedHistoryText.tieFreeLimit`).
// - A restored root keeps its saved date (`SavedHistory.rootDate`); when a cut made another node
//   the root, that node's step's date; a history with neither dates it at the restore.
// - The next change after a restore takes the number after the highest restored node.
// - Which restored branch was left least recently (the pruning order of `maximumBranchSteps` and
//   `maximumCost`) is not saved: the restored branches count as left in the order the restore
//   builds them (`restoredBranchOrder`).

// MARK: - A saved history as both worlds describe it

/// One saved action, as both worlds describe it.
struct SavedActionText: Hashable, Sendable, CustomStringConvertible {
    var commandType: String
    var version: Int
    /// The app's key for the target.
    var key: String
    var cost: Int
    /// The driver's command's payload: the delta it adds, and its registration options (nil when
    /// it is not the driver's command).
    var delta: Int?
    var coalescingKey: String?
    var window: Int?

    var description: String {
        "\(commandType)/\(version)@\(key)" + (delta.map { " \($0)" } ?? "") + (cost != 0 ? " $\(cost)" : "")
            + (coalescingKey.map { " ~\($0)" } ?? "") + (window.map { "/\($0)ms" } ?? "")
    }
}

/// One saved step, as both worlds describe it.
struct SavedStepText: Hashable, Sendable, CustomStringConvertible {
    var node: Int
    var parent: Int
    var isRedoChoice: Bool
    /// In the driver's clock units (seconds); nil when the step has no date.
    var date: Int?
    var actionName: String
    var isDiscardable: Bool
    /// Each value as "kind(value)".
    var userInfo: [String: String]
    var actions: [SavedActionText]

    var description: String {
        let info = userInfo.keys.sorted().map { "\($0)=\(userInfo[$0]!)" }.joined(separator: ",")
        return "#\(node)<#\(parent)" + (isRedoChoice ? "*" : "") + (date.map { " @\($0)" } ?? "") + " '\(actionName)'"
            + (isDiscardable ? " !" : "") + (info.isEmpty ? "" : " {\(info)}") + " ["
            + actions.map(\.description).joined(separator: ", ") + "]"
    }
}

/// A saved history, as both worlds describe it: its steps by node number.
struct SavedHistoryText: Hashable, Sendable, CustomStringConvertible {
    var tree: Bool
    var root: Int
    var current: Int
    /// The saved clean node with the nodes joined to it by steps that hold no action (they are in
    /// the same document state), in number order; empty when no clean state is saved.
    var clean: [Int]
    var steps: [SavedStepText]
    /// The root's date, in the clock's whole seconds (nil: a linear history).
    var rootDate: Int? = nil
    /// What the save left out: "reason steps name" (the name "-" when there is none).
    var omitted: [String] = []
    /// The number the next change gets (a branching history: one above every node it ever made,
    /// saved or not; nil for a linear history).
    var nextNode: Int? = nil

    var description: String {
        (tree ? "tree" : "linear") + " root #\(root)" + (rootDate.map { " dated \($0)" } ?? "")
            + (nextNode.map { " next #\($0)" } ?? "") + " current #\(current)"
            + (clean.isEmpty ? "" : " clean " + clean.map { "#\($0)" }.joined(separator: ",")) + ": "
            + steps.map(\.description).joined(separator: " | ")
            + (omitted.isEmpty ? "" : " (left out: " + omitted.joined(separator: ", ") + ")")
    }

    /// The nodes joined to `node` by steps with no action, `node` included, in number order.
    static func sameState(as node: Int, in steps: [SavedStepText]) -> [Int] {
        var found: Set<Int> = [node]
        var changed = true
        while changed {
            changed = false
            for step in steps where step.actions.isEmpty && found.contains(step.node) != found.contains(step.parent) {
                found.formUnion([step.node, step.parent])
                changed = true
            }
        }
        return found.sorted()
    }

    /// Each step's distance from the current node (to its far end), and whether it is on the undo
    /// side (its node is the current node or one of its ancestors).
    func distances() -> [Int: (distance: Int, undo: Bool)] {
        var parent: [Int: Int] = [:]
        var children: [Int: [Int]] = [:]
        for step in steps {
            parent[step.node] = step.parent
            children[step.parent, default: []].append(step.node)
        }
        var distance: [Int: Int] = [current: 0]
        var ancestors: Set<Int> = [current]
        var up = current
        while let next = parent[up] {
            ancestors.insert(next)
            distance[next] = distance[up]! + 1
            up = next
        }
        var pending = Array(distance.keys)
        while let node = pending.popLast() {
            for child in children[node] ?? [] where distance[child] == nil {
                distance[child] = distance[node]! + 1
                pending.append(child)
            }
        }
        var result: [Int: (distance: Int, undo: Bool)] = [:]
        for step in steps {
            let undo = ancestors.contains(step.node)
            result[step.node] = (undo ? distance[step.parent] ?? 0 : distance[step.node] ?? 0, undo)
        }
        return result
    }

    /// `requested`, or less so that a save of at most that many steps of this (unlimited) saved
    /// part never has to choose among the redo side and the branches at the same distance, whose
    /// order is not promised: each distance holds at most one undo step, which goes first.
    func tieFreeLimit(_ requested: Int) -> Int {
        let placed = distances()
        var taken = 0
        let farthest = placed.values.map(\.distance).max() ?? 0
        guard farthest > 0 else { return requested }
        for distance in 1...farthest {
            taken += placed.values.filter { $0.distance == distance && $0.undo }.count
            if taken >= requested { return requested }
            let others = placed.values.filter { $0.distance == distance && !$0.undo }.count
            if taken + others > requested { return others >= 2 ? taken : requested }
            taken += others
        }
        return requested
    }

    /// How many steps of the saved part are on the undo side, and on the redo side (the chain of
    /// redo choices from the current node).
    var sideCounts: (undo: Int, redo: Int) {
        var byParent: [Int: [SavedStepText]] = [:]
        for step in steps { byParent[step.parent, default: []].append(step) }
        var redo = 0
        var at = current
        while let next = byParent[at]?.first(where: \.isRedoChoice) {
            redo += 1
            at = next.node
        }
        return (distances().values.filter(\.undo).count, redo)
    }
}

/// `ActionStack.RestoreReport`, as both worlds describe it.
struct RestoreReportText: Hashable, Sendable, CustomStringConvertible {
    struct Cut: Hashable, Sendable {
        var node: Int
        /// Why: "no <key>" for a key that could not be resolved, "branch" for a branch restored into
        /// a linear history.
        var reason: String
        var droppedSteps: Int
    }

    var restoredSteps: Int
    var droppedSteps: Int
    /// By node.
    var cuts: [Cut]
    var restoredCleanState: Bool
    var trimmedSteps: Int
    /// What the save had left out, as `SavedHistoryText.omitted` has it.
    var omitted: [String] = []

    var description: String {
        "restored \(restoredSteps), dropped \(droppedSteps)"
            + cuts.map { " (cut #\($0.node): \($0.reason), \($0.droppedSteps) steps)" }.joined()
            + (restoredCleanState ? ", clean" : "") + (trimmedSteps > 0 ? ", trimmed \(trimmedSteps)" : "")
            + (omitted.isEmpty ? "" : ", the save left out " + omitted.joined(separator: ", "))
    }
}

// MARK: - The model

extension ReferenceModel {
    /// Where the library disagrees with the rules and the model follows the library, so that the
    /// random driver checks everything else: each is a FINDING with a minimal failing case in
    /// `SaveRestoreTests` or `CommandCoalescingTests`. Set one to false once the library is fixed.
    enum LibraryFindings {
        /// The library leaves the branches that leave from the root out of the saved part (and out
        /// of `savableDepth`) when the root's document state is not known from the current state
        /// (an open group; a step above the root that lost an action). The rules save them as any
        /// branch (`aBranchFromTheRootIsSavedWhenTheRootsStateIsUnknown`).
        static let rootBranchesNeedTheRootsState = false
        /// Read during an operation (from a handler or an observer), the library's `savableDepth`
        /// does not see the history as once freed targets are swept, as the entries do: a step
        /// whose actions' targets were all freed counts, and a freed closure action stops the walk.
        /// The rules save neither such a step nor such an action
        /// (`savableDepthDuringAnOperationSeesTheHistoryAsSwept`).
        static let savableDepthDuringAnOperationIsUnswept = false
    }

    /// Where a step of the history is (section 20).
    enum SavePlace: Sendable {
        case undo, redo, branch
    }

    /// A closed step, placed in the tree of nodes.
    struct LaidStep {
        var step: Step
        var node: Int
        var parent: Int
        var place: SavePlace
        var isRedoChoice: Bool
        var savable: Bool
        /// The node's date, in a branching history (set by a save).
        var date: Int? = nil
    }

    /// Every closed step, placed, with the document state of each node where it is known (from
    /// the current state, walking each chain while the steps' states join).
    struct SaveLayout {
        var root: Int
        var current: Int
        var steps: [LaidStep] = []
        var state: [Int: Int] = [:]
    }

    /// A save as the model predicts it.
    struct ModelSave {
        /// Whether it was saved from a branching history.
        var tree: Bool
        var root: Int
        var current: Int
        /// The nodes of the saved part in the clean state (empty: no clean state saved).
        var clean: [Int]
        /// The saved steps, nearest first.
        var steps: [LaidStep]
        var text: SavedHistoryText
        /// The root's date (a branching history).
        var rootDate: Int? = nil
    }

    /// Section 20: every live action of the step is a command (an empty step can be saved).
    func canBeSaved(_ step: Step) -> Bool { step.actions.allSatisfy { $0.command || isDead($0) } }

    /// The key of a target, as the driver's command gives it.
    static func key(of target: Int) -> String { "t\(target)" }

    /// The steps held, placed (callers sweep first). `unswept`: a step can be saved when all its
    /// actions are commands, freed or not (`LibraryFindings.savableDepthDuringAnOperationIsUnswept`).
    func saveLayout(unswept: Bool = false) -> SaveLayout {
        func canBeSaved(_ step: Step) -> Bool { unswept ? step.actions.allSatisfy(\.command) : self.canBeSaved(step) }
        let rootNumber = tree?.root ?? 0
        var layout = SaveLayout(root: rootNumber, current: rootNumber)
        var parent = rootNumber
        for (index, step) in undoSide.closed.enumerated() {
            let node = tree == nil ? index + 1 : step.node
            layout.steps.append(
                LaidStep(
                    step: step, node: node, parent: parent, place: .undo, isRedoChoice: true, savable: canBeSaved(step))
            )
            parent = node
        }
        layout.current = parent
        var state: Int? = current
        layout.state[layout.current] = current
        for laid in layout.steps.reversed() {
            state = state == laid.step.high ? laid.step.low : nil
            if let state { layout.state[laid.parent] = state }
        }
        var next = layout.current + 1
        func chain(_ steps: [Step], from anchor: Int, place: SavePlace, firstIsChoice: Bool) {
            var parent = anchor
            var state = layout.state[anchor]
            for (index, step) in steps.enumerated() {
                let node = tree == nil ? next : step.node
                next += 1
                layout.steps.append(
                    LaidStep(
                        step: step, node: node, parent: parent, place: place,
                        isRedoChoice: index > 0 || firstIsChoice, savable: canBeSaved(step)))
                state = state == step.low ? step.high : nil
                if let state { layout.state[node] = state }
                parent = node
            }
        }
        chain(redoSide.closed.reversed(), from: layout.current, place: .redo, firstIsChoice: true)
        if let tree {
            // A branch may leave from a node of another: each once its anchor is placed.
            var pending = tree.branches
            if LibraryFindings.rootBranchesNeedTheRootsState && layout.state[layout.root] == nil {
                pending.removeAll { $0.anchor == layout.root }
            }
            while !pending.isEmpty {
                let placed = Set(layout.steps.map(\.node)).union([layout.root])
                let ready = pending.filter { placed.contains($0.anchor) }
                if ready.isEmpty { break }
                for branch in ready { chain(branch.steps, from: branch.anchor, place: .branch, firstIsChoice: false) }
                pending.removeAll { placed.contains($0.anchor) }
            }
        }
        return layout
    }

    /// The saved part: the savable steps reached from the current node without crossing a step
    /// that cannot be saved, nearest first (the undo side first at each distance), with their
    /// distances.
    func savableOrder(_ layout: SaveLayout) -> [(index: Int, distance: Int)] {
        var adjacent: [Int: [Int]] = [:]
        for (index, laid) in layout.steps.enumerated() {
            adjacent[laid.parent, default: []].append(index)
            adjacent[laid.node, default: []].append(index)
        }
        var reached: Set<Int> = [layout.current]
        var frontier = [layout.current]
        var distance = 0
        var found: [(index: Int, distance: Int)] = []
        while !frontier.isEmpty {
            distance += 1
            var next: [Int] = []
            for node in frontier {
                for index in adjacent[node] ?? [] {
                    let laid = layout.steps[index]
                    let far = laid.node == node ? laid.parent : laid.node
                    guard laid.savable, !reached.contains(far) else { continue }
                    reached.insert(far)
                    next.append(far)
                    found.append((index, distance))
                }
            }
            frontier = next
        }
        func rank(_ item: (index: Int, distance: Int)) -> (Int, Int) {
            (item.distance, layout.steps[item.index].place == .undo ? 0 : 1)
        }
        return found.sorted { rank($0) < rank($1) }
    }

    /// `savableDepth`: a query, which sweeps freed targets at idle (during an operation, the answer
    /// is what it would be once they are swept).
    ///
    /// SPEC-QUESTION: with a group open, the steps below it are counted as if it were closed
    /// and empty (the open group is no step of the layout), though `savedHistory` refuses to save.
    var savableDepthQuery: (undo: Int, redo: Int, branch: Int) {
        query {
            func depth(_ layout: SaveLayout) -> (undo: Int, redo: Int, branch: Int) {
                var depth = (undo: 0, redo: 0, branch: 0)
                for item in savableOrder(layout) {
                    switch layout.steps[item.index].place {
                    case .undo: depth.undo += 1
                    case .redo: depth.redo += 1
                    case .branch: depth.branch += 1
                    }
                }
                return depth
            }
            if !activities.isEmpty && LibraryFindings.savableDepthDuringAnOperationIsUnswept {
                return depth(saveLayout(unswept: true))
            }
            return afterSweep { depth(saveLayout()) }
        }
    }

    /// Why `savedHistory` threw, as both worlds describe it.
    enum SaveFailure: Error, Hashable, CustomStringConvertible {
        case misuse(Misuse)
        case groupIsOpen

        var description: String {
            switch self {
            case .misuse(let misuse): "misuse(\(misuse))"
            case .groupIsOpen: "groupIsOpen"
            }
        }
    }

    /// `savedHistory(maximumSteps:)`: refused during an operation (a misuse), and while a group is
    /// open on the undo side; otherwise a sweep, then the nearest `maximumSteps` steps of the saved
    /// part.
    func savedHistory(maximumSteps: Int = .max) -> Result<ModelSave, SaveFailure> {
        call {
            if let misuse = refusal(.savedHistory) {
                report(misuse)
                return .failure(.misuse(misuse))
            }
            guard undoSide.frames.isEmpty else { return .failure(.groupIsOpen) }
            sweep()
            return .success(predictSave(maximumSteps: maximumSteps))
        }
    }

    /// The save of the history as it is (swept, no group open).
    func predictSave(maximumSteps: Int) -> ModelSave {
        let layout = saveLayout()
        let order = savableOrder(layout).prefix(max(0, maximumSteps))
        let saved = order.map { item -> LaidStep in
            var laid = layout.steps[item.index]
            laid.date = tree?.dates[laid.node]
            return laid
        }
        var root = layout.current
        for laid in saved where laid.place == .undo { root = laid.parent }
        var nodes: Set<Int> = [layout.current, root]
        for laid in saved { nodes.formUnion([laid.node, laid.parent]) }
        let clean = nodes.filter { layout.state[$0] == self.clean }.sorted()
        let steps = saved.map(stepText).sorted { $0.node < $1.node }
        // The text gives the clean node with the nodes that do-nothing steps join to it: the save
        // may name any node in the clean state (the rules do not say which), and those nodes share
        // it once restored.
        let rootDate = tree?.dates[root]
        let text = SavedHistoryText(
            tree: tree != nil, root: root, current: layout.current,
            clean: clean.first.map { SavedHistoryText.sameState(as: $0, in: steps) } ?? [], steps: steps,
            rootDate: rootDate, omitted: omissions(layout, saving: Set(order.map(\.index))), nextNode: tree?.nextNumber)
        return ModelSave(
            tree: tree != nil, root: root, current: layout.current, clean: clean, steps: saved, text: text,
            rootDate: rootDate)
    }

    /// What a save of the steps `saved` (indices into the layout) leaves out, as
    /// `SavedHistoryText.omitted` has it: each step not saved counts for the first step not saved
    /// on its way out from the current node.
    func omissions(_ layout: SaveLayout, saving saved: Set<Int>) -> [String] {
        // Each step's way out: the steps between the current node and it, nearest first.
        var adjacent: [Int: [Int]] = [:]
        for (index, laid) in layout.steps.enumerated() {
            adjacent[laid.parent, default: []].append(index)
            adjacent[laid.node, default: []].append(index)
        }
        var way: [Int: [Int]] = [layout.current: []]
        var stepWay: [Int: [Int]] = [:]
        var pending = [layout.current]
        while !pending.isEmpty {
            var next: [Int] = []
            for node in pending {
                for index in adjacent[node] ?? [] {
                    let laid = layout.steps[index]
                    let far = laid.node == node ? laid.parent : laid.node
                    guard way[far] == nil else { continue }
                    way[far] = way[node]! + [index]
                    stepWay[index] = way[far]!
                    next.append(far)
                }
            }
            pending = next
        }
        var closure = 0
        var overLimit = 0
        var nearest: (distance: Int, rank: Int, node: Int, name: String)?
        for (index, laid) in layout.steps.enumerated() where !saved.contains(index) {
            let steps = stepWay[index] ?? []
            let distance = [index: steps.count]
            guard let first = steps.first(where: { !saved.contains($0) }) else { continue }
            if layout.steps[first].savable {
                overLimit += 1
            } else {
                closure += 1
                if first == index {
                    let rank = laid.place == .undo ? 0 : laid.place == .redo ? 1 : 2
                    let candidate = (distance[index]!, rank, laid.node, laid.step.metadata.name)
                    if nearest.map({ ($0.distance, $0.rank, $0.node) > (candidate.0, candidate.1, candidate.2) })
                        ?? true
                    {
                        nearest = candidate
                    }
                }
            }
        }
        return (closure > 0 ? ["closure \(closure) \(nearest?.name ?? "-")"] : [])
            + (overLimit > 0 ? ["maximumSteps \(overLimit) -"] : [])
    }

    /// A saved step as both worlds describe it.
    func stepText(_ laid: LaidStep) -> SavedStepText {
        let actions = laid.step.actions.filter { !isDead($0) }.map { action -> SavedActionText in
            var delta: Int?
            if case .add(let value) = action.kind { delta = value }
            return SavedActionText(
                commandType: "driver.add", version: 1, key: Self.key(of: action.target), cost: action.cost,
                delta: delta,
                coalescingKey: action.key, window: action.window)
        }
        return SavedStepText(
            node: laid.node, parent: laid.parent, isRedoChoice: laid.isRedoChoice,
            date: laid.date ?? tree?.dates[laid.node],
            actionName: laid.step.metadata.name, isDiscardable: laid.step.metadata.discardable,
            userInfo: laid.step.metadata.userInfo.mapValues { "int(\($0))" }, actions: actions)
    }

    /// The state a fresh stack of these settings publishes first: empty and clean.
    var emptyState: State {
        State(
            canUndo: false, canRedo: false, undoCount: 0, redoCount: 0, undoActionName: "", redoActionName: "",
            undoMenuItemTitle: Self.undoTitle(""), redoMenuItemTitle: Self.redoTitle(""), isClean: true,
            groupingLevel: 0, currentNode: tree == nil ? nil : 0, redoNode: nil)
    }

    /// The model becomes a fresh stack of the same settings (shape and limits, registration
    /// enabled), its observers registered again, into which `saved` is restored with
    /// `restoreHistory(_:resolvingTargets:)`, the keys of `unresolved` (targets) resolving to
    /// nothing, those of `released` to an object that nobody keeps, and every other key to its
    /// target. Returns the report.
    func restoreIntoFreshStack(_ saved: ModelSave, unresolved: Set<Int>, released: Set<Int> = []) -> RestoreReportText {
        // The fresh stack: empty, clean, nothing published yet; the observers' first state is the
        // empty one.
        lastEnqueuedState = observers.isEmpty ? nil : emptyState
        lastNotedClean = true
        lastPostedClean = true
        return call {
            disableCount = 0
            pendingClose = false
            eventEndAfterScopes = nil
            return restore(saved, unresolved: unresolved, released: released)
        }
    }

    /// `restoreHistory(_:resolvingTargets:)` on this stack: refused during an operation (a
    /// misuse), and unless the history is empty once freed targets are swept (no step on either
    /// side, no branch, no open group, an empty one included): the misuse `historyNotEmpty`.
    func restoreHistory(_ saved: ModelSave, unresolved: Set<Int>) -> Result<RestoreReportText, SaveFailure> {
        call {
            if let misuse = refusal(.restoreHistory) {
                report(misuse)
                return .failure(.misuse(misuse))
            }
            if activities.isEmpty { sweep() }
            guard undoSide.closed.isEmpty, redoSide.closed.isEmpty, undoSide.frames.isEmpty,
                tree?.branches.isEmpty ?? true
            else {
                report(.historyNotEmpty(.restoreHistory))
                return .failure(.misuse(.historyNotEmpty(.restoreHistory)))
            }
            return .success(restore(saved, unresolved: unresolved))
        }
    }

    /// The restore itself, into the empty model.
    private func restore(_ saved: ModelSave, unresolved: Set<Int>, released: Set<Int> = []) -> RestoreReportText {
        var byNode: [Int: LaidStep] = [:]
        var children: [Int: [Int]] = [:]
        for laid in saved.steps {
            byNode[laid.node] = laid
            children[laid.parent, default: []].append(laid.node)
        }
        for parent in children.keys { children[parent]!.sort() }
        func subtreeSize(_ node: Int) -> Int { 1 + (children[node] ?? []).reduce(0) { $0 + subtreeSize($1) } }
        // Up from the current node: the first step that cannot come back goes, with everything
        // above it; its node is the new root.
        var path: [Int] = []
        var node = saved.current
        while node != saved.root, let laid = byNode[node] {
            path.append(node)
            node = laid.parent
        }
        /// What the restore keeps, when the keys of `missing` have no object: the first action of a
        /// step whose key is missing says why ("no tN": it did not resolve; "not kept tN": its
        /// object was freed when the restore let go of it).
        func decide(missing: Set<Int>) -> (cuts: [RestoreReportText.Cut], newRoot: Int, kept: Set<Int>) {
            func failingKey(_ laid: LaidStep) -> String? {
                laid.step.actions.first { missing.contains($0.target) }.map {
                    (unresolved.contains($0.target) ? "no " : "not kept ") + Self.key(of: $0.target)
                }
            }
            var cuts: [RestoreReportText.Cut] = []
            var newRoot = saved.root
            var kept: Set<Int> = []
            for node in path {
                if let key = failingKey(byNode[node]!) {
                    newRoot = node
                    cuts.append(.init(node: node, reason: key, droppedSteps: saved.steps.count - subtreeSize(node) + 1))
                    break
                }
                kept.insert(node)
            }
            // Down from the kept nodes: a step that cannot come back goes with its subtree. A linear
            // stack keeps the redo choices from the current node; every other branch goes.
            let onPath = Set(path).union([saved.current])
            var choiceChain: Set<Int> = []
            var pending = [newRoot] + Array(kept) + [saved.current]
            var visited: Set<Int> = []
            while let parent = pending.popLast() {
                guard visited.insert(parent).inserted else { continue }
                for child in children[parent] ?? [] where !onPath.contains(child) && !kept.contains(child) {
                    let onChoiceChain =
                        byNode[child]!.isRedoChoice && (parent == saved.current || choiceChain.contains(parent))
                    if tree == nil && !onChoiceChain {
                        cuts.append(.init(node: child, reason: "branch", droppedSteps: subtreeSize(child)))
                    } else if let key = failingKey(byNode[child]!) {
                        cuts.append(.init(node: child, reason: key, droppedSteps: subtreeSize(child)))
                    } else {
                        kept.insert(child)
                        if onChoiceChain { choiceChain.insert(child) }
                        pending.append(child)
                    }
                }
            }
            return (cuts, newRoot, kept)
        }
        // The restore decides with the objects the resolver gave, then lets go of them: when a step
        // it kept names an object that nobody keeps, it decides again with those keys missing too.
        var (cuts, newRoot, kept) = decide(missing: unresolved)
        if kept.contains(where: { node in byNode[node]!.step.actions.contains { released.contains($0.target) } }) {
            (cuts, newRoot, kept) = decide(missing: unresolved.union(released))
        }
        let undoPath = path.filter(kept.contains).reversed()
        cuts.sort { $0.node < $1.node }
        count("history restored")
        if !cuts.isEmpty { count("restore cut") }
        // New document states: a new one for the root and each step that holds an action; a step
        // with none leaves its parent's.
        var stateOf: [Int: Int] = [newRoot: newStateID()]
        var order = [newRoot]
        var position = 0
        while position < order.count {
            let parent = order[position]
            position += 1
            for child in children[parent] ?? [] where kept.contains(child) {
                stateOf[child] = byNode[child]!.step.actions.isEmpty ? stateOf[parent]! : newStateID()
                order.append(child)
            }
        }
        func restored(_ node: Int) -> Step {
            let laid = byNode[node]!
            var actions = laid.step.actions
            for index in actions.indices { actions[index].id = newObjectID() }
            return Step(
                id: newObjectID(), actions: actions, metadata: laid.step.metadata, low: stateOf[laid.parent]!,
                high: stateOf[node]!, node: tree == nil ? 0 : node)
        }
        func choiceChild(of node: Int) -> Int? {
            (children[node] ?? []).first { kept.contains($0) && byNode[$0]!.isRedoChoice }
        }
        var redoChain: [Int] = []
        var at = saved.current
        while let next = choiceChild(of: at) {
            redoChain.append(next)
            at = next
        }
        undoSide = Side(closed: undoPath.map(restored), frames: [])
        redoSide = Side(closed: redoChain.reversed().map(restored), frames: [])
        if let old = tree {
            // The root: the saved root's date; the date of the change that led to the node that
            // became the root (a cut); at the restore when the history holds neither.
            let rootDate = (newRoot == saved.root ? saved.rootDate : byNode[newRoot]?.date) ?? clock
            var rebuilt = TreeModel(root: newRoot, date: rootDate, maximumBranchSteps: old.maximumBranchSteps)
            // Each step's saved date (now, when saved from a linear history).
            for node in kept {
                let date = byNode[node]!.date ?? clock
                rebuilt.dates[node] = date
                rebuilt.lastDate = max(rebuilt.lastDate, date)
            }
            // Numbers go on from the saved next number: a number given to a change that is gone
            // is not given again (a history saved without one goes on after its highest node).
            rebuilt.nextNumber = max(kept.union([newRoot]).max()! + 1, saved.text.nextNode ?? 0)
            tree = rebuilt
            for (anchor, members) in restoredBranchOrder(
                root: newRoot, undoPath: Array(undoPath), redoChain: redoChain, children: children,
                kept: kept, isRedoChoice: { byNode[$0]!.isRedoChoice })
            {
                tree!.branches.append(
                    TreeModel.Branch(anchor: anchor, steps: members.map(restored), leftAt: tree!.nextTick))
                tree!.nextTick += 1
            }
        }
        let cleanKept = !saved.clean.isEmpty && (kept.contains(saved.clean[0]) || saved.clean[0] == newRoot)
        current = stateOf[saved.current]!
        clean = cleanKept ? stateOf[saved.clean[0]]! : newStateID()
        // Coalescing does not continue a restored step.
        candidate = nil
        continuationStepID = nil
        // Then the limits.
        let before = undoSide.closed.count + redoSide.closed.count + (tree?.branchStepCount ?? 0)
        trim()
        let after = undoSide.closed.count + redoSide.closed.count + (tree?.branchStepCount ?? 0)
        return RestoreReportText(
            restoredSteps: kept.count, droppedSteps: cuts.reduce(0) { $0 + $1.droppedSteps }, cuts: cuts,
            restoredCleanState: cleanKept, trimmedSteps: before - after, omitted: saved.text.omitted)
    }

    /// The branches of a restored tree in the order they count as left (least recently first).
    ///
    /// SPEC-QUESTION: the saved history does not say which branch was left least recently; the
    /// library builds the branches from the anchors of the current path and of the redo side,
    /// the deepest redo node first and the root last, each anchor's children in number order, each
    /// new branch's nodes taken as anchors next (the last first), and counts them as left in that
    /// order. The model takes that order.
    func restoredBranchOrder(
        root: Int, undoPath: [Int], redoChain: [Int], children: [Int: [Int]], kept: Set<Int>,
        isRedoChoice: (Int) -> Bool
    ) -> [(anchor: Int, members: [Int])] {
        var placed = Set(undoPath).union(redoChain)
        // The path from the current node up (the current node first), then the redo side down.
        var anchors = [root] + undoPath.reversed() + redoChain
        var visited: Set<Int> = []
        var result: [(anchor: Int, members: [Int])] = []
        while let anchor = anchors.popLast() {
            guard visited.insert(anchor).inserted else { continue }
            for child in children[anchor] ?? [] where kept.contains(child) && !placed.contains(child) {
                var members = [child]
                var tip = child
                while let next = (children[tip] ?? []).first(where: { kept.contains($0) && isRedoChoice($0) }) {
                    members.append(next)
                    tip = next
                }
                placed.formUnion(members)
                result.append((anchor, members))
                anchors += members
            }
        }
        return result
    }
}
