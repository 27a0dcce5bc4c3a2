// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The stack's side of the step machine (StepMachine.swift): carrying out what its events return.

extension ActionStack {
    /// Carries out what the step machine said when an awaited step or group began.
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
}
