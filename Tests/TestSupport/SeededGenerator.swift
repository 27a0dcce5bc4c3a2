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

/// Knuth's MMIX linear congruential generator, read from its high bits: the generator of the seeded
/// scripts whose seeds were picked or found with it, so that each seed still makes the same script
/// (a seed a test names hits the case it names only with this sequence).
///
/// Not a `RandomNumberGenerator`: its low bits are weak, and a test reads it only through
/// ``next(_:)``. New tests use ``SeededGenerator``.
///
/// ```swift
/// var random = LinearCongruentialGenerator(seed: 45, stream: 3)
/// let operation = random.next(12)  // 0..<12
/// ```
package struct LinearCongruentialGenerator: Sendable {
    /// The state: the next value is drawn from it, so a copy replays the rest of the sequence.
    package var state: UInt64

    /// A generator whose sequence is determined by `seed` and `stream`: the state starts at
    /// `seed` × 0x9E37_79B9_7F4A_7C15 + `stream`, so that two scripts on the same seeds draw apart.
    package init(seed: UInt64, stream: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 &+ stream }

    /// A number in `0..<bound` (`bound` at least 1): the state advanced, its top 31 bits modulo
    /// `bound`.
    package mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}
