// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation
import Testing

// What the tests of asynchronous undo share: gates that hold handlers until the test opens them,
// values on a "server", the log of an operation's notifications, and small helpers to run an
// awaited call and name its outcome.

/// A point where handlers suspend until the test lets them go, one at a time, in arrival order.
@MainActor
final class Gate {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// Whether handlers suspend here; when false they pass straight through.
    var isClosed = true

    /// The number of handlers suspended here.
    var waitingCount: Int { waiting.count }

    func pass() async {
        guard isClosed else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Lets the first suspended handler go on.
    func openOne() {
        guard !waiting.isEmpty else { return }
        waiting.removeFirst().resume()
    }

    /// Lets every handler through, now and later.
    func openForGood() {
        isClosed = false
        while !waiting.isEmpty { waiting.removeFirst().resume() }
    }
}

/// Lets other tasks on the main actor run until `condition` holds (or gives up after many turns).
@MainActor
func settle(until condition: () -> Bool = { false }, turns: Int = 2_000) async {
    for turn in 0..<turns {
        if condition() { return }
        if turn % 100 == 99 { try? await Task.sleep(for: .milliseconds(1)) } else { await Task.yield() }
    }
}

struct RemoteFailure: Error, Equatable {
    var value: Int
}

/// A value kept on a "server": each change awaits the gate (when one is set) and may fail.
@MainActor
final class RemoteValue {
    let name: String
    var value: Int
    var gate: Gate?
    /// Values the server refuses to store.
    var refused: Set<Int> = []
    /// The writes the server accepted, in order.
    var writes: [Int] = []
    /// Whether the undo of the next change registers no inverse (an action that cannot be undone).
    var registersNoInverse = false

    init(_ name: String = "r", value: Int = 0, gate: Gate? = nil) {
        self.name = name
        self.value = value
        self.gate = gate
    }

    /// Writes `new` to the server, then registers the asynchronous inverse, which does the same.
    func set(_ new: Int, on stack: ActionStack) async throws {
        let old = value
        if let gate { await gate.pass() }
        if refused.contains(new) { throw RemoteFailure(value: new) }
        value = new
        writes.append(new)
        if registersNoInverse { return }
        stack.registerAsyncUndo(withTarget: self) { remote in try await remote.set(old, on: stack) }
    }

    /// Records a change in a step of its own, named, with the gate out of the way.
    func change(to new: Int, on stack: ActionStack, named name: String? = nil) async throws {
        let gate = self.gate
        self.gate = nil
        defer { self.gate = gate }
        stack.beginUndoGrouping()
        try await set(new, on: stack)
        if let name { stack.setActionName(name) }
        stack.endUndoGrouping()
    }
}

/// A stack for these tests: explicit groups, misuse reported silently, invariants checked.
@MainActor
func makeAsyncStack() -> ActionStack {
    let stack = makeStack()
    return stack
}

/// Records the undo/redo notifications of one stack, in order.
@MainActor
final class OperationLog {
    private(set) var events: [String] = []
    private var tokens: [any NSObjectProtocol] = []

    init(_ stack: ActionStack) {
        let names: [(Notification.Name, String)] = [
            (ActionStack.willUndoChangeNotification, "willUndo"),
            (ActionStack.didUndoChangeNotification, "didUndo"),
            (ActionStack.didFailUndoChangeNotification, "failUndo"),
            (ActionStack.willRedoChangeNotification, "willRedo"),
            (ActionStack.didRedoChangeNotification, "didRedo"),
            (ActionStack.didFailRedoChangeNotification, "failRedo"),
        ]
        for (name, short) in names {
            tokens.append(
                NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) { [weak self] _ in
                    MainActor.assumeIsolated { self?.events.append(short) }
                })
        }
    }

    isolated deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}

@MainActor
final class Probe {
    var before: Bool?
    var after: Bool?
    var error: (any Error)?
    var task: Task<Void, Never>?
}

actor Store {
    var rows: [String] = []
    func append(_ row: String) { rows.append(row) }
}

