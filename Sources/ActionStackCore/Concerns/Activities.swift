// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The re-entrancy concern: what the stack is doing while client code runs in the middle of a call,
/// and which calls are allowed then.
///
/// Client code runs in the middle of a call when the stack posts a notification before it has
/// finished (`willCloseUndoGroupNotification`, the will/did notifications of undo and redo, the
/// checkpoints and closes that `undo()`, `redo()`, `jump(to:)` and scoped groups post on the way)
/// and when it runs handlers. The stack pushes an activity for each such stretch. A call is allowed
/// when the innermost activity allows it (``allows(_:during:)``, the one table of these rules);
/// otherwise it is the misuse `reentrantCall(_:during:)` and changes nothing. The innermost decides
/// because activities nest only in safe ways: the handlers of each step of a `jump(to:)` run in
/// `undoing` inside `jumping` and must register their inverses; and every activity that can start
/// inside another (will-close observers, handlers, notifications of an undo) refuses by itself every
/// call that could break the outer one.
/// Client code that runs at the *end* of a call (the did-open and did-close notifications of a call
/// that has finished its work, `observe(_:)` callbacks, `onMisuse`) runs with no activity of that
/// call, so everything is allowed there.
struct Activities {
    typealias Activity = ActionStack.ActivityKey
    typealias Operation = ActionStack.OperationKey

    /// The innermost activity in progress: the one that decides. Kept apart from the outer ones so
    /// that an undo's handlers (two activities deep: preparing, then undoing, the common case) cost
    /// no array operation.
    private(set) var innermost: Activity?
    /// The activity just outside the innermost one.
    private var second: Activity?
    /// The activities outside `second`, outermost first.
    private var outer: [Activity] = []

    /// The activities in progress, outermost first.
    var stack: [Activity] {
        guard let innermost else { return [] }
        guard let second else { return [innermost] }
        return outer + [second, innermost]
    }

    var isEmpty: Bool { innermost == nil }

    /// What does not hold between calls: no activity is left in progress.
    func invariantViolations() -> [String] {
        isEmpty ? [] : ["activities left in progress: \(stack)"]
    }

    /// - Complexity: O(1) amortized.
    @inline(__always)
    mutating func push(_ activity: Activity) {
        if let second { outer.append(second) }
        second = innermost
        innermost = activity
    }

    /// - Complexity: O(1).
    @inline(__always)
    mutating func pop() {
        innermost = second
        second = outer.isEmpty ? nil : outer.removeLast()
    }

    /// The innermost activity, when it forbids `operation`; nil when the call may go ahead.
    @inline(__always)
    func refusing(_ operation: Operation) -> Activity? {
        guard let innermost, !Self.allows(operation, during: innermost) else { return nil }
        return innermost
    }

    /// Whether `operation` is allowed while the stack is doing `activity`: the re-entrancy table.
    ///
    /// Calls that are not keys of the table (queries, settings, disabling registration,
    /// `breakCoalescing()`, observation) are always allowed.
    static func allows(_ operation: Operation, during activity: Activity) -> Bool {
        switch operation {
        case .enableUndoRegistration:
            return true
        case .registerUndo, .setValue, .setActionName, .setActionIsDiscardable, .setActionUserInfoValue:
            // Handlers add to the group being built; will-close observers add to the closing
            // group; the automatic group's did-open observers add to it. Elsewhere in the middle
            // of a call there is no group that could receive them.
            switch activity {
            case .undoing, .redoing, .closingGroup, .openingGroup, .rollingBack: return true
            // (While a remote change applies, registration is disabled: these calls do nothing,
            // which is no misuse.)
            case .applyingRemoteChange: return true
            case .notifyingUndo, .notifyingRedo, .preparingUndo, .preparingRedo, .jumping, .closingScope:
                return false
            }
        case .beginUndoGrouping, .group, .endUndoGrouping:
            // Only handlers may group, nested inside the group being built. A rollback runs with
            // registration disabled, where grouping calls do nothing and are no misuse (that rule
            // comes first), so its column allows them, as it allows registrations.
            switch activity {
            case .undoing, .redoing, .rollingBack, .applyingRemoteChange: return true
            default: return false
            }
        case .markClean:
            // The document is consistent except while handlers change it.
            switch activity {
            case .undoing, .redoing, .rollingBack, .applyingRemoteChange: return false
            default: return true
            }
        case .removeAllActionsWithTarget:
            // A peer deleted an object: its actions go while the change applies (nothing is in
            // flight then). Elsewhere, as the other restructuring calls.
            return activity == .applyingRemoteChange
        case .undo, .undoNestedGroup, .redo, .jump, .endEvent, .removeAllActions, .jumpToNode, .selectRedoBranch,
            .earlier, .later, .savedHistory, .restoreHistory, .applyRemoteChange:
            // Restructuring the history under a call that is using it.
            return false
        }
    }
}

