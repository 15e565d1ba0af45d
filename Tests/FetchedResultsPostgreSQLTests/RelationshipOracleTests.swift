import ControllerOracles
import FetchedResultsPostgreSQL
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// A row fetched across a to-one relationship, on either store's tables: SQLite's `content`
/// in a `bucket` (seed 001's example), PostgreSQL's `item` in a `zone`. The related values are
/// read from the columns named after their key paths.
struct RelatedRow: FetchableRecord, PostgreSQLRecord, Equatable, Sendable {
    var id: Int64
    /// The row's own text (`title`, `name`) and number (`created`, `score`).
    var title: String
    var rank: Int64?
    /// The related row's id, and the values the request names: the name sorted and sectioned
    /// by, and the one refreshed (`color`, `code`).
    var parentID: Int64?
    var parentName: String?
    var parentTag: String?

    struct Undecodable: Error {}

    /// A row of SQLite's `content`.
    init(row: GRDB.Row) {
        (id, title, rank, parentID) = (row["id"], row["title"], row["created"], row["bucketId"])
        (parentName, parentTag) = (row["bucket.name"], row["bucket.color"])
    }

    /// A row of PostgreSQL's `item`.
    init(row: PostgreSQLRow) throws {
        guard let id = row["id"].flatMap(Int64.init), let name = row["name"] else { throw Undecodable() }
        (self.id, title, rank) = (id, name, row["score"].flatMap(Int64.init))
        (parentID, parentName, parentTag) = (row["zone_id"].flatMap(Int64.init), row["zone.name"], row["zone.code"])
    }
}

/// Each store's tables with a to-one relationship, its random workload on both tables, and
/// the store's own join as the oracle: the request sorts and sections by the related name
/// (ignoring case) and refreshes on another related column.
struct RelatedTables {
    let store: TestStore

