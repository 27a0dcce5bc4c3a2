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

// The documented promises where awaited operations meet the other features: awaited operations against their synchronous forms, failing awaited
// steps and groups while other tasks change the document, new changes that end a redo future in a
// branching history, and saved, restored and journaled histories after all of these. Each test
// quotes the sentence it checks. The prefix `rfp` keeps the fixtures apart from other suites'.

// MARK: - Fixtures

/// One value of a document; the target of its own changes. Its awaited inverse may wait at a gate,
/// refuse to write a value, or register no inverse of its own.
final class RFPCell {
    var value = 0
    var gate: Gate?
    /// The values its awaited inverse refuses to write.
    var refused: Set<Int> = []
    /// Whether its awaited inverse registers no inverse (an action that cannot be undone).
    var registersNoInverse = false
}

struct RFPRefused: Error, Equatable {
    var value: Int
}

/// Sets `cell` and registers the synchronous inverse (with `cost`), which registers its own inverse.
nonisolated func rfpSet(_ cell: RFPCell, to new: Int, on stack: ActionStack, cost: Int = 0) {
    let old = cell.value
    stack.registerUndo(withTarget: cell, options: .cost(cost)) { cell in rfpSet(cell, to: old, on: stack, cost: cost) }
    cell.value = new
}

/// Sets `cell` and registers an awaited inverse that waits at the cell's gate, may be refused, and
/// registers its own inverse. With a cost, a synchronous action that bears it comes first in the
/// step (it does nothing; the awaited inverse registers a new one), so the step costs what
/// `rfpSet`'s step costs.
nonisolated func rfpAwaitedSet(_ cell: RFPCell, to new: Int, on stack: ActionStack, cost: Int = 0) {
    let old = cell.value
    if cost > 0 { stack.registerUndo(withTarget: cell, options: .cost(cost)) { _ in } }
    stack.registerAsyncUndo(withTarget: cell) { cell in
        if let gate = cell.gate { await gate.pass() }
        if cell.refused.contains(old) { throw RFPRefused(value: old) }
        if cell.registersNoInverse {
            cell.value = old
            return
        }
        rfpAwaitedSet(cell, to: old, on: stack, cost: cost)
    }
    cell.value = new
}

/// The cells' values.
func rfpValues(_ cells: RFPCell...) -> [Int] { cells.map(\.value) }

/// One closed, named step.
@MainActor
func rfpStep(_ stack: ActionStack, named name: String, _ body: () -> Void) {
    stack.beginUndoGrouping()
    body()
    stack.setActionName(name)
    stack.endUndoGrouping()
}

/// Waits until the request a synchronous call started has settled.
@MainActor
func rfpSettle(_ stack: ActionStack) async {
    if let request = stack.startedRequest { _ = try? await request.value() }
    await settle(until: { !stack.isBusy })
}

/// Runs an awaited operation and keeps its outcome.
@MainActor
func rfpAttempt(_ body: () async throws -> Bool) async -> Result<Bool, ActionStack.OperationError> {
    do {
        return .success(try await body())
    } catch let error as ActionStack.OperationError {
        return .failure(error)
    } catch {
        Issue.record("not an OperationError: \(error)")
        return .failure(.cancelled(.task))
    }
}

/// A branching history's nodes as a history panel shows them, without dates and action counts.
@MainActor
func rfpTree(_ stack: ActionStack) -> [String]? {
    stack.historyTree.map { tree in
        tree.nodes.map {
            "#\($0.sequence)<\($0.parent?.sequence ?? -1) \($0.actionName) ch\($0.children.map(\.sequence)) "
                + "r\($0.redoChild?.sequence ?? -1)\($0.isClean ? " clean" : "")\($0.isCurrent ? " current" : "")"
        }
    }
}

/// Everything a user sees of a stack (but the action counts, which an awaited step's extra action
/// changes).
struct RFPLook: Equatable, CustomStringConvertible {
    var values: [Int]
    var undo: [String]
    var redo: [String]
    var undoCount: Int
    var redoCount: Int
    var canUndo: Bool
    var canRedo: Bool
    var isClean: Bool
    var isCleanAtStart: Bool
    var position: Int
    var level: Int
    var undoTitle: String
    var redoTitle: String
    var node: Int?
    var tree: [String]?

    var description: String {
        "values \(values) undo \(undo) redo \(redo) counts \(undoCount)/\(redoCount) can \(canUndo)/\(canRedo) "
            + "clean \(isClean) atStart \(isCleanAtStart) position \(position) level \(level) "
            + "titles \(undoTitle)|\(redoTitle) node \(node ?? -1) tree \(tree ?? [])"
    }
}

@MainActor
func rfpLook(_ stack: ActionStack, _ values: [Int]) -> RFPLook {
    let entry: (ActionStack.HistoryEntry) -> String = { "\($0.title)\($0.isClean ? "*" : "")\($0.isOpen ? "+" : "")" }
    return RFPLook(
        values: values, undo: stack.undoEntries.map(entry), redo: stack.redoEntries.map(entry),
        undoCount: stack.undoCount, redoCount: stack.redoCount, canUndo: stack.canUndo, canRedo: stack.canRedo,
        isClean: stack.isClean, isCleanAtStart: stack.isCleanAtStart, position: stack.historyPosition,
        level: stack.groupingLevel, undoTitle: stack.undoMenuItemTitle, redoTitle: stack.redoMenuItemTitle,
        node: stack.currentNode?.sequence, tree: rfpTree(stack))
}

/// One operation of a script run on several copies of a document.
enum RFPOp: Sendable, CustomStringConvertible {
    case change(Int, Int, String)
    case openChange(Int, Int, String)
    case close
    case undo
    case redo
    case jump(Int)
    case node(Int)
    case earlier
    case later
    case mark
    case levels(Int)
    case cost(Int)
    case branchSteps(Int)

    var description: String {
        switch self {
        case .change(let index, let value, let name): "change #\(index) to \(value) as \(name)"
        case .openChange(let index, let value, let name): "open a group: #\(index) to \(value) as \(name)"
        case .close: "close"
        case .undo: "undo"
        case .redo: "redo"
        case .jump(let position): "jump to \(position)"
        case .node(let node): "jump to node \(node)"
        case .earlier: "earlier"
        case .later: "later"
        case .mark: "mark clean"
        case .levels(let levels): "levelsOfUndo \(levels)"
        case .cost(let cost): "maximumCost \(cost)"
        case .branchSteps(let steps): "maximumBranchSteps \(steps)"
        }
    }
}

/// How a copy performs undo, redo and jumps.
enum RFPMode {
    /// `undo()`, `redo()`, `jump(to:)`, `jump(toNode:)`: run at once (synchronous steps).
    case synchronous
    /// `performUndo()`, `performRedo()`, `performJump(to:)`, `performJump(toNode:)`.
    case awaited
    /// The synchronous calls on the main actor, which start a request for a step that awaits; the
    /// copy waits until the request has settled.
    case menu
}

/// A copy of a document of four cells, recorded with synchronous or awaited steps of cost 1.
@MainActor
final class RFPCopy {
    let stack: ActionStack
    let cells = (0..<4).map { _ in RFPCell() }
    let awaitedSteps: Bool
    let mode: RFPMode

    init(awaitedSteps: Bool, mode: RFPMode, shape: ActionStack.HistoryShape) {
        stack = makeStack()
        stack.historyShape = shape
        stack.historyClock = { Date(timeIntervalSinceReferenceDate: 1_000) }
        self.awaitedSteps = awaitedSteps
        self.mode = mode
    }

    var values: [Int] { cells.map(\.value) }
    var look: RFPLook { rfpLook(stack, values) }

    func record(_ index: Int, _ value: Int) {
        if awaitedSteps {
            rfpAwaitedSet(cells[index], to: value, on: stack, cost: 1)
        } else {
            rfpSet(cells[index], to: value, on: stack, cost: 1)
        }
    }

    func apply(_ op: RFPOp) async {
        switch op {
        case .change(let index, let value, let name):
            stack.beginUndoGrouping()
            record(index, value)
            stack.setActionName(name)
            stack.endUndoGrouping()
        case .openChange(let index, let value, let name):
            stack.beginUndoGrouping()
            record(index, value)
            stack.setActionName(name)
        case .close: stack.endUndoGrouping()
        case .mark: stack.markClean()
        case .levels(let levels): stack.levelsOfUndo = levels
        case .cost(let cost): stack.maximumCost = cost
        case .branchSteps(let steps): stack.maximumBranchSteps = steps
        case .earlier:
            _ = try? stack.earlier()
            await rfpSettle(stack)
        case .later:
            _ = try? stack.later()
            await rfpSettle(stack)
        case .undo:
            switch mode {
            case .awaited: _ = try? await stack.performUndo()
            case .synchronous, .menu: stack.undo()
            }
        case .redo:
            switch mode {
            case .awaited: _ = try? await stack.performRedo()
            case .synchronous, .menu: stack.redo()
            }
        case .jump(let position):
            switch mode {
            case .awaited: _ = try? await stack.performJump(to: position)
            case .synchronous, .menu: stack.jump(to: position)
            }
        case .node(let node):
            switch mode {
            case .awaited: _ = try? await stack.performJump(toNode: .init(sequence: node))
            case .synchronous, .menu: try? stack.jump(toNode: .init(sequence: node))
            }
        }
        if mode == .menu { await rfpSettle(stack) }
    }
}

/// A script that visits every kind of operation: clean marks, open groups closed by an undo, a redo
/// or a jump, limits set between steps, moves in a tree (harmless errors in a line).
let rfpScript: [RFPOp] = [
    .change(0, 1, "A"), .change(1, 2, "B"), .mark, .change(2, 3, "C"), .change(0, 4, "D"),
    .undo, .undo, .redo, .jump(0), .jump(3), .change(3, 5, "E"), .undo, .jump(1), .redo,
    .openChange(1, 6, "F"), .undo, .redo, .jump(9), .node(2), .node(1), .change(0, 8, "H"), .node(3),
    .earlier, .earlier, .later, .levels(3), .undo, .redo, .redo, .node(0), .node(99),
    .openChange(2, 7, "G"), .jump(0), .mark, .jump(9), .levels(0), .cost(2), .undo, .jump(0),
    .openChange(3, 9, "I"), .redo, .branchSteps(1), .change(1, 10, "J"), .undo, .undo, .jump(9),
]

// MARK: - Commands (for the saved history and the journal)

/// A box of one value, found again by its `id`.
final class RFPBox {
    let id: String
    var value: Int
    init(_ id: String, value: Int = 0) {
        self.id = id
        self.value = value
    }
}

/// The "server" behind the awaited command: a gate per box, values it refuses, boxes whose writes
/// register no inverse.
@MainActor
enum RFPServer {
    static var gates: [String: Gate] = [:]
    static var refused: [String: Set<Int>] = [:]
    static var silent: Set<String> = []

    /// Waits at the box's gate and writes: whether the inverse is to be registered.
    static func write(_ id: String, _ value: Int) async throws -> Bool {
        if let gate = gates[id] { await gate.pass() }
        if refused[id]?.contains(value) == true { throw RFPRefused(value: value) }
        return !silent.contains(id)
    }

    static func reset() {
        gates = [:]
        refused = [:]
        silent = []
    }
}

/// Sets the value, registering the inverse command (with a cost).
struct RFPSet: UndoCommand {
    static let commandType = "rfp.set"
    var value: Int
    var cost = 0

