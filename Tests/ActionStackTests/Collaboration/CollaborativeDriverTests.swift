// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import ActionStackTestSupport
import Foundation
import Testing

/// A random driver of collaborative undo: this user's edits, a peer's edits, undo and redo,
/// awaited steps with a peer's edit arriving while they await (and awaited steps that then fail and
/// roll back), asynchronous groups with a peer's edits arriving while their body awaits (one in four
/// throws and rolls back), saves and restores, removals, clean marks, limits set and changed
/// (``ActionStack/levelsOfUndo``, ``ActionStack/maximumCost``, and in a branching history
/// ``ActionStack/maximumBranchSteps``) and observers that call back into the stack, interleaved at
/// random, with the stack checked against ``CollaborativeTextModel`` after every operation. On a
/// branching history (`CollaborativeBranchingDriverTests.swift`) it also jumps to any node, moves
/// in time and jumps to the root and back, against ``CollaborativeTreeModel``; with two documents in
/// an ``ActionStackGroup`` (`CollaborativeStackGroupDriverTests.swift`) each is its own model.
///
/// Every operation goes into the run's log; a failing expectation prints the run's seed and its
/// last operations (`Run/trace`), and the seed replays the run.
///
/// This user types capital letters, the peer small ones. The properties checked:
/// - the document, ``ActionStack/canUndo``, ``ActionStack/canRedo`` and the name of the next step
///   are the model's after every operation (the Edit menu says what the next press does);
/// - a press of Undo or Redo does what the model's does;
/// - undoing everything this user did leaves exactly the document the model leaves (with none of
///   this user's letters), and redoing everything brings it back;
/// - a remote change makes the document unsaved;
/// - an observer always heard the state the stack is in;
/// - in a linear history the counts and the history entries are the model's, dead steps not yet
///   found included, and the limits trim what the model trims; in a branching one the model follows
///   what the stack trimmed and pruned and checks that the limits allowed it
///   (``CollaborativeTreeModel/follow(_:)``);
/// - an observer of the did-undo and did-redo notifications reads the Edit menu, the counts and the
///   entries the model has after the press; a `markClean()` it makes holds, and a call the stack
///   must refuse there (an undo, a remote change, emptying the history) is a misuse that changes
///   nothing;
/// - the stack's invariants hold.
@Suite(.serialized) @MainActor struct CollaborativeDriverTests {
    /// One run: a document, its stack, the model, what an observer heard.
    @MainActor final class Run {
        var document: SharedText
        /// The reference model: ``CollaborativeTextModel`` for a linear history,
        /// ``CollaborativeTreeModel`` for a branching one.
        var model: any CollaborativeModel
        var random: SeededGenerator
        var heard: ActionStack.State?
        var heardTitles: (undo: String, redo: String)?
        /// Whether a removal left letters of this user's that no step takes back.
        var keptLetters = false
        /// The undo edits (in the order they run) of the asynchronous group of this user's that is
        /// open, as they read now; nil when none is open.
        var openGroup: [CollaborativeTextModel.Edit]?
        /// The cost each of this user's steps was registered with, by node (branching history).
        var costs: [Int: Int] = [:]
        var token: ObservationToken?
        /// The observers of the stack's did-undo and did-redo notifications (``callBack(_:)``).
        var notificationObservers: [any NSObjectProtocol] = []
        /// What the notification observer does when it hears the next step undone or redone.
        var callBackMode = CallBack.read
        /// Whether the notification observer marked the document saved during the last press.
        var observerMarkedClean = false
        /// The model after the press in progress (``press(undo:)``): what the notification observer
        /// must read.
        var expectedAfterPress: (any CollaborativeModel)?
        /// ``ActionStack/levelsOfUndo``, ``ActionStack/maximumCost`` and
        /// ``ActionStack/maximumBranchSteps`` as the run last set them (``changeLimits()``).
        var levelsOfUndo = 0
        var maximumCost = 0
        var maximumBranchSteps = 0
        /// Whether the notification observer changed a limit during the last press (a trim made
        /// earlier in the call followed the old one).
        var limitChangedInCall = false
        var hasLimits: Bool { levelsOfUndo > 0 || maximumCost > 0 || maximumBranchSteps > 0 }
        var log: [String] = []
        var stepNumber = 0
        var operationCount = 0
        let async: Bool
        let shape: ActionStack.HistoryShape
        /// The label a failing run's messages start with (which run of which driver).
        let label: String

        /// Whether the stack goes through its branches in the reverse of its order (a test hook:
        /// what it does must not depend on it).
        let reversesBranches: Bool

        init(
            seed: UInt64, async: Bool, shape: ActionStack.HistoryShape = .linear, label: String = "",
            reversesBranches: Bool = false
        ) {
            random = SeededGenerator(seed: seed)
            self.reversesBranches = reversesBranches
            self.async = async
            self.shape = shape
            self.label = label.isEmpty ? "seed \(seed)" : label
            model = shape == .tree ? CollaborativeTreeModel() : CollaborativeTextModel()
            document = SharedText()
            configure(document.stack)
        }

