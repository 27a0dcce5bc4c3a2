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

/// One record of a ``HistoryJournal``: what the app appended, with the fingerprint of the document
/// it belongs to.
public struct JournalRecord: Hashable, Sendable {
    /// The record's place: 0 for the first record after ``HistoryJournal/reset()`` (or in a new
    /// journal), then one more for each record appended (after `UInt64.max` comes 0 again, which
    /// only a file whose header starts the numbers there reaches). Compaction drops the oldest
    /// records and keeps the numbers of the others.
    public var sequence: UInt64
    /// What the app appended; opaque to the journal (typically an encoded history archive).
    public var payload: Data
    /// The fingerprint of the document after the change the record describes, when the app gave
    /// one.
    public var fingerprint: String?

    /// A record.
    ///
    /// - Parameters:
    ///   - sequence: Its sequence number.
    ///   - payload: Its contents.
    ///   - fingerprint: The document's fingerprint, if any.
    public init(sequence: UInt64, payload: Data, fingerprint: String?) {
        self.sequence = sequence
        self.payload = payload
        self.fingerprint = fingerprint
    }
}

/// An append-only file of records, one for each change to a history, so that a crash loses at
/// most the change in progress.
///
/// Between full saves (``HistoryFileStore`` writes) a record is appended after each change
/// (``append(_:fingerprint:)``; a ``HistoryRecorder`` does it for the app), and after a full save
/// the journal starts over (``reset()``). Each record carries the fingerprint of the document after
/// the change, so that at the next launch the app can pick the history that goes with the document
/// it opened (``lastRecord(matchingFingerprint:)``): a document last written three changes ago
/// reopens with the history as it was then. The three later changes are not in that document, and
/// cannot come back as steps to redo: their redo actions would only exist had they been undone.
///
/// ```swift
/// let journal = HistoryJournal(url: documentURL.appendingPathExtension("journal"))
/// try journal.append(encodedHistory, fingerprint: documentFingerprint)
/// // At the next launch:
/// if let record = try journal.lastRecord(matchingFingerprint: openedFingerprint) {
///     // restore from record.payload
/// }
/// ```
///
/// **Format and crash safety.** Each record is framed with a magic number, its lengths, its
/// sequence number and two CRC-32 checksums (one for its header, one for all of it); the format is
/// documented in the library's sources (`JournalFormat.swift`). An append that a crash cuts short
/// leaves a torn last record, which a replay detects and ignores (``Replay/Ending/tornRecord(offset:length:)``)
/// and the next append overwrites. A damaged record before the end stops the replay there
/// (``Replay/Ending/corruptRecord(offset:reason:droppedBytes:)``): the records after it
/// cannot be trusted to follow it. By default each append is flushed to the disk, so that it also
/// survives a power loss; ``Durability`` says when else a record may reach it, and what each
/// choice costs.
///
/// **Limits.** The journal keeps at most ``maximumRecords`` records and ``maximumBytes`` bytes. An
/// append that would pass either first compacts the journal to the newest records that fit in
/// half of each limit, so that the rewrite, O(n) in the journal's size, happens once every many
/// appends rather than at each one.
///
/// **Privacy.** A history can hold text the user deleted, and so can each record. Saving the
/// history is off by default for that reason; an app that turns it on should say so, and remove
/// the journal (``reset()``) with the saved history when the user asks for a clean slate. The
/// journal creates its files readable by their owner only.
///
/// **Changes behind its back.** Between calls the journal remembers where its intact records end,
/// and each append first checks that the file is still as the journal last left it: the same file
/// (device and inode: not replaced by a rename, not deleted), the same size, the same time stamps
/// (modification and status change), and the same last 64 bytes before that end. The checks cost
/// an `fstat` and a read of those 64 bytes, whatever the file's size (and an `fstat` after the
/// write, to know the file as the append leaves it). When one fails, the append reads the file
/// again, as a replay does, and goes on from its last intact record:
///
/// - another journal or process appended: the append follows its records;
/// - a record was damaged (a byte changed), or the file was truncated: the damaged or torn record
///   and everything after it are overwritten, as at the end of any replay that stops there;
/// - the file was replaced (renamed over): the append goes on where the new file's intact records
///   end; a file that is not a journal is refused (``HistoryFileError/notAJournal(path:reason:)``)
///   and left as it is;
/// - the file was deleted: the append starts a new one, at sequence number 0, as after ``reset()``.
///
/// A replay refreshes the same knowledge, since it reads the whole file. What no cheap check can
/// see is a change that keeps the file's size, its time stamps and its last 64 bytes: one made by
/// the disk itself, or a write in the middle of the file within the same tick of the file system's
/// clock as the journal's own last write (file systems keep time stamps to a few milliseconds, some
/// to a second or two). The next append then follows the damage, and replays stop at the damaged
/// record, as they stop at any (``Replay/Ending/corruptRecord(offset:reason:droppedBytes:)``).
///
/// **Several writers.** Each append, compaction and reset holds the file's advisory lock (`flock`),
/// exclusive, and each replay holds it shared, so that two journals on one file, in one process or
/// in two, take turns: they never interleave inside a record, and each one's next append follows
/// the other's records (after reading the file again, which costs O(n) for its n bytes when the
/// other journal wrote last). The journal's methods are safe to call from any thread (a lock orders
/// them). A program that writes the file without the lock is a change behind the journal's back,
/// as above. On a file system without advisory locks (some network file systems) the journal goes
/// on without them: one writer at a time there.
public final class HistoryJournal: Sendable {
    /// The default ``maximumRecords``: 1,048,576 (2^20), so that ``maximumBytes`` is the limit
    /// that counts. A ``HistoryRecorder`` writes a snapshot before the journal would drop the one
    /// its records follow; with a limit of r records it writes one at least every r/2 records,
    /// which for a history of more than about r/2 steps costs more than the records it saves.
    public static let defaultMaximumRecords = 1 << 20
    /// The default ``maximumBytes``: 64 MiB.
    public static let defaultMaximumBytes = 64 << 20

