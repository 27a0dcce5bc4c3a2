// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation
import Testing

/// Walks the re-entrancy table exhaustively: for every activity, a real situation puts the stack
/// in it (a handler runs, an observer hears a notification); there every operation is called once,
/// and the result must be what the table says: allowed, or the misuse `reentrantCall` (for `redo()`
/// inside an undo, `redoWhileUndoing`) with nothing changed.
///
/// It walks the table's own keys (the stack's internal activities and operations), so a new key
/// is walked too, and the misuse it reports is the public value the key maps to.
struct ReentrancyTableTests {
    typealias Activity = ActionStack.ActivityKey
    typealias Operation = ActionStack.OperationKey

    /// What happened inside the situation.
    final class Probe: @unchecked Sendable {  // touched only on the test's thread
        var reached = false
        var activities: [Activity] = []
        var structureBefore = ""
        var structureAfter = ""
        var shapeBefore = ""
        var shapeAfter = ""
        var misuse: ActionStack.Misuse?
        var registrationWasEnabled = true
    }

    /// Calls `operation` on `stack` with ordinary arguments.
    static func call(_ operation: Operation, on stack: ActionStack, target: Counter) {
        switch operation {
        case .registerUndo: stack.registerUndo(withTarget: target) { _ in }
        case .setValue: stack.setValue(7, for: \.value, on: target)
        case .beginUndoGrouping: stack.beginUndoGrouping()
        case .group: stack.group { target.value += 0 }
        case .endUndoGrouping: stack.endUndoGrouping()
        case .enableUndoRegistration: stack.enableUndoRegistration()
        case .endEvent: stack.endEvent()
        case .undo: stack.undo()
        case .undoNestedGroup: stack.undoNestedGroup()
        case .redo: stack.redo()
        case .jump: stack.jump(to: 0)
        case .removeAllActions: stack.removeAllActions()
        case .removeAllActionsWithTarget: stack.removeAllActions(withTarget: target)
        case .setActionName: stack.setActionName("Probe")
        case .setActionIsDiscardable: stack.setActionIsDiscardable(true)
        case .setActionUserInfoValue: stack.setActionUserInfoValue(1, forKey: "probe")
        case .markClean: stack.markClean()
        case .jumpToNode: try? stack.jump(toNode: .init(sequence: 0))
        case .selectRedoBranch: try? stack.selectRedoBranch(.init(sequence: 1))
        case .earlier: _ = try? stack.earlier()
        case .later: _ = try? stack.later()
        case .savedHistory: _ = try? stack.savedHistory()
        case .restoreHistory:
            _ = try? stack.restoreHistory(
                SavedHistory(shape: .linear, root: 0, current: 0, clean: nil, steps: []), resolvingTargets: { _ in nil }
            )
        case .applyRemoteChange: stack.applyRemoteChange(1) {}
        }
    }

