// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The reference model's asynchronous actions and operations (the article "Undoing through a server
// or a database" and the doc comments of `registerAsyncUndo`, `performUndo`, `asyncGroup`,
// `busyPolicy`, `brokenStep` and their siblings), as scheduled events.
//
// The model runs no real task. Each awaiting caller (a `performUndo()`, the request an Edit menu's
// `undo()` starts, an `asyncGroup`'s body) is an `AsyncTaskModel`: a small state machine that runs
// until it suspends, at a handler's await (a `Suspension` the driver resumes, with success or a
// failure), while its request waits for its turn, or at its end. Tasks that can go on are kept in
// `ready`, in the order the main actor would run them (first in, first out), and `runReadyTasks()`
// runs them one at a time, each until it suspends: what one await to the next of a real task does.
//
// Rules of the model's own making (besides the SPEC-QUESTIONs below):
// - An asynchronous action is an `.add` action whose id is in `asyncState.specs`: when it runs it
//   may suspend (the driver resumes it), then adds its delta and registers its inverse, which is
//   asynchronous too. The step holding one is marked by its frame's id in `asyncFrames`.
// - A new change made while an operation is in flight is a step of the undo side that was not a
//   closed step when the operation started (or the open group, when none is).
// - Results are text, the same text the stack's world writes for an `OperationError`, so both worlds
//   compare as strings.

extension ReferenceModel {

    // MARK: - Types

    /// What an asynchronous action does when it runs.
    struct AsyncSpec: Hashable, Sendable {
        /// Whether the handler awaits (the driver resumes it) before it changes anything.
        var suspends: Bool
        /// Whether, having changed its target, it registers its inverse.
        var registersInverse: Bool
    }

    /// A request of the queue.
    enum RequestKind: Hashable, Sendable {
        case undo, redo
        case jump(Int)
        case group
        /// A move through a branching history: to a node, or in time from where the document is
        /// when the request starts (section 19).
        case jumpToNode(Int)
        case timeMove(TimeMoveSpec)
    }

    /// `ActionStack.CancellationReason`, by case name.
    enum CancelReason: String, Sendable {
        case task, cancelPendingRequests, removeAllActions, newChange, brokenStep
    }

    /// One item of an asynchronous group's body, run in order.
    enum GroupItem: Hashable, Sendable, CustomStringConvertible {
        /// `target.value += delta`, then the registration of the inverse (asynchronous or not).
        case register(slot: Int, delta: Int, async: AsyncSpec?)
        /// An await the driver resumes; resumed with a failure, the body throws.
        case suspend
        /// `setActionName(_:)`.
        case name(String)

        var description: String {
            switch self {
            case .register(let slot, let delta, let async):
                ".register(slot: \(slot), delta: \(delta), async: "
                    + (async.map { ".init(suspends: \($0.suspends), registersInverse: \($0.registersInverse))" }
                        ?? "nil") + ")"
            case .suspend: ".suspend"
            case .name(let name): ".name(\"\(name)\")"
            }
        }
    }

    /// Where a task waits for the driver.
    struct Suspension {
        /// The task that waits.
        let task: AsyncTaskModel
        /// What waits, as the stack's world describes it too.
        let label: String
        /// The target the suspended handler holds alive (nil: a group's body, which holds none).
        let heldTarget: Int?
    }

    /// A step whose rollback failed.
    struct BrokenMark {
        var stepID: Int
        var isUndo: Bool
        var name: String
    }

    /// An operation in flight (undo, redo) or an asynchronous group recording its step.
    final class RunModel {
        /// The side of the step performed; nil for a group's recording.
        let direction: SideName?
        let stepID: Int
        /// The node the step leads to (section 19; 0 in a linear history or for a group).
        let node: Int
        let metadata: Metadata
        /// The step's actions, oldest first, as they were when the operation started.
        let pending: [Action]
        /// The next action to run (they run newest first).
        var next: Int
        /// The step's states and the document's state when the operation started.
        let low: Int
        let high: Int
        let stateBefore: Int
        /// Ids above this one were made after the operation started.
        let mark: Int
        /// The closed undo steps when the operation started: any other is a new change.
        let closedAtMark: Set<Int>
        /// The opposite step being built (for a group: its own step): actions, with the index of
        /// the pending action whose handler registered each (-1 for a group's body).
        var built: [(action: Action, owner: Int)] = []
        let builtID: Int
        var builtMetadata: Metadata
        var builtHoldsAsync = false
        /// The actions that have run or were found freed, in the order they came: index, ran.
        var ranges: [(index: Int, ran: Bool)] = []
        var sawNewChange = false
        var removedAll = false
        var removedTargets: Set<Int> = []
        var skippedAny = false
        /// The failure being rolled back: index, error text, target type text.
        var failure: (index: Int, error: String, targetType: String)?
        var rollingBack = false
        var unrestored: Set<Int> = []
        var lostUnowned = false
        var rollbackFailure: (index: Int, error: String)?
        /// The inverse the rollback took out of the step being built and awaits.
        var rollbackAction: (action: Action, owner: Int)?
        /// The clean marks made while the step's actions ran (the document half changed): each a
        /// new state, and the state before it. The document leaves them when the operation settles.
        var midwayMarks: [(mark: Int, before: Int)] = []

        init(
            direction: SideName?, step: Step?, stateBefore: Int, mark: Int, closedAtMark: Set<Int>, builtID: Int
        ) {
            self.direction = direction
            stepID = step?.id ?? -1
            node = step?.node ?? 0
            metadata = step?.metadata ?? Metadata()
            pending = step?.actions ?? []
            next = pending.count - 1
            low = step?.low ?? stateBefore
            high = step?.high ?? stateBefore
            self.stateBefore = stateBefore
            self.mark = mark
            self.closedAtMark = closedAtMark
            self.builtID = builtID
            builtMetadata = step?.metadata ?? Metadata()
        }
    }

    /// One awaiting caller: a task of the driver, or the task an Edit menu's `undo()` starts.
    final class AsyncTaskModel {
        enum Program {
            case operation(RequestKind)
            case retry
            case group(name: String?, items: [GroupItem], throwing: Bool)
        }

        enum Phase {
            /// Not yet run: it submits its request when it first runs.
            case submit
            /// Its request waits in the queue (or was just granted or cancelled).
            case waiting
            /// It holds the turn and starts its work.
            case start
            /// A step of the operation is in flight.
            case step
            /// A jump between two steps.
            case jumpNext
            /// A group's body runs.
            case body
            /// A group's body threw; what it registered is being rolled back.
            case groupRollback
            case done
        }

