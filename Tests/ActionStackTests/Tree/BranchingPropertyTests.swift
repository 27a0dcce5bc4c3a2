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

// A seeded random walk through a branching history: every node remembers the text the document
// had when it was made; after every operation the document must have the current node's text,
// isClean must say whether the current node is the one marked clean, and the time moves must reach
// the nodes vim's rules name.

struct BranchingPropertyTests {

    struct Limits: Sendable, CustomTestStringConvertible {
        var seed: UInt64
        var levelsOfUndo = 0
        var maximumBranchSteps = 0
        /// Every step costs 1.
        var maximumCost = 0
        var testDescription: String {
            "seed \(seed), levels \(levelsOfUndo), branch steps \(maximumBranchSteps), cost \(maximumCost)"
        }
    }

    static let cases: [Limits] = [
        Limits(seed: 1), Limits(seed: 2), Limits(seed: 3),
        Limits(seed: 4, maximumBranchSteps: 3), Limits(seed: 5, maximumBranchSteps: 1),
        Limits(seed: 6, levelsOfUndo: 4), Limits(seed: 7, levelsOfUndo: 3, maximumBranchSteps: 2),
        Limits(seed: 8, maximumCost: 6), Limits(seed: 9, maximumBranchSteps: 4, maximumCost: 5),
    ]

    @Test(arguments: cases)
    func everyMoveReachesTheStateItsNodeWasMadeIn(limits: Limits) throws {
        var random = SeededGenerator(seed: limits.seed)
        let clock = ManualClock()
        let stack = makeTreeStack(clock: clock)
        stack.levelsOfUndo = limits.levelsOfUndo
        stack.maximumBranchSteps = limits.maximumBranchSteps
        stack.maximumCost = limits.maximumCost
        let document = TreeDoc(stack: stack)
        var textOf: [Int: String] = [0: ""]
        var clean: Int? = 0  // a new stack is clean at the root
        var made = 0
        var nextNumber = 1

        for step in 0..<400 {
            let tree = try #require(stack.historyTree)
            let current = tree.current.sequence
            let alive = tree.nodes.map(\.sequence)
            let operation = random.next(9)
            switch operation {
            case 0, 1:
                made += 1
                clock.advance(seconds: Double(random.next(5)))
                document.set("t\(made)", named: "n\(made)", cost: 1)
                #expect(stack.currentNode?.sequence == nextNumber, "a change takes the next number")
                textOf[nextNumber] = "t\(made)"
                nextNumber += 1
            case 2:
                stack.undo()
                #expect(stack.currentNode?.sequence == (tree[tree.current]?.parent?.sequence ?? current))
            case 3:
                let expected = tree[tree.current]?.redoChild?.sequence ?? current
                stack.redo()
                #expect(stack.currentNode?.sequence == expected, "redo enters the child entered last")
            case 4:
                let target = alive[random.next(alive.count)]
                try stack.jump(toNode: node(target))
                #expect(stack.currentNode?.sequence == target)
            case 5:
                let count = random.next(4)
                let wanted = max(current - count, tree.root.sequence)
                let expected = count <= 0 ? current : alive.last { $0 <= wanted } ?? tree.root.sequence
                #expect(try stack.earlier(count).sequence == expected, "earlier(\(count)) from \(current)")
            case 6:
                let count = random.next(4)
                let newest = tree.newest.sequence
                let wanted = min(current + count, newest)
                let expected = count <= 0 ? current : alive.first { $0 >= wanted } ?? newest
                #expect(try stack.later(count).sequence == expected, "later(\(count)) from \(current)")
            case 7:
                let children = tree[tree.current]?.children ?? []
                if let child = children.isEmpty ? nil : children[random.next(children.count)] {
                    try stack.selectRedoBranch(child)
                    #expect(stack.state.redoNode == child)
                }
            default:
                stack.markClean()
                clean = current
            }
            let after = try #require(stack.historyTree)
            let now = after.current.sequence
            #expect(document.text == textOf[now], "step \(step), operation \(operation), at node \(now)")
            let cleanAlive = clean.flatMap { after[node($0)] } != nil
            #expect(stack.isClean == (cleanAlive && clean == now), "step \(step): clean \(String(describing: clean))")
            #expect(after.clean?.sequence == (cleanAlive ? clean : nil))
            if limits.levelsOfUndo > 0 { #expect(after.path(to: after.current).count - 1 <= limits.levelsOfUndo) }
            if limits.maximumCost > 0 {
                // The undo stack and the branches count; the redo stack does not.
                let redoChain = after.nodes.filter { $0.isOnCurrentPath }.count - after.path(to: after.current).count
                #expect(after.nodes.count - 1 - redoChain <= limits.maximumCost)
            }
            if limits.maximumBranchSteps > 0 {
                #expect(after.nodes.filter { !$0.isOnCurrentPath }.count <= limits.maximumBranchSteps)
            }
        }
        // Every node still held is reachable and gives back its text (a jump may prune branches
        // it leaves: those nodes are passed over).
        for id in try #require(stack.historyTree).nodes.map(\.id) where stack.historyTree?[id] != nil {
            try stack.jump(toNode: id)
            #expect(document.text == textOf[id.sequence])
        }
        stack._checkInvariants()
    }
}

// MARK: - A seeded driver