    func perform(on box: RFPBox, in stack: ActionStack) {
        stack.registerUndo(RFPSet(value: box.value, cost: cost), on: box, key: box.id, options: .cost(cost))
        box.value = value
    }
}

/// Sets the value through the server, registering the awaited inverse command.
struct RFPAwaitedSet: AsyncUndoCommand {
    static let commandType = "rfp.awaited"
    var value: Int

    nonisolated(nonsending) func perform(on box: RFPBox, in stack: ActionStack) async throws {
        let registers = try await RFPServer.write(box.id, value)
        if registers { stack.registerAsyncUndo(RFPAwaitedSet(value: box.value), on: box, key: box.id) }
        box.value = value
    }
}

func rfpRegistry() -> CommandRegistry {
    var registry = CommandRegistry()
    registry.register(RFPSet.self)
    registry.register(RFPAwaitedSet.self)
    return registry
}

/// One closed, named step that sets `box` through a synchronous command.
@MainActor
func rfpCommandStep(_ stack: ActionStack, _ box: RFPBox, to value: Int, named name: String, cost: Int = 0) {
    rfpStep(stack, named: name) { RFPSet(value: value, cost: cost).perform(on: box, in: stack) }
}

/// One closed, named step that sets `boxes` (in order) through the awaited command.
@MainActor
func rfpAwaitedCommandStep(_ stack: ActionStack, _ boxes: [RFPBox], to value: Int, named name: String) {
    rfpStep(stack, named: name) {
        for box in boxes {
            stack.registerAsyncUndo(RFPAwaitedSet(value: box.value), on: box, key: box.id)
            box.value = value
        }
    }
}

/// A journal with a recorder of one stack, in a directory of its own.
@MainActor
final class RFPJournal {
    let directory: URL
    let journal: HistoryJournal
    private(set) var recorder: HistoryRecorder?

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rfp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        journal = HistoryJournal(url: directory.appendingPathComponent("doc.journal"), synchronizesAppends: false)
    }

    func record(_ stack: ActionStack) {
        recorder = HistoryRecorder(journal: journal, stack: stack) { "doc" }
    }

    /// The history the journal gives back at the next launch.
    func recovered() throws -> SavedHistory? {
        try HistoryRecorder.recover(from: journal, fingerprint: "doc", registry: rfpRegistry())?
            .histories[HistoryRecorder.defaultHistoryName]
    }

    /// Whether the recovered history is the one a full save makes now.
    func expectRecoveryMatches(
        _ stack: ActionStack, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let saved = try stack.savedHistory()
        let recovered = try #require(try recovered(), "nothing recovered: \(comment)", sourceLocation: sourceLocation)
        #expect(dump(recovered) == dump(saved), "\(comment)", sourceLocation: sourceLocation)
        #expect(recorder?.lastError == nil, "\(comment): \(String(describing: recorder?.lastError))")
    }

    func cleanUp() {
        recorder = nil
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Encodes and decodes a saved history, as a relaunch reads it.
func rfpThroughArchive(_ saved: SavedHistory) throws -> SavedHistory {
    let data = try HistoryArchive(fingerprint: "doc", histories: ["h": saved]).encoded()
    return try #require(try HistoryArchive(decoding: data, registry: rfpRegistry()).histories["h"])
}

/// The names of the group notifications of `stack`, and marks a test adds, in order.
final class RFPEvents: @unchecked Sendable {  // appended on the thread that uses the stack
    private let lock = NSLock()
    private var items: [String] = []
    private var tokens: [any NSObjectProtocol] = []

    init(_ stack: ActionStack, _ names: [(Notification.Name, String)]) {
        for (name, short) in names {
            tokens.append(
                NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) { [unowned self] _ in
                    self.add(short)
                })
        }
    }

    func add(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
    func reset() { lock.withLock { items.removeAll() } }

    deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }

    static let groups: [(Notification.Name, String)] = [
        (ActionStack.didOpenUndoGroupNotification, "DidOpen"),
        (ActionStack.willCloseUndoGroupNotification, "WillClose"),
        (ActionStack.didCloseUndoGroupNotification, "DidClose"),
    ]
    static let operations: [(Notification.Name, String)] = [
        (ActionStack.willUndoChangeNotification, "willUndo"),
        (ActionStack.didUndoChangeNotification, "didUndo"),
        (ActionStack.didFailUndoChangeNotification, "failUndo"),
        (ActionStack.willRedoChangeNotification, "willRedo"),
        (ActionStack.didRedoChangeNotification, "didRedo"),
        (ActionStack.didFailRedoChangeNotification, "failRedo"),
    ]
}

