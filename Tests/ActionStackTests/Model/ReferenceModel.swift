// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The reference model of ActionStack: a deliberately naive transcription of the documented rules
// ("the spec"). It is written from the rules alone, independently of the library, so that the
// random driver can run both side by side: every divergence is a bug in one of them or a question
// about the rules.
//
// The rules were first written as a numbered specification, which is not part of the repository;
// the section numbers in these files are its sections. Every rule is now stated in the
// documentation (Sources/ActionStack/ActionStack.docc and the doc comments), where each section is:
//   1 storage: Performance;  2 registration: `registerUndo(withTarget:handler:)`, RecordingTheRightSteps;
//   3 groups, 8 the event, 5 undo and redo with groups open: GroupingUndoSteps;  4 metadata:
//   NamingUndoSteps;  6 clean state, history: CleanStateAndHistory;  7 coalescing, 10 limits,
//   12 scoped groups: RecordingTheRightSteps;  9 re-entrancy: Reentrancy;  11 freed targets and
//   queries: Performance, `canUndo`;  13 Apple spellings: ComingFromUndoManager;  14 calls and
//   observation: NotificationsAndObservation;  15 misuse: Misuse;  16 removal:
//   `removeAllActions(withTarget:)`;  17 test hooks: ActionStack+Testing.swift;  18 the enums;
//   19 the branching history (`historyShape = .tree`): BranchingHistory (ReferenceModel+Tree.swift);
//   20 the persistent history (commands, saving, restoring): SavingTheHistory
//   (ReferenceModel+Persistence.swift).
//
// Rules of the model's own making:
// - No dependency on the `ActionStack` module. The library's enums are mirrored by name
//   (`ReferenceModel.Operation`, `.Activity`, `.Misuse`); the driver maps the library's values to
//   these by name.
// - Plain value types (arrays of steps, frames and nested groups), no optimisation. Every rule is
//   written out where it applies, with the section it comes from.
// - Targets are small integers with an `alive` flag and an integer value. An action is "add delta
//   to target i" (or "set target i to v", for `setValue`); performing it registers its inverse the
//   way the test targets of the driver do.
// - Where the spec is silent or ambiguous the model picks a reading and says so in a comment that
//   starts with `SPEC-QUESTION:`. Some of those readings can be switched with `Decisions`.
//
// The model is a class: notification observers and state observers call back into it re-entrantly,
// exactly as they call back into a real stack.

/// The reference model of one `ActionStack`.
final class ReferenceModel {

    // MARK: - Mirrors of the library's enums (spec section 15 and 18)

    /// `ActionStack.Misuse.Operation`, by case name.
    enum Operation: String, CaseIterable, Hashable, Sendable {
        case registerUndo, beginUndoGrouping, endUndoGrouping, enableUndoRegistration, endEvent
        case undo, undoNestedGroup, redo, removeAllActions, removeAllActionsWithTarget
        case setActionName, setActionIsDiscardable, setActionUserInfoValue, jump
        case markClean, setValue, group
        // The moves of a branching history (section 19).
        case jumpToNode, selectRedoBranch, earlier, later
        // The persistent history (section 20, ReferenceModel+Persistence.swift).
        case savedHistory, restoreHistory
        // Remote changes (collaborative undo).
        case applyRemoteChange
    }

    /// `ActionStack.Misuse.Activity`, by case name (section 9).
    enum Activity: String, CaseIterable, Hashable, Sendable {
        case undoing, redoing, notifyingUndo, notifyingRedo, closingGroup, openingGroup, rollingBack
        case preparingUndo, preparingRedo, jumping, closingScope
        case applyingRemoteChange
    }

    /// `ActionStack.Misuse` (section 15).
    enum Misuse: Hashable, Sendable, CustomStringConvertible {
        case endWithoutBegin
        case enableWithoutDisable
        case nestedGroupsOpen(Operation, groupingLevel: Int)
        case undoNestedGroupWithOpenGroup
        case redoWhileUndoing
        case noOpenGroup(Operation)
        case reentrantCall(Operation, during: Activity)
        /// A restore into a stack that holds a history (section 20).
        case historyNotEmpty(Operation)
        /// A misuse of the asynchronous operations, which this synchronous model never makes.
        case asynchronous(String)

