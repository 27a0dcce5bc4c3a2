// swift-tools-version: 6.2
// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The benchmarks live in their own package so the library's manifest never gains a dependency.
//
//   swift run -c release --package-path Benchmarks ActionStackBenchmarks [--quick] [--json FILE]
//       the same-run ratio table, the scale, async and tree tables (Sources/ActionStackBenchmarks)
//   swift package --package-path Benchmarks benchmark
//       package-benchmark: wall clock, allocations and ARC counts per step (Benchmarks/ActionStackMetrics)
//   Benchmarks/update-thresholds.sh, Benchmarks/check-thresholds.sh
//       write / check the committed count thresholds (Thresholds/)
//
// See Benchmarks/README.md.
import PackageDescription

let package = Package(
    name: "ActionStackBenchmarks",
    // ActionStack's own minimums (see its Package.swift).
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    dependencies: [
        // The checkout's folder name is not the package's name, so name it.
        .package(name: "ActionStack", path: ".."),
        // package-benchmark. On Linux with Swift 6.3 it needs the MallocInterposer trait named here
        // (the trait list replaces the package's defaults, which would also ask for a runtime
        // interposer package); ARC counts then come from the Swift runtime's hooks.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The work of every scenario and baseline, shared by the harnesses below.
        .target(
            name: "Workloads",
            dependencies: [.product(name: "ActionStack", package: "ActionStack")]
        ),
        // malloc's bytes in use (glibc's mallinfo2, which Swift's Glibc module does not import), for
        // the tree table's memory rows.
        .systemLibrary(name: "CHeapStatistics", path: "Sources/CHeapStatistics"),
        // The same-run ratio table, the scale table, the async and tree tables, and --single-run for
        // profilers (callgrind.sh).
        .executableTarget(
            name: "ActionStackBenchmarks",
            dependencies: ["Workloads", "CHeapStatistics", .product(name: "ActionStack", package: "ActionStack")]
        ),
        // package-benchmark's suite: its plugin finds executables under Benchmarks/<Name>/.
        .executableTarget(
            name: "ActionStackMetrics",
            dependencies: [
                "Workloads",
                .product(name: "ActionStack", package: "ActionStack"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ActionStackMetrics",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    // No warnings, as in the library (set here so that it does not reach the dependencies).
    settings.append(.treatAllWarnings(as: .error))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
