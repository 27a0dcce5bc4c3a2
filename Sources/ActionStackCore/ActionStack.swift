// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// A target/action undo manager with the behaviour of Foundation's `UndoManager`, for Linux and
/// Apple platforms.
///
/// Register the inverse of each change with ``registerUndo(withTarget:handler:)``; ``undo()`` runs
/// the newest group of inverses, and what they register while undoing becomes the redo step.
///
/// ```swift
/// import ActionStack
///
/// final class Document {
///     let undoStack = ActionStack()
///     private(set) var text = ""
///
///     // The inverse calls the same method, so undoing registers the redo.
///     func setText(_ new: String) {
///         let old = text
///         undoStack.registerUndo(withTarget: self) { document in document.setText(old) }
///         text = new
///     }
/// }
///
/// let document = Document()
/// let stack = document.undoStack
/// stack.groupsByEvent = false   // this program opens and closes its groups itself
///
/// stack.beginUndoGrouping()
/// document.setText("Hello")
/// stack.setActionName("Typing")
/// stack.endUndoGrouping()
/// print(stack.undoMenuItemTitle)   // Undo Typing
/// stack.undo()
/// print(document.text.isEmpty)     // true
/// print(stack.redoMenuItemTitle)   // Redo Typing
/// stack.redo()
/// print(document.text)             // Hello
/// ```
///
/// Code written for Apple's `UndoManager` compiles against this type with
/// `typealias UndoManager = ActionStack` and behaves the same, except where Foundation would crash
/// or cannot work without a run loop: targets are held weakly (an action whose target is freed
/// never runs), misuse that raises an exception on Apple platforms is reported and changes
/// nothing, programs with no run loop end each event with ``endEvent()``, and ``redo()`` and
/// ``jump(to:)`` close an open group first, as ``undo()`` does. <doc:ComingFromUndoManager> lists
/// every difference.
///
/// ## Grouping
///
/// Every undo step is a top-level *group*; groups nest. With ``groupsByEvent`` on (the default),
/// the first registration of an event opens a group automatically and the end of the current
/// `RunLoop` pass closes it. Programs with no run loop that turns (a terminal loop on `readLine`, an
/// async `main`, Swift concurrency on Linux) set ``automaticGroupClosing`` to
/// ``AutomaticGroupClosing/manual`` and end each event with ``endEvent()``, which cannot close a
/// group twice. A group that closes with nothing in it is kept as a do-nothing step, as Foundation
/// keeps it; set ``dropsEmptyGroups`` to drop it instead. See <doc:GroupingUndoSteps>.
///
/// ## Notifications
///
/// The eight notifications of `UndoManager` (``checkpointNotification``,
/// ``didOpenUndoGroupNotification``, ``willCloseUndoGroupNotification``,
/// ``didCloseUndoGroupNotification``, ``willUndoChangeNotification``,
/// ``didUndoChangeNotification``, ``willRedoChangeNotification``, ``didRedoChangeNotification``)
/// are posted synchronously on `NotificationCenter.default` with the stack as `object`, in
/// Foundation's order; where Foundation has no `UndoManager`, its `NSUndoManager…` names are
/// provided too. ``observe(_:)``, ``stateUpdates()`` and ``ActionStackModel`` tell the state of
/// the stack once per call, without notification plumbing. What handlers and observers may call
/// back is one table (<doc:Reentrancy>).
///
/// ## Misuse
///
/// Calls that Foundation answers with an uncatchable exception (ending a group that was never
/// begun, undoing from inside an undo, ...) are a ``Misuse`` value and change nothing. By default
/// each is written to standard error as one line, stored in ``lastMisuse`` and passed to
/// ``onMisuse`` (``misusePolicy``). See <doc:Misuse>.
///
/// A call that did what it says but, most likely, not what the program meant is a ``Warning``:
/// told once, the same way (one line on standard error unless the policy is
/// ``MisusePolicy/report``, ``lastWarning``, ``onWarning``), and the call is not undone. The one
/// warning so far is ``Warning/Kind/eventsNeverEnd``: changes that nothing separates into steps
/// in a program whose run loop does not turn.
///
/// ## Subclassing
///
/// `ActionStack` is an `open` class, as `UndoManager` is: the members that are `open` on Apple
/// platforms are `open` here, and the additions are `public`. An override that calls `super` keeps
/// every rule. The stack's own work does not go through the overridable operations: ``undo()``
/// closes the open group and undoes without calling an override of ``endUndoGrouping()`` or
/// ``undoNestedGroup()``, for example (Foundation's `undo()` calls them: this is one of the
/// deliberate differences). As Apple's does, it forms every title (the menu item titles, ``state``,
/// the history entries) by calling ``undoMenuTitle(forUndoActionName:)`` and
/// ``redoMenuTitle(forUndoActionName:)``, the menu item titles from ``undoActionName`` and
/// ``redoActionName``, and it reads ``groupsByEvent``, ``levelsOfUndo`` and
/// ``runLoopModes`` through their getters, so overrides of these take effect inside the stack too.
///
/// ## Concurrency
///
/// `ActionStack` is not `Sendable` and, unlike Apple's `UndoManager`, not `@MainActor`: use each
/// stack from one isolation domain at a time (the main actor, one actor, one thread). Handlers and
/// notification observers run synchronously on the caller's thread. The automatic close of
/// ``groupsByEvent`` is scheduled on `RunLoop.current` of the thread that opened the group and runs
/// there; where no run loop turns, use ``endEvent()``. See <doc:Concurrency>.
///
/// ## Performance
///
/// Registration, undo, redo and trimming to ``levelsOfUndo`` cost O(1) amortized per action, with
/// no allocation per step or per action beyond the handler's own closure. ``canUndo``, ``canRedo``,
/// names and titles are O(1) amortized; the counts and the history entries check every distinct
/// target for a freed one, O(targets). Each member's documentation states its cost; see
/// <doc:Performance>.
open class ActionStack {
    // MARK: Stored state: the composition of the concerns
    //
    // Stored properties are `@exclusivity(unchecked)`: Swift's dynamic exclusivity check on class
    // properties costs about 140 instructions per access, and a stack is confined to one isolation
    // domain, with no client code running inside an access to its own storage.

