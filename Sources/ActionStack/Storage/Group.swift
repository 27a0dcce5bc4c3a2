/// An item in a group: an action or a nested group, in registration order.
enum Item {
    case action(Action)
    case group(Group)
}

/// What a top-level group carries: its action name, discardable flag and user info.
///
/// Nested groups carry none (Foundation keeps metadata on the top-level group only), and many
/// groups carry nothing, so a group holds a reference (8 bytes) that is nil until a setter runs.
/// Setters copy before they change it, so a group never sees another group's change.
final class GroupMetadata {
    var name = ""
    var isDiscardable = false
    var userInfo: [ActionStack.UserInfoKey: Any] = [:]

    init() {}

    var isEmpty: Bool { name.isEmpty && !isDiscardable && userInfo.isEmpty }

    func copy() -> GroupMetadata {
        let copy = GroupMetadata()
        copy.name = name
        copy.isDiscardable = isDiscardable
        copy.userInfo = userInfo
        return copy
    }
}

/// The items of a group, with the first one stored inline: most undo steps hold one action, and
/// then no array is allocated.
struct ItemList: RandomAccessCollection {
    private var head: Item?
    private var tail: [Item] = []

    init() {}

    init(_ items: some Sequence<Item>) {
        for item in items { append(item) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { head == nil ? 0 : 1 + tail.count }

    subscript(position: Int) -> Item {
        position == 0 ? head! : tail[position - 1]
    }

    var last: Item? { tail.last ?? head }

    /// The action, when the list holds exactly one item and it is an action (most undo steps).
    var onlyAction: Action? {
        guard tail.isEmpty, case .action(let action)? = head else { return nil }
        return action
    }

    mutating func append(_ item: Item) {
        if head == nil { head = item } else { tail.append(item) }
    }

    mutating func removeLast() {
        if tail.isEmpty { head = nil } else { tail.removeLast() }
    }
}

/// An undo group: actions and nested groups in registration order.
///
/// The stored properties are declared in this order so that a group is 53 bytes and fits a
/// 64-byte allocation (measured by the memory scenario of the benchmarks).
final class Group {
    @exclusivity(unchecked) var items = ItemList()
    /// Top-level groups only; nil while empty.
    @exclusivity(unchecked) var metadata: GroupMetadata?
    /// Top-level groups only: the document state right after this step, for the clean point. A
    /// step keeps its state when it moves between the undo and redo stacks.
    @exclusivity(unchecked) var stateID: UInt64 = 0
    @exclusivity(unchecked) private var storedActionCount: Int32 = 0
    @exclusivity(unchecked) var isOpen = true

    /// Actions in this group at any depth (at most `Int32.max`).
    var actionCount: Int {
        get { Int(storedActionCount) }
        set { storedActionCount = Int32(truncatingIfNeeded: newValue) }
    }

    init() {}

    init(metadata: GroupMetadata?) {
        self.metadata = metadata
    }

    var name: String { metadata?.name ?? "" }
    var isDiscardable: Bool { metadata?.isDiscardable ?? false }

    /// Visits every action at any depth, newest first (the order undo runs them in).
    func forEachActionNewestFirst(_ body: (Action) -> Void) {
        if let action = items.onlyAction { return body(action) }
        for item in items.reversed() {
            switch item {
            case .action(let action): body(action)
            case .group(let group): group.forEachActionNewestFirst(body)
            }
        }
    }

    /// Whether some action at any depth still has a live target. Stops at the first one.
    var hasLiveAction: Bool {
        // Most steps hold one action: decide those without the loop.
        if let action = items.onlyAction { return action.box.isAlive }
        for item in items {
            switch item {
            case .action(let action): if action.box.isAlive { return true }
            case .group(let group): if group.hasLiveAction { return true }
            }
        }
        return false
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
