// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

// The stack's side of the step machine (StepMachine.swift): carrying out what its events return.
// A synchronous undo or redo, an awaited one and an asynchronous group post their notifications
// here, and only here, as the machine tells them to.

extension ActionStack {
    /// Carries out what the step machine said when a step began: a synchronous or awaited undo or
    /// redo posts its will-notification; an asynchronous group its did-open notification.
    ///
    /// - Complexity: O(1) beyond the observers.
    @inline(__always)
    func carryOut(_ action: StepMachine.BeginAction) {
        switch action {
        case .postWill(let direction):
            guard postsNotifications else { return }
            let undoing = direction == .undo
            activities.push(undoing ? .notifyingUndo : .notifyingRedo)
            post(undoing ? ActionStack.willUndoChangeNotification : ActionStack.willRedoChangeNotification)
            activities.pop()
        case .postDidOpen:
            post(ActionStack.didOpenUndoGroupNotification)
        }
    }

    /// Carries out what the step machine said when a step finished, once the history holds its
    /// opposite: an undo or redo posts its did-notification (its observers still see it in
    /// progress), then ends; an asynchronous group, which has ended already, posts its did-close
    /// notification. `discardable`: whether the step was marked discardable.
    ///
    /// - Complexity: O(1) beyond the observers.
    @inline(__always)
    func carryOut(_ action: StepMachine.FinishAction, discardable: Bool) {
        switch action {
        case .postDid(let direction):
            if postsNotifications {
                let undoing = direction == .undo
                activities.push(undoing ? .notifyingUndo : .notifyingRedo)
                post(
                    undoing ? ActionStack.didUndoChangeNotification : ActionStack.didRedoChangeNotification,
                    discardable: discardable)
                activities.pop()
            }
            steps.ended()
        case .postDidClose:
            post(ActionStack.didCloseUndoGroupNotification, discardable: discardable)
        }
    }

    /// Carries out what the step machine said when a rolled-back step settled, once the history
    /// holds where it left the document: an undo or redo posts its did-fail notification (its
    /// observers still see it in progress), then ends; an asynchronous group has ended already.
    /// Returns the failure of an undo or redo.
    ///
    /// - Complexity: O(1) beyond the observers.
    @discardableResult
    func carryOut(_ action: StepMachine.RolledBackAction) -> ActionFailure? {
        switch action {
        case .postDidFail(let direction, let failure):
            if postsNotifications {
                let undoing = direction == .undo
                activities.push(undoing ? .notifyingUndo : .notifyingRedo)
                NotificationCenter.default.post(
                    name: undoing
                        ? ActionStack.didFailUndoChangeNotification : ActionStack.didFailRedoChangeNotification,
                    object: self,
                    userInfo: [ActionStack.operationErrorUserInfoKey: OperationError.actionFailed(failure)])
                activities.pop()
            }
            steps.ended()
            return failure
        case .ended:
            return nil
        }
    }
}
