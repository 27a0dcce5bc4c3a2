// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import BoardModel

// Every public top-level type of ActionStack, spelled qualified.
let note = Note()
let stack: ActionStack = note.undoStack
stack.titleTemplates = ActionStack.TitleTemplates(
    undo: "Annuler {name}", redo: "Rétablir {name}", undoWithoutName: "Annuler", redoWithoutName: "Rétablir")
let group: ActionStack.ActionStackGroup = ActionStack.ActionStackGroup()
group.add(stack)
group.activeStack = stack
let model: ActionStack.ActionStackModel = ActionStack.ActionStackModel(stack)
var published = 0
let token: ActionStack.ObservationToken = stack.observe { _ in published += 1 }

stack.beginUndoGrouping()
note.setText("Bonjour")
stack.setActionName("Saisie")
stack.endUndoGrouping()
print(group.undoMenuItemTitle)
group.undo()
print(group.redoMenuItemTitle, model.canRedo, note.text.isEmpty)
token.cancel()
if published == 0 { fatalError("the observer heard nothing") }
