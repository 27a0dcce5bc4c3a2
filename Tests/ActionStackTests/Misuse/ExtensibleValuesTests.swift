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

/// The public values that may grow (misuses, errors, reasons) are structs with static members, so a
/// new value is no breaking change; these tests hold what clients rely on: the old spellings still
/// build and match values, each accessor returns what its value carries and nil for the others,
/// values are equal only when they are the same value with the same payload, and descriptions stay
/// the sentences they were. The frozen enums keep their exhaustive `switch`.
struct ExtensibleValuesTests {
    // MARK: Misuse

    @Test func misusesMatchTheirStaticMembersInPatterns() {
        func name(_ misuse: ActionStack.Misuse) -> String {
            switch misuse {
            case .endWithoutBegin: "endWithoutBegin"
            case .reentrantCall(.undo, during: .undoing): "undo while undoing"
            case .nestedGroupsOpen(.redo, groupingLevel: 2): "redo with two groups"
            default: "other"
            }
        }
        #expect(name(.endWithoutBegin) == "endWithoutBegin")
        #expect(name(.reentrantCall(.undo, during: .undoing)) == "undo while undoing")
        #expect(name(.reentrantCall(.undo, during: .redoing)) == "other", "the payload is compared too")
        #expect(name(.nestedGroupsOpen(.redo, groupingLevel: 2)) == "redo with two groups")
        #expect(name(.nestedGroupsOpen(.redo, groupingLevel: 3)) == "other")
        #expect(ActionStack.Misuse.noOpenGroup(.setValue) != .stepIsBroken(.setValue), "same payload, other misuse")
    }

    @Test func aMisuseTellsItsKindOperationActivityAndGroupingLevel() {
        let reentrant = ActionStack.Misuse.reentrantCall(.removeAllActions, during: .notifyingUndo)
        #expect(reentrant.kind == .reentrantCall)
        #expect(reentrant.operation == .removeAllActions)
        #expect(reentrant.activity == .notifyingUndo)
        #expect(reentrant.groupingLevel == nil)
        let nested = ActionStack.Misuse.nestedGroupsOpen(.jump, groupingLevel: 3)
        #expect(nested.kind == .nestedGroupsOpen)
        #expect(nested.operation == .jump)
        #expect(nested.activity == nil)
        #expect(nested.groupingLevel == 3)
        // The misuses without a payload name the call they are about.
        #expect(ActionStack.Misuse.endWithoutBegin.operation == .endUndoGrouping)
        #expect(ActionStack.Misuse.enableWithoutDisable.operation == .enableUndoRegistration)
        #expect(ActionStack.Misuse.undoNestedGroupWithOpenGroup.operation == .undoNestedGroup)
        #expect(ActionStack.Misuse.redoWhileUndoing.operation == .redo)
        for kind in ActionStack.Misuse.Kind.allCases {
            #expect(ActionStack.Misuse.Kind.allCases.filter { $0 == kind }.count == 1, "\(kind) once")
        }
    }

    @Test func aReportedMisuseCarriesItsValues() {
        let stack = ActionStack()
        stack.misusePolicy = .report
        stack.groupsByEvent = false
        stack.beginUndoGrouping()
        stack.beginUndoGrouping()
        stack.undo()
        #expect(stack.lastMisuse == .nestedGroupsOpen(.undo, groupingLevel: 2))
        #expect(stack.lastMisuse?.groupingLevel == 2)
        #expect(stack.lastMisuse?.kind == .nestedGroupsOpen)
    }

