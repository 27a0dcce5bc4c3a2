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

/// The README's promise about `save FILE` and `board FILE`, checked against the board itself:
/// a board saved and opened again behaves as the board that was never closed. Two sessions get
/// the same seeded commands; one of them is saved and reopened from its file now and then, the
/// other goes on. After every command their answers, pictures, status lines and board trees must
/// be the same (the node numbers, the branches, redo's choices, the dates that `earlier 10s`
/// reads, the saved marks), and so must every figure's history when undo brings the figure back.
///
/// Replay one seed with `BOARD_RELAUNCH_SEED=7 swift test --filter RelaunchWalk`.
@MainActor
struct RelaunchWalkTests {
    nonisolated static let seeds: [UInt64] = {
        if let seed = ProcessInfo.processInfo.environment["BOARD_RELAUNCH_SEED"].flatMap({ UInt64($0) }) {
            return [seed]
        }
        return [5, 6, 0xF11E]
    }()

    /// One session: its file, and the clock that dates its steps and times its drags.
    @MainActor final class Side {
        let url: URL
        var session: Session
        let clock: ManualClock

        init(url: URL, clock: ManualClock) throws {
            self.url = url
            self.clock = clock
            session = try Session.opening(url).session
            adopt()
        }

        /// Lets the clock date the board's nodes and time its nudges.
        func adopt() {
            clock.drive(session.board.undoStack)
            let clock = clock
            session.board.undoStack.historyClock = { clock.now }
        }

        /// Quits without a word and opens the file again, as `board FILE` does.
        func relaunch() throws -> [String] {
            let opened = try Session.opening(url)
            session = opened.session
            adopt()
            return opened.notes
        }

        func handle(_ command: String) -> [String] {
            session.handle(command).map { $0.replacingOccurrences(of: url.path, with: "FILE") }
        }
    }

    /// A node of the board's tree, as both sessions must have it.
    struct NodeFacts: Equatable, CustomStringConvertible {
        var sequence: Int
        var parent: Int?
        var children: [Int]
        var redoChild: Int?
        var name: String
        var isCurrent: Bool
        var isClean: Bool
        var date: Double

        var description: String {
            "\(sequence)<-\(parent.map(String.init) ?? "-") \(children) redo:\(redoChild.map(String.init) ?? "-")"
                + " '\(name)'\(isCurrent ? " current" : "")\(isClean ? " saved" : "") @\(date)"
        }
    }

    static func facts(_ stack: ActionStack) -> [NodeFacts] {
        guard let tree = stack.historyTree else { return [] }
        return tree.nodes.map { node in
            NodeFacts(
                sequence: node.sequence, parent: node.parent.flatMap { tree[$0]?.sequence },
                children: node.children.compactMap { tree[$0]?.sequence },
                redoChild: node.redoChild.flatMap { tree[$0]?.sequence }, name: node.actionName,
                isCurrent: node.isCurrent, isClean: node.isClean, date: node.date.timeIntervalSinceReferenceDate)
        }
    }

    /// The next command: figure numbers mostly of figures that exist, positions in hundredths,
    /// runs of nudges, every tree command, and a fair share of undo and redo (the walk is about
    /// what comes back).
    static func command(_ random: inout SeededGenerator, figures: [Int], nextFigure: Int, newest: Int) -> String {
        func pick(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        func figure() -> Int {
            figures.isEmpty || pick(5)
                ? Int.random(in: 1...(nextFigure + 1), using: &random) : figures.randomElement(using: &random)!
        }
        func coordinate(_ limit: Int) -> String {
            let hundredths = Int.random(in: 0...(limit * 100), using: &random)
            return pick(60) ? String(hundredths / 100) : String(format: "%.2f", Double(hundredths) / 100)
        }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<(figures.count < 5 ? 10 : 3): return "add \(coordinate(80)) \(coordinate(40))"
        case 10..<16: return "move \(figure()) \(coordinate(80)) \(coordinate(40))"
        case 16..<28:
            let steps = ["1", "-1", "0.25", "-0.5", "2", "0"]
            return "nudge \(figure()) \(steps.randomElement(using: &random)!) \(steps.randomElement(using: &random)!)"
        case 28..<33: return "remove \(figure())"
        case 33..<40: return "select \(figure())"
        case 40..<46: return pick(50) ? "board" : "figure"
        case 46..<51: return "color \(FigureColor.allCases.randomElement(using: &random)!.rawValue)"
        case 51..<55: return "radius \(["0", "1", "2.5", "4"].randomElement(using: &random)!)"
        case 55..<70: return "undo"
        case 70..<82: return "redo"
        case 82..<85: return "history \(Int.random(in: 0...(newest + 1), using: &random))"
        case 85..<87: return "history"
        case 87..<89: return "goto \(Int.random(in: 0...(newest + 1), using: &random))"
        case 89..<93:
            let direction = pick(50) ? "earlier" : "later"
            let amount =
                pick(50) ? "\(Int.random(in: 1...4, using: &random))" : "\(Int.random(in: 1...9, using: &random))s"
            return "\(direction) \(amount)"
        case 93..<95: return pick(50) ? "branch" : "branch \(Int.random(in: 0...(newest + 1), using: &random))"
        case 95..<96: return "tree"
        case 96..<98: return "save"
        case 98: return "relaunch"
        default: return "quit without saving"
        }
    }

