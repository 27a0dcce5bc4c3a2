// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The reference model of collaborative undo on a text: the rules of <doc:UndoInASharedDocument>,
/// written plainly and eagerly, with an operational transformation of its own (not
/// `SequenceEdit`'s), so that the stack is checked against an independent account.
///
/// This user's steps are lists of primitive edits (the inverses of a change, applied in order);
/// every remote change rebases every step of both stacks at once, from the top down, carrying the
/// change past each step; a step left with nothing is dropped at once. An undo applies the top
/// step and pushes what it actually did, inverted, on the other stack.
struct CollaborativeTextModel {
    /// A primitive edit: insert `text` at `offset`, or delete `text` (which is there) at `offset`.
    enum Edit: Equatable, CustomStringConvertible {
        case insert(Int, String)
        case delete(Int, String)

        var offset: Int {
            switch self {
            case .insert(let offset, _), .delete(let offset, _): offset
            }
        }

        var text: String {
            switch self {
            case .insert(_, let text), .delete(_, let text): text
            }
        }

        var inverse: Edit {
            switch self {
            case .insert(let offset, let text): .delete(offset, text)
            case .delete(let offset, let text): .insert(offset, text)
            }
        }

        var description: String {
            switch self {
            case .insert(let offset, let text): "+\(text)@\(offset)"
            case .delete(let offset, let text): "-\(text)@\(offset)"
            }
        }
    }

    struct Step {
        var edits: [Edit]
        var name: String
    }

    var text: [Character] = []
    var undoStack: [Step] = []
    var redoStack: [Step] = []

    var canUndo: Bool { !undoStack.isEmpty }
    var canRedo: Bool { !redoStack.isEmpty }

    // MARK: Events

    /// This user's change: `edits` applied in order, one step named `name`. A replacement (a
    /// deletion, then an insertion at the same place) is stored as the library's `replace` stores
    /// it: the new text inserted after the old, then the old deleted.
    mutating func local(_ edits: [Edit], name: String) {
        let normalized = Self.normalized(edits)
        var inverses: [Edit] = []
        for edit in normalized {
            apply(edit)
            inverses.append(edit.inverse)
        }
        undoStack.append(Step(edits: inverses.reversed(), name: name))
        redoStack = []
    }

    /// A peer's change: every step moves past it, then it applies.
    mutating func remote(_ edits: [Edit]) {
        undoStack = Self.rebase(undoStack, over: edits)
        redoStack = Self.rebase(redoStack, over: edits)
        for edit in edits { apply(edit) }
    }

    /// Undoes the newest step; false when there is none.
    @discardableResult
    mutating func undo() -> Bool {
        guard let step = undoStack.popLast() else { return false }
        redoStack.append(perform(step))
        return true
    }

    /// Redoes the newest redo step; false when there is none.
    @discardableResult
    mutating func redo() -> Bool {
        guard let step = redoStack.popLast() else { return false }
        undoStack.append(perform(step))
        return true
    }

    /// Applies `step`; returns the step that undoes what it did.
    private mutating func perform(_ step: Step) -> Step {
        var inverses: [Edit] = []
        for edit in step.edits {
            apply(edit)
            inverses.append(edit.inverse)
        }
        return Step(edits: inverses.reversed(), name: step.name)
    }

    mutating func apply(_ edit: Edit) {
        switch edit {
        case .insert(let offset, let inserted):
            text.insert(contentsOf: inserted, at: offset)
        case .delete(let offset, let deleted):
            precondition(String(text[offset..<offset + deleted.count]) == deleted, "model: \(edit) on \(String(text))")
            text.removeSubrange(offset..<offset + deleted.count)
        }
    }

