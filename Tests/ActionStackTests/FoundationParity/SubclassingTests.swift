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

/// A subclass that overrides every member that is `open` on Apple platforms, records the call and
/// calls `super`: the stack must keep every rule.
final class RecordingUndoManager: ActionStack {
    var calls: Set<String> = []

    override init() {
        super.init()
        calls.insert("init")
    }

    override var isUndoing: Bool {
        calls.insert("isUndoing")
        return super.isUndoing
    }
    override var isRedoing: Bool {
        calls.insert("isRedoing")
        return super.isRedoing
    }
    override var isUndoRegistrationEnabled: Bool {
        calls.insert("isUndoRegistrationEnabled")
        return super.isUndoRegistrationEnabled
    }
    override func disableUndoRegistration() {
        calls.insert("disableUndoRegistration")
        super.disableUndoRegistration()
    }
    override func enableUndoRegistration() {
        calls.insert("enableUndoRegistration")
        super.enableUndoRegistration()
    }
    override var groupingLevel: Int {
        calls.insert("groupingLevel")
        return super.groupingLevel
    }
    override func beginUndoGrouping() {
        calls.insert("beginUndoGrouping")
        super.beginUndoGrouping()
    }
    override func endUndoGrouping() {
        calls.insert("endUndoGrouping")
        super.endUndoGrouping()
    }
    override func undo() {
        calls.insert("undo")
        super.undo()
    }
    override func undoNestedGroup() {
        calls.insert("undoNestedGroup")
        super.undoNestedGroup()
    }
    override func redo() {
        calls.insert("redo")
        super.redo()
    }
    override var canUndo: Bool {
        calls.insert("canUndo")
        return super.canUndo
    }
    override var canRedo: Bool {
        calls.insert("canRedo")
        return super.canRedo
    }
    override var undoCount: Int {
        calls.insert("undoCount")
        return super.undoCount
    }
    override var redoCount: Int {
        calls.insert("redoCount")
        return super.redoCount
    }
    override func removeAllActions() {
        calls.insert("removeAllActions")
        super.removeAllActions()
    }
    override func removeAllActions(withTarget target: Any) {
        calls.insert("removeAllActionsWithTarget")
        super.removeAllActions(withTarget: target)
    }
    override func setActionName(_ actionName: String) {
        calls.insert("setActionName")
        super.setActionName(actionName)
    }
    override var undoActionName: String {
        calls.insert("undoActionName")
        return super.undoActionName
    }
    override var redoActionName: String {
        calls.insert("redoActionName")
        return super.redoActionName
    }
    override func setActionIsDiscardable(_ discardable: Bool) {
        calls.insert("setActionIsDiscardable")
        super.setActionIsDiscardable(discardable)
    }
    override var undoActionIsDiscardable: Bool {
        calls.insert("undoActionIsDiscardable")
        return super.undoActionIsDiscardable
    }
    override var redoActionIsDiscardable: Bool {
        calls.insert("redoActionIsDiscardable")
        return super.redoActionIsDiscardable
    }
    override func setActionUserInfoValue(_ info: Any?, forKey key: UserInfoKey) {
        calls.insert("setActionUserInfoValue")
        super.setActionUserInfoValue(info, forKey: key)
    }
    override func undoActionUserInfoValue(forKey key: UserInfoKey) -> Any? {
        calls.insert("undoActionUserInfoValue")
        return super.undoActionUserInfoValue(forKey: key)
    }
    override func redoActionUserInfoValue(forKey key: UserInfoKey) -> Any? {
        calls.insert("redoActionUserInfoValue")
        return super.redoActionUserInfoValue(forKey: key)
    }
    override var undoMenuItemTitle: String {
        calls.insert("undoMenuItemTitle")
        return super.undoMenuItemTitle
    }
    override var redoMenuItemTitle: String {
        calls.insert("redoMenuItemTitle")
        return super.redoMenuItemTitle
    }
    override func undoMenuTitle(forUndoActionName actionName: String) -> String {
        calls.insert("undoMenuTitle")
        return "Annuler " + actionName
    }
    override func redoMenuTitle(forUndoActionName actionName: String) -> String {
        calls.insert("redoMenuTitle")
        return super.redoMenuTitle(forUndoActionName: actionName)
    }
    override var description: String {
        calls.insert("description")
        return "Recording" + super.description
    }
    override var groupsByEvent: Bool {
        get {
            calls.insert("groupsByEvent")
            return super.groupsByEvent
        }
        set {
            calls.insert("groupsByEvent=")
            super.groupsByEvent = newValue
        }
    }
    override var runLoopModes: [RunLoop.Mode] {
        get {
            calls.insert("runLoopModes")
            return super.runLoopModes
        }
        set {
            calls.insert("runLoopModes=")
            super.runLoopModes = newValue
        }
    }
    override var levelsOfUndo: Int {
        get {
            calls.insert("levelsOfUndo")
            return super.levelsOfUndo
        }
        set {
            calls.insert("levelsOfUndo=")
            super.levelsOfUndo = newValue
        }
    }

    static let everyOverride: Set<String> = [
        "init", "isUndoing", "isRedoing", "isUndoRegistrationEnabled", "disableUndoRegistration",
        "enableUndoRegistration", "groupingLevel", "beginUndoGrouping", "endUndoGrouping", "undo", "undoNestedGroup",
        "redo", "canUndo", "canRedo", "undoCount", "redoCount", "removeAllActions", "removeAllActionsWithTarget",
        "setActionName", "undoActionName", "redoActionName", "setActionIsDiscardable", "undoActionIsDiscardable",
        "redoActionIsDiscardable", "setActionUserInfoValue", "undoActionUserInfoValue", "redoActionUserInfoValue",
        "undoMenuItemTitle", "redoMenuItemTitle", "undoMenuTitle", "redoMenuTitle", "description", "groupsByEvent",
        "groupsByEvent=", "runLoopModes", "runLoopModes=", "levelsOfUndo", "levelsOfUndo=",
    ]
}

