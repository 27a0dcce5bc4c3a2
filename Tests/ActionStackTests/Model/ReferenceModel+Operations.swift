// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The reference model's operations: registration, groups, metadata, undo/redo/jump, removal,
// limits, coalescing and scoped groups. Each public method is one call (section 14) and follows
// the numbered steps of its section of the rules (see ReferenceModel.swift for where each section
// is documented).

extension ReferenceModel {

    // MARK: - Registration (section 2)

    /// `registerUndo(withTarget:options:handler:)` (and the plain form, with no options). The value
    /// change the driver's `apply` makes before registering is the caller's business.
    func registerUndo(
        target: Int, kind: ActionKind, cost: Int = 0, key: String? = nil, window: Int? = nil, command: Bool = false
    ) {
        call {
            // 1. Registration disabled: nothing at all.
            guard disableCount == 0 else { return }
            // 2. Activity check.
            if let misuse = refusal(.registerUndo) { return report(misuse) }
            let action = Action(
                id: newObjectID(), target: target, kind: kind, cost: cost, key: key, window: window, command: command)
            // 3. Coalescing join (section 7).
            if joinIfPossible(action) { return }
            // 4. Nothing open on the current side and groupsByEvent off.
            if currentFrames.isEmpty && !groupsByEvent { return report(.noOpenGroup(.registerUndo)) }
            // 5-9.
            let opened = appendRegistration(action)
            // 6. DidOpen is posted after step 7, at the end of the call.
            if opened { post(.didOpen) }
        }
    }

    /// Steps 5-9 of section 2; returns whether the automatic group was opened (the caller posts
    /// DidOpen at the end of its call).
    func appendRegistration(_ action: Action) -> Bool {
        let rollingBack = activities.contains(.rollingBack)
        // 5. Not undoing, not redoing, not rolling back: the redo side is emptied at once (in a
        // branching history it becomes a branch, section 19; while an asynchronous operation is in
        // flight, when it settles).
        if !isUndoing && !isRedoing && !rollingBack { newChangeEmptiesRedoSide() }
        // 6. Nothing open on the current side (groupsByEvent is on): the automatic group.
        var opened = false
        if currentFrames.isEmpty {
            openAutomaticGroup()
            opened = true
        }
        // 7. Into the innermost open frame of the current side.
        withSide(currentSideName) { side in side.frames[side.frames.count - 1].items.append(.action(action)) }
        // 8. Outside undo/redo/rollback this is a change.
        if !isUndoing && !isRedoing && !rollingBack { current = newStateID() }
        // 9. Coalescing bookkeeping; the cost is in the action (the side's total is computed).
        coalescingBookkeeping(after: action)
        return opened
    }

    /// Opens the automatic group: frame 0 on the undo side, `low` = current, the event's close
    /// scheduled (sections 2.6, 3.3, 4.4, 8). A group opening on the undo side ends the continuation.
    func openAutomaticGroup() {
        undoSide.frames.append(Frame(id: newObjectID(), low: current))
        pendingClose = true
        // A new step on top (section 7, decided): nothing older can be continued.
        endCoalescing()
    }

    /// `setValue(_:for:on:actionName:)` on the target's integer value (section 2, last paragraph).
    func setValue(_ value: Int, on target: Int, actionName: String?) {
        call {
            // Registration disabled: sets the value only.
            guard disableCount == 0 else {
                values[target] = value
                return
            }
            // A refused registration reports one misuse and sets nothing.
            if let misuse = refusal(.setValue) { return report(misuse) }
            if currentFrames.isEmpty && !groupsByEvent { return report(.noOpenGroup(.setValue)) }
            // Registers the inverse (which calls setValue again with the old value, and the same
            // name).
            //
            // SPEC-QUESTION: the spec does not say whether the inverse passes the action name again.
            // The model passes it (the inverse is "setValue again with the old value"), so undoing a
            // step whose setValue named it renames the redo step to that name even if the program
            // renamed the step since.
            let old = values[target]
            let action = Action(
                id: newObjectID(), target: target, kind: .set(old, name: actionName), cost: 0, key: nil, window: nil)
            let opened = appendRegistration(action)
            if opened && !decisions.setValueDidOpenAtTheEnd { post(.didOpen) }
            // Sets the name if given (the group is open now: frame 0 of the current side).
            // (With `setValueDidOpenAtTheEnd` off, a DidOpen observer may have closed it already.)
            if let actionName, !currentFrames.isEmpty {
                withSide(currentSideName) { side in side.frames[0].metadata.name = actionName }
            }
            values[target] = value
            // SPEC-QUESTION: setValue is "one call": the DidOpen of an automatic group it opened is
            // posted at the end of that call, after the name and the value are set (not right after
            // the inner registration).
            if opened && decisions.setValueDidOpenAtTheEnd { post(.didOpen) }
        }
    }

    /// Runs one action as its handler would: the handler calls back into the stack.
    func perform(_ action: Action) {
        switch action.kind {
        case .add(let delta):
            values[action.target] += delta
            // A command registers the inverse command, a closure the inverse closure (section 20).
            registerUndo(
                target: action.target, kind: .add(-delta), cost: action.cost, key: action.key, window: action.window,
                command: action.command)
        case .set(let value, let name):
            setValue(value, on: action.target, actionName: name)
        }
    }

    // MARK: - Coalescing (section 7)

