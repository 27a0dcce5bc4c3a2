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
    /// reports it according to ``ActionStack/misusePolicy``. <doc:Misuse> lists every misuse, why it
    /// is refused and what to call instead.
    ///
    /// Extensible: new misuses may be added in any release; do not switch exhaustively. Compare with
    /// a static member (`misuse == .endWithoutBegin`, or `case .endWithoutBegin:` in a `switch`
    /// with a `default`), and read what a misuse carries through ``operation``, ``activity`` and
    /// ``groupingLevel``. The ``description`` is stable.
    public struct Misuse: Error, Hashable, Sendable, CustomStringConvertible {
        /// The misuses this version knows, with what each carries.
        private enum Code: Hashable, Sendable {
            case endWithoutBegin
            case enableWithoutDisable
            case nestedGroupsOpen(Operation, groupingLevel: Int)
            case undoNestedGroupWithOpenGroup
            case redoWhileUndoing
            case noOpenGroup(Operation)
            case reentrantCall(Operation, during: Activity)
            case awaitsOwnOperation(Operation)
            case stepIsBroken(Operation)
            case needsAwait(Operation)
            case notWhileAsync(Operation)
            case historyNotEmpty(Operation)
        }

        private let code: Code

        private init(_ code: Code) { self.code = code }

        /// `endUndoGrouping()` with no group open (or only the group that an undo or redo in
        /// progress is building).
        public static var endWithoutBegin: Misuse { Misuse(.endWithoutBegin) }

        /// `enableUndoRegistration()` with no matching `disableUndoRegistration()`.
        public static var enableWithoutDisable: Misuse { Misuse(.enableWithoutDisable) }

        /// `undo()`, `redo()` or `jump(to:)` with more than one group open on the undo stack.
        ///
        /// - Parameters:
        ///   - operation: The call.
        ///   - groupingLevel: The number of groups open.
        /// - Returns: The misuse.
        public static func nestedGroupsOpen(_ operation: Operation, groupingLevel: Int) -> Misuse {
            Misuse(.nestedGroupsOpen(operation, groupingLevel: groupingLevel))
        }

        /// `undoNestedGroup()` when the newest item of the open group is not a closed group.
        public static var undoNestedGroupWithOpenGroup: Misuse { Misuse(.undoNestedGroupWithOpenGroup) }

        /// `redo()` from inside an undo (a handler, or an observer of its notifications).
        public static var redoWhileUndoing: Misuse { Misuse(.redoWhileUndoing) }

        /// A registration or a metadata setter with no group open and `groupsByEvent` off.
        ///
        /// - Parameter operation: The call.
        /// - Returns: The misuse.
        public static func noOpenGroup(_ operation: Operation) -> Misuse { Misuse(.noOpenGroup(operation)) }

        /// A call that the stack cannot take while it is in the middle of `activity` (see the
        /// table in <doc:Reentrancy>).
        ///
        /// - Parameters:
        ///   - operation: The call.
        ///   - activity: What the stack was doing.
        /// - Returns: The misuse.
        public static func reentrantCall(_ operation: Operation, during activity: Activity) -> Misuse {
            Misuse(.reentrantCall(operation, during: activity))
        }

        /// `performUndo()`, `performRedo()`, `performJump(to:)` or `asyncGroup(named:_:)` awaited by a
        /// handler of the asynchronous operation in flight on the same stack, or by the body of the
        /// asynchronous group that holds the turn: it would wait for itself. (The synchronous
        /// `undo()`, `redo()` and `jump(to:)` do not wait: from a group's body they queue.)
        ///
        /// - Parameter operation: The call.
        /// - Returns: The misuse.
        public static func awaitsOwnOperation(_ operation: Operation) -> Misuse {
            Misuse(.awaitsOwnOperation(operation))
        }

        /// An undo, redo or jump while the stack holds a broken step (see
        /// ``ActionStack/brokenStep``): discard or retry it first.
        ///
        /// - Parameter operation: The call.
        /// - Returns: The misuse.
        public static func stepIsBroken(_ operation: Operation) -> Misuse { Misuse(.stepIsBroken(operation)) }

        /// A synchronous `undo()`, `redo()` or `jump(to:)` that would start an asynchronous
        /// operation (the step holds an asynchronous action, or an operation is in flight), called
        /// off the main thread: await ``ActionStack/performUndo(isolation:)`` and its siblings there.
        ///
        /// - Parameter operation: The call.
        /// - Returns: The misuse.
        public static func needsAwait(_ operation: Operation) -> Misuse { Misuse(.needsAwait(operation)) }

        /// `undoNestedGroup()` on a group with an asynchronous action, or `undoNestedGroup()` or
        /// `selectRedoBranch(_:)` while an asynchronous operation is in flight: it has no
        /// asynchronous form.
        ///
        /// - Parameter operation: The call.
        /// - Returns: The misuse.
        public static func notWhileAsync(_ operation: Operation) -> Misuse { Misuse(.notWhileAsync(operation)) }

        /// ``ActionStack/restoreHistory(_:resolvingTargets:)`` on a stack that holds a history (a
        /// step, a branch, an open group, an asynchronous operation): a restore never mixes with
        /// what is there.
        ///
        /// - Parameter operation: The call.
        /// - Returns: The misuse.
        public static func historyNotEmpty(_ operation: Operation) -> Misuse { Misuse(.historyNotEmpty(operation)) }

        /// The call that was misused.
        public var operation: Operation {
            switch code {
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

        /// For ``reentrantCall(_:during:)``, what the stack was doing; nil for every other misuse.
        public var activity: Activity? {
            if case .reentrantCall(_, let activity) = code { activity } else { nil }
        }

        /// For ``nestedGroupsOpen(_:groupingLevel:)``, the number of groups that were open; nil for
        /// every other misuse.
        public var groupingLevel: Int? {
            if case .nestedGroupsOpen(_, let level) = code { level } else { nil }
        }

        /// What was called and what was wrong.
        public var description: String {
            switch code {
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

        /// Which misuse this is, without what it carries: `misuse.kind == .reentrantCall`.
        public var kind: Kind {
            switch code {
            case .endWithoutBegin: .endWithoutBegin
            case .enableWithoutDisable: .enableWithoutDisable
            case .nestedGroupsOpen: .nestedGroupsOpen
            case .undoNestedGroupWithOpenGroup: .undoNestedGroupWithOpenGroup
            case .redoWhileUndoing: .redoWhileUndoing
            case .noOpenGroup: .noOpenGroup
            case .reentrantCall: .reentrantCall
            case .awaitsOwnOperation: .awaitsOwnOperation
            case .stepIsBroken: .stepIsBroken
            case .needsAwait: .needsAwait
            case .notWhileAsync: .notWhileAsync
            case .historyNotEmpty: .historyNotEmpty
            }
        }

        /// Which misuse a ``Misuse`` is, without what it carries: one static member for each of
        /// ``Misuse``'s, with the same name.
        ///
        /// Extensible: new kinds may be added in any release (with new misuses); do not switch
        /// exhaustively. ``allCases`` lists the kinds this version knows. The ``description`` (the
        /// name, as `"reentrantCall"`) is stable.
        public struct Kind: Hashable, Sendable, CaseIterable, CustomStringConvertible {
            /// The kinds this version knows, by name.
            private enum Name: String, CaseIterable {
                case endWithoutBegin, enableWithoutDisable, nestedGroupsOpen, undoNestedGroupWithOpenGroup
                case redoWhileUndoing, noOpenGroup, reentrantCall, awaitsOwnOperation, stepIsBroken, needsAwait
                case notWhileAsync, historyNotEmpty
            }

            private let name: Name

            private init(_ name: Name) { self.name = name }

            /// The name of the misuse's static member, as `"reentrantCall"`.
            public var description: String { name.rawValue }

            /// The kinds this version knows. A later version may add more.
            public static var allCases: [Kind] { Name.allCases.map(Kind.init) }

            /// ``Misuse/endWithoutBegin``.
            public static var endWithoutBegin: Kind { Kind(.endWithoutBegin) }
            /// ``Misuse/enableWithoutDisable``.
            public static var enableWithoutDisable: Kind { Kind(.enableWithoutDisable) }
            /// ``Misuse/nestedGroupsOpen(_:groupingLevel:)``.
            public static var nestedGroupsOpen: Kind { Kind(.nestedGroupsOpen) }
            /// ``Misuse/undoNestedGroupWithOpenGroup``.
            public static var undoNestedGroupWithOpenGroup: Kind { Kind(.undoNestedGroupWithOpenGroup) }
            /// ``Misuse/redoWhileUndoing``.
            public static var redoWhileUndoing: Kind { Kind(.redoWhileUndoing) }
            /// ``Misuse/noOpenGroup(_:)``.
            public static var noOpenGroup: Kind { Kind(.noOpenGroup) }
            /// ``Misuse/reentrantCall(_:during:)``.
            public static var reentrantCall: Kind { Kind(.reentrantCall) }
            /// ``Misuse/awaitsOwnOperation(_:)``.
            public static var awaitsOwnOperation: Kind { Kind(.awaitsOwnOperation) }
            /// ``Misuse/stepIsBroken(_:)``.
            public static var stepIsBroken: Kind { Kind(.stepIsBroken) }
            /// ``Misuse/needsAwait(_:)``.
            public static var needsAwait: Kind { Kind(.needsAwait) }
            /// ``Misuse/notWhileAsync(_:)``.
            public static var notWhileAsync: Kind { Kind(.notWhileAsync) }
            /// ``Misuse/historyNotEmpty(_:)``.
            public static var historyNotEmpty: Kind { Kind(.historyNotEmpty) }
        }

        /// The public call that was misused.
        ///
        /// Extensible: new operations may be added in any release (each new public call that can be
        /// misused adds one); do not switch exhaustively. ``allCases`` lists the operations this
        /// version knows. The ``rawValue`` and ``description`` are the call's Swift spelling and are
        /// stable.
        public struct Operation: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
            /// The operations this version knows, by their Swift spelling.
            private enum Name: String, CaseIterable {
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
            }

            private let name: Name

            private init(_ name: Name) { self.name = name }

            /// The operation with this Swift spelling (`"undo()"`), when this version knows it.
            ///
            /// - Parameter rawValue: The call's Swift spelling.
            public init?(rawValue: String) {
                guard let name = Name(rawValue: rawValue) else { return nil }
                self.init(name)
            }

            /// The Swift spelling of the call, as `"undo()"`.
            public var rawValue: String { name.rawValue }

            /// The Swift spelling of the call.
            public var description: String { name.rawValue }

            /// The operations this version knows. A later version may add more.
            public static var allCases: [Operation] { Name.allCases.map(Operation.init) }

            /// `registerUndo(withTarget:handler:)`, and every other form of registration.
            public static var registerUndo: Operation { Operation(.registerUndo) }
            /// `setValue(_:for:on:actionName:)`.
            public static var setValue: Operation { Operation(.setValue) }
            /// `beginUndoGrouping()`.
            public static var beginUndoGrouping: Operation { Operation(.beginUndoGrouping) }
            /// `group(named:_:)`, and the asynchronous group `asyncGroup(named:_:)`.
            public static var group: Operation { Operation(.group) }
            /// `endUndoGrouping()`.
            public static var endUndoGrouping: Operation { Operation(.endUndoGrouping) }
            /// `enableUndoRegistration()`.
            public static var enableUndoRegistration: Operation { Operation(.enableUndoRegistration) }
            /// `endEvent()`.
            public static var endEvent: Operation { Operation(.endEvent) }
            /// `undo()`, and its awaited form `performUndo()`.
            public static var undo: Operation { Operation(.undo) }
            /// `undoNestedGroup()`.
            public static var undoNestedGroup: Operation { Operation(.undoNestedGroup) }
            /// `redo()`, and its awaited form `performRedo()`.
            public static var redo: Operation { Operation(.redo) }
            /// `jump(to:)`, and its awaited form `performJump(to:)`.
            public static var jump: Operation { Operation(.jump) }
            /// `removeAllActions()`.
            public static var removeAllActions: Operation { Operation(.removeAllActions) }
            /// `removeAllActions(withTarget:)`.
            public static var removeAllActionsWithTarget: Operation { Operation(.removeAllActionsWithTarget) }
            /// `setActionName(_:)`.
            public static var setActionName: Operation { Operation(.setActionName) }
            /// `setActionIsDiscardable(_:)`.
            public static var setActionIsDiscardable: Operation { Operation(.setActionIsDiscardable) }
            /// `setActionUserInfoValue(_:forKey:)`.
            public static var setActionUserInfoValue: Operation { Operation(.setActionUserInfoValue) }
            /// `markClean()`.
            public static var markClean: Operation { Operation(.markClean) }
            /// `jump(toNode:)`, and its awaited form `performJump(toNode:)`.
            public static var jumpToNode: Operation { Operation(.jumpToNode) }
            /// `selectRedoBranch(_:)`.
            public static var selectRedoBranch: Operation { Operation(.selectRedoBranch) }
            /// `earlier(_:)`, and `earlier(by:)`.
            public static var earlier: Operation { Operation(.earlier) }
            /// `later(_:)`, and `later(by:)`.
            public static var later: Operation { Operation(.later) }
            /// `savedHistory(maximumSteps:)`.
            public static var savedHistory: Operation { Operation(.savedHistory) }
            /// `restoreHistory(_:resolvingTargets:)`.
            public static var restoreHistory: Operation { Operation(.restoreHistory) }
            /// `applyRemoteChange(_:version:_:)`.
            public static var applyRemoteChange: Operation { Operation(.applyRemoteChange) }
        }

        /// What the stack was doing when a call came that it cannot take then.
        ///
        /// Extensible: new activities may be added in any release; do not switch exhaustively.
        /// ``allCases`` lists the activities this version knows. The ``rawValue`` and
        /// ``description`` (a sentence fragment, as "an undo is running its handlers") are stable.
        /// The stack's own phases are internal: each is reported as one of these.
        public struct Activity: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
            /// The activities this version knows, by their sentence fragment.
            private enum Name: String, CaseIterable {
                case undoing = "an undo is running its handlers"
                case redoing = "a redo is running its handlers"
                case notifyingUndo = "an undo is posting its will/did notifications"
                case notifyingRedo = "a redo is posting its will/did notifications"
                case closingGroup = "a group is about to close (willCloseUndoGroupNotification)"
                case openingGroup =
                    "beginUndoGrouping() is opening the automatic group (didOpenUndoGroupNotification)"
                case rollingBack = "a scoped group is rolling back what its failed body registered"
                case preparingUndo = "undo() is closing the open group and choosing the step to undo"
                case preparingRedo = "redo() is closing the open group and choosing the step to redo"
                case jumping = "jump(to:) is moving through the history"
                case closingScope = "group(named:_:) is closing its groups"
                case applyingRemoteChange = "applyRemoteChange(_:version:_:) is applying a change to the model"
            }

            private let name: Name

            private init(_ name: Name) { self.name = name }

            /// The activity with this sentence fragment, when this version knows it.
            ///
            /// - Parameter rawValue: The activity's sentence fragment.
            public init?(rawValue: String) {
                guard let name = Name(rawValue: rawValue) else { return nil }
                self.init(name)
            }

            /// A sentence fragment for the misuse message.
            public var rawValue: String { name.rawValue }

            /// A sentence fragment for the misuse message.
            public var description: String { name.rawValue }

            /// The activities this version knows. A later version may add more.
            public static var allCases: [Activity] { Name.allCases.map(Activity.init) }

            /// Running the handlers of an undo.
            public static var undoing: Activity { Activity(.undoing) }
            /// Running the handlers of a redo.
            public static var redoing: Activity { Activity(.redoing) }
            /// Posting `willUndoChangeNotification` or `didUndoChangeNotification`.
            public static var notifyingUndo: Activity { Activity(.notifyingUndo) }
            /// Posting `willRedoChangeNotification` or `didRedoChangeNotification`.
            public static var notifyingRedo: Activity { Activity(.notifyingRedo) }
            /// Posting `willCloseUndoGroupNotification`.
            public static var closingGroup: Activity { Activity(.closingGroup) }
            /// Posting the automatic group's `didOpenUndoGroupNotification` inside
            /// `beginUndoGrouping()`, before the explicit group opens.
            public static var openingGroup: Activity { Activity(.openingGroup) }
            /// Running the inverse actions of a scoped group whose body threw.
            public static var rollingBack: Activity { Activity(.rollingBack) }
            /// `undo()` posting its notifications before the step (closing the open group, checkpoints).
            public static var preparingUndo: Activity { Activity(.preparingUndo) }
            /// `redo()` posting its notifications before the step.
            public static var preparingRedo: Activity { Activity(.preparingRedo) }
            /// `jump(to:)` undoing or redoing its steps.
            public static var jumping: Activity { Activity(.jumping) }
            /// A scoped group closing its groups, after its body returned or threw.
            public static var closingScope: Activity { Activity(.closingScope) }
            /// Running the closure that applies a remote change to the model.
            public static var applyingRemoteChange: Activity { Activity(.applyingRemoteChange) }
        }
    }

    /// What a stack does when it is misused.
    ///
    /// Extensible: new policies may be added in any release; do not switch exhaustively.
    public struct MisusePolicy: Hashable, Sendable {
        /// The policies this version knows.
        enum Code: Hashable, Sendable {
            case log
            case report
            case trap
        }

        let code: Code

        private init(_ code: Code) { self.code = code }

        /// The default: leave the stack as it was, store the misuse in ``ActionStack/lastMisuse``,
        /// pass it to ``ActionStack/onMisuse``, and write one line to standard error that starts
        /// with `ActionStack misuse:`. Code that would have crashed on Apple platforms never loses an
        /// undo step without a trace.
        public static var log: MisusePolicy { MisusePolicy(.log) }
        /// As ``log``, without the line on standard error: for programs that handle every misuse
        /// themselves through ``ActionStack/onMisuse`` or ``ActionStack/lastMisuse``.
        public static var report: MisusePolicy { MisusePolicy(.report) }
        /// Stop the process with the misuse's description, as Foundation's exception does.
        public static var trap: MisusePolicy { MisusePolicy(.trap) }
    }

    /// Whether the activity the stack is in refuses `operation` (the re-entrancy table); when it
    /// does, the ``Misuse/reentrantCall(_:during:)`` is reported. Entry points ask before they
    /// change anything.
    @inline(__always)
    func refusesReentrantCall(_ operation: OperationKey) -> Bool {
        if let activity = activities.refusing(operation) {
            report(.reentrantCall(operation.reported, during: activity.reported))
            return true
        }
        guard steps.hasAwaitedStep, activities.isEmpty, let step = steps.stepOfCurrentTask() else {
            return false
        }
        // The body of an asynchronous group records changes as any code does.
        if step.isRecording && step.phase == .running { return false }
        // A handler of the awaited step in flight, between its own awaits: the rows of a
        // synchronous undo's handlers (or of a rollback) apply.
        let activity: ActivityKey =
            step.phase == .rollingBack ? .rollingBack : step.direction == .undo ? .undoing : .redoing
        guard !Activities.allows(operation, during: activity) else { return false }
        report(.reentrantCall(operation.reported, during: activity.reported))
        return true
    }

    /// Reports `misuse` according to ``misusePolicy``. The caller has changed nothing.
    func report(_ misuse: Misuse) {
        switch misusePolicy.code {
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