// MARK: - 1. Awaited operations against the synchronous ones

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct AwaitedOperationsWhereFeaturesMeetTests {
    /// "`performUndo(isolation:)`, `performRedo(isolation:)` and `performJump(to:isolation:)` are
    /// the awaitable forms of `undo()`, `redo()` and `jump(to:)` ... They work on any step; a
    /// synchronous step runs as `undo()` would." Also "A move ..., synchronous or awaited, is
    /// trimmed and pruned once, when it ends ... the steps kept are the same whether the move ran
    /// at once or as a request." The same script on synchronous steps leaves the same history,
    /// titles, counts, clean state and tree, after every operation.
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func awaitedOperationsOnSynchronousStepsLeaveWhatTheSynchronousOnesLeave(shape: ActionStack.HistoryShape)
        async
    {
        let plain = RFPCopy(awaitedSteps: false, mode: .synchronous, shape: shape)
        let awaited = RFPCopy(awaitedSteps: false, mode: .awaited, shape: shape)
        for (index, op) in rfpScript.enumerated() {
            await plain.apply(op)
            await awaited.apply(op)
            #expect(awaited.look == plain.look, "after \(index): \(op)\nawaited \(awaited.look)\nsync    \(plain.look)")
        }
        #expect(plain.stack.lastMisuse == nil && awaited.stack.lastMisuse == nil)
    }

    /// "The synchronous `undo()`, `redo()` and `jump(to:)` (an Edit menu's) keep Foundation's
    /// behaviour on synchronous steps. On a step with an asynchronous action ... they start the same
    /// operation as a request" and "`performUndo()` keeps what `undo()` keeps". Steps that await,
    /// undone by the Edit menu's calls or by the awaited ones, leave what synchronous steps leave.
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func stepsThatAwaitLeaveWhatSynchronousStepsLeave(shape: ActionStack.HistoryShape) async {
        let plain = RFPCopy(awaitedSteps: false, mode: .synchronous, shape: shape)
        let menu = RFPCopy(awaitedSteps: true, mode: .menu, shape: shape)
        let awaited = RFPCopy(awaitedSteps: true, mode: .awaited, shape: shape)
        for (index, op) in rfpScript.enumerated() {
            await plain.apply(op)
            await menu.apply(op)
            await awaited.apply(op)
            #expect(menu.look == plain.look, "after \(index): \(op)\nmenu \(menu.look)\nsync \(plain.look)")
            #expect(awaited.look == plain.look, "after \(index): \(op)\nawaited \(awaited.look)\nsync    \(plain.look)")
        }
    }

    /// `performRedo()`: "The step it builds is trimmed to ``levelsOfUndo`` and ``maximumCost`` when
    /// the request ends ..., where ``redo()`` trims before its did-notification: observers of
    /// ``didRedoChangeNotification`` may see one step over the limit; state observers
    /// (``observe(_:)``) and every call after it see the stack trimmed." And the article: "the
    /// observers of an awaited redo's did-notification see the step it built before the trim, where
    /// a synchronous redo trims first".
    @Test(arguments: ["levels", "cost"])
    func anAwaitedRedoTrimsWhenItEndsASynchronousOneBeforeItsDidNotification(limit: String) async throws {
        var seenInDidRedo: [Int] = []
        var afterwards: [Int] = []
        for awaited in [false, true] {
            let stack = makeStack()
            let cell = RFPCell()
            for value in 1...3 { rfpStep(stack, named: "S\(value)") { rfpSet(cell, to: value, on: stack, cost: 1) } }
            stack.undo()
            if limit == "levels" { stack.levelsOfUndo = 2 } else { stack.maximumCost = 2 }
            #expect(stack.undoCount == 2)
            let seen = Flag()
            let hook = NotificationHook(ActionStack.didRedoChangeNotification, stack) { stack in
                seen.count = stack.undoCount
            }
            var published: [Int] = []
            let token = stack.observe { published.append($0.undoCount) }
            if awaited { try await stack.performRedo() } else { stack.redo() }
            seenInDidRedo.append(seen.count)
            afterwards.append(stack.undoCount)
            #expect(published.allSatisfy { $0 <= 2 }, "states published: \(published)")
            #expect(published.last == 2)
            #expect(cell.value == 3 && stack.redoCount == 0)
            token.cancel()
            _ = hook
        }
        #expect(seenInDidRedo == [2, 3], "did-redo observers saw \(seenInDidRedo) (synchronous, awaited)")
        #expect(afterwards == [2, 2])
    }

    /// "Limits: ``levelsOfUndo``, ``maximumCost``, ... made while a request holds the turn wait
    /// until the whole request has ended ...: nothing is trimmed under a step in flight". The step in
    /// flight "stays in its list until it has succeeded". Then "So `performUndo()` keeps what
    /// `undo()` keeps": the same limit set after a synchronous undo trims to the same steps.
    @Test(arguments: ["levels", "cost"])
    func aLimitSetWhileAnAwaitedUndoIsSuspendedWaitsAndThenKeepsWhatUndoKeeps(limit: String) async throws {
        let plain = RFPCopy(awaitedSteps: false, mode: .synchronous, shape: .linear)
        let awaited = RFPCopy(awaitedSteps: true, mode: .awaited, shape: .linear)
        for copy in [plain, awaited] {
            for index in 0..<4 { await copy.apply(.change(index, index + 1, "S\(index + 1)")) }
        }
        let gate = Gate()
        awaited.cells[3].gate = gate
        let task = Task { @MainActor in await rfpAttempt { try await awaited.stack.performUndo() } }
        await settle(until: { gate.waitingCount == 1 })
        if limit == "levels" { awaited.stack.levelsOfUndo = 2 } else { awaited.stack.maximumCost = 2 }
        #expect(awaited.stack.undoCount == 4, "nothing is trimmed under a step in flight")
        #expect(awaited.stack.undoEntries.first?.isInFlight == true)
        gate.openForGood()
        #expect(try await task.value.get() == true)
        await settle(until: { !awaited.stack.isBusy })
        plain.stack.undo()
        if limit == "levels" { plain.stack.levelsOfUndo = 2 } else { plain.stack.maximumCost = 2 }
        #expect(awaited.look == plain.look, "\nawaited \(awaited.look)\nsync    \(plain.look)")
        #expect(awaited.stack.undoCount == 2 && awaited.stack.redoCount == 1)
    }

    /// `performJump(to:)`: "Limits set meanwhile (``levelsOfUndo``, ``maximumCost``) wait until it has
    /// ended, so they never cut it short". The article: "nothing is trimmed under a step in flight or
    /// between the steps of a jump".
    @Test func aLimitSetBetweenTheStepsOfAnAwaitedJumpWaitsUntilTheJumpHasEnded() async throws {
        let plain = RFPCopy(awaitedSteps: false, mode: .synchronous, shape: .linear)
        let awaited = RFPCopy(awaitedSteps: true, mode: .awaited, shape: .linear)
        for copy in [plain, awaited] {
            for index in 0..<4 { await copy.apply(.change(index, index + 1, "S\(index + 1)")) }
            await copy.apply(.jump(0))
        }
        let gate = Gate()
        awaited.cells[2].gate = gate  // the third redo waits
        let task = Task { @MainActor in await rfpAttempt { try await awaited.stack.performJump(to: 4) } }
        await settle(until: { gate.waitingCount == 1 })
        #expect(awaited.stack.undoCount == 2, "two steps redone, the third in flight")
        awaited.stack.levelsOfUndo = 1
        #expect(awaited.stack.undoCount == 2, "nothing is trimmed between the steps of a jump")
        gate.openForGood()
        #expect(try await task.value.get() == true)
        await settle(until: { !awaited.stack.isBusy })
        #expect(awaited.values == [1, 2, 3, 4], "the limit did not cut the jump short")
        plain.stack.jump(to: 4)
        plain.stack.levelsOfUndo = 1
        #expect(awaited.look == plain.look, "\nawaited \(awaited.look)\nsync    \(plain.look)")
        #expect(awaited.stack.undoCount == 1 && awaited.stack.redoCount == 0)
    }

    /// "The open group that an undo, a redo, a jump or a move through a branching history closes
    /// before its first step is the exception: a change made before the request moved anything, it
    /// is trimmed to the limits at once, as the synchronous call's close trims it. So
    /// `performUndo()` keeps what `undo()` keeps, and an awaited jump ... counts its steps ... in the
    /// history the synchronous one finds."
    @Test(arguments: ["undo", "redo", "jump"])
    func theOpenGroupAnAwaitedOperationClosesFirstIsTrimmedAsTheSynchronousCloseTrimsIt(operation: String)
        async
    {
        var looks: [RFPLook] = []
        for mode in [RFPMode.synchronous, .awaited] {
            let copy = RFPCopy(awaitedSteps: false, mode: mode, shape: .linear)
            copy.stack.levelsOfUndo = 2
            await copy.apply(.change(0, 1, "A"))
            await copy.apply(.change(1, 2, "B"))
            await copy.apply(.openChange(2, 3, "C"))
            switch operation {
            case "undo": await copy.apply(.undo)
            case "redo": await copy.apply(.redo)
            default: await copy.apply(.jump(0))
            }
            looks.append(copy.look)
        }
        #expect(looks[1] == looks[0], "\nawaited \(looks[1])\nsync    \(looks[0])")
        switch operation {
        case "undo":
            #expect(looks[0].undo == ["Undo B"] && looks[0].redo == ["Redo C"])
        case "redo":
            #expect(looks[0].undo == ["Undo C", "Undo B"] && looks[0].redo.isEmpty)
        default:
            // A was trimmed when the group closed: the jump undoes B and C only.
            #expect(looks[0].values == [1, 0, 0, 0] && looks[0].redo == ["Redo B", "Redo C"])
        }
    }

    /// Misuse: "`nestedGroupsOpen` | `undo()`, `redo()`, `jump(to:)` or a move in a branching history
    /// ..., or their awaited forms, with two or more groups open on the undo stack | ... | nothing".
    /// "The calls that throw also throw it: the awaited operations as ``OperationError/misuse(_:)``".
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func withTwoGroupsOpenEveryFormOfUndoRedoAndJumpChangesNothing(shape: ActionStack.HistoryShape) async {
        let copy = RFPCopy(awaitedSteps: false, mode: .synchronous, shape: shape)
        await copy.apply(.change(0, 1, "A"))
        await copy.apply(.change(1, 2, "B"))
        await copy.apply(.undo)
        await copy.apply(.openChange(2, 3, "C"))
        await copy.apply(.openChange(3, 4, "D"))
        let stack = copy.stack
        let before = copy.look
        #expect(before.level == 2)
        let awaitedOutcomes = [
            await rfpAttempt { try await stack.performUndo() },
            await rfpAttempt { try await stack.performRedo() },
            await rfpAttempt { try await stack.performJump(to: 0) },
        ]
        for outcome in awaitedOutcomes {
            guard case .failure(let error) = outcome else {
                Issue.record("an awaited form went ahead: \(outcome)")
                continue
            }
            #expect(error.misuse?.kind == .nestedGroupsOpen, "\(error)")
            #expect(copy.look == before)
        }
        for call in ["undo", "redo", "jump"] {
            stack.lastMisuse = nil
            switch call {
            case "undo": stack.undo()
            case "redo": stack.redo()
            default: stack.jump(to: 0)
            }
            #expect(stack.lastMisuse?.kind == .nestedGroupsOpen, "\(call)")
            #expect(copy.look == before, "\(call)")
        }
        if shape == .tree {
            let outcome = await rfpAttempt { try await stack.performJump(toNode: .init(sequence: 0)) }
            if case .failure(let error) = outcome {
                #expect(error.misuse?.kind == .nestedGroupsOpen, "\(error)")
            } else {
                Issue.record("performJump(toNode:) went ahead: \(outcome)")
            }
            #expect(copy.look == before)
        }
    }

    /// "The step a redo builds is kept too when its handlers register nothing, unless registration
    /// is disabled" and, for an awaited redo, "the awaitable forms of `undo()`, `redo()`".
    /// Set ``dropsEmptyGroups`` "to drop such groups instead".
    @Test(arguments: [false, true])
    func aRedoWhoseHandlersRegisterNothingBuildsWhatTheSynchronousRedoBuilds(dropsEmptyGroups: Bool) async throws {
        var looks: [RFPLook] = []
        for awaited in [false, true] {
            let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
            let cell = RFPCell()
            rfpStep(stack, named: "Set") {
                stack.registerUndo(withTarget: cell) { cell in
                    cell.value = 0
                    // The redo registers nothing.
                    stack.registerUndo(withTarget: cell) { cell in cell.value = 1 }
                }
                cell.value = 1
            }
            stack.undo()
            #expect(stack.redoCount == 1)
            if awaited { try await stack.performRedo() } else { stack.redo() }
            looks.append(rfpLook(stack, [cell.value]))
        }
        #expect(looks[1] == looks[0], "\nawaited \(looks[1])\nsync    \(looks[0])")
        #expect(looks[0].values == [1] && looks[0].redoCount == 0)
        #expect(looks[0].undoCount == (dropsEmptyGroups ? 0 : 1), "\(looks[0])")
    }

    /// "While registration is disabled, ``undo()``, ``redo()``, ... and each step of ``jump(to:)``
    /// still run the step ... but build nothing on the opposite stack ... a redo leaves nothing to
    /// undo ... A jump forward still redoes until as many steps are left to redo as lie beyond the
    /// position, so ``historyPosition`` ... stays where it was." The awaited forms do the same.
    @Test(arguments: ["redo", "jump"])
    func whileRegistrationIsDisabledTheAwaitedFormsBuildNothingAsTheSynchronousOnes(operation: String) async {
        var looks: [RFPLook] = []
        for mode in [RFPMode.synchronous, .awaited] {
            let copy = RFPCopy(awaitedSteps: false, mode: mode, shape: .linear)
            for index in 0..<3 { await copy.apply(.change(index, index + 1, "S\(index + 1)")) }
            await copy.apply(.jump(0))
            copy.stack.disableUndoRegistration()
            await copy.apply(operation == "redo" ? .redo : .jump(3))
            copy.stack.enableUndoRegistration()
            looks.append(copy.look)
        }
        #expect(looks[1] == looks[0], "\nawaited \(looks[1])\nsync    \(looks[0])")
        if operation == "redo" {
            #expect(looks[0].values == [1, 0, 0, 0] && looks[0].undoCount == 0 && looks[0].redoCount == 2)
        } else {
            #expect(
                looks[0].values == [1, 2, 3, 0] && looks[0].position == 0 && !looks[0].canUndo && !looks[0].canRedo)
        }
    }

    /// "A step whose undo registers nothing ... leaves nothing on the redo stack, as in Foundation:
    /// after jumping back over it, the positions beyond it are gone, and jumping forward again stops
    /// short of where you were." The awaited jump, "queued as one request", does the same.
    @Test func anAwaitedJumpOverAStepThatRegistersNoRedoStopsShortAsTheSynchronousJump() async throws {
        var looks: [RFPLook] = []
        for awaited in [false, true] {
            let stack = makeStack()
            let cells = (0..<3).map { _ in RFPCell() }
            rfpStep(stack, named: "A") { rfpSet(cells[0], to: 1, on: stack) }
            rfpStep(stack, named: "Plain") {
                stack.registerUndo(withTarget: cells[1]) { cell in cell.value = 0 }  // no redo
                cells[1].value = 1
            }
            rfpStep(stack, named: "C") { rfpSet(cells[2], to: 1, on: stack) }
            if awaited {
                try await stack.performJump(to: 0)
                try await stack.performJump(to: 3)
            } else {
                stack.jump(to: 0)
                stack.jump(to: 3)
            }
            looks.append(rfpLook(stack, cells.map(\.value)))
        }
        #expect(looks[1] == looks[0], "\nawaited \(looks[1])\nsync    \(looks[0])")
        #expect(looks[0].position == 2 && !looks[0].canRedo, "stops short of 3: \(looks[0])")
    }
}

// MARK: - 2. Awaited steps and groups that fail while other tasks change the document

extension AwaitedOperationsWhereFeaturesMeetTests {
    /// "If action *k* throws: the inverses that the actions before it registered are run, newest
    /// first, to put the document back ...; the step stays where it was, and the opposite stack is
    /// not touched; ``didFailUndoChangeNotification`` ... pairs with the will-notification". "When the
    /// rollback restores everything, the document is as it was, and so is ``isClean``."
    @Test func aFailingAwaitedUndoThatRollsBackFullyLeavesBothStacksAndTheCleanStateAsTheyWere() async {
        let stack = makeStack()
        let (x, a, b) = (RFPCell(), RFPCell(), RFPCell())
        rfpStep(stack, named: "X") { rfpSet(x, to: 1, on: stack) }
        rfpStep(stack, named: "Pair") {
            stack.registerAsyncUndo(withTarget: a) { _ in throw RFPRefused(value: 0) }  // action 0
            rfpSet(b, to: 1, on: stack)  // action 1, which runs first
        }
        rfpStep(stack, named: "Y") { rfpSet(x, to: 2, on: stack) }
        stack.undo()
        stack.markClean()
        let before = rfpLook(stack, [x.value, a.value, b.value])
        let events = RFPEvents(stack, RFPEvents.operations)
        let outcome = await rfpAttempt { try await stack.performUndo() }
        guard case .failure(let error) = outcome, let failure = error.actionFailure else {
            Issue.record("the undo did not fail with an action's failure: \(outcome)")
            return
        }
        #expect(failure.actionIndex == 0 && failure.isUndo && failure.stepName == "Pair")
        #expect(failure.rollback.isRestored, "\(failure.rollback)")
        #expect(failure.underlying is RFPRefused)
        #expect(rfpLook(stack, [x.value, a.value, b.value]) == before)
        #expect(events.all == ["willUndo", "failUndo"])
    }

