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

/// The node table of a branching history as it grows and as removed nodes are compacted away, and
/// the history clock, replaced or not.
struct HistoryNodeTableTests {
    /// One change: a group setting the counter to `value`.
    private func change(_ counter: Counter, to value: Int, on stack: ActionStack) {
        stack.beginUndoGrouping()
        counter.set(value, on: stack)
        stack.endUndoGrouping()
    }

    @Test func pruningManyNodesKeepsEveryRemainingNodeReachableByNumberAndByJump() throws {
        let stack = makeTreeStack()
        stack.maximumBranchSteps = 5
        let counter = Counter()
        // Forty children of the root, each left behind by the next: pruning keeps the five left last.
        for value in 1...40 {
            change(counter, to: value, on: stack)
            stack.undo()
        }
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.map(\.sequence) == [0, 35, 36, 37, 38, 39, 40])
        #expect(tree.nodes.dropFirst().allSatisfy { $0.parent == node(0) })
        for sequence in [37, 35, 40, 36, 39, 38] {
            try stack.jump(toNode: node(sequence))
            #expect(counter.value == sequence)
        }
        #expect(throws: ActionStack.HistoryTreeError.noSuchNode(node(20))) { try stack.jump(toNode: node(20)) }
        // Numbers 1 to 34 are gone: the next older node of 35 is the root, the next newer of 0 is 35.
        try stack.jump(toNode: node(35))
        #expect(try stack.earlier(1) == node(0))
        #expect(counter.value == 0)
        #expect(try stack.later(1) == node(35))
        #expect(try stack.later(3) == node(38))
        #expect(counter.value == 38)
    }

    @Test func aLongHistoryKeepsEveryParentAndDate() throws {
        // The clock ticks a second per node; set before the tree, it dates the root too (tick 1).
        let stack = makeStack()
        let start = Date(timeIntervalSinceReferenceDate: 1_000_000)
        final class Ticks: @unchecked Sendable { var count = 0 }
        let ticks = Ticks()
        stack.historyClock = {
            ticks.count += 1
            return start.addingTimeInterval(Double(ticks.count))
        }
        stack.historyShape = .tree
        let counter = Counter()
        for value in 1...1_000 { change(counter, to: value, on: stack) }
        let tree = try #require(stack.historyTree)
        #expect(tree.nodes.count == 1_001)
        for (index, node) in tree.nodes.enumerated().dropFirst() {
            #expect(node.parent?.sequence == index - 1)
            #expect(node.date == start.addingTimeInterval(Double(index + 1)))
        }
        #expect(try stack.earlier(by: .seconds(500)) == node(500))
        #expect(counter.value == 500)
    }

    @Test func theSystemClockDatesNodesUntilAnotherIsSet() throws {
        let stack = makeTreeStack()
        let counter = Counter()
        let before = Date()
        change(counter, to: 1, on: stack)
        let after = Date()
        let first = try #require(stack.historyTree?[node(1)])
        #expect(first.date >= before && first.date <= after)
        #expect(stack.historyClock() >= before, "the clock read back is the system clock")
        let fixed = Date(timeIntervalSinceReferenceDate: 5_000_000_000)
        stack.historyClock = { fixed }
        change(counter, to: 2, on: stack)
        #expect(stack.historyTree?[node(2)]?.date == fixed)
        #expect(stack.historyClock() == fixed)
    }
}