    /// The history: the undo and redo sides, the targets, the document states and the clean point,
    /// the coalescing candidate, the branches, the serials.
    let history: History
    /// The history's undo stack (the object `history.undoSide` is). The stack reads its sides
    /// through these references, one load from `self`: a side read through `history` is retained
    /// around every call it is passed to (measured: 13% more instructions per step).
    let undoSide: Side
    /// The history's redo stack (the object `history.redoSide` is).
    let redoSide: Side
    /// Whether the current event's automatic close is pending.
    @exclusivity(unchecked) var eventClose = EventClose()
    /// What the stack is doing while client code runs in the middle of a call.
    @exclusivity(unchecked) var activities = Activities()
    /// Observers of the stack's state, and what they have been told.
    @exclusivity(unchecked) var publisher = Publisher()

    /// The step machine: the step in flight (a synchronous undo or redo, an awaited one, an
    /// asynchronous group), the broken step, and the requests waiting for their turn.
    @exclusivity(unchecked) var steps = StepMachine()
    /// The disable counter of registration, with the part that rollbacks hold.
    @exclusivity(unchecked) var registration = RegistrationSwitch()
    /// Public calls in progress (nested ones included); the state is published when the outermost
    /// ends.
    @exclusivity(unchecked) var callDepth = 0
    /// The scoped groups whose body is running, and what waits for the outermost to end.
    @exclusivity(unchecked) var scopes = Scopes()
    /// True while observers of a checkpoint run: no checkpoint is posted then.
    @exclusivity(unchecked) var isPostingCheckpoint = false
    /// True while `onMisuse` runs, so that a misuse inside it is not reported to it again.
    @exclusivity(unchecked) var isReportingMisuse = false
    /// Whether every call ends with an invariant check (a test hook).
    @exclusivity(unchecked) var checksInvariants = false

    // MARK: Settings

    /// Whether a group that closes with no action in it is dropped instead of kept.
    ///
    /// Default `false`, as Foundation: an explicit `beginUndoGrouping()`/`endUndoGrouping()` pair
    /// with nothing in it, or an event's automatic group in which nothing was registered, closes as a
    /// do-nothing step (``canUndo`` is `true`, ``undoCount`` counts it, undoing it runs nothing) and,
    /// like any new step, empties the redo stack; and the step a redo builds is kept even when its
    /// handlers register nothing. With `true`, such a group is dropped (its open and close
    /// notifications are still posted), the redo stack is kept, ``canUndo`` does not count an open
    /// group that holds no action, and names and titles never come from a group that will be
    /// dropped.
    ///
    /// Setting it is a call like any other: observers hear the state it changes (``canUndo`` and the
    /// titles may change when an empty group is open).
    ///
    /// - Complexity: O(1).
    @exclusivity(unchecked) public var dropsEmptyGroups = false {
        didSet { settingChanged() }
    }

