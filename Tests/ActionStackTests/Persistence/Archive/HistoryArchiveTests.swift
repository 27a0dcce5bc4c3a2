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

/// The history archive's format: round trips, stable bytes, the commands' problems, migration.
struct HistoryArchiveTests {
    /// Encodes, reads back, encodes again: the same bytes, and the same histories.
    private func roundTrip(_ archive: HistoryArchive) throws -> HistoryArchive {
        let data = try archive.encoded()
        let decoded = try HistoryArchive(decoding: data, registry: testRegistry())
        #expect(dump(decoded) == dump(archive))
        let again = try decoded.encoded()
        #expect(again == data, "re-encoding a decoded archive gives the same bytes")
        return decoded
    }

    @Test func aLinearHistoryRoundTrips() throws {
        let archive = HistoryArchive(
            fingerprint: "sha256:abc", histories: ["board": linearHistory(50, current: 30, clean: 12)])
        let decoded = try roundTrip(archive)
        let history = try #require(decoded.histories["board"])
        #expect(history.steps.count == 50)
        #expect(history.current == 30)
        #expect(history.clean == 12)
        #expect(history.steps[7].actions[0].command as? MoveFigure == MoveFigure(x: 7, y: 1.75))
        #expect(history.steps.allSatisfy { $0.actions.allSatisfy { $0.problem == nil } })
    }

    @Test func aTreeWithEveryFieldRoundTrips() throws {
        let archive = HistoryArchive(fingerprint: "rev 7", histories: ["board": richTree()])
        let decoded = try roundTrip(archive)
        let history = try #require(decoded.histories["board"])
        #expect(history.shape == .tree)
        #expect(history.steps.map(\.node) == [1, 2, 3, 4, 5, 6])
        #expect(history.steps.map(\.parent) == [0, 1, 2, 1, 4, 0])
        #expect(history.steps.map(\.isRedoChoice) == [true, false, true, true, true, false])
        #expect(history.steps[4].date == nil)
        #expect(history.steps[0].date == Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7))
        #expect(history.steps[2].isDiscardable)
        #expect(history.steps[0].actions[1].cost == 7)
        #expect(history.steps[3].actions[0].cost == Int.max)
        #expect(history.steps[3].userInfo["data"] == .data(Data([0, 1, 2, 254, 255])))
        #expect(history.steps[3].userInfo["int"] == .int(Int.min))
        #expect(history.steps[4].actionName == "")
        let edit = try #require(history.steps[3].actions[0].command as? ReplaceText)
        #expect(edit.attributes == ["a": 1, "ab": 3, "b": 2])
        #expect(edit.edits[1].note == "é")
    }

    @Test func severalHistoriesAndAnEmptyOneRoundTrip() throws {
        var histories: [String: SavedHistory] = ["board": richTree()]
        for index in 0..<20 { histories["figure.\(index)"] = linearHistory(index, key: "figure-\(index)") }
        histories["empty"] = SavedHistory(shape: .tree, root: 4, current: 4, clean: nil, steps: [])
        let decoded = try roundTrip(HistoryArchive(fingerprint: "", histories: histories))
        #expect(decoded.histories.count == 22)
        #expect(decoded.histories["empty"]?.root == 4)
        #expect(decoded.histories["figure.19"]?.steps.count == 19)
    }

    /// Dictionary order changes from one dictionary to the next (and from one process to the
    /// next); the bytes never do.
    @Test func encodingIsTheSameWhateverTheDictionaryOrder() throws {
        var histories: [String: SavedHistory] = [:]
        for index in 0..<30 { histories["h\(index)"] = index.isMultiple(of: 2) ? richTree() : linearHistory(3) }
        let first = try HistoryArchive(fingerprint: "f", histories: histories).encoded()
        for round in 0..<10 {
            // A new dictionary, filled in another order: another iteration order.
            var shuffled: [String: SavedHistory] = [:]
            var generator = SeededGenerator(seed: UInt64(round))
            for (key, value) in histories.shuffled(using: &generator) { shuffled[key] = value }
            #expect(try HistoryArchive(fingerprint: "f", histories: shuffled).encoded() == first)
        }
    }

