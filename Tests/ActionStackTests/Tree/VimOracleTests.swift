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

/// vim's undo tree, recorded command by command (Tests/Fixtures/VimUndoTree, written by
/// Scripts/record-vim-oracle.py from a real vim run headless), replayed on a tree stack.
///
/// The branching history promises vim's behaviour step for step (BranchingHistory.md): node
/// numbers are vim's change numbers, `undo()` is `u`, `redo()` is CTRL-R, `earlier(_:)` and
/// `later(_:)` are `g-` and `g+` (and `:earlier N`, `:later N`), `jump(toNode:)` is `:undo N`
/// (throwing where vim says "E830: Undo number N not found"), and a change after undos starts a
/// new branch. The replay needs no vim: it reads the recording.
///
/// Every recorded command is replayed as it is, none skipped or mapped: where the article names an
/// edge (redo at a leaf that is not the newest change does nothing, a count of 0 never moves, a
/// time move stops at the root or the newest node), vim does the same, and the `golden.*`
/// sequences pin it. Moves by time (`:earlier 10s`, `earlier(by:)`) are not recorded: the article
/// gives them a rule of their own ("the newest node made at least that long before the current
/// node's change"), and vim's is another (the change whose time is closest to the target, and,
/// going back, the state before it; after an undo, timed from the change undone), "about" the
/// time as its help says.
enum VimOracle {
    /// One recorded command and what vim showed after it.
    struct Step: Decodable, CustomStringConvertible {
        /// `change`, `u`, `^R`, `g-`, `g+`, `:undo`, `:redo`, `:earlier` or `:later`.
        let op: String
        /// The word a change appends (after a space).
        let word: String?
        /// The count typed before a normal-mode command (`3u`); 1 when absent.
        let count: Int?
        /// The number of `:undo N`, `:earlier N` and `:later N`.
        let n: Int?
        /// The buffer after the command.
        let text: String
        /// `changenr()` after the command: the node the document is at.
        let node: Int
        /// `undotree().seq_last` after the command: the newest change.
        let last: Int
        /// The error vim gave (only `E830` from `:undo N`).
        let error: String?

        var description: String {
            var keys = op
            if let count { keys = "\(count)" + keys }
            if let n { keys += " \(n)" }
            if let word { keys += " \"\(word)\"" }
            return keys
        }
    }

    struct Sequence: Decodable {
        let id: String
        let note: String?
        let steps: [Step]
    }

    struct Recording: Decodable {
        let format: Int
        let vim: String
        let sequences: [Sequence]
    }

    /// The fixture, or the recording that `VIM_ORACLE_FIXTURE` names: the script's `--first-seed`
    /// and `--out` write others, to explore beyond the fixture without changing it.
    static func load() throws -> Recording {
        let url =
            ProcessInfo.processInfo.environment["VIM_ORACLE_FIXTURE"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/VimUndoTree/vim-undo-tree.json").standardized
        return try JSONDecoder().decode(Recording.self, from: Data(contentsOf: url))
    }

    /// What a replay shows after a command, in vim's terms.
    struct Seen: Equatable, CustomStringConvertible {
        var text: String
        var node: Int?
        var last: Int?
        var failed: Bool

        var description: String {
            "text \"\(text)\", node \(node.map(String.init) ?? "nil"), newest \(last.map(String.init) ?? "nil")"
                + (failed ? ", failed" : "")
        }
    }

    /// Replays `steps` on a fresh tree stack whose document is vim's one-line buffer (empty at the
    /// start; a change appends a space and its word, one closed step). Returns the first step whose
    /// outcome differs from vim's, and a description of it; nil when every step agrees.
    static func firstDivergence(_ steps: [Step]) -> (index: Int, text: String)? {
        let stack = makeTreeStack()
        let document = TreeDoc(stack: stack)
        var commands: [String] = []
        for (index, step) in steps.enumerated() {
            var failed = false
            var wrongError: String?
            let count = step.count ?? 1
            do {
                switch step.op {
                case "change":
                    document.set(document.text + " " + step.word!, named: step.word!)
                case "u":
                    for _ in 0..<count { stack.undo() }
                case "^R", ":redo":
                    for _ in 0..<count { stack.redo() }
                case "g-":
                    _ = try stack.earlier(count)
                case "g+":
                    _ = try stack.later(count)
                case ":earlier":
                    _ = try stack.earlier(step.n!)
                case ":later":
                    _ = try stack.later(step.n!)
                case ":undo":
                    if let n = step.n {
                        do {
                            try stack.jump(toNode: node(n))
                        } catch {
                            failed = true
                            if error != .noSuchNode(node(n)) { wrongError = "\(error)" }
                        }
                    } else {
                        stack.undo()
                    }
                default:
                    return (index, "unknown command \(step.op)")
                }
            } catch {
                failed = true
                wrongError = "\(error)"
            }
            commands.append(step.description)
            let nodes = stack.historyTree?.nodes.map(\.sequence) ?? []
            let seen = Seen(text: document.text, node: stack.currentNode?.sequence, last: nodes.max(), failed: failed)
            let expected = Seen(text: step.text, node: step.node, last: step.last, failed: step.error != nil)
            if seen != expected || wrongError != nil || stack.lastMisuse != nil {
                var text = "step \(index) (\(commands.joined(separator: ", "))): vim shows \(expected)"
                if let error = step.error { text += " (\(error))" }
                text += "; the stack shows \(seen)"
                if let wrongError { text += " (threw \(wrongError))" }
                if let misuse = stack.lastMisuse { text += " (misuse \(misuse))" }
                return (index, text)
            }
        }
        return nil
    }
}

@Suite struct VimOracleTests {
    @Test func theRecordingComesFromVimAndCoversEveryCommand() throws {
        let recording = try VimOracle.load()
        #expect(recording.format == 1)
        #expect(recording.vim.hasPrefix("VIM - Vi IMproved"))
        let random = recording.sequences.filter { $0.id.hasPrefix("random.") }
        #expect(random.count >= 200)
        #expect(recording.sequences.filter { $0.id.hasPrefix("golden.") }.count >= 5)
        let steps = recording.sequences.flatMap(\.steps)
        let commands = Set(steps.map(\.op))
        #expect(commands == ["change", "u", "^R", "g-", "g+", ":undo", ":redo", ":earlier", ":later"])
        // `:undo N` is recorded on existing nodes, on 0, and on numbers past the newest (E830).
        #expect(steps.contains { $0.op == ":undo" && $0.n == 0 })
        #expect(steps.contains { $0.op == ":undo" && $0.error?.hasPrefix("E830:") == true })
        #expect(steps.contains { $0.op == ":undo" && $0.n != nil && $0.n != 0 && $0.error == nil })
        #expect(steps.contains { $0.count ?? 1 > 1 })
    }

    @Test func everyRecordedSequenceAgreesWithVimStepByStep() throws {
        let recording = try VimOracle.load()
        var agreeing = 0
        var steps = 0
        for sequence in recording.sequences {
            if let divergence = VimOracle.firstDivergence(sequence.steps) {
                Issue.record("\(sequence.id) differs from vim at \(divergence.text)")
            } else {
                agreeing += 1
                steps += sequence.steps.count
            }
        }
        print("vim oracle: \(agreeing) of \(recording.sequences.count) sequences agree (\(steps) steps)")
    }
}
