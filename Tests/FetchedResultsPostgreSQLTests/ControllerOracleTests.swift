import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// Random transactions on a real server; after each step the controller must equal the
    /// server's own `SELECT … ORDER BY`, and every callback style must turn the old state into
    /// exactly the new one — the SQLite controller's oracle, on PostgreSQL.
    @Suite struct PostgreSQLControllerOracleTests {
        enum Writer: String, Sendable {
            /// The controller's own connection (`write(_:)`): callbacks before the write returns.
            case controllersConnection
            /// Another connection of this process; the controller looks after each commit.
            case otherConnection
            /// `psql` in another process, one to three transactions between two looks.
            case psql
        }

        struct Configuration: Sendable, CustomTestStringConvertible {
            let label: String
            var sortDescriptors = ItemWorkload.standings
            var orderBy = standingsOrderBy
            var sectioned = true
            var limit = 0, offset = 0, batchSize = 0
            var writer = Writer.otherConnection
            var steps = 300
            /// Prune the history every this many steps (0: never), before the controller looks.
            var pruneEvery = 0
            /// Restart the server (`pg_ctl restart -m fast`) before this step.
            var restartAt: Int?
            var testDescription: String { label }
        }

        /// The same order, written by hand for the oracle.
        static let standingsOrderBy =
            #"lower(grp COLLATE "C") NULLS FIRST, score DESC NULLS LAST, lower(name COLLATE "C") NULLS FIRST, id"#

        static let configurations: [Configuration] = [
            .init(label: "sections, the controller's own connection", writer: .controllersConnection, steps: 400),
            .init(
                label: "no sections, binary names, another connection, pruning",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "name"), ColumnSortDescriptor(key: "score", ascending: false),
                ],
                orderBy: #"name COLLATE "C", score DESC NULLS LAST, id"#, sectioned: false, pruneEvery: 97),
            .init(label: "window limit 7 offset 3", limit: 7, offset: 3),
            .init(label: "batches of 3, pruning", batchSize: 3, pruneEvery: 41),
            .init(label: "psql in another process, pruning", writer: .psql, steps: 150, pruneEvery: 37),
            .init(label: "server restarted in the middle", steps: 200, pruneEvery: 53, restartAt: 100),
        ]

        @Test(arguments: configurations)
        func everyStepMatchesTheServersOrderAndEveryCallbackStyleReplays(configuration: Configuration) throws {
            let seed = randomisedTestSeed(20261123, for: "PostgreSQLControllerOracleTests[\(configuration.label)]")
            var random = SplitMix64(seed: seed)
            let (conninfo, connection) = try standingsDatabase()
            var helper = connection
            let request = pgRequest(
                table: "item", sortDescriptors: configuration.sortDescriptors, predicate: "visible = $1",
                arguments: [1],
                fetchLimit: configuration.limit, fetchOffset: configuration.offset,
                fetchBatchSize: configuration.batchSize)
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: configuration.sectioned ? "grp" : nil)
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            func oracle() throws -> StandingsState {
                try serverState(
                    helper, orderBy: configuration.orderBy, limit: configuration.limit, offset: configuration.offset,
                    sectioned: configuration.sectioned)
            }

            var state = try oracle()
            var stepsWithCallbacks = 0
            for step in 0..<configuration.steps {
                recorder.reset()
                if step == configuration.restartAt {
                    try TemporaryCluster.shared.get().restart()
                    helper = try PostgreSQLConnection(conninfo)
                }
                var rolledBack = true
                for _ in 0..<(configuration.writer == .psql ? Int.random(in: 1...3, using: &random) : 1) {
                    let ids = try helper.execute("SELECT id FROM item ORDER BY id").rows.compactMap {
                        $0[0].flatMap(Int64.init)
                    }
                    let transaction = PostgreSQLWorkload.transaction(itemIDs: ids, random: &random)
                    try run(
                        transaction, by: configuration.writer, on: helper, controller: controller, conninfo: conninfo)
                    rolledBack = rolledBack && transaction.rollback
                }
                if configuration.writer != .controllersConnection {
                    if configuration.pruneEvery > 0, step % configuration.pruneEvery == configuration.pruneEvery - 1 {
                        try PostgreSQLChangeFeed.prune(
                            before: PostgreSQLChangeFeed.currentPosition(in: helper), in: helper)
                    }
                    try lookUntilConnected(controller)
                }
                let newState = try oracle()
                if try checkStep(
                    recorder, old: state, new: newState, controllerState: controllerState(controller),
                    rolledBack: rolledBack,
                    batched: configuration.batchSize > 0, context: "seed \(seed), step \(step)")
                {
                    stepsWithCallbacks += 1
                }
                state = newState
            }
            print(
                "PostgreSQLControllerOracleTests[\(configuration.label)]: \(configuration.steps) steps, "
                    + "\(stepsWithCallbacks) with callbacks")
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

        struct Rollback: Error {}

        func run(
            _ transaction: RandomTransaction, by writer: Writer, on connection: PostgreSQLConnection,
            controller: FetchedResultsController<StandingsItem>, conninfo: String
        ) throws {
            switch writer {
            case .controllersConnection:
                do {
                    try controller.write { connection in
                        for statement in transaction.statements { try connection.execute(statement) }
                        if transaction.rollback { throw Rollback() }
                    }
                } catch is Rollback {}
            case .otherConnection:
                try connection.execute("BEGIN")
                for statement in transaction.statements { try connection.execute(statement) }
                try connection.execute(transaction.rollback ? "ROLLBACK" : "COMMIT")
            case .psql:
                let psql = Process()
                psql.executableURL = URL(fileURLWithPath: try TemporaryCluster.program("psql"))
                psql.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", conninfo, "-c", transaction.script()]
                psql.standardOutput = FileHandle.nullDevice
                try psql.run()
                psql.waitUntilExit()
                try #require(psql.terminationStatus == 0, "psql failed on \(transaction.script())")
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