    /// "When it cannot (an action that registered no inverse, a target freed meanwhile), the error
    /// lists the actions it could not undo, and the document is in a new state, not clean." The step
    /// still "stays where it was, and the opposite stack is not touched".
    @Test func aFailingAwaitedUndoThatCannotRollBackLeavesTheStepAndANewStateThatIsNotClean() async {
        let stack = makeStack()
        let (x, a, b) = (RFPCell(), RFPCell(), RFPCell())
        rfpStep(stack, named: "X") { rfpSet(x, to: 1, on: stack) }
        rfpStep(stack, named: "Pair") {
            stack.registerAsyncUndo(withTarget: a) { _ in throw RFPRefused(value: 0) }  // action 0
            stack.registerUndo(withTarget: b) { b in b.value = 0 }  // action 1: registers no inverse
            b.value = 1
        }
        rfpStep(stack, named: "Y") { rfpSet(x, to: 2, on: stack) }
        stack.undo()
        stack.markClean()
        let before = rfpLook(stack, [x.value, a.value, b.value])
        let outcome = await rfpAttempt { try await stack.performUndo() }
        guard case .failure(let error) = outcome, let failure = error.actionFailure else {
            Issue.record("the undo did not fail with an action's failure: \(outcome)")
            return
        }
        #expect(failure.rollback.unrestoredActions == [1], "\(failure.rollback)")
        #expect(b.value == 0)
        #expect(!stack.isClean && !stack.isCleanAtStart)
        let titlesBefore = before.undo.map { $0.replacingOccurrences(of: "*", with: "") }
        #expect(stack.undoEntries.map(\.title) == titlesBefore)
        #expect(stack.redoEntries.map(\.title) == ["Redo Y"])
        #expect(!stack.undoEntries.contains(where: \.isClean) && !stack.redoEntries.contains(where: \.isClean))
    }

    /// "a registration from any other task while an operation awaits is a new change by the user
    /// ...: when the operation settles, the change sits on top of the state the operation reached (or
    /// rolled back to), and the redo stack is emptied then, as any new change empties it, the
    /// operation's own opposite step included; in a branching history it becomes a branch then,
    /// leaving from the node the undone step left from, and the change's node hangs from the node the
    /// operation reached (until the operation settles, ``canRedo`` and the redo stack still show the
    /// old future ...)".
    @Test(arguments: zip([ActionStack.HistoryShape.linear, .linear, .tree], [false, true, false]))
    func anotherTasksChangeDuringAnAwaitedUndoEndsTheRedoFutureOrMakesItABranch(
        shape: ActionStack.HistoryShape, fails: Bool
    ) async throws {
        try await foreignChangeDuringAnAwaitedUndo(shape: shape, fails: fails)
    }

    /// The same promise, in a tree, for an undo that fails and rolls back: the old future ("the redo
    /// stack ... becomes a branch then") must leave from the node the document is at (the undone
    /// step never left it), and the change's node "hangs from the node the operation ... rolled back
    /// to", so jumping to it redoes S3 from there, not on top of C, and its clean mark holds.
    @Test
    func anotherTasksChangeDuringAFailingAwaitedUndoInATreeKeepsTheOldFutureWhereItLeft() async throws {
        try await foreignChangeDuringAnAwaitedUndo(shape: .tree, fails: true)
    }

    func foreignChangeDuringAnAwaitedUndo(shape: ActionStack.HistoryShape, fails: Bool) async throws {
        let stack = makeStack()
        stack.historyShape = shape
        let (x, a, y) = (RFPCell(), RFPCell(), RFPCell())
        rfpStep(stack, named: "S1") { rfpSet(x, to: 1, on: stack) }
        rfpStep(stack, named: "S2") { rfpAwaitedSet(a, to: 1, on: stack) }
        rfpStep(stack, named: "S3") { rfpSet(x, to: 3, on: stack) }
        stack.undo()
        let gate = Gate()
        a.gate = gate
        if fails { a.refused = [0] }
        let task = Task { @MainActor in await rfpAttempt { try await stack.performUndo() } }
        await settle(until: { gate.waitingCount == 1 })
        rfpStep(stack, named: "C") { rfpSet(y, to: 1, on: stack) }
        #expect(stack.canRedo && stack.redoEntries.map(\.title) == ["Redo S3"], "the old future until it settles")
        gate.openForGood()
        let outcome = await task.value
        await settle(until: { !stack.isBusy })
        if fails {
            #expect(outcome.failure?.actionFailure?.rollback.isRestored == true, "\(outcome)")
            #expect(a.value == 1)
        } else {
            #expect((try? outcome.get()) == true, "\(outcome)")
            #expect(a.value == 0)
        }
        #expect(x.value == 1 && y.value == 1)
        #expect(!stack.canRedo && stack.redoCount == 0)
        let expectedUndo = fails ? ["Undo C", "Undo S2", "Undo S1"] : ["Undo C", "Undo S1"]
        #expect(stack.undoEntries.map(\.title) == expectedUndo)
        guard shape == .tree else { return }
        let tree = try #require(stack.historyTree)
        let current = try #require(stack.currentNode)
        #expect(tree[current]?.parent?.sequence == (fails ? 2 : 1), "\(rfpTree(stack) ?? [])")
        #expect(tree[.init(sequence: 3)]?.parent?.sequence == 2, "\(rfpTree(stack) ?? [])")
        #expect(tree[.init(sequence: 2)]?.parent?.sequence == 1, "\(rfpTree(stack) ?? [])")
        a.refused = []
        // The old future can be entered again.
        let moved = await rfpAttempt { try await stack.performJump(toNode: .init(sequence: 3)) }
        #expect((try? moved.get()) == true, "\(moved)")
        #expect(x.value == 3 && a.value == 1 && y.value == 0)
    }

    /// `asyncGroup(named:_:)`: "Until then the body's registrations are held apart, so a body that
    /// throws leaves the redo stack as it was (unless another task's change emptied it meanwhile),
    /// where ``group(named:_:)``, whose registrations go on the stack as they come, leaves it emptied
    /// in a linear history".
    @Test func aThrowingAsyncGroupKeepsTheRedoStackWhereAThrowingScopedGroupEmptiesIt() async {
        for form in ["async", "scoped"] {
            let stack = makeStack()
            let (x, z) = (RFPCell(), RFPCell())
            rfpStep(stack, named: "X") { rfpSet(x, to: 1, on: stack) }
            rfpStep(stack, named: "Y") { rfpSet(x, to: 2, on: stack) }
            stack.undo()
            if form == "async" {
                _ = try? await stack.asyncGroup(named: "G") {
                    rfpSet(z, to: 1, on: stack)
                    throw RFPRefused(value: 1)
                }
            } else {
                try? stack.group(named: "G") {
                    rfpSet(z, to: 1, on: stack)
                    throw RFPRefused(value: 1)
                }
            }
            #expect(z.value == 0 && x.value == 1, "\(form)")
            #expect(stack.undoEntries.map(\.title) == ["Undo X"], "\(form)")
            #expect(stack.redoEntries.map(\.title) == (form == "async" ? ["Redo Y"] : []), "\(form)")
        }
    }

    /// "Changes that other tasks record while `body` awaits are steps of their own" and a throwing
    /// body leaves the redo stack "as it was (unless another task's change emptied it meanwhile)";
    /// in a branching history "A change made anywhere ... adds a new child of the current node and
    /// keeps every branch".
    @Test func aThrowingAsyncGroupWhileAnotherTaskChangesTheDocumentLeavesOnlyThatChange() async throws {
        try await throwingAsyncGroupWhileAnotherTaskChanges(shape: .linear)
    }

    /// The same in a tree: the redo future (Y) must stay a branch of the node the change was made at
    /// (X), "A change made anywhere ... adds a new child of the current node and keeps every
    /// branch", so jumping to Y undoes C first.
    @Test
    func aThrowingAsyncGroupWhileAnotherTaskChangesTheDocumentKeepsTheBranchInATree() async throws {
        try await throwingAsyncGroupWhileAnotherTaskChanges(shape: .tree)
    }

    func throwingAsyncGroupWhileAnotherTaskChanges(shape: ActionStack.HistoryShape) async throws {
        let stack = makeStack()
        stack.historyShape = shape
        let (x, y, z) = (RFPCell(), RFPCell(), RFPCell())
        rfpStep(stack, named: "X") { rfpSet(x, to: 1, on: stack) }
        rfpStep(stack, named: "Y") { rfpSet(x, to: 2, on: stack) }
        stack.undo()
        let gate = Gate()
        let task = Task { @MainActor in
            do {
                try await stack.asyncGroup(named: "G") {
                    rfpSet(z, to: 1, on: stack)
                    await gate.pass()
                    throw RFPRefused(value: 1)
                }
                return "returned"
            } catch {
                return "\(error)"
            }
        }
        await settle(until: { gate.waitingCount == 1 })
        #expect(stack.redoEntries.map(\.title) == ["Redo Y"], "the body's registrations are held apart")
        rfpStep(stack, named: "C") { rfpSet(y, to: 1, on: stack) }
        gate.openForGood()
        #expect(await task.value == "\(RFPRefused(value: 1))")
        await settle(until: { !stack.isBusy })
        #expect(rfpValues(x, y, z) == [1, 1, 0])
        #expect(stack.undoEntries.map(\.title) == ["Undo C", "Undo X"])
        #expect(!stack.canRedo)
        guard shape == .tree else { return }
        let tree = try #require(stack.historyTree)
        let current = try #require(stack.currentNode)
        #expect(tree[current]?.parent?.sequence == 1, "\(rfpTree(stack) ?? [])")
        #expect(tree[.init(sequence: 2)]?.parent?.sequence == 1, "\(rfpTree(stack) ?? [])")
        try stack.jump(toNode: .init(sequence: 2))
        #expect(rfpValues(x, y, z) == [2, 0, 0])
    }

    /// "In a linear history, the redo stack that the closure's registrations emptied stays empty; in
    /// a branching history they made it a branch, and the rollback leaves the tree as it was, redo
    /// choice included" and, for `asyncGroup(named:_:)`, "(in a branching one, both leave the tree as
    /// it was)".
    @Test func inATreeAThrowingAsyncGroupAndAThrowingScopedGroupLeaveTheTreeAsItWas() async throws {
        for form in ["async", "scoped"] {
            let stack = makeStack()
            stack.historyShape = .tree
            stack.historyClock = { Date(timeIntervalSinceReferenceDate: 1_000) }
            let (x, z) = (RFPCell(), RFPCell())
            rfpStep(stack, named: "X") { rfpSet(x, to: 1, on: stack) }
            rfpStep(stack, named: "Y") { rfpSet(x, to: 2, on: stack) }
            stack.undo()
            rfpStep(stack, named: "W") { rfpSet(x, to: 3, on: stack) }
            stack.undo()
            try stack.selectRedoBranch(.init(sequence: 2))  // redo would take Y, not W
            let before = stack.historyTree
            let beforeState = stack.state
            if form == "async" {
                _ = try? await stack.asyncGroup(named: "G") {
                    rfpSet(z, to: 1, on: stack)
                    throw RFPRefused(value: 1)
                }
            } else {
                try? stack.group(named: "G") {
                    rfpSet(z, to: 1, on: stack)
                    throw RFPRefused(value: 1)
                }
            }
            #expect(stack.historyTree == before, "\(form): \(rfpTree(stack) ?? [])")
            #expect(stack.state.redoNode == beforeState.redoNode && stack.state.redoNode?.sequence == 2, "\(form)")
            stack.redo()
            #expect(x.value == 2 && z.value == 0, "\(form)")
        }
    }

