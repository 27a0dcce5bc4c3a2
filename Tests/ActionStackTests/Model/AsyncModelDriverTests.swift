// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The asynchronous random driver against the real stack: the stack's world (handlers that suspend
// until the driver resumes them) and the tests.
//
// How to run:
//   swift test --filter AsyncModelDriverTests                          (CI: 100,000+ events)
//   ASYNC_MODEL_FIRST_SEED=1234 swift test --filter AsyncModelDriverTests   (other seeds)
//   ASYNC_MODEL_TRACE=1 ...                                          (print each event and the model)
//   ACTIONSTACK_ASYNC_MODEL_SOAK_OPERATIONS=5000000 swift test --filter AsyncModelDriverTests/soak
// A divergence is reported with its seed, the last events, and a shrunk, replayable
// `AsyncDriverCase` (Swift source): paste it into `AsyncModelDriverTests.regressions`.

import ActionStack
import Foundation
import Testing

/// What a handler or a group's body throws when the driver resumes it with a failure.
struct DriverAwaitFailure: Error {}

/// The real stack driven by asynchronous driver events, on the main actor. Its synchronous part is
/// the synchronous driver's world.
@MainActor
final class AsyncStackWorld: AsyncDriverStackWorld {
    let world: StackWorld
    var stack: ActionStack { world.stack }
    /// The index of each target object the world made (a handler names its target by it).
    private var indexOf: [ObjectIdentifier: Int] = [:]
    private var suspensions: [(label: String, continuation: CheckedContinuation<Bool, Never>)] = []
    /// The suspensions made so far.
    private var arrivals = 0
    /// The driver's tasks, in the order they were made: number, task, whether the driver may cancel it.
    private var tasks: [(number: Int, task: Task<Void, Never>, cancellable: Bool)] = []
    private var results: [Int: String] = [:]
    private var nextNumber = 0
    private var lastStarted: ActionStack.OperationRequest?
    private var cursor = 0
    private var filtered: [DriverEvent] = []
    private var tokens: [any NSObjectProtocol] = []
    /// Whether asynchronous actions are registered as commands (`DriverAsyncAddCommand`, which a
    /// journal saves) rather than closures (the journal driver, `JournalAsyncReplayTests`).
    let asyncCommands: Bool
    /// The stack whose operation performs the commands, when it is not `stack` (a stack restored
    /// from a saved history, walked by the journal driver).
    var commandStack: ActionStack?