// A property test of the branching history: seeded random operations on a stack with
// `historyShape = .tree`, where every node records the document's value when it was made.
//
// The document is a few parts (one target each). Each change sets some parts to values never used
// before, so two nodes hold the same document only when a do-nothing step lies between them. After
// every operation:
// - `_invariantViolations()` is empty and no misuse was reported;
// - the snapshot (`historyTree`) is consistent: nodes in sequence order, the root first and
//   without a parent, every other parent held, children lists that agree with the parents, every
//   path leading to the root, exactly one current node (== `currentNode` == `state.currentNode`),
//   redo choices among the children, `isOnCurrentPath` and titles as the current path says,
//   `redoBranches`, `canUndo`, `canRedo`, `undoCount`, `redoCount` and `state.redoNode` in line
//   with it, and each node's action name the one its change was given;
// - every node in the tree is one the driver made, and the document equals the value recorded for
//   the current node, part by part for the parts whose targets are alive and never lost an action
//   (a part whose target was removed keeps its value for ever; a freed part cannot be read);
// - `isClean` (and each node's `isClean`) is true only when the document (the node's value) equals
//   the value marked clean; and, while no action was taken out of a step since the last
//   `removeAllActions()` (a removed or freed target with actions in the history gives steps new
//   far ends, after which the state ids no longer tell every equal document), exactly then;
// - each operation did what the rules say: a change adds a child of the current node numbered
//   after every node so far (or joins the node it made itself, when typing coalesces), keeps every
//   node (without limits) and makes the new node the parent's redo choice; undo goes to the parent
//   and redo to the redo choice, changing no choice; a jump (and each time move, whose target the
//   test computes from the snapshot before it) reaches its node and makes the nodes on the way
//   down remember the way; a jump to a node that does not exist and a redo branch that is not a
//   child throw and change nothing; selecting a redo branch moves nothing; a removal takes exactly
//   the nodes whose steps held only the removed target's actions, hangs what they held from their
//   parents and passes their redo choice up; a scoped group that throws leaves the tree as it was;
//   `levelsOfUndo`, `maximumBranchSteps` and `maximumCost` (undo stack and branches) hold.
//
// Failures print the seed, the operation and a shrunk, replayable list of operations.
//
// CI runs 8 × 50 seeds of 500 operations (200,000 operations). A soak runs more:
//   ACTIONSTACK_TREE_SOAK_OPERATIONS=10000000 [ACTIONSTACK_SOAK_SEED=n] swift test --filter BranchingPropertyTests/soak
// and TREE_PROPERTY_SEED=n runs one seed of the CI range.

/// One part of a tree test's document: a value set through the stack.
final class TreePart {
    let key: Int
    var value = 0

    init(key: Int) { self.key = key }

    /// Sets the value and registers the inverse, which registers its own inverse.
    func set(_ new: Int, cost: Int, coalescingKey: String? = nil, on stack: ActionStack) {
        let old = value
        value = new
        let options = ActionStack.RegistrationOptions(cost: cost, coalescingKey: coalescingKey)
        stack.registerUndo(withTarget: self, options: options) { [unowned stack] part in
            part.set(old, cost: cost, coalescingKey: coalescingKey, on: stack)
        }
    }
}

/// One operation of the property test. Parameters are raw numbers read against the state when the
/// operation runs (a pick is taken modulo the nodes there are), so a shrunk list still replays.
enum TreeOp: Hashable, Sendable, CustomStringConvertible {
    /// One step: each slot's part set to a new value, with the cost at the same index; no slot:
    /// a group that changes nothing.
    case change(slots: [Int], costs: [Int], name: Int)
    /// A keystroke: a coalescing registration on the slot's part, then the end of the event.
    case typing(slot: Int)
    case undo
    case redo
    /// `jump(toNode:)` to the node at this index (negative: a number no node has).
    case jump(pick: Int)
    case earlier(Int)
    case later(Int)
    case earlierBy(seconds: Int)
    case laterBy(seconds: Int)
    case advanceClock(seconds: Int)
    /// `selectRedoBranch(_:)` with the current node's child at this index (negative: a node that
    /// is not a child).
    case selectRedoBranch(pick: Int)
    case markClean
    case removeTarget(slot: Int)
    case free(slot: Int)
    case removeAll
    case levels(Int)
    case branchSteps(Int)
    case maximumCost(Int)
    case dropsEmptyGroups(Bool)
    /// A scoped group that sets the slots' parts and throws.
    case failingScope(slots: [Int])

    var description: String {
        switch self {
        case .change(let slots, let costs, let name): ".change(slots: \(slots), costs: \(costs), name: \(name))"
        case .typing(let slot): ".typing(slot: \(slot))"
        case .undo: ".undo"
        case .redo: ".redo"
        case .jump(let pick): ".jump(pick: \(pick))"
        case .earlier(let count): ".earlier(\(count))"
        case .later(let count): ".later(\(count))"
        case .earlierBy(let seconds): ".earlierBy(seconds: \(seconds))"
        case .laterBy(let seconds): ".laterBy(seconds: \(seconds))"
        case .advanceClock(let seconds): ".advanceClock(seconds: \(seconds))"
        case .selectRedoBranch(let pick): ".selectRedoBranch(pick: \(pick))"
        case .markClean: ".markClean"
        case .removeTarget(let slot): ".removeTarget(slot: \(slot))"
        case .free(let slot): ".free(slot: \(slot))"
        case .removeAll: ".removeAll"
        case .levels(let value): ".levels(\(value))"
        case .branchSteps(let value): ".branchSteps(\(value))"
        case .maximumCost(let value): ".maximumCost(\(value))"
        case .dropsEmptyGroups(let value): ".dropsEmptyGroups(\(value))"
        case .failingScope(let slots): ".failingScope(slots: \(slots))"
        }
    }
}

/// The settings of one seed.
struct TreeRunConfig: Hashable, Sendable, CustomStringConvertible {
    var dropsEmptyGroups = false
    /// Whether targets are removed and freed (the clean state is exact only between removals).
    var removals = true
    /// Whether registrations have costs (and `maximumCost` is set).
    var costs = true

    var description: String {
        ".init(dropsEmptyGroups: \(dropsEmptyGroups), removals: \(removals), costs: \(costs))"
    }
}

/// A failing case the seeded runs found, shrunk: replayed in every run.
struct TreeRegression: Sendable, CustomTestStringConvertible {
    var seed: UInt64
    var config: TreeRunConfig
    var ops: [TreeOp]

    var testDescription: String { "seed \(seed)" }
}

/// A seeded list of operations.
enum TreeOpGenerator {
    static func config(seed: UInt64) -> TreeRunConfig {
        var random = SeededGenerator(seed: seed ^ 0x5EED_7EE5)
        return TreeRunConfig(dropsEmptyGroups: random.chance(50), removals: random.chance(50), costs: random.chance(50))
    }