/// The outcome of an awaited operation.
typealias ProbeOutcome = Result<Bool, ActionStack.OperationError>

/// Runs an awaited operation and keeps its outcome.
@MainActor
func probeAttempt(_ body: () async throws(ActionStack.OperationError) -> Bool) async -> ProbeOutcome {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// A short name for an outcome, to compare in expectations.
func probeTag(_ outcome: ProbeOutcome) -> String {
    switch outcome {
    case .success(let moved): return "ok(\(moved))"
    case .failure(let error): return probeTag(error)
    }
}

/// A short name for an operation error.
func probeTag(_ error: ActionStack.OperationError) -> String {
    if let failure = error.actionFailure {
        let rollback: String
        if failure.rollback.isRestored {
            rollback = "restored"
        } else if let indices = failure.rollback.unrestoredActions {
            rollback = "incomplete\(indices)"
        } else if let index = failure.rollback.failedActionIndex {
            rollback = "failed(\(index))"
        } else {
            rollback = "unknown(\(failure.rollback))"
        }
        return "actionFailed(\(failure.actionIndex),\(rollback))"
    }
    if let reason = error.cancellationReason {
        let names: [ActionStack.CancellationReason: String] = [
            .task: "task", .cancelPendingRequests: "cancelPendingRequests", .removeAllActions: "removeAllActions",
            .newChange: "newChange", .brokenStep: "brokenStep",
        ]
        return "cancelled(\(names[reason] ?? "unknown(\(reason))"))"
    }
    if let reason = error.dropReason { return reason == .busy ? "dropped(busy)" : "dropped(queueFull)" }
    if error.isStackBroken { return "stackBroken" }
    if let misuse = error.misuse { return "misuse(\(misuse))" }
    if let error = error.historyTreeError { return "historyTree(\(error))" }
    return "unknown(\(error))"
}

/// Whether every will-notification is followed by exactly one did- or fail-notification of its kind.
func probePaired(_ events: [String]) -> Bool {
    var open: String?
    for event in events {
        if event.hasPrefix("will") {
            if open != nil { return false }
            open = String(event.dropFirst(4))
        } else {
            let kind = event.hasPrefix("did") ? String(event.dropFirst(3)) : String(event.dropFirst(4))
            guard open == kind else { return false }
            open = nil
        }
    }
    return open == nil
}

/// Records one step that sets every remote to `value`, with their gates out of the way.
@MainActor
func probeStep(_ stack: ActionStack, _ remotes: [RemoteValue], to value: Int, named name: String? = nil) async throws {
    let gates = remotes.map(\.gate)
    for remote in remotes { remote.gate = nil }
    defer { for (remote, gate) in zip(remotes, gates) { remote.gate = gate } }
    stack.beginUndoGrouping()
    for remote in remotes { try await remote.set(value, on: stack) }
    if let name { stack.setActionName(name) }
    stack.endUndoGrouping()
}

/// Makes a step of two remotes whose undo fails at `a` and whose rollback fails at `b`: a broken
/// step when undone.
@MainActor
func probeBrokenStep(_ stack: ActionStack, named name: String = "Broken") async throws -> (RemoteValue, RemoteValue) {
    let a = RemoteValue("a")
    let b = RemoteValue("b")
    try await probeStep(stack, [a, b], to: 1, named: name)
    a.refused = [0]
    b.refused = [1]
    ProbeKeepAlive.objects += [a, b]
    return (a, b)
}

/// Keeps targets alive for the rest of the run (the stack holds them weakly).
@MainActor
enum ProbeKeepAlive {
    static var objects: [AnyObject] = []
}

/// An error a handler throws.
struct ProbeFailure: Error {}

/// A stack owned by an actor, used off the main thread.
actor ProbeOwner {
    let stack: ActionStack
    let counter = Counter()

    init() {
        stack = makeStack()
    }

    /// Records an asynchronous step, calls the synchronous `undo()` here (off the main thread), then
    /// awaits the undo here.
    func run() async -> (misuse: ActionStack.Misuse?, countAfterUndo: Int, value: Int, awaited: String) {
        counter.value = 1
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: counter) { counter in
            await Task.yield()
            counter.value = 0
        }
        stack.endUndoGrouping()
        stack.undo()
        let misuse = stack.lastMisuse
        let count = stack.undoCount
        let awaited: String
        do {
            awaited = "ok(\(try await stack.performUndo()))"
        } catch {
            awaited = probeTag(error)
        }
        return (misuse, count, counter.value, awaited)
    }
}

