import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

enum Fixtures {
    /// The repository's own seed.json.
    static let seedPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("seed.json").path

    static func seededStore(in directory: TemporaryDirectory) throws -> TeamStore {
        let store = try TeamStore.open(path: directory.path + "/store.sqlite")
        try store.seedIfNeeded { .file(seedPath) }
        return store
    }

    /// A seeded store with `count` generated teams more: bigger than the scoreboard's first
    /// fetch, so that the rest loads behind the first frame.
    static func seededStore(
        in directory: TemporaryDirectory, plusGenerated count: Int, seed: UInt64, zones: Int = 8
    ) throws -> TeamStore {
        let store = try seededStore(in: directory)
        try addGeneratedTeams(count, seed: seed, zones: zones, to: store)
        return store
    }

    /// Imports `count` teams made by the `TeamGenerator` with `seed`, across `zones` zones.
    static func addGeneratedTeams(_ count: Int, seed: UInt64, zones: Int, to store: TeamStore) throws {
        var generator = TeamGenerator(seed: seed)
        try store.importTeams(
            from: SeedSource(entries: generator.teams(count: count, zones: zones), file: "generated.json"))
    }

    /// Every row id a controller holds, section by section, in its order.
    static func rowIDsInOrder(of results: FetchedResultsController<Team>) -> [Int64] {
        (0..<results.numberOfSections).flatMap { section in
            (0..<results.numberOfObjects(inSection: section)).map {
                results.rowID(at: IndexPath(row: $0, section: section))
            }
        }
    }

    static func teamCount(_ store: TeamStore) throws -> Int {
        try store.pool.read { db in try Team.fetchCount(db) }
    }
}
