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

/// An awaited undo, redo or jump (`performUndo()`, `performRedo()`, `performJump(to:)`) leaves the
/// history and the document exactly as the synchronous call (`undo()`, `redo()`, `jump(to:)`)
/// leaves them, whatever came before: open groups, limits (`levelsOfUndo`, `maximumCost`, set
/// between steps), clean marks, removals by target, freed targets, registration disabled, empty
/// groups dropped or kept, a linear or a branching history. Two copies of one seeded history, the
/// first recorded with synchronous steps, the second with steps that also hold an awaited action,
/// are compared after every operation with each other, not with a model: a rule that the model and
/// the awaited path share cannot hide a difference from the synchronous one (the trim of the
/// group an undo closes first was such a rule).
@Suite(.timeLimit(.minutes(10))) @MainActor struct AwaitedStepsAgreeTests {
    /// One value of the document, the target of its own changes.
    final class Cell {
        var value = 0
    }

    /// One copy: its stack, its cells (nil once freed) and whether its steps await.
    final class Copy {
        let stack: ActionStack
        var cells: [Cell?]
        let awaited: Bool

        init(awaited: Bool, tree: Bool, dropsEmptyGroups: Bool, groupsByEvent: Bool) {
            stack = makeStack(groupsByEvent: groupsByEvent, dropsEmptyGroups: dropsEmptyGroups)
            if tree { stack.historyShape = .tree }
            stack.historyClock = { Date(timeIntervalSinceReferenceDate: 1000) }
            cells = (0..<4).map { _ in Cell() }
            self.awaited = awaited
        }

        /// Sets `cell` to `new` and registers the inverse: a synchronous action of cost 1 in both
        /// copies, and in the awaited copy an asynchronous action that does the change.
        nonisolated static func set(_ cell: Cell, to new: Int, on stack: ActionStack, awaited: Bool) {
            let old = cell.value
            if awaited {
                cell.value = new
                stack.registerAsyncUndo(withTarget: cell) { cell in
                    await Task.yield()
                    Copy.set(cell, to: old, on: stack, awaited: true)
                }
                stack.registerUndo(withTarget: cell, options: .init(cost: 1)) { _ in }
            } else {
                cell.value = new
                stack.registerUndo(withTarget: cell, options: .init(cost: 1)) { cell in
                    Copy.set(cell, to: old, on: stack, awaited: false)
                }
            }
        }

        func set(_ index: Int, to new: Int) {
            guard let cell = cells[index] else { return }
            Self.set(cell, to: new, on: stack, awaited: awaited)
        }

        var look: Look {
            Look(
                values: cells.map { $0?.value }, undo: stack.undoEntries.map(\.actionName),
                redo: stack.redoEntries.map(\.actionName), position: stack.historyPosition,
                level: stack.groupingLevel, isClean: stack.isClean, canUndo: stack.canUndo,
                canRedo: stack.canRedo, node: stack.currentNode,
                // Each node as a history panel shows it, but its action count (an awaited step
                // holds one more action per change).
                tree: stack.historyTree.map { tree in
                    tree.nodes.map {
                        "#\($0.sequence)<\($0.parent?.sequence ?? -1) \($0.actionName) \($0.children.map(\.sequence)) "
                            + "redo \($0.redoChild?.sequence ?? -1)\($0.isClean ? " clean" : "")"
                            + "\($0.isCurrent ? " current" : "")\($0.actionCount == 0 ? " empty" : "")"
                    }
                })
        }
    }

    struct Look: Equatable, CustomStringConvertible {
        var values: [Int?]
        var undo: [String]
        var redo: [String]
        var position: Int
        var level: Int
        var isClean: Bool
        var canUndo: Bool
        var canRedo: Bool
        var node: ActionStack.HistoryNode.ID?
        var tree: [String]?

        var description: String {
            "values \(values) undo \(undo) redo \(redo) position \(position) level \(level) clean \(isClean) "
                + "node \(node.map { "\($0.sequence)" } ?? "-") tree \(tree ?? [])"
        }
    }

    /// One seeded run of `count` operations on both copies.
    static func run(seed: UInt64, count: Int) async {
        var random = SeededGenerator(seed: seed)
        let tree = Bool.random(using: &random)
        let drops = Int.random(in: 0..<4, using: &random) == 0
        let byEvent = Int.random(in: 0..<4, using: &random) == 0
        let copies = [
            Copy(awaited: false, tree: tree, dropsEmptyGroups: drops, groupsByEvent: byEvent),
            Copy(awaited: true, tree: tree, dropsEmptyGroups: drops, groupsByEvent: byEvent),
        ]
        var trace: [String] = [
            "seed \(seed): \(tree ? "tree" : "linear")\(drops ? ", drops empty groups" : "")"
                + (byEvent ? ", groups by event" : "")
        ]
        var names = 0
        var before = copies[0].look
        for _ in 0..<count {
            let open = copies[0].stack.groupingLevel > 0
            let index = Int.random(in: 0..<4, using: &random)
            let value = Int.random(in: 1...99, using: &random)
            let operation = Int.random(in: 0..<100, using: &random)
            switch operation {
            case 0..<22:
                names += 1
                let twice = Bool.random(using: &random)
                let other = Int.random(in: 0..<4, using: &random)
                trace.append("change #\(index) to \(value)\(twice ? " and #\(other)" : "") as c\(names)")
                for copy in copies {
                    copy.stack.beginUndoGrouping()
                    copy.set(index, to: value)
                    if twice { copy.set(other, to: value + 1) }
                    copy.stack.setActionName("c\(names)")
                    copy.stack.endUndoGrouping()
                }
            case 22..<28 where !open:
                names += 1
                trace.append("open a group setting #\(index) to \(value) as g\(names)")
                for copy in copies {
                    copy.stack.beginUndoGrouping()
                    copy.set(index, to: value)
                    copy.stack.setActionName("g\(names)")
                }
            case 28..<31 where open:
                trace.append("close the group")
                for copy in copies { copy.stack.endUndoGrouping() }
            case 31..<31 + 3 where open:
                trace.append("open group: set #\(index) to \(value)")
                for copy in copies { copy.set(index, to: value) }
            case 34..<50:
                trace.append("undo")
                copies[0].stack.undo()
                _ = try? await copies[1].stack.performUndo()
            case 50..<62:
                trace.append("redo")
                copies[0].stack.redo()
                _ = try? await copies[1].stack.performRedo()
            case 62..<72:
                let total = copies[0].stack.undoEntries.count + copies[0].stack.redoEntries.count
                let position = Int.random(in: 0...max(0, total), using: &random)
                trace.append("jump to \(position)")
                copies[0].stack.jump(to: position)
                _ = try? await copies[1].stack.performJump(to: position)
            case 72..<77:
                let levels = Int.random(in: 0...4, using: &random)
                trace.append("levelsOfUndo = \(levels)")
                for copy in copies { copy.stack.levelsOfUndo = levels }
            case 77..<81:
                let cost = [0, 0, 2, 3, 5, 8][Int.random(in: 0..<6, using: &random)]
                trace.append("maximumCost = \(cost)")
                for copy in copies { copy.stack.maximumCost = cost }
            case 81..<86:
                trace.append("markClean")
                for copy in copies { copy.stack.markClean() }
            case 86..<89:
                trace.append("removeAllActions(withTarget: #\(index))")
                for copy in copies { if let cell = copy.cells[index] { copy.stack.removeAllActions(withTarget: cell) } }
            case 89..<91:
                trace.append("free #\(index), then a new cell there")
                for copy in copies { copy.cells[index] = Cell() }
            case 91..<95:
                names += 1
                trace.append("with registration disabled: set #\(index) to \(value) (c\(names))")
                for copy in copies {
                    copy.stack.disableUndoRegistration()
                    copy.stack.beginUndoGrouping()
                    copy.set(index, to: value)
                    copy.stack.setActionName("c\(names)")
                    copy.stack.endUndoGrouping()
                    copy.stack.enableUndoRegistration()
                }
            case 95..<97 where byEvent:
                trace.append("outside a group: set #\(index) to \(value)")
                for copy in copies { copy.set(index, to: value) }
            case 97..<99 where byEvent:
                trace.append("endEvent")
                for copy in copies { copy.stack.endEvent() }
            case 99 where Int.random(in: 0..<3, using: &random) == 0:
                trace.append("removeAllActions")
                for copy in copies { copy.stack.removeAllActions() }
            case 28..<31 where !open && !byEvent && Int.random(in: 0..<2, using: &random) == 0:
                // A scoped group: `group(named:_:)`, or `asyncGroup(named:_:)` in the awaited copy;
                // its body may set nothing, and may throw (the group is rolled back). Not when
                // grouping by event: there the scoped group nests in the event's open group, and
                // the asynchronous group is a step of its own (which the event's close never closes).
                names += 1
                let sets = Int.random(in: 0...2, using: &random)
                // A throwing body only with nothing to redo: a synchronous group's registrations
                // empty the redo stack as they come, an asynchronous group's only when it closes
                // (`asyncGroup(named:isolation:_:)` says so).
                let throwsAtEnd = Int.random(in: 0..<4, using: &random) == 0 && !copies[0].stack.canRedo
                let other = Int.random(in: 0..<4, using: &random)
                let ending = throwsAtEnd ? ", throws" : ""
                trace.append("scoped group s\(names): \(sets) sets of #\(index), #\(other)\(ending)")
                struct Failure: Error {}
                for copy in copies {
                    let body = { () throws -> Void in
                        if sets > 0 { copy.set(index, to: value) }
                        if sets > 1 { copy.set(other, to: value + 2) }
                        if throwsAtEnd { throw Failure() }
                    }
                    if copy.awaited {
                        _ = try? await copy.stack.asyncGroup(named: "s\(names)") {
                            await Task.yield()
                            try body()
                        }
                    } else {
                        _ = try? copy.stack.group(named: "s\(names)", body)
                    }
                }
            case 95..<100:
                names += 1
                trace.append("an empty group e\(names)")
                for copy in copies {
                    copy.stack.beginUndoGrouping()
                    copy.stack.setActionName("e\(names)")
                    copy.stack.endUndoGrouping()
                }
            default:
                continue
            }
            let (synchronous, awaited) = (copies[0].look, copies[1].look)
            if synchronous != awaited {
                Issue.record(
                    """
                    The awaited copy differs from the synchronous one after "\(trace.last!)":
                      synchronous: \(synchronous)
                      awaited:     \(awaited)
                      both before: \(before)
                    \(trace.suffix(25).joined(separator: "\n"))
                    """)
                return
            }
            for copy in copies { copy.stack._checkInvariants() }
            before = synchronous
        }
    }

    @Test(arguments: 0..<150)
    func anAwaitedStepLeavesWhatTheSynchronousOneLeaves(seed: Int) async {
        await Self.run(seed: UInt64(70_000 + seed), count: 160)
    }
}
