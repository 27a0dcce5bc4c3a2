// swift-tools-version: 6.2
// The benchmarks live in their own package so the library's manifest never gains a dependency.
//
//   swift run -c release --package-path Benchmarks ActionStackBenchmarks [--quick] [--json FILE]
//       the same-run ratio table and the scale table (Sources/ActionStackBenchmarks)
//
// See Benchmarks/README.md.
import PackageDescription

let package = Package(
    name: "ActionStackBenchmarks",
    dependencies: [
        // The checkout's folder name is not the package's name, so name it.
        .package(name: "ActionStack", path: "..")
    ],
    targets: [
        // The work of every scenario and baseline, shared by the harnesses below.
        .target(
            name: "Workloads",
            dependencies: [.product(name: "ActionStack", package: "ActionStack")]
        ),
        // The same-run ratio table, the scale table, and --single-run for profilers (callgrind.sh).
        .executableTarget(
            name: "ActionStackBenchmarks",
            dependencies: ["Workloads", .product(name: "ActionStack", package: "ActionStack")]
        ),
    ]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    // No warnings, as in the library (set here so that it does not reach the dependencies).
    settings.append(.treatAllWarnings(as: .error))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