    /// The join of 2.3; returns whether the action joined the candidate step.
    func joinIfPossible(_ action: Action) -> Bool {
        guard let key = action.key, !isUndoing, !isRedoing, !activities.contains(.rollingBack),
            undoSide.frames.isEmpty, let candidate, candidate.key == key, candidate.target == action.target,
            let newest = undoSide.closed.last, newest.id == candidate.stepID
        else { return false }
        if let window = action.window, clock - candidate.lastTime > window { return false }
        // Redo side emptied (we are not undoing or redoing); a branch in a branching history.
        newChangeEmptiesRedoSide()
        count("coalescing join")
        // The action joins the step; its high and current become a new state id.
        current = newStateID()
        undoSide.closed[undoSide.closed.count - 1].actions.append(action)
        undoSide.closed[undoSide.closed.count - 1].high = current
        self.candidate?.lastTime = clock
        // The continuation begins; with groupsByEvent on the join schedules the event's close.
        continuationStepID = newest.id
        if groupsByEvent { pendingClose = true }
        // Trimming runs (cost). Section 19: in a branching history only a join with a cost trims
        // (the redo side it turned into a branch was pruned to the limits when it left).
        if tree == nil || action.cost != 0 { trimAfterChange() }
        return true
    }

    /// Step 9 of section 2: the candidate after a registration that did not join.
    func coalescingBookkeeping(after action: Action) {
        guard let key = action.key else {
            // Without a key: clears the candidate.
            candidate = nil
            return
        }
        // The step it landed in: frame 0 of the current side (a new automatic group is frame 0 too).
        let frame0Actions = Self.openActions(side(currentSideName))
        let others = frame0Actions.filter { $0.id != action.id }
        let frame0ID = side(currentSideName).frames[0].id
        let onlyThisKeyAndTarget = others.allSatisfy { $0.key == key && $0.target == action.target }
        let isTheCandidate =
            candidate?.stepID == frame0ID && candidate?.key == key && candidate?.target == action.target
        if others.isEmpty || (onlyThisKeyAndTarget && isTheCandidate) {
            candidate = Candidate(stepID: frame0ID, key: key, target: action.target, lastTime: clock)
        } else {
            candidate = nil
        }
    }

    /// Clears the candidate and the continuation (undo, redo, jump, markClean, breakCoalescing,
    /// removeAllActions).
    func endCoalescing() {
        candidate = nil
        continuationStepID = nil
    }

    /// The index of the joined step while the continuation is active: it must still be the newest
    /// closed undo step, with nothing open on the undo side and no undo/redo in progress.
    ///
    /// SPEC-QUESTION: section 5 ends coalescing at the end of undo()/redo(); a metadata setter
    /// called from a handler of that undo must not act on the detached step. The model therefore
    /// treats the continuation as active only while its step is the newest closed undo step and
    /// no undo or redo is in progress.
    var activeContinuationIndex: Int? {
        guard let id = continuationStepID, !isUndoing, !isRedoing, undoSide.frames.isEmpty,
            let last = undoSide.closed.last, last.id == id
        else { return nil }
        return undoSide.closed.count - 1
    }

    /// `breakCoalescing()`: allowed everywhere.
    func breakCoalescing() { call { endCoalescing() } }

    // MARK: - Groups (section 3)

    /// `beginUndoGrouping()`.
    func beginUndoGrouping() { call { _ = begin(as: .beginUndoGrouping) } }

    /// The rules of `beginUndoGrouping()`; `operation` is `.group` for a scope. Returns the side and
    /// the id of the frame it pushed, or nil when it pushed nothing (disabled or refused).
    func begin(as operation: Operation) -> (SideName, Int)? {
        // 1. Disabled: nothing.
        guard disableCount == 0 else { return nil }
        // 2. Activity refused.
        if let misuse = refusal(operation) {
            report(misuse)
            return nil
        }
        // 3. Nothing open and groupsByEvent on: the automatic group first.
        if currentFrames.isEmpty && groupsByEvent { return beginWithAutomaticGroup() }
        // 4. C first (observers run before the decision), then read the state again.
        post(.checkpoint)
        guard disableCount == 0 else { return nil }
        if currentFrames.isEmpty && groupsByEvent { return beginWithAutomaticGroup() }
        let sideName = currentSideName
        let id = newObjectID()
        // A group opening on the undo side ends the continuation (section 7); a new top-level group
        // there (outside undo and redo) is a new step on top, so nothing older can be continued.
        if sideName == .undo { continuationStepID = nil }
        if sideName == .undo && undoSide.frames.isEmpty && !isUndoing && !isRedoing { candidate = nil }
        withSide(sideName) { side in side.frames.append(Frame(id: id, low: current)) }
        if !isUndoing && !isRedoing { post(.didOpen) }
        return (sideName, id)
    }

    /// 3.3 (CHANGED): open the automatic group, DidOpen then C (both in activity openingGroup),
    /// then the nested frame, then DidOpen.
    func beginWithAutomaticGroup() -> (SideName, Int) {
        openAutomaticGroup()
        withActivity(.openingGroup) {
            post(.didOpen)
            post(.checkpoint)
        }
        let id = newObjectID()
        undoSide.frames.append(Frame(id: id, low: current))
        if !isUndoing && !isRedoing { post(.didOpen) }
        return (.undo, id)
    }

    /// `endUndoGrouping()`.
    func endUndoGrouping() {
        call {
            // 1. Disabled: nothing. 2. Activity refused.
            guard disableCount == 0 else { return }
            if let misuse = refusal(.endUndoGrouping) { return report(misuse) }
            // 3. C (observers first; read the state again after).
            //
            // SPEC-QUESTION: "re-read after" is taken to include the disabled check of step 1: if
            // an observer of the checkpoint disabled registration, the call does nothing.
            post(.checkpoint)
            guard disableCount == 0 else { return }
            // 4. Nothing open beyond the group an undo/redo in progress is building.
            let building = (isUndoing || isRedoing) ? 1 : 0
            if currentFrames.count <= building { return report(.endWithoutBegin) }
            // 5. Close the innermost frame.
            closeInnermost(willActivity: .closingGroup, didActivity: nil)
        }
    }

