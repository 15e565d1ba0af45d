import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

@testable import FetchedResults
@testable import FetchedResultsSQLite

/// The steps of a progressive fetch that take rows the store read ahead on another of the
/// pool's connections (started at the step before, read while the program went on), against
/// SQLite's own order after every step: what only SQLite's read ahead has (its row limit, a
/// pool of one reader, its copied reads); the steps both stores take are in the PostgreSQL
/// tests' `ReadAheadTests`.
@Suite struct SQLiteReadAheadTests {
    static let orderBy = "grp COLLATE NOCASE, score DESC, name COLLATE NOCASE, id"

    /// Inserts `rows` random items.
    static func fill(_ pool: DatabasePool, rows: Int, random: inout SplitMix64) throws {
        let statements = ItemWorkload.inserts(rows, random: &random)
        try pool.write { db in
            for statement in statements { try db.execute(sql: statement) }
        }
    }

    /// A batched, sectioned controller on `count` made-up items of a table with a change
    /// history, its first 4 rows fetched; and another connection to the same file.
    static func loadingController(
        items count: Int, random: inout SplitMix64, configuration: Configuration = Configuration()
    ) throws -> (FetchedResultsController<Item>, Recorder, DatabasePool, DatabaseQueue) {
        let (pool, path) = try makeItemDatabase(history: true, configuration: configuration)
        try fill(pool, rows: count, random: &random)
        let request = TableFetchRequest(
            table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings,
            fetchBatchSize: 5)
        let controller = FetchedResultsController<Item>(
            fetchRequest: request, database: pool, sectionNameKeyPath: "grp")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch(firstRows: 4)
        return (controller, recorder, pool, try DatabaseQueue(path: path))
    }

    /// A store prepared for a batched request on `count` made-up items of a table with a change
    /// history, without a controller: a test of the store's own read ahead.
    static func batchedStore(
        items count: Int, seed: UInt64, sectionNameKeyPath: String?
    ) throws -> (SQLiteStore, DatabasePool) {
        var random = SplitMix64(seed: seed)
        let (pool, _) = try makeItemDatabase(history: true)
        try fill(pool, rows: count, random: &random)
        let store = SQLiteStore(database: pool)
        let request = TableFetchRequest(
            table: "item", sortDescriptors: ItemWorkload.standings, fetchBatchSize: 5)
        try store.prepare(request, sectionNameKeyPath: sectionNameKeyPath)
        return (store, pool)
    }

    /// The first `held` rows of SQLite's order (all of them when nil).
    static func oracle(held: Int?, _ reader: any DatabaseReader) throws -> ItemState {
        try reader.read { db in
            try ItemState.query(
                db, sql: "SELECT * FROM item WHERE visible = 1 ORDER BY \(orderBy) LIMIT \(held ?? -1)",
                sectioned: true)
        }
    }

