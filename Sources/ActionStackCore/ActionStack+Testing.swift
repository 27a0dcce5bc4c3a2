// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// Test hooks. Underscored `package` members: visible to this package's tests, not public API.
// None of them changes the stack, posts a notification, or drops a freed step.

extension ActionStack {
    /// When true, every outermost public call ends with ``_checkInvariants()``.
    package var _checksInvariantsAfterEveryMutation: Bool {
        get { checksInvariants }
        set { checksInvariants = newValue }
    }

    /// Stops the process with a description if an internal invariant does not hold.
    package func _checkInvariants() {
        let violations = _invariantViolations()
        precondition(violations.isEmpty, "ActionStack invariants broken: \(violations)")
    }

    /// The internal invariants that do not hold (empty when the stack is consistent). Meaningful
    /// between calls (not from a handler or an observer of an operation in progress).
    package func _invariantViolations() -> [String] {
        var problems: [String] = []
        var boxCounts: [ObjectIdentifier: Int] = [:]
        let branchSides = (history.tree?.allBranches ?? []).map { ("branch at \($0.anchor)", $0.side) }
        for (name, side) in [("undo", undoSide), ("redo", redoSide)] + branchSides {
            if side.inFlight != 0 { problems.append("\(name): \(side.inFlight) actions in flight") }
            var held = 0
            var cost = CostTotal()
            for position in 0..<side.steps.count {
                let step = side.steps[position]
                if step.count < 0 { problems.append("\(name): negative step count") }
                if step.count == 0 && step.low != step.high { problems.append("\(name): empty step moves the state") }
                if let metadata = step.metadata, metadata.isEmpty { problems.append("\(name): empty metadata kept") }
                held += step.actionCount
            }
            let openStart = side.base + held
            if let first = side.frames.first, first.start != openStart {
                problems.append("\(name): frame 0 starts at \(first.start), closed steps end at \(openStart)")
            }
            for index in side.frames.indices.dropFirst()
            where side.frames[index].start < side.frames[index - 1].start || side.frames[index].start > side.end {
                problems.append("\(name): frame \(index) out of order")
            }
            if side.frames.isEmpty && side.frameMetadata != nil { problems.append("\(name): metadata of no frame") }
            if side.frames.isEmpty && !side.nested.isEmpty { problems.append("\(name): nested groups of no frame") }
            var previousEnd = openStart
            for group in side.nested {
                if group.parent < 0 || group.parent >= side.frames.count {
                    problems.append("\(name): nested group's parent \(group.parent) is not open")
                    continue
                }
                if group.start < side.frames[group.parent].start || group.end > side.end || group.start > group.end
                    || group.start < previousEnd
                {
                    problems.append("\(name): nested group out of range or order")
                }
                if group.parent + 1 < side.frames.count && group.end > side.frames[group.parent + 1].start {
                    problems.append("\(name): nested group overlaps an open frame")
                }
                if group.start == group.end && group.low != group.high {
                    problems.append("\(name): empty nested group moves the state")
                }
                previousEnd = group.end
            }
            if held + side.openCount != side.actions.count {
                problems.append(
                    "\(name): \(side.actions.count) actions held, steps and frames account for \(held + side.openCount)"
                )
            }
            if side.hasCosts && side.costs.count != side.actions.count {
                problems.append("\(name): \(side.costs.count) costs for \(side.actions.count) actions")
            }
            for offset in 0..<side.actions.count {
                let action = side.actions[offset]
                boxCounts[ObjectIdentifier(action.box), default: 0] += 1
                cost.add(side.cost(at: side.base + offset))
            }
            if cost != side.totalCost {
                problems.append("\(name): total cost \(side.totalCost.description), actions sum to \(cost.description)")
            }
        }
        if let run = steps.inFlight {
            // The step an asynchronous operation builds, and the action its rollback is running.
            for side in [run.built, run.bin] {
                for offset in 0..<side.actions.count {
                    boxCounts[ObjectIdentifier(side.actions[offset].box), default: 0] += 1
                }
            }
            if let held = run.rollbackAction { boxCounts[ObjectIdentifier(held.box), default: 0] += 1 }
        }
        if steps.performing == nil && !redoSide.frames.isEmpty { problems.append("redo stack has an open group") }
        if levelsOfUndo > 0 && undoSide.closedCount > levelsOfUndo && !history.needsTrim && !scopes.isRunning {
            problems.append("undo stack holds \(undoSide.closedCount) steps, limit \(levelsOfUndo)")
        }
        // Cost is trimmed when a group closes: with a group open, its cost may exceed the limit.
        if maximumCost > 0 && undoSide.totalCost.exceeds(maximumCost) && undoSide.closedCount > 1 && !history.needsTrim
            && !scopes.isRunning && undoSide.frames.isEmpty
        {
            problems.append("undo stack costs \(undoSide.totalCost.description), limit \(maximumCost)")
        }
        problems += registration.invariantViolations()
        problems += steps.invariantViolations()
        // Each concern checks its own state.
        problems += history.states.invariantViolations()
        problems += eventClose.invariantViolations()
        problems += activities.invariantViolations()
        problems += publisher.invariantViolations()
        problems += history.treeInvariantViolations()
        let newestActions: [Action]?
        if !undoSide.frames.isEmpty {
            newestActions = (undoSide.openStart..<undoSide.end).map { undoSide.action(at: $0) }
        } else if let step = undoSide.steps.last {
            let start = undoSide.newestStepStart
            newestActions = (start..<start + step.actionCount).map { undoSide.action(at: $0) }
        } else {
            newestActions = nil
        }
        problems += history.coalescer.invariantViolations(
            newestStepActions: newestActions, newestIsOpen: !undoSide.frames.isEmpty)
        for box in history.registry.list {
            let counted = boxCounts[ObjectIdentifier(box)] ?? 0
            if box.actionCount != counted {
                problems.append("target box counts \(box.actionCount) actions, the stacks hold \(counted)")
            }
        }
        if history.registry.list.count != boxCounts.count {
            problems.append(
                "registry lists \(history.registry.list.count) boxes, actions use \(boxCounts.count)")
        }
        return problems
    }

