// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStack
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Keeping the changes made since the last save safe from a crash (`board --autosave FILE`).
//
// Two files beside FILE, which `save` writes as it always does:
//
// - FILE.autosave: the board's document as it is now (the first line of a board file), replaced
//   atomically after each command that changed it;
// - FILE.journal: a `HistoryJournal` of every history, the board's and each figure's, each record
//   under the fingerprint of the document it goes with, appended by a `HistoryRecorder` after each
//   command that changed a history.
//
// The record goes first, flushed to the disk, then the document: whenever the program stops, the
// journal holds a record for the document on disk (a crash between the two leaves the older
// document, and the journal's record for it is the one before). At the next launch with
// `--autosave`, the board opens from them: the document, and the histories the journal last
// recorded for it, saved marks included, so `* unsaved` still names what `save` has not written
// to FILE. `quit` removes both files, and the lock file (below): the user saved, or chose to
// leave without saving. A board that starts with no FILE.autosave starts the journal over; one
// that recovers from them appends to the journal it recovered from, so that a crash before its
// first record still finds the histories.
//
// The recorder here makes whole archives (the board has one history per figure, and a recorder
// of what changed follows one stack), once per command: the session asks it to record at the end
// of each command, and it appends nothing when the histories are as it last recorded them.
// That costs O(s) per command for the s steps of every history, which a board's few hundred
// steps make a few milliseconds at most, beside the flush to the disk. An app with one long
// history records what changed instead (`HistoryRecorder(journal:stack:fingerprint:)`), at a
// cost that does not grow with the history.
//
// One board at a time keeps a FILE's autosave: a second `board --autosave FILE` would take the
// first one's live files for a crash's, write over them, and remove them at its `quit` while the
// first still counts on them. The board holds a lock (`BoardAutosave.Lock`, on FILE.lock) from
// before it reads the files until `quit`, and a second board is refused while it does.

/// Why a board's autosave could not be opened or started. Nothing was changed when one is thrown:
/// the autosave's files and FILE are as they were.
public enum BoardAutosaveError: Error, CustomStringConvertible {
    /// The autosaved document or its journal cannot be read (a damaged file, or not one of ours).
    case unreadable(path: String, reason: String)
    /// The autosave's files cannot be written (the directory is missing or read-only).
    case cannotStart(reason: String)
    /// Another board, running now, keeps its changes in this autosave.
    case inUse(path: String)

    /// What went wrong, and what the user can do about it.
    public var description: String {
        switch self {
        // The journal holds the histories only: moving it away loses them, not the changes.
        case .unreadable(let path, let reason) where path.hasSuffix(".journal"):
            "the journal '\(String(path.map { Session.printable($0) }))' cannot be read (\(reason)); nothing was changed: "
                + "move it away to open the board without its history"
        case .unreadable(let path, let reason):
            "the autosave '\(String(path.map { Session.printable($0) }))' cannot be read (\(reason)); nothing was changed: "
                + "move it away to open the board without the changes it holds"
        case .cannotStart(let reason): "the autosave cannot be written (\(reason))"
        case .inUse(let path):
            "another board keeps its changes in '\(String(path.map { Session.printable($0) }))' (board --autosave on "
                + "this file runs elsewhere); nothing was changed: leave that board first"
        }
    }
}

/// Keeps a board's changes since its last save safe from a crash: after each command, its
/// document goes to FILE.autosave and its histories to the journal FILE.journal (see the comment
/// at the top of this file).
@MainActor
public final class BoardAutosave {
    /// The board file the autosave belongs to (which `save` writes).
    public let file: URL
    /// The autosaved document: FILE.autosave.
    public let documentURL: URL
    /// The journal of the histories: FILE.journal. Each record is flushed to the disk before the
    /// document that goes with it is written (`Durability.everyAppend`).
    public let journal: HistoryJournal
    /// The board whose changes are kept.
    private weak var board: Board?
    /// Appends the histories to the journal when they changed.
    private var recorder: HistoryRecorder?
    /// The archive the recorder appends, while `commandEnded()` has it asked to record.
    private var pending: HistoryArchive?
    /// The document last written to `documentURL`, so that an unchanged one is not written again.
    private var writtenDocument: Data?
    /// The error the last record or write met, if any, until one succeeds.
    private var failure: (any Error)?
    /// Keeps other boards off the files until `discard()`.
    private var lock: Lock?

