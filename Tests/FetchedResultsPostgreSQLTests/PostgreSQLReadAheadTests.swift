import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

@testable import FetchedResultsPostgreSQL

extension PostgreSQLServerTests {
    /// What PostgreSQL's read ahead (sent at the step before, run by the server meanwhile) must
    /// check of its own; the steps that take its rows are tested on both stores in
    /// ``ReadAheadTests``.
    @Suite struct PostgreSQLReadAheadTests {
        /// A read ahead's parts are joined by `UNION ALL`, whose order SQL does not promise: the
        /// rows taken are checked to follow one another, and rows that do not are refused.
        @Test func rowsOutOfTheRequestsOrderAreNoticed() throws {
            var random = SplitMix64(seed: 5)
            let (table, controller, _) = try ReadAheadTests.loadingController(.postgresql, items: 40, random: &random)
            let helper = table.store.helper!
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
    }
}
