// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension ActionStack {
    /// A call that breaks the rules of the undo stack.
    ///
    /// Foundation's `UndoManager` raises an exception for each of these, which kills a Swift
    /// process. `ActionStack` names the mistake, leaves the stack exactly as it was (nothing lost,
    /// nothing half-done, coalescing not ended, nothing published, the clean point not moved), and
    /// reports it according to ``ActionStack/misusePolicy``.
    public enum Misuse: Error, Hashable, Sendable, CustomStringConvertible {
        /// `endUndoGrouping()` with no group open (or only the group that an undo or redo in
        /// progress is building).
        case endWithoutBegin
        /// `enableUndoRegistration()` with no matching `disableUndoRegistration()`.
        case enableWithoutDisable
        /// `undo()`, `redo()` or `jump(to:)` with more than one group open on the undo stack.
        case nestedGroupsOpen(Operation, groupingLevel: Int)
        /// `undoNestedGroup()` when the newest item of the open group is not a closed group.
        case undoNestedGroupWithOpenGroup
        /// `redo()` from inside an undo (a handler, or an observer of its notifications).
        case redoWhileUndoing
        /// A registration or a metadata setter with no group open and `groupsByEvent` off.
        case noOpenGroup(Operation)
        /// A call that the stack cannot take while it is in the middle of `activity` (see the
        /// table in <doc:Reentrancy>).
        case reentrantCall(Operation, during: Activity)
        /// `performUndo()`, `performRedo()`, `performJump(to:)` or `asyncGroup(named:_:)` awaited by a
        /// handler of the asynchronous operation in flight on the same stack, or by the body of the
        /// asynchronous group that holds the turn: it would wait for itself. (The synchronous
        /// `undo()`, `redo()` and `jump(to:)` do not wait: from a group's body they queue.)
        case awaitsOwnOperation(Operation)
        /// An undo, redo or jump while the stack holds a broken step (see
        /// ``ActionStack/brokenStep``): discard or retry it first.
        case stepIsBroken(Operation)
        /// A synchronous `undo()`, `redo()` or `jump(to:)` that would start an asynchronous
        /// operation (the step holds an asynchronous action, or an operation is in flight), called
        /// off the main thread: await ``ActionStack/performUndo(isolation:)`` and its siblings there.
        case needsAwait(Operation)
        /// `undoNestedGroup()` on a group with an asynchronous action, or while an asynchronous
        /// operation is in flight: it has no asynchronous form.
        case notWhileAsync(Operation)
        /// ``ActionStack/restoreHistory(_:resolvingTargets:)`` on a stack that holds a history (a
        /// step, a branch, an open group, an asynchronous operation): a restore never mixes with
        /// what is there.
        case historyNotEmpty(Operation)

        /// The public call that was misused.
        public enum Operation: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
            case registerUndo = "registerUndo(withTarget:handler:)"
            case setValue = "setValue(_:for:on:actionName:)"
            case beginUndoGrouping = "beginUndoGrouping()"
            case group = "group(named:_:)"
            case endUndoGrouping = "endUndoGrouping()"
            case enableUndoRegistration = "enableUndoRegistration()"
            case endEvent = "endEvent()"
            case undo = "undo()"
            case undoNestedGroup = "undoNestedGroup()"
            case redo = "redo()"
            case jump = "jump(to:)"
            case removeAllActions = "removeAllActions()"
            case removeAllActionsWithTarget = "removeAllActions(withTarget:)"
            case setActionName = "setActionName(_:)"
            case setActionIsDiscardable = "setActionIsDiscardable(_:)"
            case setActionUserInfoValue = "setActionUserInfoValue(_:forKey:)"
            case markClean = "markClean()"
            case jumpToNode = "jump(toNode:)"
            case selectRedoBranch = "selectRedoBranch(_:)"
            case earlier = "earlier(_:)"
            case later = "later(_:)"
            case savedHistory = "savedHistory(maximumSteps:)"
            case restoreHistory = "restoreHistory(_:resolvingTargets:)"
            case applyRemoteChange = "applyRemoteChange(_:version:_:)"

            /// The Swift spelling of the call.
            public var description: String { rawValue }
        }

        /// What the stack was doing when a call came that it cannot take then.
        public enum Activity: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
            /// Running the handlers of an undo.
            case undoing = "an undo is running its handlers"
            /// Running the handlers of a redo.
            case redoing = "a redo is running its handlers"
            /// Posting `willUndoChangeNotification` or `didUndoChangeNotification`.
            case notifyingUndo = "an undo is posting its will/did notifications"
            /// Posting `willRedoChangeNotification` or `didRedoChangeNotification`.
            case notifyingRedo = "a redo is posting its will/did notifications"
            /// Posting `willCloseUndoGroupNotification`.
            case closingGroup = "a group is about to close (willCloseUndoGroupNotification)"
            /// Posting the automatic group's `didOpenUndoGroupNotification` inside
            /// `beginUndoGrouping()`, before the explicit group opens.
            case openingGroup = "beginUndoGrouping() is opening the automatic group (didOpenUndoGroupNotification)"
            /// Running the inverse actions of a scoped group whose body threw.
            case rollingBack = "a scoped group is rolling back what its failed body registered"
            /// `undo()` posting its notifications before the step (closing the open group, checkpoints).
            case preparingUndo = "undo() is closing the open group and choosing the step to undo"
            /// `redo()` posting its notifications before the step.
            case preparingRedo = "redo() is closing the open group and choosing the step to redo"
            /// `jump(to:)` undoing or redoing its steps.
            case jumping = "jump(to:) is moving through the history"
            /// A scoped group closing its groups, after its body returned or threw.
            case closingScope = "group(named:_:) is closing its groups"
            /// Running the closure that applies a remote change to the model.
            case applyingRemoteChange = "applyRemoteChange(_:version:_:) is applying a change to the model"

            /// A sentence fragment for the misuse message.
            public var description: String { rawValue }
        }

        /// The call that was misused.
        public var operation: Operation {
            switch self {
            case .endWithoutBegin: .endUndoGrouping
            case .enableWithoutDisable: .enableUndoRegistration
            case .nestedGroupsOpen(let operation, _): operation
            case .undoNestedGroupWithOpenGroup: .undoNestedGroup
            case .redoWhileUndoing: .redo
            case .noOpenGroup(let operation): operation
            case .reentrantCall(let operation, _): operation
            case .awaitsOwnOperation(let operation): operation
            case .stepIsBroken(let operation): operation
            case .needsAwait(let operation): operation
            case .notWhileAsync(let operation): operation
            case .historyNotEmpty(let operation): operation
            }
        }

        /// What was called and what was wrong.
        public var description: String {
            switch self {
            case .endWithoutBegin:
                "endUndoGrouping() called with no matching beginUndoGrouping()"
            case .enableWithoutDisable:
                "enableUndoRegistration() called with no matching disableUndoRegistration()"
            case .nestedGroupsOpen(let operation, let level):
                "\(operation) was called with too many nested undo groups (grouping level \(level)); "
                    + "close the inner groups with endUndoGrouping() first"
            case .undoNestedGroupWithOpenGroup:
                "undoNestedGroup() was called while the newest group is still open; "
                    + "call endUndoGrouping() before calling this method"
            case .redoWhileUndoing:
                "redo() was called while undoing; do not invoke this method while undoing"
            case .noOpenGroup(let operation):
                "\(operation) was called with no undo group open and groupsByEvent off; "
                    + (operation == .registerUndo || operation == .setValue
                        ? "must begin a group before registering undo"
                        : "must begin a group before naming or marking a step")
            case .reentrantCall(let operation, let activity):
                "\(operation) was called while \(activity); the call was ignored"
            case .awaitsOwnOperation(let operation):
                "the awaited form of \(operation) was called from the task of the operation or asynchronous group "
                    + "in flight on the same stack, which would wait for itself; the call was ignored"
            case .stepIsBroken(let operation):
                "\(operation) was called while the stack holds a broken step; "
                    + "call discardBrokenStep() or retryBrokenStep() first"
            case .needsAwait(let operation):
                "\(operation) would start an asynchronous operation but was called off the main thread; "
                    + "await its asynchronous form (performUndo(), performRedo(), performJump(to:)) instead"
            case .notWhileAsync(let operation):
                "\(operation) was called on a group with an asynchronous action or while an asynchronous "
                    + "operation is in flight; it has no asynchronous form, and the call was ignored"
            case .historyNotEmpty(let operation):
                "\(operation) was called on a stack that holds a history; restore into an empty stack "
                    + "(call removeAllActions() first), and the call was ignored"
            }
        }
    }

    /// What a stack does when it is misused.
    public enum MisusePolicy: Hashable, Sendable {
        /// The default: leave the stack as it was, store the misuse in ``ActionStack/lastMisuse``,
        /// pass it to ``ActionStack/onMisuse``, and write one line to standard error that starts
        /// with `ActionStack misuse:`. Code that would have crashed on Apple platforms never loses an
        /// undo step without a trace.
        case log
        /// As ``log``, without the line on standard error: for programs that handle every misuse
        /// themselves through ``ActionStack/onMisuse`` or ``ActionStack/lastMisuse``.
        case report
        /// Stop the process with the misuse's description, as Foundation's exception does.
        case trap
    }

    /// Whether the activity the stack is in refuses `operation` (the re-entrancy table); when it
    /// does, the ``Misuse/reentrantCall(_:during:)`` is reported. Entry points ask before they
    /// change anything.
    @inline(__always)
    func refusesReentrantCall(_ operation: Misuse.Operation) -> Bool {
        if let activity = activities.refusing(operation) {
            report(.reentrantCall(operation, during: activity))
            return true
        }
        guard operations != nil, activities.isEmpty, let run = operations?.runBelongsToCurrentTask() else {
            return false
        }
        // The body of an asynchronous group records changes as any code does.
        if run.direction == nil && run.phase == .running { return false }
        // A handler of the asynchronous operation in flight, between its own awaits: the rows of a
        // synchronous undo's handlers (or of a rollback) apply.
        let activity: Misuse.Activity =
            run.phase == .rollingBack ? .rollingBack : run.direction == .undo ? .undoing : .redoing
        guard !Activities.allows(operation, during: activity) else { return false }
        report(.reentrantCall(operation, during: activity))
        return true
    }

    /// Reports `misuse` according to ``misusePolicy``. The caller has changed nothing.
    func report(_ misuse: Misuse) {
        switch misusePolicy {
        case .trap:
            fatalError("ActionStack misuse: \(misuse)")
        case .log:
            FileHandle.standardError.write(Data("ActionStack misuse: \(misuse)\n".utf8))
        case .report:
            break
        }
        lastMisuse = misuse
        guard !isReportingMisuse, let onMisuse else { return }
        isReportingMisuse = true
        defer { isReportingMisuse = false }
        onMisuse(misuse)
    }
}
