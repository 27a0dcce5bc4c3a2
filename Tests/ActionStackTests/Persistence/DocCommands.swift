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

#if canImport(Glibc)
    import Glibc
#endif

// A document of one value and its commands (`hr.*`; the `HR` and `hr` prefixes keep these fixtures
// apart from the box's in BoxCommands.swift), with what the persistence tests built on them share: a
// stack set up for them, steps, a valid history, snapshots to compare a stack with its restored
// copy, the cuts of a restore report.

final class HRDoc {
    let id: String
    var value: Int
    init(_ id: String = "doc", _ value: Int = 0) {
        self.id = id
        self.value = value
    }
}

final class HRStranger {}

/// Sets the value, registering the inverse command.
struct HRSet: UndoCommand, Equatable {
    static let commandType = "hr.set"
    var value: Int

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRSet(value: doc.value), on: doc, key: doc.id)
        doc.value = value
    }
}

/// Sets the value with a cost.
struct HRCostly: UndoCommand, Equatable {
    static let commandType = "hr.costly"
    var value: Int
    var cost: Int

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRCostly(value: doc.value, cost: cost), on: doc, key: doc.id, options: .init(cost: cost))
        doc.value = value
    }
}

/// Sets the value with a coalescing key.
struct HRTyping: UndoCommand, Equatable {
    static let commandType = "hr.typing"
    var value: Int

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRTyping(value: doc.value), on: doc, key: doc.id)
        doc.value = value
    }
}

/// A command that awaits, and can be told to fail.
struct HRAsyncSet: AsyncUndoCommand, Equatable {
    static let commandType = "hr.async"
    var value: Int
    var fails: Bool

    struct Refused: Error {}

    nonisolated(nonsending) func perform(on doc: HRDoc, in stack: ActionStack) async throws {
        if fails { throw Refused() }
        stack.registerAsyncUndo(HRAsyncSet(value: doc.value, fails: fails), on: doc, key: doc.id)
        doc.value = value
    }
}

/// A command whose payload is a free-form dictionary (to put many keys in a payload).
struct HRBag: UndoCommand {
    static let commandType = "hr.bag"
    var values: [String: Int]

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRBag(values: values), on: doc, key: doc.id)
    }
}

func hrStack(_ shape: ActionStack.HistoryShape = .linear) -> ActionStack {
    let stack = ActionStack()
    stack.groupsByEvent = false
    stack.historyShape = shape
    stack.misusePolicy = .report
    return stack
}

/// One closed step: a command that sets `doc` to `value`, named `name`.
func hrChange(_ doc: HRDoc, to value: Int, on stack: ActionStack, name: String = "Set") {
    stack.beginUndoGrouping()
    HRSet(value: value).perform(on: doc, in: stack)
    stack.setActionName(name)
    stack.endUndoGrouping()
}

/// Sets `doc` to `value`, registering the inverse as a closure that re-registers its own.
func hrClosureSet(_ doc: HRDoc, to value: Int, on stack: ActionStack) {
    let old = doc.value
    stack.registerUndo(withTarget: doc) { [unowned stack] doc in hrClosureSet(doc, to: old, on: stack) }
    doc.value = value
}

/// One closed step registered as a closure (cannot be saved).
func hrClosureChange(_ doc: HRDoc, to value: Int, on stack: ActionStack, name: String = "Closure") {
    stack.beginUndoGrouping()
    hrClosureSet(doc, to: value, on: stack)
    stack.setActionName(name)
    stack.endUndoGrouping()
}

/// A valid version 2 history of two steps setting "doc", current at the end.
let hrValidHistory =
    #"{"shape":"linear","root":0,"current":2,"commands":[["hr.set",1,"doc"]],"steps":[1,1],"actions":[0,0],"payloads":[{"value":0},{"value":1}]}"#

/// Observable state of a stack, for comparing an original with its restored copy.
struct HRSnapshot: Equatable, CustomStringConvertible {
    var undoCount: Int
    var redoCount: Int
    var undoTitle: String
    var redoTitle: String
    var isClean: Bool
    var undoNames: [String]
    var redoNames: [String]
    var undoClean: [Bool]
    var redoClean: [Bool]
    var canBeSaved: [Bool]

    init(_ stack: ActionStack) {
        let state = stack.state
        undoCount = state.undoCount
        redoCount = state.redoCount
        undoTitle = stack.undoMenuItemTitle
        redoTitle = stack.redoMenuItemTitle
        isClean = stack.isClean
        let undo = stack.undoEntries
        let redo = stack.redoEntries
        undoNames = undo.map(\.actionName)
        redoNames = redo.map(\.actionName)
        undoClean = undo.map(\.isClean)
        redoClean = redo.map(\.isClean)
        canBeSaved = (undo + redo).map(\.canBeSaved)
    }

    var description: String {
        "undo \(undoCount) \(undoNames) \(undoClean), redo \(redoCount) \(redoNames) \(redoClean), clean \(isClean)"
    }
}

/// The tree as a comparable value: each node's sequence, parent, redo child, date, name, count,
/// clean, current.
struct HRTreeShape: Equatable {
    struct Node: Equatable {
        var sequence: Int
        var parent: Int?
        var redoChild: Int?
        var date: Double
        var name: String
        var actionCount: Int
        var isClean: Bool
        var isCurrent: Bool
    }
    var nodes: [Node]
    var root: Int
    var current: Int

