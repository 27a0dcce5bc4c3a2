// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation
import Testing

/// The Reentrancy article prints the re-entrancy table in full; this keeps it the table the code
/// has (`ReentrancyTableTests` checks that the code behaves as its table says).
struct ReentrancyArticleTests {
    typealias Activity = ActionStack.Misuse.Activity
    typealias Operation = ActionStack.Misuse.Operation

    /// The column names: the activities' case names (their descriptions are sentences).
    static let columns: [Activity: String] = [
        .undoing: "undoing", .redoing: "redoing", .notifyingUndo: "notifyingUndo", .notifyingRedo: "notifyingRedo",
        .closingGroup: "closingGroup", .openingGroup: "openingGroup", .rollingBack: "rollingBack",
        .preparingUndo: "preparingUndo", .preparingRedo: "preparingRedo", .jumping: "jumping",
        .closingScope: "closingScope",
    ]

    /// The article's table: for each operation (by its Swift spelling), the activities in the
    /// header's order and whether each allows it.
    static func articleTable() throws -> (activities: [String], rows: [String: [Bool]]) {
        let text = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/ActionStack/ActionStack.docc/Reentrancy.md").standardized,
            encoding: .utf8
        )
        func cells(_ line: Substring) -> [String] {
            line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
        }
        let lines = text.split(separator: "\n")
        let header = try #require(lines.first { $0.hasPrefix("| call | `") }, "the table's header")
        let activities = Array(cells(header).dropFirst())
        var rows: [String: [Bool]] = [:]
        for line in lines where line.hasPrefix("| `") && (line.contains("✓") || line.contains("✗")) {
            let row = cells(line)
            rows[row[0]] = row.dropFirst().map { $0 == "✓" }
        }
        return (activities, rows)
    }

    @Test func theArticlePrintsTheTableTheCodeHas() throws {
        let table = try Self.articleTable()
        #expect(Self.columns.count == Activity.allCases.count)
        #expect(Set(table.activities) == Set(Self.columns.values), "one column per activity")
        #expect(Set(table.rows.keys) == Set(Operation.allCases.map(\.rawValue)), "one row per operation")
        for operation in Operation.allCases {
            guard let row = table.rows[operation.rawValue], row.count == table.activities.count else {
                Issue.record("the row of \(operation) is missing or has the wrong number of cells")
                continue
            }
            for (index, name) in table.activities.enumerated() {
                guard let activity = Self.columns.first(where: { $0.value == name })?.key else { continue }
                #expect(
                    row[index] == ActionStack._allows(operation, during: activity),
                    "\(operation) during \(activity)"
                )
            }
        }
    }
}
