// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// What changed in a history since a recorder last recorded it (issue 29): kept only while a
// `HistoryRecorder` watches the stack, so that a stack nobody records pays one `nil` check where its
// history changes (`History.changes`, `Side.collector`).
//
// Three places hold it, each the owner of what it describes:
// - each side marks what changed in its own closed steps (`Side.changes`, a `SideChanges`): the
//   lowest position from which its steps differ, the steps taken from its bottom, and the actions a
//   coalescing registration appended to a step. Every change to a side's steps goes through the
//   side's methods, which mark it; the marks travel with the side's contents when a branch and the
//   redo stack swap them.
// - the history marks what no side sees (`HistoryChanges`): the branches made, entered, dropped and
//   moved, in order, and the changes that only a whole snapshot describes (a restore, a change of
//   shape, a new clock behind the dates held, the history emptied). The document's current and
//   clean states, the root and the remote version are compared when a record is made.
// - each recorder that watches the stack gathers them in its own log (`StackChangeLog`) at the end
//   of every call that changed something, so that two recorders of one stack each see every change
//   since their own last record.

/// What changed in one side's closed steps since its changes were last taken (see
/// ``HistoryChanges``), in the side's positions as they are now (0 the oldest step).
///
/// Every change is one of three: the steps from a position on changed (a step added on top, taken
/// off, rewritten); the oldest step was taken away (a trim, a pruned branch leaf); or a coalescing
/// registration appended an action to the newest step. The first two say where the side differs
/// from what it was; the third lets a record carry the appended actions alone.
struct SideChanges: Equatable {
    /// The lowest position from which the steps may differ from those when the changes were last
    /// taken (after the `dropped` oldest ones went); `Int.max` when none differs.
    var low = Int.max
    /// The steps taken from the bottom since, before the positions `low` counts.
    var dropped = 0
    /// When more than 0, the step at `low` kept every action it had and gained this many at its end
    /// (a coalescing registration); its other fields may have changed. When 0, the step at `low` is
    /// sent whole.
    var grown = 0

    /// Whether nothing changed.
    var isEmpty: Bool { low == .max && dropped == 0 }

    /// The steps from `position` on changed.
    @inline(__always)
    mutating func changed(at position: Int) {
        if position < low {
            low = position
            grown = 0
        } else if position == low {
            grown = 0
        }
    }

    /// The fields of the step at `position` changed (its states, node or metadata), not its actions.
    @inline(__always)
    mutating func fieldsChanged(at position: Int) {
        if position < low {
            low = position
            grown = 0
        }
    }

    /// A coalescing registration appended an action to the step at `position`, the newest.
    @inline(__always)
    mutating func grew(at position: Int) {
        if position < low {
            low = position
            grown = 1
        } else if position == low && grown > 0 {
            grown += 1
        }
    }

    /// The oldest step was taken away.
    @inline(__always)
    mutating func droppedOldest() {
        dropped += 1
        guard low != .max else { return }
        if low == 0 { grown = 0 } else { low -= 1 }
    }

    /// These changes, then `later` ones (taken after these).
    ///
    /// - Complexity: O(1).
    func followed(by later: SideChanges) -> SideChanges {
        var result = SideChanges()
        result.dropped = dropped + later.dropped
        // Where these changes start, in the positions after the later drops.
        var low = self.low
        var grown = self.grown
        if low != .max {
            if low < later.dropped {
                low = 0
                grown = 0
            } else {
                low -= later.dropped
            }
        }
        if later.low < low {
            result.low = later.low
            result.grown = later.grown
        } else if later.low == low {
            result.low = low
            result.grown = grown > 0 && later.grown > 0 ? grown + later.grown : 0
        } else {
            result.low = low
            result.grown = grown
        }
        return result
    }
}

/// A change to the branches of a tree that no side sees: what a record must replay, in order,
/// before the sides' own changes (see ``HistoryChanges``).
enum BranchChange {
    /// The redo stack became `branch`, leaving from `anchor`; the redo stack is empty.
    case redoBecameBranch(Branch, anchor: NodeNumber)
    /// The redo stack and `branch` swapped their steps; `branch` then leaves from `anchor`, or is
    /// dropped when it holds nothing (`kept` false).
    case enteredBranch(Branch, anchor: NodeNumber, kept: Bool)
    /// `branch` is no longer held.
    case removed(Branch)
    /// `branch` now leaves from `anchor`.
    case reanchored(Branch, anchor: NodeNumber)
}