    /// Empty tables. SQLite: `content` in `bucket`, change history on both. PostgreSQL: `item`
    /// in `zone`, the feed on both.
    init(_ kind: StoreKind) throws {
        switch kind {
        case .sqlite:
            let (pool, path) = try makeBucketDatabase()
            store = TestStore(pool: pool, path: path, history: true)
        case .postgresql:
            let conninfo = try freshDatabase()
            let helper = try PostgreSQLConnection(conninfo)
            try helper.execute("CREATE TABLE zone (id bigint PRIMARY KEY, name text, code text NOT NULL DEFAULT 'c')")
            try helper.execute(
                """
                CREATE TABLE item (id bigint PRIMARY KEY, zone_id bigint, score bigint, name text NOT NULL,
                                   visible integer NOT NULL DEFAULT 1)
                """)
            try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: helper)
            try PostgreSQLChangeFeed.install(on: "zone", keyColumn: "id", in: helper)
            store = TestStore(conninfo: conninfo, helper: helper)
        }
    }

    /// The store's request: rows sorted and sectioned by the related name ignoring case, then
    /// their own columns; refreshed on the related tag (`color`, `code`) when `refreshing`.
    static func request(_ kind: StoreKind, batchSize: Int = 0, refreshing: Bool = true) -> TableFetchRequest {
        switch kind {
        case .sqlite:
            TableFetchRequest(
                table: "content", predicate: "created % 5 <> 0",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "bucket.name", collation: .caseInsensitive),
                    ColumnSortDescriptor(key: "created", ascending: false),
                ],
                fetchBatchSize: batchSize,
                relationships: [ToOneRelationship("bucket", foreignKey: "bucketId", destinationTable: "bucket")],
                relationshipKeyPathsForRefreshing: refreshing ? ["bucket.color"] : [])
        case .postgresql:
            pgRequest(
                table: "item",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "zone.name", collation: .caseInsensitive),
                    ColumnSortDescriptor(key: "score", ascending: false),
                    ColumnSortDescriptor(key: "name"),
                ],
                predicate: "visible = $1", arguments: [1], fetchBatchSize: batchSize,
                relationships: [ToOneRelationship("zone", foreignKey: "zone_id", destinationTable: "zone")],
                relationshipKeyPathsForRefreshing: refreshing ? ["zone.code"] : [])
        }
    }

    /// The related table, its name and tag columns, and the key path of the name.
    private var parent: (table: String, tag: String, keyPath: String) {
        store.kind == .sqlite ? ("bucket", "color", "bucket.name") : ("zone", "code", "zone.name")
    }

    func controller(
        batchSize: Int = 0, refreshing: Bool = true, cacheName: String? = nil, cacheDirectory: URL? = nil
    ) -> FetchedResultsController<RelatedRow> {
        store.controller(
            Self.request(store.kind, batchSize: batchSize, refreshing: refreshing),
            sectionNameKeyPath: parent.keyPath, cacheName: cacheName, cacheDirectory: cacheDirectory)
    }

    /// Inserts related rows by id and name.
    func insert(parents: [(id: Int64, name: String?)]) throws {
        guard !parents.isEmpty else { return }
        let values = parents.map { "(\($0.id), \(ItemWorkload.literal($0.name)))" }
        try store.execute("INSERT INTO \(parent.table) (id, name) VALUES " + values.joined(separator: ", "))
    }

    /// Inserts `count` rows, ids from 1, referring to related rows 1 and 2 in turn.
    func insert(children count: Int) throws {
        let values = (1...count).map { "(\($0), \(1 + $0 % 2), \($0 % 5), 'n\($0)')" }
        let columns =
            store.kind == .sqlite ? "content (id, bucketId, created, title)" : "item (id, zone_id, score, name)"
        try store.execute("INSERT INTO \(columns) VALUES " + values.joined(separator: ", "))
    }

    /// Renames a related row.
    func rename(parent id: Int64, to name: String) throws {
        try store.execute("UPDATE \(parent.table) SET name = \(ItemWorkload.literal(name)) WHERE id = \(id)")
    }

    /// Changes a related row's tag (`color`, `code`).
    func retag(parent id: Int64) throws {
        try store.execute("UPDATE \(parent.table) SET \(parent.tag) = 'new' WHERE id = \(id)")
    }

    /// One random transaction over both tables: SQLite's ``RelationshipWorkload``, or
    /// PostgreSQL's (zones renamed, recoded, added, deleted while items still refer to them;
    /// items moved, rescored, hidden, added and deleted), which always commits.
    func randomTransaction(_ random: inout SplitMix64) throws -> RandomTransaction {
        switch store.kind {
        case .sqlite:
            return RelationshipWorkload.transaction(
                contentIDs: try store.ids("SELECT id FROM content"), random: &random)
        case .postgresql:
            let items = try store.ids("SELECT id FROM item ORDER BY id")
            let zones = try store.ids("SELECT id FROM zone ORDER BY id")
            return RandomTransaction(
                statements: Self.zoneTransaction(items: items, zones: zones, random: &random), rollback: false)
        }
    }

    static let zoneNames = ["Africa", "africa", "Asia", "Europe", "日本", "Zone"]

    static func zoneTransaction(items: [Int64], zones: [Int64], random: inout SplitMix64) -> [String] {
        var statements: [String] = []
        let nextItem = (items.max() ?? 0) + 1, nextZone = (zones.max() ?? 0) + 1
        let literal = ItemWorkload.literal
        // Sometimes none.
        let zone = { (random: inout SplitMix64) in Int64.random(in: 1...(nextZone + 1), using: &random) }
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let item = items.randomElement(using: &random), existingZone = zones.randomElement(using: &random)
            switch (Int.random(in: 0..<11, using: &random), item, existingZone) {
            case (0...1, _, _), (_, nil, _):
                statements.append(
                    "INSERT INTO item (id, zone_id, score, name) VALUES (\(nextItem + Int64(statements.count)), "
                        + "\(zone(&random)), \(Int.random(in: 0...4, using: &random)), "
                        + "\(literal(["a", "B", "c"].randomElement(using: &random)!)))")
            case (2, let item?, _):
                statements.append("UPDATE item SET zone_id = \(zone(&random)) WHERE id = \(item)")
            case (3, let item?, _): statements.append("UPDATE item SET score = score + 1 WHERE id = \(item)")
            case (4, let item?, _): statements.append("UPDATE item SET visible = 1 - visible WHERE id = \(item)")
            case (5, let item?, _): statements.append("DELETE FROM item WHERE id = \(item)")
            case (6, _, let zone?):
                statements.append(
                    "UPDATE zone SET name = \(literal(zoneNames.randomElement(using: &random)!)) WHERE id = \(zone)")
            case (7, _, let zone?): statements.append("UPDATE zone SET code = code || 'x' WHERE id = \(zone)")
            case (8, _, let zone?): statements.append("DELETE FROM zone WHERE id = \(zone)")
            case (9, _, _):
                statements.append(
                    "INSERT INTO zone (id, name, code) VALUES (\(nextZone + Int64(statements.count)), "
                        + "\(literal(zoneNames.randomElement(using: &random)!)), 'c') ON CONFLICT DO NOTHING")
            default: statements.append("UPDATE zone SET name = name")
            }
        }
        return statements
    }

    /// The oracle: the store's own join, in the request's order; with the related tag when
    /// `refreshing`, as the controller's rows have it.
    func state(refreshing: Bool = true) throws -> SectionedState<RelatedRow> {
        let rows: [RelatedRow]
        switch store.kind {
        case .sqlite:
            let tag = refreshing ? #", b.color AS "bucket.color""# : ""
            rows = try store.pool!.read { db in
                try RelatedRow.fetchAll(
                    db,
                    sql: """
                        SELECT content.*, b.name AS "bucket.name"\(tag)
                        FROM content LEFT JOIN bucket AS b ON b.id = content.bucketId
                        WHERE created % 5 <> 0
                        ORDER BY b.name COLLATE NOCASE, created DESC, content.id
                        """)
            }
        case .postgresql:
            let tag = refreshing ? #", zone.code AS "zone.code""# : ""
            let result = try store.helper!.execute(
                """
                SELECT item.*, zone.name AS "zone.name"\(tag)
                FROM item LEFT JOIN zone ON zone.id = item.zone_id
                WHERE item.visible = 1
                ORDER BY lower(zone.name COLLATE "C") NULLS FIRST, item.score DESC NULLS LAST,
                         item.name COLLATE "C", item.id
                """)
            rows = try result.rows.map { try RelatedRow(row: PostgreSQLRow(columns: result.columns, values: $0)) }
        }
        return SectionedState(ordered: rows.map { ($0.id, $0.parentName, $0) }, sectioned: true)
    }
}

