// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackTestSupport

// The random driver of asynchronous undo, the part that does not need the ActionStack module: the
// events (every synchronous operation of the random driver, and the asynchronous ones: registering
// asynchronous actions, requesting operations, resuming a suspended handler with success or a
// failure, cancelling, the busy policy, broken steps, asynchronous groups), their seeded
// generation, the model's world, and the runner that compares the model with the stack after every
// event. `AsyncModelDriverTests.swift` adds the stack's world and the tests.
//
// The driver owns the schedule: every asynchronous handler (and every await of a group's body)
// suspends until an event resumes it, and between two events every task runs until it waits for
// the driver again. So a run is deterministic and is replayed from its seed.
//
// Decisions of the driver:
// - Compared after every event, without side effects: `_structure` (a step that holds an
//   asynchronous action shows a colon, as the hook prints it), `_stateShape`, the targets' values,
//   `_invariantViolations()`, `isBusy`, `pendingRequestCount`, `brokenStep`, the handlers waiting
//   for the driver (in the order they came), what every awaiter got, `groupingLevel` and
//   `isUndoRegistrationEnabled`.
// - Compared as one ordered log: the will-, did- and fail-notifications of undo and redo (so every
//   will is followed by one did or fail), misuses, and query results. Checkpoints and group
//   notifications, which the synchronous driver checks in full, are left out: an operation's
//   checkpoints are not documented.
// - No callback plan and no state observers (the synchronous driver covers them).

// MARK: - Events

/// One event of an asynchronous driver sequence. The description is Swift source for the same
/// value, so that a failing sequence can be pasted into a test.
indirect enum AsyncOp: Hashable, Sendable, CustomStringConvertible {
    /// A synchronous operation of the random driver (its `undo()`, `redo()` and `jump(to:)` start a
    /// request when a step with an asynchronous action is on the way or an operation is in flight).
    case sync(DriverOp)
    /// `target.value += delta`, then `registerAsyncUndo(withTarget:handler:)` of the inverse.
    case registerAsync(slot: Int, delta: Int, suspends: Bool, registersInverse: Bool)
    /// A new task awaits `performUndo()`, `performRedo()` or `performJump(to:)`.
    case performUndo
    case performRedo
    case performJump(Int)
    /// A new task awaits `performJump(toNode:)` to the node numbered the current node's number plus
    /// this offset (a branching history, section 19; in a linear one it throws).
    case performJumpToNode(Int)
    /// A new task awaits `asyncGroup(named:_:)`, whose body runs `body`, then throws if `throwing`.
    case asyncGroup(name: String?, body: [ReferenceModel.GroupItem], throwing: Bool)
    /// Resumes the handler (or body) waiting at this position (modulo their number); `fails`: its
    /// await throws.
    case resume(Int, fails: Bool)
    /// Cancels the driver's task at this position of those not done (modulo their number).
    case cancelTask(Int)
    case cancelPending
    /// `busyPolicy`: `.queue(limit:)`, or `.dropWhileBusy` for nil.
    case busyPolicy(Int?)
    case discardBroken
    /// A new task, cancelled before it starts, awaits the value of the request the last
    /// synchronous call started: it returns at once (issue 28, item 1), with the request's result
    /// if it has finished, `cancelled(task)` otherwise; the request goes on.
    case cancelledAwaiter
    /// A new task awaits `retryBrokenStep()`.
    case retryBroken

    var description: String {
        switch self {
        case .sync(let op): ".sync(\(op))"
        case .registerAsync(let slot, let delta, let suspends, let inverse):
            ".registerAsync(slot: \(slot), delta: \(delta), suspends: \(suspends), registersInverse: \(inverse))"
        case .performUndo: ".performUndo"
        case .performRedo: ".performRedo"
        case .performJump(let position): ".performJump(\(position))"
        case .performJumpToNode(let offset): ".performJumpToNode(\(offset))"
        case .asyncGroup(let name, let body, let throwing):
            ".asyncGroup(name: \(name.map { "\"\($0)\"" } ?? "nil"), body: [\(body.map(\.description).joined(separator: ", "))], throwing: \(throwing))"
        case .resume(let position, let fails): ".resume(\(position), fails: \(fails))"
        case .cancelTask(let position): ".cancelTask(\(position))"
        case .cancelPending: ".cancelPending"
        case .busyPolicy(let limit): ".busyPolicy(\(limit.map(String.init) ?? "nil"))"
        case .discardBroken: ".discardBroken"
        case .retryBroken: ".retryBroken"
        case .cancelledAwaiter: ".cancelledAwaiter"
        }
    }

    /// Operations in this one (scope bodies and group bodies count).
    var size: Int {
        switch self {
        case .sync(let op): op.size
        case .asyncGroup(_, let body, _): 1 + body.count
        default: 1
        }
    }
}

