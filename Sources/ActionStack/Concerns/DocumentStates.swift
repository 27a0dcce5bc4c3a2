/// The clean-state concern: ids for document states, the current one, and the one marked clean.
///
/// Every change made outside undo and redo is a new state with a fresh id. A step records the state
/// with it not applied (`low`) and applied (`high`); undoing a step from its `high` state, with
/// every action run, returns to its `low` state exactly, and redoing goes back. Anything that breaks
/// that correspondence (an action of a freed target that could not run, a removal that took part of
/// a step, a step removed above it) leads to a fresh state instead, which is never the clean one:
/// the stack reports clean only when it can prove the document is in the marked state.
struct DocumentStates {
    /// The state the document is in.
    private(set) var current: UInt64 = 0
    /// The state marked by `markClean()`; a new stack is clean.
    private(set) var clean: UInt64 = 0
    /// The next fresh id.
    private var next: UInt64 = 1

    /// A fresh id, equal to no other.
    @inline(__always)
    mutating func fresh() -> UInt64 {
        defer { next &+= 1 }
        return next
    }

    /// The document changed (outside undo and redo): returns its new state, now current.
    @inline(__always)
    mutating func change() -> UInt64 {
        current = fresh()
        return current
    }

    /// The document moved to `state` (undo, redo, rollback).
    @inline(__always)
    mutating func move(to state: UInt64) { current = state }

    /// Whether the document is in the clean state.
    var isClean: Bool { current == clean }

    /// Marks the current state clean.
    mutating func markClean() { clean = current }

    /// What does not hold of the state ids: every id in use was handed out already.
    func invariantViolations() -> [String] {
        var problems: [String] = []
        if current >= next { problems.append("current state \(current) was never handed out") }
        if clean >= next { problems.append("clean state \(clean) was never handed out") }
        return problems
    }

    /// The state that performing a step moving from `from` to `to` leads to, given that the
    /// document is now in `current` and that `everyActionRan`.
    @inline(__always)
    mutating func destination(from: UInt64, to: UInt64, everyActionRan: Bool) -> UInt64 {
        current == from && everyActionRan ? to : fresh()
    }
}