    /// How the automatic group of an event is closed: by the run loop (default) or by the program
    /// calling ``endEvent()``.
    ///
    /// Changing it takes effect when the next automatic group opens: a close already scheduled on
    /// the run loop still comes, and ``endEvent()`` ends the current event in either mode.
    ///
    /// - Complexity: O(1).
    @exclusivity(unchecked) public var automaticGroupClosing: AutomaticGroupClosing = .runLoop

    /// Whether the stack posts its notifications on `NotificationCenter.default`.
    ///
    /// Default `true`, as Foundation. Each notification is a post on `NotificationCenter.default`,
    /// which costs more than the stack's own work for a registration; turn posting off when nothing
    /// observes them. ``cleanStateDidChangeNotification`` is not posted either while it is off;
    /// turning posting back on does not post what changed meanwhile: the next clean-state
    /// notification is for the next change from the state the stack is in then.
    ///
    /// - Complexity: O(1).
    @exclusivity(unchecked) public var postsNotifications = true {
        didSet {
            guard postsNotifications && !oldValue else { return }
            publisher.lastClean = history.states.isClean
            publisher.lastPostedClean = history.states.isClean
        }
    }

    /// What the stack does when it is misused: log and report (default), report silently, or trap.
    @exclusivity(unchecked) public var misusePolicy: MisusePolicy = .log

    /// The most recent misuse (with the ``MisusePolicy/log`` and ``MisusePolicy/report``
    /// policies). Each misuse replaces it; set it to `nil` to clear it.
    @exclusivity(unchecked) public var lastMisuse: Misuse?

    /// Called with each misuse (with the ``MisusePolicy/log`` and ``MisusePolicy/report``
    /// policies), after ``lastMisuse`` is set. A misuse made from inside it is not passed to it again.
    @exclusivity(unchecked) public var onMisuse: ((Misuse) -> Void)?

    /// The most recent warning (see ``Warning``). Each warning replaces it; set it to `nil` to
    /// clear it.
    @exclusivity(unchecked) public var lastWarning: Warning?

    /// Called with each warning (see ``Warning``), after ``lastWarning`` is set.
    @exclusivity(unchecked) public var onWarning: ((Warning) -> Void)?

    /// The clock that coalescing windows are measured with. Replace it in tests so they need not
    /// sleep.
    @exclusivity(unchecked) public var coalescingClock: () -> ContinuousClock.Instant = { ContinuousClock.now }

    /// The wording of the menu titles; English by default. Observers hear the new titles.
    @exclusivity(unchecked) public var titleTemplates = TitleTemplates.english {
        didSet { settingChanged() }
    }

    /// The largest total cost of the undo stack, counted from the costs that registrations state
    /// with ``RegistrationOptions/cost``; 0 (the default) means no limit. An asynchronous
    /// registration (``registerAsyncUndo(withTarget:handler:)`` and its command and actor forms)
    /// states no cost: its action counts 0, so a history of awaited steps is bounded by
    /// ``levelsOfUndo``, not by this.
    ///
    /// When a top-level group closes on the undo stack, after a registration continues a coalesced
    /// step, and when the limit is set, the oldest whole steps are dropped while the total is over
    /// the limit; a step is never split, the newest closed step is always kept, and open groups are
    /// never dropped. The redo stack is not limited. Works alongside ``levelsOfUndo``, and waits as it
    /// does while a call or an awaited request is in progress. In a branching
    /// history (``historyShape``) the total counts the branches too, and the deepest steps of the
    /// least recently visited branches are dropped first (see <doc:BranchingHistory>).
    ///
    /// - Complexity: O(k) for the k actions dropped.
    @exclusivity(unchecked) public var maximumCost = 0 {
        didSet {
            if maximumCost < 0 { maximumCost = 0 }
            limitsChanged()
        }
    }

    // MARK: Properties that subclasses may override, as on Apple platforms

