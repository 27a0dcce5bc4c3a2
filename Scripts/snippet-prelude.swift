// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The names that the samples in doc comments use without declaring them. Scripts/check-snippets.py
// puts this file in front of every doc-comment sample that does not import ActionStack itself;
// README and article samples are complete programs and never get it.
//
// Top-level code of a Swift 6 program runs on the main actor, and so do these declarations: a
// sample may use them from top-level code, and passes them as arguments to its own functions.
import ActionStack
import Foundation
import Observation

/// A position on a board.
struct Point: Equatable, CustomStringConvertible {
    var x = 0.0
    var y = 0.0
    var description: String { "(\(x), \(y))" }
}

enum Color { case black, red, blue }

/// A figure on a board.
final class Figure {
    var position = Point()
    var color = Color.black
}

/// A text field.
final class TextField {
    var text = ""
    func deleteLastCharacter() {
        if !text.isEmpty { text.removeLast() }
    }
}

/// A document with its own undo stack.
final class Document {
    let undoStack = ActionStack()
    var text = ""
    func save() throws {}
}

struct EmptyRow: Error {}

/// A table whose insertions register their inverse on `undoStack`.
final class Table {
    let undoStack: ActionStack
    private(set) var rows: [String] = []
    init(undoStack: ActionStack) { self.undoStack = undoStack }

    func insert(_ row: String) throws {
        guard !row.isEmpty else { throw EmptyRow() }
        rows.append(row)
        undoStack.registerUndo(withTarget: self) { table in table.rows.removeLast() }
    }
}

/// A button of a user interface.
final class Button {
    var title = ""
    var isEnabled = false
}

let stack = ActionStack()
let figure = Figure()
let field = TextField()
let document = Document()
let documentA = Document()
let documentB = Document()
let table = Table(undoStack: stack)
let rows = ["Ada", "Grace"]
let undoButton = Button()

func render(_ title: String, enabled: Bool) {}
func scheduleRedraw() {}
func handle(_ line: String) {}

/// A server that the asynchronous samples await.
actor Server {
    func write(_ text: String) async throws {}
}

let server = Server()

/// A saved history, encoded, and the fingerprints of the document saved and of the one opened.
let encodedHistory = Data()
let documentFingerprint = "rev-1"
let openedFingerprint = "rev-1"
let documentURL = FileManager.default.temporaryDirectory.appendingPathComponent("snippet-document")
