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

/// Yjs's and Loro's own undo managers, recorded while a peer edits (Tests/Fixtures/CollaborativeUndo),
/// replayed on a stack with the text, list and records models of these tests.
@Suite struct OracleReplayTests {
    static func firstMismatch(
        _ sequence: [String: Any], model: String, checkingPresses: Bool = true
    ) -> (index: Int, text: String)? {
        switch model {
        case "text": OracleReplay.firstMismatch(sequence, as: ReplayedText.self, checkingPresses: checkingPresses)
        case "list": OracleReplay.firstMismatch(sequence, as: ReplayedList.self, checkingPresses: checkingPresses)
        default: OracleReplay.firstMismatch(sequence, as: ReplayedRecords.self, checkingPresses: checkingPresses)
        }
    }

    /// The documented differences from Yjs (yjs-deviations.json): for each model, the sequences
    /// whose replay differs, the event after which it first differs, and the class of the reason.
    static func deviations(_ model: String) throws -> [String: (event: Int, reason: String)] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/CollaborativeUndo/yjs-deviations.json").standardized
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let classes = object["classes"] as! [String: String]
        let listed = (object["yjs"] as! [String: Any])[model] as! [String: [String: Any]]
        return listed.mapValues { entry in
            (entry["event"] as! Int, classes[entry["class"] as! String] ?? "an unknown class")
        }
    }

    @Test(arguments: ["text", "list", "records"])
    func everyYjsSequenceAgreesEventByEventExceptTheDocumentedDifferences(_ model: String) throws {
        let recording = try OracleReplay.load("yjs-\(model)")
        let deviations = try Self.deviations(model)
        var agreeing = 0
        for sequence in recording.sequences {
            let id = sequence["id"] as! String
            let mismatch = Self.firstMismatch(sequence, model: model)
            switch (mismatch, deviations[id]) {
            case (nil, nil):
                agreeing += 1
            case (let mismatch?, nil):
                Issue.record("\(model) \(id) differs from Yjs: \(mismatch.text)")
            case (nil, let listed?):
                Issue.record("\(model) \(id) now agrees with Yjs; it is listed as differing at \(listed.event)")
            case (let mismatch?, let listed?):
                #expect(
                    mismatch.index == listed.event,
                    "\(model) \(id) first differs at \(mismatch.index), listed at \(listed.event) (\(listed.reason)): \(mismatch.text)"
                )
            }
        }
        // Most of the recordings agree: the differences are a documented few.
        #expect(agreeing * 100 >= recording.sequences.count * 90)
    }

    /// The documents after each event of a recorded sequence, as one comparable text.
    static func documents(_ sequence: [String: Any]) -> String {
        let steps = sequence["steps"] as! [[String: Any]]
        let documents = steps.map { $0["a"]! }
        let data = try! JSONSerialization.data(withJSONObject: documents, options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    @Test(arguments: ["text", "list", "records"])
    func whereYjsAndLoroAgreeTheStackAgreesWithBoth(_ model: String) throws {
        let recording = try OracleReplay.load("loro-\(model)")
        let yjs = try OracleReplay.load("yjs-\(model)")
        var yjsDocuments: [String: String] = [:]
        for sequence in yjs.sequences {
            yjsDocuments[sequence["id"] as! String] = Self.documents(sequence)
        }
        // The sequences on which the two engines leave the same document after every event (but
        // those where the stack's documented choices differ from Yjs: see the other test).
        let deviations = try Self.deviations(model)
        let agreed = recording.sequences.filter {
            yjsDocuments[$0["id"] as! String] == Self.documents($0) && deviations[$0["id"] as! String] == nil
        }
        #expect(agreed.count * 3 >= recording.sequences.count)
        for sequence in agreed {
            if let mismatch = Self.firstMismatch(sequence, model: model, checkingPresses: false) {
                Issue.record("\(model) \(sequence["id"]!) differs from Loro: \(mismatch.text)")
            }
        }
    }
}
