// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackTestSupport

// The random driver, the part that does not need the ActionStack module: the operations, their
// generation, the callback plan, the "world" protocol that a real stack and the model both
// implement, the model's world, the runner that compares two worlds after every step, and the
// shrinker. `RandomDriverTests.swift` adds the real stack's world and the tests.
//
// Decisions of the driver:
// - Notifications are compared in full, checkpoints included, each with its discardable flag and
//   the activity stack (`_activities`) seen by its observer: the spec places every checkpoint.
// - Everything observable is one ordered event log per world (notifications, misuses, states heard
//   by each observer, query results), compared entry by entry, so relative order is checked too.
// - After every step, without side effects: `_structure`, `_stateShape`, the targets' values,
//   `_activities`, `_invariantViolations()`; and, except right after a target was freed (whose
//   first noticing must be left to the next operation), the getters `groupingLevel`,
//   `isUndoing`, `isRedoing`, `isUndoRegistrationEnabled`, which are calls but change nothing at idle.

// MARK: - Operations

/// Registration options of the driver: cost, coalescing key, window in milliseconds.
struct DriverOptions: Hashable, Sendable, CustomStringConvertible {
    var cost = 0
    var key: String?
    var window: Int?

    static let plain = DriverOptions()
    var isPlain: Bool { self == .plain }

    var description: String {
        if isPlain { return ".plain" }
        var parts: [String] = []
        if cost != 0 { parts.append("cost: \(cost)") }
        if let key { parts.append("key: \"\(key)\"") }
        if let window { parts.append("window: \(window)") }
        return ".init(" + parts.joined(separator: ", ") + ")"
    }
}

/// A query of a branching history (section 19), performed as an operation.
enum DriverTreeQuery: String, CaseIterable, Hashable, Sendable {
    case historyTree, redoBranches, currentNode
}

/// A query, performed as an operation (queries have effects, section 11).
enum DriverQuery: String, CaseIterable, Hashable, Sendable {
    case canUndo, canRedo, undoActionName, redoActionName, undoMenuItemTitle, redoMenuItemTitle
    case undoActionIsDiscardable, redoActionIsDiscardable, undoInfo, redoInfo
    case undoCount, redoCount, undoEntries, redoEntries, historyPosition, isCleanAtStart, state
    case isClean, groupingLevel, isUndoRegistrationEnabled
}

