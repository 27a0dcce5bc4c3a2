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

/// Every misuse of the contract's section 11, in report-and-carry-on mode: the misuse is named,
/// observable, and the stack is exactly as it was.
struct MisuseTests {
    /// A stack with history on both sides, an open group, and a named top group.
    func populated() -> (ActionStack, Counter) {
        let stack = makeStack()
        let counter = Counter()
        group(stack, named: "One") { counter.set(1, on: stack) }
        group(stack, named: "Two") { counter.set(2, on: stack) }
        group(stack, named: "Three") { counter.set(3, on: stack) }
        stack.undo()
        return (stack, counter)
    }

    @Test func endUndoGroupingWithNothingOpen() {
        let (stack, counter) = populated()
        let before = stack._structure
        var observed: [ActionStack.Misuse] = []
        stack.onMisuse = { observed.append($0) }
        stack.endUndoGrouping()
        #expect(observed == [.endWithoutBegin])
        #expect(stack.lastMisuse == .endWithoutBegin)
        #expect(stack._structure == before)
        #expect(counter.value == 2)
        #expect(stack.lastMisuse?.description == "endUndoGrouping() called with no matching beginUndoGrouping()")
        #expect(stack.lastMisuse?.operation == .endUndoGrouping)
    }

    @Test func enableWithoutDisable() {
        let (stack, counter) = populated()
        let before = stack._structure
        stack.enableUndoRegistration()
        #expect(counter.value == 2)
        #expect(stack.lastMisuse == .enableWithoutDisable)
        #expect(stack._structure == before)
        #expect(stack.isUndoRegistrationEnabled)
    }

    @Test func undoWithTwoGroupsOpen() {
        let (stack, counter) = populated()
        stack.beginUndoGrouping()
        stack.beginUndoGrouping()
        let before = stack._structure
        stack.undo()
        #expect(stack.lastMisuse == .nestedGroupsOpen(.undo, groupingLevel: 2))
        #expect(stack.lastMisuse?.description.contains("too many nested undo groups") == true)
        #expect(stack._structure == before)
        #expect(counter.value == 2)
    }

    @Test func undoNestedGroupWithAnOpenGroup() {
        let (stack, counter) = populated()
        stack.beginUndoGrouping()
        let before = stack._structure
        stack.undoNestedGroup()
        #expect(counter.value == 2)
        #expect(stack.lastMisuse == .undoNestedGroupWithOpenGroup)
        #expect(stack.lastMisuse?.description.contains("call endUndoGrouping() before calling this method") == true)
        #expect(stack._structure == before)
    }

    @Test func registrationWithNoOpenGroup() {
        let (stack, counter) = populated()
        let before = stack._structure
        counter.set(9, on: stack)
        #expect(stack.lastMisuse == .noOpenGroup(.registerUndo))
        #expect(stack._structure == before)
    }

    @Test func misuseDescriptionsNameTheCallAndTheProblem() {
        let cases: [ActionStack.Misuse] = [
            .endWithoutBegin, .enableWithoutDisable, .nestedGroupsOpen(.undo, groupingLevel: 2),
            .undoNestedGroupWithOpenGroup, .redoWhileUndoing, .noOpenGroup(.setActionName),
            .reentrantCall(.undo, during: .undoing), .reentrantCall(.removeAllActions, during: .notifyingRedo),
        ]
        for misuse in cases {
            #expect(misuse.description.contains(misuse.operation.description), "\(misuse)")
            #expect(misuse.description.count > misuse.operation.description.count + 10)
        }
        #expect(Set(cases.map(\.description)).count == cases.count)
    }
}

/// Trap mode: each misuse stops the process, as Foundation's exception does.
struct TrapModeTests {
    /// A stack in trap mode with explicit grouping.
    static func trappingStack() -> ActionStack {
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.misusePolicy = .trap
        return stack
    }

    /// Undoes a one-action step whose handler calls `call` on the stack.
    static func undoStep(whoseHandlerCalls call: @escaping (ActionStack) -> Void) {
        let stack = trappingStack()
        let target = Captured()
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: target) { _ in call(stack) }
        stack.endUndoGrouping()
        stack.undo()
    }

    @Test func endWithoutBeginTraps() async {
        await #expect(processExitsWith: .failure) { TrapModeTests.trappingStack().endUndoGrouping() }
    }

    @Test func enableWithoutDisableTraps() async {
        await #expect(processExitsWith: .failure) { TrapModeTests.trappingStack().enableUndoRegistration() }
    }

    @Test func undoWithNestedGroupsTraps() async {
        await #expect(processExitsWith: .failure) {
            let stack = TrapModeTests.trappingStack()
            stack.beginUndoGrouping()
            stack.beginUndoGrouping()
            stack.undo()
        }
    }

    @Test func undoNestedGroupWithOpenGroupTraps() async {
        await #expect(processExitsWith: .failure) {
            let stack = TrapModeTests.trappingStack()
            stack.beginUndoGrouping()
            stack.undoNestedGroup()
        }
    }

    @Test func registrationWithoutGroupTraps() async {
        await #expect(processExitsWith: .failure) {
            let stack = TrapModeTests.trappingStack()
            stack.registerUndo(withTarget: stack) { _ in }
        }
    }

    @Test func setterWithoutGroupTraps() async {
        await #expect(processExitsWith: .failure) { TrapModeTests.trappingStack().setActionName("X") }
    }

    @Test func reentrantUndoTraps() async {
        await #expect(processExitsWith: .failure) { TrapModeTests.undoStep { $0.undo() } }
    }

    @Test func redoWhileUndoingTraps() async {
        await #expect(processExitsWith: .failure) { TrapModeTests.undoStep { $0.redo() } }
    }

    @Test func removeAllActionsFromAHandlerTraps() async {
        await #expect(processExitsWith: .failure) { TrapModeTests.undoStep { $0.removeAllActions() } }
    }

    @Test func correctUseDoesNotTrap() async {
        await #expect(processExitsWith: .success) {
            TrapModeTests.undoStep { _ in }
            let stack = TrapModeTests.trappingStack()
            stack.undo()
            stack.redo()
        }
    }
}