    /// A one-line picture of the stacks (see the reference model's documentation): closed steps as
    /// `[a x]`, open groups as `<...>`, actions as `a` (live target) or `x` (freed), metadata after a
    /// colon. Performs weak loads; changes nothing.
    package var _structure: String {
        func metadataText(_ metadata: StepMetadata?) -> String {
            guard let metadata, !metadata.isEmpty else { return "" }
            var text = ":" + metadata.name + (metadata.isDiscardable ? "!" : "")
            if !metadata.userInfo.isEmpty {
                text += "{" + metadata.userInfo.keys.map(\.rawValue).sorted().joined(separator: ",") + "}"
            }
            return text
        }
        func actionsText(_ side: Side, _ range: Range<Int>) -> [String] {
            range.map { side.action(at: $0).box.isAlive ? "a" : "x" }
        }
        func frameText(_ side: Side, _ index: Int) -> String {
            var items: [String] = []
            var position = side.frames[index].start
            let end = index + 1 < side.frames.count ? side.frames[index + 1].start : side.end
            for group in side.nested where group.parent == index {
                items += actionsText(side, position..<group.start)
                items.append("[" + actionsText(side, group.start..<group.end).joined(separator: " ") + "]")
                position = group.end
            }
            items += actionsText(side, position..<end)
            if index + 1 < side.frames.count { items.append(frameText(side, index + 1)) }
            return "<" + items.joined(separator: " ") + ">" + (index == 0 ? metadataText(side.frameMetadata) : "")
        }
        func sideText(_ side: Side) -> String {
            var parts: [String] = []
            var start = side.base
            for position in 0..<side.steps.count {
                let step = side.steps[position]
                parts.append(
                    "[" + actionsText(side, start..<start + step.actionCount).joined(separator: " ") + "]"
                        + metadataText(step.metadata)
                )
                start += step.actionCount
            }
            if !side.frames.isEmpty { parts.append(frameText(side, 0)) }
            return parts.joined(separator: " ")
        }
        return "undo(\(sideText(undoSide))) redo(\(sideText(redoSide)))"
    }