    /// The journal's file.
    public let url: URL
    /// The most records the journal keeps (at least 1).
    public let maximumRecords: Int
    /// The largest the journal's file grows, in bytes, header and framing included (at least 64);
    /// also the largest journal file it reads.
    public let maximumBytes: Int
    /// When an appended record reaches the disk: at each append (the default), within an
    /// interval, or when the system writes its cache (see ``Durability``).
    public let durability: Durability
    /// Whether each append is flushed to the disk before it returns (`fsync`; `F_FULLFSYNC` on
    /// Apple platforms): ``durability`` is ``Durability/everyAppend``. When false, an append
    /// survives the app's crash but maybe not the system's, and costs less.
    public var synchronizesAppends: Bool { durability == .everyAppend }
    /// What the journal knows of its file between calls, under a lock.
    private let cache = JournalCache()
    /// The flushes deferred by ``Durability/within(_:)``.
    private let flusher = JournalFlusher()
    /// How many times the journal read its whole file.
    private let wholeReads = JournalCount()

    /// A journal in the file at `url`. Nothing is read or written until asked; the file is created
    /// by the first append.
    ///
    /// - Parameters:
    ///   - url: A file URL, usually beside the saved history's file. Its directory must exist
    ///     when the journal writes.
    ///   - maximumRecords: The most records to keep (at least 1).
    ///   - maximumBytes: The largest file to write or read, in bytes (at least 64).
    ///   - synchronizesAppends: Whether each append is flushed to the disk
    ///     (``Durability/everyAppend``) or the flush is left to the system
    ///     (``Durability/system``).
    /// - Complexity: O(1).
    public convenience init(
        url: URL,
        maximumRecords: Int = HistoryJournal.defaultMaximumRecords,
        maximumBytes: Int = HistoryJournal.defaultMaximumBytes,
        synchronizesAppends: Bool = true
    ) {
        self.init(
            url: url, maximumRecords: maximumRecords, maximumBytes: maximumBytes,
            durability: synchronizesAppends ? .everyAppend : .system)
    }

    /// A journal in the file at `url` whose records reach the disk as `durability` says. Nothing
    /// is read or written until asked; the file is created by the first append.
    ///
    /// - Parameters:
    ///   - url: A file URL, usually beside the saved history's file. Its directory must exist
    ///     when the journal writes.
    ///   - maximumRecords: The most records to keep (at least 1).
    ///   - maximumBytes: The largest file to write or read, in bytes (at least 64).
    ///   - durability: When an appended record reaches the disk (see ``Durability``).
    /// - Complexity: O(1).
    public init(
        url: URL,
        maximumRecords: Int = HistoryJournal.defaultMaximumRecords,
        maximumBytes: Int = HistoryJournal.defaultMaximumBytes,
        durability: Durability
    ) {
        self.url = url
        self.maximumRecords = Swift.max(1, maximumRecords)
        self.maximumBytes = Swift.max(64, maximumBytes)
        self.durability = durability
    }

