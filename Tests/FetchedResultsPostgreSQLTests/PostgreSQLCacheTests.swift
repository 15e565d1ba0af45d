import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// What only PostgreSQL's persistent cache has to do: serve a role that may only read; the
    /// cache on both stores is tested in ``CacheTests``.
    @Suite struct PostgreSQLCacheTests {
        static let request = pgRequest(
            table: "item", sortDescriptors: ItemWorkload.standings, predicate: "visible = $1",
            arguments: [1])

        func fill(_ connection: PostgreSQLConnection, rows: Int) throws {
            try connection.execute(
                """
                INSERT INTO item (id, grp, score, name)
                SELECT i, (ARRAY['Africa', 'Asia', 'Europe', NULL])[1 + i % 4], i % 7, 'team ' || i
                FROM generate_series(1, $1::int) AS i
                """, [rows])
        }

        func launch(
            _ conninfo: String, _ folder: TemporaryDirectory, request: TableFetchRequest = Self.request
        )
            throws -> (FetchedResultsController<StandingsItem>, PostgreSQLRecorder)
        {
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: "grp", cacheName: "standings",
                cacheDirectory: URL(fileURLWithPath: folder.path))
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            return (controller, recorder)
        }

        /// A role that may only read the table and its feed (a viewer) keeps and uses a cache too.
        @Test func aRoleThatOnlyReadsUsesTheCache() throws {
            let (conninfo, writer) = try standingsDatabase()
            try fill(writer, rows: 20)
            let role = "reader_" + UUID().uuidString.prefix(8).lowercased()
            try writer.execute("CREATE ROLE \(role) LOGIN")
            try writer.execute(
                "GRANT SELECT ON item, fetched_results_history, fetched_results_history_pruned TO \(role)")
            let readerInfo = conninfo.replacingOccurrences(of: "user=postgres", with: "user=\(role)")
            let folder = TemporaryDirectory()
            let (first, _) = try launch(readerInfo, folder)
            #expect(first.lastFetchSource == .store)
            try first.saveCache()
            try writer.execute("UPDATE item SET score = 50 WHERE id = 7")
            let (second, _) = try launch(readerInfo, folder)
            #expect(second.lastFetchSource == .cache)
            #expect(
                try controllerState(second)
                    == (try serverState(
                        writer, orderBy: standingsOrderBy, sectioned: true)))
        }
    }
}