    init(_ driverCase: AsyncDriverCase, asyncCommands: Bool = false) {
        world = StackWorld(driverCase.syncCase)
        self.asyncCommands = asyncCommands
        noteTargets()
        let world = self.world
        stack.onMisuse = { [unowned world] misuse in world.events.append(.misuse(Self.map(misuse))) }
        for (name, text) in [
            (ActionStack.didFailUndoChangeNotification, "didFailUndo"),
            (ActionStack.didFailRedoChangeNotification, "didFailRedo"),
        ] {
            tokens.append(
                NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) { [unowned world] _ in
                    world.events.append(.result(text))
                })
        }
        // Observers of an operation's own notifications read isUndoing (isRedoing) as true, as in a
        // synchronous undo (issue 28, item 2); a wrong reading is logged, which the model never does.
        for (name, undoing) in [
            (ActionStack.willUndoChangeNotification, true), (ActionStack.didUndoChangeNotification, true),
            (ActionStack.didFailUndoChangeNotification, true), (ActionStack.willRedoChangeNotification, false),
            (ActionStack.didRedoChangeNotification, false), (ActionStack.didFailRedoChangeNotification, false),
        ] {
            tokens.append(
                NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) {
                    [unowned world] note in
                    guard let stack = note.object as? ActionStack,
                        stack.isUndoing != undoing || stack.isRedoing != !undoing
                    else { return }
                    world.events.append(
                        .result("\(name.rawValue): isUndoing \(stack.isUndoing), isRedoing \(stack.isRedoing)"))
                })
        }
    }

    isolated deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }

    private func noteTargets() {
        for (index, target) in world.targets.enumerated() {
            if let target {
                indexOf[ObjectIdentifier(target)] = index
                if asyncCommands { DriverAsyncAddCommand.worlds[ObjectIdentifier(target)] = .init(self) }
            }
        }
    }

    // MARK: Asynchronous actions

    /// `target.value += delta`, then the asynchronous inverse.
    func applyAsync(_ target: DriverTarget, _ delta: Int, _ spec: ReferenceModel.AsyncSpec) {
        target.value += delta
        registerAsyncInverse(target, -delta, spec)
    }

    private func registerAsyncInverse(_ target: DriverTarget, _ delta: Int, _ spec: ReferenceModel.AsyncSpec) {
        if asyncCommands {
            (commandStack ?? stack).registerAsyncUndo(
                DriverAsyncAddCommand(delta: delta, suspends: spec.suspends, registersInverse: spec.registersInverse),
                on: target, key: target.key)
            return
        }
        stack.registerAsyncUndo(withTarget: target) { [unowned self] target in
            try await runAsync(target, delta, spec)
        }
    }

    /// A `DriverAsyncAddCommand` performed on the target the world knows as `id`.
    func runCommand(_ id: ObjectIdentifier, _ delta: Int, _ spec: ReferenceModel.AsyncSpec) async throws {
        guard let target = world.targets.first(where: { $0.map(ObjectIdentifier.init) == id }) ?? nil else {
            throw DriverAwaitFailure()
        }
        try await runAsync(target, delta, spec)
    }

    /// A new task awaits `performJump(toNode:)` to the node at `position` (modulo their number) of
    /// the history tree (the journal driver's asynchronous tree move).
    func performJumpToNode(_ position: Int) {
        let nodes = stack.historyTree?.nodes.map(\.id) ?? []
        guard !nodes.isEmpty else { return }
        let node = nodes[position % nodes.count]
        spawn { world in
            await Self.text { () async throws(ActionStack.OperationError) in
                try await world.stack.performJump(toNode: node)
            }
        }
    }

    /// An asynchronous handler: awaits the driver, then changes its target and registers its inverse.
    private func runAsync(_ target: DriverTarget, _ delta: Int, _ spec: ReferenceModel.AsyncSpec) async throws {
        if spec.suspends {
            let direction = stack.isUndoing ? "undo" : stack.isRedoing ? "redo" : "?"
            let label = "\(direction) t\(indexOf[ObjectIdentifier(target)] ?? -1) \(delta)"
            guard await suspend(label) else { throw DriverAwaitFailure() }
        }
        target.value += delta
        if spec.registersInverse {
            registerAsyncInverse(target, -delta, .init(suspends: spec.suspends, registersInverse: true))
        }
    }

    private func suspend(_ label: String) async -> Bool {
        arrivals += 1
        return await withCheckedContinuation { suspensions.append((label, $0)) }
    }

    // MARK: Tasks

    private func spawn(cancellable: Bool = true, _ body: @escaping @MainActor (AsyncStackWorld) async -> String) {
        let number = nextNumber
        nextNumber += 1
        let task = Task { @MainActor in
            let text = await body(self)
            self.results[number] = text
        }
        tasks.append((number, task, cancellable))
    }

    private func liveTasks() -> [(number: Int, task: Task<Void, Never>, cancellable: Bool)] {
        tasks.filter { results[$0.number] == nil }
    }

    /// The request the last synchronous call started, if it is new: the driver awaits it.
    private func noteStartedRequest() {
        guard let request = stack.startedRequest, request !== lastStarted else { return }
        lastStarted = request
        spawn(cancellable: false) { _ in
            await Self.text { () async throws(ActionStack.OperationError) in try await request.value() }
        }
    }

    private func runGroup(name: String?, body: [ReferenceModel.GroupItem], throwing: Bool) async -> String {
        do {
            try await stack.asyncGroup(named: name) {
                for (position, item) in body.enumerated() {
                    switch item {
                    case .register(let slot, let delta, let spec):
                        guard let target = world.target(slot) else { continue }
                        if let spec {
                            applyAsync(target, delta, spec)
                        } else {
                            world.apply(target, delta, .plain)
                        }
                    case .suspend:
                        guard await suspend("body item \(position)") else { throw DriverAwaitFailure() }
                    case .name(let name):
                        stack.setActionName(name)
                    }
                }
                if throwing { throw DriverAwaitFailure() }
            }
            return "returned"
        } catch let error as ActionStack.OperationError {
            return Self.describe(error)
        } catch {
            return "threw"
        }
    }

    // MARK: The world

    func perform(_ op: AsyncOp) {
        switch op {
        case .sync(let op):
            world.perform(op)
            if case .replace = op { noteTargets() }
            if case .scope = op { noteTargets() }
            noteStartedRequest()
        case .registerAsync(let slot, let delta, let suspends, let inverse):
            guard let target = world.target(slot) else { return }
            applyAsync(target, delta, .init(suspends: suspends, registersInverse: inverse))
        case .performUndo:
            spawn { world in
                await Self.text { () async throws(ActionStack.OperationError) in try await world.stack.performUndo() }
            }
        case .performRedo:
            spawn { world in
                await Self.text { () async throws(ActionStack.OperationError) in try await world.stack.performRedo() }
            }
        case .performJump(let position):
            spawn { world in
                await Self.text { () async throws(ActionStack.OperationError) in
                    try await world.stack.performJump(to: position)
                }
            }
        case .performJumpToNode(let offset):
            let node = ActionStack.HistoryNode.ID(sequence: (stack.currentNode?.sequence ?? 0) + offset)
            spawn { world in
                await Self.text { () async throws(ActionStack.OperationError) in
                    try await world.stack.performJump(toNode: node)
                }
            }
        case .retryBroken:
            spawn { world in
                await Self.text { () async throws(ActionStack.OperationError) in try await world.stack.retryBrokenStep()
                }
            }
        case .asyncGroup(let name, let body, let throwing):
            spawn { world in await world.runGroup(name: name, body: body, throwing: throwing) }
        case .cancelledAwaiter:
            guard let request = stack.startedRequest else { return }
            spawn(cancellable: false) { _ in
                withUnsafeCurrentTask { $0?.cancel() }
                return await Self.text { () async throws(ActionStack.OperationError) in try await request.value() }
            }
        case .resume(let position, let fails):
            guard !suspensions.isEmpty else { return }
            suspensions.remove(at: position % suspensions.count).continuation.resume(returning: !fails)
        case .cancelTask(let position):
            let live = liveTasks().filter(\.cancellable)
            guard !live.isEmpty else { return }
            live[position % live.count].task.cancel()
        case .cancelPending: stack.cancelPendingRequests()
        case .busyPolicy(let limit): stack.busyPolicy = limit.map { .queue(limit: $0) } ?? .dropWhileBusy
        case .discardBroken: stack.discardBrokenStep()
        }
    }

    var log: [DriverEvent] {
        AsyncDriverLog.filter(world.events, from: &cursor, into: &filtered)
        return filtered
    }

    var fingerprint: AsyncFingerprint {
        AsyncFingerprint(
            events: log.count, results: results.count, arrivals: arrivals, suspensions: suspensions.count,
            isBusy: stack.isBusy,
            pendingRequestCount: stack.pendingRequestCount)
    }

    /// Lets the tasks run (each `Task.yield()` lets every job the main actor has first run) until
    /// the world shows what the model expects. Every step a task takes changes the fingerprint (it
    /// counts the suspensions made so far), so a match is not a state the stack passes through on
    /// its way elsewhere but where the model says it stops; had the stack gone further, the next
    /// comparison sees it (the log and the state are compared in full).
    ///
    /// One hop comes from another thread: the rollback of a cancelled operation runs in a new task,
    /// which starts on the global executor before it reaches the main actor. Yields cost nothing
    /// while the main actor has nothing else to run, so every 50th turn sleeps a millisecond, to
    /// leave that thread time on a loaded machine (the soak once gave up before it came). A stack
    /// that never reaches the model's state is reported after about 40 of them.
    func settle(toward expected: AsyncFingerprint) async {
        for turn in 1...2_000 {
            if fingerprint == expected { return }
            if turn % 50 == 0 {
                try? await Task.sleep(for: .milliseconds(1))
            } else {
                await Task.yield()
            }
        }
    }

    func tearDown() async {
        for _ in 0..<2_000 {
            if suspensions.isEmpty && liveTasks().isEmpty { return }
            stack.cancelPendingRequests()
            while !suspensions.isEmpty { suspensions.removeFirst().continuation.resume(returning: true) }
            await Task.yield()
        }
    }

    func snapshot(readTree: Bool) -> AsyncSnapshot {
        let flags = stack._flags
        var snapshot = AsyncSnapshot(
            structure: stack._structure, stateShape: stack._stateShape,
            values: world.slotTarget.map { world.targets[$0]?.value },
            invariantViolations: stack._invariantViolations(),
            isBusy: stack.isBusy, pendingRequestCount: stack.pendingRequestCount,
            brokenStep: stack.brokenStep.map { "\($0.isUndo ? "undo" : "redo") '\($0.stepName)'" } ?? "-",
            suspensions: suspensions.map(\.label), results: results,
            getters: [flags.groupingLevel, flags.isUndoRegistrationEnabled ? 1 : 0])
        // (The shape in effect: a change of shape waits while a request holds the turn.)
        if let node = stack.currentNode {
            snapshot.currentNode = node.sequence
            if readTree, let tree = stack.historyTree {
                snapshot.tree = StackWorld.map(tree)
                snapshot.treeMarks =
                    tree.nodes.filter(\.isInFlight).map { "f#\($0.sequence)" }
                    + tree.nodes.filter(\.isBroken).map { "b#\($0.sequence)" }
            }
        }
        return snapshot
    }

    // MARK: The library's values as text

    static func text(_ body: () async throws(ActionStack.OperationError) -> Bool) async -> String {
        do {
            return "\(try await body())"
        } catch {
            return describe(error)
        }
    }

    static func describe(_ error: ActionStack.OperationError) -> String {
        if let failure = error.actionFailure {
            let rollback: String
            if failure.rollback.isRestored {
                rollback = "restored"
            } else if let indices = failure.rollback.unrestoredActions {
                rollback = "incomplete\(indices)"
            } else if let index = failure.rollback.failedActionIndex, let error = failure.rollback.error {
                rollback = "failed(\(index), \(errorText(error)))"
            } else {
                rollback = "unknown(\(failure.rollback))"
            }
            return "failed(\(failure.isUndo ? "undo" : "redo") '\(failure.stepName)' "
                + "\(failure.actionIndex)/\(failure.actionCount) "
                + "\(failure.targetType == "a freed target" ? "freed" : "target") \(errorText(failure.underlying)) "
                + "rollback \(rollback)) reached "
                + (failure.reachedNode.map { "#\($0.sequence)" } ?? failure.reachedPosition.map(String.init) ?? "-")
        }
        if let reason = error.cancellationReason {
            let names: [ActionStack.CancellationReason: ReferenceModel.CancelReason] = [
                .task: .task, .cancelPendingRequests: .cancelPendingRequests, .removeAllActions: .removeAllActions,
                .newChange: .newChange, .brokenStep: .brokenStep,
            ]
            return "cancelled(\(names[reason]?.rawValue ?? "unknown(\(reason))"))"
        }
        if error.dropReason == .busy { return "dropped(busy)" }
        if error.dropReason == .queueFull { return "dropped(queueFull)" }
        if error.isStackBroken { return "stackBroken" }
        if let misuse = error.misuse { return "misuse(\(map(misuse)))" }
        if let error = error.historyTreeError { return "historyTree(\(StackWorld.text(error)))" }
        return "unknown(\(error))"
    }

    static func errorText(_ error: any Error) -> String {
        if error is CancellationError { return "cancellation" }
        if error is DriverAwaitFailure { return "failure" }
        return "\(error)"
    }

    /// The library's misuses as the model's; the asynchronous ones by case name.
    static func map(_ misuse: ActionStack.Misuse) -> ReferenceModel.Misuse {
        let operation = misuse.operation
        for (name, kind) in [
            ("stepIsBroken", ActionStack.Misuse.stepIsBroken), ("notWhileAsync", ActionStack.Misuse.notWhileAsync),
            ("awaitsOwnOperation", ActionStack.Misuse.awaitsOwnOperation),
            ("needsAwait", ActionStack.Misuse.needsAwait),
        ] where misuse == kind(operation) {
            return .asynchronous("\(name)(\(StackWorld.map(operation)))")
        }
        return StackWorld.map(misuse)
    }
}

