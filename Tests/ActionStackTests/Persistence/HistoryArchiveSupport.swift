// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

// Commands, histories and helpers shared by the history archive's tests.

/// A figure that the test commands change.
final class ArchiveFigure {
    var x = 0.0
    var y = 0.0
    var title = ""
}

/// A move: the smallest kind of command, two numbers.
struct MoveFigure: UndoCommand, Equatable {
    static let commandType = "test.move"
    var x: Double
    var y: Double

    func perform(on figure: ArchiveFigure, in stack: ActionStack) {
        stack.registerUndo(MoveFigure(x: figure.x, y: figure.y), on: figure, key: "figure")
        figure.x = x
        figure.y = y
    }
}

/// A rename at version 2. Version 1 stored `{"name": ...}`; version 2 stores the title and whether
/// it is all capitals, and reads version 1 through ``migrate(from:decoder:)``.
struct RenameFigure: UndoCommand, Equatable {
    static let commandType = "test.rename"
    static let version = 2
    var title: String
    var isCapitals: Bool

    func perform(on figure: ArchiveFigure, in stack: ActionStack) {
        stack.registerUndo(
            RenameFigure(title: figure.title, isCapitals: figure.title == figure.title.uppercased()), on: figure,
            key: "figure")
        figure.title = title
    }

    /// Version 1's encoded form.
    struct Version1: Codable {
        var name: String
    }

    struct UnknownVersion: Error {
        var version: Int
    }

    static func migrate(from version: Int, decoder: any Decoder) throws -> RenameFigure {
        guard version == 1 else { throw UnknownVersion(version: version) }
        let old = try Version1(from: decoder)
        return RenameFigure(title: old.name, isCapitals: old.name == old.name.uppercased())
    }
}

/// A command with a nested payload: arrays, objects, strings, optionals.
struct ReplaceText: UndoCommand, Equatable {
    static let commandType = "test.replace"
    struct Edit: Codable, Equatable {
        var range: [Int]
        var text: String
        var note: String?
    }
    var edits: [Edit]
    var attributes: [String: Int]

    func perform(on figure: ArchiveFigure, in stack: ActionStack) {
        stack.registerUndo(ReplaceText(edits: [], attributes: [:]), on: figure, key: "figure")
        figure.title = edits.map(\.text).joined()
    }
}

/// A command whose decoding always fails.
struct UnreadableCommand: UndoCommand {
    static let commandType = "test.unreadable"

    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused on purpose" }
    }

    init() {}

    init(from decoder: any Decoder) throws { throw Refused() }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("anything")
    }

    func perform(on figure: ArchiveFigure, in stack: ActionStack) {}
}

/// The registry every test of the persistent history reads with: every shared test command, the
/// renames and version 1 forms with their migrations, the random drivers' commands and the shared
/// text's. The command types of each family are prefixed (`test.`, `hs.`, `hr.`, `rp.`,
/// `driver.`), so a type a test names as unknown is no family's.
///
/// It lives here, in the test target, rather than in the shared test-support target: the commands
/// it registers are this target's own fixtures (the figure, the box, the document, the drivers'
/// targets, the shared text), and moving them out would move their models with them.
func testRegistry() -> CommandRegistry {
    var registry = CommandRegistry()
    // The figure's commands (this file).
    registry.register(MoveFigure.self)
    registry.register(RenameFigure.self, migrating: RenameFigure.migrate(from:decoder:))
    registry.register(ReplaceText.self)
    registry.register(UnreadableCommand.self)
    // The box's commands (BoxCommands.swift) and the recorder's gated one (RecorderSupport.swift).
    registry.register(HSSet.self)
    registry.register(HSMark.self)
    registry.register(HSCostly.self)
    registry.register(HSNoop.self)
    registry.register(HSClosureInverse.self)
    registry.register(HSAsyncSet.self)
    registry.register(HSV2.self) { fromVersion, decoder in
        let old = try HSV1Form(from: decoder)
        guard let value = Int(old.v) else { throw HSMigrationFailed() }
        return HSV2(value: value)
    }
    registry.register(RPGatedSet.self)
    // The document's commands (DocCommands.swift).
    registry.register(HRSet.self)
    registry.register(HRCostly.self)
    registry.register(HRTyping.self)
    registry.register(HRAsyncSet.self)
    registry.register(HRBag.self)
    // The random drivers' commands (RandomDriver+Persistence.swift, JournalAsyncReplayTests.swift).
    registry.register(DriverAddCommand.self)
    registry.register(DriverAsyncAddCommand.self)
    // The shared text's command (SharedTextModel.swift).
    registry.register(TextCommand.self)
    return registry
}

