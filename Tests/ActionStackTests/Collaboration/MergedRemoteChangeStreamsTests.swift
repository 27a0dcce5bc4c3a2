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

// Streams of remote changes that a step holds merged (`MergeableChange`) land the steps exactly as
// the same changes held one by one: two mergeable types alternating, a change of another type
// between, a generic wrapper, a type whose merge sometimes refuses, changes passed as `any
// Sendable`, and a class type. The one-by-one history is the same stream with a change no command
// reads between every two changes, which keeps every change apart.

/// A text document shared with peers, whose changes are undone by ``MergedStreamTextCommand``.
final class MergedStreamText {
    var text: String
    let stack: ActionStack
    /// Problems met while applying an edit (a step that lands outside the text).
    var problems: [String] = []

    init(_ text: String, stack: ActionStack) {
        self.text = text
        self.stack = stack
    }

    func apply(_ edit: TextEdit) {
        do {
            try edit.apply(to: &text)
        } catch {
            problems.append("\(edit) on \"\(text)\": \(error)")
        }
    }

    /// This user's edit, one step.
    func edit(_ edit: TextEdit) {
        stack.beginUndoGrouping()
        apply(edit)
        stack.registerUndo(MergedStreamTextCommand(edit: edit.inverse), on: self, key: "text")
        stack.endUndoGrouping()
    }
}

/// Undoes an edit of a ``MergedStreamText``; rebased over ``TextEdit``s.
struct MergedStreamTextCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.merged-stream.text"
    var edit: TextEdit

    func perform(on document: MergedStreamText, in stack: ActionStack) {
        document.apply(edit)
        stack.registerUndo(MergedStreamTextCommand(edit: edit.inverse), on: document, key: "text")
    }

    func rebased(over change: TextEdit) -> MergedStreamTextCommand? {
        edit.rebased(over: change).map(MergedStreamTextCommand.init)
    }
    func transform(_ change: TextEdit) -> TextEdit? { edit.transform(change) }
}

/// A change no command reads: between two changes, it keeps them apart.
private struct Separator: Sendable {}

/// A text change wrapped in a generic type (`Tagged<Int>` and `Tagged<String>` are two types).
protocol TaggedTextEdit: Sendable {
    var edit: TextEdit { get }
}

struct Tagged<Tag: Sendable>: TaggedTextEdit, MergeableChange {
    var edit: TextEdit
    mutating func merge(_ next: Tagged<Tag>) -> Bool { edit.merge(next.edit) }
}

/// Undoes an edit of a ``MergedStreamText``; rebased over any ``TaggedTextEdit``.
struct TaggedTextCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.merged-stream.tagged"
    var edit: TextEdit

    func perform(on document: MergedStreamText, in stack: ActionStack) {
        document.apply(edit)
        stack.registerUndo(TaggedTextCommand(edit: edit.inverse), on: document, key: "text")
    }

    func rebased(over change: any TaggedTextEdit) -> TaggedTextCommand? {
        edit.rebased(over: change.edit).map(TaggedTextCommand.init)
    }
    func transform(_ change: any TaggedTextEdit) -> (any TaggedTextEdit)? {
        edit.transform(change.edit).map { Tagged<Void>(edit: $0) }
    }
}

/// A text change whose merge refuses every other time it is asked (a type may keep changes apart
/// for reasons of its own).
struct Moody: MergeableChange {
    var edit: TextEdit
    nonisolated(unsafe) static var asked = 0
    mutating func merge(_ next: Moody) -> Bool {
        Self.asked += 1
        guard Self.asked % 2 == 0 else { return false }
        return edit.merge(next.edit)
    }
}

struct MoodyTextCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.merged-stream.moody"
    var edit: TextEdit

    func perform(on document: MergedStreamText, in stack: ActionStack) {
        document.apply(edit)
        stack.registerUndo(MoodyTextCommand(edit: edit.inverse), on: document, key: "text")
    }

    func rebased(over change: Moody) -> MoodyTextCommand? { edit.rebased(over: change.edit).map(MoodyTextCommand.init) }
    func transform(_ change: Moody) -> Moody? { edit.transform(change.edit).map(Moody.init) }
}

