import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// The persistent cache: used when valid (no ordered fetch of the table), rebuilt for every
/// cause of invalidity, and always giving the same results as a fetch without it.
@Suite struct ResultsCacheTests {
    static let request = TableFetchRequest(
        table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings, fetchBatchSize: 4)
    static let oracleSQL =
        "SELECT * FROM item WHERE visible = 1 ORDER BY grp COLLATE NOCASE, score DESC, name COLLATE NOCASE, id"

    /// A store with history, 60 random items, and statements counted by kind.
    final class Fixture {
        let folder = TemporaryDirectory()
        let pool: DatabasePool
        let cacheDirectory: URL
        let orderedFetches = Shared(0)
        let delegate = Recorder()

        init(seed: UInt64 = 3) throws {
            cacheDirectory = URL(fileURLWithPath: folder.path + "/cache")
            var configuration = Configuration()
            let counter = orderedFetches
            configuration.prepareDatabase { db in
                db.trace { event in
                    // An ordered SELECT over the whole table is the full fetch a cache avoids.
                    if event.description.contains("ORDER BY") && !event.description.contains("sqlite_") {
                        counter.withLock { $0 += 1 }
                    }
                }
            }
            pool = try DatabasePool(path: folder.store, configuration: configuration)
            try pool.write { db in
                try db.execute(sql: itemTableSQL)
                try ChangeHistory.install(on: "item", in: db)
            }
            var random = SplitMix64(seed: seed)
            for _ in 0..<60 { _ = try RandomWorkload.transaction(pool, random: &random) }
        }

        func controller(
            _ request: TableFetchRequest = ResultsCacheTests.request, sections: String? = "grp",
            name: String = "items"
        ) -> FetchedResultsController<Item> {
            let controller = FetchedResultsController<Item>(
                fetchRequest: request, database: pool, sectionNameKeyPath: sections, cacheName: name,
                cacheDirectory: cacheDirectory)
            controller.delegate = delegate
            return controller
        }

        /// Fetches with a new controller; returns where its ordering came from, after checking
        /// its results against SQLite.
        func fetchAndCheck(
            _ request: TableFetchRequest = ResultsCacheTests.request, sections: String? = "grp",
            sql: String = ResultsCacheTests.oracleSQL
        ) throws -> (FetchSource?, orderedFetches: Int) {
            orderedFetches.withLock { $0 = 0 }
            let controller = controller(request, sections: sections)
            try controller.performFetch()
            let fetches = orderedFetches.withLock { $0 }
            try check(controller, sections: sections != nil, sql: sql)
            try controller.saveCache()
            return (controller.lastFetchSource, fetches)
        }

        func check(
            _ controller: FetchedResultsController<Item>, sections: Bool = true,
            sql: String = ResultsCacheTests.oracleSQL
        ) throws {
            let expected = try pool.read { db in try ItemState.query(db, sql: sql, sectioned: sections) }
            let mine = try controller.sections!.map { ($0.name, $0.objects.map(\.id!)) }
            let actual = ItemState(
                sections: mine,
                content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { ($0.id!, $0) }))
            #expect(actual == expected)
        }

