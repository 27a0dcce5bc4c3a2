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

struct TitleTemplateTests {
    @Test func englishIsTheDefault() {
        #expect(ActionStack().titleTemplates == .english)
    }

    /// The placeholder is found by Unicode scalars: twice, at the edges, or followed by a combining
    /// mark that joins its closing brace into one character.
    @Test func thePlaceholderIsReplacedEverywhereEvenBeforeACombiningMark() {
        let templates = TitleTemplates(
            undo: "{name}\u{301} / {name}", redo: "Redo {name}{name}", undoWithoutName: "U", redoWithoutName: "R")
        #expect(templates.undoTitle(for: "Move") == "Move\u{301} / Move")
        #expect(templates.redoTitle(for: "é") == "Redo éé")
        #expect(templates.undoTitle(for: "") == "U")
        let plain = TitleTemplates(undo: "Undo", redo: "Redo 🙂", undoWithoutName: "U", redoWithoutName: "R")
        #expect(plain.undoTitle(for: "Move") == "Undo", "no placeholder: the template as it is")
        #expect(plain.redoTitle(for: "Move") == "Redo 🙂")
    }

    @Test func templatesMayPutTheNameAnywhere() {
        let stack = makeStack()
        stack.titleTemplates = TitleTemplates(
            undo: "「{name}」を取り消す",
            redo: "「{name}」をやり直す",
            undoWithoutName: "取り消す",
            redoWithoutName: "やり直す"
        )
        let counter = Counter()
        #expect(stack.undoMenuItemTitle == "取り消す")
        group(stack, named: "移動") { counter.set(1, on: stack) }
        #expect(stack.undoMenuItemTitle == "「移動」を取り消す")
        stack.undo()
        #expect(stack.redoMenuItemTitle == "「移動」をやり直す")
        #expect(stack.undoMenuItemTitle == "取り消す")
        #expect(stack.undoMenuTitle(forUndoActionName: "X") == "「X」を取り消す")
    }
}