        /// The driver's number for the awaiter, which keys the results.
        let awaiter: Int
        var program: Program
        /// Whether the driver can cancel the task (an Edit menu's request runs in a task of its own).
        let cancellable: Bool
        var phase: Phase
        var cancelled = false
        var cancelReason: CancelReason?
        /// The driver's answer to the task's suspension (true: its await returns; false: it
        /// throws); nil while none came.
        var answer: Bool?
        var run: RunModel?
        /// A jump: the target position, the position count beyond it, direction, moved. (Its open
        /// group closed before the first step: no step of a jump closes one.)
        var jump: (target: Int, remaining: Int, backward: Bool, moved: Bool)?
        /// A move through a branching history: the node it goes to, and whether it moved.
        var treeMove: (target: Int, moved: Bool)?
        /// A retry: the broken step it retries.
        var retried: BrokenMark?
        /// A group's body: the next item, and whether it runs plainly (registration disabled).
        var position = 0
        var plain = false
        /// The misuse name of the operation (`undo`, `redo`, `jump`, `group`).
        var operationName: Operation = .undo

        init(awaiter: Int, program: Program, cancellable: Bool, phase: Phase) {
            self.awaiter = awaiter
            self.program = program
            self.cancellable = cancellable
            self.phase = phase
        }

        var isGroup: Bool {
            if case .group = program { return true }
            return false
        }
    }

    /// The asynchronous part of the model's state.
    struct AsyncState {
        /// Whether the stack has its asynchronous concern: made by the first asynchronous
        /// registration, request or group, or by setting the busy policy. Until then the stack is
        /// the synchronous one, exactly (the hooks below do nothing, not even a query).
        var inUse = false
        /// Asynchronous actions, by action id.
        var specs: [Int: AsyncSpec] = [:]
        /// Frames and steps (by id) that hold an asynchronous action.
        var asyncFrames: Set<Int> = []
        /// The busy policy: a queue limit, or nil for `dropWhileBusy`.
        var queueLimit: Int? = 64
        /// The task whose request holds the turn.
        var running: AsyncTaskModel?
        /// The tasks whose requests wait, in request order.
        var waiting: [AsyncTaskModel] = []
        /// The operation or group recording in flight.
        var run: RunModel?
        var broken: BrokenMark?
        /// Tasks that can go on, in the order they would run.
        var ready: [AsyncTaskModel] = []
        /// Tasks waiting for the driver, in the order they suspended.
        var suspensions: [Suspension] = []
        /// The suspensions made so far.
        var arrivals = 0
        /// Every task not done, in the order they were made (the driver cancels by position).
        var tasks: [AsyncTaskModel] = []
        /// Results by awaiter.
        var results: [Int: String] = [:]
        /// The awaiter of the request the last synchronous undo(), redo() or jump(to:) started.
        var startedAwaiter: Int?
        var nextAwaiter = 0
        /// Whether the last operation to settle saw a new change (a jump stops).
        var lastRunSawNewChange = false
        /// Targets held alive by suspended handlers, and those the driver freed meanwhile.
        var heldTargets: [Int] = []
        var freedWhileHeld: Set<Int> = []
        /// The driver's slots: target index of a slot, nil when the driver freed it.
        var resolveSlot: (Int) -> Int? = { _ in nil }
        /// Posts `didFailUndoChangeNotification` (true) or `didFailRedoChangeNotification`: the
        /// synchronous model's notifications do not have them.
        var failPosted: (_ isUndo: Bool) -> Void = { _ in }
    }

    // MARK: - Hooks of the synchronous model

    /// A change outside undo and redo empties the redo side (sections 2, 3 and 7); while an
    /// operation is in flight it is a new change from another task: the redo side is emptied when
    /// the operation settles, and the waiting requests are cancelled.
    func newChangeEmptiesRedoSide() {
        if asyncState.run != nil {
            noteNewChange()
        } else {
            detachRedoSide()
        }
    }

    /// Limits never trim a step in flight, nor between the steps of a jump: trimming (and a change
    /// of shape) waits while a request holds the turn, and is done when it ends, before the next
    /// one gets the turn (issue 28, item 5).
    var trimWaitsForOperation: Bool { asyncState.running != nil }

    /// `markClean()` (and `removeAllActions()`'s mark): the current state; while an undo or redo
    /// runs its actions, a new state that no node has, which the document leaves when the operation
    /// settles (issue 28, item 4: a mark made mid-operation is clean only if the document comes
    /// back to exactly that state).
    func markCurrentStateClean() {
        if let run = asyncState.run, run.direction != nil {
            count("async clean mark while an operation runs")
            let before = current
            current = newStateID()
            run.midwayMarks.append((current, before))
        }
        clean = current
    }

    /// The operation settles: the document leaves the marks made while its actions ran. Where a
    /// mark was used since (the current state, the new changes other tasks recorded after it), the
    /// state before it is put back, so that the operation settles as if the marks had not moved the
    /// document, and no node has the clean state.
    func leaveMidwayMarks(of run: RunModel) {
        guard !run.midwayMarks.isEmpty else { return }
        let marks = run.midwayMarks
        run.midwayMarks = []
        func before(_ state: Int) -> Int {
            var state = state
            for mark in marks.reversed() where mark.mark == state { state = mark.before }
            return state
        }
        current = before(current)
        for index in undoSide.closed.indices where !run.closedAtMark.contains(undoSide.closed[index].id) {
            undoSide.closed[index].low = before(undoSide.closed[index].low)
            undoSide.closed[index].high = before(undoSide.closed[index].high)
        }
        for index in undoSide.frames.indices {
            undoSide.frames[index].low = before(undoSide.frames[index].low)
            for position in undoSide.frames[index].items.indices {
                if case .group(var group) = undoSide.frames[index].items[position] {
                    group.low = before(group.low)
                    group.high = before(group.high)
                    undoSide.frames[index].items[position] = .group(group)
                }
            }
        }
    }

    /// `undo()`, `redo()` and `jump(to:)` after their refusal checks: whether the call belongs to the
    /// asynchronous operations (a broken step, an operation holding the turn, or a step with an
    /// asynchronous action on the way); it has then been handled.
    func routesToAsyncOperation(_ kind: RequestKind, _ operation: Operation) -> Bool {
        guard asyncState.inUse else { return false }
        if asyncState.broken != nil {
            report(.asynchronous("stepIsBroken(\(operation))"))
            return true
        }
        guard asyncState.running != nil || pathHoldsAsyncActions(kind) else { return false }
        startRequest(kind, operation)
        return true
    }

    /// `undo()` once it has closed the one open group: the step it now undoes may not be the one it
    /// decided on (the group, gone when empty in drop mode or holding only freed actions, leaves the
    /// step below it next); if that one holds an asynchronous action, the undo is a request too.
    func routesToAsyncOperationAfterClose() -> Bool {
        guard asyncState.inUse, let id = nextUndoStepID(), asyncState.asyncFrames.contains(id) else { return false }
        startRequest(.undo, .undo)
        return true
    }

    /// The Edit menu's request: started now, run by a task of its own.
    func startRequest(_ kind: RequestKind, _ operation: Operation) {
        let awaiter = newAwaiter()
        asyncState.startedAwaiter = awaiter
        let task = AsyncTaskModel(awaiter: awaiter, program: .operation(kind), cancellable: false, phase: .waiting)
        task.operationName = operation
        asyncState.tasks.append(task)
        if let refusal = admit(task, checkBroken: false) { return finish(task, refusal) }
        if task.phase == .start { asyncState.ready.append(task) }
    }

