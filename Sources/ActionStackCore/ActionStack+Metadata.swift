// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
    /// A key for the user info of an undo step.
    public struct UserInfoKey: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
        /// The key's string.
        public let rawValue: String

        /// Creates a key from its string.
        /// - Parameter rawValue: The key's string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Creates a key from its string.
        /// - Parameter rawValue: The key's string.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Creates a key from a string literal.
        /// - Parameter value: The key's string.
        public init(stringLiteral value: String) { self.rawValue = value }
    }

    func _setActionName(_ actionName: String) {
        updateMetadata(.setActionName) { $0.name = actionName }
    }

    func _setActionIsDiscardable(_ discardable: Bool) {
        updateMetadata(.setActionIsDiscardable) { $0.isDiscardable = discardable }
    }

    func _setActionUserInfoValue(_ info: Any?, forKey key: UserInfoKey) {
        updateMetadata(.setActionUserInfoValue) { $0.userInfo[key] = info }
    }

    var _undoActionName: String { queryNext(undo: true) { $0?.name ?? "" } }
    var _redoActionName: String { queryNext(undo: false) { $0?.name ?? "" } }
    var _undoActionIsDiscardable: Bool { queryNext(undo: true) { $0?.isDiscardable ?? false } }
    var _redoActionIsDiscardable: Bool { queryNext(undo: false) { $0?.isDiscardable ?? false } }

    func _undoActionUserInfoValue(forKey key: UserInfoKey) -> Any? {
        queryNext(undo: true) { $0?.metadata?.userInfo[key] }
    }

    func _redoActionUserInfoValue(forKey key: UserInfoKey) -> Any? {
        queryNext(undo: false) { $0?.metadata?.userInfo[key] }
    }

    var _canUndo: Bool { queryNext(undo: true) { $0 != nil } }

    var _canRedo: Bool {
        enterCall()
        defer { leaveCall() }
        postCheckpoint()
        return nextRedoStep() != nil
    }

    // As in Foundation, the titles go through the open members, so a subclass that overrides
    // `undoActionName` or the title methods changes the titles.
    var _undoMenuItemTitle: String {
        enterCall()
        defer { leaveCall() }
        return undoMenuTitle(forUndoActionName: undoActionName)
    }

    var _redoMenuItemTitle: String {
        enterCall()
        defer { leaveCall() }
        return redoMenuTitle(forUndoActionName: redoActionName)
    }

    // MARK: Internals

    /// What the queries describe: the step that undo or redo would perform next.
    struct NextStep {
        let metadata: StepMetadata?
        var name: String { metadata?.name ?? "" }
        var isDiscardable: Bool { metadata?.isDiscardable ?? false }
    }

    /// Whether the stack may drop freed steps now: no client code runs in the middle of a call and
    /// no synchronous step is in flight (an awaited step between its awaits does not count: see
    /// `steps.isIdle` for "no step in flight at all").
    @inline(__always)
    var mayDropFreedSteps: Bool { activities.isEmpty && steps.performing == nil }

    /// Runs a query about the next undo (or redo) step as a call.
    @inline(__always)
    private func queryNext<T>(undo: Bool, _ body: (NextStep?) -> T) -> T {
        enterCall()
        defer { leaveCall() }
        return body(undo ? nextUndoStep() : nextRedoStep())
    }

    /// The step `undo()` would undo; freed steps on top are dropped when the stack is idle.
    func nextUndoStep() -> NextStep? { nextStep(of: undoSide, noticing: mayDropFreedSteps) }

    /// The step `redo()` would redo; freed steps on top are dropped when the stack is idle.
    func nextRedoStep() -> NextStep? { nextStep(of: redoSide, noticing: mayDropFreedSteps) }

    /// The next step of `side`: on the undo side an open group counts (with ``dropsEmptyGroups`` on,
    /// only when it holds a live action, since it would be dropped otherwise); then the newest
    /// closed step that still has a live action (or is a do-nothing step).
    ///
    /// - Complexity: O(1) amortized; when the stack may not drop steps now (`noticing` false, or a
    ///   group open) and remote changes wait, O(a · r) for the a actions of the steps read and the r
    ///   changes they have not seen.
    func nextStep(of side: Side, noticing: Bool) -> NextStep? {
        if side === undoSide && !side.frames.isEmpty {
            if !dropsEmptyGroups || side.hasLiveAction(from: side.openStart, to: side.end) {
                return NextStep(metadata: side.frameMetadata)
            }
            return newestLiveStep(of: side)
        }
        if noticing {
            dropDeadSteps(atTopOf: side)
            return side.steps.last.map { NextStep(metadata: $0.metadata) }
        }
        return newestLiveStep(of: side)
    }

    /// The newest closed step of `side` that the next press would perform, without dropping
    /// anything: one that has a live action or holds none and, when remote changes have been
    /// reported, that still has something to do once rebased past the changes it has not seen
    /// (read on copies: see ``History/newestStepPastUnseenChanges(of:)``). An asynchronous step
    /// whose actions are running keeps what it has not seen for a rollback: until it settles (its
    /// did-notification sees it settled), its side is read as held.
    private func newestLiveStep(of side: Side) -> NextStep? {
        if history.remote != nil && side.inFlight == 0 && steps.inFlight?.isMidway != true {
            return history.newestStepPastUnseenChanges(of: side).map { NextStep(metadata: side.steps[$0].metadata) }
        }
        var end = side.openStart
        var position = side.steps.count - 1
        while position >= 0 {
            let step = side.steps[position]
            let start = end - step.actionCount
            if side.stepIsLive(at: position, start: start) { return NextStep(metadata: step.metadata) }
            end = start
            position -= 1
        }
        return nil
    }

    /// Applies `change` to the metadata of the step being recorded: the open top-level group of
    /// the current stack, the step a coalescing registration continued, or a new automatic group.
    func updateMetadata(_ operation: OperationKey, _ change: (StepMetadata) -> Void) {
        enterCall()
        defer { leaveCall() }
        guard registration.isEnabled else { return }
        if refusesReentrantCall(operation) { return }
        let side = currentSide
        if steps.performing == nil && history.coalescer.isContinuing && side.frames.isEmpty && !side.steps.isEmpty {
            side.updateNewestStepMetadata(change)
            return
        }
        var opened = false
        if side.frames.isEmpty {
            guard groupsByEvent else {
                report(.noOpenGroup(operation.reported))
                return
            }
            openAutomaticGroup()
            opened = true
        }
        side.updateFrameMetadata(change)
        if opened { post(ActionStack.didOpenUndoGroupNotification) }
    }
}
