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
    typealias Activity = ActionStack.ActivityKey
    typealias Operation = ActionStack.OperationKey

    /// The column names: the table's activity keys by case name (the public values' descriptions
    /// are sentences).
    static let columns: [Activity: String] = [
        .undoing: "undoing", .redoing: "redoing", .notifyingUndo: "notifyingUndo", .notifyingRedo: "notifyingRedo",
        .closingGroup: "closingGroup", .openingGroup: "openingGroup", .rollingBack: "rollingBack",
        .preparingUndo: "preparingUndo", .preparingRedo: "preparingRedo", .jumping: "jumping",
        .closingScope: "closingScope", .applyingRemoteChange: "applyingRemoteChange",
    ]

    /// The article's table: for each operation (by its Swift spelling), the activities (by column
    /// name) that allow it and those that refuse it. A cell lists activities, or says "every
    /// activity" or "none".
    static func articleTable() throws -> [String: (allowed: Set<String>, refused: Set<String>)] {
        let text = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../../Sources/ActionStack/ActionStack.docc/Reentrancy.md").standardized,
            encoding: .utf8
        )
        func cells(_ line: Substring) -> [String] {
            line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        func activities(_ cell: String) -> Set<String> {
            switch cell {
            case "every activity": return Set(columns.values)
            case "none": return []
            default:
                return Set(
                    cell.split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                    })
            }
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(
            lines.firstIndex { $0 == "| call | allowed during | refused during |" }, "the table's header")
        var rows: [String: (allowed: Set<String>, refused: Set<String>)] = [:]
        for line in lines[(header + 2)...].prefix(while: { $0.hasPrefix("| `") }) {
            let row = cells(line)
            guard row.count == 3 else {
                Issue.record("a row of the table does not have three cells: \(line)")
                continue
            }
            let operation = row[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            rows[operation] = (activities(row[1]), activities(row[2]))
        }
        return rows
    }

    @Test func theArticlePrintsTheTableTheCodeHas() throws {
        let table = try Self.articleTable()
        let all = Set(Self.columns.values)
        #expect(Self.columns.count == Activity.allCases.count)
        #expect(Set(table.keys) == Set(Operation.allCases.map(\.reported.rawValue)), "one row per operation")
        for operation in Operation.allCases {
            guard let row = table[operation.reported.rawValue] else {
                Issue.record("the row of \(operation) is missing")
                continue
            }
            #expect(row.allowed.isDisjoint(with: row.refused), "\(operation): an activity both allows and refuses it")
            #expect(row.allowed.union(row.refused) == all, "\(operation): every activity, once")
            for (activity, name) in Self.columns {
                #expect(
                    row.allowed.contains(name) == ActionStack._allows(operation, during: activity),
                    "\(operation) during \(activity)"
                )
            }
        }
    }
}