    /// `undoNestedGroup()` after its refusal check: the misuse `notWhileAsync` while an operation
    /// holds the turn, a step is broken, or the group it would undo holds an asynchronous action.
    func refusesNestedUndoWhileAsync() -> Bool {
        guard asyncState.inUse else { return false }
        let refused =
            asyncState.running != nil || asyncState.broken != nil
            || (undoSide.frames.isEmpty
                ? nextUndoStepID().map { asyncState.asyncFrames.contains($0) } ?? false
                : asyncState.asyncFrames.contains(undoSide.frames[0].id))
        if refused { report(.asynchronous("notWhileAsync(undoNestedGroup)")) }
        return refused
    }

    /// `removeAllActions()`: the waiting requests are cancelled; the operation in flight goes on to
    /// its end, and nothing it touched survives; a broken step goes with the history.
    func removeAllForOperations() {
        for task in asyncState.waiting { cancelWaiting(task, .removeAllActions) }
        asyncState.broken = nil
        if let run = asyncState.run {
            count("async removeAllActions during an operation")
            run.removedAll = true
            run.built = []
        }
    }

    /// `removeAllActions(withTarget:)`: the step in flight skips the target's actions not yet run;
    /// the step it builds (and a rollback's remaining inverses) lose them.
    func removeTargetForOperations(_ target: Int) {
        guard let run = asyncState.run else { return }
        count("async removal by target during an operation")
        run.removedTargets.insert(target)
        run.built.removeAll { $0.action.target == target }
    }

    // MARK: - Small helpers

    func newAwaiter() -> Int {
        defer { asyncState.nextAwaiter += 1 }
        return asyncState.nextAwaiter
    }

    /// The id of the step `undo()` would undo next (frame 0 when listed), after the Top rule.
    func nextUndoStepID() -> Int? {
        switch nextUndoStep() {
        case .frame0(let frame): frame.id
        case .step(let step): step.id
        case nil: nil
        }
    }

    /// Whether a step that `kind` would perform holds an asynchronous action.
    ///
    /// SPEC-QUESTION: for a jump, "a step with an asynchronous action on the way" is read as the
    /// stack reads it, after the sweep the jump does first: the open group (when it holds one), then
    /// as many closed steps of the side as positions to move. The open group listed as an entry can
    /// make it count one step more than the jump performs; such a jump runs as a request where it
    /// could have run synchronously, with the same outcome.
    func pathHoldsAsyncActions(_ kind: RequestKind) -> Bool {
        let marked = asyncState.asyncFrames
        switch kind {
        case .undo:
            return nextUndoStepID().map { marked.contains($0) } ?? false
        case .redo:
            return nextRedoStep().map { marked.contains($0.id) } ?? false
        case .group:
            return false
        case .jumpToNode(let target):
            if let frame0 = undoSide.frames.first, marked.contains(frame0.id) { return true }
            return stepsOnTheWay(to: target).contains { marked.contains($0.id) }
        case .timeMove(let move):
            if let frame0 = undoSide.frames.first, marked.contains(frame0.id) { return true }
            // (Decided on the target before the sweep; a move whose way changes in the sweep to one
            // with an asynchronous step hands off there, see `walk(to:)`.)
            return stepsOnTheWay(to: timeMoveTarget(move, from: currentNode)).contains { marked.contains($0.id) }
        case .jump(let position):
            if let frame0 = undoSide.frames.first, marked.contains(frame0.id) { return true }
            // The steps on the way are those the jump performs, after the sweep it does first.
            sweep()
            let current = undoSide.closed.count + (frame0IsListed ? 1 : 0)
            let steps = position < current ? undoSide.closed : redoSide.closed
            let count = min(abs(position - current), steps.count)
            return steps.suffix(count).contains { marked.contains($0.id) }
        }
    }

    /// The steps a move through the tree from the current node to `target` performs: the undo
    /// steps up to the nearest common ancestor, then the steps down to the target.
    func stepsOnTheWay(to target: Int) -> [Step] {
        guard tree != nil, nodeExists(target), let way = way(from: currentNode, to: target) else { return [] }
        var steps = Array(undoSide.closed.suffix(way.up))
        let held = redoSide.closed + tree!.branches.flatMap(\.steps)
        for node in way.down { if let step = held.first(where: { $0.node == node }) { steps.append(step) } }
        return steps
    }

    /// In a branching history, the node the redo side leaves from: the current node; but while an
    /// operation (or an asynchronous group) runs after another task's change, the node the document
    /// was at when the change came, since the change ends that future when the operation settles
    /// (the article "Undoing through a server or a database").
    var redoAnchor: Int {
        guard tree != nil else { return 0 }
        guard let run = asyncState.run, run.sawNewChange else { return currentNode }
        return nodeBeforeNewChanges(of: run)
    }

    /// The node of the newest undo step that is not another task's change made while `run` ran
    /// (the root when there is none): where the document was when the first such change came,
    /// moved by the operation once it has settled.
    func nodeBeforeNewChanges(of run: RunModel) -> Int {
        let index =
            undoSide.closed.firstIndex { !run.closedAtMark.contains($0.id) && $0.id != run.builtID }
            ?? undoSide.closed.count
        return index > 0 ? undoSide.closed[index - 1].node : tree?.root ?? 0
    }

    /// The operation settled after another task's change: the redo side (the operation's own
    /// opposite step included) is emptied, in a branching history left as a branch of the node the
    /// operation reached, from which the change now hangs.
    func endRedoFutureAfterNewChange(of run: RunModel) {
        if tree == nil {
            redoSide = Side()
        } else {
            detachRedoSide(from: nodeBeforeNewChanges(of: run))
        }
    }

    /// A new change from another task while an operation is in flight.
    func noteNewChange() {
        guard let run = asyncState.run else { return }
        if !run.sawNewChange { count("async new change during an operation") }
        run.sawNewChange = true
        for task in asyncState.waiting { cancelWaiting(task, .newChange) }
    }

    /// Cancels a waiting request: its task wakes and finishes with the reason.
    func cancelWaiting(_ task: AsyncTaskModel, _ reason: CancelReason) {
        guard let index = asyncState.waiting.firstIndex(where: { $0 === task }) else { return }
        asyncState.waiting.remove(at: index)
        task.cancelReason = reason
        asyncState.ready.append(task)
    }

    /// Admits a task's request: nil when it holds the turn (phase `.start`) or waits (`.waiting`),
    /// or the refusal's result text.
    func admit(_ task: AsyncTaskModel, checkBroken: Bool = true) -> String? {
        call { () -> String? in
            asyncState.inUse = true
            if checkBroken && asyncState.broken != nil && !task.isGroup {
                report(.asynchronous("stepIsBroken(\(task.operationName))"))
                return "stackBroken"
            }
            if asyncState.running == nil {
                asyncState.running = task
                task.phase = .start
                return nil
            }
            guard let limit = asyncState.queueLimit else { return "dropped(busy)" }
            guard asyncState.waiting.count < max(limit, 0) else { return "dropped(queueFull)" }
            asyncState.waiting.append(task)
            task.phase = .waiting
            return nil
        }
    }

