/// Draws the board as a small text picture: each figure is a box with its number inside, placed
/// at its position (one column per 2 units, one row per 4 units).
@MainActor
enum BoardPicture {
    static let columns = Int(Board.width / 2) + 1
    static let rows = Int(Board.height / 4) + 1

    static func draw(_ board: Board, selected: Int?) -> [String] {
        var grid = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
        for figure in board.figures {
            let column = Int((figure.position.x / 2).rounded())
            let row = Int((figure.position.y / 4).rounded())
            // Rounded corners are drawn with parentheses, sharp ones with brackets; the selected
            // figure is marked with a star.
            let (open, close): (Character, Character) = figure.cornerRadius > 0 ? ("(", ")") : ("[", "]")
            let label = Array("\(open)\(figure.id == selected ? "*" : "")\(figure.id)\(close)")
            for (offset, character) in label.enumerated() where column + offset < columns {
                grid[row][column + offset] = character
            }
        }
        let border = "+" + String(repeating: "-", count: columns) + "+"
        return [border] + grid.map { "|" + String($0) + "|" } + [border]
            + [
                board.figures.isEmpty
                    ? "figures: none" : "figures: " + board.figures.map(describe).joined(separator: ", ")
            ]
    }

    static func describe(_ figure: Figure) -> String {
        "#\(figure.id) \(figure.position) \(figure.color.rawValue) r=\(figure.cornerRadius)"
    }
}
