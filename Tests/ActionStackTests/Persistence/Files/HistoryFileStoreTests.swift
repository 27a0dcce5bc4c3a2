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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A new empty directory for one test, removed by `remove()`.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A file in the directory.
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names in the directory, sorted.
    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Bytes that differ from one call to the next.
func bytes(_ count: Int, seed: UInt8) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

struct HistoryFileStoreTests {
    @Test func writtenContentsReadBackAndReplaceEachOther() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let store = HistoryFileStore(url: directory.file("doc.history"))
        #expect(try store.read() == nil, "no file yet")
        let first = bytes(100_000, seed: 1)
        try store.write(first)
        #expect(try store.read() == first)
        let second = bytes(10, seed: 2)
        try store.write(second)
        #expect(try store.read() == second, "a shorter write replaces the file whole")
        try store.write(Data())
        #expect(try store.read() == Data(), "an empty history is a file with no bytes, not a missing file")
        #expect(try directory.names() == ["doc.history"], "no temporary file is left")
        try store.remove()
        #expect(try store.read() == nil)
        try store.remove()  // removing what is not there is no error
        #expect(try directory.names().isEmpty)
    }

    @Test func theFileIsReadableByItsOwnerOnly() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let store = HistoryFileStore(url: directory.file("doc.history"))
        try store.write(Data("deleted text".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: store.url.path)
        let permissions = try #require(attributes[.posixPermissions] as? NSNumber).intValue
        #expect(permissions & 0o077 == 0, "group and others get nothing: \(String(permissions, radix: 8))")
    }

    @Test func aWriteLargerThanTheLimitIsRefusedAndChangesNothing() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let store = HistoryFileStore(url: directory.file("doc.history"), maximumSize: 10)
        try store.write(Data("0123456789".utf8))
        #expect(throws: HistoryFileError.tooLarge(path: store.url.path, size: 11, limit: 10)) {
            try store.write(Data("0123456789A".utf8))
        }
        #expect(try store.read() == Data("0123456789".utf8))
        #expect(try directory.names() == ["doc.history"])
    }

    @Test func aFileLargerThanTheLimitIsRefusedOnRead() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.history")
        try HistoryFileStore(url: url).write(bytes(1000, seed: 3))
        let small = HistoryFileStore(url: url, maximumSize: 999)
        let error = #expect(throws: HistoryFileError.self) { try small.read() }
        #expect(error == .tooLarge(path: url.path, size: 1000, limit: 999))
        #expect(error?.description == "\(url.path): 1000 bytes is more than the limit of 999 bytes")
        #expect(try HistoryFileStore(url: url, maximumSize: 1000).read() == bytes(1000, seed: 3))
    }

    @Test func aMissingDirectoryIsACannotWriteWithTheSystemsReason() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("missing").appendingPathComponent("doc.history")
        let error = #expect(throws: HistoryFileError.self) { try HistoryFileStore(url: url).write(Data("x".utf8)) }
        guard let error, error.kind == .cannotWrite, let reason = error.reason else {
            Issue.record("expected cannotWrite, got \(String(describing: error))")
            return
        }
        let path = error.path
        let code = error.code
        #expect(path == url.path)
        #expect(code == ENOENT)
        #expect(reason.contains("No such file or directory"), "\(reason)")
        #expect(error.description.hasPrefix("cannot write \(url.path): cannot create a temporary file: "))
    }

    /// A directory that cannot hold files even for root (its "directory" is a regular file).
    @Test func aDirectoryThatIsAFileIsACannotWrite() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        try Data().write(to: directory.file("plain"))
        let url = directory.file("plain").appendingPathComponent("doc.history")
        let error = #expect(throws: HistoryFileError.self) { try HistoryFileStore(url: url).write(Data("x".utf8)) }
        guard let error, error.kind == .cannotWrite, let code = error.code else {
            Issue.record("expected cannotWrite, got \(String(describing: error))")
            return
        }
        #expect(code == ENOTDIR)
        let readError = #expect(throws: HistoryFileError.self) { try HistoryFileStore(url: url).read() }
        guard let readError, readError.kind == .cannotRead, let readCode = readError.code else {
            Issue.record("expected cannotRead, got \(String(describing: readError))")
            return
        }
        #expect(readCode == ENOTDIR, "a misplaced file is reported, not taken for a missing history")
    }

    /// The rename fails (a directory is in the file's place): the temporary file is deleted and
    /// what was there stays.
    @Test func aFailedRenameLeavesNoTemporaryFile() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let url = directory.file("doc.history")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        let error = #expect(throws: HistoryFileError.self) { try HistoryFileStore(url: url).write(Data("x".utf8)) }
        guard let error, error.kind == .cannotWrite, let reason = error.reason, let code = error.code else {
            Issue.record("expected cannotWrite, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("cannot replace the file: rename: "), "\(reason)")
        #expect(code == EISDIR)
        #expect(try directory.names() == ["doc.history"])
        let readError = #expect(throws: HistoryFileError.self) { try HistoryFileStore(url: url).read() }
        #expect(readError == .cannotRead(path: url.path, reason: "not a regular file", code: nil))
    }

    @Test func aURLThatIsNoFileIsRefused() throws {
        let store = HistoryFileStore(url: try #require(URL(string: "https://example.com/doc.history")))
        #expect(
            throws: HistoryFileError.cannotWrite(
                path: "https://example.com/doc.history", reason: "not a file URL", code: nil)
        ) {
            try store.write(Data())
        }
        #expect(
            throws: HistoryFileError.cannotRead(
                path: "https://example.com/doc.history", reason: "not a file URL", code: nil)
        ) {
            try store.read()
        }
    }

    /// A crash in the middle of a write leaves a temporary file, which can hold history text: a
    /// read deletes those of processes that have ended, and only those of this file.
    @Test func readingDeletesTheTemporaryFilesOfEndedProcesses() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let store = HistoryFileStore(url: directory.file("doc.history"))
        try store.write(Data("saved".utf8))
        // No process has the largest PID: kill(2) answers ESRCH for it.
        let names = [
            ".doc.history.2147483647-1f.partial",  // a crash's leftover: deleted
            ".doc.history.\(getpid())-2e.partial",  // this process's write in progress: kept
            ".other.history.2147483647-3d.partial",  // another file's: kept
            ".doc.history.notapid.partial",  // not a name the store makes: kept
        ]
        for name in names { try Data("old text".utf8).write(to: directory.file(name)) }
        #expect(try store.read() == Data("saved".utf8))
        #expect(try directory.names() == Array(names.dropFirst()).sorted() + ["doc.history"])
        try Data("old text".utf8).write(to: directory.file(names[0]))
        try store.remove()
        #expect(try directory.names() == Array(names.dropFirst()).sorted())
    }
}