    /// C, WillClose, close, DidClose: the close that `undo()`, `redo()`, `jump` and a scope make "as
    /// endUndoGrouping() would", inside the activity their caller pushed (see `withActivity`).
    func closeInnermostAsEnd() {
        post(.checkpoint)
        guard !currentFrames.isEmpty else { return }
        closeInnermost(
            willActivity: decisions.closeInsideCallPushesClosingGroup ? .closingGroup : nil, didActivity: nil)
    }

    /// WillClose (unless undoing/redoing), close the innermost frame of the current side, DidClose
    /// (unless undoing/redoing; "!" when the closed top-level group is discardable).
    func closeInnermost(willActivity: Activity?, didActivity: Activity?) {
        let silent = isUndoing || isRedoing
        if !silent { post(.willClose, in: willActivity) }
        guard !currentFrames.isEmpty else { return }
        let discardable = closeInnermostFrame(of: currentSideName)
        if !silent { post(.didClose, discardable: discardable, in: didActivity) }
    }

    /// The structural close of the innermost frame of a side (section 3); returns whether it was a
    /// discardable frame 0.
    @discardableResult
    func closeInnermostFrame(of sideName: SideName) -> Bool {
        let frames = side(sideName).frames
        if frames.count >= 2 {
            // A nested frame becomes a closed nested group, the last item of its parent: low = the
            // frame's low, high = current (both current when it holds no action, section 6).
            let frame = frames[frames.count - 1]
            let actions = Self.flatten(frame)
            let group = NestedGroup(
                id: frame.id, actions: actions, low: actions.isEmpty ? current : frame.low, high: current)
            withSide(sideName) { side in
                side.frames.removeLast()
                side.frames[side.frames.count - 1].items.append(.group(group))
            }
            return false
        }
        let frame = frames[0]
        if sideName == .undo {
            closeUndoFrame0(frame)
        } else {
            // Frame 0 of the redo side only closes at the end of an undo (section 5), silently, by
            // `finishBuiltGroup`; a program close of it is `.endWithoutBegin`. Kept for completeness.
            redoSide.frames.removeLast()
        }
        return frame.metadata.discardable
    }

    /// Closing frame 0 on the undo side by the program (section 3).
    func closeUndoFrame0(_ frame: Frame) {
        undoSide.frames.removeLast()
        // The pending automatic close is cancelled.
        pendingClose = false
        if decisions.otherTopLevelCloseClearsCandidate && candidate?.stepID != frame.id { candidate = nil }
        let actions = Self.flatten(frame)
        if actions.isEmpty {
            let drops = dropsEmptyGroups || droppingEmptyGroup
            count(drops ? "empty group dropped" : "empty step kept")
            if !drops {
                // Foundation mode: an empty step (do-nothing, low == high == current); a new step
                // empties the redo side (not while undoing/redoing). Section 19: the redo side
                // becomes a branch first, then the step takes the next number.
                if !isUndoing && !isRedoing { newChangeEmptiesRedoSide() }
                undoSide.closed.append(
                    Step(
                        id: frame.id, actions: [], metadata: frame.metadata, low: current, high: current,
                        node: makeChangeNode()))
            }
            // Drop mode: dropped, redo side kept.
        } else {
            // Section 19: the step takes the next number. A redo side held here came from undoing
            // groups nested in this one: it is redone on top of the step (its chain now hangs from
            // the new node, as the current node's redo stack).
            undoSide.closed.append(
                Step(
                    id: frame.id, actions: actions, metadata: frame.metadata, low: frame.low, high: current,
                    node: makeChangeNode()))
        }
        trimAfterChange()
    }

    // MARK: - The event (section 8)

    /// `endEvent()` (automaticGroupClosing == .manual).
    func endEvent() {
        call {
            if let misuse = refusal(.endEvent) { return report(misuse) }
            // Nothing pending: nothing.
            guard pendingClose else { return }
            // (Decided) Inside a scope's body the event's end waits for the outermost scope.
            if scopeDepth > 0 {
                eventEndAfterScopes = eventNumber
                return
            }
            endEventNow()
        }
    }

    /// The outermost scope ended: the event's end put off meanwhile, if still pending.
    func endEventPutOffByScopes() {
        guard let event = eventEndAfterScopes else { return }
        eventEndAfterScopes = nil
        if pendingClose && eventNumber == event { endEventNow() }
    }

    /// The event's end (section 8), once decided.
    func endEventNow() {
        pendingClose = false
        // The continuation ends.
        continuationStepID = nil
        // One level only, even while registration is disabled.
        guard groupsByEvent, !undoSide.frames.isEmpty else { return }
        post(.checkpoint)
        // SPEC-QUESTION: if an observer of this checkpoint closed the group (or turned
        // groupsByEvent off), the model closes nothing rather than report `.endWithoutBegin`.
        guard groupsByEvent, !undoSide.frames.isEmpty else { return }
        closeInnermost(willActivity: .closingGroup, didActivity: nil)
    }

    // MARK: - Metadata (section 4)

    func setActionName(_ name: String) { setMetadata(.setActionName) { $0.name = name } }

    func setActionIsDiscardable(_ discardable: Bool) {
        setMetadata(.setActionIsDiscardable) { $0.discardable = discardable }
    }

    func setActionUserInfoValue(_ value: Int?, forKey key: String) {
        setMetadata(.setActionUserInfoValue) { $0.userInfo[key] = value }
    }

