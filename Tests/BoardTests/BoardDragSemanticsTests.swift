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
import ActionStackTestSupport
import Foundation
import Testing

/// What ends a drag (nudges of one figure at most a second apart, one "Move" step), as the
/// "Branching History" article says: every move in the tree ends it, and a move that would not
/// move (`later` at the newest change, `earlier` at the start) does nothing at all, so the next
/// nudge continues the drag.
@MainActor
struct BoardDragSemanticsTests {
    /// The board's history, oldest first, as `history` names it.
    func names(_ session: Session) -> [String] {
        let stack = session.board.undoStack
        return (stack.undoEntries.reversed() + stack.redoEntries).map(\.actionName)
    }

    @Test func aTimeMoveThatDoesNotMoveLeavesTheDragGoing() {
        for stay in ["later", "later 3", "later 5s", "later 1m"] {
            let session = Session()
            let clock = ManualClock()
            clock.drive(session.board.undoStack)
            for command in ["add 10 10", "nudge 1 1 0", stay, "nudge 1 1 0"] {
                clock.advance(by: .milliseconds(200))
                _ = session.handle(command)
            }
            #expect(names(session) == ["Add Figure", "Move to (12.0, 10.0)"], "\(stay)")
            #expect(session.handle("undo").first == "Undo Move to (12.0, 10.0)")
            #expect(session.board.figure(1)?.position == Point(x: 10, y: 10), "\(stay): the whole drag")
        }
    }

    @Test func aMoveInTheTreeEndsTheDragEvenWhenItComesBack() {
        let session = Session()
        let clock = ManualClock()
        clock.drive(session.board.undoStack)
        for command in [
            "add 10 10", "nudge 1 1 0", "earlier", "later", "nudge 1 1 0", "goto 1", "goto 3", "nudge 1 1 0",
        ] {
            clock.advance(by: .milliseconds(100))
            _ = session.handle(command)
        }
        #expect(
            names(session) == ["Add Figure", "Move to (11.0, 10.0)", "Move to (12.0, 10.0)", "Move to (13.0, 10.0)"])
    }

    /// The random walk's shadow said that a time move ends a drag "even when it does not move":
    /// the walk only passed because its seeds never nudged the same figure right after such a
    /// move. Replayed through the walk, the shadow now agrees with the board.
    @Test func theWalksShadowAgreesWithTheBoardAfterATimeMoveThatDoesNotMove() {
        var walk = Walk(seed: 1)
        for command in ["add 10 10", "nudge 1 1 0", "later", "nudge 1 1 0", "undo", "redo", "tree"] {
            walk.clock.advance(by: .milliseconds(200))
            walk.elapsed += .milliseconds(200)
            let date = walk.start.addingTimeInterval(walk.seconds(walk.elapsed))
            walk.shadow.now = date.timeIntervalSinceReferenceDate
            walk.board.undoStack.historyClock = { date }
            let problems = walk.perform(command)
            #expect(problems.isEmpty, "\(command): \(problems)")
        }
    }
}
