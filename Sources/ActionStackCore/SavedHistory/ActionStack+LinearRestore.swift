// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// Restoring a history that is one line of steps numbered one after another (every history a linear
// stack saves) into a linear stack: the rules of `restoreHistory(_:resolvingTargets:)`, on the
// steps' array by position, with no map of nodes. Any other history, or a branching stack, takes the
// general path (`RestorePlan`).

extension ActionStack {
    /// What restoring a line of steps will do, decided before anything changes: the steps kept
    /// are `saved.steps[low..<high]`.
    struct LinearRestorePlan {
        let saved: SavedHistory
        /// The position of the first step above the current node: the steps before it are the undo
        /// side, the others the redo side.
        let split: Int
        var low = 0
        var high: Int
        var cuts: [RestoreReport.Cut] = []
        var dropped = 0
        /// The objects the resolver gave, by key (see ``ResolvedTargets``).
        var targets = ResolvedTargets()
        private var cache = RestoreCache()

        /// The plan for `saved`, or nil when its steps are not one line numbered one after another
        /// from its root, each its parent's redo choice. `saved` has been validated.
        init?(_ saved: SavedHistory) {
            var previous = saved.root
            for index in saved.steps.indices {
                let node = saved.steps[index].node
                guard saved.steps[index].parent == previous, node == previous &+ 1, saved.steps[index].isRedoChoice
                else { return nil }
                previous = node
            }
            self.saved = saved
            split = saved.current - saved.root
            high = saved.steps.count
        }

        /// Resolves the keys and checks the steps outward from the current node on each side,
        /// cutting each side at its first step that cannot come back. Called again after
        /// ``ResolvedTargets/letGo()`` released an object, it decides again from the objects
        /// still alive, with `resolve` asked for no key it asked before.
        mutating func check(resolve: (String) -> AnyObject?) {
            low = 0
            high = saved.steps.count
            cuts = []
            dropped = 0
            // Each step lent where it lies, through a pointer: the array's subscript copies it.
            let steps = saved.steps
            steps.withUnsafeBufferPointer { buffer in
                guard let steps = buffer.baseAddress else { return }
                var position = split - 1
                while position >= 0 {
                    if let reason = problem(of: steps + position, resolve: resolve) {
                        cuts.append(
                            RestoreReport.Cut(node: steps[position].node, reason: reason, droppedSteps: position + 1))
                        dropped += position + 1
                        low = position + 1
                        break
                    }
                    position -= 1
                }
                position = split
                while position < buffer.count {
                    if let reason = problem(of: steps + position, resolve: resolve) {
                        let count = buffer.count - position
                        cuts.append(
                            RestoreReport.Cut(node: steps[position].node, reason: reason, droppedSteps: count))
                        dropped += count
                        high = position
                        break
                    }
                    position += 1
                }
            }
        }

        /// Whether a kept step has an action on one of `keys`.
        ///
        /// - Complexity: O(a) for the a actions of the kept steps.
        func keepsAStepNaming(_ keys: Set<String>) -> Bool {
            for position in low..<high {
                let actions = saved.steps[position].actionList
                for index in 0..<actions.count where keys.contains(actions.key(at: index)) { return true }
            }
            return false
        }

        /// Why the step at `step` cannot come back, or nil. It is read where it lies (a step passed
        /// by value out of an array is a copy: a retain and a release of each of its strings and
        /// arrays).
        private mutating func problem(
            of step: UnsafePointer<SavedStep>, resolve: (String) -> AnyObject?
        ) -> RestoreReport.Reason? {
            for index in 0..<step.pointee.actionList.count {
                guard
                    let command =
                        (index == 0
                            ? step.pointee.actionList.first.command
                            : step.pointee.actionList.rest[index - 1].command)
                else {
                    let action = step.pointee.actionList[index]
                    return .command(action.problem ?? .unknownType(action.commandType))
                }
                let key = (index == 0 ? step.pointee.actionList.first.key : step.pointee.actionList.rest[index - 1].key)
                guard let object = targets.unretainedObject(for: key, resolve: resolve) else {
                    return targets.reasonForMissing(key)
                }
                guard let kind = cache.kind(of: command),
                    kind._withUnsafeGuaranteedRef({ kind in object._withUnsafeGuaranteedRef { kind.fits($0) } })
                else {
                    return .wrongTargetType(key: key, commandType: step.pointee.actionList[index].commandType)
                }
            }
            return nil
        }
    }

    /// Builds the stacks from a linear plan (the stack is empty and linear).
    ///
    /// - Complexity: O(s + a) for the s steps and a actions kept.
    func applyLinear(_ plan: LinearRestorePlan) -> RestoreReport {
        let saved = plan.saved
        // The document state of each node from the new root down: a new one, or its parent's when
        // its step holds no action (a do-nothing step).
        var stateOf: [StateID] = []
        stateOf.reserveCapacity(plan.high - plan.low + 1)
        stateOf.append(history.freshState())
        for position in plan.low..<plan.high {
            stateOf.append(
                saved.steps[position].actionList.count == 0 ? stateOf[stateOf.count - 1] : history.freshState())
        }
        // The state of node `root + position + 1` is stateOf[position + 1 - low].
        let newRoot = saved.root + plan.low
        func state(_ node: Int) -> StateID { stateOf[node - newRoot] }
        // The plan resolved every key of a kept step to an object.
        var cache = RestoreCache(objects: plan.targets.objects.compactMapValues { $0 })
        // Each step lent where it lies, through a pointer: the array's subscript copies it (a
        // retain and a release of each of its strings and arrays).
        saved.steps.withUnsafeBufferPointer { buffer in
            guard let steps = buffer.baseAddress else { return }
            for position in plan.low..<plan.split {
                appendRestoredStep(
                    at: steps + position, to: undoSide, low: state(steps[position].parent),
                    high: state(steps[position].node),
                    node: 0, cache: &cache)
            }
            // The redo side holds the step to redo next last.
            for position in stride(from: plan.high - 1, through: plan.split, by: -1) {
                appendRestoredStep(
                    at: steps + position, to: redoSide, low: state(steps[position].parent),
                    high: state(steps[position].node),
                    node: 0, cache: &cache)
            }
        }
        let lastKept = newRoot + (plan.high - plan.low)
        let cleanKept = saved.clean.map { $0 >= newRoot && $0 <= lastKept } ?? false
        history.finishRestore(current: state(saved.current), clean: cleanKept ? state(saved.clean!) : nil)
        restoreRemoteVersion(saved.remoteVersion)
        let before = undoSide.closedCount + redoSide.closedCount
        history.trimToLimits(limits)
        let after = undoSide.closedCount + redoSide.closedCount
        return RestoreReport(
            restoredSteps: plan.high - plan.low, droppedSteps: plan.dropped, cuts: plan.cuts,
            restoredCleanState: cleanKept, trimmedSteps: before - after, omittedWhenSaved: saved.omissions)
    }
}