    /// Whether the first registration of an event opens a group that closes at the end of the event.
    ///
    /// Default `true`. Setting it only flips the flag: a group already open stays open, and if the
    /// flag is off when the event's close comes, the close does nothing and the program must close
    /// the group itself.
    ///
    /// - Complexity: O(1).
    @exclusivity(unchecked) open var groupsByEvent = true {
        didSet { settingChanged() }
    }

    /// The run-loop modes in which the automatic close of ``groupsByEvent`` is scheduled.
    ///
    /// Default `[.default]`.
    @exclusivity(unchecked) open var runLoopModes: [RunLoop.Mode] = [.default]

    /// The maximum number of top-level undo steps kept; 0 (the default) means no limit.
    ///
    /// When a top-level group closes on the undo stack (the group a redo builds included; the redos
    /// of a move such as ``jump(to:)`` once the move ends) and there are more closed steps than the
    /// limit, the oldest are dropped silently; setting the limit trims
    /// at once (at the end of the call in progress, when set from a handler or an observer; when an
    /// awaited request such as ``performJump(to:isolation:)`` holds the turn, once the whole request
    /// has ended, so that a jump is never cut short). The redo
    /// stack is never trimmed. Steps are counted as the stack holds them: a step whose targets were
    /// all freed counts until the stack drops it (see <doc:Performance>). In a branching history
    /// (``historyShape``) it limits the undo stack, the current path above the current node: the
    /// node a trimmed step led to becomes the root, and the branches that left from the old root
    /// are dropped; ``maximumBranchSteps`` limits the branches.
    ///
    /// - Complexity: Setting it is O(k) for the k actions dropped.
    @exclusivity(unchecked) open var levelsOfUndo = 0 {
        didSet {
            if levelsOfUndo < 0 { levelsOfUndo = 0 }
            limitsChanged()
        }
    }

    /// Creates an empty stack: ``levelsOfUndo`` 0, ``groupsByEvent`` on, registration enabled.
    ///
    /// - Complexity: O(1).
    public init() {
        let history = History()
        self.history = history
        undoSide = history.undoSide
        redoSide = history.redoSide
    }

    /// Whether an undo is in progress: from its ``willUndoChangeNotification`` to its
    /// ``didUndoChangeNotification``, handlers and the observers of those notifications included.
    /// For an awaited undo (``performUndo(isolation:)``) it is `true` for the operation's task (its
    /// handlers across their awaits, the observers of its will-, did- and
    /// ``didFailUndoChangeNotification``) and `false` for every other task.
    ///
    /// A method that both makes a change and serves as the inverse of another reads it to name its
    /// step only when the user acts (see <doc:NamingUndoSteps>).
    ///
    /// - Complexity: O(1).
    open var isUndoing: Bool { asCall { performingAsSeen == .undo } }

    /// Whether a redo is in progress: from its ``willRedoChangeNotification`` to its
    /// ``didRedoChangeNotification``, handlers and the observers of those notifications included
    /// (for an awaited redo, in the operation's task only, as ``isUndoing``).
    ///
    /// - Complexity: O(1).
    open var isRedoing: Bool { asCall { performingAsSeen == .redo } }

    // MARK: Registration control

    /// Whether registration is enabled (the disable counter is zero).
    ///
    /// - Complexity: O(1).
    open var isUndoRegistrationEnabled: Bool { asCall { registration.isEnabled } }

    /// Disables registration, grouping and the metadata setters until a matching
    /// ``enableUndoRegistration()``. Calls nest: each disable needs its own enable.
    ///
    /// Undo and redo still work while registration is disabled: ``undo()``, ``redo()``,
    /// ``undoNestedGroup()`` and each step of ``jump(to:)`` run the step, with its will and did
    /// notifications, and build nothing on the opposite stack, as in Foundation.
    ///
    /// - Complexity: O(1).
    open func disableUndoRegistration() { _disableUndoRegistration() }

    /// Balances one ``disableUndoRegistration()``.
    ///
    /// Without a matching disable it is the misuse ``Misuse/enableWithoutDisable`` and nothing
    /// changes.
    ///
    /// - Complexity: O(1).
    open func enableUndoRegistration() { _enableUndoRegistration() }

    // MARK: Grouping

    /// The number of open groups on the current stack (the redo stack while undoing).
    ///
    /// Inside an undo or redo handler it is 1 (the group being built) plus what handlers opened; in
    /// the will/did observers of undo and redo it is 0.
    ///
    /// - Complexity: O(1).
    open var groupingLevel: Int { asCall { currentSide.frames.count } }

