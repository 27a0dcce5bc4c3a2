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

/// An asynchronous registration states no cost: its action counts 0 toward `maximumCost`, so a
/// history of awaited steps is bounded by `levelsOfUndo` (the documented choice, in
/// `maximumCost`'s docs and "Undoing through a server or a database").
@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct AwaitedStepCostTests {
    final class Box {
        var value = 0
    }

    @Test func aCostLimitKeepsAwaitedStepsAndLevelsOfUndoBoundsThem() async throws {
        let stack = makeAsyncStack()
        stack.maximumCost = 1
        let remote = RemoteValue()
        for value in 1...4 { try await remote.change(to: value, on: stack, named: "\(value)") }
        #expect(stack.undoCount == 4, "four awaited steps count 0 against a limit of 1")
        stack.levelsOfUndo = 2
        #expect(stack.undoCount == 2, "levelsOfUndo bounds them")
        try await stack.performUndo()
        #expect(remote.value == 3)
    }

    @Test func aStepThatMixesBothKindsCountsItsSynchronousCosts() async throws {
        let stack = makeAsyncStack()
        let remote = RemoteValue()
        let box = Box()
        try await remote.change(to: 1, on: stack, named: "Awaited")
        stack.maximumCost = 3
        // A mixed step: an awaited action and a synchronous one of cost 3.
        stack.beginUndoGrouping()
        try await remote.set(2, on: stack)
        let old = box.value
        stack.registerUndo(withTarget: box, options: .cost(3)) { $0.value = old }
        box.value = 5
        stack.setActionName("Mixed")
        stack.endUndoGrouping()
        #expect(stack.undoCount == 2, "the total is 3, within the limit")
        // One more synchronous cost: the total passes the limit and the oldest step goes.
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: box, options: .cost(1)) { $0.value = 5 }
        box.value = 6
        stack.endUndoGrouping()
        // 0 + 3 + 1 = 4: the awaited step goes (the total stays 4), then the mixed one (3).
        #expect(stack.undoCount == 1, "costs of synchronous actions count")
        #expect(stack.undoActionName == "")
    }
}
