// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation
import Testing

// A box of one value and its commands (`hs.*`; the `HS` and `hs` prefixes keep these fixtures apart
// from the document's in DocCommands.swift), with what the save-and-restore tests built on them
// share: linear histories made on a stack or by hand, round trips, readers of a stack's state, and a
// scratch directory.

final class HSBox {
    let id: String
    var value: Int
    init(_ id: String = "box", value: Int = 0) {
        self.id = id
        self.value = value
    }
}

final class HSOtherBox {
    let id: String
    init(_ id: String) { self.id = id }
}

/// Sets the value, registering the inverse command.
struct HSSet: UndoCommand, Equatable {
    static let commandType = "hs.set"
    var value: Int

    func perform(on box: HSBox, in stack: ActionStack) {
        stack.registerUndo(HSSet(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

/// Like HSSet, but under another type name (so that one step can be poisoned in a file).
struct HSMark: UndoCommand, Equatable {
    static let commandType = "hs.mark"
    var value: Int

    func perform(on box: HSBox, in stack: ActionStack) {
        stack.registerUndo(HSMark(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

/// Sets the value with a cost and a coalescing key.
struct HSCostly: UndoCommand, Equatable {
    static let commandType = "hs.costly"
    var value: Int
    var cost: Int

    func perform(on box: HSBox, in stack: ActionStack) {
        stack.registerUndo(HSCostly(value: box.value, cost: cost), on: box, key: box.id, options: .init(cost: cost))
        box.value = value
    }
}

/// Registers nothing when performed.
struct HSNoop: UndoCommand {
    static let commandType = "hs.noop"
    var value: Int
    func perform(on box: HSBox, in stack: ActionStack) { box.value = value }
}

/// Registers a closure (not a command) as its inverse.
struct HSClosureInverse: UndoCommand {
    static let commandType = "hs.closure"
    var value: Int
    func perform(on box: HSBox, in stack: ActionStack) {
        let old = box.value
        stack.registerUndo(withTarget: box) { box in
            HSClosureInverse(value: old).perform(on: box, in: stack)
        }
        box.value = value
    }
}

/// Version 2 of a command whose version 1 stored "v" as a string.
struct HSV2: UndoCommand, Equatable {
    static let commandType = "hs.v2"
    static let version = 2
    var value: Int
    func perform(on box: HSBox, in stack: ActionStack) {
        stack.registerUndo(HSV2(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

struct HSV1Form: Decodable { var v: String }
struct HSMigrationFailed: Error {}

/// An asynchronous command that fails when the box's value is negative.
struct HSAsyncSet: AsyncUndoCommand {
    static let commandType = "hs.async"
    var value: Int
    struct Refused: Error {}
    nonisolated(nonsending) func perform(on box: HSBox, in stack: ActionStack) async throws {
        if box.value < 0 { throw Refused() }
        stack.registerAsyncUndo(HSAsyncSet(value: box.value), on: box, key: box.id)
        box.value = value
    }
}

/// One closed, named step that sets `box` to `value` through a command.
func hsChange(_ box: HSBox, to value: Int, on stack: ActionStack, named name: String? = nil) {
    stack.beginUndoGrouping()
    HSSet(value: value).perform(on: box, in: stack)
    stack.setActionName(name ?? "Set \(value)")
    stack.endUndoGrouping()
}

/// A stack with `count` command steps (values 1...count) on `box`, then `undos` undos.
func hsLinear(_ count: Int, undos: Int = 0, box: HSBox, clean: Int? = nil) -> ActionStack {
    let stack = makeStack()
    if clean == 0 { stack.markClean() }
    for value in 1...count {
        hsChange(box, to: value, on: stack)
        if clean == value { stack.markClean() }
    }
    for _ in 0..<undos { stack.undo() }
    return stack
}

/// A linear saved history built by hand: steps 1...count, each with one action of `HSMark` on "box".
func hsSaved(_ count: Int, current: Int, clean: Int? = nil) -> SavedHistory {
    var steps: [SavedStep] = []
    for node in 1...count {
        // Undo side (node <= current): undo sets back to node-1; redo side: redo sets to node.
        let value = node <= current ? node - 1 : node
        steps.append(
            SavedStep(
                node: node, parent: node - 1, isRedoChoice: true, date: nil, actionName: "Step \(node)",
                isDiscardable: false, userInfo: [:], actions: [SavedAction(HSMark(value: value), key: "box")]))
    }
    return SavedHistory(shape: .linear, root: 0, current: current, clean: clean, steps: steps)
}

/// `isClean` in each state from the current one to the oldest and then to the newest, followed by the
/// undo entries' `isClean` and `isCleanAtStart` there.
func hsCleanWalk(_ stack: ActionStack) -> [Bool] {
    var seen = [stack.isClean]
    while stack.canUndo {
        stack.undo()
        seen.append(stack.isClean)
    }
    while stack.canRedo {
        stack.redo()
        seen.append(stack.isClean)
    }
    return seen + stack.undoEntries.map(\.isClean) + [stack.isCleanAtStart]
}

func poisoned(_ problem: SavedActionProblem, key: String = "box") -> SavedAction {
    SavedAction(commandType: "hs.mark", version: 1, key: key, cost: 0, problem: problem)
}

/// What a history panel shows, as text.
func hsEntries(_ stack: ActionStack) -> String {
    let undo = stack.undoEntries.map {
        "\($0.title)|\($0.actionCount)|d\($0.isDiscardable)|c\($0.isClean)|s\($0.canBeSaved)"
    }
    let redo = stack.redoEntries.map {
        "\($0.title)|\($0.actionCount)|d\($0.isDiscardable)|c\($0.isClean)|s\($0.canBeSaved)"
    }
    return "U[\(undo.joined(separator: ", "))] R[\(redo.joined(separator: ", "))] clean=\(stack.isClean)"
}

func hsTree(_ stack: ActionStack) -> String {
    guard let tree = stack.historyTree else { return "linear" }
    let nodes = tree.nodes.map {
        "\($0.sequence)<\($0.parent?.sequence ?? -1) ch\($0.children.map(\.sequence)) r\($0.redoChild?.sequence ?? -1) \($0.actionName) n\($0.actionCount) c\($0.isClean) cur\($0.isCurrent)"
    }
    return "root \(tree.root.sequence) cur \(tree.current.sequence) | " + nodes.joined(separator: "; ")
}

/// Keeps the objects a test resolves alive for the rest of the run (targets are held weakly).
final class HSKeepAlive: @unchecked Sendable {
    static let shared = HSKeepAlive()
    private let lock = NSLock()
    private var objects: [AnyObject] = []
    func keep(_ more: [AnyObject]) { lock.withLock { objects += more } }
}

@discardableResult
func hsRestore(
    _ saved: SavedHistory, into stack: ActionStack, _ objects: [String: AnyObject]
) throws(ActionStack.HistoryPersistenceError) -> ActionStack.RestoreReport {
    HSKeepAlive.shared.keep(Array(objects.values))
    return try stack.restoreHistory(saved) { objects[$0] }
}

func hsRoundTrip(_ saved: SavedHistory) throws -> SavedHistory {
    let data = try HistoryArchive(fingerprint: "f", histories: ["h": saved]).encoded()
    let archive = try HistoryArchive(decoding: data, registry: testRegistry())
    return try #require(archive.histories["h"])
}

/// A minimal valid history body with `steps` (JSON text).
func hsHistory(_ steps: String, current: Int = 1, extra: String = "") -> String {
    #"{"commands":[["hs.mark",1]],"current":\#(current),"keys":["box"],"root":0,"shape":"linear","steps":\#(steps)\#(extra)}"#
}

func isNotEmptyMisuse(_ error: ActionStack.HistoryPersistenceError?) -> Bool {
    if error?.misuse?.kind == .historyNotEmpty { return true }
    return false
}

func isReentrant(_ error: ActionStack.HistoryPersistenceError?) -> Bool {
    if error?.misuse?.kind == .reentrantCall { return true }
    return false
}

func hsCatch<T>(_ body: () throws -> T) -> ActionStack.HistoryPersistenceError? {
    do {
        _ = try body()
        return nil
    } catch let error as ActionStack.HistoryPersistenceError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// A new, empty directory in the temporary directory (the caller removes it).
func tempDir() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("save-restore-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