    /// Opens a group; everything registered until the matching ``endUndoGrouping()`` is undone in
    /// one step. Groups nest.
    ///
    /// With ``groupsByEvent`` on and nothing open, this first opens the event's automatic group, so
    /// ``groupingLevel`` becomes 2. While registration is disabled, the call does nothing. Inside an
    /// undo or redo handler it opens a group nested in the step being built; from other handlers
    /// and observers of an operation in progress it is the misuse
    /// ``Misuse/reentrantCall(_:during:)`` (see <doc:Reentrancy>).
    ///
    /// Posts ``checkpointNotification``, then ``didOpenUndoGroupNotification``. When it opens the
    /// automatic group first, the order is ``didOpenUndoGroupNotification`` (the automatic group),
    /// ``checkpointNotification``, ``didOpenUndoGroupNotification`` (the explicit group). While an
    /// undo or redo is in progress no did-open notification is posted.
    ///
    /// - Complexity: O(1) amortized.
    open func beginUndoGrouping() { _beginUndoGrouping() }

    /// Closes the innermost open group.
    ///
    /// A top-level group that closes with no action in it becomes a do-nothing step and empties the
    /// redo stack, as in Foundation, or is dropped with ``dropsEmptyGroups`` on; closing a top-level
    /// group trims the history to ``levelsOfUndo`` and ``maximumCost``. With nothing open (inside a
    /// handler: nothing but the step being built) it is the misuse ``Misuse/endWithoutBegin`` and
    /// nothing changes. While registration is disabled, the call does nothing.
    ///
    /// Posts ``checkpointNotification``, then (except while an undo or redo is in progress)
    /// ``willCloseUndoGroupNotification`` and ``didCloseUndoGroupNotification``. Observers of the
    /// will-close notification may still register into the closing group and name it.
    ///
    /// - Complexity: O(1) amortized, plus O(k) for k actions trimmed.
    open func endUndoGrouping() { _endUndoGrouping() }

    // MARK: Undo and redo

    /// Undoes the newest step.
    ///
    /// If exactly one group is open on the undo stack (typically the event's automatic group), it
    /// is closed first, even while registration is disabled; with more than one open it is the
    /// misuse ``Misuse/nestedGroupsOpen(_:groupingLevel:)`` and nothing changes. Then it behaves as
    /// ``undoNestedGroup()``. With nothing to undo it returns quietly. From a handler or an observer
    /// of the operation in progress it is the misuse ``Misuse/reentrantCall(_:during:)``.
    ///
    /// ```swift
    /// if stack.canUndo { stack.undo() }
    /// ```
    ///
    /// - Complexity: O(n) for the n actions of the step: O(1) per action, whatever the number of
    ///   targets, plus the cost of trimming when it closes a group first.
    open func undo() { _undo() }

    /// Undoes the newest closed group: a closed top-level step, or a closed group nested in a
    /// still-open outer group, which is then undone alone.
    ///
    /// Runs every action of the group, newest first, with ``isUndoing`` set; what the handlers
    /// register forms one group on the redo stack, carrying the undone step's name, discardable
    /// flag and user info (a redo group that receives nothing is dropped). While registration is
    /// disabled the group still runs, with its notifications, and nothing is built on the redo
    /// stack. Posts ``checkpointNotification``, ``willUndoChangeNotification`` and
    /// ``didUndoChangeNotification``. With nothing to undo it returns quietly; when the newest item
    /// of the open group is an action or an open group it is the misuse
    /// ``Misuse/undoNestedGroupWithOpenGroup``.
    ///
    /// - Complexity: O(n) for the n actions of the group.
    open func undoNestedGroup() { _undoNestedGroup() }

