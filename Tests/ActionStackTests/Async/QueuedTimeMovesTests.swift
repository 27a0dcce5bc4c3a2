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

// Presses of the time moves (`earlier`, `later`, by changes and by time) mixed with undo, redo and
// jumps, all made before the first has run, over asynchronous steps: each press moves from where
// the one before it ended, so the document ends where the same presses, made one after another
// over synchronous steps, leave it (vim's semantics). Then presses that meet a failing step, a
// cancellation, and a target that goes while they wait.

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct QueuedTimeMovesTests {
    /// One press of a key of the Edit menu or of vim's time moves.
    enum Press: CustomStringConvertible {
        case earlier(Int)
        case later(Int)
        case earlierBy(seconds: Int)
        case laterBy(seconds: Int)
        case undo, redo
        case jump(Int)

        var description: String {
            switch self {
            case .earlier(let count): "earlier(\(count))"
            case .later(let count): "later(\(count))"
            case .earlierBy(let seconds): "earlier(by: \(seconds)s)"
            case .laterBy(let seconds): "later(by: \(seconds)s)"
            case .undo: "undo"
            case .redo: "redo"
            case .jump(let node): "jump(\(node))"
            }
        }

        func press(on stack: ActionStack) {
            switch self {
            case .earlier(let count): _ = try? stack.earlier(count)
            case .later(let count): _ = try? stack.later(count)
            case .earlierBy(let seconds): _ = try? stack.earlier(by: .seconds(seconds))
            case .laterBy(let seconds): _ = try? stack.later(by: .seconds(seconds))
            case .undo: stack.undo()
            case .redo: stack.redo()
            case .jump(let number): try? stack.jump(toNode: node(number))
            }
        }
    }

    /// A value changed by synchronous steps, each one's inverse registering its own.
    final class LocalValue {
        var value = 0
        func set(_ new: Int, on stack: ActionStack) {
            let old = value
            stack.registerUndo(withTarget: self) { $0.set(old, on: stack) }
            value = new
        }
    }

    /// The tree both kinds of stacks are given, node n setting the value to n, 10 s apart:
    /// 0 -> 1 -> 2 -> 3, 1 -> 4 -> 5, 4 -> 6 (current).
    private static let script: [Int?] = [1, 2, 3, nil, nil, 4, 5, nil, 6]  // nil: an undo

    private func synchronousTree() -> (ActionStack, LocalValue) {
        let clock = ManualClock()
        let stack = makeTreeStack(clock: clock)
        let local = LocalValue()
        for change in Self.script {
            if let change {
                clock.advance(seconds: 10)
                stack.beginUndoGrouping()
                local.set(change, on: stack)
                stack.endUndoGrouping()
            } else {
                stack.undo()
            }
        }
        return (stack, local)
    }

    /// The same tree of asynchronous steps; node 5's step changes `other` when one is given, and
    /// nodes 2 and 5 are synchronous steps of `local` when one is given.
    private func asynchronousTree(
        other: RemoteValue? = nil, local: LocalValue? = nil
    ) async throws -> (ActionStack, RemoteValue) {
        let clock = ManualClock()
        let stack = makeAsyncStack()
        stack.historyClock = { clock.now }
        stack.historyShape = .tree
        let remote = RemoteValue()
        for change in Self.script {
            if let change {
                clock.advance(seconds: 10)
                if change == 2 || change == 5, let local {
                    stack.beginUndoGrouping()
                    local.set(change, on: stack)
                    stack.endUndoGrouping()
                } else if change == 5, let other {
                    try await other.change(to: 5, on: stack)
                } else {
                    try await remote.change(to: change, on: stack)
                }
            } else {
                try await stack.performUndo()
            }
        }
        #expect(stack.currentNode == node(6))
        return (stack, remote)
    }

    /// Presses `presses` on an asynchronous tree before the first has run, lets them all run, and
    /// compares where the document ends with the synchronous tree after the same presses.
    private func expectQueuedPressesEndAsSynchronousOnes(
        _ presses: [Press], configure: (ActionStack) -> Void = { _ in }, mixed: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let (local, value) = synchronousTree()
        configure(local)
        var synchronousPath: [Int] = []
        for press in presses {
            press.press(on: local)
            synchronousPath.append(local.currentNode?.sequence ?? -1)
        }
        #expect(value.value == local.currentNode?.sequence, sourceLocation: sourceLocation)

        let steps = mixed ? LocalValue() : nil  // kept: the stack holds its steps' targets weakly
        let (stack, remote) = try await asynchronousTree(local: steps)
        configure(stack)
        let gate = Gate()
        remote.gate = gate
        var requests: [ActionStack.OperationRequest] = []
        for press in presses {
            press.press(on: stack)
            if let request = stack.startedRequest, !requests.contains(where: { $0 === request }) {
                requests.append(request)
            }
        }
        // Every press waited: the first holds the turn at the gate, the others queue behind it
        // (with synchronous steps, a press that meets only those may run at once).
        if !mixed {
            #expect(requests.count == presses.count, "\(presses)", sourceLocation: sourceLocation)
            #expect(stack.pendingRequestCount == presses.count - 1, sourceLocation: sourceLocation)
        }
        gate.openForGood()
        for request in requests { _ = try? await request.value() }
        #expect(
            stack.currentNode == local.currentNode,
            "\(presses): synchronously \(synchronousPath), awaited \(String(describing: stack.currentNode))",
            sourceLocation: sourceLocation)
        if !mixed { #expect(remote.value == stack.currentNode?.sequence, sourceLocation: sourceLocation) }
        stack._checkInvariants()
        withExtendedLifetime(steps) {}
    }

    @Test func threePressesOfEarlierGoBackThreeChanges() async throws {
        try await expectQueuedPressesEndAsSynchronousOnes([.earlier(1), .earlier(1), .earlier(1)])
    }

    @Test func earlierThenLaterGoesBackThenForward() async throws {
        try await expectQueuedPressesEndAsSynchronousOnes([.earlier(2), .later(1)])
    }

    @Test func laterAtTheNewestChangeQueuedBehindEarlierStillMoves() async throws {
        // At node 6 (the newest), later(1) alone would not move: behind earlier(3) it does.
        try await expectQueuedPressesEndAsSynchronousOnes([.earlier(3), .later(1), .later(1)])
    }

    @Test func undoRedoAndTimeMovesMix() async throws {
        try await expectQueuedPressesEndAsSynchronousOnes([.undo, .earlier(1), .later(2)])
        try await expectQueuedPressesEndAsSynchronousOnes([.jump(1), .redo, .redo, .earlier(1)])
        try await expectQueuedPressesEndAsSynchronousOnes([.jump(3), .later(1), .earlier(3), .undo, .redo])
    }

    @Test func movesByTimeGoFromWhereThePreviousEnded() async throws {
        try await expectQueuedPressesEndAsSynchronousOnes([.earlierBy(seconds: 15), .earlierBy(seconds: 15)])
        try await expectQueuedPressesEndAsSynchronousOnes([
            .earlierBy(seconds: 35), .laterBy(seconds: 15), .later(1), .earlierBy(seconds: 1_000),
        ])
    }

    @Test func movesPastTheEndsStopThereAndTheNextGoesOnFromThere() async throws {
        try await expectQueuedPressesEndAsSynchronousOnes([.earlier(100), .later(2), .later(Int.max), .earlier(1)])
        try await expectQueuedPressesEndAsSynchronousOnes([.earlier(1), .earlier(0), .later(-3), .earlier(1)])
    }

    /// Seeded sequences of presses, each starting with a move that waits at the gate; and the
    /// same over a tree whose nodes 2 and 5 are synchronous steps.
    @Test(arguments: 0..<60) func seededPressesEndAsSynchronousOnes(seed: Int) async throws {
        var random = LinearCongruentialGenerator(seed: UInt64(seed), stream: 17)
        func next(_ bound: Int) -> Int { random.next(bound) }
        var presses: [Press] = [.earlier(1 + next(3))]  // from 6: always moves over awaited steps
        for _ in 0..<(1 + next(6)) {
            switch next(7) {
            case 0: presses.append(.earlier(next(4)))
            case 1: presses.append(.later(next(4)))
            case 2: presses.append(.earlierBy(seconds: 5 * next(8)))
            case 3: presses.append(.laterBy(seconds: 5 * next(8)))
            case 4: presses.append(.undo)
            case 5: presses.append(.redo)
            default: presses.append(.jump(next(7)))
            }
        }
        try await expectQueuedPressesEndAsSynchronousOnes(presses)
        try await expectQueuedPressesEndAsSynchronousOnes(presses, mixed: true)
    }

    /// Pruning (`maximumBranchSteps`) that each move's end sets off happens before the next press
    /// resolves, as between two synchronous presses.
    @Test func pruningBetweenPressesIsAsBetweenSynchronousOnes() async throws {
        try await expectQueuedPressesEndAsSynchronousOnes(
            [.earlier(1), .earlier(1), .earlier(1), .later(2), .earlier(3)], configure: { $0.maximumBranchSteps = 1 })
        try await expectQueuedPressesEndAsSynchronousOnes(
            [.jump(3), .earlier(1), .later(3)], configure: { $0.maximumBranchSteps = 0 })
    }

    /// A step that fails stops its move where it got to; the press behind it goes on from there.
    @Test func aPressBehindAFailedMoveStartsWhereTheFailedOneStopped() async throws {
        let (stack, remote) = try await asynchronousTree()
        let gate = Gate()
        remote.gate = gate
        remote.refused = [5]  // 6 -> 5 is: undo 6 (writes 4), redo 5 (writes 5, refused)
        try stack.earlier()
        let first = try #require(stack.startedRequest)
        try stack.earlier()
        let second = try #require(stack.startedRequest)
        #expect(first !== second)
        gate.openForGood()
        await #expect(throws: ActionStack.OperationError.self) { try await first.value() }
        #expect(try await second.value())
        // The first stopped at 4; the second went from 4 to 3 (undo 4, redo 2, redo 3).
        #expect(stack.currentNode == node(3))
        #expect(remote.value == 3)
        stack._checkInvariants()
    }

    /// Cancelled presses change nothing; the one that ran is the only one that counts.
    @Test func cancelledPressesDoNotMove() async throws {
        let (stack, remote) = try await asynchronousTree()
        let gate = Gate()
        remote.gate = gate
        try stack.earlier()
        let first = try #require(stack.startedRequest)
        try stack.earlier()
        try stack.later(by: .seconds(5))
        #expect(stack.pendingRequestCount == 2)
        stack.cancelPendingRequests()
        gate.openForGood()
        #expect(try await first.value())
        #expect(stack.currentNode == node(5))
        #expect(remote.value == 5)
        // A press after the cancellation goes on from there.
        try stack.earlier()
        _ = try await stack.startedRequest?.value()
        #expect(stack.currentNode == node(4))
        #expect(remote.value == 4)
    }

    /// A target freed while the presses wait: its node is passed over, as the synchronous moves
    /// pass over a node that is gone.
    @Test func aNodeWhoseTargetIsFreedWhileThePressesWaitIsPassedOver() async throws {
        var other: RemoteValue? = RemoteValue("other")
        let (stack, remote) = try await asynchronousTree(other: other)
        let gate = Gate()
        remote.gate = gate
        try stack.earlier()  // to 5, once it runs
        let first = try #require(stack.startedRequest)
        try stack.earlier()  // then on
        let second = try #require(stack.startedRequest)
        other = nil  // node 5's target goes
        #expect(other == nil)
        gate.openForGood()
        _ = try? await first.value()
        _ = try? await second.value()
        // 6 -> 4 (5 is gone), then 4 -> 3.
        #expect(stack.currentNode == node(3))
        #expect(remote.value == 3)
        stack._checkInvariants()
    }

    @Test func aNodeWhoseTargetIsRemovedWhileThePressesWaitIsPassedOver() async throws {
        let other = RemoteValue("other")
        let (stack, remote) = try await asynchronousTree(other: other)
        let gate = Gate()
        remote.gate = gate
        try stack.earlier()
        let first = try #require(stack.startedRequest)
        try stack.earlier()
        let second = try #require(stack.startedRequest)
        stack.removeAllActions(withTarget: other)
        gate.openForGood()
        _ = try? await first.value()
        _ = try? await second.value()
        #expect(stack.currentNode == node(3))
        #expect(remote.value == 3)
        #expect(other.value == 0)
        stack._checkInvariants()
    }

    /// An awaited jump queued between two presses, its task cancelled while it waits: it leaves
    /// the queue, and the press behind it goes on from where the press before it ended.
    @Test func aCancelledAwaitedJumpBetweenPressesIsSkipped() async throws {
        let (stack, remote) = try await asynchronousTree()
        let gate = Gate()
        remote.gate = gate
        try stack.earlier(2)  // 6 -> 4
        let first = try #require(stack.startedRequest)
        let jump = Task { @MainActor in try await stack.performJump(toNode: node(2)) }
        await settle { stack.pendingRequestCount == 1 }
        try stack.later(1)  // from 4: to 5
        let last = try #require(stack.startedRequest)
        #expect(stack.pendingRequestCount == 2)
        jump.cancel()
        await #expect(throws: ActionStack.OperationError.self) { try await jump.value }
        gate.openForGood()
        _ = try await first.value()
        _ = try await last.value()
        #expect(stack.currentNode == node(5))
        #expect(remote.value == 5)
        stack._checkInvariants()
    }

    /// A press that, once its turn comes, has nowhere to go (later at the newest change) changes
    /// nothing and says so, as the synchronous press.
    @Test func aPressWithNowhereToGoWhenItsTurnComesDoesNothing() async throws {
        let (stack, remote) = try await asynchronousTree()
        let gate = Gate()
        remote.gate = gate
        stack.undo()  // 6 -> 4
        let undo = try #require(stack.startedRequest)
        try stack.later(by: .seconds(1))  // from 4: to 5, the oldest node after 4's date + 1 s
        let move = try #require(stack.startedRequest)
        try stack.later(Int.max)  // from 5: to 6, the newest
        let last = try #require(stack.startedRequest)
        try stack.later(1)  // from 6: nowhere
        let nowhere = try #require(stack.startedRequest)
        gate.openForGood()
        #expect(try await undo.value())
        #expect(try await move.value())
        #expect(try await last.value())
        #expect(try await nowhere.value() == false)
        #expect(stack.currentNode == node(6))
        #expect(remote.value == 6)
        #expect(stack.pendingRequestCount == 0 && !stack.isBusy)
    }

    /// The kinds of requests: equal for the same move, different for another.
    @Test func timeMoveKindsCompareByTheirMove() {
        typealias Kind = ActionStack.OperationRequest.Kind
        #expect(Kind.earlier(2) == .earlier(2))
        #expect(Kind.earlier(2) != .later(2))
        #expect(Kind.earlier(2) != .earlier(3))
        #expect(Kind.earlier(by: .seconds(60)) == .earlier(by: .seconds(60)))
        #expect(Kind.earlier(by: .seconds(60)) != .later(by: .seconds(60)))
        #expect(Kind.later(1) != .jumpToNode(node(1)))
        #expect(Kind.earlier(1).node == nil && Kind.earlier(1).position == nil)
    }
}
