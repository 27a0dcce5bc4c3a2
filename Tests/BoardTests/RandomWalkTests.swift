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

/// A seeded random walk through the board's commands, checked after every step against a shadow
/// model that knows nothing of ActionStack: plain lists of figures and of the steps it expects on
/// each undo and redo stack.
///
/// After every command it checks that the board matches the shadow, and that each Undo and Redo
/// title names what pressing it will do. Each undo and redo is also checked against its own title,
/// independently of the shadow: "Undo Add Figure" must take a figure off the board, "Redo Remove
/// Figure" too, "Redo Move to (x, y)" must put a figure at (x, y), and so on.
///
/// The board's history is a tree: the walk also goes to any node (`goto`, `history N`), back and
/// forth in the order of the changes and in time (`earlier`, `later`), chooses redo's branch
/// (`branch`) and draws the tree, and the shadow keeps the tree by vim's rules; after every command
/// every node's parent, children, redo choice, date, name and saved mark are compared.
///
/// A failure names its seed and step. Replay one seed with
/// `BOARD_WALK_SEED=1234 swift test --filter RandomWalk`; `BOARD_WALK_STEPS` sets the length.
@MainActor
struct RandomWalkTests {
    nonisolated static let seeds: [UInt64] = {
        if let text = ProcessInfo.processInfo.environment["BOARD_WALK_SEED"], let seed = UInt64(text) { return [seed] }
        return [1, 2, 3, 0xB0A2D]
    }()
    nonisolated static let steps = ProcessInfo.processInfo.environment["BOARD_WALK_STEPS"].flatMap { Int($0) } ?? 2500

    @Test(arguments: seeds)
    func randomWalk(seed: UInt64) async throws {
        var walk = Walk(seed: seed)
        for step in 1...Self.steps {
            // A walk takes seconds on the main actor; every 10 steps it lets the other main-actor
            // tests, some with a one-minute limit, take their turn (the walk's clock is manual).
            if step % 10 == 0 { await Task.yield() }
            let command = walk.nextCommand()
            let problems = walk.perform(command)
            guard problems.isEmpty else {
                Issue.record(
                    """
                    random walk seed \(seed), step \(step), command '\(command)':
                    \(problems.joined(separator: "\n"))
                    the commands so far: \(walk.transcript.suffix(40).joined(separator: "; "))
                    replay with BOARD_WALK_SEED=\(seed) swift test --filter RandomWalk
                    """)
                return
            }
        }
        #expect(walk.compareTree().isEmpty, "seed \(seed): the tree at the end")
        // The walk must have gone through every kind of step, or it checked less than it claims.
        for kind in [
            "add", "move", "nudge", "remove", "color", "radius", "undo", "redo", "history", "save", "goto", "earlier",
            "later", "branch", "tree",
        ] {
            #expect((walk.performed[kind] ?? 0) > 10, "seed \(seed): only \(walk.performed[kind] ?? 0) '\(kind)'")
        }
        #expect(walk.coalescedNudges > 20, "seed \(seed): nudges that continued a drag")
        #expect(walk.undoneAdds > 5 && walk.redoneRemovals > 5, "seed \(seed): the bug's two directions")
        #expect(walk.crossedBranches > 10, "seed \(seed): jumps from one branch to another")
        #expect(walk.movedByTime > 5, "seed \(seed): moves by time")
        #expect(walk.shadow.board.nodes.count { $0.children.count > 1 } > 10, "seed \(seed): forks")
    }
}

/// The shadow model: what the board and its stacks should be, kept with plain values. The
/// board's history is a tree (`Tree`), each figure's a pair of stacks (`Stack`).
struct Shadow {
    struct Figure: Equatable {
        var id: Int
        var position: Point
        var color: FigureColor = .black
        var radius: Double = 0
    }

    /// One undo step, as the shadow expects it. `id` is the document state right after the step
    /// (it travels with the step between undo and redo; a new or continued step gets a new one).
    struct Step {
        enum Kind {
            case add(figure: Int, index: Int)
            case remove(figure: Int, index: Int)
            case move(figure: Int, from: Point, to: Point)
            case color(figure: Int, from: FigureColor, to: FigureColor)
            case radius(figure: Int, from: Double, to: Double)
        }
        var kind: Kind
        var id: Int