    /// "``markClean()`` from another task while the operation runs its actions (a save of the
    /// half-changed document) marks a state that no node of the history has: the document is clean
    /// until the operation moves it, and then clean again only if it comes back to exactly that
    /// state, which no undo, redo or rollback does. So whatever the operation's outcome (it succeeds,
    /// it rolls back fully ...), the stack is not clean afterwards, until the next `markClean()`".
    @Test(arguments: [false, true])
    func aMarkMadeWhileAnAwaitedUndoRunsItsActionsIsNeverReachedAgain(fails: Bool) async throws {
        let stack = makeStack()
        let (a, b) = (RFPCell(), RFPCell())
        rfpStep(stack, named: "Both") {
            rfpAwaitedSet(a, to: 1, on: stack)  // action 0: runs last
            rfpAwaitedSet(b, to: 1, on: stack)  // action 1: runs first
        }
        stack.markClean()
        let gate = Gate()
        a.gate = gate
        if fails { a.refused = [0] }
        let task = Task { @MainActor in await rfpAttempt { try await stack.performUndo() } }
        await settle(until: { gate.waitingCount == 1 })
        #expect(b.value == 0 && a.value == 1, "half undone")
        stack.markClean()
        #expect(stack.isClean, "clean until the operation moves it")
        gate.openForGood()
        let outcome = await task.value
        await settle(until: { !stack.isBusy })
        #expect(fails ? outcome.failure?.actionFailure?.rollback.isRestored == true : (try? outcome.get()) == true)
        #expect(!stack.isClean, "not clean afterwards")
        a.refused = []
        var seen: [Bool] = []
        for _ in 0..<2 {
            if stack.canUndo { _ = try await stack.performUndo() } else { _ = try await stack.performRedo() }
            seen.append(stack.isClean)
            seen.append(contentsOf: stack.undoEntries.map(\.isClean) + stack.redoEntries.map(\.isClean))
            seen.append(stack.isCleanAtStart)
        }
        #expect(!seen.contains(true), "no undo, redo or rollback comes back to that state: \(seen)")
    }

    /// "A mark made before the operation starts, while it waits for its turn, or by an observer of
    /// its will-, did- or fail-notification (where the document is in a state the stack knows) marks
    /// that state, as always."
    @Test func aMarkMadeByAnObserverOfAnAwaitedUndoMarksAStateTheStackKnows() async throws {
        // In the will-notification: the state before the undo.
        do {
            let stack = makeStack()
            let a = RFPCell()
            rfpStep(stack, named: "A") { rfpAwaitedSet(a, to: 1, on: stack) }
            let armed = Flag()
            armed.isSet = true
            let hook = NotificationHook(ActionStack.willUndoChangeNotification, stack) { stack in
                if armed.isSet { stack.markClean() }
            }
            try await stack.performUndo()
            armed.isSet = false
            #expect(!stack.isClean)
            try await stack.performRedo()
            #expect(stack.isClean, "the will-notification's mark named the state after A")
            _ = hook
        }
        // In the fail-notification: the state the rollback restored.
        do {
            let stack = makeStack()
            let a = RFPCell()
            rfpStep(stack, named: "A") { rfpAwaitedSet(a, to: 1, on: stack) }
            rfpStep(stack, named: "B") { rfpAwaitedSet(a, to: 2, on: stack) }
            a.refused = [1]
            let hook = NotificationHook(ActionStack.didFailUndoChangeNotification, stack) { $0.markClean() }
            let outcome = await rfpAttempt { try await stack.performUndo() }
            #expect(outcome.failure?.actionFailure != nil, "\(outcome)")
            #expect(stack.isClean, "the fail-notification's mark named the state after B")
            a.refused = []
            _ = try await stack.performUndo()
            #expect(!stack.isClean)
            _ = try await stack.performRedo()
            #expect(stack.isClean)
            _ = hook
        }
    }

    /// `asyncGroup(named:_:)`: "Inside `body`, the stack behaves as in ``group(named:_:)``'s body:
    /// each registration changes the document's state, so ``markClean()`` there marks what the body
    /// has done so far".
    @Test func aMarkAtTheEndOfAnAsyncGroupsBodyActsAsInAScopedGroupsBody() async throws {
        var walks: [[Bool]] = []
        for form in ["scoped", "async"] {
            let stack = makeStack()
            let (x, z) = (RFPCell(), RFPCell())
            rfpStep(stack, named: "X") { rfpSet(x, to: 1, on: stack) }
            if form == "async" {
                try await stack.asyncGroup(named: "G") {
                    rfpSet(z, to: 1, on: stack)
                    stack.markClean()
                }
            } else {
                stack.group(named: "G") {
                    rfpSet(z, to: 1, on: stack)
                    stack.markClean()
                }
            }
            var walk = [stack.isClean]
            stack.undo()
            walk.append(stack.isClean)
            stack.redo()
            walk.append(stack.isClean)
            walk.append(contentsOf: stack.undoEntries.map(\.isClean))
            walks.append(walk)
            #expect(stack.undoEntries.map(\.title) == ["Undo G", "Undo X"], "\(form)")
        }
        #expect(walks[1] == walks[0], "async \(walks[1]), scoped \(walks[0])")
    }

    /// "An asynchronous group ... posts the did-open notification when it starts and a will-close and
    /// did-close pair when it ends, whether its body returned or threw", and "a throwing group posts
    /// them before its rollback". Another task's group in the meantime posts its own.
    @Test(arguments: [false, true])
    func anAsyncGroupPostsOneOpenAndOneClosePairAroundAnotherTasksGroup(throwing: Bool) async {
        let stack = makeStack()
        let (y, z) = (RFPCell(), RFPCell())
        let events = RFPEvents(stack, RFPEvents.groups)
        let gate = Gate()
        let task = Task { @MainActor in
            try? await stack.asyncGroup(named: "G") {
                stack.registerUndo(withTarget: z) { z in
                    events.add("rollback")
                    z.value = 0
                }
                z.value = 1
                await gate.pass()
                if throwing { throw RFPRefused(value: 1) }
            }
        }
        await settle(until: { gate.waitingCount == 1 })
        rfpStep(stack, named: "C") { rfpSet(y, to: 1, on: stack) }
        gate.openForGood()
        await task.value
        await settle(until: { !stack.isBusy })
        let expected = ["DidOpen", "DidOpen", "WillClose", "DidClose", "WillClose", "DidClose"]
        #expect(events.all == expected + (throwing ? ["rollback"] : []))
        #expect(stack.undoEntries.map(\.title) == (throwing ? ["Undo C"] : ["Undo G", "Undo C"]))
        #expect(z.value == (throwing ? 0 : 1))
    }

    /// `performJump(to:)`: "if one fails, the jump stops at the last position it reached, which is
    /// where the stack is, and the error says it (``ActionFailure/reachedPosition``)"; in a tree, "the
    /// move stops at the last node it reached and the error names it
    /// (``ActionFailure/reachedNode``)". "every will-notification is followed by a did- or a
    /// fail-notification".
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func aFailingAwaitedJumpStopsWhereItFailedAndSaysSo(shape: ActionStack.HistoryShape) async throws {
        let stack = makeStack()
        stack.historyShape = shape
        let cells = (0..<3).map { _ in RFPCell() }
        for (index, cell) in cells.enumerated() {
            rfpStep(stack, named: "S\(index + 1)") { rfpAwaitedSet(cell, to: 1, on: stack) }
        }
        cells[1].refused = [0]
        let events = RFPEvents(stack, RFPEvents.operations)
        let outcome =
            shape == .tree
            ? await rfpAttempt { try await stack.performJump(toNode: .init(sequence: 0)) }
            : await rfpAttempt { try await stack.performJump(to: 0) }
        let failure = try #require(outcome.failure?.actionFailure, "\(outcome)")
        #expect(cells.map(\.value) == [1, 1, 0])
        #expect(stack.historyPosition == 2 && stack.redoEntries.map(\.title) == ["Redo S3"])
        if shape == .tree {
            #expect(failure.reachedNode == stack.currentNode && stack.currentNode?.sequence == 2)
        } else {
            #expect(failure.reachedPosition == 2)
        }
        #expect(events.all == ["willUndo", "didUndo", "willUndo", "failUndo"])
        #expect(!stack.isBusy)
    }
}

extension Result {
    /// The error, if any (for expectations).
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

// MARK: - 3. New changes that end a redo future in a branching history

extension AwaitedOperationsWhereFeaturesMeetTests {
    /// "With ``HistoryShape/tree``, that redo stack becomes a *branch* of the history instead ... the
    /// other branches are reached by a jump to any node, by choosing which branch redo takes, or by
    /// moving in time." "``redo()`` enters the child entered last: by a new change, by a redo, or by
    /// the downward part of a jump or a time move."
    @Test func aRegistrationAfterAnUndoMakesTheRedoStackABranchThatCanBeEnteredAgain() throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let cells = (0..<4).map { _ in RFPCell() }
        for index in 0..<3 { rfpStep(stack, named: "S\(index + 1)") { rfpSet(cells[index], to: 1, on: stack) } }
        stack.undo()
        stack.undo()
        rfpStep(stack, named: "D") { rfpSet(cells[3], to: 1, on: stack) }
        #expect(!stack.canRedo && stack.currentNode?.sequence == 4)
        #expect(stack.historyTree?[.init(sequence: 3)]?.parent?.sequence == 2)
        #expect(stack.historyTree?[.init(sequence: 2)]?.parent?.sequence == 1)
        try stack.jump(toNode: .init(sequence: 3))
        #expect(cells.map(\.value) == [1, 1, 1, 0])
        stack.undo()
        stack.undo()
        #expect(stack.redoBranches.map(\.sequence) == [2, 4])
        stack.redo()
        #expect(cells.map(\.value) == [1, 1, 0, 0], "redo enters the child the jump entered last")
        stack.undo()
        try stack.selectRedoBranch(.init(sequence: 4))
        stack.redo()
        #expect(cells.map(\.value) == [1, 0, 0, 1])
    }

    /// "A group that closes with no action in it is kept as a do-nothing step ... Like any new step, it
    /// empties the redo stack" (in a tree: "A change made anywhere ... adds a new child of the current
    /// node and keeps every branch"); with ``dropsEmptyGroups`` "the redo stack is kept". "(The step
    /// an undo builds on the redo stack is dropped when its handlers register nothing: there is
    /// nothing to redo.)"
    @Test(arguments: [false, true])
    func anEmptyGroupAfterAnUndoInATreeIsANodeThatKeepsTheFutureAsABranch(dropsEmptyGroups: Bool) throws {
        let stack = makeStack(dropsEmptyGroups: dropsEmptyGroups)
        stack.historyShape = .tree
        let (a, b) = (RFPCell(), RFPCell())
        rfpStep(stack, named: "A") { rfpSet(a, to: 1, on: stack) }
        rfpStep(stack, named: "B") { rfpSet(b, to: 1, on: stack) }
        stack.undo()
        stack.beginUndoGrouping()
        stack.endUndoGrouping()
        if dropsEmptyGroups {
            #expect(stack.canRedo && stack.currentNode?.sequence == 1)
            #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2])
            stack.redo()
            #expect(b.value == 1)
            return
        }
        #expect(!stack.canRedo && stack.undoCount == 2)
        let empty = try #require(stack.currentNode)
        #expect(stack.historyTree?[empty]?.parent?.sequence == 1)
        #expect(stack.historyTree?[.init(sequence: 2)]?.parent?.sequence == 1)
        // Undoing the do-nothing step builds nothing to redo ("The step an undo builds on the redo
        // stack is dropped when its handlers register nothing"), so its node goes; the branch stays.
        stack.undo()
        #expect(stack.currentNode?.sequence == 1)
        #expect(stack.redoBranches == [.init(sequence: 2)])
        #expect(stack.historyTree?[empty] == nil)
        try stack.selectRedoBranch(.init(sequence: 2))
        stack.redo()
        #expect(a.value == 1 && b.value == 1 && stack.currentNode?.sequence == 2)
    }

