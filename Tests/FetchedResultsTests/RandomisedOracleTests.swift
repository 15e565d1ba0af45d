import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// Thousands of random transactions; after each one the controller must equal a fresh fetch by
/// SQLite, and every callback style must turn the old state into exactly the new state.
@Suite struct RandomisedOracleTests {
    enum Writer: Sendable {
        /// Writes through the controller's `write(_:)`: changes arrive before it returns.
        case local
        /// Writes through the controller's pool without change history: the pool's observer
        /// notes each commit, and the look applies it.
        case localPool
        /// Writes through the pool with change history installed: the look finds the history
        /// it needs in what the observer noted, without reading the history table.
        case localWithHistory
        /// Writes through a separate connection, which the controller cannot observe (like
        /// another process): changes arrive through the history when the app polls, and the
        /// history is sometimes pruned before that, forcing a refetch and diff.
        case otherConnection
        /// Writes through the `sqlite3` shell in another process, one to three transactions
        /// between two polls; the history is sometimes pruned before a poll.
        case otherProcess
        /// Writes through a separate connection, with no history; the controller's pool then
        /// calls `notifyChanges(in:)`, and the controller refetches and diffs.
        case otherConnectionThenNotify

        var kind: TransactionWriter.Kind {
            switch self {
            case .local: return .throughController
            case .localPool, .localWithHistory: return .controllersPool
            case .otherConnection: return .otherConnection
            case .otherProcess: return .otherProcess
            case .otherConnectionThenNotify: return .otherConnectionThenNotify
            }
        }
    }

    struct Configuration: Sendable, CustomTestStringConvertible {
        let label: String
        let request: TableFetchRequest
        let sectioned: Bool
        let transactions: Int
        var writer = Writer.local
        var testDescription: String { label }
    }

    static let configurations: [Configuration] = [
        .init(
            label: "sections, predicate",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings),
            sectioned: true, transactions: 2000),
        .init(
            label: "no sections, binary names",
            request: TableFetchRequest(
                table: "item", predicate: "visible = ?", arguments: [1.databaseValue],
                sortDescriptors: [
                    ColumnSortDescriptor(key: "name"), ColumnSortDescriptor(key: "score", ascending: false),
                ]),
            sectioned: false, transactions: 1000),
        .init(
            label: "window limit 7 offset 3",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings,
                fetchLimit: 7, fetchOffset: 3), sectioned: true, transactions: 1000),
        .init(
            label: "no history, writes through the pool",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1",
                sortDescriptors: ItemWorkload.standings), sectioned: true, transactions: 600, writer: .localPool),
        .init(
            label: "history, local writer",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings),
            sectioned: true, transactions: 600, writer: .localWithHistory),
        .init(
            label: "history, writer on another connection, pruning",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings),
            sectioned: true, transactions: 1000, writer: .otherConnection),
        .init(
            label: "batches of 3, local writer",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings,
                fetchBatchSize: 3), sectioned: true, transactions: 800),
        .init(
            label: "batches of 3, writer on another connection, pruning",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings, fetchBatchSize: 3),
            sectioned: true, transactions: 800, writer: .otherConnection),
        .init(
            label: "history, writer in another process, pruning",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings),
            sectioned: true, transactions: 600, writer: .otherProcess),
        .init(
            label: "writer on another connection, then notifyChanges",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings),
            sectioned: true, transactions: 400, writer: .otherConnectionThenNotify),
    ]

    @Test(arguments: configurations)
    func everyCommitMatchesAFreshFetchAndEveryCallbackStyleReplays(configuration: Configuration) throws {
        let seed = randomisedTestSeed(20261122, for: "RandomisedOracleTests[\(configuration.label)]")
        var random = SplitMix64(seed: seed)
        let history = ![.local, .localPool, .otherConnectionThenNotify].contains(configuration.writer)
        let (pool, path) = try makeItemDatabase(history: history)
        let writer = try TransactionWriter(configuration.writer.kind, pool: pool, path: path)
        let request = configuration.request
        let controller = FetchedResultsController<Item>(
            fetchRequest: request, database: pool, sectionNameKeyPath: configuration.sectioned ? "grp" : nil,
            changeSource: history ? .everyConnection : .thisWriterOnly)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()

        var limitClause = ""
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            limitClause = " LIMIT \(request.fetchLimit > 0 ? request.fetchLimit : -1) OFFSET \(request.fetchOffset)"
        }
        let orderBy = request.sortDescriptors.map {
            "\($0.key) COLLATE \($0.collation.sqlite)\($0.ascending ? "" : " DESC")"
        }.joined(separator: ", ")
        let (predicate, arguments) = try pool.read { db in try (request.predicate as! SQLitePredicate).sql.build(db) }
        let oracleSQL = "SELECT * FROM item WHERE \(predicate) ORDER BY \(orderBy), id\(limitClause)"
        func oracle() throws -> ItemState {
            try pool.read { db in
                try ItemState.query(db, sql: oracleSQL, arguments: arguments, sectioned: configuration.sectioned)
            }
        }

        let callbackBatches = try runCheckedSteps(
            configuration.transactions, controller: controller, recorder: recorder, writer: writer, pruneEvery: 97,
            seed: seed, random: &random, id: { $0.id! },
            transaction: { random in
                let ids = try pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM item") }
                return RandomWorkload.transaction(itemIDs: ids, random: &random)
            }, oracle: oracle)
        print(
            "RandomisedOracleTests[\(configuration.label)]: \(configuration.transactions) transactions, "
                + "\(callbackBatches) with callbacks")
        if request.fetchBatchSize > 0 {
            #expect(controller.loadedRowCount <= request.fetchBatchSize * 8, "batching keeps a bounded number of rows")
        }
        #expect(callbackBatches > configuration.transactions / 10, "the workload must change the results often")
    }
}
