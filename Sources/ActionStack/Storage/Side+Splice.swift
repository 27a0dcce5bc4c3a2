// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension Side {
    /// The position and first action of the closed step with `serial`, looking from the newest.
    ///
    /// - Complexity: O(k) for the k steps above it.
    func locateStep(serial: UInt32) -> (position: Int, start: Int)? {
        var end = openStart
        var position = steps.count - 1
        while position >= 0 {
            let step = steps[position]
            let start = end - step.actionCount
            if step.serial == serial { return (position, start) }
            end = start
            position -= 1
        }
        return nil
    }

    /// The position and first action of the oldest of the newest closed steps made after the step
    /// with serial `mark` (serials grow by one per step made, wrapping); `steps.count` and
    /// `openStart` when the newest was made before.
    ///
    /// - Complexity: O(k) for the k steps made after.
    func firstStep(madeAfter mark: UInt32) -> (position: Int, start: Int) {
        var end = openStart
        var position = steps.count - 1
        while position >= 0 {
            let step = steps[position]
            let distance = step.serial &- mark
            guard distance != 0 && distance < 1 << 31 else { break }
            end -= step.actionCount
            position -= 1
        }
        return (position + 1, end)
    }

    /// Lifts the closed steps from `position` on, the actions from absolute index `start` on, and
    /// the open frames and nested groups above them; runs `body`, which changes only what lies
    /// below; then lays them back on top, their indices moved by what `body` added or removed.
    ///
    /// - Complexity: O(a + s) for the a actions and s steps lifted, plus `body`.
    func lifting(stepsFrom position: Int, actionsFrom start: Int, _ body: () -> Void) {
        var liftedActions: [(action: Action, cost: Int)] = []
        while end > start {
            let cost = cost(at: end - 1)
            liftedActions.append((removeLastAction(), cost))
        }
        var liftedSteps: [Step] = []
        while steps.count > position { liftedSteps.append(steps.removeLast()) }
        body()
        let delta = end - start
        for lifted in liftedActions.reversed() { append(lifted.action, cost: lifted.cost) }
        for step in liftedSteps.reversed() { steps.append(step) }
        guard delta != 0 else { return }
        for index in frames.indices { frames[index].start += delta }
        for index in nested.indices {
            nested[index].start += delta
            nested[index].end += delta
        }
    }

    /// Moves every action `other` holds to the end of this side, oldest first, with its cost.
    ///
    /// - Complexity: O(n) for the n actions moved.
    func appendActions(movedFrom other: Side) {
        while other.actions.count > 0 {
            let cost = other.cost(at: other.base)
            append(other.removeFirstAction(), cost: cost)
        }
        other.removeAll()
    }
}

extension Side {
    /// Exchanges everything this side holds with everything `other` holds: how a branch becomes
    /// the redo stack, and the redo stack a branch.
    ///
    /// - Complexity: O(1).
    func swapContents(with other: Side) {
        precondition(inFlight == 0 && other.inFlight == 0, "swapping a side while a step is in flight")
        swap(&actions, &other.actions)
        swap(&steps, &other.steps)
        swap(&costs, &other.costs)
        swap(&hasCosts, &other.hasCosts)
        swap(&base, &other.base)
        swap(&frames, &other.frames)
        swap(&nested, &other.nested)
        swap(&frameMetadata, &other.frameMetadata)
        swap(&totalCost, &other.totalCost)
    }
}
