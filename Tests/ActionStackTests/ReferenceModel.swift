import ActionStack

/// A deliberately naive model of the contract (../shared/spec/foundation-parity.md): plain arrays
/// of groups, no optimisation, every rule written out where it applies. The random driver runs it
/// beside `ActionStack` and compares them after every step.
///
/// Only calls made between operations are modelled (re-entrant calls have their own tests). The
/// model's actions are "add `delta` to target `target`"; performing one registers its inverse.
struct ReferenceModel {
    final class Action {
        let target: Int
        let delta: Int
        init(target: Int, delta: Int) {
            self.target = target
            self.delta = delta
        }
    }

    final class Group {
        var items: [Item] = []
        var isOpen = true
        var name = ""
        var discardable = false
        var info: [String: Int] = [:]
        /// Top-level groups: the document state right after this step (see `markClean()`).
        var stateID: Int

        init(stateID: Int = -1) { self.stateID = stateID }

        var actionCount: Int {
            items.reduce(0) { count, item in
                switch item {
                case .action: count + 1
                case .group(let group): count + group.actionCount
                }
            }
        }

        /// The actions at any depth, newest first.
        var actionsNewestFirst: [Action] {
            items.reversed().flatMap { item -> [Action] in
                switch item {
                case .action(let action): [action]
                case .group(let group): group.actionsNewestFirst
                }
            }
        }
    }

    enum Item {
        case action(Action)
        case group(Group)
    }

    var undo: [Group] = []
    var redo: [Group] = []
    var disableCount = 0
    var groupsByEvent: Bool
    var pending = false
    var levels = 0
    var alive: [Bool]
    var values: [Int]
    /// Notifications other than checkpoints, in order.
    var notifications: [String] = []
    var misuse: ActionStack.Misuse?
    /// Document states: each change outside undo and redo is a new one; a step keeps its state
    /// when it moves between the stacks.
    var nextStateID = 1
    var baseStateID = 0
    var cleanStateID = 0

    init(targets: Int, groupsByEvent: Bool) {
        alive = Array(repeating: true, count: targets)
        values = Array(repeating: 0, count: targets)
        self.groupsByEvent = groupsByEvent
    }

    // MARK: Structure helpers

    mutating func makeStateID() -> Int {
        defer { nextStateID += 1 }
        return nextStateID
    }

    /// A new top-level group, with a state of its own.
    mutating func newTopLevelGroup() -> Group { Group(stateID: makeStateID()) }

    /// The state of the newest undo step holding an action, or the base state.
    var currentStateID: Int { undo.last { $0.actionCount > 0 }?.stateID ?? baseStateID }

    /// A removal never changes whether the stack is clean now.
    mutating func keepingClean(_ removal: (inout ReferenceModel) -> Void) {
        let wasClean = currentStateID == cleanStateID
        removal(&self)
        if wasClean { cleanStateID = currentStateID }
    }

    /// Drops the oldest undo step: undoing everything now leads to the state right after it.
    mutating func dropOldest() {
        baseStateID = undo.removeFirst().stateID
    }

    static func openPath(_ side: [Group]) -> [Group] {
        guard let top = side.last, top.isOpen else { return [] }
        var path = [top]
        while case .group(let next)? = path.last!.items.last, next.isOpen { path.append(next) }
        return path
    }

    var undoPath: [Group] { Self.openPath(undo) }
    static func closedCount(_ side: [Group]) -> Int { side.filter { !$0.isOpen }.count }

    /// Removes matching actions; closed groups this empties go too (cascading); returns the count.
    @discardableResult
    static func remove(from group: Group, where match: (Action) -> Bool) -> Int {
        var removed = 0
        group.items = group.items.filter { item in
            switch item {
            case .action(let action):
                if match(action) {
                    removed += 1
                    return false
                }
                return true
            case .group(let nested):
                let inside = remove(from: nested, where: match)
                removed += inside
                return nested.isOpen || inside == 0 || nested.actionCount > 0
            }
        }
        return removed
    }

    static func remove(from side: inout [Group], where match: (Action) -> Bool) {
        side = side.filter { group in
            let removed = remove(from: group, where: match)
            return group.isOpen || removed == 0 || group.actionCount > 0
        }
    }

    mutating func pruneDead() {
        let alive = self.alive
        keepingClean { model in
            Self.remove(from: &model.undo) { !alive[$0.target] }
            Self.remove(from: &model.redo) { !alive[$0.target] }
        }
    }

