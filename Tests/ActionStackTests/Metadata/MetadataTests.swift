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

struct NamesAndTitlesTests {
    @Test func nameTravelsFromUndoToRedoAndBack() {
        let stack = makeStack()
        let counter = Counter()
        group(stack, named: "Move") { counter.set(1, on: stack) }
        #expect(stack.undoActionName == "Move")
        #expect(stack.undoMenuItemTitle == "Undo Move")
        stack.undo()
        #expect(stack.redoActionName == "Move")
        #expect(stack.redoMenuItemTitle == "Redo Move")
        #expect(stack.undoMenuItemTitle == "Undo")
        stack.redo()
        #expect(stack.undoActionName == "Move")
        #expect(stack.redoActionName == "")
    }

    @Test func titleFormatting() {
        let stack = ActionStack()
        #expect(stack.undoMenuTitle(forUndoActionName: "Move") == "Undo Move")
        #expect(stack.redoMenuTitle(forUndoActionName: "Move") == "Redo Move")
        #expect(stack.undoMenuTitle(forUndoActionName: "") == "Undo")
        #expect(stack.redoMenuTitle(forUndoActionName: "") == "Redo")
    }

    @Test func subclassesCanLocaliseTitlesAsWithUndoManager() {
        final class French: ActionStack {
            override func undoMenuTitle(forUndoActionName actionName: String) -> String {
                actionName.isEmpty ? "Annuler" : "Annuler \(actionName)"
            }
        }
        let stack = French()
        stack.groupsByEvent = false
        let counter = Counter()
        #expect(stack.undoMenuItemTitle == "Annuler")
        group(stack, named: "Déplacer") { counter.set(1, on: stack) }
        #expect(stack.undoMenuItemTitle == "Annuler Déplacer")
    }

    @Test func emptyNameClearsAndLastCallWins() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.setActionName("A")
        stack.setActionName("B")
        #expect(stack.undoActionName == "B", "an open group counts")
        stack.setActionName("")
        stack.endUndoGrouping()
        #expect(stack.undoActionName == "")
        #expect(stack.undoMenuItemTitle == "Undo")
    }

    @Test func insideANestedGroupTheSetterNamesTheTopLevelGroup() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.setActionName("Inner")
        stack.endUndoGrouping()
        stack.endUndoGrouping()
        #expect(stack.undoActionName == "Inner")
    }

    @Test func theOpenNamedGroupGivesTheTitleAsInFoundation() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        stack.setActionName("Pending")
        #expect(stack.undoActionName == "Pending")
        #expect(stack.canUndo)
        #expect(stack.undoMenuItemTitle == "Undo Pending")
        stack.endEvent()
        #expect(stack.undoMenuItemTitle == "Undo Pending", "kept as a do-nothing step")
    }

    @Test func aGroupThatWillBeDroppedNeverGivesTheTitle() {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        stack.setActionName("Move")
        stack.endEvent()
        stack.setActionName("Rename")  // opens an empty automatic group
        #expect(stack.undoActionName == "Move", "the title names what undo() will undo")
        #expect(stack.undoMenuItemTitle == "Undo Move")
        #expect(stack.undoEntries.first?.title == "Undo Move")
        stack.undo()
        #expect(counter.value == 0)
        #expect(!stack.canUndo)
        #expect(stack.undoMenuItemTitle == "Undo")
    }

    @Test func setterWithNoGroupAndGroupsByEventOffIsMisuse() {
        let stack = makeStack()
        let counter = Counter()
        group(stack, named: "A") { counter.set(1, on: stack) }
        let before = stack._structure
        stack.setActionName("B")
        #expect(stack.lastMisuse == .noOpenGroup(.setActionName))
        #expect(stack.lastMisuse?.description.contains("setActionName(_:) was called with no undo group open") == true)
        #expect(stack.lastMisuse?.description.contains("before naming or marking a step") == true)
        stack.setActionIsDiscardable(true)
        #expect(stack.lastMisuse == .noOpenGroup(.setActionIsDiscardable))
        stack.setActionUserInfoValue(1, forKey: "k")
        #expect(stack.lastMisuse == .noOpenGroup(.setActionUserInfoValue))
        #expect(stack._structure == before)
        #expect(stack.undoActionName == "A")
    }

    @Test func setterWithGroupsByEventOpensTheAutomaticGroup() {
        let stack = makeStack(groupsByEvent: true)
        stack.setActionIsDiscardable(true)
        #expect(stack.groupingLevel == 1)
        #expect(stack.undoActionIsDiscardable)
        stack.endEvent()
        #expect(stack.groupingLevel == 0)
    }
}

