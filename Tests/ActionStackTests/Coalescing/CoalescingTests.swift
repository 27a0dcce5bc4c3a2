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

/// A text field that types characters undoably, coalescing keystrokes into one step.
final class TextField {
    var text = ""
    let stack: ActionStack
    init(stack: ActionStack) { self.stack = stack }

    func type(_ character: Character, window: Duration? = .seconds(1)) {
        if character == "\n" { stack.breakCoalescing() }
        text.append(character)
        stack.registerUndo(withTarget: self, options: .coalescing("typing", within: window)) { field in
            field.text.removeLast()
        }
        stack.setActionName("Typing")
    }
}

/// A clock the tests move by hand.
final class ManualClock: @unchecked Sendable {
    var now = ContinuousClock.now
    func advance(_ duration: Duration) { now = now + duration }
}

struct CoalescingTests {
    func makeTypingStack() -> (ActionStack, ManualClock) {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let clock = ManualClock()
        stack.coalescingClock = { clock.now }
        return (stack, clock)
    }

    @Test func typingAWordIsOneStep() {
        let (stack, clock) = makeTypingStack()
        let field = TextField(stack: stack)
        for character in "hello" {
            field.type(character)
            stack.endEvent()  // each keystroke is its own event
            clock.advance(.milliseconds(200))
        }
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Typing")
        stack.undo()
        #expect(field.text == "")
        stack.redo()
        #expect(field.text == "", "the inverse registered nothing, so there is no redo")
    }

    @Test func aNewlineOrAPauseStartsANewStep() {
        let (stack, clock) = makeTypingStack()
        let field = TextField(stack: stack)
        for character in "ab\ncd" {
            field.type(character)
            stack.endEvent()
        }
        #expect(stack.undoCount == 2, "the newline broke coalescing")
        clock.advance(.seconds(5))
        field.type("e")
        stack.endEvent()
        #expect(stack.undoCount == 3, "the pause broke coalescing")
        stack.undo()
        #expect(field.text == "ab\ncd")
        stack.undo()
        #expect(field.text == "ab")
    }

    @Test func coalescingWithinTheWindowCountsFromTheLastKeystroke() {
        let (stack, clock) = makeTypingStack()
        let field = TextField(stack: stack)
        for character in "abcdef" {
            field.type(character)
            stack.endEvent()
            clock.advance(.milliseconds(900))  // 5.4 s in all, but never a pause over 1 s
        }
        #expect(stack.undoCount == 1)
    }

    @Test func anotherKindUndoRedoAndTheCleanPointEndCoalescing() {
        let (stack, _) = makeTypingStack()
        let field = TextField(stack: stack)
        let other = Counter()
        field.type("a")
        stack.endEvent()
        other.set(1, on: stack)  // another kind of change
        stack.endEvent()
        field.type("b")
        stack.endEvent()
        #expect(stack.undoCount == 3)
        stack.undo()
        stack.redo()  // nothing to redo for typing, but undo itself ends coalescing
        field.type("c")
        stack.endEvent()
        field.type("d")
        stack.endEvent()
        stack.markClean()
        field.type("e")
        stack.endEvent()
        #expect(stack.undoCount == 4, "the clean point started a new step")
    }

    @Test func aDragOfOneFigureThroughAHundredPositionsIsOneMoveStep() {
        final class Figure {
            var x = 0.0
        }
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let figure = Figure()
        let other = Figure()
        func drag(_ figure: Figure, to x: Double) {
            let old = figure.x
            stack.registerUndo(withTarget: figure, options: .coalescing("drag")) { $0.x = old }
            stack.setActionName("Move")
            figure.x = x
        }
        for step in 1...100 {
            drag(figure, to: Double(step))
            stack.endEvent()
        }
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Move")
        drag(other, to: 5)  // the same kind on another target: a new step
        stack.endEvent()
        #expect(stack.undoCount == 2)
        stack.undo()
        stack.undo()
        #expect(figure.x == 0, "undo returns to where the drag began")
    }

