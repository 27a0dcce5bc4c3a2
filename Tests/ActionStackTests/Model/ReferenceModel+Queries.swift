// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The reference model's queries (sections 4, 11, 13, 14). Queries have effects: the Top rule and
// the Sweep of section 11 remove dead things at idle, and `canRedo` posts a checkpoint.

extension ReferenceModel {

    /// What the queries describe of a side: its next step (section 4).
    enum NextStep {
        case frame0(Frame)
        case step(Step)

        var metadata: Metadata {
            switch self {
            case .frame0(let frame): frame.metadata
            case .step(let step): step.metadata
            }
        }
    }

    /// The undo side's next step, after the Top rule (section 4, 11).
    func nextUndoStep() -> NextStep? {
        topDrop(.undo)
        if let frame0 = undoSide.frames.first {
            // Foundation mode: frame 0 whenever a group is open.
            // Drop mode: frame 0 only if it holds a live action ("titles and names never come from
            // a group that will be dropped"); otherwise the newest closed step, skipping dead ones
            // without removing them (an open frame is above them).
            if !dropsEmptyGroups || frame0HoldsLiveAction(undoSide) { return .frame0(frame0) }
        }
        return undoSide.closed.last(where: { !isDeadStep($0) }).map(NextStep.step)
    }

    /// The redo side's next step: the newest closed step, after the Top rule. (During an activity
    /// the Top rule removes nothing: dead steps are skipped.)
    func nextRedoStep() -> Step? {
        topDrop(.redo)
        return redoSide.closed.last(where: { !isDeadStep($0) })
    }

    static func undoTitle(_ name: String) -> String { name.isEmpty ? "Undo" : "Undo \(name)" }
    static func redoTitle(_ name: String) -> String { name.isEmpty ? "Redo" : "Redo \(name)" }

    var canUndo: Bool { query { nextUndoStep() != nil } }

    /// Reading `canRedo` first posts C (no activity of its own).
    var canRedo: Bool {
        query {
            post(.checkpoint)
            return nextRedoStep() != nil
        }
    }

    var undoActionName: String { query { nextUndoStep()?.metadata.name ?? "" } }
    var redoActionName: String { query { nextRedoStep()?.metadata.name ?? "" } }
    var undoMenuItemTitle: String { query { Self.undoTitle(nextUndoStep()?.metadata.name ?? "") } }
    var redoMenuItemTitle: String { query { Self.redoTitle(nextRedoStep()?.metadata.name ?? "") } }
    var undoActionIsDiscardable: Bool { query { nextUndoStep()?.metadata.discardable ?? false } }
    var redoActionIsDiscardable: Bool { query { nextRedoStep()?.metadata.discardable ?? false } }

    func undoActionUserInfoValue(forKey key: String) -> Int? {
        query { nextUndoStep()?.metadata.userInfo[key] }
    }

    func redoActionUserInfoValue(forKey key: String) -> Int? {
        query { nextRedoStep()?.metadata.userInfo[key] }
    }

    /// Closed live-or-empty steps, after the sweep.
    var undoCount: Int { query { afterSweep { undoSide.closed.count } } }
    var redoCount: Int { query { afterSweep { redoSide.closed.count } } }

    var isClean: Bool { query { current == clean } }
    var groupingLevel: Int { query { groupingLevelNow } }
    var isUndoingNow: Bool { query { isUndoing } }
    var isRedoingNow: Bool { query { isRedoing } }

    /// Whether frame 0 is listed as the undo side's next step (without the Top rule: it does not
    /// depend on the closed steps).
    var frame0IsListed: Bool {
        guard !undoSide.frames.isEmpty else { return false }
        return !dropsEmptyGroups || frame0HoldsLiveAction(undoSide)
    }

    /// `undoEntries.count` on the model as it is (callers sweep first).
    var undoEntryCount: Int { (frame0IsListed ? 1 : 0) + undoSide.closed.count }

