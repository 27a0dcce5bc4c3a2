// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStack
import Foundation

/// A value a ``RecorderWalk`` changes, under a key.
public final class RecorderWalkBox {
    /// The key its commands are saved under.
    public let key: String
    /// Its value.
    public var value = 0

    /// A box under `key`.
    public init(key: String) { self.key = key }
}

@available(*, unavailable) extension RecorderWalkBox: Sendable {}

/// Sets a ``RecorderWalkBox``'s value, registering the old one.
public struct RecorderWalkSet: UndoCommand {
    /// The command's saved name.
    public static let commandType = "walk.set"
    /// The value set.
    public var value: Int

    /// A command that sets `value`.
    public init(value: Int) { self.value = value }

    /// Sets the value, registering the old one.
    public func perform(on box: RecorderWalkBox, in stack: ActionStack) {
        stack.registerUndo(RecorderWalkSet(value: box.value), on: box, key: box.key)
        box.value = value
    }
}

/// A seeded walk through a recorded stack's history, the same in every process: new steps (some
/// coalescing), undos, redos, clean marks, removals by target, trims and, in a branching history,
/// jumps and branch choices. The `history-writer` program walks it under a recorder until a test
/// kills it; the test walks it again in its own process to know the history each record stands for.
public struct RecorderWalk {
    /// The stack walked.
    public let stack = ActionStack()
    /// The boxes its commands change.
    public let boxes = (0..<3).map { RecorderWalkBox(key: "box-\($0)") }
    private var state: UInt64

    /// A walk from `seed`, in a linear or branching history.
    ///
    /// - Complexity: O(1).
    public init(seed: UInt64, tree: Bool) {
        state = seed | 1
        stack.groupsByEvent = false
        stack.historyClock = { Date(timeIntervalSinceReferenceDate: 1_000) }
        stack.historyShape = tree ? .tree : .linear
        stack.levelsOfUndo = 60
    }

    /// The commands the walk's records hold.
    public static var registry: CommandRegistry {
        var registry = CommandRegistry()
        registry.register(RecorderWalkSet.self)
        return registry
    }

    /// The fingerprint of the document after `step` steps of the walk.
    public static func fingerprint(_ step: Int) -> String { "step-\(step)" }

    private mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// The next step of the walk: one call that may change the history.
    ///
    /// - Complexity: O(1) amortized, but for a removal (O(n) for the n actions held).
    public mutating func step() {
        let box = boxes[next(boxes.count)]
        switch next(100) {
        case 0..<45:
            stack.beginUndoGrouping()
            RecorderWalkSet(value: next(1_000)).perform(on: box, in: stack)
            stack.setActionName("Set \(box.key)")
            stack.endUndoGrouping()
        case 45..<52:
            stack.beginUndoGrouping()
            stack.registerUndo(
                RecorderWalkSet(value: box.value), on: box, key: box.key, options: .coalescing("typing"))
            box.value += 1
            stack.endUndoGrouping()
        case 52..<70: if stack.canUndo { stack.undo() }
        case 70..<82: if stack.canRedo { stack.redo() }
        case 82..<87: stack.markClean()
        case 87..<89: stack.removeAllActions(withTarget: box)
        case 89..<91: stack.levelsOfUndo = [20, 40, 60][next(3)]
        default:
            guard stack.historyShape == .tree else { return }
            if next(2) == 0 {
                _ = try? stack.earlier(next(3) + 1)
            } else {
                _ = try? stack.later(next(3) + 1)
            }
        }
    }
}

@available(*, unavailable) extension RecorderWalk: Sendable {}
