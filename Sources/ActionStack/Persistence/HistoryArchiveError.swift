// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// Why a ``HistoryArchive`` could not be read (or written).
///
/// Reading refuses the whole file with one of these, and never returns part of it: an archive
/// that decodes holds only well-formed histories (see ``SavedHistory/validate()``). A command that
/// cannot be read back is not an error of the file: its ``SavedAction`` carries a
/// ``SavedActionProblem`` instead, and the restore truncates the history there.
public enum HistoryArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The data is not a history archive: not a JSON object, or its `"format"` is not
    /// `"ActionStack.History"` (``HistoryArchive/formatName``).
    case notAnArchive
    /// The archive was written in a newer version of the format than this library reads (an app
    /// opening a file that a newer version of itself saved).
    case newerFormatVersion(Int, newestSupported: Int)
    /// The archive is damaged: truncated, not valid JSON, a field missing or of the wrong kind, an
    /// index out of range, or an object with the same key twice. The reason is short and names
    /// the place (a byte offset or a path).
    case corrupt(String)
    /// The archive is over one of the limits it was read with (``HistoryArchive/Limits``); the
    /// value is the limit's.
    case tooLarge(HistoryArchive.Limits.Kind, maximum: Int)
    /// A history, named by its key in the archive, whose shape a stack cannot take.
    case invalidHistory(String, SavedHistory.StructuralProblem)
    /// The archive belongs to another state of the document than the one the app opened: its
    /// fingerprint is `found`, the app expected `expected` (see
    /// ``HistoryArchive/histories(forFingerprint:)``). Nothing of it is restored.
    case fingerprintMismatch(expected: String, found: String)

    /// What went wrong, as a sentence.
    public var description: String {
        switch self {
        case .notAnArchive:
            "not an ActionStack history archive"
        case .newerFormatVersion(let version, let newest):
            "the history archive has format version \(version), newer than the \(newest) this version of "
                + "ActionStack reads"
        case .corrupt(let reason):
            "the history archive is damaged: \(reason)"
        case .tooLarge(let kind, let maximum):
            "the history archive is over the limit of \(maximum) \(kind)"
        case .invalidHistory(let name, let problem):
            "the history \"\(Self.shortened(name))\" cannot be restored: \(problem)"
        case .fingerprintMismatch(let expected, let found):
            "the history archive belongs to another state of the document (its fingerprint is "
                + "\"\(Self.shortened(found))\", the document's \"\(Self.shortened(expected))\")"
        }
    }

    /// `text`, cut to a length that an error message can show.
    static func shortened(_ text: String, to length: Int = 80) -> String {
        text.count <= length ? text : String(text.prefix(length)) + "…"
    }
}

extension HistoryArchive.Limits {
    /// Which of the ``HistoryArchive/Limits`` an archive is over.
    public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// ``HistoryArchive/Limits/maximumBytes``.
        case bytes
        /// ``HistoryArchive/Limits/maximumNestingDepth``.
        case nestingDepth
        /// ``HistoryArchive/Limits/maximumHistories``.
        case histories
        /// ``HistoryArchive/Limits/maximumSteps``.
        case steps
        /// ``HistoryArchive/Limits/maximumActionsPerStep``.
        case actionsPerStep
        /// ``HistoryArchive/Limits/maximumUserInfoEntries``.
        case userInfoEntries
        /// ``HistoryArchive/Limits/maximumStringLength``.
        case stringLength

        /// What the limit counts: "bytes", "levels of nesting", "steps in a history"...
        public var description: String {
            switch self {
            case .bytes: "bytes"
            case .nestingDepth: "levels of nesting"
            case .histories: "histories"
            case .steps: "steps in a history"
            case .actionsPerStep: "actions in a step"
            case .userInfoEntries: "user-info entries in a step"
            case .stringLength: "bytes in a name, key, type or fingerprint"
            }
        }
    }
}
