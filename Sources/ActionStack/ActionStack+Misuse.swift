extension ActionStack {
    /// A call that breaks the rules of the undo stack.
    ///
    /// Foundation's `UndoManager` raises an exception for each of these, which kills a Swift
    /// process. `ActionStack` names the mistake, leaves the stack exactly as it was, and reports it
    /// according to ``ActionStack/misusePolicy``.
    public enum Misuse: Error, Hashable, Sendable, CustomStringConvertible {
        /// `endUndoGrouping()` with no group open (or only the group that an undo or redo in
        /// progress is building).
        case endWithoutBegin
        /// `enableUndoRegistration()` with no matching `disableUndoRegistration()`.
        case enableWithoutDisable
        /// `undo()` with more than one group open on the undo stack.
        case undoWithNestedGroupsOpen(groupingLevel: Int)
        /// `undoNestedGroup()` when the newest item is not a closed group.
        case undoNestedGroupWithOpenGroup
        /// `redo()` from inside an undo.
        case redoWhileUndoing
        /// A registration or a metadata setter with no group open and `groupsByEvent` off.
        case noOpenGroup(Operation)
        /// A call that would restructure the stacks while an undo or redo is in progress (from a
        /// handler or a will/did observer), or while `willCloseUndoGroupNotification` observers run.
        case reentrantCall(Operation, during: Activity)

        /// The public call that was misused.
        public enum Operation: String, Hashable, Sendable, CustomStringConvertible {
            case registerUndo = "registerUndo(withTarget:handler:)"
            case beginUndoGrouping = "beginUndoGrouping()"
            case endUndoGrouping = "endUndoGrouping()"
            case enableUndoRegistration = "enableUndoRegistration()"
            case endEvent = "endEvent()"
            case undo = "undo()"
            case undoNestedGroup = "undoNestedGroup()"
            case redo = "redo()"
            case removeAllActions = "removeAllActions()"
            case removeAllActionsWithTarget = "removeAllActions(withTarget:)"
            case setActionName = "setActionName(_:)"
            case setActionIsDiscardable = "setActionIsDiscardable(_:)"
            case setActionUserInfoValue = "setActionUserInfoValue(_:forKey:)"
            case jump = "jump(to:)"

            /// The Swift spelling of the call.
            public var description: String { rawValue }
        }

        /// What the stack was doing when a re-entrant call came.
        public enum Activity: String, Hashable, Sendable, CustomStringConvertible {
            /// Running undo handlers.
            case undoing = "an undo is running its handlers"
            /// Running redo handlers.
            case redoing = "a redo is running its handlers"
            /// Posting `willUndoChangeNotification` or `didUndoChangeNotification`.
            case notifyingUndo = "an undo is posting its will/did notifications"
            /// Posting `willRedoChangeNotification` or `didRedoChangeNotification`.
            case notifyingRedo = "a redo is posting its will/did notifications"
            /// Posting `willCloseUndoGroupNotification`.
            case closingGroup = "a group is about to close (willCloseUndoGroupNotification)"
            /// Running the inverse actions of a scoped group whose body threw.
            case rollingBack = "a scoped group is rolling back what its failed body registered"
            /// Posting the automatic group's `didOpenUndoGroupNotification` inside
            /// `beginUndoGrouping()`, before the explicit group opens.
            case openingGroup = "beginUndoGrouping() is opening the automatic group (didOpenUndoGroupNotification)"

            /// A sentence fragment for the misuse message.
            public var description: String { rawValue }
        }

        /// The call that was misused.
        public var operation: Operation {
            switch self {
            case .endWithoutBegin: .endUndoGrouping
            case .enableWithoutDisable: .enableUndoRegistration
            case .undoWithNestedGroupsOpen: .undo
            case .undoNestedGroupWithOpenGroup: .undoNestedGroup
            case .redoWhileUndoing: .redo
            case .noOpenGroup(let operation): operation
            case .reentrantCall(let operation, _): operation
            }
        }

        /// What was called and what was wrong.
        public var description: String {
            switch self {
            case .endWithoutBegin:
                "endUndoGrouping() called with no matching beginUndoGrouping()"
            case .enableWithoutDisable:
                "enableUndoRegistration() called with no matching disableUndoRegistration()"
            case .undoWithNestedGroupsOpen(let level):
                "undo() was called with too many nested undo groups (grouping level \(level)); "
                    + "close the inner groups with endUndoGrouping() first"
            case .undoNestedGroupWithOpenGroup:
                "undoNestedGroup() was called while the newest group is still open; "
                    + "call endUndoGrouping() before calling this method"
            case .redoWhileUndoing:
                "redo() was called while undoing; do not invoke this method while undoing"
            case .noOpenGroup(let operation):
                "\(operation) was called with no undo group open and groupsByEvent off; "
                    + (operation == .registerUndo
                        ? "must begin a group before registering undo"
                        : "must begin a group before naming or marking a step")
            case .reentrantCall(let operation, let activity):
                "\(operation) was called while \(activity); the call was ignored"
            }
        }
    }

    /// What a stack does when it is misused.
    public enum MisusePolicy: Hashable, Sendable {
        /// Leave the stack as it was, store the misuse in ``ActionStack/lastMisuse`` and pass it
        /// to ``ActionStack/onMisuse``; the call returns normally.
        case report
        /// Stop the process with the misuse's description, as Foundation does.
        case trap
    }

    /// Reports `misuse` according to ``misusePolicy``. The caller has changed nothing.
    func report(_ misuse: Misuse) {
        switch misusePolicy {
        case .report:
            lastMisuse = misuse
            onMisuse?(misuse)
        case .trap:
            fatalError("ActionStack misuse: \(misuse)")
        }
    }

    /// Reports a re-entrant `operation` and returns `true` when an undo or redo is in progress or
    /// a group is about to close; returns `false` when the call may go ahead.
    func refuseRestructuring(_ operation: Misuse.Operation) -> Bool {
        if let activity = restructuringActivity {
            report(.reentrantCall(operation, during: activity))
            return true
        }
        return false
    }

    /// What forbids restructuring the stacks now, if anything.
    var restructuringActivity: Misuse.Activity? {
        if isUndoing { return isRunningHandlers ? .undoing : .notifyingUndo }
        if isRedoing { return isRunningHandlers ? .redoing : .notifyingRedo }
        if windowDepth > 0 { return windowKind }
        return nil
    }

    /// The activity that forbids adding to the stacks: an undo or redo that is posting its will/did
    /// notifications (it has no group open to receive a registration).
    var notifyingActivity: Misuse.Activity? {
        if isUndoing && !isRunningHandlers { return .notifyingUndo }
        if isRedoing && !isRunningHandlers { return .notifyingRedo }
        return nil
    }
}
