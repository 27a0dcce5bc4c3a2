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

/// The Misuse article lists every misuse the library reports; this keeps the list and the code in
/// step, so that a new kind of misuse cannot be added without its row (what was called, why it is
/// refused, what changes, what to do instead).
struct MisuseArticleTests {
    /// The article's table of misuses: for each row, its first cell (the misuse's symbol link)
    /// and its cells.
    static func articleRows() throws -> [(link: String, cells: [String])] {
        let text = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../../Sources/ActionStack/ActionStack.docc/Misuse.md").standardized,
            encoding: .utf8
        )
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(
            lines.firstIndex { $0.hasPrefix("| misuse | what was called | why it is refused | what changes |") },
            "the table's header")
        return lines[(header + 2)...].prefix(while: { $0.hasPrefix("| ``") }).map { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return (cells.first ?? "", cells)
        }
    }

    /// The name of the misuse a row's link names: "``ActionStack/ActionStack/Misuse/noOpenGroup(_:)``"
    /// names `noOpenGroup`.
    static func kindName(_ link: String) -> String? {
        let prefix = "``ActionStack/ActionStack/Misuse/"
        guard link.hasPrefix(prefix), link.hasSuffix("``") else { return nil }
        let symbol = link.dropFirst(prefix.count).dropLast(2)
        return String(symbol.prefix { $0 != "(" })
    }

    @Test func theArticleHasARowForEveryKindOfMisuse() throws {
        let rows = try Self.articleRows()
        let named = rows.compactMap { Self.kindName($0.link) }
        #expect(named.count == rows.count, "every row names a misuse: \(rows.map(\.link))")
        #expect(Set(named).count == named.count, "no misuse twice: \(named)")
        let kinds = ActionStack.Misuse.Kind.allCases.map(\.description)
        #expect(kinds.count == 12, "the kinds this version reports")
        for kind in kinds {
            #expect(named.contains(kind), "the article lists \(kind)")
        }
        for name in named {
            #expect(kinds.contains(name), "the article lists \(name), which the library does not report")
        }
    }

    @Test func everyRowSaysWhatWasCalledWhyWhatChangesAndWhatToDoInstead() throws {
        for row in try Self.articleRows() {
            #expect(row.cells.count == 5, "\(row.link): five cells")
            #expect(row.cells.allSatisfy { !$0.isEmpty }, "\(row.link): no empty cell")
            if row.cells.count == 5 {
                #expect(row.cells[3].hasPrefix("nothing"), "\(row.link): a refused call changes nothing")
            }
        }
    }

    /// The link of each row is the symbol of the misuse's static member: its name and, for a misuse
    /// that carries values, its argument labels.
    @Test func everyRowLinksTheMisusesStaticMember() throws {
        let links = Set(try Self.articleRows().map(\.link))
        let members: [ActionStack.Misuse.Kind: String] = [
            .endWithoutBegin: "endWithoutBegin", .enableWithoutDisable: "enableWithoutDisable",
            .nestedGroupsOpen: "nestedGroupsOpen(_:groupingLevel:)",
            .undoNestedGroupWithOpenGroup: "undoNestedGroupWithOpenGroup", .redoWhileUndoing: "redoWhileUndoing",
            .noOpenGroup: "noOpenGroup(_:)", .reentrantCall: "reentrantCall(_:during:)",
            .awaitsOwnOperation: "awaitsOwnOperation(_:)", .stepIsBroken: "stepIsBroken(_:)",
            .needsAwait: "needsAwait(_:)", .notWhileAsync: "notWhileAsync(_:)",
            .historyNotEmpty: "historyNotEmpty(_:)",
        ]
        for kind in ActionStack.Misuse.Kind.allCases {
            guard let member = members[kind] else {
                Issue.record("a new kind of misuse, \(kind): name its static member here and in the article")
                continue
            }
            #expect(links.contains("``ActionStack/ActionStack/Misuse/\(member)``"), "\(kind)")
        }
    }
}
