// swift-tools-version: 6.2
// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// A client of ActionStack, as a user writes one: built by Scripts/check-client-package.sh (and CI).
// Its targets are named `board` and `BoardModel` on purpose, like ActionStack's example: the check
// builds and runs this package's `board`, which works only if ActionStack's example stays out of a
// client's build (target names are global in a package graph, and an executable product of a
// dependency is built into the same folder). Its code spells ActionStack's types qualified,
// `ActionStack.X`. The dependency is named, so that `.product(package:)` does not depend on the
// name of the folder that the repository is cloned into.
import PackageDescription

let package = Package(
    name: "Client",
    // ActionStack's own minimums (see its Package.swift).
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    dependencies: [.package(name: "ActionStack", path: "../..")],
    targets: [
        .target(name: "BoardModel", dependencies: [.product(name: "ActionStack", package: "ActionStack")]),
        .executableTarget(
            name: "board", dependencies: ["BoardModel", .product(name: "ActionStack", package: "ActionStack")]),
        // A client that links the core only (the ActionStackCore product).
        .executableTarget(
            name: "core-only", dependencies: [.product(name: "ActionStackCore", package: "ActionStack")]),
        // A module that links ActionStackCore alone, used by a module that imports ActionStack: the
        // two products give the same types.
        .target(name: "CoreCounter", dependencies: [.product(name: "ActionStackCore", package: "ActionStack")]),
        .executableTarget(
            name: "mixed", dependencies: ["CoreCounter", .product(name: "ActionStack", package: "ActionStack")]),
    ]
)