/// One step of a driver sequence. The description is Swift source for the same value, so a
/// shrunk failing sequence can be pasted into a test.
indirect enum DriverOp: Hashable, Sendable, CustomStringConvertible {
    /// `target.value += delta`, then `registerUndo(withTarget:options:handler:)` (the plain form
    /// without options); the handler does the same with `-delta`.
    case register(slot: Int, delta: Int, options: DriverOptions)
    /// `target.value += delta`, then `registerUndo(_:on:key:options:)` with the driver's command
    /// (section 20), whose `perform` does the same with `-delta` and registers the inverse command.
    case command(slot: Int, delta: Int, options: DriverOptions)
    case setValue(slot: Int, value: Int, name: String?)
    case begin
    case end
    case undo
    case undoNested
    case redo
    case jump(Int)
    case endEvent
    case removeAll
    case removeTarget(slot: Int)
    /// `removeAllActions(withTarget: 42)`: a value.
    case removeValue
    case disable
    case enable
    case groupsByEvent(Bool)
    case dropsEmptyGroups(Bool)
    case name(String)
    case discardable(Bool)
    case info(key: String, value: Int?)
    case levels(Int)
    case maximumCost(Int)
    case markClean
    case breakCoalescing
    case advanceClock(Int)
    /// The driver drops its last reference to the slot's target.
    case free(slot: Int)
    /// The slot gets a new target object.
    case replace(slot: Int)
    /// `group(named:_:)` whose body performs `body`, then throws if `throwing`.
    case scope(name: String?, body: [DriverOp], throwing: Bool)
    case query(DriverQuery)
    /// Every public query, in a fixed order.
    case allQueries
    case addObserver
    /// Cancels the observer at this index of the live ones (modulo their number).
    case cancelObserver(Int)
    // A branching history (section 19). A node is named relative to the current node (read with
    // `currentNode`, a query), so that a shrunk case still names nodes that exist.
    /// `jump(toNode:)` to the node numbered the current node's number plus this.
    case jumpToNode(Int)
    /// `selectRedoBranch(_:)` with the child at this index of `redoBranches` (modulo their number);
    /// negative, or with no child: the node numbered the current node's number plus this.
    case selectRedoBranch(Int)
    case earlier(Int)
    case later(Int)
    /// `earlier(by:)` and `later(by:)`, in the units of the driver's clock.
    case earlierBy(Int)
    case laterBy(Int)
    case historyShape(tree: Bool)
    case maximumBranchSteps(Int)
    case treeQuery(DriverTreeQuery)
    // The persistent history (section 20).
    /// `savableDepth`, a query.
    case savableDepth
    /// `savedHistory()`: the history saved, or what the call threw.
    case savedHistory
    /// At most `limit` steps of the history saved (all when nil), round-tripped through a
    /// `HistoryArchive`, and restored into a fresh stack configured as this one, with every target
    /// key resolving to its target but that of the target in `unresolvedSlot`, and that of the
    /// target in `releasedSlot` to a new object that nobody keeps; the fresh stack is checked
    /// against the one saved and the model's prediction, walked through its history, and then
    /// replaces it for the rest of the run.
    case saveRestore(limit: Int?, unresolvedSlot: Int?, releasedSlot: Int? = nil)
    /// The history the last save and restore saved (an empty one before any) restored into this
    /// stack, every key of a live target resolving but that of `unresolvedSlot`'s target: refused
    /// unless the stack is empty.
    case restoreSaved(unresolvedSlot: Int?)

    var description: String {
        switch self {
        case .register(let slot, let delta, let options):
            ".register(slot: \(slot), delta: \(delta), options: \(options))"
        case .command(let slot, let delta, let options):
            ".command(slot: \(slot), delta: \(delta), options: \(options))"
        case .setValue(let slot, let value, let name):
            ".setValue(slot: \(slot), value: \(value), name: \(name.map { "\"\($0)\"" } ?? "nil"))"
        case .begin: ".begin"
        case .end: ".end"
        case .undo: ".undo"
        case .undoNested: ".undoNested"
        case .redo: ".redo"
        case .jump(let position): ".jump(\(position))"
        case .endEvent: ".endEvent"
        case .removeAll: ".removeAll"
        case .removeTarget(let slot): ".removeTarget(slot: \(slot))"
        case .removeValue: ".removeValue"
        case .disable: ".disable"
        case .enable: ".enable"
        case .groupsByEvent(let value): ".groupsByEvent(\(value))"
        case .dropsEmptyGroups(let value): ".dropsEmptyGroups(\(value))"
        case .name(let name): ".name(\"\(name)\")"
        case .discardable(let value): ".discardable(\(value))"
        case .info(let key, let value): ".info(key: \"\(key)\", value: \(value.map(String.init) ?? "nil"))"
        case .levels(let value): ".levels(\(value))"
        case .maximumCost(let value): ".maximumCost(\(value))"
        case .markClean: ".markClean"
        case .breakCoalescing: ".breakCoalescing"
        case .advanceClock(let milliseconds): ".advanceClock(\(milliseconds))"
        case .free(let slot): ".free(slot: \(slot))"
        case .replace(let slot): ".replace(slot: \(slot))"
        case .scope(let name, let body, let throwing):
            ".scope(name: \(name.map { "\"\($0)\"" } ?? "nil"), body: [\(body.map(\.description).joined(separator: ", "))], throwing: \(throwing))"
        case .query(let query): ".query(.\(query.rawValue))"
        case .allQueries: ".allQueries"
        case .addObserver: ".addObserver"
        case .cancelObserver(let index): ".cancelObserver(\(index))"
        case .jumpToNode(let offset): ".jumpToNode(\(offset))"
        case .selectRedoBranch(let pick): ".selectRedoBranch(\(pick))"
        case .earlier(let count): ".earlier(\(count))"
        case .later(let count): ".later(\(count))"
        case .earlierBy(let duration): ".earlierBy(\(duration))"
        case .laterBy(let duration): ".laterBy(\(duration))"
        case .historyShape(let tree): ".historyShape(tree: \(tree))"
        case .maximumBranchSteps(let value): ".maximumBranchSteps(\(value))"
        case .treeQuery(let query): ".treeQuery(.\(query.rawValue))"
        case .savableDepth: ".savableDepth"
        case .savedHistory: ".savedHistory"
        case .saveRestore(let limit, let slot, let released):
            ".saveRestore(limit: \(limit.map(String.init) ?? "nil"), unresolvedSlot: \(slot.map(String.init) ?? "nil")"
                + (released.map { ", releasedSlot: \($0)" } ?? "") + ")"
        case .restoreSaved(let slot): ".restoreSaved(unresolvedSlot: \(slot.map(String.init) ?? "nil"))"
        }
    }

    /// Operations in this one, itself included (scopes count their bodies).
    var size: Int {
        if case .scope(_, let body, _) = self { return 1 + body.reduce(0) { $0 + $1.size } }
        return 1
    }
}

// MARK: - Callback plan

/// What a callback of the plan listens to.
enum DriverTrigger: Hashable, Sendable, CustomStringConvertible {
    case notification(ReferenceModel.NotificationName)
    /// A delivery of a state to any `observe` observer.
    case observe

    var description: String {
        switch self {
        case .notification(let name): ".notification(.\(name))"
        case .observe: ".observe"
        }
    }
}

/// One rule of the plan: at the `nth` occurrence of the trigger (or every `every`-th), the
/// observer performs `op` on the stack.
struct PlanRule: Hashable, Sendable, CustomStringConvertible {
    var trigger: DriverTrigger
    /// Fires at occurrence `nth` only (1-based), or at every multiple of `every`.
    var nth: Int?
    var every: Int?
    var op: DriverOp

    var description: String {
        ".init(trigger: \(trigger), nth: \(nth.map(String.init) ?? "nil"), every: \(every.map(String.init) ?? "nil"), op: \(op))"
    }
}

/// Counts the occurrences of each trigger in one world and runs the plan's operations re-entrantly.
/// Two bounds make every run end: a callback's own operation may trigger callbacks down to depth
/// `maximumDepth`, no further; and each top-level operation has a budget of `callbacksPerOperation`
/// callbacks (the publishing loop delivers the states that callbacks' calls enqueue at depth 0, so
/// depth alone would let "every 2nd delivery, undo" run for ever).
final class CallbackPlanRunner {
    let rules: [PlanRule]
    var counts: [DriverTrigger: Int] = [:]
    var depth = 0
    var enabled = true
    var budget = CallbackPlanRunner.callbacksPerOperation
    static let maximumDepth = 2
    static let callbacksPerOperation = 6

    init(rules: [PlanRule]) { self.rules = rules }

    /// A new top-level operation: a new budget.
    func resetBudget() { budget = Self.callbacksPerOperation }

