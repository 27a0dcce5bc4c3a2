// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

extension ActionStack {
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
        _ = rename(history.states.current)
        _ = rename(history.states.clean)
        for side in [undoSide, redoSide] + (history.tree?.allBranches.map(\.side) ?? []) {
            for position in 0..<side.steps.count {
                side.steps[position].low = rename(side.steps[position].low)
                side.steps[position].high = rename(side.steps[position].high)
            }
            for index in side.frames.indices { side.frames[index].low = rename(side.frames[index].low) }
            for index in side.nested.indices {
                side.nested[index].low = rename(side.nested[index].low)
                side.nested[index].high = rename(side.nested[index].high)
            }
        }
        history.states.renumber(rename, nextFresh: StateID(names.count))
    }

    /// The counter value at which state ids are renumbered (default 2^31); tests lower it so that
    /// renumbering happens after every few calls.
    /// How many times the state ids were renumbered.
    package var _stateRenumberings: Int { history.states.renumberings }

    package var _stateRenumberingThreshold: UInt32 {
        get { history.states.baseThreshold }
        set { history.states.baseThreshold = newValue }
    }
}
