// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The module and its main class are both named `ActionStack`. In a client, `ActionStack.X` names a
// member of the class, not a type of the module, so without these aliases a qualified name such as
// `ActionStack.TitleTemplates` fails ("'TitleTemplates' is not a member type of class
// 'ActionStack.ActionStack'"). Each public top-level type of the module has an alias here, so both
// spellings work. A new public top-level type gets its alias here, and a use in
// Tests/QualifiedNameTests.
//
// `ActionStack::X` is a module selector (Swift 6.3): the module's `X`, not this alias, which would
// otherwise refer to itself.

extension ActionStack {
    /// The module's ``/ActionStack/TitleTemplates``, so that clients can write
    /// `ActionStack.TitleTemplates` (the module and this class share the name `ActionStack`).
    public typealias TitleTemplates = ActionStack::TitleTemplates

    /// The module's ``/ActionStack/AutomaticGroupClosing``, so that clients can write
    /// `ActionStack.AutomaticGroupClosing` (the module and this class share the name `ActionStack`).
    public typealias AutomaticGroupClosing = ActionStack::AutomaticGroupClosing

    /// The module's ``/ActionStack/ActionStackGroup``, so that clients can write
    /// `ActionStack.ActionStackGroup` (the module and this class share the name `ActionStack`).
    public typealias ActionStackGroup = ActionStack::ActionStackGroup

    /// The module's ``/ActionStack/ActionStackModel``, so that clients can write
    /// `ActionStack.ActionStackModel` (the module and this class share the name `ActionStack`).
    public typealias ActionStackModel = ActionStack::ActionStackModel

    /// The module's ``/ActionStack/ObservationToken``, so that clients can write
    /// `ActionStack.ObservationToken` (the module and this class share the name `ActionStack`).
    public typealias ObservationToken = ActionStack::ObservationToken

    /// The module's ``/ActionStack/UndoCommand``, so that clients can write
    /// `ActionStack.UndoCommand` (the module and this class share the name `ActionStack`).
    public typealias UndoCommand = ActionStack::UndoCommand

    /// The module's ``/ActionStack/SavedHistory``, so that clients can write
    /// `ActionStack.SavedHistory` (the module and this class share the name `ActionStack`).
    public typealias SavedHistory = ActionStack::SavedHistory

    /// The module's ``/ActionStack/SavedStep``, so that clients can write
    /// `ActionStack.SavedStep` (the module and this class share the name `ActionStack`).
    public typealias SavedStep = ActionStack::SavedStep

    /// The module's ``/ActionStack/SavedAction``, so that clients can write
    /// `ActionStack.SavedAction` (the module and this class share the name `ActionStack`).
    public typealias SavedAction = ActionStack::SavedAction

    /// The module's ``/ActionStack/SavedActionProblem``, so that clients can write
    /// `ActionStack.SavedActionProblem` (the module and this class share the name `ActionStack`).
    public typealias SavedActionProblem = ActionStack::SavedActionProblem

    /// The module's ``/ActionStack/SavedValue``, so that clients can write
    /// `ActionStack.SavedValue` (the module and this class share the name `ActionStack`).
    public typealias SavedValue = ActionStack::SavedValue

    /// The module's ``/ActionStack/SavableCommand``, so that clients can write
    /// `ActionStack.SavableCommand` (the module and this class share the name `ActionStack`).
    public typealias SavableCommand = ActionStack::SavableCommand

    /// The module's ``/ActionStack/AsyncUndoCommand``, so that clients can write
    /// `ActionStack.AsyncUndoCommand` (the module and this class share the name `ActionStack`).
    public typealias AsyncUndoCommand = ActionStack::AsyncUndoCommand

    /// The module's ``/ActionStack/CommandRegistry``, so that clients can write
    /// `ActionStack.CommandRegistry` (the module and this class share the name `ActionStack`).
    public typealias CommandRegistry = ActionStack::CommandRegistry

    /// The module's ``/ActionStack/HistoryArchive``, so that clients can write
    /// `ActionStack.HistoryArchive` (the module and this class share the name `ActionStack`).
    public typealias HistoryArchive = ActionStack::HistoryArchive

    /// The module's ``/ActionStack/HistoryArchiveError``, so that clients can write
    /// `ActionStack.HistoryArchiveError` (the module and this class share the name `ActionStack`).
    public typealias HistoryArchiveError = ActionStack::HistoryArchiveError

    /// The module's ``/ActionStack/HistoryFileStore``, so that clients can write
    /// `ActionStack.HistoryFileStore` (the module and this class share the name `ActionStack`).
    public typealias HistoryFileStore = ActionStack::HistoryFileStore

    /// The module's ``/ActionStack/HistoryFileError``, so that clients can write
    /// `ActionStack.HistoryFileError` (the module and this class share the name `ActionStack`).
    public typealias HistoryFileError = ActionStack::HistoryFileError

    /// The module's ``/ActionStack/HistoryJournal``, so that clients can write
    /// `ActionStack.HistoryJournal` (the module and this class share the name `ActionStack`).
    public typealias HistoryJournal = ActionStack::HistoryJournal

    /// The module's ``/ActionStack/HistoryRecorder``, so that clients can write
    /// `ActionStack.HistoryRecorder` (the module and this class share the name `ActionStack`).
    public typealias HistoryRecorder = ActionStack::HistoryRecorder

    /// The module's ``/ActionStack/JournalRecord``, so that clients can write
    /// `ActionStack.JournalRecord` (the module and this class share the name `ActionStack`).
    public typealias JournalRecord = ActionStack::JournalRecord

    /// The module's ``/ActionStack/MergeableChange``, so that clients can write
    /// `ActionStack.MergeableChange` (the module and this class share the name `ActionStack`).
    public typealias MergeableChange = ActionStack::MergeableChange

    /// The module's ``/ActionStack/RebasableCommand``, so that clients can write
    /// `ActionStack.RebasableCommand` (the module and this class share the name `ActionStack`).
    public typealias RebasableCommand = ActionStack::RebasableCommand

    /// The module's ``/ActionStack/SequenceEdit``, so that clients can write
    /// `ActionStack.SequenceEdit` (the module and this class share the name `ActionStack`).
    public typealias SequenceEdit<Element: Equatable & Sendable> = ActionStack::SequenceEdit<Element>

    /// The module's ``/ActionStack/SequenceEditError``, so that clients can write
    /// `ActionStack.SequenceEditError` (the module and this class share the name `ActionStack`).
    public typealias SequenceEditError = ActionStack::SequenceEditError

    /// The module's ``/ActionStack/TextEdit``, so that clients can write
    /// `ActionStack.TextEdit` (the module and this class share the name `ActionStack`).
    public typealias TextEdit = ActionStack::TextEdit
}
