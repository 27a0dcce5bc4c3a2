// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// A client module that spells every public top-level type of ActionStack qualified,
// `ActionStack.X`. The module and its main class share the name `ActionStack`, so these names
// resolve only through the class's aliases (ActionStack+QualifiedNames.swift in Sources/ActionStackCore
// and Sources/ActionStackArchive).
// This file is compiled as a client would compile it: if an alias is missing, it does not build.
// A new public top-level type gets a use here.

import ActionStack
import Foundation
import Testing

@Suite struct QualifiedNameTests {
    @Test func titleTemplatesByQualifiedName() {
        let stack = ActionStack()
        let french: ActionStack.TitleTemplates = ActionStack.TitleTemplates(
            undo: "Annuler {name}", redo: "Rétablir {name}", undoWithoutName: "Annuler", redoWithoutName: "Rétablir")
        stack.titleTemplates = french
        #expect(stack.undoMenuTitle(forUndoActionName: "Déplacer") == "Annuler Déplacer")
        #expect(ActionStack.TitleTemplates.english == TitleTemplates.english)
        #expect(ActionStack.TitleTemplates.placeholder == "{name}")
    }

    @Test func automaticGroupClosingByQualifiedName() {
        let stack = ActionStack()
        let closing: ActionStack.AutomaticGroupClosing = .manual
        stack.automaticGroupClosing = closing
        #expect(stack.automaticGroupClosing == ActionStack.AutomaticGroupClosing.manual)
    }

    @Test func actionStackGroupByQualifiedName() {
        let stack = ActionStack()
        let group: ActionStack.ActionStackGroup = ActionStack.ActionStackGroup()
        group.add(stack)
        group.activeStack = stack
        #expect(group.activeStack === stack)
    }

    @Test func actionStackModelByQualifiedName() {
        let stack = ActionStack()
        let model: ActionStack.ActionStackModel = ActionStack.ActionStackModel(stack)
        #expect(!model.canUndo)
    }

    @Test func observationTokenByQualifiedName() {
        let stack = ActionStack()
        stack.groupsByEvent = false
        var heard = 0
        let token: ActionStack.ObservationToken = stack.observe { _ in heard += 1 }
        stack.beginUndoGrouping()
        stack.registerUndo(withTarget: stack) { _ in }
        stack.endUndoGrouping()
        let heardWhileObserving = heard
        #expect(heardWhileObserving > 0)
        token.cancel()
        stack.undo()
        #expect(heard == heardWhileObserving)
    }

    @Test func historyArchiveTypesByQualifiedName() throws {
        let registry: ActionStack.CommandRegistry = ActionStack.CommandRegistry()
        #expect(registry.registeredVersion(of: "board.move") == nil)
        let archive: ActionStack.HistoryArchive = ActionStack.HistoryArchive(fingerprint: "f")
        let data = try archive.encoded()
        let read = try ActionStack.HistoryArchive(decoding: data, registry: registry)
        #expect(read.fingerprint == "f")
        let error: ActionStack.HistoryArchiveError = .notAnArchive
        #expect(throws: error) { try ActionStack.HistoryArchive(decoding: Data("[]".utf8), registry: registry) }
    }

