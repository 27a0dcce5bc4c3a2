public import Foundation

/// A target/action undo manager with the behaviour of Foundation's `UndoManager`, for Linux and
/// Apple platforms.
///
/// Register the inverse of each change with ``registerUndo(withTarget:handler:)``; ``undo()`` runs
/// the newest group of inverses, and what they register while undoing becomes the redo step.
///
/// ```swift
/// let stack = ActionStack()
/// stack.groupsByEvent = false
///
/// final class Document { var text = "" }
/// let document = Document()
///
/// func setText(_ new: String) {
///     let old = document.text
///     stack.registerUndo(withTarget: document) { doc in setText(old) }
///     document.text = new
/// }
///
/// stack.beginUndoGrouping()
/// setText("Hello")
/// stack.setActionName("Typing")
/// stack.endUndoGrouping()
/// stack.undoMenuItemTitle   // "Undo Typing"
/// stack.undo()              // document.text == ""
/// ```
///
/// Code written for Apple's `UndoManager` compiles against this type with
/// `typealias UndoManager = ActionStack` and behaves the same, except where ActionStack
/// deliberately does better (see "Coming from UndoManager" in the documentation): targets are
/// held weakly, misuse is reported instead of killing the process, and a group that closes with no
/// action in it is dropped instead of becoming a do-nothing undo step.
///
/// ## Grouping
///
/// Every undo step is a top-level *group*; groups nest. With ``groupsByEvent`` on (the default),
/// the first registration of an event opens a group automatically and the end of the current
/// `RunLoop` pass closes it. Programs with no run loop (a terminal loop on `readLine`, an async
/// `main`, Swift concurrency on Linux) end the event themselves with ``endEvent()``, which cannot
/// close the group twice; set ``automaticGroupClosing`` to ``AutomaticGroupClosing/manual`` so
/// nothing is scheduled on a run loop that never turns.
///
/// ## Notifications
///
/// The eight notifications of `UndoManager` (``checkpointNotification``,
/// ``didOpenUndoGroupNotification``, ``willCloseUndoGroupNotification``,
/// ``didCloseUndoGroupNotification``, ``willUndoChangeNotification``,
/// ``didUndoChangeNotification``, ``willRedoChangeNotification``, ``didRedoChangeNotification``)
/// are posted synchronously on `NotificationCenter.default` with the stack as `object`, in
/// Foundation's order. A program that does not need them sets ``postsNotifications`` to `false`.
///
/// ## Misuse
///
/// Calls that Foundation answers with an uncatchable exception (ending a group that was never
/// begun, undoing from inside an undo, ...) are reported as a ``Misuse`` value and leave the stack
/// exactly as it was. By default the stack reports and carries on: the misuse is stored in
/// ``lastMisuse`` and passed to ``onMisuse``. Set ``misusePolicy`` to ``MisusePolicy/trap`` to stop
/// the process instead, as Foundation does.
///
/// ## Concurrency
///
/// `ActionStack` is not `Sendable`: use each stack from one isolation domain at a time (the main
/// actor, one actor, one thread). Handlers and notification observers run synchronously on the
/// caller's thread. The automatic close of ``groupsByEvent`` is scheduled on `RunLoop.current` of
/// the thread that opened the group and runs on that same thread, so it fits code on a thread
/// whose run loop turns (the main thread of a run-loop program); elsewhere use ``endEvent()``.
///
/// ## Performance
///
/// Registration, undo and redo cost O(1) amortized per action; trimming to ``levelsOfUndo`` costs
/// O(1) per dropped action; ``removeAllActions(withTarget:)`` is one pass over what is stored.
/// Queries (``canUndo``, counts, names, titles) cost O(number of distinct targets), the price of
/// noticing exactly that a weakly held target has died; undo and redo look only at the steps they
/// perform, and trimming looks at every target only when it drops a step.
open class ActionStack {
    // MARK: Stored state
    //
    // Stored properties are marked `@exclusivity(unchecked)`: Swift's dynamic exclusivity check on
    // class properties costs about 140 instructions per access, around 50 accesses per
    // register + undo + redo, which was a third of the cost of an undo step (measured with
    // callgrind). The check is not needed here: a stack is confined to one isolation domain, and no
    // client code runs inside a modify access of the stack's own storage (handlers run on a group
    // detached from the history; the removal callbacks touch other properties).

