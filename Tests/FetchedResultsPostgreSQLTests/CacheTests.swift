import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import GRDB
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The persistent cache on every store: used when valid (SQLite: without an ordered read of
    /// the table), brought up to date with what the feed logged since, rebuilt for every cause
    /// of invalidity, never trusted when damaged, and always giving the same results as a
    /// fetch without it.
    @Suite struct CacheTests {
        /// What a request asks for, and the oracle it is checked against.
        struct Shape {
            var sortDescriptors = ItemWorkload.standings
            /// The visible rows (`visible = 1`), or those of this value.
            var visible = 1
            /// Rows with a score above this too.
            var minimumScore: Int?
            var sectioned = true
            var limit = 0
        }

        /// An item table of 60 random transactions with a cache folder, a delegate shared by its
        /// controllers and, on SQLite, the ordered reads of the table counted.
        final class Fixture {
            let table: ItemTable
            let folder = TemporaryDirectory()
            let cacheDirectory: URL
            let batchSize: Int
            /// SQLite: the ordered selects over the whole table (what a cache avoids).
            let orderedFetches = Shared(0)
            let delegate = CallbackLog<StandingsItem>()

            init(_ store: StoreKind, batchSize: Int = 4, cacheDirectory: URL? = nil, seed: UInt64 = 3) throws {
                var configuration = GRDB.Configuration()
                let counter = orderedFetches
                configuration.prepareDatabase { db in
                    db.trace { event in
                        if event.description.contains("ORDER BY") && !event.description.contains("sqlite_") {
                            counter.withLock { $0 += 1 }
                        }
                    }
                }
                table = try ItemTable(store, configuration: configuration)
                self.cacheDirectory = cacheDirectory ?? URL(fileURLWithPath: folder.path + "/cache")
                self.batchSize = batchSize
                var random = SplitMix64(seed: seed)
                for _ in 0..<60 { try table.store.run(try table.randomTransaction(&random, truncate: false)) }
            }

            func request(_ shape: Shape = Shape()) -> TableFetchRequest {
                var request = table.request(
                    shape.sortDescriptors, bound: true, limit: shape.limit, batchSize: batchSize)
                request.predicate = table.predicate(visible: shape.visible, minimumScore: shape.minimumScore)
                return request
            }

            func controller(_ shape: Shape = Shape(), name: String = "items") -> FetchedResultsController<StandingsItem>
            {
                let controller = table.controller(
                    request(shape), sectioned: shape.sectioned, cacheName: name, cacheDirectory: cacheDirectory)
                controller.delegate = delegate
                return controller
            }

            /// Fetches with a new controller and checks its results against the store's own order;
            /// returns where its ordering came from, and on SQLite how many ordered reads it made.
            @discardableResult
            func fetchAndCheck(_ shape: Shape = Shape()) throws -> (FetchSource?, orderedFetches: Int?) {
                orderedFetches.withLock { $0 = 0 }
                let controller = controller(shape)
                try controller.performFetch()
                let fetches = orderedFetches.withLock { $0 }
                try check(controller, shape)
                try controller.saveCache()
                return (controller.lastFetchSource, table.kind == .sqlite ? fetches : nil)
            }

            func check(_ controller: FetchedResultsController<StandingsItem>, _ shape: Shape = Shape()) throws {
                let expected = try table.state(
                    shape.sortDescriptors, limit: shape.limit, sectioned: shape.sectioned,
                    where: ItemTable.condition(visible: shape.visible, minimumScore: shape.minimumScore))
                #expect(try controllerState(controller, id: \.id) == expected)
            }

            var cacheFile: URL { controller().cacheFile! }
        }

        @Test(arguments: StoreKind.allCases)
        func aValidCacheIsUsedWithoutReadingTheTableInOrder(_ store: StoreKind) throws {
            let fixture = try Fixture(store)
            let first = try fixture.fetchAndCheck()
            #expect(first.0 == .store && first.orderedFetches ?? 1 == 1)
            let second = try fixture.fetchAndCheck()
            #expect(second.0 == .cache && second.orderedFetches ?? 0 == 0)

            // Nothing is loaded but the rows asked for.
            let controller = fixture.controller()
            try controller.performFetch()
            #expect(controller.loadedRowCount == 0)
            _ = try controller.object(at: IndexPath(row: 0, section: 0))
            #expect(controller.loadedRowCount == fixture.batchSize)
        }

        /// A text filter narrows what someone sees while they type: its results are not what the
        /// next launch asks for. A cache saved while one is in force keeps the results without
        /// it (the file's one name would otherwise hold rows the next launch cannot use), and
        /// that launch takes it.
        @Test(arguments: StoreKind.allCases)
        func aCacheSavedWhileAFilterIsInForceKeepsTheResultsWithoutIt(_ store: StoreKind) throws {
            let fixture = try Fixture(store)
            #expect(try fixture.fetchAndCheck().0 == .store)
            let controller = fixture.controller()
            try controller.performFetch()
            var filtered = fixture.request()
            filtered.textFilter = TextFilter(sortDescriptorAt: 2, containing: "a")
            try controller.setFetchRequest(filtered)
            try fixture.table.store.execute("UPDATE item SET score = score + 1 WHERE id = 5")
            try controller.processPendingChanges()
            try controller.saveCache()

            let later = try fixture.fetchAndCheck()
            #expect(later.0 == .cache && later.orderedFetches ?? 0 == 0)
        }

        /// While no controller runs: random transactions, then inserts, deletes, moves, and a
        /// section's first row renamed. The next launch takes the cache and what the feed logged
        /// since, as part of the fetch (no change callback), then follows changes from there.
        @Test(arguments: StoreKind.allCases, [0, 4])
        func aLaterLaunchTakesTheCacheAndWhatChangedSince(_ store: StoreKind, batchSize: Int) throws {
            let fixture = try Fixture(store, batchSize: batchSize)
            #expect(try fixture.fetchAndCheck().0 == .store)
            var random = SplitMix64(seed: 11)
            for _ in 0..<25 {
                try fixture.table.store.run(try fixture.table.randomTransaction(&random, truncate: false))
            }
            for sql in [
                "INSERT INTO item (id, grp, score, name) VALUES (1000, 'Zone', 3, 'new'), (1001, 'asia', 99, 'top of asia')",
                "DELETE FROM item WHERE id IN (4, 8, 12)",
                "UPDATE item SET score = score + 10 WHERE id IN (5, 6, 7)",
                "UPDATE item SET visible = 0 WHERE id = 9",
            ] {
                try fixture.table.store.execute(sql)
            }

            fixture.delegate.reset()
            let later = try fixture.fetchAndCheck()
            #expect(later.0 == .cache && later.orderedFetches ?? 0 == 0)
            #expect(fixture.delegate.batches.isEmpty, "catching up is part of the fetch, not a change")

            // And it follows changes from there.
            let controller = fixture.controller()
            try controller.performFetch()
            try fixture.table.store.execute("UPDATE item SET grp = 'Africa' WHERE id = 1000")
            try controller.processPendingChanges()
            try fixture.check(controller)
        }

        /// Every way a cache can stop describing the store makes the next fetch read the store,
        /// and the results stay right.
        enum Cause: String, CaseIterable, Sendable {
            case prunedFeed, schemaChange, otherPredicate, otherArguments, otherSortOrder, otherSections, otherWindow
            /// Another database (another file, another PostgreSQL database) with the same cache folder.
            case anotherDatabase
            /// SQLite: the store's identity changed (another store copied over it).
            case otherIdentity
            /// SQLite: the cache was written after changes the store no longer has (a restored backup).
            case storeFromThePast

            var stores: [StoreKind] {
                self == .otherIdentity || self == .storeFromThePast ? [.sqlite] : StoreKind.allCases
            }
        }

        static let causes = Cause.allCases.flatMap { cause in cause.stores.map { ($0, cause) } }

        @Test(arguments: causes)
        func everyInvalidationCauseRebuilds(_ store: StoreKind, cause: Cause) throws {
            var fixture = try Fixture(store)
            try fixture.fetchAndCheck()
            var shape = Shape()
            switch cause {
            case .prunedFeed:
                try fixture.table.store.execute("UPDATE item SET score = coalesce(score, 0) + 1")
                try fixture.table.store.pruneHistory()
            case .schemaChange:
                try fixture.table.store.execute("ALTER TABLE item ADD COLUMN extra text")
            case .otherPredicate:
                shape.minimumScore = 1
            case .otherArguments:
                shape.visible = 0
            case .otherSortOrder:
                shape.sortDescriptors[1].ascending = true
            case .otherSections:
                shape.sectioned = false
            case .otherWindow:
                shape.limit = 5
            case .anotherDatabase:
                fixture = try Fixture(store, cacheDirectory: fixture.cacheDirectory, seed: 4)
            case .otherIdentity:
                try fixture.table.store.execute("UPDATE fetchedresults_store SET identity = 'another'")
            case .storeFromThePast:
                try fixture.table.store.execute("UPDATE item SET score = 7 WHERE id = 1")
                try fixture.fetchAndCheck()
                // As a backup taken one history row earlier holds it: without that row, and with
                // the sequence one lower.
                try fixture.table.store.execute(
                    """
                    DELETE FROM fetchedresults_history WHERE seq = (SELECT max(seq) FROM fetchedresults_history);
                    UPDATE sqlite_sequence SET seq = seq - 1 WHERE name = 'fetchedresults_history'
                    """)
            }
            let rebuilt = try fixture.fetchAndCheck(shape)
            #expect(rebuilt.0 == .store && rebuilt.orderedFetches ?? 1 == 1, "\(cause)")
            // The rebuilt cache is written again, and valid for the next launch.
            let next = try fixture.fetchAndCheck(shape)
            #expect(next.0 == .cache && next.orderedFetches ?? 0 == 0, "\(cause)")
        }

        @Test(arguments: StoreKind.allCases, ["truncated", "flippedByte", "garbage", "empty", "headerOnly"])
        func damagedFilesAreNeverTrusted(_ store: StoreKind, damage: String) throws {
            let fixture = try Fixture(store)
            try fixture.fetchAndCheck()
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
            #expect(result.0 == .store && result.orderedFetches ?? 1 == 1, "\(damage)")
            #expect(try fixture.fetchAndCheck().0 == .cache, "\(damage): rewritten")
        }

        @Test(arguments: StoreKind.allCases)
        func deleteCacheRemovesOneOrAll(_ store: StoreKind) throws {
            let fixture = try Fixture(store)
            for name in ["one", "two"] {
                let controller = fixture.controller(name: name)
                try controller.performFetch()
                try controller.saveCache()
            }
            let files = {
                Set((try? FileManager.default.contentsOfDirectory(atPath: fixture.cacheDirectory.path)) ?? [])
            }
            #expect(files() == ["one.frcache", "two.frcache"])
            FetchedResultsController<StandingsItem>.deleteCache(withName: "one", in: fixture.cacheDirectory)
            #expect(files() == ["two.frcache"])
            FetchedResultsController<StandingsItem>.deleteCache(withName: nil, in: fixture.cacheDirectory)
            #expect(files().isEmpty)
        }

        /// A controller reopened from its cache at random points equals one that never used a
        /// cache, with and without saving in between, and with pruning forcing rebuilds.
        @Test(arguments: StoreKind.allCases)
        func cachedResultsEqualUncachedAfterRandomTransactions(_ store: StoreKind) throws {
            let seed = randomisedTestSeed(20261122, for: "CacheTests[\(store)]")
            let fixture = try Fixture(store, seed: seed)
            var random = SplitMix64(seed: seed)
            var live = fixture.controller()
            try live.performFetch()
            var sources: [FetchSource: Int] = [:]
            for step in 0..<300 {
                try fixture.table.store.run(try fixture.table.randomTransaction(&random))
                try live.processPendingChanges()
                switch Int.random(in: 0..<20, using: &random) {
                case 0...2: try live.saveCache()
                case 3: try fixture.table.store.pruneHistory(keeping: Int.random(in: 0...3, using: &random))
                case 4...5:
                    live = fixture.controller()
                    try live.performFetch()
                    sources[live.lastFetchSource!, default: 0] += 1
                default: break
                }
                let uncached = fixture.table.controller(fixture.request())
                try uncached.performFetch()
                #expect(
                    try live.sections!.map { $0.objects.map(\.id) } == uncached.sections!.map { $0.objects.map(\.id) },
                    "seed \(seed), step \(step)")
                #expect(try live.fetchedObjects! == uncached.fetchedObjects!, "seed \(seed), step \(step)")
            }
            print("CacheTests[\(store)] reopened from: \(sources)")
            #expect(sources[.cache, default: 0] > 0 && sources[.store, default: 0] > 0, "both paths were taken")
        }
    }
}