struct SubclassingTests {
    /// The same script on a plain stack and on the subclass; what it observes, as text.
    static func script(_ stack: ActionStack) -> [String] {
        var seen: [String] = []
        let counter = Counter()
        let other = Counter()
        stack.misusePolicy = .report
        stack.groupsByEvent = false
        _ = stack.groupsByEvent
        stack.runLoopModes = [.default]
        _ = stack.runLoopModes
        stack.levelsOfUndo = 3
        _ = stack.levelsOfUndo
        for value in 1...5 {
            stack.beginUndoGrouping()
            counter.set(value, on: stack)
            if value == 2 { other.set(1, on: stack) }
            stack.setActionName("Set \(value)")
            stack.setActionIsDiscardable(value == 4)
            stack.setActionUserInfoValue(value, forKey: "v")
            seen.append("level \(stack.groupingLevel)")
            stack.endUndoGrouping()
        }
        seen.append("counts \(stack.undoCount) \(stack.redoCount) \(stack.canUndo) \(stack.canRedo)")
        seen.append("names \(stack.undoActionName)|\(stack.redoActionName)|\(stack.undoMenuItemTitle)")
        seen.append("discardable \(stack.undoActionIsDiscardable) \(stack.redoActionIsDiscardable)")
        seen.append("info \(String(describing: stack.undoActionUserInfoValue(forKey: "v")))")
        stack.undo()
        seen.append("after undo \(counter.value) \(stack.isUndoing) \(stack.isRedoing) \(stack.redoMenuItemTitle)")
        seen.append("redo info \(String(describing: stack.redoActionUserInfoValue(forKey: "v")))")
        seen.append("redo discardable \(stack.redoActionIsDiscardable)")
        stack.redo()
        seen.append("after redo \(counter.value)")
        stack.beginUndoGrouping()
        counter.set(9, on: stack)
        stack.beginUndoGrouping()
        counter.set(10, on: stack)
        stack.endUndoGrouping()
        stack.undoNestedGroup()
        seen.append("nested \(counter.value)")
        stack.endUndoGrouping()
        stack.endUndoGrouping()  // misuse
        seen.append("misuse \(String(describing: stack.lastMisuse))")
        stack.disableUndoRegistration()
        seen.append("enabled \(stack.isUndoRegistrationEnabled)")
        stack.enableUndoRegistration()
        stack.removeAllActions(withTarget: other)
        seen.append("after removal \(stack.undoCount)")
        stack.removeAllActions()
        seen.append("after clear \(stack.undoCount) \(stack.canUndo)")
        _ = stack.description
        return seen
    }

    /// A subclass whose getters decide, whatever the setters stored (they never call `super`).
    final class FixedSettingsStack: ActionStack {
        override var levelsOfUndo: Int {
            get { 2 }
            set {}
        }
        override var groupsByEvent: Bool {
            get { false }
            set {}
        }
    }

    @Test func theStackReadsGroupsByEventAndLevelsOfUndoThroughOverriddenGetters() {
        let stack = FixedSettingsStack()
        stack.misusePolicy = .report
        let counter = Counter()
        counter.set(1, on: stack)
        #expect(stack.lastMisuse == .noOpenGroup(.registerUndo), "the getter says no automatic grouping")
        #expect(!stack.canUndo)
        for value in 2...6 { group(stack) { counter.set(value, on: stack) } }
        #expect(stack.undoCount == 2, "the getter's limit trims")
        stack.undo()
        stack.undo()
        stack.undo()
        #expect(counter.value == 4)
    }

    @Test func aSubclassThatOverridesEveryOpenMemberAndCallsSuperKeepsEveryRule() {
        let plain = ActionStack()
        let recording = RecordingUndoManager()
        let expected = Self.script(plain)
        var actual = Self.script(recording)
        // The subclass translates its titles; compare the rest.
        actual = actual.map { $0.replacingOccurrences(of: "Annuler ", with: "Undo ") }
        #expect(actual == expected)
        #expect(recording.calls == RecordingUndoManager.everyOverride)
        #expect(recording.description.hasPrefix("RecordingRecordingUndoManager("))
    }

    /// As in Foundation, the menu titles are formed from the open name properties: a subclass
    /// that overrides `undoActionName` or `redoActionName` changes the titles.
    @Test func overridingTheActionNamesChangesTheMenuTitles() {
        final class Renaming: ActionStack {
            override var undoActionName: String { super.undoActionName.uppercased() }
            override var redoActionName: String { "Again: " + super.redoActionName }
        }
        let stack = Renaming()
        stack.groupsByEvent = false
        let counter = Counter()
        group(stack, named: "Move") { counter.set(1, on: stack) }
        #expect(stack.undoMenuItemTitle == "Undo MOVE")
        stack.undo()
        #expect(stack.redoMenuItemTitle == "Redo Again: Move")
    }

    @Test func theStacksOwnWorkDoesNotGoThroughOverrides() {
        // undo() closes the open group and undoes through the stack's own implementation, not
        // through an override of endUndoGrouping() or undoNestedGroup() that might not call super.
        final class Stubborn: ActionStack {
            override func endUndoGrouping() {}
            override func undoNestedGroup() {}
        }
        let stack = Stubborn()
        stack.groupsByEvent = false
        let counter = Counter()
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        stack.undo()
        #expect(counter.value == 0)
    }
}
