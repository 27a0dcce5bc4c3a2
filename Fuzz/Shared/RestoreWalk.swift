// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The check both libFuzzer targets make of a history they read (Scripts/fuzz-common.sh compiles
// this folder into each target).

import ActionStackArchive
import ActionStackCore

/// An object of a class no command changes: a key resolved to it cuts the history there.
final class FuzzStranger {}

/// Restores `history` into a new stack of its shape, resolving keys to objects that live through
/// the walk, to nothing, to an object of the wrong class, or to one nobody keeps (by the key's
/// first byte; `makeTarget` makes the target of a key), then undoes and redoes everything restored
/// and checks that the stack saves a history that validates: the restore reads saved steps through
/// pointers and hands its targets around unretained, and this is where AddressSanitizer sees it.
/// `fail` ends the run (libFuzzer saves the input).
func restoreAndWalk(
    _ history: SavedHistory, makeTarget: (String) -> AnyObject, fail: (String) -> Never
) {
    let stack = ActionStack()
    stack.misusePolicy = .report
    stack.historyShape = history.shape
    var kept: [String: AnyObject] = [:]
    let report: ActionStack.RestoreReport
    do {
        report = try stack.restoreHistory(history) { key in
            switch (key.utf8.first ?? 0) % 4 {
            case 0: return nil
            case 1: return FuzzStranger()
            case 2: return makeTarget(key)  // kept by no one: freed when the restore lets go
            default:
                let object = makeTarget(key)
                kept[key] = object
                return object
            }
        }
    } catch {
        fail("a history that validated was not restored: \(error)")
    }
    if report.restoredSteps > history.steps.count { fail("restored more steps than saved") }
    var moves = 0
    while stack.canUndo && moves < 10_000 {
        stack.undo()
        moves += 1
    }
    while stack.canRedo && moves < 20_000 {
        stack.redo()
        moves += 1
    }
    do {
        try stack.savedHistory().validate()
    } catch {
        fail("the restored stack saves a history that does not validate: \(error)")
    }
    withExtendedLifetime(kept) {}
}
