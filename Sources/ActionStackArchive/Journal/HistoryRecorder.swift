// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import ActionStackCore
import Foundation

/// Keeps a ``HistoryJournal`` up to date with one or more stacks: after every change to their
/// histories it appends a record, so that a crash loses at most the change in progress.
///
/// <doc:SavingTheHistory> shows one at work, from the first change to the recovery after a crash.
///
/// **What is recorded.** A recorder of one stack (``init(journal:stack:maximumSteps:fingerprint:)``)
/// appends, at the end of every call that changed the stack's history, a record of what changed: a
/// closed step (its commands), a keystroke that joins the step before it (the actions it adds), an
/// undo, a redo, a jump, a branch made or entered, a clean mark, a removal, a trim, a pruned branch,
/// the redo side discarded. Its size is that of the change, not of the history. Now and then it
/// appends a snapshot of the whole history instead: the first record, the changes that only a
/// snapshot describes (``ActionStack/removeAllActions()``, a restore, a change of shape), after a
/// record it could not write or one the journal lost, and when the records since the last snapshot
/// outweigh it (then it compacts the journal; see <doc:SavingTheHistory> for each case). A call
/// that changes no history (a query) appends nothing, and costs what it costs on a stack nobody
/// records: the stack tells the recorder of a call's end only after its history noted a change.
/// A recorder that makes its own archives (``init(journal:archive:)``, for several stacks) appends
/// a whole ``HistoryArchive`` at the end of every call on a watched stack, unless it repeats the
/// last one appended. The recorder runs after the stack's observers (``ActionStack/observe(_:)``),
/// so what an observer changes in its turn (an autosave's ``ActionStack/markClean()``) is in the
/// same record.
///
/// There is not always a whole history to save. While a group is open, an asynchronous operation
/// runs or waits in the queue, or a step is broken (``ActionStack/brokenStep``),
/// ``ActionStack/savedHistory(maximumSteps:)`` refuses with
/// ``ActionStack/HistoryPersistenceError/groupIsOpen`` or ``ActionStack/HistoryPersistenceError/busy``,
/// and the recorder waits for the call that closes the group, empties the queue, or discards or
/// retries the broken step. While any watched stack is in the middle of a call (a handler, an
/// observer, an operation's step), the recorder waits for that call's end, so that it never reads a
/// history halfway through a change and never makes a call that the stack would refuse as a misuse.
///
/// **Recovery.** ``recover(from:fingerprint:registry:limits:)`` returns the history as it was at
/// the last record made when the document had the fingerprint of the one the app opened, exactly as
/// a full save would have saved it then: a document last written to disk three changes ago reopens
/// with the history as it was then. The three later changes are not in that document, and their
/// steps cannot come back as steps to redo: a step's redo actions exist only once the step has been
/// undone, and these were on the undo side when they were recorded. A torn last record (a crash in
/// the middle of an append) is ignored. The recorder appends nothing until a watched history
/// changes, so the app may recover before or after creating it.
///
/// **Cost.** A record of what changed costs O(c) time and bytes for the c actions it holds, plus
/// the append; a snapshot O(s) for the s steps held, amortized O(1) per change since one is
/// written when the records after the last outweigh it. A snapshot encodes only the commands of
/// the steps changed since the last record and copies the others' encodings, which the recorder
/// keeps in memory (about the size of one full save). Each append is flushed to the disk before
/// it returns, or within an interval, or when the system writes its cache, as the journal's
/// ``HistoryJournal/durability`` says. A recorder that makes its own archives saves, encodes
/// and compares the whole history at the end of every call on a watched stack, a query included:
/// O(s) per call.
///
/// **Failures never reach the stacks.** A record that cannot be made or appended (a full disk, a
/// command that cannot encode) changes nothing on any stack; the recorder keeps the error in
/// ``lastError``, passes it to ``onError``, and tries again at the next change. A change that
/// `onError` makes is recorded after it.
///
/// The journal notices a file changed behind its back, and takes turns with another writer of the
/// same file (see ``HistoryJournal``): a record appended after damage overwrites the damage.
///
/// Use it from the isolation the stacks are used from (the main actor for an app's stacks): it
/// records synchronously, on the thread that changed the stack, after the call has ended. It holds
/// the stacks weakly.
public final class HistoryRecorder {
    /// The name the single-stack initializer saves its history under in each record.
    public static let defaultHistoryName = "history"