        func configure(_ stack: ActionStack) {
            stack.groupsByEvent = false
            stack.misusePolicy = .report
            stack._goesThroughBranchesInReverseOrder = reversesBranches
            stack.dropsEmptyGroups = true
            if shape == .tree && stack.historyShape != .tree { stack.historyShape = .tree }
            token?.cancel()
            token = stack.observe { [unowned self, unowned stack] state in
                // An observer that calls back in: it reads what an Edit menu reads.
                self.heard = state
                self.heardTitles = (stack.undoMenuItemTitle, stack.redoMenuItemTitle)
            }
            for observer in notificationObservers { NotificationCenter.default.removeObserver(observer) }
            notificationObservers = [ActionStack.didUndoChangeNotification, ActionStack.didRedoChangeNotification].map {
                name in
                NotificationCenter.default.addObserver(forName: name, object: stack, queue: nil) { [weak self] note in
                    // The observer outlives the run (the center keeps it), and another suite's stack,
                    // notifying off the main actor, may take this stack's address once it is gone:
                    // only this run's stack's notifications, on the main thread, are heard.
                    guard Thread.isMainThread else { return }
                    let object = note.object.map { ObjectIdentifier($0 as AnyObject) }
                    MainActor.assumeIsolated {
                        guard let self, object == ObjectIdentifier(self.document.stack) else { return }
                        self.callBack(undo: name == ActionStack.didUndoChangeNotification)
                    }
                }
            }
        }

        /// What the observer of the did-undo and did-redo notifications does.
        enum CallBack {
            /// Reads the counts, the titles and the history entries.
            case read
            /// Reads, then marks the document saved (allowed while the stack notifies).
            case markClean
            /// Reads, then makes a call the stack refuses while it notifies (an undo, a remote
            /// change, emptying the history): a misuse that changes nothing.
            case misuse
            /// Reads, then sets ``ActionStack/levelsOfUndo`` (allowed: the stack trims at the end of
            /// the call, or of the awaited request).
            case changeLimit
        }

        /// The observer of the did-undo and did-redo notifications: it calls back into the stack, as
        /// an app's history view does, and sometimes makes a call (``callBackMode``).
        func callBack(undo: Bool) {
            if let after = expectedAfterPress {
                // The step is done: the Edit menu, the counts and the entries are the model's after it.
                #expect(stack.canUndo == after.canUndo, "the observer read canUndo: \(trace)")
                #expect(stack.canRedo == after.canRedo, "the observer read canRedo: \(trace)")
                #expect(stack.undoActionName == after.undoName, "the observer read the Undo name: \(trace)")
                #expect(stack.redoActionName == after.redoName, "the observer read the Redo name: \(trace)")
                if let linear = after as? CollaborativeTextModel {
                    #expect(stack.undoCount == linear.undoStack.count, "the observer read undoCount: \(trace)")
                    #expect(stack.redoCount == linear.redoStack.count, "the observer read redoCount: \(trace)")
                    let names = stack.undoEntries.map(\.actionName)
                    #expect(names == linear.undoStack.reversed().map(\.name), "the observer read the entries: \(trace)")
                }
            }
            let undoEntries = stack.undoEntries
            let redoEntries = stack.redoEntries
            #expect(undoEntries.count == stack.undoCount, "the observer read the undo entries: \(trace)")
            #expect(redoEntries.count == stack.redoCount, "the observer read the redo entries: \(trace)")
            // The next steps are the ones the Edit menu offers, named.
            #expect(stack.canUndo == !stack.undoActionName.isEmpty, "the observer read the Undo name: \(trace)")
            #expect(stack.canRedo == !stack.redoActionName.isEmpty, "the observer read the Redo name: \(trace)")
            switch callBackMode {
            case .read:
                break
            case .markClean:
                stack.markClean()
                #expect(stack.isClean, "the observer marked the document saved: \(trace)")
                observerMarkedClean = true
            case .changeLimit:
                limitChangedInCall = true
                levelsOfUndo = random.chance(30) ? 0 : random.int(1...8)
                log.append("  observer of did\(undo ? "Undo" : "Redo") sets levelsOfUndo = \(levelsOfUndo)")
                stack.levelsOfUndo = levelsOfUndo
                #expect(stack.levelsOfUndo == levelsOfUndo, "the observer set the limit: \(trace)")
            case .misuse:
                let before = (
                    stack.state, String(document.text), undoEntries.map(\.actionName), redoEntries.map(\.actionName)
                )
                stack.lastMisuse = nil
                let call = random.int(0...2)
                let operation: ActionStack.Misuse.Operation
                switch call {
                case 0:
                    operation = .undo
                    stack.undo()
                case 1:
                    operation = .applyRemoteChange
                    let applied = stack.applyRemoteChange(Self.textEdit([.insert(0, "z")], local: false)) {
                        Issue.record("a remote change reported from an observer was applied: \(trace)")
                    }
                    #expect(!applied, "the remote change was refused: \(trace)")
                default:
                    operation = .removeAllActions
                    stack.removeAllActions()
                }
                log.append("  observer of did\(undo ? "Undo" : "Redo") calls \(operation) (refused)")
                #expect(stack.lastMisuse?.operation == operation, "the call was refused: \(trace)")
                #expect(stack.lastMisuse?.activity != nil, "as a reentrant call: \(trace)")
                let after = (
                    stack.state, String(document.text), stack.undoEntries.map(\.actionName),
                    stack.redoEntries.map(\.actionName)
                )
                #expect(before == after, "the refused call changed nothing: \(trace)")
            }
        }

