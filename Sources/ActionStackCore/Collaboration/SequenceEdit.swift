// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// An edit of a sequence (a list, or a text as ``TextEdit`` wraps it): insertions and deletions at
/// offsets, applied in order, that can be rebased over a peer's edit.
///
/// It is the value a ``RebasableCommand`` over a list or a text needs: the inverse of a user's
/// change is an edit, a peer's change is an edit, and ``rebased(over:)`` and ``transform(_:)`` are
/// the two transforms the protocol asks for, with the rules users of shared documents expect:
///
/// - Offsets move past what a peer inserted or deleted before them.
/// - This edit never deletes what a peer inserted: a deletion whose range a peer typed into is
///   split around the peer's elements.
/// - This edit never brings back what a peer deleted: a deletion of elements a peer deleted first
///   shrinks to what is left, and one left with nothing is gone.
/// - At a tie (this edit and the peer's insert at the same offset), this edit's elements go first:
///   text restored by an undo goes back before what a peer typed at the same place. Text inserted
///   by a peer inside a range that this edit deletes and then re-inserts in one step (a replace)
///   stays after the re-inserted text.
///
/// ```swift
/// var playlist = ["Intro", "Red", "Blue"]
/// // Undoing this user's adding of "Red" and "Blue" deletes them.
/// let undo = SequenceEdit<String>.delete(["Red", "Blue"], at: 1)
/// // Meanwhile a peer added "Green" before them and "Gold" between them.
/// let peer = SequenceEdit<String>([.insert(["Green"], at: 1), .insert(["Gold"], at: 3)])
/// try peer.apply(to: &playlist)
/// print(playlist)   // ["Intro", "Green", "Red", "Gold", "Blue"]
/// try undo.rebased(over: peer)!.apply(to: &playlist)
/// print(playlist)   // ["Intro", "Green", "Gold"]
/// ```
///
/// For a text, use ``TextEdit``, which counts offsets in Unicode scalars: counted in `Character`s,
/// an insertion that joins its neighbour into one `Character` (a combining accent, "\r" and "\n")
/// would no longer be found by its inverse.
///
/// An edit with no pieces does nothing; ``rebased(over:)`` returns `nil` rather than such an edit.
public struct SequenceEdit<Element: Equatable & Sendable>: Equatable, Sendable {
    /// One insertion or deletion.
    ///
    /// Frozen: an edit of a sequence is insertions and deletions, and the rebasing rules, the saved
    /// form of ``TextEdit`` and every app's `switch` over the pieces rely on there being just these
    /// two; no case will be added, and a `switch` over a piece may be exhaustive.
    @frozen
    public enum Piece: Equatable, Sendable {
        /// Inserts `elements` before the element at `offset`.
        case insert([Element], at: Int)
        /// Deletes `elements`, which start at `offset`.
        case delete([Element], at: Int)

        /// Where the piece acts.
        @inlinable
        public var offset: Int {
            switch self {
            case .insert(_, let offset), .delete(_, let offset): offset
            }
        }

        /// The elements inserted or deleted.
        @inlinable
        public var elements: [Element] {
            switch self {
            case .insert(let elements, _), .delete(let elements, _): elements
            }
        }

        /// The piece that undoes this one.
        @inlinable
        public var inverse: Piece {
            switch self {
            case .insert(let elements, let offset): .delete(elements, at: offset)
            case .delete(let elements, let offset): .insert(elements, at: offset)
            }
        }
    }

    /// The pieces, applied in order (each to the sequence the ones before it left).
    public var pieces: [Piece]

    /// An edit of `pieces`, applied in order; pieces that insert or delete nothing are left out.
    ///
    /// - Parameter pieces: The pieces.
    /// - Complexity: O(p) for the p pieces.
    @inlinable
    public init(_ pieces: [Piece] = []) {
        self.pieces = pieces.filter { !$0.elements.isEmpty }
    }