    /// Coalescing: "``undo()`` ... end coalescing"; "A join opens no group and posts no notification.
    /// It is a change like any other: it empties the redo stack". In a tree, the keystroke after an
    /// undo starts a step of its own (the undone step becomes a branch), and the next keystroke joins
    /// that step without a node of its own; the branch is still there.
    @Test func aCoalescedKeystrokeAfterAnUndoInATreeJoinsTheNewStepAndKeepsTheBranch() throws {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        stack.historyShape = .tree
        let field = RFPCell()
        func type(_ value: Int) {
            let old = field.value
            stack.registerUndo(withTarget: field, options: .coalescing("typing")) { cell in
                rfpSet(cell, to: old, on: stack)
            }
            field.value = value
            stack.setActionName("Typing")
            stack.endEvent()
        }
        type(1)
        stack.breakCoalescing()
        type(2)
        #expect(stack.undoCount == 2)
        stack.undo()
        #expect(field.value == 1 && stack.canRedo)
        type(3)
        #expect(stack.undoCount == 2 && !stack.canRedo, "undo ended coalescing: a step of its own")
        let node = try #require(stack.currentNode)
        #expect(node.sequence == 3)
        type(4)
        #expect(stack.undoCount == 2 && stack.currentNode == node, "the keystroke joined the step")
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 3])
        try stack.jump(toNode: .init(sequence: 2))
        #expect(field.value == 2)
        try stack.jump(toNode: node)
        #expect(field.value == 4, "the joined step is redone whole")
    }

    /// `asyncGroup(named:_:)`: "the group's step goes on top of them when it closes, and empties the
    /// redo stack as any new change does. Until then the body's registrations are held apart" (in a
    /// tree, the redo stack then "becomes a branch").
    @Test func anAsyncGroupsStepEndsTheRedoFutureWhenItClosesAndInATreeKeepsItAsABranch() async throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let (a, b, z) = (RFPCell(), RFPCell(), RFPCell())
        rfpStep(stack, named: "A") { rfpSet(a, to: 1, on: stack) }
        rfpStep(stack, named: "B") { rfpSet(b, to: 1, on: stack) }
        stack.undo()
        let gate = Gate()
        let task = Task { @MainActor in
            try? await stack.asyncGroup(named: "G") {
                rfpSet(z, to: 1, on: stack)
                await gate.pass()
            }
        }
        await settle(until: { gate.waitingCount == 1 })
        #expect(stack.canRedo && stack.redoEntries.map(\.title) == ["Redo B"])
        #expect(stack.currentNode?.sequence == 1)
        gate.openForGood()
        await task.value
        await settle(until: { !stack.isBusy })
        #expect(!stack.canRedo && stack.undoEntries.map(\.title) == ["Undo G", "Undo A"])
        let node = try #require(stack.currentNode)
        #expect(stack.historyTree?[node]?.parent?.sequence == 1)
        #expect(stack.historyTree?[.init(sequence: 2)]?.parent?.sequence == 1)
        try stack.jump(toNode: .init(sequence: 2))
        #expect(rfpValues(a, b, z) == [1, 1, 0])
    }

    /// "``maximumBranchSteps`` caps the steps held off the current path. When branches hold more, the
    /// deepest step of the least recently visited branch goes first, a leaf at a time" and "When a
    /// branch is left and the branches hold more steps than this, the deepest steps ... are dropped".
    /// The branch is made, and pruned, by a registration, a scoped group or an asynchronous group's
    /// step alike.
    @Test(arguments: ["registration", "scoped", "async"])
    func aNewChangeThatMakesABranchPrunesItToMaximumBranchSteps(form: String) async throws {
        let stack = makeStack()
        stack.historyShape = .tree
        stack.maximumBranchSteps = 1
        let cells = (0..<4).map { _ in RFPCell() }
        for index in 0..<3 { rfpStep(stack, named: "S\(index + 1)") { rfpSet(cells[index], to: 1, on: stack) } }
        stack.undo()
        stack.undo()
        switch form {
        case "registration": rfpStep(stack, named: "D") { rfpSet(cells[3], to: 1, on: stack) }
        case "scoped": stack.group(named: "D") { rfpSet(cells[3], to: 1, on: stack) }
        default: try await stack.asyncGroup(named: "D") { rfpSet(cells[3], to: 1, on: stack) }
        }
        #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 4], "\(rfpTree(stack) ?? [])")
        try stack.jump(toNode: .init(sequence: 2))
        #expect(cells.map(\.value) == [1, 1, 0, 0])
    }

    /// "Limits and pruning set meanwhile wait until the whole move has ended"; "A move ..., synchronous
    /// or awaited, is trimmed and pruned once, when it ends ... the steps kept are the same whether
    /// the move ran at once or as a request".
    @Test func maximumBranchStepsSetDuringAnAwaitedMoveWaitsUntilTheMoveHasEnded() async throws {
        var trees: [[String]] = []
        for awaited in [false, true] {
            let stack = makeStack()
            stack.historyShape = .tree
            stack.historyClock = { Date(timeIntervalSinceReferenceDate: 1_000) }
            let cells = (0..<3).map { _ in RFPCell() }
            let set: (RFPCell, Int) -> Void = { cell, value in
                if awaited { rfpAwaitedSet(cell, to: value, on: stack) } else { rfpSet(cell, to: value, on: stack) }
            }
            rfpStep(stack, named: "A") { set(cells[0], 1) }  // 1
            rfpStep(stack, named: "B") { set(cells[1], 1) }  // 2
            rfpStep(stack, named: "C") { set(cells[1], 2) }  // 3
            try await stack.performJump(to: 1)
            rfpStep(stack, named: "D") { set(cells[2], 1) }  // 4
            rfpStep(stack, named: "E") { set(cells[2], 2) }  // 5
            if awaited {
                let gate = Gate()
                cells[1].gate = gate  // the redo of B waits
                let task = Task { @MainActor in
                    await rfpAttempt { try await stack.performJump(toNode: .init(sequence: 3)) }
                }
                await settle(until: { gate.waitingCount == 1 })
                stack.maximumBranchSteps = 1
                #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 3, 4, 5], "nothing pruned mid-move")
                gate.openForGood()
                #expect((try? await task.value.get()) == true)
                await settle(until: { !stack.isBusy })
            } else {
                try stack.jump(toNode: .init(sequence: 3))
                stack.maximumBranchSteps = 1
            }
            #expect(cells.map(\.value) == [1, 2, 0])
            #expect(stack.historyTree?.nodes.map(\.sequence) == [0, 1, 2, 3, 4], "\(rfpTree(stack) ?? [])")
            trees.append(rfpTree(stack) ?? [])
        }
        #expect(trees[1] == trees[0])
    }

    /// "A time move ... is requested as a move, not as its target: it starts from where the document
    /// is when the request starts, so two presses of `g-` before the first has run go back two
    /// changes."
    @Test func twoPressesOfEarlierBeforeTheFirstHasRunGoBackTwoChanges() async throws {
        var ends: [Int?] = []
        for awaited in [false, true] {
            let stack = makeStack()
            stack.historyShape = .tree
            let cells = (0..<4).map { _ in RFPCell() }
            for (index, cell) in cells.enumerated() {
                rfpStep(stack, named: "S\(index + 1)") {
                    if awaited { rfpAwaitedSet(cell, to: 1, on: stack) } else { rfpSet(cell, to: 1, on: stack) }
                }
            }
            let gate = Gate()
            if awaited { cells[3].gate = gate }
            _ = try stack.earlier()
            _ = try stack.earlier()
            if awaited {
                await settle(until: { gate.waitingCount == 1 })
                gate.openForGood()
                await rfpSettle(stack)
                await settle(until: { !stack.isBusy && stack.pendingRequestCount == 0 })
            }
            ends.append(stack.currentNode?.sequence)
            #expect(cells.map(\.value) == [1, 1, 0, 0], "awaited \(awaited)")
            _ = try stack.later(2)
            await rfpSettle(stack)
            #expect(cells.map(\.value) == [1, 1, 1, 1], "awaited \(awaited)")
        }
        #expect(ends == [2, 2])
    }

    /// "A new change from another task ends the move after the step in flight" and "A jump that a new
    /// change ends returns normally (`true` when it moved): the history is where the change left it."
    @Test func anAwaitedTreeMoveThatAnotherTasksChangeEndsReturnsNormallyAndKeepsEveryBranch() async throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let cells = (0..<4).map { _ in RFPCell() }
        for index in 0..<3 { rfpStep(stack, named: "S\(index + 1)") { rfpAwaitedSet(cells[index], to: 1, on: stack) } }
        let gate = Gate()
        cells[2].gate = gate  // the first undo of the move waits
        let task = Task { @MainActor in await rfpAttempt { try await stack.performJump(toNode: .init(sequence: 0)) } }
        await settle(until: { gate.waitingCount == 1 })
        rfpStep(stack, named: "X") { rfpSet(cells[3], to: 1, on: stack) }
        gate.openForGood()
        let outcome = await task.value
        await settle(until: { !stack.isBusy })
        #expect((try? outcome.get()) == true, "\(outcome)")
        #expect(cells.map(\.value) == [1, 1, 0, 1], "the move ended after the step in flight")
        let node = try #require(stack.currentNode)
        #expect(stack.historyTree?[node]?.parent?.sequence == 2, "\(rfpTree(stack) ?? [])")
        #expect(stack.historyTree?[.init(sequence: 3)]?.parent?.sequence == 2, "the undone step is a branch")
        let back = await rfpAttempt { try await stack.performJump(toNode: .init(sequence: 3)) }
        #expect((try? back.get()) == true)
        #expect(cells.map(\.value) == [1, 1, 1, 0])
    }
}

// MARK: - 4. Saved, restored and journaled histories

extension AwaitedOperationsWhereFeaturesMeetTests {
    /// "Everything observable about a step comes back: its name, date, discardable flag, ... each
    /// action's cost, the node numbers and redo choices of a branching history ..., and the clean
    /// state when it lies in the restored part, so a reopened document that matches its file is
    /// clean." A linear history round trip: the same saved history, the same panel, the same clean
    /// walk.
    @Test func aLinearHistoryComesBackWhole() throws {
        let stack = makeStack()
        let (a, b) = (RFPBox("lin-a"), RFPBox("lin-b"))
        rfpCommandStep(stack, a, to: 1, named: "One", cost: 2)
        rfpCommandStep(stack, b, to: 2, named: "Two")
        stack.markClean()
        stack.beginUndoGrouping()
        RFPSet(value: 3, cost: 1).perform(on: a, in: stack)
        stack.setActionName("Three")
        stack.setActionIsDiscardable(true)
        stack.endUndoGrouping()
        rfpCommandStep(stack, b, to: 4, named: "Four")
        stack.undo()
        let saved = try stack.savedHistory()
        let (a2, b2) = (RFPBox("lin-a", value: a.value), RFPBox("lin-b", value: b.value))
        let fresh = makeStack()
        let report = try fresh.restoreHistory(try rfpThroughArchive(saved)) { [a2, b2] key in
            key == a2.id ? a2 : key == b2.id ? b2 : nil
        }
        #expect(report.restoredSteps == 4 && report.droppedSteps == 0 && report.restoredCleanState)
        #expect(dump(try fresh.savedHistory()) == dump(saved))
        #expect(rfpLook(fresh, [a2.value, b2.value]) == rfpLook(stack, [a.value, b.value]))
        #expect(fresh.undoEntries.map(\.isDiscardable) == stack.undoEntries.map(\.isDiscardable))
        for stepper in [{ (s: ActionStack) in s.undo() }, { (s: ActionStack) in s.redo() }] {
            for _ in 0..<4 {
                stepper(stack)
                stepper(fresh)
                #expect(rfpLook(fresh, [a2.value, b2.value]) == rfpLook(stack, [a.value, b.value]))
            }
        }
        withExtendedLifetime([a2, b2]) {}
    }