        var name: String {
            switch kind {
            case .add: "Add Figure"
            case .remove: "Remove Figure"
            case .move(_, _, let to): "Move to \(to)"
            case .color: "Change Color"
            case .radius: "Change Corner Radius"
            }
        }
    }

    struct Stack {
        var undo: [Step] = []
        var redo: [Step] = []
        var base: Int
        var saved: Int
        var current: Int { undo.last?.id ?? base }
        var isClean: Bool { current == saved }
        var undoTitle: String { undo.last.map { "Undo \($0.name)" } ?? "Undo" }
        var redoTitle: String { redo.last.map { "Redo \($0.name)" } ?? "Redo" }
        /// Oldest first, as a history panel lists them.
        var names: [String] { (undo + redo.reversed()).map(\.name) }
    }

    /// A branching history, as vim keeps one: nodes numbered in the order the changes were made,
    /// each with the step that leads to it and the child redo enters (the one entered last).
    struct Tree {
        struct Node {
            var parent: Int?
            var step: Step?
            var children: [Int] = []
            var redoChild: Int?
            /// When it was made (`timeIntervalSinceReferenceDate`, as the stack's clock gave it).
            var date: Double
        }
        /// Indexed by number: the board sets no limits, so no node is ever dropped.
        var nodes: [Node]
        var current = 0
        /// The state saved (a step's `id`; 0 is the start).
        var saved = 0

        /// A history that began at `date`.
        init(date: Double) {
            nodes = [Node(parent: nil, step: nil, date: date)]
        }

        var newest: Int { nodes.count - 1 }
        func state(_ node: Int) -> Int { nodes[node].step?.id ?? 0 }
        var isClean: Bool { state(current) == saved }

        /// The nodes from the root down to `node`, root first.
        func path(to node: Int) -> [Int] {
            var path = [node]
            while let parent = nodes[path[path.count - 1]].parent { path.append(parent) }
            return path.reversed()
        }

        /// The nodes redo enters from the current node, in order.
        var redoPath: [Int] {
            var path: [Int] = []
            var next = nodes[current].redoChild
            while let node = next {
                path.append(node)
                next = nodes[node].redoChild
            }
            return path
        }

        /// The undo stack, oldest first, and the redo stack, next last, as `Stack` holds them.
        var undo: [Step] { path(to: current).dropFirst().map { nodes[$0].step! } }
        var redo: [Step] { redoPath.reversed().map { nodes[$0].step! } }
        var undoTitle: String { nodes[current].step.map { "Undo \($0.name)" } ?? "Undo" }
        var redoTitle: String { nodes[current].redoChild.map { "Redo \(nodes[$0].step!.name)" } ?? "Redo" }
        /// Oldest first, as a history panel lists the current path.
        var names: [String] { (undo + redo.reversed()).map(\.name) }

        /// A change: a new child of the current node, entered.
        mutating func add(_ step: Step, at date: Double) {
            nodes.append(Node(parent: current, step: step, date: date))
            nodes[current].children.append(newest)
            nodes[current].redoChild = newest
            current = newest
        }

        /// The steps a move to `target` undoes (in order), and the nodes it enters on the way down.
        func way(to target: Int) -> (up: [Step], down: [Int]) {
            let from = path(to: current)
            let to = path(to: target)
            let shared = zip(from, to).prefix { $0 == $1 }.count
            return (from[shared...].reversed().map { nodes[$0].step! }, Array(to[shared...]))
        }

        /// vim's rules for `earlier` and `later` by count (every number exists here).
        func earlier(_ count: Int) -> Int { max(current - count, 0) }
        func later(_ count: Int) -> Int { min(current + count, newest) }

        /// By time: the newest node made at or before the current node's date minus `duration`
        /// (the root if none), or the oldest made at or after its date plus `duration` (the newest
        /// if none); never past the current node the wrong way. With the arithmetic the stack
        /// does, on the same numbers, so that a node dated exactly at the limit counts the same.
        func earlier(by seconds: Double) -> Int {
            let date = nodes[current].date - seconds
            let found = nodes.indices.last { nodes[$0].date <= date } ?? 0
            return found > current ? current : found
        }
        func later(by seconds: Double) -> Int {
            let date = nodes[current].date + seconds
            let found = nodes.indices.first { nodes[$0].date >= date } ?? newest
            return found < current ? current : found
        }
    }

