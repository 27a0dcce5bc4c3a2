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
    /// Whether the next ``RecorderWalkAwaitedSet`` performed on it throws after its await (the walk
    /// sets it to make an operation fail and roll its step back).
    public var failsNextAwait = false

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

/// Sets a ``RecorderWalkBox``'s value after an await (a write to a server), registering the old
/// one; throws instead when the box says its next await fails.
public struct RecorderWalkAwaitedSet: AsyncUndoCommand {
    /// The command's saved name.
    public static let commandType = "walk.awaitedSet"
    /// The value set.
    public var value: Int

    /// A command that sets `value`.
    public init(value: Int) { self.value = value }

    /// Awaits, then sets the value, registering the old one; throws instead when the box's next
    /// await fails.
    public nonisolated(nonsending) func perform(on box: RecorderWalkBox, in stack: ActionStack) async throws {
        await Task.yield()
        if box.failsNextAwait {
            box.failsNextAwait = false
            throw RecorderWalkFailure()
        }
        stack.registerAsyncUndo(RecorderWalkAwaitedSet(value: box.value), on: box, key: box.key)
        box.value = value
    }
}

/// What a ``RecorderWalkAwaitedSet`` throws when its box says so.
struct RecorderWalkFailure: Error {}

/// A seeded walk through a recorded stack's history, the same in every process: new steps (some
/// coalescing), steps whose actions await (``RecorderWalkAwaitedSet``), undos, redos and jumps
/// (synchronous, and awaited: some fail and roll their step back), clean marks, removals by target
/// and of everything, trims and, in a branching history, time moves, jumps to nodes and branches
/// (a new step after an undo). The `history-writer` program walks it under a recorder until a test
/// kills it; the test walks it again in its own process to know the history each record stands for.
public struct RecorderWalk {
    /// The stack walked.
    public let stack = ActionStack()
    /// The boxes its commands change.
    public let boxes = (0..<3).map { RecorderWalkBox(key: "box-\($0)") }
    private var state: UInt64
    /// The awaited operations that completed.
    public private(set) var awaited = 0
    /// The awaited operations that failed (their step rolled back).
    public private(set) var failed = 0

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
        registry.register(RecorderWalkAwaitedSet.self)
        return registry
    }

    /// The fingerprint of the document after `step` steps of the walk.
    public static func fingerprint(_ step: Int) -> String { "step-\(step)" }

    private mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// The next step of the walk: one call that may change the history, or one awaited operation;
    /// a request that a synchronous call started (an undo of a step that awaits) is awaited too, so
    /// that the stack is idle when the step ends. Walk on the main actor, as the writer does: off
    /// the main thread that undo is refused as a misuse, and two walks of one seed would part.
    ///
    /// - Complexity: O(1) amortized, but for a removal (O(n) for the n actions held) and a jump
    ///   (O(d) for the d steps it moves).
    public nonisolated(nonsending) mutating func step() async {
        let box = boxes[next(boxes.count)]
        switch next(100) {
        case 0..<34:
            stack.beginUndoGrouping()
            RecorderWalkSet(value: next(1_000)).perform(on: box, in: stack)
            stack.setActionName("Set \(box.key)")
            stack.endUndoGrouping()
        case 34..<40:
            stack.beginUndoGrouping()
            stack.registerUndo(
                RecorderWalkSet(value: box.value), on: box, key: box.key, options: .coalescing("typing"))
            box.value += 1
            stack.endUndoGrouping()
        case 40..<47:
            // A step that awaits: an awaited action, and maybe a synchronous one on another box
            // (undone first, so that a failure of the awaited one rolls it back).
            stack.beginUndoGrouping()
            stack.registerAsyncUndo(RecorderWalkAwaitedSet(value: box.value), on: box, key: box.key)
            box.value = next(1_000)
            if next(2) == 0 {
                RecorderWalkSet(value: next(1_000)).perform(
                    on: boxes[(boxes.firstIndex { $0 === box }! + 1) % 3], in: stack)
            }
            stack.setActionName("Save \(box.key)")
            stack.endUndoGrouping()
        case 47..<58: if stack.canUndo { stack.undo() }
        case 58..<66: if stack.canRedo { stack.redo() }
        case 66..<73:
            // An awaited undo or redo; one in four fails after its await and is rolled back.
            if next(4) == 0 { for box in boxes { box.failsNextAwait = true } }
            do {
                if next(3) == 0 {
                    if try await stack.performRedo() { awaited += 1 }
                } else {
                    if try await stack.performUndo() { awaited += 1 }
                }
            } catch {
                if error.actionFailure != nil { failed += 1 }
            }
        case 73..<77:
            if next(4) == 0 { for box in boxes { box.failsNextAwait = true } }
            do {
                if let tree = stack.historyTree {
                    if try await stack.performJump(toNode: tree.nodes[next(tree.nodes.count)].id) { awaited += 1 }
                } else {
                    if try await stack.performJump(to: next(stack.undoCount + stack.redoCount + 1)) { awaited += 1 }
                }
            } catch {
                if error.actionFailure != nil { failed += 1 }
            }
        case 77..<80: stack.jump(to: next(stack.undoCount + stack.redoCount + 1))
        case 80..<85: stack.markClean()
        case 85..<88: stack.removeAllActions(withTarget: box)
        case 88: stack.removeAllActions()
        case 89..<91: stack.levelsOfUndo = [20, 40, 60][next(3)]
        default:
            guard let tree = stack.historyTree else { return }
            switch next(3) {
            case 0: _ = try? stack.earlier(next(3) + 1)
            case 1: _ = try? stack.later(next(3) + 1)
            default: try? stack.jump(toNode: tree.nodes[next(tree.nodes.count)].id)
            }
        }
        // A synchronous call that reached a step that awaits started a request: awaited here.
        var turns = 0
        while stack.isBusy && turns < 10_000 {
            turns += 1
            if let request = stack.startedRequest {
                _ = try? await request.value()
            } else {
                await Task.yield()
            }
        }
        for box in boxes { box.failsNextAwait = false }
    }
}

@available(*, unavailable) extension RecorderWalk: Sendable {}
