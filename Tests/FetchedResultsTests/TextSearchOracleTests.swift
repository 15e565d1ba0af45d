import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// The controller's text search against SQLite's own `instr` over random names: every match in
/// order both ways, the count, the places, with sort values searched first, in the middle or
/// last, ascending or descending, folded or not, with NULLs, in a window, after changes, and
/// while a progressive fetch loads.
@Suite struct TextSearchOracleTests {
    struct Configuration: Sendable, CustomTestStringConvertible {
        let label: String
        let sortDescriptors: [ColumnSortDescriptor]
        let searched: Int
        /// The store's answer: a condition on `?`, the text.
        let condition: String
        let orderBy: String
        var limit = 0, offset = 0
        var sharedStart = false
        var testDescription: String { label }
    }

    static let standingsOrder = "grp COLLATE NOCASE, score DESC, name COLLATE NOCASE, id"

    static let configurations: [Configuration] = [
        .init(
            label: "last of three, NOCASE", sortDescriptors: ItemWorkload.standings, searched: 2,
            condition: "instr(lower(name), lower(?)) > 0", orderBy: standingsOrder),
        .init(
            label: "the only one, NOCASE descending",
            sortDescriptors: [ColumnSortDescriptor(key: "name", ascending: false, collation: .caseInsensitive)],
            searched: 0, condition: "instr(lower(name), lower(?)) > 0", orderBy: "name COLLATE NOCASE DESC, id"),
        .init(
            label: "after a number, BINARY",
            sortDescriptors: [ColumnSortDescriptor(key: "score"), ColumnSortDescriptor(key: "name")],
            searched: 1, condition: "instr(name, ?) > 0", orderBy: "score, name, id"),
        .init(
            label: "first, BINARY descending, NULLs",
            sortDescriptors: [
                ColumnSortDescriptor(key: "grp", ascending: false),
                ColumnSortDescriptor(key: "name", collation: .caseInsensitive),
            ],
            searched: 0, condition: "instr(grp, ?) > 0", orderBy: "grp DESC, name COLLATE NOCASE, id"),
        .init(
            label: "window limit 600 offset 900", sortDescriptors: ItemWorkload.standings, searched: 2,
            condition: "instr(lower(name), lower(?)) > 0", orderBy: standingsOrder, limit: 600, offset: 900),
        .init(
            label: "names sharing their start, NOCASE", sortDescriptors: ItemWorkload.standings, searched: 2,
            condition: "instr(lower(name), lower(?)) > 0", orderBy: standingsOrder, sharedStart: true),
        .init(
            label: "names sharing their start, NOCASE descending",
            sortDescriptors: [ColumnSortDescriptor(key: "name", ascending: false, collation: .caseInsensitive)],
            searched: 0, condition: "instr(lower(name), lower(?)) > 0", orderBy: "name COLLATE NOCASE DESC, id",
            sharedStart: true),
    ]

    /// A store of `count` random items.
    static func makeDatabase(count: Int, sharedStart: Bool = false, _ random: inout SplitMix64) throws -> DatabasePool {
        let (pool, _) = try makeItemDatabase()
        try pool.write { db in
            for _ in 0..<count {
                let row = TextSearchOracle.randomRow(sharedStart: sharedStart, &random)
                try db.execute(
                    sql: "INSERT INTO item (grp, score, name) VALUES (?, ?, ?)",
                    arguments: [row.zone, row.score, row.name])
            }
        }
        return pool
    }

