// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

/// The asynchronous driver's action as a command, so that a journal saves it: adds `delta` to its
/// target, after awaiting the driver when `suspends` (the driver's world resumes it, maybe with a
/// failure, and the operation rolls the step back), and registers its inverse command.
struct DriverAsyncAddCommand: AsyncUndoCommand {
    static let commandType = "driver.asyncAdd"
    var delta: Int
    var suspends: Bool
    var registersInverse: Bool

    /// The world of each target, by its identity: the command is a value, and finds the world that
    /// schedules its await through its target.
    @MainActor static var worlds: [ObjectIdentifier: WeakAsyncWorld] = [:]

    nonisolated(nonsending) func perform(on target: DriverTarget, in stack: ActionStack) async throws {
        try await Self.run(
            ObjectIdentifier(target), delta,
            ReferenceModel.AsyncSpec(suspends: suspends, registersInverse: registersInverse))
    }

    @MainActor static func run(_ id: ObjectIdentifier, _ delta: Int, _ spec: ReferenceModel.AsyncSpec) async throws {
        guard let world = worlds[id]?.world else { throw DriverAwaitFailure() }
        try await world.runCommand(id, delta, spec)
    }
}

/// A world held weakly.
@MainActor
struct WeakAsyncWorld {
    weak var world: AsyncStackWorld?
    init(_ world: AsyncStackWorld) { self.world = world }
}

/// Issue 29: the journal of a stack driven by asynchronous operations (awaited undo, redo and
/// jumps, steps that fail and roll back, cancellations, queued requests, asynchronous groups, broken
/// steps) interleaved with the synchronous driver's operations (commands, undo, redo, coalescing,
/// clean marks, removals, trims, jumps, branches, saves and restores), in both history shapes.
///
/// A run that finds the stack breaking its own invariants stops there and fails (a stack bug;
/// `JOURNAL_ASYNC_SHRINK_BREAKAGE=1` prints each such run shrunk).
///
/// After every event, once the stack's tasks have run as far as they can:
/// - when the stack is idle (no group open, nothing in flight or queued, no broken step), the
///   journal replayed is, byte for byte, the archive a full save makes then;
/// - when it is busy, the journal replayed is still the archive of the last idle state checked (a
///   busy stack has no whole history to record, so the recorder appends nothing), unless the event
///   was a synchronous call, which may pass through an idle state of its own before it starts a
///   request (then nothing is claimed).
@MainActor
@Suite struct JournalAsyncReplayTests {
    /// One event of the journal driver: an event of the asynchronous driver, or an awaited jump to
    /// a node of the history tree.
    enum Event: CustomStringConvertible {
        case async(AsyncOp)
        case jumpToNode(Int)

        var description: String {
            switch self {
            case .async(let op): op.description
            case .jumpToNode(let position): ".jumpToNode(\(position))"
            }
        }
    }

    /// A seeded sequence: the asynchronous driver's events, the synchronous driver's operations of
    /// the shape (registrations as commands, so that the steps are saved), and awaited tree jumps.
    static func makeCase(seed: UInt64, count: Int, tree: Bool) -> (AsyncDriverCase, [Event]) {
        var random = SeededGenerator(seed: seed)
        var config = DriverConfig(
            groupsByEvent: random.chance(50), dropsEmptyGroups: random.chance(40), logsMisuse: false, slots: 3,
            tree: tree)
        config.commands = 100
        func commands(_ op: DriverOp) -> DriverOp {
            switch op {
            case .register(let slot, let delta, let options): .command(slot: slot, delta: delta, options: options)
            case .addObserver, .cancelObserver, .allQueries: .query(.state)
            case .scope(let name, let body, let throwing):
                .scope(name: name, body: body.map(commands), throwing: throwing)
            default: op
            }
        }
        func commands(_ op: AsyncOp) -> AsyncOp {
            switch op {
            case .sync(let op): .sync(commands(op))
            default: op
            }
        }
        var events: [Event] = []
        if random.chance(20) { events.append(.async(.busyPolicy(random.chance(30) ? nil : random.int(0...2)))) }
        while events.count < count {
            switch random.int(0...99) {
            case 0..<55:
                events += AsyncDriverGenerator.makeEvents(&random, slots: config.slots).map { .async(commands($0)) }
            case 55..<70 where tree:
                events += DriverGenerator.makeBranchBurst(&random, slots: config.slots, commands: 100)
                    .map { .async(.sync(commands($0))) }
            case 70..<76 where tree: events.append(.jumpToNode(random.int(0...12)))
            case 76..<79:
                events += [.async(.sync(.endEvent)), .async(.sync(.saveRestore(limit: nil, unresolvedSlot: nil)))]
            default:
                events.append(
                    .async(
                        .sync(
                            commands(
                                DriverGenerator.makeOp(
                                    &random, slots: config.slots, depth: 0, tree: tree, commands: 100)))
                    ))
            }
        }
        return (AsyncDriverCase(seed: seed, config: config, ops: []), Array(events.prefix(count)))
    }