    /// The lock that keeps a second board off a FILE's autosave while one runs: a POSIX record
    /// lock (`lockf`) on FILE.lock, beside FILE (so that two boards find the same lock file
    /// whatever their temporary directories, and nothing piles up elsewhere). The system
    /// releases it when the process ends, however it ends, so a crash leaves nothing locked: the
    /// file stays, unlocked, for the next board to take, and `quit` removes it.
    ///
    /// A POSIX lock is the process's, not the descriptor's: one process may hold it twice (the
    /// tests open a session again, as after a crash, while the first one is still there).
    final class Lock: Sendable {
        /// The lock file's descriptor, which holds the lock while it is open.
        private let descriptor: Int32
        /// The lock file's path.
        private let path: String

        /// Takes the lock of `file`'s autosave.
        ///
        /// - Throws: `BoardAutosaveError.inUse` when another process holds it,
        ///   `BoardAutosaveError.cannotStart` when FILE's directory or the lock file cannot be
        ///   opened.
        init(for file: URL) throws(BoardAutosaveError) {
            path = BoardAutosave.lockURL(for: file).path
            while true {
                let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
                guard descriptor >= 0 else {
                    throw .cannotStart(reason: "\(path): \(String(cString: strerror(errno)))")
                }
                guard lockf(descriptor, F_TLOCK, 0) == 0 else {
                    let code = errno
                    close(descriptor)
                    if code == EACCES || code == EAGAIN {
                        throw .inUse(path: BoardAutosave.documentURL(for: file).relativePath)
                    }
                    throw .cannotStart(reason: "\(path): \(String(cString: strerror(code)))")
                }
                // The board that held it may have removed the file since this one opened it
                // (`remove()`, at its quit): then the lock is on a file no one else will open;
                // take the new one.
                var held = stat()
                var named = stat()
                if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev,
                    held.st_ino == named.st_ino
                {
                    self.descriptor = descriptor
                    return
                }
                close(descriptor)
            }
        }

        /// Removes the lock file, then lets the lock go: at `quit`. Removed before it is let go,
        /// so that no board can lock it once removed but one that opened it just before, which
        /// then sees that it was removed and takes a new one (see `init`).
        func remove() {
            unlink(path)
        }

        /// Lets the lock go, leaving the file for the next board, as a crash does: a session
        /// that goes away without `quit`, or an opening refused after it took the lock.
        deinit {
            close(descriptor)
        }
    }

    /// The autosaved document's file for `file`: FILE.autosave.
    public nonisolated static func documentURL(for file: URL) -> URL { file.appendingPathExtension("autosave") }
    /// The journal's file for `file`: FILE.journal.
    public nonisolated static func journalURL(for file: URL) -> URL { file.appendingPathExtension("journal") }
    /// The lock file for `file`: FILE.lock (see `Lock`).
    public nonisolated static func lockURL(for file: URL) -> URL { file.appendingPathExtension("lock") }

    /// Whether `one` and `other` name the same board file, and so the same autosave, however
    /// they are spelled (`./b.board`, a symbolic link to its directory).
    public nonisolated static func isSameFile(_ one: URL, _ other: URL) -> Bool {
        one.standardizedFileURL.resolvingSymlinksInPath() == other.standardizedFileURL.resolvingSymlinksInPath()
    }

    /// Whether an earlier session left an autosave for `file` (it ended without `quit`).
    public nonisolated static func exists(for file: URL) -> Bool {
        FileManager.default.fileExists(atPath: documentURL(for: file).path)
    }