    static func makeOps(seed: UInt64, count: Int, config: TreeRunConfig) -> [TreeOp] {
        var random = SeededGenerator(seed: seed)
        let slots = TreeRun.slotCount
        func slot(_ random: inout SeededGenerator) -> Int { random.int(0...(slots - 1)) }
        let weighted: [(Int, (inout SeededGenerator) -> TreeOp)] = [
            (
                48,
                { random in
                    let count = random.chance(8) ? 0 : random.int(1...3)
                    let chosen = (0..<count).map { _ in slot(&random) }
                    let costs = chosen.map { _ in config.costs ? random.int(0...3) : 0 }
                    return .change(slots: chosen, costs: costs, name: random.int(0...9))
                }
            ),
            (14, { .typing(slot: slot(&$0)) }),
            (26, { _ in .undo }),
            (20, { _ in .redo }),
            (18, { $0.chance(10) ? .jump(pick: -1) : .jump(pick: $0.int(0...999)) }),
            (6, { .earlier($0.int(-1...4)) }),
            (6, { .later($0.int(-1...4)) }),
            (4, { .earlierBy(seconds: $0.int(-1...30)) }),
            (4, { .laterBy(seconds: $0.int(-1...30)) }),
            (10, { .advanceClock(seconds: $0.int(0...9)) }),
            (10, { $0.chance(15) ? .selectRedoBranch(pick: -1) : .selectRedoBranch(pick: $0.int(0...99)) }),
            (8, { _ in .markClean }),
            (config.removals ? 3 : 0, { .removeTarget(slot: slot(&$0)) }),
            (config.removals ? 3 : 0, { .free(slot: slot(&$0)) }),
            (1, { _ in .removeAll }),
            (2, { .levels($0.chance(60) ? 0 : $0.int(2...30)) }),
            (3, { .branchSteps($0.chance(50) ? 0 : $0.int(3...60)) }),
            (config.costs ? 2 : 0, { .maximumCost($0.chance(50) ? 0 : $0.int(12...150)) }),
            (2, { .dropsEmptyGroups($0.chance(50)) }),
            (6, { random in .failingScope(slots: (0..<random.int(0...2)).map { _ in slot(&random) }) }),
        ]
        let total = weighted.reduce(0) { $0 + $1.0 }
        return (0..<count).map { _ in
            var pick = random.int(0...(total - 1))
            for (weight, make) in weighted {
                if pick < weight { return make(&random) }
                pick -= weight
            }
            fatalError("unreachable")
        }
    }
}

/// A snapshot and its shape in plain numbers (the checks compare these).
struct TreeShape {
    let tree: ActionStack.HistoryTree
    /// The node numbers, in sequence order.
    let numbers: [Int]
    /// Each node's parent (the root has none).
    let parent: [Int: Int]
    /// Each node's redo choice, when it has one.
    let redo: [Int: Int]
    let root: Int
    let current: Int

    init(_ tree: ActionStack.HistoryTree) {
        self.tree = tree
        var numbers: [Int] = []
        var parent: [Int: Int] = [:]
        var redo: [Int: Int] = [:]
        numbers.reserveCapacity(tree.nodes.count)
        for node in tree.nodes {
            numbers.append(node.sequence)
            if let up = node.parent { parent[node.sequence] = up.sequence }
            if let down = node.redoChild { redo[node.sequence] = down.sequence }
        }
        self.numbers = numbers
        self.parent = parent
        self.redo = redo
        root = tree.root.sequence
        current = tree.current.sequence
    }

    var newest: Int { numbers.last ?? root }

    func contains(_ number: Int) -> Bool { number == root || parent[number] != nil }

    /// The numbers from the root down to `number` (as far as parents lead).
    func path(to number: Int) -> [Int] {
        var path = [number]
        var next = number
        while let up = parent[next], path.count <= numbers.count {
            path.append(up)
            next = up
        }
        return path.reversed()
    }

    /// The nodes redo would reach from the current node, in order.
    var redoChain: [Int] {
        var chain: [Int] = []
        var next = redo[current]
        while let number = next, chain.count <= numbers.count {
            chain.append(number)
            next = redo[number]
        }
        return chain
    }

    func node(_ number: Int) -> ActionStack.HistoryNode? { tree[.init(sequence: number)] }
}

/// One run: a stack, its document, and what each node should hold.
final class TreeRun {
    typealias ID = ActionStack.HistoryNode.ID

    static let slotCount = 4

    struct ScopeFailure: Error {}

    let stack = ActionStack()
    let clock = ManualClock(seconds: 0)
    /// The parts the driver changes, one per slot.
    var slots: [TreePart] = []
    /// Parts whose target was removed, kept alive: no action can change them again.
    var retired: [(part: TreePart, value: Int)] = []
    var nextKey = 0
    var nextValue = 1
    /// Node -> part key -> value, recorded when the node's change closed (a part made later is 0
    /// at that node).
    var recorded: [Int: [Int: Int]] = [:]
    /// Node -> the action name its change was given.
    var names: [Int: String] = [:]
    /// Node -> part key -> the number and cost of the actions on that part in the node's step (the
    /// root has no step).
    var stepParts: [Int: [Int: (count: Int, cost: Int)]] = [:]
    /// The number the next change takes.
    var nextNumber = 1
    /// The document marked clean, by part key (a part made later is 0 there).
    var cleanDocument: [Int: Int] = [:]
    /// An action was taken out of a step, or a part that was ever changed was freed (its value at
    /// each node can no longer be read), since the last `removeAllActions()`: equal readable parts
    /// no longer mean equal documents.
    var tainted = false
    /// The parts changed since the last `removeAllActions()`.
    var changedParts: Set<Int> = []
    /// The node made by typing on the part with this key, while nothing since ended coalescing: a
    /// keystroke on that part continues it, and no other keystroke continues anything.
    var lastTyping: (node: Int, part: Int)?
    /// `lastTyping` before the operation in progress.
    var typing: (node: Int, part: Int)?
    var misuses: [String] = []
    var levels = 0
    var branchSteps = 0
    var maximumCost = 0
    /// The snapshot after the operation in progress, read once (reading it sweeps freed targets).
    private var snapshot: TreeShape?