    /// One occurrence of `trigger`: performs the first matching rule's operation through `perform`.
    func occurrence(_ trigger: DriverTrigger, perform: (DriverOp) -> Void) {
        let count = counts[trigger, default: 0] + 1
        counts[trigger] = count
        guard enabled, depth < Self.maximumDepth, budget > 0 else { return }
        guard
            let rule = rules.first(where: { rule in
                rule.trigger == trigger
                    && (rule.nth == count || (rule.every.map { count % $0 == 0 } ?? false))
            })
        else { return }
        budget -= 1
        depth += 1
        perform(rule.op)
        depth -= 1
    }
}

// MARK: - A case, a world, events

/// The settings of one sequence.
struct DriverConfig: Hashable, Sendable, CustomStringConvertible {
    var groupsByEvent = true
    var dropsEmptyGroups = false
    /// `.log` (true) or `.report` (false): the same for the model; `.log` also writes a line to
    /// standard error, which the driver does not capture, so only a soak run uses it (see
    /// `StackWorld.logsMisuseAloud`).
    var logsMisuse = false
    var slots = 3
    /// Whether the history starts as a tree (section 19).
    var tree = false
    /// Section 20: the percentage of registrations made as commands, which also brings the
    /// operations of the persistent history (0: none, the cases the driver always made).
    var commands = 0

    var description: String {
        ".init(groupsByEvent: \(groupsByEvent), dropsEmptyGroups: \(dropsEmptyGroups), logsMisuse: \(logsMisuse), slots: \(slots)"
            + (tree ? ", tree: true" : "") + (commands > 0 ? ", commands: \(commands)" : "") + ")"
    }
}

/// Everything needed to replay one sequence.
struct DriverCase: Hashable, Sendable, CustomStringConvertible {
    var seed: UInt64
    var config: DriverConfig
    var plan: [PlanRule]
    var ops: [DriverOp]

    var size: Int { ops.reduce(0) { $0 + $1.size } }

    var description: String {
        """
        DriverCase(
            seed: \(seed),
            config: \(config),
            plan: [\(plan.map { "\n        \($0)," }.joined())
            ],
            ops: [\(ops.map { "\n        \($0)," }.joined())
            ]
        )
        """
    }
}

/// Something observable that happened in a world, in order.
enum DriverEvent: Hashable, CustomStringConvertible {
    case posted(ReferenceModel.Posted)
    case misuse(ReferenceModel.Misuse)
    case heard(observer: Int, ReferenceModel.State)
    case result(String)

    var description: String {
        switch self {
        case .posted(let posted): "post \(posted)"
        case .misuse(let misuse): "misuse \(misuse)"
        case .heard(let observer, let state): "observer \(observer) heard \(state)"
        case .result(let text): "result \(text)"
        }
    }
}

/// What the driver reads after every step.
struct WorldSnapshot: Hashable, CustomStringConvertible {
    var structure: String
    var stateShape: String
    /// Values of the live targets (nil for a freed one).
    var values: [Int?]
    var activities: [ReferenceModel.Activity]
    var invariantViolations: [String]
    /// groupingLevel, isUndoing, isRedoing, isUndoRegistrationEnabled (nil when not read).
    var getters: [Int]?
    /// `historyTree`, read with the getters in a branching history (section 19; a query, which
    /// sweeps freed targets at idle).
    var tree: TreeSnapshot? = nil

    var description: String {
        "\(structure) shape[\(stateShape)] values \(values.map { $0.map(String.init) ?? "-" }) "
            + "activities \(activities) invariants \(invariantViolations) getters \(getters.map { "\($0)" } ?? "-")"
            + (tree.map { " tree \($0)" } ?? "")
    }
}

/// A stack or the model, driven by the same operations.
protocol DriverWorld: AnyObject {
    /// The events so far.
    var events: [DriverEvent] { get }
    /// The callback plan's runner (disabled for the final phase).
    var plan: CallbackPlanRunner { get }
    func perform(_ op: DriverOp)
    func snapshot(readGetters: Bool) -> WorldSnapshot
    /// The current node and every node, without effects (a branching history of the model; nil
    /// otherwise): the final phase visits every node.
    var treeNodes: (current: Int, nodes: [Int])? { get }
}

extension DriverWorld {
    var treeNodes: (current: Int, nodes: [Int])? { nil }
}

/// Text of query results, shared by both worlds so that they compare as strings.
enum DriverText {
    static func entries(_ entries: [ReferenceModel.Entry]) -> String {
        "[" + entries.map(\.description).joined(separator: ", ") + "]"
    }

    static func optional(_ value: Int?) -> String { value.map(String.init) ?? "nil" }

    static func node(_ node: Int?) -> String { node.map { "#\($0)" } ?? "nil" }

    static func nodes(_ nodes: [Int]) -> String { "[" + nodes.map { "#\($0)" }.joined(separator: ", ") + "]" }
}

// MARK: - The model's world

/// The reference model driven by driver operations.
final class ModelWorld: DriverWorld {
    let model: ReferenceModel
    let plan: CallbackPlanRunner
    var events: [DriverEvent] = []
    /// slot -> target index.
    var slotTarget: [Int]
    /// Live observers: (driver index, model token).
    var observers: [(index: Int, token: Int)] = []
    var nextObserverIndex = 0
    /// Targets that a call in progress was passed (register, setValue, removal by target): in the
    /// stack's world the caller's argument keeps such an object alive until the call returns, so a
    /// callback that frees its slot meanwhile frees the object only then.
    var heldTargets: [Int] = []
    /// Targets whose slot was freed while a call held them: dead once the call returns.
    var pendingFrees: Set<Int> = []
    /// The history the last save and restore saved (section 20).
    var lastSaved: ReferenceModel.ModelSave?