    func setMetadata(_ operation: Operation, _ change: (inout Metadata) -> Void) {
        call {
            // 1. Disabled: ignored. 2. Activity refused.
            guard disableCount == 0 else { return }
            if let misuse = refusal(operation) { return report(misuse) }
            // 3. The continuation: act on the joined step.
            if let index = activeContinuationIndex {
                count("setter on the continuation")
                change(&undoSide.closed[index].metadata)
                return
            }
            // 4. Nothing open: the automatic group (DidOpen at the end of the call) or a misuse.
            var opened = false
            if currentFrames.isEmpty {
                guard groupsByEvent else { return report(.noOpenGroup(operation)) }
                openAutomaticGroup()
                opened = true
            }
            // 5. Frame 0 of the current side (inside a nested group: still the top-level one).
            withSide(currentSideName) { side in change(&side.frames[0].metadata) }
            if opened { post(.didOpen) }
        }
    }

    // MARK: - Undo (5.1, 5.2)

    /// `undo()`.
    func undo() {
        call {
            // 1. Activity. 2. C, read again after.
            if let misuse = refusal(.undo) { return report(misuse) }
            if routesToAsyncOperation(.undo, .undo) { return }
            post(.checkpoint)
            // 3. Two or more frames.
            let level = undoSide.frames.count
            if level >= 2 { return report(.nestedGroupsOpen(.undo, groupingLevel: level)) }
            // 4. From here on inside preparingUndo (the step's own activities stack on it).
            let routed = withActivity(.preparingUndo) { () -> Bool in
                // 5. One frame: closed as endUndoGrouping() would, even while disabled.
                if level == 1 {
                    closeInnermostAsEnd()
                    if routesToAsyncOperationAfterClose() { return true }
                }
                // 6. As undoNestedGroup() from step 2: its own C first.
                post(.checkpoint)
                _ = undoNestedFromStep3()
                return false
            }
            if routed { return }
            endCoalescing()
        }
    }

    /// `undoNestedGroup()`.
    func undoNestedGroup() {
        call {
            if let misuse = refusal(.undoNestedGroup) { return report(misuse) }
            if refusesNestedUndoWhileAsync() { return }
            post(.checkpoint)
            // A refused call (the misuse of step 3) clears nothing: it does not end coalescing.
            if undoNestedFromStep3() { endCoalescing() }
        }
    }

    /// Steps 3 and 4 of 5.2; returns false when the call was refused (misuse).
    func undoNestedFromStep3() -> Bool {
        if !undoSide.frames.isEmpty {
            // 3. In the innermost frame: first drop dead trailing items, then undo its last closed
            // nested group alone, or misuse. The drop happens even when the call then ends in the
            // misuse: section 15 allows a refused call the dead-target removal a query would do,
            // and the sweep of `undoCount` removes every dead action, open frames included.
            let innermost = undoSide.frames.count - 1
            var droppedDead = false
            while let last = undoSide.frames[innermost].items.last, isDeadItem(last) {
                undoSide.frames[innermost].items.removeLast()
                droppedDead = true
            }
            // Section 6: every open frame gets a new low when dead trailing items are dropped.
            if droppedDead && decisions.removalRenamesOpenGroups {
                for index in 0...innermost { undoSide.frames[index].low = newStateID() }
            }
            guard case .group? = undoSide.frames[innermost].items.last else {
                report(.undoNestedGroupWithOpenGroup)
                return false
            }
            count("nested group undone")
            performUndo {
                // Detached after WillUndo: the last item of the innermost frame. Section 19: the
                // redo step it builds is a change of its own: a new node, child of the current
                // node, on top of the redo side (what the redo side held hangs from it).
                guard case .group(let group) = undoSide.frames[innermost].items.removeLast() else {
                    fatalError("the nested group to undo moved during WillUndo")
                }
                return (group.actions, Metadata(), group.low, group.high, makeChangeNode(), false)
            }
            return true
        }
        // 4. Dead steps dropped from the top; none left: return quietly.
        topDrop(.undo, performing: true)
        guard !undoSide.closed.isEmpty else { return true }
        performUndo {
            let step = undoSide.closed.removeLast()
            return (step.actions, step.metadata, step.low, step.high, step.node, true)
        }
        return true
    }

    /// A dead trailing item: a dead action, or a closed nested group whose actions are all dead (an
    /// empty one is not dead).
    func isDeadItem(_ item: Item) -> Bool {
        switch item {
        case .action(let action): isDead(action)
        case .group(let group): !group.actions.isEmpty && group.actions.allSatisfy(isDead)
        }
    }

    /// What `performUndo` undoes: the actions, metadata, low and high of a step or nested group,
    /// the node its redo step leads to (section 19; 0 in a linear history), and whether that node
    /// was in the tree before (a closed step's) or is new (a nested group's).
    typealias Detached = (actions: [Action], metadata: Metadata, low: Int, high: Int, node: Int, wasInTree: Bool)

