// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// SplitMix64: a small seeded generator, so that every random sequence of a test (a random driver,
/// a property test, a random walk) replays exactly from its seed.
///
/// It is a `RandomNumberGenerator`, so `Int.random(in:using:)` and `shuffled(using:)` take it, and it
/// has the shortcuts the tests use:
///
/// ```swift
/// var random = SeededGenerator(seed: 7)
/// let operation = random.next(9)  // 0..<9
/// let rare = random.chance(5)  // true 5 times in 100
/// ```
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The state: the next value is drawn from it, so a copy replays the rest of the sequence.
    package var state: UInt64

    /// A generator whose sequence is determined by `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` at least 1): the next value modulo `bound`.
    package mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A number in `range`, uniformly.
    package mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    /// True `percent` times in a hundred.
    package mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
}
