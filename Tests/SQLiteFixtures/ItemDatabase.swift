import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport

/// The test table: sections (`grp`), sort keys, a predicate column, and a unique column.
public let itemTableSQL = """
    CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, score INTEGER, name TEXT NOT NULL,
                       note TEXT NOT NULL DEFAULT '', visible INTEGER NOT NULL DEFAULT 1, code TEXT UNIQUE)
    """

/// A new store file with the item table, and change history on it unless `history` is false.
public func makeItemDatabase(
    history: Bool = true, configuration: Configuration = Configuration()
) throws -> (
    DatabasePool, String
) {
    let path = temporaryPath("fetched-results-", suffix: ".sqlite")
    let pool = try DatabasePool(path: path, configuration: configuration)
    try pool.write { db in
        try db.execute(sql: itemTableSQL)
        if history { try ChangeHistory.install(on: "item", in: db) }
    }
    return (pool, path)
}