/// A list document shared with peers, changed by ``SequenceEdit``s of integers.
final class MergedStreamList {
    var items: [Int]
    var problems: [String] = []
    init(_ items: [Int]) { self.items = items }

    func apply(_ edit: SequenceEdit<Int>) {
        do {
            try edit.apply(to: &items)
        } catch {
            problems.append("\(edit) on \(items): \(error)")
        }
    }
}

struct MergedStreamListCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.merged-stream.list"
    var edit: SequenceEdit<Int>

    func perform(on list: MergedStreamList, in stack: ActionStack) {
        list.apply(edit)
        stack.registerUndo(MergedStreamListCommand(edit: edit.inverse), on: list, key: "list")
    }

    func rebased(over change: SequenceEdit<Int>) -> MergedStreamListCommand? {
        edit.rebased(over: change).map(MergedStreamListCommand.init)
    }
    func transform(_ change: SequenceEdit<Int>) -> SequenceEdit<Int>? { edit.transform(change) }
}

/// A text change held by reference: the stack cannot own it alone.
final class SharedTextChange: MergeableChange, @unchecked Sendable {  // mutated by merge only, in one test
    private(set) var edit: TextEdit
    init(_ edit: TextEdit) { self.edit = edit }
    func merge(_ next: SharedTextChange) -> Bool { edit.merge(next.edit) }
}

struct SharedChangeTextCommand: UndoCommand, RebasableCommand {
    static let commandType = "test.merged-stream.shared"
    var edit: TextEdit

    func perform(on document: MergedStreamText, in stack: ActionStack) {
        document.apply(edit)
        stack.registerUndo(SharedChangeTextCommand(edit: edit.inverse), on: document, key: "text")
    }

    func rebased(over change: SharedTextChange) -> SharedChangeTextCommand? {
        edit.rebased(over: change.edit).map(SharedChangeTextCommand.init)
    }
    func transform(_ change: SharedTextChange) -> SharedTextChange? {
        edit.transform(change.edit).map(SharedTextChange.init)
    }
}

@MainActor
@Suite struct MergedRemoteChangeStreamsTests {
    /// A peer's run of edits of `text`: typing forward or backward, Delete, Backspace, or one
    /// edit anywhere, each reading in the text the one before it leaves.
    private static func run(in text: String, using random: inout SeededGenerator) -> [TextEdit] {
        var scalars = Array(text.unicodeScalars)
        var edits: [TextEdit] = []
        var cursor = Int.random(in: 0...scalars.count, using: &random)
        let kind = Int.random(in: 0..<5, using: &random)
        for _ in 0..<Int.random(in: 1...5, using: &random) {
            let letter = String(UnicodeScalar(UInt8(ascii: "p") + UInt8.random(in: 0..<8, using: &random)))
            let edit: TextEdit
            switch kind {
            case 0:  // typing
                edit = .insert(letter, at: cursor)
                cursor += 1
            case 1:  // typing before the cursor
                edit = .insert(letter, at: cursor)
            case 2:  // Delete
                guard cursor < scalars.count else { return edits }
                edit = .delete(String(scalars[cursor]), at: cursor)
            case 3:  // Backspace
                guard cursor > 0 else { return edits }
                cursor -= 1
                edit = .delete(String(scalars[cursor]), at: cursor)
            default:  // anywhere
                let at = Int.random(in: 0...scalars.count, using: &random)
                if Bool.random(using: &random), at < scalars.count {
                    edit = .delete(String(scalars[at]), at: at)
                } else {
                    edit = .insert(letter, at: at)
                }
            }
            var string = String(String.UnicodeScalarView(scalars))
            try? edit.apply(to: &string)
            scalars = Array(string.unicodeScalars)
            edits.append(edit)
        }
        return edits
    }

    /// A user's edit of `text`.
    private static func userEdit(of text: String, using random: inout SeededGenerator) -> TextEdit {
        let scalars = Array(text.unicodeScalars)
        let at = Int.random(in: 0...scalars.count, using: &random)
        if Bool.random(using: &random), at < scalars.count {
            let end = Swift.min(scalars.count, at + Int.random(in: 1...3, using: &random))
            return .delete(String(String.UnicodeScalarView(scalars[at..<end])), at: at)
        }
        return .insert(["A", "BC", "D"].randomElement(using: &random)!, at: at)
    }