/// Everything needed to replay one sequence.
struct AsyncDriverCase: Hashable, Sendable, CustomStringConvertible {
    var seed: UInt64
    var config: DriverConfig
    var ops: [AsyncOp]

    var size: Int { ops.reduce(0) { $0 + $1.size } }

    /// The synchronous driver's case for the same settings (no callback plan).
    var syncCase: DriverCase { DriverCase(seed: seed, config: config, plan: [], ops: []) }

    var description: String {
        """
        AsyncDriverCase(
            seed: \(seed),
            config: \(config),
            ops: [\(ops.map { "\n        \($0)," }.joined())
            ]
        )
        """
    }
}

/// What the driver reads after every event.
struct AsyncSnapshot: Hashable, CustomStringConvertible {
    var structure: String
    var stateShape: String
    var values: [Int?]
    var invariantViolations: [String]
    var isBusy: Bool
    var pendingRequestCount: Int
    /// "-" or the broken step: "undo 'name'".
    var brokenStep: String
    /// The handlers and bodies waiting for the driver, in the order they came.
    var suspensions: [String]
    /// What each awaiter got, by the driver's number.
    var results: [Int: String]
    /// groupingLevel, isUndoRegistrationEnabled.
    var getters: [Int]
    /// A branching history (section 19): the current node, and, when the model holds no action of
    /// a freed target (reading `historyTree` sweeps them), the snapshot and the nodes it marks in
    /// flight and broken ("f#3", "b#2").
    var currentNode: Int? = nil
    var tree: TreeSnapshot? = nil
    var treeMarks: [String] = []

    var description: String {
        // The last few results (all are compared).
        let awaited = results.keys.sorted().suffix(6).map { "\($0): \(results[$0]!)" }.joined(separator: ", ")
        return "\(structure) shape[\(stateShape)] values \(values.map { $0.map(String.init) ?? "-" }) "
            + "invariants \(invariantViolations) busy \(isBusy) pending \(pendingRequestCount) broken \(brokenStep) "
            + "waiting \(suspensions) getters \(getters) results [\(awaited)]"
            + (currentNode.map { " node #\($0)" } ?? "") + (tree.map { " tree \($0) marks \(treeMarks)" } ?? "")
    }
}

/// What changes while tasks run between two events: the driver lets the stack's tasks run until
/// this is what the model says.
struct AsyncFingerprint: Hashable, CustomStringConvertible {
    var events: Int
    var results: Int
    /// The suspensions made so far (a handler resumed that suspends again at the next action
    /// changes nothing else).
    var arrivals: Int
    var suspensions: Int
    var isBusy: Bool
    var pendingRequestCount: Int

    var description: String {
        "events \(events) results \(results) suspended \(arrivals) waiting \(suspensions) busy \(isBusy) "
            + "pending \(pendingRequestCount)"
    }
}