    /// The tree after the operation in progress.
    var after: TreeShape {
        if let snapshot { return snapshot }
        let shape = TreeShape(stack.historyTree!)
        snapshot = shape
        return shape
    }

    init(config: TreeRunConfig) {
        stack.misusePolicy = .report
        stack.automaticGroupClosing = .manual
        stack.dropsEmptyGroups = config.dropsEmptyGroups
        let clock = self.clock
        stack.historyClock = { clock.now }
        stack.historyShape = .tree
        stack.onMisuse = { [unowned self] misuse in misuses.append("\(misuse)") }
        slots = (0..<Self.slotCount).map { _ in makePart() }
        recorded[0] = activeDocument
    }

    func makePart() -> TreePart {
        defer { nextKey += 1 }
        return TreePart(key: nextKey)
    }

    func freshValue() -> Int {
        defer { nextValue += 1 }
        return nextValue
    }

    /// The values of the parts the driver still changes.
    var activeDocument: [Int: Int] {
        var document: [Int: Int] = [:]
        for part in slots { document[part.key] = part.value }
        return document
    }

    /// The active parts and the retired ones (whose values no action changes any more).
    var readableDocument: [Int: Int] {
        var document = activeDocument
        for (part, _) in retired { document[part.key] = part.value }
        return document
    }

    /// Whether the document at `node` (the active parts as recorded there, the retired ones as they
    /// are) is the one marked clean.
    func isCleanDocument(at node: Int) -> Bool {
        let values = recorded[node] ?? [:]
        for part in slots where (values[part.key] ?? 0) != (cleanDocument[part.key] ?? 0) { return false }
        for (part, value) in retired where value != (cleanDocument[part.key] ?? 0) { return false }
        return true
    }

    /// Whether the readable document now is the one marked clean.
    var documentIsClean: Bool {
        for part in slots where part.value != (cleanDocument[part.key] ?? 0) { return false }
        for (part, _) in retired where part.value != (cleanDocument[part.key] ?? 0) { return false }
        return true
    }

    var hasLimits: Bool { levels > 0 || branchSteps > 0 || maximumCost > 0 }

    // MARK: Running

    /// Runs `ops`; returns the index of the first operation after which a check failed (-1: before
    /// the first), with what failed.
    static func run(_ ops: [TreeOp], config: TreeRunConfig) -> (index: Int, problem: String)? {
        let run = TreeRun(config: config)
        if let problem = run.check() { return (-1, problem) }
        for (index, op) in ops.enumerated() {
            let before = run.after
            run.snapshot = nil
            if let problem = run.perform(op, before: before) ?? run.check() { return (index, problem) }
        }
        return nil
    }

