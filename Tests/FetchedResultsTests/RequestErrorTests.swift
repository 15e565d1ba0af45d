import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import Testing

/// Requests SQLite cannot follow are refused by `performFetch()` with an error that names the
/// real problem and what to do, not with whatever the first failing statement says. (A sort
/// key naming no column is refused alike on both stores: the PostgreSQL tests' RequestErrorTests.)
@Suite struct RequestErrorTests {
    private static func controller(
        _ pool: DatabasePool, table: String = "item", rowIDColumn: String? = nil, sortBy keys: [String],
        tracking: Bool = false
    ) -> (FetchedResultsController<AnyRow>, CallbackLog<AnyRow>) {
        let request = TableFetchRequest(
            table: table, rowIDColumn: rowIDColumn, sortDescriptors: keys.map { ColumnSortDescriptor(key: $0) })
        let controller = FetchedResultsController<AnyRow>(fetchRequest: request, database: pool)
        let recorder = CallbackLog<AnyRow>()
        if tracking { controller.delegate = recorder }
        return (controller, recorder)
    }

    /// What SQLite itself resolves stays accepted: another case of a column's name, the row id.
    @Test func sortKeysSQLiteResolvesAreAccepted() throws {
        let (pool, _) = try makeItemDatabase()
        try pool.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('b'), ('a')") }
        let (controller, _) = Self.controller(pool, sortBy: ["NAME", "rowid"], tracking: true)
        try controller.performFetch()
        #expect(try controller.fetchedObjects?.count == 2)
    }

    /// A view has no row id to follow its rows by (SQLite reads a view's `rowid` as NULL, and
    /// GRDB finds no primary key): refused as such, with or without rows and `rowIDColumn`, not
    /// with what the first statement that needs a row id says, nor a crash on a NULL row id.
    @Test(arguments: [nil, "id"] as [String?], [false, true])
    func aViewIsRefusedAsATableWithoutRowID(rowIDColumn: String?, withRows: Bool) throws {
        let (pool, _) = try makeItemDatabase()
        try pool.write { db in
            if withRows { try db.execute(sql: "INSERT INTO item (name) VALUES ('a')") }
            try db.execute(sql: "CREATE VIEW named AS SELECT id, name FROM item")
        }
        let (controller, _) = Self.controller(
            pool, table: "named", rowIDColumn: rowIDColumn, sortBy: ["name"], tracking: true)
        #expect(throws: FetchedResultsError.tableWithoutRowID(table: "named")) { try controller.performFetch() }
        let description = "\(FetchedResultsError.tableWithoutRowID(table: "named"))"
        #expect(description.contains("view"), "\(description)")
    }
}