/// The stack's world, as the runner sees it.
@MainActor
protocol AsyncDriverStackWorld: AnyObject {
    /// Performs the event: a call, or a new task, or a resumption or cancellation.
    func perform(_ op: AsyncOp)
    /// Lets the stack's tasks run until the world shows `expected` (or a bound).
    func settle(toward expected: AsyncFingerprint) async
    var fingerprint: AsyncFingerprint { get }
    /// The log so far, filtered as the model's.
    var log: [DriverEvent] { get }
    /// What the driver compares; `readTree`: with the history tree (a query that sweeps freed
    /// targets, read when the model says it has none to sweep).
    func snapshot(readTree: Bool) -> AsyncSnapshot
    /// Lets every task end, whatever state the run stopped in.
    func tearDown() async
}

/// The part of an event log the asynchronous driver compares (see the decisions above).
enum AsyncDriverLog {
    static let compared: Set<ReferenceModel.NotificationName> = [.willUndo, .didUndo, .willRedo, .didRedo]

    /// Appends to `log` the events of `events` from `cursor` on that the driver compares.
    static func filter(_ events: [DriverEvent], from cursor: inout Int, into log: inout [DriverEvent]) {
        while cursor < events.count {
            let event = events[cursor]
            cursor += 1
            switch event {
            case .posted(let posted):
                guard compared.contains(posted.name) else { continue }
                log.append(.posted(.init(name: posted.name, discardable: posted.discardable, activities: [])))
            case .heard:
                continue
            case .misuse, .result:
                log.append(event)
            }
        }
    }
}

// MARK: - The model's world

/// The reference model driven by asynchronous driver events.
final class AsyncModelWorld {
    let world: ModelWorld
    var model: ReferenceModel { world.model }
    private var cursor = 0
    private(set) var log: [DriverEvent] = []
    /// The driver's number of each awaiter the model's tasks report to (by the model's number).
    private var driverNumber: [Int: Int] = [:]
    private var nextDriverNumber = 0
    private var lastStarted: Int?
    /// The driver's numbers of the model's tasks not done yet.
    var liveAwaiters: Int { model.asyncState.tasks.filter { driverNumber[$0.awaiter] != nil }.count }

    init(_ driverCase: AsyncDriverCase) {
        world = ModelWorld(driverCase.syncCase)
        let world = self.world
        model.asyncState.resolveSlot = { [unowned world] slot in
            let target = world.slotTarget[slot]
            return world.hasTarget(target) ? target : nil
        }
        model.asyncState.failPosted = { [unowned world] isUndo in
            world.events.append(.result(isUndo ? "didFailUndo" : "didFailRedo"))
        }
    }

    private func number(_ awaiter: Int) {
        driverNumber[awaiter] = nextDriverNumber
        nextDriverNumber += 1
    }

    func perform(_ op: AsyncOp) {
        let model = self.model
        switch op {
        case .sync(let op):
            world.perform(op)
            // The Edit menu's request the call started, if any: the driver awaits the last one.
            if let started = model.asyncState.startedAwaiter, started != lastStarted {
                lastStarted = started
                number(started)
            }
        case .registerAsync(let slot, let delta, let suspends, let inverse):
            let target = world.slotTarget[slot]
            guard world.hasTarget(target) else { break }
            model.values[target] += delta
            model.registerAsyncUndo(
                target: target, delta: delta, spec: .init(suspends: suspends, registersInverse: inverse))
        case .performUndo: number(model.spawn(.operation(.undo)))
        case .performRedo: number(model.spawn(.operation(.redo)))
        case .performJump(let position): number(model.spawn(.operation(.jump(position))))
        case .performJumpToNode(let offset):
            number(model.spawn(.operation(.jumpToNode((model.currentNodeQuery ?? 0) + offset))))
        case .asyncGroup(let name, let body, let throwing):
            number(model.spawn(.group(name: name, items: body, throwing: throwing)))
        case .retryBroken: number(model.spawn(.retry))
        case .cancelledAwaiter:
            guard let started = model.asyncState.startedAwaiter else { break }
            let awaiter = model.newAwaiter()
            number(awaiter)
            model.asyncState.results[awaiter] = model.asyncState.results[started] ?? "cancelled(task)"
            model.count(
                "async cancelled awaiter " + (model.asyncState.results[started] == nil ? "waiting" : "finished"))
        case .resume(let position, let fails): model.resume(position, fails: fails)
        case .cancelTask(let position): model.cancelTask(position)
        case .cancelPending: model.cancelPendingRequests()
        case .busyPolicy(let limit):
            model.asyncState.inUse = true
            model.asyncState.queueLimit = limit
        case .discardBroken: model.discardBrokenStep()
        }
        model.runReadyTasks()
        AsyncDriverLog.filter(world.events, from: &cursor, into: &log)
    }

