// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

// `historyClock` applies whatever the order of the settings (issue 28, item 10): set after
// `historyShape = .tree`, the nodes are dated by it, as when it is set first.

@MainActor
@Suite struct HistoryClockTests {
    /// Three changes a minute apart, on a stack set up in the given order; the nodes' dates.
    private func dates(clockFirst: Bool) throws -> [Date] {
        let stack = makeStack()
        let clock = ManualClock(seconds: 1_000)
        if clockFirst {
            stack.historyClock = { clock.now }
            stack.historyShape = .tree
        } else {
            stack.historyShape = .tree
            stack.historyClock = { clock.now }
        }
        let counter = Counter()
        for value in 1...3 {
            clock.advance(seconds: 60)
            group(stack) { counter.set(value, on: stack) }
        }
        return try #require(stack.historyTree).nodes.map(\.date)
    }

    @Test func theClockSetAfterTheShapeDatesTheNodesAsWhenSetBefore() throws {
        let before = try dates(clockFirst: true)
        let after = try dates(clockFirst: false)
        #expect(before.map(\.timeIntervalSinceReferenceDate) == [1_000, 1_060, 1_120, 1_180])
        #expect(after == before)
    }

    @Test func theTimeMovesUseTheClockSetAfterTheShape() throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let clock = ManualClock(seconds: 0)
        stack.historyClock = { clock.now }
        let counter = Counter()
        for value in 1...3 {
            clock.advance(seconds: 600)
            group(stack) { counter.set(value, on: stack) }
        }
        // Ten minutes back from node 3 is node 2.
        try stack.earlier(by: .seconds(600))
        #expect(stack.currentNode == .init(sequence: 2) && counter.value == 2)
        try stack.later(by: .seconds(600))
        #expect(stack.currentNode == .init(sequence: 3))
    }

    @Test func aClockBehindTheDatesHeldMovesThemBackKeepingTheirIntervals() throws {
        let stack = makeStack()
        let first = ManualClock(seconds: 5_000)
        stack.historyClock = { first.now }
        stack.historyShape = .tree
        let counter = Counter()
        for value in 1...2 {
            first.advance(seconds: 100)
            group(stack) { counter.set(value, on: stack) }
        }
        let second = ManualClock(seconds: 1_000)
        stack.historyClock = { second.now }
        second.advance(seconds: 50)
        group(stack) { counter.set(3, on: stack) }
        let dates = try #require(stack.historyTree).nodes.map(\.date.timeIntervalSinceReferenceDate)
        #expect(dates == [800, 900, 1_000, 1_050])
    }

    @Test func aClockSetBeforeEachChangeDatesEachChangeAndLeavesTheDatesHeld() throws {
        // A test that moves time by hand sets a new clock before each change.
        let stack = makeStack()
        stack.historyShape = .tree
        let root = try #require(stack.historyTree?.nodes.first?.date)
        let counter = Counter()
        for value in 1...3 {
            let date = root.addingTimeInterval(Double(value) * 60)
            stack.historyClock = { date }
            group(stack) { counter.set(value, on: stack) }
        }
        let dates = try #require(stack.historyTree).nodes.map(\.date)
        #expect(dates == (0...3).map { root.addingTimeInterval(Double($0) * 60) })
    }
}