    /// Appends a record.
    ///
    /// The record is written after the last intact record: a torn record that a crash left at the
    /// end, or a damaged record and everything after it, is overwritten. When the journal would
    /// pass ``maximumRecords`` or ``maximumBytes``, it is first compacted to the newest records
    /// that fit in half of each (atomically, as ``compact(keeping:)`` does).
    ///
    /// The append holds the file's lock, and checks first that the file is as the journal last
    /// left it; when it is not (another journal appended, or the file was changed behind the
    /// journal's back), it reads the file again (see ``HistoryJournal``).
    ///
    /// - Parameters:
    ///   - record: The record's contents, opaque to the journal.
    ///   - fingerprint: The fingerprint of the document after the change, if the app has one.
    /// - Throws: ``HistoryFileError/tooLarge(path:size:limit:)`` when the record alone, with the
    ///   file's header, is larger than ``maximumBytes``, or the file is;
    ///   ``HistoryFileError/notAJournal(path:reason:)`` when the file is something else;
    ///   ``HistoryFileError/cannotWrite(path:reason:code:)`` and
    ///   ``HistoryFileError/cannotRead(path:reason:code:)`` when the file cannot be written or
    ///   read. After a failure the journal holds the records it held before.
    /// - Complexity: O(m) for the m bytes of the record, amortized, while the file is as the
    ///   journal left it. The first call of a journal, and a call after the file changed, also
    ///   reads the file: O(n) for its n bytes.
    public func append(_ record: Data, fingerprint: String?) throws(HistoryFileError) {
        _ = try append(record, fingerprint: fingerprint, following: [])
    }

    /// Appends a record that follows the records `previous` (a record of what changed, which a
    /// replay applies to the snapshot and the records before it), unless the journal no longer
    /// holds each of them intact: a crash tore one and the file was read again, the file was
    /// changed, replaced, compacted or deleted behind the journal's back, or this append would
    /// compact it. Then nothing is appended and the result is nil.
    ///
    /// - Parameters:
    ///   - record: The record's contents.
    ///   - fingerprint: The document's fingerprint after the change, if any.
    ///   - previous: The sequence numbers and contents of the records it follows, the last
    ///     appended last; empty for a record that follows none.
    /// - Returns: The sequence number of the record appended, or nil.
    /// - Throws: As ``append(_:fingerprint:)``.
    /// - Complexity: As ``append(_:fingerprint:)``.
    func append(
        _ record: Data, fingerprint: String?, following previous: [(sequence: UInt64, payload: Data)]
    ) throws(HistoryFileError) -> UInt64? {
        let path = try HistoryFileStore.filePath(url, failure: .write)
        let size = JournalFormat.recordSize(payload: record.count, fingerprint: fingerprint)
        guard JournalFormat.fileHeaderSize + size <= maximumBytes else {
            throw .tooLarge(path: path, size: JournalFormat.fileHeaderSize + size, limit: maximumBytes)
        }
        return try cache.withLock { (cached: inout JournalCache.State?) throws(HistoryFileError) -> UInt64? in
            // Opened, and locked, by this call; any failure below leaves the cache empty, so that
            // the next call reads the file again.
            let known = cached
            cached = nil
            guard var file = try LockedFile.open(path, exclusive: true, creating: true) else {
                throw .cannotWrite(path: path, reason: "open: the file is missing", code: nil)
            }
            defer { file.close() }
            var (state, reread) = try self.state(of: file, path: path, cached: known)
            // A file as this journal left it (appended, or read) whose last record is the last of
            // `previous`, and whose first is not after the first of them, holds them all: records
            // are lost only to a compaction (which drops the oldest) or a change behind the
            // journal's back (after which it reads the file again). Otherwise the file is read,
            // and holds them when it has the same records with the same numbers (another
            // writer's records may follow them).
            if let newest = previous.last {
                var contents = reread
                let first = state.nextSequence &- UInt64(state.count)
                if contents == nil
                    && (newest.sequence != state.nextSequence &- 1 || previous.contains { $0.sequence < first })
                {
                    contents = try self.contents(of: file.descriptor, path: path, size: file.info.size)
                }
                if let contents {
                    let held = previous.allSatisfy { wanted in
                        contents.records.contains { $0.sequence == wanted.sequence && $0.payload == wanted.payload }
                    }
                    if !held {
                        cached = state
                        return nil
                    }
                }
            }
            let sizeAfterHeader = state.end == 0 ? JournalFormat.fileHeaderSize : state.end
            if state.count + 1 > maximumRecords || sizeAfterHeader + size > maximumBytes {
                // A compaction may drop what the record follows.
                if !previous.isEmpty {
                    cached = state
                    return nil
                }
                let keeping = maximumRecords / 2
                let contents: JournalFormat.Contents
                if let reread {
                    contents = reread
                } else {
                    contents = try self.newestRecords(keeping, of: file, path: path, state: state)
                }
                let budget = Swift.min(maximumBytes / 2, maximumBytes - size)
                let rewritten = try rewrite(path, contents, keeping: keeping, within: budget)
                // The rename left this descriptor, and its lock, on the old file.
                file.close()
                guard let reopened = try LockedFile.open(path, exclusive: true, creating: true) else {
                    throw .cannotWrite(path: path, reason: "open: the file is missing", code: nil)
                }
                file = reopened
                state = try self.state(of: file, path: path, cached: rewritten).state
            }
            let offset = state.end
            // Flushed before returning: at each append, or after a deferred flush that failed (so
            // that its failure reaches a caller, and the records it was to flush are flushed).
            let flushesNow = durability == .everyAppend || flusher.mustFlushNow
            var bytes = offset == 0 ? JournalFormat.fileHeader(firstSequence: state.nextSequence) : Data()
            bytes += JournalFormat.encode(
                JournalRecord(sequence: state.nextSequence, payload: record, fingerprint: fingerprint))
            do throws(HistoryFileError) {
                try HistoryFileStore.attempt(.write, path) { [file] () throws(SystemError) in
                    // Cut off what follows the intact records: a torn record, a damaged one.
                    if file.info.size > offset { try SystemFile.truncate(file.descriptor, to: offset) }
                    try SystemFile.write(file.descriptor, bytes, at: offset)
                    if flushesNow { try SystemFile.synchronize(file.descriptor) }
                }
            } catch {
                try? SystemFile.truncate(file.descriptor, to: offset)
                throw error
            }
            if flushesNow { flusher.noteFlush() }
            if let interval = durability.interval, !flushesNow { flusher.schedule(path, within: interval) }
            if offset == 0 { SystemFile.synchronizeDirectory(url.deletingLastPathComponent().path) }
            // The record is written. A file that cannot be looked at now, or that another program
            // wrote to meanwhile, is read again at the next call.
            let written = state.nextSequence
            guard let info = try? SystemFile.info(file.descriptor), info.size == offset + bytes.count else {
                return written
            }
            state.tail = JournalCache.tail(of: state.tail, then: bytes)
            state.offsets.append(offset == 0 ? JournalFormat.fileHeaderSize : offset)
            state.end = offset + bytes.count
            state.nextSequence &+= 1
            state.count += 1
            state.file = info
            cached = state
            return written
        }
    }