    /// Inserts `elements` at `offset`.
    @inlinable
    public static func insert(_ elements: [Element], at offset: Int) -> SequenceEdit {
        SequenceEdit([.insert(elements, at: offset)])
    }

    /// Deletes `elements`, which start at `offset`.
    @inlinable
    public static func delete(_ elements: [Element], at offset: Int) -> SequenceEdit {
        SequenceEdit([.delete(elements, at: offset)])
    }

    /// Replaces `old`, which starts at `offset`, with `new`.
    ///
    /// The edit inserts `new` right after `old`, then deletes `old`: the same change as a deletion
    /// followed by an insertion, but with the new elements placed after the old ones, as a shared
    /// document places an insertion where elements were deleted. So the inverse restores the old
    /// elements at the start of the range, before anything a peer typed into the new ones, and the
    /// redo built then puts the new elements back after them.
    @inlinable
    public static func replace(_ old: [Element], with new: [Element], at offset: Int) -> SequenceEdit {
        SequenceEdit([.insert(new, at: offset + old.count), .delete(old, at: offset)])
    }

    /// Whether the edit does nothing.
    @inlinable
    public var isEmpty: Bool { pieces.isEmpty }

    /// The edit that undoes this one: the inverse pieces, in reverse order.
    ///
    /// - Complexity: O(p) for the p pieces.
    @inlinable
    public var inverse: SequenceEdit { SequenceEdit(pieces.reversed().map(\.inverse)) }

    /// Applies the edit to `sequence`, or throws and leaves it unchanged when a piece does not fit
    /// (an offset out of range, or a deletion of elements that are not there).
    ///
    /// - Parameter sequence: The sequence to edit.
    /// - Throws: ``SequenceEditError``.
    /// - Complexity: O(n · p) for a sequence of n elements and p pieces.
    @inlinable
    public func apply(to sequence: inout [Element]) throws(SequenceEditError) {
        var result = sequence
        for (index, piece) in pieces.enumerated() {
            switch piece {
            case .insert(let elements, let offset):
                guard offset >= 0, offset <= result.count else { throw SequenceEditError(pieceIndex: index) }
                result.insert(contentsOf: elements, at: offset)
            case .delete(let elements, let offset):
                guard offset >= 0, offset <= result.count - elements.count,
                    result[offset..<offset + elements.count].elementsEqual(elements)
                else { throw SequenceEditError(pieceIndex: index) }
                result.removeSubrange(offset..<offset + elements.count)
            }
        }
        sequence = result
    }

    /// This edit as it reads after `other`, a peer's edit of the same sequence, was applied: the
    /// pieces moved and cut as the type's rules say.
    ///
    /// - Parameter other: The peer's edit.
    /// - Returns: The rebased edit, or `nil` when nothing is left of it.
    /// - Complexity: O(p · q) for p and q pieces, plus the elements they move.
    @inlinable
    @_specialize(where Element == Unicode.Scalar)
    @_specialize(where Element == Character)
    public func rebased(over other: SequenceEdit) -> SequenceEdit? {
        let rebased = SequenceEdit(Self.transform(ours: pieces[...], theirs: other.pieces[...]).ours)
        return rebased.isEmpty ? nil : rebased
    }

    /// `other`, a peer's edit of the same sequence, as it reads once this edit was applied.
    ///
    /// - Parameter other: The peer's edit.
    /// - Returns: The rewritten edit, or `nil` when nothing is left of it.
    /// - Complexity: O(p · q) for p and q pieces, plus the elements they move.
    @inlinable
    @_specialize(where Element == Unicode.Scalar)
    @_specialize(where Element == Character)
    public func transform(_ other: SequenceEdit) -> SequenceEdit? {
        let transformed = SequenceEdit(Self.transform(ours: pieces[...], theirs: other.pieces[...]).theirs)
        return transformed.isEmpty ? nil : transformed
    }

    // MARK: Internals: operational transformation