    /// Performs `op`; returns a problem found by the checks that only this operation makes.
    func perform(_ op: TreeOp, before: TreeShape) -> String? {
        typing = lastTyping
        lastTyping = nil
        switch op {
        case .change(let chosen, let costs, let name):
            let actionName = "Edit \(name)"
            stack.beginUndoGrouping()
            var parts: [Int: (count: Int, cost: Int)] = [:]
            for (index, slot) in chosen.enumerated() {
                let part = slots[slot]
                part.set(freshValue(), cost: costs[index], on: stack)
                changedParts.insert(part.key)
                parts[part.key, default: (0, 0)].count += 1
                parts[part.key, default: (0, 0)].cost += costs[index]
            }
            stack.setActionName(actionName)
            stack.endUndoGrouping()
            stack.endEvent()
            return changeClosed(before: before, parts: parts, name: actionName, empty: chosen.isEmpty)
        case .typing(let slot):
            let part = slots[slot]
            part.set(freshValue(), cost: 0, coalescingKey: "typing", on: stack)
            changedParts.insert(part.key)
            stack.endEvent()
            let now = stack.currentNode!.sequence
            if let typing, typing.part == part.key {
                // The keystroke continues the node the last one made, a leaf: never across a fork.
                guard now == typing.node, now == before.current else {
                    return "typing made node \(now) instead of continuing node \(typing.node)"
                }
                recorded[now] = activeDocument
                stepParts[now, default: [:]][part.key, default: (0, 0)].count += 1
                lastTyping = typing
                return unchanged(before, "a keystroke that continues a step", ignoringNode: now)
            }
            let problem = changeClosed(before: before, parts: [part.key: (1, 0)], name: "", empty: false)
            lastTyping = (stack.currentNode!.sequence, part.key)
            return problem
        case .undo:
            stack.undo()
            return moved(to: before.parent[before.current] ?? before.current, before: before, down: [])
        case .redo:
            stack.redo()
            return moved(to: before.redo[before.current] ?? before.current, before: before, down: [])
        case .jump(let pick):
            if pick < 0 {
                lastTyping = typing
                let missing = ID(sequence: before.newest + 1 + nextNumber % 3)
                do {
                    try stack.jump(toNode: missing)
                    return "jump(toNode: \(missing)) did not throw"
                } catch {
                    guard error == .noSuchNode(missing) else { return "jump(toNode: \(missing)) threw \(error)" }
                }
                return unchanged(before, "a jump to a missing node")
            }
            let target = before.numbers[pick % before.numbers.count]
            // A jump to the current node does nothing (it does not end coalescing either).
            if target == before.current { lastTyping = typing }
            do {
                try stack.jump(toNode: ID(sequence: target))
            } catch {
                return "jump(toNode: #\(target)) threw \(error)"
            }
            return moved(to: target, before: before, down: Self.wayDown(before, to: target))
        case .earlier(let count):
            return timeMove(before: before, to: Self.earlier(count, in: before)) {
                () throws(ActionStack.HistoryTreeError) in try self.stack.earlier(count)
            }
        case .later(let count):
            return timeMove(before: before, to: Self.later(count, in: before)) {
                () throws(ActionStack.HistoryTreeError) in try self.stack.later(count)
            }
        case .earlierBy(let seconds):
            return timeMove(before: before, to: Self.earlier(seconds: seconds, in: before)) {
                () throws(ActionStack.HistoryTreeError) in try self.stack.earlier(by: .seconds(seconds))
            }
        case .laterBy(let seconds):
            return timeMove(before: before, to: Self.later(seconds: seconds, in: before)) {
                () throws(ActionStack.HistoryTreeError) in try self.stack.later(by: .seconds(seconds))
            }
        case .advanceClock(let seconds):
            clock.advance(seconds: Double(seconds))
            lastTyping = typing
        case .selectRedoBranch(let pick):
            let children = before.numbers.filter { before.parent[$0] == before.current }
            if pick < 0 || children.isEmpty {
                lastTyping = typing
                let other = ID(sequence: before.numbers.first { before.parent[$0] != before.current } ?? before.root)
                do {
                    try stack.selectRedoBranch(other)
                    return "selectRedoBranch(\(other)) of a non-child did not throw"
                } catch {
                    guard error == .notAChildOfCurrentNode(other) else {
                        return "selectRedoBranch(\(other)) threw \(error)"
                    }
                }
                return unchanged(before, "selecting a non-child")
            }
            let child = children[pick % children.count]
            do {
                try stack.selectRedoBranch(ID(sequence: child))
            } catch {
                return "selectRedoBranch(#\(child)) threw \(error)"
            }
            guard after.current == before.current else { return "selectRedoBranch moved the document" }
            return structure(before: before, vanished: [], down: [(before.current, child)])
        case .markClean:
            stack.markClean()
            cleanDocument = readableDocument
        case .removeTarget(let slot):
            let part = slots[slot]
            if typing?.part != part.key { lastTyping = typing }
            stack.removeAllActions(withTarget: part)
            retired.append((part, part.value))
            if retired.count > 3 { retired.removeFirst() }
            slots[slot] = makePart()
            return partRemoved(part.key, before: before)
        case .free(let slot):
            let key = slots[slot].key
            if changedParts.contains(key) { tainted = true }
            if typing?.part != key { lastTyping = typing }
            slots[slot] = makePart()
            return partRemoved(key, before: before)
        case .removeAll:
            stack.removeAllActions()
            let root = stack.currentNode!.sequence
            guard root == nextNumber else { return "removeAllActions: new root \(root), expected \(nextNumber)" }
            guard after.numbers == [root] else { return "removeAllActions left nodes \(after.numbers)" }
            nextNumber += 1
            recorded = [root: activeDocument]
            names = [:]
            stepParts = [:]
            cleanDocument = readableDocument
            tainted = false
            changedParts = []
        case .levels(let value):
            lastTyping = typing
            stack.levelsOfUndo = value
            levels = value
        case .branchSteps(let value):
            lastTyping = typing
            stack.maximumBranchSteps = value
            branchSteps = value
        case .maximumCost(let value):
            lastTyping = typing
            stack.maximumCost = value
            maximumCost = value
            return costProblem()
        case .dropsEmptyGroups(let value):
            lastTyping = typing
            stack.dropsEmptyGroups = value
        case .failingScope(let chosen):
            let document = activeDocument
            do {
                try stack.group(named: "Failing") {
                    for slot in chosen { slots[slot].set(freshValue(), cost: 0, on: stack) }
                    throw ScopeFailure()
                }
                return "the scope did not throw"
            } catch {}
            guard activeDocument == document else { return "a failed scope left the document changed" }
            return unchanged(before, "a failed scope")
        }
        return nil
    }

    /// A change closed: a new node numbered next, child of the current node and its redo choice
    /// (or none, for an empty group dropped); every other node and choice kept.
    func changeClosed(before: TreeShape, parts: [Int: (count: Int, cost: Int)], name: String, empty: Bool) -> String? {
        let now = stack.currentNode!.sequence
        if empty && stack.dropsEmptyGroups {
            guard now == before.current else { return "a dropped empty group moved to node \(now)" }
            return unchanged(before, "a dropped empty group")
        }
        guard now == nextNumber else { return "the change made node \(now), expected \(nextNumber)" }
        nextNumber += 1
        recorded[now] = activeDocument
        names[now] = name
        stepParts[now] = parts
        guard after.parent[now] == before.current else {
            return "the new node's parent is \(String(describing: after.parent[now])), expected \(before.current)"
        }
        if let problem = structure(before: before, vanished: [], down: [(before.current, now)], made: now) {
            return problem
        }
        return costProblem()
    }

    /// Undo, redo, a jump or a time move: the current node is `target`; the do-nothing steps
    /// undone on the way up are gone (undoing one builds no redo step); the nodes on the way down
    /// (`down`: each node and the child it entered) remember the way.
    func moved(to target: Int, before: TreeShape, down: [(Int, Int)]) -> String? {
        guard after.current == target else { return "moved to \(after.current), expected \(target)" }
        let targetPath = Set(before.path(to: target))
        var vanished: Set<Int> = []
        var next: Int? = before.current
        while let number = next, !targetPath.contains(number) {
            if stepParts[number]?.isEmpty == true { vanished.insert(number) }
            next = before.parent[number]
        }
        if let problem = structure(before: before, vanished: vanished, down: down) { return problem }
        return down.isEmpty ? nil : costProblem()
    }

