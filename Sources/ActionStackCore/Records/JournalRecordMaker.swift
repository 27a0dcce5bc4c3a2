// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

// Making a recorder's journal records for one watched stack (issue 29): a snapshot of the chains the
// stack holds, or a delta made from the stack's change log (`StackChangeLog`, see
// `HistoryChanges.swift`) that costs what changed, as values (`RecordedHistory.swift`). The archive
// module writes them (`JournalRecordFormat.swift`, which describes the format) and replays them
// (`JournalReplay.swift`).

/// Makes the records of one stack's history, and keeps what the last record said of it.
package final class JournalRecordMaker {
    /// The stack (held weakly: a freed stack is no longer recorded).
    package private(set) weak var stack: ActionStack?
    /// The history's changes and this recorder's log of them.
    private let changes: HistoryChanges
    let log: StackChangeLog
    /// The most steps a recovery saves: never negative, since a save reads a negative limit as 0
    /// and a record's reader refuses one (every record would be unreadable).
    package let maximumSteps: Int
    /// The recorder's number for each branch side held, with the side (held, so that an identifier
    /// is never reused while it names a branch).
    private var branchIDs: [ObjectIdentifier: (side: Side, id: Int)] = [:]
    private var nextBranchID = 0
    /// What the last record said of the states.
    private var lastCurrent: StateID?
    private var lastClean: StateID?
    private var lastRemote: String??
    private var lastRoot: NodeNumber?
    /// The next node number the last record left the journal with.
    private var lastNextNode: NodeNumber?
    /// The commands of the steps the records since the last snapshot held (and of those it held),
    /// as they were encoded, by the step's serial, with the number of actions encoded. A snapshot
    /// takes them for the steps that have not changed since the last record (the log says which
    /// may have), so that it encodes only what changed: the rest is copied. Rebuilt at each
    /// snapshot, so that it holds about what one snapshot does.
    private var encodedCommands: [UInt32: (count: Int, bytes: Data)] = [:]
    /// How many steps a snapshot took encoded from an earlier record (a test reads it).
    package private(set) var reusedEncodings = 0

    package init(stack: ActionStack, maximumSteps: Int) {
        self.stack = stack
        self.maximumSteps = Swift.max(0, maximumSteps)
        changes = stack.history.startTrackingChanges()
        log = StackChangeLog {}
        changes.add(log)
    }

    /// Stops tracking the stack's changes for this recorder (and altogether when no other recorder
    /// watches it).
    package func stop() {
        changes.remove(log)
        if let stack, stack.history.changes === changes, !changes.hasLogs { stack.history.stopTrackingChanges() }
    }

    /// Whether the history may have changed since the last record.
    ///
    /// - Complexity: O(1).
    package var mayHaveChanged: Bool {
        guard let stack else { return false }
        return log.hasChanges || changes.mayBeDue(stack.history.states)
    }

    /// Whether the stack holds a whole history to record: no group open, no asynchronous operation
    /// in progress or waiting, no broken step (``ActionStack/savedHistory(maximumSteps:)`` would
    /// not refuse).
    package var isReady: Bool {
        guard let stack else { return false }
        return !stack.steps.holdsHistory && stack.undoSide.frames.isEmpty
    }

    /// Gathers the history's changes into the log, after sweeping freed targets and rebasing the
    /// steps on remote changes as a save does (both are changes the log sees).
    package func gather() {
        guard let stack else { return }
        stack.enterCall()
        stack.history.sweepFreedTargets()
        stack.history.rebaseEverything()
        stack.leaveCall()
        let history = stack.history
        history.trackEverySide()
        changes.drain(undoSide: history.undoSide, redoSide: history.redoSide, states: history.states)
    }

    /// Whether only a snapshot can describe what the log holds.
    package var needsSnapshot: Bool { log.needsSnapshot || lastCurrent == nil }

    /// The snapshot of the history as the stack holds it. The steps that have not changed since
    /// the last record bring their commands encoded as that record's encoding left them.
    ///
    /// - Complexity: O(n) for the n actions held (only the commands of the steps changed since the
    ///   last record are encoded; the others' encodings are copied).
    package func snapshot() -> JournalHistoryRecord? {
        guard let stack else { return nil }
        let history = stack.history
        // Below which position each side's steps are those of the last record (nothing is reused
        // when the log cannot tell: a restore, a failed record, the first record).
        let reuses = !needsSnapshot
        func unchanged(_ side: Side) -> Int {
            guard reuses else { return 0 }
            if side === history.undoSide { return log.undo.low }
            if side === history.redoSide { return log.redo.low }
            guard let entry = log.branches[ObjectIdentifier(side)] else { return .max }
            return entry.side === side ? entry.changes.low : 0
        }
        branchIDs.removeAll()
        var record = JournalHistoryRecord()
        record.shape = history.tree == nil ? .linear : .tree
        record.maximumSteps = maximumSteps == .max ? nil : maximumSteps
        record.current = history.states.current
        record.clean = history.states.clean
        record.setsRemoteVersion = true
        record.remoteVersion = history.remote?.version
        if let tree = history.tree {
            record.root = tree.root
            record.rootDate = tree.table.record(tree.root)?.date
            record.nextNode = tree.nextNumber
        }
        record.operations.append(
            .chain(.undo, drop: 0, keep: 0, grow: false, push: history.undoSide.steps.count))
        steps(of: history.undoSide, from: 0, into: &record.steps, reusingBelow: unchanged(history.undoSide))
        record.operations.append(
            .chain(.redo, drop: 0, keep: 0, grow: false, push: history.redoSide.steps.count))
        steps(of: history.redoSide, from: 0, into: &record.steps, reusingBelow: unchanged(history.redoSide))
        if let tree = history.tree {
            for branch in tree.allBranches {
                let id = number(branch.side)
                record.operations.append(.newBranch(id, anchor: branch.anchor))
                record.operations.append(
                    .chain(.branch(id), drop: 0, keep: 0, grow: false, push: branch.side.steps.count))
                steps(of: branch.side, from: 0, into: &record.steps, reusingBelow: unchanged(branch.side))
            }
        }
        return record
    }

    /// What changed since the last record, from the log; nil when only a snapshot describes it.
    ///
    /// - Complexity: O(c + b) for the c actions changed and b branch changes.
    package func delta() -> JournalHistoryRecord? {
        guard let stack, !needsSnapshot else { return nil }
        let history = stack.history
        var record = JournalHistoryRecord()
        if history.states.current != lastCurrent { record.current = history.states.current }
        if history.states.clean != lastClean { record.clean = history.states.clean }
        let remote = history.remote?.version
        if lastRemote == nil || lastRemote! != remote {
            record.setsRemoteVersion = true
            record.remoteVersion = remote
        }
        if let tree = history.tree {
            if tree.root != lastRoot { return nil }
            // A number given to a node that is gone already is not given again after a recovery.
            if tree.nextNumber != lastNextNode { record.nextNode = tree.nextNumber }
        }
        for change in log.branchChanges {
            switch change {
            case .redoBecameBranch(let branch, let anchor):
                record.operations.append(.fork(number(branch.side), anchor: anchor))
            case .enteredBranch(let branch, let anchor, let kept):
                guard let id = branchIDs[ObjectIdentifier(branch.side)]?.id else { return nil }
                record.operations.append(.enter(id, anchor: anchor, kept: kept))
                if !kept { branchIDs[ObjectIdentifier(branch.side)] = nil }
            case .removed(let branch):
                guard let id = branchIDs.removeValue(forKey: ObjectIdentifier(branch.side))?.id else { return nil }
                record.operations.append(.dropBranch(id))
            case .reanchored(let branch, let anchor):
                guard let id = branchIDs[ObjectIdentifier(branch.side)]?.id else { return nil }
                record.operations.append(.reanchor(id, anchor: anchor))
            }
        }
        chainOperation(.undo, history.undoSide, log.undo, into: &record)
        chainOperation(.redo, history.redoSide, log.redo, into: &record)
        for (key, entry) in log.branches {
            guard let id = branchIDs[key]?.id, branchIDs[key]?.side === entry.side else {
                // A branch the last record did not hold, or one gone since: the branch changes
                // said so already when it is gone.
                if branchIDs[key] == nil { continue }
                return nil
            }
            chainOperation(.branch(id), entry.side, entry.changes, into: &record)
        }
        return record
    }

    /// The record was appended: what it said is now what the journal holds, and its steps'
    /// encoded commands are kept (a snapshot's replace those kept).
    package func recorded(_ record: JournalHistoryRecord, isSnapshot: Bool) {
        if isSnapshot { encodedCommands.removeAll(keepingCapacity: true) }
        for step in record.steps {
            guard let encoded = step.encodedCommands, !step.isPartial, !step.holdsClosure else {
                // A step that grew was sent in part: its whole encoding is not known.
                encodedCommands[step.serial] = nil
                continue
            }
            encodedCommands[step.serial] = (step.actions.count, encoded)
        }
        recorded()
    }

    /// The record was appended (one that changed nothing of the steps).
    package func recorded() {
        guard let stack else { return }
        let history = stack.history
        lastCurrent = history.states.current
        lastClean = history.states.clean
        lastRemote = .some(history.remote?.version)
        lastRoot = history.tree?.root
        lastNextNode = history.tree?.nextNumber
        log.reset()
    }

    /// The record could not be appended: the next one is a snapshot.
    package func failed() {
        lastCurrent = nil
        encodedCommands.removeAll()
        log.reset()
    }

    // MARK: Steps

    private func number(_ side: Side) -> Int {
        let key = ObjectIdentifier(side)
        if let known = branchIDs[key], known.side === side { return known.id }
        let id = nextBranchID
        nextBranchID += 1
        branchIDs[key] = (side, id)
        return id
    }

    /// The operation that brings the chain of `side` from what the last record held to what it
    /// holds, with its steps.
    private func chainOperation(
        _ id: JournalChainID, _ side: Side, _ changes: SideChanges, into record: inout JournalHistoryRecord
    ) {
        guard !changes.isEmpty else { return }
        let count = side.steps.count
        let low = Swift.min(changes.low, count)
        if changes.grown > 0 && changes.low < count {
            record.operations.append(
                .chain(id, drop: changes.dropped, keep: low + 1, grow: true, push: count - low - 1))
            steps(of: side, from: low, into: &record.steps, grownBy: changes.grown)
        } else {
            record.operations.append(.chain(id, drop: changes.dropped, keep: low, grow: false, push: count - low))
            steps(of: side, from: low, into: &record.steps)
        }
    }

    /// Appends the steps of `side` from `position` on, oldest first; with `grownBy`, the first of
    /// them holds only its last `grownBy` actions. A step below `reusingBelow` (one the last record
    /// held as it is) brings the encoding of its commands kept from then, if there is one for all
    /// its actions.
    ///
    /// - Complexity: O(s + a) for the s steps above `position` and the a actions written.
    private func steps(
        of side: Side, from position: Int, into steps: inout [JournalStep], grownBy grown: Int = 0,
        reusingBelow reusable: Int = 0
    ) {
        guard let stack, position < side.steps.count else { return }
        var starts = [Int](repeating: 0, count: side.steps.count - position)
        var end = side.openStart
        for index in stride(from: side.steps.count - 1, through: position, by: -1) {
            end -= side.steps[index].actionCount
            starts[index - position] = end
        }
        let history = stack.history
        let capture = CommandCapture()
        for index in position..<side.steps.count {
            let step = side.steps[index]
            var start = starts[index - position]
            let stop = start + step.actionCount
            if index == position && grown > 0 { start = stop - Swift.min(grown, step.actionCount) }
            var actions = SavedActionList()
            var holdsClosure = false
            for at in start..<stop {
                let action = side.action(at: at)
                guard !action.box.isMarkedDead, action.box.isAlive else { continue }
                guard let key = action.box.commandKey else {
                    holdsClosure = true
                    continue
                }
                action.handler(capture)
                guard let command = capture.command.take() else {
                    holdsClosure = true
                    continue
                }
                let commandType = type(of: command)
                actions.append(
                    SavedAction(
                        command: command, commandType: commandType.commandType, version: commandType.version,
                        key: key, cost: side.cost(at: at)))
            }
            if holdsClosure { actions = SavedActionList() }
            var info: [String: SavedValue] = [:]
            if let userInfo = step.metadata?.userInfo {
                for (key, value) in userInfo {
                    if let saved = SavedValue(value) { info[key.rawValue] = saved }
                }
            }
            var encoded: Data?
            if index < reusable, !holdsClosure, let kept = encodedCommands[step.serial], kept.count == actions.count {
                encoded = kept.bytes
                reusedEncodings += 1
            }
            steps.append(
                JournalStep(
                    low: step.low, high: step.high, node: history.tree == nil ? 0 : step.node,
                    date: history.tree?.table.record(step.node)?.date, name: step.name,
                    isDiscardable: step.isDiscardable, userInfo: info, holdsClosure: holdsClosure, actions: actions,
                    serial: step.serial, isPartial: index == position && grown > 0, encodedCommands: encoded))
        }
    }
}

@available(*, unavailable) extension JournalRecordMaker: Sendable {}
