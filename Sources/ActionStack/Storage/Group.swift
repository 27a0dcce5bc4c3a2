/// An item in a group: an action or a nested group, in registration order.
enum Item {
    case action(Action)
    case group(Group)
}

/// What a top-level group carries: its action name, discardable flag and user info.
///
/// Nested groups carry none (Foundation keeps metadata on the top-level group only), and most
/// groups carry only a name or nothing, so the storage is allocated on first use.
struct GroupMetadata {
    var name = ""
    var isDiscardable = false
    var userInfo: [ActionStack.UserInfoKey: Any] = [:]

    var isEmpty: Bool { name.isEmpty && !isDiscardable && userInfo.isEmpty }
}

/// An undo group: actions and nested groups in registration order.
final class Group {
    @exclusivity(unchecked) var items: [Item] = []
    @exclusivity(unchecked) var isOpen = true
    /// Actions in this group at any depth.
    @exclusivity(unchecked) var actionCount = 0
    /// Top-level groups only; nil while empty.
    @exclusivity(unchecked) var metadata: GroupMetadata?
    /// Top-level groups only: the document state right after this step, for the clean point. A
    /// step keeps its state when it moves between the undo and redo stacks.
    @exclusivity(unchecked) var stateID: UInt64 = 0

    init() {}

    init(metadata: GroupMetadata?) {
        self.metadata = metadata
    }

    var name: String { metadata?.name ?? "" }
    var isDiscardable: Bool { metadata?.isDiscardable ?? false }

    /// Visits every action at any depth, newest first (the order undo runs them in).
    func forEachActionNewestFirst(_ body: (Action) -> Void) {
        for item in items.reversed() {
            switch item {
            case .action(let action): body(action)
            case .group(let group): group.forEachActionNewestFirst(body)
            }
        }
    }

    /// Counts the actions at any depth by walking the tree (the invariant check compares it
    /// with `actionCount`).
    func countActions() -> Int {
        var n = 0
        for item in items {
            switch item {
            case .action: n += 1
            case .group(let group): n += group.countActions()
            }
        }
        return n
    }
}
