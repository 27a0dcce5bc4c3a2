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

/// A seeded mutation fuzzer for the archive reader, and random histories for the writer.
///
/// Every case can be replayed from its seed. `HISTORY_ARCHIVE_FUZZ_CASES` sets the number of
/// mutated inputs (default 5,000, a few seconds) and `HISTORY_ARCHIVE_FUZZ_SEED` the first seed;
/// a failure names the seed and case that found it. The coverage-guided fuzzer
/// (Scripts/fuzz-history-archive.sh) checks the same properties for as long as it is given.
struct HistoryArchiveFuzzTests {
    /// Valid archives to mutate: every part of the format, small enough that mutations hit each.
    static let seeds: [Data] = {
        var unknown = CommandRegistry()
        unknown.register(MoveFigure.self)
        var userInfoStep = savedStep(
            1, date: Date(timeIntervalSinceReferenceDate: 12.5), name: "Paste", discardable: true,
            userInfo: ["n": .int(-3), "s": .string("é\"\\"), "d": .data(Data([1, 2, 3])), "b": .bool(false)],
            actions: [SavedAction(MoveFigure(x: 1, y: 2), key: "a", cost: 2)])
        userInfoStep.userInfo["t"] = .date(Date(timeIntervalSinceReferenceDate: -0.25))
        userInfoStep.userInfo["x"] = .double(0.1)
        let archives = [
            HistoryArchive(fingerprint: "rev-1", histories: ["board": richTree()]),
            HistoryArchive(
                fingerprint: "", histories: ["a": linearHistory(3, clean: 1), "b": linearHistory(1, key: "b")]),
            HistoryArchive(
                fingerprint: "f",
                histories: ["u": SavedHistory(shape: .linear, root: 0, current: 1, clean: 0, steps: [userInfoStep])]),
            HistoryArchive(fingerprint: "empty"),
        ]
        var seeds = archives.map { try! $0.encoded() }
        seeds.append(Data(HistoryArchiveTests.versionOneFixture.utf8))
        return seeds
    }()