        var description: String {
            switch self {
            case .asynchronous(let text): "asynchronous(\(text))"
            case .endWithoutBegin: "endWithoutBegin"
            case .enableWithoutDisable: "enableWithoutDisable"
            case .nestedGroupsOpen(let operation, let level): "nestedGroupsOpen(\(operation), \(level))"
            case .undoNestedGroupWithOpenGroup: "undoNestedGroupWithOpenGroup"
            case .redoWhileUndoing: "redoWhileUndoing"
            case .noOpenGroup(let operation): "noOpenGroup(\(operation))"
            case .reentrantCall(let operation, let activity): "reentrantCall(\(operation), during: \(activity))"
            case .historyNotEmpty(let operation): "historyNotEmpty(\(operation))"
            }
        }
    }

    /// The nine notifications the driver observes: the eight of Foundation plus
    /// `cleanStateDidChangeNotification`. Raw values are the short names of the spec's notation.
    enum NotificationName: String, CaseIterable, Hashable, Sendable {
        case checkpoint = "C"
        case didOpen = "DidOpen"
        case willClose = "WillClose"
        case didClose = "DidClose"
        case willUndo = "WillUndo"
        case didUndo = "DidUndo"
        case willRedo = "WillRedo"
        case didRedo = "DidRedo"
        case cleanStateDidChange = "CleanChanged"
    }

    /// One posted notification: its name, whether its user info carries the discardable key ("!"),
    /// and the activity stack while its observers run (section 9).
    struct Posted: Hashable, Sendable, CustomStringConvertible {
        var name: NotificationName
        var discardable: Bool
        var activities: [Activity]

        var description: String {
            name.rawValue + (discardable ? "!" : "")
                + (activities.isEmpty ? "" : "@" + activities.map(\.rawValue).joined(separator: "/"))
        }
    }

    /// `ActionStack.State` (section 14).
    struct State: Hashable, Sendable, CustomStringConvertible {
        var canUndo: Bool
        var canRedo: Bool
        var undoCount: Int
        var redoCount: Int
        var undoActionName: String
        var redoActionName: String
        var undoMenuItemTitle: String
        var redoMenuItemTitle: String
        var isClean: Bool
        var groupingLevel: Int
        /// The current node and the node redo would enter, in a branching history (nil in a linear one).
        var currentNode: Int? = nil
        var redoNode: Int? = nil

        var description: String {
            "State(undo \(canUndo ? "+" : "-")\(undoCount) '\(undoActionName)' '\(undoMenuItemTitle)', "
                + "redo \(canRedo ? "+" : "-")\(redoCount) '\(redoActionName)' '\(redoMenuItemTitle)', "
                + "clean \(isClean), level \(groupingLevel)"
                + (currentNode.map { ", node #\($0)" } ?? "") + (redoNode.map { ", redo #\($0)" } ?? "") + ")"
        }
    }

    /// `ActionStack.HistoryEntry` (section 13); user info values are the driver's integers.
    struct Entry: Hashable, Sendable, CustomStringConvertible {
        var actionName: String
        var title: String
        var actionCount: Int
        var isDiscardable: Bool
        var userInfo: [String: Int]
        var isClean: Bool
        var isOpen: Bool
        /// The node the step leads to, in a branching history.
        var node: Int? = nil
        /// Whether the step can be saved: every live action in it is a command (section 20; never
        /// the open group).
        var canBeSaved = false

        var description: String {
            let info = userInfo.keys.sorted().map { "\($0)=\(userInfo[$0]!)" }.joined(separator: ",")
            return "Entry('\(actionName)' '\(title)' n=\(actionCount)\(isDiscardable ? " !" : "")"
                + (info.isEmpty ? "" : " {\(info)}") + (isClean ? " clean" : "") + (isOpen ? " open" : "")
                + (node.map { " #\($0)" } ?? "") + (canBeSaved ? " savable" : "") + ")"
        }
    }