        /// Sets ``ActionStack/levelsOfUndo``, ``ActionStack/maximumCost`` or (in a branching
        /// history) ``ActionStack/maximumBranchSteps`` to a small limit or to none: the stack trims at
        /// once, and at every step after, as the model does.
        func changeLimits() {
            switch random.int(0...2) {
            case 0:
                levelsOfUndo = random.chance(30) ? 0 : random.int(1...8)
                log.append("levelsOfUndo = \(levelsOfUndo)")
                stack.levelsOfUndo = levelsOfUndo
            case 1:
                maximumCost = random.chance(30) ? 0 : random.int(1...16)
                log.append("maximumCost = \(maximumCost)")
                stack.maximumCost = maximumCost
            default:
                guard shape == .tree else { return changeLimits() }
                maximumBranchSteps = random.chance(30) ? 0 : random.int(1...6)
                log.append("maximumBranchSteps = \(maximumBranchSteps)")
                stack.maximumBranchSteps = maximumBranchSteps
            }
            modelLimits()
            // Steps trimmed away leave this user's letters that no step takes back.
            if hasLimits { keptLetters = true }
        }

        /// The model learns the limits, and trims as the stack did when they were set.
        func modelLimits() {
            guard var linear = model as? CollaborativeTextModel else { return }
            linear.levelsOfUndo = levelsOfUndo
            linear.maximumCost = maximumCost
            linear.trim()
            model = linear
        }

        /// Sets the run's limits on a fresh stack.
        func applyLimits(to stack: ActionStack) {
            stack.levelsOfUndo = levelsOfUndo
            stack.maximumCost = maximumCost
            if shape == .tree { stack.maximumBranchSteps = maximumBranchSteps }
        }

        var stack: ActionStack { document.stack }

        /// `ACTIONSTACK_COLLABORATIVE_COMPARE_STEPS=1`: after every operation, compare every stored
        /// step, rebased by a save, with the model's (to find where a run first went wrong).
        static let comparesEveryStep =
            ProcessInfo.processInfo.environment["ACTIONSTACK_COLLABORATIVE_COMPARE_STEPS"] != nil

        func letters(_ upper: Bool) -> String {
            let alphabet = Array(upper ? "ABCDEFGHIJKLMNOPQRSTUVWXYZ" : "abcdefghijklmnopqrstuvwxyz")
            return String((0..<random.int(1...3)).map { _ in alphabet[random.int(0...25)] })
        }

        /// A random edit of the text as it is: an insertion, a deletion, or a replacement.
        func randomEdits(upper: Bool) -> [CollaborativeTextModel.Edit] { randomEdits(upper: upper, of: model.text) }

        /// A random edit of `text`.
        func randomEdits(upper: Bool, of text: [Character]) -> [CollaborativeTextModel.Edit] {
            let count = text.count
            let kind = count == 0 ? 0 : random.int(0...2)
            switch kind {
            case 0:
                return [.insert(random.int(0...count), letters(upper))]
            case 1:
                let start = random.int(0...(count - 1))
                let length = random.int(1...min(3, count - start))
                return [.delete(start, String(text[start..<start + length]))]
            default:
                let start = random.int(0...(count - 1))
                let length = random.int(1...min(3, count - start))
                return [.delete(start, String(text[start..<start + length])), .insert(start, letters(upper))]
            }
        }

        /// A peer's change arrives: the document and the model receive it (past the group of this
        /// user's that is open, if one is).
        func receive(_ edits: [CollaborativeTextModel.Edit]) {
            document.receive(Self.textEdit(edits, local: false))
            if var group = openGroup {
                model.remote(edits, openGroup: &group)
                openGroup = group
            } else {
                model.remote(edits)
            }
        }

        static func textEdit(_ edits: [CollaborativeTextModel.Edit], local: Bool) -> TextEdit {
            var pieces: [SequenceEdit<Unicode.Scalar>.Piece] = []
            var index = 0
            while index < edits.count {
                if local, index + 1 < edits.count, case .delete(let at, let old) = edits[index],
                    case .insert(let insertAt, let new) = edits[index + 1], at == insertAt
                {
                    let (old, new) = (Array(old.unicodeScalars), Array(new.unicodeScalars))
                    pieces += SequenceEdit.replace(old, with: new, at: at).pieces
                    index += 2
                    continue
                }
                switch edits[index] {
                case .insert(let at, let text): pieces.append(.insert(Array(text.unicodeScalars), at: at))
                case .delete(let at, let text): pieces.append(.delete(Array(text.unicodeScalars), at: at))
                }
                index += 1
            }
            return TextEdit(SequenceEdit(pieces))
        }

