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

/// One change to a shared board, as the boards that share it send it to each other: the entries of
/// the shared log (`SharedBoard`), and the `Change` that the board's commands rebase over
/// (`RebasableCommand`).
///
/// A change names a figure by its UUID, which every board knows it by. Only the order of the
/// figures is positional (`insert` and `remove` carry an index), and only there do this user's
/// stored steps need rewriting when a peer's change arrives: `orderEdit` states those changes as a
/// `SequenceEdit` of the figures' UUIDs, so the library's list rules (indices that move past a
/// peer's insertions and removals, restored figures before a peer's at a tie) do the arithmetic.
public enum BoardChange: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A figure is put on the board at `index` in the order, bottom first: added, or back by an
    /// undo or redo. The record says everything about it.
    case insert(FigureRecord, at: Int)
    /// The figure at `index` is taken off the board.
    case remove(figure: UUID, at: Int)
    /// The figure is moved to `to`.
    case move(figure: UUID, to: Point)
    /// The figure gets a colour.
    case color(figure: UUID, FigureColor)
    /// The figure gets a corner radius.
    case radius(figure: UUID, Double)

    /// The figure the change is about.
    public var figure: UUID {
        switch self {
        case .insert(let record, _): record.uuid
        case .remove(let figure, _), .move(let figure, _), .color(let figure, _), .radius(let figure, _): figure
        }
    }

    /// "move #<uuid> to (30.0, 5.0)": for logs and test failures. The session describes changes to
    /// the user by figure number (`SharedBoard`).
    public var description: String {
        switch self {
        case .insert(let record, let index): "insert \(record.uuid.uuidString) at \(index)"
        case .remove(let figure, let index): "remove \(figure.uuidString) at \(index)"
        case .move(let figure, let point): "move \(figure.uuidString) to \(point)"
        case .color(let figure, let color): "color \(figure.uuidString) \(color.rawValue)"
        case .radius(let figure, let radius): "radius \(figure.uuidString) \(radius)"
        }
    }

    // MARK: The order of the figures, as a list edit

    /// The change to the order of the figures as a list edit (an insertion or a deletion of one
    /// UUID); nil for a change within a figure, which moves no other figure in the order.
    public var orderEdit: SequenceEdit<UUID>? {
        switch self {
        case .insert(let record, let index): .insert([record.uuid], at: index)
        case .remove(let figure, let index): .delete([figure], at: index)
        case .move, .color, .radius: nil
        }
    }

    /// This change with its index taken from `edit`, the `orderEdit` of this change rewritten by
    /// a rebase; nil when the rebase left nothing of it.
    func reindexed(_ edit: SequenceEdit<UUID>?) -> BoardChange? {
        guard let offset = edit?.pieces.first?.offset else { return nil }
        switch self {
        case .insert(let record, _): return .insert(record, at: offset)
        case .remove(let figure, _): return .remove(figure: figure, at: offset)
        case .move, .color, .radius: return self
        }
    }

    // MARK: Finding the changes a command made

    /// The changes that turn a board whose figures are `old` (bottom first) into one whose figures
    /// are `new`: removals first (from the top, so that each index reads in the board the ones
    /// before it left), then insertions (from the bottom, at their final places), then each
    /// remaining figure's new position, colour and radius.
    ///
    /// The shared board sends a command's changes this way, by comparing the board before and
    /// after the command, so every path that changes the board (a command, an undo or a redo, a
    /// jump in the tree) is covered in one place. A figure that stays on the board keeps its
    /// place relative to the others (the board never reorders figures); one that would not is sent
    /// as taken off and put back, so a peer's board ends up the same either way.
    ///
    /// - Complexity: O(n) for the n figures of both boards.
    public static func changes(from old: [FigureRecord], to new: [FigureRecord]) -> [BoardChange] {
        let oldIndex = Dictionary(old.enumerated().map { ($1.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        // The figures that stay, in order: those of `new` that were on the old board, kept while
        // their old places increase (a figure out of order is removed and inserted again).
        var stays: Set<UUID> = []
        var lastPlace = -1
        for record in new {
            guard let place = oldIndex[record.uuid], place > lastPlace else { continue }
            stays.insert(record.uuid)
            lastPlace = place
        }
        var changes: [BoardChange] = []
        for (index, record) in old.enumerated().reversed() where !stays.contains(record.uuid) {
            changes.append(.remove(figure: record.uuid, at: index))
        }
        for (index, record) in new.enumerated() where !stays.contains(record.uuid) {
            changes.append(.insert(record, at: index))
        }
        for record in new where stays.contains(record.uuid) {
            guard let before = oldIndex[record.uuid].map({ old[$0] }) else { continue }
            if before.position != record.position { changes.append(.move(figure: record.uuid, to: record.position)) }
            if before.color != record.color { changes.append(.color(figure: record.uuid, record.color)) }
            if before.cornerRadius != record.cornerRadius {
                changes.append(.radius(figure: record.uuid, record.cornerRadius))
            }
        }
        return changes
    }
}