    /// The undo of the newest step or nested group (5.2 step 4). `detach` takes it out of the undo
    /// side after WillUndo (its observers still see it there) and returns its actions, metadata
    /// (none for a nested group), low, high and node.
    func performUndo(detach: () -> Detached) {
        isUndoing = true
        stepsPerformed += 1
        var detached: Detached?
        if decisions.detachBeforeWillUndo { detached = detach() }
        post(.willUndo, in: .notifyingUndo)
        let before = current
        let (actions, metadata, low, high, node, wasInTree) = detached ?? detach()
        // Frame 0 on the redo side with a copy of the metadata.
        redoSide.frames.append(Frame(id: newObjectID(), low: current, metadata: metadata))
        // Actions newest first; a dead one is skipped. A target is checked when its turn comes.
        var everyActionRan = true
        for action in actions.reversed() {
            if isDead(action) {
                everyActionRan = false
                count("dead action skipped")
            } else {
                withActivity(.undoing) { perform(action) }
            }
        }
        post(.checkpoint, in: .undoing)
        // New current state.
        let after = (before == high && everyActionRan) ? low : newStateID()
        // Close what the handlers left open, then the redo group, silently.
        while redoSide.frames.count > 1 { closeInnermostFrame(of: .redo) }
        let built = redoSide.frames.removeLast()
        let builtActions = Self.flatten(built)
        if !builtActions.isEmpty {
            redoSide.closed.append(
                Step(
                    id: built.id, actions: builtActions, metadata: built.metadata, low: after, high: before, node: node)
            )
        } else if wasInTree {
            // Section 19: the node is gone; what left from it leaves from its parent.
            nodeVanished(node, parent: currentNode)
        }
        // An empty redo group is dropped (both modes).
        current = after
        post(.didUndo, discardable: metadata.discardable, in: .notifyingUndo)
        isUndoing = false
    }

    // MARK: - Redo (5.3)

    /// `redo()`.
    func redo() {
        call {
            // 1. `.redoWhileUndoing`, 2. other activities (both in `refusal`).
            if let misuse = refusal(.redo) { return report(misuse) }
            if routesToAsyncOperation(.redo, .redo) { return }
            // 3. C.
            post(.checkpoint)
            // 4. Two or more frames on the undo side.
            let level = undoSide.frames.count
            if level >= 2 { return report(.nestedGroupsOpen(.redo, groupingLevel: level)) }
            // 5. Inside preparingRedo from here on.
            withActivity(.preparingRedo) {
                // 6. One frame: closed first (in Foundation mode an empty one empties the redo side).
                if level == 1 { closeInnermostAsEnd() }
                redoFromStep7()
            }
            endCoalescing()
        }
    }

    /// Steps 7 and 8 of 5.3.
    func redoFromStep7() {
        topDrop(.redo, performing: true)
        guard !redoSide.closed.isEmpty else { return }
        isRedoing = true
        stepsPerformed += 1
        var detached: Step?
        if decisions.detachBeforeWillUndo { detached = redoSide.closed.removeLast() }
        post(.willRedo, in: .notifyingRedo)
        // Detached after WillRedo: its observers still see it on the redo side.
        let step = detached ?? redoSide.closed.removeLast()
        let before = current
        undoSide.frames.append(Frame(id: newObjectID(), low: current, metadata: step.metadata))
        var everyActionRan = true
        for action in step.actions.reversed() {
            if isDead(action) {
                everyActionRan = false
            } else {
                withActivity(.redoing) { perform(action) }
            }
        }
        post(.checkpoint, in: .redoing)
        let after = (before == step.low && everyActionRan) ? step.high : newStateID()
        while undoSide.frames.count > 1 { closeInnermostFrame(of: .undo) }
        let built = undoSide.frames.removeLast()
        let builtActions = Self.flatten(built)
        if !builtActions.isEmpty {
            undoSide.closed.append(
                Step(
                    id: built.id, actions: builtActions, metadata: built.metadata, low: before, high: after,
                    node: step.node))
        } else if !dropsEmptyGroups && disableCount == 0 {
            // Foundation keeps the empty step a redo builds (low == high == the new state); it does
            // not empty the redo side (we are redoing). While registration is disabled (as it
            // stands when the step has run) nothing is built: Foundation's grouping calls, which
            // build that step, do nothing then.
            undoSide.closed.append(
                Step(id: built.id, actions: [], metadata: built.metadata, low: after, high: after, node: step.node))
        } else {
            // Section 19: nothing was built; the node is gone.
            nodeVanished(step.node, parent: currentNode)
        }
        current = after
        if activities.last == .jumping {
            // A redo that is one step of a move: the move is trimmed once, at its end.
            if levels > 0 || maximumCostLimit > 0 { pendingTrim = true }
        } else {
            trimAfterChange()
        }
        post(.didRedo, discardable: step.metadata.discardable, in: .notifyingRedo)
        isRedoing = false
    }

    // MARK: - Jump (5.4)

    /// `jump(to:)`.
    ///
    /// SPEC-QUESTION: a jump to the current position "nothing happens"; the model reads that as
    /// "does not end coalescing either" (only the sweep of step 2 has happened).
    func jump(to position: Int) {
        call {
            if let misuse = refusal(.jump) { return report(misuse) }
            if routesToAsyncOperation(.jump(position), .jump) { return }
            // 2. Sweep; clamp; equal: nothing.
            sweep()
            let total = undoEntryCount + redoSide.closed.count
            let target = min(max(position, 0), total)
            if target == undoEntryCount { return }
            // 3. Two or more frames.
            let level = undoSide.frames.count
            if level >= 2 { return report(.nestedGroupsOpen(.jump, groupingLevel: level)) }
            // 4. Activity jumping for the rest; the one open frame closed as undo() does.
            withActivity(.jumping) {
                if level == 1 { closeInnermostAsEnd() }
                // 5. (Decided) Backward: undo while more than `target` steps are left to undo.
                // Forward: redo while more redo steps are left than lie beyond the target (so that
                // trimming, which keeps the position where it is, cannot stop the jump early). A
                // step that performed nothing ends the jump. Each step posts its checkpoint, and its
                // activities stack on jumping.
                if target < undoEntryCount {
                    while true {
                        sweep()
                        guard undoEntryCount > target else { break }
                        post(.checkpoint)
                        guard undoNestedFromStep3() else { break }
                    }
                } else {
                    let remaining = total - target
                    while true {
                        sweep()
                        guard redoSide.closed.count > remaining else { break }
                        post(.checkpoint)
                        let before = stepsPerformed
                        redoFromStep7()
                        guard stepsPerformed != before else { break }
                    }
                }
            }
            endCoalescing()
        }
    }