    init?(_ stack: ActionStack) {
        guard let tree = stack.historyTree else { return nil }
        nodes = tree.nodes.map {
            Node(
                sequence: $0.sequence, parent: $0.parent?.sequence, redoChild: $0.redoChild?.sequence,
                date: $0.date.timeIntervalSinceReferenceDate, name: $0.actionName, actionCount: $0.actionCount,
                isClean: $0.isClean, isCurrent: $0.isCurrent)
        }
        root = tree.root.sequence
        current = tree.current.sequence
    }
}

/// The peak resident memory of this process in KiB (VmHWM), and its current one (VmRSS).
func hrMemory() -> (peak: Int, current: Int) {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    var peak = 0
    var current = 0
    for line in text.split(separator: "\n") {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if parts.first == "VmHWM:", parts.count > 1 { peak = Int(parts[1]) ?? 0 }
        if parts.first == "VmRSS:", parts.count > 1 { current = Int(parts[1]) ?? 0 }
    }
    return (peak, current)
}

/// Encodes and reads back, checking that encoding again gives the same bytes.
func hrRoundTrip(_ history: SavedHistory, name: String = "h", fingerprint: String = "f") throws -> SavedHistory {
    let data = try HistoryArchive(fingerprint: fingerprint, histories: [name: history]).encoded()
    let archive = try HistoryArchive(decoding: data, registry: testRegistry())
    let again = try archive.encoded()
    #expect(again == data, "encode → decode → encode changed the bytes")
    return try #require(archive.histories[name])
}

/// Five command steps on "doc" (values 1...5), the clean state at `clean`, the document at
/// `current`; the history saved.
func hrFive(clean: Int? = nil, current: Int = 5, shape: ActionStack.HistoryShape = .linear) throws -> (
    SavedHistory, value: Int
) {
    let stack = hrStack(shape)
    let doc = HRDoc()
    for value in 1...5 { hrChange(doc, to: value, on: stack, name: "S\(value)") }
    if let clean {
        stack.jump(to: clean)
        stack.markClean()
    }
    stack.jump(to: current)
    return (try stack.savedHistory(), doc.value)
}

struct HRCut: Equatable, CustomStringConvertible {
    var node: Int
    var reason: ActionStack.RestoreReport.Reason
    var dropped: Int
    init(_ node: Int, _ reason: ActionStack.RestoreReport.Reason, _ dropped: Int) {
        self.node = node
        self.reason = reason
        self.dropped = dropped
    }
    var description: String { "node \(node): \(reason), \(dropped)" }
}

/// A report's cuts, by node.
func hrCuts(_ report: ActionStack.RestoreReport) -> [HRCut] {
    report.cuts.map { HRCut($0.node, $0.reason, $0.droppedSteps) }.sorted { $0.node < $1.node }
}

/// Checks that savableDepth, the entries' canBeSaved and savedHistory agree.
func hrAgree(_ stack: ActionStack, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation)
    throws
{
    let depth = stack.savableDepth
    let saved = try stack.savedHistory()
    #expect(
        depth.undoSteps + depth.redoSteps + depth.branchSteps == saved.steps.count, comment,
        sourceLocation: sourceLocation)
    // The undo entries are savable up to the depth, and the first one beyond it is not.
    let undo = stack.undoEntries.filter { !$0.isOpen }
    let redo = stack.redoEntries
    let undoSavable = undo.prefix(depth.undoSteps).allSatisfy { $0.canBeSaved }
    let redoSavable = redo.prefix(depth.redoSteps).allSatisfy { $0.canBeSaved }
    #expect(undoSavable, comment, sourceLocation: sourceLocation)
    #expect(redoSavable, comment, sourceLocation: sourceLocation)
    if depth.undoSteps < undo.count {
        #expect(!undo[depth.undoSteps].canBeSaved, comment, sourceLocation: sourceLocation)
    }
    if depth.redoSteps < redo.count {
        #expect(!redo[depth.redoSteps].canBeSaved, comment, sourceLocation: sourceLocation)
    }
    // Saved steps are as many undo steps as the depth says.
    if stack.historyShape == .linear {
        #expect(saved.current - saved.root == depth.undoSteps, comment, sourceLocation: sourceLocation)
    }
}

func hrTemporaryURL(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("persistence-\(name)-\(UUID().uuidString)")
}

/// A command whose payload is a bare JSON string.
struct HRScalar: UndoCommand, Equatable {
    static let commandType = "hr.scalar"
    var text: String

    init(text: String) { self.text = text }
    init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRScalar(text: "\(doc.value)"), on: doc, key: doc.id)
        doc.value = Int(text) ?? -1
    }
}

/// A command with nothing to say.
struct HRNothing: UndoCommand {
    static let commandType = "hr.nothing"
    func perform(on doc: HRDoc, in stack: ActionStack) {
        stack.registerUndo(HRNothing(), on: doc, key: doc.id)
    }
}

final class HRNote {
    let id = "note-1"
    var text = ""
}

struct HRSetText: UndoCommand {
    static let commandType = "notes.setText"
    var text: String

    func perform(on note: HRNote, in stack: ActionStack) {
        stack.registerUndo(HRSetText(text: note.text), on: note, key: note.id)
        note.text = text
    }
}

struct HRMove: UndoCommand {
    static let commandType = "board.move"
    var x: Int
    var y: Int
    func perform(on doc: HRDoc, in stack: ActionStack) {}
}

final class HRCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