    /// The journal's intact records, in order, and how the replay ended: at the end of the file,
    /// at a torn last record (ignored), or at a damaged record (reported, with what was dropped).
    ///
    /// A journal without a file has no records. Replaying also deletes the temporary files that
    /// compactions interrupted by a crash left in the directory. It holds the file's lock, shared:
    /// it waits for another journal's append or compaction in progress to end. What it finds is
    /// also where this journal's next append goes.
    ///
    /// - Returns: The records and the ending.
    /// - Throws: ``HistoryFileError/tooLarge(path:size:limit:)`` when the file is larger than
    ///   ``maximumBytes`` (nothing is read), ``HistoryFileError/notAJournal(path:reason:)``,
    ///   ``HistoryFileError/cannotRead(path:reason:code:)``.
    /// - Complexity: O(n + d) for the n bytes of the journal and the d entries of its directory.
    public func replay() throws(HistoryFileError) -> Replay {
        let path = try HistoryFileStore.filePath(url, failure: .read)
        return try cache.withLock { (cached: inout JournalCache.State?) throws(HistoryFileError) in
            cached = nil
            HistoryFileStore.removeStaleTemporaryFiles(of: path)
            guard let file = try LockedFile.open(path, exclusive: false, creating: false) else {
                return Replay(records: [], ending: .complete)
            }
            defer { file.close() }
            guard file.info.isRegularFile else {
                throw .cannotRead(path: path, reason: "not a regular file", code: nil)
            }
            guard file.info.size <= maximumBytes else {
                throw .tooLarge(path: path, size: file.info.size, limit: maximumBytes)
            }
            wholeReads.increment()
            let (data, more) = try HistoryFileStore.attempt(.read, path) { () throws(SystemError) in
                (
                    try SystemFile.read(file.descriptor, count: file.info.size, at: 0),
                    try SystemFile.read(file.descriptor, count: 1, at: file.info.size)
                )
            }
            // Journals wait for the lock; a program that ignores it can still write meanwhile.
            guard more.isEmpty else {
                throw .cannotRead(path: path, reason: "the file grew while it was read", code: nil)
            }
            let contents = try JournalFormat.parse(data, path: path)
            cached = JournalCache.State(file: file.info, contents: contents, data: data)
            return Replay(records: contents.records, ending: contents.ending)
        }
    }

    /// The journal's intact records, in order: ``replay()``'s records, without how it ended.
    ///
    /// - Returns: The records up to the first one that is not intact.
    /// - Throws: As ``replay()``.
    /// - Complexity: O(n + d) for the n bytes of the journal and the d entries of its directory.
    public func records() throws(HistoryFileError) -> [JournalRecord] {
        try replay().records
    }

    /// The last intact record whose fingerprint is `fingerprint`, byte for byte in UTF-8: the
    /// history as it was when the document was as the app found it. Nil when no record has it (the document was changed
    /// elsewhere, or saved before the oldest record kept).
    ///
    /// - Parameter fingerprint: The fingerprint of the document the app opened.
    /// - Returns: The record, or nil.
    /// - Throws: As ``replay()``.
    /// - Complexity: O(n + d) for the n bytes of the journal and the d entries of its directory.
    public func lastRecord(matchingFingerprint fingerprint: String) throws(HistoryFileError) -> JournalRecord? {
        // Byte for byte: Swift's `==` would match canonically equivalent fingerprints ("é" and
        // "e\u{301}"), which a hash or a revision number must not.
        try replay().records.last { $0.fingerprint.map { $0.utf8.elementsEqual(fingerprint.utf8) } ?? false }
    }