    /// Dates are written as the double of `timeIntervalSinceReferenceDate`, and read back to the
    /// same bits, for any finite value.
    @Test func datesRoundTripExactly() throws {
        var generator = SeededGenerator(seed: 20)
        var steps: [SavedStep] = []
        var userInfo: [String: SavedValue] = [:]
        var seconds: [Double] = [
            0, -0.0, Double(bitPattern: 1_000), -1e300, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
        ]
        while seconds.count < 300 {
            let value = Double(bitPattern: generator.next())
            if value.isFinite { seconds.append(value) }
        }
        for (index, value) in seconds.enumerated() {
            let date = Date(timeIntervalSinceReferenceDate: value)
            userInfo["d\(index)"] = .date(date)
            userInfo["x\(index)"] = .double(value)
            steps.append(
                savedStep(
                    index + 1, parent: index, date: date, actions: [SavedAction(MoveFigure(x: value, y: 0), key: "k")]))
        }
        steps[0].userInfo = userInfo
        let history = SavedHistory(shape: .tree, root: 0, current: 0, clean: nil, steps: steps)
        let decoded = try roundTrip(HistoryArchive(fingerprint: "f", histories: ["h": history]))
        let read = try #require(decoded.histories["h"]).steps
        #expect(read.map { $0.date!.timeIntervalSinceReferenceDate.bitPattern } == seconds.map(\.bitPattern))
    }

    /// The exact bytes of a small archive: the format of version 2, which files already written
    /// depend on. A change here is a change of the format (raise its version).
    @Test func theFormatIsPinned() throws {
        let archive = Self.pinnedArchive
        let expected =
            #"{"format":"ActionStack.History","version":2,"fingerprint":"rev-42","histories":{"board":{"#
            + #""shape":"linear","root":0,"current":2,"clean":1,"#
            + #""commands":[["test.move",1,"F1"],["test.rename",2,"F1"],["test.move",1,"F2"]],"#
            + #""names":["Move","Rename"],"#
            + #""steps":[{"a":1,"n":0},{"a":1,"n":1},{"a":1,"n":0,"d":0.5,"userInfo":{"source":{"string":"drag"}}},1],"#
            + #""actions":[0,1,2,2],"costs":[[2,3]],"#
            + #""payloads":[{"x":10,"y":20},{"isCapitals":true,"title":"A/B"},{"x":0,"y":5},{"x":1,"y":1}]}}}"#
        #expect(String(decoding: try archive.encoded(), as: UTF8.self) == expected)
        _ = try roundTrip(archive)
    }

    /// The same archive in version 1 of the format, which earlier builds wrote: it still reads, to
    /// the same histories.
    @Test func aVersionOneArchiveReadsToTheSameHistories() throws {
        let versionOne =
            #"{"fingerprint":"rev-42","format":"ActionStack.History","histories":{"board":{"clean":1,"#
            + #""commands":[["test.move",1],["test.rename",2]],"current":2,"keys":["F1","F2"],"#
            + #""names":["Move","Rename"],"#
            + #""root":0,"shape":"linear","steps":[{"a":[[0,0,{"x":10,"y":20}]],"n":0},"#
            + #"{"a":[[1,0,{"isCapitals":true,"title":"A/B"}]],"n":1},"#
            + #"{"a":[[0,1,{"x":0,"y":5},3]],"d":0.5,"n":0,"userInfo":{"source":{"string":"drag"}}},"#
            + #"{"a":[[0,1,{"x":1,"y":1}]]}]}},"version":1}"#
        let read = try HistoryArchive(decoding: Data(versionOne.utf8), registry: testRegistry())
        #expect(dump(read) == dump(Self.pinnedArchive))
        // Written again, it is a version 2 file.
        #expect(try read.encoded() == Self.pinnedArchive.encoded())
    }

    static let pinnedArchive: HistoryArchive = {
        let steps = [
            savedStep(1, actions: [SavedAction(MoveFigure(x: 10, y: 20), key: "F1")]),
            savedStep(
                2, name: "Rename", actions: [SavedAction(RenameFigure(title: "A/B", isCapitals: true), key: "F1")]),
            savedStep(
                3, date: Date(timeIntervalSinceReferenceDate: 0.5), name: "Move",
                userInfo: ["source": .string("drag")],
                actions: [SavedAction(MoveFigure(x: 0, y: 5), key: "F2", cost: 3)]),
            savedStep(4, name: "Move", actions: [SavedAction(MoveFigure(x: 1, y: 1), key: "F2")]),
        ]
        return HistoryArchive(
            fingerprint: "rev-42",
            histories: ["board": SavedHistory(shape: .linear, root: 0, current: 2, clean: 1, steps: steps)])
    }()

