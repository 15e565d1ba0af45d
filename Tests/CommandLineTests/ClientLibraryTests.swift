import Foundation
import TestSupport
import Testing

/// libpq is loaded when a command first connects to PostgreSQL, not at every start: linked, it
/// brought some twenty libraries (TLS, Kerberos, LDAP) into every command, about 5 ms of each
/// start on the development machine.
@Suite struct ClientLibraryTests {
    /// The files the dynamic loader opened for a command, by name (glibc's `LD_DEBUG=files`).
    static func loadedLibraries(_ arguments: [String]) throws -> (result: WorldCupProcess.Result, libraries: [String]) {
        let result = try WorldCupProcess.run(arguments, environment: ["LD_DEBUG": "files"])
        let libraries = result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " && $0 != "\t" && $0 != "[" })
        }
        return (result, libraries)
    }

    @Test func aCommandOnSQLiteNeverLoadsLibpq() throws {
        let directory = TemporaryDirectory()
        let (result, libraries) = try Self.loadedLibraries([
            "list", "--db", directory.store, "--seed", WorldCupProcess.seedPath,
        ])
        #expect(result.status == 0, "\(result.stderr.suffix(500))")
        #expect(libraries.contains { $0.hasPrefix("libsqlite3") }, "the loader's log names what it opens: \(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libpq") }, "\(libraries)")
    }

    @Test func aCommandOnPostgreSQLLoadsLibpqWhenItConnects() throws {
        let (result, libraries) = try Self.loadedLibraries([
            "list", "--db", "postgresql://nobody@/worldcup?host=/nonexistent&port=5999",
        ])
        #expect(result.status == 1)
        #expect(libraries.contains { $0.hasPrefix("libpq.so.5") }, "\(libraries)")
    }

    /// Without libpq (hidden here by an empty file mounted over it, in a mount namespace of the
    /// test's own), a PostgreSQL store is refused with what to install, and SQLite stores work.
    @Test func withoutLibpqAPostgreSQLStoreSaysWhatToInstallAndSQLiteWorks() throws {
        let library = try Self.libpqPath()
        let directory = TemporaryDirectory()
        let empty = directory.file("empty.so", contents: "")
        func hidden(_ arguments: [String]) throws -> WorldCupProcess.Result {
            let command =
                "mount --bind '\(empty)' '\(library)' && exec '\(WorldCupProcess.binary)' "
                + arguments.map { "'\($0)'" }.joined(separator: " ")
            return try WorldCupProcess.runProgram(
                "/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", command])
        }
        let postgresql = try hidden(["list", "--db", "postgresql://nobody@localhost/worldcup"])
        #expect(postgresql.status == 1)
        #expect(
            postgresql.stderr.hasPrefix(
                "worldcup: --db names a PostgreSQL database, "
                    + "but PostgreSQL's client library (libpq) could not be loaded: "),
            "\(postgresql.stderr)")
        #expect(postgresql.stderr.contains("apt-get install libpq5"), "\(postgresql.stderr)")
        let sqlite = try hidden(["list", "--db", directory.store, "--seed", WorldCupProcess.seedPath])
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        #expect(sqlite.stdout.contains("Brazil"))
    }

    /// Where the system keeps libpq.so.5, from the loader's cache.
    static func libpqPath() throws -> String {
        let cache = try WorldCupProcess.runProgram("/sbin/ldconfig", ["-p"])
        let line = cache.stdout.split(separator: "\n").first { $0.contains("libpq.so.5 (") }
        return try #require(line.flatMap { $0.components(separatedBy: " => ").last }, "ldconfig -p lists libpq.so.5")
    }
}