    var results: [Int: String] {
        var results: [Int: String] = [:]
        for (awaiter, text) in model.asyncState.results {
            if let number = driverNumber[awaiter] { results[number] = text }
        }
        return results
    }

    var fingerprint: AsyncFingerprint {
        AsyncFingerprint(
            events: log.count, results: results.count, arrivals: model.asyncState.arrivals,
            suspensions: model.asyncState.suspensions.count,
            isBusy: model.asyncState.running != nil, pendingRequestCount: model.asyncState.waiting.count)
    }

    /// Whether the stack's world may read `historyTree` now: a branching history with no action of
    /// a freed target anywhere, so that the query's sweep finds nothing.
    var readsTree: Bool { model.tree != nil && !model.holdsDeadAction }

    func snapshot(readTree: Bool) -> AsyncSnapshot {
        let model = self.model
        let state = model.asyncState
        var snapshot = AsyncSnapshot(
            structure: model.asyncStructure, stateShape: model.stateShape,
            values: world.slotTarget.map { world.hasTarget($0) ? model.values[$0] : nil },
            invariantViolations: model.invariantViolations, isBusy: state.running != nil,
            pendingRequestCount: state.waiting.count,
            brokenStep: state.broken.map { "\($0.isUndo ? "undo" : "redo") '\($0.name)'" } ?? "-",
            suspensions: state.suspensions.map(\.label), results: results,
            getters: [model.groupingLevelNow, model.disableCount == 0 ? 1 : 0])
        if model.tree != nil {
            snapshot.currentNode = model.currentNode
            if readTree {
                snapshot.tree = model.treeSnapshot()
                snapshot.treeMarks = model.treeMarks
            }
        }
        return snapshot
    }
}

extension ReferenceModel {
    /// Whether any step, open group or branch holds an action of a freed target.
    var holdsDeadAction: Bool {
        func frame(_ frame: Frame) -> Bool {
            frame.items.contains { item in
                switch item {
                case .action(let action): isDead(action)
                case .group(let group): group.actions.contains(where: isDead)
                }
            }
        }
        for side in [undoSide, redoSide] {
            if side.closed.contains(where: { $0.actions.contains(where: isDead) }) { return true }
            if side.frames.contains(where: frame) { return true }
        }
        return tree?.branches.contains { $0.steps.contains { $0.actions.contains(where: isDead) } } ?? false
    }

    /// The nodes the snapshot marks: the step an operation performs ("f#n", it stays where it was
    /// until it has succeeded) and the broken step ("b#n").
    var treeMarks: [String] {
        var marks: [String] = []
        if let run = asyncState.run, let direction = run.direction,
            side(direction).closed.contains(where: { $0.id == run.stepID })
        {
            marks.append("f#\(run.node)")
        }
        // The broken step is marked wherever it is: on its side, or in a branch once a new change
        // ended the redo future it was on.
        if let broken = asyncState.broken,
            let step = ([side(broken.isUndo ? .undo : .redo).closed] + (tree?.branches.map(\.steps) ?? []))
                .lazy.compactMap({ $0.first(where: { $0.id == broken.stepID }) }).first
        {
            marks.append("b#\(step.node)")
        }
        return marks
    }
}