    /// The journal the records are appended to.
    public let journal: HistoryJournal
    /// Makes the record: the archive to append, or nil when there is nothing whole to record now.
    private let makeArchive: () throws -> HistoryArchive?
    /// The watched stacks (held weakly; a freed one's entry is dropped at the next look) and the
    /// listeners that keep them watched.
    private var watched: [(stack: Weak, token: ObservationToken)] = []
    /// The last record appended, and the journal's reset count then, to skip one that repeats it.
    private var lastRecord: (data: Data, resets: Int)?
    /// Whether a record is being made; whether the archive is being made (the calls it makes on
    /// the stacks end too, and are not changes to record); whether a call that may have changed a
    /// history ended meanwhile (one `onError` made): then another record is made after this one.
    private var isRecording = false
    private var isMakingArchive = false
    private var recordAgain = false

    /// The single-stack recorder's maker of records of what changed (nil for a recorder of
    /// archives), and the fingerprint of its document.
    private var maker: JournalRecordMaker?
    private var fingerprint: (() -> String)?
    /// Where the single-stack recorder is in its journal: the snapshot its records follow, the
    /// number of the last record from it, the snapshot's size, the bytes and records appended since,
    /// the records of the snapshot before it (kept by a compaction), and the fingerprint and the
    /// journal's reset count at the last record.
    private var chain: UInt64 = 0
    private var chainIndex = 0
    private var snapshotBytes = 0
    private var bytesSinceSnapshot = 0
    private var previousChainRecords: Int?
    private var lastFingerprint: String?
    private var lastResets: Int?
    /// The sequence numbers and contents of the snapshot of the chain and of the last record
    /// appended, which the next record follows.
    private var chainSnapshot: (sequence: UInt64, payload: Data)?
    private var lastAppended: (sequence: UInt64, payload: Data)?
    /// The journal's reset count when the stack was first watched: until it changes or the
    /// history does, there is nothing to record (the history as it was then is the starting point).
    private var resetsAtWatch = 0
    /// The bytes of this recorder's records since the snapshot before the last one.
    private var bytesKept = 0
    /// The fewest bytes a journal holds before a new snapshot compacts it (a test hook lowers it).
    package var _compactionFloor = 1 << 18
    /// How many steps this recorder's snapshots took with their commands encoded by an earlier
    /// record (a test hook: the snapshot encodes only the steps changed since the last record).
    package var _reusedCommandEncodings: Int { maker?.reusedEncodings ?? 0 }

    /// Called with each error that kept a change from being recorded.
    public var onError: ((any Error) -> Void)?
    /// The last error that kept a change from being recorded; nil once a record is appended.
    public private(set) var lastError: (any Error)?
    /// The number of records this recorder has appended.
    public private(set) var recordCount = 0

    /// A recorder of the histories that `archive` saves, appending to `journal`. It records when
    /// asked (``record()``) and after each call on the stacks it watches (``watch(_:)``).
    ///
    /// - Parameters:
    ///   - journal: The journal to append to.
    ///   - archive: Makes the record: the fingerprint of the document as it is now and the saved
    ///     history of each stack. It returns nil, or throws ``ActionStack/HistoryPersistenceError/groupIsOpen``
    ///     or ``ActionStack/HistoryPersistenceError/busy``, when there is nothing whole to save
    ///     yet; the recorder then waits for the next change. Any other error is reported.
    /// - Complexity: O(1).
    public init(journal: HistoryJournal, archive: @escaping () throws -> HistoryArchive?) {
        self.journal = journal
        self.makeArchive = archive
    }