    /// The drag that a nudge may continue: the figure, the step, the time of its last nudge.
    struct Drag {
        var figure: Int
        var step: Int
        var time: Duration
    }

    var figures: [Int: Figure] = [:]
    /// The ids of the figures on the board, bottom to top.
    var order: [Int] = []
    var board: Tree
    var stacks: [Int: Stack] = [:]
    var drag: Drag?
    var nextFigure = 1
    var nextState = 1
    var selected: Int?
    var context = Context.board
    /// The date of the board's new nodes (`timeIntervalSinceReferenceDate`).
    var now: Double

    /// The board's history began at `start`.
    init(start: Date) {
        board = Tree(date: start.timeIntervalSinceReferenceDate)
        now = start.timeIntervalSinceReferenceDate
    }

    mutating func newState() -> Int {
        defer { nextState += 1 }
        return nextState
    }

    /// Every figure's history counts, off the board too (the board's history keeps every step,
    /// so every figure can come back): with the board back at its saved step, a figure off it can
    /// still hold a change made while it was on it.
    var hasUnsavedChanges: Bool {
        !board.isClean || stacks.values.contains { !$0.isClean }
    }

    /// The undo and redo stacks of the active context, and its titles.
    var active: (undo: [Step], redo: [Step], undoTitle: String, redoTitle: String) {
        guard context == .figure else { return (board.undo, board.redo, board.undoTitle, board.redoTitle) }
        let stack = stacks[selected!]!
        return (stack.undo, stack.redo, stack.undoTitle, stack.redoTitle)
    }

    // MARK: Registering (what the user does)

    /// A new step on the board's stack: a new node, whose branch redo now takes (the redo steps
    /// it had are kept, as a branch). Ends a drag.
    mutating func record(_ kind: Step.Kind) {
        board.add(Step(kind: kind, id: newState()), at: now)
        drag = nil
    }

    mutating func recordOnFigure(_ id: Int, _ kind: Step.Kind) {
        let state = newState()
        stacks[id]!.undo.append(Step(kind: kind, id: state))
        stacks[id]!.redo.removeAll()
    }

    mutating func add(at point: Point) {
        let id = nextFigure
        nextFigure += 1
        figures[id] = Figure(id: id, position: point)
        let state = newState()
        stacks[id] = Stack(base: state, saved: state)
        record(.add(figure: id, index: order.count))
        order.append(id)
        selected = id
    }

    mutating func nudge(_ id: Int, to point: Point, at time: Duration) {
        let from = figures[id]!.position
        figures[id]!.position = point
        let last = board.nodes[board.current].step
        if let drag, drag.figure == id, drag.step == last?.id, time - drag.time <= Board.nudgeWindow,
            case .move(_, let origin, _) = last!.kind
        {
            // The drag goes on: the same step and node (its date unchanged), now ending here, and a
            // new document state.
            let state = newState()
            board.nodes[board.current].step = Step(kind: .move(figure: id, from: origin, to: point), id: state)
            self.drag = Drag(figure: id, step: state, time: time)
        } else {
            record(.move(figure: id, from: from, to: point))
            self.drag = Drag(figure: id, step: board.state(board.current), time: time)
        }
    }

    /// A figure leaves the board (removed, its addition undone, a removal redone): it keeps its
    /// history, which comes back with it when the board's undo or redo brings it back.
    mutating func takeOff(at index: Int) {
        order.remove(at: index)
    }

    // MARK: Undo and redo

    /// Applies `step` backwards (undo) or forwards (redo) to the figures.
    mutating func apply(_ step: Step, undoing: Bool) {
        switch step.kind {
        case .add(let id, let index):
            if undoing { takeOff(at: index) } else { order.insert(id, at: index) }
        case .remove(let id, let index):
            if undoing { order.insert(id, at: index) } else { takeOff(at: index) }
        case .move(let id, let from, let to): figures[id]!.position = undoing ? from : to
        case .color(let id, let from, let to): figures[id]!.color = undoing ? from : to
        case .radius(let id, let from, let to): figures[id]!.radius = undoing ? from : to
        }
    }

    mutating func undo() {
        guard context == .figure else {
            let step = board.nodes[board.current].step!
            board.current = board.nodes[board.current].parent!
            drag = nil
            apply(step, undoing: true)
            return
        }
        let step = stacks[selected!]!.undo.removeLast()
        stacks[selected!]!.redo.append(step)
        apply(step, undoing: true)
    }

