import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// Requests PostgreSQL cannot follow are refused by `performFetch()` with an error that names
    /// the real problem and what to do.
    @Suite struct RequestErrorTests {
        private static func controller(
            _ conninfo: String, table: String, sortBy keys: [String], rowIDColumn: String? = nil
        ) -> FetchedResultsController<PostgreSQLRow> {
            FetchedResultsController<PostgreSQLRow>(
                fetchRequest: TableFetchRequest(
                    table: table, rowIDColumn: rowIDColumn, sortDescriptors: keys.map { ColumnSortDescriptor(key: $0) }),
                conninfo: conninfo)
        }

        /// A misspelt sort key: the column does not exist, which is not a type problem.
        @Test func aSortDescriptorNamingNoColumnIsRefused() throws {
            let (conninfo, _) = try itemDatabase()
            let controller = Self.controller(conninfo, table: "item", sortBy: ["name", "nmae"])
            #expect(throws: FetchedResultsError.unknownColumn(key: "nmae", table: "item")) {
                try controller.performFetch()
            }
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
