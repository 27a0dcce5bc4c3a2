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

/// A double that is not finite (and a date at such a time) has no JSON form: it is not a
/// ``SavedValue``, so a save leaves it out of the step's user info, as a value of another kind, and
/// the history is saved and encoded. (It used to be kept, and then every encoding of the history,
/// and every journal record, failed for as long as the step was held.)
@Suite struct NonFiniteUserInfoTests {
    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aDoubleThatIsNotFiniteIsNotASavedValue(value: Double) {
        #expect(SavedValue(value) == nil)
        #expect(SavedValue(NSNumber(value: value)) == nil)
        #expect(SavedValue(Float(value)) == nil)
        #expect(SavedValue(Date(timeIntervalSinceReferenceDate: value)) == nil)
        #expect(SavedValue(1.5) == .double(1.5))
    }

    @Test func aStepWithANaNInItsUserInfoIsSavedEncodedAndRestoredWithoutIt() throws {
        let box = HSBox()
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.beginUndoGrouping()
        HSSet(value: 1).perform(on: box, in: stack)
        stack.setActionUserInfoValue(Double.nan, forKey: "ratio")
        stack.setActionUserInfoValue(2.5, forKey: "scale")
        stack.setActionName("Set")
        stack.endUndoGrouping()

        let saved = try stack.savedHistory()
        #expect(saved.steps.count == 1)
        #expect(saved.steps.first?.userInfo == ["scale": .double(2.5)])
        let data = try HistoryArchive(fingerprint: "box", histories: ["main": saved]).encoded()
        let archive = try HistoryArchive(decoding: data, registry: testRegistry())
        let restored = ActionStack()
        let fresh = HSBox(value: 1)
        try restored.restoreHistory(archive.histories["main"]!) { _ in fresh }
        #expect(restored.undoActionName == "Set")
        #expect(restored.undoEntries.last?.userInfo["scale"] as? Double == 2.5)
        #expect(restored.undoEntries.last?.userInfo["ratio"] == nil)
        restored.undo()
        #expect(fresh.value == 0)
    }
}