/// What changed in a history that its sides do not mark, while one or more recorders watch it
/// (``History/changes``), and the logs of those recorders.
///
/// The history notes the sides that marked a change (``touch(_:)``), the branch changes in order,
/// and whether only a snapshot can describe what happened. At the end of each call that changed
/// something, the stack hands it all to every log (``drain(undoSide:redoSide:states:)``) and tells
/// the recorders.
final class HistoryChanges {
    /// The sides whose ``Side/changes`` are not empty, each once.
    private(set) var touched: [Side] = []
    /// The branch changes since the last drain, in order.
    private(set) var branchChanges: [BranchChange] = []
    /// Whether something changed that only a whole snapshot describes.
    private(set) var needsSnapshot = false
    /// Whether something changed since the last drain (the document's states are compared apart).
    private(set) var isDue = false {
        didSet { if isDue && !oldValue { onDue?() } }
    }
    /// Called when something is noted after a drain (``History/onChangeDue``): the stack then
    /// looks at the end of the call, which it skips while nothing is due.
    var onDue: (() -> Void)?
    /// The document's current and clean states at the last drain.
    private(set) var seenCurrent: StateID
    private(set) var seenClean: StateID
    /// The logs of the recorders that watch, held weakly: a recorder that goes takes its log.
    private var logs: [WeakLog] = []
    /// How many logs hold changes not yet recorded (kept by the logs: ``StackChangeLog/hasChanges``),
    /// so that the stack asks its recorders at a call's end only when one of them has work.
    var logsWithChanges: Int { pending.count }
    private let pending = PendingLogCount()

    init(states: DocumentStates) {
        seenCurrent = states.current
        seenClean = states.clean
    }

    /// Whether a log still listens.
    var hasLogs: Bool {
        logs.removeAll { $0.value == nil }
        return !logs.isEmpty
    }

    /// The logs that listen.
    var liveLogs: [StackChangeLog] { logs.compactMap(\.value) }

    func add(_ log: StackChangeLog) {
        logs.removeAll { $0.value == nil || $0.value === log }
        logs.append(WeakLog(value: log))
        log.count(in: pending)
    }

    func remove(_ log: StackChangeLog) {
        logs.removeAll { $0.value == nil || $0.value === log }
        log.count(in: nil)
    }

    /// `side` marked a change.
    ///
    /// - Complexity: O(1) amortized.
    func touch(_ side: Side) {
        isDue = true
        guard !side.isTouched else { return }
        side.isTouched = true
        touched.append(side)
    }

    /// A branch changed.
    func note(_ change: BranchChange) {
        isDue = true
        branchChanges.append(change)
    }

    /// Something changed that only a snapshot describes.
    func noteSnapshot() {
        isDue = true
        needsSnapshot = true
    }

    /// Something changed that a record compares by itself (the clean mark, the remote version).
    func noteChange() { isDue = true }

    /// Whether a record may be due: something was noted, or the document's states moved.
    @inline(__always)
    func mayBeDue(_ states: DocumentStates) -> Bool {
        isDue || states.current != seenCurrent || states.clean != seenClean
    }

    /// Hands everything noted since the last drain to every log, and starts over.
    ///
    /// - Complexity: O(t + b) for the t sides touched and b branch changes, times the logs.
    func drain(undoSide: Side, redoSide: Side, states: DocumentStates) {
        let live = liveLogs
        logs.removeAll { $0.value == nil }
        let changes = branchChanges
        branchChanges.removeAll()
        for log in live { log.replay(changes, redoSide: redoSide) }
        for side in touched {
            side.isTouched = false
            let taken = side.takeChanges()
            guard !taken.isEmpty else { continue }
            for log in live { log.merge(taken, of: side, undoSide: undoSide, redoSide: redoSide) }
        }
        touched.removeAll()
        let statesMoved = states.current != seenCurrent || states.clean != seenClean
        for log in live {
            if needsSnapshot { log.needsSnapshot = true }
            if isDue || statesMoved { log.hasChanges = true }
        }
        needsSnapshot = false
        isDue = false
        seenCurrent = states.current
        seenClean = states.clean
    }

    private struct WeakLog {
        weak var value: StackChangeLog?
    }
}

@available(*, unavailable) extension HistoryChanges: Sendable {}