    /// A recorder of one stack's history, saved under ``defaultHistoryName``, appending to
    /// `journal` after each change. The history as it is now is not recorded: the first record is
    /// made by the stack's next change (a restore from the journal included, see
    /// ``recover(from:fingerprint:registry:limits:)``).
    ///
    /// - Parameters:
    ///   - journal: The journal to append to.
    ///   - stack: The stack whose history is recorded (held weakly).
    ///   - maximumSteps: The most steps each record saves (see ``ActionStack/savedHistory(maximumSteps:)``).
    ///   - fingerprint: The fingerprint of the document as it is now.
    /// - Complexity: O(1).
    public convenience init(
        journal: HistoryJournal, stack: ActionStack, maximumSteps: Int = .max,
        fingerprint: @escaping () -> String
    ) {
        self.init(journal: journal) { [weak stack] in
            guard let stack else { return nil }
            return HistoryArchive(
                fingerprint: fingerprint(),
                histories: [Self.defaultHistoryName: try stack.savedHistory(maximumSteps: maximumSteps)])
        }
        maker = JournalRecordMaker(stack: stack, maximumSteps: maximumSteps)
        self.fingerprint = fingerprint
        resetsAtWatch = journal.resetCount
        watch(stack)
    }

    deinit {
        maker?.stop()
    }

    /// Records after each call on `stack` that changes the history the archive saves. Watching a
    /// stack twice watches it once. The first stack watched sets the starting point: the histories
    /// as they are then are not recorded, only their changes (and ``record()``, after a
    /// ``HistoryJournal/reset()``).
    ///
    /// - Parameter stack: A stack whose history the archive saves.
    /// - Complexity: O(w) for the w stacks watched.
    public func watch(_ stack: ActionStack) {
        watched.removeAll { $0.stack.value == nil }
        guard !watched.contains(where: { $0.stack.value === stack }) else { return }
        // The recorder of what changed hears only the calls after which the history may have
        // changed (a query costs the stack one comparison); one of archives hears every call.
        let token = stack.addCallEndListener(onlyWhenHistoryMayHaveChanged: maker?.stack === stack) {
            [weak self] in self?.callEnded()
        }
        watched.append((Weak(stack), token))
        if lastRecord == nil { takeBaseline() }
    }

    /// Takes the histories as they are when watching starts as the last record, without appending
    /// them: a query on a stack before the app has recovered its history must not record an empty
    /// history under the fingerprint of the document it opened.
    private func takeBaseline() {
        guard watched.allSatisfy({ $0.stack.value?.isBetweenCalls ?? true }) else { return }
        isRecording = true
        isMakingArchive = true
        defer {
            isRecording = false
            isMakingArchive = false
        }
        guard let archive = try? makeArchive(), let data = try? archive.encoded() else { return }
        lastRecord = (data, journal.resetCount)
    }

    /// Stops recording the changes of `stack`, as for a stack that left the document.
    ///
    /// - Parameter stack: A watched stack.
    /// - Complexity: O(w) for the w stacks watched.
    public func unwatch(_ stack: ActionStack) {
        if let maker, maker.stack == nil || maker.stack === stack {
            // Its changes are no longer kept; a later ``record()`` appends a whole archive.
            maker.stop()
            self.maker = nil
        }
        watched.removeAll { entry in
            guard entry.stack.value == nil || entry.stack.value === stack else { return false }
            entry.token.cancel()
            return true
        }
    }

    /// Makes a record now and appends it unless it repeats the last one: for a change the stacks
    /// do not see, such as a new fingerprint. Called while a watched stack is in the middle of a
    /// call (from a handler, or an observer of a notification the call posts), it records nothing,
    /// and the call's end records. A state observer (``ActionStack/observe(_:)``) runs after the
    /// call has ended: called from one, it records, and the call's end appends no repeat.
    ///
    /// - Returns: Whether a record was appended.
    /// - Complexity: O(c) for the c actions changed since the last record (O(s) for the s steps
    ///   held when the record is a snapshot, or the recorder makes its own archives), plus the
    ///   append.
    @discardableResult
    public func record() -> Bool {
        guard !isRecording else {
            if !isMakingArchive { recordAgain = true }
            return false
        }
        isRecording = true
        defer { isRecording = false }
        var appended = false
        repeat {
            recordAgain = false
            if recordOnce() { appended = true }
        } while recordAgain
        return appended
    }

    private func callEnded() {
        // A call that changed no history (a query) costs this check.
        if let maker, !maker.mayHaveChanged { return }
        if watched.allSatisfy({ $0.stack.value?.isBetweenCalls ?? true }) { record() }
    }

