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
        ) -> PostgreSQLResultsController<PostgreSQLRow> {
            PostgreSQLResultsController<PostgreSQLRow>(
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
    }
}
