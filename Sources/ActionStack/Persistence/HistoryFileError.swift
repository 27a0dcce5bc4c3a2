// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// Why a ``HistoryFileStore`` or a ``HistoryJournal`` could not read, write or remove its file.
///
/// Each case names the file's path and says why, with the system's own reason (as in
/// "open: Permission denied (errno 13)") and, when a system call failed, its POSIX error number in
/// `code` (`EACCES`, `ENOSPC`, …), so that an app can tell a full disk from a missing permission.
/// A missing file is no error: ``HistoryFileStore/read()`` returns nil and a journal without a file
/// has no records.
public enum HistoryFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file exists but could not be read, or is not a regular file.
    case cannotRead(path: String, reason: String, code: Int32?)
    /// The file could not be written. The file at `path` is as it was before the call.
    case cannotWrite(path: String, reason: String, code: Int32?)
    /// The file could not be removed.
    case cannotRemove(path: String, reason: String, code: Int32?)
    /// The file, or the data to write, is larger than the limit: `size` bytes where at most
    /// `limit` are allowed. Nothing was read into memory or written.
    case tooLarge(path: String, size: Int, limit: Int)
    /// The file at `path` is not a journal this library can read: another file, or a journal in a
    /// newer format. The journal leaves it alone (``HistoryJournal/reset()`` removes it).
    case notAJournal(path: String, reason: String)

    /// What went wrong, as a sentence fragment.
    public var description: String {
        switch self {
        case .cannotRead(let path, let reason, _): "cannot read \(path): \(reason)"
        case .cannotWrite(let path, let reason, _): "cannot write \(path): \(reason)"
        case .cannotRemove(let path, let reason, _): "cannot remove \(path): \(reason)"
        case .tooLarge(let path, let size, let limit):
            "\(path): \(size) bytes is more than the limit of \(limit) bytes"
        case .notAJournal(let path, let reason): "\(path) is not a history journal: \(reason)"
        }
    }
}