    /// A branching history round trip: "the node numbers and redo choices of a branching history and
    /// the number its next change gets (``SavedHistory/nextNode``: a number is never given to two
    /// changes ...)", the dates, the current node and the clean node.
    @Test func aBranchingHistoryComesBackWithItsBranchesDatesCurrentAndCleanNodes() throws {
        let clock = ManualClock()
        let stack = makeStack()
        stack.historyClock = { clock.now }
        stack.historyShape = .tree
        let (a, b) = (RFPBox("tree-a"), RFPBox("tree-b"))
        clock.advance(seconds: 60)
        rfpCommandStep(stack, a, to: 1, named: "A")  // 1
        clock.advance(seconds: 60)
        rfpCommandStep(stack, b, to: 1, named: "B")  // 2
        clock.advance(seconds: 60)
        rfpCommandStep(stack, a, to: 2, named: "C", cost: 3)  // 3
        stack.markClean()
        stack.undo()
        stack.undo()
        clock.advance(seconds: 60)
        rfpCommandStep(stack, b, to: 5, named: "D")  // 4
        stack.undo()
        clock.advance(seconds: 60)
        rfpCommandStep(stack, a, to: 6, named: "E")  // 5
        try stack.jump(toNode: .init(sequence: 4))
        stack.undo()
        try stack.selectRedoBranch(.init(sequence: 2))
        let saved = try stack.savedHistory()
        #expect(saved.current == 1 && saved.clean == 3 && saved.steps.count == 5)
        let (a2, b2) = (RFPBox("tree-a", value: a.value), RFPBox("tree-b", value: b.value))
        let fresh = makeStack()
        fresh.historyClock = { clock.now }
        fresh.historyShape = .tree
        let report = try fresh.restoreHistory(try rfpThroughArchive(saved)) { [a2, b2] key in
            key == a2.id ? a2 : key == b2.id ? b2 : nil
        }
        #expect(report.restoredSteps == 5 && report.restoredCleanState)
        #expect(dump(try fresh.savedHistory()) == dump(saved))
        #expect(fresh.historyTree == stack.historyTree)
        #expect(fresh.state.redoNode == stack.state.redoNode)
        try fresh.jump(toNode: .init(sequence: 3))
        try stack.jump(toNode: .init(sequence: 3))
        #expect(fresh.isClean && stack.isClean && a2.value == a.value && b2.value == b.value)
        clock.advance(seconds: 60)
        rfpCommandStep(stack, b, to: 9, named: "F")
        rfpCommandStep(fresh, b2, to: 9, named: "F")
        #expect(fresh.currentNode == stack.currentNode && fresh.currentNode?.sequence == saved.nextNode)
        #expect(fresh.historyTree == stack.historyTree)
        withExtendedLifetime([a2, b2]) {}
    }

    /// "A recovery ... replays the last snapshot before the matching record and the records after
    /// it, then saves the replayed history as the stack saves its own (``savedHistory(maximumSteps:)``):
    /// the steps, branches, current node, clean state, dates, names and costs are those a full save
    /// would have saved at that record"; the recorder records "after every call that changes a
    /// stack's history (a closed step, an undo, a redo, a jump, a clean mark, a removal, a trim)".
    /// Awaited undos, redos and jumps of steps that await, linear and branching.
    @Test(arguments: [ActionStack.HistoryShape.linear, .tree])
    func theJournalRecoversWhatAFullSaveSavesAfterAwaitedOperations(shape: ActionStack.HistoryShape) async throws {
        RFPServer.reset()
        let files = try RFPJournal()
        defer { files.cleanUp() }
        let clock = ManualClock()
        let stack = makeStack()
        stack.historyClock = { clock.now }
        stack.historyShape = shape
        files.record(stack)
        let (a, b) = (RFPBox("j1-a"), RFPBox("j1-b"))
        rfpAwaitedCommandStep(stack, [a], to: 1, named: "One")
        rfpCommandStep(stack, b, to: 2, named: "Two", cost: 1)
        rfpAwaitedCommandStep(stack, [a, b], to: 3, named: "Three")
        try files.expectRecoveryMatches(stack, "recorded")
        let script: [(String, () async throws -> Void)] = [
            ("undo", { try await stack.performUndo() }),
            ("undo", { try await stack.performUndo() }),
            ("redo", { try await stack.performRedo() }),
            ("mark", { stack.markClean() }),
            ("jump 0", { try await stack.performJump(to: 0) }),
            ("jump 3", { try await stack.performJump(to: 3) }),
            ("undo", { try await stack.performUndo() }),
            ("menu undo", { stack.undo() }),
            ("change", { rfpCommandStep(stack, a, to: 7, named: "Seven") }),
            ("menu jump 0", { stack.jump(to: 0) }),
            ("menu redo", { stack.redo() }),
        ]
        for (name, step) in script {
            clock.advance(seconds: 10)
            try await step()
            await rfpSettle(stack)
            try files.expectRecoveryMatches(stack, name)
        }
        if shape == .tree {
            for node in [3, 0, 4, 2] {
                _ = try await stack.performJump(toNode: .init(sequence: node))
                try files.expectRecoveryMatches(stack, "node \(node)")
            }
        }
        withExtendedLifetime([a, b]) {}
    }

    /// The recorder: "Asynchronous operations are recorded ... when they settle"; a failed awaited
    /// undo "stays where it was" whether its rollback restored everything (the document "as it was,
    /// and so is ``isClean``") or not ("a new state, not clean"). The recovery is still what a full
    /// save saves.
    @Test func theJournalRecoversWhatAFullSaveSavesAfterFailedAwaitedUndos() async throws {
        RFPServer.reset()
        defer { RFPServer.reset() }
        let files = try RFPJournal()
        defer { files.cleanUp() }
        let stack = makeStack()
        files.record(stack)
        let (a, b, c) = (RFPBox("j2-a"), RFPBox("j2-b"), RFPBox("j2-c"))
        rfpCommandStep(stack, c, to: 1, named: "C")
        rfpAwaitedCommandStep(stack, [a, b], to: 1, named: "Both")  // a is action 0, b action 1
        stack.markClean()
        // Full rollback: b's undo runs, a's is refused, b's inverse puts it back.
        RFPServer.refused[a.id] = [0]
        let full = await rfpAttempt { try await stack.performUndo() }
        await rfpSettle(stack)
        #expect(full.failure?.actionFailure?.rollback.isRestored == true, "\(full)")
        #expect(a.value == 1 && b.value == 1 && stack.isClean)
        let saved = try stack.savedHistory()
        #expect(saved.clean == saved.current)
        try files.expectRecoveryMatches(stack, "after a full rollback")
        // Partial: b's undo registers no inverse, so the rollback cannot put it back.
        RFPServer.silent = [b.id]
        let partial = await rfpAttempt { try await stack.performUndo() }
        await rfpSettle(stack)
        #expect(partial.failure?.actionFailure?.rollback.unrestoredActions == [1], "\(partial)")
        #expect(!stack.isClean && stack.undoEntries.map(\.title) == ["Undo Both", "Undo C"])
        try files.expectRecoveryMatches(stack, "after a partial rollback")
        RFPServer.reset()
        try await stack.performUndo()
        try files.expectRecoveryMatches(stack, "after the undo that succeeded")
        withExtendedLifetime([a, b, c]) {}
    }

    /// Limits "made while a request holds the turn wait until the whole request has ended ... They
    /// apply when it ends"; the recorder records "a trim". The recovery after the limits applied is
    /// what a full save saves.
    @Test func theJournalRecoversWhatAFullSaveSavesAfterLimitsSetWhileAnAwaitedStepWaits() async throws {
        RFPServer.reset()
        defer { RFPServer.reset() }
        let files = try RFPJournal()
        defer { files.cleanUp() }
        let stack = makeStack()
        files.record(stack)
        let (a, b) = (RFPBox("j3-a"), RFPBox("j3-b"))
        for value in 1...4 {
            rfpStep(stack, named: "Mixed \(value)") {
                RFPSet(value: value, cost: 1).perform(on: b, in: stack)
                stack.registerAsyncUndo(RFPAwaitedSet(value: a.value), on: a, key: a.id)
                a.value = value
            }
        }
        let gate = Gate()
        RFPServer.gates[a.id] = gate
        let undo = Task { @MainActor in await rfpAttempt { try await stack.performUndo() } }
        await settle(until: { gate.waitingCount == 1 })
        stack.levelsOfUndo = 2
        #expect(stack.undoCount == 4)
        gate.openOne()
        _ = await undo.value
        await settle(until: { !stack.isBusy })
        #expect(stack.undoCount == 2 && stack.redoCount == 1)
        try files.expectRecoveryMatches(stack, "levels set during an undo")
        let redo = Task { @MainActor in await rfpAttempt { try await stack.performRedo() } }
        await settle(until: { gate.waitingCount == 1 })
        stack.levelsOfUndo = 0
        stack.maximumCost = 1
        gate.openForGood()
        _ = await redo.value
        await settle(until: { !stack.isBusy })
        #expect(stack.undoCount == 1 && stack.redoCount == 0 && a.value == 4 && b.value == 4)
        try files.expectRecoveryMatches(stack, "cost set during a redo")
        withExtendedLifetime([a, b]) {}
    }

    /// The recorder records "a jump, a branch made or entered" and "for a tree, the redo stack
    /// becoming a branch, a branch entered, moved or dropped (jumps, ``earlier(_:)``,
    /// ``selectRedoBranch(_:)``, pruning)". After each tree move, synchronous or awaited, by node or
    /// by time, the recovery is what a full save saves.
    @Test func theJournalRecoversWhatAFullSaveSavesAfterTreeMoves() async throws {
        RFPServer.reset()
        let files = try RFPJournal()
        defer { files.cleanUp() }
        let clock = ManualClock()
        let stack = makeStack()
        stack.historyClock = { clock.now }
        stack.historyShape = .tree
        files.record(stack)
        let (a, b) = (RFPBox("j4-a"), RFPBox("j4-b"))
        let moves: [(String, () async throws -> Void)] = [
            ("A", { rfpCommandStep(stack, a, to: 1, named: "A") }),
            ("B", { rfpCommandStep(stack, b, to: 1, named: "B") }),
            ("C", { rfpCommandStep(stack, a, to: 2, named: "C") }),
            ("undo", { stack.undo() }),
            ("undo", { stack.undo() }),
            ("D awaits", { rfpAwaitedCommandStep(stack, [b], to: 4, named: "D") }),
            ("jump to 3", { try stack.jump(toNode: .init(sequence: 3)) }),
            ("mark", { stack.markClean() }),
            ("earlier", { _ = try stack.earlier() }),
            ("later 2", { _ = try stack.later(2) }),
            ("jump to 1", { _ = try await stack.performJump(toNode: .init(sequence: 1)) }),
            ("select 2", { try stack.selectRedoBranch(.init(sequence: 2)) }),
            ("redo", { _ = try await stack.performRedo() }),
            ("branch steps 1", { stack.maximumBranchSteps = 1 }),
            ("E", { rfpCommandStep(stack, a, to: 5, named: "E") }),
            ("earlier by 90 s", { _ = try stack.earlier(by: .seconds(90)) }),
            ("later by 30 s", { _ = try stack.later(by: .seconds(30)) }),
            ("jump to 0", { _ = try await stack.performJump(toNode: .init(sequence: 0)) }),
            ("levels 1", { stack.levelsOfUndo = 1 }),
            ("later 9", { _ = try stack.later(9) }),
        ]
        for (name, move) in moves {
            clock.advance(seconds: 60)
            try await move()
            await rfpSettle(stack)
            try files.expectRecoveryMatches(stack, name)
        }
        #expect(stack.lastMisuse == nil)
        withExtendedLifetime([a, b]) {}
    }