struct DiscardableAndUserInfoTests {
    @Test func discardableFlagTravelsAndLastCallWins() {
        let stack = makeStack()
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.setActionIsDiscardable(true)
        stack.setActionIsDiscardable(false)
        stack.setActionIsDiscardable(true)
        stack.endUndoGrouping()
        #expect(stack.undoActionIsDiscardable)
        stack.undo()
        #expect(!stack.undoActionIsDiscardable)
        #expect(stack.redoActionIsDiscardable)
        stack.redo()
        #expect(stack.undoActionIsDiscardable)
        #expect(!stack.redoActionIsDiscardable)
    }

    @Test func userInfoRoundTripsAndNilRemovesTheKey() throws {
        let stack = makeStack()
        let counter = Counter()
        let selection: ActionStack.UserInfoKey = "selection"
        let origin = ActionStack.UserInfoKey("origin")
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.setActionUserInfoValue([1, 2, 3], forKey: selection)
        stack.setActionUserInfoValue("toolbar", forKey: origin)
        stack.setActionUserInfoValue(nil, forKey: origin)
        stack.endUndoGrouping()
        #expect(stack.undoActionUserInfoValue(forKey: selection) as? [Int] == [1, 2, 3])
        #expect(stack.undoActionUserInfoValue(forKey: origin) == nil)
        stack.undo()
        #expect(stack.undoActionUserInfoValue(forKey: selection) == nil)
        #expect(stack.redoActionUserInfoValue(forKey: selection) as? [Int] == [1, 2, 3])
        stack.redo()
        let back = try #require(stack.undoActionUserInfoValue(forKey: selection) as? [Int])
        #expect(back == [1, 2, 3])
    }

    @Test func metadataOfANestedGroupUndoneAloneIsNotCopied() {
        let stack = makeStack()
        let a = Counter()
        stack.beginUndoGrouping()
        stack.setActionName("Outer")
        a.set(1, on: stack)
        stack.beginUndoGrouping()
        a.set(2, on: stack)
        stack.endUndoGrouping()
        stack.undoNestedGroup()
        #expect(stack.redoActionName == "", "a nested group has no metadata of its own")
        stack.endUndoGrouping()
    }
}

struct CountsTests {
    @Test func countsAreClosedTopLevelGroupsOnly() {
        let stack = makeStack()
        let counter = Counter()
        group(stack) {
            counter.set(1, on: stack)
            group(stack) { counter.set(2, on: stack) }
        }
        #expect(stack.undoCount == 1)
        stack.beginUndoGrouping()
        counter.set(3, on: stack)
        #expect(stack.undoCount == 1)
        #expect(stack.canUndo)
        stack.endUndoGrouping()
        #expect(stack.undoCount == 2)
        stack.undo()
        #expect(stack.undoCount == 1)
        #expect(stack.redoCount == 1)
    }

    @Test func anOpenEmptyGroupCountsForCanUndoAsInFoundation() {
        let stack = makeStack()
        stack.beginUndoGrouping()
        #expect(stack.canUndo, "Foundation: any top-level group, open or closed, empty or not")
        stack.endUndoGrouping()
        #expect(stack.canUndo, "and the closed empty group is a do-nothing step")
        #expect(stack.undoCount == 1)
    }

    @Test func anOpenEmptyGroupDoesNotCountForCanUndoWhenEmptyGroupsAreDropped() {
        let stack = makeStack(dropsEmptyGroups: true)
        stack.beginUndoGrouping()
        #expect(!stack.canUndo)
        stack.endUndoGrouping()
        #expect(!stack.canUndo)
        #expect(stack.undoCount == 0)
    }
}