    /// Redoes the newest step on the redo stack: the mirror image of ``undo()``, with
    /// ``isRedoing`` set and the handlers' registrations forming one step on the undo stack
    /// (without emptying the redo stack), kept even when it is empty unless ``dropsEmptyGroups`` is
    /// on, and trimmed to ``levelsOfUndo`` when it closes.
    ///
    /// While registration is disabled the step still runs, with its notifications, and nothing is
    /// built on the undo stack, in either empty-group mode: Foundation builds that step with
    /// `beginUndoGrouping()` and `endUndoGrouping()`, which do nothing then. So a redo while
    /// registration is disabled leaves no do-nothing step to undo, as an undo while it is disabled
    /// leaves nothing to redo.
    ///
    /// Like ``undo()``, it first closes the one group open on the undo stack, so the redone step is
    /// a top-level step of its own, with its name and clean state; with more than one open it is the
    /// misuse ``Misuse/nestedGroupsOpen(_:groupingLevel:)``. (A group that closes empty is a new
    /// step in Foundation's rules and empties the redo stack; then there is nothing to redo.)
    /// With nothing to redo it returns quietly. From inside an undo it is the misuse
    /// ``Misuse/redoWhileUndoing``; from other handlers and observers of an operation in progress,
    /// ``Misuse/reentrantCall(_:during:)``.
    ///
    /// - Complexity: O(n) for the n actions of the step, plus the cost of trimming.
    open func redo() { _redo() }

    /// Whether ``undo()`` has something to undo: a top-level group, open or closed (Foundation's
    /// rule; with ``dropsEmptyGroups`` on, an open group counts only when it holds an action).
    ///
    /// - Complexity: O(1) amortized (a step whose targets were all freed is dropped here, once).
    ///   Two cases look through freed actions on every read, since nothing may be dropped then:
    ///   with ``dropsEmptyGroups`` on, an open group whose newest actions have freed targets (O(k)
    ///   for those k actions, until the group closes); and from a handler or an observer of an
    ///   operation in progress, freed steps on top of the stack (O(d) for d such actions). The
    ///   names, titles, ``canRedo`` and ``state`` are the same. After a remote change
    ///   (``applyRemoteChange(_:version:_:)``) a step left with nothing to do does not count: the
    ///   next steps are rebased past the changes they have not seen when read (O(a · r) for their a
    ///   actions and r changes, once); read from a handler or an observer of an operation in
    ///   progress, where nothing may be rebased or dropped, they are read past them on copies, on
    ///   every read (the counts keep such a step until the call has ended; see
    ///   <doc:UndoInASharedDocument>).
    open var canUndo: Bool { _canUndo }

    /// Whether ``redo()`` has something to redo. Reading it posts ``checkpointNotification``, as
    /// Foundation does.
    ///
    /// - Complexity: O(1) amortized.
    open var canRedo: Bool { _canRedo }

    /// The number of closed steps on the undo stack (do-nothing steps included).
    ///
    /// - Complexity: O(t) for t distinct targets, to find freed ones; plus O(n) for the n stored
    ///   actions when one was freed.
    open var undoCount: Int { _undoCount }

    /// The number of closed steps on the redo stack.
    ///
    /// - Complexity: O(t) for t distinct targets; plus O(n) when one was freed.
    open var redoCount: Int { _redoCount }

    // MARK: Removal

    /// Empties both stacks, open groups included (``groupingLevel`` returns to 0), re-enables
    /// registration (the disable counter returns to 0), cancels the pending automatic close and
    /// marks the state clean, like a freshly opened document. Posts none of the eight undo
    /// notifications (only ``cleanStateDidChangeNotification``, at the end of the call, when the
    /// state was not clean).
    ///
    /// From a handler or an observer of an operation in progress it is the misuse
    /// ``Misuse/reentrantCall(_:during:)`` and nothing changes. Called from another task while an
    /// asynchronous operation awaits, it cancels the waiting requests, the operation goes on and
    /// nothing it touched survives; its clean mark is then one no node has, as ``markClean()``'s
    /// (see <doc:UndoingThroughAServerOrADatabase>).
    ///
    /// - Complexity: O(n) for the n stored actions (they are released).
    open func removeAllActions() { _removeAllActions() }