    /// What changes while the stack's tasks run: they have run as far as they can when it stays
    /// the same for a while.
    static func progress(_ world: AsyncStackWorld) -> AsyncFingerprint { world.fingerprint }

    static func settle(_ world: AsyncStackWorld) async {
        var last = progress(world)
        var quiet = 0
        for turn in 1...200 {
            if turn % 50 == 0 {
                try? await Task.sleep(for: .milliseconds(1))
            } else {
                await Task.yield()
            }
            let now = progress(world)
            if now == last {
                quiet += 1
                if quiet >= 4 { return }
            } else {
                quiet = 0
                last = now
            }
        }
    }

    static func isIdle(_ stack: ActionStack) -> Bool {
        stack.groupingLevel == 0 && !stack.isBusy && stack.pendingRequestCount == 0 && stack.brokenStep == nil
    }

    /// Whether a task of the walk has ended, and how.
    @MainActor final class Ended {
        var value: Bool?
    }

    /// Undoes every undo step of `stack` with awaited undos, then redoes as many, resuming every
    /// await the world's actions make; the document after each undo and each redo. The limits are
    /// lifted while it walks, as the synchronous driver's walk does.
    static func awaitedWalk(
        _ stack: ActionStack, _ world: AsyncStackWorld
    ) async -> (undone: [[Int?]], redone: [[Int?]]) {
        let limits = (stack.levelsOfUndo, stack.maximumCost, stack.maximumBranchSteps)
        (stack.levelsOfUndo, stack.maximumCost, stack.maximumBranchSteps) = (0, 0, 0)
        defer { (stack.levelsOfUndo, stack.maximumCost, stack.maximumBranchSteps) = limits }
        func run(_ undo: Bool) async -> Bool {
            let ended = Ended()
            Task { @MainActor in
                do {
                    ended.value = try await undo ? stack.performUndo() : stack.performRedo()
                } catch {
                    ended.value = false
                }
            }
            var turns = 0
            while ended.value == nil && turns < 5_000 {
                turns += 1
                world.perform(.resume(0, fails: false))
                await Task.yield()
            }
            return ended.value ?? false
        }
        var undone: [[Int?]] = []
        for _ in 0..<stack.undoCount {
            guard await run(true) else { break }
            undone.append(world.world.documentValues)
        }
        var redone: [[Int?]] = []
        for _ in undone.indices {
            guard await run(false) else { break }
            redone.append(world.world.documentValues)
        }
        return (undone, redone)
    }

    struct Outcome {
        var idleChecks = 0
        /// The events after which the stack was busy, and those of them after which a record had
        /// been appended since the last idle state (its replay must be that state).
        var busyStates = 0
        var busyChecks = 0
        var asyncSaved = 0
        var failed = false
        /// The steps a recovered history was undone through at the end of a run.
        var walkedSteps = 0
        /// The first event after which the stack broke its invariants (the run stops there).
        var stackBroke: String?
    }

    /// Runs one sequence on a recorded stack; compares the journal replayed with a full save after
    /// every event that leaves the stack idle, and with the last idle state after every other.
    func run(seed: UInt64, tree: Bool, count: Int, floor: Int) async throws -> Outcome {
        let (driverCase, events) = Self.makeCase(seed: seed, count: count, tree: tree)
        let (outcome, problem) = try await check(driverCase, events, tree: tree, floor: floor)
        if ProcessInfo.processInfo.environment["JOURNAL_ASYNC_SHRINK_BREAKAGE"] != nil, outcome.stackBroke != nil {
            let short = try await Self.shrink(driverCase, events, tree: tree, floor: floor, breakage: true)
            let lines: String = short.map { "    \($0)," }.joined(separator: "\n")
            print("stack breakage shrunk to \(short.count) events:\n\(driverCase.config)\n[\n\(lines)\n]")
        }
        if let problem {
            Issue.record("\(problem)")
            let short = try await Self.shrink(driverCase, events, tree: tree, floor: floor)
            let lines: String = short.map { "    \($0)," }.joined(separator: "\n")
            Issue.record("Shrunk to \(short.count) events:\n\(driverCase.config)\n[\n\(lines)\n]")
        }
        return outcome
    }

