import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The controller's text search against the store's own answer (SQLite's `instr`,
    /// PostgreSQL's `strpos`) over random names, on every store: every match in order both
    /// ways, the count, the places, with sort values searched first, in the middle or last,
    /// ascending or descending, folded or not, with NULLs, in a window, after changes, and
    /// while a progressive fetch loads (``TextSearchOracle``).
    @Suite struct TextSearchTests {
        struct Configuration: Sendable, CustomTestStringConvertible {
            let label: String
            let sortDescriptors: [ColumnSortDescriptor]
            /// The sort descriptor searched: its column, folded when it compares ignoring case.
            let searched: Int
            var limit = 0, offset = 0
            var sharedStart = false
            var testDescription: String { label }
        }

        static let nameDescending = [ColumnSortDescriptor(key: "name", ascending: false, collation: .caseInsensitive)]

        static let configurations: [Configuration] = [
            .init(label: "last of three, case-insensitive", sortDescriptors: ItemWorkload.standings, searched: 2),
            .init(label: "the only one, case-insensitive descending", sortDescriptors: nameDescending, searched: 0),
            .init(
                label: "after a number, bytes",
                sortDescriptors: [ColumnSortDescriptor(key: "score"), ColumnSortDescriptor(key: "name")], searched: 1),
            .init(
                label: "first, bytes descending, NULLs",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "grp", ascending: false),
                    ColumnSortDescriptor(key: "name", collation: .caseInsensitive),
                ],
                searched: 0),
            .init(
                label: "window limit 600 offset 900", sortDescriptors: ItemWorkload.standings, searched: 2, limit: 600,
                offset: 900),
            .init(
                label: "names sharing their start, case-insensitive", sortDescriptors: ItemWorkload.standings,
                searched: 2, sharedStart: true),
            .init(
                label: "names sharing their start, case-insensitive descending", sortDescriptors: nameDescending,
                searched: 0, sharedStart: true),
        ]

        /// `count` random rows (ids from 1) in an `item` table, and the texts searched in them
        /// (each row's zone and name).
        static func makeTable(
            _ store: StoreKind, count: Int, sharedStart: Bool = false, _ random: inout SplitMix64
        ) throws -> (ItemTable, values: [String]) {
            let table = try ItemTable(store)
            var rows: [String] = [], values: [String] = []
            for id in 1...count {
                let row = TextSearchOracle.randomRow(sharedStart: sharedStart, &random)
                rows.append(
                    "(\(id), \(ItemWorkload.literal(row.zone)), \(row.score), \(ItemWorkload.literal(row.name)))")
                values.append((row.zone ?? "") + row.name)
            }
            try table.store.execute("INSERT INTO item (id, grp, score, name) VALUES " + rows.joined(separator: ", "))
            return (table, values)
        }

        /// The condition that finds the store's parameter in the searched column, folded or not.
        static func condition(_ descriptor: ColumnSortDescriptor, on store: TestStore) -> String {
            let (column, text) = (descriptor.key, store.parameter)
            let folded = descriptor.collation == .caseInsensitive
            return switch store.kind {
            case .sqlite: folded ? "instr(lower(\(column)), lower(\(text))) > 0" : "instr(\(column), \(text)) > 0"
            case .postgresql:
                folded
                    ? "strpos(lower(\(column) COLLATE \"C\"), lower(\(text) COLLATE \"C\")) > 0"
                    : "strpos(\(column), \(text)) > 0"
            }
        }

        /// The ids of the rows whose searched column holds `text`, in order, among the rows
        /// the window (`LIMIT`, `OFFSET`) keeps.
        static func expected(
            _ text: String, in table: ItemTable, sortDescriptors: [ColumnSortDescriptor], searched: Int,
            window: String = ""
        ) throws -> [Int64] {
            let order = ItemTable.orderBy(sortDescriptors, on: table.kind)
            return try table.store.ids(
                "SELECT id FROM (SELECT * FROM item ORDER BY \(order)\(window)) AS item "
                    + "WHERE \(condition(sortDescriptors[searched], on: table.store)) ORDER BY \(order)",
                binding: text)
        }

        static func oracle(for controller: FetchedResultsController<StandingsItem>, searched: Int) -> TextSearchOracle {
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

        @Test(arguments: StoreKind.allCases, configurations)
        func everySearchFindsWhatTheStoreFinds(_ store: StoreKind, configuration: Configuration) throws {
            let seed = randomisedTestSeed(20_261_124, for: "TextSearchTests[\(store): \(configuration.label)]")
            var random = SplitMix64(seed: seed)
            let count = 2_000
            let (table, values) = try Self.makeTable(
                store, count: count, sharedStart: configuration.sharedStart, &random)
            let controller: FetchedResultsController<StandingsItem> = table.store.controller(
                TableFetchRequest(
                    table: "item", sortDescriptors: configuration.sortDescriptors,
                    fetchLimit: configuration.limit, fetchOffset: configuration.offset),
                sectionNameKeyPath: nil)
            let recorder = CallbackLog<StandingsItem>()
            controller.delegate = recorder
            try controller.performFetch()
            let oracle = Self.oracle(for: controller, searched: configuration.searched)
            let window = configuration.limit > 0 ? " LIMIT \(configuration.limit) OFFSET \(configuration.offset)" : ""
            func expected(_ text: String) throws -> [Int64] {
                try Self.expected(
                    text, in: table, sortDescriptors: configuration.sortDescriptors,
                    searched: configuration.searched, window: window)
            }
            let queries = TextSearchOracle.queries(values: values, count: 24, &random)
            for text in queries {
                oracle.check(text, expected: try expected(text), &random)
            }

            // Changes under a counted search, a look after most of them: its count starts
            // again, and ends right.
            var kept = controller.search(sortDescriptorAt: configuration.searched, containing: "n")
            while !controller.matchCount(of: kept).isComplete { controller.countMatches(&kept, for: .zero) }
            var nextID = count + 1
            for _ in 0..<30 {
                let id = Int.random(in: 1...count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: try table.store.execute("UPDATE item SET score = score + 1 WHERE id = \(id)")
                case 1:
                    let name = ItemWorkload.literal(TextSearchOracle.randomName(&random))
                    try table.store.execute("UPDATE item SET name = \(name) WHERE id = \(id)")
                case 2:
                    let name = ItemWorkload.literal(TextSearchOracle.randomName(&random))
                    try table.store.execute(
                        "INSERT INTO item (id, grp, score, name) VALUES (\(nextID), 'Nor', 1, \(name))")
                    nextID += 1
                default: try table.store.execute("DELETE FROM item WHERE id = \(id)")
                }
                // Sometimes several commits reach one look.
                if Int.random(in: 0..<3, using: &random) > 0 { try controller.processPendingChanges() }
            }
            try controller.processPendingChanges()
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
            #expect(recorder.errors.isEmpty)
        }

        @Test(arguments: StoreKind.allCases)
        func whileAProgressiveFetchLoadsTheCountCoversTheRowsLoadedAndGoesOn(_ store: StoreKind) throws {
            var random = SplitMix64(seed: 7)
            let (table, _) = try Self.makeTable(store, count: 5_000, &random)
            let controller: FetchedResultsController<StandingsItem> = table.store.controller(
                TableFetchRequest(table: "item", sortDescriptors: ItemWorkload.standings), sectionNameKeyPath: nil)
            let recorder = CallbackLog<StandingsItem>()
            controller.delegate = recorder
            try controller.performFetch(firstRows: 1_500)
            func expected(limit: Int) throws -> Int {
                try Self.expected(
                    "nor", in: table, sortDescriptors: ItemWorkload.standings, searched: 2, window: " LIMIT \(limit)"
                ).count
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
}
