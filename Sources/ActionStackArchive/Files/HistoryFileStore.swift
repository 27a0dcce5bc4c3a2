// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore
public import Foundation

/// A file that holds a saved history, written so that a crash never leaves it half written.
///
/// ``write(_:)`` writes the new contents to a temporary file in the same directory, flushes it to
/// the disk, and then renames it over the file: a rename is atomic, so the file holds either its
/// previous contents or the new ones, never a mix and never nothing, whenever the process is
/// killed or the system loses power. ``read()`` reads it back, refusing a file larger than
/// ``maximumSize`` before it allocates anything. The contents are opaque bytes: typically a
/// history archive's encoded data.
///
/// ```swift
/// let store = HistoryFileStore(url: documentURL.appendingPathExtension("history"))
/// try store.write(encodedHistory)
/// let saved = try store.read()  // nil when there is no file
/// ```
///
/// **Privacy.** A history can hold text the user deleted: an undo brings it back, so the history
/// keeps it. Saving the history is off by default for that reason, and an app that turns it on
/// should say so and remove the file (``remove()``) when the user asks for a clean slate. The
/// store creates its files readable by their owner only, and deletes the temporary files that a
/// crash left behind (see ``read()``).
///
/// One writer at a time: two processes writing the same file each replace it whole, so the last
/// rename wins. A store is a value; copies refer to the same file.
public struct HistoryFileStore: Hashable, Sendable {
    /// The default ``maximumSize``: 64 MiB.
    public static let defaultMaximumSize = 64 << 20

    /// The file.
    public let url: URL
    /// The largest file ``read()`` accepts and ``write(_:)`` writes, in bytes.
    public let maximumSize: Int

    /// A store for the file at `url`. Nothing is read or written until asked.
    ///
    /// - Parameters:
    ///   - url: A file URL. Its directory must exist when the store writes.
    ///   - maximumSize: The largest file to read or write, in bytes (at least 0).
    /// - Complexity: O(1).
    public init(url: URL, maximumSize: Int = HistoryFileStore.defaultMaximumSize) {
        self.url = url
        self.maximumSize = Swift.max(0, maximumSize)
    }

    /// Replaces the file's contents with `data`, atomically.
    ///
    /// The data goes to a new temporary file in the same directory (owner-only permissions), which
    /// is flushed to the disk (`fsync`; `F_FULLFSYNC` on Apple platforms) and then renamed over the
    /// file; the directory is then flushed too where the file system allows it, so that the
    /// rename itself survives a power loss. If any step fails, the temporary file is deleted and
    /// the file is as it was.
    ///
    /// - Parameter data: The new contents.
    /// - Throws: ``HistoryFileError/tooLarge(path:size:limit:)`` when `data` is larger than
    ///   ``maximumSize``, ``HistoryFileError/cannotWrite(path:reason:code:)`` when the directory is
    ///   missing or not writable, the disk is full, or the flush or the rename fails.
    /// - Complexity: O(n) for the n bytes of `data`, plus the flush.
    public func write(_ data: Data) throws(HistoryFileError) {
        let path = try Self.filePath(url, failure: .write)
        guard data.count <= maximumSize else {
            throw .tooLarge(path: path, size: data.count, limit: maximumSize)
        }
        try Self.replaceAtomically(path, with: data)
    }

    /// The file's contents, or nil when there is no file.
    ///
    /// The size is checked before anything is read, so a file larger than ``maximumSize`` costs no
    /// memory. Reading also deletes the temporary files that writes interrupted by a crash left in
    /// the directory (those of this file whose process has ended): they can hold history text.
    ///
    /// - Returns: The contents, or nil when there is no file at ``url``.
    /// - Throws: ``HistoryFileError/tooLarge(path:size:limit:)`` when the file is larger than
    ///   ``maximumSize``, ``HistoryFileError/cannotRead(path:reason:code:)`` when it cannot be
    ///   opened or read or is not a regular file.
    /// - Complexity: O(n + d) for the n bytes of the file and the d entries of its directory.
    public func read() throws(HistoryFileError) -> Data? {
        let path = try Self.filePath(url, failure: .read)
        Self.removeStaleTemporaryFiles(of: path)
        return try Self.readFile(path, limit: maximumSize)
    }

    /// Removes the file, and the temporary files that interrupted writes left beside it. Removing
    /// a file that is not there is no error.
    ///
    /// - Throws: ``HistoryFileError/cannotRemove(path:reason:code:)`` when the file exists and
    ///   cannot be removed.
    /// - Complexity: O(d) for the d entries of the file's directory.
    public func remove() throws(HistoryFileError) {
        let path = try Self.filePath(url, failure: .remove)
        Self.removeStaleTemporaryFiles(of: path)
        try Self.removeFile(path)
    }
}

// The steps that the store and the journal share.
extension HistoryFileStore {
    /// What was being done when a system call failed, which names the error it becomes.
    enum Failure {
        case read, write, remove

        /// The error: this failure of the file at `path`, for `reason`.
        func callAsFunction(_ path: String, _ reason: String, _ code: Int32?) -> HistoryFileError {
            switch self {
            case .read: .cannotRead(path: path, reason: reason, code: code)
            case .write: .cannotWrite(path: path, reason: reason, code: code)
            case .remove: .cannotRemove(path: path, reason: reason, code: code)
            }
        }
    }