// MARK: - Tests

@MainActor
@Suite(.serialized) struct AsyncModelDriverTests {
    /// Failing cases found by the driver, pasted from its reports: replayed in every run.
    nonisolated static let regressions: [AsyncDriverCase] = [
        // A branching history: a time move whose newest node's step lost its target is passed over
        // to a node whose step awaits, so the move becomes a request (the model once decided the
        // route before the sweep and redid that step at once). Found by the soak.
        AsyncDriverCase(
            seed: 1_000_155,
            config: .init(groupsByEvent: true, dropsEmptyGroups: true, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .registerAsync(slot: 1, delta: 74, suspends: true, registersInverse: true),
                .sync(.undo),
                .sync(.register(slot: 0, delta: 96, options: .init(cost: 2))),
                .resume(0, fails: false),
                .performUndo,
                .sync(.free(slot: 0)),
                .sync(.laterBy(139)),
            ]
        ),
        // A branching history: an awaited jump whose way up loses steps to a removal by target
        // while it runs turns down at the common ancestor; it planned four undos and once tried a
        // fourth at the root, where the way had ended, and stopped short of its target (a library
        // bug, fixed: `TreeWalk` turns down at the planned turn node). Found by the soak.
        AsyncDriverCase(
            seed: 3_000_794,
            config: .init(groupsByEvent: false, dropsEmptyGroups: true, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .sync(.begin),
                .registerAsync(slot: 2, delta: 68, suspends: true, registersInverse: true),
                .performUndo,
                .sync(.begin),
                .sync(.register(slot: 0, delta: 70, options: .plain)),
                .resume(0, fails: false),
                .asyncGroup(
                    name: "Move",
                    body: [.register(slot: 2, delta: 90, async: .init(suspends: true, registersInverse: true))],
                    throwing: false),
                .performUndo,
                .sync(.begin),
                .registerAsync(slot: 1, delta: 23, suspends: false, registersInverse: true),
                .sync(.end),
                .sync(.begin),
                .registerAsync(slot: 1, delta: 73, suspends: true, registersInverse: false),
                .sync(.undo),
                .sync(.begin),
                .registerAsync(slot: 0, delta: 90, suspends: true, registersInverse: true),
                .sync(.end),
                .sync(.begin),
                .registerAsync(slot: 1, delta: 68, suspends: true, registersInverse: true),
                .sync(.end),
                .resume(0, fails: false),
                .performJumpToNode(-6),
                .sync(.removeTarget(slot: 1)),
            ]
        ),
        // A time move that would not move (at the newest node, whose step's target is freed) does
        // nothing, and sweeps nothing either.
        AsyncDriverCase(
            seed: 300,
            config: .init(groupsByEvent: true, dropsEmptyGroups: true, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .registerAsync(slot: 2, delta: 33, suspends: true, registersInverse: true),
                .sync(.free(slot: 2)),
                .sync(.end),
                .sync(.laterBy(91)),
            ]
        ),
        // A branching history: the broken step, in a branch once a new change ended the redo future
        // it was on, is still marked broken in the snapshot (the model once looked on its side
        // only). Found by the soak.
        AsyncDriverCase(
            seed: 2_000_039,
            config: .init(groupsByEvent: true, dropsEmptyGroups: false, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .registerAsync(slot: 1, delta: 49, suspends: true, registersInverse: true),
                .registerAsync(slot: 0, delta: 31, suspends: true, registersInverse: true),
                .performUndo,
                .resume(0, fails: false),
                .resume(0, fails: false),
                .sync(.redo),
                .resume(0, fails: false),
                .resume(0, fails: true),
                .registerAsync(slot: 0, delta: 10, suspends: true, registersInverse: true),
                .resume(0, fails: true),
            ]
        ),
        // removeAllActions() while an undo awaits its second action, whose task is then cancelled:
        // the rollback cannot undo the first action (its inverse went with the history), so it is
        // incomplete (the stack said restored: it matched inverses to actions by positions that the
        // removal had emptied).
        AsyncDriverCase(
            seed: 17,
            config: .init(groupsByEvent: true, dropsEmptyGroups: true, logsMisuse: false, slots: 3),
            ops: [
                .registerAsync(slot: 2, delta: 93, suspends: true, registersInverse: true),
                .registerAsync(slot: 1, delta: 93, suspends: true, registersInverse: true),
                .performUndo,
                .resume(0, fails: false),
                .cancelTask(3),
                .sync(.removeAll),
            ]
        ),
        // The same with removeAllActions(withTarget:): the inverse of the action that ran is removed,
        // the next action fails, and the document is not where it was marked clean, so it is not
        // clean (the stack said the rollback restored it, and the document clean).
        AsyncDriverCase(
            seed: 0,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .sync(.begin),
                .registerAsync(slot: 0, delta: 5, suspends: true, registersInverse: true),
                .registerAsync(slot: 1, delta: 7, suspends: true, registersInverse: true),
                .sync(.end),
                .sync(.markClean),
                .performUndo,
                .resume(0, fails: false),
                .sync(.removeTarget(slot: 1)),
                .resume(0, fails: true),
                .sync(.query(.isClean)),
            ]
        ),
        // An empty group closed while a jump undoes a step is a new change that changes nothing:
        // it leads from where the undo arrives to itself, and the document is there, clean (the
        // stack linked the empty step from there to the state before the undo, breaking its own
        // invariant, and left the document in that state, not clean).
        AsyncDriverCase(
            seed: 23,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .sync(.begin),
                .sync(.end),
                .sync(.begin),
                .registerAsync(slot: 2, delta: 3, suspends: true, registersInverse: true),
                .performJump(1),
                .sync(.begin),
                .sync(.end),
                .resume(0, fails: false),
                .sync(.query(.isClean)),
            ]
        ),
        // A scoped group ends while an undo awaits, with a trim pending (levelsOfUndo 1): the trim
        // waits until the undo settles (the stack trimmed the step in flight when the scope ended).
        AsyncDriverCase(
            seed: 274,
            config: .init(groupsByEvent: false, dropsEmptyGroups: true, logsMisuse: false, slots: 3),
            ops: [
                .sync(.levels(1)),
                .sync(.begin),
                .registerAsync(slot: 0, delta: 74, suspends: true, registersInverse: true),
                .sync(.undo),
                .sync(.begin),
                .registerAsync(slot: 0, delta: 83, suspends: true, registersInverse: false),
                .sync(.end),
                .sync(.scope(name: "Type", body: [], throwing: false)),
            ]
        ),
        // A retry of a broken step fails again (its task is cancelled) while a redo waits behind
        // it: the step is broken again before the turn passes on, so the redo is cancelled, as
        // behind any operation that leaves a broken step (the stack handed the turn on first: the
        // redo started on a broken stack and reported a misuse its caller never made).
        AsyncDriverCase(
            seed: 280,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .sync(.begin),
                .registerAsync(slot: 0, delta: 42, suspends: true, registersInverse: false),
                .registerAsync(slot: 0, delta: 99, suspends: true, registersInverse: true),
                .sync(.undo),
                .resume(0, fails: false),
                .resume(0, fails: true),
                .resume(0, fails: true),
                .retryBroken,
                .cancelTask(0),
                .performRedo,
            ]
        ),
        // The Edit menu's undo() with an open group listed first, holding only an action whose
        // target was freed, above an asynchronous group's step: closed, the group is freed and
        // dropped, and the step undo() now reaches holds an asynchronous action, so it is started
        // as a request (the stack undid it synchronously: the action's work was never awaited, the
        // step left the history with the document unchanged; the soak found this).
        AsyncDriverCase(
            seed: 1_000_058,
            config: .init(groupsByEvent: true, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .asyncGroup(
                    name: nil,
                    body: [.register(slot: 2, delta: 44, async: .init(suspends: false, registersInverse: true))],
                    throwing: false),
                .sync(.register(slot: 0, delta: 3, options: .plain)),
                .sync(.free(slot: 0)),
                .sync(.undo),
            ]
        ),
        // A retry of a broken undo step after a new change was recorded above it: running "the
        // same operation again" would undo the new change instead, so the retry runs nothing and
        // the step stays broken (the stack retried the newest step, here the new change, and left
        // the broken step unmarked had that succeeded; the soak found this).
        AsyncDriverCase(
            seed: 1_000_106,
            config: .init(groupsByEvent: true, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .registerAsync(slot: 2, delta: 55, suspends: true, registersInverse: true),
                .sync(.scope(name: "Draw", body: [], throwing: false)),
                .performUndo,
                .cancelTask(1),
                .resume(0, fails: false),
                .resume(0, fails: true),
                .registerAsync(slot: 0, delta: 36, suspends: true, registersInverse: true),
                .retryBroken,
                .cancelTask(2),
            ]
        ),
        // The Edit menu's jump(to:) forward with a freed step on the undo stack: the jump sweeps
        // it away first, which moves the positions, and then redoes an asynchronous step, so it is
        // started as a request (the stack counted the steps to redo before the sweep, found none,
        // and redid the asynchronous step synchronously: its work was never awaited and an empty
        // step was left; the soak found this).
        AsyncDriverCase(
            seed: 1_001_279,
            config: .init(groupsByEvent: true, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .registerAsync(slot: 0, delta: 70, suspends: true, registersInverse: true),
                .sync(.end),
                .registerAsync(slot: 1, delta: 97, suspends: true, registersInverse: true),
                .performUndo,
                .asyncGroup(name: nil, body: [], throwing: false),
                .resume(0, fails: true),
                .asyncGroup(name: nil, body: [], throwing: false),
                .registerAsync(slot: 2, delta: 38, suspends: true, registersInverse: true),
                .sync(.groupsByEvent(false)),
                .performRedo,
                .sync(.free(slot: 1)),
                .sync(.begin),
                .sync(.end),
                .sync(.begin),
                .registerAsync(slot: 0, delta: 39, suspends: true, registersInverse: true),
                .sync(.undo),
                .resume(0, fails: false),
                .sync(.jump(6)),
            ]
        ),
        // Issue 28, item 6: an undo's inverse registered after `removeAllActions(withTarget:)` for
        // that target is dropped, and the step the undo builds is not marked asynchronous for it
        // (the stack marked the built step as holding an asynchronous action it had dropped).
        AsyncDriverCase(
            seed: 7,
            config: .init(groupsByEvent: true, dropsEmptyGroups: true, logsMisuse: false, slots: 3),
            ops: [
                .sync(.register(slot: 2, delta: 45, options: .init(key: "k2"))),
                .registerAsync(slot: 1, delta: 17, suspends: true, registersInverse: true),
                .performUndo,
                .sync(.removeTarget(slot: 1)),
            ]
        ),
        // Issue 28, item 6: the one-action step the removal emptied does not come back on the redo
        // side when its handler registers its inverse after the await.
        AsyncDriverCase(
            seed: 2_801,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .sync(.begin),
                .registerAsync(slot: 0, delta: 5, suspends: true, registersInverse: true),
                .sync(.end),
                .performUndo,
                .sync(.removeTarget(slot: 0)),
                .resume(0, fails: false),
            ]
        ),
        // Issue 28, item 4: a mark made while a two-action undo awaits its second action, which
        // fails; the rollback restores the document, which is not the saved one.
        AsyncDriverCase(
            seed: 2_802,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .sync(.begin),
                .registerAsync(slot: 0, delta: 5, suspends: true, registersInverse: true),
                .registerAsync(slot: 1, delta: 7, suspends: true, registersInverse: true),
                .sync(.end),
                .performUndo,
                .resume(0, fails: false),
                .sync(.markClean),
                .sync(.query(.isClean)),
                .resume(0, fails: true),
                .sync(.query(.isClean)),
            ]
        ),
        // Issue 28, item 5: levelsOfUndo set while the second step of a jump awaits waits for the
        // whole jump.
        AsyncDriverCase(
            seed: 2_803,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .sync(.begin), .registerAsync(slot: 0, delta: 1, suspends: true, registersInverse: true), .sync(.end),
                .sync(.begin), .registerAsync(slot: 0, delta: 2, suspends: true, registersInverse: true), .sync(.end),
                .sync(.begin), .registerAsync(slot: 0, delta: 3, suspends: true, registersInverse: true), .sync(.end),
                .performJump(0),
                .resume(0, fails: false),
                .sync(.levels(1)),
                .resume(0, fails: false),
                .resume(0, fails: false),
            ]
        ),
        // Issue 28, item 1: a cancelled awaiter of the Edit menu's request returns at once; the
        // request goes on.
        AsyncDriverCase(
            seed: 2_804,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .sync(.begin),
                .registerAsync(slot: 0, delta: 5, suspends: true, registersInverse: true),
                .sync(.end),
                .sync(.undo),
                .cancelledAwaiter,
                .resume(0, fails: false),
                .cancelledAwaiter,
            ]
        ),
        // Issue 28, item 3: an asynchronous group whose body throws after it registered.
        AsyncDriverCase(
            seed: 2_805,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            ops: [
                .asyncGroup(
                    name: "Z", body: [.register(slot: 0, delta: 4, async: nil), .suspend], throwing: true),
                .resume(0, fails: false),
            ]
        ),
        // A branching history: `historyTree` read while an undo (a request) awaits does not sweep
        // the freed target's action from the step below (the reading of "idle" the model takes:
        // no awaited request holds the turn).
        AsyncDriverCase(
            seed: 310,
            config: .init(groupsByEvent: true, dropsEmptyGroups: true, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .sync(.register(slot: 0, delta: 6, options: .plain)),
                .registerAsync(slot: 1, delta: 87, suspends: true, registersInverse: true),
                .sync(.free(slot: 0)),
                .sync(.undo),
                .sync(.treeQuery(.historyTree)),
            ]
        ),
        // A branching history: another task's change while an asynchronous group awaits, then a
        // removal by target (which once hung the ending redo future from the change, see
        // `fixedLibraryBugs`), then the group returns.
        AsyncDriverCase(
            seed: 262,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .asyncGroup(
                    name: nil,
                    body: [
                        .register(slot: 1, delta: 53, async: nil), .register(slot: 2, delta: 45, async: nil),
                    ], throwing: false),
                .performUndo,
                .asyncGroup(name: "Draw", body: [.suspend], throwing: false),
                .sync(.begin),
                .sync(.end),
                .sync(.removeTarget(slot: 1)),
                .resume(0, fails: false),
            ]
        ),
    ]

    /// Library bugs the driver found once it learnt branching histories, each the shrunk case
    /// where the stack broke a documented promise (quoted above each), now fixed: the model reads
    /// the promise as documented.
    nonisolated static let fixedLibraryBugs: [AsyncDriverCase] = [
        // "until the operation settles, canRedo and the redo stack still show the old future,
        // which leaves from the node the document was at when the change came" (the article
        // "Undoing through a server or a database"), and a node's `redoChild` is "the child redo()
        // enters from this node". A redo awaits (node #1 in flight, from the root); another task
        // closes an empty group: node #2, a child of the root. The stack gives #2 the redo child
        // #1, which is not among its children (the snapshot hangs #1 from #0), and `redoBranches`
        // at #2 lists #1 as well.
        AsyncDriverCase(
            seed: 8,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .sync(.begin),
                .registerAsync(slot: 2, delta: 51, suspends: true, registersInverse: true),
                .performUndo,
                .resume(0, fails: false),
                .performRedo,
                .sync(.begin),
                .sync(.end),
                .sync(.treeQuery(.redoBranches)),
            ]
        ),
        // The same sentence: the redo future that another task's change ends leaves from the node
        // the document was at when the change came, in flight and, for an asynchronous group, a
        // failed or cancelled undo, once settled ("in a branching history it becomes a branch
        // then", BranchingHistory: "A change another task makes while an undo awaits keeps the
        // undone step as a branch"). A removal by target while the group awaits hangs that future
        // from the change (node #2): the snapshot shows #1 under #2, and when the group returns
        // the branch leaves from #2, so entering it redoes #1 on top of the change.
        AsyncDriverCase(
            seed: 262,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .asyncGroup(
                    name: nil,
                    body: [
                        .register(slot: 1, delta: 53, async: nil), .register(slot: 2, delta: 45, async: nil),
                    ], throwing: false),
                .performUndo,
                .asyncGroup(name: "Draw", body: [.suspend], throwing: false),
                .sync(.begin),
                .sync(.end),
                .sync(.removeTarget(slot: 1)),
                .resume(0, fails: false),
            ]
        ),
        // "when the operation settles, the change sits on top of the state the operation reached
        // (or rolled back to), and the redo stack is emptied then, as any new change empties it
        // ...; in a branching history it becomes a branch then" (the article "Undoing through a
        // server or a database"). An asynchronous group ("Draw") awaits with node #1 on the redo
        // stack; another task records node #2 (from #0); the group returns empty and is dropped.
        // The stack keeps #1 as the redo stack (a linear history keeps it too), and its node
        // table still hangs #1 from #0 while the redo chain says #2: its invariant check reports
        // "node 1 of redo has parent 0, chain says 2". Found by the soak (seed 1000047).
        AsyncDriverCase(
            seed: 1_000_047,
            config: .init(groupsByEvent: false, dropsEmptyGroups: true, logsMisuse: false, slots: 3, tree: true),
            ops: [
                .asyncGroup(
                    name: "Move",
                    body: [.register(slot: 2, delta: 88, async: .init(suspends: true, registersInverse: true))],
                    throwing: false),
                .sync(.undo),
                .asyncGroup(name: "Draw", body: [.suspend], throwing: false),
                .resume(0, fails: false),
                .sync(.begin),
                .registerAsync(slot: 0, delta: 91, suspends: true, registersInverse: true),
                .sync(.end),
            ]
        ),
    ]

    nonisolated static let environment = ProcessInfo.processInfo.environment
    nonisolated static let tracing = environment["ASYNC_MODEL_TRACE"] != nil
    nonisolated static let soakOperations = Int(environment["ACTIONSTACK_ASYNC_MODEL_SOAK_OPERATIONS"] ?? "") ?? 0

    static func run(_ driverCase: AsyncDriverCase, tracing: Bool = tracing) async -> String? {
        await AsyncDriverRunner.run(driverCase, tracing: tracing) { AsyncStackWorld($0) }
    }

    /// Runs `sequences` seeded cases of `length` events from `firstSeed`; returns the events run and
    /// whether all agreed (the first divergence is recorded, shrunk).
    func drive(firstSeed: UInt64, sequences: Int, length: Int) async -> (operations: Int, agreed: Bool) {
        var operations = 0
        var tally: [String: Int] = [:]
        for offset in 0..<UInt64(sequences) {
            let seed = firstSeed &+ offset
            let driverCase = AsyncDriverGenerator.makeCase(seed: seed, count: length)
            if Self.tracing { print("seed \(seed) \(driverCase.config)") }
            operations += driverCase.size
            var model: ReferenceModel?
            let problem = await AsyncDriverRunner.run(
                driverCase, tracing: Self.tracing, observe: { model = $0.model }, stack: { AsyncStackWorld($0) })
            for (rule, times) in model?.tally ?? [:] where rule.hasPrefix("async ") { tally[rule, default: 0] += times }
            if let problem {
                await Self.report(driverCase, problem)
                return (operations, false)
            }
        }
        // What the schedules exercised (the model's count of some rules), for the log.
        print(
            "async model driver mix: "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key.dropFirst(6)) \($0.value)" }.joined(separator: ", "))
        return (operations, true)
    }

    /// Records a divergence with its seed, the last events and the shrunk case, as Swift source.
    static func report(_ driverCase: AsyncDriverCase, _ problem: String) async {
        let short = await AsyncDriverRunner.shrink(driverCase) { await run($0, tracing: false) != nil }
        let shortProblem = await run(short, tracing: false) ?? problem
        Issue.record(
            """
            The stack and the reference model diverge on asynchronous undo (seed \(driverCase.seed), \
            \(driverCase.size) operations).
            \(problem)

            Shrunk to \(short.size) operations, which fail with:
            \(shortProblem)

            Replay (paste into AsyncModelDriverTests.regressions):
            \(short)
            """
        )
    }

    // Ten minutes: 12 s alone, but its time counts its waits for the main actor, and a full
    // parallel run beside a soak took it to 391 s once (166 s and 219 s in two others).
    @Test(.timeLimit(.minutes(10)))
    func stackAgreesWithTheReferenceModelOnSeededSchedules() async {
        // 400 sequences of 250 events: 100,000+ operations (scope and group bodies add more); `Workload` may divide it.
        let first = UInt64(Self.environment["ASYNC_MODEL_FIRST_SEED"] ?? "") ?? 1
        let clock = ContinuousClock()
        var outcome = (operations: 0, agreed: false)
        let start = clock.now
        let sequences = Workload.scaled(400)
        outcome = await drive(firstSeed: first, sequences: sequences, length: 250)
        print("async model driver: \(outcome.operations) operations from seed \(first) in \(clock.now - start)")
        if outcome.agreed { #expect(outcome.operations >= sequences * 250) }
    }

    @Test(arguments: regressions)
    func replayedRegression(_ driverCase: AsyncDriverCase) async {
        if let problem = await Self.run(driverCase) { Issue.record("seed \(driverCase.seed): \(problem)") }
    }

    /// The library bugs found and fixed, each replayed with the documented reading of its promise.
    @Test(arguments: fixedLibraryBugs)
    func fixedLibraryBug(_ driverCase: AsyncDriverCase) async {
        if let problem = await Self.run(driverCase) { Issue.record("seed \(driverCase.seed): \(problem)") }
    }

    /// A long soak: ACTIONSTACK_ASYNC_MODEL_SOAK_OPERATIONS=5000000 swift test --filter AsyncModelDriverTests/soak
    @Test(
        .enabled(if: soakOperations > 0, "set ACTIONSTACK_ASYNC_MODEL_SOAK_OPERATIONS to soak"),
        .timeLimit(.minutes(600)))
    func soak() async {
        let seed = UInt64(Self.environment["ACTIONSTACK_ASYNC_MODEL_SOAK_SEED"] ?? "") ?? 1_000_000
        var operations = 0
        var next = seed
        while operations < Self.soakOperations {
            let outcome = await drive(firstSeed: next, sequences: 100, length: 1_000)
            operations += outcome.operations
            next &+= 100
            if !outcome.agreed { return }  // the divergence is recorded
            print("async model soak: \(operations) operations so far (seeds \(seed)..<\(next))")
        }
        print("async model soak: \(operations) operations from seed \(seed)")
    }
}