    /// The tree is `before` without the nodes `vanished` (what they held hangs from their nearest
    /// remaining ancestor, their redo choice passes up), with the node `made` and the choices of
    /// `down` made, and (without limits) no other node gone.
    func structure(before: TreeShape, vanished: Set<Int>, down: [(Int, Int)], made: Int? = nil) -> String? {
        let after = self.after
        var expected = before.numbers.filter { !vanished.contains($0) }
        if let made { expected.append(made) }
        if hasLimits ? !Set(after.numbers).isSubset(of: expected) : after.numbers != expected {
            return "nodes \(after.numbers), expected \(expected)"
        }
        func survivor(_ number: Int?) -> Int? {
            var next = number
            while let number = next, vanished.contains(number) { next = before.parent[number] }
            return next
        }
        var choices: [Int: Int] = [:]
        for number in after.numbers where number != made {
            if number != after.root && after.parent[number] != survivor(before.parent[number]) {
                return "node #\(number) hangs from \(String(describing: after.parent[number]))"
            }
            var choice = before.redo[number]
            while let next = choice, vanished.contains(next) { choice = before.redo[next] }
            choices[number] = choice
        }
        for (number, child) in down { choices[number] = child }
        for number in after.numbers where number != made {
            // A choice that is gone (pruned) leaves none.
            let wanted = choices[number].flatMap { after.contains($0) ? $0 : nil }
            if after.redo[number] != wanted {
                return "node #\(number) redoes into \(String(describing: after.redo[number])), expected "
                    + "\(String(describing: wanted))"
            }
        }
        if let made, after.redo[made] != nil { return "the new node #\(made) has a redo choice" }
        return nil
    }

    func timeMove(before: TreeShape, to target: Int, _ move: () throws(ActionStack.HistoryTreeError) -> ID) -> String? {
        // A move that cannot move does nothing (it does not end coalescing either).
        if target == before.current { lastTyping = typing }
        let reached: ID
        do {
            reached = try move()
        } catch {
            return "a time move threw \(error)"
        }
        guard reached.sequence == target else { return "a time move returned \(reached), expected #\(target)" }
        if target == before.current { return unchanged(before, "a time move that stays") }
        return moved(to: target, before: before, down: Self.wayDown(before, to: target))
    }

    /// The snapshot is the same as before (dates, choices, titles and all; but the action count of
    /// `ignoringNode`).
    func unchanged(_ before: TreeShape, _ what: String, ignoringNode: Int? = nil) -> String? {
        var tree = after.tree
        if let ignoringNode, let index = tree.nodes.firstIndex(where: { $0.sequence == ignoringNode }),
            let old = before.node(ignoringNode)
        {
            tree.nodes[index].actionCount = old.actionCount
        }
        guard tree == before.tree else { return "\(what) changed the tree" }
        return nil
    }

    /// A part's target was removed or freed: the nodes whose steps held only its actions go, what
    /// they held hangs from their nearest remaining ancestor, and their redo choice passes up.
    func partRemoved(_ key: Int, before: TreeShape) -> String? {
        var vanished: Set<Int> = []
        for number in before.numbers {
            guard var parts = stepParts[number], parts[key] != nil else { continue }
            tainted = true
            parts[key] = nil
            stepParts[number] = parts
            if parts.isEmpty { vanished.insert(number) }
        }
        if let problem = structure(before: before, vanished: vanished, down: []) { return "removal: \(problem)" }
        var current: Int? = before.current
        while let number = current, vanished.contains(number) { current = before.parent[number] }
        guard after.current == current else {
            return "removal: current #\(after.current), expected \(String(describing: current))"
        }
        return nil
    }

    // MARK: Expectations from a snapshot

    /// The nodes a move to `target` enters on its way down, each with the child it enters.
    static func wayDown(_ tree: TreeShape, to target: Int) -> [(Int, Int)] {
        let up = Set(tree.path(to: tree.current))
        let path = tree.path(to: target)
        guard let fork = path.lastIndex(where: { up.contains($0) }) else { return [] }
        return (fork..<path.count - 1).map { (path[$0], path[$0 + 1]) }
    }

    static func earlier(_ count: Int, in tree: TreeShape) -> Int {
        guard count > 0 else { return tree.current }
        let target = tree.current - count
        guard target > tree.root else { return tree.root }
        return tree.numbers.last { $0 <= target } ?? tree.root
    }

    static func later(_ count: Int, in tree: TreeShape) -> Int {
        guard count > 0 else { return tree.current }
        let target = tree.current + count
        guard target < tree.newest else { return tree.newest }
        return tree.numbers.first { $0 >= target } ?? tree.newest
    }

    static func earlier(seconds: Int, in tree: TreeShape) -> Int {
        guard seconds > 0, let date = tree.node(tree.current)?.date else { return tree.current }
        let limit = date.addingTimeInterval(-Double(seconds))
        return tree.tree.nodes.last { $0.date <= limit }?.sequence ?? tree.root
    }

    static func later(seconds: Int, in tree: TreeShape) -> Int {
        guard seconds > 0, let date = tree.node(tree.current)?.date else { return tree.current }
        let limit = date.addingTimeInterval(Double(seconds))
        return tree.tree.nodes.first { $0.date >= limit }?.sequence ?? tree.newest
    }

    // MARK: Checks after every operation

    /// `maximumCost` holds for the undo stack and the branches (the redo stack is not counted),
    /// right after something trimmed: unless a single undo step and no branch are left.
    func costProblem() -> String? {
        guard maximumCost > 0 else { return nil }
        let after = self.after
        let redoChain = Set(after.redoChain)
        let undoDepth = after.path(to: after.current).count - 1
        var counted = 0
        var branchNodes = 0
        for number in after.numbers where number != after.root && !redoChain.contains(number) {
            for (_, part) in stepParts[number] ?? [:] { counted += part.cost }
            if !(after.node(number)?.isOnCurrentPath ?? true) { branchNodes += 1 }
        }
        if counted > maximumCost && (branchNodes > 0 || undoDepth > 1) {
            return "the undo stack and the branches cost \(counted), limit \(maximumCost)"
        }
        return nil
    }

