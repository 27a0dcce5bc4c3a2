// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// Applies a change made elsewhere (a peer, another device, a server) to the model, as a
    /// change that is not this user's: undo never reverts it, and this user's steps move past it.
    ///
    /// `apply` makes the change to the model. While it runs, registration is disabled (what the
    /// model registers is not recorded, and no group opens); then the stack hears of `change`:
    ///
    /// - The redo stack is kept, and so are the branches of a branching history: a peer's change is
    ///   not this user's new change.
    /// - Coalescing ends: the next registration starts a step of its own.
    /// - Every stored step moves past the change, on both stacks and in every branch: its
    ///   ``RebasableCommand``s are rewritten (lazily, see below); closures and other commands are
    ///   left as they are, which is right for targets addressed by identity.
    /// - The document is in a state this user never saved: ``isClean`` is `false` until the next
    ///   ``markClean()``, and undoing back to the saved step does not make it clean again (the
    ///   peer's change is still there).
    ///
    /// ```swift
    /// import ActionStack
    ///
    /// final class Note {
    ///     var text = ""
    /// }
    ///
    /// let note = Note()
    /// let stack = ActionStack()
    /// // A peer's edit arrives from the network, with the server's revision.
    /// let edit = TextEdit.insert("Hi", at: 0)
    /// stack.applyRemoteChange(edit, version: "r42") {
    ///     try? edit.apply(to: &note.text)
    /// }
    /// print(note.text, stack.canUndo, stack.remoteVersion ?? "")   // Hi false r42
    /// ```
    ///
    /// **What undo does then.** One press of Undo undoes the next step that still does something:
    /// a step whose rebasable commands all have nothing left to do (the peer deleted what it would
    /// restore, or wrote the same field since) is dropped when the stack finds it, and the press
    /// goes on to the step below. ``canUndo``, ``canRedo``, the action names and the menu titles
    /// describe that next live step, and observers hear when a step dies. ``undoCount``,
    /// ``redoCount`` and the history entries count the steps not yet found dead: a step is found
    /// dead when it is performed, saved, or looked at as the next step.
    ///
    /// **Cost.** Reporting is O(1) amortized: the change is handed to the newest step of each
    /// stack (and, in a branching history, to the newest step of each branch that leaves from the
    /// current node, O(b) for b such branches), and a step is rewritten only when it is performed,
    /// saved, or looked at as the next step, over the changes it has not seen: an undo after r
    /// remote changes costs O(r) for its own step. Open groups on the undo stack (a group the app
    /// opened, the event's automatic group) are rewritten at once, O(k) for their k actions.
    ///
    /// Call it where the stack is used (the main actor for an app's stacks). While an asynchronous
    /// operation awaits, a change from another task is applied too: the operation's remaining
    /// actions and what it built so far are rewritten at once, and the rest of the history lazily.
    /// From a handler or an observer of an operation in progress, and from inside another
    /// `apply`, it is the misuse ``Misuse/reentrantCall(_:during:)``: `apply` does not run and the
    /// call returns `false` (apply the change when the call in progress has ended). Inside `apply`,
    /// ``removeAllActions(withTarget:)`` is allowed, for a peer that deleted an object.
    ///
    /// If `apply` throws, the stack treats the change as not applied: nothing moves, and the error
    /// is passed on.
    ///
    /// - Parameters:
    ///   - change: The change, as the app describes it; ``RebasableCommand`` types whose
    ///     ``RebasableCommand/Change`` is this type are rewritten past it.
    ///   - version: The app's version of the document after this change (a server revision, a
    ///     vector clock), saved with the history (``SavedHistory/remoteVersion``); `nil` keeps the
    ///     last one given.
    ///   - apply: Makes the change to the model.
    /// - Returns: Whether the change was applied (`false`: refused as a misuse).
    /// - Complexity: O(1) amortized, plus `apply`; see above.
    @discardableResult
    public func applyRemoteChange<Change: Sendable>(
        _ change: Change, version: String? = nil, _ apply: () throws -> Void
    ) rethrows -> Bool {
        enterCall()
        defer { leaveCall() }
        if refusesReentrantCall(.applyRemoteChange) { return false }
        // What the model registers while the change applies is not recorded; a handler's
        // `enableUndoRegistration()` cannot take the disable away.
        disableCount += 1
        protectedDisableCount += 1
        activities.push(.applyingRemoteChange)
        do {
            try apply()
        } catch {
            activities.pop()
            disableCount -= 1
            protectedDisableCount -= 1
            throw error
        }
        activities.pop()
        disableCount -= 1
        protectedDisableCount -= 1

        let remote = remoteChanges
        remote.count &+= 1
        if let version { remote.version = version }
        coalescer.clear()
        // The document is in a state this user never saved.
        _ = states.change()
        if let run = operations?.run {
            deliverDuringOperation(change, run)
        } else {
            deliverAtCurrentNode(change)
        }
        return true
    }

    /// The number of remote changes reported to this stack (``applyRemoteChange(_:version:_:)``).
    ///
    /// - Complexity: O(1).
    public var remoteChangeCount: Int { Int(clamping: remote?.count ?? 0) }

    /// The app's version of the last remote change reported with one; `nil` when none was.
    /// ``savedHistory(maximumSteps:)`` saves it (``SavedHistory/remoteVersion``), and
    /// ``restoreHistory(_:resolvingTargets:)`` restores it.
    ///
    /// - Complexity: O(1).
    public var remoteVersion: String? { remote?.version }

    // MARK: Internals

    /// The remote-changes concern, made on first use.
    var remoteChanges: RemoteChanges {
        if let remote { return remote }
        let made = RemoteChanges()
        remote = made
        return made
    }

    /// A change reported while no operation is in flight: the open groups of the undo stack are
    /// rewritten now, and the change (as it reads below them) is handed to every step that applies
    /// at the current node.
    private func deliverAtCurrentNode(_ change: any Sendable) {
        var changes: [any Sendable] = [change]
        if !undoSide.frames.isEmpty { changes = rebaseOpenRegion(of: undoSide, over: changes) }
        deliverToStepsAtCurrentNode(changes)
    }

    /// Hands `changes`, which read at the current node, to the newest undo step, the newest redo
    /// step and the newest step of each branch that leaves from the current node.
    func deliverToStepsAtCurrentNode(_ changes: [any Sendable]) {
        guard !changes.isEmpty else { return }
        deliver(changes, toNewestStepOf: undoSide)
        deliver(changes, toNewestStepOf: redoSide)
        if let tree {
            for branch in tree.branches(at: currentNodeNumber) { deliver(changes, toNewestStepOf: branch.side) }
        }
    }

    private func deliver(_ changes: [any Sendable], toNewestStepOf side: Side) {
        guard !side.steps.isEmpty else { return }
        StepMetadata.deliver(changes, to: &side.steps[side.steps.count - 1].metadata)
    }

    /// Hands `changes`, which read at the far node of the step at `position` of `side` (the node
    /// an undo step leaves from, the node a redo or branch step leads to), to every other step
    /// that applies there: the next older step of the side, and the newest step of each branch that
    /// leaves from that node.
    func deliver(_ changes: [any Sendable], pastStepAt position: Int, of side: Side) {
        guard !changes.isEmpty else { return }
        if position > 0 { StepMetadata.deliver(changes, to: &side.steps[position - 1].metadata) }
        guard let tree else { return }
        let farNode: NodeNumber
        if side === undoSide {
            farNode = position > 0 ? side.steps[position - 1].node : tree.root
        } else {
            farNode = side.steps[position].node
        }
        for branch in tree.branches(at: farNode) where branch.side !== side {
            deliver(changes, toNewestStepOf: branch.side)
        }
    }

    /// A compaction drops `step` from `side`: the changes it had not seen go, unchanged, to the
    /// steps beyond it: the kept step at `below - 1` (already in its new place) and the newest step
    /// of each branch that leaves from the dropped step's far node.
    func passUnseenChanges(of step: Step, droppedFrom side: Side, below: Int) {
        guard let changes = step.metadata?.unseenChanges, !changes.isEmpty else { return }
        if below > 0 { StepMetadata.deliver(changes, to: &side.steps[below - 1].metadata) }
        guard let tree else { return }
        let farNode: NodeNumber
        if side === undoSide {
            farNode = below > 0 ? side.steps[below - 1].node : tree.root
        } else {
            farNode = step.node
        }
        for branch in tree.branches(at: farNode) where branch.side !== side {
            deliver(changes, toNewestStepOf: branch.side)
        }
    }

    /// Rebases the newest closed steps of `side` over what they have not seen, dropping those found
    /// dead, until the newest is live (or none is left). Only at idle, with no frame open on
    /// `side` and no asynchronous operation in flight.
    ///
    /// - Complexity: O(a · r) for the a actions of the steps rebased and the r changes they had not
    ///   seen.
    func rebaseNewestSteps(of side: Side) {
        // While an asynchronous operation is in flight its step stays on its side, and what it
        // has not seen is kept for a rollback: nothing is rebased until it settles.
        guard side.frames.isEmpty, side.inFlight == 0, operations?.run == nil else { return }
        while let step = side.steps.last, step.metadata?.unseenChanges.isEmpty == false {
            let position = side.steps.count - 1
            let start = side.openStart - step.actionCount
            let dead = rebaseStep(at: position, start: start, of: side)
            guard !dead.isEmpty else { return }
            if removeDeadActions(dead, fromNewestStepOf: side, start: start) { return }
        }
    }

    /// Rebases the step at `position` of `side` (its actions start at `start`) over the changes it
    /// has not seen, hands the changes, as they read past it, to the steps beyond it, and returns the
    /// absolute indices of its actions that have nothing left to do.
    private func rebaseStep(at position: Int, start: Int, of side: Side) -> [Int] {
        let unseen = StepMetadata.takeUnseen(from: &side.steps[position].metadata)
        let end = start + side.steps[position].actionCount
        let (carried, dead) = rebaseActions(of: side, from: start, to: end, over: unseen)
        deliver(carried, pastStepAt: position, of: side)
        return dead
    }

    /// Rebases the actions from `start` to `end` of `side` (one step, or open groups), which run
    /// newest first, over `changes`: each rebasable command is rewritten in place, and the changes
    /// are carried past it. Returns the changes as they read once every action has run, and the
    /// absolute indices of the commands left with nothing to do (still stored).
    func rebaseActions(
        of side: Side, from start: Int, to end: Int, over changes: [any Sendable]
    ) -> (carried: [any Sendable], dead: [Int]) {
        var carried = changes
        var dead: [Int] = []
        var index = end - 1
        while index >= start && !carried.isEmpty {
            let action = side.action(at: index)
            if action.box.commandKey != nil, let command = capturedCommand(of: action) as? any RebasableCommand {
                let rebase = CommandRebase(command, over: carried)
                carried = rebase.carried
                if let rewritten = rebase.command {
                    if rebase.changed, let handler = storedHandler(for: rewritten) {
                        side.replaceHandler(at: index, with: handler)
                    }
                } else {
                    dead.append(index)
                }
            }
            index -= 1
        }
        return (carried, dead)
    }

    /// The command an action hands over when asked (nil for a closure action).
    private func capturedCommand(of action: Action) -> (any SavableCommand)? {
        let capture = CommandCapture()
        action.handler(capture)
        return capture.command
    }

    /// The stored handler of a command action holding `command`, as a registration makes it.
    private func storedHandler(for command: any SavableCommand) -> ((AnyObject) -> Void)? {
        if let command = command as? any UndoCommand { return commandHandler(command) }
        if let command = command as? any AsyncUndoCommand { return asyncCommandHandler(command) }
        return nil
    }

    /// Removes the actions at the absolute indices `dead` from the newest closed step of `side`,
    /// whose actions start at `start`. A step left with none is dead: it goes, and with it its node
    /// in a branching history. Returns whether the step lives on.
    private func removeDeadActions(_ dead: [Int], fromNewestStepOf side: Side, start: Int) -> Bool {
        let deadSet = Set(dead)
        var kept: [(action: Action, cost: Int)] = []
        while side.end > start {
            let index = side.end - 1
            let cost = side.cost(at: index)
            let action = side.removeLastAction()
            if deadSet.contains(index) { releaseAction(action) } else { kept.append((action, cost)) }
        }
        for entry in kept.reversed() { side.append(entry.action, cost: entry.cost) }
        let position = side.steps.count - 1
        if kept.isEmpty {
            let step = side.steps.removeLast()
            if side === undoSide { coalescer.clear() }
            if tree != nil { nodeVanished(step.node) }
            return false
        }
        side.steps[position].count = Int32(kept.count)
        // The step no longer leads back to where it began.
        if side === undoSide {
            side.steps[position].low = states.fresh()
        } else {
            side.steps[position].high = states.fresh()
        }
        return true
    }

    /// Rewrites the open groups of `side` over `changes` at once (new registrations join them, and
    /// they have no step to hold changes); returns the changes as they read below them. Commands
    /// left with nothing to do are removed, as a removal by target removes actions.
    ///
    /// - Complexity: O(k · r) for the k open actions and r changes; O(n) for the n actions of the
    ///   side when a command dies.
    private func rebaseOpenRegion(of side: Side, over changes: [any Sendable]) -> [any Sendable] {
        let (carried, dead) = rebaseActions(of: side, from: side.openStart, to: side.end, over: changes)
        if !dead.isEmpty {
            let deadSet = Set(dead)
            var index = side.base
            compact(side) { _ in
                defer { index += 1 }
                return deadSet.contains(index)
            }
        }
        return carried
    }

    /// Rebases every step of the history over what it has not seen (for a save): each side from its
    /// newest step down, so that each step has heard everything before it is rebased. Steps found
    /// dead are removed.
    ///
    /// - Complexity: O(a · r) for the a actions held and the r changes they had not seen, plus
    ///   O(n) for the n actions of a side where a command died.
    func rebaseEverything() {
        guard remote != nil else { return }
        var sides = [undoSide, redoSide]
        if let tree { sides += tree.allBranches.map(\.side) }
        // A branch hears of changes from the sides it leaves from: go round until nothing is left
        // unseen (each pass moves every change at least one step outward).
        var again = true
        while again {
            again = false
            for side in sides where side.frames.isEmpty {
                var dead: Set<Int> = []
                var end = side.openStart
                for position in stride(from: side.steps.count - 1, through: 0, by: -1) {
                    let count = side.steps[position].actionCount
                    let start = end - count
                    if side.steps[position].metadata?.unseenChanges.isEmpty == false {
                        dead.formUnion(rebaseStep(at: position, start: start, of: side))
                        again = true
                    }
                    end = start
                }
                if !dead.isEmpty {
                    var index = side.base
                    compact(side) { _ in
                        defer { index += 1 }
                        return dead.contains(index)
                    }
                }
            }
            if again && tree != nil {
                resyncTree()
                sides = [undoSide, redoSide] + (tree?.allBranches.map(\.side) ?? [])
            }
        }
    }

    /// A change reported while an asynchronous operation is in flight. The operation's actions not
    /// yet run, and what it built so far (or, in a rollback, what is left to roll back), are
    /// rewritten at once. The change as it reads before the operation (past what it built) is
    /// handed to the steps at the current node, the step in flight among them; as it reads once the
    /// operation's remaining actions have run, it waits in the operation for the step below, which
    /// it reaches if the operation succeeds.
    ///
    /// Changes made meanwhile by other tasks (new steps on top) are not rewritten into the
    /// operation: the change reaches those steps as it reads now.
    private func deliverDuringOperation(_ change: any Sendable, _ run: RunningOperation) {
        if run.sawNewChange {
            deliverToStepsAtCurrentNode([change])
            return
        }
        if run.phase == .running && run.direction != nil {
            run.carriedBelow.append(contentsOf: run.rebaseRemaining(over: [change], stack: self))
        }
        let built = run.built
        var beforeOperation: [any Sendable] = [change]
        if built.end > built.base {
            let (carried, dead) = rebaseActions(of: built, from: built.base, to: built.end, over: beforeOperation)
            beforeOperation = carried
            if !dead.isEmpty {
                let deadSet = Set(dead)
                var index = built.base
                run.forgetBuiltActions { _ in
                    defer { index += 1 }
                    return deadSet.contains(index)
                }
                index = built.base
                compact(built) { _ in
                    defer { index += 1 }
                    return deadSet.contains(index)
                }
            }
        }
        deliverToStepsAtCurrentNode(beforeOperation)
    }

    /// The operation succeeded: the changes reported meanwhile, as they read once its actions all
    /// ran, go to the steps beyond the step it performed (at `position` of `source`, which it is
    /// about to leave).
    func deliverCarriedBelow(of run: RunningOperation, source: Side, position: Int) {
        guard !run.carriedBelow.isEmpty, !run.sawNewChange else { return }
        deliver(run.carriedBelow, pastStepAt: position, of: source)
    }
}

