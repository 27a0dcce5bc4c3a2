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

/// `TextEdit` counts offsets in Unicode scalars, so an edit stays exact when what it inserts joins
/// a neighbour into one `Character` (a combining accent, "\r" and "\n", a flag's two halves, a
/// vowel sign): its inverse undoes it, undo takes back exactly this user's scalars, and redo puts
/// back exactly them. (Counted in `Character`s, each of these undid nothing, and the redo then
/// wrote a second copy.)
@Suite struct TextEditUnicodeTests {
    @Test func theInverseOfAnInsertionThatJoinsCRAndLFUndoesIt() throws {
        var text = "line\r"
        let edit = TextEdit.insert("\nnext", at: 5)
        try edit.apply(to: &text)
        #expect(text == "line\r\nnext")
        try edit.inverse.apply(to: &text)
        #expect(text == "line\r")
    }

    @Test func aPeersCombiningAccentAfterThisUsersLetterLeavesTheLetterUndoable() {
        let note = SharedText("ab")
        note.type("x", at: 1)  // "axb"
        note.stack.endEvent()
        note.receive(.insert("\u{301}", at: 1))  // the peer's accent joins "a": "áxb"
        #expect(note.text == "a\u{301}xb")
        note.stack.undo()
        #expect(note.text == "a\u{301}b", "this user's x went, the peer's accent stayed")
        note.stack.redo()
        #expect(note.text == "a\u{301}xb", "the x came back once")
    }

    @Test func aLetterAndItsAccentTypedAsTwoKeysUndoOneByOne() {
        let note = SharedText()
        note.type("e", at: 0)
        note.stack.endEvent()
        note.type("\u{301}", at: 1)  // "é", one Character of two scalars
        note.stack.endEvent()
        #expect(note.text == "e\u{301}")
        note.stack.undo()
        #expect(note.text == "e")
        note.stack.undo()
        #expect(note.text == "")
        note.stack.redo()
        note.stack.redo()
        #expect(note.text == "e\u{301}")
    }

    @Test(arguments: [
        ["\u{915}", "\u{93F}", "!"],  // Devanagari: a consonant, its vowel sign, then "!"
        ["\u{1F1EB}", "\u{1F1F7}"],  // a flag typed as its two regional indicators
        ["\r", "\n", "x"],
    ])
    func keysThatJoinIntoOneCharacterAreEachTakenBack(keys: [String]) {
        let note = SharedText()
        var offset = 0
        for key in keys {
            note.type(key, at: offset)
            offset += key.unicodeScalars.count
            note.stack.endEvent()
        }
        #expect(note.text == keys.joined())
        for _ in keys { note.stack.undo() }
        #expect(note.text == "")
        #expect(!note.stack.canUndo)
    }

    @Test func anEditOfJoiningScalarsComesBackFromJSONAsItWas() throws {
        let edit = TextEdit(SequenceEdit([.insert(["\r", "\n", "x"], at: 2), .delete(["e", "\u{301}"], at: 0)]))
        let back = try JSONDecoder().decode(TextEdit.self, from: JSONEncoder().encode(edit))
        #expect(back == edit)
        #expect(back.edit.pieces.first?.elements.count == 3)
    }
}
