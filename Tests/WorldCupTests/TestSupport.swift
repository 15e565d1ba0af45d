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

    static func teamCount(_ store: TeamStore) throws -> Int {
        try store.pool.read { db in try Team.fetchCount(db) }
    }
}