    /// Whether the driver still has the target (its slot was not freed), as the stack's world
    /// sees it: a freed slot is nil there at once, even while a call keeps the object alive.
    func hasTarget(_ target: Int) -> Bool { model.driverHas(target) && !pendingFrees.contains(target) }

    /// Runs `body`, a call that was passed `target`, keeping the target alive until it returns.
    func holding(_ target: Int, _ body: () -> Void) {
        heldTargets.append(target)
        body()
        heldTargets.removeLast()
        if pendingFrees.contains(target) && !heldTargets.contains(target) {
            pendingFrees.remove(target)
            model.free(target)
        }
    }

    init(_ driverCase: DriverCase, decisions: ReferenceModel.Decisions = .init()) {
        model = ReferenceModel(
            targets: driverCase.config.slots, groupsByEvent: driverCase.config.groupsByEvent,
            dropsEmptyGroups: driverCase.config.dropsEmptyGroups, decisions: decisions)
        slotTarget = Array(0..<driverCase.config.slots)
        plan = CallbackPlanRunner(rules: driverCase.plan)
        if driverCase.config.tree { model.applyHistoryShape(tree: true) }
        model.onMisuse = { [unowned self] misuse in events.append(.misuse(misuse)) }
        model.notificationHook = { [unowned self] posted in
            events.append(.posted(posted))
            plan.occurrence(.notification(posted.name)) { perform($0) }
        }
    }

    func result(_ text: String) { events.append(.result(text)) }

    func perform(_ op: DriverOp) {
        let model = self.model
        switch op {
        case .register(let slot, let delta, let options):
            let target = slotTarget[slot]
            guard hasTarget(target) else { return }
            model.values[target] += delta
            holding(target) {
                model.registerUndo(
                    target: target, kind: .add(-delta), cost: options.cost, key: options.key, window: options.window)
            }
        case .command(let slot, let delta, let options):
            let target = slotTarget[slot]
            guard hasTarget(target) else { return }
            model.values[target] += delta
            holding(target) {
                model.registerUndo(
                    target: target, kind: .add(-delta), cost: options.cost, key: options.key, window: options.window,
                    command: true)
            }
        case .setValue(let slot, let value, let name):
            let target = slotTarget[slot]
            guard hasTarget(target) else { return }
            holding(target) { model.setValue(value, on: target, actionName: name) }
        case .begin: model.beginUndoGrouping()
        case .end: model.endUndoGrouping()
        case .undo: model.undo()
        case .undoNested: model.undoNestedGroup()
        case .redo: model.redo()
        case .jump(let position): model.jump(to: position)
        case .endEvent: model.endEvent()
        case .removeAll: model.removeAllActions()
        case .removeTarget(let slot):
            let target = slotTarget[slot]
            guard hasTarget(target) else { return }
            holding(target) { model.removeAllActions(withTarget: target) }
        case .removeValue: model.removeAllActionsWithValue()
        case .disable: model.disableUndoRegistration()
        case .enable: model.enableUndoRegistration()
        case .groupsByEvent(let value): model.setGroupsByEvent(value)
        case .dropsEmptyGroups(let value): model.setDropsEmptyGroups(value)
        case .name(let name): model.setActionName(name)
        case .discardable(let value): model.setActionIsDiscardable(value)
        case .info(let key, let value): model.setActionUserInfoValue(value, forKey: key)
        case .levels(let value): model.setLevelsOfUndo(value)
        case .maximumCost(let value): model.setMaximumCost(value)
        case .markClean: model.markClean()
        case .breakCoalescing: model.breakCoalescing()
        case .advanceClock(let milliseconds): model.clock += milliseconds
        case .free(let slot):
            let target = slotTarget[slot]
            if heldTargets.contains(target) {
                if model.alive[target] { pendingFrees.insert(target) }
            } else {
                model.free(target)
            }
        case .replace(let slot): slotTarget[slot] = model.addTarget()
        case .scope(let name, let body, let throwing):
            do {
                try model.group(named: name) {
                    for inner in body { perform(inner) }
                    if throwing { throw ReferenceModel.ScopeFailure() }
                }
                result("scope returned")
            } catch {
                result("scope threw")
            }
        case .query(let query): perform(query)
        case .allQueries: for query in DriverQuery.allCases { perform(query) }
        case .addObserver:
            let index = nextObserverIndex
            nextObserverIndex += 1
            let token = model.observe { [unowned self] state in
                events.append(.heard(observer: index, state))
                plan.occurrence(.observe) { perform($0) }
            }
            observers.append((index, token))
        case .cancelObserver(let position):
            guard !observers.isEmpty else { return }
            let observer = observers.remove(at: position % observers.count)
            model.cancelObservation(observer.token)
        case .jumpToNode(let offset):
            let target = (model.currentNodeQuery ?? 0) + offset
            outcome("jumpToNode(#\(target))") { try model.jumpToNode(target) }
        case .selectRedoBranch(let pick):
            let branches = model.redoBranchesQuery
            let target =
                pick >= 0 && !branches.isEmpty ? branches[pick % branches.count] : (model.currentNodeQuery ?? 0) + pick
            outcome("selectRedoBranch(#\(target))") { try model.selectRedoBranch(target) }
        case .earlier(let count): reached("earlier(\(count))") { try model.moveByCount(count, later: false) }
        case .later(let count): reached("later(\(count))") { try model.moveByCount(count, later: true) }
        case .earlierBy(let duration):
            reached("earlierBy(\(duration))") { try model.moveByTime(duration, later: false) }
        case .laterBy(let duration): reached("laterBy(\(duration))") { try model.moveByTime(duration, later: true) }
        case .historyShape(let tree): model.setHistoryShape(tree: tree)
        case .maximumBranchSteps(let value): model.setMaximumBranchSteps(value)
        case .treeQuery(let query):
            switch query {
            case .historyTree: result("historyTree = \(model.historyTreeQuery.map(\.description) ?? "nil")")
            case .redoBranches: result("redoBranches = \(DriverText.nodes(model.redoBranchesQuery))")
            case .currentNode: result("currentNode = \(DriverText.node(model.currentNodeQuery))")
            }
        case .savableDepth: performSavableDepth()
        case .savedHistory: performSavedHistory()
        case .saveRestore(let limit, let slot, let released):
            performSaveRestore(limit: limit, unresolvedSlot: slot, releasedSlot: released)
        case .restoreSaved(let slot): performRestoreSaved(unresolvedSlot: slot)
        }
    }