    @Test func coalescingWithGroupsByEventOffNeedsNoOpenGroup() {
        let stack = makeStack()
        let field = TextField(stack: stack)
        stack.beginUndoGrouping()
        field.type("a")
        stack.endUndoGrouping()
        stack.lastMisuse = nil
        stack.registerUndo(withTarget: field, options: .coalescing("typing")) { $0.text.removeLast() }
        field.text.append("b")
        #expect(stack.lastMisuse == nil, "joined the closed step")
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(field.text == "")
    }
}

/// A counter that a `@Sendable` notification block may use (the stack posts on the test's thread).
final class ObserverCounter: @unchecked Sendable {
    let counter = Counter()
    var armed = false
}

struct ScopedGroupTests {

    @Test func aScopedGroupIsOneNamedStep() {
        let stack = makeStack()
        let counter = Counter()
        let result = stack.group(named: "Twice") {
            counter.set(1, on: stack)
            counter.set(2, on: stack)
            return counter.value
        }
        #expect(result == 2)
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo Twice")
        stack.undo()
        #expect(counter.value == 0)
    }

    @Test func aThrowingBodyIsRolledBackAndTheErrorPassedOn() {
        let stack = makeStack()
        let counter = Counter()
        group(stack, named: "Keep") { counter.set(1, on: stack) }
        let recorder = NotificationRecorder(stack)
        #expect(throws: Failure()) {
            try stack.group(named: "Fails") {
                counter.set(2, on: stack)
                counter.set(3, on: stack)
                throw Failure()
            }
        }
        #expect(counter.value == 1, "the model is back where it was")
        #expect(stack.undoCount == 1)
        #expect(stack.undoActionName == "Keep")
        #expect(stack.groupingLevel == 0)
        #expect(recorder.withoutCheckpoints == ["DidOpen", "WillClose", "DidClose"], "balanced")
        stack.undo()
        #expect(counter.value == 0)
    }

    @Test func nestedScopesRollBackOnlyTheFailingOne() {
        let stack = makeStack()
        let a = Counter("a")
        let b = Counter("b")
        stack.group(named: "Outer") {
            a.set(1, on: stack)
            try? stack.group {
                b.set(1, on: stack)
                stack.beginUndoGrouping()  // left open by the failing body
                b.set(2, on: stack)
                throw Failure()
            }
            #expect(b.value == 0)
            #expect(stack.groupingLevel == 1)
        }
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(a.value == 0)
        #expect(stack.redoCount == 1)
    }

    @Test func scopesCloseWhatTheBodyLeftOpen() {
        let stack = makeStack()
        let a = Counter()
        stack.group(named: "Sloppy") {
            stack.beginUndoGrouping()
            a.set(1, on: stack)
        }
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoMenuItemTitle == "Undo Sloppy")
    }

    @Test func aScopeInsideAnUndoHandlerRollsBackWithinTheRedoGroup() {
        let stack = makeStack()
        let a = Counter()
        group(stack) {
            stack.registerUndo(withTarget: a) { a in
                a.set(10, on: stack)  // kept: part of the redo step
                try? stack.group {
                    a.set(99, on: stack)
                    throw Failure()
                }
            }
        }
        stack.undo()
        #expect(a.value == 10)
        #expect(stack.redoCount == 1)
        #expect(stack.lastMisuse == nil)
        stack.redo()
        #expect(a.value == 0)
    }

    @Test(arguments: [false, true])
    func withGroupsByEventTheScopeNestsInTheAutomaticGroup(dropsEmptyGroups: Bool) {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
        stack.automaticGroupClosing = .manual
        let a = Counter()
        let b = Counter()
        group(stack) { b.set(1, on: stack) }
        stack.undo()  // something to redo, which a failed scope must not take away
        let recorder = NotificationRecorder(stack)
        #expect(throws: Failure.self) {
            try stack.group {
                #expect(stack.groupingLevel == 2)
                a.set(1, on: stack)
                throw Failure()
            }
        }
        // The automatic group the scope opened is left empty: closed and dropped with the scope's
        // group, whatever dropsEmptyGroups says, so the failed scope leaves no step.
        #expect(stack.groupingLevel == 0)
        #expect(
            recorder.withoutCheckpoints == ["DidOpen", "DidOpen", "WillClose", "DidClose", "WillClose", "DidClose"])
        #expect(a.value == 0)
        #expect(stack.isClean, "the rollback restored the state")
        #expect(!stack.canUndo)
        #expect(!stack.canRedo, "the body's registration emptied the redo stack, and it stays empty")
        stack.endEvent()  // nothing pending
        #expect(stack.undoCount == 0)
    }

    /// A failed scope whose body registered nothing keeps the redo stack, with groupsByEvent on.
    @Test(arguments: [false, true])
    func aFailedEmptyScopeLeavesNoStepAndKeepsRedo(dropsEmptyGroups: Bool) {
        let stack = makeStack(groupsByEvent: true, dropsEmptyGroups: dropsEmptyGroups)
        stack.automaticGroupClosing = .manual
        let b = Counter()
        b.set(1, on: stack)
        stack.endEvent()
        stack.undo()
        #expect(stack.canRedo)
        try? stack.group(named: "Import") { throw Failure() }
        stack.endEvent()
        #expect(stack.undoCount == 0)
        #expect(stack.canRedo)
        #expect(stack.redoMenuItemTitle == "Redo")
        stack.redo()
        #expect(b.value == 1)
    }

    /// A group the body closed itself is not named by the scope; it stays a step of its own.
    @Test func aGroupTheBodyClosedItselfIsNotNamed() {
        let stack = makeStack()
        let counter = Counter()
        stack.group(named: "Import") {
            counter.set(1, on: stack)
            stack.endUndoGrouping()
        }
        #expect(stack.lastMisuse == nil)
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1)
        #expect(stack.undoMenuItemTitle == "Undo")
        stack.undo()
        #expect(counter.value == 0)
    }

    /// A body that undoes its own group (`undo()` closes it, then undoes it) leaves the scope
    /// nothing to roll back and nothing to name, whether the body then returns or throws: the redo
    /// step that the undo built stays, unnamed, as any undone step does.
    @Test(arguments: [false, true])
    func aScopeWhoseBodyUndidItsOwnGroupLeavesTheRedoStep(throwing: Bool) {
        let stack = makeStack()
        let counter = Counter()
        group(stack, named: "Keep") { counter.set(1, on: stack) }
        try? stack.group(named: "Import") {
            counter.set(2, on: stack)
            stack.undo()
            #expect(counter.value == 1)
            if throwing { throw Failure() }
        }
        #expect(counter.value == 1)
        #expect(stack.groupingLevel == 0)
        #expect(stack.undoCount == 1)
        #expect(stack.undoActionName == "Keep")
        #expect(stack.redoCount == 1)
        #expect(stack.redoMenuItemTitle == "Redo")
        stack.redo()
        #expect(counter.value == 2)
    }

    /// A scope inside an automatic group that was already open leaves that group alone.
    @Test func aFailedScopeLeavesAnAutomaticGroupItDidNotOpen() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let a = Counter()
        a.set(1, on: stack)
        try? stack.group { throw Failure() }
        #expect(stack.groupingLevel == 1)
        stack.endEvent()
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(a.value == 0)
    }

    /// The rollback leads to the state the scope's group began in only if all of its actions ran:
    /// one removed or freed in the body makes the document a new, unsaved state.
    @Test(arguments: ["removed", "freed and swept", "freed"])
    func aRollbackThatCannotUndoEverythingIsNotClean(how: String) {
        let stack = makeStack()
        let kept = Counter()
        var lost: Counter? = Counter()
        stack.markClean()
        try? stack.group(named: "Import") {
            kept.set(1, on: stack)
            lost?.set(1, on: stack)
            switch how {
            case "removed": stack.removeAllActions(withTarget: lost!)
            case "freed and swept":
                lost = nil
                _ = stack.undoCount  // sweeps the freed target's action now
            default: lost = nil
            }
            throw Failure()
        }
        #expect(kept.value == 0, "the live action ran")
        #expect(!stack.isClean, "the document is not the saved one")
        #expect(!stack.canUndo)
    }

    /// Actions an observer of the scope's own did-open registered are part of the scope: the
    /// rollback undoes them, and the state is the one the scope's group began in.
    @Test func aRollbackReturnsToTheStateTheScopesGroupBeganIn() {
        let stack = makeStack()
        let observed = ObserverCounter()
        stack.markClean()
        let hook = NotificationHook(ActionStack.didOpenUndoGroupNotification, stack) { stack in
            guard observed.armed else { return }
            observed.armed = false
            observed.counter.set(1, on: stack)  // lands in the scope's group
        }
        observed.armed = true
        let a = Counter()
        try? stack.group {
            a.set(1, on: stack)
            throw Failure()
        }
        withExtendedLifetime(hook) {}
        #expect(observed.counter.value == 0 && a.value == 0, "both rolled back")
        #expect(stack.isClean, "back in the saved state")
        #expect(!stack.canUndo)
    }

    /// `endEvent()` called inside a scope's body (a helper that handles one event) waits until the
    /// outermost scope ends: the scope's group is named and rolled back as a whole.
    @Test(arguments: [false, true])
    func endEventInsideAScopeWaitsForTheScope(throwing: Bool) {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        func handleOneEvent(_ value: Int) {
            counter.set(value, on: stack)
            stack.endEvent()
        }
        _ = try? stack.group(named: "Twice") {
            handleOneEvent(1)
            #expect(stack.groupingLevel == 2, "the scope's group is still open")
            handleOneEvent(2)
            if throwing { throw Failure() }
        }
        #expect(stack.groupingLevel == 0, "the put-off end closed the event's group")
        if throwing {
            #expect(counter.value == 0)
            #expect(!stack.canUndo)
        } else {
            #expect(stack.undoCount == 1)
            #expect(stack.undoMenuItemTitle == "Undo Twice")
            stack.undo()
            #expect(counter.value == 0)
        }
        #expect(stack.lastMisuse == nil)
    }

    @Test func whileDisabledTheBodyJustRuns() {
        let stack = makeStack()
        stack.disableUndoRegistration()
        let value = stack.group(named: "X") { 7 }
        #expect(value == 7)
        stack.enableUndoRegistration()
        #expect(stack.lastMisuse == nil)
    }
}

