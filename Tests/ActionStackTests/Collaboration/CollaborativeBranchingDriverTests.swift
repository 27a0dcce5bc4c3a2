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
import Testing

/// The collaborative driver on a branching history: a change after an undo makes a branch, and
/// jumps to any node, moves in time (``ActionStack/earlier(_:)``, ``ActionStack/later(_:)``) and
/// jumps to the root and back are interleaved with the peer's edits and everything else, with the
/// stack checked after every operation against ``CollaborativeTreeModel`` (a tree of this user's
/// steps, each moved past the peer's later edits, that a jump undoes and redoes along the way).
///
/// Beyond the linear driver's properties: the current node is the model's; a move in time reaches
/// the node the model numbers; at the root none of this user's letters is left; back at a node
/// the document is the model's again.
extension CollaborativeDriverTests {
    /// 32,000 operations in 80 runs.
    @Test(arguments: 0..<Workload.scaled(80))
    func aBranchingHistoryIsTheTreeModelAfterEveryOperation(seed: Int) async {
        await Self.operations(seed: UInt64(20_000 + seed), count: 400, async: false, shape: .tree)
        await Workload.yield()
    }

    /// 8,000 operations in 20 runs, with awaited steps and awaited jumps.
    @Test(arguments: 0..<Workload.scaled(20))
    func awaitedStepsInABranchingHistoryAreTheTreeModelToo(seed: Int) async {
        await Self.operations(seed: UInt64(30_000 + seed), count: 400, async: true, shape: .tree)
        await Workload.yield()
    }
}