    /// Switches for rules of the spec, so that the driver's own tests can run two models that
    /// differ in one rule (the shrinker's test) and an integrator can try the other reading of a
    /// rule that was once an open question. The defaults are the spec's rules.
    struct Decisions: Sendable {
        /// Section 6 (CHANGED): every open frame that contains a removed action gets a new `low`, and
        /// a closed nested group that loses some (not all) of its actions gets a new `low`; also
        /// when `undoNestedGroup()` drops dead trailing items.
        var removalRenamesOpenGroups = true
        /// SPEC-QUESTION (see `withActivity`): false: the close that undo()/redo()/jump/a scope
        /// make posts WillClose in the call's own activity; true: `closingGroup` is pushed on top
        /// of it for WillClose, as `endUndoGrouping()` does.
        ///
        /// Decided: true. Will-close observers may add to the closing group whatever closes it (a
        /// registration then empties the redo stack, so a redo or a forward jump finds less to do).
        var closeInsideCallPushesClosingGroup = true
        /// Section 5.2 step 4 orders "post WillUndo, then detach the step" (and 5.3 mirrors it):
        /// false follows that order (WillUndo observers still see the step); true detaches first.
        var detachBeforeWillUndo = false
        /// Section 14: setters are calls, so setting `dropsEmptyGroups` (which can change what
        /// `canUndo` and the titles say) publishes at its end. false: the mode setters publish
        /// nothing (the state they change is heard at the next call).
        var modeSettersPublish = true
        /// Section 14: getters are calls too, so a query whose Top rule or sweep changed the state
        /// (or that follows a change nobody published) publishes at its end. false: queries
        /// publish nothing.
        var queriesPublish = true
        /// Section 7 lists what clears the candidate; a top-level group opening or closing is not
        /// in the list (an opening ends only the continuation), so after an empty group is dropped
        /// a keystroke still joins the candidate. true: closing a top-level group on the undo side
        /// that is not the candidate (kept or dropped) clears the candidate.
        var otherTopLevelCloseClearsCandidate = false
        /// Section 14: `group(named:_:)` is a call, so the calls its body makes are nested calls and
        /// publish nothing; observers hear the scope once, at its end. true: the body's calls
        /// publish as outermost calls.
        var scopeBodyCallsPublish = false
        /// SPEC-QUESTION (see `setValue`): true: the DidOpen of an automatic group that setValue
        /// opened is posted at the end of the call, after the name and the value are set; false:
        /// right after the inner registration, before them.
        var setValueDidOpenAtTheEnd = true

        /// The switches by name, each flipped from its default: the driver reads a comma-separated
        /// list of these names from `DRIVER_DECISIONS`, so the other reading of a question can be
        /// tried against the library without editing the model.
        static func flipping(_ names: [String]) -> Decisions {
            var decisions = Decisions()
            for name in names {
                switch name.filter({ $0 != " " }) {
                case "removalRenamesOpenGroups": decisions.removalRenamesOpenGroups.toggle()
                case "closeInsideCallPushesClosingGroup": decisions.closeInsideCallPushesClosingGroup.toggle()
                case "detachBeforeWillUndo": decisions.detachBeforeWillUndo.toggle()
                case "modeSettersPublish": decisions.modeSettersPublish.toggle()
                case "queriesPublish": decisions.queriesPublish.toggle()
                case "otherTopLevelCloseClearsCandidate": decisions.otherTopLevelCloseClearsCandidate.toggle()
                case "scopeBodyCallsPublish": decisions.scopeBodyCallsPublish.toggle()
                case "setValueDidOpenAtTheEnd": decisions.setValueDidOpenAtTheEnd.toggle()
                case "": break
                default: fatalError("DRIVER_DECISIONS: no switch named \(name)")
                }
            }
            return decisions
        }
    }

    // MARK: - Storage (section 1)

