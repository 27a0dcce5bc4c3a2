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

/// Calls made from inside an undo handler, a redo handler and the will/did observers: each has a
/// defined result, and the stack is intact afterwards.
struct ReentrancyTests {
    enum Place: String, CaseIterable, CustomTestStringConvertible {
        case undoHandler, redoHandler, willUndo, didUndo, willRedo, didRedo
        var testDescription: String { rawValue }
        var isUndo: Bool { [.undoHandler, .willUndo, .didUndo].contains(self) }
    }

    enum Call: String, CaseIterable, CustomTestStringConvertible {
        case undo, undoNestedGroup, redo, removeAllActions, removeAllActionsWithTarget, endEvent
        var testDescription: String { rawValue }
    }

    /// Runs `body` at `place` during one undo or redo of a two-step history; returns the stack and
    /// the counter after the operation.
    func run(at place: Place, _ body: @escaping (ActionStack, Counter) -> Void) -> (ActionStack, Counter) {
        let stack = makeStack()
        let counter = Counter()
        let probe = Counter("probe")
        group(stack) { counter.set(1, on: stack) }
        var armed = true
        func fire() {
            guard armed else { return }
            armed = false
            body(stack, counter)
        }
        // A step whose undo and redo handlers can call `fire`.
        func setProbe(_ value: Int) {
            let old = probe.value
            stack.registerUndo(withTarget: probe) { _ in
                if (stack.isUndoing && place == .undoHandler) || (stack.isRedoing && place == .redoHandler) { fire() }
                setProbe(old)
            }
            probe.value = value
        }
        group(stack, named: "Probe") { setProbe(1) }
        if !place.isUndo { stack.undo() }
        let names: [Place: Notification.Name] = [
            .willUndo: ActionStack.willUndoChangeNotification, .didUndo: ActionStack.didUndoChangeNotification,
            .willRedo: ActionStack.willRedoChangeNotification, .didRedo: ActionStack.didRedoChangeNotification,
        ]
        // The observer must call back into this (non-Sendable) stack on the posting thread; hand the
        // closure over unchecked, as NotificationCenter's @Sendable block requires.
        nonisolated(unsafe) let fireFromObserver = fire
        var token: (any NSObjectProtocol)?
        if let name = names[place] {
            token = observe(name, of: stack) { _ in fireFromObserver() }
        }
        if place.isUndo { stack.undo() } else { stack.redo() }
        if let token { NotificationCenter.default.removeObserver(token) }
        return (stack, counter)
    }

    @Test(arguments: Place.allCases, Call.allCases)
    func structuralCallsAreRefusedDuringUndoAndRedo(place: Place, call: Call) {
        var before = ""
        var level = -1
        let (stack, counter) = run(at: place) { stack, counter in
            before = stack._structure
            level = stack.groupingLevel
            switch call {
            case .undo: stack.undo()
            case .undoNestedGroup: stack.undoNestedGroup()
            case .redo: stack.redo()
            case .removeAllActions: stack.removeAllActions()
            case .removeAllActionsWithTarget: stack.removeAllActions(withTarget: counter)
            case .endEvent: stack.endEvent()
            }
            #expect(stack._structure == before, "nothing changed")
        }
        let expected: ActionStack.Misuse
        let activity: ActionStack.Misuse.Activity =
            switch place {
            case .undoHandler: .undoing
            case .redoHandler: .redoing
            case .willUndo, .didUndo: .notifyingUndo
            case .willRedo, .didRedo: .notifyingRedo
            }
        let operation: ActionStack.Misuse.Operation =
            switch call {
            case .undo: .undo
            case .undoNestedGroup: .undoNestedGroup
            case .redo: .redo
            case .removeAllActions: .removeAllActions
            case .removeAllActionsWithTarget: .removeAllActionsWithTarget
            case .endEvent: .endEvent
            }
        if call == .redo && place.isUndo {
            expected = .redoWhileUndoing
        } else {
            expected = .reentrantCall(operation, during: activity)
        }
        #expect(stack.lastMisuse == expected)
        #expect(level == (place == .undoHandler || place == .redoHandler ? 1 : 0))
        #expect(!stack.isUndoing && !stack.isRedoing)
        #expect(stack._invariantViolations().isEmpty)
        // The operation itself completed: the probe step moved sides, the counter step is intact.
        #expect(counter.value == 1)
        stack.lastMisuse = nil
        stack.undo()
        stack.undo()
        #expect(counter.value == 0)
        #expect(stack.lastMisuse == nil)
    }

