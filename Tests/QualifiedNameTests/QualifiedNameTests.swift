// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// A client module that spells every public top-level type of ActionStack qualified,
// `ActionStack.X`. The module and its main class share the name `ActionStack`, so these names
// resolve only through the class's aliases (Sources/ActionStack/ActionStack+QualifiedNames.swift).
// This file is compiled as a client would compile it: if an alias is missing, it does not build.
// A new public top-level type gets a use here.

import ActionStack
import Testing

@Suite struct QualifiedNameTests {
    @Test func titleTemplatesByQualifiedName() {
        let stack = ActionStack()
        let french: ActionStack.TitleTemplates = ActionStack.TitleTemplates(
            undo: "Annuler {name}", redo: "Rétablir {name}", undoWithoutName: "Annuler", redoWithoutName: "Rétablir")
        stack.titleTemplates = french
        #expect(stack.undoMenuTitle(forUndoActionName: "Déplacer") == "Annuler Déplacer")
        #expect(ActionStack.TitleTemplates.english == TitleTemplates.english)
        #expect(ActionStack.TitleTemplates.placeholder == "{name}")
    }

    @Test func automaticGroupClosingByQualifiedName() {
        let stack = ActionStack()
        let closing: ActionStack.AutomaticGroupClosing = .manual
        stack.automaticGroupClosing = closing
        #expect(stack.automaticGroupClosing == ActionStack.AutomaticGroupClosing.manual)
    }

    @Test func actionStackGroupByQualifiedName() {
        let stack = ActionStack()
        let group: ActionStack.ActionStackGroup = ActionStack.ActionStackGroup()
        group.add(stack)
        group.activeStack = stack
        #expect(group.activeStack === stack)
    }

    @Test func actionStackModelByQualifiedName() {
        let stack = ActionStack()
        let model: ActionStack.ActionStackModel = ActionStack.ActionStackModel(stack)
        #expect(!model.canUndo)
    }

    @Test func observationTokenByQualifiedName() {
        let stack = ActionStack()
        stack.groupsByEvent = false
        var heard = 0
        let token: ActionStack.ObservationToken = stack.observe { _ in heard += 1 }
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: stack) { _ in }
        stack.endUndoGrouping()
        let heardWhileObserving = heard
        #expect(heardWhileObserving > 0)
        token.cancel()
        stack.undo()
        #expect(heard == heardWhileObserving)
    }

    /// The aliases name the same types as the unqualified names.
    @Test func aliasesAreTheSameTypes() {
        #expect(ActionStack.TitleTemplates.self == TitleTemplates.self)
        #expect(ActionStack.AutomaticGroupClosing.self == AutomaticGroupClosing.self)
        #expect(ActionStack.ActionStackGroup.self == ActionStackGroup.self)
        #expect(ActionStack.ActionStackModel.self == ActionStackModel.self)
        #expect(ActionStack.ObservationToken.self == ObservationToken.self)
    }
}
