// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The interaction matrix: for each pair of features, what covers it. A feature added later gets a
// case in `Feature` and a row for each other feature (the test below fails until it has them).
//
// What the coverage strings name:
// - `Acceptance "..."`: a hand-worked example in ReferenceModelTests.swift; it runs on the model
//   (ReferenceModelTests) and on the stack (RandomDriverTests.stackFollowsTheHandWorkedExample).
// - `Suite.test`: a test of the library's own suites (`swift test --filter Suite/test` runs it).
//   They were written for the library before the rewrite of issues 11-13; the engineer who lands
//   the rewrite revises them, so a name may move.
// - `random driver: ops x ops`: the random driver interleaves these operations in every sequence
//   and compares the stack with the model after each step; "(random driver only)" says that nothing
//   else covers the pair, so the cover is statistical, not a worked example.
// - "not covered": nothing does. ActionStackGroup is not in the driver (one stack per world).

import Testing

/// The features whose pairs the matrix covers.
enum Feature: String, CaseIterable, Sendable {
    case registration
    case automaticGroup
    case undoRedo
    case undoNestedGroup
    case jump
    case removalByTarget
    case freedTargets
    case levels
    case cost
    case cleanState
    case coalescing
    case scopedGroups
    case setValue
    case metadata
    case emptyGroupModes
    case notificationObservers
    case statePublishing
    case stackGroup
    case misusePolicies
    case disableEnable
}

/// One pair of features and what covers it.
struct InteractionRow: Sendable {
    var first: Feature
    var second: Feature
    var coveredBy: [String]

    init(_ first: Feature, _ second: Feature, _ coveredBy: [String]) {
        self.first = first
        self.second = second
        self.coveredBy = coveredBy
    }
}

