// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStackCore

/// Why a ``HistoryArchive`` could not be read (or written).
///
/// Reading refuses the whole file with one of these, and never returns part of it: an archive
/// that decodes holds only well-formed histories (see ``SavedHistory/validate()``). A command that
/// cannot be read back is not an error of the file: its ``SavedAction`` carries a
/// ``SavedActionProblem`` instead, and the restore truncates the history there.
///
/// Extensible: new errors may be added in any release; do not switch exhaustively. Compare with a
/// static member (`error == .notAnArchive`), and read what an error carries through its accessors
/// (``formatVersion``, ``newestSupportedVersion``, ``corruption``, ``limit``, ``maximum``,
/// ``historyName``, ``structuralProblem``, ``expectedFingerprint``, ``foundFingerprint``). The
/// ``description`` is stable.
public struct HistoryArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The errors this version knows, with what each carries.
    private enum Code: Hashable, Sendable {
        case notAnArchive
        case newerFormatVersion(Int, newestSupported: Int)
        case corrupt(String)
        case tooLarge(HistoryArchive.Limits.Kind, maximum: Int)
        case invalidHistory(String, SavedHistory.StructuralProblem)
        case fingerprintMismatch(expected: String, found: String)
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// The data is not a history archive: not a JSON object, or its `"format"` is not
    /// `"ActionStack.History"` (``HistoryArchive/formatName``).
    public static var notAnArchive: HistoryArchiveError { HistoryArchiveError(.notAnArchive) }

    /// The archive was written in a newer version of the format than this library reads (an app
    /// opening a file that a newer version of itself saved).
    ///
    /// - Parameters:
    ///   - version: The archive's format version.
    ///   - newestSupported: The newest version this library reads.
    /// - Returns: The error.
    public static func newerFormatVersion(_ version: Int, newestSupported: Int) -> HistoryArchiveError {
        HistoryArchiveError(.newerFormatVersion(version, newestSupported: newestSupported))
    }

    /// The archive is damaged: truncated, not valid JSON, a field missing or of the wrong kind, an
    /// index out of range, or an object with the same key twice. The reason is short and names
    /// the place (a byte offset or a path).
    ///
    /// - Parameter reason: What is wrong, and where.
    /// - Returns: The error.
    public static func corrupt(_ reason: String) -> HistoryArchiveError { HistoryArchiveError(.corrupt(reason)) }

    /// The archive is over one of the limits it was read with (``HistoryArchive/Limits``); the
    /// value is the limit's.
    ///
    /// - Parameters:
    ///   - limit: Which limit.
    ///   - maximum: The limit's value.
    /// - Returns: The error.
    public static func tooLarge(_ limit: HistoryArchive.Limits.Kind, maximum: Int) -> HistoryArchiveError {
        HistoryArchiveError(.tooLarge(limit, maximum: maximum))
    }

    /// A history, named by its key in the archive, whose shape a stack cannot take.
    ///
    /// - Parameters:
    ///   - name: The history's key in the archive.
    ///   - problem: What is wrong with its shape.
    /// - Returns: The error.
    public static func invalidHistory(_ name: String, _ problem: SavedHistory.StructuralProblem) -> HistoryArchiveError
    {
        HistoryArchiveError(.invalidHistory(name, problem))
    }

    /// The archive belongs to another state of the document than the one the app opened: its
    /// fingerprint is `found`, the app expected `expected` (see
    /// ``HistoryArchive/histories(forFingerprint:)``). Nothing of it is restored.
    ///
    /// - Parameters:
    ///   - expected: The document's fingerprint.
    ///   - found: The archive's.
    /// - Returns: The error.
    public static func fingerprintMismatch(expected: String, found: String) -> HistoryArchiveError {
        HistoryArchiveError(.fingerprintMismatch(expected: expected, found: found))
    }

    /// For ``newerFormatVersion(_:newestSupported:)``, the archive's format version; nil for every
    /// other error.
    public var formatVersion: Int? {
        if case .newerFormatVersion(let version, _) = code { version } else { nil }
    }

    /// For ``newerFormatVersion(_:newestSupported:)``, the newest format version this library
    /// reads; nil for every other error.
    public var newestSupportedVersion: Int? {
        if case .newerFormatVersion(_, let newest) = code { newest } else { nil }
    }

    /// For ``corrupt(_:)``, what is wrong and where; nil for every other error.
    public var corruption: String? {
        if case .corrupt(let reason) = code { reason } else { nil }
    }

    /// For ``tooLarge(_:maximum:)``, the limit the archive is over; nil for every other error.
    public var limit: HistoryArchive.Limits.Kind? {
        if case .tooLarge(let kind, _) = code { kind } else { nil }
    }

    /// For ``tooLarge(_:maximum:)``, the limit's value; nil for every other error.
    public var maximum: Int? {
        if case .tooLarge(_, let maximum) = code { maximum } else { nil }
    }

    /// For ``invalidHistory(_:_:)``, the history's key in the archive; nil for every other error.
    public var historyName: String? {
        if case .invalidHistory(let name, _) = code { name } else { nil }
    }

    /// For ``invalidHistory(_:_:)``, what is wrong with the history's shape; nil for every other
    /// error.
    public var structuralProblem: SavedHistory.StructuralProblem? {
        if case .invalidHistory(_, let problem) = code { problem } else { nil }
    }

    /// For ``fingerprintMismatch(expected:found:)``, the document's fingerprint; nil for every
    /// other error.
    public var expectedFingerprint: String? {
        if case .fingerprintMismatch(let expected, _) = code { expected } else { nil }
    }

    /// For ``fingerprintMismatch(expected:found:)``, the archive's fingerprint; nil for every other
    /// error.
    public var foundFingerprint: String? {
        if case .fingerprintMismatch(_, let found) = code { found } else { nil }
    }

    /// What went wrong, as a sentence.
    public var description: String {
        switch code {
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
        shortenedForMessage(text, to: length)
    }
}

extension HistoryArchive.Limits {
    /// Which of the ``HistoryArchive/Limits`` an archive is over.
    ///
    /// Extensible: new limits may be added in any release; do not switch exhaustively. Compare with
    /// a static member (`kind == .bytes`); ``allCases`` lists the limits this version knows. The
    /// ``rawValue`` (the limit's name, as `"bytes"`) and ``description`` are stable.
    public struct Kind: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The limits this version knows, by name.
        enum Name: String, CaseIterable {
            case bytes
            case nestingDepth
            case histories
            case steps
            case actionsPerStep
            case userInfoEntries
            case stringLength
        }

        let name: Name

        private init(_ name: Name) { self.name = name }

        /// The limit with this name (`"bytes"`), when this version knows it.
        ///
        /// - Parameter rawValue: The limit's name.
        public init?(rawValue: String) {
            guard let name = Name(rawValue: rawValue) else { return nil }
            self.init(name)
        }

        /// The limit's name, as `"bytes"`.
        public var rawValue: String { name.rawValue }

        /// The limits this version knows. A later version may add more.
        public static var allCases: [Kind] { Name.allCases.map(Kind.init) }

        /// ``HistoryArchive/Limits/maximumBytes``.
        public static var bytes: Kind { Kind(.bytes) }
        /// ``HistoryArchive/Limits/maximumNestingDepth``.
        public static var nestingDepth: Kind { Kind(.nestingDepth) }
        /// ``HistoryArchive/Limits/maximumHistories``.
        public static var histories: Kind { Kind(.histories) }
        /// ``HistoryArchive/Limits/maximumSteps``.
        public static var steps: Kind { Kind(.steps) }
        /// ``HistoryArchive/Limits/maximumActionsPerStep``.
        public static var actionsPerStep: Kind { Kind(.actionsPerStep) }
        /// ``HistoryArchive/Limits/maximumUserInfoEntries``.
        public static var userInfoEntries: Kind { Kind(.userInfoEntries) }
        /// ``HistoryArchive/Limits/maximumStringLength``.
        public static var stringLength: Kind { Kind(.stringLength) }

        /// What the limit counts: "bytes", "levels of nesting", "steps in a history"...
        public var description: String {
            switch name {
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