    /// Shortens a failing sequence while it still fails: removes chunks of events.
    static func shrink(
        _ driverCase: AsyncDriverCase, _ events: [Event], tree: Bool, floor: Int, breakage: Bool = false
    ) async throws -> [Event] {
        var current = events
        var chunk = max(1, current.count / 2)
        var budget = 300
        while chunk >= 1 && budget > 0 {
            var start = 0
            while start < current.count && budget > 0 {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                budget -= 1
                let result = try await JournalAsyncReplayTests().check(driverCase, candidate, tree: tree, floor: floor)
                if (breakage ? result.outcome.stackBroke : result.problem) != nil {
                    current = candidate
                } else {
                    start += chunk
                }
            }
            chunk /= 2
        }
        return current
    }

    /// Runs `events`; returns what was compared and the first problem.
    func check(
        _ driverCase: AsyncDriverCase, _ events: [Event], tree: Bool, floor: Int
    ) async throws -> (outcome: Outcome, problem: String?) {
        let seed = driverCase.seed
        var problem: String?
        var stackBreakage: String?
        let world = AsyncStackWorld(driverCase, asyncCommands: true)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-async-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var generation = 0
        func makeRecorder() -> (HistoryJournal, HistoryRecorder, ActionStack) {
            generation += 1
            let journal = HistoryJournal(
                url: directory.appendingPathComponent("doc\(generation).journal"), synchronizesAppends: false)
            let recorder = HistoryRecorder(journal: journal, stack: world.stack) { "doc" }
            recorder._compactionFloor = floor
            return (journal, recorder, world.stack)
        }
        var (journal, recorder, recorded) = makeRecorder()
        var outcome = Outcome()
        /// The bytes of the last idle state checked, and the record count then.
        var lastIdle: (bytes: Data, records: Int)?
        var trail: [String] = []

        func replayed() throws -> Data? {
            guard recorder.recordCount > 0,
                let recovered = try HistoryRecorder.recover(
                    from: journal, fingerprint: "doc", registry: testRegistry()),
                let history = recovered.histories[HistoryRecorder.defaultHistoryName]
            else { return nil }
            return try bytes(history)
        }
        func fail(_ text: String) {
            let events = trail.suffix(16).map { "    \($0)" }.joined(separator: "\n")
            if problem == nil { problem = "seed \(seed)\(tree ? " (tree)" : ""): \(text)\n  last events:\n\(events)" }
            outcome.failed = true
        }

        for (index, event) in events.enumerated() {
            switch event {
            case .async(let op): world.perform(op)
            case .jumpToNode(let position): world.performJumpToNode(position)
            }
            await Self.settle(world)
            trail.append(
                "event \(index) \(event) -> \(world.stack._stateShape) \(world.stack._structure) records \(recorder.recordCount)"
            )
            if world.stack !== recorded {
                // A save and restore replaced the stack: a new recorder watches the fresh one.
                (journal, recorder, recorded) = makeRecorder()
                lastIdle = nil
            }
            let violations = world.stack._invariantViolations()
            if !violations.isEmpty {
                // Not the journal's: the stack broke its own structure, which no journal can replay.
                if stackBreakage == nil { stackBreakage = "event \(index) \(event): \(violations)" }
                break
            }
            if recorder.lastError != nil { fail("event \(index): \(String(describing: recorder.lastError))") }
            if Self.isIdle(world.stack) {
                // The full save is a call (it sweeps freed targets; the recorder records at its end).
                guard let saved = try? world.stack.savedHistory() else {
                    fail("event \(index): an idle stack refused a save")
                    break
                }
                let expected: Data
                do {
                    expected = try bytes(saved)
                } catch {
                    fail("event \(index) \(event): the full save does not encode: \(error)")
                    break
                }
                if saved.steps.contains(where: {
                    $0.actions.contains { $0.commandType == DriverAsyncAddCommand.commandType }
                }) {
                    outcome.asyncSaved += 1
                }
                let replay: Data?
                do {
                    replay = try replayed()
                } catch {
                    let records = ((try? journal.records()) ?? []).suffix(4).map {
                        String(decoding: $0.payload, as: UTF8.self)
                    }
                    fail(
                        "event \(index) \(event): the journal does not replay: \(error)\n  full save: "
                            + "\(String(decoding: expected, as: UTF8.self))\n  last records:\n    "
                            + records.joined(separator: "\n    "))
                    break
                }
                guard let actual = replay else {
                    lastIdle = (expected, recorder.recordCount)
                    continue
                }
                outcome.idleChecks += 1
                if actual != expected {
                    fail(
                        """
                        event \(index) \(event): the replayed journal differs from a full save
                          saved:    \(String(decoding: expected, as: UTF8.self))
                          replayed: \(String(decoding: actual, as: UTF8.self))
                        """)
                    break
                }
                lastIdle = (expected, recorder.recordCount)
            } else if let idle = lastIdle {
                outcome.busyStates += 1
                guard recorder.recordCount != idle.records else { continue }
                // A synchronous call may pass through an idle state of its own before it starts a
                // request: what it recorded there is not known here.
                if case .async(.sync) = event {
                    lastIdle = nil
                    continue
                }
                outcome.busyChecks += 1
                guard let actual = try replayed(), actual == idle.bytes else {
                    fail(
                        """
                        event \(index) \(event): a record appended while the stack is busy is not the last idle state
                          idle:     \(String(decoding: idle.bytes, as: UTF8.self))
                          replayed: \(String(decoding: (try? replayed()) ?? Data(), as: UTF8.self))
                        """)
                    break
                }
            }
            if outcome.failed { break }
        }
        // The end: every await succeeds, open groups close, a broken step is discarded; the stack
        // is then idle, and its journal replays to a full save once more.
        if problem == nil, stackBreakage == nil {
            for _ in 0..<200 {
                if Self.isIdle(world.stack) { break }
                if world.stack.groupingLevel > 0 && !world.stack.isBusy {
                    world.perform(.sync(.endEvent))
                    if world.stack.groupingLevel > 0 { world.perform(.sync(.end)) }
                } else if world.stack.brokenStep != nil {
                    world.perform(.discardBroken)
                } else {
                    world.perform(.resume(0, fails: false))
                }
                await Self.settle(world)
            }
            if Self.isIdle(world.stack), world.stack._invariantViolations().isEmpty,
                let saved = try? world.stack.savedHistory(), recorder.recordCount > 0
            {
                let expected = try bytes(saved)
                let actual = try replayed()
                outcome.idleChecks += 1
                if actual != expected {
                    fail(
                        "at the end: the replayed journal differs from a full save\n  saved:    "
                            + "\(String(decoding: expected, as: UTF8.self))\n  replayed: "
                            + "\(String(decoding: actual ?? Data(), as: UTF8.self))")
                }
            }
        }
        // The recovered history performs: restored into a fresh stack, it is undone step by step
        // with awaited undos and redone, and the document goes through the states the stack it was
        // recorded from goes through when it is walked so.
        if problem == nil, stackBreakage == nil, Self.isIdle(world.stack), recorder.recordCount > 0,
            let recovered = try HistoryRecorder.recover(from: journal, fingerprint: "doc", registry: testRegistry()),
            let history = recovered.histories[HistoryRecorder.defaultHistoryName]
        {
            let start = world.world.documentValues
            let fresh = world.world.freshStack(like: world.stack)
            _ = try fresh.restoreHistory(history, resolvingTargets: world.world.resolver(nil))
            world.commandStack = fresh
            let recoveredWalk = await Self.awaitedWalk(fresh, world)
            world.commandStack = nil
            // Both walks start from the same document (a step whose action registered no inverse
            // is not redone: the walk does not always come back).
            for (index, value) in start.enumerated() {
                if let value { world.world.targets[index]?.value = value }
            }
            let originalWalk = await Self.awaitedWalk(world.stack, world)
            outcome.walkedSteps += recoveredWalk.undone.count
            let whole = recoveredWalk.undone.count == originalWalk.undone.count
            if recoveredWalk.undone != Array(originalWalk.undone.prefix(recoveredWalk.undone.count))
                || (whole && recoveredWalk.redone != originalWalk.redone)
            {
                fail(
                    "the recovered history, walked, is not the recorded stack's\n  recovered: \(recoveredWalk)\n"
                        + "  recorded:  \(originalWalk)")
            }
        }
        await world.tearDown()
        if problem == nil, let stackBreakage { outcome.stackBroke = stackBreakage }
        return (outcome, problem)
    }

