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

struct StateIDRenumberingTests {
    /// The same script on two stacks, one renumbering its state ids every few changes: the clean
    /// state, the entries' clean flags and the pattern of ids stay the same.
    @Test(arguments: [false, true])
    func renumberingStateIDsChangesNothingObservable(dropsEmptyGroups: Bool) {
        let normal = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        let renumbering = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        renumbering._stateRenumberingThreshold = 4
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % 9
        }
        let counters = (0..<2).map { _ in (Counter(), Counter()) }
        for step in 0..<400 {
            let choice = next()
            for (index, stack) in [normal, renumbering].enumerated() {
                let (a, b) = counters[index]
                switch choice {
                case 0, 1: group(stack) { a.set(step, on: stack) }
                case 2: group(stack) { b.set(step, on: stack) }
                case 3: stack.undo()
                case 4: stack.redo()
                case 5: stack.markClean()
                case 6: stack.removeAllActions(withTarget: b)
                case 7:
                    stack.beginUndoGrouping()
                    a.set(-step, on: stack)
                    stack.beginUndoGrouping()
                    b.set(-step, on: stack)
                    stack.endUndoGrouping()
                    stack.undoNestedGroup()
                    stack.endUndoGrouping()
                default: stack.jump(to: step % 5)
                }
            }
            #expect(normal._stateShape == renumbering._stateShape, "step \(step)")
            #expect(normal.isClean == renumbering.isClean)
            #expect(normal.undoEntries.map(\.isClean) == renumbering.undoEntries.map(\.isClean))
            #expect(normal.redoEntries.map(\.isClean) == renumbering.redoEntries.map(\.isClean))
            #expect(normal.isCleanAtStart == renumbering.isCleanAtStart)
        }
        #expect(counters[0].0.value == counters[1].0.value)
        #expect(renumbering._stateRenumberings > 10, "the ids were renumbered again and again")
        #expect(normal._stateRenumberings == 0)
    }
}
