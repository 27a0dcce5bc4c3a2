// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The random driver against the real stack: the stack's world (the only code here that touches
// the ActionStack module; kept plain so that API changes are one-line fixes), the mapping of the
// library's enums to the model's by name, and the tests.
//
// How to run:
//   swift test --filter RandomDriverTests                     (CI: 200,000+ operations, and
//                                                             200,000+ in branching histories)
//   DRIVER_FIRST_SEED=1234 swift test --filter RandomDriverTests   (other seeds)
//   DRIVER_TRACE=1 ...                                        (print each operation and the model)
//   DRIVER_DECISIONS=detachBeforeWillUndo,queriesPublish ... (the model with other readings)
//   ACTIONSTACK_SOAK_OPERATIONS=10000000 ACTIONSTACK_SOAK_SEED=7 swift test --filter soak
//   ACTIONSTACK_TREE_SOAK_OPERATIONS=10000000 swift test --filter RandomDriverTests/treeSoak
//   ACTIONSTACK_SAVE_SOAK_OPERATIONS=1000000 swift test --filter SaveRestoreDriverTests/soak
//                                                             (commands, saves and restores:
//                                                             RandomDriver+Persistence.swift)
// A divergence is reported with its seed and a shrunk, replayable `DriverCase` (Swift source):
// paste it into `RandomDriverTests.regressions` to replay it in every run.

import ActionStack
import Foundation
import Testing

/// A target of the driver's actions: an integer value, and the key a command finds it by after a
/// restore (section 20).
final class DriverTarget {
    var value = 0
    let key: String

    init(key: String = "") { self.key = key }
}

/// The real stack driven by driver operations.
final class StackWorld: DriverWorld, @unchecked Sendable {  // used on one thread; notification blocks run synchronously
    /// The stack; a save and restore replaces it with the fresh stack it restored into.
    var stack = ActionStack()
    let plan: CallbackPlanRunner
    var events: [DriverEvent] = []
    /// All targets ever made (nil once freed); slot -> index.
    var targets: [DriverTarget?]
    var slotTarget: [Int]
    var observers: [(index: Int, token: ObservationToken)] = []
    var nextObserverIndex = 0
    var notificationTokens: [any NSObjectProtocol] = []
    var clock = 0
    /// While set, nothing the stack posts or publishes is recorded or triggers the plan: the driver
    /// reads the stack for its own comparisons, which the model does not mirror.
    var muted = false
    /// The history the last save and restore saved (section 20).
    var lastSaved: SavedHistory?

    static let notificationNames: [(Notification.Name, ReferenceModel.NotificationName)] = [
        (ActionStack.checkpointNotification, .checkpoint),
        (ActionStack.didOpenUndoGroupNotification, .didOpen),
        (ActionStack.willCloseUndoGroupNotification, .willClose),
        (ActionStack.didCloseUndoGroupNotification, .didClose),
        (ActionStack.willUndoChangeNotification, .willUndo),
        (ActionStack.didUndoChangeNotification, .didUndo),
        (ActionStack.willRedoChangeNotification, .willRedo),
        (ActionStack.didRedoChangeNotification, .didRedo),
        (ActionStack.cleanStateDidChangeNotification, .cleanStateDidChange),
    ]

    /// Whether a case with `logsMisuse` uses `.log`: in a soak run only.
    static let logsMisuseAloud =
        ProcessInfo.processInfo.environment["ACTIONSTACK_SOAK_OPERATIONS"] != nil
        || ProcessInfo.processInfo.environment["ACTIONSTACK_TREE_SOAK_OPERATIONS"] != nil
        || ProcessInfo.processInfo.environment["ACTIONSTACK_SAVE_SOAK_OPERATIONS"] != nil