    @Test func historyFileTypesByQualifiedName() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("actionstack-qualified-\(UUID().uuidString).history")
        let store: ActionStack.HistoryFileStore = ActionStack.HistoryFileStore(url: url)
        #expect(try store.read() == nil)
        let journal: ActionStack.HistoryJournal = ActionStack.HistoryJournal(url: url.appendingPathExtension("journal"))
        let records: [ActionStack.JournalRecord] = try journal.records()
        #expect(records.isEmpty)
        let error: ActionStack.HistoryFileError = ActionStack.HistoryFileError.tooLarge(path: "p", size: 2, limit: 1)
        #expect(error.description == "p: 2 bytes is more than the limit of 1 bytes")
    }

    /// Every public top-level type in the library's sources has its alias, so a type added later
    /// without one fails here, not in a client.
    @Test func everyPublicTopLevelTypeHasAnAlias() throws {
        // The library's modules: the umbrella ActionStack re-exports the other two, and each of
        // those has its aliases in its own `ActionStack+QualifiedNames.swift`.
        let sourcesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources").standardized
        // At the start of a line (top level), after any attributes: `@MainActor public final class X`.
        let declaration = try Regex(
            #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:final\s+)?(?:class|struct|enum|actor|protocol)\s+(\w+)"#)
        var types: Set<String> = []
        var aliases = ""
        for module in ["ActionStack", "ActionStackCore", "ActionStackArchive"] {
            let sources = sourcesFolder.appendingPathComponent(module)
            let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                if file.lastPathComponent == "ActionStack+QualifiedNames.swift" { aliases += text }
                for line in text.split(separator: "\n") {
                    if let match = try declaration.firstMatch(in: String(line)), let name = match.output[1].substring {
                        types.insert(String(name))
                    }
                }
            }
        }
        types.remove("ActionStack")
        #expect(types.count >= 5, "the scan finds the library's types: \(types.sorted())")
        // A generic type's alias has its parameters: `SequenceEdit<Element: ...> = ActionStackCore::SequenceEdit<Element>`.
        let alias = try Regex(#"public typealias (\w+)(?:<[^=]*>)? = ActionStack(?:Core|Archive)::(\w+)"#)
        var aliased: Set<String> = []
        for match in aliases.matches(of: alias) where match.output[1].substring == match.output[2].substring {
            if let name = match.output[1].substring { aliased.insert(String(name)) }
        }
        let missing = types.subtracting(aliased).sorted()
        #expect(missing.isEmpty, "no alias in its module's ActionStack+QualifiedNames.swift (nor a use in this file)")
    }

    /// The aliases name the same types as the unqualified names.
    @Test func aliasesAreTheSameTypes() {
        #expect(ActionStack.TitleTemplates.self == TitleTemplates.self)
        #expect(ActionStack.AutomaticGroupClosing.self == AutomaticGroupClosing.self)
        #expect(ActionStack.ActionStackGroup.self == ActionStackGroup.self)
        #expect(ActionStack.ActionStackModel.self == ActionStackModel.self)
        #expect(ActionStack.ObservationToken.self == ObservationToken.self)
        #expect(ActionStack.CommandRegistry.self == CommandRegistry.self)
        #expect(ActionStack.HistoryArchive.self == HistoryArchive.self)
        #expect(ActionStack.HistoryArchiveError.self == HistoryArchiveError.self)
        #expect(ActionStack.HistoryFileStore.self == HistoryFileStore.self)
        #expect(ActionStack.HistoryFileError.self == HistoryFileError.self)
        #expect(ActionStack.HistoryJournal.self == HistoryJournal.self)
        #expect(ActionStack.HistoryRecorder.self == HistoryRecorder.self)
        #expect(ActionStack.JournalRecord.self == JournalRecord.self)
        #expect(ActionStack.SequenceEdit<Int>.self == SequenceEdit<Int>.self)
        #expect(ActionStack.SequenceEditError.self == SequenceEditError.self)
        #expect(ActionStack.TextEdit.self == TextEdit.self)
        let rebasable: (any ActionStack.RebasableCommand.Type)? = nil
        #expect(rebasable == nil)
        let mergeable: any ActionStack.MergeableChange = TextEdit.insert("a", at: 0)
        #expect(mergeable is TextEdit)
        #expect(ActionStack.SavedHistory.self == SavedHistory.self)
        #expect(ActionStack.SavedStep.self == SavedStep.self)
        #expect(ActionStack.SavedAction.self == SavedAction.self)
        #expect(ActionStack.SavedActionProblem.self == SavedActionProblem.self)
        #expect(ActionStack.SavedValue.self == SavedValue.self)
        let command: (any ActionStack.UndoCommand.Type)? = nil
        let asyncCommand: (any ActionStack.AsyncUndoCommand.Type)? = nil
        let savable: (any ActionStack.SavableCommand.Type)? = nil
        #expect(command == nil && asyncCommand == nil && savable == nil)
    }
}
