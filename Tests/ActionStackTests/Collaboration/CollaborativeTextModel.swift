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
/// change past each step. A step left with nothing is dead: it is skipped by Undo and Redo and by
/// the Edit menu at once, but, as the stack holds it, it keeps its place (in the counts and the
/// limits) until it is found: when it is the top of its stack and something looks
/// (``findDeadSteps()``), or when a save rebases everything (``dropDeadSteps()``). An undo
/// applies the top live step and pushes what it actually did, inverted, on the other stack.
///
/// Limits: ``levelsOfUndo`` and ``maximumCost`` trim the oldest steps of the undo stack (dead
/// ones counted) each time it grows and when they are set (``trim()``); a step's cost is the
/// cost its registration stated, kept through undo and redo.
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
        /// What the step's registration costs (``ActionStack/maximumCost``).
        var cost = 0
        /// Whether a peer's changes left the step with nothing to do.
        var isDead: Bool { edits.isEmpty }
    }

    var text: [Character] = []
    var undoStack: [Step] = []
    var redoStack: [Step] = []
    /// ``ActionStack/levelsOfUndo`` (0: no limit).
    var levelsOfUndo = 0
    /// ``ActionStack/maximumCost`` (0: no limit).
    var maximumCost = 0

    var canUndo: Bool { undoStack.contains { !$0.isDead } }
    var canRedo: Bool { redoStack.contains { !$0.isDead } }

    /// Something looked at the next steps (the Edit menu, an observer): the dead steps at the top of
    /// each stack are found and go.
    mutating func findDeadSteps() {
        while undoStack.last?.isDead == true { undoStack.removeLast() }
        while redoStack.last?.isDead == true { redoStack.removeLast() }
    }

    /// A save rebased every step: every dead step is found.
    mutating func dropDeadSteps() {
        undoStack.removeAll { $0.isDead }
        redoStack.removeAll { $0.isDead }
    }

    /// Drops the oldest undo steps beyond ``levelsOfUndo``, then while the undo stack costs more
    /// than ``maximumCost`` (keeping the newest step), counting dead steps not yet found.
    mutating func trim() {
        if levelsOfUndo > 0 && undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
        guard maximumCost > 0 else { return }
        var total = undoStack.reduce(0) { $0 + $1.cost }
        while total > maximumCost && undoStack.count > 1 { total -= undoStack.removeFirst().cost }
    }

    // MARK: Events

    /// This user's change: `edits` applied in order, one step named `name`. A replacement (a
    /// deletion, then an insertion at the same place) is stored as the library's `replace` stores
    /// it: the new text inserted after the old, then the old deleted.
    mutating func local(_ edits: [Edit], name: String) { local(edits, name: name, cost: 0) }

    /// This user's change, registered with `cost`.
    mutating func local(_ edits: [Edit], name: String, cost: Int) {
        let normalized = Self.normalized(edits)
        var inverses: [Edit] = []
        for edit in normalized {
            apply(edit)
            inverses.append(edit.inverse)
        }
        undoStack.append(Step(edits: inverses.reversed(), name: name, cost: cost))
        redoStack = []
        trim()
    }

    /// A peer's change: every step moves past it, then it applies.
    mutating func remote(_ edits: [Edit]) {
        undoStack = Self.rebase(undoStack, over: edits)
        redoStack = Self.rebase(redoStack, over: edits)
        for edit in edits { apply(edit) }
    }

    /// Undoes the newest live step; false when there is none.
    @discardableResult
    mutating func undo() -> Bool {
        findDeadSteps()
        guard let step = undoStack.popLast() else { return false }
        redoStack.append(perform(step))
        return true
    }

    /// Redoes the newest live redo step; false when there is none.
    @discardableResult
    mutating func redo() -> Bool {
        findDeadSteps()
        guard let step = redoStack.popLast() else { return false }
        undoStack.append(perform(step))
        trim()
        return true
    }

    /// Applies `step`; returns the step that undoes what it did.
    private mutating func perform(_ step: Step) -> Step {
        var inverses: [Edit] = []
        for edit in step.edits {
            apply(edit)
            inverses.append(edit.inverse)
        }
        return Step(edits: inverses.reversed(), name: step.name, cost: step.cost)
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
    /// with nothing stay, dead, until they are found.
    static func rebase(_ stack: [Step], over remote: [Edit]) -> [Step] {
        var carried = remote
        var result = stack
        for index in result.indices.reversed() {
            let (rebased, past) = transform(result[index].edits, carried)
            carried = past
            result[index].edits = rebased
        }
        return result
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