    /// Keeps only the newest `count` intact records (none when `count` is 0 or less), with their
    /// sequence numbers, and drops the rest, a torn or damaged end included.
    ///
    /// The journal is rewritten as ``HistoryFileStore/write(_:)`` writes: to a temporary file,
    /// flushed, then renamed over the journal, so that a crash leaves the old journal or the new
    /// one. A journal without a file stays without one. The old file's lock is held meanwhile.
    /// When the file is as the journal left it (see "Changes behind its back" above), only the
    /// records kept are read, and checked as a replay checks them; the journal then knows the new
    /// file, and its next append does not read it again.
    ///
    /// - Parameter count: How many of the newest records to keep.
    /// - Throws: As ``replay()``, and ``HistoryFileError/cannotWrite(path:reason:code:)``.
    /// - Complexity: O(k) for the k bytes of the records kept, when the file is as the journal left
    ///   it; otherwise O(n) for the n bytes of the journal.
    public func compact(keeping count: Int) throws(HistoryFileError) {
        let path = try HistoryFileStore.filePath(url, failure: .write)
        try cache.withLock { (cached: inout JournalCache.State?) throws(HistoryFileError) in
            let known = cached
            cached = nil
            guard let file = try LockedFile.open(path, exclusive: true, creating: false) else { return }
            defer { file.close() }
            guard file.info.isRegularFile else {
                throw .cannotRead(path: path, reason: "not a regular file", code: nil)
            }
            // A file as the journal left it is not read again: only the records it keeps are.
            let (state, reread) = try self.state(of: file, path: path, cached: known)
            let contents: JournalFormat.Contents
            if let reread {
                contents = reread
            } else {
                contents = try self.newestRecords(count, of: file, path: path, state: state)
            }
            cached = try rewrite(path, contents, keeping: count, within: maximumBytes)
        }
    }

    /// Flushes the journal's file to the disk now: every record appended so far survives a crash
    /// of the system or a power loss. For a journal whose ``durability`` is not
    /// ``Durability/everyAppend``, when the app goes to the background or closes the document. A
    /// journal without a file has nothing to flush.
    ///
    /// - Throws: ``HistoryFileError/cannotWrite(path:reason:code:)`` when the flush fails (the
    ///   records stay in the system's cache, and the next flush tries again), or when something
    ///   other than a regular file is at the journal's path (as an append throws then).
    /// - Complexity: O(1), plus the wait for the disk.
    public func synchronize() throws(HistoryFileError) {
        let path = try HistoryFileStore.filePath(url, failure: .write)
        let isRegularFile = try HistoryFileStore.attempt(.write, path) { () throws(SystemError) -> Bool in
            guard let descriptor = try SystemFile.openForReading(path) else { return true }
            defer { try? SystemFile.close(descriptor) }
            guard try SystemFile.info(descriptor).isRegularFile else { return false }
            try SystemFile.synchronize(descriptor)
            return true
        }
        guard isRegularFile else { throw .cannotWrite(path: path, reason: "not a regular file", code: nil) }
        flusher.noteFlush()
    }

    /// The flushes of appended records made so far: at each append, by ``synchronize()``, or
    /// deferred (a test hook).
    package var _flushCount: Int { flusher.flushCount }
    /// Whether a deferred flush waits (a test hook).
    package var _hasScheduledFlush: Bool { flusher.hasScheduledFlush }
    /// Makes the next deferred flush fail, as a disk that cannot be written would (a test hook).
    package func _failNextDeferredFlush() { flusher.failNextDeferredFlush() }
    /// How many times the journal read its whole file: at its first call, after a change behind
    /// its back, after another writer's records (a test hook; a compaction of a file as the
    /// journal left it, and the append after it, read only the records kept).
    package var _wholeFileReads: Int { wholeReads.value }
    /// The journal's flusher, which outlives it while a flush waits (a test hook: its count).
    package var _flushCounter: () -> Int { { [flusher] in flusher.flushCount } }

    /// Removes the journal, to start over: after a full save, the saved file holds everything the
    /// journal did. The next record appended is number 0 again. Removing a journal that has no
    /// file is no error. The file is removed under its lock, after another journal's append or
    /// compaction in progress; a file that cannot be opened for the lock is removed all the same.
    ///
    /// - Throws: ``HistoryFileError/cannotRemove(path:reason:code:)``.
    /// - Complexity: O(d) for the d entries of the journal's directory.
    public func reset() throws(HistoryFileError) {
        let path = try HistoryFileStore.filePath(url, failure: .remove)
        try cache.withLock { (cached: inout JournalCache.State?) throws(HistoryFileError) in
            cached = nil
            HistoryFileStore.removeStaleTemporaryFiles(of: path)
            let file = try? LockedFile.open(path, exclusive: true, creating: false)
            defer { file?.close() }
            try HistoryFileStore.removeFile(path)
        }
        cache.resets.increment()
    }