    /// One record, if there is a whole history to save and it is new.
    private func recordOnce() -> Bool {
        guard watched.allSatisfy({ $0.stack.value?.isBetweenCalls ?? true }) else { return false }
        if let maker { return recordChange(maker) }
        let archive: HistoryArchive
        do {
            isMakingArchive = true
            defer { isMakingArchive = false }
            guard let made = try makeArchive() else { return false }
            archive = made
        } catch let error as ActionStack.HistoryPersistenceError where error == .groupIsOpen || error == .busy {
            return false
        } catch {
            fail(error)
            return false
        }
        do {
            let data = try archive.encoded()
            let resets = journal.resetCount
            if let lastRecord, lastRecord.data == data, lastRecord.resets == resets { return false }
            try journal.append(data, fingerprint: archive.fingerprint)
            lastRecord = (data, resets)
            lastError = nil
            recordCount += 1
            return true
        } catch {
            fail(error)
            return false
        }
    }

    /// One record of a single-stack recorder: what changed since its last record, or a snapshot
    /// when only one describes it, when the journal started over, or when the records since the
    /// last snapshot outweigh it (then the journal is compacted to the snapshot before it).
    private func recordChange(_ maker: JournalRecordMaker) -> Bool {
        guard maker.stack != nil, maker.isReady else { return false }
        if lastResets == nil && !maker.mayHaveChanged && journal.resetCount == resetsAtWatch { return false }
        isMakingArchive = true
        maker.gather()
        let fingerprint = self.fingerprint?() ?? ""
        isMakingArchive = false
        let resets = journal.resetCount
        let recordLimit = Swift.max(1, journal.maximumRecords / 2 - 1)
        let mustSnapshot =
            maker.needsSnapshot || resets != lastResets || chainIndex + 1 >= recordLimit
            || bytesSinceSnapshot > snapshotBytes || snapshotBytes + bytesSinceSnapshot > journal.maximumBytes / 4
        var history: JournalHistoryRecord
        var isSnapshot = false
        if !mustSnapshot, let delta = maker.delta() {
            if delta.isEmpty && fingerprint == lastFingerprint {
                maker.recorded()
                return false
            }
            history = delta
        } else {
            guard let made = maker.snapshot() else { return false }
            history = made
            isSnapshot = true
        }
        do {
            var newChain = isSnapshot ? UInt64.random(in: 0...UInt64.max) : chain
            var index = isSnapshot ? 0 : chainIndex + 1
            var contents = JournalRecordContents(
                isSnapshot: isSnapshot, chain: newChain, index: index, histories: [Self.defaultHistoryName: history])
            var data = try JournalRecordWriter.encode(&contents, limits: .default)
            history = contents.histories[Self.defaultHistoryName] ?? history
            var following: [(sequence: UInt64, payload: Data)] = []
            if !isSnapshot {
                if let chainSnapshot { following.append(chainSnapshot) }
                if let lastAppended, lastAppended.sequence != chainSnapshot?.sequence { following.append(lastAppended) }
                if following.isEmpty { following.append((UInt64.max, Data())) }
            }
            var sequence = try journal.append(data, fingerprint: fingerprint, following: following)
            if sequence == nil {
                // The record it follows is no longer intact (a crash tore it, the file changed
                // behind the journal's back, a compaction ran): a snapshot instead.
                guard let made = maker.snapshot() else { return false }
                isSnapshot = true
                newChain = UInt64.random(in: 0...UInt64.max)
                index = 0
                contents = JournalRecordContents(
                    isSnapshot: true, chain: newChain, index: 0, histories: [Self.defaultHistoryName: made])
                data = try JournalRecordWriter.encode(&contents, limits: .default)
                history = contents.histories[Self.defaultHistoryName] ?? made
                sequence = try journal.append(data, fingerprint: fingerprint, following: [])
            }
            lastAppended = sequence.map { ($0, data) }
            if isSnapshot { chainSnapshot = lastAppended }
            maker.recorded(history, isSnapshot: isSnapshot)
            lastError = nil
            recordCount += 1
            lastFingerprint = fingerprint
            if isSnapshot {
                let sameJournal = resets == lastResets
                let keep = chainIndex + 2
                let previousBytes = snapshotBytes + bytesSinceSnapshot
                let compacts =
                    sameJournal && previousChainRecords != nil
                    && bytesKept + data.count > Swift.max(_compactionFloor, 4 * data.count)
                previousChainRecords = sameJournal ? chainIndex + 1 : nil
                chain = newChain
                chainIndex = 0
                snapshotBytes = data.count
                bytesSinceSnapshot = 0
                lastResets = resets
                bytesKept = sameJournal ? bytesKept + data.count : data.count
                // The journal is compacted to the snapshot before this one and its records: a
                // recovery needs this snapshot, and the one before keeps the recent past.
                if compacts {
                    bytesKept = previousBytes + data.count
                    try journal.compact(keeping: keep)
                }
            } else {
                chainIndex = index
                bytesSinceSnapshot += data.count
                bytesKept += data.count
            }
            return true
        } catch {
            maker.failed()
            fail(error)
            return false
        }
    }