    /// The undo stack.
    let undoHistory = History()
    /// The redo stack.
    let redoHistory = History()
    /// Distinct targets of the stored actions.
    @exclusivity(unchecked) var registry = TargetRegistry()

    /// Whether an undo is in progress (from its will-notification to its did-notification).
    @exclusivity(unchecked) public internal(set) var isUndoing = false
    /// Whether a redo is in progress (from its will-notification to its did-notification).
    @exclusivity(unchecked) public internal(set) var isRedoing = false

    /// The disable counter: registration is enabled while it is zero.
    @exclusivity(unchecked) var disableCount = 0

    /// Groups on the current side at this depth or less belong to an undo or redo in progress and
    /// cannot be closed by a handler.
    @exclusivity(unchecked) var protectedDepth = 0
    /// True while undo or redo runs its handlers (its internal group is open). Between its will-
    /// and did-notifications but outside this window, an observer cannot register or group.
    @exclusivity(unchecked) var isRunningHandlers = false
    /// Nonzero while a notification is posted in the middle of an operation
    /// (`willCloseUndoGroupNotification` before a group closes, the automatic group's
    /// `didOpenUndoGroupNotification` before `beginUndoGrouping()` opens its own group): calls that
    /// restructure the stacks are refused then.
    @exclusivity(unchecked) var windowDepth = 0
    /// What the innermost such window is.
    @exclusivity(unchecked) var windowKind: Misuse.Activity = .closingGroup

    /// The automatic group of the current event awaiting its close; `nil` when none is pending.
    @exclusivity(unchecked) var pendingCloseToken: UInt64?
    @exclusivity(unchecked) var nextCloseToken: UInt64 = 0

    /// Whether every mutating call ends with an invariant check (a test hook).
    @exclusivity(unchecked) var checksInvariants = false

    /// Whether the first registration of an event opens a group that closes at the end of the event.
    ///
    /// Default `true`. Setting it only flips the flag: a group already open stays open, and if the
    /// flag is off when the scheduled close comes, the close does nothing and the program must
    /// close the group itself.
    ///
    /// - Complexity: O(1).
    @exclusivity(unchecked) public var groupsByEvent = true

    /// The run-loop modes in which the automatic close of ``groupsByEvent`` is scheduled.
    ///
    /// Default `[.default]`.
    @exclusivity(unchecked) public var runLoopModes: [RunLoop.Mode] = [.default]

    /// How the automatic group of an event is closed: by the run loop (default) or by the program
    /// calling ``endEvent()``.
    @exclusivity(unchecked) public var automaticGroupClosing: AutomaticGroupClosing = .runLoop

    /// Whether the stack posts its notifications on `NotificationCenter.default`.
    ///
    /// Default `true`, as Foundation. Posting costs about a microsecond per notification on Linux,
    /// which dominates the cost of a registration; turn it off when nothing observes them.
    @exclusivity(unchecked) public var postsNotifications = true

    /// What the stack does when it is misused: report and carry on (default) or trap.
    @exclusivity(unchecked) public var misusePolicy: MisusePolicy = .report

    /// The most recent misuse, when ``misusePolicy`` is ``MisusePolicy/report``.
    ///
    /// Each misuse replaces it; set it to `nil` to clear it.
    @exclusivity(unchecked) public var lastMisuse: Misuse?

    /// Called with each misuse, when ``misusePolicy`` is ``MisusePolicy/report``.
    @exclusivity(unchecked) public var onMisuse: ((Misuse) -> Void)?

