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

/// The warning `eventsNeverEnd`: a loop with no turning run loop that never ends its events merges
/// every change into one step. It is told once the merge shows (an automatic group closed before its
/// event ended, and a new one opens that nothing will close either), and never to a program whose
/// run loop turns or that ends its events itself.
///
/// Each test is synchronous, so it runs on one thread, whose run loop turns only when a test spins
/// it.
@Suite struct EventsNeverEndWarningTests {
    /// A stack as a newcomer makes one (the default grouping and closing), with its warnings
    /// recorded; silent on standard error.
    func newcomerStack() -> (ActionStack, Recorded) {
        let stack = ActionStack()
        stack.misusePolicy = .report
        stack._checksInvariantsAfterEveryMutation = true
        let recorded = Recorded()
        stack.onWarning = { recorded.warnings.append($0) }
        return (stack, recorded)
    }

    final class Recorded {
        var warnings: [ActionStack.Warning] = []
    }

    /// Wraps a value for a run-loop block, which runs on this thread.
    final class Unchecked<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    @Test func aLoopThatNeverEndsItsEventsIsWarnedOnceTheMergeShows() throws {
        let (stack, recorded) = newcomerStack()
        let counter = Counter()
        // Three edits of a `readLine` loop: one step, which one undo takes back whole.
        for value in 1...3 { counter.set(value, on: stack) }
        #expect(recorded.warnings.isEmpty)
        stack.undo()
        #expect(counter.value == 0)
        #expect(!stack.canUndo)
        #expect(recorded.warnings.isEmpty)
        // The next edit opens a group that nothing will close either: told, once the call ends.
        counter.set(4, on: stack)
        let warning = try #require(recorded.warnings.first)
        #expect(recorded.warnings.count == 1)
        #expect(warning.kind == .eventsNeverEnd)
        #expect(stack.lastWarning == warning)
        #expect(warning.description.contains("automaticGroupClosing = .manual and calls endEvent()"))
        #expect(warning.description.contains("run loop of this thread has not turned"))
        // Once per stack; the registration went ahead.
        counter.set(5, on: stack)
        stack.undo()
        counter.set(6, on: stack)
        #expect(recorded.warnings.count == 1)
        #expect(counter.value == 6 && stack.groupingLevel == 1)
    }

    @Test func theManualClosingWithNoEndEventIsWarnedToo() {
        let (stack, recorded) = newcomerStack()
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        counter.set(1, on: stack)
        counter.set(2, on: stack)
        stack.undo()
        counter.set(3, on: stack)
        #expect(recorded.warnings.map(\.kind) == [.eventsNeverEnd])
        #expect(recorded.warnings.first?.description.contains("never called endEvent()") == true)
    }

    @Test(arguments: [ActionStack.AutomaticGroupClosing.manual, .runLoop])
    func aLoopThatEndsItsEventsIsNeverWarned(_ closing: ActionStack.AutomaticGroupClosing) {
        let (stack, recorded) = newcomerStack()
        stack.automaticGroupClosing = closing
        let counter = Counter()
        for value in 1...3 {
            counter.set(value, on: stack)
            stack.endEvent()
        }
        stack.undo()
        counter.set(9, on: stack)
        stack.endEvent()
        stack.undo()
        stack.redo()
        counter.set(10, on: stack)
        stack.endEvent()
        #expect(stack.undoCount == 4)
        #expect(recorded.warnings.isEmpty)
    }

    @Test func aProgramThatClosesEachAutomaticGroupByHandIsNeverWarned() {
        let (stack, recorded) = newcomerStack()
        stack.automaticGroupClosing = .manual
        let counter = Counter()
        for value in 1...3 {
            counter.set(value, on: stack)
            stack.endUndoGrouping()
            stack.undo()
        }
        counter.set(4, on: stack)
        #expect(recorded.warnings.isEmpty)
    }

    @Test func aProgramWhoseRunLoopTurnsIsNeverWarned() {
        let (stack, recorded) = newcomerStack()
        let counter = Counter()
        let shared = Unchecked((stack, counter))
        // Inside one pass of the run loop, as an app's event handler: a change, undo (which closes
        // the group before the pass ends), another change.
        var ran = false
        let flag = Unchecked({ ran = true })
        RunLoop.current.perform {
            let (stack, counter) = shared.value
            counter.set(1, on: stack)
            counter.set(2, on: stack)
            stack.undo()
            counter.set(3, on: stack)
            flag.value()
        }
        while !ran { _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05)) }
        spinRunLoop()
        #expect(stack.groupingLevel == 0 && stack.undoCount == 1)
        // Events in passes of their own, each ended by the run loop, with an undo between.
        counter.set(4, on: stack)
        spinRunLoop()
        stack.undo()
        counter.set(5, on: stack)
        spinRunLoop()
        #expect(stack.undoCount == 2)
        #expect(recorded.warnings.isEmpty)
    }

    @Test func theWarningIsToldWhenTheCallHasEndedSoItsObserverMayUseTheStack() {
        let (stack, _) = newcomerStack()
        let counter = Counter()
        var levels: [Int] = []
        stack.onWarning = { [unowned stack] _ in
            levels.append(stack.groupingLevel)
            // The fix, from the observer: end this event and the next.
            stack.automaticGroupClosing = .manual
            stack.endEvent()
        }
        counter.set(1, on: stack)
        stack.undo()
        counter.set(2, on: stack)
        #expect(levels == [1])
        #expect(stack.groupingLevel == 0 && stack.undoCount == 1)
        #expect(stack._invariantViolations().isEmpty)
    }

    @Test func theDefaultPolicyWritesOneLineToStandardError() async throws {
        let result = try #require(
            await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                final class Text { var value = "" }
                let stack = ActionStack()  // the default policy and grouping
                let text = Text()
                func set(_ value: String) {
                    let old = text.value
                    stack.registerUndo(withTarget: text) { text in text.value = old }
                    text.value = value
                }
                set("a")
                set("b")
                stack.undo()
                set("c")
                set("d")
                precondition(stack.lastWarning?.kind == .eventsNeverEnd)
            }
        )
        let lines = String(decoding: result.standardErrorContent, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1)
        #expect(
            lines.first?.hasPrefix("ActionStack warning: a new undo group opened, and nothing will close it") == true)
    }
}
