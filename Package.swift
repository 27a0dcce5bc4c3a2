// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "ActionStack",
    products: [
        .library(name: "ActionStack", targets: ["ActionStack"]),
        .executable(name: "board", targets: ["board"]),
        .executable(name: "todo", targets: ["ActionStackTodo"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "ActionStack"),
        // The board example: its model is a library target so that tests can drive it directly,
        // and the executable is a thin terminal front end over that model.
        .target(
            name: "BoardModel",
            dependencies: ["ActionStack"],
            path: "Examples/Board/Model"
        ),
        .executableTarget(
            name: "board",
            dependencies: ["BoardModel", "ActionStack"],
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
        .executableTarget(
            name: "ActionStackTodo",
            dependencies: ["ActionStackTodoModel", "ActionStack"],
            path: "Examples/Todo/CLI"
        ),
        .testTarget(
            name: "ActionStackTests",
            dependencies: ["ActionStack"]
        ),
        .testTarget(
            name: "BoardTests",
            // `board` is listed so that the executable is built before the tests that run it.
            dependencies: ["BoardModel", "ActionStack", "board"]
        ),
        .testTarget(
            name: "ActionStackTodoTests",
            // `ActionStackTodo` is listed so that the `todo` executable is built before the test that
            // runs it.
            dependencies: ["ActionStackTodoModel", "ActionStack", "ActionStackTodo"]
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