    private func fail(_ error: any Error) {
        lastError = error
        onError?(error)
    }

    /// The last record in `journal` made when the document had `fingerprint`, read back: the
    /// histories that go with the document the app opened. Nil when no intact record has it.
    ///
    /// - Parameters:
    ///   - journal: The journal.
    ///   - fingerprint: The fingerprint of the document as the app found it.
    ///   - registry: The command types to read the commands with.
    ///   - limits: The bounds each record must hold to.
    /// - Returns: The archive, or nil.
    /// - Throws: A ``HistoryFileError`` when the journal cannot be read, a ``HistoryArchiveError``
    ///   when the record cannot.
    /// - Complexity: O(n) for the n bytes of the journal, plus reading one record.
    public static func recover(
        from journal: HistoryJournal, fingerprint: String, registry: CommandRegistry,
        limits: HistoryArchive.Limits = .default
    ) throws -> HistoryArchive? {
        let records = try journal.records()
        func matches(_ record: JournalRecord) -> Bool {
            record.fingerprint.map { $0.utf8.elementsEqual(fingerprint.utf8) } ?? false
        }
        guard let last = records.lastIndex(where: matches) else { return nil }
        let found = JournalReplayer.replay(records, registry: registry, limits: limits, through: last) {
            matches(records[$0])
        }
        // The last matching record; one that cannot be replayed is an error, as one that cannot
        // be read.
        guard let point = found.last else { return nil }
        return try archive(at: point, fingerprint: fingerprint)
    }
}

extension HistoryRecorder {
    /// Every intact record of `journal`, read back as the archive it stands for: a record of what
    /// changed is replayed from the snapshot it follows, so that each archive is the one a full
    /// save would have made at that record. For inspecting a journal (a history's timeline, a test);
    /// a recovery reads one record (``recover(from:fingerprint:registry:limits:)``).
    ///
    /// - Parameters:
    ///   - journal: The journal.
    ///   - registry: The command types to read the commands with.
    ///   - limits: The bounds each record must hold to.
    /// - Returns: One archive for each intact record, in order.
    /// - Throws: A ``HistoryFileError`` when the journal cannot be read, a ``HistoryArchiveError``
    ///   at the first record that cannot be read or replayed (one whose snapshot was compacted
    ///   away included).
    /// - Complexity: O(n + r·s) for the n bytes of the journal, the r records and the s steps of
    ///   their histories.
    public static func recordedArchives(
        in journal: HistoryJournal, registry: CommandRegistry, limits: HistoryArchive.Limits = .default
    ) throws -> [HistoryArchive] {
        let records = try journal.records()
        guard !records.isEmpty else { return [] }
        var archives: [HistoryArchive] = []
        try JournalReplayer.replay(
            records, registry: registry, limits: limits, through: records.count - 1, keeping: { _ in true },
            visit: { point in archives.append(try archive(at: point)) })
        return archives
    }

    /// The archive of a replay point, or its problem as a ``HistoryArchiveError``.
    static func archive(at point: JournalReplayPoint, fingerprint: String? = nil) throws -> HistoryArchive {
        do {
            return try JournalReplayer.archive(at: point, fingerprint: fingerprint)
        } catch let problem as JournalRecordProblem {
            throw problem.archiveError ?? HistoryArchiveError.corrupt(problem.description)
        } catch {
            throw HistoryArchiveError.corrupt("\(error)")
        }
    }
}

/// A weak reference to a watched stack.
private struct Weak {
    weak var value: ActionStack?
    init(_ value: ActionStack) { self.value = value }
}

@available(*, unavailable, message: "Use a history recorder where its stacks are used.")
extension HistoryRecorder: Sendable {}
