// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackBoardModel
import ActionStackTestSupport
import Foundation
import Testing

/// The picture's layout: the same labels as the first, simple layout drew, in time that grows
/// with the number of figures, not with its square.
@MainActor
struct BoardPictureTests {
    /// The rows inside the frame, as the session draws them (no colour).
    static func rows(_ session: Session) -> [String] {
        let lines = session.render()
        let bottom = lines.dropFirst().firstIndex { $0.hasPrefix("+-") } ?? lines.endIndex
        return lines[1..<bottom].map { String($0.dropFirst().dropLast()) }
    }

    /// The first layout, kept here as the reference: place every label, merge the leftmost pair
    /// that overlaps, and start again until none does (O(n² log n) for n figures in a row).
    static func referenceRows(_ session: Session) -> [String] {
        let columns = Int(Board.width / 2) + 1
        let rowCount = Int(Board.height / 4) + 1
        let selected = session.selectedID
        func column(_ figure: Figure) -> Int { min(columns - 1, max(0, Int((figure.position.x / 2).rounded()))) }
        func row(_ figure: Figure) -> Int { min(rowCount - 1, max(0, Int((figure.position.y / 4).rounded()))) }
        func label(_ figures: [Figure]) -> String {
            let members = figures.sorted { $0.id < $1.id }
            func number(_ figure: Figure) -> String { (figure.id == selected ? "*" : "") + String(figure.id) }
            func brackets(_ figure: Figure) -> (String, String) { figure.cornerRadius > 0 ? ("(", ")") : ("[", "]") }
            let text: String
            if Set(members.map { brackets($0).0 }).count == 1 {
                let (open, close) = brackets(members[0])
                text = open + members.map(number).joined(separator: "+") + close
            } else {
                text = members.map { brackets($0).0 + number($0) + brackets($0).1 }.joined(separator: "+")
            }
            guard text.count > columns else { return text }
            if let chosen = members.first(where: { $0.id == selected }) {
                return "[" + number(chosen) + " and \(members.count - 1) more]"
            }
            return "[\(members.count) figures]"
        }
        func start(_ width: Int, _ centre: Double) -> Int {
            max(0, min(columns - width, Int((centre - Double(width - 1) / 2).rounded(.down))))
        }
        var grid = Array(repeating: Array(repeating: Character(" "), count: columns), count: rowCount)
        for (index, figures) in Dictionary(grouping: session.board.figures, by: row) {
            var clusters = figures.map { (members: [$0], centre: Double(column($0))) }
            var placed: [(start: Int, text: String)]
            while true {
                clusters.sort { $0.centre < $1.centre }
                placed = clusters.map { cluster in
                    let text = label(cluster.members)
                    return (start(text.count, cluster.centre), text)
                }
                guard
                    let i = placed.indices.dropFirst().first(where: {
                        placed[$0].start < placed[$0 - 1].start + placed[$0 - 1].text.count
                    })
                else { break }
                let members = clusters[i - 1].members + clusters[i].members
                let centre = members.map { Double(column($0)) }.reduce(0, +) / Double(members.count)
                clusters[i - 1] = (members, centre)
                clusters.remove(at: i)
            }
            for (start, text) in placed {
                for (offset, character) in text.enumerated() { grid[index][start + offset] = character }
            }
        }
        return grid.map { String($0) }
    }

    /// Seeded random boards, crowded into few rows so that labels merge in every way (shared and
    /// mixed brackets, counts, the edges), each drawn as the reference draws it.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func theLayoutDrawsWhatTheReferenceDraws(seed: UInt64) async {
        var random = SeededGenerator(seed: seed)
        let session = Session()
        let ys = [0.0, 20, 40]
        var seen: Set<String> = []
        for step in 0..<200 {
            // Seconds of drawing on the main actor: each step lets the other main-actor tests run.
            await Task.yield()
            let x = Double(Int.random(in: 0...8000, using: &random)) / 100
            let y = ys[Int.random(in: 0..<ys.count, using: &random)]
            let count = session.board.figures.count
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5: _ = session.handle("add \(x) \(y)")
            case 5: _ = session.handle("radius \(Int.random(in: 0...4, using: &random))")
            case 6 where count > 0:
                _ = session.handle("select \(session.board.figures.randomElement(using: &random)!.id)")
            case 7 where count > 0:
                _ = session.handle("remove \(session.board.figures.randomElement(using: &random)!.id)")
            case 8 where count > 0:
                _ = session.handle("move \(session.board.figures.randomElement(using: &random)!.id) \(x) \(y)")
            default: _ = session.handle("undo")
            }
            let rows = Self.rows(session)
            let expected = Self.referenceRows(session)
            guard rows == expected else {
                Issue.record(
                    "seed \(seed), step \(step):\n\(rows.joined(separator: "\n"))\nexpected:\n\(expected.joined(separator: "\n"))"
                )
                return
            }
            for (form, drawn) in Self.forms where rows.contains(where: drawn) { seen.insert(form) }
        }
        #expect(seen.count == Self.forms.count, "seed \(seed) drew only \(seen.sorted())")
    }

    /// The kinds of label the random boards must have drawn, to have compared them all.
    static let forms: [String: (String) -> Bool] = [
        "a count naming the selected figure": { $0.contains("more]") },
        "a count": { $0.contains("figures]") },
        "shared brackets": { $0.contains(/[0-9]\+\*?[0-9]/) },
        "mixed brackets": { $0.contains(")+[") || $0.contains("]+(") },
        "the left edge": { $0.first != " " },
        "the right edge": { $0.last != " " },
    ]

    /// A thousand figures in one row, each added as a user adds it (every command draws the
    /// board). Laying out a picture of n figures takes a few steps per figure; the first layout
    /// placed every label again after each merge, about n² / 2 steps (and minutes in all).
    @Test func aThousandFiguresInOneRowAreDrawnInLinearTime() throws {
        var random = SeededGenerator(seed: 1000)
        let session = Session()
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<1000 {
            let reply = session.handle("add \(Int.random(in: 0...80, using: &random)) 20")
            #expect(reply.first?.hasPrefix("added figure") == true)
        }
        let elapsed = clock.now - started
        let before = BoardPicture.layoutSteps
        let row = try #require(Self.rows(session).first { $0.contains("more]") })
        let steps = BoardPicture.layoutSteps - before
        #expect(row.contains("[*1000 and "), "\(row)")
        #expect(steps <= 4 * session.board.figures.count, "\(steps) layout steps for 1000 figures")
        // Generous, for slow machines and sanitizers: before, this took about half an hour.
        #expect(elapsed < .seconds(120), "\(elapsed) for 1000 commands")
    }
}
