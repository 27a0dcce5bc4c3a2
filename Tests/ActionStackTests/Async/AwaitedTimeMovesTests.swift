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

// A time move (`earlier`, `later`, by changes or by time) that reaches asynchronous steps is
// started as a request, and the request finds its target when it starts, from where the document
// is then: pressed twice before the first has run, vim's g- goes back two changes, as two presses of
// Undo undo two steps.

@MainActor
@Suite(.serialized, .timeLimit(.minutes(10))) struct AwaitedTimeMovesTests {
    /// 0 -> 1 -> 2, and 1 -> 3 (the document at 3): each step awaits a server.
    func makeTree() async throws -> (ActionStack, RemoteValue) {
        let (stack, remote) = try await makeAsyncTree()
        #expect(stack.currentNode == node(3))
        return (stack, remote)
    }

    @Test func twoPressesOfEarlierBeforeTheFirstRunsGoBackTwoChanges() async throws {
        let (stack, remote) = try await makeTree()
        try stack.earlier()
        let first = try #require(stack.startedRequest)
        try stack.earlier()
        let second = try #require(stack.startedRequest)
        #expect(first !== second)
        _ = try await first.value()
        _ = try await second.value()
        // 3, then 2 (the state numbered 3 − 1), then 1.
        #expect(stack.currentNode == node(1))
        #expect(remote.value == 1)
        stack._checkInvariants()
    }

    @Test func twoPressesOfLaterBeforeTheFirstRunsGoForwardTwoChanges() async throws {
        let (stack, remote) = try await makeTree()
        try await stack.performJump(toNode: node(0))
        #expect(remote.value == 0)
        try stack.later()
        let first = try #require(stack.startedRequest)
        try stack.later()
        let second = try #require(stack.startedRequest)
        _ = try await first.value()
        _ = try await second.value()
        #expect(stack.currentNode == node(2))
        #expect(remote.value == 2)
        stack._checkInvariants()
    }

    @Test func aTimeMoveQueuedBehindAnUndoStartsFromWhereTheUndoLeftTheDocument() async throws {
        let (stack, remote) = try await makeTree()
        stack.undo()  // 3 -> 1, started as a request
        let undo = try #require(stack.startedRequest)
        try stack.earlier()  // from 1, once the undo has run: to 0
        let move = try #require(stack.startedRequest)
        _ = try await undo.value()
        _ = try await move.value()
        #expect(stack.currentNode == node(0))
        #expect(remote.value == 0)
    }

    @Test func theRequestSaysItIsATimeMove() async throws {
        let (stack, remote) = try await makeTree()  // the remote value is the steps' target: kept
        try stack.earlier(2)
        let request = try #require(stack.startedRequest)
        #expect(request.kind == .earlier(2))
        #expect(request.kind.node == nil)
        _ = try await request.value()
        #expect(stack.currentNode == node(1))
        try stack.later(by: .seconds(3600))
        #expect(stack.startedRequest?.kind == .later(by: .seconds(3600)))
        _ = try await stack.startedRequest?.value()
        #expect(stack.currentNode == node(3))
        #expect(remote.value == 3)
    }
}