    mutating func redo() {
        guard context == .figure else {
            board.current = board.nodes[board.current].redoChild!
            drag = nil
            apply(board.nodes[board.current].step!, undoing: false)
            return
        }
        let step = stacks[selected!]!.redo.removeLast()
        stacks[selected!]!.undo.append(step)
        apply(step, undoing: false)
    }

    /// Moves the board to node `target`: undoes up to the fork, then redoes down, each node
    /// entered becoming the one its parent's redo takes. Ends a drag when it moves.
    mutating func jump(to target: Int) {
        guard target != board.current else { return }
        let (up, down) = board.way(to: target)
        for step in up {
            board.current = board.nodes[board.current].parent!
            apply(step, undoing: true)
        }
        for node in down {
            board.nodes[board.current].redoChild = node
            board.current = node
            apply(board.nodes[node].step!, undoing: false)
        }
        drag = nil
    }

    /// Every figure's history is saved where it is: those on the board, and those off it, which
    /// the board's history can bring back (it keeps every step: the board sets no limits), as a
    /// file holds them.
    mutating func save() {
        board.saved = board.state(board.current)
        drag = nil
        for id in stacks.keys {
            stacks[id]!.saved = stacks[id]!.current
        }
    }

    /// The end of a command, as the session ends it: a selected figure that left the board is
    /// no longer selected.
    mutating func endEvent() {
        if let id = selected, !order.contains(id) {
            selected = nil
            context = .board
        }
    }
}

/// The walk: the session under test, its shadow, the clock, the random choices.
@MainActor
struct Walk {
    let session = Session()
    var shadow: Shadow
    var random: SeededGenerator
    let clock = ManualClock()
    /// Time since the start, as the shadow measures drags.
    var elapsed = Duration.zero
    var transcript: [String] = []
    var performed: [String: Int] = [:]
    var coalescedNudges = 0
    var undoneAdds = 0
    var redoneRemovals = 0
    /// Jumps that undid up to a fork and redid down another branch.
    var crossedBranches = 0