        func local() {
            let edits = randomEdits(upper: true)
            stepNumber += 1
            let name = "S\(stepNumber)"
            log.append("local \(edits) \(name)")
            stack.beginUndoGrouping()
            let edit = Self.textEdit(edits, local: true)
            // Awaited steps state no cost (an asynchronous registration has none).
            let cost = async ? 0 : random.int(1...3)
            if async {
                try! edit.apply(to: &document.text)
                stack.registerAsyncUndo(DriverTextCommand(edit: edit.inverse), on: document, key: SharedText.key)
            } else {
                try! edit.apply(to: &document.text)
                stack.registerUndo(
                    DriverCostedTextCommand(edit: edit.inverse, cost: cost), on: document, key: SharedText.key,
                    options: .cost(cost))
            }
            stack.setActionName(name)
            stack.endUndoGrouping()
            model.local(edits, name: name, cost: cost)
            // The step's node keeps it through undo, redo, rebasing and restores: the cost the
            // tree's limit counts (a group's steps and awaited ones cost 0).
            if let node = stack.currentNode { costs[node.sequence] = cost }
        }

        /// The peer types (or deletes) a few characters a key at a time: changes that wait merged.
        func remoteBurst() {
            var position = random.int(0...model.text.count)
            let deleting = random.chance(30) && model.text.count > 3
            for _ in 0..<random.int(2...5) {
                let edits: [CollaborativeTextModel.Edit]
                if deleting {
                    guard position > 0 else { break }
                    position -= 1  // Backspace
                    edits = [.delete(position, String(model.text[position]))]
                } else {
                    edits = [.insert(position, letters(false).prefix(1).description)]
                    position += 1
                }
                log.append("remote key \(edits)")
                receive(edits)
            }
        }

        func remote() {
            if random.chance(25) { return remoteBurst() }
            let edits = randomEdits(upper: false)
            log.append("remote \(edits)")
            receive(edits)
            #expect(!stack.isClean, "a remote change makes the document unsaved")
        }

        func press(undo: Bool) async {
            log.append(undo ? "undo" : "redo")
            let expected = undo ? model.canUndo : model.canRedo
            // What the notification observer must hear once the step is done: the model after the
            // press, whose dead steps the stack finds only once the call has ended (they count).
            // An awaited redo trims to the limits once the whole request has ended, after its
            // did-notification.
            var after = model
            if async, var linear = after as? CollaborativeTextModel {
                (linear.levelsOfUndo, linear.maximumCost) = (0, 0)
                after = linear
            }
            if undo { after.undo() } else { after.redo() }
            expectedAfterPress = expected ? after : nil
            defer { expectedAfterPress = nil }
            let did: Bool
            if async {
                do {
                    did = try await (undo ? stack.performUndo() : stack.performRedo())
                } catch {
                    Issue.record("the press failed: \(error); \(trace)")
                    did = false
                }
            } else {
                did = undo ? stack.canUndo : stack.canRedo
                if undo { stack.undo() } else { stack.redo() }
            }
            #expect(did == expected, "the press did what the Edit menu said: \(trace)")
            if async && !undo, var linear = model as? CollaborativeTextModel {
                // An awaited redo trims once the whole request has ended, to the limits as they are
                // then (an observer may have changed them meanwhile).
                (linear.levelsOfUndo, linear.maximumCost) = (0, 0)
                linear.redo()
                model = linear
                modelLimits()
            } else if undo {
                model.undo()
            } else {
                model.redo()
            }
        }

        /// An awaited undo with a peer's edit arriving while its step awaits the server.
        func undoWithARemoteChangeMeanwhile() async {
            // A group's step (named "G…") holds several actions: the gate would hold it half undone,
            // which the model does not follow; it is pressed plainly.
            guard async, model.canUndo, !model.undoName.hasPrefix("G") else { return await press(undo: true) }
            let gate = Gate()
            DriverTextCommand.gate = gate
            defer { DriverTextCommand.gate = nil }
            let stack = self.stack
            let task = Task { @MainActor in (try? await stack.performUndo()) ?? false }
            await settle { gate.waitingCount == 1 }
            // The step's action has made its change and awaits: the model undoes, then the peer edits.
            model.undo()
            guard awaitedStepMatches(String(model.text)) else { return gate.openForGood() }
            let edits = randomEdits(upper: false)
            log.append("undo awaiting; remote \(edits)")
            receive(edits)
            gate.openForGood()
            #expect(await task.value)
        }