    /// Two lists of pieces that apply to one sequence: `ours` after `theirs`, and `theirs` after
    /// `ours`. Pieces compose in order, so a list is transformed one piece at a time.
    @inlinable
    @_specialize(where Element == Unicode.Scalar)
    @_specialize(where Element == Character)
    static func transform(ours: ArraySlice<Piece>, theirs: ArraySlice<Piece>) -> (ours: [Piece], theirs: [Piece]) {
        guard let first = ours.first else { return ([], Array(theirs)) }
        guard let theirFirst = theirs.first else { return (Array(ours), []) }
        if ours.count == 1 && theirs.count == 1 { return transform(first, theirFirst) }
        if ours.count > 1 {
            // Our first piece past all of theirs, then the rest of ours past what theirs became.
            let head = transform(ours: ours.prefix(1), theirs: theirs)
            let rest = transform(ours: ours.dropFirst(), theirs: head.theirs[...])
            return (head.ours + rest.ours, rest.theirs)
        }
        // One piece of ours: past their first, then past the rest.
        let head = transform(ours: ours, theirs: theirs.prefix(1))
        let rest = transform(ours: head.ours[...], theirs: theirs.dropFirst())
        return (rest.ours, head.theirs + rest.theirs)
    }

    /// One piece of ours and one of theirs, applying to the same sequence.
    @inlinable
    @_specialize(where Element == Unicode.Scalar)
    @_specialize(where Element == Character)
    static func transform(_ ours: Piece, _ theirs: Piece) -> (ours: [Piece], theirs: [Piece]) {
        switch (ours, theirs) {
        case (.insert(let mine, let p), .insert(let other, let q)):
            // At a tie, ours goes first: theirs moves past it.
            if q < p { return ([.insert(mine, at: p + other.count)], [theirs]) }
            return ([ours], [.insert(other, at: q + mine.count)])
        case (.insert(let mine, let p), .delete(let other, let q)):
            return (
                [.insert(mine, at: insertion(p, past: q, other.count))],
                deletion(other, at: q, past: p, mine.count)
            )
        case (.delete(let mine, let p), .insert(let other, let q)):
            return (
                deletion(mine, at: p, past: q, other.count),
                [.insert(other, at: insertion(q, past: p, mine.count))]
            )
        case (.delete(let mine, let p), .delete(let other, let q)):
            return (
                remainder(mine, at: p, after: other, at: q),
                remainder(other, at: q, after: mine, at: p)
            )
        }
    }

    /// Where an insertion at `offset` lands once `count` elements at `start` are deleted: moved
    /// back past them, or to `start` when it was inside them.
    @usableFromInline
    static func insertion(_ offset: Int, past start: Int, _ count: Int) -> Int {
        if offset <= start { return offset }
        if offset >= start + count { return offset - count }
        return start
    }

    /// A deletion of `elements` at `start` once `count` elements were inserted at `offset`: moved
    /// past them, or split around them when they are inside its range (an insertion at either end
    /// is outside).
    @inlinable
    @_specialize(where Element == Unicode.Scalar)
    @_specialize(where Element == Character)
    static func deletion(_ elements: [Element], at start: Int, past offset: Int, _ count: Int) -> [Piece] {
        if offset <= start { return [.delete(elements, at: start + count)] }
        if offset >= start + elements.count { return [.delete(elements, at: start)] }
        let cut = offset - start
        return [
            .delete(Array(elements[..<cut]), at: start),
            .delete(Array(elements[cut...]), at: start + count),
        ]
    }

