// swift-tools-version:6.1
import PackageDescription

/// The DocC plugin is needed only to build the library's documentation (`make docs` sets
/// WORLDCUP_DOCS): a package that depends on the library resolves only what it uses.
let buildsDocumentation = Context.environment["WORLDCUP_DOCS"] != nil

/// The app's own dependencies (Hummingbird, SwiftNIO, swift-crypto, ArgumentParser…) are asked
/// for only under the App trait, which is off by default: SwiftPM then does not resolve them, so
/// a package that depends on the library resolves GRDB and nothing else.
/// The Makefile builds with `--traits App`; a trait cannot be on for this package alone and off
/// for its dependents, and off is what a library user gets without asking.
let app: Set<String> = ["App"]

let package = Package(
    name: "worldcup",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FetchedResults", targets: ["FetchedResults"]),
        .library(name: "FetchedResultsSQLite", targets: ["FetchedResultsSQLite"]),
        .library(name: "FetchedResultsPostgreSQL", targets: ["FetchedResultsPostgreSQL"]),
        .executable(name: "worldcup", targets: ["worldcup"]),
    ],
    traits: [
        .trait(
            name: "App",
            description: "The worldcup app and its server, and the packages only they need (make builds with it)."
        )
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-structured-headers", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ] + (buildsDocumentation ? [.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")] : []),
    targets: [
        // What every store's results controller shares and no database knows: sort keys as
        // bytes, the chunked ordered keys, the cache file format.
        .target(name: "FetchedResults"),
        // The results controller on SQLite (through GRDB); knows nothing of curses or teams.
        .target(
            name: "FetchedResultsSQLite",
            dependencies: [
                "FetchedResults",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, for reading sort keys straight from a statement's columns.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // libncursesw, with a shim for the wide-character API and the C macros Swift cannot see.
        .systemLibrary(
            name: "CNcursesw"
                // No pkgConfig: ncursesw's flags (-D_XOPEN_SOURCE…) are ones SwiftPM refuses with a
                // warning on every build. The module map links ncursesw (whose .so pulls in tinfo);
                // the shim defines what the flags would; `make deps` installs libncurses-dev.
        ),
        // libpq, PostgreSQL's reference client (headers from Debian's libpq-dev), loaded when a
        // program first connects: linked, it would add some twenty libraries to every start.
        .target(name: "CLibpq"),
        // The PostgreSQL store: a libpq connection and the gap-safe change feed.
        .target(name: "FetchedResultsPostgreSQL", dependencies: ["FetchedResults", "CLibpq"]),
        // RapidJSON's streaming reader (Debian's header-only rapidjson-dev) behind a C interface:
        // seed-shaped files read fast, one entry at a time.
        .target(name: "CSeedParser"),
        // The terminal layer: knows text and terminals, nothing of teams or SQL.
        .target(name: "TerminalUI", dependencies: ["CNcursesw"]),
        // The model: teams, zones, the standings order as a store-neutral description, the seed
        // and name rules. No database, no terminal.
        .target(name: "WorldCupModel", dependencies: ["FetchedResults"]),
        // The stores: the model on SQLite and on PostgreSQL (the results stores, schemas, import
        // and export).
        .target(
            name: "WorldCupStores",
            dependencies: [
                "WorldCupModel",
                "FetchedResultsSQLite",
                "FetchedResultsPostgreSQL",
                "CSeedParser",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, for the import's insert loop.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The scoreboard: the screen, its dialog and search, and the loop that drives them. It
        // follows any store through the results controller and imports no database module.
        .target(name: "WorldCupScoreboard", dependencies: ["WorldCupModel", "FetchedResults", "TerminalUI"]),
        // libqrencode (Debian's libqrencode-dev): the scorer link as a QR code in the terminal.
        .systemLibrary(name: "CQrencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // `worldcup serve`: the standings in browsers over HTTP (Hummingbird), live from one
        // results controller, and scoring with a token. Imports no database module.
        .target(
            name: "WorldCupServer",
            dependencies: [
                "WorldCupModel",
                "FetchedResults",
                "CQrencode", "AppTrait",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: app)),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: app)),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: app)),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: app)),
                .product(
                    name: "RawStructuredFieldValues", package: "swift-http-structured-headers",
                    condition: .when(traits: app)),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: app)),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: app)),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: app)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: app)),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: app)),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: app)),
            ],
            // The page's script and style as files JavaScript and CSS tools read, and its row and
            // zone as HTML templates the server and the script both make them from, compiled into
            // the binary (which stays one file).
            resources: [
                .embedInCode("Page/app.js"), .embedInCode("Page/app.css"), .embedInCode("Page/row.html"),
                .embedInCode("Page/section.html"),
            ]
        ),
        // Stops a build without the App trait with what to type, before the app's missing
        // modules (`no such module 'Hummingbird'`) do.
        .target(name: "AppTrait"),
        // The command line: small declarative commands that wire the model, a store and the
        // scoreboard.
        .executableTarget(
            name: "worldcup",
            dependencies: [
                "WorldCupModel",
                "WorldCupStores",
                "WorldCupScoreboard",
                "WorldCupServer",
                "TerminalUI",
                "AppTrait",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: app)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: app)),
            ],
            // SwiftPM exports every symbol of an executable: the dynamic linker then searches
            // them for each library symbol it binds, and the tables stay in memory. Nothing looks
            // a symbol up in the executable by name, so none is exported, and every command
            // starts sooner and the scoreboard keeps less in memory. Linked by lld (in the Swift
            // toolchain), the relocations of the statically linked runtime are packed (DT_RELR,
            // glibc 2.36 and later), so that the loader no longer reads them whole at each start.
            linkerSettings: [
                .unsafeFlags([
                    "-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker",
                    "pack-relative-relocs",
                ])
            ]
        ),
        // `make bench`: the controller and the scoreboard against the peers, side by side in one run.
        .executableTarget(
            name: "worldcup-bench",
            dependencies: [
                "FetchedResultsSQLite", "FetchedResultsPostgreSQL", "ThrowawayPostgreSQL", "TestSupport",
                // The scoreboard's own standings controller, N times beside `serve`.
                "WorldCupStores", "WorldCupModel",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/WorldCupBench"
        ),
        // Helpers shared by the test targets (a seeded generator, temporary folders).
        .target(
            name: "TestSupport", dependencies: ["FetchedResults", "FetchedResultsPostgreSQL", "ThrowawayPostgreSQL"],
            path: "Tests/TestSupport"),
        // The controller tests' oracles (callbacks replayed on the old state must give the new);
        // apart from TestSupport because they use Swift Testing, which a release build of the
        // benchmarks does not have.
        .target(
            name: "ControllerOracles", dependencies: ["FetchedResults", "TestSupport"],
            path: "Tests/ControllerOracles"),
        // A throw-away PostgreSQL server, and hosts in network namespaces, for the tests and
        // the benchmarks.
        .target(name: "ThrowawayPostgreSQL", path: "Tests/ThrowawayPostgreSQL"),
        // The SQLite tables, random workloads and writers (a connection, the controller's pool,
        // the sqlite3 shell) that the SQLite tests and the tests over both stores share.
        .target(
            name: "SQLiteFixtures",
            dependencies: ["FetchedResultsSQLite", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/SQLiteFixtures"),
        .testTarget(
            name: "FetchedResultsTests",
            dependencies: [
                "FetchedResultsSQLite", "FetchedResults", "TestSupport", "ControllerOracles", "SQLiteFixtures",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "TestSupport"]),
        .testTarget(
            name: "FetchedResultsPostgreSQLTests",
            // With the SQLite store too: the tests of what every store promises run on both.
            dependencies: [
                "FetchedResultsPostgreSQL", "FetchedResultsSQLite", "FetchedResults", "TestSupport",
                "ControllerOracles", "SQLiteFixtures",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "WorldCupTests",
            dependencies: [
                "WorldCupModel", "WorldCupStores", "WorldCupScoreboard", "TerminalUI", "TestSupport",
                "FetchedResultsPostgreSQL", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "TerminalUI", "TestSupport", "FetchedResultsPostgreSQL", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "ServeTests", dependencies: ["TestSupport", "FetchedResultsPostgreSQL"]),
        .testTarget(
            name: "CommandLineTests",
            dependencies: ["TestSupport", "FetchedResultsPostgreSQL", .product(name: "GRDB", package: "GRDB.swift")]
        ),
    ],
    swiftLanguageModes: [.v6],
    // The parser target uses std::string_view.
    cxxLanguageStandard: .cxx17
)