struct PropertyChangeTests {
    final class Shape {
        var color = "black"
        var radius = 0.0
    }

    @Test func setValueIsUndoableAndRedoable() {
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let shape = Shape()
        stack.setValue("red", for: \.color, on: shape, actionName: "Change Color")
        stack.endEvent()
        #expect(shape.color == "red")
        #expect(stack.undoMenuItemTitle == "Undo Change Color")
        stack.undo()
        #expect(shape.color == "black")
        #expect(stack.redoMenuItemTitle == "Redo Change Color")
        stack.redo()
        #expect(shape.color == "red")
        stack.undo()
        #expect(shape.color == "black")
    }

    @Test func setValueStillSetsWhileRegistrationIsDisabled() {
        let stack = makeStack()
        let shape = Shape()
        stack.disableUndoRegistration()
        stack.setValue(2.5, for: \.radius, on: shape)
        stack.enableUndoRegistration()
        #expect(shape.radius == 2.5)
        #expect(!stack.canUndo)
    }
}

struct CostLimitTests {
    @Test func oldestWholeStepsAreDroppedWhenTheLimitIsPassed() {
        let stack = makeStack()
        stack.maximumCost = 100
        let target = Counter()
        for step in 1...5 {
            group(stack, named: "Step \(step)") {
                stack.registerUndo(withTarget: target, options: .cost(20)) { $0.value -= 1 }
                stack.registerUndo(withTarget: target, options: .cost(20)) { $0.value -= 1 }
            }
        }
        #expect(stack.undoCount == 2, "two steps of 40 fit in 100, a third would not")
        stack.undo()
        stack.undo()
        #expect(target.value == -4, "each step was kept whole")
    }