    /// How many times ``reset()`` started this journal over: a ``HistoryRecorder`` appends its
    /// next record even when it repeats the last one it appended before the reset.
    var resetCount: Int { cache.resets.value }

    /// Where the next record goes in the open, locked journal: the cached state when the file is
    /// still as the journal left it (the same file, size and time stamps, and the same bytes
    /// before the end it knows), or else what reading the file finds.
    private func state(
        of file: LockedFile, path: String, cached: JournalCache.State?
    ) throws(HistoryFileError) -> (state: JournalCache.State, reread: JournalFormat.Contents?) {
        guard file.info.isRegularFile else { throw .cannotWrite(path: path, reason: "not a regular file", code: nil) }
        if let cached, cached.describes(file.info) {
            let tail = try HistoryFileStore.attempt(.read, path) { () throws(SystemError) in
                try SystemFile.read(file.descriptor, count: cached.tail.count, at: cached.end - cached.tail.count)
            }
            if tail == cached.tail { return (cached, nil) }
        }
        guard file.info.size <= maximumBytes else {
            throw .tooLarge(path: path, size: file.info.size, limit: maximumBytes)
        }
        wholeReads.increment()
        let data = try HistoryFileStore.attempt(.read, path) { () throws(SystemError) in
            try SystemFile.read(file.descriptor, count: file.info.size, at: 0)
        }
        let contents = try JournalFormat.parse(data, path: path)
        return (JournalCache.State(file: file.info, contents: contents, data: data), contents)
    }

    /// What the open journal holds.
    private func contents(of descriptor: Int32, path: String, size: Int) throws(HistoryFileError)
        -> JournalFormat.Contents
    {
        guard size <= maximumBytes else { throw .tooLarge(path: path, size: size, limit: maximumBytes) }
        wholeReads.increment()
        let data = try HistoryFileStore.attempt(.read, path) { () throws(SystemError) in
            try SystemFile.read(descriptor, count: size, at: 0)
        }
        return try JournalFormat.parse(data, path: path)
    }

    /// The newest `count` records of the open journal, whose `state` the journal knows (its file
    /// is as the journal left it): only their bytes are read, and checked as a replay checks them.
    /// When they do not read back as the records the journal knows there, the whole file is read.
    ///
    /// - Complexity: O(m) for the m bytes of those records.
    private func newestRecords(
        _ count: Int, of file: LockedFile, path: String, state: JournalCache.State
    ) throws(HistoryFileError) -> JournalFormat.Contents {
        let kept = Swift.min(Swift.max(count, 0), state.count)
        let firstSequence = state.nextSequence &- UInt64(kept)
        guard kept > 0, state.offsets.count == state.count else {
            if kept == 0 {
                return JournalFormat.Contents(
                    records: [], ending: .complete, validEnd: 0, nextSequence: state.nextSequence)
            }
            return try contents(of: file.descriptor, path: path, size: file.info.size)
        }
        let start = state.offsets[state.count - kept]
        var framed = JournalFormat.fileHeader(firstSequence: firstSequence)
        framed += try HistoryFileStore.attempt(.read, path) { () throws(SystemError) in
            try SystemFile.read(file.descriptor, count: state.end - start, at: start)
        }
        let contents = try JournalFormat.parse(framed, path: path)
        guard contents.ending == .complete, contents.records.count == kept,
            contents.nextSequence == state.nextSequence
        else { return try self.contents(of: file.descriptor, path: path, size: file.info.size) }
        return contents
    }

    /// Replaces the journal with the newest of `contents`' records, at most `count` of them in at
    /// most `budget` bytes (header included), atomically. Returns what the journal then knows of
    /// the new file, or nil when it cannot tell that the file at `path` is still the one it wrote
    /// (another writer, which waits for no lock on the new file, may have appended to it or
    /// replaced it already): the next call then reads the file.
    private func rewrite(
        _ path: String, _ contents: JournalFormat.Contents, keeping count: Int, within budget: Int
    ) throws(HistoryFileError) -> JournalCache.State? {
        var kept: [Data] = []
        var size = JournalFormat.fileHeaderSize
        for record in contents.records.reversed() where kept.count < count {
            let encoded = JournalFormat.encode(record)
            guard size + encoded.count <= budget else { break }
            kept.append(encoded)
            size += encoded.count
        }
        let first = contents.nextSequence &- UInt64(kept.count)
        var bytes = JournalFormat.fileHeader(firstSequence: first)
        bytes.reserveCapacity(size)
        var offsets: [Int] = []
        offsets.reserveCapacity(kept.count)
        for encoded in kept.reversed() {
            offsets.append(bytes.count)
            bytes += encoded
        }
        let written = try HistoryFileStore.replaceAtomically(path, with: bytes)
        guard let written, let info = try? SystemFile.info(atPath: path), info.isSameFile(as: written),
            info.isRegularFile, info.size == bytes.count
        else { return nil }
        return JournalCache.State(
            file: info, end: bytes.count, tail: JournalCache.tail(of: bytes), nextSequence: contents.nextSequence,
            count: kept.count, offsets: offsets)
    }
}