/// The three misuse policies, observed from outside the process (exit tests read standard error).
struct MisusePolicyTests {
    @Test func theDefaultPolicyLogsOneLinePerMisuseToStandardErrorAndCarriesOn() async throws {
        let result = try #require(
            await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let stack = ActionStack()  // the default policy
                stack.groupsByEvent = false
                stack.endUndoGrouping()
                stack.setActionName("X")
                stack.registerUndo(withTarget: stack) { _ in }
                precondition(stack.lastMisuse == .noOpenGroup(.registerUndo))
            }
        )
        let lines = String(decoding: result.standardErrorContent, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("ActionStack misuse: ") })
        #expect(lines.first == "ActionStack misuse: endUndoGrouping() called with no matching beginUndoGrouping()")
        #expect(lines.last?.contains("must begin a group before registering undo") == true)
    }

    @Test func theReportPolicyIsSilent() async throws {
        let result = try #require(
            await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let stack = ActionStack()
                stack.misusePolicy = .report
                stack.groupsByEvent = false
                stack.endUndoGrouping()
                stack.registerUndo(withTarget: stack) { _ in }
                precondition(stack.lastMisuse == .noOpenGroup(.registerUndo))
            }
        )
        #expect(result.standardErrorContent.isEmpty)
    }

    @Test func theTrapPolicyStopsTheProcessWithTheMessage() async throws {
        let result = try #require(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let stack = ActionStack()
                stack.misusePolicy = .trap
                stack.endUndoGrouping()
            }
        )
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("ActionStack misuse: endUndoGrouping() called with no matching beginUndoGrouping()"))
    }

    @Test func everyPolicyButTrapReportsToLastMisuseAndOnMisuse() async throws {
        let stack = ActionStack()
        stack.misusePolicy = .report
        var heard: [ActionStack.Misuse] = []
        stack.onMisuse = { heard.append($0) }
        stack.enableUndoRegistration()
        #expect(stack.lastMisuse == .enableWithoutDisable)
        #expect(heard == [.enableWithoutDisable])
        // `.log` in a child process, whose standard error the test reads, so that a passing run
        // prints no misuse line of its own.
        let result = try #require(
            await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let stack = ActionStack()
                stack.misusePolicy = .log
                nonisolated(unsafe) var heard: [ActionStack.Misuse] = []
                stack.onMisuse = { heard.append($0) }
                stack.enableUndoRegistration()
                precondition(stack.lastMisuse == .enableWithoutDisable)
                precondition(heard == [.enableWithoutDisable])
            }
        )
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            text == "ActionStack misuse: enableUndoRegistration() called with no matching "
                + "disableUndoRegistration()\n")
    }

    @Test func aMisuseFromInsideOnMisuseIsNotReportedToItAgain() {
        let stack = makeStack()
        var calls = 0
        stack.onMisuse = { _ in
            calls += 1
            stack.enableUndoRegistration()  // another misuse, from inside the callback
        }
        stack.enableUndoRegistration()
        #expect(calls == 1)
        #expect(stack.lastMisuse == .enableWithoutDisable)
    }

    @Test func aRefusedCallChangesNothingElse() {
        // No published state, no clean-point move, no end of coalescing.
        let stack = makeStack(groupsByEvent: true)
        stack.automaticGroupClosing = .manual
        let text = Counter()
        CoalescingTests.typing(stack, text, 1)
        stack.endEvent()
        CoalescingTests.typing(stack, text, 2)
        stack.endEvent()
        var published = 0
        let token = stack.observe { _ in published += 1 }
        let shape = stack._stateShape
        let structure = stack._structure
        stack.endUndoGrouping()  // nothing open
        stack.enableUndoRegistration()  // never disabled
        stack.groupsByEvent = false
        stack.setActionName("X")  // no group, groupsByEvent off
        stack.groupsByEvent = true
        #expect(published == 0)
        #expect(stack._stateShape == shape)
        #expect(stack._structure == structure)
        CoalescingTests.typing(stack, text, 3)
        stack.endEvent()
        #expect(stack.undoCount == 1, "still one coalesced step")
        _ = token
    }
}
