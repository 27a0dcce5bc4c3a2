// Test hooks. Underscored `package` members: visible to this package's tests, not public API.

extension ActionStack {
    /// When true, every public call that changes the stack ends with ``_checkInvariants()``.
    package var _checksInvariantsAfterEveryMutation: Bool {
        get { checksInvariants }
        set { checksInvariants = newValue }
    }

    /// Called at the end of every mutating public call. Checks only between operations: inside
    /// an undo or redo, the group being performed is in flight.
    ///
    /// Then tells observers of the clean state and of ``State`` what changed, if anything.
    @inline(__always)
    func didMutate() {
        guard !isPerforming && windowDepth == 0 else { return }
        if checksInvariants { _checkInvariants() }
        if batchDepth == 0 { publishChanges() }
    }

    /// Stops the process with a description if an internal invariant does not hold.
    package func _checkInvariants() {
        let violations = _invariantViolations()
        precondition(violations.isEmpty, "ActionStack invariants broken: \(violations)")
    }

    /// The internal invariants that do not hold (empty when the stack is consistent).
    package func _invariantViolations() -> [String] {
        var problems: [String] = []
        var boxCounts: [ObjectIdentifier: (box: TargetBox, count: Int)] = [:]

        func checkGroup(_ group: Group, topLevel: Bool, openPath: ArraySlice<Group>, where side: String) {
            if group.actionCount != group.countActions() {
                problems.append("\(side): actionCount \(group.actionCount) != \(group.countActions())")
            }
            if !topLevel && group.metadata != nil { problems.append("\(side): nested group has metadata") }
            let expectOpen = openPath.first === group
            if group.isOpen != expectOpen { problems.append("\(side): group open flag \(group.isOpen) wrong") }
            for (index, item) in group.items.enumerated() {
                switch item {
                case .action(let action):
                    let id = ObjectIdentifier(action.box)
                    boxCounts[id, default: (action.box, 0)].count += 1
                case .group(let nested):
                    let isLast = index == group.items.count - 1
                    let rest = expectOpen && isLast ? openPath.dropFirst() : []
                    checkGroup(nested, topLevel: false, openPath: rest, where: side)
                }
            }
            if expectOpen, openPath.count > 1 {
                guard case .group(let last)? = group.items.last, last === openPath[openPath.startIndex + 1] else {
                    problems.append("\(side): open path is not the chain of last items")
                    return
                }
            }
        }

        for (side, history) in [("undo", undoHistory), ("redo", redoHistory)] {
            var cost = 0
            for group in history.groups { group.forEachActionNewestFirst { cost += $0.cost } }
            if cost != history.totalCost { problems.append("\(side): total cost \(history.totalCost) != \(cost)") }
            if let top = history.openPath.first, top !== history.groups.last {
                problems.append("\(side): open top-level group is not the newest")
            }
            for index in 0..<history.groups.count {
                let group = history.groups[index]
                let isNewest = index == history.groups.count - 1
                let path = isNewest ? history.openPath[...] : []
                checkGroup(group, topLevel: true, openPath: path, where: side)
                if !group.isOpen && group.actionCount == 0 {
                    problems.append("\(side): closed top-level group with no action")
                }
            }
        }
        if !isUndoing && !redoHistory.openPath.isEmpty { problems.append("redo stack has an open group") }
        if isUndoing && isRedoing { problems.append("undoing and redoing at once") }
        // Cost is trimmed when a step closes: with nothing open, only the newest step may exceed it.
        if maximumCost > 0 && undoHistory.openPath.isEmpty && undoHistory.totalCost > maximumCost
            && undoHistory.closedCount > 1
        {
            problems.append("undo stack costs \(undoHistory.totalCost), limit \(maximumCost)")
        }
        if levelsOfUndo > 0 && undoHistory.closedCount > levelsOfUndo {
            problems.append("undo stack holds \(undoHistory.closedCount) groups, limit \(levelsOfUndo)")
        }
        if pendingCloseToken != nil && undoHistory.depth == 0 {
            problems.append("automatic close pending with no group open")
        }
        if disableCount < 0 { problems.append("negative disable count") }
        for (_, entry) in boxCounts where entry.box.actionCount != entry.count {
            problems.append("target box counts \(entry.box.actionCount) actions, history holds \(entry.count)")
        }
        for box in registry.boxes.values where box.isAlive && boxCounts[ObjectIdentifier(box)] == nil {
            problems.append("registry keeps a box with no action")
        }
        return problems
    }

    /// A one-line picture of the stacks and flags, for tests that check that nothing changed.
    ///
    /// Groups print as `[...]` (open ones as `<...>`), actions as `a`, names after a colon.
    package var _structure: String {
        func describe(_ group: Group) -> String {
            let inner = group.items.map { item -> String in
                switch item {
                case .action: "a"
                case .group(let nested): describe(nested)
                }
            }.joined(separator: " ")
            var meta = ""
            if let metadata = group.metadata {
                meta = ":\(metadata.name)\(metadata.isDiscardable ? "!" : "")"
                if !metadata.userInfo.isEmpty {
                    meta += "{" + metadata.userInfo.keys.map(\.rawValue).sorted().joined(separator: ",") + "}"
                }
            }
            return group.isOpen ? "<\(inner)\(meta)>" : "[\(inner)\(meta)]"
        }
        let undo = undoHistory.groups.map(describe).joined(separator: " ")
        let redo = redoHistory.groups.map(describe).joined(separator: " ")
        return "undo(\(undo)) redo(\(redo)) disabled=\(disableCount) pending=\(pendingCloseToken != nil)"
            + " undoing=\(isUndoing) redoing=\(isRedoing) levels=\(levelsOfUndo)"
    }

    /// The number of distinct targets the stack tracks.
    package var _trackedTargetCount: Int { registry.count }
}
