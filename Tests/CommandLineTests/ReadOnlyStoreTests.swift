import Foundation
import GRDB
import TestSupport
import Testing

/// A user who may read a store but not write it (the file, its folder, or both) reads it as
/// `sqlite3 -readonly` would: `list` and `export` work, on the file alone or with the WAL a
/// writer keeps (or left behind); every write is refused with the reason, and nothing in the
/// folder changes, not even a `-wal` or `-shm` file (one left by a reader would stop the
/// owner's writes). The tests run as root, who may write anywhere, so the commands run as the
/// unprivileged user "nobody".
@Suite struct ReadOnlyStoreTests {
    static func asNobody(_ arguments: [String]) throws -> WorldCupProcess.Result {
        try WorldCupProcess.runProgram("/usr/bin/setpriv", nobody + [WorldCupProcess.binary] + arguments)
    }

    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// A seeded store with Brazil on 2 wins, closed (its WAL folded into the file and removed);
    /// the file readable by all, writable by its owner (root) only. Returns each team's wins.
    static func closedStore(_ directory: TemporaryDirectory) throws -> [String: Int] {
        let made = try WorldCupProcess.run([
            "win", "Brazil", "--count", "2", "--db", directory.store,
            "--seed", WorldCupProcess.seedPath,
        ])
        try #require(made.status == 0, "\(made.stderr)")
        // Closing the last connection folds the WAL into the file and removes it.
        let queue = try DatabaseQueue(path: directory.store)
        let wins = try queue.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT teamName, wins FROM team").map {
                    ($0[0] as String, $0[1] as Int)
                })
        }
        try queue.close()
        try #require(wins.count == 32 && wins["Brazil"] == 2)
        try #require(!FileManager.default.fileExists(atPath: directory.store + "-wal"))
        try #require(!FileManager.default.fileExists(atPath: directory.store + "-shm"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.store)
        return wins
    }

    /// Every file in the folder with its bytes.
    static func folderContents(_ directory: TemporaryDirectory) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            contents[name] = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + name))
        }
        return contents
    }

    /// Each team's wins, as `list --json` printed them.
    static func wins(_ json: String) throws -> [String: Int] {
        struct Section: Decodable { var teams: [Entry] }
        struct Entry: Decodable { var teamName: String; var wins: Int }
        let sections = try JSONDecoder().decode([Section].self, from: Data(json.utf8))
        return Dictionary(uniqueKeysWithValues: sections.flatMap(\.teams).map { ($0.teamName, $0.wins) })
    }

    /// Reads, then tries each kind of write, as nobody; checks what was read against `expected`
    /// and that the folder is exactly as it was.
    static func readsAndRefusesWrites(_ directory: TemporaryDirectory, expected: [String: Int]) throws {
        let before = try folderContents(directory)
        let list = try asNobody(["list", "--json", "--db", directory.store])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try wins(list.stdout) == expected)
        let text = try asNobody(["list", "--db", directory.store])
        #expect(text.status == 0 && text.stdout.hasPrefix("Africa (5 teams)\n"), "\(text.stderr)")
        let export = try asNobody(["export", "--db", directory.store])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.components(separatedBy: "\"teamName\"").count - 1 == expected.count)
        let elsewhere = TemporaryDirectory()
        let file = elsewhere.file(
            "import.json", contents: #"[{"teamName": "Wenderland", "qualifyingZone": "Internets", "wins": 0}]"#)
        for write in [["win", "Brazil"], ["add", "--name", "Wenderland", "--zone", "Internets"], ["import", file]] {
            let result = try asNobody(write + ["--db", directory.store])
            #expect(result.status == 1, "\(write): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("worldcup: the store \(directory.store) is read-only"),
                "\(write): \(result.stderr)")
        }
        #expect(try folderContents(directory) == before, "nothing in the folder changed, no file was added")
    }

    @Test func aStoreInAFolderThatCannotBeWrittenIsRead() throws {
        let directory = TemporaryDirectory()
        let expected = try Self.closedStore(directory)
        try Self.readsAndRefusesWrites(directory, expected: expected)
    }

    @Test func aReadOnlyFileInAFolderAnyoneMayWriteIsReadWithoutLeavingFilesBehind() throws {
        let directory = TemporaryDirectory()
        let expected = try Self.closedStore(directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: directory.path)
        try Self.readsAndRefusesWrites(directory, expected: expected)
        // The owner can still write: a -shm file left by the reader would refuse that.
        let owner = try WorldCupProcess.run(["win", "Brazil", "--db", directory.store])
        #expect(owner.stdout == "3\n", "\(owner.stderr)")
    }

    /// A writer has the store open with a commit that is only in the WAL: the reader sees it.
    @Test func aStoreWhoseWriterIsRunningIsReadWithItsWAL() throws {
        let directory = TemporaryDirectory()
        var expected = try Self.closedStore(directory)
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let writer = try DatabasePool(path: directory.store, configuration: configuration)
        try writer.write { db in try db.execute(sql: "UPDATE team SET wins = 9 WHERE teamName = 'Ghana'") }
        let walSize = try FileManager.default.attributesOfItem(atPath: directory.store + "-wal")[.size] as? Int
        try #require((walSize ?? 0) > 0 && FileManager.default.fileExists(atPath: directory.store + "-shm"))
        expected["Ghana"] = 9
        try Self.readsAndRefusesWrites(directory, expected: expected)
        try writer.close()
    }

    /// A writer was killed with commits only in its WAL, and left the -wal and -shm files: the
    /// reader sees those commits, as `sqlite3 -readonly` does.
    @Test func aStoreWhoseWriterDiedIsReadWithTheWALItLeft() throws {
        let directory = TemporaryDirectory()
        var expected = try Self.closedStore(directory)
        let killed = try WorldCupProcess.runProgram(
            "/usr/bin/sqlite3",
            [
                directory.store, "PRAGMA wal_autocheckpoint = 0", "UPDATE team SET wins = 7 WHERE teamName = 'Japan'",
                ".system kill -9 $PPID",
            ])
        #expect(killed.status == 9, "killed: \(killed.stderr)")
        try #require(FileManager.default.fileExists(atPath: directory.store + "-wal"))
        try #require(FileManager.default.fileExists(atPath: directory.store + "-shm"))
        let oracle = try WorldCupProcess.runProgram(
            "/usr/bin/setpriv",
            Self.nobody + [
                "/usr/bin/sqlite3", "-readonly", directory.store, "SELECT wins FROM team WHERE teamName = 'Japan'",
            ])
        #expect(oracle.stdout == "7\n", "sqlite3 -readonly reads the WAL: \(oracle.stderr)")
        expected["Japan"] = 7
        try Self.readsAndRefusesWrites(directory, expected: expected)
    }
}