    /// A throwing asynchronous group while another task records a change, in a tree, then a mark
    /// made while an awaited undo runs its actions: "a clean state marked inside a step ... is saved
    /// as none" and the mark "names a state that no node has". The journal recovers what a full save
    /// saves, and a stack restored from it is not clean.
    @Test func theJournalRecoversWhatAFullSaveSavesAfterAThrowingAsyncGroupAndAMidwayMark() async throws {
        RFPServer.reset()
        defer { RFPServer.reset() }
        let files = try RFPJournal()
        defer { files.cleanUp() }
        let clock = ManualClock()
        let stack = makeStack()
        stack.historyClock = { clock.now }
        stack.historyShape = .tree
        files.record(stack)
        let (x, y, z, p, q) = (RFPBox("j5-x"), RFPBox("j5-y"), RFPBox("j5-z"), RFPBox("j5-p"), RFPBox("j5-q"))
        rfpCommandStep(stack, x, to: 1, named: "X")
        rfpCommandStep(stack, x, to: 2, named: "Y")
        stack.undo()
        let gate = Gate()
        let group = Task { @MainActor in
            do {
                try await stack.asyncGroup(named: "G") {
                    RFPSet(value: 1).perform(on: z, in: stack)
                    await gate.pass()
                    throw RFPRefused(value: 1)
                }
                return false
            } catch { return true }
        }
        await settle(until: { gate.waitingCount == 1 })
        rfpCommandStep(stack, y, to: 1, named: "C")
        gate.openForGood()
        #expect(await group.value)
        await settle(until: { !stack.isBusy })
        try files.expectRecoveryMatches(stack, "after the throwing group")
        rfpAwaitedCommandStep(stack, [p, q], to: 1, named: "M")  // q's undo runs first
        let midway = Gate()
        RFPServer.gates[p.id] = midway
        let undo = Task { @MainActor in await rfpAttempt { try await stack.performUndo() } }
        await settle(until: { midway.waitingCount == 1 })
        stack.markClean()
        midway.openForGood()
        _ = await undo.value
        await settle(until: { !stack.isBusy })
        #expect(!stack.isClean)
        let saved = try stack.savedHistory()
        #expect(saved.clean == nil, "the mark names a state no node has")
        try files.expectRecoveryMatches(stack, "after the midway mark")
        let recovered = try #require(try files.recovered())
        let fresh = makeStack()
        fresh.historyShape = .tree
        let boxes = [x, y, z, p, q].map { RFPBox($0.id, value: $0.value) }
        _ = try fresh.restoreHistory(recovered) { key in boxes.first { $0.id == key } }
        #expect(!fresh.isClean)
        #expect(!(fresh.historyTree?.nodes.contains(where: \.isClean) ?? true))
        withExtendedLifetime(boxes + [x, y, z, p, q]) {}
    }

    /// "Saving while a group is open: ``HistoryPersistenceError/groupIsOpen``; while an asynchronous
    /// operation is in progress, requests wait for their turn, or a step is broken ...:
    /// ``HistoryPersistenceError/busy``, which wins when both apply. An asynchronous group whose body
    /// is running is an operation in progress (`busy`): its group is on a side of its own, not open
    /// on the undo stack."
    @Test func savingWhileAnAwaitedStepOrAnAsyncGroupIsRunningIsBusy() async throws {
        let stack = makeStack()
        let a = RFPCell()
        rfpStep(stack, named: "A") { rfpAwaitedSet(a, to: 1, on: stack) }
        func saveError() -> ActionStack.HistoryPersistenceError? {
            do {
                _ = try stack.savedHistory()
                return nil
            } catch { return error }
        }
        #expect(saveError() == nil)
        // An awaited undo in flight, then also a group open.
        let gate = Gate()
        a.gate = gate
        let undo = Task { @MainActor in await rfpAttempt { try await stack.performUndo() } }
        await settle(until: { gate.waitingCount == 1 })
        #expect(saveError() == .busy)
        stack.beginUndoGrouping()
        #expect(saveError() == .busy, "busy wins when both apply")
        stack.endUndoGrouping()
        gate.openForGood()
        _ = await undo.value
        await settle(until: { !stack.isBusy })
        // A group open alone.
        stack.beginUndoGrouping()
        #expect(saveError() == .groupIsOpen)
        stack.endUndoGrouping()
        // An asynchronous group's body running.
        let bodyGate = Gate()
        let group = Task { @MainActor in
            try? await stack.asyncGroup(named: "G") {
                rfpSet(a, to: 5, on: stack)
                await bodyGate.pass()
            }
        }
        await settle(until: { bodyGate.waitingCount == 1 })
        #expect(saveError() == .busy)
        #expect(stack.groupingLevel == 0, "not open on the undo stack")
        bodyGate.openForGood()
        await group.value
        await settle(until: { !stack.isBusy })
        #expect(saveError() == nil)
    }
}

// MARK: - Where the open group, the notifications and a tree meet an awaited operation

extension AwaitedOperationsWhereFeaturesMeetTests {
    /// ``performUndo(isolation:)``: "As ``undo()``, it first closes the one open group"; the table:
    /// "`undo()` with one group open | C, C, WillClose, DidClose, C, WillUndo, (handlers), C,
    /// DidUndo", and "The same holds for an awaited operation". A redo with an empty group open and
    /// ``dropsEmptyGroups`` on: "the empty group is dropped and the redo goes ahead".
    @Test(arguments: ["undo", "redo", "jump"])
    func anAwaitedOperationClosesTheOpenGroupWithTheNotificationsOfTheSynchronousOne(operation: String) async throws {
        var heard: [[String]] = []
        for awaited in [false, true] {
            let stack = makeStack(dropsEmptyGroups: operation == "redo")
            let cells = (0..<3).map { _ in RFPCell() }
            rfpStep(stack, named: "A") { rfpSet(cells[0], to: 1, on: stack) }
            rfpStep(stack, named: "B") { rfpSet(cells[1], to: 1, on: stack) }
            if operation == "redo" {
                stack.undo()
                stack.beginUndoGrouping()  // holds nothing: dropped when closed
            } else {
                stack.beginUndoGrouping()
                rfpSet(cells[2], to: 1, on: stack)
            }
            let recorder = NotificationRecorder(stack)
            switch (operation, awaited) {
            case ("undo", false): stack.undo()
            case ("undo", true): try await stack.performUndo()
            case ("redo", false): stack.redo()
            case ("redo", true): try await stack.performRedo()
            case (_, false): stack.jump(to: 0)
            default: try await stack.performJump(to: 0)
            }
            heard.append(recorder.withoutCheckpoints)
            #expect(stack.groupingLevel == 0)
        }
        #expect(heard[1] == heard[0], "awaited \(heard[1]), synchronous \(heard[0])")
        let expected: [String] =
            switch operation {
            case "undo": ["WillClose", "DidClose", "WillUndo", "DidUndo"]
            case "redo": ["WillClose", "DidClose", "WillRedo", "DidRedo"]
            default: ["WillClose", "DidClose"] + Array(repeating: ["WillUndo", "DidUndo"], count: 3).flatMap { $0 }
            }
        #expect(heard[0] == expected)
    }

    /// "Changes that other tasks record while `body` awaits are steps of their own (its step goes on
    /// top of them when it closes)"; in a tree "A change made anywhere ... adds a new child of the
    /// current node and keeps every branch", so the redo future held while the group ran stays a
    /// branch of the node it left from, and entering it again gives its document state.
    @Test
    func aReturningAsyncGroupWhileAnotherTaskChangesTheDocumentKeepsTheBranchInATree() async throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let (x, y, z) = (RFPCell(), RFPCell(), RFPCell())
        rfpStep(stack, named: "X") { rfpSet(x, to: 1, on: stack) }
        rfpStep(stack, named: "Y") { rfpSet(x, to: 2, on: stack) }
        stack.markClean()
        stack.undo()
        let gate = Gate()
        let task = Task { @MainActor in
            try? await stack.asyncGroup(named: "G") {
                rfpSet(z, to: 1, on: stack)
                await gate.pass()
            }
        }
        await settle(until: { gate.waitingCount == 1 })
        rfpStep(stack, named: "C") { rfpSet(y, to: 1, on: stack) }
        gate.openForGood()
        await task.value
        await settle(until: { !stack.isBusy })
        #expect(stack.undoEntries.map(\.title) == ["Undo G", "Undo C", "Undo X"])
        #expect(stack.historyTree?[.init(sequence: 2)]?.parent?.sequence == 1, "\(rfpTree(stack) ?? [])")
        try stack.jump(toNode: .init(sequence: 2))
        #expect(rfpValues(x, y, z) == [2, 0, 0])
        // "When other tasks' changes came in while the body ran, the state the step leads back to
        // (their changes without the group's) never existed: a fresh one": the way back to the
        // branch passes through states the history has never marked, so the node is not clean.
        #expect(!stack.isClean)
    }

    /// "(until the operation settles, ``canRedo`` and the redo stack still show the old future, which
    /// leaves from the node the document was at when the change came)". The document is at node 2
    /// (the step in flight "stays where it was until it has succeeded"), and the old future (node 3)
    /// hangs from it, not from the new change's node, while the undo is in flight and once it
    /// settled.
    @Test
    func whileAnAwaitedUndoIsInFlightTheOldFutureLeavesFromTheNodeTheChangeCameAt() async throws {
        let stack = makeStack()
        stack.historyShape = .tree
        let (x, a, y) = (RFPCell(), RFPCell(), RFPCell())
        rfpStep(stack, named: "S1") { rfpSet(x, to: 1, on: stack) }
        rfpStep(stack, named: "S2") { rfpAwaitedSet(a, to: 1, on: stack) }
        rfpStep(stack, named: "S3") { rfpSet(x, to: 3, on: stack) }
        stack.undo()
        let gate = Gate()
        a.gate = gate
        let task = Task { @MainActor in await rfpAttempt { try await stack.performUndo() } }
        await settle(until: { gate.waitingCount == 1 })
        rfpStep(stack, named: "C") { rfpSet(y, to: 1, on: stack) }
        #expect(stack.canRedo && stack.redoEntries.map(\.title) == ["Redo S3"])
        let tree = try #require(stack.historyTree)
        #expect(tree[.init(sequence: 3)]?.parent?.sequence == 2, "\(rfpTree(stack) ?? [])")
        gate.openForGood()
        _ = await task.value
        await settle(until: { !stack.isBusy })
        #expect(stack.historyTree?[.init(sequence: 3)]?.parent?.sequence == 2, "\(rfpTree(stack) ?? [])")
    }
}
