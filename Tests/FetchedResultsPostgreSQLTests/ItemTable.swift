import ControllerOracles
import FetchedResultsPostgreSQL
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// The randomised tests' `item` table (sections `grp`, sort keys, the predicate column
/// `visible`, a unique `code`) on one store with its change feed: each store's own random
/// workload on it, and the store's own order as the oracle.
final class ItemTable {
    let store: TestStore
    var kind: StoreKind { store.kind }

    /// An empty table. On SQLite with a change history unless `history` is false (controllers
    /// then follow the pool's writes only), on a pool made with `configuration`.
    init(_ kind: StoreKind, history: Bool = true, configuration: GRDB.Configuration = GRDB.Configuration()) throws {
        switch kind {
        case .sqlite:
            let (pool, path) = try makeItemDatabase(history: history, configuration: configuration)
            store = TestStore(pool: pool, path: path, history: history)
        case .postgresql:
            let (conninfo, helper) = try standingsDatabase()
            store = TestStore(conninfo: conninfo, helper: helper)
        }
    }

    /// Names in the order of their bytes, then the score descending.
    static let binaryNames = [ColumnSortDescriptor(key: "name"), ColumnSortDescriptor(key: "score", ascending: false)]

    /// The visible rows in the order of `sortDescriptors`, in a window, in batches. On
    /// PostgreSQL the value of `visible` is bound (`$1`); on SQLite it is written in, unless
    /// `bound` (`?`).
    func request(
        _ sortDescriptors: [ColumnSortDescriptor] = ItemWorkload.standings, bound: Bool = false, limit: Int = 0,
        offset: Int = 0, batchSize: Int = 0
    ) -> TableFetchRequest {
        let predicate: any FetchPredicate =
            kind == .sqlite && !bound ? SQLitePredicate(sql: "visible = 1") : self.predicate(visible: 1)
        return TableFetchRequest(
            table: "item", predicate: predicate, sortDescriptors: sortDescriptors, fetchLimit: limit,
            fetchOffset: offset, fetchBatchSize: batchSize)
    }

    /// The rows whose `visible` is `visible` (and whose score is above `minimumScore`), the
    /// values bound.
    func predicate(visible: Int, minimumScore: Int? = nil) -> any FetchPredicate {
        let scoreTerm = minimumScore == nil ? "" : " AND score > " + (kind == .sqlite ? "?" : "$2")
        let values = [visible] + (minimumScore.map { [$0] } ?? [])
        return switch kind {
        case .sqlite: SQLitePredicate(sql: "visible = ?" + scoreTerm, arguments: StatementArguments(values))
        case .postgresql: PostgreSQLPredicate(sql: "visible = $1" + scoreTerm, arguments: values.map { $0 })
        }
    }

    /// What ``predicate(visible:minimumScore:)`` selects, as SQL for the oracle.
    static func condition(visible: Int = 1, minimumScore: Int? = nil) -> String {
        "visible = \(visible)" + (minimumScore.map { " AND score > \($0)" } ?? "")
    }

    /// A controller on the table, sectioned by `grp` unless `sectioned` is false.
    func controller(
        _ request: TableFetchRequest, sectioned: Bool = true, cacheName: String? = nil, cacheDirectory: URL? = nil
    ) -> FetchedResultsController<StandingsItem> {
        store.controller(
            request, sectionNameKeyPath: sectioned ? "grp" : nil, cacheName: cacheName, cacheDirectory: cacheDirectory)
    }

    /// The rows' ids: by id, or as each store's randomised tests have always read them
    /// (SQLite in the order of its plan, PostgreSQL by id), which their seeds replay.
    func ids(byID: Bool = false) throws -> [Int64] {
        try store.ids("SELECT id FROM item" + (byID || kind == .postgresql ? " ORDER BY id" : ""))
    }

    /// One random transaction of the store's own workload (SQLite's `REPLACE`s, PostgreSQL's
    /// re-keyed rows and now and then a `TRUNCATE`, unless `truncate` is false) over the rows
    /// `itemIDs` names, by default those the table has now.
    func randomTransaction(
        _ random: inout SplitMix64, itemIDs: [Int64]? = nil, truncate: Bool = true
    ) throws -> RandomTransaction {
        let ids = try itemIDs ?? self.ids()
        switch kind {
        case .sqlite:
            return RandomWorkload.transaction(itemIDs: ids, random: &random)
        case .postgresql:
            var transaction = PostgreSQLWorkload.transaction(itemIDs: ids, random: &random)
            if !truncate { transaction.statements.removeAll { $0.hasPrefix("TRUNCATE") } }
            return transaction
        }
    }

    /// Inserts `count` random rows, with ids from 1.
    func fill(_ count: Int, random: inout SplitMix64) throws {
        let statements = ItemWorkload.inserts(count, random: &random)
        switch kind {
        case .sqlite: try store.pool!.write { db in for statement in statements { try db.execute(sql: statement) } }
        case .postgresql: for statement in statements { try store.helper!.execute(statement) }
        }
    }