    /// Starts keeping `board`'s changes for `file`: the journal starts over (unless it is kept),
    /// and the board as it is now is recorded and written at once, so that the files match the
    /// board from the start.
    ///
    /// - Parameters:
    ///   - file: The board file (which `save` writes).
    ///   - board: The board whose changes are kept.
    ///   - lock: The lock of `file`'s autosave, when the caller took it before reading the files
    ///     (`Session.opening`); nil takes it here.
    ///   - keepsJournal: Whether the journal's records stay, the board's first record after them:
    ///     for a board recovered with its histories from them. Started over, a crash before the
    ///     first record would leave the recovered document with no history at all.
    /// - Throws: `BoardAutosaveError.cannotStart` when the files cannot be written,
    ///   `BoardAutosaveError.inUse` when another board keeps them.
    init(file: URL, board: Board, lock: Lock? = nil, keepsJournal: Bool = false) throws(BoardAutosaveError) {
        if let lock {
            self.lock = lock
        } else {
            self.lock = try Lock(for: file)
        }
        self.file = file
        documentURL = Self.documentURL(for: file)
        // Small records (a board's histories), so a small journal: an append that would pass it
        // first compacts it to the newest records, and a recovery needs only the last.
        journal = HistoryJournal(
            url: Self.journalURL(for: file), maximumRecords: 64, maximumBytes: 16 << 20, durability: .everyAppend)
        self.board = board
        do {
            if !keepsJournal { try journal.reset() }
        } catch {
            throw .cannotStart(reason: "\(error)")
        }
        let recorder = HistoryRecorder(journal: journal) { [weak self] in self?.pending }
        recorder.onError = { [weak self] error in self?.failure = error }
        self.recorder = recorder
        if let error = record() {
            // A kept journal that cannot take a record (a torn tail past the size the board's
            // journals grow to) starts over after all: the board is whole, and is recorded anew.
            guard keepsJournal, (try? journal.reset()) != nil, record() == nil else {
                throw .cannotStart(reason: "\(error)")
            }
        }
    }

    /// Records the board as a command left it: appends its histories to the journal when they
    /// changed (each with its own saved mark, under the fingerprint of its document), then writes
    /// its document when it changed. Returns a warning for the user when either failed (the
    /// changes since the last success are not safe from a crash; the next command tries again),
    /// or nil. While a change is in progress there is no whole board to record, and it records
    /// nothing: the command's end does.
    ///
    /// - Complexity: O(s) for the s steps of the board's histories, plus the writes.
    @discardableResult
    func commandEnded() -> String? {
        record().map(Self.warning)
    }

    /// What `commandEnded()` does, returning the error that a record or a write met, if any.
    ///
    /// - Complexity: O(s) for the s steps of the board's histories, plus the writes.
    private func record() -> (any Error)? {
        guard let board, let recorder else { return nil }
        let contents: (document: Data, archive: HistoryArchive, leftOut: [String])
        do {
            contents = try board.contents(markingSaved: false)
        } catch BoardFileError.historyNotSavable {
            return nil
        } catch {
            return error
        }
        pending = contents.archive
        failure = nil
        defer { pending = nil }
        recorder.record()
        if let failure { return failure }
        guard contents.document != writtenDocument else { return nil }
        do {
            try HistoryFileStore(url: documentURL).write(contents.document)
        } catch {
            return error
        }
        writtenDocument = contents.document
        return nil
    }

    /// What the user is told when a record or a write failed.
    private static func warning(_ error: any Error) -> String {
        "warning: autosave failed: \(error); the changes since are not safe from a crash"
    }

    /// Removes the autosave's files, as `quit` does: the board was saved, or the user chose to
    /// leave without saving. Nothing is recorded after it.
    func discard() {
        recorder = nil
        try? journal.reset()
        try? FileManager.default.removeItem(at: journal.url)
        try? HistoryFileStore(url: documentURL).remove()
        lock?.remove()
        lock = nil
    }

