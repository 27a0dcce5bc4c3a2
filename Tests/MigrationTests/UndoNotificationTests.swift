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
import XCTest

@MainActor
final class UndoNotificationTests: XCTestCase {
    private var undoManager: UndoManager!
    private var canvas: Canvas!
    private var observers: [any NSObjectProtocol] = []

    override func setUp() async throws {
        undoManager = UndoManager()
        undoManager.groupsByEvent = false
        canvas = Canvas(undoManager: undoManager)
    }

    override func tearDown() async throws {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
        observers = []
        canvas = nil
        undoManager = nil
    }

    private func addShapeAsOneStep() {
        undoManager.beginUndoGrouping()
        canvas.addShape(Shape(kind: .oval, origin: .zero))
        undoManager.endUndoGrouping()
    }

    func testExplicitGroupPostsCheckpointsOpenAndClose() async {
        let recorder = NotificationRecorder(
            [
                .NSUndoManagerCheckpoint, .NSUndoManagerDidOpenUndoGroup, .NSUndoManagerWillCloseUndoGroup,
                .NSUndoManagerDidCloseUndoGroup,
            ],
            of: undoManager
        )
        defer { recorder.stop() }

        undoManager.beginUndoGrouping()
        XCTAssertEqual(recorder.names, [.NSUndoManagerCheckpoint, .NSUndoManagerDidOpenUndoGroup])

        canvas.addShape(Shape(kind: .oval, origin: .zero))
        undoManager.endUndoGrouping()

        XCTAssertEqual(
            recorder.names,
            [
                .NSUndoManagerCheckpoint, .NSUndoManagerDidOpenUndoGroup,
                .NSUndoManagerCheckpoint, .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup,
            ]
        )
    }

    func testUndoAndRedoAreAnnouncedAroundTheChange() async {
        let canvas = self.canvas!
        let log = Log()
        let names: [(Notification.Name, String)] = [
            (.NSUndoManagerWillUndoChange, "will undo"), (.NSUndoManagerDidUndoChange, "did undo"),
            (.NSUndoManagerWillRedoChange, "will redo"), (.NSUndoManagerDidRedoChange, "did redo"),
        ]
        for (name, label) in names {
            observers.append(
                NotificationCenter.default.addObserver(forName: name, object: undoManager, queue: nil) { _ in
                    MainActor.assumeIsolated {
                        log.entries.append("\(label): \(canvas.shapes.count)")
                    }
                }
            )
        }

        addShapeAsOneStep()
        undoManager.undo()
        undoManager.redo()

        XCTAssertEqual(log.entries, ["will undo: 1", "did undo: 0", "will redo: 0", "did redo: 1"])
    }

    func testObserversOfAnotherUndoManagerAreNotCalled() async {
        let otherUndoManager = UndoManager()
        let recorder = NotificationRecorder(
            [.NSUndoManagerCheckpoint, .NSUndoManagerDidCloseUndoGroup, .NSUndoManagerDidUndoChange],
            of: otherUndoManager
        )
        defer { recorder.stop() }

        addShapeAsOneStep()
        undoManager.undo()

        XCTAssertEqual(recorder.names, [])
    }

    func testTheNotificationObjectIsTheUndoManager() async {
        let log = Log()
        observers.append(
            NotificationCenter.default.addObserver(forName: .NSUndoManagerDidUndoChange, object: nil, queue: nil) {
                notification in
                let sender = (notification.object as? UndoManager).map(ObjectIdentifier.init)
                MainActor.assumeIsolated {
                    log.senders.append(sender)
                }
            }
        )

        addShapeAsOneStep()
        undoManager.undo()

        XCTAssertEqual(log.senders, [ObjectIdentifier(undoManager)])
    }

    func testDiscardableGroupsAreMarkedInUserInfo() async {
        let log = Log()
        observers.append(
            NotificationCenter.default.addObserver(
                forName: .NSUndoManagerDidCloseUndoGroup,
                object: undoManager,
                queue: nil
            ) { notification in
                let isDiscardable = notification.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool == true
                MainActor.assumeIsolated {
                    log.flags.append(isDiscardable)
                }
            }
        )

        addShapeAsOneStep()
        undoManager.beginUndoGrouping()
        canvas.select(0)
        undoManager.endUndoGrouping()

        XCTAssertEqual(log.flags, [false, true])
    }

    func testChangeCountIgnoresDiscardableGroups() async {
        let counter = ChangeCounter(undoManager: undoManager)
        defer { counter.stopObserving() }

        addShapeAsOneStep()
        XCTAssertEqual(counter.changeCount, 1)

        undoManager.beginUndoGrouping()
        canvas.select(0)
        undoManager.endUndoGrouping()
        XCTAssertEqual(counter.changeCount, 1, "a selection does not edit the document")

        counter.documentSaved()
        XCTAssertFalse(counter.isDocumentEdited)

        undoManager.undo()  // the selection
        XCTAssertFalse(counter.isDocumentEdited)
        undoManager.undo()  // the shape
        XCTAssertEqual(counter.changeCount, -1)
        XCTAssertTrue(counter.isDocumentEdited)
        undoManager.redo()  // the shape
        XCTAssertFalse(counter.isDocumentEdited)
        undoManager.redo()  // the selection
        XCTAssertFalse(counter.isDocumentEdited)
    }

    func testCheckpointsArePostedAsTheUserWorks() async {
        let recorder = NotificationRecorder([.NSUndoManagerCheckpoint], of: undoManager)
        defer { recorder.stop() }

        addShapeAsOneStep()
        XCTAssertEqual(recorder.names.count, 2)

        undoManager.undo()
        XCTAssertGreaterThan(recorder.names.count, 2)
    }
}

/// Records the names of the notifications that one undo manager posts.
@MainActor
final class NotificationRecorder {
    private(set) var names: [Notification.Name] = []
    private var observers: [any NSObjectProtocol] = []

    init(_ observedNames: [Notification.Name], of undoManager: UndoManager) {
        for name in observedNames {
            let observer = NotificationCenter.default.addObserver(forName: name, object: undoManager, queue: nil) {
                [weak self] notification in
                let name = notification.name
                MainActor.assumeIsolated {
                    self?.names.append(name)
                }
            }
            observers.append(observer)
        }
    }

    func stop() {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
        observers = []
    }
}

/// What observer blocks saw, kept on the main actor.
@MainActor
private final class Log {
    var entries: [String] = []
    var senders: [ObjectIdentifier?] = []
    var flags: [Bool] = []
}