    /// The running task finished: the next waiting request gets the turn (after a broken step, the
    /// waiting requests are cancelled instead).
    func handOff() {
        call {
            if asyncState.broken != nil {
                for task in asyncState.waiting { cancelWaiting(task, .brokenStep) }
            }
            asyncState.running = nil
            // What waited for the request's end (limits, a change of shape), before the next one
            // gets the turn.
            if pendingTrim && scopeDepth == 0 && activities.isEmpty {
                pendingTrim = false
                applyPendingShape()
                trim()
            }
            if !asyncState.waiting.isEmpty {
                let next = asyncState.waiting.removeFirst()
                asyncState.running = next
                next.phase = .start
                asyncState.ready.append(next)
            }
        }
    }

    func finish(_ task: AsyncTaskModel, _ result: String) {
        count("async result " + (result.firstIndex(of: "(").map { String(result[..<$0]) } ?? result))
        if result.hasPrefix("cancelled") || result.hasPrefix("dropped") { count("async " + result) }
        task.phase = .done
        asyncState.results[task.awaiter] = result
        asyncState.tasks.removeAll { $0 === task }
    }

    /// Whether the driver still has the target (a target a suspended handler holds stays alive
    /// after the driver let it go, but the driver no longer has it).
    func driverHas(_ target: Int) -> Bool { alive[target] && !asyncState.freedWhileHeld.contains(target) }

    func hold(_ target: Int) { asyncState.heldTargets.append(target) }

    /// A suspended handler returned: the target it held is freed if the driver let it go meanwhile.
    func release(_ target: Int) {
        if let index = asyncState.heldTargets.firstIndex(of: target) { asyncState.heldTargets.remove(at: index) }
        if asyncState.freedWhileHeld.contains(target) && !asyncState.heldTargets.contains(target) {
            count("async target freed while its handler awaited")
            asyncState.freedWhileHeld.remove(target)
            alive[target] = false
        }
    }

    func typeName(_ target: Int) -> String { alive[target] ? "target" : "freed" }

    // MARK: - The driver's calls

    /// `registerAsyncUndo(withTarget:handler:)` of the inverse `add(-delta)` (the driver changed
    /// the value first).
    func registerAsyncUndo(target: Int, delta: Int, spec: AsyncSpec) {
        asyncState.inUse = true
        call {
            guard disableCount == 0 else { return }
            if let misuse = refusal(.registerUndo) { return report(misuse) }
            if currentFrames.isEmpty && !groupsByEvent { return report(.noOpenGroup(.registerUndo)) }
            let action = Action(id: newObjectID(), target: target, kind: .add(-delta), cost: 0, key: nil, window: nil)
            asyncState.specs[action.id] = spec
            let opened = appendRegistration(action)
            asyncState.asyncFrames.insert(side(currentSideName).frames[0].id)
            if opened { post(.didOpen) }
        }
    }

    /// `performUndo()`, `performRedo()`, `performJump(to:)`, `retryBrokenStep()` and
    /// `asyncGroup(named:_:)` from a task of the driver: the task is made; it runs when the driver
    /// lets tasks run.
    func spawn(_ program: AsyncTaskModel.Program) -> Int {
        let awaiter = newAwaiter()
        let task = AsyncTaskModel(awaiter: awaiter, program: program, cancellable: true, phase: .submit)
        switch program {
        case .operation(.undo): task.operationName = .undo
        case .operation(.redo): task.operationName = .redo
        case .operation(.jump): task.operationName = .jump
        case .operation(.jumpToNode), .operation(.timeMove): task.operationName = .jumpToNode
        case .operation(.group), .group: task.operationName = .group
        case .retry: break
        }
        asyncState.tasks.append(task)
        asyncState.ready.append(task)
        return awaiter
    }

    /// Resumes the suspended handler (or body) at `position` of the suspensions, modulo their
    /// number; `fails`: its await throws.
    func resume(_ position: Int, fails: Bool) {
        guard !asyncState.suspensions.isEmpty else { return }
        let suspension = asyncState.suspensions.remove(at: position % asyncState.suspensions.count)
        suspension.task.answer = !fails
        asyncState.ready.append(suspension.task)
    }

    /// Cancels the driver's task at `position` of the cancellable tasks not done (modulo).
    func cancelTask(_ position: Int) {
        let tasks = asyncState.tasks.filter(\.cancellable)
        guard !tasks.isEmpty else { return }
        let task = tasks[position % tasks.count]
        task.cancelled = true
        if asyncState.waiting.contains(where: { $0 === task }) { cancelWaiting(task, .task) }
    }

    /// `cancelPendingRequests()`.
    func cancelPendingRequests() {
        call { for task in asyncState.waiting { cancelWaiting(task, .cancelPendingRequests) } }
    }

    /// `discardBrokenStep()`: the step leaves the history; the document is in a new state.
    func discardBrokenStep() {
        guard let mark = asyncState.broken else { return }
        count("async broken step discarded")
        call {
            asyncState.broken = nil
            // Section 19: its node goes; what left from it leaves from its parent.
            let node = side(mark.isUndo ? .undo : .redo).closed.first { $0.id == mark.stepID }?.node
            let parent = node.flatMap { parentMap()[$0] }
            withSide(mark.isUndo ? .undo : .redo) { side in side.closed.removeAll { $0.id == mark.stepID } }
            if let node, let parent { nodeVanished(node, parent: parent) }
            current = newStateID()
        }
    }

    // MARK: - Running the tasks

    /// Runs the tasks that can go on, each until it suspends, until none can.
    func runReadyTasks() {
        while !asyncState.ready.isEmpty {
            let task = asyncState.ready.removeFirst()
            advance(task)
        }
    }

    func advance(_ task: AsyncTaskModel) {
        if task.isGroup {
            advanceGroup(task)
        } else {
            advanceOperation(task)
        }
    }

    // MARK: Operations (undo, redo, jump, retry)