/// One recorder's view of one stack's changes since its last record: the sides' changes, merged
/// drain after drain, and the branch changes in order (see ``HistoryChanges``).
final class StackChangeLog {
    /// The changes of the undo and redo stacks.
    var undo = SideChanges()
    var redo = SideChanges()
    /// The changes of branch sides, by side (held, so that an identifier is never reused meanwhile).
    var branches: [ObjectIdentifier: (side: Side, changes: SideChanges)] = [:]
    /// The branch changes since the last record, in order.
    var branchChanges: [BranchChange] = []
    /// Whether only a snapshot can describe what changed.
    var needsSnapshot = false
    /// Whether anything changed since the last record.
    var hasChanges = false {
        didSet {
            if hasChanges != oldValue { pending?.count += hasChanges ? 1 : -1 }
        }
    }
    /// The count of logs with changes that this log is counted in (its history's tracker's).
    private var pending: PendingLogCount?

    /// Counts this log in `count` (nil: in none) from now on.
    func count(in count: PendingLogCount?) {
        if hasChanges { pending?.count -= 1 }
        pending = count
        if hasChanges { pending?.count += 1 }
    }

    deinit {
        if hasChanges { pending?.count -= 1 }
    }
    /// Called at the end of a call that changed the history (the recorder decides what to do).
    let onChange: () -> Void

    init(onChange: @escaping () -> Void) { self.onChange = onChange }

    /// Replays branch changes on the changes gathered so far: they travel with the steps, as the
    /// sides' own changes did.
    func replay(_ changes: [BranchChange], redoSide: Side) {
        for change in changes {
            switch change {
            case .redoBecameBranch(let branch, _):
                branches[ObjectIdentifier(branch.side)] = (branch.side, redo)
                redo = SideChanges()
            case .enteredBranch(let branch, _, let kept):
                let key = ObjectIdentifier(branch.side)
                let entered = branches[key]?.changes ?? SideChanges()
                branches[key] = kept ? (branch.side, redo) : nil
                redo = entered
            case .removed(let branch):
                branches[ObjectIdentifier(branch.side)] = nil
            case .reanchored:
                break
            }
            branchChanges.append(change)
        }
    }

    /// Adds the changes taken from `side` after those gathered so far.
    func merge(_ taken: SideChanges, of side: Side, undoSide: Side, redoSide: Side) {
        hasChanges = true
        if side === undoSide {
            undo = undo.followed(by: taken)
        } else if side === redoSide {
            redo = redo.followed(by: taken)
        } else {
            let key = ObjectIdentifier(side)
            branches[key] = (side, (branches[key]?.changes ?? SideChanges()).followed(by: taken))
        }
    }

    /// Forgets everything gathered (a record was made).
    func reset() {
        undo = SideChanges()
        redo = SideChanges()
        branches.removeAll()
        branchChanges.removeAll()
        needsSnapshot = false
        hasChanges = false
    }
}

@available(*, unavailable) extension StackChangeLog: Sendable {}

/// The number of logs of one history's tracker that hold changes not yet recorded.
final class PendingLogCount {
    var count = 0
}

@available(*, unavailable) extension PendingLogCount: Sendable {}

extension History {
    // MARK: Change tracking

    /// Starts keeping what changes (a recorder watches): every side marks its changes from now on.
    ///
    /// - Complexity: O(b) for the b branches.
    func startTrackingChanges() -> HistoryChanges {
        if let changes { return changes }
        let made = HistoryChanges(states: states)
        made.onDue = onChangeDue
        changes = made
        for side in trackedSides { side.startTracking(made) }
        return made
    }

    /// Stops keeping what changes (no recorder watches any more).
    ///
    /// - Complexity: O(b) for the b branches.
    func stopTrackingChanges() {
        guard changes != nil else { return }
        for side in trackedSides { side.stopTracking() }
        changes = nil
    }

    /// Makes every side mark its changes again (after a snapshot: a restore builds new branches).
    ///
    /// - Complexity: O(b) for the b branches.
    func trackEverySide() {
        guard let changes else { return }
        for side in trackedSides where side.collector !== changes { side.startTracking(changes) }
    }

    /// The sides of the history: the undo and redo stacks and every branch's.
    private var trackedSides: [Side] {
        [undoSide, redoSide] + (tree?.allBranches.map(\.side) ?? [])
    }

    /// A branch changed (see ``BranchChange``).
    @inline(__always)
    func noteBranchChange(_ change: @autoclosure () -> BranchChange) {
        if tracksChanges, let changes { changes.note(change()) }
    }

    /// Something changed that only a snapshot of the history describes.
    @inline(__always)
    func noteChangeNeedingSnapshot() {
        if tracksChanges, let changes { changes.noteSnapshot() }
    }
}
