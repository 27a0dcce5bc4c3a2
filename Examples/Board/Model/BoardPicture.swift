// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// Draws the board as a small text picture, one column per 2 units and one row per 4 units.
///
/// Each figure is a label centred on its position: `[3]` for square corners, `(3)` for rounded
/// ones, `[*3]` when it is selected. A label always lies wholly inside the frame: near an edge it
/// is shifted inwards. Labels that would overlap are merged into one that counts every figure in
/// it, `[1+2]` (or `[1]+(2)` when their corners differ), so no figure hides another; the selected
/// one keeps its star. With colour on, each figure's number is drawn in its colour.
@MainActor
public enum BoardPicture {
    static let columns = Int(Board.width / 2) + 1
    static let rows = Int(Board.height / 4) + 1

    /// One character of the picture, and the colour it is drawn in (`nil`: the terminal's own).
    struct Cell {
        var character: Character
        var color: FigureColor?
    }

    /// How many steps laying out the labels of every picture drawn so far took: one for each
    /// label measured, each merge, and each figure and character of a label drawn. (A test hook of
    /// the example: it grows with the number of figures drawn, never with its square.)
    public static private(set) var layoutSteps = 0

    /// Figures whose labels are drawn as one: a run of one row's figures in the order of their
    /// columns, with what the width of their label depends on, so that the width of a merged label
    /// is known without drawing it.
    @MainActor
    struct Cluster {
        /// The members: positions in the row's figures ordered by column.
        var members: Range<Int>
        /// The sum of the members' columns: the label is centred on their mean.
        var columnSum: Int
        /// How many members have rounded corners.
        var rounded: Int
        /// The characters of the members' numbers, the selected one's star included.
        var numbers: Int
        /// Whether the selected figure is a member.
        var hasSelected: Bool

        /// The cluster of one figure, at `index` in the row's order.
        init(_ figure: Figure, at index: Int, selected: Int?) {
            members = index..<index + 1
            columnSum = column(of: figure)
            rounded = figure.cornerRadius > 0 ? 1 : 0
            numbers = String(figure.id).count + (figure.id == selected ? 1 : 0)
            hasSelected = figure.id == selected
        }

        /// Takes in the members of `next`, the cluster that follows this one.
        mutating func absorb(_ next: Cluster) {
            members = members.lowerBound..<next.members.upperBound
            columnSum += next.columnSum
            rounded += next.rounded
            numbers += next.numbers
            hasSelected = hasSelected || next.hasSelected
        }

        /// The mean of the members' columns (exact sums of whole columns, so a merged cluster's
        /// centre lies between those of its parts).
        var centre: Double { Double(columnSum) / Double(members.count) }

        /// Whether all the members have the same kind of corner, and so share one pair of brackets.
        var sharesBrackets: Bool { rounded == 0 || rounded == members.count }

        /// The width of the label every member is written out in: `[1+*2]` or `[1]+(*2)`.
        var fullWidth: Int {
            let pluses = members.count - 1
            return numbers + pluses + (sharesBrackets ? 2 : 2 * members.count)
        }

        /// The width of the label `label(of:in:selected:)` draws.
        func width(selected: Int?) -> Int {
            guard fullWidth > columns else { return fullWidth }
            if hasSelected, let selected { return "[*\(selected) and \(members.count - 1) more]".count }
            return "[\(members.count) figures]".count
        }
    }

    /// The frame with the figures, then the list of figures.
    static func draw(_ board: Board, selected: Int?, colored: Bool) -> [String] {
        var grid = Array(repeating: Array(repeating: Cell(character: " ", color: nil), count: columns), count: rows)
        let byRow = Dictionary(grouping: board.figures) { row(of: $0) }
        for (row, figures) in byRow {
            for (start, label) in place(figures, selected: selected) {
                for (offset, cell) in label.enumerated() { grid[row][start + offset] = cell }
            }
        }
        let border = "+" + String(repeating: "-", count: columns) + "+"
        return [border] + grid.map { "|" + render($0, colored: colored) + "|" } + [
            border, legend(board, colored: colored),
        ]
    }

    /// The longest legend line, in visible characters: room for about three figures. More are
    /// counted, not listed, so the line does not grow with the board.
    public static let longestLegend = 100

    /// "figures: #1 (30.0, 5.0) red r=0.0, #2 ...", the figures in order while they fit in
    /// `longestLegend` characters, then "and N more".
    static func legend(_ board: Board, colored: Bool) -> String {
        guard !board.figures.isEmpty else { return "figures: none" }
        var shown: [String] = []
        var width = "figures: ".count
        for (index, figure) in board.figures.enumerated() {
            let visible = describe(figure, colored: false).count + (shown.isEmpty ? 0 : 2)
            let left = board.figures.count - index - 1
            // Room for this figure, and for ", and N more" after it if any are left.
            let tail = left == 0 ? 0 : ", and \(left) more".count
            if width + visible + tail > longestLegend && !shown.isEmpty {
                return "figures: " + shown.joined(separator: ", ") + ", and \(board.figures.count - index) more"
            }
            shown.append(describe(figure, colored: colored))
            width += visible
        }
        return "figures: " + shown.joined(separator: ", ")
    }

    /// "#1 (30.0, 5.0) red r=0.0".
    static func describe(_ figure: Figure, colored: Bool) -> String {
        "#\(figure.id) \(figure.position) \(paint(figure.color.rawValue, figure.color, colored: colored)) "
            + "r=\(figure.cornerRadius)"
    }

