import Foundation
import GRDB
import TestSupport
import Testing

/// Stores and input a user (or another program) can get wrong: a clear message, a non-zero
/// exit, and nothing changed.
@Suite struct BadStoreAndInputTests {
    /// A seeded store whose WAL has been folded into the main file (so the file alone is the store).
    func seededStore(_ directory: TemporaryDirectory) throws -> Data {
        let result = try WorldCupProcess.run([
            "win", "Brazil", "--count", "2", "--db", directory.store, "--seed", WorldCupProcess.seedPath,
        ])
        try #require(result.status == 0, "\(result.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: directory.store))
    }

    func fileBytes(_ path: String) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Runs worldcup as the unprivileged user "nobody" (the tests run as root, who may write anywhere).
    func runAsNobody(_ arguments: [String]) throws -> WorldCupProcess.Result {
        try WorldCupProcess.runProgram(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", WorldCupProcess.binary] + arguments)
    }

    @Test func readOnlyStoreFileIsRefusedAndUnchanged() throws {
        let directory = TemporaryDirectory()
        let before = try seededStore(directory)
        let result = try runAsNobody(["win", "Brazil", "--db", directory.store])
        #expect(result.status == 1)
        #expect(result.stderr.contains("read-only"), "\(result.stderr)")
        #expect(fileBytes(directory.store) == before)
    }

    @Test func readOnlyFolderIsRefusedAndTheStoreUnchanged() throws {
        let directory = TemporaryDirectory()
        let before = try seededStore(directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: directory.store)
        let result = try runAsNobody(["win", "Brazil", "--db", directory.store])
        #expect(result.status == 1)
        #expect(result.stderr.contains("read-only"), "\(result.stderr)")
        #expect(fileBytes(directory.store) == before)
    }

    /// A writer that finds the store locked waits `--lock-wait` seconds: it gives up with a
    /// clear error when the lock outlasts the wait, and goes on when the lock goes first.
    @Test func storeLockedByAnotherWriterWaitsThenSaysSo() throws {
        let directory = TemporaryDirectory()
        _ = try seededStore(directory)
        let holder = try DatabaseQueue(path: directory.store)
        let locked = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? holder.write { db in
                try db.execute(sql: "UPDATE team SET wins = wins WHERE 0")
                locked.signal()
                Thread.sleep(forTimeInterval: 3)
            }
            released.signal()
        }
        locked.wait()
        let started = Date()
        let refused = try WorldCupProcess.run(["win", "Brazil", "--db", directory.store, "--lock-wait", "1"])
        let waited = Date().timeIntervalSince(started)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("locked by another program"), "\(refused.stderr)")
        #expect(waited >= 0.9, "it waited for the lock first (\(waited) s)")
        // The lock goes within the default wait: this one waits, then counts its win.
        let patient = try WorldCupProcess.run(["win", "Brazil", "--db", directory.store])
        #expect(patient.status == 0, "\(patient.stderr)")
        released.wait()
        let wins = try holder.read { db in try Int.fetchOne(db, sql: "SELECT wins FROM team WHERE teamName = 'Brazil'")
        }
        #expect(wins == 3, "the refused win changed nothing, the patient one counted once")
    }

    @Test(arguments: [100, 4096, 20000])
    func truncatedStoreIsRefusedAndLeftAsItWas(keptBytes: Int) throws {
        let directory = TemporaryDirectory()
        let full = try seededStore(directory)
        try #require(full.count > keptBytes)
        let truncated = full.prefix(keptBytes)
        try truncated.write(to: URL(fileURLWithPath: directory.store))
        let result = try WorldCupProcess.run(["list", "--db", directory.store, "--seed", WorldCupProcess.seedPath])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("damaged") || result.stderr.contains("not an SQLite database"), "\(result.stderr)")
        #expect(fileBytes(directory.store) == Data(truncated))
    }

    @Test func storeFromANewerVersionIsRefusedAndUnchanged() throws {
        let directory = TemporaryDirectory()
        _ = try seededStore(directory)
        let future = try DatabaseQueue(path: directory.store)
        try future.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        try future.close()  // folds the WAL into the file, so the file alone is the "before"
        let before = fileBytes(directory.store)
        let result = try WorldCupProcess.run(["win", "Brazil", "--db", directory.store])
        #expect(result.status == 1)
        #expect(result.stderr.contains("written by a newer worldcup"), "\(result.stderr)")
        #expect(fileBytes(directory.store) == before)
    }

    /// Another program's SQLite database given for `--db` (by mistake) is refused and left as
    /// it was: no worldcup tables, no seed, no WAL mode; also when it has a `team` table, and
    /// when another GRDB program's migrations are in it.
    @Test(arguments: [
        "CREATE TABLE foo (x)", "CREATE TABLE team (name TEXT)",
        "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); "
            + "INSERT INTO grdb_migrations VALUES ('createUsers'); CREATE TABLE users (id INTEGER PRIMARY KEY)",
    ])
    func anotherProgramsDatabaseIsRefusedAndUnchanged(schema: String) throws {
        let directory = TemporaryDirectory()
        let other = try DatabaseQueue(path: directory.store)
        try other.write { db in try db.execute(sql: schema) }
        try other.close()
        let before = fileBytes(directory.store)
        for command in [["list"], ["win", "Brazil"], ["export"]] {
            let result = try WorldCupProcess.run(
                command + ["--db", directory.store, "--seed", WorldCupProcess.seedPath])
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("not a worldcup store"), "\(command): \(result.stderr)")
            #expect(fileBytes(directory.store) == before, "\(command) left the file as it was")
            #expect(!FileManager.default.fileExists(atPath: directory.store + "-wal"), "\(command)")
        }
    }

    /// A store this user may not read, or reach, is called what it is, not read-only.
    @Test func anUnreadableStoreOrAFolderThatCannotBeEnteredIsSaidToBeSo() throws {
        let directory = TemporaryDirectory()
        let before = try seededStore(directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: directory.store)
        let unreadable = try runAsNobody(["list", "--db", directory.store])
        #expect(unreadable.status == 1)
        #expect(unreadable.stderr.contains("cannot be read by this user"), "\(unreadable.stderr)")
        #expect(fileBytes(directory.store) == before)

        let closed = directory.path + "/closed"
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: closed)
        let unreachable = try runAsNobody(["list", "--db", closed + "/store.sqlite"])
        #expect(unreachable.status == 1)
        #expect(
            unreachable.stderr.contains("its folder \(closed), or one above it, may not be entered"),
            "\(unreachable.stderr)")
        let deeper = try runAsNobody(["list", "--db", closed + "/sub/store.sqlite"])
        #expect(deeper.status == 1)
        #expect(deeper.stderr.contains("or one above it, may not be entered"), "\(deeper.stderr)")
        let underAFile = try runAsNobody(["list", "--db", directory.store + "/store.sqlite"])
        #expect(underAFile.status == 1)
        #expect(underAFile.stderr.contains("should be a folder is a file"), "\(underAFile.stderr)")

        let shut = directory.path + "/shut"
        try FileManager.default.createDirectory(atPath: shut, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: shut)
        let unmade = try runAsNobody(["list", "--db", shut + "/store.sqlite", "--seed", WorldCupProcess.seedPath])
        #expect(unmade.status == 1)
        #expect(unmade.stderr.contains("its folder \(shut) may not be written"), "\(unmade.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shut).isEmpty)
    }

    @Test func aPostgreSQLURIThatCannotBeReadIsSaidToBeSo() throws {
        let result = try WorldCupProcess.run(["list", "--db", "postgresql://%zz"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("the --db URI cannot be read: invalid percent-encoded token"), "\(result.stderr)")
        #expect(!result.stderr.contains("cannot reach"), "\(result.stderr)")
    }

    @Test func anEmptyStorePathIsAUsageError() throws {
        let result = try WorldCupProcess.run(["list", "--db", ""])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--db needs"), "\(result.stderr)")
    }

    /// Reading does not wait for a writer in WAL mode, even when the writer holds its lock
    /// before writing anything, with the WAL file empty (`BEGIN IMMEDIATE` in the sqlite3 shell).
    @Test func listAndExportReadWhileAnotherProgramHoldsTheWriteLock() throws {
        let directory = TemporaryDirectory()
        _ = try seededStore(directory)
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // the lock is held across accesses, as the shell holds it
        let holder = try DatabaseQueue(path: directory.store, configuration: configuration)
        try holder.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let walSize = try FileManager.default.attributesOfItem(atPath: directory.store + "-wal")[.size] as? Int
        try #require(walSize == 0, "the case: the WAL file is there, and empty")
        for command in [["list"], ["export"]] {
            let result = try WorldCupProcess.run(command + ["--db", directory.store, "--lock-wait", "0"])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stdout.contains("Brazil"), "\(command)")
        }
        try holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    }

    @Test func hugeAndNegativeCountsAreRefused() throws {
        let directory = TemporaryDirectory()
        _ = try seededStore(directory)
        let tooBig = try WorldCupProcess.run([
            "win", "Brazil", "--count", "99999999999999999999", "--db", directory.store,
        ])
        #expect(tooBig.status != 0)
        #expect(tooBig.stderr.contains("--count"), "\(tooBig.stderr)")
        let negative = try WorldCupProcess.run(["win", "Brazil", "--count=-3", "--db", directory.store])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("at least 1"), "\(negative.stderr)")
        let maximum = try WorldCupProcess.run(["win", "Brazil", "--count", String(Int64.max), "--db", directory.store])
        #expect(maximum.status == 1)
        #expect(maximum.stderr.contains("cannot grow that far"), "\(maximum.stderr)")
        let list = try WorldCupProcess.run(["list", "--json", "--db", directory.store])
        #expect(list.stdout.contains("\"wins\" : 2"), "Brazil kept its 2 wins")
    }

    @Test func overlongNamesGetAClearErrorFromImportAndAdd() throws {
        let directory = TemporaryDirectory()
        _ = try seededStore(directory)
        let huge = String(repeating: "x", count: 1_048_576)
        let file = directory.path + "/huge.json"
        try Data("[{\"teamName\": \"\(huge)\", \"qualifyingZone\": \"Z\", \"imageName\": null, \"wins\": 0}]".utf8)
            .write(to: URL(fileURLWithPath: file))
        let imported = try WorldCupProcess.run(["import", file, "--db", directory.store])
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("entry 0, field \"teamName\": is too long (1048576 characters; at most 100)"))
        let added = try WorldCupProcess.run([
            "add", "--name", String(repeating: "é", count: 50_000), "--zone", "Z", "--db", directory.store,
        ])
        #expect(added.status == 1)
        #expect(added.stderr.contains("too long"))
        let count = try DatabaseQueue(path: directory.store).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM team")
        }
        #expect(count == 32)
    }

    @Test func controlCharactersInNamesNeverReachTheTerminalRaw() throws {
        let directory = TemporaryDirectory()
        _ = try seededStore(directory)
        let file = directory.path + "/hostile.json"
        let hostile =
            #"[{"teamName": "Evil\u001b]0;PWNED\u0007Team", "qualifyingZone": "Zone\u001b[31m", "#
            + #""imageName": null, "wins": 1}]"#
        try Data(hostile.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try WorldCupProcess.run(["import", file, "--db", directory.store]).status == 0)
        let text = try WorldCupProcess.run(["list", "--db", directory.store]).stdout
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(text.contains("Evil\u{FFFD}]0;PWNED\u{FFFD}Team"))
        let json = try WorldCupProcess.run(["list", "--json", "--db", directory.store]).stdout
        #expect(json.contains(#"Evil\u001b]0;PWNED\u0007Team"#), "JSON escapes them and keeps the data")
        let stored = try DatabaseQueue(path: directory.store).read { db in
            try String.fetchOne(db, sql: "SELECT teamName FROM team WHERE wins = 1 AND teamName LIKE 'Evil%'")
        }
        #expect(stored == "Evil\u{1B}]0;PWNED\u{07}Team", "stored literally")
    }

    @Test func invalidUTF8WrittenByAnotherProgramIsShownNotFatal() throws {
        let directory = TemporaryDirectory()
        _ = try seededStore(directory)
        let sqlite = try WorldCupProcess.runProgram(
            "/usr/bin/sqlite3",
            [
                directory.store,
                "INSERT INTO team (teamName, qualifyingZone, wins) VALUES (CAST(X'416C67C328' AS TEXT), 'Africa', 0)",
            ])
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        let list = try WorldCupProcess.run(["list", "--db", directory.store])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Alg\u{FFFD}("))
    }
}
