// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// A module of the client that imports ActionStack (everything) and uses a module that imports
// ActionStackCore alone (CoreCounter): the stack and the saved history that module makes go through
// the archive and the recorder, and come back to it, as the same types.
import ActionStack
import CoreCounter
import Foundation

var registry = CommandRegistry()
registry.register(Add.self)
let counter = Counter()
let stack = editedStack(counter)
let archive = HistoryArchive(fingerprint: "doc", histories: ["counter": try stack.savedHistory()])
let encoded = try archive.encoded()
let decoded = try HistoryArchive(decoding: encoded, registry: registry)
let copy = try restored(try decoded.histories(forFingerprint: "doc")["counter"]!, counter)
let again = try HistoryArchive(fingerprint: "doc", histories: ["counter": try copy.savedHistory()]).encoded()

// A recorder on the stack the core-only module restored, and a recovery compared with a full save.
let url = FileManager.default.temporaryDirectory.appendingPathComponent("mixed-\(UUID().uuidString).journal")
let journal = HistoryJournal(url: url, synchronizesAppends: false)
let recorder = HistoryRecorder(journal: journal, stack: copy) { "doc" }
copy.undo()
let recovered = try HistoryRecorder.recover(from: journal, fingerprint: "doc", registry: registry)
let saved = HistoryArchive(fingerprint: "doc", histories: [HistoryRecorder.defaultHistoryName: try copy.savedHistory()])
let recoveredMatches = try recovered?.encoded() == saved.encoded()
try journal.reset()
try? FileManager.default.removeItem(at: url)
print(again == encoded, recoveredMatches, recorder.recordCount, counter.value, copy.undoMenuItemTitle)
