import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// Requests PostgreSQL cannot follow are refused by `performFetch()` with an error that names
    /// the real problem and what to do; a sort key naming no column, on both stores.
    @Suite struct RequestErrorTests {
        private static func controller(
            _ conninfo: String, table: String, sortBy keys: [String], rowIDColumn: String? = nil
        ) -> FetchedResultsController<PostgreSQLRow> {
            FetchedResultsController<PostgreSQLRow>(
                fetchRequest: TableFetchRequest(
                    table: table, rowIDColumn: rowIDColumn, sortDescriptors: keys.map { ColumnSortDescriptor(key: $0) }),
                conninfo: conninfo)
        }

        /// A misspelt sort key, on every store, followed or not: the column does not exist
        /// (which is not a type problem), and the error names the key and the table.
        @Test(arguments: StoreKind.allCases, [false, true])
        func aSortDescriptorNamingNoColumnIsRefused(_ store: StoreKind, tracking: Bool) throws {
            let table = try ItemTable(store)
            try table.store.execute("INSERT INTO item (id, name) VALUES (1, 'a')")
            let controller: FetchedResultsController<StandingsItem> = table.store.controller(
                TableFetchRequest(
                    table: "item", sortDescriptors: ["name", "nmae"].map { ColumnSortDescriptor(key: $0) }),
                sectionNameKeyPath: nil)
            let recorder = CallbackLog<StandingsItem>()
            if tracking { controller.delegate = recorder }
            #expect(throws: FetchedResultsError.unknownColumn(key: "nmae", table: "item")) {
                try controller.performFetch()
            }
            let description = "\(FetchedResultsError.unknownColumn(key: "nmae", table: "item"))"
            #expect(description.contains("\"nmae\"") && description.contains("\"item\""), "\(description)")
            #expect(description.contains("no column"), "\(description)")
        }

        /// A `uuid` key: the table has its id column, of a type the controller cannot follow rows
        /// by. The error names the column and its type, and what would do.
        @Test func anIDColumnThatIsNotAnIntegerIsRefusedWithItsType() throws {
            let conninfo = try freshDatabase()
            try PostgreSQLConnection(conninfo).execute("CREATE TABLE player (id uuid PRIMARY KEY, name text)")
            let controller = Self.controller(conninfo, table: "player", sortBy: ["name"])
            let expected = FetchedResultsError.unsupportedRowIDType(table: "player", column: "id", type: "uuid")
            #expect(throws: expected) { try controller.performFetch() }
            let description = "\(expected)"
            for part in ["\"id\"", "uuid", "bigint", "rowIDColumn"] {
                #expect(description.contains(part), "\(description)")
            }
            #expect(!description.contains("WITHOUT ROWID"), "\(description)")
        }

        /// The same through `rowIDColumn`.
        @Test func aNamedIDColumnThatIsNotAnIntegerIsRefusedWithItsType() throws {
            let conninfo = try freshDatabase()
            try PostgreSQLConnection(conninfo).execute("CREATE TABLE player (code text PRIMARY KEY, name text)")
            let controller = Self.controller(conninfo, table: "player", sortBy: ["name"], rowIDColumn: "code")
            #expect(throws: FetchedResultsError.unsupportedRowIDType(table: "player", column: "code", type: "text")) {
                try controller.performFetch()
            }
        }

        /// A table that does not exist: the server's own words, as on SQLite, not a missing id.
        @Test func aMissingTableIsRefusedWithTheServersWords() throws {
            let (conninfo, _) = try itemDatabase()
            let controller = Self.controller(conninfo, table: "itme", sortBy: ["name"])
            #expect(
                throws: PostgreSQLError.statementFailed(
                    sqlState: .undefinedTable, message: "relation \"itme\" does not exist")
            ) { try controller.performFetch() }
        }
    }
}