extension PostgreSQLServerTests {
    /// Random writes to rows and to the rows they refer to, on every store, from the store's
    /// writers; after each step the controller, sectioned by the related name and refreshing
    /// on another related column, must equal the store's own join, and its callbacks must
    /// replay onto the old state.
    @Suite struct RelationshipOracleTests {
        struct Configuration: Sendable, CustomTestStringConvertible {
            let store: StoreKind
            let label: String
            let writer: StoreWriter.Kind
            var batchSize = 0
            let steps: Int
            /// Related rows there before the first step (the workload adds more).
            var parents: [(id: Int64, name: String?)] = []
            var testDescription: String { "\(store): \(label)" }
        }

        /// PostgreSQL's runs start with four zones, two of them named alike but for case, one unnamed.
        static let zones: [(id: Int64, name: String?)] = [(1, "Africa"), (2, "Asia"), (3, "asia"), (4, nil)]

        static let configurations: [Configuration] = [
            .init(store: .sqlite, label: "controller's pool", writer: .controllersPool, steps: 400),
            .init(store: .sqlite, label: "other connection, pruning", writer: .otherConnection, steps: 400),
            .init(store: .sqlite, label: "other process, pruning", writer: .otherProcess, steps: 400),
            .init(
                store: .sqlite, label: "other process, batches of 3", writer: .otherProcess, batchSize: 3, steps: 400),
            .init(
                store: .postgresql, label: "another connection, pruning", writer: .otherConnection, steps: 250,
                parents: zones),
            .init(
                store: .postgresql, label: "another connection, pruning, batches of 3", writer: .otherConnection,
                batchSize: 3, steps: 250, parents: zones),
        ]

        @Test(arguments: configurations)
        func everyStepMatchesAFreshJoin(configuration: Configuration) throws {
            let name = "RelationshipOracleTests[\(configuration.testDescription)]"
            let seed = randomisedTestSeed(configuration.store == .sqlite ? 20261122 : 20261123, for: name)
            var random = SplitMix64(seed: seed)
            let tables = try RelatedTables(configuration.store)
            try tables.insert(parents: configuration.parents)
            let writer = try StoreWriter(configuration.writer, on: tables.store)
            let controller = tables.controller(batchSize: configuration.batchSize)
            let recorder = CallbackLog<RelatedRow>()
            controller.delegate = recorder
            try controller.performFetch()
            let stepsWithCallbacks = try runCheckedSteps(
                configuration.steps, controller: controller, recorder: recorder, writer: writer, pruneEvery: 61,
                seed: seed, random: &random, id: \.id, transaction: { random in try tables.randomTransaction(&random) },
                oracle: { try tables.state() })
            print("\(name): \(configuration.steps) steps, \(stepsWithCallbacks) with callbacks")
            #expect(stepsWithCallbacks > configuration.steps / 5, "the workload must change the results often")
        }

        /// A cached launch catches up with related rows changed while no controller ran: rows
        /// whose related name changed move, those whose related tag changed are read again
        /// (when the request refreshes on it).
        @Test(arguments: StoreKind.allCases, [true, false])
        func aCachedLaunchCatchesUpWithChangedRelatedRows(_ store: StoreKind, refreshing: Bool) throws {
            let tables = try RelatedTables(store)
            try tables.insert(parents: [(1, "Africa"), (2, "Asia")])
            try tables.insert(children: 40)
            let folder = TemporaryDirectory()
            let recorder = CallbackLog<RelatedRow>()
            func launch() throws -> FetchedResultsController<RelatedRow> {
                let controller = tables.controller(
                    refreshing: refreshing, cacheName: "related", cacheDirectory: URL(fileURLWithPath: folder.path))
                controller.delegate = recorder
                try controller.performFetch()
                return controller
            }
            let first = try launch()
            #expect(try first.sections!.map(\.name) == ["Africa", "Asia"])
            try first.saveCache()
            // Only related rows change: the rows that refer to them must move and be read again.
            try tables.rename(parent: 1, to: "Zulu")
            try tables.retag(parent: 2)
            let later = try launch()
            #expect(later.lastFetchSource == .cache)
            #expect(try controllerState(later, id: \.id) == (try tables.state(refreshing: refreshing)))
            #expect(try later.sections!.map(\.name) == ["Asia", "Zulu"])
            #expect(recorder.errors.isEmpty)
        }
    }
}