/// A step, with the defaults of a linear history.
func savedStep(
    _ node: Int, parent: Int? = nil, redo: Bool = true, date: Date? = nil, name: String = "Move",
    discardable: Bool = false, userInfo: [String: SavedValue] = [:], actions: [SavedAction]
) -> SavedStep {
    SavedStep(
        node: node, parent: parent ?? node - 1, isRedoChoice: redo, date: date, actionName: name,
        isDiscardable: discardable, userInfo: userInfo, actions: actions)
}

/// A linear history of `count` moves, the current node at `current` (default: the last).
func linearHistory(_ count: Int, current: Int? = nil, clean: Int? = nil, key: String = "figure") -> SavedHistory {
    let steps = (0..<count).map { index in
        savedStep(index + 1, actions: [SavedAction(MoveFigure(x: Double(index), y: Double(index) / 4), key: key)])
    }
    return SavedHistory(shape: .linear, root: 0, current: current ?? count, clean: clean, steps: steps)
}

/// A tree with every field in use: dates, branches, redo choices, names shared and not, user info
/// of every kind, costs, discardable steps, several commands per step and several keys.
///
///     0 ─ 1 ─ 2 ─ 3
///          └─ 4 ─ 5      (the redo choice at 1 is 4; current 5, clean 2)
///     0 ─ 6
func richTree() -> SavedHistory {
    let base = Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7)
    let userInfo: [String: SavedValue] = [
        "string": .string("a \"quoted\" / slashed \\ line\nwith ü and 🙂"),
        "int": .int(Int.min),
        "double": .double(-0.0),
        "bool": .bool(true),
        "date": .date(Date(timeIntervalSinceReferenceDate: -1e9 / 3)),
        "data": .data(Data([0, 1, 2, 254, 255])),
        "": .string(""),
    ]
    let edit = ReplaceText(
        edits: [.init(range: [1, 4], text: "new", note: nil), .init(range: [0, 0], text: "", note: "é")],
        attributes: ["b": 2, "a": 1, "ab": 3])
    return SavedHistory(
        shape: .tree, root: 0, current: 5, clean: 2,
        steps: [
            savedStep(
                1, parent: 0, redo: true, date: base, name: "Move",
                actions: [
                    SavedAction(MoveFigure(x: 1.5, y: -2), key: "figure-1"),
                    SavedAction(MoveFigure(x: 0.1, y: 1e-300), key: "figure-2", cost: 7),
                ]),
            savedStep(
                2, parent: 1, redo: false, date: base.addingTimeInterval(0.001), name: "Rename",
                actions: [SavedAction(RenameFigure(title: "Title", isCapitals: false), key: "figure-1")]),
            savedStep(
                3, parent: 2, redo: true, date: base.addingTimeInterval(1), name: "Move", discardable: true,
                actions: [SavedAction(MoveFigure(x: 3, y: 3), key: "figure-2")]),
            savedStep(
                4, parent: 1, redo: true, date: base.addingTimeInterval(2), name: "Edit", userInfo: userInfo,
                actions: [SavedAction(edit, key: "figure-3", cost: Int.max)]),
            savedStep(
                5, parent: 4, redo: true, date: nil, name: "",
                actions: [SavedAction(MoveFigure(x: 5, y: 5), key: "figure-1")]),
            savedStep(
                6, parent: 0, redo: false, date: base.addingTimeInterval(3), name: "Move",
                actions: [SavedAction(MoveFigure(x: 6, y: 6), key: "figure-1")]),
        ])
}