        func saveAndRestore() {
            log.append("save and restore")
            guard let saved = try? stack.savedHistory() else { return }
            var registry = CommandRegistry()
            registry.register(TextCommand.self)
            registry.register(DriverTextCommand.self)
            registry.register(DriverCostedTextCommand.self)
            let data = try! HistoryArchive(fingerprint: "text", histories: ["main": saved]).encoded()
            let archive = try! HistoryArchive(decoding: data, registry: registry)
            let fresh = SharedText(String(document.text), stack: ActionStack())
            configure(fresh.stack)
            try! fresh.stack.restoreHistory(archive.histories["main"]!) { _ in fresh }
            applyLimits(to: fresh.stack)
            document = fresh
            // The save rebased every step: the dead ones were found, and the restore holds none.
            model.dropDeadSteps()
            // A restored tree numbers its next change as the saved one would have (the saved
            // history keeps its next number): the model's numbering goes on unchanged.
        }

        /// What a failing expectation prints: the run (its seed reproduces it) and its last operations.
        var trace: String { "\(label), operation \(operationCount): \(log.suffix(Self.fullTrace ? 1000 : 12))" }
        static let fullTrace = ProcessInfo.processInfo.environment["ACTIONSTACK_COLLABORATIVE_FULL_TRACE"] != nil

        func check() {
            #expect(String(document.text) == String(model.text), "the document: \(trace)")
            #expect(stack.canUndo == model.canUndo, "canUndo: \(trace)")
            #expect(stack.canRedo == model.canRedo, "canRedo: \(trace)")
            #expect(stack.undoActionName == model.undoName, "the Undo name: \(trace)")
            #expect(stack.redoActionName == model.redoName, "the Redo name: \(trace)")
            if let tree = model as? CollaborativeTreeModel {
                #expect(stack.currentNode?.sequence == tree.current, "the current node: \(trace)")
            }
            checkCounts()
            operationCount += 1
            // The invariant check walks the whole history: every few operations.
            if operationCount % 16 == 0 { stack._checkInvariants() }
            if let heard { #expect(heard == stack.state, "the observer heard the state: \(trace)") }
            if let heardTitles {
                let titles = (stack.undoMenuItemTitle, stack.redoMenuItemTitle)
                #expect(heardTitles == titles, "the observer read the Edit menu's titles: \(trace)")
            }
            if Self.comparesEveryStep, let model = model as? CollaborativeTextModel,
                let saved = try? stack.savedHistory()
            {
                // Every stored step, rebased, is the model's. (Off by default: saving rebases every
                // step at once, which would hide a fault of the lazy rebasing the run checks.)
                let undoSteps = saved.steps.filter { $0.node <= saved.current }.sorted { $0.node > $1.node }
                for (index, step) in undoSteps.enumerated() where index < model.undoStack.count {
                    let modelStep = model.undoStack[model.undoStack.count - 1 - index]
                    let edit =
                        (step.actions.first?.command as? TextCommand)?.edit.description
                        ?? (step.actions.first?.command as? DriverTextCommand)?.edit.description
                        ?? (step.actions.first?.command as? DriverCostedTextCommand)?.edit.description ?? "?"
                    let expected = modelStep.edits.map { edit -> String in
                        switch edit {
                        case .insert(let at, let text): "+\"\(text)\"@\(at)"
                        case .delete(let at, let text): "-\"\(text)\"@\(at)"
                        }
                    }.joined(separator: " ")
                    if edit != expected {
                        Issue.record("step \(modelStep.name): stack \(edit), model \(expected); \(trace)")
                        break
                    }
                }
            }
        }

        /// The counts, the history entries and what the limits left. The Edit menu has looked (the
        /// dead steps at the tops are found); in a linear history the counts and the entries are
        /// the model's, dead steps not yet found included; in a branching one the model follows what
        /// the stack trimmed and pruned (``CollaborativeTreeModel/follow(_:)``) and checks it.
        func checkCounts() {
            model.findDeadSteps()
            if let linear = model as? CollaborativeTextModel {
                #expect(stack.undoCount == linear.undoStack.count, "undoCount: \(trace)")
                #expect(stack.redoCount == linear.redoStack.count, "redoCount: \(trace)")
                guard hasLimits || operationCount % 8 == 0 else { return }
                let names = stack.undoEntries.map(\.actionName)
                #expect(names == linear.undoStack.reversed().map(\.name), "the undo entries: \(trace)")
                let redoNames = stack.redoEntries.map(\.actionName)
                #expect(redoNames == linear.redoStack.reversed().map(\.name), "the redo entries: \(trace)")
                return
            }
            guard var tree = model as? CollaborativeTreeModel else { return }
            if hasLimits {
                let held = stack.historyTree!
                let (problems, rerooted, pruned) = tree.follow(held)
                for problem in problems { Issue.record("\(problem): \(trace)") }
                model = tree
                // The steps held off the current path and the redo path: the branches.
                let byNumber = Dictionary(uniqueKeysWithValues: held.nodes.map { ($0.sequence, $0) })
                var onPaths: Set<Int> = []
                var node: ActionStack.HistoryNode.ID? = held.current
                while let id = node {
                    onPaths.insert(id.sequence)
                    node = byNumber[id.sequence]?.parent
                }
                node = byNumber[held.current.sequence]?.redoChild
                while let id = node {
                    onPaths.insert(id.sequence)
                    node = byNumber[id.sequence]?.redoChild
                }
                let branchSteps = held.nodes.count - onPaths.count
                if maximumBranchSteps > 0 {
                    #expect(branchSteps <= maximumBranchSteps, "maximumBranchSteps holds: \(trace)")
                }
                // A limit drops no more than it must (the cost limit aside, which counts both).
                if maximumCost == 0 && rerooted && !limitChangedInCall {
                    #expect(stack.undoCount == levelsOfUndo, "the trim kept levelsOfUndo steps: \(trace)")
                }
                if maximumCost == 0 && pruned && !limitChangedInCall {
                    #expect(branchSteps == maximumBranchSteps, "the prune kept maximumBranchSteps: \(trace)")
                }
                // The cost limit counts the undo path and the branches (not the redo path): over it,
                // only the newest undo step may be left, with no branch.
                if maximumCost > 0 {
                    var undoSteps = 0
                    var total = 0
                    var node = byNumber[held.current.sequence]
                    while let step = node, let parent = step.parent {
                        undoSteps += 1
                        total += costs[step.id.sequence] ?? 0
                        node = byNumber[parent.sequence]
                    }
                    for branchNode in held.nodes where !onPaths.contains(branchNode.sequence) {
                        total += costs[branchNode.sequence] ?? 0
                    }
                    #expect(
                        total <= maximumCost || (undoSteps <= 1 && branchSteps == 0),
                        "maximumCost holds: \(total) held over \(undoSteps) undo steps and \(branchSteps) branch steps: \(trace)"
                    )
                }
            }
            let pathLength = tree.path(to: tree.current).count - 1
            #expect(stack.undoCount >= pathLength, "undoCount counts the current path's steps: \(trace)")
            guard hasLimits else { return }
            if levelsOfUndo > 0 {
                #expect(stack.undoCount <= levelsOfUndo, "levelsOfUndo holds: \(trace)")
            }
            #expect(String(document.text) == String(model.text), "a trim left the document: \(trace)")
            #expect(stack.undoActionName == model.undoName, "a trim left the Undo name: \(trace)")
            #expect(stack.redoActionName == model.redoName, "a trim left the Redo name: \(trace)")
        }