    func advanceOperation(_ task: AsyncTaskModel) {
        while true {
            switch task.phase {
            case .submit:
                if case .retry = task.program {
                    guard let mark = asyncState.broken, brokenStepIsNext(mark) else { return finish(task, "false") }
                    task.program = .operation(mark.isUndo ? .undo : .redo)
                    task.operationName = mark.isUndo ? .undo : .redo
                    task.retried = mark
                    count("async broken step retried")
                    // The mark is lifted for a request the queue takes; a refused one leaves it.
                    asyncState.broken = nil
                    if let refusal = admit(task) {
                        asyncState.broken = mark
                        return finish(task, refusal)
                    }
                } else if let refusal = admit(task) {
                    return finish(task, refusal)
                }
                if task.phase == .waiting { return }
            case .waiting:
                // Woken: cancelled while it waited (it never held the turn).
                guard let reason = task.cancelReason else { return }
                return finish(task, "cancelled(\(reason.rawValue))")
            case .start:
                if task.cancelled { return end(task, "cancelled(task)") }
                if let mark = task.retried, !brokenStepIsNext(mark) {
                    // Newer changes came while the retry waited: it runs nothing, the step stays broken.
                    asyncState.broken = mark
                    return end(task, "false")
                }
                guard case .operation(let kind) = task.program else { fatalError("not an operation") }
                switch kind {
                case .undo, .redo:
                    switch startStep(kind == .undo ? .undo : .redo, closingOpenGroup: true) {
                    case .none: return end(task, "false")
                    case .refused(let text): return end(task, text)
                    case .started(let run):
                        task.run = run
                        task.phase = .step
                    }
                case .jump(let position):
                    let (current, total) = call { () -> (Int, Int) in
                        sweep()
                        let current = undoEntryCount
                        return (current, current + redoSide.closed.count)
                    }
                    let target = max(0, min(position, total))
                    if target == current { return end(task, "false") }
                    // As `jump(to:)`: the open group closes first, trimmed at once, and the steps
                    // are counted in the history the close left.
                    let refusal = call { () -> String? in
                        let level = undoSide.frames.count
                        if level >= 2 {
                            let misuse = Misuse.nestedGroupsOpen(.jump, groupingLevel: level)
                            report(misuse)
                            return "misuse(\(misuse))"
                        }
                        if level == 1 && asyncState.broken == nil {
                            withActivity(.jumping) { closeInnermostAsEnd() }
                            trimAfterClosingTheOpenGroup()
                        }
                        return nil
                    }
                    if let refusal { return end(task, refusal) }
                    task.jump = (target, total - target, target < current, false)
                    task.phase = .jumpNext
                case .jumpToNode, .timeMove:
                    switch startTreeMove(kind) {
                    case .success(let target):
                        task.treeMove = (target, false)
                        task.phase = .jumpNext
                    case .failure(let ended):
                        return end(task, ended.text)
                    }
                case .group:
                    fatalError("a group is not an operation")
                }
            case .jumpNext:
                if let move = task.treeMove {
                    switch nextTreeMoveStep(to: move.target) {
                    case nil: return end(task, "\(move.moved)")
                    case .some(let direction):
                        switch startStep(direction, closingOpenGroup: false) {
                        case .none: return end(task, "\(move.moved)")
                        case .refused(let text): return end(task, move.moved ? "true" : text)
                        case .started(let run):
                            task.run = run
                            task.phase = .step
                        }
                    }
                    continue
                }
                guard let jump = task.jump else { fatalError("no jump") }
                let more = call { () -> Bool in
                    sweep()
                    return jump.backward
                        ? undoSide.closed.count > jump.target : redoSide.closed.count > jump.remaining
                }
                guard more else { return end(task, "\(jump.moved)") }
                switch startStep(jump.backward ? .undo : .redo, closingOpenGroup: false) {
                case .none: return end(task, "\(jump.moved)")
                case .refused(let text): return end(task, jump.moved ? "true" : text)
                case .started(let run):
                    task.run = run
                    task.phase = .step
                }
            case .step:
                guard let run = task.run else { fatalError("no run") }
                guard let outcome = continueRun(run, of: task) else { return }
                task.run = nil
                if task.treeMove != nil {
                    count("async tree move step")
                    if let failure = outcome.failure { return end(task, failure + " reached #\(currentNode)") }
                    task.treeMove!.moved = true
                    if asyncState.lastRunSawNewChange { return end(task, "true") }
                    task.phase = .jumpNext
                    continue
                }
                if case .some = task.jump {
                    count("async jump step")
                    if let failure = outcome.failure {
                        let position = historyPosition
                        return end(task, failure + " reached \(position)")
                    }
                    task.jump!.moved = true
                    if asyncState.lastRunSawNewChange { return end(task, "true") }
                    task.phase = .jumpNext
                    continue
                }
                if let failure = outcome.failure {
                    if let mark = task.retried, asyncState.broken == nil,
                        side(mark.isUndo ? .undo : .redo).closed.contains(where: { $0.id == mark.stepID })
                    {
                        // The document was partly changed before the retry, and still is.
                        call {
                            asyncState.broken = mark
                            current = newStateID()
                        }
                    }
                    return end(task, failure + " reached -")
                }
                return end(task, "true")
            case .body, .groupRollback, .done:
                return
            }
        }
    }

    /// The result text of a move that ends before it starts.
    struct EndedMove: Error {
        var text: String
    }

    /// An awaited move through the tree takes the turn: the target (a node, or a time move resolved
    /// from where the document is now), the open group closed first (trimmed at once, as the
    /// synchronous move's close is), then the target found again for a time move. The failure is
    /// the result of a move that ends there: an error, or `false` when it would not move.
    func startTreeMove(_ kind: RequestKind) -> Result<Int, EndedMove> {
        call { () -> Result<Int, EndedMove> in
            sweep()
            guard tree != nil else { return .failure(EndedMove(text: "historyTree(linearHistory)")) }
            var move: TimeMoveSpec?
            switch kind {
            case .jumpToNode(let id):
                guard nodeExists(id) else { return .failure(EndedMove(text: "historyTree(noSuchNode(#\(id)))")) }
                // A jump to the node the document is on does nothing, open group or not.
                if id == currentNode { return .failure(EndedMove(text: "false")) }
            case .timeMove(let spec):
                if timeMoveTarget(spec, from: currentNode) == currentNode { return .failure(EndedMove(text: "false")) }
                move = spec
            default:
                fatalError("not a tree move")
            }
            let level = undoSide.frames.count
            if level >= 2 {
                let misuse = Misuse.nestedGroupsOpen(.jumpToNode, groupingLevel: level)
                report(misuse)
                return .failure(EndedMove(text: "misuse(\(misuse))"))
            }
            if level == 1 {
                withActivity(.jumping) { closeInnermostAsEnd() }
                trimAfterClosingTheOpenGroup()
            }
            guard tree != nil else { return .failure(EndedMove(text: "false")) }
            var target = currentNode
            if case .jumpToNode(let id) = kind { target = id }
            if let move {
                target = timeMoveTarget(move, from: currentNode)
                if target == currentNode { return .failure(EndedMove(text: "false")) }
            }
            endCoalescing()
            count("async tree move")
            return .success(target)
        }
    }

    /// The next step of an awaited move through the tree to `target`, as the synchronous move
    /// takes it (`walk(to:)`): an undo while the way goes up, then a redo into the branch that
    /// leads down (entered first); nil when the move has ended (there, or its target went).
    func nextTreeMoveStep(to target: Int) -> SideName? {
        call { () -> SideName? in
            sweep()
            guard tree != nil, nodeExists(target), target != currentNode,
                let way = way(from: currentNode, to: target)
            else { return nil }
            if way.up > 0 { return undoSide.closed.isEmpty ? nil : .undo }
            guard let child = way.down.first, parentMap()[child] == currentNode, enterBranch(leadingTo: child) else {
                return nil
            }
            return .redo
        }
    }

