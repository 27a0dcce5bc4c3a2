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

/// A cell of a spreadsheet-like document; the commands below change it.
final class Cell {
    let key: String
    var value = 0

    init(key: String) { self.key = key }
}

/// Sets a cell's value.
struct SetCell: UndoCommand {
    static let commandType = "test.setCell"
    var value: Int

    func perform(on cell: Cell, in stack: ActionStack) {
        stack.registerUndo(SetCell(value: cell.value), on: cell, key: cell.key, options: .init(cost: 1 + value % 3))
        cell.value = value
    }
}

/// Random histories of commands, saved at random points and restored into a fresh stack over copies
/// of the document: the two stacks then agree on everything observable, and stay in step through
/// random undos, redos and moves.
struct SaveRestorePropertyTests {
    struct World {
        let stack: ActionStack
        let cells: [Cell]

        init(tree: Bool, copying other: [Cell]? = nil) {
            stack = makeStack()
            if tree { stack.historyShape = .tree }
            cells = (0..<3).map { index in
                let cell = Cell(key: "cell\(index)")
                cell.value = other?[index].value ?? 0
                return cell
            }
        }

        func resolve(_ key: String) -> AnyObject? { cells.first { $0.key == key } }

        /// Everything observable about the stack and the document.
        var observed: String {
            var lines = [
                "values \(cells.map(\.value))", "clean \(stack.isClean)",
                "undo \(stack.undoCount) \(stack.undoMenuItemTitle) \(stack.undoActionIsDiscardable)",
                "redo \(stack.redoCount) \(stack.redoMenuItemTitle) \(stack.redoActionIsDiscardable)",
                "entries \(stack.undoEntries.map { "\($0.title)/\($0.actionCount)/\($0.isClean)/\($0.canBeSaved)" })",
                "redoEntries \(stack.redoEntries.map { "\($0.title)/\($0.actionCount)/\($0.isClean)" })",
                "info \(String(describing: stack.undoActionUserInfoValue(forKey: "row")))",
            ]
            if let tree = stack.historyTree {
                lines.append("current \(tree.current)")
                lines.append(
                    "tree \(tree.nodes.map { "\($0.id)<\(String(describing: $0.parent))>\($0.title)|\($0.isClean)|\(String(describing: $0.redoChild))" })"
                )
            }
            return lines.joined(separator: "\n")
        }
    }

    @Test(arguments: 0..<60) func aRestoredHistoryAgreesWithTheOneSaved(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        let tree = seed % 2 == 0
        let world = World(tree: tree)
        world.stack.dropsEmptyGroups = seed % 3 == 0
        for _ in 0..<40 {
            switch random.next() % 6 {
            case 0, 1, 2:
                world.stack.beginUndoGrouping()
                let cell = world.cells[Int(random.next() % 3)]
                SetCell(value: Int(random.next() % 50)).perform(on: cell, in: world.stack)
                if random.next() % 3 == 0 {
                    SetCell(value: Int(random.next() % 50)).perform(on: world.cells[0], in: world.stack)
                }
                world.stack.setActionName("Set \(cell.key)")
                if random.next() % 4 == 0 { world.stack.setActionUserInfoValue(Int(random.next() % 9), forKey: "row") }
                if random.next() % 5 == 0 { world.stack.setActionIsDiscardable(true) }
                world.stack.endUndoGrouping()
            case 3: world.stack.undo()
            case 4: world.stack.redo()
            default:
                if random.next() % 2 == 0 { world.stack.markClean() }
                if tree, let nodes = world.stack.historyTree?.nodes {
                    try world.stack.jump(toNode: nodes[Int(random.next() % UInt64(nodes.count))].id)
                }
            }
        }
        let saved = try world.stack.savedHistory()
        let copy = World(tree: tree, copying: world.cells)
        copy.stack.dropsEmptyGroups = world.stack.dropsEmptyGroups
        let report = try copy.stack.restoreHistory(saved, resolvingTargets: copy.resolve)
        #expect(report.cuts.isEmpty)
        #expect(copy.observed == world.observed, "seed \(seed): restored")
        // In step through random moves.
        for move in 0..<30 {
            switch random.next() % 4 {
            case 0:
                world.stack.undo()
                copy.stack.undo()
            case 1:
                world.stack.redo()
                copy.stack.redo()
            case 2:
                if tree, let nodes = world.stack.historyTree?.nodes {
                    let target = nodes[Int(random.next() % UInt64(nodes.count))].id
                    try world.stack.jump(toNode: target)
                    try copy.stack.jump(toNode: target)
                }
            default:
                world.stack.markClean()
                copy.stack.markClean()
            }
            #expect(copy.observed == world.observed, "seed \(seed): move \(move)")
            if copy.observed != world.observed { return }
        }
        copy.stack._checkInvariants()
    }
}
