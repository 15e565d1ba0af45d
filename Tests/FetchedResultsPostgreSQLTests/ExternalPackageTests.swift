import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The library as a Swift developer meets it: a package of their own, outside this
    /// repository, depending on it by path. Its programs (in `Tests/ExternalPackage`) follow a
    /// SQLite table and a PostgreSQL table with the same generic code, and mirror a table view
    /// from the callbacks; one more program per DocC article is that article's code, so that
    /// no article shows code that does not compile.
    @Suite struct ExternalPackageTests {
        static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path

        /// SwiftPM names a package it reaches by path after its folder.
        static let identity = URL(fileURLWithPath: repository).lastPathComponent

        /// The programs written as files (the mirror uses the package's own store), and the
        /// articles with code.
        static let programs = ["follower", "mirror"]
        static let articles = repository + "/Sources/FetchedResults/FetchedResults.docc"

        static func manifest(targets: [String]) -> String {
            let executables = targets.map { name in
                """
                        .executableTarget(name: "\(name)", dependencies: [
                            "MemoryStore",
                            .product(name: "FetchedResultsSQLite", package: "\(identity)"),
                            .product(name: "FetchedResultsPostgreSQL", package: "\(identity)"),
                            .product(name: "GRDB", package: "GRDB.swift"),
                        ]),
                """
            }
            return """
                // swift-tools-version:6.1
                import PackageDescription

                let package = Package(
                    name: "outsider",
                    platforms: [.macOS(.v15)],
                    dependencies: [
                        .package(path: "\(repository)"),
                        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
                    ],
                    targets: [
                        // A third store, on the library's public API alone.
                        .target(name: "MemoryStore", dependencies: [
                            .product(name: "FetchedResults", package: "\(identity)"),
                        ]),
                \(executables.joined(separator: "\n"))
                    ],
                    swiftLanguageModes: [.v6]
                )
                """
        }

        /// The Swift code blocks of a DocC article, in order: together, one program.
        static func swiftBlocks(of article: String) throws -> String {
            var blocks: [String] = []
            var current: [Substring]?
            for line in try String(contentsOfFile: article, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            {
                if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                    current = []
                } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                    blocks.append(current!.joined(separator: "\n"))
                    current = nil
                } else {
                    current?.append(line)
                }
            }
            return blocks.joined(separator: "\n\n")
        }

        /// What a test adds after an article's own code to run it: the loop the article shows
        /// must see another connection's commit, and stop once it has.
        static let drivers = [
            "GettingStarted": """

            // The test's driver: another connection commits; the article's loop must show it.
            try DatabaseQueue(path: "worldcup.sqlite").write { db in
                try db.execute(sql: "UPDATE team SET wins = 7 WHERE teamName = 'Brazil'")
            }
            var looks = 0
            try followChanges(of: controller, until: {
                looks += 1
                return view.shown.contains("Brazil 7") || looks > 100
            })
            print(view.shown.contains("Brazil 7") ? "followed" : "missed: \\(view.shown)")
            """,
            "GettingStartedPostgreSQL": """

            // The test's driver: another connection commits; the article's loop must show it.
            try PostgreSQLConnection(conninfo).execute("UPDATE team SET wins = 7 WHERE team_name = 'Brazil'")
            var looks = 0
            try followChanges(of: controller, until: {
                looks += 1
                return scoreboard.lines.contains("Brazil 7") || looks > 100
            })
            print(scoreboard.lines.contains("Brazil 7") ? "followed" : "missed: \\(scoreboard.lines)")
            """,
        ]

        /// The package, made and built once for every test of the suite: its folder and the
        /// folder of its programs, or why it could not be built.
        static let built: Result<(folder: TemporaryDirectory, bin: String, articles: [String]), BuildFailure> = {
            do {
                let folder = TemporaryDirectory()
                let package = folder.path + "/outsider"
                var targets: [String] = []
                try FileManager.default.createDirectory(
                    atPath: package + "/Sources/MemoryStore", withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    atPath: repository + "/Tests/ExternalPackage/Sources/MemoryStore/MemoryStore.swift",
                    toPath: package + "/Sources/MemoryStore/MemoryStore.swift")
                for program in programs {
                    try FileManager.default.createDirectory(
                        atPath: package + "/Sources/" + program, withIntermediateDirectories: true)
                    try FileManager.default.copyItem(
                        atPath: repository + "/Tests/ExternalPackage/Sources/\(program)/main.swift",
                        toPath: package + "/Sources/\(program)/main.swift")
                    targets.append(program)
                }
                var articleTargets: [String] = []
                for file in try FileManager.default.contentsOfDirectory(atPath: articles).sorted()
                where file.hasSuffix(".md") {
                    let name = String(file.dropLast(3))
                    let code = try swiftBlocks(of: articles + "/" + file)
                    guard !code.isEmpty else { continue }
                    let target = "article" + name
                    try FileManager.default.createDirectory(
                        atPath: package + "/Sources/" + target, withIntermediateDirectories: true)
                    try (code + (drivers[name] ?? "") + "\n").write(
                        toFile: package + "/Sources/\(target)/main.swift", atomically: true, encoding: .utf8)
                    targets.append(target)
                    articleTargets.append(name)
                }
                try manifest(targets: targets).write(
                    toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
                // Its own build folder under this repository's, so that a second run builds only
                // what changed.
                let scratch = repository + "/.build/external-package"
                let build = try run(
                    "/usr/bin/env", ["swift", "build", "--package-path", package, "--scratch-path", scratch])
                guard build.status == 0 else {
                    return .failure(BuildFailure(output: String(build.output.suffix(6000))))
                }
                return .success((folder, scratch + "/debug", articleTargets))
            } catch {
                return .failure(BuildFailure(output: "\(error)"))
            }
        }()

        struct BuildFailure: Error, CustomStringConvertible {
            let output: String
            var description: String { "the package outside does not build:\n\(output)" }
        }

        /// Runs a program and waits for it: its status, and what it printed on stdout and stderr.
        static func run(
            _ executable: String, _ arguments: [String], in directory: String? = nil,
            environment: [String: String] = [:]
        ) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        /// The output both stores must print: worked out by hand from the statements.
        static let expected = """
            object insert - [0, 1] []
            --
            object update [1, 0] [1, 0] ["score"]
            --
            object delete [1, 1] - []
            --
            section insert 1 Green
            object delete [0, 0] - []
            --
            blue: dan 3
            Green: cy 5
            red: bob 9
            """

        @Test func aPackageOutsideFollowsBothStoresWithTheSameCode() throws {
            let (folder, bin, _) = try Self.built.get()
            // What the package outside resolved: this repository and GRDB (which needs nothing
            // else), not the app's Hummingbird, SwiftNIO, swift-crypto… (behind the App trait) nor
            // the DocC plugin (behind WORLDCUP_DOCS). Before the trait: 27, this repository and 26 more.
            let dependencies = try Self.run(
                "/usr/bin/env",
                [
                    "swift", "package", "--package-path", folder.path + "/outsider", "--scratch-path",
                    Self.repository + "/.build/external-package", "show-dependencies", "--format", "flatlist",
                ])
            // One identity a line, a package once per package that depends on it.
            let resolved = Set(
                dependencies.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty })
            print(
                "ExternalPackageTests: the package outside resolved \(resolved.count) packages:",
                resolved.sorted().joined(separator: " "))
            #expect(dependencies.status == 0, "\(dependencies.output)")
            #expect(
                resolved == [Self.identity.lowercased(), "grdb.swift"],
                "a dependent resolves only what the library needs:\n\(dependencies.output)")

            let sqlite = try Self.run(bin + "/follower", ["sqlite", folder.path + "/follower.sqlite"])
            let postgresql = try Self.run(bin + "/follower", ["postgresql", try freshDatabase()])
            #expect(sqlite.status == 0 && postgresql.status == 0, "\(sqlite.output)\n\(postgresql.output)")
            #expect(sqlite.output.trimmingCharacters(in: .newlines) == Self.expected, "SQLite:\n\(sqlite.output)")
            #expect(
                postgresql.output.trimmingCharacters(in: .newlines) == Self.expected,
                "PostgreSQL:\n\(postgresql.output)")
        }

        @Test func aTableViewMirroredFromTheCallbacksEndsAsAFreshFetch() throws {
            let (folder, bin, _) = try Self.built.get()
            let seed = ProcessInfo.processInfo.environment["FETCHED_RESULTS_SEED"] ?? "20261127"
            print("ExternalPackageTests mirror seed \(seed)")
            let sqlite = try Self.run(bin + "/mirror", ["sqlite", folder.path + "/mirror.sqlite", seed])
            #expect(sqlite.status == 0, "SQLite, seed \(seed):\n\(sqlite.output.suffix(4000))")
            let postgresql = try Self.run(bin + "/mirror", ["postgresql", try freshDatabase(), seed])
            #expect(postgresql.status == 0, "PostgreSQL, seed \(seed):\n\(postgresql.output.suffix(4000))")
        }

        /// A store written outside the package, on its public API alone (a table in memory with
        /// a log as its change feed), passes the same mirror and oracle as SQLite and PostgreSQL.
        @Test func aThirdStoreWrittenOutsideFollowsTheSameOracle() throws {
            let (_, bin, _) = try Self.built.get()
            let seed = ProcessInfo.processInfo.environment["FETCHED_RESULTS_SEED"] ?? "20261127"
            let memory = try Self.run(bin + "/mirror", ["memory", "-", seed])
            #expect(memory.status == 0, "the memory store, seed \(seed):\n\(memory.output.suffix(4000))")
        }

        @Test func everyArticlesCodeCompilesAndTheGettingStartedLoopsFollow() throws {
            let (_, bin, articles) = try Self.built.get()
            #expect(Set(Self.drivers.keys).isSubset(of: articles), "articles with code: \(articles)")
            #expect(articles.count >= 5, "articles with code: \(articles)")
            let sqliteFolder = TemporaryDirectory()
            let sqlite = try Self.run(bin + "/articleGettingStarted", [], in: sqliteFolder.path)
            #expect(sqlite.status == 0 && sqlite.output.contains("followed"), "\(sqlite.output.suffix(3000))")
            let postgresql = try Self.run(
                bin + "/articleGettingStartedPostgreSQL", [], environment: ["DATABASE_URL": try freshDatabase()])
            #expect(
                postgresql.status == 0 && postgresql.output.contains("followed"), "\(postgresql.output.suffix(3000))")
        }
    }
}
