import FetchedResultsPostgreSQL
import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport
import Testing

// One test, run on every store: the library's promises do not depend on the store.

/// The stores a test runs on.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgresql
    var testDescription: String { rawValue }
}

/// A task of a to-do list, as a newcomer's app has them: in sections by project.
struct Todo: FetchableRecord, PostgreSQLRecord, Equatable, Sendable {
    /// The columns, by name: typed names for requests.
    enum Columns: String, CodingKey, ColumnNameRepresentable {
        case id, project, title, rank
    }

    var id: Int64
    var project: String
    var title: String
    var rank: Int64

    init(row: GRDB.Row) {
        (id, project, title, rank) = (row["id"], row["project"], row["title"], row["rank"])
    }

    init(row: PostgreSQLRow) throws {
        id = try row.decode(forColumn: "id")
        project = try row.decode(forColumn: "project")
        title = try row.decode(forColumn: "title")
        rank = try row.decode(forColumn: "rank")
    }
}

/// A `todo` table on one store, with its change feed, a connection of its own for writes made
/// elsewhere, and controllers on it.
final class TodoTable {
    let kind: StoreKind
    /// Where the SQLite file is (removed with the table).
    private let folder = TemporaryDirectory()
    private var pool: DatabasePool?
    private var conninfo = ""
    private var other: PostgreSQLConnection?

    /// An empty table, with the change feed installed unless `feed` is false.
    init(_ kind: StoreKind, feed: Bool = true) throws {
        self.kind = kind
        switch kind {
        case .sqlite:
            let pool = try DatabasePool(path: folder.store)
            try pool.write { db in
                try db.execute(
                    sql: "CREATE TABLE todo (id INTEGER PRIMARY KEY, project TEXT NOT NULL, title TEXT NOT NULL, "
                        + "rank INTEGER NOT NULL)")
                if feed { try ChangeHistory.install(on: "todo", in: db) }
            }
            self.pool = pool
        case .postgresql:
            conninfo = try freshDatabase()
            let other = try PostgreSQLConnection(conninfo)
            try other.execute(
                "CREATE TABLE todo (id bigint PRIMARY KEY, project text NOT NULL, title text NOT NULL, rank bigint NOT NULL)"
            )
            if feed { try PostgreSQLChangeFeed.install(on: "todo", keyColumn: "id", in: other) }
            self.other = other
        }
    }

    /// Runs SQL (the same text on both stores) in one transaction on another connection.
    func execute(_ sql: String) throws {
        switch kind {
        case .sqlite: try DatabaseQueue(path: folder.store).write { try $0.execute(sql: sql) }
        case .postgresql: try other!.transaction { _ = try other!.execute(sql) }
        }
    }

    /// Inserts `count` tasks with ids from 1, spread over `projects` projects.
    func insertTasks(_ count: Int, projects: Int = 3) throws {
        guard count > 0 else { return }
        let values = (1...count).map { "(\($0), 'p\($0 % projects)', 'task \($0)', \($0 * 10))" }
        try execute("INSERT INTO todo (id, project, title, rank) VALUES " + values.joined(separator: ", "))
    }

    /// Tasks by project, then rank, then title, or as `sortDescriptors` say; only those
    /// `predicate` (SQL both stores run) selects.
    func request(
        predicate: String? = nil,
        sortDescriptors: [ColumnSortDescriptor] = [.ascending("project"), .ascending("rank"), .ascending("title")],
        batchSize: Int = 0
    ) -> TableFetchRequest {
        let filter: (any FetchPredicate)? =
            switch kind {
            case .sqlite: predicate.map { SQLitePredicate(sql: $0) }
            case .postgresql: predicate.map { PostgreSQLPredicate(sql: $0) }
            }
        return TableFetchRequest(
            table: "todo", predicate: filter, sortDescriptors: sortDescriptors, fetchBatchSize: batchSize)
    }

    /// A controller on the table, sectioned by project unless `sectioned` is false; by
    /// `request` when given.
    func controller(
        batchSize: Int = 0, sectioned: Bool = true, request given: TableFetchRequest? = nil,
        sectionNameKeyPath: (any ColumnNameRepresentable)? = "project"
    ) -> TodoController {
        let request = given ?? request(batchSize: batchSize)
        let section = sectioned ? sectionNameKeyPath : nil
        switch kind {
        case .sqlite:
            return .sqlite(
                FetchedResultsController(
                    fetchRequest: request, database: pool!, recordType: Todo.self, sectionNameKeyPath: section))
        case .postgresql:
            return .postgresql(
                FetchedResultsController(
                    fetchRequest: request, conninfo: conninfo, recordType: Todo.self, sectionNameKeyPath: section))
        }
    }

