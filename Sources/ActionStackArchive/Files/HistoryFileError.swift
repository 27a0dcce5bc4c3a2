// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore

/// Why a ``HistoryFileStore`` or a ``HistoryJournal`` could not read, write or remove its file.
///
/// Each error names the file's path and says why, with the system's own reason (as in
/// "open: Permission denied (errno 13)") and, when a system call failed, its POSIX error number in
/// `code` (`EACCES`, `ENOSPC`, …), so that an app can tell a full disk from a missing permission.
/// A missing file is no error: ``HistoryFileStore/read()`` returns nil and a journal without a file
/// has no records.
///
/// Extensible: new errors may be added in any release; do not switch exhaustively. Compare with a
/// static member, tell the kinds apart with ``kind`` (`error.kind == .cannotWrite`), and read
/// what an error carries through ``path``, ``reason``, ``code``, ``size`` and ``limit``. The
/// ``description`` is stable.
public struct HistoryFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The errors this version knows, with what each carries.
    private enum Value: Hashable, Sendable {
        case cannotRead(path: String, reason: String, code: Int32?)
        case cannotWrite(path: String, reason: String, code: Int32?)
        case cannotRemove(path: String, reason: String, code: Int32?)
        case tooLarge(path: String, size: Int, limit: Int)
        case notAJournal(path: String, reason: String)
    }

    private let value: Value

    private init(_ value: Value) { self.value = value }

    /// The file exists but could not be read, or is not a regular file.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - reason: The system's reason.
    ///   - code: The POSIX error number, when a system call failed.
    /// - Returns: The error.
    public static func cannotRead(path: String, reason: String, code: Int32?) -> HistoryFileError {
        HistoryFileError(.cannotRead(path: path, reason: reason, code: code))
    }

    /// The file could not be written. The file at `path` is as it was before the call.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - reason: The system's reason.
    ///   - code: The POSIX error number, when a system call failed.
    /// - Returns: The error.
    public static func cannotWrite(path: String, reason: String, code: Int32?) -> HistoryFileError {
        HistoryFileError(.cannotWrite(path: path, reason: reason, code: code))
    }

    /// The file could not be removed.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - reason: The system's reason.
    ///   - code: The POSIX error number, when a system call failed.
    /// - Returns: The error.
    public static func cannotRemove(path: String, reason: String, code: Int32?) -> HistoryFileError {
        HistoryFileError(.cannotRemove(path: path, reason: reason, code: code))
    }

    /// The file, or the data to write, is larger than the limit: `size` bytes where at most
    /// `limit` are allowed. Nothing was read into memory or written.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - size: Its size, or the size of the data to write, in bytes.
    ///   - limit: The most bytes allowed.
    /// - Returns: The error.
    public static func tooLarge(path: String, size: Int, limit: Int) -> HistoryFileError {
        HistoryFileError(.tooLarge(path: path, size: size, limit: limit))
    }

    /// The file at `path` is not a journal this library can read: another file, or a journal in a
    /// newer format. The journal leaves it alone (``HistoryJournal/reset()`` removes it).
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - reason: What is wrong with it.
    /// - Returns: The error.
    public static func notAJournal(path: String, reason: String) -> HistoryFileError {
        HistoryFileError(.notAJournal(path: path, reason: reason))
    }

    /// The path of the file (every error names one).
    public var path: String {
        switch value {
        case .cannotRead(let path, _, _), .cannotWrite(let path, _, _), .cannotRemove(let path, _, _),
            .tooLarge(let path, _, _), .notAJournal(let path, _):
            path
        }
    }

    /// Why, as the system said (or, for ``notAJournal(path:reason:)``, what is wrong with the
    /// file); nil for ``tooLarge(path:size:limit:)``.
    public var reason: String? {
        switch value {
        case .cannotRead(_, let reason, _), .cannotWrite(_, let reason, _), .cannotRemove(_, let reason, _),
            .notAJournal(_, let reason):
            reason
        case .tooLarge: nil
        }
    }

    /// The POSIX error number (`EACCES`, `ENOSPC`, …) when a system call failed; nil otherwise.
    public var code: Int32? {
        switch value {
        case .cannotRead(_, _, let code), .cannotWrite(_, _, let code), .cannotRemove(_, _, let code): code
        case .tooLarge, .notAJournal: nil
        }
    }

    /// For ``tooLarge(path:size:limit:)``, the size in bytes; nil for every other error.
    public var size: Int? {
        if case .tooLarge(_, let size, _) = value { size } else { nil }
    }

    /// For ``tooLarge(path:size:limit:)``, the most bytes allowed; nil for every other error.
    public var limit: Int? {
        if case .tooLarge(_, _, let limit) = value { limit } else { nil }
    }

    /// Which error this is, without what it carries: `error.kind == .cannotWrite`.
    public var kind: Kind {
        switch value {
        case .cannotRead: .cannotRead
        case .cannotWrite: .cannotWrite
        case .cannotRemove: .cannotRemove
        case .tooLarge: .tooLarge
        case .notAJournal: .notAJournal
        }
    }

    /// Which error a ``HistoryFileError`` is, without what it carries: one static member for each
    /// of ``HistoryFileError``'s, with the same name.
    ///
    /// Extensible: new kinds may be added in any release; do not switch exhaustively. The
    /// ``description`` (the name, as `"cannotWrite"`) is stable.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The kinds this version knows, by name.
        private enum Name: String {
            case cannotRead, cannotWrite, cannotRemove, tooLarge, notAJournal
        }

        private let name: Name

        private init(_ name: Name) { self.name = name }

        /// The name of the error's static member, as `"cannotWrite"`.
        public var description: String { name.rawValue }

        /// ``HistoryFileError/cannotRead(path:reason:code:)``.
        public static var cannotRead: Kind { Kind(.cannotRead) }
        /// ``HistoryFileError/cannotWrite(path:reason:code:)``.
        public static var cannotWrite: Kind { Kind(.cannotWrite) }
        /// ``HistoryFileError/cannotRemove(path:reason:code:)``.
        public static var cannotRemove: Kind { Kind(.cannotRemove) }
        /// ``HistoryFileError/tooLarge(path:size:limit:)``.
        public static var tooLarge: Kind { Kind(.tooLarge) }
        /// ``HistoryFileError/notAJournal(path:reason:)``.
        public static var notAJournal: Kind { Kind(.notAJournal) }
    }

    /// What went wrong, as a sentence fragment.
    public var description: String {
        switch value {
        case .cannotRead(let path, let reason, _): "cannot read \(path): \(reason)"
        case .cannotWrite(let path, let reason, _): "cannot write \(path): \(reason)"
        case .cannotRemove(let path, let reason, _): "cannot remove \(path): \(reason)"
        case .tooLarge(let path, let size, let limit):
            "\(path): \(size) bytes is more than the limit of \(limit) bytes"
        case .notAJournal(let path, let reason): "\(path) is not a history journal: \(reason)"
        }
    }
}
