import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The steps of a progressive fetch that take rows the store read ahead (SQLite: on
    /// another of the pool's connections; PostgreSQL: sent to the server at the step before),
    /// against the store's own order after every step.
    @Suite struct ReadAheadTests {
        /// A batched, sectioned controller on `count` made-up items, its first 4 rows fetched.
        static func loadingController(
            _ store: StoreKind, items count: Int, random: inout SplitMix64
        ) throws -> (ItemTable, FetchedResultsController<StandingsItem>, CallbackLog<StandingsItem>) {
            let table = try ItemTable(store)
            try table.fill(count, random: &random)
            let controller = table.controller(table.request(batchSize: 5))
            let recorder = CallbackLog<StandingsItem>()
            controller.delegate = recorder
            try controller.performFetch(firstRows: 4)
            return (table, controller, recorder)
        }

        @Test(arguments: StoreKind.allCases)
        func stepsWithNothingCommittedTakeTheRowsReadAheadAndReplay(_ store: StoreKind) throws {
            var random = SplitMix64(seed: 27)
            let (table, controller, recorder) = try Self.loadingController(store, items: 150, random: &random)
            var state = try table.state(held: controller.heldRowCount)
            var steps = 0
            while controller.hasRowsToLoad {
                recorder.reset()
                // Sizes that vary, as a paced load's do: a step read ahead holds the size asked before it.
                try controller.loadMoreRows(Int.random(in: 1...9, using: &random))
                steps += 1
                let newState = try table.state(held: controller.heldRowCount)
                _ = try checkStep(
                    recorder, old: state, new: newState, controllerState: controllerState(controller, id: \.id),
                    rolledBack: false, batched: true, context: "step \(steps), held \(controller.heldRowCount)")
                state = newState
            }
            #expect(try controllerState(controller, id: \.id) == (try table.state()), "the full result")
            // The first step reads the store itself and starts the next one's read; every later
            // one takes its rows from there.
            #expect(steps > 10 && table.store.stepsReadAhead(of: controller) == steps - 1)
            #expect(recorder.errors.isEmpty)
        }

        @Test(arguments: StoreKind.allCases)
        func aCommitBetweenStepsIsAppliedThoughTheNextStepsRowsWereReadAhead(_ store: StoreKind) throws {
            let seed = randomisedTestSeed(20261125, for: "ReadAheadTests[\(store)]")
            var random = SplitMix64(seed: seed)
            let (table, controller, recorder) = try Self.loadingController(store, items: 300, random: &random)
            let other = try StoreWriter(.otherConnection, on: table.store)
            // SQLite commits through the controller's pool too.
            let writers = store == .sqlite ? [other, try StoreWriter(.controllersPool, on: table.store)] : [other]
            var commits = 0, steps = 0
            while controller.hasRowsToLoad {
                try controller.loadMoreRows(Int.random(in: 2...6, using: &random))
                steps += 1
                #expect(
                    try controllerState(controller, id: \.id) == (try table.state(held: controller.heldRowCount)),
                    "seed \(seed), after \(commits) commits, held \(controller.heldRowCount)")
                // Now and then nothing is committed: the next step takes the rows read ahead.
                let round = Int.random(in: 0..<(2 + writers.count), using: &random)
                if round == 0 { continue }
                // A commit while the next step's rows are read ahead: the step itself must
                // apply it, or a look between the steps (as a loop's wake) does.
                var transaction = try table.randomTransaction(
                    &random, itemIDs: try table.ids(byID: true), truncate: false)
                transaction.rollback = false
                // And the row the read ahead starts with leaves the results.
                if let next = try table.state(held: controller.heldRowCount + 1).flatIDs.last {
                    transaction.statements.append("UPDATE item SET visible = 0 WHERE id = \(next)")
                }
                try writers[round == 3 ? 1 : 0].run(transaction)
                commits += 1
                if round == 2 { try controller.processPendingChanges() }
            }
            // The commit after the last step is the next look's.
            try controller.processPendingChanges()
            #expect(try controllerState(controller, id: \.id) == (try table.state()), "the full result")
            #expect(commits > 10 && recorder.errors.isEmpty)
            let readAhead = table.store.stepsReadAhead(of: controller)
            #expect(readAhead > 0 && readAhead < steps, "\(readAhead) of \(steps) steps read ahead")
            let unclosed = recorder.batches.filter { !$0.closed }.count
            #expect(unclosed == 0, "every change set ends")
        }
    }
}