    /// `text` in `color`, when colour is on.
    static func paint(_ text: String, _ color: FigureColor, colored: Bool) -> String {
        guard colored, let code = ansi(color) else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    // MARK: Layout

    static func row(of figure: Figure) -> Int {
        min(rows - 1, max(0, Int((figure.position.y / 4).rounded())))
    }

    static func column(of figure: Figure) -> Int {
        min(columns - 1, max(0, Int((figure.position.x / 2).rounded())))
    }

    /// The labels of one row's figures and the column each starts at, merged until none overlap.
    ///
    /// The figures are taken in the order of their columns (those in one column in the board's
    /// order), and each one's label is merged with the label before it while the two overlap
    /// (touching is fine: "[1][2]" reads well); the merged label is wider and may now reach the one
    /// before it. The labels already placed never overlap each other, so this merges the same
    /// pairs, in the same order, as merging the leftmost overlapping pair of the whole row and
    /// placing every label again, until none overlaps; but each figure is measured once and each
    /// merge costs the same whatever the labels' sizes, and a label too wide to write out is
    /// counted, not drawn: a row of n figures takes time linear in n, not O(n² log n).
    static func place(_ figures: [Figure], selected: Int?) -> [(start: Int, label: [Cell])] {
        // Sorted by column, one bucket per column: figures in one column keep the board's order.
        var byColumn = Array(repeating: [Figure](), count: columns)
        for figure in figures { byColumn[column(of: figure)].append(figure) }
        let ordered = Array(byColumn.joined())
        var clusters: [Cluster] = []
        func start(_ cluster: Cluster) -> Int {
            Self.start(of: cluster.width(selected: selected), centredOn: cluster.centre)
        }
        func end(_ cluster: Cluster) -> Int { start(cluster) + cluster.width(selected: selected) }
        for (index, figure) in ordered.enumerated() {
            clusters.append(Cluster(figure, at: index, selected: selected))
            layoutSteps += 1
            while clusters.count > 1 && start(clusters[clusters.count - 1]) < end(clusters[clusters.count - 2]) {
                let last = clusters.removeLast()
                clusters[clusters.count - 1].absorb(last)
                layoutSteps += 1
            }
        }
        return clusters.map { cluster in
            let text = label(of: cluster, in: ordered, selected: selected)
            assert(text.count == cluster.width(selected: selected), "the width measured is the width drawn")
            return (start: start(cluster), label: text)
        }
    }

    /// Where a label `width` wide starts when centred on `centre`, shifted to lie inside the frame.
    static func start(of width: Int, centredOn centre: Double) -> Int {
        let ideal = Int((centre - Double(width - 1) / 2).rounded(.down))
        return max(0, min(columns - width, ideal))
    }

    /// The label of a cluster of figures: `[*1]`, `(2)`, `[1+*2]`, `[1]+(2)`, or, when it would
    /// not fit in the frame, a count that still names the selected figure: `[*4 and 17 more]`.
    static func label(of cluster: Cluster, in ordered: [Figure], selected: Int?) -> [Cell] {
        let figures = ordered[cluster.members]
        func text(_ string: String, _ color: FigureColor? = nil) -> [Cell] {
            string.map { Cell(character: $0, color: color) }
        }
        func number(_ figure: Figure) -> [Cell] {
            text((figure.id == selected ? "*" : "") + String(figure.id), figure.color)
        }
        func brackets(_ figure: Figure) -> (open: String, close: String) {
            figure.cornerRadius > 0 ? ("(", ")") : ("[", "]")
        }
        var cells: [Cell]
        if cluster.fullWidth > columns {
            // Too wide to write out: the members are counted, not sorted and drawn.
            layoutSteps += figures.count
            if cluster.hasSelected, let chosen = figures.first(where: { $0.id == selected }) {
                cells = text("[") + number(chosen) + text(" and \(figures.count - 1) more]")
            } else {
                cells = text("[\(figures.count) figures]")
            }
        } else {
            let members = figures.sorted { $0.id < $1.id }
            if cluster.sharesBrackets {
                // One kind of corner: shared brackets, numbers joined by "+".
                let (open, close) = brackets(members[0])
                let color = members.count == 1 ? members[0].color : nil
                cells = text(open, color)
                for (index, figure) in members.enumerated() {
                    if index > 0 { cells += text("+") }
                    cells += number(figure)
                }
                cells += text(close, color)
            } else {
                // Mixed corners: each figure keeps its own brackets.
                cells = []
                for (index, figure) in members.enumerated() {
                    if index > 0 { cells += text("+") }
                    let (open, close) = brackets(figure)
                    cells += text(open, figure.color) + number(figure) + text(close, figure.color)
                }
            }
        }
        layoutSteps += cells.count
        return cells
    }

    // MARK: Colour

    /// The SGR parameters of a colour: standard ANSI colours, 256-colour orange. Black is drawn in
    /// the terminal's own text colour, which is black on a light background and stays readable on
    /// a dark one.
    static func ansi(_ color: FigureColor) -> String? {
        switch color {
        case .black: nil
        case .red: "31"
        case .green: "32"
        case .yellow: "33"
        case .blue: "34"
        case .purple: "35"
        case .orange: "38;5;208"
        }
    }

    /// A row of cells as text, with an escape sequence where the colour changes.
    static func render(_ cells: [Cell], colored: Bool) -> String {
        guard colored else { return String(cells.map(\.character)) }
        var result = ""
        var current: String?
        for cell in cells {
            let code = cell.color.flatMap(ansi)
            if code != current {
                if current != nil { result += "\u{1B}[0m" }
                if let code { result += "\u{1B}[\(code)m" }
                current = code
            }
            result.append(cell.character)
        }
        if current != nil { result += "\u{1B}[0m" }
        return result
    }
}