    /// Replaces, inserts, deletes, duplicates, splices and truncates bytes, and swaps numbers and
    /// strings for ones that stress the reader.
    static func mutate(_ input: Data, using generator: inout SeededGenerator) -> Data {
        var bytes = [UInt8](input)
        let interesting = Array(#"{}[]":,-.0129eE\utfn "#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        let numbers = [
            "-1", "0", "1", "2", "-0", "1.5", "1e2", "1e999", "-1e999", "9223372036854775807", "9223372036854775808",
            "-9223372036854775809", "4294967296", "0.0000001",
        ]
        let strings = [
            #""""#, #""test.move""#, #""test.rename""#, #""linear""#, #""tree""#, #""\u0000""#, #""\ud800""#, "\"é\"",
        ]
        for _ in 0..<generator.int(1...3) {
            guard !bytes.isEmpty else { break }
            let at = generator.int(0...bytes.count - 1)
            let length = min(generator.int(1...16), bytes.count - at)
            switch generator.int(0...9) {
            case 0:
                bytes[at] ^= UInt8(1) << UInt8(generator.int(0...7))
            case 1:
                bytes[at] = interesting[generator.int(0...interesting.count - 1)]
            case 2:
                bytes.removeSubrange(at..<at + length)
            case 3:
                bytes.insert(contentsOf: bytes[at..<at + length], at: generator.int(0...bytes.count))
            case 4:
                let other = [UInt8](seeds[generator.int(0...seeds.count - 1)])
                let from = generator.int(0...other.count - 1)
                let slice = other[from..<min(other.count, from + generator.int(1...64))]
                bytes.replaceSubrange(at..<at + length, with: slice)
            case 5:
                bytes.removeSubrange(at...)
            case 6, 7:
                // A number (the most common target: node numbers, indices, versions, costs).
                guard let start = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) else { break }
                let end = bytes[start...].firstIndex { !(0x30...0x39).contains($0) } ?? bytes.count
                let number = numbers[generator.int(0...numbers.count - 1)]
                bytes.replaceSubrange(start..<end, with: Array(number.utf8))
            case 8:
                // A string, keys included.
                guard let start = bytes[at...].firstIndex(of: UInt8(ascii: "\"")),
                    let end = bytes[(start + 1)...].firstIndex(of: UInt8(ascii: "\""))
                else { break }
                bytes.replaceSubrange(start...end, with: Array(strings[generator.int(0...strings.count - 1)].utf8))
            default:
                // Two ranges swapped: elements and fields change places.
                let other = generator.int(0...bytes.count - 1)
                let otherLength = min(length, bytes.count - other)
                guard other >= at + length || other + otherLength <= at else { break }
                let first = Array(bytes[at..<at + length])
                let second = Array(bytes[other..<other + otherLength])
                if other > at {
                    bytes.replaceSubrange(other..<other + otherLength, with: first)
                    bytes.replaceSubrange(at..<at + length, with: second)
                } else {
                    bytes.replaceSubrange(at..<at + length, with: second)
                    bytes.replaceSubrange(other..<other + otherLength, with: first)
                }
            }
        }
        return Data(bytes)
    }

    /// Reads `input` and checks what came out: a valid archive that writes to bytes that read back
    /// the same and write again to the same bytes, or an error of the reader's own type. Returns
    /// a label for the outcome.
    static func check(_ input: Data, registry: CommandRegistry, context: @autoclosure () -> String) -> String {
        let archive: HistoryArchive
        do {
            archive = try HistoryArchive(decoding: input, registry: registry)
        } catch {
            // The type is HistoryArchiveError by the signature; its text is short.
            #expect(error.description.count < 400, "\(context())")
            if error == .notAnArchive { return "not an archive" }
            if error.formatVersion != nil { return "newer" }
            if error.corruption != nil { return "corrupt" }
            if error.limit != nil { return "too large" }
            if error.structuralProblem != nil { return "invalid history" }
            if error.foundFingerprint != nil { return "another document" }
            Issue.record("an error this test does not know: \(error)")
            return "unknown"
        }
        var hasProblems = false
        for (name, history) in archive.histories {
            #expect(throws: Never.self, "\(name), \(context())") { try history.validate() }
            for step in history.steps {
                for action in step.actions {
                    #expect((action.command == nil) == (action.problem != nil), "\(context())")
                    if action.problem != nil { hasProblems = true }
                }
            }
        }
        if hasProblems {
            #expect(throws: EncodingError.self, "\(context())") { try archive.encoded() }
            return "read, with problems"
        }
        do {
            let written = try archive.encoded()
            let reread = try HistoryArchive(decoding: written, registry: registry)
            #expect(dump(reread) == dump(archive), "\(context())")
            #expect(try reread.encoded() == written, "writing is stable, \(context())")
        } catch {
            Issue.record("an archive that was read could not be written and read back: \(error), \(context())")
        }
        return "read"
    }

    static func environment(_ name: String) -> UInt64? {
        ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) }
    }

    @Test func mutatedArchivesAreReadOrRefusedNeverCrash() {
        let cases = Int(Self.environment("HISTORY_ARCHIVE_FUZZ_CASES") ?? 5_000)
        let firstSeed = Self.environment("HISTORY_ARCHIVE_FUZZ_SEED") ?? 0x00AC_7104
        let registry = testRegistry()
        var outcomes: [String: Int] = [:]
        for index in 0..<cases {
            let seed = firstSeed &+ UInt64(index)
            var generator = SeededGenerator(seed: seed)
            let base = Self.seeds[generator.int(0...Self.seeds.count - 1)]
            let input = Self.mutate(base, using: &generator)
            let outcome = Self.check(input, registry: registry, context: "seed \(seed)")
            outcomes[outcome, default: 0] += 1
        }
        // The mutations reach every part of the reader: each outcome comes up.
        for outcome in ["corrupt", "invalid history", "read", "read, with problems", "not an archive"] {
            #expect((outcomes[outcome] ?? 0) > 0, "no case was \(outcome): \(outcomes)")
        }
        #expect(outcomes.values.reduce(0, +) == cases)
    }

    /// The seeds themselves read, and every byte dropped from each refuses or reads cleanly.
    @Test func everySingleByteDeletionOfTheSeedsIsHandled() {
        let registry = testRegistry()
        for (index, seed) in Self.seeds.enumerated() {
            #expect(Self.check(seed, registry: registry, context: "seed archive \(index)") == "read")
            for offset in seed.indices {
                var bytes = seed
                bytes.remove(at: offset)
                _ = Self.check(bytes, registry: registry, context: "seed archive \(index) without byte \(offset)")
            }
        }
    }

    /// The seed corpus of the coverage-guided fuzzer (Fuzz/corpus/history-archive) stays made of
    /// archives that read, so that the fuzzer starts from the format as it is.
    @Test func theCommittedFuzzSeedsRead() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../../Fuzz/corpus/history-archive").standardized
        let files = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
        #expect(files.count >= 5)
        for file in files {
            // Some seeds hold actions that do not read back (an unknown type), on purpose.
            let outcome = Self.check(
                try Data(contentsOf: file), registry: testRegistry(), context: file.lastPathComponent)
            #expect(outcome.hasPrefix("read"), "\(file.lastPathComponent): \(outcome)")
        }
    }

    /// Random histories of every shape write and read back the same, to the same bytes.
    @Test func randomHistoriesRoundTrip() throws {
        var generator = SeededGenerator(seed: Self.environment("HISTORY_ARCHIVE_FUZZ_SEED") ?? 7)
        let names = ["", "Move", "Move", "Typing", "Rename “A”", "é", "e\u{301}x", "🙂", "a\\b\"c"]
        let keys = ["figure", "a", "b/c", "ü", String(repeating: "k", count: 200)]
        for round in 0..<200 {
            var histories: [String: SavedHistory] = [:]
            for index in 0..<generator.int(0...3) {
                let shape: ActionStack.HistoryShape = generator.chance(50) ? .tree : .linear
                let root = generator.chance(80) ? 0 : generator.int(0...1_000)
                var nodes = [root]
                var redoChosen: Set<Int> = []
                var steps: [SavedStep] = []
                for _ in 0..<generator.int(0...30) {
                    // A parent already in the tree; in a linear history, the last node.
                    let parent = shape == .linear ? nodes[nodes.count - 1] : nodes[generator.int(0...nodes.count - 1)]
                    let node = generator.chance(70) ? nodes.max()! + 1 : nodes.max()! + generator.int(2...50)
                    let redo = !redoChosen.contains(parent) && generator.chance(60)
                    if redo { redoChosen.insert(parent) }
                    var actions: [SavedAction] = []
                    for _ in 0..<generator.int(0...3) {
                        let key = keys[generator.int(0...keys.count - 1)]
                        let cost = generator.chance(80) ? 0 : generator.int(1...Int.max)
                        switch generator.int(0...2) {
                        case 0:
                            let x = Double(bitPattern: generator.next())
                            actions.append(
                                SavedAction(MoveFigure(x: x.isFinite ? x : 0, y: -1.5), key: key, cost: cost))
                        case 1:
                            let title = names[generator.int(0...names.count - 1)]
                            actions.append(
                                SavedAction(RenameFigure(title: title, isCapitals: false), key: key, cost: cost))
                        default:
                            let edit = ReplaceText.Edit(
                                range: [generator.int(-5...5)], text: "t", note: generator.chance(50) ? "n" : nil)
                            actions.append(
                                SavedAction(
                                    ReplaceText(edits: [edit], attributes: ["z": 1, "a": 2]), key: key, cost: cost))
                        }
                    }
                    var userInfo: [String: SavedValue] = [:]
                    if generator.chance(20) {
                        userInfo["i"] = .int(generator.int(Int.min...Int.max))
                        userInfo["d"] = .date(
                            Date(timeIntervalSinceReferenceDate: Double(generator.int(-1_000_000...1_000_000)) / 7))
                    }
                    steps.append(
                        SavedStep(
                            node: node, parent: parent, isRedoChoice: redo,
                            date: shape == .tree
                                ? Date(timeIntervalSinceReferenceDate: Double(generator.int(0...1 << 40)) / 1_000)
                                : nil,
                            actionName: names[generator.int(0...names.count - 1)], isDiscardable: generator.chance(10),
                            userInfo: userInfo, actions: actions))
                    nodes.append(node)
                }
                let current = nodes[generator.int(0...nodes.count - 1)]
                let clean = generator.chance(30) ? nil : nodes[generator.int(0...nodes.count - 1)]
                // What a save left out, sometimes, with a reason this library does not know.
                var omissions: [SavedHistory.Omission] = []
                if generator.chance(30) {
                    omissions.append(
                        .init(
                            reason: .closure, steps: generator.int(1...1_000),
                            stepName: generator.chance(80) ? names[generator.int(0...names.count - 1)] : nil))
                }
                if generator.chance(20) { omissions.append(.init(reason: .maximumSteps, steps: generator.int(0...50))) }
                if generator.chance(5) { omissions.append(.init(reason: .init(rawValue: "later"), steps: 1)) }
                histories["history \(index)"] = SavedHistory(
                    shape: shape, root: root, current: current, clean: clean, steps: steps, omissions: omissions)
            }
            let archive = HistoryArchive(fingerprint: "round \(round)", histories: histories)
            let data = try archive.encoded()
            let decoded = try HistoryArchive(decoding: data, registry: testRegistry())
            #expect(dump(decoded) == dump(archive), "round \(round)")
            #expect(try decoded.encoded() == data, "round \(round)")
        }
    }
}