    /// What a step costs beyond its commands: a single-action step of a linear history, named as
    /// the step before it, adds 14 bytes to its command's payload (`{"a":[[0,0,…]]}`), about 1.2
    /// times the commands alone for a command of 60 bytes.
    @Test func aStepCostsLittleMoreThanItsCommands() throws {
        let count = 1_000
        let commands = (0..<count).map {
            ReplaceText(
                edits: [.init(range: [$0, $0 + 5], text: "word \($0)", note: nil)], attributes: ["bold": $0 % 2])
        }
        let steps = commands.enumerated().map { index, command in
            savedStep(index + 1, name: "Typing", actions: [SavedAction(command, key: "document")])
        }
        let archive = HistoryArchive(
            fingerprint: "f",
            histories: ["text": SavedHistory(shape: .linear, root: 0, current: count, clean: nil, steps: steps)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let alone = try encoder.encode(commands).count
        let archived = try archive.encoded().count
        let overhead = Double(archived - alone) / Double(count)
        #expect(overhead < 14.5, "bytes per step beyond the commands: \(overhead)")
        #expect(Double(archived) / Double(alone) < 1.3, "\(archived) bytes archived for \(alone) alone")
    }

    /// A registry and the bytes are values: archives read on several threads at once agree.
    @Test func archivesReadConcurrently() async throws {
        let data = try HistoryArchive(fingerprint: "f", histories: ["board": richTree(), "line": linearHistory(40)])
            .encoded()
        let registry = testRegistry()
        let dumps = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask { dump(try HistoryArchive(decoding: data, registry: registry)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(dumps.count == 8)
        #expect(Set(dumps).count == 1)
    }

    // MARK: - The registry and the actions' problems

    @Test func anUnknownTypeIsAProblemNotAnError() throws {
        var registry = CommandRegistry()
        registry.register(MoveFigure.self)
        let data = try HistoryArchive(fingerprint: "f", histories: ["board": richTree()]).encoded()
        let archive = try HistoryArchive(decoding: data, registry: registry)
        let steps = try #require(archive.histories["board"]).steps
        let rename = steps[1].actions[0]
        #expect(rename.command == nil)
        #expect(rename.problem == .unknownType("test.rename"))
        #expect(rename.commandType == "test.rename")
        #expect(rename.version == 2)
        #expect(rename.key == "figure-1")
        #expect(steps[0].actions.allSatisfy { $0.command is MoveFigure && $0.problem == nil })
        #expect(steps[3].actions[0].problem == .unknownType("test.replace"))
        #expect(steps[3].actions[0].cost == Int.max)
        // Nothing registered: every action has the problem, and the file still reads.
        let bare = try HistoryArchive(decoding: data, registry: CommandRegistry())
        #expect(try #require(bare.histories["board"]).steps.allSatisfy { $0.actions.allSatisfy { $0.command == nil } })
    }

    @Test func aNewerVersionIsAProblem() throws {
        let json = archiveJSON(
            history: #"{"commands":[["test.rename",3]],"current":1,"keys":["k"],"root":0,"shape":"linear","#
                + #""steps":[{"a":[[0,0,{"title":"x","isCapitals":false,"extra":1}]]}]}"#)
        let archive = try HistoryArchive(decoding: Data(json.utf8), registry: testRegistry())
        let action = try #require(archive.histories["h"]?.steps.first?.actions.first)
        #expect(action.problem == .newerVersion(type: "test.rename", version: 3, known: 2))
        #expect(action.command == nil)
        #expect(action.version == 3)
        #expect(testRegistry().registeredVersion(of: "test.rename") == 2)
        #expect(testRegistry().registeredVersion(of: "test.nothing") == nil)
    }

    @Test func aPayloadThatDoesNotDecodeIsAProblem() throws {
        let json = archiveJSON(
            history: #"{"commands":[["test.move",1],["test.unreadable",1],["test.rename",1]],"current":3,"#
                + #""keys":["k"],"root":0,"shape":"linear","steps":[{"a":[[0,0,{"x":"left","y":1}]]},"#
                + #"{"a":[[1,0,"anything"]]},{"a":[[2,0,{"title":"not version 1"}],[0,0,null]]}]}"#)
        let archive = try HistoryArchive(decoding: Data(json.utf8), registry: testRegistry())
        let steps = try #require(archive.histories["h"]).steps
        guard let problem = steps[0].actions[0].problem, let reason = problem.reason else {
            Issue.record("a mistyped field is a decoding failure")
            return
        }
        #expect(problem.commandType == "test.move")
        #expect(reason.contains("x"), "the reason names the field: \(reason)")
        #expect(steps[1].actions[0].problem == .decodingFailed(type: "test.unreadable", reason: "refused on purpose"))
        // The migration throws for a version-1 payload without "name".
        guard steps[2].actions[0].problem?.commandType == "test.rename",
            let migration = steps[2].actions[0].problem?.reason
        else {
            Issue.record("a migration that throws is a decoding failure")
            return
        }
        #expect(migration.contains("name"), "\(migration)")
        #expect(steps[2].actions[1].problem?.reason != nil, "a decoding failure")
        // A problem's text says what is wrong.
        #expect(
            steps[1].actions[0].problem?.description == #"command "test.unreadable" did not decode: refused on purpose"#
        )
    }

    @Test func anOlderVersionWithoutMigrationIsAProblem() throws {
        var registry = CommandRegistry()
        registry.register(RenameFigure.self)
        let archive = try HistoryArchive(decoding: Data(Self.versionOneFixture.utf8), registry: registry)
        let action = try #require(archive.histories["figure.A1"]?.steps.first?.actions.first)
        #expect(
            action.problem
                == .decodingFailed(
                    type: "test.rename",
                    reason: "version 1 is older than the registered 2, and no migration is registered"))
    }

    @Test func theLastRegistrationOfATypeNameWins() throws {
        var registry = testRegistry()
        registry.register(OtherMove.self)
        #expect(registry.registeredVersion(of: "test.move") == 5)
        let data = try HistoryArchive(fingerprint: "f", histories: ["h": linearHistory(1)]).encoded()
        let action = try #require(
            try HistoryArchive(decoding: data, registry: registry).histories["h"]?.steps[0].actions[0])
        #expect(action.problem?.description.contains("no migration") == true)
    }

    // MARK: - Migration

    /// An archive written by last year's app, whose rename command was at version 1
    /// (`{"name": ...}`). Never edit it: it stands for files that exist.
    static let versionOneFixture = """
        {"fingerprint":"doc-2025-11","format":"ActionStack.History","histories":{"figure.A1":{"clean":0,\
        "commands":[["test.rename",1],["test.move",1]],"current":2,"keys":["A1"],"names":["Rename","Move"],\
        "root":0,"shape":"linear","steps":[{"a":[[0,0,{"name":"DRAFT"}]],"n":0},\
        {"a":[[1,0,{"x":4,"y":2}],[0,0,{"name":"Final plan"}]],"d":752000000.5,"n":1}]}},"version":1}
        """

    @Test func aVersionOneFileRestoresThroughTheMigration() throws {
        let archive = try HistoryArchive(decoding: Data(Self.versionOneFixture.utf8), registry: testRegistry())
        #expect(archive.fingerprint == "doc-2025-11")
        let history = try #require(archive.histories["figure.A1"])
        #expect(history.clean == 0)
        #expect(history.current == 2)
        let first = history.steps[0].actions[0]
        #expect(first.command as? RenameFigure == RenameFigure(title: "DRAFT", isCapitals: true))
        #expect(first.version == 2, "a migrated command is at its type's version")
        #expect(first.problem == nil)
        #expect(
            history.steps[1].actions.map { $0.command.map { String(describing: $0) } ?? "nil" } == [
                String(describing: MoveFigure(x: 4, y: 2)),
                String(describing: RenameFigure(title: "Final plan", isCapitals: false)),
            ])
        #expect(history.steps[1].date == Date(timeIntervalSinceReferenceDate: 752_000_000.5))
        // Saved again, it is a version-2 file that reads without the migration.
        let upgraded = try archive.encoded()
        #expect(String(decoding: upgraded, as: UTF8.self).contains(#"["test.rename",2,"A1"]"#))
        var registry = CommandRegistry()
        registry.register(RenameFigure.self)
        registry.register(MoveFigure.self)
        let reread = try HistoryArchive(decoding: upgraded, registry: registry)
        #expect(dump(reread) == dump(archive))
    }

    @Test func aMigratedCommandPerformsAsTheCurrentVersion() throws {
        let archive = try HistoryArchive(decoding: Data(Self.versionOneFixture.utf8), registry: testRegistry())
        let command = try #require(archive.histories["figure.A1"]?.steps[0].actions[0].command as? RenameFigure)
        let figure = ArchiveFigure()
        figure.title = "before"
        let stack = makeStack()
        stack.beginUndoGrouping()
        command.perform(on: figure, in: stack)
        stack.endUndoGrouping()
        #expect(figure.title == "DRAFT")
        stack.undo()
        #expect(figure.title == "before")
    }

    // MARK: - Writing

    @Test func anActionThatWasNotReadBackCannotBeWritten() throws {
        let data = try HistoryArchive(fingerprint: "f", histories: ["h": linearHistory(2)]).encoded()
        let archive = try HistoryArchive(decoding: data, registry: CommandRegistry())
        #expect(throws: EncodingError.self) { try archive.encoded() }
    }

    @Test func writingRefusesAHistoryAStackCannotTake() throws {
        var history = linearHistory(3)
        history.steps[2].parent = 1
        let archive = HistoryArchive(fingerprint: "f", histories: ["bad": history, "good": linearHistory(1)])
        #expect(throws: HistoryArchiveError.invalidHistory("bad", .branchInLinearHistory(parent: 1))) {
            try archive.encoded()
        }
    }

    @Test func writingHoldsTheArchiveToTheLimits() throws {
        let archive = HistoryArchive(fingerprint: "f", histories: ["h": linearHistory(10)])
        #expect(throws: HistoryArchiveError.tooLarge(.steps, maximum: 9)) {
            try archive.encoded(limits: HistoryArchive.Limits(maximumSteps: 9))
        }
        #expect(throws: HistoryArchiveError.tooLarge(.bytes, maximum: 100)) {
            try archive.encoded(limits: HistoryArchive.Limits(maximumBytes: 100))
        }
        // The archive's own structure is 5 levels deep around these commands' payloads (objects).
        #expect(throws: HistoryArchiveError.tooLarge(.nestingDepth, maximum: 4)) {
            try archive.encoded(limits: HistoryArchive.Limits(maximumNestingDepth: 4))
        }
        #expect(throws: Never.self) { try archive.encoded(limits: HistoryArchive.Limits(maximumNestingDepth: 5)) }
        #expect(throws: HistoryArchiveError.tooLarge(.stringLength, maximum: 5)) {
            try HistoryArchive(fingerprint: "f", histories: ["h": linearHistory(1, key: "abcdef")])
                .encoded(limits: HistoryArchive.Limits(maximumStringLength: 5))
        }
        // The nesting the format itself takes: 7 levels around a payload, 8 with a keyed payload.
        _ = try archive.encoded(limits: HistoryArchive.Limits(maximumNestingDepth: 8))
    }

    @Test func aNonFiniteDateCannotBeWritten() throws {
        let step = savedStep(
            1, date: Date(timeIntervalSinceReferenceDate: .infinity),
            actions: [SavedAction(MoveFigure(x: 0, y: 0), key: "k")])
        let archive = HistoryArchive(
            fingerprint: "f",
            histories: ["h": SavedHistory(shape: .tree, root: 0, current: 1, clean: nil, steps: [step])])
        #expect(throws: EncodingError.self) { try archive.encoded() }
    }
}

/// Another type under the name of ``MoveFigure``, at a later version.
private struct OtherMove: UndoCommand {
    static let commandType = "test.move"
    static let version = 5
    func perform(on figure: ArchiveFigure, in stack: ActionStack) {}
}