extension ReferenceModel {
    /// `_structure`, where a step or open group holding an asynchronous action shows its metadata's
    /// colon even with nothing else set (the hook prints the flag's presence so).
    var asyncStructure: String {
        let marked = asyncState.asyncFrames
        func actions(_ list: [Action]) -> [String] { list.map { isDead($0) ? "x" : "a" } }
        func meta(_ metadata: Metadata, _ id: Int) -> String {
            guard !metadata.name.isEmpty || metadata.discardable || !metadata.userInfo.isEmpty || marked.contains(id)
            else { return "" }
            var text = ":" + metadata.name + (metadata.discardable ? "!" : "")
            if !metadata.userInfo.isEmpty { text += "{" + metadata.userInfo.keys.sorted().joined(separator: ",") + "}" }
            return text
        }
        func frame(_ frames: [Frame], _ index: Int) -> String {
            var parts = frames[index].items.map { item -> String in
                switch item {
                case .action(let action): isDead(action) ? "x" : "a"
                case .group(let group): "[" + actions(group.actions).joined(separator: " ") + "]"
                }
            }
            if index + 1 < frames.count { parts.append(frame(frames, index + 1)) }
            return "<" + parts.joined(separator: " ") + ">" + (index == 0 ? meta(frames[0].metadata, frames[0].id) : "")
        }
        func describe(_ side: Side) -> String {
            var parts = side.closed.map {
                "[" + actions($0.actions).joined(separator: " ") + "]" + meta($0.metadata, $0.id)
            }
            if !side.frames.isEmpty { parts.append(frame(side.frames, 0)) }
            return parts.joined(separator: " ")
        }
        return "undo(\(describe(undoSide))) redo(\(describe(redoSide)))"
    }
}

// MARK: - Generation

enum AsyncDriverGenerator {
    static let names = ["Move", "Type", "Draw"]

    /// A random case: settings and `count` events. About a third of the cases are branching
    /// histories (section 19), with the moves of a tree among the events; the shape is drawn apart
    /// from the rest, so that a linear case is the one its seed always made.
    static func makeCase(seed: UInt64, count: Int) -> AsyncDriverCase {
        var shapeRandom = SeededGenerator(seed: seed ^ 0x7472_6565)
        let tree = shapeRandom.chance(30)
        var random = SeededGenerator(seed: seed)
        let config = DriverConfig(
            groupsByEvent: random.chance(60), dropsEmptyGroups: random.chance(40), logsMisuse: false, slots: 3,
            tree: tree)
        var ops: [AsyncOp] = []
        // Some sequences keep the queue short, so that requests are dropped.
        if random.chance(20) { ops.append(.busyPolicy(random.chance(30) ? nil : random.int(0...2))) }
        while ops.count < count {
            ops += makeEvents(&random, slots: config.slots, tree: tree)
        }
        return AsyncDriverCase(seed: seed, config: config, ops: Array(ops.prefix(count)))
    }

    static func asyncRegistration(_ random: inout SeededGenerator, slots: Int) -> AsyncOp {
        .registerAsync(
            slot: random.int(0...(slots - 1)), delta: random.int(1...99), suspends: random.chance(85),
            registersInverse: random.chance(92))
    }

