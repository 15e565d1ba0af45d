import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// Thousands of random transactions on every store; after each step the controller must
    /// equal the store's own `SELECT … ORDER BY`, and every callback style must turn the old
    /// state into exactly the new one.
    @Suite struct ControllerOracleTests {
        /// Each store's own configurations: its writers (SQLite's pool, with and without a
        /// change history, and `notifyChanges`; PostgreSQL's restart), and as many steps as the
        /// store takes in the time.
        static let configurations: [RandomisedRun] = [
            .init(store: .sqlite, label: "sections, predicate", writer: .controller, history: false, steps: 2000),
            .init(
                store: .sqlite, label: "no sections, binary names", sortDescriptors: ItemTable.binaryNames,
                sectioned: false, bound: true, writer: .controller, history: false, steps: 1000),
            .init(
                store: .sqlite, label: "window limit 7 offset 3", limit: 7, offset: 3, writer: .controller,
                history: false, steps: 1000),
            .init(
                store: .sqlite, label: "no history, writes through the pool", writer: .controllersPool,
                history: false, steps: 600),
            .init(store: .sqlite, label: "history, local writer", writer: .controllersPool, steps: 600),
            .init(
                store: .sqlite, label: "history, writer on another connection, pruning", writer: .otherConnection,
                steps: 1000, pruneEvery: 97),
            .init(
                store: .sqlite, label: "batches of 3, local writer", batchSize: 3, writer: .controller,
                history: false, steps: 800),
            .init(
                store: .sqlite, label: "batches of 3, writer on another connection, pruning", batchSize: 3,
                writer: .otherConnection, steps: 800, pruneEvery: 97),
            .init(
                store: .sqlite, label: "history, writer in another process, pruning", writer: .otherProcess,
                steps: 600, pruneEvery: 97),
            .init(
                store: .sqlite, label: "writer on another connection, then notifyChanges",
                writer: .otherConnectionThenNotify, history: false, steps: 400),
            .init(
                store: .postgresql, label: "sections, the controller's own connection", writer: .controller, steps: 400),
            .init(
                store: .postgresql, label: "no sections, binary names, another connection, pruning",
                sortDescriptors: ItemTable.binaryNames, sectioned: false, writer: .otherConnection, steps: 300,
                pruneEvery: 97),
            .init(
                store: .postgresql, label: "window limit 7 offset 3", limit: 7, offset: 3, writer: .otherConnection,
                steps: 300),
            .init(
                store: .postgresql, label: "batches of 3, pruning", batchSize: 3, writer: .otherConnection, steps: 300,
                pruneEvery: 41),
            .init(
                store: .postgresql, label: "psql in another process, pruning", writer: .otherProcess, steps: 150,
                pruneEvery: 37),
            .init(
                store: .postgresql, label: "server restarted in the middle", writer: .otherConnection, steps: 200,
                pruneEvery: 53, restartAt: 100),
        ]

        @Test(arguments: configurations)
        func everyStepMatchesTheStoresOrderAndEveryCallbackStyleReplays(configuration: RandomisedRun) throws {
            let name = "ControllerOracleTests[\(configuration.testDescription)]"
            let seed = randomisedTestSeed(configuration.store == .sqlite ? 20261122 : 20261123, for: name)
            var random = SplitMix64(seed: seed)
            let table = try ItemTable(configuration)
            let writer = try StoreWriter(configuration.writer, on: table.store)
            let controller = table.controller(configuration)
            let recorder = CallbackLog<StandingsItem>()
            controller.delegate = recorder
            try controller.performFetch()

            let stepsWithCallbacks = try runCheckedSteps(
                configuration.steps, controller: controller, recorder: recorder, writer: writer,
                pruneEvery: configuration.pruneEvery, seed: seed, random: &random, id: \.id,
                beforeStep: { step in
                    guard step == configuration.restartAt else { return }
                    try TemporaryCluster.shared.get().restart()
                    try table.store.reconnect()
                },
                transaction: { random in try table.randomTransaction(&random) },
                oracle: { try table.state(configuration) })
            print("\(name): \(configuration.steps) steps, \(stepsWithCallbacks) with callbacks")
            #expect(stepsWithCallbacks > configuration.steps / 10, "the workload must change the results often")
            if configuration.batchSize > 0 {
                #expect(
                    controller.loadedRowCount <= configuration.batchSize * 8, "batching keeps a bounded number of rows")
            }
            if configuration.restartAt != nil {
                #expect(recorder.connectionStates.contains(.connected), "the controller reconnected after the restart")
            } else {
                #expect(recorder.connectionStates.isEmpty && recorder.errors.isEmpty)
            }
        }
    }
}

/// Looks until a look leaves the controller connected: a look that finds the connection lost
/// reports it and returns; the next ones reconnect (when the back-off allows) and catch up.
func lookUntilConnected<Record>(
    _ controller: FetchedResultsController<Record>, timeout: Duration = .seconds(30)
) throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        try controller.processPendingChanges()
        if controller.connectionState == .connected { return }
        try #require(ContinuousClock.now < deadline, "the controller did not reconnect: \(controller.connectionState)")
        let wait = (controller.nextLookDeadline ?? .now) - .now
        if wait > .zero {
            Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
        }
    }
}
