/// A position on the board, in board units.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    /// Horizontal position, 0 at the left edge.
    public var x: Double
    /// Vertical position, 0 at the top edge.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// "(10.0, 20.0)", the form the action names use.
    public var description: String { "(\(x), \(y))" }
}

/// The colours a figure can have.
public enum FigureColor: String, CaseIterable, Sendable {
    case black, red, green, blue, yellow, orange, purple
}