    /// One event, or a few that belong together (a step mixing synchronous and asynchronous
    /// actions, a burst of requests). With `tree`, also the moves of a branching history and bursts
    /// that make branches; without, the events a linear case always drew.
    static func makeEvents(_ random: inout SeededGenerator, slots: Int, tree: Bool = false) -> [AsyncOp] {
        let slot = random.int(0...(slots - 1))
        let weighted: [(Int, (inout SeededGenerator) -> [AsyncOp])] = [
            (22, { [.resume($0.chance(70) ? 0 : $0.int(0...3), fails: $0.chance(12))] }),
            (7, { [asyncRegistration(&$0, slots: slots)] }),
            (
                8,
                { random in
                    // A step of its own mixing both kinds of actions, maybe named.
                    var ops: [AsyncOp] = [.sync(.begin)]
                    for _ in 0..<random.int(1...3) {
                        if random.chance(60) {
                            ops.append(asyncRegistration(&random, slots: slots))
                        } else {
                            ops.append(
                                .sync(
                                    .register(
                                        slot: random.int(0...(slots - 1)), delta: random.int(1...99), options: .plain)))
                        }
                    }
                    if random.chance(50) { ops.append(.sync(.name(names[random.int(0...2)]))) }
                    ops.append(.sync(.end))
                    return ops
                }
            ),
            (8, { _ in [.performUndo] }),
            (5, { _ in [.performRedo] }),
            (2, { [.performJump($0.int(-1...6))] }),
            (2, { Array(repeating: .performUndo, count: $0.int(2...4)) }),
            (4, { _ in [.sync(.undo)] }),
            (3, { _ in [.sync(.redo)] }),
            (1, { [.sync(.jump($0.int(-1...6)))] }),
            (3, { [makeGroup(&$0, slots: slots)] }),
            (3, { [.cancelTask($0.int(0...3))] }),
            (2, { _ in [.cancelPending] }),
            (1, { [.busyPolicy($0.chance(25) ? nil : [0, 1, 2, 64][$0.int(0...3)])] }),
            (2, { _ in [.discardBroken] }),
            (2, { _ in [.retryBroken] }),
            (2, { _ in [.cancelledAwaiter] }),
            (2, { _ in [.sync(.free(slot: slot))] }),
            (1, { _ in [.sync(.replace(slot: slot))] }),
            (1, { _ in [.sync(.removeAll)] }),
            (2, { _ in [.sync(.removeTarget(slot: slot))] }),
            (1, { _ in [.sync(.markClean)] }),
            (18, { [.sync(syncOp(&$0, slots: slots, tree: tree))] }),
            // A branching history (section 19); weight 0 in a linear case, which leaves its picks
            // as they always were.
            (tree ? 4 : 0, { [.performJumpToNode($0.int(-8...3))] }),
            (tree ? 6 : 0, { makeBranchBurst(&$0, slots: slots) }),
        ]
        let total = weighted.reduce(0) { $0 + $1.0 }
        var pick = random.int(0...(total - 1))
        for (weight, make) in weighted {
            if pick < weight { return make(&random) }
            pick -= weight
        }
        fatalError("unreachable")
    }

    /// Any operation of the synchronous driver, but those of observers (which this driver does
    /// not compare).
    static func syncOp(_ random: inout SeededGenerator, slots: Int, tree: Bool = false) -> DriverOp {
        func strip(_ op: DriverOp) -> DriverOp {
            switch op {
            case .addObserver, .cancelObserver, .allQueries: .query(.state)
            case .scope(let name, let body, let throwing): .scope(name: name, body: body.map(strip), throwing: throwing)
            default: op
            }
        }
        return strip(DriverGenerator.makeOp(&random, slots: slots, depth: 0, tree: tree))
    }

    /// A few undos (awaited or the Edit menu's), maybe resumed, then a change closed at once: a new
    /// branch, or, while an undo awaits, another task's change that ends the redo future when the
    /// undo settles; sometimes an awaited jump back.
    static func makeBranchBurst(_ random: inout SeededGenerator, slots: Int) -> [AsyncOp] {
        var ops: [AsyncOp] = []
        for _ in 0..<random.int(1...2) { ops.append(random.chance(50) ? .performUndo : .sync(.undo)) }
        if random.chance(50) { ops.append(.resume(0, fails: random.chance(15))) }
        ops.append(.sync(.begin))
        if random.chance(50) {
            ops.append(asyncRegistration(&random, slots: slots))
        } else {
            ops.append(.sync(.register(slot: random.int(0...(slots - 1)), delta: random.int(1...99), options: .plain)))
        }
        ops.append(.sync(.end))
        if random.chance(40) { ops.append(.performJumpToNode(-random.int(1...6))) }
        return ops
    }