    // MARK: - Clean point (section 6)

    /// `markClean()`.
    func markClean() {
        call {
            if let misuse = refusal(.markClean) { return report(misuse) }
            markCurrentStateClean()
            endCoalescing()
        }
    }

    // MARK: - Removal (section 16, and the dead targets of section 11)

    /// `removeAllActions()`.
    func removeAllActions() {
        call {
            if let misuse = refusal(.removeAllActions) { return report(misuse) }
            removeAllForOperations()
            undoSide = Side()
            redoSide = Side()
            disableCount = 0
            pendingClose = false
            endCoalescing()
            markCurrentStateClean()
            // Section 19: a new root, numbered after every node so far.
            resetTree()
        }
    }

    /// `removeAllActions(withTarget:)` with one of the driver's targets.
    func removeAllActions(withTarget target: Int) {
        call {
            if let misuse = refusal(.removeAllActionsWithTarget) { return report(misuse) }
            removeActions { $0.target == target }
            removeTargetForOperations(target)
            if candidate?.target == target { candidate = nil }
            // Section 7 (CHANGED): any accepted removeAllActions(withTarget:) ends the continuation.
            continuationStepID = nil
        }
    }

    /// `removeAllActions(withTarget: 42)`: a value removes nothing (section 16), but the call is
    /// refused in activities like any other, and, accepted, ends the continuation ("whatever its
    /// target", section 7).
    func removeAllActionsWithValue() {
        call {
            if let misuse = refusal(.removeAllActionsWithTarget) { return report(misuse) }
            continuationStepID = nil
        }
    }

    /// Removes every matching action from both sides (closed steps, open frames, nested groups).
    /// A closed step or closed nested group that this empties goes; groups that were already empty,
    /// and open frames, stay. Partial removal of a closed step gives its far end a new id (undo side:
    /// low; redo side: high). `current` and `clean` never change.
    func removeActions(where match: (Action) -> Bool) {
        // Section 19: the parents before, to hang what left from a node that goes from its nearest
        // remaining ancestor.
        let parentsBefore = tree == nil || !holdsAction(where: match) ? [:] : parentMap()
        defer { if tree != nil { removeFromBranches(where: match, parentsBefore: parentsBefore) } }
        for sideName in [SideName.undo, .redo] {
            var sideValue = side(sideName)
            var closed: [Step] = []
            for var step in sideValue.closed {
                let before = step.actions.count
                step.actions.removeAll(where: match)
                if before > 0 && step.actions.isEmpty {
                    // Removed whole: changes nothing else (but coalescing forgets it).
                    if candidate?.stepID == step.id { candidate = nil }
                    if continuationStepID == step.id { continuationStepID = nil }
                    continue
                }
                if step.actions.count < before {
                    if sideName == .undo { step.low = newStateID() } else { step.high = newStateID() }
                }
                closed.append(step)
            }
            sideValue.closed = closed
            var touched = Array(repeating: false, count: sideValue.frames.count)
            for index in sideValue.frames.indices {
                var items: [Item] = []
                for item in sideValue.frames[index].items {
                    switch item {
                    case .action(let action):
                        if match(action) { touched[index] = true } else { items.append(item) }
                    case .group(var group):
                        let before = group.actions.count
                        group.actions.removeAll(where: match)
                        if group.actions.count < before { touched[index] = true }
                        if before > 0 && group.actions.isEmpty { continue }
                        if group.actions.count < before && decisions.removalRenamesOpenGroups {
                            group.low = newStateID()
                        }
                        items.append(.group(group))
                    }
                }
                sideValue.frames[index].items = items
            }
            if decisions.removalRenamesOpenGroups {
                // A frame holds the deeper frames: it lost an action if any of them did.
                for index in sideValue.frames.indices where touched[index...].contains(true) {
                    sideValue.frames[index].low = newStateID()
                }
            }
            withSide(sideName) { $0 = sideValue }
        }
    }

    /// Section 11, Top: drops whole dead steps from the top of a side while the top is a closed
    /// dead step with no open frame above it, at idle only. `undo()`, `undoNestedGroup()`, `redo()`
    /// and `jump` pass `performing`: they run only at idle (every activity refuses them), though
    /// their own activity is pushed by the time they look.
    func topDrop(_ sideName: SideName, performing: Bool = false) {
        guard performing || activities.isEmpty, side(sideName).frames.isEmpty else { return }
        // (Decided) The freed actions at the end of the top step are removed one by one, as a
        // removal would remove them: a step that loses every action goes and the next one is looked
        // at; one that loses some gets a new far end (undo side: low; redo side: high). Afterwards
        // the top step is empty (a do-nothing step) or ends with a live action. Any removal from the
        // undo side's top step ends coalescing.
        while let last = side(sideName).closed.last, let newest = last.actions.last, isDead(newest) {
            if last.actions.count == 1 {
                withSide(sideName) { _ = $0.closed.removeLast() }
                count("dead step dropped by Top")
                // Section 19: its node goes (its parent is the current node, or the step below).
                nodeVanished(last.node, parent: currentNode)
            } else {
                let far = newStateID()
                withSide(sideName) { side in
                    let index = side.closed.count - 1
                    side.closed[index].actions.removeLast()
                    if sideName == .undo { side.closed[index].low = far } else { side.closed[index].high = far }
                }
                count("dead action dropped by Top")
            }
            if sideName == .undo { endCoalescing() }
        }
    }

