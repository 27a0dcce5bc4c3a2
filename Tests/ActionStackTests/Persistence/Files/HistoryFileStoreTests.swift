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

#if canImport(Glibc)
    import Glibc
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

    @Test func storeErrorsLeaveTheFileAsItWas() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = HistoryFileStore(url: dir.appendingPathComponent("doc.history"), maximumSize: 10)
        #expect(try store.read() == nil)
        try store.write(Data("old".utf8))
        #expect(throws: HistoryFileError.self) { try store.write(Data(count: 11)) }
        do { try store.write(Data(count: 11)) } catch {
            guard error.kind == .tooLarge else {
                Issue.record("\(error)")
                return
            }
        }
        #expect(try store.read() == Data("old".utf8))
        // A file grown past the limit elsewhere is refused on read.
        try Data(count: 50).write(to: store.url)
        do {
            _ = try store.read()
            Issue.record("read too large")
        } catch {
            guard error.kind == .tooLarge else {
                Issue.record("\(error)")
                return
            }
        }
        // Missing directory.
        let missing = HistoryFileStore(url: dir.appendingPathComponent("nope/doc.history"))
        do {
            try missing.write(Data("x".utf8))
            Issue.record("wrote into missing dir")
        } catch {
            guard error.kind == .cannotWrite else {
                Issue.record("\(error)")
                return
            }
        }
        // A directory where the file should be.
        let directory = HistoryFileStore(url: dir)
        do {
            _ = try directory.read()
            Issue.record("read a directory")
        } catch {
            guard error.kind == .cannotRead else {
                Issue.record("\(error)")
                return
            }
        }
        // Not a file URL.
        let web = HistoryFileStore(url: URL(string: "https://example.com/x")!)
        #expect(throws: HistoryFileError.self) { try web.write(Data()) }
        // No leftovers.
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.filter { $0.hasSuffix(".partial") }.isEmpty)
    }

    @Test func unwritableDirectory() throws {
        guard geteuid() != 0 else { return }  // root writes anyway
        let dir = try tempDir()
        defer {
            chmod(dir.path, 0o755)
            try? FileManager.default.removeItem(at: dir)
        }
        let store = HistoryFileStore(url: dir.appendingPathComponent("doc.history"))
        try store.write(Data("old".utf8))
        chmod(dir.path, 0o555)
        do {
            try store.write(Data("new".utf8))
            Issue.record("wrote")
        } catch {
            guard error.kind == .cannotWrite, let code = error.code else {
                Issue.record("\(error)")
                return
            }
            #expect(code == EACCES)
        }
        #expect(try store.read() == Data("old".utf8))
    }

    @Test func theFileStoreRefusesWhatItShouldAndKeepsTheOldFile() throws {
        let url = hrTemporaryURL("store.history")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = HistoryFileStore(url: url, maximumSize: 64)
        #expect(try store.read() == nil)
        try store.write(Data("first".utf8))
        #expect(throws: HistoryFileError.self) { try store.write(Data(repeating: 1, count: 65)) }
        #expect(try store.read() == Data("first".utf8))
        try Data(repeating: 2, count: 65).write(to: url)
        #expect(throws: HistoryFileError.self) { try store.read() }
        try store.remove()
        try store.remove()
        #expect(try store.read() == nil)
        let directory = hrTemporaryURL("store-directory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: HistoryFileError.self) { try HistoryFileStore(url: directory).read() }
        #expect(throws: HistoryFileError.self) {
            try HistoryFileStore(url: URL(string: "https://example.com/x")!).read()
        }
    }

    @Test func aLegalNameOfMultiByteCharactersCanBeWritten() throws {
        // HistoryFileStore: the temporary file's name is "short enough to leave room for the rest
        // within the usual 255-byte limit on a name". A 240-byte name is legal.
        let directory = hrTemporaryURL("names")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = String(repeating: "😀", count: 60)
        #expect(name.utf8.count == 240)
        let url = directory.appendingPathComponent(name)
        try Data("a file of that name can exist".utf8).write(to: url)
        try FileManager.default.removeItem(at: url)
        let store = HistoryFileStore(url: url)
        try store.write(Data("history".utf8))
        #expect(try store.read() == Data("history".utf8))
        // The journal's compaction rewrites the same way: once full, such a journal takes no record.
        let journalURL = directory.appendingPathComponent(String(repeating: "😀", count: 61))
        let journal = HistoryJournal(url: journalURL, maximumRecords: 2, synchronizesAppends: false)
        try journal.append(Data("1".utf8), fingerprint: "a")
        try journal.append(Data("2".utf8), fingerprint: "b")
        try journal.append(Data("3".utf8), fingerprint: "c")
    }
}
