// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStack
import Foundation
import Testing

// A recorder of what changed is told of a call's end only when the history's change tracker says
// the history may have changed (a query on a watched stack ends as on an unwatched one). What
// shares the call's end with it must still hear every change: state observers, a second
// recorder, a stack group, the clean-state notification.

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct RecorderQuietCallTests {
    @Test func anObserverAddedAfterTheRecorderHearsEveryChangeAndTheRecorderRecordsIt() throws {
        let url = hrTemporaryURL("quiet-observer.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: HistoryJournal(url: url, synchronizesAppends: false), stack: stack) {
            "\(doc.value)"
        }
        var heard: ActionStack.State?
        let token = stack.observe { heard = $0 }
        hrChange(doc, to: 1, on: stack)
        #expect(heard == stack.state)
        _ = stack.canUndo
        hrChange(doc, to: 2, on: stack)
        #expect(heard?.undoCount == 2)
        stack.undo()
        _ = stack.undoMenuItemTitle
        #expect(heard == stack.state)
        #expect(heard?.undoCount == 1)
        #expect(recorder.recordCount == 3)
        token.cancel()
        // With the observer gone, a query still records nothing and a change still records.
        _ = stack.canRedo
        #expect(recorder.recordCount == 3)
        stack.redo()
        #expect(recorder.recordCount == 4)
        #expect(heard?.undoCount == 1)
    }

    @Test func twoRecordersOfOneStackEachRecordEveryChange() throws {
        let first = hrTemporaryURL("quiet-first.journal")
        let second = hrTemporaryURL("quiet-second.journal")
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        let stack = hrStack(.tree)
        let doc = HRDoc()
        let a = HistoryRecorder(journal: HistoryJournal(url: first, synchronizesAppends: false), stack: stack) {
            "\(doc.value)"
        }
        let b = HistoryRecorder(journal: HistoryJournal(url: second, synchronizesAppends: false), stack: stack) {
            "\(doc.value)"
        }
        hrChange(doc, to: 1, on: stack)
        hrChange(doc, to: 2, on: stack)
        stack.undo()
        hrChange(doc, to: 3, on: stack)
        stack.markClean()
        _ = stack.canUndo
        _ = stack.historyTree
        #expect(a.recordCount == 5)
        #expect(b.recordCount == 5)
        let registry = testRegistry()
        let fromA = try HistoryRecorder.recordedArchives(in: a.journal, registry: registry)
        let fromB = try HistoryRecorder.recordedArchives(in: b.journal, registry: registry)
        let saved = try quietFullSave(of: stack, fingerprint: "\(doc.value)")
        #expect(try fromA.last?.encoded() == saved)
        #expect(try fromB.last?.encoded() == saved)
    }

    @Test func aChangeMadeWhileAGroupIsOpenIsRecordedWhenItCloses() throws {
        let url = hrTemporaryURL("quiet-group.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let stack = hrStack()
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: HistoryJournal(url: url, synchronizesAppends: false), stack: stack) {
            "\(doc.value)"
        }
        stack.beginUndoGrouping()
        HRSet(value: 7).perform(on: doc, in: stack)
        _ = stack.canUndo
        #expect(recorder.recordCount == 0)
        stack.endUndoGrouping()
        _ = stack.canUndo
        #expect(recorder.recordCount == 1)
        let archives = try HistoryRecorder.recordedArchives(in: recorder.journal, registry: testRegistry())
        #expect(try archives.last?.encoded() == quietFullSave(of: stack, fingerprint: "\(doc.value)"))
    }

    @Test func aStackGroupAndTheCleanNotificationStillHearAWatchedStack() throws {
        let url = hrTemporaryURL("quiet-stackgroup.journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let stack = hrStack()
        stack.postsNotifications = true
        let doc = HRDoc()
        let recorder = HistoryRecorder(journal: HistoryJournal(url: url, synchronizesAppends: false), stack: stack) {
            "\(doc.value)"
        }
        let group = ActionStackGroup()
        group.activeStack = stack
        var groupHeard: [Bool] = []
        let token = group.observe { groupHeard.append($0?.canUndo ?? false) }
        var cleanChanges = 0
        let center = NotificationCenter.default
        let observer = center.addObserver(
            forName: ActionStack.cleanStateDidChangeNotification, object: stack, queue: nil
        ) { _ in MainActor.assumeIsolated { cleanChanges += 1 } }
        defer { center.removeObserver(observer) }
        hrChange(doc, to: 1, on: stack)
        stack.markClean()
        _ = stack.isClean
        hrChange(doc, to: 2, on: stack)
        #expect(groupHeard.last == true)
        #expect(groupHeard.count >= 2)
        #expect(cleanChanges == 3)
        #expect(recorder.recordCount == 3)
        token.cancel()
    }
}

/// The bytes of the archive a full save of `stack` makes, as a recorder of it names it.
@MainActor
private func quietFullSave(of stack: ActionStack, fingerprint: String) throws -> Data {
    try HistoryArchive(
        fingerprint: fingerprint, histories: [HistoryRecorder.defaultHistoryName: try stack.savedHistory()]
    ).encoded()
}