    /// Whether a step, an open frame or a branch of a branching history holds an action `match`
    /// matches.
    func holdsAction(where match: (Action) -> Bool) -> Bool {
        for side in [undoSide, redoSide] {
            if side.closed.contains(where: { $0.actions.contains(where: match) }) { return true }
            if Self.openActions(side).contains(where: match) { return true }
        }
        return tree?.branches.contains { $0.steps.contains { $0.actions.contains(where: match) } } ?? false
    }

    /// Section 11, Sweep: every dead action everywhere is removed (callers at idle).
    func sweep() { removeActions(where: isDead) }

    /// Runs `body` after a sweep: a real one at idle; during an activity the answer is computed as
    /// if, and the model is put back as it was (section 11).
    func afterSweep<R>(_ body: () -> R) -> R {
        if activities.isEmpty {
            sweep()
            return body()
        }
        let saved = (undoSide, redoSide, candidate, continuationStepID, tree)
        sweep()
        let result = body()
        (undoSide, redoSide, candidate, continuationStepID, tree) = saved
        return result
    }

    // MARK: - Registration switch (section 2, 12)

    /// `disableUndoRegistration()`.
    func disableUndoRegistration() { call { disableCount += 1 } }

    /// `enableUndoRegistration()`: misuse with no matching disable, or when it would cancel the
    /// disable of a rollback in progress (section 12).
    func enableUndoRegistration() {
        call {
            if disableCount == 0 || rollbackFloors.last.map({ disableCount <= $0 }) == true {
                return report(.enableWithoutDisable)
            }
            disableCount -= 1
        }
    }

    var isUndoRegistrationEnabled: Bool { query { disableCount == 0 } }

    // MARK: - Settings and limits (section 10)

    func setGroupsByEvent(_ value: Bool) {
        guard decisions.modeSettersPublish else {
            groupsByEvent = value
            return
        }
        call { groupsByEvent = value }
    }

    func setDropsEmptyGroups(_ value: Bool) {
        guard decisions.modeSettersPublish else {
            dropsEmptyGroups = value
            return
        }
        call { dropsEmptyGroups = value }
    }

    func setLevelsOfUndo(_ value: Int) {
        call {
            levels = value
            limitChanged()
        }
    }

    func setMaximumCost(_ value: Int) {
        call {
            maximumCostLimit = value
            limitChanged()
        }
    }

    /// "When the limit is set" it trims; during an activity, at the end of the outermost call.
    func limitChanged() {
        if activities.isEmpty { trim() } else { pendingTrim = true }
    }

    /// Trimming (section 10): drop the oldest closed undo steps while more than `levels`, or while
    /// the cost is over the limit and more than one closed step remains. Waits for the outermost
    /// scope (section 12), and for an asynchronous operation in flight to settle.
    func trim() {
        if scopeDepth > 0 || trimWaitsForOperation {
            pendingTrim = true
            return
        }
        if tree != nil {
            // Section 19: levelsOfUndo as before (each trimmed step's node becomes the root), then
            // the branch limit and the cost, which counts the branches too.
            while levels > 0 && undoSide.closed.count > levels { dropOldestUndoStep() }
            trimTree()
            return
        }
        while let oldest = undoSide.closed.first,
            (levels > 0 && undoSide.closed.count > levels)
                || (maximumCostLimit > 0 && undoCost > maximumCostLimit && undoSide.closed.count > 1)
        {
            undoSide.closed.removeFirst()
            count("step trimmed")
            if candidate?.stepID == oldest.id { candidate = nil }
            if continuationStepID == oldest.id { continuationStepID = nil }
        }
    }

    /// Drops the oldest closed undo step (a trim).
    func dropOldestUndoStep() {
        let oldest = undoSide.closed.removeFirst()
        count("step trimmed")
        if candidate?.stepID == oldest.id { candidate = nil }
        if continuationStepID == oldest.id { continuationStepID = nil }
        rootTrimmed(to: oldest.node)
    }

    /// The trim that a change asks for (a top-level group closed, a coalesced join, a redo): in a
    /// branching history only when `levelsOfUndo` or `maximumCost` is set (section 19: branches are
    /// pruned to `maximumBranchSteps` where they grow).
    func trimAfterChange() {
        if tree != nil && levels == 0 && maximumCostLimit == 0 { return }
        trim()
    }

    // MARK: - Scoped groups (section 12)

    /// The error a scope's body throws in the driver.
    struct ScopeFailure: Error {}