extension ActionStack {
    /// A call the re-entrancy table rules on: the table's rows, and the stack's own name for the
    /// call a misuse is about.
    ///
    /// Internal keys, kept apart from what clients see: a misuse names the call as the public,
    /// extensible ``Misuse/Operation`` that ``reported`` maps each key to (the one mapping). A
    /// trivial enum, so that the entry points of the synchronous core pass it for free.
    package enum OperationKey: CaseIterable, Sendable {
        case registerUndo, setValue, beginUndoGrouping, group, endUndoGrouping, enableUndoRegistration, endEvent
        case undo, undoNestedGroup, redo, jump, removeAllActions, removeAllActionsWithTarget
        case setActionName, setActionIsDiscardable, setActionUserInfoValue, markClean
        case jumpToNode, selectRedoBranch, earlier, later, savedHistory, restoreHistory
        case applyRemoteChange
    }

    /// What the stack is doing while client code runs in the middle of a call: the re-entrancy
    /// table's columns, pushed and popped by ``Activities`` on the undo and redo path.
    ///
    /// Internal keys, kept apart from what clients see: a misuse names the activity as the
    /// public, extensible ``Misuse/Activity`` that ``reported`` maps each key to (the one
    /// mapping). A new internal phase is a new key here, reported as an activity clients know or
    /// as a new static member of ``Misuse/Activity``; neither breaks a client. A trivial enum (no
    /// payload, no string), so that pushing one costs nothing.
    package enum ActivityKey: CaseIterable, Sendable {
        case undoing, redoing, notifyingUndo, notifyingRedo, closingGroup, openingGroup, rollingBack
        case preparingUndo, preparingRedo, jumping, closingScope
        case applyingRemoteChange
    }
}

extension ActionStack.OperationKey {
    /// The call as a misuse names it to clients.
    package var reported: ActionStack.Misuse.Operation {
        switch self {
        case .registerUndo: .registerUndo
        case .setValue: .setValue
        case .beginUndoGrouping: .beginUndoGrouping
        case .group: .group
        case .endUndoGrouping: .endUndoGrouping
        case .enableUndoRegistration: .enableUndoRegistration
        case .endEvent: .endEvent
        case .undo: .undo
        case .undoNestedGroup: .undoNestedGroup
        case .redo: .redo
        case .jump: .jump
        case .removeAllActions: .removeAllActions
        case .removeAllActionsWithTarget: .removeAllActionsWithTarget
        case .setActionName: .setActionName
        case .setActionIsDiscardable: .setActionIsDiscardable
        case .setActionUserInfoValue: .setActionUserInfoValue
        case .markClean: .markClean
        case .jumpToNode: .jumpToNode
        case .selectRedoBranch: .selectRedoBranch
        case .earlier: .earlier
        case .later: .later
        case .savedHistory: .savedHistory
        case .restoreHistory: .restoreHistory
        case .applyRemoteChange: .applyRemoteChange
        }
    }
}

extension ActionStack.ActivityKey {
    /// The activity as a misuse names it to clients.
    package var reported: ActionStack.Misuse.Activity {
        switch self {
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