    /// What an action does when it runs.
    enum ActionKind: Hashable, Sendable {
        /// Adds `delta` to the target's value and registers the inverse (`add(-delta)`), with the
        /// same options.
        case add(Int)
        /// `setValue(value, for: \.value, on: target, actionName: name)`: the inverse that
        /// `setValue(_:for:on:actionName:)` registers.
        case set(Int, name: String?)
    }

    /// One registered action.
    struct Action: Hashable, Sendable {
        var id: Int
        var target: Int
        var kind: ActionKind
        var cost: Int
        var key: String?
        /// The coalescing window in the driver's clock units (milliseconds); nil = no window.
        var window: Int?
        /// Registered as a command (`registerUndo(_:on:key:)`, section 20), whose inverse is a
        /// command too, keyed by its target; otherwise a closure.
        var command = false
    }

    /// A step's metadata (section 4).
    struct Metadata: Hashable, Sendable {
        var name = ""
        var discardable = false
        var userInfo: [String: Int] = [:]
    }

    /// A closed top-level group: a flat list of actions, metadata and its two state ids (section 1).
    struct Step: Hashable, Sendable {
        /// Identity: the id of the frame it was when it was open (coalescing and scopes follow it).
        var id: Int
        var actions: [Action]
        var metadata: Metadata
        var low: Int
        var high: Int
        /// The node the step leads to, in a branching history (0 in a linear one).
        var node = 0
    }

    /// A closed nested group inside an open frame: a flat list of actions and its state ids.
    struct NestedGroup: Hashable, Sendable {
        var id: Int
        var actions: [Action]
        var low: Int
        var high: Int
    }

    /// An item of an open frame. The next open frame is not an item here: it is the next element
    /// of `Side.frames` (and is, logically, the frame's last item).
    enum Item: Hashable, Sendable {
        case action(Action)
        case group(NestedGroup)
    }

    /// An open group. Only frame 0 carries metadata.
    struct Frame: Hashable, Sendable {
        var id: Int
        var items: [Item] = []
        var low: Int
        var metadata = Metadata()
    }

    /// One side of the history (section 1).
    struct Side: Hashable, Sendable {
        /// Closed steps, oldest first.
        var closed: [Step] = []
        /// Open frames, outermost (frame 0) first.
        var frames: [Frame] = []
    }

    enum SideName: Sendable { case undo, redo }

    /// The coalescing candidate (section 7).
    struct Candidate: Hashable, Sendable {
        var stepID: Int
        var key: String
        var target: Int
        var lastTime: Int
    }

    /// An entry of the publishing queue (section 14).
    struct QueueEntry {
        var state: State?
        var isClean: Bool
    }

    // MARK: - State of the model

    var undoSide = Side()
    var redoSide = Side()

    // Settings (spec names).
    var groupsByEvent: Bool
    var dropsEmptyGroups: Bool
    var levels = 0
    var maximumCostLimit = 0
    var postsNotifications = true
    var decisions: Decisions

    // Document states (section 6). Ids are never reused.
    var current = 0
    var clean = 0
    var nextStateID = 1
    /// Identities of frames, steps and actions.
    var nextObjectID = 1

    // Targets: index -> alive, value.
    var alive: [Bool] = []
    var values: [Int] = []

    /// The coalescing clock, in milliseconds (the driver advances it).
    var clock = 0
    var candidate: Candidate?
    /// The id of the joined step while the continuation is active (section 7).
    var continuationStepID: Int?

    var disableCount = 0
    /// For each rollback in progress: the disable count its own disable brought (section 12).
    var rollbackFloors: [Int] = []
    var isUndoing = false
    var isRedoing = false
    /// The event's close is pending (section 8).
    var pendingClose = false {
        didSet { if pendingClose && !oldValue { eventNumber += 1 } }
    }
    /// Counts the events whose close became pending (a pending close stays the same event).
    var eventNumber = 0
    /// The event whose end `endEvent()` asked for while a scope's body ran (section 8, decided):
    /// it ends when the outermost scope ends, if it is still pending.
    var eventEndAfterScopes: Int?
    /// Set while a failed scope closes the automatic group it opened: an empty close drops it.
    var droppingEmptyGroup = false