    /// The oracle: the visible rows (or those `condition` selects) in the store's own order for
    /// `sortDescriptors` — the first `held` of them when given — then cut by the window,
    /// grouped as NOCASE groups.
    func state(
        _ sortDescriptors: [ColumnSortDescriptor] = ItemWorkload.standings, limit: Int = 0, offset: Int = 0,
        held: Int? = nil, sectioned: Bool = true, where condition: String = ItemTable.condition()
    ) throws -> SectionedState<StandingsItem> {
        let order = Self.orderBy(sortDescriptors, on: kind)
        var window = ""
        if limit > 0 || offset > 0 {
            window =
                kind == .sqlite
                ? " LIMIT \(limit > 0 ? limit : -1) OFFSET \(offset)"
                : (limit > 0 ? " LIMIT \(limit)" : "") + " OFFSET \(offset)"
        }
        var visible = "SELECT * FROM item WHERE \(condition) ORDER BY \(order)"
        if let held { visible += " LIMIT \(held)" }
        let sql = "SELECT * FROM (\(visible)) AS item ORDER BY \(order)\(window)"
        let items: [StandingsItem]
        switch kind {
        case .sqlite:
            items = try store.pool!.read { db in try StandingsItem.fetchAll(db, sql: sql) }
        case .postgresql:
            let rows = try store.helper!.execute(sql)
            items = try rows.rows.map { try StandingsItem(row: PostgreSQLRow(columns: rows.columns, values: $0)) }
        }
        return SectionedState(ordered: items.map { ($0.id, $0.grp, $0) }, sectioned: sectioned)
    }

    /// The columns of `item` that hold text.
    static let textColumns: Set<String> = ["grp", "name", "note", "code"]

    /// `sortDescriptors` as the store's own `ORDER BY`, then the id: the tests' translation,
    /// not the library's. SQLite: its NOCASE and BINARY collations, NULL first. PostgreSQL:
    /// bytes (`COLLATE "C"`), ASCII folded by `lower`, NULL first as SQLite has it.
    static func orderBy(_ sortDescriptors: [ColumnSortDescriptor], on kind: StoreKind) -> String {
        let terms = sortDescriptors.map { descriptor in
            let key = descriptor.key
            switch kind {
            case .sqlite:
                return key + " COLLATE " + (descriptor.collation == .caseInsensitive ? "NOCASE" : "BINARY")
                    + (descriptor.ascending ? "" : " DESC")
            case .postgresql:
                var term = key
                if textColumns.contains(key) {
                    term =
                        descriptor.collation == .caseInsensitive
                        ? "lower(\(key) COLLATE \"C\")" : "\(key) COLLATE \"C\""
                }
                return term + (descriptor.ascending ? " NULLS FIRST" : " DESC NULLS LAST")
            }
        }
        return (terms + ["id"]).joined(separator: ", ")
    }
}

/// One run of a randomised test on the item table: its store; the request (order, sections,
/// window, batches); who writes, and how often the feed is pruned; how many steps.
struct RandomisedRun: Sendable, CustomTestStringConvertible {
    let store: StoreKind
    let label: String
    var sortDescriptors = ItemWorkload.standings
    var sectioned = true
    /// SQLite: the predicate's value bound to `?`, not written in (PostgreSQL binds it always).
    var bound = false
    var limit = 0, offset = 0, batchSize = 0
    let writer: StoreWriter.Kind
    /// SQLite: a change history on the table, so that the controller follows every
    /// connection's commits (without it, its pool's only).
    var history = true
    let steps: Int
    /// Prune the feed every this many steps (0: never), before the controller looks.
    var pruneEvery = 0
    /// PostgreSQL: restart the server (`pg_ctl restart -m fast`) before this step.
    var restartAt: Int?
    /// Whether the delegate has the `CollectionDifference` callback (without it, rows of
    /// inserted sections are not placed one by one).
    var withDifference = true
    var testDescription: String { "\(store): \(label)" }
}

extension ItemTable {
    /// A new table for the run.
    convenience init(_ run: RandomisedRun) throws {
        try self.init(run.store, history: run.history)
    }

    /// A controller of the run's request.
    func controller(_ run: RandomisedRun) -> FetchedResultsController<StandingsItem> {
        let request = request(
            run.sortDescriptors, bound: run.bound, limit: run.limit, offset: run.offset, batchSize: run.batchSize)
        return controller(request, sectioned: run.sectioned)
    }

    /// The run's oracle (the first `held` rows when given).
    func state(_ run: RandomisedRun, held: Int? = nil) throws -> SectionedState<StandingsItem> {
        try state(run.sortDescriptors, limit: run.limit, offset: run.offset, held: held, sectioned: run.sectioned)
    }
}