    func check() -> String? {
        let violations = stack._invariantViolations()
        guard violations.isEmpty else { return "invariants: \(violations)" }
        guard misuses.isEmpty else { return "misuse: \(misuses)" }
        let shape = after
        if let problem = Self.consistencyProblem(shape, stack: stack) { return problem }
        // Every node is one the driver made; records of nodes that are gone are dropped.
        for number in shape.numbers where recorded[number] == nil {
            return "node #\(number) was never made by the test"
        }
        if recorded.count > shape.numbers.count {
            let held = Set(shape.numbers)
            recorded = recorded.filter { held.contains($0.key) }
            names = names.filter { held.contains($0.key) }
        }
        // The root has no step (a trimmed one's actions are gone).
        stepParts[shape.root] = nil
        if stepParts.count > shape.numbers.count {
            let held = Set(shape.numbers)
            stepParts = stepParts.filter { held.contains($0.key) }
        }
        for node in shape.tree.nodes where node.sequence != shape.root && node.actionName != names[node.sequence] {
            return "node \(node.id) is named '\(node.actionName)', its change '\(names[node.sequence] ?? "")'"
        }
        // The document.
        let values = recorded[shape.current]!
        for part in slots where part.value != values[part.key] ?? 0 {
            return "part \(part.key) is \(part.value) at node #\(shape.current), recorded \(values[part.key] ?? 0)"
        }
        for (part, value) in retired where part.value != value {
            return "the removed part \(part.key) changed from \(value) to \(part.value)"
        }
        // The clean state: never claimed for another document; exact while no step lost actions.
        let isClean = stack.isClean
        let documentIsClean = self.documentIsClean
        if isClean && !documentIsClean { return "isClean, but the document is not the one marked clean" }
        if !tainted && !isClean && documentIsClean { return "not isClean, but the document is the one marked clean" }
        for node in shape.tree.nodes {
            let equal = isCleanDocument(at: node.sequence)
            if node.isClean && !equal { return "node \(node.id) is clean but holds another document" }
            if !tainted && !node.isClean && equal { return "node \(node.id) is not clean but holds the clean document" }
        }
        // Limits: maximumCost holds after every operation (each operation that grows the undo
        // stack or the branches trims or prunes).
        if let problem = costProblem() { return problem }
        let depth = shape.path(to: shape.current).count - 1
        if levels > 0 && depth > levels { return "undo stack \(depth) deep, levelsOfUndo \(levels)" }
        let offPath = shape.tree.nodes.lazy.filter { !$0.isOnCurrentPath }.count
        if branchSteps > 0 && offPath > branchSteps { return "\(offPath) branch steps, limit \(branchSteps)" }
        return nil
    }

    /// What does not hold of a snapshot on its own, or against the stack's other queries.
    static func consistencyProblem(_ shape: TreeShape, stack: ActionStack) -> String? {
        let tree = shape.tree
        let nodes = tree.nodes
        guard let first = nodes.first, first.sequence == shape.root, first.parent == nil else {
            return "the first node is not the root"
        }
        var children: [Int: [Int]] = [:]
        var previous = -1
        for number in shape.numbers {
            guard number > previous else { return "nodes out of sequence order at #\(number)" }
            previous = number
            guard number != shape.root else { continue }
            guard let parent = shape.parent[number], shape.contains(parent) else {
                return "node #\(number) has no parent held"
            }
            children[parent, default: []].append(number)
        }
        // Every path leads to the root (no cycle): each node's depth, from its parent's.
        var depths: [Int: Int] = [shape.root: 0]
        for number in shape.numbers where depths[number] == nil {
            var climb: [Int] = []
            var next = number
            while depths[next] == nil {
                climb.append(next)
                guard climb.count <= nodes.count, let parent = shape.parent[next] else {
                    return "node #\(number) does not lead to the root"
                }
                next = parent
            }
            var depth = depths[next]!
            for climbed in climb.reversed() {
                depth += 1
                depths[climbed] = depth
            }
        }
        for number in [shape.current, shape.numbers[shape.numbers.count / 2], shape.newest] {
            let path = tree.path(to: .init(sequence: number)).map(\.sequence)
            if path != shape.path(to: number) || path.first != shape.root || path.count != depths[number]! + 1 {
                return "path(to: #\(number)) \(path) is not the way from the root"
            }
        }
        let undoPath = Set(shape.path(to: shape.current))
        let redoChain = shape.redoChain
        let onRedoChain = Set(redoChain)
        var currents = 0
        for node in nodes {
            let number = node.sequence
            let listed = children[number] ?? []
            if node.children.count != listed.count || zip(node.children, listed).contains(where: { $0.sequence != $1 })
            {
                return "node #\(number) lists children \(node.children), parents say \(listed)"
            }
            if let redo = shape.redo[number], !listed.contains(redo) {
                return "node #\(number) redoes into #\(redo), not a child"
            }
            if node.isCurrent { currents += 1 }
            let onUndoPath = undoPath.contains(number)
            if node.isOnCurrentPath != (onUndoPath || onRedoChain.contains(number)) {
                return "node #\(number): isOnCurrentPath \(node.isOnCurrentPath)"
            }
            let name = node.actionName
            let title =
                number == shape.root
                ? "" : onUndoPath ? (name.isEmpty ? "Undo" : "Undo \(name)") : (name.isEmpty ? "Redo" : "Redo \(name)")
            if node.title != title { return "node #\(number) is titled '\(node.title)', expected '\(title)'" }
        }
        guard currents == 1, tree[tree.current]?.isCurrent == true, stack.currentNode == tree.current else {
            return
                "\(currents) current nodes, tree says \(tree.current), stack \(String(describing: stack.currentNode))"
        }
        let currentChildren = children[shape.current] ?? []
        if stack.redoBranches.map(\.sequence) != currentChildren {
            return "redoBranches \(stack.redoBranches), children \(currentChildren)"
        }
        let state = stack.state
        if state.currentNode != tree.current || state.redoNode?.sequence != shape.redo[shape.current] {
            return
                "state says current \(String(describing: state.currentNode)), redo \(String(describing: state.redoNode))"
        }
        if stack.canUndo != (shape.current != shape.root) { return "canUndo \(stack.canUndo) at #\(shape.current)" }
        if stack.canRedo != (shape.redo[shape.current] != nil) {
            return "canRedo \(stack.canRedo) at #\(shape.current)"
        }
        if stack.undoCount != undoPath.count - 1 || stack.redoCount != redoChain.count {
            return "undoCount \(stack.undoCount), redoCount \(stack.redoCount) for the current path"
        }
        return nil
    }
}

