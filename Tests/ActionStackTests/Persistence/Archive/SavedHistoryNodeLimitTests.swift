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

/// The one limit on node numbers (`SavedHistory.maximumNode`): the archive's reader, its writer,
/// `validate()` and the restore, into a linear stack and into a branching one, all take the
/// largest number and all refuse the next.
@Suite struct SavedHistoryNodeLimitTests {
    let limit = SavedHistory.maximumNode

    /// A one-step history whose step leads from `root` to `root + 1`, current at the step.
    func history(root: Int, shape: ActionStack.HistoryShape = .tree) -> SavedHistory {
        SavedHistory(
            shape: shape, root: root, current: root + 1, clean: root,
            steps: [savedStep(root + 1, actions: [SavedAction(MoveFigure(x: 1, y: 2), key: "figure")])])
    }

    /// The same history as the archive's JSON.
    func json(root: Int, shape: String = "tree") -> Data {
        Data(
            (#"{"format":"ActionStack.History","version":2,"fingerprint":"f","histories":{"h":{"shape":"\#(shape)","#
                + #""root":\#(root),"current":\#(root + 1),"clean":\#(root),"commands":[["test.move",1,"figure"]],"#
                + #""steps":[1],"actions":[0],"payloads":[{"x":1,"y":2}]}}}"#).utf8)
    }

    @Test func theLimitIsTwoToTheThirtyFirstMinusOne() {
        #expect(limit == 2_147_483_647)
    }

    @Test func validateTakesTheLargestNodeAndRefusesTheNext() throws {
        try history(root: limit - 1).validate()
        try history(root: limit - 1, shape: .linear).validate()
        #expect(throws: SavedHistory.StructuralProblem.nodeOutOfRange(limit + 1)) {
            try history(root: limit).validate()
        }
        #expect(throws: SavedHistory.StructuralProblem.nodeOutOfRange(limit + 1)) {
            try history(root: limit, shape: .linear).validate()
        }
        // The root alone, with no step.
        try SavedHistory(shape: .tree, root: limit, current: limit, clean: nil, steps: []).validate()
        #expect(throws: SavedHistory.StructuralProblem.nodeOutOfRange(limit + 1)) {
            try SavedHistory(shape: .tree, root: limit + 1, current: limit + 1, clean: nil, steps: []).validate()
        }
        // A step that is not in a line (a branch from the root) takes the general path.
        let branching = SavedHistory(
            shape: .tree, root: 0, current: 0, clean: nil,
            steps: [
                savedStep(limit, parent: 0, redo: false, actions: [SavedAction(MoveFigure(x: 1, y: 2), key: "f")]),
                savedStep(limit + 1, parent: 0, redo: false, actions: [SavedAction(MoveFigure(x: 1, y: 2), key: "f")]),
            ])
        #expect(throws: SavedHistory.StructuralProblem.nodeOutOfRange(limit + 1)) { try branching.validate() }
        #expect(
            SavedHistory.StructuralProblem.nodeOutOfRange(limit + 1).description
                == "node 2147483648 is above 2147483647, the largest node number a saved history may hold")
    }

    @Test func theReaderTakesTheLargestNodeAndRefusesTheNext() throws {
        for shape in ["tree", "linear"] {
            let archive = try HistoryArchive(decoding: json(root: limit - 1, shape: shape), registry: testRegistry())
            #expect(archive.histories["h"]?.current == limit)
            #expect(archiveError(json(root: limit, shape: shape)) == .invalidHistory("h", .nodeOutOfRange(limit + 1)))
        }
        // Far beyond the 32 bits a branching stack numbers with.
        #expect(archiveError(json(root: 1 << 40)) == .invalidHistory("h", .nodeOutOfRange(1 << 40)))
    }

    @Test func theWriterRefusesWhatTheReaderWouldRefuse() throws {
        let data = try HistoryArchive(fingerprint: "f", histories: ["h": history(root: limit - 1)]).encoded()
        #expect(try HistoryArchive(decoding: data, registry: testRegistry()).histories["h"]?.root == limit - 1)
        #expect(throws: HistoryArchiveError.invalidHistory("h", .nodeOutOfRange(limit + 1))) {
            try HistoryArchive(fingerprint: "f", histories: ["h": history(root: limit)]).encoded()
        }
    }

    @Test(arguments: [ActionStack.HistoryShape.tree, .linear])
    func aRestoreTakesTheLargestNodeAndChangesNumberOnFromIt(into shape: ActionStack.HistoryShape) throws {
        let stack = makeStack()
        stack.historyShape = shape
        let figure = ArchiveFigure()
        let report = try stack.restoreHistory(history(root: limit - 1)) { _ in figure }
        #expect(report.restoredSteps == 1)
        #expect(stack.isClean == false)
        stack.undo()
        #expect(figure.x == 1 && stack.isClean)
        guard shape == .tree else { return }
        #expect(stack.historyTree?.root.sequence == limit - 1)
        stack.redo()
        #expect(stack.historyTree?.current.sequence == limit)
        // The changes after the restore number on from the highest restored node.
        for value in 0..<3 {
            stack.beginUndoGrouping()
            MoveFigure(x: Double(value), y: 0).perform(on: figure, in: stack)
            stack.endUndoGrouping()
        }
        #expect(stack.historyTree?.current.sequence == limit + 3)
        stack.undo()
        stack.undo()
        #expect(stack.historyTree?.current.sequence == limit + 1)
        #expect(stack._invariantViolations().isEmpty)
    }

    @Test(arguments: [ActionStack.HistoryShape.tree, .linear])
    func aRestoreRefusesANodeAboveTheLimitAndChangesNothing(into shape: ActionStack.HistoryShape) throws {
        let stack = makeStack()
        stack.historyShape = shape
        let figure = ArchiveFigure()
        var resolverCalls = 0
        #expect(
            throws: ActionStack.HistoryPersistenceError.malformed(
                "\(SavedHistory.StructuralProblem.nodeOutOfRange(limit + 1))")
        ) {
            try stack.restoreHistory(history(root: limit)) { _ in
                resolverCalls += 1
                return figure
            }
        }
        #expect(resolverCalls == 0)
        #expect(!stack.canUndo && !stack.canRedo && stack.isClean)
    }
}