    static func state(of controller: FetchedResultsController<Item>) throws -> ItemState {
        SectionedState(
            sections: try controller.sections!.map { ($0.name, $0.objects.map { $0.id! }) },
            content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { ($0.id!, $0) }))
    }

    /// A step asking for more rows than a read ahead holds takes that many (the next step
    /// reads the rest), still exactly the next rows of SQLite's order.
    @Test func aReadAheadHoldsAtMostItsRowLimit() throws {
        let (pool, _) = try makeItemDatabase(history: true)
        let total = 3 * SQLiteStore.readAheadRowLimit + 5_000
        try pool.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO item (grp, score, name) SELECT 'g' || (i % 7), i % 13, 'item ' || i FROM n
                    """, arguments: [total])
        }
        let request = TableFetchRequest(
            table: "item", sortDescriptors: ItemWorkload.standings, fetchBatchSize: 50)
        let controller = FetchedResultsController<Item>(
            fetchRequest: request, database: pool, sectionNameKeyPath: "grp")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch(firstRows: 4)
        let asked = SQLiteStore.readAheadRowLimit + 8_000
        try controller.loadMoreRows(asked)
        #expect(controller.heldRowCount == 4 + asked && (controller.store as! SQLiteStore).stepsReadAhead == 0)
        try controller.loadMoreRows(asked)
        #expect(controller.heldRowCount == 4 + asked + SQLiteStore.readAheadRowLimit)
        #expect((controller.store as! SQLiteStore).stepsReadAhead == 1)
        let ids = try controller.sections!.flatMap { $0.objects.map { $0.id! } }
        let expected = try pool.read { db in
            try Int64.fetchAll(
                db, sql: "SELECT id FROM item ORDER BY \(Self.orderBy) LIMIT ?", arguments: [ids.count])
        }
        #expect(ids == expected)
        while try controller.loadMoreRows(asked) {}
        #expect(controller.heldRowCount == total && recorder.errors.isEmpty)
    }

    /// A controller owned by the thread that runs its load, for a test that must not wait on it
    /// forever.
    final class LoadingThread: @unchecked Sendable {
        let controller: FetchedResultsController<Item>
        private let finished = DispatchSemaphore(value: 0)

        init(_ controller: FetchedResultsController<Item>) {
            self.controller = controller
        }

        /// Loads every row on a thread of its own; returns whether that ended within `seconds`.
        func loadAll(within seconds: Double) -> Bool {
            Thread.detachNewThread { [self] in
                while (try? controller.loadMoreRows(5)) == true {}
                finished.signal()
            }
            return finished.wait(timeout: .now() + seconds) == .success
        }
    }

    /// A step waits for the read ahead before it takes a reader of its own: with one reader in
    /// the pool, waiting while holding it would wait forever.
    @Test func aLoadOnAPoolOfOneReaderEnds() throws {
        var configuration = Configuration()
        configuration.maximumReaderCount = 1
        var random = SplitMix64(seed: 3)
        let (controller, recorder, pool, _) = try Self.loadingController(
            items: 200, random: &random, configuration: configuration)
        try #require(LoadingThread(controller).loadAll(within: 60), "the load ended")
        #expect(try Self.state(of: controller) == (try Self.oracle(held: nil, pool)))
        #expect((controller.store as! SQLiteStore).stepsReadAhead > 10 && recorder.errors.isEmpty)
    }

    /// A fetch started again, or the delegate let go, while a read ahead is pending: the load
    /// goes on from the new fetch (or untracked), exactly.
    @Test func aFetchAgainOrStoppingMidLoadLeavesNoReadAheadBehind() throws {
        var random = SplitMix64(seed: 8)
        let (controller, recorder, pool, other) = try Self.loadingController(items: 150, random: &random)
        for _ in 0..<3 { try controller.loadMoreRows(7) }
        #expect((controller.store as! SQLiteStore).stepsReadAhead == 2)
        try other.write { db in try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id % 3 = 0") }
        try controller.performFetch(firstRows: 4)
        while try controller.loadMoreRows(7) {}
        #expect(try Self.state(of: controller) == (try Self.oracle(held: nil, pool)), "after a fetch again")
        #expect((controller.store as! SQLiteStore).stepsReadAhead > 4 && recorder.errors.isEmpty)

        try controller.performFetch(firstRows: 4)
        for _ in 0..<2 { try controller.loadMoreRows(7) }
        controller.delegate = nil
        try other.write { db in try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id % 5 = 0") }
        let readAheadBefore = (controller.store as! SQLiteStore).stepsReadAhead
        try controller.performFetch(firstRows: 4)
        while try controller.loadMoreRows(7) {}
        #expect(try Self.state(of: controller) == (try Self.oracle(held: nil, pool)), "untracked")
        #expect(
            (controller.store as! SQLiteStore).stepsReadAhead == readAheadBefore,
            "untracked steps read the store themselves")
    }

    /// The boundary worked out from a copy before its keys, and the read made from it, are those
    /// the statement read makes in place.
    @Test func aCopiedReadMatchesTheReadInPlace() throws {
        let (store, pool) = try Self.batchedStore(items: 60, seed: 19, sectionNameKeyPath: "grp")
        try pool.read { db in
            let first = try store.readOrdered(limit: 7, after: nil, skipping: { _ in false }, in: db)
            let boundary = try #require(first.last)
            for limit in [1, 13, 100] {
                let inPlace = try store.orderedQuery.read(
                    limit: limit, after: boundary, skipping: { _ in false }, in: db)
                var copied = CopiedSortRows(columns: 3)
                try store.orderedQuery.copyRows(limit: limit, after: boundary, in: db, into: &copied)
                let fromCopy = store.orderedQuery.read(copied: copied, limit: limit, after: boundary)
                let early = store.orderedQuery.boundary(after: copied, limit: limit)
                #expect(fromCopy.count == inPlace.count && fromCopy.sectionNames == inPlace.sectionNames)
                let (copiedKeys, keysInPlace) = (fromCopy.keys.finish(), inPlace.keys.finish())
                #expect(
                    (0..<copiedKeys.count).map { copiedKeys.key(at: $0) }
                        == (0..<keysInPlace.count).map { keysInPlace.key(at: $0) }, "limit \(limit)")
                #expect(early?.key == inPlace.last?.key && early?.values == inPlace.last?.values, "limit \(limit)")
                #expect(early?.rowID == inPlace.last?.rowID && (limit == 100) == (early == nil))
            }
        }
    }

    /// The store's own condition, without a controller's look before it: rows read in a
    /// snapshot past the position they continue are not handed over.
    @Test func aReadWhoseSnapshotIsPastItsPositionIsNotTaken() throws {
        let (store, pool) = try Self.batchedStore(items: 40, seed: 11, sectionNameKeyPath: nil)
        let (first, position) = try store.read(consistent: true) { db in
            (try store.readOrdered(limit: 10, after: nil, skipping: { _ in false }, in: db), try store.position(in: db))
        }
        let boundary = try #require(first.last)
        /// Starts a read of the next 10 rows at `position` and returns how many it handed over,
        /// nil when none.
        func readAhead(at position: SQLitePosition) throws -> Int? {
            #expect(try store.readAhead(limit: 10, after: boundary, unchangedSince: position))
            var taken: Int?
            _ = try store.read(consistent: false) { db in
                try store.takeReadAhead(readingAhead: 10, in: db) { taken = $0.count }
            }
            return taken
        }
        #expect(try readAhead(at: position) == 10)
        try pool.write { db in try db.execute(sql: "UPDATE item SET score = score + 1") }
        #expect(try readAhead(at: position) == nil, "a commit since the position")
        let now = try store.read(consistent: true) { db in try store.position(in: db) }
        #expect(try readAhead(at: now) == 10)
        try pool.write { db in try db.execute(sql: "ALTER TABLE item RENAME TO item_away") }
        #expect(try readAhead(at: now) == nil, "a read that fails")
    }
}