    /// Costs near `Int.max` never overflow the total (the stack's checks would trap on it), and a
    /// negative cost set on the options counts as 0.
    @Test(arguments: [0, Int.max - 1])
    func hugeAndNegativeCostsAreSafe(limit: Int) {
        let stack = makeStack()
        stack.maximumCost = limit
        let target = Counter()
        for _ in 0..<3 {
            group(stack) { stack.registerUndo(withTarget: target, options: .cost(Int.max)) { $0.value -= 1 } }
        }
        #expect(stack.undoCount == (limit == 0 ? 3 : 1), "the total stays at Int.max, over any limit below it")
        var negative = ActionStack.RegistrationOptions()
        negative.cost = -50
        group(stack) { stack.registerUndo(withTarget: target, options: negative) { $0.value -= 1 } }
        // With the limit, the huge step is dropped when the new one closes (Int.max is over it).
        #expect(stack.undoCount == (limit == 0 ? 4 : 1))
        stack.undo()
        stack.undo()
        #expect(target.value == (limit == 0 ? -2 : -1))
        #expect(stack._invariantViolations().isEmpty, "the total equals the sum of the costs kept")
    }

    /// Costs past `Int.max` are added exactly: once a huge step is trimmed, the rest count in full.
    @Test(arguments: [
        ([Int.max, 50, 60], 1), ([Int.max, Int.max, 10, 10], 2), ([Int.max, Int.max, Int.max, 40, 50], 2),
    ])
    func costsAddUpExactlyPastIntMax(costs: [Int], kept: Int) {
        let stack = makeStack()
        stack.maximumCost = 100
        let target = Counter()
        for cost in costs {
            group(stack) { stack.registerUndo(withTarget: target, options: .cost(cost)) { $0.value -= 1 } }
        }
        #expect(stack.undoCount == kept)
        #expect(stack._invariantViolations().isEmpty)
    }