    /// Removes every action whose target is `target` (by identity) from both stacks, open groups
    /// included.
    ///
    /// A closed step, or a closed group nested in an open one, that this leaves empty is removed
    /// too; groups that were already empty, and open groups, stay. A closed group keeps its actions
    /// only, not the groups that closed empty inside it: one left with nothing but such groups is
    /// left empty and removed (Foundation, which keeps the empty nested group as an item, keeps
    /// its parent too). Posts nothing and does not
    /// touch the disable counter. Whether the document is clean does not change (the document did
    /// not change), but a step that loses some of its actions no longer leads back to the state
    /// before it (see <doc:CleanStateAndHistory>). Every accepted call ends the continuation of a
    /// coalesced step, and removing the target of the step being coalesced ends coalescing (see
    /// <doc:RecordingTheRightSteps>).
    ///
    /// Called from another task while an asynchronous undo or redo awaits, it removes the target's
    /// actions from the step in flight and the one it builds too, and what the operation registers
    /// for the target afterwards is dropped: a step it emptied never comes back.
    ///
    /// From a handler or an observer of an operation in progress it is the misuse
    /// ``Misuse/reentrantCall(_:during:)`` and nothing changes, except for a target that is being
    /// freed: Apple's `deinit { undoManager.removeAllActions(withTarget: self) }` runs whenever an
    /// undo handler releases the last reference to an object, and its actions can never run again
    /// (the stack holds targets weakly), so that call does nothing and is no misuse; the actions go
    /// as every freed target's do (see <doc:Performance>).
    ///
    /// The parameter is `Any`, as in Foundation; only an object can be a target, so a value removes
    /// nothing.
    ///
    /// - Parameter target: The object whose actions to remove.
    /// - Complexity: O(n) for the n stored actions: one pass, comparing a pointer per action.
    open func removeAllActions(withTarget target: Any) { _removeAllActions(withTarget: target) }

    // MARK: Names, discardable steps, user info

    /// Names the current undo step (the open top-level group of the current stack), for titles such
    /// as "Undo Typing". An empty name clears it; the last call wins.
    ///
    /// Inside an undo handler it names the redo step being built, which already carries the name of
    /// the step being undone: name a step where the user acts, not in a method that also runs as an
    /// inverse (see <doc:NamingUndoSteps>). With no group open and
    /// ``groupsByEvent`` on, it opens the event's automatic group and names that (right after a
    /// registration that continued a coalesced step, it names that step instead); with
    /// ``groupsByEvent`` off it is the misuse ``Misuse/noOpenGroup(_:)``. Ignored while registration
    /// is disabled.
    ///
    /// - Parameter actionName: The name, without the "Undo" or "Redo" verb.
    /// - Complexity: O(1).
    open func setActionName(_ actionName: String) { _setActionName(actionName) }

    /// The name of the step that ``undo()`` would undo (an open group counts); `""` when none.
    ///
    /// - Complexity: O(1) amortized.
    open var undoActionName: String { _undoActionName }

    /// The name of the step that ``redo()`` would redo; `""` when none.
    ///
    /// - Complexity: O(1) amortized.
    open var redoActionName: String { _redoActionName }

    /// Marks the current undo step as discardable (or not): a change that does not alter the
    /// document, such as a selection. The last call wins. Travels with the step between the stacks,
    /// and is reported by ``didCloseUndoGroupNotification``, ``didUndoChangeNotification`` and
    /// ``didRedoChangeNotification``. Acts on the same group as ``setActionName(_:)``, with the same
    /// rules.
    ///
    /// - Parameter discardable: Whether the step is discardable.
    /// - Complexity: O(1).
    open func setActionIsDiscardable(_ discardable: Bool) { _setActionIsDiscardable(discardable) }

    /// Whether the step that ``undo()`` would undo is discardable.
    ///
    /// - Complexity: O(1) amortized.
    open var undoActionIsDiscardable: Bool { _undoActionIsDiscardable }

    /// Whether the step that ``redo()`` would redo is discardable.
    ///
    /// - Complexity: O(1) amortized.
    open var redoActionIsDiscardable: Bool { _redoActionIsDiscardable }

    /// Stores `info` under `key` in the current undo step's user info; `nil` removes the key.
    /// Acts on the same group as ``setActionName(_:)``, with the same rules; travels with the step.
    ///
    /// - Parameters:
    ///   - info: The value, or `nil` to remove the key.
    ///   - key: The key.
    /// - Complexity: O(1) amortized.
    open func setActionUserInfoValue(_ info: Any?, forKey key: UserInfoKey) {
        _setActionUserInfoValue(info, forKey: key)
    }

    /// The value stored under `key` in the user info of the step that ``undo()`` would undo.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value, or `nil` when there is none.
    /// - Complexity: O(1) amortized.
    open func undoActionUserInfoValue(forKey key: UserInfoKey) -> Any? { _undoActionUserInfoValue(forKey: key) }

    /// The value stored under `key` in the user info of the step that ``redo()`` would redo.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value, or `nil` when there is none.
    /// - Complexity: O(1) amortized.
    open func redoActionUserInfoValue(forKey key: UserInfoKey) -> Any? { _redoActionUserInfoValue(forKey: key) }

