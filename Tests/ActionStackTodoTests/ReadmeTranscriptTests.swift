// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackExampleTestSupport
import Foundation
import Testing

/// The README's to-do transcript is what the program prints: its commands, fed to the built
/// `todo` after the three it leaves out, print every line it shows, in order ("..." stands for
/// lines left out). So the README counts the failed actions as the program (and the library) do.
@Suite(.timeLimit(.minutes(10)))
struct TodoReadmeTranscriptTests {
    /// The first commands of the session, which the README leaves out ("from the fourth command
    /// on").
    static let leftOut = ["add Buy milk", "add Call mom", "done 1"]

    /// The transcript's lines: the ```text block after "Piped input, from the fourth command on".
    func transcript() throws -> [String] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../README.md").standardized
        let text = try String(contentsOf: readme, encoding: .utf8)
        let start = try #require(text.range(of: "Piped input, from the fourth command on"))
        let fence = try #require(text.range(of: "```text\n", range: start.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "\n```", range: fence.upperBound..<text.endIndex))
        return text[fence.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
    }

    @Test func theReadmeTranscriptIsWhatTheProgramPrints() async throws {
        let lines = try transcript()
        let commands = lines.filter { $0.hasPrefix("> ") }.map { String($0.dropFirst(2)) }
        #expect(commands.count > 5)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-todo-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("todo.sqlite").path
        let script = (Self.leftOut + commands + ["quit"]).joined(separator: "\n") + "\n"
        let result = try ChildProcess.run(try todoExecutable().path, [path], input: script + "\n")
        #expect(result.status == 0)
        let output = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Every line the README shows comes in the program's output, in order.
        var next = output.firstIndex(of: "> \(commands[0])") ?? output.endIndex
        for line in lines where line != "..." {
            guard let found = output[next...].firstIndex(of: line) else {
                Issue.record("the README shows \"\(line)\", which the program does not print there")
                return
            }
            next = found + 1
        }
    }
}
