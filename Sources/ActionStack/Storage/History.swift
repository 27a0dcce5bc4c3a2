/// One side of the history (the undo stack or the redo stack).
///
/// Top-level groups are kept oldest first in a ring buffer. At most one top-level group is open,
/// and it is the newest; `openPath` is the chain of open groups from that top-level group down to
/// the innermost open one, so the grouping level is `openPath.count` and registration appends to
/// `openPath.last` in O(1).
final class History {
    @exclusivity(unchecked) var groups = RingBuffer<Group>()
    @exclusivity(unchecked) var openPath: [Group] = []
    /// The sum of the costs of the actions stored on this side.
    @exclusivity(unchecked) var totalCost = 0

    var depth: Int { openPath.count }
    var innermostOpen: Group? { openPath.last }
    var openTopLevel: Group? { openPath.first }

    /// Closed top-level groups: the undo or redo count.
    var closedCount: Int { groups.count - (openPath.isEmpty ? 0 : 1) }

    /// The newest top-level group, open or closed.
    var newest: Group? { groups.last }

    /// True when there is a closed top-level group, or an open one that holds an action.
    var hasSomethingToPerform: Bool {
        closedCount > 0 || (openTopLevel?.actionCount ?? 0) > 0
    }
}
