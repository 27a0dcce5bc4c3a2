// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Keeps a ``HistoryJournal`` up to date with one or more stacks: after every change to their
/// histories it appends the saved history, so that a crash loses at most the change in progress.
///
/// <doc:SavingTheHistory> shows one at work, from the first change to the recovery after a crash.
///
/// **What is recorded.** Each record is a whole ``HistoryArchive`` (the app's fingerprint and the
/// saved history of each stack), appended after each call that changes a watched stack: a closed
/// step, an undo, a redo, a jump, a clean mark, a removal, a trim, the redo side discarded. A
/// record equal to the last one appended is not appended again. While a group is open or an
/// asynchronous operation runs there is nothing whole to save (``ActionStack/savedHistory(maximumSteps:)``
/// refuses), so the record waits for the call that closes the group or settles the operation.
///
/// **Recovery.** ``recover(from:fingerprint:registry:limits:)`` returns the last record made when
/// the document had the fingerprint of the one the app opened: a document last written to disk
/// three changes ago reopens with the history as it was then. The three later changes are not in
/// that document, and their steps cannot come back as steps to redo: a step's redo actions exist only
/// once the step has been undone, and these were on the undo side when they were recorded. A torn
/// last record (a crash in the middle of an append) is ignored.
///
/// **Cost.** A record is the whole saved history, so each change costs O(s) time and bytes for the
/// s steps saved: bound s with `maximumSteps`, and the journal's size with its own limits (it
/// compacts itself to its newest records). An app with long histories journals between full saves
/// and starts the journal over after each (``HistoryJournal/reset()``).
///
/// **Failures never reach the stacks.** A record that cannot be made or appended (a full disk, a
/// command that cannot encode) changes nothing on any stack; the recorder keeps the error in
/// ``lastError``, passes it to ``onError``, and tries again at the next change.
///
/// Use it from the isolation the stacks are used from (the main actor for an app's stacks): it
/// observes them with ``ActionStack/observe(_:)`` and records synchronously, on the thread that
/// changed the stack, after the call has ended. It holds the stacks weakly.
public final class HistoryRecorder {
    /// The name the single-stack initializer saves its history under in each record.
    public static let defaultHistoryName = "history"

    /// The journal the records are appended to.
    public let journal: HistoryJournal
    /// Makes the record: the archive to append, or nil when there is nothing whole to record now.
    private let makeArchive: () throws -> HistoryArchive?
    /// The observations of the watched stacks.
    private var tokens: [ObjectIdentifier: ObservationToken] = [:]
    /// The last record appended, to skip one that repeats it.
    private var lastRecord: Data?
    /// Whether a record is being made: a change that the record's own calls cause is not recorded
    /// again from inside.
    private var isRecording = false

    /// Called with each error that kept a change from being recorded.
    public var onError: ((any Error) -> Void)?
    /// The last error that kept a change from being recorded; nil once a record is appended.
    public private(set) var lastError: (any Error)?
    /// The number of records this recorder has appended.
    public private(set) var recordCount = 0

    /// A recorder of the histories that `archive` saves, appending to `journal`. It records when
    /// asked (``record()``) and after each change of the stacks it watches (``watch(_:)``).
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
    /// `journal` after each change. It records the history as it is now at once.
    ///
    /// - Parameters:
    ///   - journal: The journal to append to.
    ///   - stack: The stack whose history is recorded (held weakly).
    ///   - maximumSteps: The most steps each record saves (see ``ActionStack/savedHistory(maximumSteps:)``).
    ///   - fingerprint: The fingerprint of the document as it is now.
    /// - Complexity: O(s) for the s steps saved.
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
        watch(stack)
        record()
    }

    /// Records after each call that changes `stack` (see ``ActionStack/observe(_:)``). Watching a
    /// stack twice watches it once.
    ///
    /// - Parameter stack: A stack whose history the archive saves.
    /// - Complexity: O(1) amortized.
    public func watch(_ stack: ActionStack) {
        let id = ObjectIdentifier(stack)
        guard tokens[id] == nil else { return }
        tokens[id] = stack.observe { [weak self] _ in self?.record() }
    }

    /// Stops recording the changes of `stack`, as for a stack that left the document.
    ///
    /// - Parameter stack: A watched stack.
    /// - Complexity: O(1) amortized.
    public func unwatch(_ stack: ActionStack) {
        tokens.removeValue(forKey: ObjectIdentifier(stack))?.cancel()
    }

    /// Makes a record now and appends it unless it repeats the last one: for a change the stacks
    /// do not see, such as a new fingerprint.
    ///
    /// - Returns: Whether a record was appended.
    /// - Complexity: O(s) for the s steps saved, plus the append.
    @discardableResult
    public func record() -> Bool {
        guard !isRecording else { return false }
        isRecording = true
        defer { isRecording = false }
        let archive: HistoryArchive
        do {
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
            guard data != lastRecord else { return false }
            try journal.append(data, fingerprint: archive.fingerprint)
            lastRecord = data
            lastError = nil
            recordCount += 1
            return true
        } catch {
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
        guard let record = try journal.lastRecord(matchingFingerprint: fingerprint) else { return nil }
        return try HistoryArchive(decoding: record.payload, registry: registry, limits: limits)
    }
}

@available(*, unavailable, message: "Use a history recorder where its stacks are used.")
extension HistoryRecorder: Sendable {}