    /// The board that an earlier session's autosave of `file` holds: its document, with the
    /// histories the journal last recorded for it, and the lines that tell the user what came
    /// back, and whether its histories came back. Nil when there is no autosave. When the journal
    /// holds no record for the document (a crash of the machine can lose the last record), the
    /// board opens without its history, and unsaved.
    ///
    /// - Throws: `BoardAutosaveError.unreadable` when the document or the journal cannot be read;
    ///   nothing is changed then.
    static func recover(
        file: URL
    ) throws(BoardAutosaveError) -> (board: Board, notes: [String], historyRestored: Bool)? {
        let documentURL = Self.documentURL(for: file)
        let line: Data
        do {
            guard let data = try HistoryFileStore(url: documentURL).read() else { return nil }
            line = data
        } catch {
            throw .unreadable(path: documentURL.relativePath, reason: "\(error)")
        }
        let document: BoardDocument
        do {
            document = try BoardFile.decodeDocument(line)
        } catch {
            throw .unreadable(path: documentURL.relativePath, reason: "\(error)")
        }
        let journal = HistoryJournal(url: journalURL(for: file))
        let archive: HistoryArchive?
        do {
            archive = try HistoryRecorder.recover(
                from: journal, fingerprint: BoardFile.fingerprint(of: line), registry: BoardFile.registry)
        } catch {
            throw .unreadable(path: journal.url.relativePath, reason: "\(error)")
        }
        guard let archive else {
            // A damaged record (not a torn last one) hides every record after it, the
            // document's own among them, perhaps: opening would start the journal over and
            // lose them, so the journal is left as it is, as a damaged document is.
            if let ending = try? journal.replay().ending, let offset = ending.offset, let reason = ending.reason {
                throw .unreadable(
                    path: journal.url.relativePath,
                    reason: "the journal is damaged at byte \(offset) (\(reason)); the records after it cannot be read")
            }
            let board: Board
            do {
                board = try Board(document: document)
            } catch {
                throw .unreadable(path: documentURL.relativePath, reason: "\(error)")
            }
            // Unsaved: the document is not the file's, and no history says where the file's is.
            _ = try? board.undoStack.restoreHistory(
                SavedHistory(shape: .tree, root: 0, current: 0, clean: nil, steps: []), resolvingTargets: { _ in nil })
            return (board, ["note: the journal holds no history for it: the board opens without its history"], false)
        }
        var opened: OpenedBoard
        var notes: [String] = []
        do {
            opened = try BoardFile.open(BoardFile.contents(document: line, archive: try archive.encoded()))
            // A saved mark says what FILE holds. FILE removed or replaced since (by hand, by
            // another board) would otherwise leave a step that says it is saved, where `quit`
            // leaves at once, removing the only copy of the board with the autosave.
            if !savedMarksHold(file: file, document: document, archive: archive, saved: !opened.board.hasUnsavedChanges)
            {
                var unsaved = archive
                for key in unsaved.histories.keys { unsaved.histories[key]?.clean = nil }
                opened = try BoardFile.open(BoardFile.contents(document: line, archive: try unsaved.encoded()))
                let name = String(file.relativePath.map { Session.printable($0) })
                notes.append(
                    "note: '\(name)' does not hold the board as it was saved (it was removed or replaced since): "
                        + "the board opens unsaved, no step marked saved")
            }
        } catch {
            throw .unreadable(path: journal.url.relativePath, reason: "\(error)")
        }
        return (opened.board, opened.notes.map { "note: \($0)" } + notes, true)
    }

    /// Whether the saved marks of a recovered board (its `document`, with the histories of
    /// `archive`; `saved` when it is at its saved step) can still say what `file` holds. Not when
    /// the board is at its saved step and `file` does not hold its figures; nor when `file` is
    /// gone though the board was saved past its start (a missing file is an empty board, a new
    /// file's), cannot be read, or holds a figure this board never had (another board saved it).
    /// A file put back from an older save of this board is not seen until the board is at its
    /// saved step.
    ///
    /// - Complexity: O(n + f) for the n bytes of the file and the f figures of the board.
    private static func savedMarksHold(
        file: URL, document: BoardDocument, archive: HistoryArchive, saved: Bool
    ) -> Bool {
        let data = try? HistoryFileStore(url: file).read()
        guard let data else {
            guard !FileManager.default.fileExists(atPath: file.path) else { return false }
            let board = archive.histories[BoardFile.boardHistoryName]
            return saved ? document.figures.isEmpty : board.map { $0.clean == nil || $0.clean == $0.root } ?? true
        }
        guard let held = try? BoardFile.decodeDocument(BoardFile.split(data).document) else { return false }
        if saved { return held.figures == document.figures }
        let known = Set((document.figures + document.offBoard).map(\.uuid))
        return held.figures.allSatisfy { known.contains($0.uuid) }
    }
}