    /// The activity stack, outermost first (section 9).
    var activities: [Activity] = []
    /// Undo and redo steps performed so far (a forward jump stops when a step performed nothing).
    var stepsPerformed = 0
    /// Observers of a checkpoint are running (section 10b).
    var checkpointObserversRunning = 0
    /// Calls of this stack in progress (section 14).
    var callDepth = 0
    /// Scoped groups whose body is running (section 12).
    var scopeDepth = 0
    /// A trim waits for the end of the outermost call or scope (sections 9, 10, 12).
    var pendingTrim = false

    // Branching history (section 19, ReferenceModel+Tree.swift).
    /// The tree, when `historyShape` is `.tree`; nil in a linear history.
    var tree: TreeModel?
    /// `maximumBranchSteps`, kept while the history is linear too.
    var maximumBranchStepsSetting = 0
    /// A change of shape asked for during an activity or a scope (true: `.tree`), applied with the
    /// trim at the end of the outermost call or scope.
    var pendingShape: Bool?
    /// Tree moves walking their way: pruning waits until they end.
    var walking = 0

    // Observation (section 14).
    var observers: [(token: Int, body: (State) -> Void)] = []
    var nextToken = 1
    var publishing = false
    var queue: [QueueEntry] = []
    var lastEnqueuedState: State?
    var lastNotedClean = true
    var lastPostedClean = true

    // Misuse (section 15). `.report` and `.log` behave the same for the model.
    var lastMisuse: Misuse?
    var onMisuse: ((Misuse) -> Void)?
    /// How often some rules applied (joins, rollbacks, trims...), for the driver's report of its mix.
    var tally: [String: Int] = [:]
    func count(_ rule: String) { tally[rule, default: 0] += 1 }

    /// Called for every notification posted, while its observers would run.
    var notificationHook: ((Posted) -> Void)?

    /// Asynchronous actions and operations (ReferenceModel+Async.swift).
    var asyncState = AsyncState()

    init(targets: Int = 0, groupsByEvent: Bool = true, dropsEmptyGroups: Bool = false, decisions: Decisions = .init()) {
        self.groupsByEvent = groupsByEvent
        self.dropsEmptyGroups = dropsEmptyGroups
        self.decisions = decisions
        for _ in 0..<targets { _ = addTarget() }
    }

    // MARK: - Targets

    /// A new live target with value 0; returns its index.
    func addTarget() -> Int {
        alive.append(true)
        values.append(0)
        return alive.count - 1
    }

    /// The driver dropped its last reference to the target: its actions are dead from now on (or,
    /// while a suspended asynchronous handler holds it, once that handler returns).
    func free(_ target: Int) {
        if asyncState.heldTargets.contains(target) {
            asyncState.freedWhileHeld.insert(target)
        } else {
            alive[target] = false
        }
    }

    func isDead(_ action: Action) -> Bool { !alive[action.target] }

    // MARK: - Small helpers

    func newStateID() -> Int {
        defer { nextStateID += 1 }
        return nextStateID
    }

    func newObjectID() -> Int {
        defer { nextObjectID += 1 }
        return nextObjectID
    }

    /// The current side is redo while an undo is in progress, undo otherwise (section 1).
    var currentSideName: SideName { isUndoing ? .redo : .undo }

    func side(_ name: SideName) -> Side { name == .undo ? undoSide : redoSide }

    /// Mutates one side. `body` must not call out of the model (no hooks inside).
    func withSide<R>(_ name: SideName, _ body: (inout Side) -> R) -> R {
        switch name {
        case .undo: body(&undoSide)
        case .redo: body(&redoSide)
        }
    }

    var currentFrames: [Frame] { side(currentSideName).frames }

    /// `groupingLevel`: open frames on the current side (section 1).
    var groupingLevelNow: Int { currentFrames.count }