    /// The seeds after which the stack broke its own invariants: a stack bug, not the journal's
    /// (the first this driver found is `aNewChangeWhileAnAwaitedUndoRunsKeepsTheTreeWhole`).
    static func reportBreakages(_ broken: [String], tree: Bool) {
        guard !broken.isEmpty else { return }
        Issue.record(
            "\(broken.count) seeds\(tree ? " (tree)" : "") broke the stack's invariants; the first: \(broken[0])")
    }

    @Test(arguments: [false, true])
    func aReplayedJournalIsTheFullSaveAfterEveryAsynchronousEvent(tree: Bool) async throws {
        var total = Outcome()
        var broken: [String] = []
        var walked = 0
        for seed in UInt64(1)...UInt64(Workload.scaled(10)) {
            let outcome = try await run(seed: seed &+ (tree ? 40_000 : 20_000), tree: tree, count: 200, floor: 1 << 18)
            total.idleChecks += outcome.idleChecks
            total.busyChecks += outcome.busyChecks
            total.busyStates += outcome.busyStates
            total.asyncSaved += outcome.asyncSaved
            walked += outcome.walkedSteps
            if let stackBroke = outcome.stackBroke { broken.append("seed \(seed): \(stackBroke)") }
            if outcome.failed { return }
        }
        print(
            "async journal replay\(tree ? " (tree)" : ""): \(total.idleChecks) idle states compared, "
                + "\(total.busyStates) busy ones (after \(total.busyChecks) a record had been appended), \(total.asyncSaved) saves held asynchronous commands, "
                + "\(broken.count) runs stopped where the stack broke its invariants, "
                + "recovered histories walked through \(walked) awaited undos")
        Self.reportBreakages(broken, tree: tree)
        #expect(total.idleChecks > 150 / Workload.divisor)
        // The sanitized runs divide the seeds (Workload): one run may hold few awaited steps, or end
        // where the stack broke; the comparisons made still hold.
        if Workload.divisor == 1 {
            #expect(total.asyncSaved > 15)
            #expect(walked > 0)
        }
    }

