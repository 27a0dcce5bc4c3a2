// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension ActionStack {
    /// A snapshot of what a user interface shows of a stack.
    ///
    /// The counts are of the steps as the stack holds them: a step whose targets were all freed is
    /// counted until the stack drops it (when it reaches the top of its stack, or when
    /// ``ActionStack/undoCount``, ``ActionStack/redoCount`` or the history entries check every
    /// target). Everything else is exact.
    public struct State: Hashable, Sendable {
        /// Whether there is something to undo.
        public var canUndo: Bool
        /// Whether there is something to redo.
        public var canRedo: Bool
        /// The number of closed steps held on the undo stack.
        public var undoCount: Int
        /// The number of closed steps held on the redo stack.
        public var redoCount: Int
        /// The name of the step to undo, `""` when none.
        public var undoActionName: String
        /// The name of the step to redo, `""` when none.
        public var redoActionName: String
        /// The Undo title, as ``ActionStack/undoMenuItemTitle``.
        public var undoMenuItemTitle: String
        /// The Redo title, as ``ActionStack/redoMenuItemTitle``.
        public var redoMenuItemTitle: String
        /// Whether the stack is at its clean point.
        public var isClean: Bool
        /// The number of open groups.
        public var groupingLevel: Int
        /// Whether an asynchronous operation holds the turn (``ActionStack/isBusy``).
        public var isBusy: Bool = false
        /// The number of requests waiting behind it (``ActionStack/pendingRequestCount``).
        public var pendingRequestCount: Int = 0
        /// In a branching history, the node the document is in (``ActionStack/currentNode``); nil in
        /// a linear one.
        public var currentNode: HistoryNode.ID? = nil
        /// In a branching history, the node ``ActionStack/redo()`` would enter (the branch
        /// ``ActionStack/selectRedoBranch(_:)`` chose); nil at a leaf and in a linear history, and
        /// while an awaited operation runs after another task's change ended the redo future and it
        /// leaves from another node (the one the document was at then; see
        /// ``ActionStack/redoBranches``).
        public var redoNode: HistoryNode.ID? = nil
        /// Whether an awaited operation is undoing a step right now, from its will-notification to
        /// its did- or fail-notification (the step is the undo entry marked
        /// ``ActionStack/HistoryEntry/isInFlight``). An Edit menu may show "Undoing…".
        public var isUndoInFlight = false
        /// Whether an awaited operation is redoing a step right now.
        public var isRedoInFlight = false
        /// Whether the stack holds a broken step (``ActionStack/brokenStep``; the entry marked
        /// ``ActionStack/HistoryEntry/isBroken``): undo, redo and jumps wait until the app retries
        /// or discards it.
        public var hasBrokenStep = false
    }

    /// The stack's state now. Unlike reading ``canRedo``, taking a snapshot posts no notification.
    ///
    /// - Complexity: O(1) amortized.
    public var state: State {
        enterCall()
        defer { leaveCall() }
        return snapshot()
    }

    /// Calls `body` with the new ``state`` after each call on the stack that changes it: once per
    /// call (a whole undo, a jump of several steps), never in the middle of one, never when nothing
    /// changed. An awaited undo, redo or jump is heard when its first step starts and when it has
    /// ended, never step by step (and, when it waits for its turn, when it is made). Keep the
    /// returned token; the observation ends when it is cancelled or freed.
    ///
    /// ```swift
    /// let token = stack.observe { state in
    ///     undoButton.title = state.undoMenuItemTitle
    ///     undoButton.isEnabled = state.canUndo
    /// }
    /// ```
    ///
    /// `body` runs synchronously on the thread that changed the stack, after the outermost call has
    /// finished, and may call anything on the stack (an autosave observer may call ``markClean()``).
    /// What such a call changes is told to every observer after the state being delivered:
    /// observers hear the states in the order the calls made them. An observer added during a
    /// delivery does not get that delivery; a cancelled one gets nothing more.
    ///
    /// - Parameter body: Called with each new state.
    /// - Returns: The token that keeps the observation alive.
    /// - Complexity: O(1) amortized; each change then costs one ``state`` snapshot (O(1)
    ///   amortized) and one call per observer.
    public func observe(_ body: @escaping (State) -> Void) -> ObservationToken {
        enterCall()
        defer { leaveCall() }
        startObserving()
        publisher.mayHaveStateObservers = true
        let id = publisher.observers.add(body)
        return ObservationToken(list: publisher.observers, id: id)
    }

    /// The stack's states as an asynchronous sequence: the current state first, then the state
    /// after each call that changes it.
    ///
    /// ```swift
    /// let updates = stack.stateUpdates()
    /// Task { @MainActor in
    ///     for await state in updates {
    ///         undoButton.title = state.undoMenuItemTitle
    ///         undoButton.isEnabled = state.canUndo
    ///     }
    /// }
    /// ```
    ///
    /// The first state is the state between calls: asked for from a handler or an observer (in the
    /// middle of a call), the sequence starts once that call has ended, with the state it leaves.
    /// A state is never given twice in a row. The sequence ends when the stack is freed. Updates
    /// are buffered (the newest 64 kept) for a slow consumer. When the consumer stops (its task is
    /// cancelled, or it drops the sequence) the stack forgets it at once.
    ///
    /// - Returns: The sequence of states.
    /// - Complexity: O(1) amortized.
    public func stateUpdates() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream.makeStream(of: State.self, bufferingPolicy: .bufferingNewest(64))
        let inTheMiddleOfACall = callDepth > 0 || !activities.isEmpty || publisher.isPublishing
        enterCall()
        defer { leaveCall() }
        startObserving()
        // The stream hears deliveries only once it has given its first state, and never the same
        // state twice in a row (the first state may be one the other observers are yet to hear).
        let start = StreamStart()
        publisher.mayHaveStateObservers = true
        let observers = publisher.observers
        let id = observers.add(
            { state in
                guard start.hasStarted, state != start.last else { return }
                start.last = state
                continuation.yield(state)
            },
            onListEnd: { continuation.finish() }
        )
        continuation.onTermination = { [weak observers] _ in observers?.removeObserver(id) }
        let begin = { [weak self] in
            guard let self else { return }
            self.enterCall()
            defer { self.leaveCall() }
            let first = self.snapshot()
            start.hasStarted = true
            start.last = first
            continuation.yield(first)
        }
        if inTheMiddleOfACall { whenIdle(begin) } else { begin() }
        return stream
    }

    // MARK: Internals: calls and publishing

    /// A setting that the state depends on changed: a call with nothing else to do, so that
    /// observers hear the new state.
    func settingChanged() {
        enterCall()
        leaveCall()
    }

    /// Runs `body` as a call: every public entry point is one, so that observers hear a change
    /// nobody has told them yet (a target freed since the last call) at the end of the next call,
    /// whatever it is.
    @inline(__always)
    func asCall<T>(_ body: () -> T) -> T {
        enterCall()
        defer { leaveCall() }
        return body()
    }

    /// Marks the start of a public call.
    @inline(__always)
    func enterCall() { callDepth &+= 1 }

    /// Marks the end of a public call; after the outermost one, finishes put-off work and tells
    /// observers what changed.
    @inline(__always)
    func leaveCall() {
        callDepth &-= 1
        guard callDepth == 0 else { return }
        if history.needsTrim || checksInvariants || publisher.mayHaveObservers || history.states.needsRenumbering
            || (postsNotifications && history.states.isClean != publisher.lastClean)
        {
            outermostCallEnded()
        }
    }

    private func outermostCallEnded() {
        if publisher.mayHaveHistoryChangeListeners && endsQuietly {
            // Nothing else listens: the next calls end as on an unwatched stack, until the change
            // tracker notes a change (`History.onChangeDue`) or a listener comes.
            publisher.mayHaveObservers = false
            return
        }
        // Ids are held outside the storage while a step is in flight (its states, its marks).
        if history.states.needsRenumbering && isAtRest {
            history.renumberStates()
        }
        if history.needsTrim && mayRestructure { applyLimitsThatWaited() }
        if checksInvariants { _checkInvariants() }
        publish()
        // Not while a delivery further up the call stack is in progress: the work waits for its
        // end, after the states queued meanwhile are told.
        while !publisher.whenIdle.isEmpty && callDepth == 0 && !publisher.isPublishing {
            publisher.whenIdle.removeFirst()()
        }
    }

    /// Runs `body` now if no call on the stack is in progress, otherwise right after the outermost
    /// one ends (after its state has been published).
    func whenIdle(_ body: @escaping () -> Void) {
        if callDepth == 0 && activities.isEmpty && !publisher.isPublishing {
            body()
        } else {
            publisher.whenIdle.append(body)
            publisher.mayHaveObservers = true
        }
    }

    /// A new observer: the last state told becomes the state now, so that the next call tells only
    /// what it changes.
    private func startObserving() {
        if !publisher.mayHaveObservers || publisher.observers.isEmpty {
            publisher.lastState = snapshot()
        }
        publisher.mayHaveObservers = true
    }

    /// Queues the state after a call if it changed, then (unless a delivery is already in
    /// progress further up the call stack) delivers the queue in order.
    func publish() {
        if callIsHeard { enqueueIfChanged() }
        guard !publisher.isPublishing else { return }
        publisher.isPublishing = true
        defer { publisher.isPublishing = false }
        // Read by position, so that an observer queueing many states (one per call it makes) costs
        // O(1) per state; emptied (its storage kept) once everything is told.
        var next = 0
        while true {
            while next < publisher.queue.count {
                let entry = publisher.queue[next]
                next += 1
                if postsNotifications && entry.isClean != publisher.lastPostedClean {
                    publisher.lastPostedClean = entry.isClean
                    post(ActionStack.cleanStateDidChangeNotification)
                }
                if let state = entry.state { publisher.observers.notify(state) }
            }
            // The call-end listeners last; what they change is told as an observer's calls are.
            guard notifyCallEndListeners() else { break }
            guard next < publisher.queue.count else { break }
        }
        publisher.queue.removeAll(keepingCapacity: true)
    }

    /// Tells the call-end listeners that the outermost call ended: those of every call, and those
    /// of calls that may have changed the history when the history's change tracker says one may
    /// have. Returns whether any listener was told.
    ///
    /// - Complexity: O(1) when no listener is told (a query on a stack a recorder watches: one
    ///   comparison of the tracker's flags), plus one call per listener told.
    private func notifyCallEndListeners() -> Bool {
        var told = false
        if publisher.mayHaveCallEndListeners {
            if publisher.callEndListeners.isEmpty {
                publisher.mayHaveCallEndListeners = false
            } else {
                publisher.callEndListeners.notify(())
                told = true
            }
        }
        if publisher.mayHaveHistoryChangeListeners && historyMayHaveChanged {
            if publisher.historyChangeListeners.isEmpty {
                publisher.mayHaveHistoryChangeListeners = false
            } else {
                publisher.historyChangeListeners.notify(())
                told = true
            }
        }
        return told
    }

    /// Whether the outermost call ending now leaves nothing to do: no limit or renumbering
    /// waits, no state observer, call-end listener or idle work, the clean flag as last told, and
    /// the history's change tracker sees no change. Asked only while a history-change listener
    /// (a recorder of what changed) may listen, so that a query on a watched stack ends as one on
    /// an unwatched stack does.
    ///
    /// - Complexity: O(1).
    private var endsQuietly: Bool {
        !history.needsTrim && !checksInvariants && !history.states.needsRenumbering && publisher.whenIdle.isEmpty
            && !publisher.mayHaveCallEndListeners && history.states.isClean == publisher.lastClean
            && !historyMayHaveChanged && (!publisher.mayHaveStateObservers || noStateObserverLeft)
    }

    /// Whether no state observer is left; clears `mayHaveStateObservers` when none is.
    private var noStateObserverLeft: Bool {
        guard publisher.observers.isEmpty else { return false }
        publisher.mayHaveStateObservers = false
        return true
    }

    /// Whether the history's change tracker (kept while a recorder of what changed watches) says
    /// the history may have changed since its changes were last gathered, or one of its logs holds
    /// changes not yet recorded.
    ///
    /// - Complexity: O(1).
    private var historyMayHaveChanged: Bool {
        guard let changes = history.changes else { return false }
        return changes.mayBeDue(history.states) || changes.logsWithChanges > 0
    }

    /// Calls `body` at the end of every outermost call on the stack, after the observers, whether
    /// the state changed or not, while the token lives. With `onlyWhenHistoryMayHaveChanged`
    /// (a recorder of what changed, whose history's changes are tracked: ``History/changes``),
    /// only at the end of the calls after which the tracker says the history may have changed, or
    /// one of its logs holds changes not yet recorded; the stack looks at a call's end for it only
    /// after the tracker noted a change (``History/onChangeDue``), so a query costs what it costs
    /// on an unwatched stack.
    ///
    /// - Complexity: O(1) amortized; each call then costs one call per listener told (and a
    ///   ``state`` snapshot only when an observer listens too).
    ///
    /// A `package` hook for ActionStackArchive's `HistoryRecorder`, which records after each call.
    package func addCallEndListener(
        onlyWhenHistoryMayHaveChanged: Bool = false, _ body: @escaping () -> Void
    ) -> ObservationToken {
        // Added after this call's end, which it is not told of.
        enterCall()
        startObserving()
        leaveCall()
        if onlyWhenHistoryMayHaveChanged {
            let id = publisher.historyChangeListeners.add(body)
            // The calls' ends are looked at (`leaveCall()`) while the change tracker says a change
            // is due; a call that ends quietly stops looking until the next change is noted.
            if history.onChangeDue == nil {
                history.onChangeDue = { [unowned(unsafe) self] in self.publisher.mayHaveObservers = true }
            }
            publisher.mayHaveObservers = true
            publisher.mayHaveHistoryChangeListeners = true
            return ObservationToken(list: publisher.historyChangeListeners, id: id)
        }
        let id = publisher.callEndListeners.add(body)
        publisher.mayHaveObservers = true
        publisher.mayHaveCallEndListeners = true
        return ObservationToken(list: publisher.callEndListeners, id: id)
    }

    /// Whether the state observers hear the end of the call ending now. Every call is heard but
    /// those of an awaited undo, redo or jump made from its own task (its steps, its handlers
    /// between their awaits, the tasks they start): observers hear such a request when its first
    /// step starts and when it ends, so a move is heard once, never step by step, as a synchronous
    /// one is. A call from any other task is heard as always, and shows the request in flight.
    ///
    /// - Complexity: O(d) for d operations nested in the current task, while a request holds the
    ///   turn; O(1) otherwise.
    var callIsHeard: Bool {
        guard let quiet = steps.quietRequest else { return true }
        return OperationChain.current?.contains(quiet.chain) != true
    }

    /// Whether the stack is between calls: no call, handler or operation step in progress (an
    /// observer's delivery may be), so that its history can be read whole.
    ///
    /// A `package` hook for ActionStackArchive's `HistoryRecorder`.
    package var isBetweenCalls: Bool { callDepth == 0 && activities.isEmpty }

    private func enqueueIfChanged() {
        var state: State?
        if publisher.mayHaveObservers {
            if !publisher.observers.isEmpty {
                state = snapshot()
            } else if (!publisher.mayHaveCallEndListeners || publisher.callEndListeners.isEmpty)
                && (!publisher.mayHaveHistoryChangeListeners || publisher.historyChangeListeners.isEmpty
                    || !historyMayHaveChanged)
            {
                publisher.mayHaveObservers = false
            }
            // Call-end listeners alone (a history recorder) need no state.
        }
        let clean = history.states.isClean
        let stateChanged = state != nil && state != publisher.lastState
        guard stateChanged || clean != publisher.lastClean else { return }
        if stateChanged { publisher.lastState = state }
        publisher.lastClean = clean
        publisher.queue.append(Publisher.Entry(state: stateChanged ? state : nil, isClean: clean))
    }

    /// The state now, dropping freed steps from the top of each stack when the stack is idle.
    func snapshot() -> State { snapshot(noticing: mayDropFreedSteps) }

    /// The state now, without dropping anything.
    func readOnlySnapshot() -> State { snapshot(noticing: false) }

    /// The state now; freed steps on top of each stack are dropped when `noticing`.
    private func snapshot(noticing: Bool) -> State {
        let undoNext = nextStep(of: undoSide, noticing: noticing)
        let redoNext = nextStep(of: redoSide, noticing: noticing)
        let undoName = undoNext?.name ?? ""
        let redoName = redoNext?.name ?? ""
        let inFlight = steps.inFlight?.direction
        let hasBrokenStep = steps.broken != nil
        return State(
            canUndo: undoNext != nil,
            canRedo: redoNext != nil,
            undoCount: undoSide.closedCount,
            redoCount: redoSide.closedCount,
            undoActionName: undoName,
            redoActionName: redoName,
            undoMenuItemTitle: undoMenuTitle(forUndoActionName: undoName),
            redoMenuItemTitle: redoMenuTitle(forUndoActionName: redoName),
            isClean: history.states.isClean,
            groupingLevel: currentSide.frames.count,
            isBusy: steps.isBusy,
            pendingRequestCount: steps.queue.pendingCount,
            currentNode: history.tree == nil ? nil : HistoryNode.ID(sequence: Int(history.currentNodeNumber)),
            redoNode: history.tree == nil || history.redoAnchor != history.currentNodeNumber
                ? nil : redoSide.steps.last.map { HistoryNode.ID(sequence: Int($0.node)) },
            isUndoInFlight: inFlight == .undo,
            isRedoInFlight: inFlight == .redo,
            hasBrokenStep: hasBrokenStep
        )
    }
}