/// Everything observable about a history, as text, so that two histories can be compared (the
/// saved values are not Equatable: they hold commands as existentials).
func dump(_ history: SavedHistory) -> String {
    var lines = [
        "\(history.shape) root \(history.root) current \(history.current) clean \(String(describing: history.clean))"
            + " rootDate \(history.rootDate.map { "\($0.timeIntervalSinceReferenceDate.bitPattern)" } ?? "nil")"
            + " omitted \(history.omissions.map { "\($0.reason.rawValue)/\($0.steps)/\($0.stepName ?? "nil")" })"
    ]
    for step in history.steps {
        let date = step.date.map { "\($0.timeIntervalSinceReferenceDate.bitPattern)" } ?? "nil"
        let userInfo = step.userInfo.sorted { $0.key < $1.key }.map { "\($0.key)=\(dump($0.value))" }
        lines.append(
            "step \(step.node) <- \(step.parent) redo \(step.isRedoChoice) date \(date) name \(step.actionName) "
                + "discardable \(step.isDiscardable) userInfo \(userInfo)")
        for action in step.actions {
            let command = action.command.map(canonicalJSON) ?? "nil"
            lines.append(
                "  \(action.commandType) v\(action.version) key \(action.key) cost \(action.cost) command \(command) "
                    + "problem \(action.problem.map(\.description) ?? "nil")")
        }
    }
    return lines.joined(separator: "\n")
}

/// A command as JSON with sorted keys: the same for equal commands, whatever the order of their
/// dictionaries.
func canonicalJSON(_ command: any SavableCommand) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return "\(type(of: command))" + ((try? encoder.encode(command)).map { String(decoding: $0, as: UTF8.self) } ?? "?")
}

/// A user-info value as text, with doubles and dates by their bits (so -0.0 differs from 0.0).
func dump(_ value: SavedValue) -> String {
    switch value {
    case .double(let value): "double(\(value.bitPattern))"
    case .date(let value): "date(\(value.timeIntervalSinceReferenceDate.bitPattern))"
    default: "\(value)"
    }
}

/// Every history of an archive, by name.
func dump(_ archive: HistoryArchive) -> String {
    "fingerprint \(archive.fingerprint)\n"
        + archive.histories.sorted { $0.key < $1.key }.map { "[\($0.key)]\n\(dump($0.value))" }.joined(separator: "\n")
}

/// Reads `json` with the test registry: the archive, or the error reading threw.
func decoded(_ json: String, limits: HistoryArchive.Limits = .default) -> Result<HistoryArchive, HistoryArchiveError> {
    decodedArchive(json, registry: testRegistry(), limits: limits)
}

/// Reads `data` with the test registry: the archive, or the error reading threw.
func decoded(_ data: Data, limits: HistoryArchive.Limits = .default) -> Result<HistoryArchive, HistoryArchiveError> {
    decodedArchive(data, registry: testRegistry(), limits: limits)
}

/// Reads `json` with the test registry, returning the error it throws (nil when it reads).
func archiveError(_ json: String, limits: HistoryArchive.Limits = .default) -> HistoryArchiveError? {
    decoded(json, limits: limits).failureValue
}

/// Reads `data` with the test registry, returning the error it throws (nil when it reads).
func archiveError(_ data: Data, limits: HistoryArchive.Limits = .default) -> HistoryArchiveError? {
    decoded(data, limits: limits).failureValue
}

/// Whether `error` is a ``HistoryArchiveError/corrupt(_:)`` whose reason contains `text`.
func isCorrupt(_ error: HistoryArchiveError?, _ text: String = "") -> Bool {
    guard let reason = error?.corruption else { return false }
    return text.isEmpty || reason.contains(text)
}

/// A one-history archive around `history`, a JSON object literal of a history.
func archiveJSON(history: String, version: String = "1", format: String = #""ActionStack.History""#) -> String {
    #"{"fingerprint":"f","format":\#(format),"histories":{"h":\#(history)},"version":\#(version)}"#
}

/// A version 2 archive around `history`, a JSON object literal of one history named "h".
func archive2(_ history: String, fingerprint: String = #""f""#) -> String {
    #"{"format":"ActionStack.History","version":2,"fingerprint":\#(fingerprint),"histories":{"h":\#(history)}}"#
}
