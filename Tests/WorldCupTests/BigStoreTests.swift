import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// Generated stores and the bulk import path that big imports take.
@Suite struct BigStoreTests {
    final class CountingDelegate: FetchedResultsControllerDelegate {
        var batches = 0
        func controllerDidChangeContent(_ controller: FetchedResultsController<Team>) { batches += 1 }
        func controller(_ controller: FetchedResultsController<Team>, didFailWith error: any Error) {
            Issue.record(error)
        }
    }

    @Test func generatorIsReproducibleUniqueAndWide() {
        var first = TeamGenerator(seed: 7), second = TeamGenerator(seed: 7), other = TeamGenerator(seed: 8)
        let teams = first.teams(count: 20_000, zones: 12)
        #expect(teams == second.teams(count: 20_000, zones: 12))
        #expect(teams != other.teams(count: 20_000, zones: 12))
        #expect(Set(teams.map { NoCase.key($0.teamName) }).count == teams.count, "names are unique ignoring case")
        #expect(Set(teams.map(\.qualifyingZone)).count == 12)
        #expect(
            teams.contains { $0.teamName.unicodeScalars.contains { $0.value >= 0x4E00 && $0.value <= 0x9FFF } },
            "some CJK names")
        #expect(
            teams.contains { $0.teamName.unicodeScalars.contains { $0.value >= 0xC0 && $0.value <= 0xFF } },
            "some accented names")
        #expect(
            teams.allSatisfy {
                $0.wins >= 0 && !$0.teamName.isEmpty && $0.teamName.count <= SeedEntry.maximumTextLength
            })
    }

    @Test func bulkImportKeepsTheSchemaAndMakesOpenControllersRefetchOnce() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let schema = {
            try store.pool.read { db in
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') ORDER BY name")
            }
        }
        let schemaBefore = try schema()
        // One scoreboard in this process, one as if in another (its own connections).
        let local = store.standingsController(cacheDirectory: nil)
        let localDelegate = CountingDelegate()
        local.delegate = localDelegate
        try local.performFetch()
        let elsewhere = try TeamStore.open(path: store.path)
        let controller = elsewhere.standingsController(cacheDirectory: nil)
        let delegate = CountingDelegate()
        controller.delegate = delegate
        try controller.performFetch()

        var generator = TeamGenerator(seed: 1)
        // Past the threshold: the import becomes a bulk load part way.
        let teams = generator.teams(count: TeamStore.bulkImportThreshold + 100, zones: 20)
        try store.importTeams(from: SeedSource(entries: teams, file: "generated.json"))
        #expect(try schema() == schemaBefore, "indexes and history triggers are back")
        let history = try store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM fetchedresults_history")!
        }
        #expect(history == 0, "no history row per imported team")

        #expect(try local.processPendingChanges(), "this process's commit, noted by its observer")
        #expect(localDelegate.batches == 1)
        #expect(try controller.processPendingChanges())
        #expect(delegate.batches == 1)
        let expected = try store.teamsInStandingsOrder()
        #expect(expected.count == 32 + teams.count)
        let shown = Fixtures.rowIDsInOrder(of: controller)
        #expect(shown == expected.map(\.id!))
        #expect((0..<local.numberOfSections).reduce(0) { $0 + local.numberOfObjects(inSection: $1) } == expected.count)

        // Later changes are recorded and applied one by one again.
        try store.addWins(to: teams[0].teamName)
        #expect(try controller.processPendingChanges())
        #expect(try local.processPendingChanges())
        #expect(delegate.batches == 2 && localDelegate.batches == 2)
        #expect(controller.indexPath(forRowID: expected.first { $0.teamName == teams[0].teamName }!.id!) != nil)
    }

    @Test func failedBulkImportLeavesTheStoreAsItWas() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let schema = {
            try store.pool.read { db in
                try String.fetchAll(db, sql: "SELECT coalesce(sql, name) FROM sqlite_master ORDER BY name")
            }
        }
        let before = (try schema(), try store.teamsInStandingsOrder())
        var generator = TeamGenerator(seed: 2)
        var teams = generator.teams(count: TeamStore.bulkImportThreshold + 100, zones: 5)
        teams[teams.count - 1].teamName = "BRAZIL"  // already in the store
        #expect(throws: WorldCupError.self) {
            try store.importTeams(from: SeedSource(entries: teams, file: "generated.json"))
        }
        #expect(try schema() == before.0)
        #expect(try store.teamsInStandingsOrder() == before.1)
    }
}