    /// The maximum number of top-level undo groups kept; 0 (the default) means no limit.
    ///
    /// When a top-level group closes on the undo stack and there are more than the limit, the
    /// oldest groups are dropped silently. Lowering the limit trims at once. The redo stack is
    /// never trimmed.
    ///
    /// - Complexity: Setting it is O(k) for k dropped actions, plus O(t) for t distinct targets
    ///   when it drops any.
    @exclusivity(unchecked) public var levelsOfUndo = 0 {
        didSet {
            if levelsOfUndo < 0 { levelsOfUndo = 0 }
            trimToLimits()
            didMutate()
        }
    }

    /// The largest total cost of the undo stack, counted from the costs that registrations state
    /// with ``RegistrationOptions/cost``; 0 (the default) means no limit.
    ///
    /// When a top-level group closes on the undo stack (and whenever the limit changes), the oldest
    /// whole steps are dropped while the total is over the limit; a step is never split, and the
    /// newest closed step is always kept. The redo stack is not limited. Works alongside
    /// ``levelsOfUndo``.
    ///
    /// - Complexity: Setting it is O(k) for k dropped actions, plus O(t) for t distinct targets
    ///   when it drops any.
    @exclusivity(unchecked) public var maximumCost = 0 {
        didSet {
            if maximumCost < 0 { maximumCost = 0 }
            trimToLimits()
            didMutate()
        }
    }

    /// The clock that coalescing windows are measured with. Replace it in tests so they need not
    /// sleep.
    @exclusivity(unchecked) public var coalescingClock: () -> ContinuousClock.Instant = { ContinuousClock.now }

    /// The wording of the menu titles; English by default.
    @exclusivity(unchecked) public var titleTemplates = TitleTemplates.english

    /// The step that coalescing registrations may join.
    @exclusivity(unchecked) var coalescing: CoalescingState?

    // Clean state: every document state has an id; see ActionStack+CleanState.swift.
    @exclusivity(unchecked) var nextStateID: UInt64 = 1
    /// The state with the undo stack empty.
    @exclusivity(unchecked) var baseStateID: UInt64 = 0
    /// The state marked clean; a new stack is clean.
    @exclusivity(unchecked) var cleanStateID: UInt64 = 0
    /// Whether the stack was clean when it last told its observers.
    @exclusivity(unchecked) var lastReportedClean = true

    // Observation: see ActionStack+Observation.swift.
    let stateObservers = ObserverList<State>()
    @exclusivity(unchecked) var lastPublishedState: State?
    /// Nonzero while a multi-step operation (a jump) runs: observers hear once, at the end.
    @exclusivity(unchecked) var batchDepth = 0
    @exclusivity(unchecked) var isPublishing = false

    /// Creates an empty stack: ``levelsOfUndo`` 0, ``groupsByEvent`` on, registration enabled.
    public init() {}

    // MARK: Titles that subclasses may override

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

    // MARK: Internal helpers

    /// The side that registration, grouping and the metadata setters act on: the redo stack while
    /// undoing, the undo stack otherwise.
    var currentHistory: History { isUndoing ? redoHistory : undoHistory }

    /// Whether an undo or redo is in progress.
    var isPerforming: Bool { isUndoing || isRedoing }
}

/// How the automatic group of an event (see ``ActionStack/groupsByEvent``) is closed.
public enum AutomaticGroupClosing: Hashable, Sendable {
    /// Schedule the close on the current `RunLoop` in ``ActionStack/runLoopModes``, as Foundation
    /// does; ``ActionStack/endEvent()`` may still close it earlier.
    case runLoop
    /// Schedule nothing; the program calls ``ActionStack/endEvent()`` at the end of each event.
    /// For programs whose run loop never turns (a `readLine` loop, an async `main`).
    case manual
}

@available(*, unavailable, message: "Use an ActionStack from one isolation domain at a time.")
extension ActionStack: Sendable {}
