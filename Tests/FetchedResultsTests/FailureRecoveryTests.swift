import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// A database error while following changes: the delegate hears it, the controller keeps its
/// last good results, and the next successful look brings it level with the store in one
/// correct change set.
@Suite struct FailureRecoveryTests {
    struct Fixture {
        let pool: DatabasePool
        let path: String
        let controller: FetchedResultsController<Item>
        let recorder = Recorder()

        init(batchSize: Int = 0) throws {
            (pool, path) = try makeItemDatabase(history: true)
            try pool.write { db in
                for (index, name) in ["ant", "bee", "cat", "dog", "eel"].enumerated() {
                    try Item(
                        id: nil, grp: index < 2 ? "Africa" : "Europe", score: index, name: name, note: "", visible: 1
                    ).insert(db)
                }
            }
            controller = FetchedResultsController<Item>(
                fetchRequest: TableFetchRequest(
                    table: "item", sortDescriptors: ItemWorkload.standings, fetchBatchSize: batchSize),
                database: pool, sectionNameKeyPath: "grp")
            controller.delegate = recorder
            try controller.performFetch()
        }

        func fresh(table: String = "item") throws -> ItemState {
            try pool.read { db in
                try ItemState.query(
                    db, sql: "SELECT * FROM \(table) ORDER BY grp COLLATE NOCASE, score DESC, name COLLATE NOCASE, id",
                    sectioned: true)
            }
        }

        func held() throws -> ItemState {
            ItemState(
                sections: try controller.sections!.map { ($0.name, $0.objects.map { $0.id! }) },
                content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { ($0.id!, $0) }))
        }
    }

    @Test func aTableRenamedInTheCommittingTransactionIsReportedAndRecovered() throws {
        let fixture = try Fixture()
        let before = try fixture.held()
        // The rows change and the table disappears in one transaction: the controller cannot read
        // them back.
        try fixture.controller.write { db in
            try db.execute(sql: "UPDATE item SET score = 9 WHERE name = 'eel'; ALTER TABLE item RENAME TO item_away")
        }
        #expect(fixture.recorder.errors.count == 1)
        #expect("\(fixture.recorder.errors.first!)".contains("no such table"))
        #expect(fixture.recorder.batches.isEmpty, "no change set for what could not be read")
        #expect(try fixture.held() == before, "the last good results stay")

        // The table comes back: the next commit refetches, and one change set replays.
        fixture.recorder.reset()
        try fixture.controller.write { db in try db.execute(sql: "ALTER TABLE item_away RENAME TO item") }
        let after = try fixture.fresh()
        #expect(after != before)
        _ = try checkStep(
            fixture.recorder, old: before, new: after, controllerState: fixture.held(),
            rolledBack: false, batched: false, context: "recovery after the rename")
        #expect(fixture.recorder.errors.isEmpty)
    }

    @Test func aTableDroppedByAnotherConnectionIsReportedByProcessExternalChanges() throws {
        let fixture = try Fixture()
        let before = try fixture.held()
        let other = try DatabaseQueue(path: fixture.path)
        try other.write { db in
            try db.execute(sql: "CREATE TABLE item_copy AS SELECT * FROM item; DROP TABLE item")
        }
        #expect(throws: DatabaseError.self) { try fixture.controller.processPendingChanges() }
        #expect(fixture.recorder.errors.count == 1)
        #expect(try fixture.held() == before)

        // Made again with one more row: one look brings the controller level.
        try other.write { db in
            try db.execute(sql: itemTableSQL)
            try db.execute(
                sql: "INSERT INTO item SELECT * FROM item_copy; "
                    + "INSERT INTO item (grp, score, name) VALUES ('Asia', 1, 'fox')")
        }
        fixture.recorder.reset()
        #expect(try fixture.controller.processPendingChanges())
        _ = try checkStep(
            fixture.recorder, old: before, new: try fixture.fresh(), controllerState: fixture.held(),
            rolledBack: false, batched: false, context: "recovery after the drop")
    }

    @Test func aBatchThatCannotBeReadThrowsFromObjectIfPresent() throws {
        let fixture = try Fixture(batchSize: 2)
        let other = try DatabaseQueue(path: fixture.path)
        try other.write { db in try db.execute(sql: "ALTER TABLE item RENAME TO item_away") }
        // Europe's rows are eel, dog, cat: the batch holding cat is not loaded yet.
        #expect(throws: DatabaseError.self) {
            _ = try fixture.controller.objectIfPresent(at: IndexPath(row: 2, section: 1))
        }
        try other.write { db in try db.execute(sql: "ALTER TABLE item_away RENAME TO item") }
        #expect(try fixture.controller.objectIfPresent(at: IndexPath(row: 2, section: 1))?.name == "cat")
    }

    @Test func snapshotsArriveAsAnAsyncSequenceUntilCancelled() async throws {
        let (pool, _) = try makeItemDatabase()
        try await pool.write { db in
            try Item(id: nil, grp: "Asia", score: 0, name: "one", note: "", visible: 1).insert(db)
        }
        let controller = FetchedResultsController<Item>(
            fetchRequest: TableFetchRequest(table: "item", sortDescriptors: [.ascending(Column("name"))]),
            database: pool)
        try controller.performFetch()
        var iterator = controller.snapshots().makeAsyncIterator()
        #expect(try await iterator.next()?.rowIDs == [1], "the current results first")
        try synchronousWrite(pool, "INSERT INTO item (grp, score, name) VALUES ('Asia', 0, 'a two')")
        #expect(try await iterator.next()?.rowIDs == [2, 1])
        try synchronousWrite(pool, "UPDATE item SET name = 'z one' WHERE id = 1")
        let third = try await iterator.next()
        #expect(third?.rowIDs == [2, 1] && third?.reloadedRowIDs == [1])
    }

    @Test func aCancelledSequenceEndsAndAnErrorEndsItByThrowing() async throws {
        let (pool, _) = try makeItemDatabase()
        // The controller lives in the task that iterates it: the compiler refuses to send it
        // (or its sequence) to another.
        let task = Task {
            let controller = FetchedResultsController<Item>(
                fetchRequest: TableFetchRequest(table: "item", sortDescriptors: [.ascending(Column("name"))]),
                database: pool)
            try controller.performFetch()
            var count = 0
            for try await _ in controller.snapshots() { count += 1 }
            return (count, controller.isTracking)
        }
        task.cancel()
        let (count, tracking) = try await task.value
        #expect(count <= 1, "cancellation ends the sequence")
        #expect(!tracking, "and stops tracking, as nobody else listens")

        let controller = FetchedResultsController<Item>(
            fetchRequest: TableFetchRequest(table: "item", sortDescriptors: [.ascending(Column("name"))]),
            database: pool)
        try controller.performFetch()

        var failing = controller.snapshots().makeAsyncIterator()
        _ = try await failing.next()
        try synchronousWrite(pool, "INSERT INTO item (name) VALUES ('x'); ALTER TABLE item RENAME TO gone")
        await #expect(throws: DatabaseError.self) { _ = try await failing.next() }
    }

    /// GRDB's synchronous write, from another connection than the controller's: the sequence
    /// sees it when the store wakes it.
    func synchronousWrite(_ pool: DatabasePool, _ sql: String) throws {
        try pool.write { db in try db.execute(sql: sql) }
    }
}
