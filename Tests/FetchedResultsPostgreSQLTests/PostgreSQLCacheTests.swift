import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The persistent cache on PostgreSQL: a later launch takes the ordering from the file and
    /// reads only what the feed names since; a file that cannot be trusted is never used.
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

        @Test(arguments: [0, 4])
        func aLaterLaunchUsesTheCacheAndWhatChangedSince(batchSize: Int) throws {
            let (conninfo, writer) = try standingsDatabase()
            try fill(writer, rows: 200)
            let folder = TemporaryDirectory()
            var request = Self.request
            request.fetchBatchSize = batchSize
            let (first, _) = try launch(conninfo, folder, request: request)
            #expect(first.lastFetchSource == .store)
            try first.saveCache()
            #expect(first.cacheFile.map { FileManager.default.fileExists(atPath: $0.path) } == true)

            // While no scoreboard runs: inserts, deletes, moves, a section's first row renamed.
            try writer.execute(
                "INSERT INTO item (id, grp, score, name) VALUES (1000, 'Zone', 3, 'new'), "
                    + "(1001, 'asia', 99, 'top of asia')")
            try writer.execute("DELETE FROM item WHERE id IN (4, 8, 12)")
            try writer.execute("UPDATE item SET score = score + 10 WHERE id IN (5, 6, 7)")
            try writer.execute("UPDATE item SET visible = 0 WHERE id = 9")

            let (second, recorder) = try launch(conninfo, folder, request: request)
            #expect(second.lastFetchSource == .cache)
            let expected = try serverState(
                writer, orderBy: standingsOrderBy, sectioned: true)
            #expect(try controllerState(second) == expected)
            #expect(recorder.batches.isEmpty, "catching up is part of the fetch, not a change")

            // And it follows changes from there.
            try writer.execute("UPDATE item SET grp = 'Africa' WHERE id = 1000")
            try second.processPendingChanges()
            #expect(
                try controllerState(second)
                    == (try serverState(
                        writer, orderBy: standingsOrderBy, sectioned: true)))
        }

        @Test func aCacheThatCannotBeTrustedIsNotUsed() throws {
            let (conninfo, writer) = try standingsDatabase()
            try fill(writer, rows: 50)
            let folder = TemporaryDirectory()
            let (first, _) = try launch(conninfo, folder)
            try first.saveCache()

            // The history since the file's position was pruned.
            try writer.execute("UPDATE item SET score = 100 WHERE id = 3")
            try PostgreSQLChangeFeed.prune(before: PostgreSQLChangeFeed.currentPosition(in: writer), in: writer)
            let (afterPruning, _) = try launch(conninfo, folder)
            #expect(afterPruning.lastFetchSource == .store)
            #expect(
                try controllerState(afterPruning)
                    == (try serverState(
                        writer, orderBy: standingsOrderBy, sectioned: true)))
            try afterPruning.saveCache()

            // Another request (other arguments), another database, another table shape.
            var otherRequest = Self.request
            otherRequest.predicate = PostgreSQLPredicate(sql: "visible = $1", arguments: [0])
            #expect(try launch(conninfo, folder, request: otherRequest).0.lastFetchSource == .store)
            let (otherDatabase, otherWriter) = try standingsDatabase()
            try fill(otherWriter, rows: 50)
            #expect(try launch(otherDatabase, folder).0.lastFetchSource == .store)
            try afterPruning.saveCache()
            try writer.execute("ALTER TABLE item ADD COLUMN extra text")
            #expect(try launch(conninfo, folder).0.lastFetchSource == .store)

            // A damaged file.
            let (current, _) = try launch(conninfo, folder)
            try writer.execute("UPDATE item SET score = 101 WHERE id = 3")
            try current.processPendingChanges()
            try current.saveCache()
            let file = try #require(current.cacheFile)
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count - 3] ^= 0xFF
            try bytes.write(to: file)
            let (afterDamage, _) = try launch(conninfo, folder)
            #expect(afterDamage.lastFetchSource == .store)
            #expect(
                try controllerState(afterDamage)
                    == (try serverState(
                        writer, orderBy: standingsOrderBy, sectioned: true)))
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