    /// The actions of a frame's own items, in order (closed nested groups flattened).
    static func flatten(_ frame: Frame) -> [Action] {
        frame.items.flatMap { item -> [Action] in
            switch item {
            case .action(let action): [action]
            case .group(let group): group.actions
            }
        }
    }

    /// Every action of the open frames of a side (frame 0 holds the deeper frames).
    static func openActions(_ side: Side) -> [Action] { side.frames.flatMap(flatten) }

    /// "Holds an action": at least one action at any depth, live or dead (section 1).
    func frame0HoldsAction(_ side: Side) -> Bool { !Self.openActions(side).isEmpty }

    func frame0HoldsLiveAction(_ side: Side) -> Bool { Self.openActions(side).contains { !isDead($0) } }

    /// A dead step holds at least one action and only dead ones; an empty step is not dead.
    func isDeadStep(_ step: Step) -> Bool { !step.actions.isEmpty && step.actions.allSatisfy(isDead) }

    /// The undo side's total cost: every held action, open frames included (section 10).
    var undoCost: Int {
        undoSide.closed.reduce(0) { $0 + $1.actions.reduce(0) { $0 + $1.cost } }
            + Self.openActions(undoSide).reduce(0) { $0 + $1.cost }
    }

    // MARK: - Activities and re-entrancy (section 9)

    /// The table of section 9: whether `operation` may run during `activity`.
    static func allows(_ operation: Operation, during activity: Activity) -> Bool {
        switch operation {
        case .registerUndo, .setValue, .setActionName, .setActionIsDiscardable, .setActionUserInfoValue:
            switch activity {
            case .undoing, .redoing, .closingGroup, .openingGroup, .rollingBack: return true
            // Registration is disabled while a remote change applies: these calls do nothing.
            case .applyingRemoteChange: return true
            case .notifyingUndo, .notifyingRedo, .preparingUndo, .preparingRedo, .jumping, .closingScope: return false
            }
        case .beginUndoGrouping, .group, .endUndoGrouping:
            // A rollback disables registration, which comes first: grouping calls do nothing there
            // and are no misuse, so its column allows them (so does a remote change's).
            return activity == .undoing || activity == .redoing || activity == .rollingBack
                || activity == .applyingRemoteChange
        case .markClean:
            switch activity {
            case .undoing, .redoing, .rollingBack, .applyingRemoteChange: return false
            default: return true
            }
        case .removeAllActionsWithTarget:
            // A peer deleted an object: its actions go while the remote change applies.
            return activity == .applyingRemoteChange
        case .undo, .undoNestedGroup, .redo, .jump, .endEvent, .removeAllActions, .applyRemoteChange:
            return false
        case .jumpToNode, .selectRedoBranch, .earlier, .later:
            // Section 19: a tree move is an operation like jump(to:).
            return false
        case .savedHistory, .restoreHistory:
            // Section 20: saving reads the whole history and restoring replaces it, so no
            // operation in progress may be under them.
            return false
        case .enableUndoRegistration:
            return true
        }
    }

    /// The misuse a call of `operation` is now, if the innermost activity refuses it (section 9,
    /// CHANGED: the innermost activity decides, not every activity on the stack). `redo()` from
    /// inside an undo (its handlers or its Will/Did observers) is `.redoWhileUndoing` (5.3 step 1).
    func refusal(_ operation: Operation) -> Misuse? {
        guard let innermost = activities.last, !Self.allows(operation, during: innermost) else { return nil }
        if operation == .redo && (innermost == .undoing || innermost == .notifyingUndo) { return .redoWhileUndoing }
        return .reentrantCall(operation, during: innermost)
    }

