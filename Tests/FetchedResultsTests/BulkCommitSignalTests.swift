import ControllerOracles
import FetchedResults
import FetchedResultsSQLite
import Foundation
import GRDB
import Glibc
import SQLiteFixtures
import TestSupport
import Testing

/// Issue 12, bug 1: a big commit from another process (a bulk import) reached a loop that
/// sleeps on the change signal only at its safety look, seconds later: the import's last write
/// to the WAL file woke the loop, which looked before the writer had published the commit in
/// the WAL index, and went back to sleep.
@Suite struct BulkCommitSignalTests {
    /// The loop every app runs (the scoreboard's, as the docs describe it): sleep on the wake
    /// descriptor until the next look's deadline, then look. The safety look is a minute away
    /// here, so each of three bulk commits — made by `sqlite3` while the loop runs — can only
    /// show through the signal and its follow-up looks within the 20 s each round waits.
    @Test func bulkCommitsFromAnotherProcessShowThroughTheSignal() throws {
        let (pool, path) = try makeItemDatabase(history: true)
        let store = SQLiteStore(database: pool)
        store.safetyLookInterval = .seconds(60)
        let controller = FetchedResultsController<Item>(
            fetchRequest: TableFetchRequest(table: "item", sortDescriptors: [ColumnSortDescriptor(key: "name")]),
            store: store, decode: { try Item(row: $0) })
        let log = CallbackLog<Item>()
        controller.delegate = log
        try controller.performFetch()
        func shown() -> Int { controller.numberOfSections == 0 ? 0 : controller.numberOfObjects(inSection: 0) }
        var latencies: [Double] = []
        for round in 1...3 {
            // At rest: the follow-up window of the last round's writes is over.
            usleep(1_500_000)
            let bulk = Process()
            bulk.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            bulk.standardInput = FileHandle.nullDevice
            bulk.arguments = [
                path,
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
                INSERT INTO item (name, note) SELECT 'bulk \(round) ' || i, '' FROM n;
                """,
            ]
            let started = ContinuousClock.now
            try bulk.run()
            let expected = 10_000 * round
            while shown() < expected, ContinuousClock.now - started < .seconds(20) {
                let lookDue = controller.nextLookDeadline ?? .now + .seconds(60)
                let givenUp = started + .seconds(20)
                var descriptor = pollfd(fd: controller.wakeDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
                let woken = poll(
                    &descriptor, 1, Int32(max(0, (min(lookDue, givenUp) - .now) / .milliseconds(1)).rounded(.up)))
                // Out of time before the loop would look: what it shows now is what it missed.
                if woken == 0 && givenUp < lookDue { break }
                try controller.processPendingChanges()
            }
            latencies.append((ContinuousClock.now - started) / .milliseconds(1))
            bulk.waitUntilExit()
            try #require(bulk.terminationStatus == 0, "sqlite3 ran the bulk insert")
            #expect(
                shown() == expected,
                "round \(round): the bulk commit did not show within 20 s: the signal missed it")
        }
        print(
            "bulk commit in another process → controller (ms, from the start of sqlite3): "
                + "\(latencies.map { Int($0) })")
    }
}