    static func makeGroup(_ random: inout SeededGenerator, slots: Int) -> AsyncOp {
        var body: [ReferenceModel.GroupItem] = []
        for _ in 0..<random.int(0...4) {
            switch random.int(0...9) {
            case 0..<3: body.append(.suspend)
            case 3: body.append(.name(names[random.int(0...2)]))
            default:
                let async: ReferenceModel.AsyncSpec? =
                    random.chance(60) ? .init(suspends: random.chance(85), registersInverse: random.chance(92)) : nil
                body.append(.register(slot: random.int(0...(slots - 1)), delta: random.int(1...99), async: async))
            }
        }
        return .asyncGroup(
            name: random.chance(50) ? names[random.int(0...2)] : nil, body: body, throwing: random.chance(20))
    }
}

// MARK: - Running and comparing

@MainActor
enum AsyncDriverRunner {
    /// Runs a case on the model and a stack; nil when they agreed throughout, or a description of
    /// the first divergence with the last events.
    static func run(
        _ driverCase: AsyncDriverCase, tracing: Bool = false,
        observe: (AsyncModelWorld) -> Void = { _ in },
        stack makeStack: (AsyncDriverCase) -> any AsyncDriverStackWorld
    ) async -> String? {
        let model = AsyncModelWorld(driverCase)
        observe(model)
        let stack = makeStack(driverCase)
        var trail: [String] = []
        var compared = 0

        /// `readsTree`: the history tree is compared too (every other event and throughout the
        /// end, to keep the CI run's time; the current node is compared after every event).
        func compare(_ label: String, readsTree: Bool) -> String? {
            let left = model.log
            let right = stack.log
            for index in compared..<max(left.count, right.count) {
                if index < left.count && index < right.count && left[index] == right[index] { continue }
                return """
                    \(label): event \(index) differs
                      model: \(index < left.count ? left[index].description : "(nothing)")
                      stack: \(index < right.count ? right[index].description : "(nothing)")
                      model: \(model.snapshot(readTree: false))
                      stack: \(stack.snapshot(readTree: false))
                    """
            }
            compared = max(left.count, right.count)
            let readTree = readsTree && model.readsTree
            let expected = model.snapshot(readTree: readTree)
            let actual = stack.snapshot(readTree: readTree)
            if expected != actual {
                let keys = Set(expected.results.keys).union(actual.results.keys).sorted()
                let differing = keys.filter { expected.results[$0] != actual.results[$0] }.map {
                    "    awaiter \($0): model \(expected.results[$0] ?? "(none)"), stack \(actual.results[$0] ?? "(none)")"
                }
                return "\(label): state differs\n  model: \(expected)\n  stack: \(actual)"
                    + (differing.isEmpty ? "" : "\n  results that differ:\n" + differing.joined(separator: "\n"))
            }
            return nil
        }

        var events = 0
        func step(_ op: AsyncOp, _ label: String, final: Bool = false) async -> String? {
            events += 1
            model.perform(op)
            stack.perform(op)
            await stack.settle(toward: model.fingerprint)
            trail.append(label)
            if tracing { print("\(label)\n   \(model.snapshot(readTree: model.readsTree))") }
            return compare(label, readsTree: final || events % 2 == 0)
        }

        func failure(_ problem: String) async -> String {
            await stack.tearDown()
            return "\(problem)\n  last events (seed \(driverCase.seed)):\n"
                + trail.suffix(24).map { "    \($0)" }.joined(separator: "\n")
        }

        for (index, op) in driverCase.ops.enumerated() {
            if let problem = await step(op, "event \(index) \(op)") { return await failure(problem) }
        }

        // The end: every waiting handler succeeds, then undo everything and redo everything.
        func drain() async -> String? {
            var turns = 0
            while !model.model.asyncState.suspensions.isEmpty && turns < 1_000 {
                turns += 1
                if let problem = await step(.resume(0, fails: false), "final resume") { return problem }
            }
            return nil
        }
        func loop(_ op: AsyncOp) async -> String? {
            for _ in 0..<500 {
                if let problem = await step(op, "final \(op)") { return problem }
                if let problem = await drain() { return problem }
                let results = model.results
                guard let last = results.keys.max(), results[last] == "true" else { return nil }
            }
            return nil
        }
        if let problem = await drain() { return await failure(problem) }
        for _ in 0..<min(model.model.disableCount, 50) {
            if let problem = await step(.sync(.enable), "final enable") { return await failure(problem) }
        }
        for _ in 0..<50 where model.model.groupingLevelNow > 0 {
            if let problem = await step(.sync(.end), "final end") { return await failure(problem) }
        }
        if let problem = await step(.discardBroken, "final discard") { return await failure(problem) }
        if let problem = await loop(.performRedo) { return await failure(problem) }
        if let problem = await loop(.performUndo) { return await failure(problem) }
        if let problem = await loop(.performRedo) { return await failure(problem) }
        // A branching history: an awaited jump to every node (to eight spread over them in a big
        // tree), each compared with its tree (section 19).
        if model.model.tree != nil {
            let nodes = model.model.allNodes
            let stride = max(1, (nodes.count + 7) / 8)
            for node in Swift.stride(from: 0, to: nodes.count, by: stride).map({ nodes[$0] }) {
                guard model.model.tree != nil, model.model.asyncState.broken == nil else { break }
                let offset = node - model.model.currentNode
                if let problem = await step(.performJumpToNode(offset), "final jump to #\(node)", final: true) {
                    return await failure(problem)
                }
                if let problem = await drain() { return await failure(problem) }
            }
        }
        if model.liveAwaiters != 0 { return await failure("the model: \(model.liveAwaiters) awaiters left at the end") }
        await stack.tearDown()
        return nil
    }

