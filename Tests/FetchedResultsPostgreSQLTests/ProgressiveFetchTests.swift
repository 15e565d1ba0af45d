import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The progressive fetch on a real server, against the server's own order: after every
    /// transaction and every step of the load, the controller holds exactly the first rows of
    /// `SELECT … ORDER BY` (as many as it says), every callback style replays, and once loaded
    /// it is the full result.
    @Suite struct PostgreSQLProgressiveFetchTests {
        typealias Oracle = PostgreSQLControllerOracleTests

        struct Configuration: Sendable, CustomTestStringConvertible {
            let label: String
            var sortDescriptors = ItemWorkload.standings
            var orderBy = Oracle.standingsOrderBy
            var sectioned = true
            var limit = 0, offset = 0, batchSize = 0
            var writer = Oracle.Writer.otherConnection
            var pruneEvery = 0
            var testDescription: String { label }
        }

        static let configurations: [Configuration] = [
            .init(label: "sections, another connection"),
            .init(
                label: "no sections, binary names, the controller's own connection",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "name"), ColumnSortDescriptor(key: "score", ascending: false),
                ],
                orderBy: #"name COLLATE "C", score DESC NULLS LAST, id"#, sectioned: false,
                writer: .controllersConnection),
            .init(label: "window limit 7 offset 3, pruning", limit: 7, offset: 3, pruneEvery: 61),
            // Not with pruning: after pruned history a batched controller cannot tell which rows
            // it did not hold changed (see `checkStep`), which the progressive fetch does not change.
            .init(label: "batches of 3", batchSize: 3),
        ]

        @Test func aValidCacheIsReadThenFinishesTheLoad() throws {
            var random = SplitMix64(seed: 12)
            let (conninfo, helper) = try standingsDatabase()
            for statement in ItemWorkload.inserts(120, random: &random) { try helper.execute(statement) }
            let request = pgRequest(
                table: "item", sortDescriptors: ItemWorkload.standings, predicate: "visible = $1", arguments: [1],
                fetchBatchSize: 5)
            let cacheDirectory = URL(
                fileURLWithPath: NSTemporaryDirectory() + "pg-progressive-cache-" + UUID().uuidString)
            defer { try? FileManager.default.removeItem(at: cacheDirectory) }
            func makeController() -> (
                FetchedResultsController<StandingsItem>, CallbackLogWithoutDifference<StandingsItem>
            ) {
                let controller = FetchedResultsController<StandingsItem>(
                    fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: "grp", cacheName: "items",
                    cacheDirectory: cacheDirectory)
                let recorder = CallbackLogWithoutDifference<StandingsItem>()
                controller.delegate = recorder
                return (controller, recorder)
            }
            let (first, _) = makeController()
            try first.performFetch()
            try first.saveCache()
            // Changes after the file was written, anywhere in the order.
            for _ in 0..<20 {
                let ids = try helper.execute("SELECT id FROM item ORDER BY id").rows.compactMap {
                    $0[0].flatMap(Int64.init)
                }
                var transaction = PostgreSQLWorkload.transaction(itemIDs: ids, random: &random)
                transaction.statements.removeAll { $0.hasPrefix("TRUNCATE") }
                try Oracle().run(transaction, by: .otherConnection, on: helper, controller: first, conninfo: conninfo)
            }

            let (controller, recorder) = makeController()
            try controller.performFetch(firstRows: 4)
            #expect(
                controller.lastFetchSource == .store && controller.hasRowsToLoad, "the first rows come from the server")
            func oracle(held: Int?) throws -> StandingsState {
                let rows = try helper.execute(
                    "SELECT * FROM item WHERE visible = 1 ORDER BY \(Oracle.standingsOrderBy)"
                        + (held.map { " LIMIT \($0)" } ?? ""))
                let items = try rows.rows.map {
                    try StandingsItem(row: PostgreSQLRow(columns: rows.columns, values: $0))
                }
                return StandingsState(ordered: items.map { ($0.id, $0.grp, $0) }, sectioned: true)
            }
            let before = try oracle(held: 4)
            recorder.reset()
            #expect(try controller.loadMoreRows(2), "a step reads the file (one chunk: all of it)")
            #expect(controller.heldRowCount == 4 && recorder.batches.isEmpty, "nothing taken from it yet")
            #expect(try !controller.loadMoreRows(2), "the next step takes every row from it")
            #expect(controller.lastFetchSource == .cache)
            let after = try oracle(held: nil)
            try checkStep(
                recorder, old: before, new: after, controllerState: controllerState(controller), rolledBack: false,
                batched: true,
                context: "cache", withDifference: false)
            #expect(after.flatIDs.count > 60)
        }

        @Test(arguments: configurations)
        func everyStepHoldsExactlyTheFirstRowsAndEveryCallbackStyleReplays(configuration: Configuration) throws {
            let seed = randomisedTestSeed(20261123, for: "PostgreSQLProgressiveFetchTests[\(configuration.label)]")
            var random = SplitMix64(seed: seed)
            let (conninfo, helper) = try standingsDatabase()
            for statement in ItemWorkload.inserts(150, random: &random) { try helper.execute(statement) }
            let request = pgRequest(
                table: "item", sortDescriptors: configuration.sortDescriptors, predicate: "visible = $1",
                arguments: [1],
                fetchLimit: configuration.limit, fetchOffset: configuration.offset,
                fetchBatchSize: configuration.batchSize)
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: configuration.sectioned ? "grp" : nil)
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch(firstRows: 4)
            #expect(controller.hasRowsToLoad && controller.heldRowCount == 4)

            /// The first `held` rows of the server's order, cut by the request's window.
            func oracle(held: Int?) throws -> StandingsState {
                let window =
                    (configuration.limit > 0 ? " LIMIT \(configuration.limit)" : "")
                    + (configuration.offset > 0 ? " OFFSET \(configuration.offset)" : "")
                let first =
                    "SELECT * FROM item WHERE visible = 1 ORDER BY \(configuration.orderBy)"
                    + (held.map { " LIMIT \($0)" } ?? "")
                let rows = try helper.execute(
                    "SELECT * FROM (\(first)) AS item ORDER BY \(configuration.orderBy)\(window)")
                let items = try rows.rows.map {
                    try StandingsItem(row: PostgreSQLRow(columns: rows.columns, values: $0))
                }
                return StandingsState(ordered: items.map { ($0.id, $0.grp, $0) }, sectioned: configuration.sectioned)
            }

            var state = try oracle(held: controller.heldRowCount)
            var loads = 0, transactionsWhileLoading = 0
            for step in 0..<250 {
                recorder.reset()
                var rolledBack = false
                if controller.hasRowsToLoad, Int.random(in: 0..<4, using: &random) == 0 {
                    try controller.loadMoreRows(Int.random(in: 1...4, using: &random))
                    loads += 1
                } else {
                    if controller.hasRowsToLoad { transactionsWhileLoading += 1 }
                    let ids = try helper.execute("SELECT id FROM item ORDER BY id").rows.compactMap {
                        $0[0].flatMap(Int64.init)
                    }
                    let transaction = PostgreSQLWorkload.transaction(itemIDs: ids, random: &random)
                    try Oracle().run(
                        transaction, by: configuration.writer, on: helper, controller: controller, conninfo: conninfo)
                    rolledBack = transaction.rollback
                    if configuration.writer != .controllersConnection {
                        if configuration.pruneEvery > 0, step % configuration.pruneEvery == configuration.pruneEvery - 1
                        {
                            try PostgreSQLChangeFeed.prune(
                                before: PostgreSQLChangeFeed.currentPosition(in: helper), in: helper)
                        }
                        try lookUntilConnected(controller)
                    }
                }
                let newState = try oracle(held: controller.heldRowCount)
                try checkStep(
                    recorder, old: state, new: newState, controllerState: controllerState(controller),
                    rolledBack: rolledBack,
                    batched: configuration.batchSize > 0,
                    context: "seed \(seed), step \(step), held \(controller.heldRowCount)")
                state = newState
            }
            print(
                "PostgreSQLProgressiveFetchTests[\(configuration.label)]: \(loads) steps of the load, "
                    + "\(transactionsWhileLoading) transactions during it")
            #expect(loads >= 10 && transactionsWhileLoading >= 30, "the load and the transactions must interleave")
            while try controller.loadMoreRows(3) {}
            #expect(try controllerState(controller) == (try oracle(held: nil)), "once loaded, the full result")
            #expect(recorder.errors.isEmpty && recorder.connectionStates.isEmpty)
        }
    }
}