    static func normalized(_ edits: [Edit]) -> [Edit] {
        var result: [Edit] = []
        var index = 0
        while index < edits.count {
            if index + 1 < edits.count, case .delete(let at, let old) = edits[index],
                case .insert(let insertAt, let new) = edits[index + 1], at == insertAt
            {
                result += [.insert(at + old.count, new), .delete(at, old)]
                index += 2
            } else {
                result.append(edits[index])
                index += 1
            }
        }
        return result
    }

    // MARK: Rebasing

    /// Rebases every step of `stack` over `remote`, from the newest step down: each step is
    /// rewritten past the changes, and the changes are carried past it to the next. Steps left
    /// with nothing are dropped.
    static func rebase(_ stack: [Step], over remote: [Edit]) -> [Step] {
        var carried = remote
        var result: [Step] = []
        for step in stack.reversed() {
            let (rebased, past) = transform(step.edits, carried)
            carried = past
            if !rebased.isEmpty { result.append(Step(edits: rebased, name: step.name)) }
        }
        return result.reversed()
    }

    /// `ours` and `theirs`, both applying to one text: ours after theirs, theirs after ours.
    static func transform(_ ours: [Edit], _ theirs: [Edit]) -> (ours: [Edit], theirs: [Edit]) {
        if ours.isEmpty || theirs.isEmpty { return (ours, theirs) }
        if ours.count == 1 && theirs.count == 1 { return primitive(ours[0], theirs[0]) }
        if ours.count > 1 {
            let (first, afterFirst) = transform([ours[0]], theirs)
            let (rest, afterRest) = transform(Array(ours.dropFirst()), afterFirst)
            return (first + rest, afterRest)
        }
        let (once, first) = transform(ours, [theirs[0]])
        let (twice, rest) = transform(once, Array(theirs.dropFirst()))
        return (twice, first + rest)
    }

    /// One edit of ours against one of theirs. At an insertion tie ours goes first.
    static func primitive(_ ours: Edit, _ theirs: Edit) -> (ours: [Edit], theirs: [Edit]) {
        switch (ours, theirs) {
        case (.insert(let p, let a), .insert(let q, let b)):
            if p <= q { return ([ours], [.insert(q + a.count, b)]) }
            return ([.insert(p + b.count, a)], [theirs])
        case (.insert, .delete):
            let (insert, delete) = insertAgainstDelete(ours, theirs)
            return (insert, delete)
        case (.delete, .insert):
            let (insert, delete) = insertAgainstDelete(theirs, ours)
            return (delete, insert)
        case (.delete, .delete):
            return (minus(ours, theirs), minus(theirs, ours))
        }
    }

    /// An insertion and a deletion of one text: the insertion after the deletion, the deletion
    /// after the insertion (split around it when it falls inside).
    static func insertAgainstDelete(_ insert: Edit, _ delete: Edit) -> (insert: [Edit], delete: [Edit]) {
        let (p, inserted) = (insert.offset, insert.text)
        let (q, deleted) = (delete.offset, delete.text)
        if p <= q { return ([insert], [.delete(q + inserted.count, deleted)]) }
        if p >= q + deleted.count { return ([.insert(p - deleted.count, inserted)], [delete]) }
        let cut = deleted.index(deleted.startIndex, offsetBy: p - q)
        let parts = [Edit.delete(q, String(deleted[..<cut])), .delete(q + inserted.count, String(deleted[cut...]))]
        return ([.insert(q, inserted)], parts)
    }

    /// What is left of deletion `a` once deletion `b` (of the same text) has run.
    static func minus(_ a: Edit, _ b: Edit) -> [Edit] {
        let (p, x) = (a.offset, Array(a.text))
        let (q, y) = (b.offset, Array(b.text))
        let low = max(p, q)
        let high = min(p + x.count, q + y.count)
        if high <= low {
            return p >= q + y.count ? [.delete(p - y.count, String(x))] : [a]
        }
        let rest = x[..<max(0, low - p)] + x[(high - p)...]
        return rest.isEmpty ? [] : [.delete(min(p, q), String(rest))]
    }
}