    /// Runs `operation` once while `stack` is doing `activity`; returns what happened.
    static func run(_ operation: Operation, during activity: Activity) -> Probe {
        let probe = Probe()
        let stack = makeStack()
        let target = Counter("target")
        let other = Counter("other")
        var once = true
        let inside: (ActionStack) -> Void = { stack in
            guard once else { return }
            once = false
            probe.reached = true
            probe.activities = stack._activities
            probe.registrationWasEnabled = stack.isUndoRegistrationEnabled
            probe.structureBefore = stack._structure
            probe.shapeBefore = stack._stateShape
            stack.lastMisuse = nil
            call(operation, on: stack, target: target)
            probe.misuse = stack.lastMisuse
            probe.structureAfter = stack._structure
            probe.shapeAfter = stack._stateShape
        }
        // The stack posts synchronously on the test's thread, so the observer may call `inside`.
        let box = Unchecked(inside)
        let hookInside: @Sendable (ActionStack) -> Void = { stack in box.value(stack) }
        var hooks: [NotificationHook] = []
        switch activity {
        case .undoing:
            group(stack) { stack.registerUndo(withTarget: other) { _ in inside(stack) } }
            group(stack) { other.set(1, on: stack) }
            stack.undo()
            stack.undo()
        case .redoing:
            group(stack) {
                stack.registerUndo(withTarget: other) { other in
                    stack.registerUndo(withTarget: other) { _ in inside(stack) }
                }
            }
            stack.undo()
            stack.redo()
        case .notifyingUndo:
            group(stack) { other.set(1, on: stack) }
            hooks.append(NotificationHook(ActionStack.willUndoChangeNotification, stack, hookInside))
            stack.undo()
        case .notifyingRedo:
            group(stack) { other.set(1, on: stack) }
            stack.undo()
            hooks.append(NotificationHook(ActionStack.willRedoChangeNotification, stack, hookInside))
            stack.redo()
        case .closingGroup:
            stack.beginUndoGrouping()
            other.set(1, on: stack)
            hooks.append(NotificationHook(ActionStack.willCloseUndoGroupNotification, stack, hookInside))
            stack.endUndoGrouping()
        case .openingGroup:
            stack.groupsByEvent = true
            stack.automaticGroupClosing = .manual
            hooks.append(NotificationHook(ActionStack.didOpenUndoGroupNotification, stack, hookInside))
            stack.beginUndoGrouping()
        case .rollingBack:
            _ = try? stack.group {
                stack.registerUndo(withTarget: other) { _ in inside(stack) }
                throw Failure()
            }
        case .preparingUndo:
            group(stack) { other.set(1, on: stack) }
            stack.beginUndoGrouping()
            other.set(2, on: stack)
            hooks.append(NotificationHook(ActionStack.didCloseUndoGroupNotification, stack, hookInside))
            stack.undo()
        case .preparingRedo:
            group(stack) { other.set(1, on: stack) }
            stack.undo()
            stack.beginUndoGrouping()
            hooks.append(NotificationHook(ActionStack.didCloseUndoGroupNotification, stack, hookInside))
            stack.dropsEmptyGroups = true  // the empty group is dropped, so the redo goes on
            stack.redo()
        case .jumping:
            group(stack) { other.set(1, on: stack) }
            group(stack) { other.set(2, on: stack) }
            hooks.append(NotificationHook(ActionStack.checkpointNotification, stack, hookInside))
            stack.jump(to: 0)
        case .closingScope:
            hooks.append(NotificationHook(ActionStack.didCloseUndoGroupNotification, stack, hookInside))
            stack.group { other.set(1, on: stack) }
        case .applyingRemoteChange:
            group(stack) { other.set(1, on: stack) }
            stack.applyRemoteChange(1) { inside(stack) }
        }
        hooks.removeAll()
        return probe
    }

    @Test(arguments: Activity.allCases, Operation.allCases)
    func everyOperationInEveryActivityIsAllowedOrANamedMisuseThatChangesNothing(
        activity: Activity,
        operation: Operation
    ) {
        let probe = Self.run(operation, during: activity)
        #expect(probe.reached, "the situation put the stack in \(activity)")
        #expect(probe.activities.last == activity)
        let allowed = ActionStack._allows(operation, during: activity)
        let disabledNoOp =
            !probe.registrationWasEnabled
            && [
                .registerUndo, .setValue, .beginUndoGrouping, .group, .endUndoGrouping, .setActionName,
                .setActionIsDiscardable, .setActionUserInfoValue,
            ].contains(operation)
        if allowed || disabledNoOp {
            if probe.misuse?.activity != nil { Issue.record("\(operation) refused during \(activity)") }
            if probe.misuse == .redoWhileUndoing { Issue.record("\(operation) refused during \(activity)") }
        } else {
            let expected: ActionStack.Misuse =
                operation == .redo && (activity == .undoing || activity == .notifyingUndo)
                ? .redoWhileUndoing : .reentrantCall(operation.reported, during: activity.reported)
            #expect(probe.misuse == expected)
            #expect(probe.structureAfter == probe.structureBefore, "a refused call changes nothing")
            #expect(probe.shapeAfter == probe.shapeBefore)
        }
    }

    @Test func theTableAllowsWhatHandlersAndObserversNeed() {
        // Handlers build the opposite step: they register, group and name.
        for activity in [Activity.undoing, .redoing] {
            for operation in [Operation.registerUndo, .beginUndoGrouping, .endUndoGrouping, .setActionName, .group] {
                #expect(ActionStack._allows(operation, during: activity))
            }
        }
        // Will-close observers may still add to the closing group.
        #expect(ActionStack._allows(.registerUndo, during: .closingGroup))
        // An autosave observer may mark the document clean after an undo or redo.
        #expect(ActionStack._allows(.markClean, during: .notifyingUndo))
        // Nothing restructures the history under an operation in progress.
        for activity in Activity.allCases {
            for operation in [Operation.undo, .redo, .jump, .removeAllActions, .endEvent, .applyRemoteChange] {
                #expect(!ActionStack._allows(operation, during: activity))
            }
            // Except a peer's deletion of an object, while its remote change applies.
            #expect(
                ActionStack._allows(.removeAllActionsWithTarget, during: activity)
                    == (activity == .applyingRemoteChange))
        }
    }
}

/// A value handed to a `@Sendable` notification block that runs on the thread that made it (the
/// stack posts synchronously).
final class Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