    /// Runs `body` with `activity` pushed (nil: no activity of this call).
    ///
    /// Activities stack (section 9): `undo()` runs its step inside `preparingUndo` (its Will/Did in
    /// [preparingUndo, notifyingUndo], its handlers in [preparingUndo, undoing]), `redo()` inside
    /// `preparingRedo`, a jump's steps inside `jumping`, only the innermost one deciding.
    ///
    /// SPEC-QUESTION: the close that `undo()`, `redo()`, `jump` and a scope make "as
    /// endUndoGrouping() would" posts its C, WillClose and DidClose in the call's own activity
    /// (preparingUndo, preparingRedo, jumping, closingScope: 5.1 step 4, 12 step 4), with no
    /// `closingGroup` pushed on top for WillClose. Were `closingGroup` pushed, it would be the
    /// innermost activity and let a WillClose observer register during undo()'s close.
    func withActivity<R>(_ activity: Activity?, _ body: () -> R) -> R {
        guard let activity else { return body() }
        activities.append(activity)
        defer { activities.removeLast() }
        return body()
    }

    /// Reports a misuse (section 15): `lastMisuse`, then `onMisuse`. The caller changes nothing.
    func report(_ misuse: Misuse) {
        lastMisuse = misuse
        onMisuse?(misuse)
    }

    /// Posts a notification: its observers (the hook) run now, with the activity stack as it is.
    /// Section 10b (CHANGED): no checkpoint is posted while observers of a checkpoint are running
    /// (whatever the calls they make, however deep).
    func post(_ name: NotificationName, discardable: Bool = false, in activity: Activity? = nil) {
        guard postsNotifications else { return }
        if name == .checkpoint {
            guard checkpointObserversRunning == 0 else { return }
            checkpointObserversRunning += 1
        }
        defer { if name == .checkpoint { checkpointObserversRunning -= 1 } }
        withActivity(activity) {
            notificationHook?(Posted(name: name, discardable: discardable, activities: activities))
        }
    }

    // MARK: - Calls and publishing (section 14)

    /// Every public entry point is a call; the end of the outermost one publishes.
    func call<R>(_ body: () -> R) -> R {
        callDepth += 1
        let result = body()
        callDepth -= 1
        if callDepth == 0 { endOfOutermostCall() }
        return result
    }

    /// A getter: a call like any other (see `Decisions.queriesPublish`).
    func query<R>(_ body: () -> R) -> R {
        guard decisions.queriesPublish else {
            callDepth += 1
            defer { callDepth -= 1 }
            return body()
        }
        return call(body)
    }

    func callThrowing<R>(_ body: () throws -> R) rethrows -> R {
        callDepth += 1
        defer {
            callDepth -= 1
            if callDepth == 0 { endOfOutermostCall() }
        }
        return try body()
    }

    /// Section 9/10: "Settings changed during an activity that would trim trim at the end of the
    /// outermost call"; then the publish of section 14.
    ///
    /// SPEC-QUESTION: section 15 says a refused call publishes no state; section 14 says the end of
    /// every outermost call publishes. The model publishes at the end of every outermost call,
    /// refused or not: the state is compared with the last one, so a refused call that changed
    /// nothing delivers nothing, while the changes that observers of its checkpoint made (nested
    /// calls, which do not publish themselves) are still heard. (A snapshot taken by this publish
    /// may drop dead steps under the Top rule, as any `state` query does.)
    func endOfOutermostCall() {
        if pendingTrim && scopeDepth == 0 && activities.isEmpty {
            pendingTrim = false
            applyPendingShape()
            trim()
        }
        publish()
    }

    /// The loop of section 14.
    func publish() {
        let entry = makeQueueEntry()
        if publishing {
            if let entry { queue.append(entry) }
            return
        }
        publishing = true
        if let entry { queue.append(entry) }
        while !queue.isEmpty {
            let next = queue.removeFirst()
            if postsNotifications && next.isClean != lastPostedClean {
                lastPostedClean = next.isClean
                post(.cleanStateDidChange)
            }
            if let state = next.state {
                // Observers added during this delivery do not get it; cancelled ones get nothing more.
                let tokens = observers.map(\.token)
                for token in tokens {
                    guard let observer = observers.first(where: { $0.token == token }) else { continue }
                    observer.body(state)
                }
            }
        }
        publishing = false
    }