    /// `group(named:_:)`.
    func group(named name: String?, _ body: () throws -> Void) throws {
        try callThrowing {
            // 1. Disabled: the body plainly.
            guard disableCount == 0 else { return try body() }
            // 2. beginUndoGrouping() by its rules; refused (or nothing pushed): the body plainly.
            //
            // SPEC-QUESTION: a refused scope reports the misuse with the operation `.group` (the
            // table of section 9 lists group(named:) beside beginUndoGrouping).
            let frame0Before = undoSide.frames.first?.id
            guard let (sideName, frameID) = begin(as: .group) else { return try body() }
            // (Decided) The event's automatic group, when this scope's begin opened it: a failed
            // scope closes and drops it when it is left holding nothing.
            let automaticGroup: Int? =
                sideName == .undo && undoSide.frames.count == 2 && undoSide.frames[1].id == frameID
                    && undoSide.frames[0].id != frame0Before ? undoSide.frames[0].id : nil
            let before = current
            // Section 19: the redo choice, which a failed scope gets back (its registrations turn
            // the redo side into a branch).
            let redoChoice = tree == nil ? nil : redoSide.closed.last?.node
            scopeDepth += 1
            defer {
                scopeDepth -= 1
                if scopeDepth == 0 { endEventPutOffByScopes() }
                // 6. Trimming deferred while any scope runs; runs when the outermost one ends.
                if scopeDepth == 0 && pendingTrim && activities.isEmpty {
                    pendingTrim = false
                    applyPendingShape()
                    trim()
                }
            }
            // 3. The body, in no activity.
            do {
                if decisions.scopeBodyCallsPublish {
                    let depth = callDepth
                    callDepth = 0
                    defer { callDepth = depth }
                    try body()
                } else {
                    try body()
                }
            } catch {
                scopeFailed(
                    sideName: sideName, frameID: frameID, before: before, automaticGroup: automaticGroup,
                    redoChoice: redoChoice)
                restoreRedoChoice(redoChoice)
                throw error
            }
            // 4. Success: if still open, name frame 0, close down to and including the scope's frame.
            //
            // (CHANGED) Naming and closing happen even while registration is disabled.
            guard side(sideName).frames.contains(where: { $0.id == frameID }) else { return }
            if let name { withSide(sideName) { $0.frames[0].metadata.name = name } }
            withActivity(.closingScope) {
                while side(sideName).frames.contains(where: { $0.id == frameID }) { closeInnermostAsEnd() }
            }
        }
    }

    /// 12 step 5: the body threw.
    func scopeFailed(sideName: SideName, frameID: Int, before: Int, automaticGroup: Int?, redoChoice: Int?) {
        var takenOut: [Action]?
        // Where the rollback leads when every action runs: the state the scope's group began in,
        // as its record holds it (a removal or a sweep that took some of its actions gave that
        // record a new far end, which no document state has).
        var farEnd = before
        if let index = side(sideName).frames.firstIndex(where: { $0.id == frameID }) {
            // Close the frames the body left open inside the scope's frame.
            withActivity(.closingScope) {
                while side(sideName).frames.count - 1 > index { closeInnermostAsEnd() }
            }
            // Then the scope's frame itself, with its notifications, taken out of the history.
            post(.checkpoint, in: .closingScope)
            let silent = isUndoing || isRedoing
            if !silent {
                withActivity(.closingScope) {
                    post(.willClose, in: decisions.closeInsideCallPushesClosingGroup ? .closingGroup : nil)
                }
            }
            let frame = side(sideName).frames[side(sideName).frames.count - 1]
            farEnd = frame.low
            withSide(sideName) { _ = $0.frames.removeLast() }
            if index == 0 && sideName == .undo {
                // Never becomes a step (not even an empty one), does not empty the redo side again.
                pendingClose = false
            }
            takenOut = Self.flatten(frame)
            if !silent { post(.didClose, discardable: index == 0 && frame.metadata.discardable, in: .closingScope) }
        } else if let innermost = side(sideName).frames.last {
            // The body closed it: take it out if it is still the last item of the innermost frame.
            //
            // SPEC-QUESTION: "if the body closed the scope's group itself" is read as "if it is no
            // longer open", whoever closed it: also an observer of the scope's own DidOpen (before
            // the body ran). The scope's group is followed by identity, not by depth.
            if case .group(let group)? = innermost.items.last, group.id == frameID {
                withSide(sideName) { _ = $0.frames[$0.frames.count - 1].items.removeLast() }
                takenOut = group.actions
                farEnd = group.low
            }
        } else if let newest = side(sideName).closed.last, newest.id == frameID {
            // ... or the newest closed step.
            withSide(sideName) { _ = $0.closed.removeLast() }
            // Section 19: its node goes.
            if sideName == .undo { nodeVanished(newest.node, parent: currentNode) }
            takenOut = newest.actions
            // A redo step that lost actions has a new high, not a new low: then it no longer
            // ends where the document is.
            farEnd = sideName == .undo || newest.high == current ? newest.low : newStateID()
        }
        guard let actions = takenOut else { return }
        count("scope rolled back")
        // (Decided) Taking actions out of the undo side changes the step being recorded, which
        // coalescing may no longer continue; a rollback that takes nothing out changes nothing.
        if sideName == .undo && !actions.isEmpty { endCoalescing() }
        // Roll back: newest first, registration disabled, activity rollingBack.
        disableCount += 1
        rollbackFloors.append(disableCount)
        var everyActionRan = true
        for action in actions.reversed() {
            if isDead(action) {
                everyActionRan = false
            } else {
                withActivity(.rollingBack) { perform(action) }
            }
        }
        rollbackFloors.removeLast()
        disableCount -= 1
        current = everyActionRan ? farEnd : newStateID()
        // Section 19: the redo choice comes back before the close below can trim (and prune the
        // branch the scope's registrations made of the redo side).
        restoreRedoChoice(redoChoice)
        // The automatic group this scope opened, left empty: closed (C, WillClose, DidClose) and
        // dropped whatever dropsEmptyGroups says, so a failed scope leaves no step.
        guard let automaticGroup, sideName == .undo else { return }
        func isEmptyAutomaticGroup() -> Bool {
            undoSide.frames.count == 1 && undoSide.frames[0].id == automaticGroup
                && Self.flatten(undoSide.frames[0]).isEmpty
        }
        guard isEmptyAutomaticGroup() else { return }
        withActivity(.closingScope) {
            post(.checkpoint)
            guard isEmptyAutomaticGroup() else { return }
            droppingEmptyGroup = true
            defer { droppingEmptyGroup = false }
            closeInnermost(
                willActivity: decisions.closeInsideCallPushesClosingGroup ? .closingGroup : nil, didActivity: nil)
        }
    }
}