        // MARK: Failures and asynchronous groups

        /// An awaited undo whose step hears a peer's edit while it awaits the server, then fails:
        /// the rollback leaves the document where the step started, with the peer's edit in it, and
        /// the step, moved past the edit, is still the next undo.
        func failedUndoWithARemoteChangeMeanwhile() async {
            // A group's step (named "G…") holds several actions: the gate would hold it half undone,
            // which the model does not follow; it is pressed plainly.
            guard async, model.canUndo, !model.undoName.hasPrefix("G") else { return await press(undo: true) }
            let gate = Gate()
            DriverTextCommand.gate = gate
            DriverTextCommand.failures = 1
            defer {
                DriverTextCommand.gate = nil
                DriverTextCommand.failures = 0
            }
            let stack = self.stack
            let task = Task { @MainActor in try await stack.performUndo() }
            await settle { gate.waitingCount == 1 }
            // The step's action has made its change: the peer edits the text as it is now.
            var undone = model
            undone.undo()
            guard awaitedStepMatches(String(undone.text)) else { return gate.openForGood() }
            let edits = randomEdits(upper: false, of: undone.text)
            log.append("undo awaiting, then failing; remote \(edits)")
            document.receive(Self.textEdit(edits, local: false))
            model.failedUndo(withRemote: edits)
            gate.openForGood()
            let result = await task.result
            #expect(throws: ActionStack.OperationError.self, "the undo failed: \(trace)") { try result.get() }
        }

        /// Whether the document, while an awaited step is held at the gate, is `expected` (the model
        /// after the step); a mismatch is recorded (a peer's edit made from the model's text would
        /// not fit the document).
        func awaitedStepMatches(_ expected: String) -> Bool {
            let matches = String(document.text) == expected
            #expect(matches, "the awaited step made the model's change: \(document.text) vs \(expected); \(trace)")
            return matches
        }

        /// One part of an open group: this user's edit, recorded in the group.
        func groupPart() {
            let edits = randomEdits(upper: true)
            log.append("  group part \(edits)")
            let edit = Self.textEdit(edits, local: true)
            if async {
                try! edit.apply(to: &document.text)
                stack.registerAsyncUndo(DriverTextCommand(edit: edit.inverse), on: document, key: SharedText.key)
            } else {
                document.edit(edit)
            }
            var inverses: [CollaborativeTextModel.Edit] = []
            for edit in CollaborativeTextModel.normalized(edits) {
                model.apply(edit)
                inverses.append(edit.inverse)
            }
            openGroup = inverses.reversed() + (openGroup ?? [])
        }