    /// The equality pattern of the document-state ids: current, clean, then each step's states
    /// before/after (undo side oldest first, its open frames and their nested groups, then the redo
    /// side), each id renamed to the index of its first appearance.
    package var _stateShape: String {
        var names: [StateID: Int] = [:]
        func name(_ id: StateID) -> String {
            if let known = names[id] { return String(known) }
            names[id] = names.count
            return String(names.count - 1)
        }
        func sideSections(_ side: Side) -> [String] {
            var steps: [String] = []
            for position in 0..<side.steps.count {
                let step = side.steps[position]
                steps.append(name(step.low))
                steps.append(name(step.high))
            }
            var frames: [String] = []
            for index in side.frames.indices {
                frames.append(name(side.frames[index].low))
                for group in side.nested where group.parent == index {
                    frames.append(name(group.low))
                    frames.append(name(group.high))
                }
            }
            return [steps.joined(separator: " "), frames.joined(separator: " ")]
        }
        let head = name(history.states.current) + " " + name(history.states.clean)
        return ([head] + sideSections(undoSide) + sideSections(redoSide)).joined(separator: " | ")
    }

    /// Whether `operation` is allowed while the stack is doing `activity` (the re-entrancy table).
    package static func _allows(_ operation: OperationKey, during activity: ActivityKey) -> Bool {
        Activities.allows(operation, during: activity)
    }

    /// `groupingLevel`, `isUndoing`, `isRedoing`, `isUndoRegistrationEnabled`, read without making
    /// a call (a call ends with publishing, which may drop freed steps).
    package var _flags: (groupingLevel: Int, isUndoing: Bool, isRedoing: Bool, isUndoRegistrationEnabled: Bool) {
        (currentSide.frames.count, steps.performing == .undo, steps.performing == .redo, registration.isEnabled)
    }

    /// The activities in progress, outermost first.
    package var _activities: [ActivityKey] { activities.stack }

    /// The number of state observers (observe tokens, state streams, models, groups) registered.
    package var _observerCount: Int { publisher.observers.count }

    /// The number of distinct targets the stack tracks.
    package var _trackedTargetCount: Int { history.registry.count }

    /// The blocks queued on run loops for the automatic close so far.
    package var _runLoopClosesQueued: Int { eventClose.runLoopClosesQueued }

    /// The remote changes the newest step of the undo stack (or the redo stack) holds, not yet
    /// rebased over, as the stack keeps them (merged where they merge); empty when there is none.
    package func _unseenRemoteChanges(ofNewestStepOnUndoStack undo: Bool = true) -> [any Sendable] {
        let side = undo ? undoSide : redoSide
        guard !side.steps.isEmpty else { return [] }
        return side.steps[side.steps.count - 1].metadata?.unseenChanges ?? []
    }

    /// When true, the passes that go through every branch of a branching history (a save's
    /// rebase, a removal's compaction, the node table's resync) go through them in the reverse of
    /// their order (anchor order): what they do must not depend on it.
    package var _goesThroughBranchesInReverseOrder: Bool {
        get { history.treeSettings.reversesBranchPasses }
        set { history.treeSettings.reversesBranchPasses = newValue }
    }

    /// How many times the state ids were renumbered.
    package var _stateRenumberings: Int { history.states.renumberings }

    /// The counter value at which state ids are renumbered (default 2^31); tests lower it so that
    /// renumbering happens after every few calls.
    package var _stateRenumberingThreshold: UInt32 {
        get { history.states.baseThreshold }
        set { history.states.baseThreshold = newValue }
    }
}
