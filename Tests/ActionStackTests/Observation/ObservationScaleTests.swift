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

// Observation at scale: a dropped state stream and many cancelled tokens leave at once, and the
// tokens left still hear every change. (The cost, at n and 16n observers, is measured in the
// benchmark package; these check the behaviour.)

struct ObservationScaleTests {
    @Test func aDroppedStateStreamLeavesAtOnce() async {
        let stack = makeStack()
        var stream: AsyncStream<ActionStack.State>? = stack.stateUpdates()
        #expect(stack._observerCount == 1)
        stream = nil
        _ = stream
        #expect(stack._observerCount == 0, "removed when dropped, not at the next change")
    }

    @Test func cancellingManyTokensInAnyOrderLeavesTheOthers() {
        let stack = makeStack()
        let counter = Counter()
        var heard = Array(repeating: 0, count: 1000)
        var tokens = (0..<1000).map { index in stack.observe { _ in heard[index] += 1 } }
        for index in stride(from: 0, to: 1000, by: 2) { tokens[index].cancel() }
        group(stack) { counter.set(1, on: stack) }
        let calls = heard[1]
        #expect(calls > 0)
        #expect(heard.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? 0 : calls) })
        tokens.removeAll()
        #expect(stack._observerCount == 0)
    }
}
