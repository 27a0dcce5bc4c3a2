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

// A recorder with a save limit (`maximumSteps`) whose history has branches at the same distance
// from the current node: the recovered history keeps the same branches a full save keeps (the
// lowest node first among steps at one distance and place), not an order only the live stack knew.

@MainActor
@Suite struct RecoveredBranchesUnderASaveLimitTests {
    /// Branches made in the order `order` (each a change from the root, undone), then a change
    /// from the root: a save of 2 steps keeps the current step and one branch.
    private func expectRecoveryKeepsTheSavedBranch(revisiting: [Int], sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let files = try RecorderFiles()
        defer { files.cleanUp() }
        let stack = hrStack(.tree)
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: files.journal, stack: stack, maximumSteps: 2) { "v" }
        for value in 1...3 {
            hrChange(doc, to: value, on: stack)
            stack.undo()
        }
        // Visiting branches changes the live stack's order of them (least recently visited first).
        for node in revisiting {
            try stack.jump(toNode: .init(sequence: node))
            try stack.jump(toNode: .init(sequence: 0))
        }
        hrChange(doc, to: 9, on: stack)
        let full = try stack.savedHistory(maximumSteps: 2)
        let recovered = try #require(
            try HistoryRecorder.recover(from: files.journal, fingerprint: "v", registry: testRegistry())?
                .histories[HistoryRecorder.defaultHistoryName])
        #expect(recovered.steps.map(\.node) == full.steps.map(\.node), sourceLocation: sourceLocation)
        // The lowest node is the branch kept.
        #expect(full.steps.map(\.node).sorted() == [1, 4], sourceLocation: sourceLocation)
        withExtendedLifetime(recorder) {}
    }

    @Test func theRecoveredBranchIsTheSavedOne() throws {
        try expectRecoveryKeepsTheSavedBranch(revisiting: [])
        try expectRecoveryKeepsTheSavedBranch(revisiting: [1])
        try expectRecoveryKeepsTheSavedBranch(revisiting: [2, 1])
        try expectRecoveryKeepsTheSavedBranch(revisiting: [3, 1, 2])
    }
}
