// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension ActionStack {
    /// How far from the current state the history can be saved (see
    /// ``ActionStack/savableDepth``).
    public struct SavableDepth: Hashable, Sendable {
        /// The undo steps, newest first, up to the first that cannot be saved.
        public var undoSteps: Int
        /// The redo steps, next first, up to the first that cannot be saved.
        public var redoSteps: Int
        /// The steps of branches that leave from the savable part, up to the first that cannot be
        /// saved on each (a branching history only).
        public var branchSteps: Int
    }

    /// What ``ActionStack/restoreHistory(_:resolvingTargets:)`` brought back, and what it left
    /// out and why.
    public struct RestoreReport: Hashable, Sendable, CustomStringConvertible {
        /// The steps restored.
        public var restoredSteps: Int
        /// The steps of the saved history that were left out.
        public var droppedSteps: Int
        /// Each place where the history was cut: the step, why, and how many steps went with it
        /// (it and every step beyond it, away from the current state).
        public var cuts: [Cut]
        /// Whether the clean state came back (false when the history had none, or when it lay in
        /// a part left out).
        public var restoredCleanState: Bool
        /// The steps the limits (``levelsOfUndo``, ``maximumCost``, ``maximumBranchSteps``) then
        /// dropped.
        public var trimmedSteps: Int
        /// What the save had left out of the history it was made from (the history's
        /// ``SavedHistory/omissions``): steps that were never in the saved history, so never
        /// restored nor counted as dropped.
        public var omittedWhenSaved: [SavedHistory.Omission] = []

        /// One cut in a restored history.
        public struct Cut: Hashable, Sendable {
            /// The node the step left out leads to.
            public var node: Int
            /// Why.
            public var reason: Reason
            /// The steps left out with it (itself included).
            public var droppedSteps: Int
        }

        /// Why a step was left out.
        ///
        /// Extensible: new reasons may be added in any release; do not switch exhaustively.
        /// Compare with a static member (`reason == .unresolvedKey("fig-7")`), and read what a
        /// reason carries through ``commandProblem``, ``key`` and ``commandType``. The
        /// ``description`` is stable.
        public struct Reason: Hashable, Sendable, CustomStringConvertible {
            /// The reasons this version knows, with what each carries.
            private enum Code: Hashable, Sendable {
                case command(SavedActionProblem)
                case unresolvedKey(String)
                case objectNotKept(String)
                case wrongTargetType(key: String, commandType: String)
                case branchInLinearHistory
            }

            private let code: Code

            private init(_ code: Code) { self.code = code }

            /// One of its actions could not be read back.
            ///
            /// - Parameter problem: Why.
            /// - Returns: The reason.
            public static func command(_ problem: SavedActionProblem) -> Reason { Reason(.command(problem)) }

            /// The app found no object for a target key.
            ///
            /// - Parameter key: The key.
            /// - Returns: The reason.
            public static func unresolvedKey(_ key: String) -> Reason { Reason(.unresolvedKey(key)) }

            /// The app gave an object for the key, but nothing kept it alive once the restore let go of
            /// it (a stack holds its targets weakly): the resolver made an object and kept it nowhere.
            ///
            /// - Parameter key: The key.
            /// - Returns: The reason.
            public static func objectNotKept(_ key: String) -> Reason { Reason(.objectNotKept(key)) }

            /// The object found for a key is not of the class the command changes.
            ///
            /// - Parameters:
            ///   - key: The key.
            ///   - commandType: The command type's name.
            /// - Returns: The reason.
            public static func wrongTargetType(key: String, commandType: String) -> Reason {
                Reason(.wrongTargetType(key: key, commandType: commandType))
            }

            /// A branch, restored into a stack whose history is linear.
            public static var branchInLinearHistory: Reason { Reason(.branchInLinearHistory) }

            /// For ``command(_:)``, why the action could not be read back; nil for every other
            /// reason.
            public var commandProblem: SavedActionProblem? {
                if case .command(let problem) = code { problem } else { nil }
            }

            /// For ``unresolvedKey(_:)`` and ``wrongTargetType(key:commandType:)``, the target key;
            /// nil for every other reason.
            public var key: String? {
                switch code {
                case .unresolvedKey(let key), .objectNotKept(let key), .wrongTargetType(let key, _): key
                case .command, .branchInLinearHistory: nil
                }
            }

            /// For ``wrongTargetType(key:commandType:)``, the command type's name; nil for every
            /// other reason.
            public var commandType: String? {
                if case .wrongTargetType(_, let type) = code { type } else { nil }
            }

            /// What went wrong, as a sentence fragment.
            public var description: String {
                switch code {
                case .command(let problem): "\(problem)"
                case .unresolvedKey(let key): "no object for key \"\(key)\""
                case .objectNotKept(let key):
                    "the object for key \"\(key)\" was freed: nothing but the restore kept it alive"
                case .wrongTargetType(let key, let type):
                    "the object for key \"\(key)\" is not what command \"\(type)\" changes"
                case .branchInLinearHistory: "a branch, and the stack's history is linear"
                }
            }
        }

        /// A summary: "restored 5 steps; dropped 2 (node 3: no object for key "a")", with what the
        /// save had left out: "; the save left out 2 steps at and beyond "Paste", which holds a
        /// closure, not a command".
        public var description: String {
            let cutText = cuts.map { "node \($0.node): \($0.reason)" }.joined(separator: "; ")
            let omittedText = omittedWhenSaved.map(\.description).joined(separator: ", and ")
            return "restored \(restoredSteps) steps; dropped \(droppedSteps)"
                + (cuts.isEmpty ? "" : " (\(cutText))") + (trimmedSteps > 0 ? "; trimmed \(trimmedSteps)" : "")
                + (restoredCleanState ? "; clean state restored" : "")
                + (omittedWhenSaved.isEmpty ? "" : "; the save left out \(omittedText)")
        }
    }

    /// Why a history could not be saved or restored. Nothing changed.
    ///
    /// Extensible: new errors may be added in any release; do not switch exhaustively. Compare
    /// with a static member (`error == .groupIsOpen`), and read what an error carries through
    /// ``misuse`` and ``malformation``. The ``description`` is stable.
    public struct HistoryPersistenceError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The errors this version knows, with what each carries.
        private enum Code: Hashable, Sendable {
            case misuse(Misuse)
            case groupIsOpen
            case busy
            case malformed(String)
        }

        private let code: Code

        private init(_ code: Code) { self.code = code }

        /// The call was a misuse (also reported through ``ActionStack/misusePolicy``).
        ///
        /// - Parameter misuse: The misuse.
        /// - Returns: The error.
        public static func misuse(_ misuse: Misuse) -> HistoryPersistenceError {
            HistoryPersistenceError(.misuse(misuse))
        }

        /// A group is open on the undo stack: a change is in progress and is in no step yet.
        public static var groupIsOpen: HistoryPersistenceError { HistoryPersistenceError(.groupIsOpen) }

        /// An asynchronous operation is in progress or waiting, or a broken step waits for
        /// ``ActionStack/discardBrokenStep()`` or ``ActionStack/retryBrokenStep(isolation:)`` (the stack cannot
        /// tell the document's state, so there is no history to save).
        public static var busy: HistoryPersistenceError { HistoryPersistenceError(.busy) }

        /// The saved history is not a well-formed tree (a parent that is not in it, a node twice,
        /// a root or current node that is not in it).
        ///
        /// - Parameter reason: What is wrong.
        /// - Returns: The error.
        public static func malformed(_ reason: String) -> HistoryPersistenceError {
            HistoryPersistenceError(.malformed(reason))
        }

        /// For ``misuse(_:)``, the misuse; nil for every other error.
        public var misuse: Misuse? {
            if case .misuse(let misuse) = code { misuse } else { nil }
        }

        /// For ``malformed(_:)``, what is wrong with the saved history; nil for every other error.
        public var malformation: String? {
            if case .malformed(let reason) = code { reason } else { nil }
        }

        /// What went wrong, as a sentence fragment.
        public var description: String {
            switch code {
            case .misuse(let misuse): "\(misuse)"
            case .groupIsOpen: "a group is open on the undo stack; close it first"
            case .busy: "an asynchronous operation is in progress or waiting, or a step is broken"
            case .malformed(let reason): "the saved history is malformed: \(reason)"
            }
        }
    }

    /// How far from the current state the history can be saved: a step can be saved when every
    /// live action in it is a command (``UndoCommand``), and the part that can be saved reaches from
    /// the current state outward to the first step that cannot, since nothing beyond it could be
    /// reached after a relaunch. Each history entry says it too (``HistoryEntry/canBeSaved``).
    ///
    /// It counts as ``savedHistory(maximumSteps:)`` would save: the actions of freed targets are
    /// left out, and a step left with none is neither counted nor in the way, even when read from a
    /// handler or an observer, before the stack has swept them. A group still open is not a step
    /// yet: the depth is that of the closed steps (saving waits until the group closes).
    ///
    /// - Complexity: O(n) for the n stored actions.
    public var savableDepth: SavableDepth {
        enterCall()
        defer { leaveCall() }
        if isAtRest { history.sweepFreedTargets() }
        let layout = historyLayout()
        var depth = SavableDepth(undoSteps: 0, redoSteps: 0, branchSteps: 0)
        for item in layout.savableOrder(limit: .max) {
            switch item.place {
            case .undo: depth.undoSteps += 1
            case .redo: depth.redoSteps += 1
            case .branch: depth.branchSteps += 1
            }
        }
        return depth
    }

    /// The part of the history that can be saved, as values: the steps whose live actions are all
    /// commands, from the current state outward, each walk stopping at the first step that cannot
    /// be saved (see ``savableDepth``). At most `maximumSteps` steps are saved: the nearest to the
    /// current state first (by the number of steps between), the undo side before the redo side
    /// and the branches at the same distance, then the lowest node (so that a
    /// ``HistoryRecorder``'s recovery keeps the steps a save keeps).
    ///
    /// Actions whose targets were freed are not saved, and a step left with none is not saved at all.
    /// The clean state is saved when it is a node of the saved part. From a handler or an observer
    /// of an operation in progress it is the misuse ``Misuse/reentrantCall(_:during:)``.
    ///
    /// The history says what it left out, and why (``SavedHistory/omissions``): the steps at and
    /// beyond a step that holds a closure, with the name of the nearest such step, and the steps
    /// over `maximumSteps`. A save never leaves steps out silently: an app shows the omissions, or
    /// registers those changes as commands (``UndoCommand``, ``AsyncUndoCommand``) so that they
    /// are saved.
    ///
    /// ```swift
    /// stack.registerUndo(withTarget: document) { $0.text = "" }   // a closure
    /// stack.setActionName("Clear")
    /// stack.endEvent()
    /// let saved = try stack.savedHistory()
    /// print(saved.steps.count, saved.omittedSteps)   // 0 1
    /// print(saved.omissions[0])   // 1 step at and beyond "Clear", which holds a closure, not a command
    /// ```
    ///
    /// - Parameter maximumSteps: The most steps to save.
    /// - Returns: The history, for ``HistoryArchive``.
    /// - Throws: ``HistoryPersistenceError/groupIsOpen`` while a group is open,
    ///   ``HistoryPersistenceError/busy`` while an asynchronous operation is in progress or waiting
    ///   or a step is broken (see ``brokenStep``); `busy` when both apply. An asynchronous group
    ///   whose body is running is an asynchronous operation in progress: `busy` (its group is on a
    ///   side of its own, not open on the undo stack).
    ///   ``HistoryPersistenceError/misuse(_:)``.
    /// - Complexity: O(n + s log s) for the n actions and s steps held.
    public func savedHistory(maximumSteps: Int = .max) throws(HistoryPersistenceError) -> SavedHistory {
        enterCall()
        defer { leaveCall() }
        if let activity = activities.refusing(.savedHistory) {
            let misuse = Misuse.reentrantCall(.savedHistory, during: activity.reported)
            report(misuse)
            throw .misuse(misuse)
        }
        if steps.refusesHistoryMoves { throw .busy }
        guard undoSide.frames.isEmpty else { throw .groupIsOpen }
        history.sweepFreedTargets()
        // What is saved reads in the document as it is now.
        history.rebaseEverything()
        if history.tree == nil { return savedLinearHistory(limit: Swift.max(0, maximumSteps)) }
        let layout = historyLayout()
        let order = layout.savableOrder(limit: Swift.max(0, maximumSteps))
        let omissions = layout.omissions(saving: Set(order.map(\.index)))
        var root = layout.current
        var saved: [SavedStep] = []
        var cleanNode: Int? = layout.state[layout.current] == history.states.clean ? layout.current : nil
        for item in order {
            let located = layout.steps[item.index]
            if item.place == .undo { root = located.parent }
            if cleanNode == nil, let state = layout.state[located.node], state == history.states.clean {
                cleanNode = located.node
            }
            if cleanNode == nil, item.place == .undo, let state = layout.state[located.parent],
                state == history.states.clean
            {
                cleanNode = located.parent
            }
            saved.append(savedStep(located))
        }
        // Parents before children: by distance from the root of the saved part.
        let depth = layout.depths(from: root, over: Set(saved.map(\.node)))
        saved.sort { (depth[$0.node] ?? 0, $0.node) < (depth[$1.node] ?? 0, $1.node) }
        let rootDate = history.tree?.table.record(NodeNumber(root)).map {
            Date(timeIntervalSinceReferenceDate: $0.date)
        }
        var history = SavedHistory(
            shape: historyShape, root: root, current: layout.current, clean: cleanNode, steps: saved,
            rootDate: rootDate, omissions: omissions, remoteVersion: history.remote?.version)
        // The number the next change gets: above every node made, saved or not.
        if let tree = self.history.tree { history.nextNode = Int(tree.nextNumber) }
        return history
    }

    /// Puts a saved history back into this stack, which must be empty, and reports what came back.
    ///
    /// `resolvingTargets` finds the object for each target key (it is called once per key). The
    /// history is restored all at once or not at all, and never beyond a step that cannot be
    /// brought back: walking outward from the saved current state, a step with an action that could
    /// not be read (``SavedAction/problem``), whose key the app cannot resolve, or whose object is
    /// not of the class its command changes is left out with everything beyond it; the report says
    /// where and why.
    ///
    /// The stack holds its targets weakly, as it holds every target: the app keeps the objects it
    /// resolves alive (its document holds them, or a restored command does). The restore holds them
    /// while it decides, then lets go of them once before it builds anything: an object that
    /// nothing else keeps (a resolver that makes a new object and keeps it nowhere) is freed then,
    /// and the history is cut at the first step that names its key, with the reason
    /// ``RestoreReport/Reason/objectNotKept(_:)``, as at a key that does not resolve. So a restore
    /// never leaves a step whose target is already gone, and the report's counts are what the stack
    /// holds. An object the app frees later takes its actions with it, as any freed target does. The rest is restored exactly: names, dates, discardable flags, user info,
    /// costs, node numbers, the redo choices, and the clean state when it lies in the restored
    /// part (``isClean`` is then true exactly where it was). A branching history restored into a
    /// linear stack keeps the current path (the branches are cut, and reported). Then
    /// ``levelsOfUndo``, ``maximumCost`` and ``maximumBranchSteps`` apply.
    ///
    /// The restore is one call: observers hear one state update, and no undo or redo notification
    /// is posted. A restored step does not coalesce with the next registration.
    ///
    /// "Empty" means: no step on either stack once freed targets are swept, no branch, no open
    /// group (an empty one included), and no asynchronous operation in progress or waiting. It is
    /// checked again after `resolvingTargets` has run, and after the objects let go of were freed
    /// (their deinits are app code too): a resolver or a deinit that changes the stack (a change,
    /// another restore, a switch of ``historyShape``) makes the restore a misuse, and nothing of
    /// the saved history is restored.
    /// A history that ``SavedHistory/validate()`` refuses throws
    /// ``HistoryPersistenceError/malformed(_:)`` before the resolver is called.
    /// Anything else is the misuse ``Misuse/historyNotEmpty(_:)`` and nothing changes; so is a
    /// call from a handler or an observer of an operation in progress
    /// (``Misuse/reentrantCall(_:during:)``).
    ///
    /// - Parameters:
    ///   - saved: The history.
    ///   - resolvingTargets: The object for a key, or nil.
    /// - Returns: What came back.
    /// - Throws: ``HistoryPersistenceError``; nothing changed.
    /// - Complexity: O(a + s log s) for the a actions and s steps of `saved`, plus the resolver.
    @discardableResult
    public func restoreHistory(
        _ saved: SavedHistory, resolvingTargets: (String) -> AnyObject?
    ) throws(HistoryPersistenceError) -> RestoreReport {
        enterCall()
        defer { leaveCall() }
        if let activity = activities.refusing(.restoreHistory) {
            let misuse = Misuse.reentrantCall(.restoreHistory, during: activity.reported)
            report(misuse)
            throw .misuse(misuse)
        }
        try refuseUnlessEmpty()
        if !saved.isKnownValid {
            do {
                try saved.validate()
            } catch {
                throw .malformed("\(error)")
            }
        }
        // The plan is made for the history's shape as it is now: the resolver and the deinits of
        // the objects let go are app code, and one that switches ``historyShape`` changes the
        // stack as a change or another restore does (a plan for a linear history built into a
        // tree, or branches built into a linear history, would hold steps the report counts and
        // the stack does not).
        let linear = history.tree == nil
        if linear, var plan = LinearRestorePlan(saved) {
            plan.check(resolve: resolvingTargets)
            // As below: the resolver must not have changed the stack.
            try refuseUnlessStillEmpty(linear: linear)
            if plan.targets.letGo() {
                try refuseUnlessStillEmpty(linear: linear)
                if plan.keepsAStepNaming(plan.targets.released) { plan.check { _ in nil } }
            }
            return applyLinear(plan)
        }
        var plan = try RestorePlan(saved, linear: linear, targets: ResolvedTargets(), resolve: resolvingTargets)
        // The resolver is app code: if it changed the stack (a change, another restore, its
        // shape), the stack is no longer what the plan was made for, and this restore never mixes
        // with what it did.
        try refuseUnlessStillEmpty(linear: linear)
        // The stack holds its targets weakly: an object that only the restore kept alive is freed
        // when the restore lets go of it, and the history is cut at the first step that names it
        // (see `ResolvedTargets`). Their deinits are app code too, and run whether or not a kept
        // step names their keys.
        if plan.targets.letGo() {
            try refuseUnlessStillEmpty(linear: linear)
            if plan.keepsAStepNaming(plan.targets.released) {
                plan = try RestorePlan(saved, linear: linear, targets: plan.targets) { _ in nil }
            }
        }
        return apply(plan)
    }

    /// Reports and throws ``Misuse/historyNotEmpty(_:)`` unless the stack is still empty and its
    /// history still of the shape the restore planned for (`linear`): app code that ran during
    /// the restore (its resolver, a deinit) changed neither (see
    /// ``restoreHistory(_:resolvingTargets:)``).
    ///
    /// - Complexity: O(1), plus a sweep of freed targets.
    func refuseUnlessStillEmpty(linear: Bool) throws(HistoryPersistenceError) {
        try refuseUnlessEmpty()
        guard (history.tree == nil) == linear else {
            let misuse = Misuse.historyNotEmpty(.restoreHistory)
            report(misuse)
            throw .misuse(misuse)
        }
    }

    /// Reports and throws ``Misuse/historyNotEmpty(_:)`` unless the stack is empty (see
    /// ``restoreHistory(_:resolvingTargets:)``).
    func refuseUnlessEmpty() throws(HistoryPersistenceError) {
        if mayDropFreedSteps { history.sweepFreedTargets() }
        let busy = steps.isBusy
        let hasBranches = history.tree.map { !$0.branches.isEmpty } ?? false
        guard undoSide.closedCount == 0, redoSide.closedCount == 0, undoSide.frames.isEmpty, !hasBranches, !busy
        else {
            let misuse = Misuse.historyNotEmpty(.restoreHistory)
            report(misuse)
            throw .misuse(misuse)
        }
    }

    // MARK: Internals: saving

    /// One closed step of the history, located.
    struct LocatedStep {
        var side: Side
        var position: Int
        var start: Int
        var node: Int
        var parent: Int
        var place: Place
        var isRedoChoice: Bool
        var savable: Bool
        /// Whether every action of the step has a freed target (only before a sweep, during an
        /// operation): the step is as good as gone, counted by no walk and blocking none.
        var vanished = false
    }

    /// Where a step is.
    enum Place {
        case undo
        case redo
        case branch
    }

    /// Every closed step, with its node and parent, and the document state of each node.
    struct HistoryLayout {
        var steps: [LocatedStep] = []
        var current = 0
        var state: [Int: StateID] = [:]
        /// For each node, the steps that lead away from it (to its parent, and to its children).
        var neighbours: [Int: [Int]] = [:]

        /// The savable steps in the order of their distance from the current node (undo side
        /// first at each distance), stopping each walk at the first step that cannot be saved.
        func savableOrder(limit: Int) -> [(index: Int, place: Place)] {
            var result: [(index: Int, place: Place)] = []
            var reached: Set<Int> = [current]
            var frontier = [current]
            while !frontier.isEmpty && result.count < limit {
                var next: [Int] = []
                var candidates: [Int] = []
                for node in frontier { candidates += neighbours[node] ?? [] }
                // At one distance: the undo side, the redo side, the branches, then the lowest node,
                // which a history read back from a journal knows as the live stack does (the order
                // of its branches, by when they were last visited, it does not).
                candidates.sort {
                    (order(steps[$0].place), steps[$0].node) < (order(steps[$1].place), steps[$1].node)
                }
                for index in candidates where result.count < limit {
                    let step = steps[index]
                    let far = reached.contains(step.node) ? step.parent : step.node
                    guard !reached.contains(far), step.savable else { continue }
                    reached.insert(far)
                    if !step.vanished { result.append((index, step.place)) }
                    next.append(far)
                }
                frontier = next
            }
            return result
        }

        /// What a save of the steps `saved` leaves out: walking outward from the current node over
        /// every step, a step not saved counts for the first step not saved on its way (itself
        /// included): a step that holds a closure (``SavedHistory/Omission/Reason/closure``, named
        /// by the nearest such step: the fewest steps away, then the undo side, the redo side and
        /// the branches, then the lowest node), or one the limit left out
        /// (``SavedHistory/Omission/Reason/maximumSteps``). Vanished steps count for nothing.
        ///
        /// - Complexity: O(s) for the s steps.
        func omissions(saving saved: Set<Int>) -> [SavedHistory.Omission] {
            enum Way { case saved, overLimit, closure }
            var way: [Int: Way] = [current: .saved]
            var frontier = [current]
            var distance = 0
            var omitted = Omitted()
            while !frontier.isEmpty {
                distance += 1
                var next: [Int] = []
                for node in frontier {
                    let near = way[node] ?? .saved
                    for index in neighbours[node] ?? [] {
                        let step = steps[index]
                        let far = step.node == node ? step.parent : step.node
                        guard way[far] == nil else { continue }
                        var reached = near
                        if near == .saved && !saved.contains(index) && !step.vanished {
                            reached = step.savable ? .overLimit : .closure
                            if reached == .closure {
                                omitted.barrier(
                                    name: step.side.steps[step.position].name, distance: distance,
                                    rank: order(step.place), node: step.node)
                            }
                        }
                        way[far] = reached
                        if !step.vanished {
                            switch reached {
                            case .saved: break
                            case .overLimit: omitted.overLimit(1)
                            case .closure: omitted.closure(1)
                            }
                        }
                        next.append(far)
                    }
                }
                frontier = next
            }
            return omitted.omissions
        }

        private func order(_ place: Place) -> Int {
            switch place {
            case .undo: 0
            case .redo: 1
            case .branch: 2
            }
        }

        /// The distance of each of `nodes` from `root`, going down.
        func depths(from root: Int, over nodes: Set<Int>) -> [Int: Int] {
            var parent: [Int: Int] = [:]
            for step in steps where nodes.contains(step.node) { parent[step.node] = step.parent }
            var depth: [Int: Int] = [root: 0]
            func depthOf(_ node: Int) -> Int {
                if let known = depth[node] { return known }
                var chain: [Int] = []
                var current = node
                while depth[current] == nil, let up = parent[current] {
                    chain.append(current)
                    current = up
                }
                var value = depth[current] ?? 0
                for node in chain.reversed() {
                    value += 1
                    depth[node] = value
                }
                return depth[node] ?? 0
            }
            for node in nodes { _ = depthOf(node) }
            return depth
        }
    }

    /// The layout of the history as the stack holds it (at idle, swept).
    func historyLayout() -> HistoryLayout {
        var layout = HistoryLayout()
        func starts(_ side: Side) -> [Int] {
            var result = [Int](repeating: 0, count: side.steps.count)
            var start = side.base
            for position in 0..<side.steps.count {
                result[position] = start
                start += side.steps[position].actionCount
            }
            return result
        }
        func add(_ side: Side, _ position: Int, _ start: Int, node: Int, parent: Int, place: Place, choice: Bool) {
            let step = side.steps[position]
            // As saving sees the step once freed targets are swept: their actions are left out,
            // and a step left with none is gone.
            var savable = true
            var live = 0
            for index in start..<start + step.actionCount {
                let box = side.action(at: index).box
                guard !box.isMarkedDead, box.isAlive else { continue }
                live += 1
                if box.commandKey == nil { savable = false }
            }
            layout.neighbours[parent, default: []].append(layout.steps.count)
            layout.neighbours[node, default: []].append(layout.steps.count)
            layout.steps.append(
                LocatedStep(
                    side: side, position: position, start: start, node: node, parent: parent, place: place,
                    isRedoChoice: choice, savable: savable, vanished: step.actionCount > 0 && live == 0))
        }
        let undoStarts = starts(undoSide)
        let redoStarts = starts(redoSide)
        let numbered = history.tree != nil
        // The undo stack, from the root down; its states walking up from the current one.
        var parent = numbered ? Int(history.tree!.root) : 0
        for position in 0..<undoSide.steps.count {
            let node = numbered ? Int(undoSide.steps[position].node) : position + 1
            add(undoSide, position, undoStarts[position], node: node, parent: parent, place: .undo, choice: true)
            parent = node
        }
        layout.current = parent
        var state: StateID? = history.states.current
        layout.state[layout.current] = history.states.current
        for position in stride(from: undoSide.steps.count - 1, through: 0, by: -1) {
            let step = undoSide.steps[position]
            state = state == step.high ? step.low : nil
            let below = position > 0 ? (numbered ? Int(undoSide.steps[position - 1].node) : position) : nil
            if let state { layout.state[below ?? (numbered ? Int(history.tree!.root) : 0)] = state }
        }
        // A chain of redo steps (the redo stack, a branch): from its anchor down.
        func chain(
            _ side: Side, _ startsOf: [Int], from anchor: Int, place: Place, firstIsChoice: Bool, next: inout Int
        ) {
            var parent = anchor
            var state = layout.state[anchor]
            for position in stride(from: side.steps.count - 1, through: 0, by: -1) {
                let step = side.steps[position]
                let node: Int
                if numbered {
                    node = Int(step.node)
                } else {
                    node = next
                    next += 1
                }
                let choice = position < side.steps.count - 1 || firstIsChoice
                add(side, position, startsOf[position], node: node, parent: parent, place: place, choice: choice)
                state = state == step.low ? step.high : nil
                if let state { layout.state[node] = state }
                parent = node
            }
        }
        var next = undoSide.steps.count + 1
        chain(redoSide, redoStarts, from: layout.current, place: .redo, firstIsChoice: true, next: &next)
        if let tree = history.tree {
            // Branches, breadth first from the nodes known, so that each anchor's state is known.
            // The root too: its state is unknown when the document left the states the stack
            // knows (a rollback that skipped a freed target), and branches may leave from it.
            // Sorted (the lowest popped first): a dictionary's order changes from process to
            // process, and the same history saves the same steps in the same order in every run.
            var reached = (Array(layout.state.keys) + layout.steps.map(\.node) + [Int(tree.root)]).sorted(by: >)
            var seen: Set<Int> = []
            while let anchor = reached.popLast() {
                guard seen.insert(anchor).inserted else { continue }
                for branch in tree.branches(at: NodeNumber(anchor)) {
                    chain(
                        branch.side, starts(branch.side), from: anchor, place: .branch, firstIsChoice: false,
                        next: &next)
                    for position in 0..<branch.side.steps.count {
                        reached.append(Int(branch.side.steps[position].node))
                    }
                }
            }
        }
        return layout
    }

    /// `savedHistory()` of a linear history: the same walk as the general one (outward from the
    /// current state, the undo side first at each distance, each side stopping at its first step
    /// that cannot be saved), done on the two sides' arrays, with no map of nodes.
    ///
    /// - Complexity: O(s + a) for the s steps and a actions saved (plus the walk's stop).
    private func savedLinearHistory(limit: Int) -> SavedHistory {
        let undoCount = undoSide.steps.count
        let redoCount = redoSide.steps.count
        // Walking out from the current node on each side, the undo side first at each distance.
        var undo = SavedSideWalk(side: undoSide, state: history.states.current)
        var redo = SavedSideWalk(side: redoSide, state: history.states.current)
        // The clean node, the first node met on the walk whose state is the clean one (do-nothing
        // steps share a state with their parent).
        var cleanNode: Int? = history.states.clean == history.states.current ? undoCount : nil
        while (undo.isOpen || redo.isOpen) && undo.kept + redo.kept < limit {
            if undo.isOpen, let step = undo.advance() {
                // The step leads from node `undoCount - kept` to the node above it.
                undo.state = undo.state == step.high ? step.low : nil
                if cleanNode == nil, let state = undo.state, state == history.states.clean {
                    cleanNode = undoCount - undo.kept
                }
            }
            if redo.isOpen && undo.kept + redo.kept < limit, let step = redo.advance() {
                redo.state = redo.state == step.low ? step.high : nil
                if cleanNode == nil, let state = redo.state, state == history.states.clean {
                    cleanNode = undoCount + redo.kept
                }
            }
        }
        let undoKept = undo.kept
        let redoKept = redo.kept
        let undoStarts = undo.starts
        let redoStarts = redo.starts
        // Oldest first: the kept undo steps from the root down, then the redo steps from the
        // current node down.
        let root = undoCount - undoKept
        var saved: [SavedStep] = []
        saved.reserveCapacity(undoKept + redoKept)
        let capture = CommandCapture()
        for kept in stride(from: undoKept - 1, through: 0, by: -1) {
            let position = undoCount - 1 - kept
            saved.append(
                savedStep(
                    LocatedStep(
                        side: undoSide, position: position, start: undoStarts[kept], node: position + 1,
                        parent: position, place: .undo, isRedoChoice: true, savable: true), capture: capture))
        }
        for kept in 0..<redoKept {
            let position = redoCount - 1 - kept
            saved.append(
                savedStep(
                    LocatedStep(
                        side: redoSide, position: position, start: redoStarts[kept], node: undoCount + kept + 1,
                        parent: undoCount + kept, place: .redo, isRedoChoice: true, savable: true), capture: capture))
        }
        // What the walks left out: each side's steps beyond its walk, for the reason it stopped.
        var omitted = Omitted()
        for (walk, count) in [(undo, undoCount), (redo, redoCount)] where walk.kept < count {
            // A walk the limit stopped counts its next step's reason: a closure there stops it too.
            if walk.stoppedAtClosure || walk.nextHoldsAClosure {
                let barrier = walk.side.steps[walk.side.steps.count - 1 - walk.kept]
                omitted.closure(count - walk.kept)
                omitted.barrier(
                    name: barrier.name, distance: walk.kept + 1, rank: walk.side === undoSide ? 0 : 1, node: 0)
            } else {
                omitted.overLimit(count - walk.kept)
            }
        }
        var history = SavedHistory(
            shape: .linear, root: root, current: undoCount, clean: cleanNode, steps: saved,
            omissions: omitted.omissions, remoteVersion: history.remote?.version)
        // Made by this walk, which keeps each side's steps in a line from the root, with costs of
        // 0 or more: a valid history, unless a command type gave a version below 1.
        history.isKnownValid = !capture.sawVersionBelowOne
        return history
    }

    /// What a save leaves out, counted as the walks go (see ``SavedHistory/omissions``).
    struct Omitted {
        private var closureSteps = 0
        private var overLimitSteps = 0
        /// The nearest step that holds a closure so far: its name, and its distance, its place's
        /// rank and its node, which order the candidates.
        private var nearest: (name: String, distance: Int, rank: Int, node: Int)?

        /// `count` steps left out at and beyond a step that holds a closure.
        mutating func closure(_ count: Int) { closureSteps += count }

        /// A step that holds a closure: named in the omission when it is the nearest so far.
        mutating func barrier(name: String, distance: Int, rank: Int, node: Int) {
            if let nearest, (nearest.distance, nearest.rank, nearest.node) <= (distance, rank, node) { return }
            nearest = (name, distance, rank, node)
        }

        /// `count` steps left out by the limit.
        mutating func overLimit(_ count: Int) { overLimitSteps += count }

        /// The omissions, in the order of their reasons' raw values.
        var omissions: [SavedHistory.Omission] {
            var result: [SavedHistory.Omission] = []
            if closureSteps > 0 {
                result.append(.init(reason: .closure, steps: closureSteps, stepName: nearest?.name))
            }
            if overLimitSteps > 0 { result.append(.init(reason: .maximumSteps, steps: overLimitSteps)) }
            return result
        }
    }

    /// One side's walk outward from the current node, for saving a linear history: its steps taken
    /// while they can be saved, where each starts, and the document state of the node reached (nil
    /// once unknown).
    struct SavedSideWalk {
        let side: Side
        /// Where the next step's actions end.
        private var end: Int
        private(set) var kept = 0
        private(set) var isOpen: Bool
        /// Whether the walk stopped at a step that holds a closure (not at the side's end, nor at
        /// the limit).
        private(set) var stoppedAtClosure = false
        private(set) var starts: [Int] = []
        var state: StateID?

        init(side: Side, state: StateID) {
            self.side = side
            end = side.openStart
            isOpen = side.steps.count > 0
            self.state = state
        }

        /// Whether the next step outward holds an action that is not a command (one is left).
        ///
        /// - Complexity: O(a) for the step's a actions.
        var nextHoldsAClosure: Bool {
            let step = side.steps[side.steps.count - 1 - kept]
            var index = end - step.actionCount
            while index < end {
                if side.action(at: index).box.commandKey == nil { return true }
                index += 1
            }
            return false
        }

        /// Takes the next step outward and returns it when every action in it is a command; the
        /// walk stops otherwise (and at the side's last step).
        mutating func advance() -> Step? {
            let step = side.steps[side.steps.count - 1 - kept]
            let start = end - step.actionCount
            var index = start
            while index < end {
                if side.action(at: index).box.commandKey == nil {
                    isOpen = false
                    stoppedAtClosure = true
                    return nil
                }
                index += 1
            }
            starts.append(start)
            end = start
            kept += 1
            isOpen = kept < side.steps.count
            return step
        }
    }

    /// The saved form of a located step; `capture` is reused for every step.
    func savedStep(_ located: LocatedStep, capture: CommandCapture = CommandCapture()) -> SavedStep {
        let side = located.side
        let step = side.steps[located.position]
        var actions = SavedActionList()
        for index in located.start..<located.start + step.actionCount {
            let action = side.action(at: index)
            action.handler(capture)
            // Moved out of the capture (which is left empty), not copied.
            guard let command = capture.command.take(), let key = action.box.commandKey else { continue }
            let commandType = type(of: command)
            if commandType.version < 1 { capture.sawVersionBelowOne = true }
            actions.append(
                SavedAction(
                    command: command, commandType: commandType.commandType, version: commandType.version, key: key,
                    cost: side.cost(at: index)))
        }
        var info: [String: SavedValue] = [:]
        if let userInfo = step.metadata?.userInfo, !userInfo.isEmpty {
            for (key, value) in userInfo {
                if let saved = SavedValue(value) { info[key.rawValue] = saved }
            }
        }
        let date =
            history.tree.flatMap { $0.table.record(NodeNumber(located.node)) }
            .map { Date(timeIntervalSinceReferenceDate: $0.date) }
        return SavedStep(
            node: located.node, parent: located.parent, isRedoChoice: located.isRedoChoice, date: date,
            actionName: step.name, isDiscardable: step.isDiscardable, userInfo: info, actionList: actions)
    }

    // MARK: Internals: restoring

    /// What a restore will do, decided before anything changes.
    struct RestorePlan {
        struct Node {
            var step: SavedStep
        }
        var saved: SavedHistory
        /// The kept steps by node.
        var kept: [Int: Node] = [:]
        var cuts: [RestoreReport.Cut] = []
        var dropped = 0
        /// The objects the resolver gave, by key (see ``ResolvedTargets``).
        var targets: ResolvedTargets

        /// The plan for `saved`, resolving keys through `targets` (which asks `resolve` for a key it
        /// has not asked before).
        init(
            _ saved: SavedHistory, linear: Bool, targets: ResolvedTargets, resolve: (String) -> AnyObject?
        ) throws(HistoryPersistenceError) {
            self.saved = saved
            self.targets = targets
            // The history was validated: its node numbers are from 0 to `SavedHistory.maximumNode`,
            // which a branching stack's numbers hold with room for the changes after the restore.
            var byNode: [Int: SavedStep] = [:]
            var parentOf: [Int: Int] = [:]
            var children: [Int: [Int]] = [:]
            for step in saved.steps {
                guard byNode[step.node] == nil, step.node != saved.root else {
                    throw .malformed("node \(step.node) appears twice")
                }
                byNode[step.node] = step
                parentOf[step.node] = step.parent
                children[step.parent, default: []].append(step.node)
            }
            // Every node leads up to the root, without a cycle. A walk stops at a node known to lead
            // there, so each node is walked over once: O(s) in all, where a walk to the root from
            // every step was O(s²) in a linear history.
            var leadsToRoot: Set<Int> = [saved.root]
            var walked: [Int] = []
            for step in saved.steps {
                var node = step.node
                walked.removeAll(keepingCapacity: true)
                while !leadsToRoot.contains(node) {
                    guard let up = parentOf[node], walked.count <= saved.steps.count else {
                        throw .malformed("node \(step.node) does not lead to the root")
                    }
                    walked.append(node)
                    node = up
                }
                leadsToRoot.formUnion(walked)
            }
            guard saved.current == saved.root || byNode[saved.current] != nil else {
                throw .malformed("the current node \(saved.current) is not in the history")
            }
            if let clean = saved.clean, clean != saved.root, byNode[clean] == nil {
                throw .malformed("the clean node \(clean) is not in the history")
            }
            // The current path: kept if every step on it resolves; cut at the first that does not,
            // counted from the current node.
            var targets = targets
            defer { self.targets = targets }
            var kinds = RestoreCache()
            func check(_ step: SavedStep) -> RestoreReport.Reason? {
                for action in step.actions {
                    guard let command = action.command else {
                        return .command(action.problem ?? .unknownType(action.commandType))
                    }
                    guard let object = targets.object(for: action.key, resolve: resolve) else {
                        return targets.reasonForMissing(action.key)
                    }
                    guard let kind = kinds.kind(of: command), kind.takeUnretainedValue().fits(object) else {
                        return .wrongTargetType(key: action.key, commandType: action.commandType)
                    }
                }
                return nil
            }
            func subtreeSize(_ node: Int) -> Int {
                var count = 0
                var stack = [node]
                while let next = stack.popLast() {
                    count += 1
                    stack += children[next] ?? []
                }
                return count
            }
            // Up from the current node.
            var path: [Int] = []
            var node = saved.current
            while node != saved.root, let step = byNode[node] {
                path.append(node)
                node = step.parent
            }
            var newRoot = saved.root
            var onPath: Set<Int> = [saved.current]
            for node in path {
                let step = byNode[node]!
                if let reason = check(step) {
                    // This step and everything above it (and hanging from there) goes.
                    newRoot = node
                    let above = saved.steps.count - subtreeSize(node) + 1
                    cuts.append(RestoreReport.Cut(node: node, reason: reason, droppedSteps: above))
                    dropped += above
                    break
                }
                kept[node] = Node(step: step)
                onPath.insert(node)
                onPath.insert(step.parent)
            }
            self.newRoot = newRoot
            // Down from every kept node (and the current one, and the root): children not on the
            // path.
            var frontier = [newRoot] + kept.keys.sorted() + [saved.current]
            var visited: Set<Int> = []
            while let parent = frontier.popLast() {
                guard visited.insert(parent).inserted else { continue }
                for child in children[parent] ?? [] where kept[child] == nil && !onPath.contains(child) {
                    let step = byNode[child]!
                    if parent != saved.current && kept[parent] == nil && parent != newRoot { continue }
                    let isChoiceChain = step.isRedoChoice && (parent == saved.current || redoChain.contains(parent))
                    if linear && !isChoiceChain {
                        let size = subtreeSize(child)
                        cuts.append(RestoreReport.Cut(node: child, reason: .branchInLinearHistory, droppedSteps: size))
                        dropped += size
                        continue
                    }
                    if let reason = check(step) {
                        let size = subtreeSize(child)
                        cuts.append(RestoreReport.Cut(node: child, reason: reason, droppedSteps: size))
                        dropped += size
                        continue
                    }
                    kept[child] = Node(step: step)
                    if isChoiceChain { redoChain.insert(child) }
                    frontier.append(child)
                }
            }
        }

        /// Whether a kept step has an action on one of `keys`.
        ///
        /// - Complexity: O(a) for the a actions of the kept steps.
        func keepsAStepNaming(_ keys: Set<String>) -> Bool {
            kept.values.contains { node in node.step.actions.contains { keys.contains($0.key) } }
        }

        /// The root of the restored part.
        var newRoot = 0
        /// The nodes of the redo chain below the current node.
        var redoChain: Set<Int> = []

    }

    /// Builds the stacks from a plan (the stack is empty).
    private func apply(_ plan: RestorePlan) -> RestoreReport {
        let saved = plan.saved
        var childrenOf: [Int: [Int]] = [:]
        for node in plan.kept.keys.sorted() {
            childrenOf[plan.kept[node]!.step.parent, default: []].append(node)
        }
        // Each node's document state, parents first: a new one, or its parent's when its step
        // holds no action (a do-nothing step).
        var stateOf: [Int: StateID] = [plan.newRoot: history.freshState()]
        var pending = [plan.newRoot]
        while let parent = pending.popLast() {
            for child in childrenOf[parent] ?? [] {
                stateOf[child] =
                    plan.kept[child]!.step.actionList.count == 0 ? stateOf[parent]! : history.freshState()
                pending.append(child)
            }
        }
        func state(_ node: Int) -> StateID { stateOf[node] ?? 0 }
        // The plan resolved every key of a kept step to an object.
        var cache = RestoreCache(objects: plan.targets.objects.compactMapValues { $0 })
        func fill(_ side: Side, with node: Int) {
            let entry = plan.kept[node]!
            appendRestoredStep(
                entry.step, to: side, low: state(entry.step.parent), high: state(node),
                node: history.tree == nil ? 0 : NodeNumber(node), cache: &cache)
        }
        // The current path, from the new root down.
        var path: [Int] = []
        var node = saved.current
        while node != plan.newRoot, let entry = plan.kept[node] {
            path.append(node)
            node = entry.step.parent
        }
        for node in path.reversed() { fill(undoSide, with: node) }
        // The redo chain, deepest first.
        var chain: [Int] = []
        var at = saved.current
        while let next = (childrenOf[at] ?? []).first(where: { plan.redoChain.contains($0) }) {
            chain.append(next)
            at = next
        }
        for node in chain.reversed() { fill(redoSide, with: node) }
        // The branching history: the branches, then the node table with them.
        if history.tree != nil {
            let date = history.treeSettings.now()
            // The root's date: the saved root's, or the date of the change that led to the node
            // that became the root when a cut left out the steps above it; now when the history
            // holds neither.
            let rootDate =
                (plan.newRoot == saved.root
                ? saved.rootDate : saved.steps.first(where: { $0.node == plan.newRoot })?.date)?
                .timeIntervalSinceReferenceDate ?? date
            // Each child not placed yet starts a branch that follows the redo choices.
            var branches: [(side: Side, anchor: NodeNumber)] = []
            var placed = Set(path).union(chain)
            var anchors = [plan.newRoot] + path + chain
            var visited: Set<Int> = []
            while let anchor = anchors.popLast() {
                guard visited.insert(anchor).inserted else { continue }
                for child in childrenOf[anchor] ?? [] where !placed.contains(child) {
                    var members = [child]
                    var tip = child
                    while let next = (childrenOf[tip] ?? []).first(where: { plan.kept[$0]!.step.isRedoChoice }) {
                        members.append(next)
                        tip = next
                    }
                    placed.formUnion(members)
                    let side = Side()
                    for member in members.reversed() { fill(side, with: member) }
                    branches.append((side, NodeNumber(anchor)))
                    anchors += members
                }
            }
            let nodes = plan.kept.keys.sorted().map { number in
                let step = plan.kept[number]!.step
                return RestoredNode(
                    number: NodeNumber(number), parent: NodeNumber(step.parent),
                    date: step.date?.timeIntervalSinceReferenceDate ?? date)
            }
            // Numbers go on from the saved stack's next number: a number given to a change that
            // is gone (left out of the save, freed, pruned) is not given again. Without one, from
            // the highest node the saved history holds, not the highest restored: a step the
            // restore cut was a change, and keeps its number too.
            let highestSaved = saved.steps.reduce(saved.root) { Swift.max($0, $1.node) }
            history.installRestoredTree(
                root: NodeNumber(plan.newRoot), rootDate: rootDate, nodes: nodes, branches: branches,
                nextNumber: NodeNumber(Swift.max(highestSaved + 1, saved.nextNode ?? 0)))
        }
        let cleanKept = saved.clean.map { plan.kept[$0] != nil || $0 == plan.newRoot } ?? false
        history.finishRestore(current: state(saved.current), clean: cleanKept ? state(saved.clean!) : nil)
        restoreRemoteVersion(saved.remoteVersion)
        let before = undoSide.closedCount + redoSide.closedCount + (history.tree?.branchStepCount ?? 0)
        history.trimToLimits(limits)
        let after = undoSide.closedCount + redoSide.closedCount + (history.tree?.branchStepCount ?? 0)
        return RestoreReport(
            restoredSteps: plan.kept.count, droppedSteps: plan.dropped, cuts: plan.cuts,
            restoredCleanState: cleanKept, trimmedSteps: before - after, omittedWhenSaved: saved.omissions)
    }

    /// Appends a restored step to `side`: an action for each command, on the cached object of its
    /// key; then the step with its metadata.
    ///
    /// - Complexity: O(a) for the step's a actions.
    func appendRestoredStep(
        _ step: SavedStep, to side: Side, low: StateID, high: StateID, node: NodeNumber,
        cache: inout RestoreCache
    ) {
        withUnsafePointer(to: step) {
            appendRestoredStep(at: $0, to: side, low: low, high: high, node: node, cache: &cache)
        }
    }

    /// Appends the restored step at `step` to `side` (see
    /// ``appendRestoredStep(_:to:low:high:node:cache:)``). The step is read where it lies: a step
    /// passed by value out of an array is a copy, a retain and a release of each of its strings and
    /// arrays, which a restore of one-action steps would pay at every step.
    ///
    /// - Complexity: O(a) for the step's a actions.
    func appendRestoredStep(
        at step: UnsafePointer<SavedStep>, to side: Side, low: StateID, high: StateID, node: NodeNumber,
        cache: inout RestoreCache
    ) {
        history.appendRestoredStep(to: side, low: low, high: high, node: node) { actions in
            var holdsAsyncActions = false
            let count = step.pointee.actionList.count
            for index in 0..<count {
                // The plan kept only steps whose commands were read and fit their targets.
                let key = (index == 0 ? step.pointee.actionList.first.key : step.pointee.actionList.rest[index - 1].key)
                guard
                    let command =
                        (index == 0
                            ? step.pointee.actionList.first.command : step.pointee.actionList.rest[index - 1].command),
                    let kind = cache.kind(of: command),
                    let target = cache.object(for: key)
                else { continue }
                let handler = kind._withUnsafeGuaranteedRef { $0.makeHandler(command, self) }
                holdsAsyncActions = holdsAsyncActions || kind._withUnsafeGuaranteedRef { $0.isAsync }
                actions.append(
                    on: target, commandKey: key,
                    cost: (index == 0
                        ? step.pointee.actionList.first.cost : step.pointee.actionList.rest[index - 1].cost),
                    handler: handler)
            }
            let isDiscardable = step.pointee.isDiscardable
            let hasUserInfo = !step.pointee.userInfo.isEmpty
            guard !step.pointee.actionName.isEmpty || isDiscardable || hasUserInfo || holdsAsyncActions
            else { return nil }
            // Steps alike share their metadata, which is copied on write (see `StepMetadata`): a
            // history of steps of one name costs one object, not one per step.
            if let last = cache.lastMetadata, !hasUserInfo, last.userInfo.isEmpty,
                last.name == step.pointee.actionName,
                last.isDiscardable == isDiscardable, last.holdsAsyncActions == holdsAsyncActions
            {
                return last
            }
            let made = StepMetadata()
            made.name = step.pointee.actionName
            made.isDiscardable = isDiscardable
            made.holdsAsyncActions = holdsAsyncActions
            for (key, value) in step.pointee.userInfo { made.userInfo[UserInfoKey(rawValue: key)] = value.value }
            cache.lastMetadata = made
            return made
        }
    }

    /// The stored handler of a command action.
    func commandHandler<Command: UndoCommand>(_ command: Command) -> (AnyObject) -> Void {
        // unowned(unsafe), as registerUndo(_:on:key:) captures it: the stack holds the handler, and
        // only the stack calls it, from its own methods (a strong capture kept every stack that
        // restored a command alive).
        { [unowned(unsafe) self] object in
            if let capture = object as? CommandCapture {
                capture.command = command
                return
            }
            command.perform(on: unsafeDowncast(object, to: Command.Target.self), in: self)
        }
    }
}