    // MARK: Titles

    /// The title for an Undo menu item: "Undo" followed by the name of the step to undo, or a plain
    /// "Undo" when there is nothing to undo or the step has no name. Formed by
    /// ``undoMenuTitle(forUndoActionName:)`` from ``undoActionName`` (a subclass that overrides
    /// either changes the title, as with `UndoManager`).
    ///
    /// - Complexity: O(1) amortized.
    open var undoMenuItemTitle: String { _undoMenuItemTitle }

    /// The title for a Redo menu item: "Redo" followed by the name of the step to redo, or a plain
    /// "Redo". Formed by ``redoMenuTitle(forUndoActionName:)`` from ``redoActionName``.
    ///
    /// - Complexity: O(1) amortized.
    open var redoMenuItemTitle: String { _redoMenuItemTitle }

    /// The Undo title for an action name: "Undo Move" for "Move", "Undo" for "".
    ///
    /// Uses ``titleTemplates``; set other templates to translate, or override it in a subclass, as
    /// with `UndoManager`.
    ///
    /// - Parameter actionName: The step's name.
    /// - Returns: The title.
    /// - Complexity: O(m) for the m characters of the name.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        titleTemplates.undoTitle(for: actionName)
    }

    /// The Redo title for an action name: "Redo Move" for "Move", "Redo" for "".
    ///
    /// Uses ``titleTemplates``; set other templates to translate, or override it in a subclass, as
    /// with `UndoManager`.
    ///
    /// - Parameter actionName: The step's name.
    /// - Returns: The title.
    /// - Complexity: O(m) for the m characters of the name.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        titleTemplates.redoTitle(for: actionName)
    }

    // MARK: Description

    /// The type and its counts, for `print(stack)` and the debugger: "ActionStack(undo: 2, redo: 1,
    /// groupingLevel: 0)". The counts are of the steps as held; reading it changes nothing and
    /// posts nothing.
    ///
    /// - Complexity: O(1).
    open var description: String {
        "\(type(of: self))(undo: \(undoSide.closedCount), redo: \(redoSide.closedCount), "
            + "groupingLevel: \(groupingLevel))"
    }
}

/// How the automatic group of an event (see ``ActionStack/groupsByEvent``) is closed.
///
/// Frozen: the close is scheduled by the stack, on the run loop, or left to the program, which
/// calls ``ActionStack/endEvent()`` from wherever its events end (a task, an actor, a `readLine`
/// loop); no other case will be added, and a `switch` over it may be exhaustive.
@frozen
public enum AutomaticGroupClosing: Hashable, Sendable {
    /// Schedule the close on the current `RunLoop` in ``ActionStack/runLoopModes``, as Foundation
    /// does; ``ActionStack/endEvent()`` may still close it earlier.
    case runLoop
    /// Schedule nothing; the program calls ``ActionStack/endEvent()`` at the end of each event.
    /// For programs whose run loop never turns (a `readLine` loop, an async `main`).
    case manual
}

/// An undo or a redo.
enum Direction {
    case undo
    case redo
}

extension ActionStack: Hashable {
    /// Whether two references are the same stack (identity, as `NSObject`'s `==`).
    ///
    /// - Complexity: O(1).
    public static func == (lhs: ActionStack, rhs: ActionStack) -> Bool { lhs === rhs }

    /// Hashes the stack's identity.
    ///
    /// - Parameter hasher: The hasher.
    /// - Complexity: O(1).
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ActionStack: CustomStringConvertible {}

@available(*, unavailable, message: "Use an ActionStack from one isolation domain at a time.")
extension ActionStack: Sendable {}

extension ActionStack: CustomReflectable {
    /// What `dump(_:)`, a debugger and test failure messages show of a stack: its counts and state,
    /// as held (nothing is changed, nothing is posted).
    ///
    /// - Complexity: O(1).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "undoCount": undoSide.closedCount,
                "redoCount": redoSide.closedCount,
                "groupingLevel": currentSide.frames.count,
                "isUndoing": performingAsSeen == .undo,
                "isRedoing": performingAsSeen == .redo,
                "isClean": history.states.isClean,
                "isUndoRegistrationEnabled": registration.isEnabled,
            ],
            displayStyle: .class
        )
    }
}