    /// Shortens a failing case while it still fails: removes chunks of events, then shortens group
    /// bodies and scopes.
    static func shrink(_ driverCase: AsyncDriverCase, fails: (AsyncDriverCase) async -> Bool) async -> AsyncDriverCase {
        var current = driverCase
        var changed = true
        var budget = 400
        while changed && budget > 0 {
            changed = false
            var chunk = max(1, current.ops.count / 2)
            while chunk >= 1 && budget > 0 {
                var start = 0
                while start < current.ops.count && budget > 0 {
                    var candidate = current
                    candidate.ops.removeSubrange(start..<min(start + chunk, candidate.ops.count))
                    budget -= 1
                    if await fails(candidate) {
                        current = candidate
                        changed = true
                    } else {
                        start += chunk
                    }
                }
                chunk /= 2
            }
            for position in current.ops.indices where budget > 0 {
                var options: [AsyncOp] = []
                switch current.ops[position] {
                case .asyncGroup(let name, let body, let throwing):
                    if throwing { options.append(.asyncGroup(name: name, body: body, throwing: false)) }
                    for removed in body.indices {
                        var shorter = body
                        shorter.remove(at: removed)
                        options.append(.asyncGroup(name: name, body: shorter, throwing: throwing))
                    }
                case .sync(.scope(let name, let body, let throwing)):
                    if throwing { options.append(.sync(.scope(name: name, body: body, throwing: false))) }
                    for removed in body.indices {
                        var shorter = body
                        shorter.remove(at: removed)
                        options.append(.sync(.scope(name: name, body: shorter, throwing: throwing)))
                    }
                case .resume(let index, let fails) where index != 0:
                    options.append(.resume(0, fails: fails))
                default:
                    break
                }
                for replacement in options where budget > 0 {
                    var candidate = current
                    candidate.ops[position] = replacement
                    budget -= 1
                    if await fails(candidate) {
                        current = candidate
                        changed = true
                        break
                    }
                }
            }
        }
        return current
    }
}