    /// Whether the broken step is the one its operation performs next: "the same operation again
    /// ... every action of the step runs again" can only be that step, with no newer step and no
    /// open group above it (freed steps on top are dropped first, as the operation drops them).
    func brokenStepIsNext(_ mark: BrokenMark) -> Bool {
        call { () -> Bool in
            let sideName: SideName = mark.isUndo ? .undo : .redo
            guard side(sideName).frames.isEmpty else { return false }
            topDrop(sideName)
            return side(sideName).closed.last?.id == mark.stepID
        }
    }

    /// The task that held the turn finishes: its result, then the next request's turn.
    func end(_ task: AsyncTaskModel, _ result: String) {
        finish(task, result)
        handOff()
    }

    enum StartOutcome {
        case none
        case refused(String)
        case started(RunModel)
    }

    /// Decides the step, copies its actions out and posts the will-notification; the step stays on
    /// its side. (The close of one open group is as `undo()`'s.)
    func startStep(_ direction: SideName, closingOpenGroup: Bool) -> StartOutcome {
        call { () -> StartOutcome in
            let undoing = direction == .undo
            let operation: Operation = undoing ? .undo : .redo
            if asyncState.broken != nil {
                report(.asynchronous("stepIsBroken(\(operation))"))
                return .refused("stackBroken")
            }
            post(.checkpoint)
            if closingOpenGroup {
                let level = undoSide.frames.count
                if level >= 2 {
                    let misuse = Misuse.nestedGroupsOpen(operation, groupingLevel: level)
                    report(misuse)
                    return .refused("misuse(\(misuse))")
                }
                if level == 1 {
                    withActivity(undoing ? .preparingUndo : .preparingRedo) { closeInnermostAsEnd() }
                    trimAfterClosingTheOpenGroup()
                }
            }
            endCoalescing()
            topDrop(direction, performing: true)
            guard side(direction).frames.isEmpty, let step = side(direction).closed.last else { return .none }
            let mark = nextObjectID
            let run = RunModel(
                direction: direction, step: step, stateBefore: current, mark: mark,
                closedAtMark: Set(undoSide.closed.map(\.id)), builtID: newObjectID())
            asyncState.run = run
            post(undoing ? .willUndo : .willRedo, in: undoing ? .notifyingUndo : .notifyingRedo)
            return .started(run)
        }
    }

    /// The open group a request closed before its first step is a change made before the request
    /// moved anything: it is trimmed to the limits at once, as a synchronous call's close trims it,
    /// though the request holds the turn (a limit set while it runs still waits for its end).
    func trimAfterClosingTheOpenGroup() {
        guard levels > 0 || maximumCostLimit > 0, scopeDepth == 0 else { return }
        let running = asyncState.running
        asyncState.running = nil
        trim()
        asyncState.running = running
    }

    /// How a step's run ended: nil failure for a success; the result text of an action's failure.
    struct RunOutcome {
        var failure: String?
    }

    /// Runs the step's actions newest first, one at a time, then settles it; nil while it waits
    /// for the driver.
    func continueRun(_ run: RunModel, of task: AsyncTaskModel) -> RunOutcome? {
        while true {
            if run.rollingBack {
                guard continueRollback(run, of: task) else { return nil }
                return RunOutcome(failure: settleFailure(run))
            }
            if run.next < 0 {
                if task.cancelled, let last = run.ranges.last {
                    // Cancelled while the last action ran: the operation still fails, and rolls back.
                    fail(
                        run, index: last.index, error: "cancellation",
                        targetType: typeName(run.pending[last.index].target))
                    continue
                }
                settleSuccess(run)
                return RunOutcome(failure: nil)
            }
            let index = run.next
            let action = run.pending[index]
            if task.cancelled && task.answer == nil {
                fail(run, index: index, error: "cancellation", targetType: typeName(action.target))
                continue
            }
            guard run.removedAll || !run.removedTargets.contains(action.target) || task.answer != nil else {
                run.skippedAny = true
                run.next -= 1
                continue
            }
            guard alive[action.target] else {
                run.ranges.append((index, false))
                run.next -= 1
                continue
            }
            if let spec = asyncState.specs[action.id], spec.suspends {
                guard let resumed = task.answer else {
                    suspend(task, label: label(action, of: run), holding: action.target)
                    return nil
                }
                task.answer = nil
                release(action.target)
                guard resumed else {
                    run.ranges.append((index, true))
                    fail(run, index: index, error: "failure", targetType: typeName(action.target))
                    continue
                }
            }
            call { perform(action, in: run, owner: index) }
            run.ranges.append((index, true))
            run.next -= 1
        }
    }

    /// What a suspended handler is, as the stack's world names it: the direction the stack says it
    /// performs (`isUndoing`, `isRedoing`; neither for a group's rollback), its target, its delta.
    func label(_ action: Action, of run: RunModel) -> String {
        let direction = run.direction.map { $0 == .undo ? "undo" : "redo" } ?? "?"
        switch action.kind {
        case .add(let delta): return "\(direction) t\(action.target) \(delta)"
        case .set(let value, _): return "\(direction) t\(action.target) =\(value)"
        }
    }

    func suspend(_ task: AsyncTaskModel, label: String, holding target: Int?) {
        if let target { hold(target) }
        asyncState.arrivals += 1
        asyncState.suspensions.append(Suspension(task: task, label: label, heldTarget: target))
    }

    /// Runs an action's handler for the operation (after its await, for an asynchronous one): it
    /// changes its target and registers its inverse into the step being built (into the rollback's
    /// bin, thrown away, while rolling back).
    func perform(_ action: Action, in run: RunModel, owner: Int) {
        switch action.kind {
        case .add(let delta):
            values[action.target] += delta
            let spec = asyncState.specs[action.id]
            if let spec, !spec.registersInverse { return }
            let inverse = Action(
                id: newObjectID(), target: action.target, kind: .add(-delta), cost: action.cost, key: action.key,
                window: action.window)
            register(
                inverse, async: spec.map { AsyncSpec(suspends: $0.suspends, registersInverse: true) }, in: run,
                owner: owner)
        case .set(let value, let name):
            // `setValue` from the handler: registers, names the step being built, sets.
            if disableCount == 0 && !run.rollingBack {
                let old = values[action.target]
                register(
                    Action(
                        id: newObjectID(), target: action.target, kind: .set(old, name: name), cost: 0, key: nil,
                        window: nil),
                    async: nil, in: run, owner: owner)
                if let name { run.builtMetadata.name = name }
            }
            values[action.target] = value
        }
    }

