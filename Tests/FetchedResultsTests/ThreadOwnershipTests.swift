import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport
import Testing

/// A controller is not `Sendable`. Code in Swift 5 language mode can share one between threads
/// anyway; the controller then stops the program with a message that says what happened,
/// rather than failing somewhere inside the database library.
@Suite struct ThreadOwnershipTests {
    @Test func aSecondThreadInsideTheControllerIsRefusedByName() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let path = temporaryPath("thread-ownership-", suffix: ".sqlite")
            let pool = try DatabasePool(path: path)
            try pool.write { db in
                try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
                try ChangeHistory.install(on: "item", in: db)
                try db.execute(sql: "INSERT INTO item (name) VALUES ('a'), ('b')")
            }
            struct Name: FetchableRecord {
                var name: String
                init(row: GRDB.Row) { name = row["name"] }
            }
            let controller = FetchedResultsController(
                fetchRequest: TableFetchRequest(table: "item", sortDescriptors: [.ascending("name")]), database: pool,
                recordType: Name.self)
            // As Swift 5 mode lets anyone write: the controller reached from another thread while
            // this one is inside it, delivering a write's changes.
            final class Delegate: FetchedResultsControllerDelegate {
                var controller: FetchedResultsController<Name>?
                func controllerDidChangeContent(_ controller: FetchedResultsController<Name>) {
                    nonisolated(unsafe) let shared = self.controller!
                    let done = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        _ = try? shared.object(at: IndexPath(row: 0, section: 0))
                        done.signal()
                    }
                    done.wait()
                }
                func controller(_ controller: FetchedResultsController<Name>, didFailWith error: any Error) {}
            }
            let delegate = Delegate()
            delegate.controller = controller
            controller.delegate = delegate
            try controller.performFetch()
            try controller.write { try $0.execute(sql: "UPDATE item SET name = 'c' WHERE name = 'a'") }
            withExtendedLifetime(delegate) {}
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("used by one thread at a time"), "\(message.suffix(2000))")
    }
}
