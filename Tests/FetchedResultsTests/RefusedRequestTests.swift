import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport
import Testing

/// A request the controller refuses leaves it following the store as before: a commit it had
/// noted but not yet looked at still arrives at the next look.
@Suite struct RefusedRequestTests {
    private struct Entry: FetchableRecord, Decodable, Sendable, Equatable {
        var id: Int64
        var name: String
        var score: Int
    }

    /// Only this writer's commits are followed here: what its observer notes is all the
    /// controller will ever learn of them.
    @Test func aCommitNotedBeforeARefusedRequestIsNotLost() throws {
        let path = temporaryPath("fetched-results-", suffix: ".sqlite")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE entry (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL)")
            try db.execute(sql: "INSERT INTO entry VALUES (1, 'a', 0), (2, 'b', 1)")
        }
        let request = TableFetchRequest(table: "entry", sortDescriptors: [.ascending("score"), .ascending("name")])
        let controller = FetchedResultsController<Entry>(
            fetchRequest: request, database: pool, changeSource: .thisWriterOnly)
        let recorder = CallbackLog<Entry>()
        controller.delegate = recorder
        try controller.performFetch()
        // Committed by the same writer, not through the controller: noted, not looked at yet.
        try pool.write { db in try db.execute(sql: "UPDATE entry SET score = 5 WHERE id = 1") }
        var refused = request
        refused.textFilter = TextFilter(sortDescriptorAt: 9, containing: "a")
        #expect(throws: FetchedResultsError.self) { try controller.setFetchRequest(refused) }
        try controller.processPendingChanges()
        #expect(try controller.fetchedObjects?.map(\.name) == ["b", "a"])
    }
}
