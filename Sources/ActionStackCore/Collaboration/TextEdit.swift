// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// An edit of a text, at offsets counted in Unicode scalars: a ``SequenceEdit`` of scalars that can
/// be saved (it encodes its pieces as strings).
///
/// Offsets count Unicode scalars (`String.unicodeScalars`), as Loro and Automerge count, not
/// `Character`s: a `Character` can be several scalars (an "é" typed as "e" and a combining accent,
/// "\r\n", a flag), and an insertion next to one can join it with its neighbour into one
/// `Character`. Counted in scalars, an edit stays exact whatever it joins or splits: its inverse
/// undoes it, and a peer's combining mark typed after this user's letter leaves this user's letter
/// removable. An app whose cursor counts `Character`s converts with
/// `text.unicodeScalars.distance(from:to:)` over `String.Index`es.
///
/// ```swift
/// var text = "Hello world"
/// let undoTyping = TextEdit.delete("world", at: 6)
/// let peer = TextEdit.insert("big ", at: 6)   // a peer typed before "world"
/// try peer.apply(to: &text)
/// try undoTyping.rebased(over: peer)!.apply(to: &text)
/// print(text)   // Hello big
/// ```
public struct TextEdit: Hashable, Sendable, Codable, CustomStringConvertible, MergeableChange {
    /// The edit, piece by piece, in Unicode scalars.
    public var edit: SequenceEdit<Unicode.Scalar>

    /// An edit of `edit`'s pieces.
    public init(_ edit: SequenceEdit<Unicode.Scalar>) { self.edit = edit }

    /// Inserts `text` at `offset` (in Unicode scalars).
    public static func insert(_ text: String, at offset: Int) -> TextEdit {
        TextEdit(.insert(Array(text.unicodeScalars), at: offset))
    }

    /// Deletes `text`, which starts at `offset` (in Unicode scalars).
    public static func delete(_ text: String, at offset: Int) -> TextEdit {
        TextEdit(.delete(Array(text.unicodeScalars), at: offset))
    }

    /// Replaces `old`, which starts at `offset` (in Unicode scalars), with `new`.
    public static func replace(_ old: String, with new: String, at offset: Int) -> TextEdit {
        TextEdit(.replace(Array(old.unicodeScalars), with: Array(new.unicodeScalars), at: offset))
    }

    /// Whether the edit does nothing.
    public var isEmpty: Bool { edit.isEmpty }

    /// The edit that undoes this one.
    public var inverse: TextEdit { TextEdit(edit.inverse) }

    /// Applies the edit to `text`, or throws and leaves it unchanged (see
    /// ``SequenceEdit/apply(to:)``).
    ///
    /// - Complexity: O(n · p) for n scalars and p pieces.
    public func apply(to text: inout String) throws(SequenceEditError) {
        var scalars = Array(text.unicodeScalars)
        try edit.apply(to: &scalars)
        text = Self.string(scalars)
    }

    /// The string of `scalars`.
    static func string(_ scalars: [Unicode.Scalar]) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// This edit as it reads after `other` was applied (see ``SequenceEdit/rebased(over:)``).
    public func rebased(over other: TextEdit) -> TextEdit? { edit.rebased(over: other.edit).map(TextEdit.init) }

    /// `other` as it reads once this edit was applied (see ``SequenceEdit/transform(_:)``).
    public func transform(_ other: TextEdit) -> TextEdit? { edit.transform(other.edit).map(TextEdit.init) }

    /// Merges `next` into this edit when the two are one run of typing or deleting (see
    /// ``SequenceEdit/merge(_:)``).
    public mutating func merge(_ next: TextEdit) -> Bool { edit.merge(next.edit) }

    /// The pieces, as `+"abc"@3` (an insertion) and `-"abc"@3` (a deletion).
    public var description: String {
        edit.pieces.map { piece in
            switch piece {
            case .insert(let scalars, let offset): "+\"\(Self.string(scalars))\"@\(offset)"
            case .delete(let scalars, let offset): "-\"\(Self.string(scalars))\"@\(offset)"
            }
        }.joined(separator: " ")
    }

    // MARK: Codable: [{"insert": "abc", "at": 3}, {"delete": "x", "at": 0}]

    private enum PieceKeys: String, CodingKey {
        case insert, delete, at
    }

    /// Reads the pieces written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var pieces: [SequenceEdit<Unicode.Scalar>.Piece] = []
        while !container.isAtEnd {
            let piece = try container.nestedContainer(keyedBy: PieceKeys.self)
            let offset = try piece.decode(Int.self, forKey: .at)
            if let inserted = try piece.decodeIfPresent(String.self, forKey: .insert) {
                pieces.append(.insert(Array(inserted.unicodeScalars), at: offset))
            } else {
                pieces.append(.delete(Array(try piece.decode(String.self, forKey: .delete).unicodeScalars), at: offset))
            }
        }
        edit = SequenceEdit(pieces)
    }

    /// Writes the pieces as an array of objects, each with its text as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for piece in edit.pieces {
            var object = container.nestedContainer(keyedBy: PieceKeys.self)
            switch piece {
            case .insert(let scalars, let offset):
                try object.encode(Self.string(scalars), forKey: .insert)
                try object.encode(offset, forKey: .at)
            case .delete(let scalars, let offset):
                try object.encode(Self.string(scalars), forKey: .delete)
                try object.encode(offset, forKey: .at)
            }
        }
    }
}