    /// Logs whether a tree call threw (and what).
    func outcome(_ what: String, _ body: () throws -> Void) {
        do {
            try body()
            result(what)
        } catch {
            result("\(what) threw \(error)")
        }
    }

    /// Logs the node a time move reached, or what it threw.
    func reached(_ what: String, _ body: () throws -> Int) {
        do {
            result("\(what) = #\(try body())")
        } catch {
            result("\(what) threw \(error)")
        }
    }

    var treeNodes: (current: Int, nodes: [Int])? {
        model.tree == nil ? nil : (model.currentNode, model.allNodes)
    }

    func perform(_ query: DriverQuery) {
        let model = self.model
        let text: String
        switch query {
        case .canUndo: text = "\(model.canUndo)"
        case .canRedo: text = "\(model.canRedo)"
        case .undoActionName: text = model.undoActionName
        case .redoActionName: text = model.redoActionName
        case .undoMenuItemTitle: text = model.undoMenuItemTitle
        case .redoMenuItemTitle: text = model.redoMenuItemTitle
        case .undoActionIsDiscardable: text = "\(model.undoActionIsDiscardable)"
        case .redoActionIsDiscardable: text = "\(model.redoActionIsDiscardable)"
        case .undoInfo: text = DriverText.optional(model.undoActionUserInfoValue(forKey: "k1"))
        case .redoInfo: text = DriverText.optional(model.redoActionUserInfoValue(forKey: "k1"))
        case .undoCount: text = "\(model.undoCount)"
        case .redoCount: text = "\(model.redoCount)"
        case .undoEntries: text = DriverText.entries(model.undoEntries)
        case .redoEntries: text = DriverText.entries(model.redoEntries)
        case .historyPosition: text = "\(model.historyPosition)"
        case .isCleanAtStart: text = "\(model.isCleanAtStart)"
        case .state: text = "\(model.state)"
        case .isClean: text = "\(model.isClean)"
        case .groupingLevel: text = "\(model.groupingLevel)"
        case .isUndoRegistrationEnabled: text = "\(model.isUndoRegistrationEnabled)"
        }
        result("\(query.rawValue) = \(text)")
    }

    func snapshot(readGetters: Bool) -> WorldSnapshot {
        // The stack's getters are calls that publish at their end; between steps, with no target
        // freed since the last call, that publish finds nothing new, so the model reads its fields.
        var getters: [Int]?
        if readGetters {
            getters = [
                model.groupingLevelNow, model.isUndoing ? 1 : 0, model.isRedoing ? 1 : 0,
                model.disableCount == 0 ? 1 : 0,
            ]
        }
        return WorldSnapshot(
            structure: model.structure, stateShape: model.stateShape,
            values: slotTarget.map { model.alive[$0] ? model.values[$0] : nil },
            activities: model.activities,
            invariantViolations: model.invariantViolations + model.treeInvariantViolations,
            getters: getters, tree: readGetters && model.tree != nil ? model.historyTreeQuery : nil)
    }
}

// MARK: - Generation

enum DriverGenerator {
    static let names = ["Move", "Type", "Draw"]
    static let keys = ["k1", "k2"]

    /// A random case: settings, a callback plan, and `count` top-level operations. With `tree`, the
    /// history starts as a tree and the operations include the moves of a branching history
    /// (section 19); without, the case is exactly the one a linear driver always made.
    ///
    /// With `commands` (section 20), some registrations are commands (a share of them the case
    /// draws) and the operations of the persistent history are among the others; without, the case
    /// is exactly the one the driver always made.
    static func makeCase(seed: UInt64, count: Int, tree: Bool = false, commands: Bool = false) -> DriverCase {
        var random = SeededGenerator(seed: seed)
        var config = DriverConfig(
            groupsByEvent: random.chance(70), dropsEmptyGroups: random.chance(40), logsMisuse: random.chance(2),
            slots: 3, tree: tree)
        if commands { config.commands = [70, 90, 100][random.int(0...2)] }
        var plan: [PlanRule] = []
        for _ in 0..<random.int(0...4) {
            let triggers: [DriverTrigger] =
                ReferenceModel.NotificationName.allCases.map(DriverTrigger.notification) + [.observe, .observe]
            let trigger = triggers[random.int(0...(triggers.count - 1))]
            let nth = random.chance(50) ? random.int(1...6) : nil
            let every = nth == nil ? random.int(2...7) : nil
            plan.append(
                PlanRule(
                    trigger: trigger, nth: nth, every: every,
                    op: makeOp(&random, slots: config.slots, depth: 1, tree: tree, commands: config.commands)))
        }
        var ops: [DriverOp] = []
        // Some sequences start with observers so that the publishing loop is exercised throughout.
        for _ in 0..<random.int(0...2) { ops.append(.addObserver) }
        while ops.count < count {
            switch random.int(0...99) {
            case 0..<4: ops += makeTypingBurst(&random, slots: config.slots, commands: config.commands)
            case 4..<7: ops += makeUndoRedoBurst(&random)
            case 7..<27 where tree: ops += makeBranchBurst(&random, slots: config.slots, commands: config.commands)
            case 27..<31 where config.commands > 0:
                // The event ends first, so that the save is not refused for its open group.
                ops += [.endEvent, makeSaveRestore(&random, slots: config.slots)]
            case 31..<51 where config.commands > 0:
                ops += makeChangeBurst(&random, slots: config.slots, commands: config.commands)
            case 51..<53 where config.commands > 0:
                // Emptied, the stack takes a history saved earlier.
                ops += [
                    .endEvent, .removeAll, .restoreSaved(unresolvedSlot: random.chance(20) ? random.int(0...2) : nil),
                ]
            default: ops.append(makeOp(&random, slots: config.slots, depth: 0, tree: tree, commands: config.commands))
            }
        }
        return DriverCase(seed: seed, config: config, plan: plan, ops: Array(ops.prefix(count)))
    }

