import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// Seed 001's relationship-aware refresh: a change to a related row's column that a key path
/// names is an `update` of exactly the fetched rows that refer to it, from any writer.
@Suite struct RelationshipTests {
    /// A few buckets and items, a controller, and a writer that commits SQL and, when the
    /// controller cannot see it commit, polls like an idle app.
    final class Fixture {
        let pool: DatabasePool
        let controller: FetchedResultsController<Content>
        let recorder = CallbackLog<Content>()
        private let writer: TransactionWriter

        init(
            writer: TransactionWriter.Kind, request: TableFetchRequest, sectionNameKeyPath: String? = nil,
            foreignKey: Bool = false
        ) throws {
            let (pool, path) = try makeBucketDatabase(foreignKey: foreignKey)
            self.pool = pool
            self.writer = try TransactionWriter(writer, pool: pool, path: path)
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO bucket (id, name, color) VALUES
                            (1, 'Inbox', 'red'), (2, 'Work', 'blue'), (3, 'Trips', 'green');
                        INSERT INTO content (id, title, created, bucketId) VALUES
                            (1, 'a', 1, 1), (2, 'b', 2, 2), (3, 'c', 3, 1),
                            (4, 'd', 4, 3), (5, 'e', 5, 2), (6, 'f', 6, NULL);
                        """)
            }
            let controller = FetchedResultsController<Content>(
                fetchRequest: request, database: pool, sectionNameKeyPath: sectionNameKeyPath)
            self.controller = controller
            self.writer.controllerWrite = { body in try controller.write(body) }
            controller.delegate = recorder
            try controller.performFetch()
        }

        /// Commits `sql` as one transaction and returns the callbacks it caused.
        func commit(_ sql: String) throws -> [Recorder.Batch] {
            recorder.reset()
            try writer.run(RandomTransaction(statements: [sql], rollback: false))
            if writer.needsPolling { try controller.processPendingChanges() }
            return recorder.batches
        }
    }

    static let byCreation = TableFetchRequest(
        table: "content", sortDescriptors: [ColumnSortDescriptor(key: "created")],
        relationships: [ToOneRelationship("bucket", foreignKey: "bucketId", destinationTable: "bucket")],
        relationshipKeyPathsForRefreshing: ["bucket.name"])

    /// The updates of a batch as (row id, changed columns).
    func updates(_ batches: [Recorder.Batch]) -> [Int64: Set<String>] {
        Dictionary(
            uniqueKeysWithValues: batches.flatMap(\.objects).filter { $0.type == .update }.map {
                ($0.rowID, $0.changedColumns)
            })
    }

    @Test(arguments: TransactionWriter.Kind.allCases)
    func relatedChangesUpdateExactlyTheRowsThatReferToThem(writer: TransactionWriter.Kind) throws {
        let fixture = try Fixture(writer: writer, request: Self.byCreation)
        let controller = fixture.controller
        #expect(try controller.fetchedObjects!.map(\.bucketName) == ["Inbox", "Work", "Inbox", "Trips", "Work", nil])

        // Renaming a bucket updates its two items, in place, and says which column changed.
        var batches = try fixture.commit("UPDATE bucket SET name = 'Home' WHERE id = 1")
        #expect(batches.count == 1 && batches[0].sections.isEmpty)
        #expect(batches.flatMap(\.objects).allSatisfy { $0.type == .update })
        #expect(updates(batches) == [1: ["bucket.name"], 3: ["bucket.name"]])
        #expect(
            batches.flatMap(\.objects).map(\.indexPath) == [
                IndexPath(row: 0, section: 0), IndexPath(row: 2, section: 0),
            ])
        #expect(try controller.fetchedObjects!.map(\.bucketName) == ["Home", "Work", "Home", "Trips", "Work", nil])

        // Columns no key path names, and writes that change nothing: no callback at all.
        #expect(try fixture.commit("UPDATE bucket SET color = 'black' WHERE id = 2").isEmpty)
        #expect(try fixture.commit("UPDATE bucket SET note = 'x'").isEmpty)
        #expect(try fixture.commit("UPDATE bucket SET name = name").isEmpty)
        #expect(try fixture.commit("INSERT INTO bucket (id, name) VALUES (7, 'Nobody refers to me')").isEmpty)

        // Deleting a related row updates the rows that referred to it; inserting one that rows
        // already refer to updates them too.
        batches = try fixture.commit("DELETE FROM bucket WHERE id = 2")
        #expect(updates(batches) == [2: ["bucket.name"], 5: ["bucket.name"]])
        #expect(try controller.fetchedObjects!.map(\.bucketName) == ["Home", nil, "Home", "Trips", nil, nil])
        batches = try fixture.commit("INSERT INTO bucket (id, name) VALUES (2, 'Work again')")
        #expect(updates(batches) == [2: ["bucket.name"], 5: ["bucket.name"]])

        // Moving an item to another bucket changes its own column and the related value.
        batches = try fixture.commit("UPDATE content SET bucketId = 3 WHERE id = 6")
        #expect(updates(batches) == [6: ["bucketId", "bucket.name"]])
        #expect(try controller.fetchedObjects!.last?.bucketName == "Trips")

        // A rolled-back rename: nothing.
        fixture.recorder.reset()
        try RandomTransaction(statements: ["UPDATE bucket SET name = 'Gone' WHERE id = 3"], rollback: true).run(
            on: fixture.pool)
        try controller.processPendingChanges()
        #expect(fixture.recorder.batches.isEmpty)
    }

    @Test func sectionsAcrossARelationshipFollowRenamesAndForeignKeysAreFound() throws {
        // No declared relationship: `bucket` is found from the foreign key on bucketId.
        let request = TableFetchRequest(
            table: "content",
            sortDescriptors: [
                ColumnSortDescriptor(key: "bucket.name", collation: .caseInsensitive),
                ColumnSortDescriptor(key: "created"),
            ])
        let fixture = try Fixture(
            writer: .controllersPool, request: request, sectionNameKeyPath: "bucket.name", foreignKey: true)
        let controller = fixture.controller
        func sections() throws -> [String] {
            try controller.sections!.map { "\($0.name): \($0.objects.map(\.title).joined())" }
        }
        #expect(try sections() == [": f", "Inbox: ac", "Trips: d", "Work: be"])

        // Renaming "Work" to "Archive" moves its section ahead of "Inbox".
        let batches = try fixture.commit("UPDATE bucket SET name = 'Archive' WHERE id = 2")
        #expect(try sections() == [": f", "Archive: be", "Inbox: ac", "Trips: d"])
        #expect(batches.count == 1 && batches[0].closed)
        #expect(batches[0].sections.map(\.type) == [.delete, .insert])

        // Deleting a bucket (the foreign key sets its items' bucketId to NULL) merges them into
        // the unnamed section.
        _ = try fixture.commit("DELETE FROM bucket WHERE id = 1")
        #expect(try sections() == [": acf", "Archive: be", "Trips: d"])
    }

    @Test func keyPathsThatCrossNoKnownRelationshipThrowDescriptiveErrors() throws {
        let (pool, _) = try makeBucketDatabase(foreignKey: true)
        func fetch(_ keyPath: String) throws {
            let request = TableFetchRequest(
                table: "content", sortDescriptors: [ColumnSortDescriptor(key: "created")],
                relationshipKeyPathsForRefreshing: [keyPath])
            try FetchedResultsController<Content>(fetchRequest: request, database: pool).performFetch()
        }
        #expect(throws: FetchedResultsError.unknownRelationship(keyPath: "owner.name", table: "content")) {
            try fetch("owner.name")
        }
        #expect(throws: FetchedResultsError.unknownRelatedColumn(keyPath: "bucket.title", table: "bucket")) {
            try fetch("bucket.title")
        }
        #expect(throws: FetchedResultsError.unsupportedKeyPath(keyPath: "bucket.owner.name")) {
            try fetch("bucket.owner.name")
        }
        #expect(
            "\(FetchedResultsError.unknownRelationship(keyPath: "owner.name", table: "content"))".contains(
                "ToOneRelationship(\"owner\""))
        try fetch("bucket.color")
    }
}
