// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The aliases of ActionStackArchive's public top-level types on the class `ActionStack` (see
// ActionStackCore's `ActionStack+QualifiedNames.swift`, which says why): in a client that imports
// the umbrella module `ActionStack`, `ActionStack.HistoryArchive` names a member of the class, so
// each type of this module has its alias here.
//
// `ActionStackArchive::X` is a module selector (Swift 6.3): this module's `X`, not the alias.

public import ActionStackCore

extension ActionStack {
    /// The module's ``/ActionStack/CommandRegistry``, so that clients can write
    /// `ActionStack.CommandRegistry` (the module `ActionStack` and this class share the name).
    public typealias CommandRegistry = ActionStackArchive::CommandRegistry

    /// The module's ``/ActionStack/HistoryArchive``, so that clients can write
    /// `ActionStack.HistoryArchive` (the module `ActionStack` and this class share the name).
    public typealias HistoryArchive = ActionStackArchive::HistoryArchive

    /// The module's ``/ActionStack/HistoryArchiveError``, so that clients can write
    /// `ActionStack.HistoryArchiveError` (the module `ActionStack` and this class share the name).
    public typealias HistoryArchiveError = ActionStackArchive::HistoryArchiveError

    /// The module's ``/ActionStack/HistoryFileStore``, so that clients can write
    /// `ActionStack.HistoryFileStore` (the module `ActionStack` and this class share the name).
    public typealias HistoryFileStore = ActionStackArchive::HistoryFileStore

    /// The module's ``/ActionStack/HistoryFileError``, so that clients can write
    /// `ActionStack.HistoryFileError` (the module `ActionStack` and this class share the name).
    public typealias HistoryFileError = ActionStackArchive::HistoryFileError

    /// The module's ``/ActionStack/HistoryJournal``, so that clients can write
    /// `ActionStack.HistoryJournal` (the module `ActionStack` and this class share the name).
    public typealias HistoryJournal = ActionStackArchive::HistoryJournal

    /// The module's ``/ActionStack/HistoryRecorder``, so that clients can write
    /// `ActionStack.HistoryRecorder` (the module `ActionStack` and this class share the name).
    public typealias HistoryRecorder = ActionStackArchive::HistoryRecorder

    /// The module's ``/ActionStack/JournalRecord``, so that clients can write
    /// `ActionStack.JournalRecord` (the module `ActionStack` and this class share the name).
    public typealias JournalRecord = ActionStackArchive::JournalRecord

}
