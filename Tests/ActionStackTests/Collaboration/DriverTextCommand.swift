// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack

/// The awaited inverse of an edit of a ``SharedText`` that the collaborative driver records: the
/// edit is made in the model first, then the server is awaited (a failure throws, and the step
/// rolls back). The driver's own type, with its own gate and failures, so that another suite's
/// gate (``AsyncTextCommand``'s) never holds or fails the driver's steps.
struct DriverTextCommand: AsyncUndoCommand, RebasableCommand {
    static let commandType = "test.text.driver"
    var edit: TextEdit
    nonisolated(unsafe) static var gate: Gate?
    /// How many of the next performances fail (after awaiting the gate).
    nonisolated(unsafe) static var failures = 0

    nonisolated(nonsending) func perform(on document: SharedText, in stack: ActionStack) async throws {
        try edit.apply(to: &document.text)
        stack.registerAsyncUndo(DriverTextCommand(edit: edit.inverse), on: document, key: SharedText.key)
        await Self.gate?.pass()
        if Self.failures > 0 {
            Self.failures -= 1
            throw RemoteFailure(value: 0)
        }
    }

    func rebased(over change: TextEdit) -> DriverTextCommand? { edit.rebased(over: change).map(DriverTextCommand.init) }
    func transform(_ change: TextEdit) -> TextEdit? { edit.transform(change) }
}

/// What an asynchronous group's body throws to be rolled back.
struct GroupFailure: Error {}

/// The inverse of an edit of a ``SharedText`` that the collaborative driver records with a cost
/// (``ActionStack/RegistrationOptions/cost``): performing it applies the edit and registers its
/// own inverse with the same cost, so that a step costs the same through undo, redo, rebasing and
/// a save and restore, as the driver's model counts it against ``ActionStack/maximumCost``.
struct DriverCostedTextCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.text.driver.costed"
    var edit: TextEdit
    var cost: Int

    func perform(on document: SharedText, in stack: ActionStack) {
        try! edit.apply(to: &document.text)
        stack.registerUndo(
            DriverCostedTextCommand(edit: edit.inverse, cost: cost), on: document, key: SharedText.key,
            options: .cost(cost))
    }

    func rebased(over change: TextEdit) -> DriverCostedTextCommand? {
        edit.rebased(over: change).map { DriverCostedTextCommand(edit: $0, cost: cost) }
    }

    func transform(_ change: TextEdit) -> TextEdit? { edit.transform(change) }
}
