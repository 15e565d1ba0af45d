import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The library as a Swift developer meets it: a package of their own, outside this
    /// repository, depending on it by path, whose one program follows a SQLite table and a
    /// PostgreSQL table with the same generic code but for the store it opens.
    @Suite struct ExternalPackageTests {
        static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path

        /// SwiftPM names a package it reaches by path after its folder.
        static let identity = URL(fileURLWithPath: repository).lastPathComponent

        static let manifest = """
            // swift-tools-version:6.1
            import PackageDescription

            let package = Package(
                name: "follower",
                platforms: [.macOS(.v15)],
                dependencies: [
                    .package(path: "\(repository)"),
                    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
                ],
                targets: [
                    .executableTarget(name: "follower", dependencies: [
                        .product(name: "FetchedResultsSQLite", package: "\(identity)"),
                        .product(name: "FetchedResultsPostgreSQL", package: "\(identity)"),
                        .product(name: "GRDB", package: "GRDB.swift"),
                    ]),
                ],
                swiftLanguageModes: [.v6]
            )
            """

        static let program = #"""
            import FetchedResultsPostgreSQL
            import FetchedResultsSQLite
            import GRDB

            struct Player: FetchableRecord, PostgreSQLRecord {
                var name: String
                var score: Int64
                init(row: GRDB.Row) { (name, score) = (row["name"], row["score"]) }
                init(row: PostgreSQLRow) throws {
                    (name, score) = (try row.decode(forColumn: "name"), try row.decode(forColumn: "score"))
                }
            }

            final class Printer: FetchedResultsControllerDelegate {
                func controller(_ controller: any FetchedResultsControlling<Player>, didChange section: SectionChange) {
                    print("section \(section.type) \(section.index) \(section.name)")
                }
                func controller(_ controller: any FetchedResultsControlling<Player>, didChange object: ObjectChange) {
                    let from = object.indexPath.map { "\($0)" } ?? "-", to = object.newIndexPath.map { "\($0)" } ?? "-"
                    print("object \(object.type) \(from) \(to) \(object.changedColumns.sorted())")
                }
                func controllerDidChangeContent(_ controller: any FetchedResultsControlling<Player>) { print("--") }
                func controller(_ controller: any FetchedResultsControlling<Player>, didFailWith error: any Error) {
                    print("error \(error)")
                }
            }

            /// The same code for every store: fetch and print, then after each statement another
            /// connection commits, look and print the change set.
            func follow<Store: ResultsStore>(
                _ controller: FetchedResultsController<Player, Store>, run: (String) throws -> Void
            ) throws {
                let printer = Printer()
                controller.delegate = printer
                try controller.performFetch()
                for statement in [
                    "INSERT INTO player (id, team, name, score) VALUES (4, 'blue', 'dan', 3)",
                    "UPDATE player SET score = 9 WHERE id = 2",
                    "DELETE FROM player WHERE id = 1",
                    "UPDATE player SET team = 'Green' WHERE id = 3",
                ] {
                    try run(statement)
                    try controller.processPendingChanges()
                }
                for section in try controller.sections ?? [] {
                    print(section.name + ": "
                          + section.objects.map { "\($0.name) \($0.score)" }.joined(separator: ", "))
                }
            }

            let request = TableFetchRequest(table: "player", sortDescriptors: [
                .ascending("team", collation: .caseInsensitive), .descending("score"), .ascending("name"),
            ])
            let rows = "(1, 'red', 'ann', 1), (2, 'red', 'bob', 2), (3, 'blue', 'cy', 5)"
            switch (CommandLine.arguments[1], CommandLine.arguments[2]) {
            case ("sqlite", let path):
                let pool = try DatabasePool(path: path)
                try pool.write { db in
                    try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, "
                                   + "team TEXT, name TEXT, score INTEGER)")
                    try db.execute(sql: "INSERT INTO player VALUES " + rows)
                    try ChangeHistory.install(on: "player", in: db)
                }
                let other = try DatabaseQueue(path: path)
                try follow(FetchedResultsController(
                    fetchRequest: request, database: pool, recordType: Player.self, sectionNameKeyPath: "team")
                ) { sql in try other.write { try $0.execute(sql: sql) } }
            case ("postgresql", let conninfo):
                let other = try PostgreSQLConnection(conninfo)
                try other.execute("CREATE TABLE player (id bigint PRIMARY KEY, team text, name text, score bigint)")
                try other.execute("INSERT INTO player VALUES " + rows)
                try PostgreSQLChangeFeed.install(on: "player", keyColumn: "id", in: other)
                try follow(FetchedResultsController(
                    fetchRequest: request, conninfo: conninfo, recordType: Player.self, sectionNameKeyPath: "team")
                ) { sql in try other.execute(sql) }
            default:
                fatalError("usage: follower sqlite PATH | postgresql CONNINFO")
            }
            """#

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

        /// Runs a program and waits for it: its status, and what it printed on stdout and stderr.
        static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        @Test func aPackageOutsideFollowsBothStoresWithTheSameCode() throws {
            let folder = TemporaryDirectory()
            let package = folder.path + "/follower"
            try FileManager.default.createDirectory(
                atPath: package + "/Sources/follower", withIntermediateDirectories: true)
            try Self.manifest.write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
            try Self.program.write(toFile: package + "/Sources/follower/main.swift", atomically: true, encoding: .utf8)
            // Its own build folder under this repository's, so that a second run builds only what changed.
            let scratch = Self.repository + "/.build/external-package"
            let build = try Self.run(
                "/usr/bin/env", ["swift", "build", "--package-path", package, "--scratch-path", scratch])
            try #require(build.status == 0, "the package builds:\n\(build.output.suffix(3000))")
            let dependencies = try Self.run(
                "/usr/bin/env",
                ["swift", "package", "--package-path", package, "--scratch-path", scratch, "show-dependencies"])
            #expect(
                !dependencies.output.contains("docc"),
                "a dependent resolves no documentation plugin:\n\(dependencies.output)")

            let program = scratch + "/debug/follower"
            let sqlite = try Self.run(program, ["sqlite", folder.path + "/follower.sqlite"])
            let postgresql = try Self.run(program, ["postgresql", try freshDatabase()])
            #expect(sqlite.status == 0 && postgresql.status == 0, "\(sqlite.output)\n\(postgresql.output)")
            #expect(sqlite.output.trimmingCharacters(in: .newlines) == Self.expected, "SQLite:\n\(sqlite.output)")
            #expect(
                postgresql.output.trimmingCharacters(in: .newlines) == Self.expected,
                "PostgreSQL:\n\(postgresql.output)")
        }
    }
}
