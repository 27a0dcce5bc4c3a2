// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore
import Foundation

// Replaying a recorder's journal: each history as its records built it (chains of steps, the
// document's states, the root), record after record, then the history a full save would have saved
// at that record (`JournalHistoryModel.savedHistory()`, in the core: `RecordedHistory.swift`).

extension JournalHistoryModel {
    /// The history a snapshot holds.
    init(snapshot record: JournalHistoryRecord, limits: HistoryArchive.Limits) throws {
        guard let shape = record.shape, let current = record.current, let clean = record.clean else {
            throw JournalRecordProblem("a snapshot's history without its shape or states")
        }
        self.init(
            shape: shape, maximumSteps: record.maximumSteps ?? .max, current: current, clean: clean,
            remoteVersion: record.remoteVersion, root: record.root ?? 0, rootDate: record.rootDate,
            nextNode: record.nextNode)
        try apply(record, limits: limits)
    }

    /// Applies a record's changes.
    ///
    /// - Throws: ``JournalRecordProblem`` when the record does not fit the history (a record of
    ///   another history, or a damaged one); the history may then be half changed.
    mutating func apply(_ record: JournalHistoryRecord, limits: HistoryArchive.Limits) throws {
        if let current = record.current { self.current = current }
        if let clean = record.clean { self.clean = clean }
        if record.setsRemoteVersion { remoteVersion = record.remoteVersion }
        if let root = record.root { self.root = root }
        if let rootDate = record.rootDate { self.rootDate = rootDate }
        if let nextNode = record.nextNode { self.nextNode = nextNode }
        var next = 0
        func problem(_ what: String) -> JournalRecordProblem { JournalRecordProblem(what) }
        for operation in record.operations {
            switch operation {
            case .chain(let id, let drop, let keep, let grow, let push):
                // Moved out of the model, so that the chain is changed in place: a copy per
                // operation would make a record of n operations cost O(n²). (A record that throws
                // leaves the model half changed; the replay then drops its chain.)
                var chain: JournalChain
                switch id {
                case .undo:
                    chain = undo
                    undo = JournalChain()
                case .redo:
                    chain = redo
                    redo = JournalChain()
                case .branch(let number):
                    guard branches[number] != nil else { throw problem("an operation on no branch \(number)") }
                    chain = branches[number]!.chain
                    branches[number]!.chain = JournalChain()
                }
                chain.drop(drop)
                guard keep <= chain.count else {
                    throw problem("an operation keeps \(keep) steps of \(chain.count)")
                }
                chain.keep(keep)
                if grow {
                    guard keep > 0 else { throw problem("an operation grows a chain without steps") }
                    let grown = record.steps[next]
                    next += 1
                    var step = chain[keep - 1]
                    let actions = step.actions
                    let heldClosure = step.holdsClosure
                    step = grown
                    step.holdsClosure = heldClosure || grown.holdsClosure
                    if step.holdsClosure {
                        step.actions = SavedActionList()
                    } else {
                        var joined = actions
                        for index in 0..<grown.actions.count { joined.append(grown.actions[index]) }
                        try limits.check(joined.count, .actionsPerStep)
                        step.actions = joined
                    }
                    chain[keep - 1] = step
                }
                for _ in 0..<push {
                    chain.append(record.steps[next])
                    next += 1
                }
                switch id {
                case .undo: undo = chain
                case .redo: redo = chain
                case .branch(let number): branches[number]!.chain = chain
                }
            case .newBranch(let number, let anchor):
                guard branches[number] == nil else { throw problem("branch \(number) made twice") }
                branches[number] = (anchor, JournalChain())
            case .fork(let number, let anchor):
                guard branches[number] == nil else { throw problem("branch \(number) made twice") }
                branches[number] = (anchor, redo)
                redo = JournalChain()
            case .enter(let number, let anchor, let kept):
                guard let branch = branches[number] else { throw problem("no branch \(number) to enter") }
                let left = redo
                redo = branch.chain
                branches[number] = kept ? (anchor, left) : nil
            case .dropBranch(let number):
                guard branches.removeValue(forKey: number) != nil else { throw problem("no branch \(number) to drop") }
            case .reanchor(let number, let anchor):
                guard branches[number] != nil else { throw problem("no branch \(number) to move") }
                branches[number]!.anchor = anchor
            }
        }
        try limits.check(stepCount, .steps)
    }

}

// MARK: - Replaying a journal

/// What a replay of a recorder's journal found at one record.
struct JournalReplayPoint {
    var record: JournalRecord
    /// The histories as they were at that record, or why they cannot be rebuilt.
    var result: Result<Replayed, JournalRecordProblem>

    enum Replayed {
        /// A record of a recorder: its histories, rebuilt.
        case models([String: JournalHistoryModel])
        /// A whole archive.
        case archive(HistoryArchive)
    }
}

enum JournalReplayer {
    /// What a replay found at the records it was asked about.
    struct Found {
        /// The last record asked about, replayed (or why it could not be).
        var last: JournalReplayPoint?
        /// The last record asked about that replayed.
        var lastReplayed: JournalReplayPoint?
    }