extension HistoryJournal {
    /// What a replay of the journal found: its intact records, and how it ended.
    public struct Replay: Hashable, Sendable {
        /// The intact records, in order, up to the first that is not.
        public var records: [JournalRecord]
        /// Why the replay stopped where it did.
        public var ending: Ending

        /// A replay.
        ///
        /// - Parameters:
        ///   - records: The intact records.
        ///   - ending: How it ended.
        public init(records: [JournalRecord], ending: Ending) {
            self.records = records
            self.ending = ending
        }

        /// How a replay ended.
        ///
        /// Extensible: new endings may be added in any release; do not switch exhaustively.
        /// Compare with a static member (`ending == .complete`), and read what an ending carries
        /// through ``offset``, ``length``, ``reason`` and ``droppedBytes``. The ``description`` is
        /// stable.
        public struct Ending: Hashable, Sendable, CustomStringConvertible {
            /// The endings this version knows, with what each carries.
            private enum Code: Hashable, Sendable {
                case complete
                case tornRecord(offset: Int, length: Int)
                case corruptRecord(offset: Int, reason: String, droppedBytes: Int)
            }

            private let code: Code

            private init(_ code: Code) { self.code = code }

            /// At the end of the file: every record was intact.
            public static var complete: Ending { Ending(.complete) }

            /// At a torn last record, `length` bytes from `offset` to the end of the file: an
            /// append that a crash cut short, ignored. The next append overwrites it.
            ///
            /// - Parameters:
            ///   - offset: Where the torn record starts.
            ///   - length: Its bytes, to the end of the file.
            /// - Returns: The ending.
            public static func tornRecord(offset: Int, length: Int) -> Ending {
                Ending(.tornRecord(offset: offset, length: length))
            }

            /// At a damaged record at `offset`, before the end of the file; the `droppedBytes`
            /// from there to the end, that record and any after it, were not replayed. The next
            /// append overwrites them.
            ///
            /// - Parameters:
            ///   - offset: Where the damaged record starts.
            ///   - reason: What is wrong with it.
            ///   - droppedBytes: The bytes from there to the end of the file.
            /// - Returns: The ending.
            public static func corruptRecord(offset: Int, reason: String, droppedBytes: Int) -> Ending {
                Ending(.corruptRecord(offset: offset, reason: reason, droppedBytes: droppedBytes))
            }

            /// For ``tornRecord(offset:length:)`` and ``corruptRecord(offset:reason:droppedBytes:)``,
            /// where the record that stopped the replay starts; nil for ``complete``.
            public var offset: Int? {
                switch code {
                case .complete: nil
                case .tornRecord(let offset, _), .corruptRecord(let offset, _, _): offset
                }
            }

            /// For ``tornRecord(offset:length:)``, the torn record's bytes; nil for every other
            /// ending.
            public var length: Int? {
                if case .tornRecord(_, let length) = code { length } else { nil }
            }

            /// For ``corruptRecord(offset:reason:droppedBytes:)``, what is wrong with the record;
            /// nil for every other ending.
            public var reason: String? {
                if case .corruptRecord(_, let reason, _) = code { reason } else { nil }
            }

            /// For ``corruptRecord(offset:reason:droppedBytes:)``, the bytes not replayed; nil for
            /// every other ending.
            public var droppedBytes: Int? {
                if case .corruptRecord(_, _, let dropped) = code { dropped } else { nil }
            }

            /// How the replay ended, as a sentence fragment.
            public var description: String {
                switch code {
                case .complete: "every record was intact"
                case .tornRecord(let offset, let length):
                    "a torn last record (\(length) bytes at offset \(offset)) was ignored"
                case .corruptRecord(let offset, let reason, let dropped):
                    "the record at offset \(offset) is damaged (\(reason)); the \(dropped) bytes from it on were dropped"
                }
            }
        }
    }
}

/// A ``HistoryJournal``'s file, open and locked for one call.
private struct LockedFile {
    /// How many times opening gives way to a file that another writer replaced or removed while
    /// this one waited for the lock, before it gives up.
    private static let attempts = 64

    /// The open file.
    let descriptor: Int32
    /// What `fstat` said of it once it was locked.
    let info: FileInfo

