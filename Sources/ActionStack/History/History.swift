// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// What the history is: the undo and redo sides, the targets of their actions, the document states
/// and the clean point, the coalescing candidate, the branches of a branching history, and the
/// serials of steps and frames.
///
/// One stack holds one history (``ActionStack/history``).
final class History {
    // Stored properties are `@exclusivity(unchecked)`, as the stack's own are (see ActionStack): a
    // history is confined to its stack's isolation domain.

    /// The undo stack.
    let undoSide = Side()
    /// The redo stack.
    let redoSide = Side()
    /// The distinct targets of the stored actions.
    @exclusivity(unchecked) var registry = TargetRegistry()
    /// Document states and the clean point.
    @exclusivity(unchecked) var states = DocumentStates()
    /// Which step a coalescing registration may continue.
    @exclusivity(unchecked) var coalescer = Coalescer()
    /// The branching history: the node table and the branches off the current path. Nil while the
    /// history is linear (``ActionStack/historyShape``), so that a linear stack pays one `nil` check.
    @exclusivity(unchecked) var tree: TreeStore?
    /// The settings of the branching history, kept while it is linear too.
    @exclusivity(unchecked) var treeSettings = TreeSettings()
    /// The serial of the last step made.
    @exclusivity(unchecked) var nextStepSerial: UInt32 = 0
    /// The id of the next frame opened.
    @exclusivity(unchecked) var nextFrameID: UInt64 = 1
    /// Trimming was put off (by a scope, or by a limit set during an activity).
    @exclusivity(unchecked) var needsTrim = false

    init() {}
}

@available(*, unavailable) extension History: Sendable {}
