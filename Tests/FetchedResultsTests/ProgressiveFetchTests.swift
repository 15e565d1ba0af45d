import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// A progressive fetch (`performFetch(firstRows:)`, then `loadMoreRows`) under random
/// transactions: after every commit and every step of the load, the controller holds exactly
/// the first rows of a fresh fetch by SQLite (as many as it says it holds), every callback
/// style turns the old state into the new one, and once loaded it equals the full fetch.
@Suite struct ProgressiveFetchTests {
    struct Configuration: Sendable, CustomTestStringConvertible {
        let label: String
        let request: TableFetchRequest
        var sectioned = true
        var writer = TransactionWriter.Kind.controllersPool
        /// Without a `CollectionDifference` callback, rows of inserted sections are not placed one
        /// by one.
        var withDifference = true
        var testDescription: String { label }
    }

    static let configurations: [Configuration] = [
        .init(
            label: "sections, predicate, local writer",
            request: TableFetchRequest(table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings)
        ),
        .init(
            label: "sections, per-object callbacks and snapshots only",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings),
            withDifference: false),
        .init(
            label: "no sections, binary names",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "name"), ColumnSortDescriptor(key: "score", ascending: false),
                ]),
            sectioned: false),
        .init(
            label: "window limit 7 offset 3",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings, fetchLimit: 7,
                fetchOffset: 3)),
        .init(
            label: "batches of 3",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings, fetchBatchSize: 3)),
        // Without batches: after pruned history a batched controller cannot tell which rows it
        // did not hold changed (see `checkStep`), which the progressive fetch does not change.
        .init(
            label: "history, writer on another connection, pruning",
            request: TableFetchRequest(
                table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings),
            writer: .otherConnection),
    ]

    /// Rows in the table before the fetch, so that the load takes many steps.
    static let initialRows = 150

    static func fill(_ pool: DatabasePool, rows: Int, random: inout SplitMix64) throws {
        let statements = ItemWorkload.inserts(rows, random: &random)
        try pool.write { db in
            for statement in statements { try db.execute(sql: statement) }
        }
    }

    @Test(arguments: configurations)
    func everyStepHoldsExactlyTheFirstRowsAndEveryCallbackStyleReplays(configuration: Configuration) throws {
        let seed = randomisedTestSeed(20261123, for: "ProgressiveFetchTests[\(configuration.label)]")
        var random = SplitMix64(seed: seed)
        let history = configuration.writer == .otherConnection
        let (pool, path) = try makeItemDatabase(history: history)
        try Self.fill(pool, rows: Self.initialRows, random: &random)
        let writer = try TransactionWriter(configuration.writer, pool: pool, path: path)
        let request = configuration.request
        let controller = FetchedResultsController<Item>(
            fetchRequest: request, database: pool, sectionNameKeyPath: configuration.sectioned ? "grp" : nil,
            changeSource: history ? .everyConnection : .thisWriterOnly)
        let recorder: any CallbackRecords & FetchedResultsControllerDelegate<Item> =
            configuration.withDifference ? Recorder() : CallbackLogWithoutDifference<Item>()
        controller.delegate = recorder
        try controller.performFetch(firstRows: 4)
        #expect(controller.hasRowsToLoad && controller.heldRowCount == 4)

        let orderBy = request.sortDescriptors.map {
            "\($0.key) COLLATE \($0.collation.sqlite)\($0.ascending ? "" : " DESC")"
        }.joined(separator: ", ")
        let (predicate, arguments) = try pool.read { db in try (request.predicate as! SQLitePredicate).sql.build(db) }
        var window = ""
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            window = " LIMIT \(request.fetchLimit > 0 ? request.fetchLimit : -1) OFFSET \(request.fetchOffset)"
        }
        /// The first `held` rows of SQLite's order, cut by the request's window.
        func oracle(held: Int?) throws -> ItemState {
            let first = "SELECT * FROM item WHERE \(predicate) ORDER BY \(orderBy), id LIMIT \(held ?? -1)"
            return try pool.read { db in
                try ItemState.query(
                    db, sql: "SELECT * FROM (\(first)) ORDER BY \(orderBy), id\(window)", arguments: arguments,
                    sectioned: configuration.sectioned)
            }
        }
        func controllerState() throws -> ItemState {
            SectionedState(
                sections: try controller.sections!.map { ($0.name, $0.objects.map { $0.id! }) },
                content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { ($0.id!, $0) }))
        }

        var state = try oracle(held: controller.heldRowCount)
        var loads = 0, commitsWhileLoading = 0
        for step in 0..<400 {
            recorder.reset()
            let rolledBack: Bool
            if controller.hasRowsToLoad, Int.random(in: 0..<4, using: &random) == 0 {
                try controller.loadMoreRows(Int.random(in: 1...4, using: &random))
                rolledBack = false
                loads += 1
            } else {
                if controller.hasRowsToLoad { commitsWhileLoading += 1 }
                rolledBack = try writer.commitStep(
                    step, pruneEvery: 53, random: &random,
                    transaction: { random in
                        let ids = try pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM item") }
                        return RandomWorkload.transaction(itemIDs: ids, random: &random)
                    }, poll: { try controller.processPendingChanges() })
            }
            let newState = try oracle(held: controller.heldRowCount)
            _ = try checkStep(
                recorder, old: state, new: newState, controllerState: try controllerState(), rolledBack: rolledBack,
                batched: request.fetchBatchSize > 0,
                context: "seed \(seed), step \(step), held \(controller.heldRowCount)",
                withDifference: configuration.withDifference)
            state = newState
        }
        print(
            "ProgressiveFetchTests[\(configuration.label)]: \(loads) steps of the load, "
                + "\(commitsWhileLoading) transactions during it")
        #expect(loads >= 10 && commitsWhileLoading >= 30, "the load and the transactions must interleave")

        while try controller.loadMoreRows(3) {}
        #expect(!controller.hasRowsToLoad)
        #expect(try controllerState() == (try oracle(held: nil)), "once loaded, the full fetch")
        #expect(recorder.errors.isEmpty)
    }

    /// A cache file of several chunks is read a part per step, with transactions committed
    /// between the steps: until the last step the results stay the first rows (exact after every
    /// step), and the last step takes every row from the file, brought up to date by the feed.
    @Test func aValidCacheIsReadOverSeveralStepsThenFinishesTheLoad() throws {
        var random = SplitMix64(seed: 11)
        let (pool, path) = try makeItemDatabase(history: true)
        try Self.fill(pool, rows: 3_000, random: &random)
        let request = TableFetchRequest(
            table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings, fetchBatchSize: 5)
        let cacheDirectory = URL(fileURLWithPath: NSTemporaryDirectory() + "progressive-cache-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        func makeController() -> (FetchedResultsController<Item>, CallbackLogWithoutDifference<Item>) {
            let controller = FetchedResultsController<Item>(
                fetchRequest: request, database: pool, sectionNameKeyPath: "grp", cacheName: "items",
                cacheDirectory: cacheDirectory)
            let recorder = CallbackLogWithoutDifference<Item>()
            controller.delegate = recorder
            return (controller, recorder)
        }
        let (first, _) = makeController()
        try first.performFetch()
        try first.saveCache()
        let cachedRows = first.heldRowCount
        #expect(cachedRows > 2 * OrderedKeys.maximumChunkCount, "several chunks in the file")
        // Changes after the file was written, at the start and in the tail of the order.
        let writer = try TransactionWriter(.otherConnection, pool: pool, path: path)
        func commit(_ step: Int) throws {
            _ = try writer.commitStep(
                step, pruneEvery: 1000, random: &random,
                transaction: { random in
                    let ids = try pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM item") }
                    return RandomWorkload.transaction(itemIDs: ids, random: &random)
                }, poll: {})
        }
        for step in 0..<20 { try commit(step) }

        let (controller, recorder) = makeController()
        try controller.performFetch(firstRows: 4)
        #expect(controller.lastFetchSource == .store && controller.hasRowsToLoad, "the first rows come from the store")
        let orderBy = request.sortDescriptors.map {
            "\($0.key) COLLATE \($0.collation.sqlite)\($0.ascending ? "" : " DESC")"
        }.joined(separator: ", ")
        func oracle(held: Int?) throws -> ItemState {
            try pool.read { db in
                try ItemState.query(
                    db, sql: "SELECT * FROM item WHERE visible = 1 ORDER BY \(orderBy), id LIMIT \(held ?? -1)",
                    sectioned: true)
            }
        }
        func controllerState() throws -> ItemState {
            SectionedState(
                sections: try controller.sections!.map { ($0.name, $0.objects.map { $0.id! }) },
                content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { ($0.id!, $0) }))
        }
        var state = try oracle(held: controller.heldRowCount)
        var steps = 0
        while controller.hasRowsToLoad {
            try commit(20 + steps)
            recorder.reset()
            try controller.loadMoreRows(OrderedKeys.maximumChunkCount)
            steps += 1
            let held = controller.hasRowsToLoad ? controller.heldRowCount : nil
            if held != nil {
                #expect(controller.heldRowCount < 20, "step \(steps): the file is still being read")
            }
            let newState = try oracle(held: held)
            _ = try checkStep(
                recorder, old: state, new: newState, controllerState: try controllerState(), rolledBack: false,
                batched: true, context: "cache, step \(steps)", withDifference: false)
            state = newState
            try #require(steps < 100)
        }
        print("ProgressiveFetchTests: \(cachedRows) cached rows taken in \(steps) steps")
        #expect(steps >= 3, "the file is read over several steps, then installed")
        #expect(controller.lastFetchSource == .cache)
        #expect(state.flatIDs.count > 2 * OrderedKeys.maximumChunkCount)
        #expect(recorder.errors.isEmpty)
    }

    @Test func withoutADelegateTheLoadEndsAtTheFullFetch() throws {
        var random = SplitMix64(seed: 7)
        let (pool, _) = try makeItemDatabase()
        try Self.fill(pool, rows: 60, random: &random)
        let request = TableFetchRequest(
            table: "item", predicate: "visible = 1", sortDescriptors: ItemWorkload.standings)
        let controller = FetchedResultsController<Item>(
            fetchRequest: request, database: pool, sectionNameKeyPath: "grp")
        let full = FetchedResultsController<Item>(fetchRequest: request, database: pool, sectionNameKeyPath: "grp")
        try full.performFetch()
        try controller.performFetch(firstRows: 5)
        #expect(try controller.fetchedObjects?.map(\.id) == full.fetchedObjects?.prefix(5).map(\.id))
        var steps = 0
        while try controller.loadMoreRows(7) { steps += 1 }
        #expect(steps >= 6)
        #expect(try controller.fetchedObjects?.map(\.id) == full.fetchedObjects?.map(\.id))
        #expect(try controller.sections?.map(\.name) == full.sections?.map(\.name))
    }

    @Test func aFetchOfMoreRowsThanMatchIsComplete() throws {
        var random = SplitMix64(seed: 8)
        let (pool, _) = try makeItemDatabase()
        try Self.fill(pool, rows: 10, random: &random)
        let controller = FetchedResultsController<Item>(
            fetchRequest: TableFetchRequest(table: "item", sortDescriptors: ItemWorkload.standings), database: pool)
        try controller.performFetch(firstRows: 10)
        #expect(controller.hasRowsToLoad, "exactly as many as asked: the next step finds none")
        #expect(try !controller.loadMoreRows())
        #expect(controller.heldRowCount == 10)
        try controller.performFetch(firstRows: 11)
        #expect(!controller.hasRowsToLoad && controller.heldRowCount == 10)
    }
}