    static func oracle(for controller: FetchedResultsController<Item>, searched: Int) -> TextSearchOracle {
        TextSearchOracle(
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
    }

    @Test(arguments: configurations)
    func everySearchFindsWhatSQLiteFinds(configuration: Configuration) throws {
        let seed = randomisedTestSeed(20_261_124, for: "TextSearchOracleTests[\(configuration.label)]")
        var random = SplitMix64(seed: seed)
        let pool = try Self.makeDatabase(count: 2_000, sharedStart: configuration.sharedStart, &random)
        let controller = FetchedResultsController<Item>(
            fetchRequest: TableFetchRequest(
                table: "item", sortDescriptors: configuration.sortDescriptors,
                fetchLimit: configuration.limit, fetchOffset: configuration.offset),
            database: pool)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let oracle = Self.oracle(for: controller, searched: configuration.searched)
        let window = configuration.limit > 0 ? " LIMIT \(configuration.limit) OFFSET \(configuration.offset)" : ""
        func expected(_ text: String) throws -> [Int64] {
            try pool.read { db in
                try Int64.fetchAll(
                    db,
                    sql: "SELECT id FROM (SELECT * FROM item ORDER BY \(configuration.orderBy)\(window)) "
                        + "WHERE \(configuration.condition) ORDER BY \(configuration.orderBy)", arguments: [text])
            }
        }
        let values = try pool.read { db in try String.fetchAll(db, sql: "SELECT coalesce(grp, '') || name FROM item") }
        let queries = TextSearchOracle.queries(values: values, count: 24, &random)
        for text in queries {
            oracle.check(text, expected: try expected(text), &random)
        }

        // Changes under a counted search: its count starts again, and ends right.
        var kept = controller.search(sortDescriptorAt: configuration.searched, containing: "n")
        while !controller.matchCount(of: kept).isComplete { controller.countMatches(&kept, for: .zero) }
        for _ in 0..<30 {
            try pool.write { db in
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    try db.execute(
                        sql: "UPDATE item SET score = score + 1 WHERE id = ?",
                        arguments: [Int.random(in: 1...2_000, using: &random)])
                case 1:
                    try db.execute(
                        sql: "UPDATE item SET name = ? WHERE id = ?",
                        arguments: [TextSearchOracle.randomName(&random), Int.random(in: 1...2_000, using: &random)])
                case 2:
                    try db.execute(
                        sql: "INSERT INTO item (grp, score, name) VALUES ('Nor', 1, ?)",
                        arguments: [TextSearchOracle.randomName(&random)])
                default:
                    try db.execute(
                        sql: "DELETE FROM item WHERE id = ?", arguments: [Int.random(in: 1...2_000, using: &random)])
                }
            }
            try controller.processPendingChanges()
        }
        let afterChanges = try expected("n")
        let stale = controller.matchCount(of: kept)
        #expect(
            !stale.isComplete || stale.matches == afterChanges.count,
            "a count from before the changes is not taken for exact")
        while !controller.matchCount(of: kept).isComplete { controller.countMatches(&kept, for: .zero) }
        #expect(controller.matchCount(of: kept).matches == afterChanges.count)
        for text in queries.prefix(10) {
            oracle.check(text, expected: try expected(text), &random)
        }
    }

    @Test func whileAProgressiveFetchLoadsTheCountCoversTheRowsLoadedAndGoesOn() throws {
        var random = SplitMix64(seed: 7)
        let pool = try Self.makeDatabase(count: 5_000, &random)
        let controller = FetchedResultsController<Item>(
            fetchRequest: TableFetchRequest(table: "item", sortDescriptors: ItemWorkload.standings), database: pool)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch(firstRows: 1_500)
        func expected(limit: Int) throws -> Int {
            try pool.read { db in
                try Int.fetchOne(
                    db,
                    sql: "SELECT count(*) FROM (SELECT * FROM item ORDER BY \(Self.standingsOrder) LIMIT ?) "
                        + "WHERE instr(lower(name), 'nor') > 0", arguments: [limit])!
            }
        }
        var search = controller.search(sortDescriptorAt: 2, containing: "NOR")
        while !controller.matchCount(of: search).isComplete { controller.countMatches(&search, for: .zero) }
        #expect(controller.matchCount(of: search).matches == (try expected(limit: 1_500)), "the rows loaded so far")
        while controller.hasRowsToLoad {
            try controller.loadMoreRows(1_000)
            #expect(!controller.matchCount(of: search).isComplete, "rows were appended")
            while !controller.matchCount(of: search).isComplete { controller.countMatches(&search, for: .zero) }
            #expect(controller.matchCount(of: search).matches == (try expected(limit: controller.heldRowCount)))
        }
        #expect(controller.matchCount(of: search).matches == (try expected(limit: 5_000)))
    }
}