    init(_ driverCase: DriverCase) {
        plan = CallbackPlanRunner(rules: driverCase.plan)
        targets = (0..<driverCase.config.slots).map { DriverTarget(key: ReferenceModel.key(of: $0)) }
        slotTarget = Array(0..<driverCase.config.slots)
        stack.automaticGroupClosing = .manual
        stack.groupsByEvent = driverCase.config.groupsByEvent
        stack.dropsEmptyGroups = driverCase.config.dropsEmptyGroups
        // `.log` writes a line per misuse to standard error, hundreds in a passing `swift test`;
        // only a soak run uses it (MisuseTests check the line itself). Otherwise the two policies
        // take the same path, which the model checks.
        stack.misusePolicy = driverCase.config.logsMisuse && Self.logsMisuseAloud ? .log : .report
        let base = ContinuousClock.now
        stack.coalescingClock = { [unowned self] in base.advanced(by: .milliseconds(clock)) }
        // A branching history dates its nodes by the same clock, one unit a second.
        stack.historyClock = { [unowned self] in Date(timeIntervalSinceReferenceDate: Double(clock)) }
        if driverCase.config.tree { stack.historyShape = .tree }
        listen(to: stack)
    }

    /// Records what `stack` reports and posts (its misuses and notifications).
    func listen(to stack: ActionStack) {
        stack.onMisuse = { [unowned self] misuse in
            guard !muted else { return }
            events.append(.misuse(Self.map(misuse)))
        }
        for (name, short) in Self.notificationNames {
            notificationTokens.append(
                NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) {
                    [unowned self] note in
                    guard !muted else { return }
                    let discardable = (note.userInfo?[ActionStack.groupIsDiscardableUserInfoKey] as? Bool) == true
                    let activities = self.stack._activities.map { Self.map($0.reported) }
                    events.append(.posted(.init(name: short, discardable: discardable, activities: activities)))
                    plan.occurrence(.notification(short)) { perform($0) }
                })
        }
    }

    /// An observation of the stack by the driver's observer `index`.
    func makeObserver(_ index: Int) -> ObservationToken {
        stack.observe { [unowned self] state in
            guard !muted else { return }
            events.append(.heard(observer: index, Self.map(state)))
            plan.occurrence(.observe) { perform($0) }
        }
    }

    deinit {
        for token in notificationTokens { NotificationCenter.default.removeObserver(token) }
    }

    func result(_ text: String) { events.append(.result(text)) }

    /// `target.value += delta`, then the registration whose handler does the same with `-delta`.
    func apply(_ target: DriverTarget, _ delta: Int, _ options: DriverOptions) {
        target.value += delta
        if options.isPlain {
            stack.registerUndo(withTarget: target) { [unowned self] target in apply(target, -delta, options) }
        } else {
            let registration = ActionStack.RegistrationOptions(
                cost: options.cost, coalescingKey: options.key,
                coalescingWindow: options.window.map { .milliseconds($0) })
            stack.registerUndo(withTarget: target, options: registration) { [unowned self] target in
                apply(target, -delta, options)
            }
        }
    }

    func target(_ slot: Int) -> DriverTarget? { targets[slotTarget[slot]] }

    func perform(_ op: DriverOp) {
        let stack = self.stack
        switch op {
        case .register(let slot, let delta, let options):
            guard let target = target(slot) else { return }
            apply(target, delta, options)
        case .command(let slot, let delta, let options):
            guard let target = target(slot) else { return }
            DriverAddCommand(delta: delta, options: options).perform(on: target, in: stack)
        case .setValue(let slot, let value, let name):
            guard let target = target(slot) else { return }
            stack.setValue(value, for: \DriverTarget.value, on: target, actionName: name)
        case .begin: stack.beginUndoGrouping()
        case .end: stack.endUndoGrouping()
        case .undo: stack.undo()
        case .undoNested: stack.undoNestedGroup()
        case .redo: stack.redo()
        case .jump(let position): stack.jump(to: position)
        case .endEvent: stack.endEvent()
        case .removeAll: stack.removeAllActions()
        case .removeTarget(let slot):
            guard let target = target(slot) else { return }
            stack.removeAllActions(withTarget: target)
        case .removeValue: stack.removeAllActions(withTarget: 42)
        case .disable: stack.disableUndoRegistration()
        case .enable: stack.enableUndoRegistration()
        case .groupsByEvent(let value): stack.groupsByEvent = value
        case .dropsEmptyGroups(let value): stack.dropsEmptyGroups = value
        case .name(let name): stack.setActionName(name)
        case .discardable(let value): stack.setActionIsDiscardable(value)
        case .info(let key, let value):
            stack.setActionUserInfoValue(value.map { $0 as Any }, forKey: ActionStack.UserInfoKey(key))
        case .levels(let value): stack.levelsOfUndo = value
        case .maximumCost(let value): stack.maximumCost = value
        case .markClean: stack.markClean()
        case .breakCoalescing: stack.breakCoalescing()
        case .advanceClock(let milliseconds): clock += milliseconds
        case .free(let slot): targets[slotTarget[slot]] = nil
        case .replace(let slot):
            targets.append(DriverTarget(key: ReferenceModel.key(of: targets.count)))
            slotTarget[slot] = targets.count - 1
        case .scope(let name, let body, let throwing):
            do {
                try stack.group(named: name) {
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
            observers.append((index, makeObserver(index)))
        case .cancelObserver(let position):
            guard !observers.isEmpty else { return }
            observers.remove(at: position % observers.count).token.cancel()
        case .jumpToNode(let offset):
            let target = (stack.currentNode?.sequence ?? 0) + offset
            outcome("jumpToNode(#\(target))") { () throws(ActionStack.HistoryTreeError) in
                try stack.jump(toNode: .init(sequence: target))
            }
        case .selectRedoBranch(let pick):
            let branches = stack.redoBranches.map(\.sequence)
            let target =
                pick >= 0 && !branches.isEmpty
                ? branches[pick % branches.count] : (stack.currentNode?.sequence ?? 0) + pick
            outcome("selectRedoBranch(#\(target))") { () throws(ActionStack.HistoryTreeError) in
                try stack.selectRedoBranch(.init(sequence: target))
            }
        case .earlier(let count):
            reached("earlier(\(count))") { () throws(ActionStack.HistoryTreeError) in try stack.earlier(count) }
        case .later(let count):
            reached("later(\(count))") { () throws(ActionStack.HistoryTreeError) in try stack.later(count) }
        case .earlierBy(let duration):
            reached("earlierBy(\(duration))") { () throws(ActionStack.HistoryTreeError) in
                try stack.earlier(by: .seconds(duration))
            }
        case .laterBy(let duration):
            reached("laterBy(\(duration))") { () throws(ActionStack.HistoryTreeError) in
                try stack.later(by: .seconds(duration))
            }
        case .historyShape(let tree): stack.historyShape = tree ? .tree : .linear
        case .maximumBranchSteps(let value): stack.maximumBranchSteps = value
        case .treeQuery(let query):
            switch query {
            case .historyTree: result("historyTree = \(stack.historyTree.map { Self.map($0).description } ?? "nil")")
            case .redoBranches: result("redoBranches = \(DriverText.nodes(stack.redoBranches.map(\.sequence)))")
            case .currentNode: result("currentNode = \(DriverText.node(stack.currentNode?.sequence))")
            }
        case .savableDepth: performSavableDepth()
        case .savedHistory: performSavedHistory()
        case .saveRestore(let limit, let slot, let released):
            performSaveRestore(limit: limit, unresolvedSlot: slot, releasedSlot: released)
        case .restoreSaved(let slot): performRestoreSaved(unresolvedSlot: slot)
        }
    }

    /// Logs whether a tree call threw (and what).
    func outcome(_ what: String, _ body: () throws(ActionStack.HistoryTreeError) -> Void) {
        do {
            try body()
            result(what)
        } catch {
            result("\(what) threw \(Self.text(error))")
        }
    }

    /// Logs the node a time move reached, or what it threw.
    func reached(_ what: String, _ body: () throws(ActionStack.HistoryTreeError) -> ActionStack.HistoryNode.ID) {
        do {
            result("\(what) = #\(try body().sequence)")
        } catch {
            result("\(what) threw \(Self.text(error))")
        }
    }

    func perform(_ query: DriverQuery) {
        let stack = self.stack
        let text: String
        switch query {
        case .canUndo: text = "\(stack.canUndo)"
        case .canRedo: text = "\(stack.canRedo)"
        case .undoActionName: text = stack.undoActionName
        case .redoActionName: text = stack.redoActionName
        case .undoMenuItemTitle: text = stack.undoMenuItemTitle
        case .redoMenuItemTitle: text = stack.redoMenuItemTitle
        case .undoActionIsDiscardable: text = "\(stack.undoActionIsDiscardable)"
        case .redoActionIsDiscardable: text = "\(stack.redoActionIsDiscardable)"
        case .undoInfo: text = DriverText.optional(stack.undoActionUserInfoValue(forKey: "k1") as? Int)
        case .redoInfo: text = DriverText.optional(stack.redoActionUserInfoValue(forKey: "k1") as? Int)
        case .undoCount: text = "\(stack.undoCount)"
        case .redoCount: text = "\(stack.redoCount)"
        case .undoEntries: text = DriverText.entries(stack.undoEntries.map(Self.map))
        case .redoEntries: text = DriverText.entries(stack.redoEntries.map(Self.map))
        case .historyPosition: text = "\(stack.historyPosition)"
        case .isCleanAtStart: text = "\(stack.isCleanAtStart)"
        case .state: text = "\(Self.map(stack.state))"
        case .isClean: text = "\(stack.isClean)"
        case .groupingLevel: text = "\(stack.groupingLevel)"
        case .isUndoRegistrationEnabled: text = "\(stack.isUndoRegistrationEnabled)"
        }
        result("\(query.rawValue) = \(text)")
    }

    func snapshot(readGetters: Bool) -> WorldSnapshot {
        var getters: [Int]?
        if readGetters {
            // Through the hook: the public getters are calls, and a call ends with publishing, which
            // may drop freed steps; the comparison must change nothing.
            let flags = stack._flags
            getters = [
                flags.groupingLevel, flags.isUndoing ? 1 : 0, flags.isRedoing ? 1 : 0,
                flags.isUndoRegistrationEnabled ? 1 : 0,
            ]
        }
        return WorldSnapshot(
            structure: stack._structure, stateShape: stack._stateShape,
            values: slotTarget.map { targets[$0]?.value }, activities: stack._activities.map { Self.map($0.reported) },
            invariantViolations: stack._invariantViolations(), getters: getters,
            tree: readGetters && stack.historyShape == .tree ? stack.historyTree.map(Self.map) : nil)
    }

    // MARK: A branching history as the model describes it

    static func map(_ tree: ActionStack.HistoryTree) -> TreeSnapshot {
        let nodes = tree.nodes.map { node in
            TreeNodeText(
                number: node.sequence, parent: node.parent?.sequence, children: node.children.map(\.sequence),
                redoChild: node.redoChild?.sequence, date: Int(node.date.timeIntervalSinceReferenceDate),
                actionName: node.actionName, title: node.title, actionCount: node.actionCount, isClean: node.isClean,
                isCurrent: node.isCurrent, isOnCurrentPath: node.isOnCurrentPath)
        }
        return TreeSnapshot(root: tree.root.sequence, current: tree.current.sequence, nodes: nodes)
    }

    static func text(_ error: ActionStack.HistoryTreeError) -> String {
        if error == .linearHistory { return "\(TreeError.linearHistory)" }
        if error == .groupIsOpen { return "\(TreeError.groupIsOpen)" }
        if let id = error.node, error == .noSuchNode(id) { return "\(TreeError.noSuchNode(id.sequence))" }
        if let id = error.node, error == .notAChildOfCurrentNode(id) {
            return "\(TreeError.notAChildOfCurrentNode(id.sequence))"
        }
        return "unknown(\(error))"
    }

    // MARK: The library's values as the model's, by name

    static func map(_ state: ActionStack.State) -> ReferenceModel.State {
        ReferenceModel.State(
            canUndo: state.canUndo, canRedo: state.canRedo, undoCount: state.undoCount, redoCount: state.redoCount,
            undoActionName: state.undoActionName, redoActionName: state.redoActionName,
            undoMenuItemTitle: state.undoMenuItemTitle, redoMenuItemTitle: state.redoMenuItemTitle,
            isClean: state.isClean, groupingLevel: state.groupingLevel, currentNode: state.currentNode?.sequence,
            redoNode: state.redoNode?.sequence)
    }

    static func map(_ entry: ActionStack.HistoryEntry) -> ReferenceModel.Entry {
        var info: [String: Int] = [:]
        for (key, value) in entry.userInfo { info[key.rawValue] = value as? Int }
        return ReferenceModel.Entry(
            actionName: entry.actionName, title: entry.title, actionCount: entry.actionCount,
            isDiscardable: entry.isDiscardable, userInfo: info, isClean: entry.isClean, isOpen: entry.isOpen,
            node: entry.node?.sequence, canBeSaved: entry.canBeSaved)
    }

    static func map(_ misuse: ActionStack.Misuse) -> ReferenceModel.Misuse {
        // `Misuse` is extensible: its kind is told by comparing with each static member.
        let operation = misuse.operation
        if misuse == .endWithoutBegin { return .endWithoutBegin }
        if misuse == .enableWithoutDisable { return .enableWithoutDisable }
        if let level = misuse.groupingLevel { return .nestedGroupsOpen(map(operation), groupingLevel: level) }
        if misuse == .undoNestedGroupWithOpenGroup { return .undoNestedGroupWithOpenGroup }
        if misuse == .redoWhileUndoing { return .redoWhileUndoing }
        if misuse == .noOpenGroup(operation) { return .noOpenGroup(map(operation)) }
        if let activity = misuse.activity { return .reentrantCall(map(operation), during: map(activity)) }
        if misuse == .historyNotEmpty(operation) { return .historyNotEmpty(map(operation)) }
        return .asynchronous("\(misuse)")
    }

    /// The re-entrancy table's key that a misuse reports as `operation`.
    static func key(_ operation: ActionStack.Misuse.Operation) -> ActionStack.OperationKey {
        guard let found = ActionStack.OperationKey.allCases.first(where: { $0.reported == operation }) else {
            preconditionFailure("no key reports \(operation)")
        }
        return found
    }

    /// The re-entrancy table's key that a misuse reports as `activity`.
    static func key(_ activity: ActionStack.Misuse.Activity) -> ActionStack.ActivityKey {
        guard let found = ActionStack.ActivityKey.allCases.first(where: { $0.reported == activity }) else {
            preconditionFailure("no key reports \(activity)")
        }
        return found
    }

    /// The model's operation for the library's: the inverse of the exhaustive map below.
    static func map(_ operation: ActionStack.Misuse.Operation) -> ReferenceModel.Operation {
        guard let found = ReferenceModel.Operation.allCases.first(where: { map($0) == operation }) else {
            preconditionFailure("the model has no operation \(operation)")
        }
        return found
    }

    /// The model's activity for the library's: the inverse of the exhaustive map below.
    static func map(_ activity: ActionStack.Misuse.Activity) -> ReferenceModel.Activity {
        guard let found = ReferenceModel.Activity.allCases.first(where: { map($0) == activity }) else {
            preconditionFailure("the model has no activity \(activity)")
        }
        return found
    }

    static func map(_ operation: ReferenceModel.Operation) -> ActionStack.Misuse.Operation {
        switch operation {
        case .registerUndo: .registerUndo
        case .beginUndoGrouping: .beginUndoGrouping
        case .endUndoGrouping: .endUndoGrouping
        case .enableUndoRegistration: .enableUndoRegistration
        case .endEvent: .endEvent
        case .undo: .undo
        case .undoNestedGroup: .undoNestedGroup
        case .redo: .redo
        case .removeAllActions: .removeAllActions
        case .removeAllActionsWithTarget: .removeAllActionsWithTarget
        case .setActionName: .setActionName
        case .setActionIsDiscardable: .setActionIsDiscardable
        case .setActionUserInfoValue: .setActionUserInfoValue
        case .jump: .jump
        case .markClean: .markClean
        case .setValue: .setValue
        case .group: .group
        case .jumpToNode: .jumpToNode
        case .selectRedoBranch: .selectRedoBranch
        case .earlier: .earlier
        case .later: .later
        case .savedHistory: .savedHistory
        case .restoreHistory: .restoreHistory
        case .applyRemoteChange: .applyRemoteChange
        }
    }

    static func map(_ activity: ReferenceModel.Activity) -> ActionStack.Misuse.Activity {
        switch activity {
        case .undoing: .undoing
        case .redoing: .redoing
        case .notifyingUndo: .notifyingUndo
        case .notifyingRedo: .notifyingRedo
        case .closingGroup: .closingGroup
        case .openingGroup: .openingGroup
        case .rollingBack: .rollingBack
        case .preparingUndo: .preparingUndo
        case .preparingRedo: .preparingRedo
        case .jumping: .jumping
        case .closingScope: .closingScope
        case .applyingRemoteChange: .applyingRemoteChange
        }
    }
}

// MARK: - Tests

struct RandomDriverTests {
    /// Failing cases found by the driver, pasted from its reports: replayed in every run.
    static let regressions: [DriverCase] = [
        // An observer of the did-open that setValue posts frees the slot of the target setValue was
        // passed: the caller's argument keeps the object alive until setValue returns, so the state
        // published at the end of that call still has a live action (the soak found the model
        // treating the object as freed at once).
        DriverCase(
            seed: 6397,
            config: .init(groupsByEvent: true, dropsEmptyGroups: true, logsMisuse: false, slots: 3),
            plan: [
                .init(trigger: .notification(.didOpen), nth: 1, every: nil, op: .free(slot: 0))
            ],
            ops: [
                .addObserver,
                .setValue(slot: 0, value: 8, name: nil),
                .query(.canUndo),
            ]
        ),
        // A checkpoint observer turns groupsByEvent off at the checkpoint endEvent() posts: the
        // event's close then closes nothing, since the checkpoint runs before the decision (the
        // soak found the stack deciding before it).
        DriverCase(
            seed: 3239,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            plan: [
                .init(trigger: .notification(.checkpoint), nth: nil, every: 4, op: .groupsByEvent(false))
            ],
            ops: [
                .groupsByEvent(true),
                .register(slot: 2, delta: 8, options: .init(key: "k1")),
                .endEvent,
                .register(slot: 0, delta: 75, options: .plain),
                .redo,
                .register(slot: 2, delta: 74, options: .init(key: "k2", window: 50)),
                .endEvent,
            ]
        ),
        // Cancelling an observation token is not a call of the stack: it publishes nothing, not
        // even the state a freed target changed since the last call (the soak found the model
        // publishing there).
        DriverCase(
            seed: 1169,
            config: .init(groupsByEvent: true, dropsEmptyGroups: true, logsMisuse: false, slots: 3),
            plan: [],
            ops: [
                .addObserver,
                .register(slot: 0, delta: 56, options: .plain),
                .addObserver,
                .free(slot: 0),
                .cancelObserver(1),
                .query(.canUndo),
            ]
        ),
        // History entries asked for from a checkpoint observer while a scope closes (an operation
        // in progress, so nothing is swept): a step with a freed action counts only the live one,
        // as the sweep would leave it (the 10,000,000-operation soak found this).
        DriverCase(
            seed: 1102,
            config: .init(groupsByEvent: true, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            plan: [
                .init(trigger: .notification(.checkpoint), nth: nil, every: 6, op: .query(.undoEntries))
            ],
            ops: [
                .register(slot: 1, delta: 17, options: .init(key: "k2", window: 50)),
                .endEvent,
                .register(slot: 1, delta: 36, options: .init(key: "k1")),
                .endEvent,
                .setValue(slot: 0, value: 5, name: nil),
                .free(slot: 0),
                .register(slot: 2, delta: 74, options: .init(key: "k2", window: 50)),
                .endEvent,
                .end,
                .scope(name: "Type", body: [], throwing: false),
            ]
        ),
        // A branching history read by an observer of the checkpoint an undo posts after its
        // handlers ran: the node of the step in flight is in no chain, so it is not among the
        // snapshot's nodes, and its parent must not list it as a child either (the tree driver
        // found the stack listing it).
        DriverCase(
            seed: 920,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3, tree: true),
            plan: [
                .init(trigger: .notification(.checkpoint), nth: nil, every: 3, op: .treeQuery(.historyTree))
            ],
            ops: [.groupsByEvent(true), .register(slot: 2, delta: 76, options: .init(key: "k2")), .redo, .end, .undo]
        ),
        // A will-close observer registers into the group a failed scope closes: that turns the
        // redo stack into a branch, over maximumBranchSteps, and the rollback then takes the
        // registration back with the scope. The tree must be as it was: the branch the scope's
        // rollback made must not be pruned before the redo choice is restored (the 10,000,000-
        // operation tree soak found the stack pruning it, seed 1008234).
        DriverCase(
            seed: 1_008_234,
            config: .init(groupsByEvent: true, dropsEmptyGroups: true, logsMisuse: false, slots: 3, tree: true),
            plan: [
                .init(
                    trigger: .notification(.willClose), nth: nil, every: 3,
                    op: .register(slot: 1, delta: 26, options: .init(key: "k1")))
            ],
            ops: [
                .begin, .end, .endEvent, .register(slot: 0, delta: 47, options: .plain), .undo, .begin, .end,
                .endEvent, .begin, .maximumBranchSteps(4), .end, .endEvent, .begin, .end, .endEvent,
                .scope(name: nil, body: [], throwing: false), .undo, .begin, .end, .redo,
                .register(slot: 0, delta: 8, options: .init(key: "k1", window: 50)), .earlierBy(123),
                .scope(name: "Draw", body: [], throwing: true),
            ]
        ),
        // An observer of a scope's own did-open closes the scope's group (redo closes the one open
        // group) before the body runs: the rollback must still find the step it became.
        DriverCase(
            seed: 210,
            config: .init(groupsByEvent: false, dropsEmptyGroups: false, logsMisuse: false, slots: 3),
            plan: [.init(trigger: .notification(.didOpen), nth: nil, every: 3, op: .redo)],
            ops: [.begin, .begin, .removeAll, .scope(name: nil, body: [], throwing: true)]
        ),
    ]

    static let environment = ProcessInfo.processInfo.environment

    /// Whether `DRIVER_TRACE` asks for a trace of each step on standard output (read once, never
    /// written: the driver runs in parallel tests).
    static let tracing = environment["DRIVER_TRACE"] != nil

    /// Runs `sequences` seeded cases of `length` top-level operations from `firstSeed`. Returns the
    /// number of operations run (scope bodies included) and whether all agreed; stops at the first
    /// divergence, which it records shrunk. Yields after each sequence (see `Workload.yield()`).
    func drive(firstSeed: UInt64, sequences: Int, length: Int, tree: Bool = false, commands: Bool = false) async -> (
        operations: Int, agreed: Bool
    ) {
        var operations = 0
        var tally: [String: Int] = [:]
        for offset in 0..<UInt64(sequences) {
            let seed = firstSeed &+ offset
            let driverCase = DriverGenerator.makeCase(seed: seed, count: length, tree: tree, commands: commands)
            if Self.tracing { print("seed \(seed) \(driverCase.config)") }
            operations += driverCase.size
            var model: ModelWorld?
            let problem = DriverRunner.run(
                driverCase, tracing: Self.tracing,
                expected: {
                    model = ModelWorld($0, decisions: Self.decisions)
                    return model!
                }, actual: { StackWorld($0) })
            for (rule, times) in model?.model.tally ?? [:] { tally[rule, default: 0] += times }
            if let problem {
                Self.report(driverCase, problem)
                return (operations, false)
            }
            await Workload.yield()
        }
        // What the sequences exercised (the model's count of some rules), for the log.
        print(
            "random driver\(tree ? " (tree)" : "")\(commands ? " (commands)" : "") mix: "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        return (operations, true)
    }

    /// The model's readings: the spec's, or others named in `DRIVER_DECISIONS` (see
    /// `ReferenceModel.Decisions.flipping`).
    static let decisions = ReferenceModel.Decisions.flipping(
        (environment["DRIVER_DECISIONS"] ?? "").split(separator: ",").map(String.init))

    static func run(_ driverCase: DriverCase, tracing: Bool = Self.tracing) -> String? {
        DriverRunner.run(
            driverCase, tracing: tracing, expected: { ModelWorld($0, decisions: decisions) },
            actual: { StackWorld($0) })
    }

    /// Records a divergence with its seed and the shrunk case, as Swift source to paste.
    static func report(_ driverCase: DriverCase, _ problem: String) {
        let short = DriverRunner.shrink(driverCase) { run($0, tracing: false) != nil }
        let shortProblem = run(short) ?? problem
        Issue.record(
            """
            The stack and the reference model diverge (seed \(driverCase.seed), \(driverCase.size) operations).
            \(problem)

            Shrunk to \(short.size) operations, which fail with:
            \(shortProblem)

            Replay (paste into RandomDriverTests.regressions):
            \(short)
            """
        )
    }

    @Test func stackAgreesWithTheReferenceModelOnRandomSequences() async {
        // 1,000 sequences of 200 top-level operations: 200,000+ operations (scope bodies add more); `Workload` may divide it.
        let first = UInt64(Self.environment["DRIVER_FIRST_SEED"] ?? "") ?? 1
        let clock = ContinuousClock()
        var outcome = (operations: 0, agreed: false)
        let sequences = Workload.scaled(1_000)
        let start = clock.now
        outcome = await drive(firstSeed: first, sequences: sequences, length: 200)
        let duration = clock.now - start
        print("random driver: \(outcome.operations) operations from seed \(first) in \(duration)")
        if outcome.agreed { #expect(outcome.operations >= sequences * 200) }
    }

    @Test(arguments: regressions)
    func replayedRegression(_ driverCase: DriverCase) {
        if let problem = Self.run(driverCase) { Issue.record("seed \(driverCase.seed): \(problem)") }
    }

    /// A long soak: ACTIONSTACK_SOAK_OPERATIONS=10000000 swift test --filter soak
    @Test(.enabled(if: ProcessInfo.processInfo.environment["ACTIONSTACK_SOAK_OPERATIONS"] != nil))
    func soak() async {
        let wanted = Int(Self.environment["ACTIONSTACK_SOAK_OPERATIONS"] ?? "") ?? 10_000_000
        let seed = UInt64(Self.environment["ACTIONSTACK_SOAK_SEED"] ?? "") ?? 1_000_000
        var operations = 0
        var next = seed
        while operations < wanted {
            let outcome = await drive(firstSeed: next, sequences: 100, length: 1_000)
            operations += outcome.operations
            next &+= 100
            if !outcome.agreed { return }  // the divergence is recorded
            print("soak: \(operations) operations so far (seeds \(seed)..<\(next))")
        }
        print("soak: \(operations) operations from seed \(seed)")
    }

    /// Branching histories (section 19): 4 batches of 250 sequences of 200 top-level operations,
    /// 200,000+ operations, with the moves of a tree among them and the tree compared after each.
    @Test(arguments: 0..<4)
    func stackAgreesWithTheReferenceModelOnRandomTreeSequences(batch: Int) async {
        let first = (UInt64(Self.environment["DRIVER_FIRST_SEED"] ?? "") ?? 1) &+ UInt64(batch * 250)
        let clock = ContinuousClock()
        var outcome = (operations: 0, agreed: false)
        let sequences = Workload.scaled(250)
        let start = clock.now
        outcome = await drive(firstSeed: first, sequences: sequences, length: 200, tree: true)
        let duration = clock.now - start
        print("random driver (tree): \(outcome.operations) operations from seed \(first) in \(duration)")
        if outcome.agreed { #expect(outcome.operations >= sequences * 200) }
    }

    /// A long soak of branching histories:
    /// ACTIONSTACK_TREE_SOAK_OPERATIONS=10000000 swift test --filter RandomDriverTests
    @Test(.enabled(if: ProcessInfo.processInfo.environment["ACTIONSTACK_TREE_SOAK_OPERATIONS"] != nil))
    func treeSoak() async {
        let wanted = Int(Self.environment["ACTIONSTACK_TREE_SOAK_OPERATIONS"] ?? "") ?? 10_000_000
        let seed = UInt64(Self.environment["ACTIONSTACK_SOAK_SEED"] ?? "") ?? 1_000_000
        var operations = 0
        var next = seed
        while operations < wanted {
            let outcome = await drive(firstSeed: next, sequences: 100, length: 1_000, tree: true)
            operations += outcome.operations
            next &+= 100
            if !outcome.agreed { return }  // the divergence is recorded
            print("tree soak: \(operations) operations so far (seeds \(seed)..<\(next))")
        }
        print("tree soak: \(operations) operations from seed \(seed)")
    }

    /// The hand-worked examples of `ReferenceModelTests`, on the real stack.
    @Test(arguments: Acceptance.all)
    func stackFollowsTheHandWorkedExample(_ example: AcceptanceExample) {
        example.run { StackWorld($0) }
    }

    /// `ActionStack._allows` is the table of section 9, as the model has it.
    @Test func theReentrancyTableMatchesTheModel() {
        for operation in ReferenceModel.Operation.allCases {
            for activity in ReferenceModel.Activity.allCases {
                let stackAllows = ActionStack._allows(
                    StackWorld.key(StackWorld.map(operation)), during: StackWorld.key(StackWorld.map(activity)))
                #expect(
                    stackAllows == ReferenceModel.allows(operation, during: activity),
                    "\(operation) during \(activity)")
            }
        }
    }
}
