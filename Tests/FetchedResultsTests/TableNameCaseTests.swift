import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport
import Testing

/// Table names are matched without regard to case, also beyond ASCII: SQLite reports a table as
/// it was declared, the library keeps names lowercased by Swift, and SQL's `lower()` leaves
/// non-ASCII letters as they are.
@Suite struct TableNameCaseTests {
    private struct Entry: FetchableRecord, Decodable, Sendable {
        var id: Int64
        var name: String
        var score: Int
    }

    /// A store with `table` (two rows, optionally its change history) and a controller on it,
    /// by score, with its callbacks recorded.
    private static func controller(
        on table: String, history: Bool
    ) throws -> (FetchedResultsController<Entry>, CallbackLog<Entry>, DatabasePool, String) {
        let path = temporaryPath("fetched-results-", suffix: ".sqlite")
        let pool = try DatabasePool(path: path)
        let quoted = table.quotedDatabaseIdentifier
        try pool.write { db in
            try db.execute(
                sql: "CREATE TABLE \(quoted) (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL)")
            try db.execute(sql: "INSERT INTO \(quoted) VALUES (1, 'a', 0), (2, 'b', 1)")
            if history { try ChangeHistory.install(on: table, in: db) }
        }
        let controller = FetchedResultsController<Entry>(
            fetchRequest: TableFetchRequest(table: table, sortDescriptors: [.ascending("score")]), database: pool,
            changeSource: history ? .everyConnection : .thisWriterOnly)
        let recorder = CallbackLog<Entry>()
        controller.delegate = recorder
        try controller.performFetch()
        return (controller, recorder, pool, path)
    }

    @Test(arguments: ["Equipe", "Équipe", "ÉQUIPE"])
    func ownWritesAreSeen(table: String) throws {
        let (controller, recorder, _, _) = try Self.controller(on: table, history: false)
        try controller.write { db in
            try db.execute(sql: "UPDATE \(table.quotedDatabaseIdentifier) SET score = 5 WHERE id = 1")
        }
        #expect(try controller.fetchedObjects!.map(\.name) == ["b", "a"])
        #expect(recorder.batches.count == 1)
    }

    @Test(arguments: ["Equipe", "Équipe", "ÉQUIPE"])
    func anotherConnectionsWritesAreSeenThroughTheHistory(table: String) throws {
        let (controller, recorder, _, path) = try Self.controller(on: table, history: true)
        let other = try DatabaseQueue(path: path)
        try other.write { db in
            try db.execute(sql: "UPDATE \(table.quotedDatabaseIdentifier) SET score = 5 WHERE id = 1")
        }
        try controller.processPendingChanges()
        #expect(try controller.fetchedObjects!.map(\.name) == ["b", "a"])
        #expect(recorder.batches.count == 1)
    }
}