    /// Keystrokes: keyed registrations on one target, each maybe named and ending its event, with
    /// small clock steps, so that coalescing joins and the continuation happen often.
    static func makeTypingBurst(_ random: inout SeededGenerator, slots: Int, commands: Int = 0) -> [DriverOp] {
        let slot = random.int(0...(slots - 1))
        let key = keys[random.int(0...1)]
        let window: Int? = random.chance(50) ? [50, 100][random.int(0...1)] : nil
        var ops: [DriverOp] = []
        for _ in 0..<random.int(2...5) {
            ops.append(
                asCommand(
                    .register(slot: slot, delta: random.int(1...9), options: .init(key: key, window: window)), &random,
                    commands))
            if random.chance(50) { ops.append(.name("Type")) }
            if random.chance(70) { ops.append(.endEvent) }
            if random.chance(40) { ops.append(.advanceClock([10, 40, 60][random.int(0...2)])) }
        }
        return ops
    }

    /// One closed step of a few registrations, commands `commands` percent of the time, often
    /// named: a history deep enough to save (section 20).
    static func makeChangeBurst(_ random: inout SeededGenerator, slots: Int, commands: Int) -> [DriverOp] {
        var ops: [DriverOp] = [.begin]
        for _ in 0..<random.int(1...3) {
            let options: DriverOptions = random.chance(25) ? .init(cost: random.int(1...4)) : .plain
            ops.append(
                asCommand(
                    .register(slot: random.int(0...(slots - 1)), delta: random.int(1...99), options: options), &random,
                    commands))
        }
        if random.chance(60) { ops.append(.name(names[random.int(0...2)])) }
        if random.chance(15) { ops.append(.info(key: keys[random.int(0...1)], value: random.int(0...9))) }
        return ops + [.end, .endEvent]
    }

    /// A few undos then a few redos (registrations keep the redo side short otherwise).
    static func makeUndoRedoBurst(_ random: inout SeededGenerator) -> [DriverOp] {
        Array(repeating: .undo, count: random.int(1...3)) + Array(repeating: .redo, count: random.int(1...3))
    }

    /// A few undos, then a change closed at once: a new branch (section 19); sometimes a move back.
    static func makeBranchBurst(_ random: inout SeededGenerator, slots: Int, commands: Int = 0) -> [DriverOp] {
        var ops = Array(repeating: DriverOp.undo, count: random.int(1...3))
        let change = DriverOp.register(slot: random.int(0...(slots - 1)), delta: random.int(1...99), options: .plain)
        ops += [.begin, asCommand(change, &random, commands), .end]
        ops.append(.endEvent)
        if random.chance(40) { ops.append(.jumpToNode(-random.int(1...6))) }
        return ops
    }

    /// A registration made a command `commands` percent of the time (section 20); any other
    /// operation as it is. Draws nothing when `commands` is 0.
    ///
    /// A command's coalescing key is never a closure's ("k1" becomes "c1"): the library does not
    /// join a command to a step of closures made with the same key on the same target, nor a closure
    /// to a step of commands, where the rules say it would (FINDING, see
    /// `CommandCoalescingTests.aCommandJoinsAStepOfClosuresWithTheSameKeyAndTarget`).
    static func asCommand(_ op: DriverOp, _ random: inout SeededGenerator, _ commands: Int) -> DriverOp {
        guard commands > 0, case .register(let slot, let delta, var options) = op, random.chance(commands) else {
            return op
        }
        options.key = options.key.map { "c" + $0.dropFirst() }
        return .command(slot: slot, delta: delta, options: options)
    }

