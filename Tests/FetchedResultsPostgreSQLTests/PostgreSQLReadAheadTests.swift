import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

@testable import FetchedResultsPostgreSQL

extension PostgreSQLServerTests {
    /// The steps of a progressive fetch that take rows the store read ahead (sent at the step
    /// before, run by the server meanwhile), against the server's own order after every step.
    @Suite struct PostgreSQLReadAheadTests {
        typealias Oracle = PostgreSQLControllerOracleTests

        /// A batched, sectioned controller on `count` made-up items, its first 4 rows fetched.
        static func loadingController(
            items count: Int, random: inout SplitMix64
        ) throws -> (FetchedResultsController<StandingsItem>, PostgreSQLRecorder, PostgreSQLConnection) {
            let (conninfo, helper) = try standingsDatabase()
            for statement in ItemWorkload.inserts(count, random: &random) { try helper.execute(statement) }
            let request = pgRequest(
                table: "item", sortDescriptors: ItemWorkload.standings, predicate: "visible = $1", arguments: [1],
                fetchBatchSize: 5)
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: "grp")
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch(firstRows: 4)
            return (controller, recorder, helper)
        }

        /// The first `held` rows of the server's order (all of them when nil).
        static func oracle(held: Int?, _ helper: PostgreSQLConnection) throws -> StandingsState {
            let rows = try helper.execute(
                "SELECT * FROM item WHERE visible = 1 ORDER BY \(Oracle.standingsOrderBy)"
                    + (held.map { " LIMIT \($0)" } ?? ""))
            let items = try rows.rows.map { try StandingsItem(row: PostgreSQLRow(columns: rows.columns, values: $0)) }
            return StandingsState(ordered: items.map { ($0.id, $0.grp, $0) }, sectioned: true)
        }

        @Test func stepsWithNothingCommittedTakeTheRowsReadAheadAndReplay() throws {
            var random = SplitMix64(seed: 27)
            let (controller, recorder, helper) = try Self.loadingController(items: 150, random: &random)
            var state = try Self.oracle(held: controller.heldRowCount, helper)
            var steps = 0
            while controller.hasRowsToLoad {
                recorder.reset()
                // Sizes that vary, as a paced load's do: a step read ahead holds the size asked before it.
                try controller.loadMoreRows(Int.random(in: 1...9, using: &random))
                steps += 1
                let newState = try Self.oracle(held: controller.heldRowCount, helper)
                try checkStep(
                    recorder, old: state, new: newState, controllerState: controllerState(controller),
                    rolledBack: false, batched: true, context: "step \(steps), held \(controller.heldRowCount)")
                state = newState
            }
            #expect(try controllerState(controller) == (try Self.oracle(held: nil, helper)), "the full result")
            // The first step reads the store itself and sends the next one's read; every later one
            // takes its rows from there.
            #expect(steps > 10 && (controller.store as! PostgreSQLStore).stepsReadAhead == steps - 1)
            #expect(recorder.errors.isEmpty)
        }

        /// A read ahead's parts are joined by `UNION ALL`, whose order SQL does not promise: the
        /// rows taken are checked to follow one another, and rows that do not are refused.
        @Test func rowsOutOfTheRequestsOrderAreNoticed() throws {
            var random = SplitMix64(seed: 5)
            let (controller, _, helper) = try Self.loadingController(items: 40, random: &random)
            let query = try #require((controller.store as! PostgreSQLStore).query)
            func inOrder(orderedBy orderBy: String) throws -> (Bool, Int) {
                var taker = OrderedRowTaker(query: query, limit: nil, after: nil, sectioned: true)
                taker.checkingOrder = true
                try helper.forEachRow(
                    of: "SELECT \(query.keysOnlySQL) FROM \(query.fromSQL) WHERE visible = 1 ORDER BY \(orderBy)"
                ) { try taker.take($0, isHeld: { _ in false }) }
                return (taker.isInOrder, taker.read.count)
            }
            let (ordered, count) = try inOrder(orderedBy: query.orderBySQL)
            #expect(ordered && count > 20, "the request's own order, \(count) rows")
            #expect(try inOrder(orderedBy: "id DESC").0 == false, "the rows by id, last first")
        }

        @Test func aCommitBetweenStepsIsAppliedThoughTheNextStepsRowsWereReadAhead() throws {
            let seed = randomisedTestSeed(20261125, for: "PostgreSQLReadAheadTests")
            var random = SplitMix64(seed: seed)
            let (controller, recorder, helper) = try Self.loadingController(items: 300, random: &random)
            var commits = 0, steps = 0
            while controller.hasRowsToLoad {
                try controller.loadMoreRows(Int.random(in: 2...6, using: &random))
                steps += 1
                #expect(
                    try controllerState(controller) == (try Self.oracle(held: controller.heldRowCount, helper)),
                    "seed \(seed), after \(commits) commits, held \(controller.heldRowCount)")
                // Now and then nothing is committed: the next step takes the rows read ahead.
                let round = Int.random(in: 0..<3, using: &random)
                if round == 0 { continue }
                // Another connection commits while the next step's rows are read ahead: the step
                // itself must apply it, or a look between the steps (as a loop's wake) does.
                let ids = try helper.execute("SELECT id FROM item ORDER BY id").rows.compactMap {
                    $0[0].flatMap(Int64.init)
                }
                var transaction = PostgreSQLWorkload.transaction(itemIDs: ids, random: &random)
                transaction.statements.removeAll { $0.hasPrefix("TRUNCATE") }
                // And the row the read ahead starts with leaves the results.
                let next = try Self.oracle(held: controller.heldRowCount + 1, helper).flatIDs.last
                try helper.transaction {
                    for statement in transaction.statements { try helper.execute(statement) }
                    if let next { try helper.execute("UPDATE item SET visible = 0 WHERE id = \(next)") }
                }
                commits += 1
                if round == 2 { try controller.processPendingChanges() }
            }
            // The commit after the last step is the next look's.
            try controller.processPendingChanges()
            #expect(try controllerState(controller) == (try Self.oracle(held: nil, helper)), "the full result")
            #expect(commits > 10 && recorder.errors.isEmpty)
            let readAhead = (controller.store as! PostgreSQLStore).stepsReadAhead
            #expect(readAhead > 0 && readAhead < steps, "\(readAhead) of \(steps) steps read ahead")
            let unclosed = recorder.batches.filter { !$0.closed }.count
            #expect(unclosed == 0, "every change set ends")
        }
    }
}
