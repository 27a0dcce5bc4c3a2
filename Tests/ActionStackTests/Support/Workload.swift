// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// How much of each seeded random workload (the model drivers, the property tests, the schedules)
/// a test run does.
///
/// `ACTIONSTACK_WORKLOAD_DIVISOR=10 swift test` runs a tenth of each. The sanitized runs of
/// `.ci/run` do: a sanitized build runs three to fifteen times slower, and on a machine with two
/// cores the full workloads hold both of the cooperative pool's threads and the main actor for
/// minutes, so tests with a one-minute limit time out waiting for a thread, not for the stack. The
/// unsanitized run does every operation; the seeds a divided run does are the first of the full
/// run's, so it repeats part of that run under the sanitizer rather than trying new ones.
///
/// Unset, or anything but a positive whole number, means 1: the full workload.
enum Workload {
    static let divisor: Int = {
        let text = ProcessInfo.processInfo.environment["ACTIONSTACK_WORKLOAD_DIVISOR"] ?? ""
        guard let value = Int(text), value > 0 else { return 1 }
        if value > 1 {
            print("ACTIONSTACK_WORKLOAD_DIVISOR=\(value): each seeded workload runs 1/\(value) of its seeds")
        }
        return value
    }()

    /// `count` divided by the divisor, never less than one.
    static func scaled(_ count: Int) -> Int { max(1, count / divisor) }

    /// Lets the other tests run: a synchronous workload that ran from start to end would hold one
    /// of the cooperative pool's threads (on two cores, half of them) for all its seconds, and the
    /// asynchronous tests, whose every hop needs a pool thread, would wait for it. The seeded
    /// workloads yield after each sequence or seed, a few milliseconds of work.
    static func yield() async { await Task.yield() }
}

/// Whether the tests run under AddressSanitizer or ThreadSanitizer (their runtime is loaded): a
/// test that measures memory is skipped there, visibly.
let runsUnderASanitizer: Bool = {
    #if canImport(Glibc)
        return dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil
    #else
        return false
    #endif
}()