    /// What is left of a deletion of `elements` at `start` once `others` at `otherStart` were
    /// deleted: the elements both delete are gone, and the rest moves back past what went before it.
    @inlinable
    @_specialize(where Element == Unicode.Scalar)
    @_specialize(where Element == Character)
    static func remainder(
        _ elements: [Element], at start: Int, after others: [Element], at otherStart: Int
    ) -> [Piece] {
        let end = start + elements.count
        let otherEnd = otherStart + others.count
        let overlapStart = Swift.max(start, otherStart)
        let overlapEnd = Swift.min(end, otherEnd)
        // Elements of the other deletion before this one's start.
        let removedBefore = Swift.max(0, Swift.min(otherEnd, start) - otherStart)
        let newStart = start - removedBefore
        guard overlapStart < overlapEnd else { return [.delete(elements, at: newStart)] }
        var kept = Array(elements[..<(overlapStart - start)])
        kept += elements[(overlapEnd - start)...]
        return kept.isEmpty ? [] : [.delete(kept, at: newStart)]
    }
}

/// A piece of a ``SequenceEdit`` that does not fit the sequence it is applied to.
public struct SequenceEditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The index of the piece that does not fit, from 0.
    public var pieceIndex: Int

    @usableFromInline
    init(pieceIndex: Int) { self.pieceIndex = pieceIndex }

    /// A sentence that says which piece.
    @inlinable
    public var description: String {
        "piece \(pieceIndex) of the edit does not fit the sequence (offset out of range, or other elements there)"
    }
}

extension SequenceEdit: MergeableChange {
    /// Merges `next` into this edit when the last piece of this one and the only piece of `next`
    /// are one run: an insertion right after or right at the one before it (typing, or typing
    /// before the cursor), a deletion right at or right before the one before it (Delete,
    /// Backspace). Otherwise returns false and changes nothing: the edits are kept apart.
    ///
    /// - Parameter next: The edit made after this one.
    /// - Returns: Whether `next` was merged.
    /// - Complexity: O(p) for the p pieces of `next`, plus the elements appended: O(1) amortized
    ///   per element of `next` when the run's elements are held once (typing at the end of a run
    ///   and Delete); typing before the cursor and Backspace copy the run.
    @inlinable
    @_specialize(where Element == Unicode.Scalar)
    @_specialize(where Element == Character)
    public mutating func merge(_ next: SequenceEdit) -> Bool {
        guard next.pieces.count == 1, let last = pieces.last, last.joins(next.pieces[0]) else { return false }
        var tail = pieces.removeLast()
        _ = tail.absorb(next.pieces[0])
        pieces.append(tail)
        return true
    }
}

extension SequenceEdit.Piece {
    /// Whether `next` continues this piece as one run (see ``SequenceEdit/merge(_:)``): read from
    /// the offsets and the counts alone, so that a change that does not merge costs no copy.
    @inlinable
    func joins(_ next: Self) -> Bool {
        switch (self, next) {
        case (.insert(let run, let start), .insert(_, let at)): at == start + run.count || at == start
        case (.delete(_, let start), .delete(let removed, let at)): at == start || at + removed.count == start
        default: false
        }
    }

    /// Takes `next` into this piece when the two are one run (see ``SequenceEdit/merge(_:)``).
    /// The elements are taken out before they grow, so a piece held once grows in place.
    @inlinable
    mutating func absorb(_ next: Self) -> Bool {
        let start = offset
        let count = elements.count
        switch next {
        case .insert(let added, let at):
            guard case .insert(var run, _) = self, at == start + count || at == start else { return false }
            self = .insert([], at: start)
            if at == start + count {
                run.append(contentsOf: added)
            } else {
                run.insert(contentsOf: added, at: 0)
            }
            self = .insert(run, at: start)
        case .delete(let removed, let at):
            guard case .delete(var run, _) = self, at == start || at + removed.count == start else { return false }
            self = .delete([], at: start)
            if at == start {
                run.append(contentsOf: removed)
            } else {
                run.insert(contentsOf: removed, at: 0)
            }
            self = .delete(run, at: at)
        }
        return true
    }
}

extension SequenceEdit: Codable where Element: Codable {}
extension SequenceEdit.Piece: Codable where Element: Codable {}
extension SequenceEdit: Hashable where Element: Hashable {}
extension SequenceEdit.Piece: Hashable where Element: Hashable {}
