import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport

/// The test table's record.
struct Item: Codable, FetchableRecord, PersistableRecord, Equatable, Sendable {
    var id: Int64?
    var grp: String?
    var score: Int?
    var name: String
    var note: String
    var visible: Int
    /// Unique when not NULL: `REPLACE` through it deletes the row that held the code.
    var code: String? = nil
}

/// The test table: sections (`grp`), sort keys, a predicate column, and a unique column.
let itemTableSQL = """
    CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, score INTEGER, name TEXT NOT NULL,
                       note TEXT NOT NULL DEFAULT '', visible INTEGER NOT NULL DEFAULT 1, code TEXT UNIQUE)
    """

/// Records every callback of a controller, batch by batch.
typealias Recorder = CallbackLog<Item>

func makeItemDatabase(
    history: Bool = true, configuration: Configuration = Configuration()
) throws -> (
    DatabasePool, String
) {
    let path = NSTemporaryDirectory() + "fetched-results-" + UUID().uuidString + ".sqlite"
    let pool = try DatabasePool(path: path, configuration: configuration)
    try pool.write { db in
        try db.execute(sql: itemTableSQL)
        if history { try ChangeHistory.install(on: "item", in: db) }
    }
    return (pool, path)
}

typealias ItemState = SectionedState<Item>

extension SectionedState where Content == Item {

    /// Runs the request's SQL and groups consecutive rows whose section value is equal ignoring
    /// ASCII case (as NOCASE compares).
    static func query(
        _ db: Database, sql: String, arguments: StatementArguments = [], sectioned: Bool
    ) throws -> ItemState {
        let items = try Item.fetchAll(db, sql: sql, arguments: arguments)
        return ItemState(ordered: items.map { ($0.id!, $0.grp, $0) }, sectioned: sectioned)
    }
}

extension ColumnSortDescriptor.Collation {
    /// The collation's name in SQLite's SQL, for the tests' own oracle queries.
    var sqlite: String { self == .caseInsensitive ? "NOCASE" : "BINARY" }
}
