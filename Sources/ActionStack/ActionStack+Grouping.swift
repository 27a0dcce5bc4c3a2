import Foundation

extension ActionStack {
    /// The number of open groups on the current stack (the redo stack while undoing).
    ///
    /// Inside an undo handler it is 1 (the redo group being built); in will/did observers of undo
    /// and redo it is 0.
    ///
    /// - Complexity: O(1).
    public var groupingLevel: Int { currentHistory.depth }

    /// Opens a group; everything registered until the matching ``endUndoGrouping()`` is undone in
    /// one step. Groups nest.
    ///
    /// With ``groupsByEvent`` on and nothing open, this first opens the event's automatic group, so
    /// ``groupingLevel`` becomes 2. While registration is disabled, the call does nothing.
    ///
    /// Posts ``checkpointNotification`` (except when it opens a top-level group with
    /// ``groupsByEvent`` on), then ``didOpenUndoGroupNotification`` (except while undoing or
    /// redoing).
    ///
    /// - Complexity: O(1) amortized.
    public func beginUndoGrouping() {
        defer { didMutate() }
        guard disableCount == 0 else { return }
        if let activity = notifyingActivity ?? windowActivity {
            report(.reentrantCall(.beginUndoGrouping, during: activity))
            return
        }
        if currentHistory.depth == 0 && groupsByEvent {
            openAutomaticGroup()
            withWindow(.openingGroup) { post(ActionStack.didOpenUndoGroupNotification) }
        }
        if !(currentHistory.depth == 0 && groupsByEvent) { postCheckpoint() }
        // Read the state again: a checkpoint observer may have changed it.
        pushGroup(on: currentHistory, metadata: nil)
        if !isPerforming { post(ActionStack.didOpenUndoGroupNotification) }
    }

    /// Closes the innermost open group.
    ///
    /// A top-level group that closes with no action in it is dropped (ActionStack does not keep
    /// do-nothing undo steps; its notifications are still posted), and closing a top-level group
    /// on the undo stack trims the history to ``levelsOfUndo``. With nothing open it is the misuse
    /// ``Misuse/endWithoutBegin`` and nothing changes. While registration is disabled, the call
    /// does nothing.
    ///
    /// Posts ``checkpointNotification``, then (except while undoing or redoing)
    /// ``willCloseUndoGroupNotification`` and ``didCloseUndoGroupNotification``.
    ///
    /// - Complexity: O(1) amortized, plus O(k) for k actions trimmed; when a step is trimmed,
    ///   also O(t) for t distinct targets (a freed target's step must not push a live one out).
    public func endUndoGrouping() {
        defer { didMutate() }
        guard disableCount == 0 else { return }
        if let activity = notifyingActivity ?? windowActivity {
            report(.reentrantCall(.endUndoGrouping, during: activity))
            return
        }
        postCheckpoint()
        guard currentHistory.depth > protectedDepth else {
            report(.endWithoutBegin)
            return
        }
        closeInnermostGroup(of: currentHistory, notify: !isPerforming)
    }

    /// Ends the current event: closes the automatic group that ``groupsByEvent`` opened, exactly as
    /// the end of the run-loop pass would, and cancels that scheduled close.
    ///
    /// Programs with no turning run loop call it once per user event (after handling a line read
    /// with `readLine`, after each message of an async loop). It is safe to call at any time: with
    /// no automatic group pending it does nothing, and the run loop's close, if it comes later,
    /// finds nothing to close, so a group is never closed twice.
    ///
    /// ```swift
    /// stack.automaticGroupClosing = .manual
    /// while let line = readLine() {
    ///     handle(line)        // registers undo actions
    ///     stack.endEvent()    // one undo step per line
    /// }
    /// ```
    ///
    /// - Complexity: O(1) amortized, plus O(k) for k actions trimmed; when a step is trimmed,
    ///   also O(t) for t distinct targets (a freed target's step must not push a live one out).
    public func endEvent() {
        defer { didMutate() }
        if let activity = restructuringActivity {
            report(.reentrantCall(.endEvent, during: activity))
            return
        }
        guard let token = pendingCloseToken else { return }
        automaticCloseFired(token: token)
    }

    // MARK: Internals

    /// Activities during which a notification is posted in the middle of an operation.
    var windowActivity: Misuse.Activity? { windowDepth > 0 ? windowKind : nil }

    /// Runs `body` (a notification post) with restructuring calls refused.
    func withWindow(_ kind: Misuse.Activity, _ body: () -> Void) {
        let savedKind = windowKind
        windowDepth += 1
        windowKind = kind
        defer {
            windowDepth -= 1
            windowKind = savedKind
        }
        body()
    }

    /// Opens a group on `history`: a new top-level group (with `metadata`) when nothing is open,
    /// otherwise a group nested in the innermost open one.
    @discardableResult
    func pushGroup(on history: History, metadata: GroupMetadata?, stateID: UInt64? = nil) -> Group {
        let group: Group
        if let innermost = history.innermostOpen {
            group = Group()
            innermost.items.append(.group(group))
        } else {
            group = Group(metadata: metadata)
            group.stateID = stateID ?? makeStateID()
            history.groups.append(group)
        }
        history.openPath.append(group)
        return group
    }

    /// Opens the event's automatic group on the undo stack and schedules its close. Posts nothing.
    func openAutomaticGroup() {
        pushGroup(on: undoHistory, metadata: nil)
        nextCloseToken &+= 1
        let token = nextCloseToken
        pendingCloseToken = token
        guard automaticGroupClosing == .runLoop else { return }
        let reference = WeakStackReference(stack: self)
        RunLoop.current.perform(inModes: runLoopModes) {
            reference.stack?.automaticCloseFired(token: token)
        }
    }

    /// The end of the event whose automatic group has `token`.
    func automaticCloseFired(token: UInt64) {
        defer { didMutate() }
        guard pendingCloseToken == token else { return }
        pendingCloseToken = nil
        guard groupsByEvent, undoHistory.depth > 0, !isPerforming, windowDepth == 0 else { return }
        endUndoGrouping()
    }

    /// Closes the innermost open group of `history`. The caller has checked that one is open.
    ///
    /// A top-level group with no action is dropped; a top-level group closing on the undo stack
    /// ends the pending automatic close and trims to ``levelsOfUndo``.
    func closeInnermostGroup(of history: History, notify: Bool) {
        if notify {
            withWindow(.closingGroup) { post(ActionStack.willCloseUndoGroupNotification) }
        }
        let group = history.openPath.removeLast()
        group.isOpen = false
        var discardable = false
        if history.openPath.isEmpty {
            discardable = group.isDiscardable
            if group.actionCount == 0 { history.groups.removeLast() }
            if history === undoHistory {
                pendingCloseToken = nil
                trimToLimits()
            }
        }
        if notify { post(ActionStack.didCloseUndoGroupNotification, discardable: discardable) }
    }
}

/// A weak reference to a stack for the run-loop block that closes an automatic group.
///
/// `RunLoop.perform` takes a `@Sendable` block, but the block runs on the thread whose
/// `RunLoop.current` scheduled it, which is the thread the stack was being used from; the stack is
/// documented as usable from one isolation domain at a time, so no other thread touches it.
private struct WeakStackReference: @unchecked Sendable {
    weak var stack: ActionStack?
}