enum InteractionMatrix {
    static let rows: [InteractionRow] = [
        .init(
            .registration, .automaticGroup,
            [
                "Acceptance \"groupsByEvent: three registrations then the end of the event\"",
                "NotificationSequenceTests.threeRegistrationsInOnePassOpenOnceAndCloseAtTheEnd",
                "random driver: .register(plain/cost/key) x .begin/.end/.endEvent/.groupsByEvent",
            ]),
        .init(
            .registration, .undoRedo,
            [
                "Acceptance \"groupsByEvent: three registrations then undo() in the same pass\"",
                "UndoRedoTests.registrationsDuringRedoGoToTheUndoStackAndKeepTheRedoStack",
                "random driver: .register(plain/cost/key) x .undo/.redo",
            ]),
        .init(
            .registration, .undoNestedGroup,
            ["random driver: .register(plain/cost/key) x .undoNested (random driver only)"]),
        .init(.registration, .jump, ["random driver: .register(plain/cost/key) x .jump (random driver only)"]),
        .init(
            .registration, .removalByTarget,
            ["random driver: .register(plain/cost/key) x .removeTarget/.removeValue/.removeAll (random driver only)"]),
        .init(
            .registration, .freedTargets,
            ["random driver: .register(plain/cost/key) x .free/.replace (random driver only)"]),
        .init(.registration, .levels, ["random driver: .register(plain/cost/key) x .levels (random driver only)"]),
        .init(
            .registration, .cost,
            ["random driver: .register(plain/cost/key) x .maximumCost/.register(cost:) (random driver only)"]),
        .init(
            .registration, .cleanState,
            ["random driver: .register(plain/cost/key) x .markClean/_stateShape/isClean entries (random driver only)"]),
        .init(
            .registration, .coalescing,
            [
                "random driver: .register(plain/cost/key) x .register(key:window:)/.advanceClock/.breakCoalescing (random driver only)"
            ]),
        .init(
            .registration, .scopedGroups,
            ["random driver: .register(plain/cost/key) x .scope (nested, throwing) (random driver only)"]),
        .init(.registration, .setValue, ["random driver: .register(plain/cost/key) x .setValue (random driver only)"]),
        .init(
            .registration, .metadata,
            ["random driver: .register(plain/cost/key) x .name/.discardable/.info + title queries (random driver only)"]
        ),
        .init(
            .registration, .emptyGroupModes,
            [
                "random driver: .register(plain/cost/key) x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"
            ]),
        .init(
            .registration, .notificationObservers,
            ["random driver: .register(plain/cost/key) x callback plan on the 9 notifications (random driver only)"]),
        .init(
            .registration, .statePublishing,
            [
                "random driver: .register(plain/cost/key) x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.registration, .stackGroup, ["not covered"]),
        .init(
            .registration, .misusePolicies,
            [
                "TrapModeTests.registrationWithoutGroupTraps",
                "random driver: .register(plain/cost/key) x config .report/.log; every refused op",
            ]),
        .init(
            .registration, .disableEnable,
            ["random driver: .register(plain/cost/key) x .disable/.enable (random driver only)"]),
        .init(
            .automaticGroup, .undoRedo,
            [
                "Acceptance \"groupsByEvent: three registrations then undo() in the same pass\"",
                "Acceptance \"undo() posts in preparingUndo, its step's activities stacked on it\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .undo/.redo",
            ]),
        .init(
            .automaticGroup, .undoNestedGroup,
            ["random driver: .begin/.end/.endEvent/.groupsByEvent x .undoNested (random driver only)"]),
        .init(
            .automaticGroup, .jump,
            [
                "Acceptance \"jump(to: historyPosition) with the automatic group holding an action does not undo it\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .jump",
            ]),
        .init(
            .automaticGroup, .removalByTarget,
            [
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .removeTarget/.removeValue/.removeAll (random driver only)"
            ]),
        .init(
            .automaticGroup, .freedTargets,
            ["random driver: .begin/.end/.endEvent/.groupsByEvent x .free/.replace (random driver only)"]),
        .init(
            .automaticGroup, .levels,
            [
                "LevelsOfUndoTests.openGroupIsNeverTrimmed",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .levels",
            ]),
        .init(
            .automaticGroup, .cost,
            [
                "Acceptance \"maximumCost set with a group open keeps the newest closed step\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .maximumCost/.register(cost:)",
            ]),
        .init(
            .automaticGroup, .cleanState,
            [
                "Acceptance \"history entries: titles, counts, clean flags, isCleanAtStart\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .markClean/_stateShape/isClean entries",
            ]),
        .init(
            .automaticGroup, .coalescing,
            [
                "Acceptance \"coalescing and setActionName per keystroke: one named step, no group opened\"",
                "Acceptance \"a keystroke does not join a step that holds another target's change\"",
                "Acceptance \"a keystroke outside the window does not join\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .register(key:window:)/.advanceClock/.breakCoalescing",
            ]),
        .init(
            .automaticGroup, .scopedGroups,
            [
                "Acceptance \"a scope that succeeds names and closes its group\"",
                "ScopedGroupTests.withGroupsByEventTheScopeNestsInTheAutomaticGroup",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .scope (nested, throwing)",
            ]),
        .init(
            .automaticGroup, .setValue,
            [
                "Acceptance \"setValue: one named step, undone and redone\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .setValue",
            ]),
        .init(
            .automaticGroup, .metadata,
            [
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .name/.discardable/.info + title queries (random driver only)"
            ]),
        .init(
            .automaticGroup, .emptyGroupModes,
            [
                "Acceptance \"an empty group, Foundation mode: an empty step that empties the redo side\"",
                "Acceptance \"an empty group, drop mode: dropped, redo side kept, notifications balanced\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x config dropsEmptyGroups/.dropsEmptyGroups",
            ]),
        .init(
            .automaticGroup, .notificationObservers,
            [
                "Acceptance \"groupsByEvent: three registrations then the end of the event\"",
                "NotificationSequenceTests.setterThatOpensTheAutomaticGroupPostsDidOpenOnly",
                "Acceptance \"begin with the automatic group: DidOpen, C (openingGroup), DidOpen; level 2\"",
                "Acceptance \"a checkpoint observer's own calls post no checkpoint (canRedo, endUndoGrouping)\"",
                "Acceptance \"a WillClose observer of endUndoGrouping registers into the closing group\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x callback plan on the 9 notifications",
            ]),
        .init(
            .automaticGroup, .statePublishing,
            [
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(
            .automaticGroup, .stackGroup,
            ["StackGroupTests.switchingTheActiveStackInTheMiddleOfAGroupLeavesThatGroupOpen"]),
        .init(
            .automaticGroup, .misusePolicies,
            [
                "Acceptance \"a DidOpen observer inside begin (openingGroup) cannot begin a group\"",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x config .report/.log; every refused op",
            ]),
        .init(
            .automaticGroup, .disableEnable,
            [
                "Acceptance \"endEvent while registration is disabled closes the automatic group\"",
                "RegistrationTests.groupingAndSettersAreNoOpsWhileDisabled",
                "random driver: .begin/.end/.endEvent/.groupsByEvent x .disable/.enable",
            ]),
        .init(.undoRedo, .undoNestedGroup, ["random driver: .undo/.redo x .undoNested (random driver only)"]),
        .init(
            .undoRedo, .jump,
            [
                "Acceptance \"a jump's steps run inside jumping, and their handlers can register\"",
                "HistoryEntryTests.jumpGoesSeveralStepsEitherWayAndPostsEachStep",
                "random driver: .undo/.redo x .jump",
            ]),
        .init(
            .undoRedo, .removalByTarget,
            [
                "Acceptance \"two steps from clean, remove the first step's target, undo: not clean\"",
                "RemovalTests.removeAllActionsWithTargetRemovesOnlyThatTargetOnBothStacks",
                "random driver: .undo/.redo x .removeTarget/.removeValue/.removeAll",
            ]),
        .init(
            .undoRedo, .freedTargets,
            [
                "Acceptance \"a dead step on top is dropped by canUndo; its far end is new after partial removal\"",
                "DeadStepsAndLimitsTests.undoSkipsFreedStepsOnTopAndTheNextQueryFindsTheRest",
                "Acceptance \"a sweep during an activity is computed as if; the undone step is detached after WillUndo\"",
                "random driver: .undo/.redo x .free/.replace",
            ]),
        .init(.undoRedo, .levels, ["random driver: .undo/.redo x .levels (random driver only)"]),
        .init(
            .undoRedo, .cost,
            [
                "CostLimitTests.costsLeaveWithUndoneRemovedAndClearedActions",
                "random driver: .undo/.redo x .maximumCost/.register(cost:)",
            ]),
        .init(
            .undoRedo, .cleanState,
            [
                "Acceptance \"undo back to the clean point and redo away from it\"",
                "CleanStateTests.undoingAndRedoingBackToTheMarkedPointIsClean",
                "random driver: .undo/.redo x .markClean/_stateShape/isClean entries",
            ]),
        .init(
            .undoRedo, .coalescing,
            [
                "CoalescingTests.anotherKindUndoRedoAndTheCleanPointEndCoalescing",
                "random driver: .undo/.redo x .register(key:window:)/.advanceClock/.breakCoalescing",
            ]),
        .init(
            .undoRedo, .scopedGroups,
            [
                "ScopedGroupTests.aScopeInsideAnUndoHandlerRollsBackWithinTheRedoGroup",
                "ScopedGroupTests.aScopeWhoseBodyUndidItsOwnGroupLeavesTheRedoStep",
                "random driver: .undo/.redo x .scope (nested, throwing)",
            ]),
        .init(
            .undoRedo, .setValue,
            ["PropertyChangeTests.setValueIsUndoableAndRedoable", "random driver: .undo/.redo x .setValue"]),
        .init(
            .undoRedo, .metadata,
            [
                "NamesAndTitlesTests.nameTravelsFromUndoToRedoAndBack",
                "UndoRedoTests.handlerCanRenameTheRedoGroup",
                "random driver: .undo/.redo x .name/.discardable/.info + title queries",
            ]),
        .init(
            .undoRedo, .emptyGroupModes,
            [
                "Acceptance \"redo() closing an empty group in Foundation mode has nothing left to redo\"",
                "Acceptance \"an empty group, Foundation mode: an empty step that empties the redo side\"",
                "Acceptance \"redo while registration is disabled: drop mode builds no step\"",
                "RegistrationDisabledTests.aRedoWhoseHandlersRegisterNothing",
                "random driver: .undo/.redo x config dropsEmptyGroups/.dropsEmptyGroups",
            ]),
        .init(
            .undoRedo, .notificationObservers,
            [
                "Acceptance \"undo() posts in preparingUndo, its step's activities stacked on it\"",
                "Acceptance \"a registration from a WillUndo observer is refused; from a DidOpen observer it works\"",
                "Acceptance \"redo from an undo handler's checkpoint is redoWhileUndoing\"",
                "random driver: .undo/.redo x callback plan on the 9 notifications",
            ]),
        .init(
            .undoRedo, .statePublishing,
            [
                "ObservationTests.observersHearOncePerCallAndOnlyWhenSomethingChanged",
                "random driver: .undo/.redo x .addObserver/.cancelObserver/.query(.state) + plan on observe",
            ]),
        .init(.undoRedo, .stackGroup, ["StackGroupTests.theGroupActsOnTheActiveStack"]),
        .init(
            .undoRedo, .misusePolicies,
            [
                "TrapModeTests.undoWithNestedGroupsTraps", "TrapModeTests.redoWhileUndoingTraps",
                "Acceptance \"a WillClose observer of undo()'s close adds to the closing group, as at any close\"",
                "random driver: .undo/.redo x config .report/.log; every refused op",
            ]),
        .init(
            .undoRedo, .disableEnable,
            [
                "UndoRedoTests.undoClosesTheOpenGroupEvenWhileRegistrationIsDisabled",
                "Acceptance \"redo while registration is disabled: Foundation mode builds no step\"",
                "RegistrationDisabledTests.undoRunsTheStepAndBuildsNoRedoStep",
                "RegistrationDisabledTests.redoRunsTheStepAndBuildsNoUndoStep",
                "RegistrationDisabledTests.redoBuildsAgainOnceRegistrationIsEnabled",
                "random driver: .undo/.redo x .disable/.enable",
            ]),
        .init(.undoNestedGroup, .jump, ["random driver: .undoNested x .jump (random driver only)"]),
        .init(
            .undoNestedGroup, .removalByTarget,
            ["random driver: .undoNested x .removeTarget/.removeValue/.removeAll (random driver only)"]),
        .init(.undoNestedGroup, .freedTargets, ["random driver: .undoNested x .free/.replace (random driver only)"]),
        .init(.undoNestedGroup, .levels, ["random driver: .undoNested x .levels (random driver only)"]),
        .init(
            .undoNestedGroup, .cost, ["random driver: .undoNested x .maximumCost/.register(cost:) (random driver only)"]
        ),
        .init(
            .undoNestedGroup, .cleanState,
            [
                "Acceptance \"begin, add, begin, add, end, markClean, undoNestedGroup: not clean\"",
                "random driver: .undoNested x .markClean/_stateShape/isClean entries",
            ]),
        .init(
            .undoNestedGroup, .coalescing,
            [
                "Acceptance \"a refused undoNestedGroup does not end coalescing\"",
                "random driver: .undoNested x .register(key:window:)/.advanceClock/.breakCoalescing",
            ]),
        .init(
            .undoNestedGroup, .scopedGroups,
            ["random driver: .undoNested x .scope (nested, throwing) (random driver only)"]),
        .init(.undoNestedGroup, .setValue, ["random driver: .undoNested x .setValue (random driver only)"]),
        .init(
            .undoNestedGroup, .metadata,
            [
                "DiscardableAndUserInfoTests.metadataOfANestedGroupUndoneAloneIsNotCopied",
                "random driver: .undoNested x .name/.discardable/.info + title queries",
            ]),
        .init(
            .undoNestedGroup, .emptyGroupModes,
            [
                "Acceptance \"a refused undoNestedGroup does not end coalescing\"",
                "random driver: .undoNested x config dropsEmptyGroups/.dropsEmptyGroups",
            ]),
        .init(
            .undoNestedGroup, .notificationObservers,
            [
                "Acceptance \"undoNestedGroup() and endUndoGrouping() post in their own activities\"",
                "random driver: .undoNested x callback plan on the 9 notifications",
            ]),
        .init(
            .undoNestedGroup, .statePublishing,
            [
                "random driver: .undoNested x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.undoNestedGroup, .stackGroup, ["not covered"]),
        .init(
            .undoNestedGroup, .misusePolicies,
            [
                "Acceptance \"a refused undoNestedGroup does not end coalescing\"",
                "TrapModeTests.undoNestedGroupWithOpenGroupTraps",
                "random driver: .undoNested x config .report/.log; every refused op",
            ]),
        .init(
            .undoNestedGroup, .disableEnable,
            [
                "RegistrationDisabledTests.undoNestedGroupRunsTheGroupAndBuildsNoRedoStep",
                "RegistrationDisabledTests.undoNestedGroupOfAStepBuildsNoRedoStep",
                "random driver: .undoNested x .disable/.enable",
            ]),
        .init(
            .jump, .removalByTarget,
            ["random driver: .jump x .removeTarget/.removeValue/.removeAll (random driver only)"]),
        .init(.jump, .freedTargets, ["random driver: .jump x .free/.replace (random driver only)"]),
        .init(.jump, .levels, ["random driver: .jump x .levels (random driver only)"]),
        .init(.jump, .cost, ["random driver: .jump x .maximumCost/.register(cost:) (random driver only)"]),
        .init(
            .jump, .cleanState,
            [
                "HistoryEntryTests.jumpAcrossTheCleanPoint",
                "random driver: .jump x .markClean/_stateShape/isClean entries",
            ]),
        .init(
            .jump, .coalescing,
            ["random driver: .jump x .register(key:window:)/.advanceClock/.breakCoalescing (random driver only)"]),
        .init(.jump, .scopedGroups, ["random driver: .jump x .scope (nested, throwing) (random driver only)"]),
        .init(.jump, .setValue, ["random driver: .jump x .setValue (random driver only)"]),
        .init(
            .jump, .metadata, ["random driver: .jump x .name/.discardable/.info + title queries (random driver only)"]),
        .init(
            .jump, .emptyGroupModes,
            ["random driver: .jump x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"]),
        .init(
            .jump, .notificationObservers,
            [
                "Acceptance \"a jump's steps run inside jumping, and their handlers can register\"",
                "random driver: .jump x callback plan on the 9 notifications",
            ]),
        .init(
            .jump, .statePublishing,
            [
                "HistoryEntryTests.jumpReportsOneChangeToObservers",
                "random driver: .jump x .addObserver/.cancelObserver/.query(.state) + plan on observe",
            ]),
        .init(.jump, .stackGroup, ["not covered"]),
        .init(
            .jump, .misusePolicies,
            ["random driver: .jump x config .report/.log; every refused op (random driver only)"]),
        .init(
            .jump, .disableEnable,
            [
                "Acceptance \"jump forward while registration is disabled redoes every step and builds none\"",
                "RegistrationDisabledTests.jumpBackwardUndoesEveryStepAndBuildsNoRedoStep",
                "RegistrationDisabledTests.jumpForwardRedoesEveryStepAndBuildsNoUndoStep",
                "random driver: .jump x .disable/.enable",
            ]),
        .init(
            .removalByTarget, .freedTargets,
            [
                "Acceptance \"a dead step on top is dropped by canUndo; its far end is new after partial removal\"",
                "random driver: .removeTarget/.removeValue/.removeAll x .free/.replace",
            ]),
        .init(
            .removalByTarget, .levels,
            ["random driver: .removeTarget/.removeValue/.removeAll x .levels (random driver only)"]),
        .init(
            .removalByTarget, .cost,
            [
                "random driver: .removeTarget/.removeValue/.removeAll x .maximumCost/.register(cost:) (random driver only)"
            ]),
        .init(
            .removalByTarget, .cleanState,
            [
                "Acceptance \"clean after A, then B, then removal of B's target: not clean\"",
                "Acceptance \"two steps from clean, remove the first step's target, undo: not clean\"",
                "CleanStateTests.removalNeverChangesWhetherTheStackIsCleanNow",
                "random driver: .removeTarget/.removeValue/.removeAll x .markClean/_stateShape/isClean entries",
            ]),
        .init(
            .removalByTarget, .coalescing,
            [
                "random driver: .removeTarget/.removeValue/.removeAll x .register(key:window:)/.advanceClock/.breakCoalescing (random driver only)"
            ]),
        .init(
            .removalByTarget, .scopedGroups,
            ["random driver: .removeTarget/.removeValue/.removeAll x .scope (nested, throwing) (random driver only)"]),
        .init(
            .removalByTarget, .setValue,
            ["random driver: .removeTarget/.removeValue/.removeAll x .setValue (random driver only)"]),
        .init(
            .removalByTarget, .metadata,
            [
                "random driver: .removeTarget/.removeValue/.removeAll x .name/.discardable/.info + title queries (random driver only)"
            ]),
        .init(
            .removalByTarget, .emptyGroupModes,
            [
                "random driver: .removeTarget/.removeValue/.removeAll x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"
            ]),
        .init(
            .removalByTarget, .notificationObservers,
            [
                "random driver: .removeTarget/.removeValue/.removeAll x callback plan on the 9 notifications (random driver only)"
            ]),
        .init(
            .removalByTarget, .statePublishing,
            [
                "random driver: .removeTarget/.removeValue/.removeAll x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(
            .removalByTarget, .stackGroup,
            ["StackGroupTests.removingTheActiveStackLeavesNoneActive (removal of a stack, not of a target)"]),
        .init(
            .removalByTarget, .misusePolicies,
            [
                "random driver: .removeTarget/.removeValue/.removeAll x config .report/.log; every refused op (random driver only)"
            ]),
        .init(
            .removalByTarget, .disableEnable,
            ["random driver: .removeTarget/.removeValue/.removeAll x .disable/.enable (random driver only)"]),
        .init(
            .freedTargets, .levels,
            [
                "Acceptance \"levelsOfUndo counts held steps, dead ones included\"",
                "DeadStepsAndLimitsTests.aStepOfFreedTargetsCountsAgainstTheLimitUntilTheStackDropsIt",
                "random driver: .free/.replace x .levels",
            ]),
        .init(
            .freedTargets, .cost, ["random driver: .free/.replace x .maximumCost/.register(cost:) (random driver only)"]
        ),
        .init(
            .freedTargets, .cleanState,
            [
                "Acceptance \"a dead step on top is dropped by canUndo; its far end is new after partial removal\"",
                "DeadStepsAndLimitsTests.aFreedStepOnTopOfACleanStackKeepsItClean",
                "random driver: .free/.replace x .markClean/_stateShape/isClean entries",
            ]),
        .init(
            .freedTargets, .coalescing,
            [
                "random driver: .free/.replace x .register(key:window:)/.advanceClock/.breakCoalescing (random driver only)"
            ]),
        .init(
            .freedTargets, .scopedGroups,
            ["random driver: .free/.replace x .scope (nested, throwing) (random driver only)"]),
        .init(.freedTargets, .setValue, ["random driver: .free/.replace x .setValue (random driver only)"]),
        .init(
            .freedTargets, .metadata,
            ["random driver: .free/.replace x .name/.discardable/.info + title queries (random driver only)"]),
        .init(
            .freedTargets, .emptyGroupModes,
            ["random driver: .free/.replace x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"]),
        .init(
            .freedTargets, .notificationObservers,
            [
                "Acceptance \"a sweep during an activity is computed as if; the undone step is detached after WillUndo\"",
                "random driver: .free/.replace x callback plan on the 9 notifications",
            ]),
        .init(
            .freedTargets, .statePublishing,
            [
                "random driver: .free/.replace x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.freedTargets, .stackGroup, ["not covered"]),
        .init(
            .freedTargets, .misusePolicies,
            ["random driver: .free/.replace x config .report/.log; every refused op (random driver only)"]),
        .init(.freedTargets, .disableEnable, ["random driver: .free/.replace x .disable/.enable (random driver only)"]),
        .init(
            .levels, .cost,
            [
                "CostLimitTests.levelsAndCostWorkTogether",
                "random driver: .levels x .maximumCost/.register(cost:)",
            ]),
        .init(
            .levels, .cleanState,
            [
                "CleanStateTests.trimmingTheCleanStepKeepsItReachableFromTheStart",
                "random driver: .levels x .markClean/_stateShape/isClean entries",
            ]),
        .init(
            .levels, .coalescing,
            ["random driver: .levels x .register(key:window:)/.advanceClock/.breakCoalescing (random driver only)"]),
        .init(
            .levels, .scopedGroups,
            [
                "Acceptance \"a scope that closes its own group then throws, levelsOfUndo = 2, keeps 2 steps\"",
                "random driver: .levels x .scope (nested, throwing)",
            ]),
        .init(.levels, .setValue, ["random driver: .levels x .setValue (random driver only)"]),
        .init(
            .levels, .metadata,
            ["random driver: .levels x .name/.discardable/.info + title queries (random driver only)"]),
        .init(
            .levels, .emptyGroupModes,
            ["random driver: .levels x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"]),
        .init(
            .levels, .notificationObservers,
            ["random driver: .levels x callback plan on the 9 notifications (random driver only)"]),
        .init(
            .levels, .statePublishing,
            [
                "random driver: .levels x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.levels, .stackGroup, ["not covered"]),
        .init(
            .levels, .misusePolicies,
            ["random driver: .levels x config .report/.log; every refused op (random driver only)"]),
        .init(.levels, .disableEnable, ["random driver: .levels x .disable/.enable (random driver only)"]),
        .init(
            .cost, .cleanState,
            [
                "random driver: .maximumCost/.register(cost:) x .markClean/_stateShape/isClean entries (random driver only)"
            ]),
        .init(
            .cost, .coalescing,
            [
                "Acceptance \"maximumCost after a coalescing join drops older steps, keeps the newest\"",
                "random driver: .maximumCost/.register(cost:) x .register(key:window:)/.advanceClock/.breakCoalescing",
            ]),
        .init(
            .cost, .scopedGroups,
            ["random driver: .maximumCost/.register(cost:) x .scope (nested, throwing) (random driver only)"]),
        .init(.cost, .setValue, ["random driver: .maximumCost/.register(cost:) x .setValue (random driver only)"]),
        .init(
            .cost, .metadata,
            [
                "random driver: .maximumCost/.register(cost:) x .name/.discardable/.info + title queries (random driver only)"
            ]),
        .init(
            .cost, .emptyGroupModes,
            [
                "random driver: .maximumCost/.register(cost:) x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"
            ]),
        .init(
            .cost, .notificationObservers,
            ["random driver: .maximumCost/.register(cost:) x callback plan on the 9 notifications (random driver only)"]
        ),
        .init(
            .cost, .statePublishing,
            [
                "random driver: .maximumCost/.register(cost:) x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.cost, .stackGroup, ["not covered"]),
        .init(
            .cost, .misusePolicies,
            [
                "random driver: .maximumCost/.register(cost:) x config .report/.log; every refused op (random driver only)"
            ]),
        .init(
            .cost, .disableEnable,
            ["random driver: .maximumCost/.register(cost:) x .disable/.enable (random driver only)"]),
        .init(
            .cleanState, .coalescing,
            [
                "Acceptance \"markClean ends coalescing\"",
                "random driver: .markClean/_stateShape/isClean entries x .register(key:window:)/.advanceClock/.breakCoalescing",
            ]),
        .init(
            .cleanState, .scopedGroups,
            [
                "Acceptance \"a scope that throws is rolled back and never becomes a step\"",
                "random driver: .markClean/_stateShape/isClean entries x .scope (nested, throwing)",
            ]),
        .init(
            .cleanState, .setValue,
            ["random driver: .markClean/_stateShape/isClean entries x .setValue (random driver only)"]),
        .init(
            .cleanState, .metadata,
            [
                "Acceptance \"history entries: titles, counts, clean flags, isCleanAtStart\"",
                "random driver: .markClean/_stateShape/isClean entries x .name/.discardable/.info + title queries",
            ]),
        .init(
            .cleanState, .emptyGroupModes,
            [
                "random driver: .markClean/_stateShape/isClean entries x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"
            ]),
        .init(
            .cleanState, .notificationObservers,
            [
                "random driver: .markClean/_stateShape/isClean entries x callback plan on the 9 notifications (random driver only)"
            ]),
        .init(
            .cleanState, .statePublishing,
            [
                "Acceptance \"an observer that calls markClean is published\"",
                "CleanStateTests.theCleanStateChangeIsPosted",
                "Acceptance \"publishing: queued states reach every observer in order, once each\"",
                "random driver: .markClean/_stateShape/isClean entries x .addObserver/.cancelObserver/.query(.state) + plan on observe",
            ]),
        .init(.cleanState, .stackGroup, ["not covered"]),
        .init(
            .cleanState, .misusePolicies,
            [
                "random driver: .markClean/_stateShape/isClean entries x config .report/.log; every refused op (random driver only)"
            ]),
        .init(
            .cleanState, .disableEnable,
            ["random driver: .markClean/_stateShape/isClean entries x .disable/.enable (random driver only)"]),
        .init(
            .coalescing, .scopedGroups,
            [
                "random driver: .register(key:window:)/.advanceClock/.breakCoalescing x .scope (nested, throwing) (random driver only)"
            ]),
        .init(
            .coalescing, .setValue,
            ["random driver: .register(key:window:)/.advanceClock/.breakCoalescing x .setValue (random driver only)"]),
        .init(
            .coalescing, .metadata,
            [
                "Acceptance \"coalescing and setActionName per keystroke: one named step, no group opened\"",
                "random driver: .register(key:window:)/.advanceClock/.breakCoalescing x .name/.discardable/.info + title queries",
            ]),
        .init(
            .coalescing, .emptyGroupModes,
            [
                "Acceptance \"a new top-level group ends coalescing, even one dropped empty (drop mode)\"",
                "random driver: .register(key:window:)/.advanceClock/.breakCoalescing x config dropsEmptyGroups/.dropsEmptyGroups",
            ]),
        .init(
            .coalescing, .notificationObservers,
            [
                "Acceptance \"a refused undoNestedGroup does not end coalescing\"",
                "random driver: .register(key:window:)/.advanceClock/.breakCoalescing x callback plan on the 9 notifications",
            ]),
        .init(
            .coalescing, .statePublishing,
            [
                "random driver: .register(key:window:)/.advanceClock/.breakCoalescing x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.coalescing, .stackGroup, ["not covered"]),
        .init(
            .coalescing, .misusePolicies,
            [
                "random driver: .register(key:window:)/.advanceClock/.breakCoalescing x config .report/.log; every refused op (random driver only)"
            ]),
        .init(
            .coalescing, .disableEnable,
            [
                "random driver: .register(key:window:)/.advanceClock/.breakCoalescing x .disable/.enable (random driver only)"
            ]),
        .init(.scopedGroups, .setValue, ["random driver: .scope (nested, throwing) x .setValue (random driver only)"]),
        .init(
            .scopedGroups, .metadata,
            [
                "Acceptance \"a scope that succeeds names and closes its group\"",
                "ScopedGroupTests.aScopedGroupIsOneNamedStep",
                "random driver: .scope (nested, throwing) x .name/.discardable/.info + title queries",
            ]),
        .init(
            .scopedGroups, .emptyGroupModes,
            [
                "random driver: .scope (nested, throwing) x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"
            ]),
        .init(
            .scopedGroups, .notificationObservers,
            [
                "Acceptance \"a scope that throws is rolled back and never becomes a step\"",
                "random driver: .scope (nested, throwing) x callback plan on the 9 notifications",
            ]),
        .init(
            .scopedGroups, .statePublishing,
            [
                "random driver: .scope (nested, throwing) x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.scopedGroups, .stackGroup, ["not covered"]),
        .init(
            .scopedGroups, .misusePolicies,
            ["random driver: .scope (nested, throwing) x config .report/.log; every refused op (random driver only)"]),
        .init(
            .scopedGroups, .disableEnable,
            [
                "ScopedGroupTests.whileDisabledTheBodyJustRuns",
                "RegistrationDisabledTests.aScopeThatRedoesWhileDisabledThenThrowsLeavesNoStep",
                "random driver: .scope (nested, throwing) x .disable/.enable",
            ]),
        .init(
            .setValue, .metadata,
            [
                "Acceptance \"setValue: one named step, undone and redone\"",
                "random driver: .setValue x .name/.discardable/.info + title queries",
            ]),
        .init(
            .setValue, .emptyGroupModes,
            ["random driver: .setValue x config dropsEmptyGroups/.dropsEmptyGroups (random driver only)"]),
        .init(
            .setValue, .notificationObservers,
            ["random driver: .setValue x callback plan on the 9 notifications (random driver only)"]),
        .init(
            .setValue, .statePublishing,
            [
                "random driver: .setValue x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.setValue, .stackGroup, ["not covered"]),
        .init(
            .setValue, .misusePolicies,
            ["random driver: .setValue x config .report/.log; every refused op (random driver only)"]),
        .init(
            .setValue, .disableEnable,
            [
                "PropertyChangeTests.setValueStillSetsWhileRegistrationIsDisabled",
                "random driver: .setValue x .disable/.enable",
            ]),
        .init(
            .metadata, .emptyGroupModes,
            [
                "Acceptance \"drop mode: setActionName on an empty automatic group does not change the undo title\"",
                "random driver: .name/.discardable/.info + title queries x config dropsEmptyGroups/.dropsEmptyGroups",
            ]),
        .init(
            .metadata, .notificationObservers,
            [
                "Acceptance \"an empty group, drop mode: dropped, redo side kept, notifications balanced\"",
                "NotificationSequenceTests.discardableFlagInDidCloseDidUndoAndDidRedoButNeverWillClose",
                "random driver: .name/.discardable/.info + title queries x callback plan on the 9 notifications",
            ]),
        .init(
            .metadata, .statePublishing,
            [
                "random driver: .name/.discardable/.info + title queries x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.metadata, .stackGroup, ["not covered"]),
        .init(
            .metadata, .misusePolicies,
            [
                "random driver: .name/.discardable/.info + title queries x config .report/.log; every refused op (random driver only)"
            ]),
        .init(
            .metadata, .disableEnable,
            ["random driver: .name/.discardable/.info + title queries x .disable/.enable (random driver only)"]),
        .init(
            .emptyGroupModes, .notificationObservers,
            [
                "Acceptance \"an empty group, drop mode: dropped, redo side kept, notifications balanced\"",
                "random driver: config dropsEmptyGroups/.dropsEmptyGroups x callback plan on the 9 notifications",
            ]),
        .init(
            .emptyGroupModes, .statePublishing,
            [
                "random driver: config dropsEmptyGroups/.dropsEmptyGroups x .addObserver/.cancelObserver/.query(.state) + plan on observe (random driver only)"
            ]),
        .init(.emptyGroupModes, .stackGroup, ["not covered"]),
        .init(
            .emptyGroupModes, .misusePolicies,
            [
                "random driver: config dropsEmptyGroups/.dropsEmptyGroups x config .report/.log; every refused op (random driver only)"
            ]),
        .init(
            .emptyGroupModes, .disableEnable,
            [
                "Acceptance \"redo while registration is disabled: Foundation mode builds no step\"",
                "Acceptance \"redo while registration is disabled: drop mode builds no step\"",
                "RegistrationDisabledTests (every test, in both modes)",
                "random driver: config dropsEmptyGroups/.dropsEmptyGroups x .disable/.enable",
            ]),
        .init(
            .notificationObservers, .statePublishing,
            [
                "Acceptance \"an observer that calls markClean is published\"",
                "Acceptance \"publishing: queued states reach every observer in order, once each\"",
                "Acceptance \"publishing: an observer cancelled during a delivery gets nothing more\"",
                "random driver: callback plan on the 9 notifications x .addObserver/.cancelObserver/.query(.state) + plan on observe",
            ]),
        .init(.notificationObservers, .stackGroup, ["not covered"]),
        .init(
            .notificationObservers, .misusePolicies,
            [
                "Acceptance \"a registration from a WillUndo observer is refused; from a DidOpen observer it works\"",
                "ReentrancyTests.willCloseObserverCannotRestructureButCanRegister",
                "random driver: callback plan on the 9 notifications x config .report/.log; every refused op",
            ]),
        .init(
            .notificationObservers, .disableEnable,
            ["random driver: callback plan on the 9 notifications x .disable/.enable (random driver only)"]),
        .init(
            .statePublishing, .stackGroup, ["StackGroupTests.observersHearActiveStackChangesAndStateChanges"]
        ),
        .init(
            .statePublishing, .misusePolicies,
            [
                "random driver: .addObserver/.cancelObserver/.query(.state) + plan on observe x config .report/.log; every refused op (random driver only)"
            ]),
        .init(
            .statePublishing, .disableEnable,
            [
                "random driver: .addObserver/.cancelObserver/.query(.state) + plan on observe x .disable/.enable (random driver only)"
            ]),
        .init(.stackGroup, .misusePolicies, ["not covered"]),
        .init(.stackGroup, .disableEnable, ["not covered"]),
        .init(
            .misusePolicies, .disableEnable,
            [
                "TrapModeTests.enableWithoutDisableTraps",
                "random driver: config .report/.log; every refused op x .disable/.enable",
            ]),
    ]
}

struct InteractionMatrixTests {
    /// Every pair of features has exactly one row.
    @Test func everyPairOfFeaturesHasOneRow() {
        var seen: [String: Int] = [:]
        for row in InteractionMatrix.rows {
            let key = [row.first.rawValue, row.second.rawValue].sorted().joined(separator: "+")
            seen[key, default: 0] += 1
            #expect(row.first != row.second)
            #expect(!row.coveredBy.isEmpty, "\(key) says nothing; write \"not covered\"")
        }
        let features = Feature.allCases
        for (index, first) in features.enumerated() {
            for second in features[(index + 1)...] {
                let key = [first.rawValue, second.rawValue].sorted().joined(separator: "+")
                #expect(seen[key] == 1, "\(key): \(seen[key] ?? 0) rows")
            }
        }
    }

    /// The hand-worked examples that rows name exist.
    @Test func theExamplesNamedExist() {
        let names = Set(Acceptance.all.map(\.name))
        for row in InteractionMatrix.rows {
            for item in row.coveredBy where item.hasPrefix("Acceptance \"") {
                let name = String(item.dropFirst("Acceptance \"".count).dropLast())
                #expect(names.contains(name), "\(row.first)+\(row.second) names a missing example: \(name)")
            }
        }
    }
}