    @Test func misuseDescriptionsAreTheSentencesTheyWere() {
        #expect(
            ActionStack.Misuse.endWithoutBegin.description
                == "endUndoGrouping() called with no matching beginUndoGrouping()")
        #expect(
            ActionStack.Misuse.reentrantCall(.removeAllActions, during: .notifyingUndo).description
                == "removeAllActions() was called while an undo is posting its will/did notifications; "
                + "the call was ignored")
        #expect(ActionStack.Misuse.Kind.reentrantCall.description == "reentrantCall")
    }

    @Test func operationsAndActivitiesRoundTripTheirRawValues() {
        for operation in ActionStack.Misuse.Operation.allCases {
            #expect(ActionStack.Misuse.Operation(rawValue: operation.rawValue) == operation)
            #expect(operation.description == operation.rawValue)
        }
        #expect(ActionStack.Misuse.Operation.undo.rawValue == "undo()")
        #expect(ActionStack.Misuse.Operation(rawValue: "no such call") == nil)
        for activity in ActionStack.Misuse.Activity.allCases {
            #expect(ActionStack.Misuse.Activity(rawValue: activity.rawValue) == activity)
        }
        #expect(ActionStack.Misuse.Activity.undoing.description == "an undo is running its handlers")
    }

    /// The re-entrancy table's internal keys and the public values are kept apart, with one mapping:
    /// every public operation and activity is what some key reports, and every key reports one.
    @Test func theTablesKeysReportEveryPublicOperationAndActivity() {
        #expect(
            Set(ActionStack.OperationKey.allCases.map(\.reported)) == Set(ActionStack.Misuse.Operation.allCases))
        #expect(Set(ActionStack.ActivityKey.allCases.map(\.reported)) == Set(ActionStack.Misuse.Activity.allCases))
    }

    /// The keys are what `Activities` pushes and pops on the undo and redo path, and what the entry
    /// points of the synchronous core pass: one byte each, with nothing to retain.
    @Test func theTablesKeysAreOneByteWithNothingToRetain() {
        #expect(MemoryLayout<ActionStack.ActivityKey>.size == 1)
        #expect(MemoryLayout<ActionStack.OperationKey>.size == 1)
        #expect(_isPOD(ActionStack.ActivityKey.self) && _isPOD(ActionStack.OperationKey.self))
    }

    @Test func misusePoliciesCompare() {
        let stack = ActionStack()
        #expect(stack.misusePolicy == .log)
        stack.misusePolicy = .report
        #expect(stack.misusePolicy == .report)
        #expect(stack.misusePolicy != .trap)
    }

    // MARK: Asynchronous operations

    struct Offline: Error {}

    @MainActor @Test func anActionFailureIsReadThroughItsAccessor() async throws {
        let stack = ActionStack()
        stack.groupsByEvent = false
        let target = NSObject()
        stack.beginUndoGrouping()
        stack.registerAsyncUndo(withTarget: target) { _ in throw Offline() }
        stack.endUndoGrouping()
        do {
            try await stack.performUndo()
            Issue.record("the undo should fail")
        } catch {
            let failure = try #require(error.actionFailure)
            #expect(failure.underlying is Offline)
            #expect(failure.rollback.isRestored)
            #expect(failure.rollback.unrestoredActions == nil)
            #expect(failure.rollback.failedActionIndex == nil && failure.rollback.error == nil)
            #expect(error.cancellationReason == nil && error.dropReason == nil && !error.isStackBroken)
            #expect(error.misuse == nil && error.historyTreeError == nil)
        }
    }

    @Test func operationErrorsCarryOnlyTheirOwnValues() {
        let cancelled = ActionStack.OperationError.cancelled(.newChange)
        #expect(cancelled.cancellationReason == .newChange)
        #expect(cancelled.actionFailure == nil && cancelled.dropReason == nil && !cancelled.isStackBroken)
        let dropped = ActionStack.OperationError.dropped(.queueFull)
        #expect(dropped.dropReason == .queueFull && dropped.cancellationReason == nil)
        #expect(ActionStack.OperationError.stackBroken.isStackBroken)
        let misuse = ActionStack.OperationError.misuse(.awaitsOwnOperation(.undo))
        #expect(misuse.misuse == .awaitsOwnOperation(.undo))
        let tree = ActionStack.OperationError.historyTree(.linearHistory)
        #expect(tree.historyTreeError == .linearHistory && tree.misuse == nil)
        #expect(
            cancelled.description
                == "the request was cancelled before it started (a new change was recorded while it waited)")
        #expect(dropped.description == "the request was dropped (the queue of pending requests was full)")
    }

    @Test func rollbacksCarryOnlyTheirOwnValues() {
        let incomplete = ActionStack.Rollback.incomplete(unrestoredActions: [0, 2])
        #expect(
            !incomplete.isRestored && incomplete.unrestoredActions == [0, 2] && incomplete.failedActionIndex == nil)
        let failed = ActionStack.Rollback.failed(actionIndex: 1, error: Offline())
        #expect(!failed.isRestored && failed.unrestoredActions == nil && failed.failedActionIndex == 1)
        #expect(failed.error is Offline)
        #expect(incomplete.description == "the rollback could not undo actions [0, 2]")
    }

    @Test func reasonsRoundTripTheirRawValues() {
        for reason in [
            ActionStack.CancellationReason.task, .cancelPendingRequests, .removeAllActions, .newChange, .brokenStep,
        ] {
            #expect(ActionStack.CancellationReason(rawValue: reason.rawValue) == reason)
        }
        #expect(ActionStack.CancellationReason.task.description == "its task was cancelled")
        for reason in [ActionStack.DropReason.busy, .queueFull] {
            #expect(ActionStack.DropReason(rawValue: reason.rawValue) == reason)
        }
        #expect(ActionStack.DropReason(rawValue: "no such reason") == nil)
    }

    @Test func busyPoliciesTellTheirLimit() {
        #expect(ActionStack.BusyPolicy.default == .queue(limit: 64))
        #expect(ActionStack.BusyPolicy.default.queueLimit == 64)
        #expect(ActionStack.BusyPolicy.dropWhileBusy.queueLimit == nil)
        #expect(ActionStack.BusyPolicy.queue(limit: 3) != .queue(limit: 4))
    }

    @Test func requestKindsTellWhereTheyGo() {
        let node = ActionStack.HistoryNode.ID(sequence: 4)
        #expect(ActionStack.OperationRequest.Kind.jump(to: 2).position == 2)
        #expect(ActionStack.OperationRequest.Kind.jump(to: 2).node == nil)
        #expect(ActionStack.OperationRequest.Kind.jumpToNode(node).node == node)
        #expect(ActionStack.OperationRequest.Kind.undo.position == nil)
        #expect(ActionStack.OperationRequest.Kind.undo != .redo)
    }

    // MARK: The branching history

    @Test func treeErrorsTellTheirNode() {
        let node = ActionStack.HistoryNode.ID(sequence: 7)
        #expect(ActionStack.HistoryTreeError.noSuchNode(node).node == node)
        #expect(ActionStack.HistoryTreeError.notAChildOfCurrentNode(node).node == node)
        #expect(ActionStack.HistoryTreeError.linearHistory.node == nil)
        #expect(ActionStack.HistoryTreeError.noSuchNode(node) != .notAChildOfCurrentNode(node))
        #expect(ActionStack.HistoryTreeError.noSuchNode(node).description == "no node #7 in the history")
    }

    // MARK: The saved history

    @Test func savedActionProblemsCarryOnlyTheirOwnValues() {
        let newer = SavedActionProblem.newerVersion(type: "t", version: 3, known: 2)
        #expect(newer.commandType == "t" && newer.version == 3 && newer.knownVersion == 2 && newer.reason == nil)
        let failed = SavedActionProblem.decodingFailed(type: "t", reason: "bad")
        #expect(failed.reason == "bad" && failed.version == nil)
        let unknown = SavedActionProblem.unknownType("t")
        #expect(unknown.commandType == "t" && unknown.reason == nil && unknown.version == nil)
        #expect(unknown.description == #"unknown command type "t""#)
    }

    @Test func structuralProblemsTellTheirKindAndNodes() {
        let problem = SavedHistory.StructuralProblem.missingParent(node: 3, parent: 9)
        #expect(problem.kind == .missingParent)
        #expect(problem.node == 3 && problem.parent == 9 && problem.cost == nil)
        let version = SavedHistory.StructuralProblem.invalidCommandVersion(type: "t", version: 0)
        #expect(version.kind == .invalidCommandVersion && version.node == nil)
        #expect(version.commandType == "t" && version.version == 0)
        #expect(SavedHistory.StructuralProblem.negativeCost(node: 1, cost: -2).cost == -2)
        #expect(SavedHistory.StructuralProblem.cycle(node: 2) != .duplicateNode(2))
        #expect(problem.description == "the parent 9 of node 3 is not in the history")
    }

    @Test func replayEndingsCarryOnlyTheirOwnValues() {
        let torn = HistoryJournal.Replay.Ending.tornRecord(offset: 16, length: 5)
        #expect(torn.offset == 16 && torn.length == 5 && torn.reason == nil && torn.droppedBytes == nil)
        let corrupt = HistoryJournal.Replay.Ending.corruptRecord(offset: 40, reason: "checksum", droppedBytes: 60)
        #expect(corrupt.offset == 40 && corrupt.reason == "checksum" && corrupt.droppedBytes == 60)
        #expect(corrupt.length == nil)
        #expect(HistoryJournal.Replay.Ending.complete.offset == nil)
        #expect(HistoryJournal.Replay.Ending.complete.description == "every record was intact")
    }

    @Test func restoreReasonsCarryOnlyTheirOwnValues() {
        let wrong = ActionStack.RestoreReport.Reason.wrongTargetType(key: "k", commandType: "t")
        #expect(wrong.key == "k" && wrong.commandType == "t" && wrong.commandProblem == nil)
        let unresolved = ActionStack.RestoreReport.Reason.unresolvedKey("k")
        #expect(unresolved.key == "k" && unresolved.commandType == nil)
        let command = ActionStack.RestoreReport.Reason.command(.unknownType("t"))
        #expect(command.commandProblem == .unknownType("t") && command.key == nil)
        #expect(unresolved.description == #"no object for key "k""#)
    }

    @Test func persistenceErrorsCarryOnlyTheirOwnValues() {
        let misuse = ActionStack.HistoryPersistenceError.misuse(.historyNotEmpty(.restoreHistory))
        #expect(misuse.misuse == .historyNotEmpty(.restoreHistory) && misuse.malformation == nil)
        let malformed = ActionStack.HistoryPersistenceError.malformed("a cycle")
        #expect(malformed.malformation == "a cycle" && malformed.misuse == nil)
        #expect(ActionStack.HistoryPersistenceError.busy != .groupIsOpen)
        #expect(malformed.description == "the saved history is malformed: a cycle")
    }

    @Test func archiveErrorsCarryOnlyTheirOwnValues() {
        let newer = HistoryArchiveError.newerFormatVersion(9, newestSupported: 2)
        #expect(newer.formatVersion == 9 && newer.newestSupportedVersion == 2 && newer.corruption == nil)
        let large = HistoryArchiveError.tooLarge(.steps, maximum: 10)
        #expect(large.limit == .steps && large.maximum == 10 && large.formatVersion == nil)
        let invalid = HistoryArchiveError.invalidHistory("h", .cycle(node: 1))
        #expect(invalid.historyName == "h" && invalid.structuralProblem == .cycle(node: 1))
        let mismatch = HistoryArchiveError.fingerprintMismatch(expected: "a", found: "b")
        #expect(mismatch.expectedFingerprint == "a" && mismatch.foundFingerprint == "b")
        #expect(HistoryArchiveError.corrupt("x").corruption == "x")
        #expect(HistoryArchiveError.notAnArchive.description == "not an ActionStack history archive")
        #expect(large.description == "the history archive is over the limit of 10 steps in a history")
    }

    @Test func limitKindsRoundTripTheirNames() {
        #expect(HistoryArchive.Limits.Kind.allCases.count == 7)
        for kind in HistoryArchive.Limits.Kind.allCases {
            #expect(HistoryArchive.Limits.Kind(rawValue: kind.rawValue) == kind)
            #expect(HistoryArchive.Limits.default[kind] > 0)
        }
        #expect(HistoryArchive.Limits.Kind.bytes.rawValue == "bytes")
        #expect(HistoryArchive.Limits.Kind.nestingDepth.description == "levels of nesting")
    }

    @Test func fileErrorsTellTheirKindAndCarryTheirValues() {
        let write = HistoryFileError.cannotWrite(path: "/p", reason: "full", code: ENOSPC)
        #expect(write.kind == .cannotWrite && write.path == "/p" && write.reason == "full" && write.code == ENOSPC)
        #expect(write.size == nil && write.limit == nil)
        #expect(HistoryFileError.cannotRead(path: "/p", reason: "full", code: ENOSPC) != write, "another kind")
        let large = HistoryFileError.tooLarge(path: "/p", size: 20, limit: 10)
        #expect(large.kind == .tooLarge && large.size == 20 && large.limit == 10 && large.reason == nil)
        #expect(large.code == nil)
        #expect(HistoryFileError.notAJournal(path: "/p", reason: "magic").kind == .notAJournal)
        #expect(write.description == "cannot write /p: full")
    }

    // MARK: Frozen enums

    /// A frozen enum never gains a case, so a client's `switch` needs no `default`.
    @Test func frozenEnumsAreSwitchedExhaustively() {
        func name(_ shape: ActionStack.HistoryShape) -> String {
            switch shape {
            case .linear: "linear"
            case .tree: "tree"
            }
        }
        func name(_ closing: AutomaticGroupClosing) -> String {
            switch closing {
            case .runLoop: "runLoop"
            case .manual: "manual"
            }
        }
        func name(_ value: SavedValue) -> String {
            switch value {
            case .string: "string"
            case .int: "int"
            case .double: "double"
            case .bool: "bool"
            case .date: "date"
            case .data: "data"
            }
        }
        #expect(name(ActionStack().historyShape) == "linear")
        #expect(name(ActionStack().automaticGroupClosing) == "runLoop")
        #expect(name(SavedValue.int(1)) == "int")
    }
}
