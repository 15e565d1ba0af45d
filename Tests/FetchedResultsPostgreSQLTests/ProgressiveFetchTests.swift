import ControllerOracles
import FetchedResults
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// A progressive fetch (`performFetch(firstRows:)`, then `loadMoreRows`) under random
    /// transactions, on every store: after every commit and every step of the load, the
    /// controller holds exactly the first rows of the store's own `SELECT … ORDER BY` (as many
    /// as it says it holds), every callback style turns the old state into the new one, and
    /// once loaded it equals the full fetch.
    @Suite struct ProgressiveFetchTests {
        // Batches never with pruning: after pruned history a batched controller cannot tell
        // which rows it did not hold changed (see `checkStep`), which the progressive fetch
        // does not change.
        static let configurations: [RandomisedRun] = [
            .init(
                store: .sqlite, label: "sections, predicate, local writer", writer: .controllersPool, history: false,
                steps: 400),
            .init(
                store: .sqlite, label: "sections, per-object callbacks and snapshots only", writer: .controllersPool,
                history: false, steps: 400, withDifference: false),
            .init(
                store: .sqlite, label: "no sections, binary names", sortDescriptors: ItemTable.binaryNames,
                sectioned: false, writer: .controllersPool, history: false, steps: 400),
            .init(
                store: .sqlite, label: "window limit 7 offset 3", limit: 7, offset: 3, writer: .controllersPool,
                history: false, steps: 400),
            .init(
                store: .sqlite, label: "batches of 3", batchSize: 3, writer: .controllersPool, history: false,
                steps: 400),
            .init(
                store: .sqlite, label: "history, writer on another connection, pruning", writer: .otherConnection,
                steps: 400, pruneEvery: 53),
            .init(store: .postgresql, label: "sections, another connection", writer: .otherConnection, steps: 250),
            .init(
                store: .postgresql, label: "no sections, binary names, the controller's own connection",
                sortDescriptors: ItemTable.binaryNames, sectioned: false, writer: .controller, steps: 250),
            .init(
                store: .postgresql, label: "window limit 7 offset 3, pruning", limit: 7, offset: 3,
                writer: .otherConnection, steps: 250, pruneEvery: 61),
            .init(store: .postgresql, label: "batches of 3", batchSize: 3, writer: .otherConnection, steps: 250),
        ]

        /// Rows in the table before the fetch, so that the load takes many steps.
        static let initialRows = 150

        @Test(arguments: configurations)
        func everyStepHoldsExactlyTheFirstRowsAndEveryCallbackStyleReplays(configuration: RandomisedRun) throws {
            let name = "ProgressiveFetchTests[\(configuration.testDescription)]"
            let seed = randomisedTestSeed(20261123, for: name)
            var random = SplitMix64(seed: seed)
            let table = try ItemTable(configuration)
            try table.fill(Self.initialRows, random: &random)
            let writer = try StoreWriter(configuration.writer, on: table.store)
            let controller = table.controller(configuration)
            writer.attach(controller)
            let recorder: any CallbackRecords & FetchedResultsControllerDelegate<StandingsItem> =
                configuration.withDifference
                ? CallbackLog<StandingsItem>() : CallbackLogWithoutDifference<StandingsItem>()
            controller.delegate = recorder
            try controller.performFetch(firstRows: 4)
            #expect(controller.hasRowsToLoad && controller.heldRowCount == 4)

            /// The first `held` rows of the store's order, cut by the request's window.
            func oracle(held: Int?) throws -> SectionedState<StandingsItem> {
                try table.state(configuration, held: held)
            }

            var state = try oracle(held: controller.heldRowCount)
            var loads = 0, commitsWhileLoading = 0
            for step in 0..<configuration.steps {
                recorder.reset()
                let rolledBack: Bool
                if controller.hasRowsToLoad, Int.random(in: 0..<4, using: &random) == 0 {
                    try controller.loadMoreRows(Int.random(in: 1...4, using: &random))
                    rolledBack = false
                    loads += 1
                } else {
                    if controller.hasRowsToLoad { commitsWhileLoading += 1 }
                    rolledBack = try writer.commitStep(
                        step, pruneEvery: configuration.pruneEvery, random: &random,
                        transaction: { random in try table.randomTransaction(&random) },
                        look: { try lookUntilConnected(controller) })
                }
                let newState = try oracle(held: controller.heldRowCount)
                _ = try checkStep(
                    recorder, old: state, new: newState, controllerState: controllerState(controller, id: \.id),
                    rolledBack: rolledBack, batched: configuration.batchSize > 0,
                    context: "seed \(seed), step \(step), held \(controller.heldRowCount)",
                    withDifference: configuration.withDifference)
                state = newState
            }
            print("\(name): \(loads) steps of the load, \(commitsWhileLoading) transactions during it")
            #expect(loads >= 10 && commitsWhileLoading >= 30, "the load and the transactions must interleave")

            while try controller.loadMoreRows(3) {}
            #expect(!controller.hasRowsToLoad)
            #expect(try controllerState(controller, id: \.id) == (try oracle(held: nil)), "once loaded, the full fetch")
            #expect(recorder.errors.isEmpty && recorder.connectionStates.isEmpty)
        }

        /// A cache file is read a chunk per step, with transactions committed between the
        /// steps: until the last step the results stay the first rows (exact after every step),
        /// and the last step takes every row from the file, brought up to date by the feed. One
        /// chunk (120 rows) is read in one step; several (3,000 rows), over several.
        @Test(arguments: StoreKind.allCases, [120, 3_000])
        func aValidCacheIsReadOverStepsThenFinishesTheLoad(_ store: StoreKind, rows: Int) throws {
            var random = SplitMix64(seed: store == .sqlite ? 11 : 12)
            let table = try ItemTable(store)
            try table.fill(rows, random: &random)
            let request = table.request(batchSize: 5)
            let cacheDirectory = URL(fileURLWithPath: temporaryPath("progressive-cache-"))
            defer { try? FileManager.default.removeItem(at: cacheDirectory) }
            func makeController() -> (
                FetchedResultsController<StandingsItem>, CallbackLogWithoutDifference<StandingsItem>
            ) {
                let controller = table.controller(request, cacheName: "items", cacheDirectory: cacheDirectory)
                let recorder = CallbackLogWithoutDifference<StandingsItem>()
                controller.delegate = recorder
                return (controller, recorder)
            }
            let (first, _) = makeController()
            try first.performFetch()
            try first.saveCache()
            let cachedRows = first.heldRowCount
            let severalChunks = rows > 1_000
            if severalChunks { #expect(cachedRows > 2 * OrderedKeys.maximumChunkCount, "several chunks in the file") }
            // Changes after the file was written, anywhere in the order.
            let writer = try StoreWriter(.otherConnection, on: table.store)
            func commit() throws { try writer.run(try table.randomTransaction(&random, truncate: false)) }
            for _ in 0..<20 { try commit() }

            let (controller, recorder) = makeController()
            try controller.performFetch(firstRows: 4)
            #expect(
                controller.lastFetchSource == .store && controller.hasRowsToLoad, "the first rows come from the store")
            var state = try table.state(held: controller.heldRowCount)
            // The delegate has heard nothing yet: one step from the store tells which styles it
            // implements, so that the file's last step (every row in one change set) computes
            // only those.
            try controller.loadMoreRows(4)
            #expect(controller.heldRowCount == 8, "a step from the store before the file")
            var newState = try table.state(held: controller.heldRowCount)
            _ = try checkStep(
                recorder, old: state, new: newState, controllerState: controllerState(controller, id: \.id),
                rolledBack: false, batched: true, context: "cache, the step from the store", withDifference: false)
            state = newState
            var steps = 0
            while controller.hasRowsToLoad {
                try commit()
                recorder.reset()
                try controller.loadMoreRows(OrderedKeys.maximumChunkCount)
                steps += 1
                let held = controller.hasRowsToLoad ? controller.heldRowCount : nil
                if held != nil {
                    #expect(controller.heldRowCount < 20, "step \(steps): the file is still being read")
                }
                newState = try table.state(held: held)
                _ = try checkStep(
                    recorder, old: state, new: newState, controllerState: controllerState(controller, id: \.id),
                    rolledBack: false, batched: true, context: "cache, step \(steps)", withDifference: false)
                state = newState
                try #require(steps < 100)
            }
            print("ProgressiveFetchTests[\(store)]: \(cachedRows) cached rows taken in \(steps) steps")
            #expect(severalChunks ? steps >= 3 : steps == 2, "the file is read a chunk per step, then installed")
            #expect(controller.lastFetchSource == .cache)
            #expect(state.flatIDs.count > (severalChunks ? 2 * OrderedKeys.maximumChunkCount : rows / 2))
            #expect(recorder.errors.isEmpty)
        }

        @Test(arguments: StoreKind.allCases)
        func withoutADelegateTheLoadEndsAtTheFullFetch(_ store: StoreKind) throws {
            var random = SplitMix64(seed: 7)
            let table = try ItemTable(store)
            try table.fill(60, random: &random)
            let request = table.request()
            let controller = table.controller(request)
            let full = table.controller(request)
            try full.performFetch()
            try controller.performFetch(firstRows: 5)
            #expect(try controller.fetchedObjects?.map(\.id) == full.fetchedObjects?.prefix(5).map(\.id))
            var steps = 0
            while try controller.loadMoreRows(7) { steps += 1 }
            #expect(steps >= 6)
            #expect(try controller.fetchedObjects?.map(\.id) == full.fetchedObjects?.map(\.id))
            #expect(try controller.sections?.map(\.name) == full.sections?.map(\.name))
        }

        @Test(arguments: StoreKind.allCases)
        func aFetchOfMoreRowsThanMatchIsComplete(_ store: StoreKind) throws {
            var random = SplitMix64(seed: 8)
            let table = try ItemTable(store)
            try table.fill(10, random: &random)
            let controller: FetchedResultsController<StandingsItem> = table.store.controller(
                TableFetchRequest(table: "item", sortDescriptors: ItemWorkload.standings), sectionNameKeyPath: nil)
            try controller.performFetch(firstRows: 10)
            #expect(controller.hasRowsToLoad, "exactly as many as asked: the next step finds none")
            #expect(try !controller.loadMoreRows())
            #expect(controller.heldRowCount == 10)
            try controller.performFetch(firstRows: 11)
            #expect(!controller.hasRowsToLoad && controller.heldRowCount == 10)
        }
    }
}
