// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// A command that moves past changes made elsewhere: a step of this user's history that still
/// reads right after a peer, another device or a server changed the document (see
/// <doc:UndoInASharedDocument>).
///
/// A stored command was written for the document as it was when it was registered: "delete 3
/// characters at offset 40" is wrong once a peer typed before offset 40. When the app reports a
/// remote change (``ActionStack/applyRemoteChange(_:version:_:)``), the stack rewrites every
/// stored command that adopts this protocol, lazily, when the step is performed, saved, or looked
/// at as the next step:
///
/// - ``rebased(over:)`` says how this command reads once `change` has been applied to the
///   document it was written for: a rewritten command, or `nil` when nothing is left for it to do
///   (a peer deleted everything it would restore, or wrote the field after this user: the
///   peer's change is never reverted);
/// - ``transform(_:)`` says how `change` reads once this command has run, so that the steps below
///   see a history in which the undone step never happened.
///
/// Both are called with a change and a command that apply to the same document, as operational
/// transformation's two transforms are; the stack applies them step by step, newest step first,
/// and within a step in the order its actions run (newest registration first).
///
/// ```swift
/// import ActionStack
///
/// final class Playlist {
///     var songs: [String] = []
///     let stack = ActionStack()
///
///     func edit(_ edit: SequenceEdit<String>) {
///         try? edit.apply(to: &songs)
///         stack.registerUndo(EditSongs(edit: edit.inverse), on: self, key: "playlist")
///     }
/// }
///
/// /// The inverse of an edit of the playlist; the list edit does the rebasing.
/// struct EditSongs: UndoCommand, RebasableCommand {
///     static let commandType = "playlist.edit"
///     var edit: SequenceEdit<String>
///
///     func perform(on playlist: Playlist, in stack: ActionStack) { playlist.edit(edit) }
///     func rebased(over change: SequenceEdit<String>) -> EditSongs? { edit.rebased(over: change).map(EditSongs.init) }
///     func transform(_ change: SequenceEdit<String>) -> SequenceEdit<String>? { edit.transform(change) }
/// }
///
/// let playlist = Playlist()
/// playlist.stack.automaticGroupClosing = .manual
/// playlist.edit(.insert(["Blue"], at: 0))
/// playlist.stack.endEvent()
/// // A peer adds a song at the top.
/// let peer = SequenceEdit<String>.insert(["Red"], at: 0)
/// playlist.stack.applyRemoteChange(peer) { try? peer.apply(to: &playlist.songs) }
/// playlist.stack.undo()
/// print(playlist.songs)   // ["Red"]
/// ```
///
/// A command whose ``Change`` type is not the type of a reported change is left as it is, and the
/// change passes it unchanged. So are closure actions and commands that do not adopt this protocol:
/// that is right for targets addressed by identity (a figure object, a record found by its id),
/// which a remote change cannot move; a remote deletion of such an object is
/// ``ActionStack/removeAllActions(withTarget:)``. Positions in a text or a list need rebasing.
/// ``SequenceEdit`` does it for texts and lists, with the tie rules users expect.
///
/// Both methods must be pure (no side effects, same answer for the same input): the stack may call
/// them at any time before the step runs, once per change and command.
public protocol RebasableCommand: SavableCommand {
    /// The app's description of a change made elsewhere.
    associatedtype Change: Sendable

    /// This command as it reads after `change` was applied to the document it was written for.
    ///
    /// - Parameter change: A change made elsewhere, in the document this command applies to.
    /// - Returns: The rewritten command, or `nil` when nothing is left for it to do.
    func rebased(over change: Change) -> Self?

    /// `change` as it reads once this command has run (the document this command leaves behind).
    ///
    /// - Parameter change: A change made elsewhere, in the document this command applies to.
    /// - Returns: The rewritten change, or `nil` when it has no effect there (it only touched what
    ///   this command removes).
    func transform(_ change: Change) -> Change?
}

extension RebasableCommand {
    /// Rebases the command and the change over each other, when the change is of the command's
    /// type (`matched`): the command after the change, and the change after the command.
    func rebase(with change: any Sendable) -> (command: Self?, change: (any Sendable)?, matched: Bool) {
        guard let typed = change as? Change else { return (self, change, false) }
        return (rebased(over: typed), transform(typed).map { $0 as any Sendable }, true)
    }
}

/// A remote change that can be merged with the change reported after it, so that the changes a
/// step has not seen stay few: a peer's typing, reported a key at a time, waits as one change, and
/// the step pays for one when it is rebased (see <doc:UndoInASharedDocument>, "Costs").
///
/// ``SequenceEdit`` and ``TextEdit`` adopt it: an insertion right after (or right at) the one before
/// it, and a deletion right at or right before the one before it, merge into one piece.
///
/// Adopt it with a value type. A stack never merges changes of a class type, which it may conform
/// to as well: a class's change is held by reference, by the steps on each side of the current
/// node at once and perhaps by the app, so merging one would change it under all of them.
public protocol MergeableChange: Sendable {
    /// Merges `next` (which reads in the document this change leaves) into this change, when the
    /// two are better held as one; returns false, and changes nothing, when they are kept apart.
    ///
    /// The stack calls it on the change a step holds, which it owns alone, so an implementation
    /// that appends to its own storage costs what `next` holds, not what the run holds so far.
    ///
    /// - Parameter next: The change reported after this one.
    /// - Returns: Whether `next` was merged into this change.
    mutating func merge(_ next: Self) -> Bool
}

extension MergeableChange {
    /// This change followed by `next`, as one change; nil when they are kept apart (see
    /// ``merge(_:)``).
    ///
    /// - Parameter next: The change reported after this one.
    /// - Returns: The merged change, or nil.
    public func merged(with next: Self) -> Self? {
        var merged = self
        return merged.merge(next) ? merged : nil
    }
}
