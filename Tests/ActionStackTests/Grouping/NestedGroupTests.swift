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

/// Groups nest as deep as a caller opens them: nothing recurses on the depth, so hundreds of
/// thousands of levels neither overflow the call stack nor make a registration slower.
struct NestedGroupTests {
    @Test func groupsNestHundredsOfThousandsDeepWithoutRecursion() {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.postsNotifications = false
        stack.dropsEmptyGroups = true
        stack.misusePolicy = .report  // the redo below is a misuse on purpose
        let counter = Counter()
        let depth = 200_000
        for _ in 0..<depth { stack.beginUndoGrouping() }
        #expect(stack.groupingLevel == depth)
        counter.set(1, on: stack)
        stack.endUndoGrouping()
        stack.undoNestedGroup()  // the innermost group, nested 199,999 deep
        #expect(counter.value == 0)
        stack.redo()  // a redo with groups open closes... not: more than one is open
        #expect(stack.lastMisuse == .nestedGroupsOpen(.redo, groupingLevel: depth - 1))
        for _ in 1..<depth { stack.endUndoGrouping() }
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 0, "the outer groups closed empty (its only action was undone alone)")
        stack.redo()
        #expect(counter.value == 1)
        stack.removeAllActions(withTarget: counter)
        stack.removeAllActions()
        #expect(stack.undoCount == 0)
    }
}
