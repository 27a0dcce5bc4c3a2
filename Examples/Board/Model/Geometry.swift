// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// A position on the board, in board units.
public struct Point: Hashable, Sendable, Codable, CustomStringConvertible {
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

    /// The point moved by `dx` and `dy`, rounded to hundredths.
    ///
    /// The board takes at most two decimals, and rounding the sum keeps it that way: without it,
    /// nudging by 0.1 three times would end at 0.30000000000000004, and the step would be called
    /// "Move to (0.30000000000000004, ...)".
    public func offset(by dx: Double, _ dy: Double) -> Point {
        Point(x: Point.hundredths(x + dx), y: Point.hundredths(y + dy))
    }

    /// `value` rounded to the nearest hundredth.
    static func hundredths(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }
}

/// The colours a figure can have.
public enum FigureColor: String, CaseIterable, Sendable, Codable {
    case black, red, green, blue, yellow, orange, purple

    /// The names, as `help` and error messages list them: "black, red, ...".
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