    @Test(arguments: [Place.willUndo, .didUndo, .willRedo, .didRedo])
    func registeringOrGroupingFromAWillOrDidObserverIsRefused(place: Place) {
        var results: [ActionStack.Misuse?] = []
        let (stack, _) = run(at: place) { stack, counter in
            stack.registerUndo(withTarget: counter) { _ in }
            results.append(stack.lastMisuse)
            stack.lastMisuse = nil
            stack.beginUndoGrouping()
            results.append(stack.lastMisuse)
            stack.lastMisuse = nil
            stack.endUndoGrouping()
            results.append(stack.lastMisuse)
            stack.lastMisuse = nil
            stack.setActionName("X")
            results.append(stack.lastMisuse)
        }
        let activity: ActionStack.Misuse.Activity = place.isUndo ? .notifyingUndo : .notifyingRedo
        #expect(
            results == [
                .reentrantCall(.registerUndo, during: activity), .reentrantCall(.beginUndoGrouping, during: activity),
                .reentrantCall(.endUndoGrouping, during: activity), .reentrantCall(.setActionName, during: activity),
            ]
        )
        #expect(stack._invariantViolations().isEmpty)
    }

    @Test(arguments: [Place.undoHandler, .redoHandler])
    func aHandlerCannotCloseTheGroupItsOperationIsBuilding(place: Place) {
        let (stack, _) = run(at: place) { stack, _ in
            stack.endUndoGrouping()
        }
        #expect(stack.lastMisuse == .endWithoutBegin)
        #expect(stack._invariantViolations().isEmpty)
    }

    @Test(arguments: [Place.undoHandler, .redoHandler])
    func harmlessCallsFromHandlersWork(place: Place) {
        var seen: (Bool, Bool, Int, Int) = (false, false, -1, -1)
        let (stack, _) = run(at: place) { stack, _ in
            stack.disableUndoRegistration()
            stack.enableUndoRegistration()
            stack.levelsOfUndo = 5
            seen = (stack.canUndo, stack.canRedo, stack.undoCount, stack.redoCount)
        }
        #expect(stack.lastMisuse == nil)
        #expect(seen.2 >= 0)
        #expect(stack.levelsOfUndo == 5)
    }

    /// Apple's idiom `deinit { undoManager.removeAllActions(withTarget: self) }` runs inside an
    /// undo when a handler lets go of the last reference to an object: that removal is no misuse
    /// (its actions could never run again), while removing a live target's actions still is.
    @Test func theDeinitRemovalIdiomIsNoMisuseWhenAHandlerFreesTheObject() {
        final class Layer {
            let stack: ActionStack
            var name: String
            init(named name: String, stack: ActionStack) {
                self.name = name
                self.stack = stack
            }
            deinit { stack.removeAllActions(withTarget: self) }

            func rename(to new: String) {
                let old = name
                stack.registerUndo(withTarget: self) { $0.rename(to: old) }
                name = new
            }
        }
        final class Document {
            let stack: ActionStack
            var layers: [Layer] = []
            init(stack: ActionStack) { self.stack = stack }

            func addLayer(named name: String) {
                layers.append(Layer(named: name, stack: stack))
                stack.registerUndo(withTarget: self) { $0.removeLastLayer() }
            }
            func removeLastLayer() {
                let name = layers.removeLast().name  // the layer's deinit runs here
                stack.registerUndo(withTarget: self) { $0.addLayer(named: name) }
            }
        }
        let stack = makeStack()
        stack.misusePolicy = .trap  // any misuse would stop the test process
        let document = Document(stack: stack)
        group(stack, named: "Add Layer") { document.addLayer(named: "Layer") }
        group(stack, named: "Rename Layer") { document.layers[0].rename(to: "Background") }
        stack.undo()  // Rename
        stack.undo()  // Add: frees the layer inside the undo; its deinit removes its actions
        #expect(document.layers.isEmpty)
        #expect(stack.lastMisuse == nil)
        #expect(stack._invariantViolations().isEmpty)
        // The rename's redo has a freed target and goes; the add's redo is next.
        #expect(stack.redoCount == 1)
        #expect(stack.redoMenuItemTitle == "Redo Add Layer")
        stack.redo()
        #expect(document.layers.map(\.name) == ["Layer"])
    }

    @Test func removingALiveTargetsActionsFromAHandlerIsStillAMisuse() {
        let (stack, _) = run(at: .undoHandler) { stack, target in
            stack.removeAllActions(withTarget: target)
        }
        #expect(stack.lastMisuse == .reentrantCall(.removeAllActionsWithTarget, during: .undoing))
    }

    /// A value is no object being freed (it boxes into a new, live one): still a misuse.
    @Test func removingAValuesActionsFromAHandlerIsStillAMisuse() {
        let (stack, _) = run(at: .undoHandler) { stack, _ in
            stack.removeAllActions(withTarget: 42)
        }
        #expect(stack.lastMisuse == .reentrantCall(.removeAllActionsWithTarget, during: .undoing))
    }

    @Test func willCloseObserverCannotRestructureButCanRegister() {
        let stack = makeStack()
        let counter = Counter()
        nonisolated(unsafe) var calls: [() -> Void] = []
        let token = observe(ActionStack.willCloseUndoGroupNotification, of: stack) { _ in
            for call in calls { call() }
            calls = []
        }
        defer { NotificationCenter.default.removeObserver(token) }
        stack.beginUndoGrouping()
        counter.set(1, on: stack)
        var misuses: [ActionStack.Misuse?] = []
        calls = [
            {
                stack.undo()
                misuses.append(stack.lastMisuse)
            },
            {
                stack.beginUndoGrouping()
                misuses.append(stack.lastMisuse)
            },
            {
                stack.endUndoGrouping()
                misuses.append(stack.lastMisuse)
            },
            {
                stack.removeAllActions()
                misuses.append(stack.lastMisuse)
            },
            {
                stack.lastMisuse = nil
                counter.set(2, on: stack)
                misuses.append(stack.lastMisuse)
            },
        ]
        stack.endUndoGrouping()
        #expect(
            misuses == [
                .reentrantCall(.undo, during: .closingGroup), .reentrantCall(.beginUndoGrouping, during: .closingGroup),
                .reentrantCall(.endUndoGrouping, during: .closingGroup),
                .reentrantCall(.removeAllActions, during: .closingGroup), nil,
            ]
        )
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(counter.value == 0, "the observer's registration joined the closing group")
    }

    @Test func didCloseObserverMayUndo() {
        let stack = makeStack()
        let counter = Counter()
        nonisolated(unsafe) var armed = true
        nonisolated(unsafe) let undoOnce = {
            guard armed else { return }
            armed = false
            stack.undo()
        }
        let token = observe(ActionStack.didCloseUndoGroupNotification, of: stack) { _ in undoOnce() }
        defer { NotificationCenter.default.removeObserver(token) }
        group(stack) { counter.set(1, on: stack) }
        #expect(stack.lastMisuse == nil)
        #expect(counter.value == 0)
        #expect(stack.redoCount == 1)
    }
}