/// The observation concern: the observers of a stack's ``ActionStack/State`` and what they have
/// been told.
///
/// Invariant: between calls the queue is empty and `isPublishing` is false; `lastState` is the
/// last state queued (the next call tells observers only if its state differs).
struct Publisher {
    struct Entry {
        /// The state to deliver (nil when only the clean flag changed, or nobody observes).
        var state: ActionStack.State?
        var isClean: Bool
    }

    let observers = ObserverList<ActionStack.State>()
    /// Told at the end of every outermost call, changed state or not, after the observers (a
    /// ``HistoryRecorder``, whose saved history can change when the state does not).
    let callEndListeners = ObserverList<Void>()
    /// False when the stack knows it has no call-end listener, so that a publish need not take the
    /// list's lock to find out. Set when one is added; cleared when a publish finds none.
    var mayHaveCallEndListeners = false
    /// Told at the end of the outermost calls that may have changed the history, as the history's
    /// change tracker sees it (a ``HistoryRecorder`` of one stack, which records what changed).
    let historyChangeListeners = ObserverList<Void>()
    /// False when the stack knows it has no history-change listener (as `mayHaveCallEndListeners`).
    var mayHaveHistoryChangeListeners = false
    /// False when the stack knows nobody observes, so that a call need not take a snapshot. Set
    /// when an observer is added; cleared when a publish finds the list empty (an observer may
    /// leave from another thread, see ``ObserverList``).
    var mayHaveObservers = false
    /// False when the stack knows no state observer (``ActionStack/observe(_:)``,
    /// ``ActionStack/stateUpdates()``) listens, as opposed to call-end listeners: set when one is
    /// added, cleared when a call's end finds the list empty.
    var mayHaveStateObservers = false
    var isPublishing = false
    var queue: [Entry] = []
    var lastState: ActionStack.State?
    /// Work to run when the outermost call ends (an ``ActionStackGroup`` asking for a state).
    var whenIdle: [() -> Void] = []
    /// The clean flag last queued.
    var lastClean = true
    /// The clean flag last told by `cleanStateDidChangeNotification`.
    var lastPostedClean = true

    /// What does not hold at the end of a call: outside a delivery (which may be in progress
    /// further up, when an observer made the call), nothing is queued.
    func invariantViolations() -> [String] {
        guard !isPublishing else { return [] }
        return queue.isEmpty ? [] : ["\(queue.count) states queued outside a delivery"]
    }
}

@available(*, unavailable) extension Publisher: Sendable {}

/// Where a ``ActionStack/stateUpdates()`` sequence is: whether it has given its first state, and
/// the last state it gave. Used only in the stack's isolation domain.
private final class StreamStart {
    var hasStarted = false
    var last: ActionStack.State?
}
