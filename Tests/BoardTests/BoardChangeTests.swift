// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackBoardModel
import Foundation
import Testing

/// The changes a shared board sends (`BoardChange`) and how the board's commands move past them.
struct BoardChangeTests {
    let u = UUID()
    let v = UUID()

    func record(_ uuid: UUID, _ number: Int, x: Double = 1, color: FigureColor = .black) -> FigureRecord {
        FigureRecord(uuid: uuid, number: number, position: Point(x: x, y: 1), color: color, cornerRadius: 0)
    }

    @Test func aCommandsChangesAreFoundByComparingTheBoards() {
        let w = UUID()
        let x = UUID()
        let old = [record(u, 1), record(v, 2), record(w, 3)]
        let new = [record(u, 1), record(w, 3, x: 5, color: .red), record(x, 4)]
        #expect(
            BoardChange.changes(from: old, to: new) == [
                .remove(figure: v, at: 1), .insert(record(x, 4), at: 2), .move(figure: w, to: Point(x: 5, y: 1)),
                .color(figure: w, .red),
            ])
        #expect(BoardChange.changes(from: old, to: old).isEmpty)
        // Figures out of their order are taken off and put back, so a peer ends up the same.
        #expect(
            BoardChange.changes(from: [record(u, 1), record(v, 2)], to: [record(v, 2), record(u, 1)]) == [
                .remove(figure: u, at: 0), .insert(record(u, 1), at: 1),
            ])
    }

    @Test func theChangesReadBackAsTheyWereWritten() throws {
        let changes: [BoardChange] = [
            .insert(record(u, 1), at: 0), .remove(figure: u, at: 3), .move(figure: v, to: Point(x: 2.5, y: 3)),
            .color(figure: v, .green), .radius(figure: v, 1.5),
        ]
        let data = try JSONEncoder().encode(changes)
        #expect(try JSONDecoder().decode([BoardChange].self, from: data) == changes)
    }

    /// Taking a figure off at its place: the place moves past a peer's insertions and removals
    /// below it; nothing is left when the peer removed it first.
    @Test func aRemovalMovesPastThePeersChangesToTheOrder() {
        let remove = RemoveFigure(figure: u, index: 2)
        #expect(remove.rebased(over: .insert(record(v, 9), at: 0))?.index == 3)
        #expect(remove.rebased(over: .insert(record(v, 9), at: 2))?.index == 3)
        #expect(remove.rebased(over: .insert(record(v, 9), at: 3))?.index == 2)
        #expect(remove.rebased(over: .remove(figure: v, at: 1))?.index == 1)
        #expect(remove.rebased(over: .remove(figure: u, at: 2)) == nil)
        #expect(remove.rebased(over: .move(figure: u, to: Point(x: 3, y: 3)))?.index == 2)
        // The peer's change once the figure is off: what was above it moves down.
        #expect(remove.transform(.insert(record(v, 9), at: 3)) == .insert(record(v, 9), at: 2))
        #expect(remove.transform(.insert(record(v, 9), at: 1)) == .insert(record(v, 9), at: 1))
        #expect(remove.transform(.remove(figure: v, at: 4)) == .remove(figure: v, at: 3))
        #expect(remove.transform(.remove(figure: u, at: 2)) == nil)
        #expect(remove.transform(.move(figure: u, to: Point(x: 3, y: 3))) == nil, "the figure is not there below")
        #expect(remove.transform(.color(figure: v, .red)) == .color(figure: v, .red))
    }

    /// Decided rule 1: a step that would write a field a peer wrote since has nothing left to do.
    @Test func aStepThatWouldRevertAPeersChangeHasNothingLeftToDo() {
        let move = MoveFigure(figure: u, position: Point(x: 1, y: 1))
        #expect(move.rebased(over: .move(figure: u, to: Point(x: 9, y: 9))) == nil)
        #expect(move.rebased(over: .remove(figure: u, at: 0)) == nil)
        #expect(move.rebased(over: .move(figure: v, to: Point(x: 9, y: 9))) != nil)
        #expect(move.rebased(over: .color(figure: u, .red)) != nil)
        #expect(move.transform(.move(figure: u, to: Point(x: 9, y: 9))) == .move(figure: u, to: Point(x: 9, y: 9)))
        #expect(SetColor(color: .red).rebased(over: .color(figure: u, .blue)) == nil)
        #expect(SetColor(color: .red).rebased(over: .radius(figure: u, 2)) != nil)
        #expect(SetCornerRadius(radius: 1).rebased(over: .radius(figure: u, 2)) == nil)
        #expect(SetCornerRadius(radius: 1).rebased(over: .color(figure: u, .blue)) != nil)
    }
}