    /// When the board's history began: its nodes are dated this plus `elapsed` (the walk sets the
    /// stack's `historyClock` before each command, so `earlier 3s` need not wait).
    let start: Date
    var movedByTime = 0

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
        clock.drive(session.board.undoStack)
        start = session.board.undoStack.historyTree?.nodes.first?.date ?? Date()
        shadow = Shadow(start: start)
    }

    var board: Board { session.board }

    // MARK: Choosing commands

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    /// A figure number: usually one on the board, sometimes one that is not.
    mutating func anyFigure() -> Int {
        if shadow.order.isEmpty || chance(8) { return Int.random(in: 1...(shadow.nextFigure + 1), using: &random) }
        return shadow.order.randomElement(using: &random)!
    }

    /// A coordinate in hundredths, sometimes just off the board.
    mutating func coordinate(upTo limit: Double) -> String {
        if chance(5) { return ["-1", "\(limit + 0.5)", "0x10", "1e1", "\(limit).01"].randomElement(using: &random)! }
        let hundredths = Int.random(in: 0...Int(limit * 100), using: &random)
        return chance(70) ? String(hundredths / 100) : String(format: "%.2f", Double(hundredths) / 100)
    }

    mutating func nextCommand() -> String {
        // Time passes between commands: mostly a fraction of the nudge window, sometimes more.
        let pause = chance(80) ? Int.random(in: 50...700, using: &random) : Int.random(in: 700...2500, using: &random)
        clock.advance(by: .milliseconds(pause))
        elapsed += .milliseconds(pause)
        let date = start.addingTimeInterval(seconds(elapsed))
        shadow.now = date.timeIntervalSinceReferenceDate
        board.undoStack.historyClock = { date }

        let figureCount = shadow.order.count
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<(figureCount < 6 ? 10 : 3):
            return "add \(coordinate(upTo: Board.width)) \(coordinate(upTo: Board.height))"
        case 10..<17: return "move \(anyFigure()) \(coordinate(upTo: Board.width)) \(coordinate(upTo: Board.height))"
        case 17..<32:
            // Nudges come in runs on one figure, as arrow keys do.
            let steps = ["0", "1", "-1", "0.5", "-0.25", "2", "-3", "10"]
            let figure = chance(80) ? (shadow.drag?.figure ?? anyFigure()) : anyFigure()
            return "nudge \(figure) \(steps.randomElement(using: &random)!) \(steps.randomElement(using: &random)!)"
        case 32..<(figureCount > 3 ? 40 : 35): return "remove \(anyFigure())"
        case 40..<45: return "select \(anyFigure())"
        case 45..<50: return chance(50) ? "board" : "figure"
        case 50..<56: return "color \(FigureColor.allCases.randomElement(using: &random)!.rawValue)"
        case 56..<61: return "radius \(["0", "1", "2.5", "4", "4.5", "-1"].randomElement(using: &random)!)"
        case 61..<76: return "undo"
        case 76..<88: return "redo"
        case 88..<90:
            // A position in a figure's history, a node in the board's (sometimes one past the end).
            let stack = session.activeStack ?? board.undoStack
            let last = shadow.context == .board ? shadow.board.newest : stack.undoCount + stack.redoCount
            return "history \(Int.random(in: 0...(last + 1), using: &random))"
        case 90..<92: return "goto \(Int.random(in: 0...(shadow.board.newest + 1), using: &random))"
        case 92..<95:
            let direction = chance(50) ? "earlier" : "later"
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return direction
            case 1: return "\(direction) \(Int.random(in: 1...6, using: &random))"
            case 2: return "\(direction) \(Int.random(in: 1...20, using: &random))s"
            default: return "\(direction) \(["1m", "2m", "1h", "0", "x"].randomElement(using: &random)!)"
            }
        case 95..<97:
            let children = shadow.board.nodes[shadow.board.current].children
            if children.isEmpty || chance(30) {
                return chance(50) ? "branch" : "branch \(Int.random(in: 0...(shadow.board.newest + 1), using: &random))"
            }
            return "branch \(children.randomElement(using: &random)!)"
        case 97..<99: return "tree"
        default: return "save"
        }
    }

    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    // MARK: Performing and checking

    /// Runs `command` in the session and in the shadow; returns what disagrees.
    mutating func perform(_ command: String) -> [String] {
        transcript.append(command)
        let words = command.split(separator: " ").map(String.init)
        let before = session.render()
        let undoTitle = session.buttons.undoTitle
        let redoTitle = session.buttons.redoTitle
        let snapshot = figures()
        let expectsError = !predict(words)
        let output = session.handle(command)
        shadow.endEvent()
        var problems: [String] = []
        let refused = output.first?.hasPrefix("error: ") ?? false
        if refused != expectsError {
            problems.append("expected \(expectsError ? "an error" : "success"), got: \(output.first ?? "nothing")")
        }
        if refused {
            if output.count != 1 { problems.append("an error answers with one line, got \(output.count)") }
            if session.render() != before { problems.append("a refused line changed the board") }
        } else {
            performed[words[0], default: 0] += 1
        }
        if !refused && (words[0] == "undo" || words[0] == "redo") {
            problems += checkPress(words[0], title: words[0] == "undo" ? undoTitle : redoTitle, before: snapshot)
        }
        if !refused && words[0] == "tree" { problems += checkDrawing(output) }
        // The whole tree after every move in it, and every eighth command otherwise: a snapshot
        // holds every node, with its titles, and reading one after every command would make the
        // walk several times slower. (The figures and the titles are compared after every command.)
        let movesInTheTree = ["history", "goto", "earlier", "later", "branch"]
        if transcript.count % 8 == 0 || (!refused && movesInTheTree.contains(words[0])) { problems += compareTree() }
        return problems + compare()
    }

    /// The figures on the board as the shadow sees them, read from the real board.
    func figures() -> [Shadow.Figure] {
        board.figures.map {
            Shadow.Figure(id: $0.id, position: $0.position, color: $0.color, radius: $0.cornerRadius)
        }
    }

    /// Applies `words` to the shadow if the session should accept them; returns false if it
    /// should refuse them (the shadow is then unchanged).
    mutating func predict(_ words: [String]) -> Bool {
        let order = shadow.order
        func onBoard(_ id: Int) -> Bool { order.contains(id) }
        func point(_ x: String, _ y: String) -> Point? {
            guard let x = Session.decimal(x), let y = Session.decimal(y) else { return nil }
            let point = Point(x: x, y: y)
            return Board.contains(point) ? point : nil
        }
        switch words[0] {
        case "add":
            guard let point = point(words[1], words[2]) else { return false }
            shadow.add(at: point)
        case "move":
            guard let id = Int(words[1]), onBoard(id), let point = point(words[2], words[3]) else { return false }
            if shadow.figures[id]!.position != point {
                shadow.record(.move(figure: id, from: shadow.figures[id]!.position, to: point))
                shadow.figures[id]!.position = point
            }
        case "nudge":
            guard let id = Int(words[1]), onBoard(id) else { return false }
            let point = shadow.figures[id]!.position.offset(by: Session.decimal(words[2])!, Session.decimal(words[3])!)
            guard Board.contains(point) else { return false }
            if point != shadow.figures[id]!.position {
                let steps = shadow.board.undo.count
                shadow.nudge(id, to: point, at: elapsed)
                if shadow.board.undo.count == steps { coalescedNudges += 1 }
            }
        case "remove":
            guard let id = Int(words[1]), let index = shadow.order.firstIndex(of: id) else { return false }
            shadow.record(.remove(figure: id, index: index))
            shadow.takeOff(at: index)
        case "select":
            guard let id = Int(words[1]), onBoard(id) else { return false }
            shadow.selected = id
        case "board":
            shadow.context = .board
        case "figure":
            guard shadow.selected != nil else { return false }
            shadow.context = .figure
        case "color":
            guard let id = shadow.selected else { return false }
            let color = FigureColor(rawValue: words[1])!
            let old = shadow.figures[id]!.color
            if old != color {
                shadow.recordOnFigure(id, .color(figure: id, from: old, to: color))
                shadow.figures[id]!.color = color
            }
        case "radius":
            let radius = Session.decimal(words[1])!
            guard let id = shadow.selected, (0...Figure.maximumCornerRadius).contains(radius) else { return false }
            let old = shadow.figures[id]!.radius
            if old != radius {
                shadow.recordOnFigure(id, .radius(figure: id, from: old, to: radius))
                shadow.figures[id]!.radius = radius
            }
        case "undo":
            guard !shadow.active.undo.isEmpty else { return false }
            if case .add = shadow.active.undo.last!.kind { undoneAdds += 1 }
            shadow.undo()
        case "redo":
            guard !shadow.active.redo.isEmpty else { return false }
            if case .remove = shadow.active.redo.last!.kind { redoneRemovals += 1 }
            shadow.redo()
        case "history" where shadow.context == .figure:
            let position = Int(words[1])!
            let stack = shadow.active
            guard position <= stack.undo.count + stack.redo.count else { return false }
            while shadow.active.undo.count > position { shadow.undo() }
            while shadow.active.undo.count < position { shadow.redo() }
        case "history", "goto":
            // In the board's branching history, history N is goto N; a figure's history is linear.
            let node = Int(words[1])!
            guard shadow.context == .board, node <= shadow.board.newest else { return false }
            if shadow.board.way(to: node).up.count > 0 && shadow.board.way(to: node).down.count > 0 {
                crossedBranches += 1
            }
            shadow.jump(to: node)
        case "earlier", "later":
            guard shadow.context == .board else { return false }
            let backwards = words[0] == "earlier"
            let argument = words.count > 1 ? words[1] : "1"
            let target: Int
            if let count = Int(argument) {
                guard count > 0 else { return false }
                target = backwards ? shadow.board.earlier(count) : shadow.board.later(count)
            } else if let last = argument.last, let value = Int(argument.dropLast()), value > 0 {
                let seconds = Double(value * (last == "m" ? 60 : last == "h" ? 3600 : 1))
                target = backwards ? shadow.board.earlier(by: seconds) : shadow.board.later(by: seconds)
                if target != shadow.board.current { movedByTime += 1 }
            } else {
                return false
            }
            // A time move that does not move (at an end) does nothing at all, as the "Branching
            // History" article says, and leaves a drag going; one that moves ends it (jump).
            shadow.jump(to: target)
        case "branch":
            guard shadow.context == .board else { return false }
            guard words.count > 1 else { return true }
            let node = Int(words[1])!
            guard node <= shadow.board.newest, shadow.board.nodes[node].parent == shadow.board.current else {
                return false
            }
            if shadow.board.nodes[shadow.board.current].redoChild != node {
                shadow.board.nodes[shadow.board.current].redoChild = node
                shadow.drag = nil
            }
        case "tree":
            return shadow.context == .board
        case "save":
            shadow.save()
        default:
            fatalError("the walk made an unknown command: \(words)")
        }
        return true
    }

    /// Checks that an undo or redo did what its button's title said, reading only the board.
    func checkPress(_ verb: String, title: String, before: [Shadow.Figure]) -> [String] {
        let after = figures()
        let capitalised = verb == "undo" ? "Undo " : "Redo "
        guard title.hasPrefix(capitalised) else { return ["the \(verb) button read '\(title)'"] }
        let name = String(title.dropFirst(capitalised.count))
        let ids = (before: Set(before.map(\.id)), after: Set(after.map(\.id)))
        // The figures that were on the board before and after, and differ.
        let changed = after.filter { figure in before.contains { $0.id == figure.id && $0 != figure } }
        let problem = "'\(title)' did not do what it says"
        switch name {
        case "Add Figure":
            // Undoing an add takes a figure off; redoing it puts one on.
            let expected =
                verb == "undo" ? ids.after.count == ids.before.count - 1 : ids.after.count == ids.before.count + 1
            return expected && changed.isEmpty ? [] : [problem]
        case "Remove Figure":
            let expected =
                verb == "undo" ? ids.after.count == ids.before.count + 1 : ids.after.count == ids.before.count - 1
            return expected && changed.isEmpty ? [] : [problem]
        case "Change Color", "Change Corner Radius":
            guard ids.before == ids.after, changed.count == 1, let figure = changed.first,
                let old = before.first(where: { $0.id == figure.id })
            else { return [problem] }
            let colorChanged = old.color != figure.color
            let radiusChanged = old.radius != figure.radius
            let ok = name == "Change Color" ? colorChanged && !radiusChanged : radiusChanged && !colorChanged
            return ok ? [] : [problem]
        default:
            // "Move to (x, y)": undo takes a figure away from (x, y), redo takes one there.
            guard name.hasPrefix("Move to "), ids.before == ids.after, changed.count == 1, let figure = changed.first,
                let old = before.first(where: { $0.id == figure.id })
            else { return [problem] }
            let place = String(name.dropFirst("Move to ".count))
            let ok = verb == "undo" ? old.position.description == place : figure.position.description == place
            return ok ? [] : [problem]
        }
    }

    /// Compares the board, every stack and the buttons with the shadow.
    func compare() -> [String] {
        var problems: [String] = []
        let expectedFigures = shadow.order.map { shadow.figures[$0]! }.map {
            Shadow.Figure(id: $0.id, position: $0.position, color: $0.color, radius: $0.radius)
        }
        if figures() != expectedFigures { problems.append("figures: \(figures()), expected \(expectedFigures)") }
        if session.selectedID != shadow.selected {
            problems.append("selection: \(String(describing: session.selectedID))")
        }
        if session.context != shadow.context { problems.append("context: \(session.context)") }

        let stack = board.undoStack
        if stack.undoMenuItemTitle != shadow.board.undoTitle {
            problems.append("board undo title '\(stack.undoMenuItemTitle)', expected '\(shadow.board.undoTitle)'")
        }
        if stack.redoMenuItemTitle != shadow.board.redoTitle {
            problems.append("board redo title '\(stack.redoMenuItemTitle)', expected '\(shadow.board.redoTitle)'")
        }
        let names = (stack.undoEntries.reversed() + stack.redoEntries).map(\.actionName)
        if names != shadow.board.names { problems.append("board history \(names), expected \(shadow.board.names)") }
        for figure in board.figures {
            let expected = shadow.stacks[figure.id]!
            let stack = figure.undoStack
            let names = (stack.undoEntries.reversed() + stack.redoEntries).map(\.actionName)
            if names != expected.names {
                problems.append("figure #\(figure.id) history \(names), expected \(expected.names)")
            }
            if stack.undoMenuItemTitle != expected.undoTitle || stack.redoMenuItemTitle != expected.redoTitle {
                problems.append("figure #\(figure.id) titles '\(stack.undoMenuItemTitle)' '\(stack.redoMenuItemTitle)'")
            }
            if figure.isSaved != expected.isClean {
                problems.append("figure #\(figure.id) saved: \(figure.isSaved)")
            }
        }
        // The buttons show the active context's titles, and the status line the unsaved mark.
        let active = shadow.active
        if session.buttons.undoTitle != active.undoTitle || session.buttons.redoTitle != active.redoTitle {
            problems.append(
                "buttons '\(session.buttons.undoTitle)' '\(session.buttons.redoTitle)', expected "
                    + "'\(active.undoTitle)' '\(active.redoTitle)'")
        }
        if session.buttons.undoEnabled == active.undo.isEmpty || session.buttons.redoEnabled == active.redo.isEmpty {
            problems.append("buttons enabled: \(session.buttons.rendered)")
        }
        if board.hasUnsavedChanges != shadow.hasUnsavedChanges {
            problems.append("unsaved: \(board.hasUnsavedChanges), expected \(shadow.hasUnsavedChanges)")
        }
        problems += checkPicture()
        return problems
    }

    /// The board's tree, node by node: parent, children, the child redo takes, date, name, and
    /// the current and saved nodes.
    func compareTree() -> [String] {
        guard let tree = board.undoStack.historyTree else { return ["the board's history is not a tree"] }
        let expected = shadow.board
        var problems: [String] = []
        if tree.nodes.map(\.sequence) != Array(expected.nodes.indices) {
            return ["tree nodes \(tree.nodes.map(\.sequence)), expected 0...\(expected.newest)"]
        }
        if tree.current.sequence != expected.current {
            problems.append("current node \(tree.current), expected #\(expected.current)")
        }
        for (node, shadow) in zip(tree.nodes, expected.nodes) {
            let number = node.sequence
            if node.parent?.sequence != shadow.parent || node.children.map(\.sequence) != shadow.children
                || node.redoChild?.sequence != shadow.redoChild
            {
                problems.append(
                    "node \(number): parent \(String(describing: node.parent)), children \(node.children), "
                        + "redo \(String(describing: node.redoChild)); expected \(shadow.parent ?? -1), "
                        + "\(shadow.children), \(shadow.redoChild ?? -1)")
            }
            if node.actionName != (shadow.step?.name ?? "") {
                problems.append("node \(number) is '\(node.actionName)'")
            }
            if node.date.timeIntervalSinceReferenceDate != shadow.date { problems.append("node \(number)'s date") }
            let clean = expected.state(number) == expected.saved
            if node.isClean != clean { problems.append("node \(number) clean: \(node.isClean)") }
        }
        return problems
    }

    /// The `tree` command's drawing: a header, then one line per node, in an order where each
    /// node comes after its parent; the current node marked.
    func checkDrawing(_ output: [String]) -> [String] {
        let lines = output.first?.split(separator: "\n").dropFirst().map(String.init) ?? []
        let numbers = lines.map { Int($0.drop { !$0.isNumber }.prefix { $0.isNumber }) ?? -1 }
        guard Set(numbers) == Set(shadow.board.nodes.indices), numbers.count == shadow.board.nodes.count else {
            return ["the drawing has nodes \(numbers)"]
        }
        var problems: [String] = []
        for (index, number) in numbers.enumerated() {
            if let parent = shadow.board.nodes[number].parent, numbers.firstIndex(of: parent)! > index {
                problems.append("node \(number) is drawn before its parent")
            }
            if lines[index].contains("<- you are here") != (number == shadow.board.current) {
                problems.append("the current node is not marked on its line: \(lines[index])")
            }
        }
        return problems
    }

    /// The picture: as wide as its frame on every line, every figure's number in its row, the
    /// selected one with its star.
    func checkPicture() -> [String] {
        let lines = session.render()
        let frame = Array(lines.prefix { !$0.hasPrefix("figures:") })
        guard Set(frame.map(\.count)).count == 1, frame.count == Int(Board.height / 4) + 3 else {
            return ["the picture is not a frame:\n\(frame.joined(separator: "\n"))"]
        }
        var problems: [String] = []
        for figure in board.figures {
            let row = frame[1 + min(10, Int((figure.position.y / 4).rounded()))]
            let star = figure.id == session.selectedID ? "*" : ""
            let tokens = row.split { !$0.isNumber && $0 != "*" }
            let counted = row.contains(" more]") || row.contains(" figures]")
            if !tokens.contains(Substring(star + String(figure.id))) && !(counted && star.isEmpty) {
                problems.append("figure #\(figure.id) is not drawn in its row: \(row)")
            }
        }
        return problems
    }
}