    mutating func trim() {
        guard levels > 0 else { return }
        pruneDead()
        while Self.closedCount(undo) > levels { dropOldest() }
    }

    // MARK: Operations

    mutating func register(target: Int, delta: Int) {
        values[target] += delta
        guard disableCount == 0 else { return }
        if undoPath.isEmpty && !groupsByEvent {
            misuse = .noOpenGroup(.registerUndo)
            return
        }
        redo = []
        var opened = false
        if undoPath.isEmpty {
            undo.append(newTopLevelGroup())
            pending = true
            opened = true
        }
        undoPath.last!.items.append(.action(Action(target: target, delta: -delta)))
        undoPath[0].stateID = makeStateID()
        if opened { notifications.append("DidOpen") }
    }

    mutating func begin() {
        guard disableCount == 0 else { return }
        if undoPath.isEmpty && groupsByEvent {
            undo.append(newTopLevelGroup())
            pending = true
            notifications.append("DidOpen")
        }
        if let innermost = undoPath.last {
            innermost.items.append(.group(Group()))
        } else {
            undo.append(newTopLevelGroup())
        }
        notifications.append("DidOpen")
    }

    mutating func end() {
        guard disableCount == 0 else { return }
        guard !undoPath.isEmpty else {
            misuse = .endWithoutBegin
            return
        }
        closeInnermost()
    }

    mutating func closeInnermost() {
        notifications.append("WillClose")
        let path = undoPath
        let group = path.last!
        group.isOpen = false
        var discardable = false
        if path.count == 1 {
            discardable = group.discardable
            pending = false
            if group.actionCount == 0 { undo.removeLast() }
            trim()
        }
        notifications.append(discardable ? "DidClose!" : "DidClose")
    }

    mutating func undoStep() {
        if undoPath.count == 1 { closeInnermost() }
        guard undoPath.isEmpty else {
            misuse = .undoWithNestedGroupsOpen(groupingLevel: undoPath.count)
            return
        }
        undoNested()
    }

    mutating func undoNested() {
        pruneDead()
        if let innermost = undoPath.last {
            guard case .group(let nested)? = innermost.items.last, !nested.isOpen else {
                misuse = .undoNestedGroupWithOpenGroup
                return
            }
            innermost.items.removeLast()
            perform(nested, undoing: true, topLevel: false)
        } else if let newest = undo.last {
            undo.removeLast()
            perform(newest, undoing: true, topLevel: true)
        }
    }

    mutating func redoStep() {
        pruneDead()
        guard let newest = redo.last else { return }
        redo.removeLast()
        perform(newest, undoing: false, topLevel: true)
    }

    mutating func perform(_ group: Group, undoing: Bool, topLevel: Bool) {
        notifications.append(undoing ? "WillUndo" : "WillRedo")
        let destinationPath = undoing ? Self.openPath(redo) : undoPath
        let nestedInDestination = !destinationPath.isEmpty
        let opposite =
            nestedInDestination ? Group() : topLevel ? Group(stateID: group.stateID) : newTopLevelGroup()
        if topLevel && !nestedInDestination {
            opposite.name = group.name
            opposite.discardable = group.discardable
            opposite.info = group.info
        }
        if let innermost = destinationPath.last {
            innermost.items.append(.group(opposite))
        } else if undoing {
            redo.append(opposite)
        } else {
            undo.append(opposite)
        }
        for action in group.actionsNewestFirst where alive[action.target] {
            values[action.target] += action.delta
            if disableCount == 0 {
                opposite.items.append(.action(Action(target: action.target, delta: -action.delta)))
            }
        }
        opposite.isOpen = false
        if !nestedInDestination {
            if opposite.actionCount == 0 {
                if undoing { redo.removeLast() } else { undo.removeLast() }
            }
            // Trimming during a redo happens inside the operation, where freed targets are not
            // pruned; mirror that: trim without pruning.
            if !undoing && levels > 0 {
                while Self.closedCount(undo) > levels { dropOldest() }
            }
        }
        notifications.append((undoing ? "DidUndo" : "DidRedo") + (topLevel && group.discardable ? "!" : ""))
    }