    /// Seeded runs: a few user steps, some undone, peers' runs between them; then every undo and
    /// every redo. The text after each must be the same with the changes merged and kept apart.
    @Test(arguments: 0..<200) func mergedTextEditsLandAsOneByOne(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 1)
        let merged = ActionStack()
        let apart = ActionStack()
        for stack in [merged, apart] {
            stack.groupsByEvent = false
            stack.misusePolicy = .report
            if seed % 2 == 1 { stack.historyShape = .tree }
        }
        let a = MergedStreamText("hello world", stack: merged)
        let b = MergedStreamText("hello world", stack: apart)
        var log: [String] = []
        for _ in 0..<Int.random(in: 3...12, using: &random) {
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                let edit = Self.userEdit(of: a.text, using: &random)
                log.append("user \(edit)")
                a.edit(edit)
                b.edit(edit)
            case 2:
                log.append("undo")
                merged.undo()
                apart.undo()
            case 3:
                log.append("redo")
                merged.redo()
                apart.redo()
            default:
                for edit in Self.run(in: a.text, using: &random) {
                    log.append("peer \(edit)")
                    merged.applyRemoteChange(edit) { a.apply(edit) }
                    apart.applyRemoteChange(Separator()) {}
                    apart.applyRemoteChange(edit) { b.apply(edit) }
                }
            }
            #expect(a.text == b.text, "\(log)")
        }
        var moves = 0
        while merged.canUndo || apart.canUndo {
            merged.undo()
            apart.undo()
            moves += 1
            #expect(a.text == b.text, "undo \(moves) after \(log)")
            if a.text != b.text || moves > 20 { break }
        }
        while merged.canRedo || apart.canRedo {
            merged.redo()
            apart.redo()
            moves += 1
            #expect(a.text == b.text, "redo \(moves) after \(log)")
            if a.text != b.text || moves > 40 { break }
        }
        #expect(a.problems == b.problems)
    }

    /// Peers' runs that arrive while the user's group is open (between two of its edits), in
    /// a linear and a branching history: the group lands as over the changes one by one.
    @Test(arguments: [false, true]) func runsDuringAnOpenGroupLandAsOneByOne(tree: Bool) {
        func build(apart: Bool) -> (ActionStack, MergedStreamText) {
            let stack = ActionStack()
            stack.groupsByEvent = false
            if tree { stack.historyShape = .tree }
            let text = MergedStreamText("hello world", stack: stack)
            text.edit(.insert("1", at: 5))
            stack.undo()
            func receive(_ edits: [TextEdit]) {
                for edit in edits {
                    if apart { stack.applyRemoteChange(Separator()) {} }
                    stack.applyRemoteChange(edit) { text.apply(edit) }
                }
            }
            stack.beginUndoGrouping()
            text.apply(.insert("A", at: 0))
            stack.registerUndo(MergedStreamTextCommand(edit: .delete("A", at: 0)), on: text, key: "text")
            receive([.insert("x", at: 3), .insert("y", at: 4), .insert("z", at: 5)])
            text.apply(.delete("w", at: 10))
            stack.registerUndo(MergedStreamTextCommand(edit: .insert("w", at: 10)), on: text, key: "text")
            receive([.delete("r", at: 11), .delete("o", at: 10)])
            stack.endUndoGrouping()
            receive([.insert("!", at: 12), .insert("?", at: 13)])
            return (stack, text)
        }
        let (merged, mergedText) = build(apart: false)
        let (apart, apartText) = build(apart: true)
        #expect(mergedText.text == "Ahexyzllo ld!?")
        merged.undo()
        apart.undo()
        #expect(mergedText.text == apartText.text)
        #expect(mergedText.text == "hexyzllo wld!?")
        merged.redo()
        apart.redo()
        #expect(mergedText.text == apartText.text)
        #expect(mergedText.problems.isEmpty && apartText.problems.isEmpty)
    }

    /// Text and list changes alternating, both mergeable, with a change no command reads between
    /// some: each type's run merges across the other type's changes as far as the log allows, and
    /// every undo and redo lands as with the changes one by one.
    @Test func twoMergeableTypesAlternatingLandAsOneByOne() {
        func build(apart: Bool) -> (ActionStack, MergedStreamText, MergedStreamList) {
            let stack = ActionStack()
            stack.groupsByEvent = false
            let text = MergedStreamText("abc", stack: stack)
            let list = MergedStreamList([1, 2, 3])
            text.edit(.insert("X", at: 1))
            stack.beginUndoGrouping()
            list.apply(.insert([9], at: 1))
            stack.registerUndo(MergedStreamListCommand(edit: .delete([9], at: 1)), on: list, key: "list")
            stack.endUndoGrouping()
            text.edit(.delete("c", at: 3))
            stack.undo()  // a redo step too
            // Typing "pq" at 0 and appending 7, 8 to the list, alternating; a separator between
            // the second pair.
            let stream: [any Sendable] = [
                TextEdit.insert("p", at: 0), SequenceEdit<Int>.insert([7], at: 4),
                TextEdit.insert("q", at: 1), Separator(), SequenceEdit<Int>.insert([8], at: 5),
                TextEdit.insert("r", at: 2), SequenceEdit<Int>.insert([6], at: 6),
            ]
            for change in stream {
                if apart { stack.applyRemoteChange(Separator()) {} }
                switch change {
                case let edit as TextEdit: stack.applyRemoteChange(edit) { text.apply(edit) }
                case let edit as SequenceEdit<Int>: stack.applyRemoteChange(edit) { list.apply(edit) }
                default: stack.applyRemoteChange(change) {}
                }
            }
            return (stack, text, list)
        }
        let (merged, mergedText, mergedList) = build(apart: false)
        let (apart, apartText, apartList) = build(apart: true)
        #expect(mergedText.text == "pqraXbc" && mergedList.items == [1, 9, 2, 3, 7, 8, 6])
        func same(_ label: String) {
            #expect(mergedText.text == apartText.text, "\(label)")
            #expect(mergedList.items == apartList.items, "\(label)")
        }
        merged.redo()
        apart.redo()
        same("redo")
        #expect(mergedText.text == "pqraXb")
        for index in 0..<3 {
            merged.undo()
            apart.undo()
            same("undo \(index)")
        }
        #expect(mergedText.text == "pqrabc" && mergedList.items == [1, 2, 3, 7, 8, 6])
        #expect(mergedText.problems.isEmpty && apartText.problems.isEmpty)
    }

    /// `Tagged<Int>` and `Tagged<String>` are two types: they never merge with each other, each
    /// merges with its own, and a command reading both lands as one by one.
    @Test func genericWrappersOfTwoTagsMergeEachWithItsOwn() {
        func build(apart: Bool) -> (ActionStack, MergedStreamText) {
            let stack = ActionStack()
            stack.groupsByEvent = false
            let text = MergedStreamText("hello", stack: stack)
            stack.beginUndoGrouping()
            text.apply(.insert("!", at: 5))
            stack.registerUndo(TaggedTextCommand(edit: .delete("!", at: 5)), on: text, key: "text")
            stack.endUndoGrouping()
            let stream: [any TaggedTextEdit] = [
                Tagged<Int>(edit: .insert("a", at: 0)), Tagged<Int>(edit: .insert("b", at: 1)),
                Tagged<String>(edit: .insert("c", at: 2)), Tagged<String>(edit: .insert("d", at: 3)),
                Tagged<Int>(edit: .insert("e", at: 4)),
            ]
            for change in stream {
                if apart { stack.applyRemoteChange(Separator()) {} }
                stack.applyRemoteChange(change) { text.apply(change.edit) }
            }
            return (stack, text)
        }
        let (merged, mergedText) = build(apart: false)
        let (apart, apartText) = build(apart: true)
        // Passed as `any TaggedTextEdit`, each change is still of its own type: Int's two merge,
        // String's two merge, the last Int stays apart (a String run came between).
        #expect(merged._unseenRemoteChanges().count == 3)
        merged.undo()
        apart.undo()
        #expect(mergedText.text == "abcdehello")
        #expect(mergedText.text == apartText.text)
        merged.redo()
        apart.redo()
        #expect(mergedText.text == "abcdehello!")
        #expect(mergedText.text == apartText.text)
    }

    /// A merge that refuses sometimes: what it keeps apart stays apart, what it merges merges, and
    /// the step lands as over the changes one by one.
    @Test func aMergeThatSometimesRefusesLandsAsOneByOne() {
        func build(apart: Bool) -> (ActionStack, MergedStreamText) {
            Moody.asked = 0
            let stack = ActionStack()
            stack.groupsByEvent = false
            let text = MergedStreamText("hello", stack: stack)
            stack.beginUndoGrouping()
            text.apply(.delete("llo", at: 2))
            stack.registerUndo(MoodyTextCommand(edit: .insert("llo", at: 2)), on: text, key: "text")
            stack.endUndoGrouping()
            for (index, letter) in "wxyz".enumerated() {
                if apart { stack.applyRemoteChange(Separator()) {} }
                let change = Moody(edit: .insert(String(letter), at: 2 + index))
                stack.applyRemoteChange(change) { text.apply(change.edit) }
            }
            return (stack, text)
        }
        let (merged, mergedText) = build(apart: false)
        let (apart, apartText) = build(apart: true)
        #expect(mergedText.text == "hewxyz")
        let unseen = merged._unseenRemoteChanges()
        #expect(unseen.count > 1 && unseen.count < 4, "some merged, some kept apart: \(unseen.count)")
        merged.undo()
        apart.undo()
        #expect(mergedText.text == apartText.text)
        #expect(mergedText.text == "hellowxyz")  // the undone deletion goes back before the ties
    }

    /// A change passed as `any Sendable` is of its own type: it merges as a `TextEdit` does.
    @Test func changesPassedAsAnySendableMergeByTheirOwnType() {
        let stack = ActionStack()
        stack.groupsByEvent = false
        let text = MergedStreamText("hello", stack: stack)
        text.edit(.insert("!", at: 5))
        for (index, letter) in "abc".enumerated() {
            let edit = TextEdit.insert(String(letter), at: index)
            let change: any Sendable = edit
            stack.applyRemoteChange(change) { text.apply(edit) }
        }
        #expect(stack._unseenRemoteChanges().count == 1)
        #expect(stack._unseenRemoteChanges().first as? TextEdit == .insert("abc", at: 0))
        stack.undo()
        #expect(text.text == "abchello")
    }

    /// A change of a class type is held by reference: the step on each side of the current node
    /// holds the same object, and the app may hold it too. Merging it would change it under them:
    /// the redo step then rebased over the run twice, and the app's object changed.
    @Test func aChangeOfAClassTypeIsNeverChangedByTheStack() {
        let stack = ActionStack()
        stack.groupsByEvent = false
        let text = MergedStreamText("hello world", stack: stack)
        for (offset, letter) in [(0, "A"), (1, "B")] {
            stack.beginUndoGrouping()
            text.apply(.insert(letter, at: offset))
            stack.registerUndo(SharedChangeTextCommand(edit: .delete(letter, at: offset)), on: text, key: "text")
            stack.endUndoGrouping()
        }
        stack.undo()  // "Ahello world"; the redo step inserts "B" at 1
        #expect(text.text == "Ahello world")
        let first = SharedTextChange(.insert("x", at: 0))
        let second = SharedTextChange(.insert("y", at: 1))
        stack.applyRemoteChange(first) { text.apply(first.edit) }
        stack.applyRemoteChange(second) { text.apply(second.edit) }
        #expect(text.text == "xyAhello world")
        #expect(first.edit == .insert("x", at: 0), "the app's change was changed by the stack")
        stack.redo()
        #expect(text.text == "xyABhello world")
        stack.undo()
        stack.undo()
        #expect(text.text == "xyhello world")
        #expect(text.problems.isEmpty)
    }
}