    /// One random operation. `depth` > 0: inside a scope's body or a callback (smaller scopes).
    /// `commands`: see `DriverConfig.commands`.
    static func makeOp(
        _ random: inout SeededGenerator, slots: Int, depth: Int, tree: Bool = false, commands: Int = 0
    ) -> DriverOp {
        let slot = random.int(0...(slots - 1))
        let weighted: [(Int, (inout SeededGenerator) -> DriverOp)] = [
            (14, { .register(slot: slot, delta: $0.int(1...99), options: .plain) }),
            (3, { .register(slot: slot, delta: $0.int(1...99), options: .init(cost: $0.int(1...4))) }),
            (
                8,
                {
                    .register(
                        slot: slot, delta: $0.int(1...99),
                        options: .init(
                            cost: $0.chance(20) ? 1 : 0, key: keys[$0.int(0...1)],
                            window: $0.chance(50) ? [50, 100][$0.int(0...1)] : nil))
                }
            ),
            (3, { .setValue(slot: slot, value: $0.int(0...9), name: $0.chance(50) ? names[$0.int(0...2)] : nil) }),
            (tree ? 3 : 5, { _ in .begin }),
            (tree ? 12 : 8, { _ in .end }),
            (8, { _ in .undo }),
            (2, { _ in .undoNested }),
            (8, { _ in .redo }),
            (2, { .jump($0.int(-1...8)) }),
            (tree ? 12 : 6, { _ in .endEvent }),
            (1, { _ in .removeAll }),
            (2, { _ in .removeTarget(slot: slot) }),
            (1, { _ in .removeValue }),
            (commands > 0 ? 1 : 2, { _ in .disable }),
            (2, { _ in .enable }),
            (1, { .groupsByEvent($0.chance(60)) }),
            (1, { .dropsEmptyGroups($0.chance(50)) }),
            (4, { .name(names[$0.int(0...2)]) }),
            (1, { .discardable($0.chance(50)) }),
            (2, { .info(key: keys[$0.int(0...1)], value: $0.chance(70) ? $0.int(0...9) : nil) }),
            // A tree keeps more, and so does a history to save: limits are rarer and larger.
            (1, { tree || commands > 0 ? .levels($0.chance(70) ? 0 : $0.int(3...12)) : .levels($0.int(0...4)) }),
            (
                1,
                {
                    tree || commands > 0
                        ? .maximumCost($0.chance(60) ? 0 : $0.int(4...30))
                        : .maximumCost($0.chance(30) ? 0 : $0.int(1...12))
                }
            ),
            (2, { _ in .markClean }),
            (1, { _ in .breakCoalescing }),
            (3, { .advanceClock([10, 40, 60, 120][$0.int(0...3)]) }),
            (tree ? 1 : 2, { _ in .free(slot: slot) }),
            (1, { _ in .replace(slot: slot) }),
            (depth < 2 ? 2 : 0, { makeScope(&$0, slots: slots, depth: depth, tree: tree, commands: commands) }),
            (4, { .query(DriverQuery.allCases[$0.int(0...(DriverQuery.allCases.count - 1))]) }),
            (depth == 0 ? 1 : 0, { _ in .allQueries }),
            (1, { _ in .addObserver }),
            (1, { .cancelObserver($0.int(0...3)) }),
            // A branching history (section 19); weight 0 in a linear case, which leaves its picks
            // as they always were.
            (tree ? 6 : 0, { .jumpToNode($0.int(-10...3)) }),
            (tree ? 3 : 0, { .selectRedoBranch($0.chance(80) ? $0.int(0...3) : $0.int(-3...(-1))) }),
            (tree ? 2 : 0, { .earlier($0.int(-1...4)) }),
            (tree ? 2 : 0, { .later($0.int(-1...4)) }),
            (tree ? 1 : 0, { .earlierBy($0.int(-10...150)) }),
            (tree ? 1 : 0, { .laterBy($0.int(-10...150)) }),
            (tree ? 1 : 0, { .historyShape(tree: $0.chance(90)) }),
            (tree ? 1 : 0, { .maximumBranchSteps($0.chance(40) ? 0 : $0.int(2...15)) }),
            (tree ? 3 : 0, { .treeQuery(DriverTreeQuery.allCases[$0.int(0...(DriverTreeQuery.allCases.count - 1))]) }),
            // The persistent history (section 20); weight 0 without commands. A save and restore
            // replaces the stack, so only the top level makes one.
            (commands > 0 && depth == 0 ? 2 : 0, { makeSaveRestore(&$0, slots: slots) }),
            (commands > 0 ? 2 : 0, { _ in .savableDepth }),
            (commands > 0 ? 1 : 0, { _ in .savedHistory }),
            (commands > 0 ? 1 : 0, { .restoreSaved(unresolvedSlot: $0.chance(20) ? slot : nil) }),
        ]
        let total = weighted.reduce(0) { $0 + $1.0 }
        var pick = random.int(0...(total - 1))
        for (weight, make) in weighted {
            if pick < weight { return asCommand(make(&random), &random, commands) }
            pick -= weight
        }
        fatalError("unreachable")
    }

    /// A save and restore: a third of them with a limit, some with a key that does not resolve,
    /// some with a key resolved to an object that nobody keeps.
    static func makeSaveRestore(_ random: inout SeededGenerator, slots: Int) -> DriverOp {
        .saveRestore(
            limit: random.chance(35) ? random.int(0...8) : nil,
            unresolvedSlot: random.chance(20) ? random.int(0...(slots - 1)) : nil,
            releasedSlot: random.chance(15) ? random.int(0...(slots - 1)) : nil)
    }

    static func makeScope(
        _ random: inout SeededGenerator, slots: Int, depth: Int, tree: Bool = false, commands: Int = 0
    ) -> DriverOp {
        let length = random.int(0...(depth == 0 ? 6 : 3))
        let body = (0..<length).map { _ in
            makeOp(&random, slots: slots, depth: depth + 1, tree: tree, commands: commands)
        }
        return .scope(name: random.chance(50) ? names[random.int(0...2)] : nil, body: body, throwing: random.chance(35))
    }
}

// MARK: - Running and comparing two worlds