    mutating func setMetadata(_ operation: ActionStack.Misuse.Operation, _ change: (Group) -> Void) {
        guard disableCount == 0 else { return }
        var opened = false
        if undoPath.isEmpty {
            guard groupsByEvent else {
                misuse = .noOpenGroup(operation)
                return
            }
            undo.append(newTopLevelGroup())
            pending = true
            opened = true
        }
        change(undoPath[0])
        if opened { notifications.append("DidOpen") }
    }

    mutating func setLevels(_ value: Int) {
        levels = value
        trim()
    }

    mutating func removeAll() {
        undo = []
        redo = []
        disableCount = 0
        pending = false
        baseStateID = makeStateID()
        cleanStateID = baseStateID
    }

    mutating func removeAll(target: Int) {
        keepingClean { model in
            Self.remove(from: &model.undo) { $0.target == target }
            Self.remove(from: &model.redo) { $0.target == target }
        }
    }

    /// The document was saved: this state is the clean one.
    mutating func markClean() {
        cleanStateID = currentStateID
    }

    mutating func enable() {
        guard disableCount > 0 else {
            misuse = .enableWithoutDisable
            return
        }
        disableCount -= 1
    }

    mutating func endEvent() {
        guard pending else { return }
        pending = false
        if groupsByEvent && !undoPath.isEmpty { end() }
    }

    // MARK: Queries (each prunes freed targets first, as the stack does)

    mutating func snapshot() -> Snapshot {
        pruneDead()
        let openTop = undoPath.first
        return Snapshot(
            canUndo: Self.closedCount(undo) > 0 || (openTop?.actionCount ?? 0) > 0,
            canRedo: Self.closedCount(redo) > 0,
            undoCount: Self.closedCount(undo),
            redoCount: Self.closedCount(redo),
            groupingLevel: undoPath.count,
            undoName: undo.last?.name ?? "",
            redoName: redo.last?.name ?? "",
            undoDiscardable: undo.last?.discardable ?? false,
            redoDiscardable: redo.last?.discardable ?? false,
            undoInfo: undo.last?.info["k"],
            registrationEnabled: disableCount == 0,
            isClean: currentStateID == cleanStateID
        )
    }
}

/// What the driver compares after every step.
struct Snapshot: Equatable, CustomStringConvertible {
    var canUndo: Bool
    var canRedo: Bool
    var undoCount: Int
    var redoCount: Int
    var groupingLevel: Int
    var undoName: String
    var redoName: String
    var undoDiscardable: Bool
    var redoDiscardable: Bool
    var undoInfo: Int?
    var registrationEnabled: Bool
    var isClean: Bool

    init(
        canUndo: Bool, canRedo: Bool, undoCount: Int, redoCount: Int, groupingLevel: Int, undoName: String,
        redoName: String, undoDiscardable: Bool, redoDiscardable: Bool, undoInfo: Int?, registrationEnabled: Bool,
        isClean: Bool
    ) {
        self.canUndo = canUndo
        self.canRedo = canRedo
        self.undoCount = undoCount
        self.redoCount = redoCount
        self.groupingLevel = groupingLevel
        self.undoName = undoName
        self.redoName = redoName
        self.undoDiscardable = undoDiscardable
        self.redoDiscardable = redoDiscardable
        self.undoInfo = undoInfo
        self.registrationEnabled = registrationEnabled
        self.isClean = isClean
    }

    init(_ stack: ActionStack) {
        self.init(
            canUndo: stack.canUndo, canRedo: stack.canRedo, undoCount: stack.undoCount, redoCount: stack.redoCount,
            groupingLevel: stack.groupingLevel, undoName: stack.undoActionName, redoName: stack.redoActionName,
            undoDiscardable: stack.undoActionIsDiscardable, redoDiscardable: stack.redoActionIsDiscardable,
            undoInfo: stack.undoActionUserInfoValue(forKey: "k") as? Int,
            registrationEnabled: stack.isUndoRegistrationEnabled,
            isClean: stack.isClean
        )
    }

    var description: String {
        "undo \(undoCount)\(canUndo ? "+" : "") '\(undoName)'\(undoDiscardable ? "!" : "") info \(undoInfo.map(String.init) ?? "-"), "
            + "redo \(redoCount)\(canRedo ? "+" : "") '\(redoName)'\(redoDiscardable ? "!" : ""), "
            + "level \(groupingLevel), enabled \(registrationEnabled), clean \(isClean)"
    }
}