        /// An asynchronous group of this user's edits whose body awaits a server after its first
        /// part, while peers' edits arrive (the open group moves past them at once); one group in
        /// four throws at the end and rolls back, with the peers' edits kept.
        func asyncGroupWithRemoteChangesMeanwhile() async {
            stepNumber += 1
            let name = "G\(stepNumber)"
            let parts = random.int(1...3)
            let fails = random.chance(25)
            log.append("async group \(name), \(parts) parts\(fails ? ", failing" : "")")
            let gate = Gate()
            openGroup = []
            let stack = self.stack
            let task = Task { @MainActor in
                try await stack.asyncGroup(named: name) {
                    for part in 0..<parts {
                        self.groupPart()
                        if part == 0 { await gate.pass() }
                    }
                    if fails { throw GroupFailure() }
                }
            }
            await settle { gate.waitingCount == 1 }
            for _ in 0..<random.int(1...2) {
                let edits = randomEdits(upper: false)
                log.append("  remote while the group awaits \(edits)")
                receive(edits)
            }
            gate.openForGood()
            let result = await task.result
            let group = openGroup ?? []
            openGroup = nil
            if fails {
                #expect(throws: GroupFailure.self, "the group's body threw: \(trace)") { try result.get() }
                // The rollback runs the group's undo edits, as they read now.
                for edit in group { model.apply(edit) }
            } else {
                #expect(throws: Never.self, "the group closed: \(trace)") { try result.get() }
                if !group.isEmpty { model.push(undoEdits: group, name: name) }
            }
        }

        // MARK: Branching history

        /// Moves the document to node `target` (awaited in a run of awaited steps), and the model.
        func jump(to target: Int) async {
            let id = ActionStack.HistoryNode.ID(sequence: target)
            if async {
                do {
                    try await stack.performJump(toNode: id)
                } catch {
                    Issue.record("the jump failed: \(error); \(trace)")
                }
            } else {
                do {
                    try stack.jump(toNode: id)
                } catch {
                    Issue.record("the jump failed: \(error); \(trace)")
                }
            }
            var tree = model as! CollaborativeTreeModel
            tree.jump(to: target)
            model = tree
        }

        /// A jump to any node of the tree: along the current path, or into another branch.
        func jumpToANode() async {
            guard let tree = model as? CollaborativeTreeModel else { return local() }
            let nodes = tree.nodes.keys.sorted()
            let target = nodes[random.int(0...(nodes.count - 1))]
            log.append("jump to #\(target) from #\(tree.current)")
            await jump(to: target)
        }

        /// `earlier(n)` or `later(n)`: a move in time, across branches (in a run of awaited steps,
        /// the awaited jump to the node the model says it reaches).
        func moveInTime() async {
            guard var tree = model as? CollaborativeTreeModel else { return local() }
            let count = random.int(1...4)
            let back = random.chance(50)
            let target = back ? tree.earlier(count) : tree.later(count)
            log.append("\(back ? "earlier" : "later")(\(count)) from #\(tree.current) to #\(target)")
            if async { return await jump(to: target) }
            do {
                let reached = try back ? stack.earlier(count) : stack.later(count)
                #expect(reached.sequence == target, "the move in time reached the model's node: \(trace)")
            } catch {
                Issue.record("the move in time failed: \(error); \(trace)")
            }
            tree.jump(to: target)
            model = tree
        }

        /// Jumps to the root and back: at the root none of this user's letters is left (only the
        /// peer's), and back at the node the document is the model's again.
        func rootAndBack() async {
            guard let tree = model as? CollaborativeTreeModel else { return local() }
            let node = tree.current
            log.append("jump to the root and back to #\(node)")
            await jump(to: tree.root)
            check()
            if !keptLetters {
                #expect(
                    !String(document.text).contains { $0.isUppercase }, "no letter of this user's at the root: \(trace)"
                )
            }
            await jump(to: node)
        }

        func operation() async {
            limitChangedInCall = false
            switch random.int(0...127) {
            case 120..<124: changeLimits()
            case 124..<128: await pressWithAnObserverThatCallsBack()
            case 100..<104: await asyncGroupWithRemoteChangesMeanwhile()
            case 104..<107: await failedUndoWithARemoteChangeMeanwhile()
            case 107..<113: await jumpToANode()
            case 113..<117: await moveInTime()
            case 117..<120: await rootAndBack()
            default: await classicOperation()
            }
            check()
        }

        /// A press of Undo or Redo heard by the notification observer, which marks the document
        /// saved, makes a call the stack must refuse, or sets a limit.
        func pressWithAnObserverThatCallsBack() async {
            callBackMode = [.markClean, .misuse, .changeLimit][random.int(0...2)]
            observerMarkedClean = false
            defer { callBackMode = .read }
            let undo = random.chance(60)
            log.append("observer \(callBackMode) on the next \(undo ? "undo" : "redo")")
            await press(undo: undo)
            if observerMarkedClean {
                #expect(stack.isClean, "the observer's markClean() held: \(trace)")
            }
            if callBackMode == .changeLimit {
                // The limit the observer set trimmed once the call had ended.
                modelLimits()
                if hasLimits { keptLetters = true }
            }
        }