    /// A controller with a persistent cache of this name, in the table's own folder.
    func cachedController(name: String) -> FetchedResultsController<Todo> {
        let directory = URL(fileURLWithPath: folder.path + "/caches")
        switch kind {
        case .sqlite:
            return FetchedResultsController(
                fetchRequest: request(), database: pool!, recordType: Todo.self, sectionNameKeyPath: "project",
                cacheName: name, cacheDirectory: directory)
        case .postgresql:
            return FetchedResultsController(
                fetchRequest: request(), conninfo: conninfo, recordType: Todo.self, sectionNameKeyPath: "project",
                cacheName: name, cacheDirectory: directory)
        }
    }

    /// The table's tasks in the request's order, by project: the oracle, the stores' own
    /// `ORDER BY` (byte order for text, ASCII letters folded for a case-insensitive descriptor),
    /// with the row id last as the controller's tie-break.
    func fresh(
        predicate: String? = nil,
        sortDescriptors: [ColumnSortDescriptor] = [.ascending("project"), .ascending("rank"), .ascending("title")]
    ) throws -> [[Todo]] {
        let binary = kind == .sqlite ? "" : " COLLATE \"C\""
        let order = sortDescriptors.map {
            let value = $0.key + ($0.key == "rank" ? "" : binary)
            // Both stores' lower() folds ASCII letters only, as the collation does.
            return ($0.foldsCase ? "lower(\(value))" : value) + ($0.ascending ? "" : " DESC")
        }
        let sql =
            "SELECT id, project, title, rank FROM todo" + (predicate.map { " WHERE " + $0 } ?? "") + " ORDER BY "
            + (order + ["id"]).joined(separator: ", ")
        let todos: [Todo]
        switch kind {
        case .sqlite:
            todos = try DatabaseQueue(path: folder.store).read { try Todo.fetchAll($0, sql: sql) }
        case .postgresql:
            let rows = try other!.execute(sql)
            todos = try rows.rows.map { try Todo(row: PostgreSQLRow(columns: rows.columns, values: $0)) }
        }
        // A section groups the values its descriptor's collation does not tell apart.
        let foldsCase = sortDescriptors.first?.foldsCase == true
        func section(_ project: String) -> [UInt8] {
            project.utf8.map { foldsCase && (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        }
        var sections: [[Todo]] = []
        for todo in todos {
            if let last = sections.last?.last, section(last.project) == section(todo.project) {
                sections[sections.count - 1].append(todo)
            } else {
                sections.append([todo])
            }
        }
        return sections
    }

    /// Reads the table on another connection of the app's own (SQLite: the app's pool, as a
    /// delegate that looks something up would).
    func countRows() throws -> Int {
        switch kind {
        case .sqlite: try pool!.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM todo") ?? 0 }
        case .postgresql: Int(try other!.execute("SELECT count(*) FROM todo").rows[0][0] ?? "") ?? -1
        }
    }
}

/// A controller of either store, for what differs between them: writes.
enum TodoController {
    case sqlite(FetchedResultsController<Todo>)
    case postgresql(FetchedResultsController<Todo>)

    var controller: FetchedResultsController<Todo> {
        switch self {
        case let .sqlite(controller): controller
        case let .postgresql(controller): controller
        }
    }

    /// Runs SQL through the controller's own write.
    func write(_ sql: String) throws {
        switch self {
        case let .sqlite(controller): try controller.write { try $0.execute(sql: sql) }
        case let .postgresql(controller): try controller.write { _ = try $0.execute(sql) }
        }
    }

    /// The controller's change sets as an asynchronous sequence.
    func changeSets() -> any AsyncSequence<ChangeSet, any Error> {
        switch self {
        case let .sqlite(controller): controller.changeSets()
        case let .postgresql(controller): controller.changeSets()
        }
    }

    /// The controller's snapshots as an asynchronous sequence.
    func snapshots() -> any AsyncSequence<ResultsSnapshot, any Error> {
        switch self {
        case let .sqlite(controller): controller.snapshots()
        case let .postgresql(controller): controller.snapshots()
        }
    }

    /// The controller's sections as tasks.
    func sections() throws -> [[Todo]] {
        try (controller.sections ?? []).map(\.objects)
    }
}