    /// A registration by the operation's handlers (or a group's body): into the step being built;
    /// an undo's or redo's registration for a target removed meanwhile is dropped (issue 28,
    /// item 6).
    func register(_ action: Action, async spec: AsyncSpec?, in run: RunModel, owner: Int) {
        guard disableCount == 0, !run.rollingBack else { return }
        if run.direction != nil && run.removedTargets.contains(action.target) {
            count("async registration for a removed target dropped")
            return
        }
        if let spec {
            asyncState.specs[action.id] = spec
            run.builtHoldsAsync = true
        }
        run.built.append((action, owner))
        // A group's body changes the document as it registers.
        if run.direction == nil { current = newStateID() }
    }

    /// An action failed (or the task was cancelled): the rollback starts.
    func fail(_ run: RunModel, index: Int, error: String, targetType: String) {
        run.failure = (index, error, targetType)
        startRollback(run, failedIndex: index)
    }

    func startRollback(_ run: RunModel, failedIndex: Int) {
        run.rollingBack = true
        // Actions that ran and have no inverse left to run cannot be undone.
        var withInverse = Set<Int>()
        for entry in run.built { withInverse.insert(entry.owner) }
        for range in run.ranges where range.ran && range.index != failedIndex && !withInverse.contains(range.index) {
            run.unrestored.insert(range.index)
        }
    }

    /// Runs the inverses of what ran, newest first; false while one waits for the driver. Each is
    /// taken out of the step being built before it runs (a removal meanwhile does not reach it).
    func continueRollback(_ run: RunModel, of task: AsyncTaskModel) -> Bool {
        while true {
            if let (action, owner) = run.rollbackAction {
                // The inverse that suspended is answered.
                guard let answer = task.answer else { return false }
                task.answer = nil
                run.rollbackAction = nil
                release(action.target)
                guard answer else {
                    run.rollbackFailure = (owner, "failure")
                    return true
                }
                call { perform(action, in: run, owner: owner) }
                continue
            }
            guard let (action, owner) = run.built.popLast() else { return true }
            guard alive[action.target] else {
                if owner >= 0 { run.unrestored.insert(owner) } else { run.lostUnowned = true }
                continue
            }
            if let spec = asyncState.specs[action.id], spec.suspends {
                run.rollbackAction = (action, owner)
                suspend(task, label: label(action, of: run), holding: action.target)
                return false
            }
            call { perform(action, in: run, owner: owner) }
        }
    }

    var rollbackText: (RunModel) -> String {
        { run in
            if let failed = run.rollbackFailure { return "failed(\(failed.index), \(failed.error))" }
            if run.unrestored.isEmpty && !run.lostUnowned { return "restored" }
            return "incomplete\(run.unrestored.sorted())"
        }
    }

    /// The step succeeded: it leaves its side, the opposite step takes its place on the other, and
    /// new changes from other tasks go on top of where it arrived.
    func settleSuccess(_ run: RunModel) {
        call {
            leaveMidwayMarks(of: run)
            let undoing = run.direction == .undo
            if !run.removedAll {
                // Gone when a removal by target took its every action: no do-nothing step stands in.
                let stepVanished = !side(undoing ? .undo : .redo).closed.contains { $0.id == run.stepID }
                withSide(undoing ? .undo : .redo) { side in side.closed.removeAll { $0.id == run.stepID } }
                let everyActionRan = !run.skippedAny && run.ranges.allSatisfy(\.ran)
                let (from, to) = undoing ? (run.high, run.low) : (run.low, run.high)
                let after = run.stateBefore == from && everyActionRan ? to : newStateID()
                if run.sawNewChange {
                    relinkNewChanges(of: run, to: after)
                } else {
                    current = after
                }
                let actions = run.built.map(\.action)
                if run.builtHoldsAsync { asyncState.asyncFrames.insert(run.builtID) }
                if undoing {
                    // After another task's change it is part of the redo future that change ends.
                    if !actions.isEmpty {
                        redoSide.closed.append(
                            Step(
                                id: run.builtID, actions: actions, metadata: run.builtMetadata, low: after,
                                high: run.stateBefore, node: run.node))
                    } else if !stepVanished {
                        // Section 19: nothing was built; the node is gone.
                        nodeVanished(run.node, parent: nodeBeforeNewChanges(of: run))
                    }
                } else if !actions.isEmpty || (!dropsEmptyGroups && disableCount == 0 && !stepVanished) {
                    // A step the redo's handlers left empty does nothing: it leads from where it ends.
                    let (low, high) = actions.isEmpty ? (after, after) : (run.stateBefore, after)
                    let position =
                        undoSide.closed.firstIndex { !run.closedAtMark.contains($0.id) } ?? undoSide.closed.count
                    undoSide.closed.insert(
                        Step(
                            id: run.builtID, actions: actions, metadata: run.builtMetadata, low: low, high: high,
                            node: run.node),
                        at: position)
                    pendingTrim = true
                } else if !stepVanished {
                    nodeVanished(run.node, parent: nodeBeforeNewChanges(of: run))
                }
                if run.sawNewChange { endRedoFutureAfterNewChange(of: run) }
            }
            post(
                undoing ? .didUndo : .didRedo, discardable: run.metadata.discardable,
                in: undoing ? .notifyingUndo : .notifyingRedo)
            asyncState.run = nil
            asyncState.lastRunSawNewChange = run.sawNewChange
        }
    }

    /// New changes were recorded while an operation was in flight: the change "sits on top of the
    /// state the operation reached": the oldest of them now leads back to `state`. A do-nothing
    /// step among them (an empty group, which empties the redo side as a change does) leads from
    /// that state to itself; when none of them changed the document, the document is in `state`.
    ///
    /// SPEC-QUESTION: a group another task held open, holding changes, when an asynchronous group
    /// started (an undo or redo closes it first) becomes, when it closes, the oldest new change,
    /// though its first changes came before the group's. Should the group's body throw and its
    /// rollback restore the document, that step then leads back to where the group began (the state
    /// with those first changes applied), where undoing it leads further back: undoing it is then
    /// never clean. The model reads it as the stack does; no reading gets every state of that
    /// interleaving right, since the open group's states include the group's rolled-back changes.
    func relinkNewChanges(of run: RunModel, to state: Int) {
        var index = undoSide.closed.firstIndex { !run.closedAtMark.contains($0.id) } ?? undoSide.closed.count
        while index < undoSide.closed.count && undoSide.closed[index].actions.isEmpty {
            undoSide.closed[index].low = state
            undoSide.closed[index].high = state
            index += 1
        }
        if index < undoSide.closed.count {
            undoSide.closed[index].low = state
        } else if !undoSide.frames.isEmpty {
            undoSide.frames[0].low = state
            if Self.openActions(undoSide).isEmpty { current = state }
        } else {
            current = state
        }
    }

