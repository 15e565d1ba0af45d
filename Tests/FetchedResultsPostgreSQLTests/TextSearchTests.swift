import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The PostgreSQL controller's text search against the server's own `strpos` over random
    /// names, with the checks the SQLite controller's search passes (``TextSearchOracle``).
    @Suite struct PostgreSQLTextSearchTests {
        struct Configuration: Sendable, CustomTestStringConvertible {
            let label: String
            let sortDescriptors: [ColumnSortDescriptor]
            let searched: Int
            /// The server's answer: a condition on `$1`, the text.
            let condition: String
            let orderBy: String
            var sharedStart = false
            var testDescription: String { label }
        }

        static let folded = #"strpos(lower(name COLLATE "C"), lower($1 COLLATE "C")) > 0"#

        static let configurations: [Configuration] = [
            .init(
                label: "last of three, case-insensitive", sortDescriptors: ItemWorkload.standings,
                searched: 2,
                condition: folded, orderBy: PostgreSQLControllerOracleTests.standingsOrderBy),
            .init(
                label: "the only one, case-insensitive descending",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "name", ascending: false, collation: .caseInsensitive)
                ],
                searched: 0, condition: folded, orderBy: #"lower(name COLLATE "C") DESC NULLS LAST, id"#),
            .init(
                label: "after a number, bytes",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "score"),
                    ColumnSortDescriptor(key: "name"),
                ],
                searched: 1, condition: "strpos(name, $1) > 0", orderBy: #"score NULLS FIRST, name COLLATE "C", id"#),
            .init(
                label: "first, bytes descending, NULLs",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "grp", ascending: false),
                    ColumnSortDescriptor(key: "name", collation: .caseInsensitive),
                ],
                searched: 0, condition: "strpos(grp, $1) > 0",
                orderBy: #"grp COLLATE "C" DESC NULLS LAST, lower(name COLLATE "C") NULLS FIRST, id"#),
            .init(
                label: "names sharing their start, case-insensitive",
                sortDescriptors: ItemWorkload.standings,
                searched: 2, condition: folded, orderBy: PostgreSQLControllerOracleTests.standingsOrderBy,
                sharedStart: true),
        ]

        @Test(arguments: configurations)
        func everySearchFindsWhatTheServerFinds(configuration: Configuration) throws {
            let seed = randomisedTestSeed(20_261_124, for: "PostgreSQLTextSearchTests[\(configuration.label)]")
            var random = SplitMix64(seed: seed)
            let (conninfo, connection) = try standingsDatabase()
            let count = 2_000
            var columns: [[String?]] = [[], [], [], []]
            for id in 1...count {
                let row = TextSearchOracle.randomRow(sharedStart: configuration.sharedStart, &random)
                columns[0].append(String(id))
                columns[1].append(row.zone)
                columns[2].append(String(row.score))
                columns[3].append(row.name)
            }
            try connection.execute(
                "INSERT INTO item (id, grp, score, name) "
                    + "SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[])",
                columns.map(PostgreSQLConnection.arrayLiteral))
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: pgRequest(table: "item", sortDescriptors: configuration.sortDescriptors),
                conninfo: conninfo)
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            let searched = configuration.searched
            let oracle = TextSearchOracle(
                search: { controller.search(sortDescriptorAt: searched, containing: $0, narrowing: $1) },
                find: { controller.indexPath(matching: $0, from: $1, forward: $2, includingStart: $3) },
                count: { controller.countMatches(&$0, for: $1) },
                matchCount: { controller.matchCount(of: $0) },
                ordinal: { controller.matchOrdinal(of: $0, in: $1) },
                rows: {
                    (0..<controller.numberOfSections).flatMap { section in
                        (0..<controller.numberOfObjects(inSection: section)).map { row in
                            let indexPath = IndexPath(row: row, section: section)
                            return (indexPath, controller.rowID(at: indexPath))
                        }
                    }
                })
            func expected(_ text: String) throws -> [Int64] {
                try connection.execute(
                    "SELECT id FROM item WHERE \(configuration.condition) ORDER BY \(configuration.orderBy)", [text]
                )
                .rows.compactMap { $0[0].flatMap(Int64.init) }
            }
            let values = zip(columns[1], columns[3]).map { ($0 ?? "") + $1! }
            let queries = TextSearchOracle.queries(values: values, count: 20, &random)
            for text in queries {
                oracle.check(text, expected: try expected(text), &random)
            }

            // Others' changes: after the controller's look, the same answers as the server's.
            for _ in 0..<20 {
                let id = Int.random(in: 1...count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: try connection.execute("UPDATE item SET score = score + 1 WHERE id = $1", [id])
                case 1:
                    try connection.execute(
                        "UPDATE item SET name = $1 WHERE id = $2", [TextSearchOracle.randomName(&random), id])
                default: try connection.execute("DELETE FROM item WHERE id = $1", [id])
                }
            }
            _ = try controller.processPendingChanges()
            for text in queries.prefix(8) {
                oracle.check(text, expected: try expected(text), &random)
            }
            #expect(recorder.errors.isEmpty)
        }
    }
}
