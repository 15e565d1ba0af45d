import Foundation
import GRDB
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// Imports streamed from the file into the store (bulk past ``TeamStore/bulkImportThreshold``),
/// against the thorough reader as the oracle: the store ends up holding exactly the file's
/// entries, in the file's order, or says what the thorough reader says and holds nothing new.
@Suite struct StreamedImportTests {
    static let bigCount = TeamStore.bulkImportThreshold + 500

    /// Writes `entries` as a seed file; `text` can damage it on the way.
    static func write(
        _ entries: [SeedEntry], in directory: TemporaryDirectory, edit: (String) -> String = { $0 }
    ) throws -> String {
        let path = directory.path + "/teams-\(UUID().uuidString).json"
        var writer = try #require(SeedFileWriter(path: path))
        for entry in entries { try writer.write(entry) }
        try writer.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try edit(text).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func schema(_ store: TeamStore) throws -> [String] {
        try store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT coalesce(sql, name) FROM sqlite_master ORDER BY name")
        }
    }

    /// The teams after the seed's, in id order, as entries.
    static func importedEntries(_ store: TeamStore, after seedCount: Int) throws -> [SeedEntry] {
        try store.pool.read { db in
            try Team.order(Column("id")).fetchAll(db).dropFirst(seedCount).map {
                SeedEntry(
                    teamName: $0.teamName, qualifyingZone: $0.qualifyingZone, imageName: $0.imageName, wins: $0.wins)
            }
        }
    }

    @Test func aBigFileEndsUpInTheStoreAsTheThoroughReaderReadsIt() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let schemaBefore = try Self.schema(store)
        var generator = TeamGenerator(seed: 31)
        let path = try Self.write(generator.teams(count: Self.bigCount, zones: 12), in: directory)
        let expected = try SeedFile.thoroughlyParse(Data(contentsOf: URL(fileURLWithPath: path)), file: path)

        let statuses = Statuses()
        let result = try store.importTeams(from: .file(path), progress: { statuses.append($0) })

        #expect(result.imported == expected.count && result.skipped == 0)
        #expect(try Self.importedEntries(store, after: 32) == expected, "every entry, in the file's order")
        #expect(try Self.schema(store) == schemaBefore, "the indexes and the history triggers are back as they were")
        #expect(try store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        #expect(
            try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM fetchedresults_history") } == 0,
            "no history row per team: open scoreboards refetch once")
        let seen = statuses.all
        #expect(seen.last == ImportStatus(teams: expected.count, share: 1))
        #expect(
            zip(seen, seen.dropFirst()).allSatisfy { $0.share <= $1.share && $0.teams <= $1.teams },
            "progress only grows")
        #expect(seen.count > 5 && seen.dropLast().allSatisfy { !$0.isDone })
    }

    @Test func aNameTwiceInABigFileIsNamedAsTheThoroughReaderNamesIt() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let before = (try Self.schema(store), try store.teamsInStandingsOrder())
        var generator = TeamGenerator(seed: 32)
        var teams = generator.teams(count: Self.bigCount, zones: 12)
        teams[teams.count - 2].teamName = teams[7].teamName.uppercased()
        let path = try Self.write(teams, in: directory)

        let error = try #require(throws: WorldCupError.self) { try store.importTeams(from: .file(path)) }
        #expect(error.description.contains("entry \(teams.count - 2), field \"teamName\""), "\(error)")
        #expect(error.description.contains("is already the name of entry 7"), "\(error)")
        #expect(try Self.schema(store) == before.0)
        #expect(try store.teamsInStandingsOrder() == before.1, "nothing imported")
    }

    @Test func aBigFileNamingATeamOfTheStoreIsRefusedAtThatEntry() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let before = (try Self.schema(store), try store.teamsInStandingsOrder())
        var generator = TeamGenerator(seed: 33)
        var teams = generator.teams(count: Self.bigCount, zones: 12)
        teams[teams.count - 1].teamName = "bRAZIL"
        let path = try Self.write(teams, in: directory)

        let error = try #require(throws: WorldCupError.self) { try store.importTeams(from: .file(path)) }
        #expect(
            error.description.contains(
                "entry \(teams.count - 1), field \"teamName\": a team named \"bRAZIL\" is already in the store"),
            "\(error)")
        #expect(try Self.schema(store) == before.0)
        #expect(try store.teamsInStandingsOrder() == before.1)

        let skipping = try store.importTeams(from: .file(path), skippingExisting: true)
        #expect(skipping == (imported: teams.count - 1, skipped: 1))
    }

    @Test func aBigFileTheFastReaderLeavesIsImportedTheCarefulWay() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        var generator = TeamGenerator(seed: 34)
        // A trailing comma, as the tutorial's own seed.json has: the thorough reader accepts it.
        let path = try Self.write(generator.teams(count: Self.bigCount, zones: 3), in: directory) { text in
            String(text.dropLast(text.hasSuffix("\n") ? 2 : 1)) + ",]"
        }
        let expected = try SeedFile.thoroughlyParse(Data(contentsOf: URL(fileURLWithPath: path)), file: path)
        #expect(FastSeedReader.entries(inFileAt: path) == nil, "the fast reader gives this file up")
        #expect(try store.importTeams(from: .file(path)).imported == expected.count)
        #expect(try Self.importedEntries(store, after: 32) == expected)
    }

    @Test func aStoreFromBeforeTheNamedIndexKeepsItsTeamsAndItsRules() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/old.sqlite"
        do {
            let pool = try DatabasePool(path: path)
            try StoreSchema.migrator.migrate(pool, upTo: "v4: history of rows REPLACE deletes")
            try pool.write { db in
                try db.execute(
                    sql: "INSERT INTO team (id, teamName, qualifyingZone, imageName, wins) "
                        + "VALUES (7, 'Old', 'Zone', NULL, 3), (9, 'Older', 'Zone', 'x', 0)")
            }
        }
        let store = try TeamStore.open(path: path)
        let teams = try store.pool.read { db in try Team.order(Column("id")).fetchAll(db) }
        #expect(
            teams.map(\.id) == [7, 9] && teams.map(\.teamName) == ["Old", "Older"] && teams.map(\.wins) == [3, 0])
        #expect(throws: WorldCupError.self) { try store.addTeam(name: "OLD", zone: "Zone") }
        let indexes = try store.pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'team' ORDER BY name")
        }
        #expect(indexes == ["team_name", "team_standings"])
        let history = {
            try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM fetchedresults_history")! }
        }
        let recorded = try history()
        try store.addWins(to: "older")
        #expect(try history() > recorded, "the change history records again")
    }
}

/// Progress reports, collected from the `@Sendable` callback.
final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [ImportStatus] = []
    func append(_ status: ImportStatus) { lock.withLock { statuses.append(status) } }
    var all: [ImportStatus] { lock.withLock { statuses } }
}