        var cacheFile: URL { controller().cacheFile! }
    }

    @Test func validCacheIsUsedWithoutAnOrderedFetch() throws {
        let fixture = try Fixture()
        let first = try fixture.fetchAndCheck()
        #expect(first.0 == .store && first.orderedFetches == 1)
        let second = try fixture.fetchAndCheck()
        #expect(second.0 == .cache && second.orderedFetches == 0)

        // Nothing is loaded but the rows asked for.
        let controller = fixture.controller()
        try controller.performFetch()
        #expect(controller.loadedRowCount == 0)
        _ = try controller.object(at: IndexPath(row: 0, section: 0))
        #expect(controller.loadedRowCount == ResultsCacheTests.request.fetchBatchSize)
    }

    @Test func changesSinceTheCacheWasWrittenAreAppliedFromHistory() throws {
        let fixture = try Fixture()
        _ = try fixture.fetchAndCheck()
        var random = SplitMix64(seed: 11)
        for _ in 0..<25 { _ = try RandomWorkload.transaction(fixture.pool, random: &random) }
        let result = try fixture.fetchAndCheck()
        #expect(result.0 == .cache && result.orderedFetches == 0)
    }

    /// Every way a cache can stop describing the store makes the next fetch read the store,
    /// and the results stay right.
    @Test(arguments: [
        "prunedHistory", "storeFromThePast", "otherStore", "schemaChange", "otherPredicate",
        "otherSortOrder", "otherSections", "otherWindow",
    ])
    func everyInvalidationCauseRebuilds(cause: String) throws {
        let fixture = try Fixture()
        _ = try fixture.fetchAndCheck()
        var request = ResultsCacheTests.request
        var sections: String? = "grp"
        var sql = ResultsCacheTests.oracleSQL
        switch cause {
        case "prunedHistory":
            try fixture.pool.write { db in try db.execute(sql: "UPDATE item SET score = coalesce(score, 0) + 1") }
            try fixture.pool.write { db in try ChangeHistory.prune(keeping: 0, in: db) }
        case "storeFromThePast":
            // The cache was written after changes that the store no longer has (a restored backup).
            try fixture.pool.write { db in try db.execute(sql: "UPDATE item SET score = 7 WHERE id = 1") }
            _ = try fixture.fetchAndCheck()
            // As a backup taken one history row earlier holds it: without that row, and with the
            // sequence one lower.
            try fixture.pool.write { db in
                try db.execute(
                    sql: """
                        DELETE FROM fetchedresults_history WHERE seq = (SELECT max(seq) FROM fetchedresults_history);
                        UPDATE sqlite_sequence SET seq = seq - 1 WHERE name = 'fetchedresults_history'
                        """)
            }
        case "otherStore":
            try fixture.pool.write { db in try db.execute(sql: "UPDATE fetchedresults_store SET identity = 'another'") }
        case "schemaChange":
            try fixture.pool.write { db in try db.execute(sql: "ALTER TABLE item ADD COLUMN extra TEXT") }
        case "otherPredicate":
            request.predicate = SQLitePredicate(sql: "visible = 1 AND score > 1")
            sql = sql.replacingOccurrences(of: "visible = 1", with: "visible = 1 AND score > 1")
        case "otherSortOrder":
            request.sortDescriptors[1].ascending = true
            sql = sql.replacingOccurrences(of: "score DESC", with: "score")
        case "otherSections":
            sections = nil
        default:
            request.fetchLimit = 5
            sql += " LIMIT 5"
        }
        let rebuilt = try fixture.fetchAndCheck(request, sections: sections, sql: sql)
        #expect(rebuilt.0 == .store && rebuilt.orderedFetches == 1, "\(cause)")
        // The rebuilt cache is written again, and valid for the next launch.
        let next = try fixture.fetchAndCheck(request, sections: sections, sql: sql)
        #expect(next.0 == .cache && next.orderedFetches == 0, "\(cause)")
    }

    @Test(arguments: ["truncated", "flippedByte", "garbage", "empty", "headerOnly"])
    func damagedFilesAreNeverTrusted(damage: String) throws {
        let fixture = try Fixture()
        _ = try fixture.fetchAndCheck()
        let url = fixture.cacheFile
        var bytes = try Data(contentsOf: url)
        switch damage {
        case "truncated": bytes = bytes.prefix(bytes.count - 5)
        case "flippedByte": bytes[bytes.count - 3] ^= 0x20
        case "garbage": bytes = Data((0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        case "empty": bytes = Data()
        default:
            let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16
            bytes = bytes.prefix(12 + headerLength)
        }
        try bytes.write(to: url)
        let result = try fixture.fetchAndCheck()
        #expect(result.0 == .store && result.orderedFetches == 1, "\(damage)")
        #expect(try fixture.fetchAndCheck().0 == .cache, "\(damage): rewritten")
    }

    @Test func deleteCacheRemovesOneOrAll() throws {
        let fixture = try Fixture()
        for name in ["one", "two"] {
            let controller = fixture.controller(name: name)
            try controller.performFetch()
            try controller.saveCache()
        }
        let files = { Set((try? FileManager.default.contentsOfDirectory(atPath: fixture.cacheDirectory.path)) ?? []) }
        #expect(files() == ["one.frcache", "two.frcache"])
        FetchedResultsController<Item>.deleteCache(withName: "one", in: fixture.cacheDirectory)
        #expect(files() == ["two.frcache"])
        FetchedResultsController<Item>.deleteCache(withName: nil, in: fixture.cacheDirectory)
        #expect(files().isEmpty)
    }

    /// A controller reopened from its cache at random points equals one that never used a cache,
    /// with and without saving in between, and with pruning forcing rebuilds.
    @Test func cachedResultsEqualUncachedAfterRandomTransactions() throws {
        let seed = randomisedTestSeed(20261122, for: "ResultsCacheTests")
        let fixture = try Fixture(seed: seed)
        var random = SplitMix64(seed: seed)
        var live = fixture.controller()
        try live.performFetch()
        var sources: [FetchSource: Int] = [:]
        for step in 0..<300 {
            _ = try RandomWorkload.transaction(fixture.pool, random: &random)
            try live.processPendingChanges()
            switch Int.random(in: 0..<20, using: &random) {
            case 0...2: try live.saveCache()
            case 3:
                try fixture.pool.write { db in
                    try ChangeHistory.prune(keeping: Int.random(in: 0...3, using: &random), in: db)
                }
            case 4...5:
                live = fixture.controller()
                try live.performFetch()
                sources[live.lastFetchSource!, default: 0] += 1
            default: break
            }
            let uncached = FetchedResultsController<Item>(
                fetchRequest: ResultsCacheTests.request, database: fixture.pool, sectionNameKeyPath: "grp")
            try uncached.performFetch()
            #expect(
                try live.sections!.map { $0.objects.map(\.id) } == uncached.sections!.map { $0.objects.map(\.id) },
                "seed \(seed), step \(step)")
            #expect(try live.fetchedObjects! == uncached.fetchedObjects!, "seed \(seed), step \(step)")
        }
        print("ResultsCacheTests reopened from: \(sources)")
        #expect(sources[.cache, default: 0] > 0 && sources[.store, default: 0] > 0, "both paths were taken")
    }
}