/// Runs a case on two worlds (a stack and the model, or two models) and compares them.
enum DriverRunner {
    /// Returns nil when the worlds agreed throughout, or a description of the first divergence.
    /// `tracing` prints each step on standard output. It is a parameter, not a shared switch: tests
    /// run the driver in parallel, and a switch one test flips races with the others' reads (the
    /// likely source of a ThreadSanitizer warning in one CI run, which did not come back).
    static func run(
        _ driverCase: DriverCase, tracing: Bool = false, expected makeExpected: (DriverCase) -> any DriverWorld,
        actual makeActual: (DriverCase) -> any DriverWorld
    ) -> String? {
        let expected = makeExpected(driverCase)
        let actual = makeActual(driverCase)
        var readEvents = 0
        var lastFreed = false

        func compare(_ label: String, readGetters: Bool) -> String? {
            let left = expected.events
            let right = actual.events
            let upTo = max(left.count, right.count)
            for index in readEvents..<upTo {
                if index < left.count && index < right.count && left[index] == right[index] { continue }
                let leftEvent = index < left.count ? left[index].description : "(nothing)"
                let rightEvent = index < right.count ? right[index].description : "(nothing)"
                do {
                    let context = left[max(0, index - 6)..<min(left.count, index)].map { "    \($0)" }
                    return """
                        \(label): event \(index) differs
                          model: \(leftEvent)
                          stack: \(rightEvent)
                          model events before it:
                        \(context.joined(separator: "\n"))
                          model: \(expected.snapshot(readGetters: false))
                          stack: \(actual.snapshot(readGetters: false))
                        """
                }
            }
            readEvents = upTo
            let leftSnapshot = expected.snapshot(readGetters: readGetters)
            let rightSnapshot = actual.snapshot(readGetters: readGetters)
            if leftSnapshot != rightSnapshot {
                return "\(label): state differs\n  model: \(leftSnapshot)\n  stack: \(rightSnapshot)"
            }
            return nil
        }

        for (index, op) in driverCase.ops.enumerated() {
            expected.plan.resetBudget()
            actual.plan.resetBudget()
            expected.perform(op)
            actual.perform(op)
            if tracing { print("op \(index) \(op)\n   \(expected.snapshot(readGetters: false))") }
            if case .free = op { lastFreed = true } else { lastFreed = false }
            if let problem = compare("after op \(index) \(op)", readGetters: !lastFreed) { return problem }
        }

        // The end: no more callbacks; close what is open, undo all, redo all, compare values.
        expected.plan.enabled = false
        actual.plan.enabled = false
        func both(_ op: DriverOp) -> String? {
            expected.perform(op)
            actual.perform(op)
            return compare("final \(op)", readGetters: true)
        }
        func ask(_ query: DriverQuery) -> (String?, Bool) {
            if let problem = both(.query(query)) { return (problem, false) }
            guard case .result(let text) = expected.events.last else { return (nil, false) }
            return (nil, text.hasSuffix("= true") || (query == .groupingLevel && !text.hasSuffix("= 0")))
        }
        for _ in 0..<100 {
            let (problem, enabled) = ask(.isUndoRegistrationEnabled)
            if let problem { return problem }
            if enabled { break }
            if let problem = both(.enable) { return problem }
        }
        for _ in 0..<100 {
            let (problem, open) = ask(.groupingLevel)
            if let problem { return problem }
            if !open { break }
            if let problem = both(.end) { return problem }
        }
        func loop(_ query: DriverQuery, _ op: DriverOp) -> String? {
            for _ in 0..<1000 {
                let (problem, yes) = ask(query)
                if let problem { return problem }
                if !yes { return nil }
                if let problem = both(op) { return problem }
            }
            return nil
        }
        if let problem = loop(.canRedo, .redo) { return problem }
        let before = expected.snapshot(readGetters: false).values
        if let problem = loop(.canUndo, .undo) { return problem }
        if let problem = loop(.canRedo, .redo) { return problem }
        let after = expected.snapshot(readGetters: false).values
        if before != after { return "the model: undo all then redo all changed the values \(before) -> \(after)" }
        // A branching history: a jump to every node (section 19), each compared.
        if let tree = expected.treeNodes {
            for node in tree.nodes {
                guard let current = expected.treeNodes?.current else { break }
                if let problem = both(.jumpToNode(node - current)) { return problem }
            }
        }
        return nil
    }

    /// Shortens a failing case while it still fails: removes chunks of top-level operations,
    /// replaces scopes by their bodies or empties them, removes plan rules.
    static func shrink(_ driverCase: DriverCase, fails: (DriverCase) -> Bool) -> DriverCase {
        var current = driverCase
        var changed = true
        while changed {
            changed = false
            // Plan rules.
            var index = 0
            while index < current.plan.count {
                var candidate = current
                candidate.plan.remove(at: index)
                if fails(candidate) {
                    current = candidate
                    changed = true
                } else {
                    index += 1
                }
            }
            // Chunks of operations, halving.
            var chunk = max(1, current.ops.count / 2)
            while chunk >= 1 {
                var start = 0
                while start < current.ops.count {
                    var candidate = current
                    candidate.ops.removeSubrange(start..<min(start + chunk, candidate.ops.count))
                    if fails(candidate) {
                        current = candidate
                        changed = true
                    } else {
                        start += chunk
                    }
                }
                chunk /= 2
            }
            // Scopes: inline the body, or shorten it, or stop it throwing.
            for position in current.ops.indices {
                guard case .scope(let name, let body, let throwing) = current.ops[position] else { continue }
                var options: [[DriverOp]] = [body]
                if throwing { options.append([.scope(name: name, body: body, throwing: false)]) }
                for removed in body.indices {
                    var shorter = body
                    shorter.remove(at: removed)
                    options.append([.scope(name: name, body: shorter, throwing: throwing)])
                }
                for replacement in options {
                    var candidate = current
                    candidate.ops.replaceSubrange(position...position, with: replacement)
                    if fails(candidate) {
                        current = candidate
                        changed = true
                        break
                    }
                }
                if changed { break }
            }
        }
        return current
    }
}
