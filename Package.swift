// swift-tools-version: 6.3
// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// Tools version 6.3: the library uses module selectors (`ActionStack::TitleTemplates`, SE-0491), new in Swift 6.3.
import PackageDescription

let package = Package(
    name: "ActionStack",
    // The oldest Apple systems that have every API the library uses (Linux has no such limits):
    // - `@Observable` (the Observation framework; ActionStackModel): macOS 14, iOS 17, tvOS 17,
    //   watchOS 10, visionOS 1. The highest of these, so it sets the minimums.
    // - `Duration` and `ContinuousClock` (coalescing windows and `coalescingClock`): macOS 13,
    //   iOS 16, tvOS 16, watchOS 9.
    // - `AsyncStream` (`stateUpdates()`): macOS 10.15, iOS 13, tvOS 13, watchOS 6;
    //   `AsyncStream.makeStream` is back-deployed to those.
    // - Foundation's `NotificationCenter`, `RunLoop` and `Notification.Name`: every version.
    // The library does not use Synchronization (`Mutex`, `Atomic`: macOS 15), `Span` or
    // `InlineArray` (macOS 26); a change that does must raise these.
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        // Everything: Foundation's behaviour, the features beyond it, and the saved history's
        // archive, journal, file store and recorder. What the README tells users to use.
        .library(name: "ActionStack", targets: ["ActionStack"]),
        // The class and every feature without the archive and journal format (save and restore to
        // and from `SavedHistory` values are there): for apps that want to link less.
        .library(name: "ActionStackCore", targets: ["ActionStackCore"]),
    ],
    dependencies: [],
    targets: [
        // The library is three targets, so that the compiler keeps the boundary between the core and
        // the persistence format (CONTRIBUTING.md, Architecture):
        // - ActionStackCore: the class `ActionStack` and everything but the format layer, with the
        //   saved-history values, the command protocols, save and restore.
        // - ActionStackArchive: the format layer (the archive and its JSON reader, the command
        //   registry, the journal, the file store, the recorder). It reaches the core through its
        //   public API, the recorded history's values and their maker (Sources/ActionStackCore/Records),
        //   and a few `package` hooks; it never reads the history's storage.
        // - ActionStack: the umbrella, re-exporting both (one file), and the DocC catalog, so that
        //   `import ActionStack` and the documentation's module name stay as they were.
        .target(name: "ActionStackCore"),
        .target(name: "ActionStackArchive", dependencies: ["ActionStackCore"]),
        .target(name: "ActionStack", dependencies: ["ActionStackCore", "ActionStackArchive"]),
        // The board example: its model is a library target so that tests can drive it directly,
        // and the executable is a thin terminal front end over that model. Neither is in a product:
        // `swift run board` runs the executable through the implicit product that SwiftPM makes
        // for an executable target of the root package only, so a client's build never includes
        // the example. (An explicit `board` product was built by every client and its binary took
        // the place of a client's own `board`.) The model's name has the `ActionStack` prefix
        // besides. Tests/ClientPackage, with its own `board` and `BoardModel` targets, checks it.
        // `swift run board --shared FILE` shares a board between processes through a SQLite
        // database: the model reaches the system's SQLite as the to-do example does (below).
        .target(
            name: "ActionStackBoardModel",
            dependencies: ["ActionStack", "ActionStackCSQLite"],
            path: "Examples/Board/Model"
        ),
        .executableTarget(
            name: "board",
            dependencies: ["ActionStackBoardModel", "ActionStack"],
            path: "Examples/Board/CLI"
        ),
        // The to-do example: undo and redo through a real database (the system's SQLite, reached
        // through a system-library target, so the package still has no dependencies). Every
        // target's name starts with `ActionStack`, so that none clashes with a user's targets.
        .systemLibrary(
            name: "ActionStackCSQLite",
            path: "Examples/Todo/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "ActionStackTodoModel",
            dependencies: ["ActionStack", "ActionStackCSQLite"],
            path: "Examples/Todo/Model"
        ),
        // The executable keeps the short name: like `board`, it is no product, so clients never
        // build it and their own targets may have any name.
        .executableTarget(
            name: "todo",
            dependencies: ["ActionStackTodoModel", "ActionStack"],
            path: "Examples/Todo/CLI"
        ),
        // What the test targets share, written once: the manual clock of coalescing windows and
        // history dates, the seeded generators of the random drivers and walks (SplitMix64, and the
        // linear congruential one some recorded scripts were made with), the helper that reads an
        // archive to a result, and `bytes(_:)` for journal files. Like the examples, it is in no product, so clients never
        // build it; only test targets depend on it.
        .target(
            name: "ActionStackTestSupport",
            dependencies: ["ActionStack"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "ActionStackTests",
            dependencies: ["ActionStack", "ActionStackTestSupport"]
        ),
        // What the tests of the examples share: running a built example as a child process, what
        // the history-writer program writes, and the recorded walk it and the crash tests share. A
        // target of its own, apart from ActionStackTestSupport: the history-writer executable
        // links it.
        .target(
            name: "ActionStackExampleTestSupport",
            dependencies: ["ActionStack"],
            path: "Tests/ExampleTestSupport"
        ),
        .testTarget(
            name: "BoardTests",
            // The executable is listed so that it is built before the tests that run it. SQLite is
            // there for the tests of the shared board that write to its database as a hostile peer.
            dependencies: [
                "ActionStackBoardModel", "ActionStack", "ActionStackExampleTestSupport", "ActionStackTestSupport",
                "ActionStackCSQLite", "board",
            ]
        ),
        // A client module that names every public top-level type as `ActionStack.X`.
        .testTarget(
            name: "QualifiedNameTests",
            dependencies: ["ActionStack"]
        ),
        .testTarget(
            name: "ActionStackTodoTests",
            // `todo` is listed so that the executable is built before the test that runs it.
            dependencies: ["ActionStackTodoModel", "ActionStack", "ActionStackExampleTestSupport", "todo"]
        ),
        // A test program that writes a saved history and its journal until a test kills it, to
        // check that a crash at any moment leaves both readable. Like `board` and `todo`, it is in
        // no product, so clients never build it.
        .executableTarget(
            name: "history-writer",
            dependencies: ["ActionStack", "ActionStackExampleTestSupport"],
            path: "Examples/HistoryWriter"
        ),
        .testTarget(
            name: "HistoryCrashTests",
            // `history-writer` is listed so that the executable is built before the test that runs it.
            dependencies: ["ActionStack", "ActionStackExampleTestSupport", "history-writer"]
        ),
        // Apple-style UndoManager code (XCTest, `typealias UndoManager = ActionStack`), ported
        // unchanged: the proof that such code compiles and behaves the same.
        .testTarget(
            name: "MigrationTests",
            dependencies: ["ActionStack"]
        ),
    ]
)

// A system-library target (the to-do example's SQLite) takes no Swift settings.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    // Swift 6 language mode is the tools-version default; state it so the manifest says it.
    settings.append(.swiftLanguageMode(.v6))
    // Every public type says whether it is Sendable (conformance or an unavailable extension).
    settings.append(.treatWarning("ExplicitSendable", as: .error))
    // Existential types are spelled `any P`, as Swift 6 code should.
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    // Imports say whether they are part of the public interface.
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