    @Test func theNewestStepIsKeptEvenIfItAloneIsOverTheLimit() {
        let stack = makeStack()
        stack.maximumCost = 10
        let target = Counter()
        group(stack) { stack.registerUndo(withTarget: target, options: .cost(5)) { $0.value = 1 } }
        group(stack) { stack.registerUndo(withTarget: target, options: .cost(50)) { $0.value = 2 } }
        #expect(stack.undoCount == 1)
        stack.undo()
        #expect(target.value == 2)
    }

    @Test func theLimitIsAdjustableAtAnyTime() {
        let stack = makeStack()
        let target = Counter()
        for _ in 1...10 {
            group(stack) { stack.registerUndo(withTarget: target, options: .cost(10)) { $0.value += 1 } }
        }
        #expect(stack.undoCount == 10)
        stack.maximumCost = 35
        #expect(stack.undoCount == 3)
        stack.maximumCost = 0
        group(stack) { stack.registerUndo(withTarget: target, options: .cost(1000)) { $0.value += 1 } }
        #expect(stack.undoCount == 4)
    }

    @Test func costsLeaveWithUndoneRemovedAndClearedActions() {
        let stack = makeStack()
        stack.maximumCost = 30
        let a = Counter("a")
        let b = Counter("b")
        group(stack) { stack.registerUndo(withTarget: a, options: .cost(10)) { $0.value += 1 } }
        group(stack) { stack.registerUndo(withTarget: b, options: .cost(10)) { $0.value += 1 } }
        stack.removeAllActions(withTarget: a)
        stack.undo()
        group(stack) { stack.registerUndo(withTarget: a, options: .cost(15)) { $0.value += 1 } }
        group(stack) { stack.registerUndo(withTarget: a, options: .cost(15)) { $0.value += 1 } }
        #expect(stack.undoCount == 2, "freed costs were subtracted")
        #expect(stack._invariantViolations().isEmpty)
    }

    @Test func levelsAndCostWorkTogether() {
        let stack = makeStack()
        stack.levelsOfUndo = 3
        stack.maximumCost = 1000
        let target = Counter()
        for _ in 1...5 {
            group(stack) { stack.registerUndo(withTarget: target, options: .cost(1)) { $0.value += 1 } }
        }
        #expect(stack.undoCount == 3)
    }
}

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