extension Counter {
    /// Sets the value in a closed group of its own.
    @MainActor
    func set(_ newValue: Int, on stack: ActionStack, grouped: Bool) async throws {
        stack.beginUndoGrouping()
        set(newValue, on: stack)
        stack.endUndoGrouping()
    }
}

// The fixtures of the tests of actor-owned stacks, of calls from other isolations and of groups that
// call back from their body (the `2` suffix keeps their names apart from the ones above).

/// A model object that an actor owns (not `Sendable`; used on that actor only).
final class ProbeBox2 {
    var value = 0
}

/// Tracks whether handlers ran, from any isolation.
final class ProbeFlags2: @unchecked Sendable {  // written and read one at a time in these tests
    var ranOnMainThread: [Bool] = []
}

/// Hands a main-actor stack to code that runs elsewhere. Unsafe on purpose: the tests that use it
/// keep the main actor suspended while the other side uses the stack.
struct ProbeUnsafeStack2: @unchecked Sendable {
    let stack: ActionStack
}

/// A holder that child tasks on the main actor may capture.
@MainActor
final class ProbeHolder2 {
    let stack: ActionStack
    init(_ stack: ActionStack) { self.stack = stack }
}

/// An actor that owns its stack and its document, with a gate of its own.
actor ProbeDocActor2 {
    let stack: ActionStack
    let box = ProbeBox2()
    let other = ProbeBox2()
    var value = 0
    var refused: Set<Int> = []
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var closed = false

    init() {
        stack = makeStack()
    }

    func closeGate() { closed = true }
    var waitingCount: Int { waiting.count }

    func openGate() {
        closed = false
        for continuation in waiting { continuation.resume() }
        waiting = []
    }

    func pass() async {
        guard closed else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Sets `box.value`, registering an asynchronous inverse that awaits the gate.
    func setBox(_ new: Int) async {
        let old = box.value
        box.value = new
        stack.registerAsyncUndo(withTarget: box) { [self] _ in
            await self.pass()
            await self.setBox(old)
        }
    }

    /// Sets `value`, registering an inverse isolated to this actor.
    func setValue(_ new: Int) throws {
        if refused.contains(new) { throw RemoteFailure(value: new) }
        let old = value
        value = new
        stack.registerAsyncUndo(withActor: self) { me in try me.setValue(old) }
    }

    func recordBoxStep(_ new: Int) async {
        stack.beginUndoGrouping()
        await setBox(new)
        stack.endUndoGrouping()
    }

    func recordValueStep(_ values: [Int]) throws {
        stack.beginUndoGrouping()
        defer { stack.endUndoGrouping() }
        for new in values { try setValue(new) }
    }

    /// A change by another task on this actor: a synchronous registration in a group of its own.
    func foreignChange(_ new: Int) {
        let old = other.value
        other.value = new
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: other) { $0.value = old }
        stack.endUndoGrouping()
    }

    func undo() async -> String {
        do { return "ok(\(try await stack.performUndo()))" } catch { return probeTag(error) }
    }

    func redo() async -> String {
        do { return "ok(\(try await stack.performRedo()))" } catch { return probeTag(error) }
    }

    func groupWithGate(_ new: Int) async throws {
        try await stack.asyncGroup(named: "Actor Group") {
            await self.pass()
            try self.setValue(new)
        }
    }

    func counts() -> (undo: Int, redo: Int, busy: Bool, clean: Bool, title: String) {
        (stack.undoCount, stack.redoCount, stack.isBusy, stack.isClean, stack.undoMenuItemTitle)
    }

    func values() -> (box: Int, other: Int, value: Int) { (box.value, other.value, value) }

    /// The Edit menu's synchronous calls, made here, off the main thread.
    func synchronousCalls() -> [ActionStack.Misuse?] {
        var seen: [ActionStack.Misuse?] = []
        stack.lastMisuse = nil
        stack.redo()
        seen.append(stack.lastMisuse)
        stack.lastMisuse = nil
        stack.jump(to: 0)
        seen.append(stack.lastMisuse)
        stack.lastMisuse = nil
        stack.undo()
        seen.append(stack.lastMisuse)
        return seen
    }

    func recordSynchronousStep() {
        stack.beginUndoGrouping()
        let old = other.value
        other.value += 1
        stack.registerUndo(withTarget: other) { $0.value = old }
        stack.endUndoGrouping()
    }

    func setRefused(_ values: Set<Int>) { refused = values }
}