    @Test(arguments: seeds)
    func aBoardSavedAndOpenedAgainBehavesAsTheBoardThatStayedOpen(seed: UInt64) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("board-relaunch-walk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        // One clock each, advanced together: the dates they give are the same.
        let stayed = try Side(url: directory.appendingPathComponent("stayed.board"), clock: ManualClock(start))
        let reopened = try Side(url: directory.appendingPathComponent("reopened.board"), clock: ManualClock(start))
        var random = SeededGenerator(seed: seed)
        var transcript: [String] = []
        var relaunches = 0
        var reverts = 0
        var comebacks = 0
        // What the last save wrote, as the stayed board had it then: its figures and its tree.
        var saved: (figures: String, tree: [NodeFacts])?
        let steps = ProcessInfo.processInfo.environment["BOARD_RELAUNCH_STEPS"].flatMap { Int($0) } ?? 1000
        for step in 1...steps {
            let pause = Int.random(in: 0..<100, using: &random) < 80 ? 300 : 2500
            stayed.clock.advance(by: .milliseconds(pause))
            reopened.clock.advance(by: .milliseconds(pause))
            let figures = stayed.session.board.figures.map(\.id)
            let newest = stayed.session.board.undoStack.historyTree?.newest.sequence ?? 0
            var command = Self.command(
                &random, figures: figures, nextFigure: (figures.max() ?? 0) + 2, newest: newest)
            transcript.append(command)
            var problems: [String] = []
            if command == "quit without saving" {
                // Both quit, changes since the last save and all, and open their files again: each
                // must be the board as it was saved, with its history as it was then.
                guard let saved else { continue }
                _ = try stayed.relaunch()
                _ = try reopened.relaunch()
                reverts += 1
                let opened = (
                    figures: stayed.session.render().first { $0.hasPrefix("figures:") } ?? "",
                    tree: Self.facts(stayed.session.board.undoStack)
                )
                if opened.figures != saved.figures {
                    problems.append("reopened \(opened.figures), saved \(saved.figures)")
                }
                if opened.tree != saved.tree {
                    problems.append("reopened the tree \(opened.tree), saved \(saved.tree)")
                }
            } else if command == "relaunch" {
                // Saved first, in both: the stayed board is then what the file holds.
                command = "save"
                let saved = (stayed.handle(command), reopened.handle(command))
                if saved.0 != saved.1 { problems.append("save answered \(saved.0) and \(saved.1)") }
                let selected = stayed.session.selectedFigure?.id
                let inFigure = stayed.session.render().last?.hasPrefix("figure #") ?? false
                let notes = try reopened.relaunch()
                relaunches += 1
                if notes != ["opened 'FILE' with its history".replacingOccurrences(of: "FILE", with: reopened.url.path)]
                {
                    problems.append("reopened with \(notes)")
                }
                // The selection and the context are not saved: choose them again, as a user would.
                if let selected { _ = reopened.handle("select \(selected)") }
                if inFigure { _ = reopened.handle("figure") }
                if !inFigure && reopened.session.render().last?.hasPrefix("figure #") == true {
                    _ = reopened.handle("board")
                }
            } else {
                let answers = (stayed.handle(command), reopened.handle(command))
                if answers.0 != answers.1 {
                    problems.append("answers differ:\n  stayed:   \(answers.0)\n  reopened: \(answers.1)")
                }
                if command == "undo" || command == "redo" || command.hasPrefix("goto") { comebacks += 1 }
            }
            if command == "save" && stayed.session.board.undoStack.isClean {
                saved = (
                    stayed.session.render().first { $0.hasPrefix("figures:") } ?? "",
                    Self.facts(stayed.session.board.undoStack)
                )
            }
            let renders = (stayed.session.render(), reopened.session.render())
            if renders.0 != renders.1 {
                problems.append(
                    "boards differ:\n  stayed:   \(renders.0.suffix(3))\n  reopened: \(renders.1.suffix(3))")
            }
            let trees = (Self.facts(stayed.session.board.undoStack), Self.facts(reopened.session.board.undoStack))
            if trees.0 != trees.1 {
                let differing = zip(trees.0, trees.1).filter { $0 != $1 }.prefix(3)
                problems.append(
                    "trees differ (\(trees.0.count) and \(trees.1.count) nodes): "
                        + differing.map { "\($0) vs \($1)" }.joined(separator: "; "))
            }
            if !problems.isEmpty {
                Issue.record(
                    """
                    relaunch walk seed \(seed), step \(step), command '\(transcript.last!)':
                    \(problems.joined(separator: "\n"))
                    the commands so far: \(transcript.suffix(40).joined(separator: "; "))
                    """)
                return
            }
        }
        #expect(relaunches > 5, "seed \(seed): only \(relaunches) relaunches")
        #expect(reverts > 5, "seed \(seed): only \(reverts) quits without saving")
        #expect(comebacks > 200, "seed \(seed): only \(comebacks) undos, redos and jumps")
    }
}