    /// An action failed and the rollback ended: the step stays; returns the result text.
    func settleFailure(_ run: RunModel) -> String {
        call { () -> String in
            leaveMidwayMarks(of: run)
            let undoing = run.direction == .undo
            guard let failed = run.failure else { fatalError("no failure") }
            let rollback = rollbackText(run)
            count(
                "async rollback "
                    + (rollback.firstIndex { $0 == "(" || $0 == "[" }.map { String(rollback[..<$0]) } ?? rollback))
            let failure =
                "failed(\(undoing ? "undo" : "redo") '\(run.metadata.name)' \(failed.index)/\(run.pending.count) "
                + "\(failed.targetType) \(failed.error) rollback \(rollback))"
            if rollback != "restored" && !run.removedAll {
                // The document is in a state the history does not know: new, not clean.
                let fresh = newStateID()
                if !run.sawNewChange { current = fresh }
                withSide(undoing ? .undo : .redo) { side in
                    if let index = side.closed.firstIndex(where: { $0.id == run.stepID }) {
                        if undoing { side.closed[index].high = fresh } else { side.closed[index].low = fresh }
                    }
                }
                if run.rollbackFailure != nil {
                    count("async broken step")
                    asyncState.broken = BrokenMark(stepID: run.stepID, isUndo: undoing, name: run.metadata.name)
                }
            }
            if run.sawNewChange { endRedoFutureAfterNewChange(of: run) }
            asyncState.failPosted(undoing)
            asyncState.run = nil
            asyncState.lastRunSawNewChange = run.sawNewChange
            return failure
        }
    }

    // MARK: Asynchronous groups

    func advanceGroup(_ task: AsyncTaskModel) {
        guard case .group(let name, let items, let throwing) = task.program else { fatalError("not a group") }
        while true {
            switch task.phase {
            case .submit:
                // While registration is disabled, the body simply runs.
                if disableCount != 0 {
                    count("async group body run plainly")
                    task.plain = true
                    task.phase = .body
                    continue
                }
                if let refusal = admit(task) { return finish(task, refusal) }
                if task.phase == .waiting { return }
            case .waiting:
                guard let reason = task.cancelReason else { return }
                return finish(task, "cancelled(\(reason.rawValue))")
            case .start:
                call {
                    endCoalescing()
                    let mark = nextObjectID
                    task.run = RunModel(
                        direction: nil, step: nil, stateBefore: current, mark: mark,
                        closedAtMark: Set(undoSide.closed.map(\.id)), builtID: newObjectID())
                    asyncState.run = task.run
                    post(.didOpen)
                }
                task.phase = .body
            case .body:
                var threw = false
                while task.position < items.count {
                    let item = items[task.position]
                    if case .suspend = item {
                        guard let answer = task.answer else {
                            suspend(task, label: "body item \(task.position)", holding: nil)
                            return
                        }
                        task.answer = nil
                        task.position += 1
                        if !answer {
                            threw = true
                            break
                        }
                        continue
                    }
                    runBodyItem(item, of: task)
                    task.position += 1
                }
                threw = threw || throwing
                if task.plain { return finish(task, threw ? "threw" : "returned") }
                guard let run = task.run else { fatalError("no recording") }
                if !threw {
                    closeRecording(run, name: name)
                    return end(task, "returned")
                }
                // Its open notification is paired before the rollback, as a scoped group's
                // (issue 28, item 3).
                call {
                    post(.willClose, in: .closingGroup)
                    post(.didClose, discardable: run.builtMetadata.discardable)
                }
                startRollback(run, failedIndex: -1)
                task.phase = .groupRollback
            case .groupRollback:
                guard let run = task.run else { fatalError("no recording") }
                guard continueRollback(run, of: task) else { return }
                settleRecordingFailure(run)
                return end(task, "threw")
            case .jumpNext, .step, .done:
                return
            }
        }
    }

    /// One item of a group's body. Run plainly (registration was disabled when the group was
    /// called), the body's calls are those of any other task.
    func runBodyItem(_ item: GroupItem, of task: AsyncTaskModel) {
        switch item {
        case .register(let slot, let delta, let spec):
            guard let target = asyncState.resolveSlot(slot) else { return }
            values[target] += delta
            if task.plain {
                if let spec {
                    registerAsyncUndo(target: target, delta: delta, spec: spec)
                } else {
                    registerUndo(target: target, kind: .add(-delta))
                }
                return
            }
            call {
                guard let run = task.run, disableCount == 0 else { return }
                let action = Action(
                    id: newObjectID(), target: target, kind: .add(-delta), cost: 0, key: nil, window: nil)
                register(action, async: spec, in: run, owner: -1)
            }
        case .suspend:
            break
        case .name(let name):
            if task.plain { return setActionName(name) }
            call {
                guard let run = task.run, disableCount == 0 else { return }
                run.builtMetadata.name = name
            }
        }
    }

    /// The body returned: what it recorded becomes a step on top of the undo stack (below a group
    /// another task holds open), and the redo stack is emptied.
    ///
    /// SPEC-QUESTION: the article says the group's step "goes on top of" the changes other tasks
    /// recorded meanwhile, and that those made the state the step leads back to one that never
    /// existed (so undoing it is never clean). A group another task still holds open stays on top,
    /// and leads from where the group's step ends (the stack's reading).
    func closeRecording(_ run: RunModel, name: String?) {
        call {
            post(.willClose, in: .closingGroup)
            let actions = run.built.map(\.action)
            var metadata = run.builtMetadata
            if let name { metadata.name = name }
            asyncState.run = nil
            asyncState.lastRunSawNewChange = run.sawNewChange
            var discardable = false
            if !run.removedAll && (!actions.isEmpty || !dropsEmptyGroups) {
                // Section 19: a branch of the node the group began at (after another task's change,
                // the node the document was at when it came), then the step takes the next number.
                if run.sawNewChange { endRedoFutureAfterNewChange(of: run) } else { detachRedoSide() }
                let high = current
                let low = actions.isEmpty ? high : run.sawNewChange ? newStateID() : run.stateBefore
                discardable = metadata.discardable
                undoSide.closed.append(
                    Step(
                        id: run.builtID, actions: actions, metadata: metadata, low: low, high: high,
                        node: makeChangeNode()))
                if run.builtHoldsAsync { asyncState.asyncFrames.insert(run.builtID) }
                if !undoSide.frames.isEmpty { undoSide.frames[0].low = high }
                endCoalescing()
                trim()
            } else if run.sawNewChange && !run.removedAll {
                // Dropped, the group leaves another task's change the newest: that change ends
                // the redo future now, as it ends it whatever the group records.
                endRedoFutureAfterNewChange(of: run)
            }
            post(.didClose, discardable: discardable)
        }
    }

    /// The body threw and its registrations were rolled back: no step is left.
    func settleRecordingFailure(_ run: RunModel) {
        call {
            asyncState.run = nil
            asyncState.lastRunSawNewChange = run.sawNewChange
            if run.sawNewChange { endRedoFutureAfterNewChange(of: run) }
            if run.rollbackFailure == nil && run.unrestored.isEmpty && !run.lostUnowned {
                // The body's changes are undone: the document is where the group began, plus other
                // tasks' changes, which now lead from there.
                if run.removedAll { return }
                if run.sawNewChange {
                    relinkNewChanges(of: run, to: run.stateBefore)
                } else {
                    current = run.stateBefore
                }
                return
            }
            if !run.removedAll { current = newStateID() }
        }
    }
}
