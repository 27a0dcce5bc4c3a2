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

/// A jump in a branching history whose steps a peer's changes left dead reaches the same node, the
/// same document and the same history awaited (``ActionStack/performJump(toNode:isolation:)``) as
/// synchronously (``ActionStack/jump(toNode:)``): two copies of one seeded history, one driven each
/// way, agree after every move.
@Suite @MainActor struct AwaitedJumpsPastDeadStepsAgreeTests {
    struct Look: Equatable {
        var text: String
        var node: ActionStack.HistoryNode.ID?
        var undo: Int
        var redo: Int
        var tree: ActionStack.HistoryTree?
    }

    static func look(_ doc: SharedText) -> Look {
        // The nodes' dates differ between the copies (made a moment apart).
        var tree = doc.stack.historyTree
        if let nodes = tree?.nodes {
            for index in nodes.indices { tree?.nodes[index].date = .distantPast }
        }
        return Look(
            text: doc.text, node: doc.stack.currentNode, undo: doc.stack.undoCount, redo: doc.stack.redoCount,
            tree: tree)
    }

    /// With `removals`, the walk also records steps on a second target (which a peer's change
    /// passes), removes that target's actions, and limits the steps kept in branches.
    @Test(arguments: [false, true])
    func aJumpAwaitedReachesWhatTheSynchronousJumpReaches(removals: Bool) async throws {
        for seed in UInt64(1)...UInt64(Workload.scaled(60)) {
            var random = SeededGenerator(seed: seed &+ 90_000)
            let docs = (0..<2).map { _ in
                let stack = ActionStack()
                stack.groupsByEvent = false
                stack.historyShape = .tree
                return SharedText("xyz", stack: stack)
            }
            let notes = docs.map { _ in SnapshotsAfterRemoteChangesTests.Note() }
            var letter = 0
            var log: [String] = []
            for index in 0..<80 {
                let count = docs[0].text.unicodeScalars.count
                var what = ""
                switch random.next(removals ? 9 : 6) {
                case 0, 1:
                    let offset = random.int(0...count)
                    letter += 1
                    let word = String(UnicodeScalar(UInt8(65 + letter % 26)))
                    what = "type \(word) at \(offset)"
                    for doc in docs {
                        doc.stack.beginUndoGrouping()
                        doc.type(word, at: offset)
                        doc.stack.endUndoGrouping()
                    }
                case 2:
                    guard count > 0 else { continue }
                    let offset = random.int(0...(count - 1))
                    let scalars = docs[0].text.unicodeScalars
                    let scalar = String(scalars[scalars.index(scalars.startIndex, offsetBy: offset)])
                    what = "peer erases at \(offset)"
                    for doc in docs { doc.receive(.delete(scalar, at: offset)) }
                case 3:
                    what = "undo"
                    for doc in docs where doc.stack.canUndo { doc.stack.undo() }
                case 6:
                    let typesToo = random.next(2) == 0
                    what = "note step\(typesToo ? " with text" : "")"
                    for (doc, note) in zip(docs, notes) {
                        doc.stack.beginUndoGrouping()
                        note.items.append("n")
                        doc.stack.registerUndo(
                            SnapshotsAfterRemoteChangesTests.NoteCommand(add: nil), on: note, key: "note")
                        if typesToo { doc.type("n", at: 0) }
                        doc.stack.endUndoGrouping()
                    }
                case 7:
                    what = "remove the note's actions"
                    for (doc, note) in zip(docs, notes) { doc.stack.removeAllActions(withTarget: note) }
                case 8:
                    let limit = [0, 1, 3][random.int(0...2)]
                    what = "branch steps \(limit)"
                    for doc in docs { doc.stack.maximumBranchSteps = limit }
                default:
                    guard let tree = docs[0].stack.historyTree else { continue }
                    let node = tree.nodes[random.int(0...(tree.nodes.count - 1))].id
                    what = "jump to \(node)"
                    try docs[0].stack.jump(toNode: node)
                    try await docs[1].stack.performJump(toNode: node)
                }
                log.append("\(index) \(what)")
                let (sync, awaited) = (Self.look(docs[0]), Self.look(docs[1]))
                if sync != awaited {
                    Issue.record(
                        """
                        seed \(seed) op \(index) \(what): the awaited jump differs from the synchronous one
                          \(log.suffix(25).joined(separator: "\n  "))
                          sync:    \(sync.text) at \(String(describing: sync.node)) \(sync.undo)/\(sync.redo)
                          awaited: \(awaited.text) at \(String(describing: awaited.node)) \(awaited.undo)/\(awaited.redo)
                          sync tree:    \(String(describing: sync.tree))
                          awaited tree: \(String(describing: awaited.tree))
                        """)
                    return
                }
            }
        }
    }
}