    /// The path of a file URL; other URLs are refused with `failure`.
    static func filePath(_ url: URL, failure: Failure) throws(HistoryFileError) -> String {
        guard url.isFileURL else { throw failure(url.absoluteString, "not a file URL", nil) }
        return url.path
    }

    /// The suffix of temporary files.
    private static let temporarySuffix = ".partial"

    /// The name's part that starts the temporary files of `name`: hidden, and short enough to leave
    /// room for the rest within the usual 255-byte limit on a name: at most 64 bytes of the name,
    /// cut between Unicode scalars (64 characters could be far longer).
    private static func temporaryPrefix(of name: String) -> String {
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in name.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > 64 { break }
            kept.append(scalar)
        }
        return "." + String(kept) + "."
    }

    /// A new temporary file's name for the file at `path`, in the same directory (so that the
    /// rename stays on one file system): `.NAME.PID-RANDOM.partial`. The process ID lets a later
    /// read tell a crash's leftovers from another process's write in progress.
    private static func temporaryPath(for path: String) -> String {
        let file = URL(fileURLWithPath: path)
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let name = temporaryPrefix(of: file.lastPathComponent) + "\(SystemFile.processID)-\(random)" + temporarySuffix
        return file.deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Runs system calls, turning their failure into a ``HistoryFileError``: `failure` with the
    /// path, `context` and the system's reason.
    static func attempt<T>(
        _ failure: Failure, _ path: String, _ context: String = "", _ body: () throws(SystemError) -> T
    ) throws(HistoryFileError) -> T {
        do throws(SystemError) {
            return try body()
        } catch {
            throw failure(path, context + error.message, error.code)
        }
    }

    /// Writes `data` to a temporary file beside `path`, flushes it, renames it over `path` and
    /// flushes the directory. Returns the new file as `fstat` saw it before the rename (its device
    /// and inode name it after), or nil when that failed.
    @discardableResult
    static func replaceAtomically(_ path: String, with data: Data) throws(HistoryFileError) -> FileInfo? {
        let temporary = temporaryPath(for: path)
        let descriptor = try attempt(.write, path, "cannot create a temporary file: ") {
            () throws(SystemError) in try SystemFile.createExclusive(temporary)
        }
        let written: FileInfo?
        do throws(HistoryFileError) {
            try attempt(.write, path, "cannot write a temporary file: ") { () throws(SystemError) in
                try SystemFile.write(descriptor, data, at: 0)
                try SystemFile.synchronize(descriptor)
            }
            written = try? SystemFile.info(descriptor)
        } catch {
            try? SystemFile.close(descriptor)
            _ = try? SystemFile.unlink(temporary)
            throw error
        }
        do throws(HistoryFileError) {
            try attempt(.write, path, "cannot replace the file: ") { () throws(SystemError) in
                try SystemFile.close(descriptor)
                try SystemFile.rename(temporary, to: path)
            }
        } catch {
            _ = try? SystemFile.unlink(temporary)
            throw error
        }
        SystemFile.synchronizeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        return written
    }

    /// The whole file at `path`, or nil when there is none; a file larger than `limit` bytes is
    /// refused before anything is read.
    static func readFile(_ path: String, limit: Int) throws(HistoryFileError) -> Data? {
        let opened = try attempt(.read, path) { () throws(SystemError) in
            try SystemFile.openForReading(path)
        }
        guard let descriptor = opened else { return nil }
        defer { try? SystemFile.close(descriptor) }
        let info = try attempt(.read, path) { () throws(SystemError) in try SystemFile.info(descriptor) }
        guard info.isRegularFile else { throw .cannotRead(path: path, reason: "not a regular file", code: nil) }
        guard info.size <= limit else { throw .tooLarge(path: path, size: info.size, limit: limit) }
        let (data, more) = try attempt(.read, path) { () throws(SystemError) in
            (
                try SystemFile.read(descriptor, count: info.size, at: 0),
                try SystemFile.read(descriptor, count: 1, at: info.size)
            )
        }
        // A writer that replaces the file renames a new one over it, which leaves this one as it
        // is; a file that grows while it is read is being written in place.
        guard more.isEmpty else { throw .cannotRead(path: path, reason: "the file grew while it was read", code: nil) }
        return data
    }

    /// Removes the file at `path`, if there is one, and flushes its directory.
    static func removeFile(_ path: String) throws(HistoryFileError) {
        let removed = try attempt(.remove, path) { () throws(SystemError) in try SystemFile.unlink(path) }
        if removed { SystemFile.synchronizeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path) }
    }

    /// Deletes the temporary files of the file at `path` whose writing process has ended: what a
    /// crash in the middle of a write left. Best effort: a file that cannot be listed or removed
    /// stays.
    static func removeStaleTemporaryFiles(of path: String) {
        let file = URL(fileURLWithPath: path)
        let directory = file.deletingLastPathComponent()
        let prefix = temporaryPrefix(of: file.lastPathComponent)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(temporarySuffix) {
            let middle = name.dropFirst(prefix.count).dropLast(temporarySuffix.count)
            guard let dash = middle.firstIndex(of: "-"), let pid = Int32(middle[..<dash]),
                UInt64(middle[middle.index(after: dash)...], radix: 16) != nil
            else { continue }
            if pid != SystemFile.processID && !SystemFile.isProcessAlive(pid) {
                _ = try? SystemFile.unlink(directory.appendingPathComponent(name).path)
            }
        }
    }
}