    /// The file at `path`, opened and locked (`exclusive` for a change), or nil when there is no
    /// file and `creating` is false.
    ///
    /// The lock is the file's, not its name's: when another writer renamed a new file over this
    /// one, or removed it, while this one waited for the lock, the file at `path` is opened again.
    /// Either leaves the file without a name, so `path` is looked up again (a `stat`) only then, or
    /// when the file has several names (hard links).
    static func open(_ path: String, exclusive: Bool, creating: Bool) throws(HistoryFileError) -> LockedFile? {
        let failure: HistoryFileStore.Failure = creating ? .write : .read
        for _ in 0..<attempts {
            let opened = try HistoryFileStore.attempt(failure, path) { () throws(SystemError) in
                creating ? try SystemFile.openForUpdate(path) : try SystemFile.openForReading(path)
            }
            guard let descriptor = opened else { return nil }
            let file: LockedFile
            let current: FileInfo?
            do throws(HistoryFileError) {
                (file, current) = try HistoryFileStore.attempt(failure, path) { () throws(SystemError) in
                    _ = try SystemFile.lock(descriptor, exclusive: exclusive)
                    let file = LockedFile(descriptor: descriptor, info: try SystemFile.info(descriptor))
                    // One name: `path`, unless a program that ignores the lock renamed the file
                    // away since it was opened. No name, or several (hard links): look it up.
                    let current = file.info.links == 1 ? file.info : try SystemFile.info(atPath: path)
                    return (file, current)
                }
            } catch {
                try? SystemFile.close(descriptor)
                throw error
            }
            if let current, current.isSameFile(as: file.info) { return file }
            file.close()
        }
        throw failure(path, "the file was replaced \(attempts) times while the journal waited for its lock", nil)
    }

    /// Closes the file, which releases its lock.
    func close() {
        try? SystemFile.close(descriptor)
    }
}

/// A ``HistoryJournal``'s knowledge of its file between calls, and the lock that orders its calls.
private final class JournalCache: @unchecked Sendable {
    /// How many bytes before the end of the intact records the journal remembers, to compare.
    static let tailSize = 64

    /// Where the next record goes in the journal's file, and the file as the journal left it.
    struct State {
        /// The file, as `fstat` saw it after the journal's last write or read: its device and
        /// inode, size and time stamps. A file replaced, deleted, truncated or written to since
        /// differs in one of them (but for a write within the same tick of the file system's
        /// clock).
        var file: FileInfo
        /// Where the intact records end (0 when the file needs its header first).
        var end: Int
        /// The last bytes before `end` (at most ``tailSize``): a change at the end of the file
        /// that left its size and time stamps as they were still shows in them.
        var tail: Data
        /// The next record's sequence number.
        var nextSequence: UInt64
        /// How many records the file holds.
        var count: Int
        /// Where each of them starts, so that a compaction reads only the records it keeps.
        var offsets: [Int]

        /// What a read of the whole file, `data`, found.
        init(file: FileInfo, contents: JournalFormat.Contents, data: Data) {
            self.file = file
            end = contents.validEnd
            tail = JournalCache.tail(of: data.prefix(contents.validEnd))
            nextSequence = contents.nextSequence
            count = contents.records.count
            offsets = contents.offsets
        }

        /// A file the journal wrote whole.
        init(file: FileInfo, end: Int, tail: Data, nextSequence: UInt64, count: Int, offsets: [Int]) {
            self.file = file
            self.end = end
            self.tail = tail
            self.nextSequence = nextSequence
            self.count = count
            self.offsets = offsets
        }

        /// Whether `info` describes the file as the journal left it.
        func describes(_ info: FileInfo) -> Bool {
            info.isSameFile(as: file) && info.size == file.size && info.modified == file.modified
                && info.changed == file.changed
        }
    }

    /// The last bytes of `data` that the journal remembers.
    static func tail(of data: Data) -> Data {
        Data(data.suffix(tailSize))
    }

    /// The last bytes of `tail` followed by `appended`, without copying all of `appended`.
    static func tail(of tail: Data, then appended: Data) -> Data {
        appended.count >= tailSize ? Data(appended.suffix(tailSize)) : Data((tail + appended).suffix(tailSize))
    }

    private let lock = NSLock()
    /// Read and written under `lock` only.
    private var state: State?
    /// How many times ``HistoryJournal/reset()`` started the journal over.
    let resets = JournalCount()

    /// Runs `body` under the lock, with the state.
    func withLock<T>(_ body: (inout State?) throws(HistoryFileError) -> T) throws(HistoryFileError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

/// A count with a lock of its own, which calls under a ``HistoryJournal``'s lock can add to.
private final class JournalCount: @unchecked Sendable {
    private let lock = NSLock()
    /// Read and written under `lock` only.
    private var count = 0

    /// The count.
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    /// Adds one.
    func increment() {
        lock.lock()
        defer { lock.unlock() }
        count += 1
    }
}
