/// Draws the board as a small text picture, one column per 2 units and one row per 4 units.
///
/// Each figure is a label centred on its position: `[3]` for square corners, `(3)` for rounded
/// ones, `[*3]` when it is selected. A label always lies wholly inside the frame: near an edge it
/// is shifted inwards. Labels that would overlap are merged into one that counts every figure in
/// it, `[1+2]` (or `[1]+(2)` when their corners differ), so no figure hides another; the selected
/// one keeps its star. With colour on, each figure's number is drawn in its colour.
@MainActor
enum BoardPicture {
    static let columns = Int(Board.width / 2) + 1
    static let rows = Int(Board.height / 4) + 1

    /// One character of the picture, and the colour it is drawn in (`nil`: the terminal's own).
    struct Cell {
        var character: Character
        var color: FigureColor?
    }

    /// Figures whose labels are drawn as one, and the column their label is centred on.
    struct Cluster {
        var members: [Figure]
        /// The mean of the members' columns.
        var centre: Double
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
        let legend =
            board.figures.isEmpty
            ? "figures: none"
            : "figures: " + board.figures.map { describe($0, colored: colored) }.joined(separator: ", ")
        return [border] + grid.map { "|" + render($0, colored: colored) + "|" } + [border, legend]
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
    static func place(_ figures: [Figure], selected: Int?) -> [(start: Int, label: [Cell])] {
        var clusters = figures.map { Cluster(members: [$0], centre: Double(column(of: $0))) }
        while true {
            clusters.sort { $0.centre < $1.centre }
            let placed = clusters.map { cluster in
                let text = label(cluster.members, selected: selected)
                return (start: start(of: text.count, centredOn: cluster.centre), label: text)
            }
            // Merge the first pair that overlaps (touching is fine: "[1][2]" reads well), then
            // place again: the merged label is wider and may now reach a neighbour.
            guard
                let index = placed.indices.dropFirst().first(where: { i in
                    placed[i].start < placed[i - 1].start + placed[i - 1].label.count
                })
            else { return placed }
            let members = clusters[index - 1].members + clusters[index].members
            let centre = members.map { Double(column(of: $0)) }.reduce(0, +) / Double(members.count)
            clusters[index - 1] = Cluster(members: members, centre: centre)
            clusters.remove(at: index)
        }
    }

    /// Where a label `width` wide starts when centred on `centre`, shifted to lie inside the frame.
    static func start(of width: Int, centredOn centre: Double) -> Int {
        let ideal = Int((centre - Double(width - 1) / 2).rounded(.down))
        return max(0, min(columns - width, ideal))
    }

    /// The label of a group of figures: `[*1]`, `(2)`, `[1+*2]`, `[1]+(2)`, or, when it would not
    /// fit in the frame, a count that still names the selected figure: `[*4 and 17 more]`.
    static func label(_ figures: [Figure], selected: Int?) -> [Cell] {
        let members = figures.sorted { $0.id < $1.id }
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
        if Set(members.map { brackets($0).open }).count == 1 {
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
        guard cells.count > columns else { return cells }
        if let chosen = members.first(where: { $0.id == selected }) {
            return text("[") + number(chosen) + text(" and \(members.count - 1) more]")
        }
        return text("[\(members.count) figures]")
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
