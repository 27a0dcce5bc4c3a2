// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The document states' upkeep: the ids the history's steps, frames and groups hold are 32 bits,
// and are renumbered when the counter nears its end (see `DocumentStates`).

extension History {
    /// Gives every document-state id in use a new, small number, keeping equal ids equal and
    /// different ids different (see ``DocumentStates``). Runs at the end of a call, when no id is held
    /// anywhere but in the stack's storage.
    ///
    /// - Complexity: O(s + f) for s steps and f open and nested groups; once every 2^31 changes.
    func renumberStates() {
        var names: [StateID: StateID] = [:]
        func rename(_ id: StateID) -> StateID {
            if let known = names[id] { return known }
            let new = StateID(names.count)
            names[id] = new
            return new
        }
        // current and clean first, so that they keep the smallest numbers.
        _ = rename(states.current)
        _ = rename(states.clean)
        for side in [undoSide, redoSide] + (tree?.allBranches.map(\.side) ?? []) { side.renameStates(rename) }
        states.renumber(rename, nextFresh: StateID(names.count))
    }
}
