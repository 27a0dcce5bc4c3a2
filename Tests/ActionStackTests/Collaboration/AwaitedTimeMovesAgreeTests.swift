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

/// Moves in a branching history (`earlier`/`later` by changes and by time, jumps) reach the same
/// node, the same document and the same tree whether they run at once or as a request one awaited
/// step at a time: one walk decides both (`TreeWalk`). Two copies of one seeded history, the first
/// recorded with synchronous steps, the second with steps whose text edit awaits (so its moves are
/// requests), agree after every operation, while a peer's changes leave steps dead, handlers of
/// the steps a move takes free targets or register nothing, targets are freed and removed, and the
/// branch limit changes.
@Suite(.timeLimit(.minutes(10))) @MainActor struct AwaitedTimeMovesAgreeTests {
    final class Box {}

    /// The boxes the steps act on, held by the test (a step's handler may let one go).
    final class Holders {
        var boxes: [Box?] = []
        let other = Box()
    }

    /// A limit an observer of the step notifications sets during a move, at its `at`-th step.
    final class LimitPlan: @unchecked Sendable {
        var at = -1
        var apply: ((ActionStack) -> Void)?
        weak var stack: ActionStack?
        var tokens: [any NSObjectProtocol] = []

        init(_ stack: ActionStack) {
            self.stack = stack
            for name in [ActionStack.didUndoChangeNotification, ActionStack.didRedoChangeNotification] {
                tokens.append(
                    // Weak: the plan goes (and removes its observers) with its run. The center
                    // matches `object` by address, so an observer left behind would hear a later
                    // stack made at the same address, on another test's thread: only this plan's
                    // own live stack is heard.
                    NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) {
                        [weak self] notification in
                        guard let self, self.stack != nil, (notification.object as AnyObject?) === self.stack else {
                            return
                        }
                        MainActor.assumeIsolated {
                            self.at -= 1
                            if self.at == 0, let stack = self.stack, let apply = self.apply {
                                apply(stack)
                                self.apply = nil
                            }
                        }
                    })
            }
        }

        deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }
    }

    struct Look: Equatable {
        var text: String
        var node: ActionStack.HistoryNode.ID?
        var undo: Int
        var redo: Int
        var alive: [Bool]
        var tree: ActionStack.HistoryTree?
    }

    static func look(_ doc: SharedText, _ holders: Holders) -> Look {
        Look(
            text: doc.text, node: doc.stack.currentNode, undo: doc.stack.undoCount, redo: doc.stack.redoCount,
            alive: holders.boxes.map { $0 != nil }, tree: doc.stack.historyTree)
    }

    /// A random move in time, the same for both copies.
    enum Move: CustomStringConvertible {
        case earlier(Int)
        case later(Int)
        case earlierBy(Double)
        case laterBy(Double)

        var description: String {
            switch self {
            case .earlier(let count): "earlier(\(count))"
            case .later(let count): "later(\(count))"
            case .earlierBy(let seconds): "earlier(by: \(seconds) s)"
            case .laterBy(let seconds): "later(by: \(seconds) s)"
            }
        }

        @MainActor func run(on stack: ActionStack) throws {
            switch self {
            case .earlier(let count): try stack.earlier(count)
            case .later(let count): try stack.later(count)
            case .earlierBy(let seconds): try stack.earlier(by: .milliseconds(Int(seconds * 1000)))
            case .laterBy(let seconds): try stack.later(by: .milliseconds(Int(seconds * 1000)))
            }
        }
    }

    /// Runs `call` on the awaited copy and waits for the request it started, if it started one.
    static func awaitRequest(of stack: ActionStack, _ call: () throws -> Void) async throws {
        let before = stack.startedRequest
        try call()
        if let request = stack.startedRequest, request !== before { _ = try await request.value() }
    }

    @Test(arguments: [false, true])
    func aMoveAwaitedReachesWhatTheSynchronousMoveReaches(freesTargets: Bool) async throws {
        for seed in UInt64(1)...UInt64(Workload.scaled(120)) {
            var random = SeededGenerator(seed: seed &+ 130_000)
            let docs = (0..<2).map { _ in
                let stack = ActionStack()
                stack.groupsByEvent = false
                stack.historyShape = .tree
                return SharedText("xyz", stack: stack)
            }
            let holders = [Holders(), Holders()]
            var now = 1000.0
            for doc in docs {
                let time = now
                doc.stack.historyClock = { Date(timeIntervalSinceReferenceDate: time) }
            }
            let plans = docs.map { LimitPlan($0.stack) }
            var letter = 0
            var log: [String] = []
            for index in 0..<70 {
                now += Double(random.int(1...20))
                for doc in docs {
                    let time = now
                    doc.stack.historyClock = { Date(timeIntervalSinceReferenceDate: time) }
                }
                let count = docs[0].text.unicodeScalars.count
                var what = ""
                switch random.next(freesTargets ? 14 : 8) {
                case 0, 1:
                    let offset = random.int(0...count)
                    letter += 1
                    let word = String(UnicodeScalar(UInt8(65 + letter % 26)))
                    what = "type \(word) at \(offset)"
                    for (number, doc) in docs.enumerated() {
                        doc.stack.beginUndoGrouping()
                        Self.type(word, at: offset, in: doc, awaited: number == 1)
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
                    if docs[0].stack.canUndo { docs[0].stack.undo() }
                    if docs[1].stack.canUndo { try await docs[1].stack.performUndo() }
                case 4, 5, 6, 12, 13:
                    let kind = random.next(3)
                    let move: Move =
                        switch random.next(4) {
                        case 0: .earlier(random.int(0...3))
                        case 1: .later(random.int(0...3))
                        case 2: .earlierBy(Double(random.int(0...60)))
                        default: .laterBy(Double(random.int(0...60)))
                        }
                    what = "\(move)"
                    if kind == 1 {
                        // A limit set by an observer of the move's steps: it waits until the move ends.
                        let at = random.int(1...3)
                        let levels = random.next(2) == 0
                        // Lowered, raised or lifted (0): a move, synchronous or awaited, is trimmed
                        // once, at its end, with the limit as it is then.
                        let limit = random.int(0...3)
                        what += ", \(levels ? "levelsOfUndo" : "maximumBranchSteps") = \(limit) at step \(at)"
                        for plan in plans {
                            plan.at = at
                            plan.apply = { stack in
                                if levels { stack.levelsOfUndo = limit } else { stack.maximumBranchSteps = limit }
                            }
                        }
                    } else if kind == 2 {
                        // A group open when the move starts: closed first, a node of its own.
                        letter += 1
                        let word = String(UnicodeScalar(UInt8(97 + letter % 26)))
                        what = "type \(word) in an open group, then \(move)"
                        for (number, doc) in docs.enumerated() {
                            doc.stack.beginUndoGrouping()
                            Self.type(word, at: 0, in: doc, awaited: number == 1)
                        }
                    }
                    try move.run(on: docs[0].stack)
                    try await Self.awaitRequest(of: docs[1].stack) { try move.run(on: docs[1].stack) }
                    for (doc, plan) in zip(docs, plans) {
                        plan.apply = nil
                        if doc.stack.groupingLevel > 0 { doc.stack.endUndoGrouping() }
                    }
                case 7:
                    guard let tree = docs[0].stack.historyTree else { continue }
                    let node = tree.nodes[random.int(0...(tree.nodes.count - 1))].id
                    what = "jump to \(node)"
                    try docs[0].stack.jump(toNode: node)
                    try await docs[1].stack.performJump(toNode: node)
                case 8, 9:
                    // A step on a new box, with text or without; its undo may let another box go
                    // (and then registers nothing for that part).
                    let typesToo = random.next(2) == 0
                    let frees =
                        holders[0].boxes.isEmpty || random.next(2) == 0
                        ? nil : random.int(0...(holders[0].boxes.count - 1))
                    what = "box step\(typesToo ? " with text" : "")\(frees.map { ", undo frees box \($0)" } ?? "")"
                    for (number, (doc, held)) in zip(docs, holders).enumerated() {
                        let box = Box()
                        held.boxes.append(box)
                        doc.stack.beginUndoGrouping()
                        doc.stack.registerUndo(withTarget: box) { _ in }
                        if let frees {
                            doc.stack.registerUndo(withTarget: held.other) { [held] _ in held.boxes[frees] = nil }
                        }
                        if typesToo { Self.type("n", at: 0, in: doc, awaited: number == 1) }
                        doc.stack.endUndoGrouping()
                    }
                case 10:
                    guard !holders[0].boxes.isEmpty else { continue }
                    let which = random.int(0...(holders[0].boxes.count - 1))
                    if random.next(2) == 0 {
                        what = "free box \(which)"
                        for held in holders { held.boxes[which] = nil }
                    } else {
                        what = "remove box \(which)'s actions"
                        for (doc, held) in zip(docs, holders) {
                            if let box = held.boxes[which] { doc.stack.removeAllActions(withTarget: box) }
                        }
                    }
                case 11:
                    let limit = [0, 1, 3, Int.max][random.int(0...3)]
                    what = "branch steps \(limit), levels of undo 0"
                    for doc in docs {
                        doc.stack.maximumBranchSteps = limit
                        doc.stack.levelsOfUndo = 0
                    }
                default:
                    break
                }
                log.append("\(index) \(what)")
                let (sync, awaited) = (Self.look(docs[0], holders[0]), Self.look(docs[1], holders[1]))
                if sync != awaited {
                    Issue.record(
                        """
                        seed \(seed) op \(index) \(what): the awaited move differs from the synchronous one
                          \(log.suffix(25).joined(separator: "\n  "))
                          sync:    \(sync.text) at \(String(describing: sync.node)) \(sync.undo)/\(sync.redo) \(sync.alive)
                          awaited: \(awaited.text) at \(String(describing: awaited.node)) \(awaited.undo)/\(awaited.redo) \(awaited.alive)
                          sync tree:    \(String(describing: sync.tree))
                          awaited tree: \(String(describing: awaited.tree))
                        """)
                    return
                }
            }
            for doc in docs { doc.stack._checkInvariants() }
            await Task.yield()
        }
    }

    /// Types `string` as a step's edit: synchronous in the first copy, awaited in the second.
    static func type(_ string: String, at offset: Int, in doc: SharedText, awaited: Bool) {
        guard awaited else {
            doc.type(string, at: offset)
            return
        }
        let edit = TextEdit.insert(string, at: offset)
        try! edit.apply(to: &doc.text)
        doc.stack.registerAsyncUndo(AwaitedEdit(edit: edit.inverse), on: doc, key: SharedText.key)
    }
}

/// An edit of a shared text whose undo awaits (nothing: it is performed at once), and moves past a
/// peer's edits, as ``TextCommand`` does.
private struct AwaitedEdit: AsyncUndoCommand, RebasableCommand {
    static let commandType = "test.text.awaited-agree"
    var edit: TextEdit

    nonisolated(nonsending) func perform(on document: SharedText, in stack: ActionStack) async throws {
        try edit.apply(to: &document.text)
        stack.registerAsyncUndo(AwaitedEdit(edit: edit.inverse), on: document, key: SharedText.key)
    }

    func rebased(over change: TextEdit) -> AwaitedEdit? { edit.rebased(over: change).map(Self.init) }
    func transform(_ change: TextEdit) -> TextEdit? { edit.transform(change) }
}
