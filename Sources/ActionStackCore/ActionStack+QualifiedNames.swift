// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The umbrella module and the library's main class are both named `ActionStack`. In a client that
// imports it, `ActionStack.X` names a member of the class, not a type of the module, so without these
// aliases a qualified name such as `ActionStack.TitleTemplates` fails ("'TitleTemplates' is not a
// member type of class 'ActionStack.ActionStack'"). Each public top-level type of ActionStackCore
// has an alias here (and each of ActionStackArchive in that module's
// `ActionStack+QualifiedNames.swift`), so both spellings work. A new public top-level type gets its
// alias in its module's file, and a use in Tests/QualifiedNameTests.
//
// `ActionStackCore::X` is a module selector (Swift 6.3): the module's `X`, not this alias, which
// would otherwise refer to itself.

extension ActionStack {
    /// The module's ``/ActionStack/TitleTemplates``, so that clients can write
    /// `ActionStack.TitleTemplates` (the module and this class share the name `ActionStack`).
    public typealias TitleTemplates = ActionStackCore::TitleTemplates

    /// The module's ``/ActionStack/AutomaticGroupClosing``, so that clients can write
    /// `ActionStack.AutomaticGroupClosing` (the module and this class share the name `ActionStack`).
    public typealias AutomaticGroupClosing = ActionStackCore::AutomaticGroupClosing

    /// The module's ``/ActionStack/ActionStackGroup``, so that clients can write
    /// `ActionStack.ActionStackGroup` (the module and this class share the name `ActionStack`).
    public typealias ActionStackGroup = ActionStackCore::ActionStackGroup

    /// The module's ``/ActionStack/ActionStackModel``, so that clients can write
    /// `ActionStack.ActionStackModel` (the module and this class share the name `ActionStack`).
    public typealias ActionStackModel = ActionStackCore::ActionStackModel

    /// The module's ``/ActionStack/ObservationToken``, so that clients can write
    /// `ActionStack.ObservationToken` (the module and this class share the name `ActionStack`).
    public typealias ObservationToken = ActionStackCore::ObservationToken

    /// The module's ``/ActionStack/UndoCommand``, so that clients can write
    /// `ActionStack.UndoCommand` (the module and this class share the name `ActionStack`).
    public typealias UndoCommand = ActionStackCore::UndoCommand

    /// The module's ``/ActionStack/SavedHistory``, so that clients can write
    /// `ActionStack.SavedHistory` (the module and this class share the name `ActionStack`).
    public typealias SavedHistory = ActionStackCore::SavedHistory

    /// The module's ``/ActionStack/SavedStep``, so that clients can write
    /// `ActionStack.SavedStep` (the module and this class share the name `ActionStack`).
    public typealias SavedStep = ActionStackCore::SavedStep

    /// The module's ``/ActionStack/SavedAction``, so that clients can write
    /// `ActionStack.SavedAction` (the module and this class share the name `ActionStack`).
    public typealias SavedAction = ActionStackCore::SavedAction

    /// The module's ``/ActionStack/SavedActionProblem``, so that clients can write
    /// `ActionStack.SavedActionProblem` (the module and this class share the name `ActionStack`).
    public typealias SavedActionProblem = ActionStackCore::SavedActionProblem

    /// The module's ``/ActionStack/SavedValue``, so that clients can write
    /// `ActionStack.SavedValue` (the module and this class share the name `ActionStack`).
    public typealias SavedValue = ActionStackCore::SavedValue

    /// The module's ``/ActionStack/SavableCommand``, so that clients can write
    /// `ActionStack.SavableCommand` (the module and this class share the name `ActionStack`).
    public typealias SavableCommand = ActionStackCore::SavableCommand

    /// The module's ``/ActionStack/AsyncUndoCommand``, so that clients can write
    /// `ActionStack.AsyncUndoCommand` (the module and this class share the name `ActionStack`).
    public typealias AsyncUndoCommand = ActionStackCore::AsyncUndoCommand

    /// The module's ``/ActionStack/MergeableChange``, so that clients can write
    /// `ActionStack.MergeableChange` (the module and this class share the name `ActionStack`).
    public typealias MergeableChange = ActionStackCore::MergeableChange

    /// The module's ``/ActionStack/RebasableCommand``, so that clients can write
    /// `ActionStack.RebasableCommand` (the module and this class share the name `ActionStack`).
    public typealias RebasableCommand = ActionStackCore::RebasableCommand

    /// The module's ``/ActionStack/SequenceEdit``, so that clients can write
    /// `ActionStack.SequenceEdit` (the module and this class share the name `ActionStack`).
    public typealias SequenceEdit<Element: Equatable & Sendable> = ActionStackCore::SequenceEdit<Element>

    /// The module's ``/ActionStack/SequenceEditError``, so that clients can write
    /// `ActionStack.SequenceEditError` (the module and this class share the name `ActionStack`).
    public typealias SequenceEditError = ActionStackCore::SequenceEditError

    /// The module's ``/ActionStack/TextEdit``, so that clients can write
    /// `ActionStack.TextEdit` (the module and this class share the name `ActionStack`).
    public typealias TextEdit = ActionStackCore::TextEdit
}