    /// The snapshot to enqueue, if it differs from the last one enqueued or delivered (state
    /// observers) or its clean flag from the last one noted (no state observers).
    func makeQueueEntry() -> QueueEntry? {
        var state: State?
        if !observers.isEmpty {
            let snapshot = stateSnapshot()
            if snapshot != lastEnqueuedState {
                state = snapshot
                lastEnqueuedState = snapshot
            }
        }
        let isCleanNow = current == clean
        if state != nil || isCleanNow != lastNotedClean {
            lastNotedClean = isCleanNow
            return QueueEntry(state: state, isClean: isCleanNow)
        }
        return nil
    }

    // MARK: - Test hooks (section 17)

    /// `_structure`: the held structure, no side effects.
    var structure: String {
        func actions(_ list: [Action]) -> [String] { list.map { isDead($0) ? "x" : "a" } }
        func meta(_ metadata: Metadata) -> String {
            // SPEC-QUESTION: "appended when any is set" is read as "when any differs from its
            // default": a name set to "" or discardable set to false shows nothing.
            guard !metadata.name.isEmpty || metadata.discardable || !metadata.userInfo.isEmpty else { return "" }
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
            return "<" + parts.joined(separator: " ") + ">" + (index == 0 ? meta(frames[0].metadata) : "")
        }
        func describe(_ side: Side) -> String {
            var parts = side.closed.map { "[" + actions($0.actions).joined(separator: " ") + "]" + meta($0.metadata) }
            if !side.frames.isEmpty { parts.append(frame(side.frames, 0)) }
            return parts.joined(separator: " ")
        }
        return "undo(\(describe(undoSide))) redo(\(describe(redoSide)))"
    }

    /// `_stateShape`: the equality pattern of the state ids, renamed canonically.
    ///
    /// SPEC-QUESTION: "each id becomes the index of its first appearance in this traversal" could
    /// be the position in the traversal (ids 5 5 7 -> "0 0 2") or the number of distinct ids met
    /// before it (-> "0 0 1"). The model renames ids 0, 1, 2... in order of first appearance (the
    /// second reading: a renaming), which is also what the library does. Empty sections are empty
    /// strings between the " | " separators.
    var stateShape: String {
        var sections: [[Int]] = [[current, clean]]
        func closed(_ side: Side) -> [Int] { side.closed.flatMap { [$0.low, $0.high] } }
        func frames(_ side: Side) -> [Int] {
            side.frames.flatMap { frame -> [Int] in
                [frame.low]
                    + frame.items.flatMap { item -> [Int] in
                        if case .group(let group) = item { return [group.low, group.high] }
                        return []
                    }
            }
        }
        sections += [closed(undoSide), frames(undoSide), closed(redoSide), frames(redoSide)]
        var firstIndex: [Int: Int] = [:]
        for id in sections.joined() where firstIndex[id] == nil { firstIndex[id] = firstIndex.count }
        return sections.map { section in
            section.map { String(firstIndex[$0]!) }.joined(separator: " ")
        }.joined(separator: " | ")
    }

    /// The model's own consistency checks (the library's `_invariantViolations()` is compared with
    /// an empty list by the driver).
    var invariantViolations: [String] {
        var problems: [String] = []
        if callDepth == 0 {
            if !activities.isEmpty { problems.append("activities left: \(activities)") }
            if isUndoing || isRedoing { problems.append("undoing/redoing left set") }
            if !redoSide.frames.isEmpty { problems.append("redo side has open frames between calls") }
            if scopeDepth != 0 { problems.append("scope depth \(scopeDepth) between calls") }
        }
        for step in undoSide.closed + redoSide.closed where step.actions.isEmpty && step.low != step.high {
            problems.append("empty step with low != high")
        }
        if maximumCostLimit > 0 && callDepth == 0 && undoSide.frames.isEmpty && !pendingTrim
            && undoCost > maximumCostLimit && undoSide.closed.count > 1
        {
            problems.append("cost \(undoCost) over the limit \(maximumCostLimit) with several steps")
        }
        if levels > 0 && callDepth == 0 && !pendingTrim && undoSide.closed.count > levels {
            problems.append("\(undoSide.closed.count) steps over the limit \(levels)")
        }
        return problems
    }
}
