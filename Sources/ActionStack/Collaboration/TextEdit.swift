// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// An edit of a text, at offsets counted in `Character`s: a ``SequenceEdit`` of characters that
/// can be saved (it encodes its pieces as strings).
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
    /// The edit, piece by piece.
    public var edit: SequenceEdit<Character>

    /// An edit of `edit`'s pieces.
    public init(_ edit: SequenceEdit<Character>) { self.edit = edit }

    /// Inserts `text` at `offset`.
    public static func insert(_ text: String, at offset: Int) -> TextEdit {
        TextEdit(.insert(Array(text), at: offset))
    }

    /// Deletes `text`, which starts at `offset`.
    public static func delete(_ text: String, at offset: Int) -> TextEdit {
        TextEdit(.delete(Array(text), at: offset))
    }

    /// Replaces `old`, which starts at `offset`, with `new`.
    public static func replace(_ old: String, with new: String, at offset: Int) -> TextEdit {
        TextEdit(.replace(Array(old), with: Array(new), at: offset))
    }

    /// Whether the edit does nothing.
    public var isEmpty: Bool { edit.isEmpty }

    /// The edit that undoes this one.
    public var inverse: TextEdit { TextEdit(edit.inverse) }

    /// Applies the edit to `text`, or throws and leaves it unchanged (see
    /// ``SequenceEdit/apply(to:)``).
    ///
    /// - Complexity: O(n · p) for n characters and p pieces.
    public func apply(to text: inout String) throws(SequenceEditError) {
        var characters = Array(text)
        try edit.apply(to: &characters)
        text = String(characters)
    }

    /// This edit as it reads after `other` was applied (see ``SequenceEdit/rebased(over:)``).
    public func rebased(over other: TextEdit) -> TextEdit? { edit.rebased(over: other.edit).map(TextEdit.init) }

    /// `other` as it reads once this edit was applied (see ``SequenceEdit/transform(_:)``).
    public func transform(_ other: TextEdit) -> TextEdit? { edit.transform(other.edit).map(TextEdit.init) }

    /// This edit followed by `next`, as one edit (see ``SequenceEdit/merged(with:)``).
    public func merged(with next: TextEdit) -> TextEdit? { edit.merged(with: next.edit).map(TextEdit.init) }

    /// The pieces, as `+"abc"@3` (an insertion) and `-"abc"@3` (a deletion).
    public var description: String {
        edit.pieces.map { piece in
            switch piece {
            case .insert(let characters, let offset): "+\"\(String(characters))\"@\(offset)"
            case .delete(let characters, let offset): "-\"\(String(characters))\"@\(offset)"
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
        var pieces: [SequenceEdit<Character>.Piece] = []
        while !container.isAtEnd {
            let piece = try container.nestedContainer(keyedBy: PieceKeys.self)
            let offset = try piece.decode(Int.self, forKey: .at)
            if let inserted = try piece.decodeIfPresent(String.self, forKey: .insert) {
                pieces.append(.insert(Array(inserted), at: offset))
            } else {
                pieces.append(.delete(Array(try piece.decode(String.self, forKey: .delete)), at: offset))
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
            case .insert(let characters, let offset):
                try object.encode(String(characters), forKey: .insert)
                try object.encode(offset, forKey: .at)
            case .delete(let characters, let offset):
                try object.encode(String(characters), forKey: .delete)
                try object.encode(offset, forKey: .at)
            }
        }
    }
}