        func classicOperation() async {
            switch random.int(0...99) {
            case 0..<30: local()
            case 30..<55: remote()
            case 55..<72: await press(undo: true)
            case 72..<84: await press(undo: false)
            case 84..<89: await undoWithARemoteChangeMeanwhile()
            case 89..<92: saveAndRestore()
            case 92..<97:
                log.append("markClean")
                stack.markClean()
                #expect(stack.isClean)
            case 97:
                // The document's object goes (a peer deleted the whole text, say): its steps go too.
                log.append("removeAllActions(withTarget:)")
                stack.removeAllActions(withTarget: document)
                model.removeAll()
                // The letters typed so far stay: no step is left to take them back.
                keptLetters = true
            default:
                // Undo and redo everything, and back: this user's letters all go, then come back.
                log.append("undo all, redo all")
                var pressed = 0
                while model.canUndo {
                    await press(undo: true)
                    pressed += 1
                }
                if !keptLetters {
                    #expect(!String(document.text).contains { $0.isUppercase }, "no letter of this user's is left")
                }
                check()
                for _ in 0..<pressed where model.canRedo { await press(undo: false) }
            }
        }
    }

    static func operations(
        seed: UInt64, count: Int, async: Bool, shape: ActionStack.HistoryShape = .linear,
        reversesBranches: Bool = soakReversesBranches
    ) async {
        let run = Run(seed: seed, async: async, shape: shape, reversesBranches: reversesBranches)
        for _ in 0..<count { await run.operation() }
    }

    /// 96,000 operations in 240 runs (the model rebases every step at every remote change, so
    /// runs are kept short), and 24,000 more with awaited steps below; with the branching and
    /// stack-group runs (`CollaborativeBranchingDriverTests`, `CollaborativeStackGroupDriverTests`),
    /// about 166,000 in a default run. The suite holds the main actor while it runs, and every
    /// main-actor suite of the package waits for it, so the default run is kept to about 40 s;
    /// `soak` below drives millions.
    @Test(arguments: 0..<Workload.scaled(240))
    func theStackIsTheModelAfterEveryOperation(seed: Int) async {
        await Self.operations(seed: UInt64(seed), count: 400, async: false)
        await Workload.yield()
    }

    @Test(arguments: 0..<Workload.scaled(60))
    func awaitedStepsAreTheModelToo(seed: Int) async {
        await Self.operations(seed: UInt64(10_000 + seed), count: 400, async: true)
        await Workload.yield()
    }

    /// A run the soak found failing in about four runs of ten, when the stack went through the
    /// branches of its tree in the order of a dictionary's keys: a save's rebase removed a branch's
    /// dead newest step before the branch above it handed on a peer's change, and the branch that
    /// left from the dead step's node missed it (`BranchesRebasedIndependentlyTests`). The driver
    /// has drawn other operations since (limits, observers that call back), so the seed no longer
    /// replays that run; it is run in both orders of the branches.
    @Test(arguments: [false, true])
    func aSoakRunThatDependedOnTheOrderOfTheBranchesIsTheModel(reversed: Bool) async {
        await Self.operations(seed: 1_000_439, count: 2_000, async: false, shape: .tree, reversesBranches: reversed)
    }

    nonisolated static let soakOperations = ProcessInfo.processInfo.environment[
        "ACTIONSTACK_COLLABORATIVE_SOAK_OPERATIONS"
    ]
    .flatMap { Int($0) }

    /// `ACTIONSTACK_COLLABORATIVE_REVERSED_BRANCHES=1`: every run goes through the branches in the
    /// reverse of the stack's order (`_goesThroughBranchesInReverseOrder`).
    nonisolated static let soakReversesBranches =
        ProcessInfo.processInfo.environment["ACTIONSTACK_COLLABORATIVE_REVERSED_BRANCHES"] != nil

    nonisolated static let soakSeed = ProcessInfo.processInfo.environment["ACTIONSTACK_COLLABORATIVE_SOAK_SEED"]
        .flatMap { UInt64($0) }

    /// `ACTIONSTACK_COLLABORATIVE_SOAK_OPERATIONS=10000000 swift test --filter CollaborativeDriverTests/soak`;
    /// `ACTIONSTACK_COLLABORATIVE_SOAK_SEED=N` starts at seed N (a failure names its seed: each seed
    /// is a run of 2,000 operations, so `OPERATIONS=2000` with the seed replays one run).
    @Test(.enabled(if: soakOperations != nil, "set ACTIONSTACK_COLLABORATIVE_SOAK_OPERATIONS to soak"))
    func soak() async {
        let total = Self.soakOperations ?? 0
        var done = 0
        let first = Self.soakSeed ?? 1_000_000
        var seed = first
        while done < total {
            await Self.operations(
                seed: seed, count: 2_000, async: seed % 4 == 0, shape: seed % 2 == 1 ? .tree : .linear)
            done += 2_000
            seed += 1
        }
        print("collaborative soak: \(done) operations from seed \(first)")
    }
}