    @Test(arguments: [false, true])
    func aReplayedJournalIsTheFullSaveThroughCompactionsAndAsynchronousEvents(tree: Bool) async throws {
        var checked = 0
        var broken: [String] = []
        for seed in UInt64(1)...UInt64(Workload.scaled(4)) {
            let outcome = try await run(seed: seed &+ (tree ? 60_000 : 50_000), tree: tree, count: 200, floor: 0)
            checked += outcome.idleChecks
            if let stackBroke = outcome.stackBroke { broken.append("seed \(seed): \(stackBroke)") }
            if outcome.failed { return }
        }
        Self.reportBreakages(broken, tree: tree)
        #expect(checked > 40 / Workload.divisor)
    }

    /// A stack bug the journal driver found (not the journal's), fixed: in a branching history, a
    /// step whose action awaits is undone (the Edit menu's undo starts the request), and a new
    /// change is made while it awaits. When the await ended, the undone step (which built nothing)
    /// left its node in the table, the new change's node still hung from it, and the journal, which
    /// records the tree as it is, could not be replayed. Now the node table follows the chains
    /// again when an awaited step settles after other tasks' changes (`History.finishAwaited`).
    @Test(arguments: [false, true])
    func aNewChangeWhileAnAwaitedUndoRunsKeepsTheTreeWhole(tree: Bool) async throws {
        var config = DriverConfig(groupsByEvent: false, dropsEmptyGroups: true, logsMisuse: false, slots: 3, tree: tree)
        config.commands = 100
        let events: [Event] = [
            .async(.sync(.begin)),
            .async(.registerAsync(slot: 0, delta: 83, suspends: true, registersInverse: false)),
            .async(.sync(.undo)),
            .async(.sync(.begin)),
            .async(.sync(.command(slot: 1, delta: 93, options: .plain))),
            .async(.resume(0, fails: false)),
            .async(.sync(.end)),
        ]
        let (outcome, problem) = try await check(
            AsyncDriverCase(seed: 0, config: config, ops: []), events, tree: tree, floor: 1 << 18)
        #expect(problem == nil)
        #expect(outcome.stackBroke == nil)
    }
}