    /// Replays `records` up to `last` (each writer's records on their own: a delta follows the
    /// snapshot it names, whatever another writer appended between), and returns the histories at
    /// the last record for which `wanted` is true, and at the last such record that replayed.
    ///
    /// - Parameters:
    ///   - records: A journal's intact records.
    ///   - registry: The command types.
    ///   - limits: The bounds each record, and each history rebuilt, holds to.
    ///   - last: The last record to replay.
    ///   - wanted: Whether the caller wants the histories at record `index`.
    /// - Returns: The histories at the last record wanted, and at the last one wanted that replayed.
    /// - Complexity: O(n) for the n bytes of the records, plus the histories kept.
    static func replay(
        _ records: [JournalRecord], registry: CommandRegistry, limits: HistoryArchive.Limits,
        through last: Int, keeping wanted: (Int) -> Bool
    ) -> Found {
        var found = Found()
        replay(records, registry: registry, limits: limits, through: last, keeping: wanted) { point in
            found.last = point
            if case .success = point.result { found.lastReplayed = point }
        }
        return found
    }

    /// Replays `records` up to `last` and hands `visit` the histories at each record for which
    /// `wanted` is true, in order.
    ///
    /// - Complexity: O(n) for the n bytes of the records, plus `visit`.
    static func replay(
        _ records: [JournalRecord], registry: CommandRegistry, limits: HistoryArchive.Limits,
        through last: Int, keeping wanted: (Int) -> Bool, visit: (JournalReplayPoint) throws -> Void
    ) rethrows {
        // The histories of each chain (a snapshot and the deltas after it), with the index of its
        // last record; a chain that could not be followed is gone.
        var chains: [UInt64: (models: [String: JournalHistoryModel], index: Int)] = [:]
        // The problem of the last record that could not be read at all (over the limits, of a newer
        // format, damaged): a record of what changed whose snapshot is missing may follow it, and is
        // refused for the same reason rather than as damaged.
        var unreadable: JournalRecordProblem?
        // The problem of each chain that failed (its first), for the records that follow it.
        var failed: [UInt64: JournalRecordProblem] = [:]
        let end = Swift.min(last + 1, records.count)
        for position in 0..<end {
            let record = records[position]
            let result: Result<JournalReplayPoint.Replayed, JournalRecordProblem>
            var chainID: UInt64?
            do {
                switch try JournalRecordReader.read(record.payload, registry: registry, limits: limits) {
                case .archive(let archive):
                    result = .success(.archive(archive))
                case .record(let contents):
                    chainID = contents.chain
                    if contents.isSnapshot {
                        guard contents.index == 0 else { throw JournalRecordProblem("a snapshot with an index") }
                        var built: [String: JournalHistoryModel] = [:]
                        for (name, history) in contents.histories {
                            built[name] = try JournalHistoryModel(snapshot: history, limits: limits)
                        }
                        chains[contents.chain] = (built, 0)
                        result = .success(.models(built))
                    } else {
                        guard var current = chains[contents.chain], contents.index == current.index + 1 else {
                            if chains[contents.chain] == nil, let cause = failed[contents.chain] ?? unreadable {
                                throw JournalRecordProblem(
                                    "the record follows one that cannot be read: \(cause.description)",
                                    archiveError: cause.archiveError)
                            }
                            throw JournalRecordProblem(
                                "the record does not follow the records before it (its snapshot is gone or damaged)")
                        }
                        for (name, history) in contents.histories {
                            guard var model = current.models[name] else {
                                throw JournalRecordProblem(
                                    "the record changes history \"\(HistoryArchiveError.shortened(name, to: 40))\", "
                                        + "which the snapshot does not hold")
                            }
                            // Moved out, so that the chains are changed in place.
                            current.models[name] = nil
                            try model.apply(history, limits: limits)
                            current.models[name] = model
                        }
                        current.index = contents.index
                        chains[contents.chain] = nil
                        chains[contents.chain] = current
                        result = .success(.models(current.models))
                    }
                }
            } catch {
                let problem =
                    error as? JournalRecordProblem
                    ?? JournalRecordProblem("\(error)", archiveError: error as? HistoryArchiveError)
                if let chainID {
                    chains[chainID] = nil
                    failed[chainID] = failed[chainID] ?? problem
                } else {
                    unreadable = problem
                }
                result = .failure(problem)
            }
            guard wanted(position) else { continue }
            try visit(JournalReplayPoint(record: record, result: result))
        }
    }

    /// The archive a replay point holds.
    static func archive(
        at point: JournalReplayPoint, fingerprint: String?
    ) throws -> HistoryArchive {
        switch point.result {
        case .failure(let problem): throw problem
        case .success(.archive(let archive)): return archive
        case .success(.models(let models)):
            var histories: [String: SavedHistory] = [:]
            for (name, model) in models {
                do {
                    histories[name] = try model.savedHistory()
                } catch {
                    throw JournalRecordProblem("\(error)")
                }
            }
            return HistoryArchive(fingerprint: fingerprint ?? point.record.fingerprint ?? "", histories: histories)
        }
    }
}