// MARK: - The seeded runs

extension BranchingPropertyTests {
    nonisolated static let soakOperations =
        Int(ProcessInfo.processInfo.environment["ACTIONSTACK_TREE_SOAK_OPERATIONS"] ?? "") ?? 0
    static let operationsPerSeed = 500

    /// Runs one seed; records a failure with the seed and a shrunk list of operations.
    @discardableResult
    static func runSeed(_ seed: UInt64, operations: Int = operationsPerSeed) -> Bool {
        let config = TreeOpGenerator.config(seed: seed)
        let ops = TreeOpGenerator.makeOps(seed: seed, count: operations, config: config)
        guard let failure = TreeRun.run(ops, config: config) else { return true }
        let shrunk = shrink(Array(ops.prefix(failure.index + 1)), config: config)
        let shrunkFailure = TreeRun.run(shrunk, config: config)
        let recent = ops[max(0, failure.index - 12)...failure.index].map(\.description)
        Issue.record(
            """
            Branching history property failed: seed \(seed), config \(config), operation \(failure.index) \
            \(ops[failure.index]): \(failure.problem)
            The operations before it: \(recent.joined(separator: ", "))
            Shrunk to \(shrunk.count) operations, failing at \(shrunkFailure?.index ?? -2) with: \
            \(shrunkFailure?.problem ?? "(passes)")
            Replay (paste into BranchingPropertyTests.regressions):
            .init(seed: \(seed), config: \(config), ops: [\(shrunk.map(\.description).joined(separator: ", "))]),
            """
        )
        return false
    }

    /// Removes chunks of operations while the run still fails.
    static func shrink(_ ops: [TreeOp], config: TreeRunConfig) -> [TreeOp] {
        var current = ops
        var chunk = max(1, current.count / 2)
        while chunk >= 1 {
            var start = 0
            var removedAny = false
            while start < current.count {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                if TreeRun.run(candidate, config: config) != nil {
                    current = candidate
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny || chunk > 1 { chunk /= 2 }
        }
        return current
    }

    static let regressions: [TreeRegression] = [
        // A test fix the soak needed (seed 1002327): part 1 changed only in a step that trimming
        // dropped, then its target was freed; the root (the node that step led to) holds another
        // value of part 1 than the clean document, which the test can no longer read. Freeing a
        // part that was ever changed now makes equal readable parts no proof of a clean node.
        .init(
            seed: 1_002_327, config: .init(dropsEmptyGroups: false, removals: true, costs: true),
            ops: [
                .levels(4), .change(slots: [1], costs: [0], name: 8), .change(slots: [3], costs: [0], name: 5),
                .change(slots: [2], costs: [0], name: 8), .change(slots: [0], costs: [3], name: 9),
                .change(slots: [2, 0, 3], costs: [0, 0, 0], name: 9), .free(slot: 1),
            ]),
        // At the root, with a redo stack costing 6 and a branch costing 1 under maximumCost 4:
        // selecting the branch made the redo stack a branch, counted from then on, and nothing
        // pruned it, so the tree was over the limit until a do-nothing group closed and trimmed (the
        // soak found that group changing the tree: seed 1000747).
        .init(
            seed: 1_000_747, config: .init(dropsEmptyGroups: true, removals: false, costs: true),
            ops: [
                .change(slots: [0], costs: [1], name: 1), .undo, .change(slots: [1], costs: [3], name: 2),
                .change(slots: [1], costs: [3], name: 3), .undo, .undo, .maximumCost(4), .selectRedoBranch(pick: 0),
                .change(slots: [], costs: [], name: 4),
            ]),
        // A scoped group that throws, at the root with a redo stack longer than
        // maximumBranchSteps: its registration left the redo stack as a branch, and the close of
        // the event's automatic group in the rollback trimmed (levelsOfUndo is set), pruning that
        // branch before the redo choice was restored; the tree lost node 2 (seed 2 found it).
        .init(
            seed: 2, config: .init(dropsEmptyGroups: false, removals: false, costs: false),
            ops: [
                .levels(5), .branchSteps(1), .change(slots: [0], costs: [0], name: 1),
                .change(slots: [0], costs: [0], name: 2), .undo, .undo, .failingScope(slots: [0]),
            ]),
    ]

    @Test(arguments: regressions)
    func replayedRegression(_ regression: TreeRegression) {
        if let failure = TreeRun.run(regression.ops, config: regression.config) {
            Issue.record("seed \(regression.seed), operation \(failure.index): \(failure.problem)")
        }
    }

    /// 8 batches of 50 seeds of 500 operations: 200,000 operations (`Workload` may divide the seeds).
    @Test(arguments: 0..<8)
    func seededOperationsKeepEveryPromise(batch: Int) async {
        let only = ProcessInfo.processInfo.environment["TREE_PROPERTY_SEED"].flatMap { UInt64($0) }
        var operations = 0
        let seeds = Workload.scaled(50)
        for offset in 0..<seeds {
            let seed = UInt64(batch * 50 + offset)
            if let only, only != seed { continue }
            operations += Self.operationsPerSeed
            if !Self.runSeed(seed) { return }
            await Workload.yield()
        }
        if only == nil { #expect(operations == seeds * Self.operationsPerSeed) }
    }

    @Test(.enabled(if: soakOperations > 0, "set ACTIONSTACK_TREE_SOAK_OPERATIONS to soak"))
    func soak() async {
        var done = 0
        let first = UInt64(ProcessInfo.processInfo.environment["ACTIONSTACK_SOAK_SEED"] ?? "") ?? 1_000_000
        var seed = first
        while done < Self.soakOperations {
            if !Self.runSeed(seed, operations: 2_000) { return }
            await Workload.yield()
            done += 2_000
            seed += 1
            if done % 200_000 == 0 { print("tree property soak: \(done) operations (seeds \(first)..<\(seed))") }
        }
        print("tree property soak: \(done) operations from seed \(first)")
    }
}
