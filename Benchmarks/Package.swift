// swift-tools-version: 6.2
// The benchmarks live in their own package so the library's manifest never gains a dependency.
// Run: swift run -c release --package-path Benchmarks [--quick] [--json FILE]
import PackageDescription

let package = Package(
    name: "ActionStackBenchmarks",
    dependencies: [
        // The checkout's folder name is not the package's name, so name it.
        .package(name: "ActionStack", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "ActionStackBenchmarks",
            dependencies: [.product(name: "ActionStack", package: "ActionStack")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