/// A nonisolated caller of a main-actor stack: what isolation do the handlers get?
nonisolated func probeUndoFromNonisolated2(_ reference: ProbeUnsafeStack2) async -> String {
    do { return "ok(\(try await reference.stack.performUndo()))" } catch { return probeTag(error) }
}

/// Calls the Edit menu's `undo()` on a thread that is not the main thread.
nonisolated func probeSynchronousUndoOffMain2(_ reference: ProbeUnsafeStack2) async -> ActionStack.Misuse? {
    await Task.detached {
        reference.stack.lastMisuse = nil
        reference.stack.undo()
        return reference.stack.lastMisuse
    }.value
}

@MainActor
func probeSetOn2(_ remote: RemoteValue, _ value: Int, _ holder: ProbeHolder2) async throws {
    try await remote.set(value, on: holder.stack)
}

/// Sets remotes from child tasks of a task group, on the main actor.
@MainActor
func probeInTaskGroup2(_ changes: [(RemoteValue, Int)], _ holder: ProbeHolder2) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (remote, value) in changes {
            group.addTask { try await probeSetOn2(remote, value, holder) }
        }
        try await group.waitForAll()
    }
}

/// Records a named step from a detached task on the main actor (no task-local values inherited).
@MainActor
func probeInDetachedTask2(_ remote: RemoteValue, _ value: Int, _ holder: ProbeHolder2) async throws {
    try await Task.detached { try await probeNamedStep2(remote, value, holder) }.value
}

/// Records a named step on the main actor.
@MainActor
func probeNamedStep2(_ remote: RemoteValue, _ value: Int, _ holder: ProbeHolder2) async throws {
    holder.stack.beginUndoGrouping()
    try await probeSetOn2(remote, value, holder)
    holder.stack.setActionName("Detached")
    holder.stack.endUndoGrouping()
}

/// What fail notifications carried, collected from any thread.
final class ProbeReceived2: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var items: [(String, String, Bool?, String)] = []

    func append(_ name: String, _ payload: Any?) {
        var tag = "none"
        var isUndo: Bool?
        var stepName = ""
        if let error = payload as? ActionStack.OperationError {
            tag = probeTag(error)
            if let failure = error.actionFailure {
                isUndo = failure.isUndo
                stepName = failure.stepName
            }
        }
        lock.withLock { items.append((name, tag, isUndo, stepName)) }
    }

    var all: [(String, String, Bool?, String)] { lock.withLock { items } }
    func reset() { lock.withLock { items.removeAll() } }
}

/// The task a fail observer started.
@MainActor
final class ProbeRetry2 {
    var task: Task<String, Never>?
}

/// A branching history of steps that await a server: 0 -> 1 -> 2, and 1 -> 3, the document at 3
/// (the remote value is the steps' target: keep it).
@MainActor
func makeAsyncTree() async throws -> (ActionStack, RemoteValue) {
    let stack = makeAsyncStack()
    stack.historyShape = .tree
    let remote = RemoteValue()
    try await remote.change(to: 1, on: stack, named: "One")
    try await remote.change(to: 2, on: stack, named: "Two")
    try await stack.performUndo()
    try await remote.change(to: 3, on: stack, named: "Three")
    return (stack, remote)
}