    /// The entries of the undo side as they are (callers sweep first), newest first (section 13).
    /// States: `s = (s == step.high) ? step.low : new`, from `current`; nil is a new id.
    func undoEntriesNow() -> (entries: [Entry], stateAtStart: Int?) {
        var entries: [Entry] = []
        var state: Int? = current
        if frame0IsListed {
            let frame0 = undoSide.frames[0]
            entries.append(
                Entry(
                    actionName: frame0.metadata.name, title: Self.undoTitle(frame0.metadata.name),
                    actionCount: Self.openActions(undoSide).count, isDiscardable: frame0.metadata.discardable,
                    userInfo: frame0.metadata.userInfo, isClean: state == clean, isOpen: true))
            // Frame 0 has state `current` and `low` as its far end.
            state = frame0.low
        }
        for step in undoSide.closed.reversed() {
            entries.append(
                Entry(
                    actionName: step.metadata.name, title: Self.undoTitle(step.metadata.name),
                    actionCount: step.actions.count, isDiscardable: step.metadata.discardable,
                    userInfo: step.metadata.userInfo, isClean: state == clean, isOpen: false,
                    node: tree == nil ? nil : step.node, canBeSaved: canBeSaved(step)))
            state = (state == step.high) ? step.low : nil
        }
        return (entries, state)
    }

    /// The entries of the redo side as they are, next first: each is clean when the state after
    /// redoing it is (`s = (s == step.low) ? step.high : new`).
    func redoEntriesNow() -> [Entry] {
        var entries: [Entry] = []
        var state: Int? = current
        for step in redoSide.closed.reversed() {
            state = (state == step.low) ? step.high : nil
            entries.append(
                Entry(
                    actionName: step.metadata.name, title: Self.redoTitle(step.metadata.name),
                    actionCount: step.actions.count, isDiscardable: step.metadata.discardable,
                    userInfo: step.metadata.userInfo, isClean: state == clean, isOpen: false,
                    node: tree == nil ? nil : step.node, canBeSaved: canBeSaved(step)))
        }
        return entries
    }

    var undoEntries: [Entry] { query { afterSweep { undoEntriesNow().entries } } }
    var redoEntries: [Entry] { query { afterSweep { redoEntriesNow() } } }
    var historyPosition: Int { query { afterSweep { undoEntryCount } } }

    /// Whether the state after undoing every undo step (frame 0 included when listed) is clean.
    var isCleanAtStart: Bool { query { afterSweep { undoEntriesNow().stateAtStart == clean } } }

    /// `state`: the Top rule on both sides (at idle); counts are held steps (no sweep).
    var state: State { query { stateSnapshot() } }

    func stateSnapshot() -> State {
        let undoNext = nextUndoStep()
        let redoNext = nextRedoStep()
        let undoName = undoNext?.metadata.name ?? ""
        let redoName = redoNext?.metadata.name ?? ""
        return State(
            canUndo: undoNext != nil, canRedo: redoNext != nil,
            undoCount: undoSide.closed.count, redoCount: redoSide.closed.count,
            undoActionName: undoName, redoActionName: redoName,
            undoMenuItemTitle: Self.undoTitle(undoName), redoMenuItemTitle: Self.redoTitle(redoName),
            isClean: current == clean, groupingLevel: groupingLevelNow,
            // Section 19: read after the Top rule (redo: the raw top during an activity).
            currentNode: tree == nil ? nil : currentNode,
            // The node redo() would enter: none while the redo future that another task's change
            // ended leaves from another node (see `redoBranchesQuery`).
            redoNode: tree == nil || redoAnchor != currentNode ? nil : redoSide.closed.last?.node)
    }

    // MARK: - Observation (section 14)

    /// `observe(_:)`: returns the token.
    ///
    /// SPEC-QUESTION: the spec does not say what a new observer hears first. The model: `observe`
    /// delivers nothing at once; when no state observer existed, the last enqueued/delivered state
    /// becomes the state now, so the new observer hears the next state that differs from it.
    func observe(_ body: @escaping (State) -> Void) -> Int {
        call {
            if observers.isEmpty { lastEnqueuedState = stateSnapshot() }
            let token = nextToken
            nextToken += 1
            observers.append((token, body))
            return token
        }
    }

    /// `ObservationToken.cancel()`: a call on the token, not on the stack, so it publishes
    /// nothing (section 14 makes the stack's own entry points calls). A change the stack has not
    /// published yet (a target freed since the last call) is published by its next call.
    func cancelObservation(_ token: Int) {
        observers.removeAll { $0.token == token }
    }
}