extension RunningOperation {
    /// Rewrites the step's actions that have not run yet over `changes` (which read now, before the
    /// next of them runs); returns the changes as they read once they have all run.
    func rebaseRemaining(over changes: [any Sendable], stack: ActionStack) -> [any Sendable] {
        var carried = changes
        var index = nextPendingIndex
        while index >= 0 && !carried.isEmpty {
            let entry = pending[index]
            if let rebased = stack.rebasedPendingAction(entry.action, over: carried) {
                carried = rebased.carried
                if let action = rebased.action {
                    pending[index] = PendingAction(action: action, box: entry.box)
                } else {
                    deadPending.insert(index)
                }
            }
            index -= 1
        }
        return carried
    }
}

extension ActionStack {
    /// One action of a step in flight, rebased over `changes`: nil when it is not a rebasable
    /// command; otherwise the action (nil when nothing is left for it to do) and the changes as they
    /// read past it.
    func rebasedPendingAction(
        _ action: Action, over changes: [any Sendable]
    ) -> (action: Action?, carried: [any Sendable])? {
        guard action.box.commandKey != nil, let command = capturedCommand(of: action) as? any RebasableCommand else {
            return nil
        }
        let rebase = CommandRebase(command, over: changes)
        guard let rewritten = rebase.command else { return (nil, rebase.carried) }
        guard rebase.changed, let handler = storedHandler(for: rewritten) else { return (action, rebase.carried) }
        return (Action(box: action.unmanagedBox, handler: handler), rebase.carried)
    }
}
