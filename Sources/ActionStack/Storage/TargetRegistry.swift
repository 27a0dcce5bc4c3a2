/// The distinct targets that stored actions refer to, with a count of actions for each.
///
/// Swift has no notification when a weakly held object dies, so the stack asks: before a query or
/// an undo could observe a dead target's actions, it checks each distinct target once (O(targets),
/// not O(actions)), and only when one has died does it walk the history to drop its actions.
struct TargetRegistry {
    private(set) var boxes: [ObjectIdentifier: TargetBox] = [:]
    /// The same boxes in an array, for the death check: iterating an array is several times
    /// cheaper than iterating a dictionary's values.
    private var list: ContiguousArray<TargetBox> = []
    /// The box of the most recent registration: a burst of edits on one target skips the lookup.
    private var lastBox: TargetBox?
    /// Set when a box was evicted from `boxes` while actions still used it (its object died and the
    /// address was reused by a new target): the next check must walk the history.
    private var evictedDeadBox = false

    /// The box for `target`, created on first use; counts one more action for it.
    ///
    /// - Complexity: O(1) amortized.
    mutating func retainBox(for target: AnyObject) -> TargetBox {
        if let last = lastBox, last.object === target {
            last.actionCount += 1
            return last
        }
        let id = ObjectIdentifier(target)
        let box: TargetBox
        if let existing = boxes[id], existing.object === target {
            box = existing
        } else {
            if let stale = boxes[id] {
                if stale.actionCount > 0 { evictedDeadBox = true }
                unlist(stale)
            }
            box = TargetBox(target)
            boxes[id] = box
            box.listIndex = list.count
            list.append(box)
        }
        box.actionCount += 1
        lastBox = box
        return box
    }

    /// Counts one action fewer for `box`; forgets the box when no action uses it.
    ///
    /// - Complexity: O(1).
    mutating func release(_ box: TargetBox) {
        box.actionCount -= 1
        if box.actionCount == 0 {
            if boxes[box.id] === box { boxes[box.id] = nil }
            unlist(box)
            if lastBox === box { lastBox = nil }
        }
    }

    /// The box currently registered for `target`, if any action uses it.
    func box(for target: AnyObject) -> TargetBox? {
        guard let box = boxes[ObjectIdentifier(target)], box.object === target else { return nil }
        return box
    }

    /// True when some stored action's target has died.
    ///
    /// - Complexity: O(distinct targets).
    func hasDeadTargets() -> Bool {
        if evictedDeadBox { return true }
        for box in list where !box.isAlive { return true }
        return false
    }

    /// Called after every dead action has been dropped from the history.
    mutating func forgetDeadTargets() {
        evictedDeadBox = false
        for box in list where !box.isAlive {
            if boxes[box.id] === box { boxes[box.id] = nil }
            unlist(box)
        }
        if let last = lastBox, !last.isAlive { lastBox = nil }
    }

    mutating func removeAll() {
        boxes = [:]
        for box in list { box.listIndex = -1 }
        list = []
        lastBox = nil
        evictedDeadBox = false
    }

    var count: Int { boxes.count }

    /// Takes `box` out of the list (swap with the last, O(1)).
    private mutating func unlist(_ box: TargetBox) {
        let index = box.listIndex
        guard index >= 0, index < list.count, list[index] === box else { return }
        let moved = list.removeLast()
        if index < list.count {
            list[index] = moved
            moved.listIndex = index
        }
        box.listIndex = -1
    }
}
