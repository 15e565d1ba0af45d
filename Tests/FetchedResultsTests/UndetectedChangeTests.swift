import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// The changes SQLite's update hook does not report (GRDB's "Dealing with Undetected Changes"):
/// after each, the controller must equal a fresh fetch and its callbacks must replay.
@Suite struct UndetectedChangeTests {
    /// A tracking controller over a fresh table made by `schema` and filled by `rows`, sorted by
    /// `sortKey`, with a recording delegate.
    struct Fixture {
        let pool: DatabasePool
        let path: String
        let controller: FetchedResultsController<AnyRow>
        let recorder = CallbackLog<AnyRow>()
        let table: String
        let sortKey: String

        init(
            schema: String, table: String, rows: [String], sortKey: String, sectioned: Bool = false,
            collation: ColumnSortDescriptor.Collation = .binary, batchSize: Int = 0, history: Bool = false
        ) throws {
            path = temporaryPath("fetched-results-undetected-", suffix: ".sqlite")
            pool = try DatabasePool(path: path)
            try pool.write { db in
                try db.execute(sql: schema)
                if history { try ChangeHistory.install(on: table, in: db) }
                for row in rows { try db.execute(sql: row) }
            }
            self.table = table
            self.sortKey = sortKey
            controller = FetchedResultsController<AnyRow>(
                fetchRequest: TableFetchRequest(
                    table: table, sortDescriptors: [ColumnSortDescriptor(key: sortKey, collation: collation)],
                    fetchBatchSize: batchSize),
                database: pool, sectionNameKeyPath: sectioned ? sortKey : nil,
                changeSource: history ? .everyConnection : .thisWriterOnly)
            controller.delegate = recorder
            try controller.performFetch()
        }

        /// SQLite's own order and sections (named after each section's first row).
        func fresh() throws -> SectionedState<String> {
            try pool.read { db in
                let rows = try GRDB.Row.fetchAll(
                    db,
                    sql: "SELECT id, \(sortKey.quotedDatabaseIdentifier), * FROM \(table) "
                        + "ORDER BY \(sortKey.quotedDatabaseIdentifier) "
                        + "COLLATE \(controller.fetchRequest.sortDescriptors[0].collation.sqlite), id")
                return SectionedState(
                    ordered: rows.map { row in
                        let value: DatabaseValue = row[1]
                        return (
                            row[0], value.isNull ? nil : String.fromDatabaseValue(value) ?? value.description,
                            AnyRow(row: row, droppingFirst: 2).content
                        )
                    },
                    sectioned: controller.sectionNameKeyPath != nil)
            }
        }

        /// What the controller holds now.
        func held() throws -> SectionedState<String> {
            let sections = try controller.sections!.map { section in
                (section.name, section.objects.map { $0.id })
            }
            var content: [Int64: String] = [:]
            for object in try controller.fetchedObjects! { content[object.id] = object.content }
            return SectionedState(sections: sections, content: content)
        }

        /// Runs `write`, then checks the controller against a fresh fetch and replays its
        /// callbacks onto the state before.
        func check(_ context: String, write: () throws -> Void) throws {
            let before = try fresh()
            recorder.reset()
            try write()
            _ = try? controller.processPendingChanges()
            let after = try fresh()
            _ = try checkStep(
                recorder, old: before, new: after, controllerState: try held(), rolledBack: false,
                batched: controller.fetchRequest.fetchBatchSize > 0, context: context)
        }
    }

    static let itemSchema = "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)"
    static let itemRows = [
        "INSERT INTO item VALUES (1, 'a')", "INSERT INTO item VALUES (2, 'b')", "INSERT INTO item VALUES (3, 'c')",
    ]

    @Test(arguments: [0, 2])
    func aRowWhoseIDChangesIsMovedNotDuplicated(batchSize: Int) throws {
        let fixture = try Fixture(
            schema: Self.itemSchema, table: "item", rows: Self.itemRows, sortKey: "name", batchSize: batchSize)
        try fixture.check("rowid 1 → 10") {
            try fixture.pool.write { db in try db.execute(sql: "UPDATE item SET id = 10 WHERE id = 1") }
        }
        #expect(fixture.controller.indexPath(forRowID: 1) == nil)
        #expect(fixture.controller.indexPath(forRowID: 10) == IndexPath(row: 0, section: 0))
        #expect(try fixture.controller.fetchedObjects!.map { $0.id } == [10, 2, 3])
    }

    /// The trigger that reports a changed row id lists the names an `UPDATE` can set it
    /// through (SQLite fires an `UPDATE OF` trigger by the names in the SET clause): each one,
    /// in any case, and the row-value form, must be seen.
    @Test(arguments: ["id = 10", "rowid = 10", "OID = 10", "\"_RowID_\" = 10", "(name, id) = ('z', 10)"])
    func aRowIDChangedThroughAnyOfItsNamesIsSeen(assignment: String) throws {
        let fixture = try Fixture(schema: Self.itemSchema, table: "item", rows: Self.itemRows, sortKey: "name")
        try fixture.check("SET \(assignment)") {
            try fixture.pool.write { db in try db.execute(sql: "UPDATE item SET \(assignment) WHERE id = 1") }
        }
        #expect(fixture.controller.indexPath(forRowID: 1) == nil, "the old row id is gone")
        #expect(fixture.controller.indexPath(forRowID: 10) != nil)
    }

    @Test func aRowWhoseIDChangesOntoAnotherRowReplacesIt() throws {
        let fixture = try Fixture(schema: Self.itemSchema, table: "item", rows: Self.itemRows, sortKey: "name")
        try fixture.check("rowid 1 → 3, replacing 3") {
            try fixture.pool.write { db in try db.execute(sql: "UPDATE OR REPLACE item SET id = 3 WHERE id = 1") }
        }
        #expect(try fixture.controller.fetchedObjects!.map { $0.id } == [3, 2])
    }

    static let tagSchema = "CREATE TABLE tag (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE)"
    static let tagRows = [
        "INSERT INTO tag VALUES (1, 'a')", "INSERT INTO tag VALUES (2, 'b')", "INSERT INTO tag VALUES (3, 'c')",
    ]

    @Test(arguments: [0, 2])
    func insertOrReplaceThroughAUniqueColumnDeletesTheOtherRow(batchSize: Int) throws {
        let fixture = try Fixture(
            schema: Self.tagSchema, table: "tag", rows: Self.tagRows, sortKey: "id", batchSize: batchSize)
        try fixture.check("insert or replace (7, b)") {
            try fixture.pool.write { db in try db.execute(sql: "INSERT OR REPLACE INTO tag(id, label) VALUES (7, 'b')")
            }
        }
        #expect(try fixture.controller.fetchedObjects!.map { $0.id } == [1, 3, 7])
    }

    @Test func updateOrReplaceThroughAUniqueColumnDeletesTheOtherRow() throws {
        let fixture = try Fixture(schema: Self.tagSchema, table: "tag", rows: Self.tagRows, sortKey: "label")
        try fixture.check("update or replace label of 3 to a") {
            try fixture.pool.write { db in try db.execute(sql: "UPDATE OR REPLACE tag SET label = 'a' WHERE id = 3") }
        }
        #expect(try fixture.controller.fetchedObjects!.map { $0.id } == [3, 2])
    }

    @Test func replaceByAnotherProcessIsSeenThroughTheHistory() throws {
        let fixture = try Fixture(
            schema: Self.tagSchema, table: "tag", rows: Self.tagRows, sortKey: "id", history: true)
        let shell = try SQLiteShell(path: fixture.path)
        try fixture.check("another process: insert or replace (7, b), then rowid 1 → 10") {
            try shell.execute(
                "INSERT OR REPLACE INTO tag(id, label) VALUES (7, 'b'); UPDATE tag SET id = 10 WHERE id = 1;")
            try fixture.controller.processPendingChanges()
        }
        #expect(try fixture.controller.fetchedObjects!.map { $0.id } == [3, 7, 10])
    }

    @Test func notifyChangesRefetchesWhatAnotherConnectionWrote() throws {
        let fixture = try Fixture(
            schema: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)",
            table: "note", rows: ["INSERT INTO note VALUES (1, 'one')"], sortKey: "text")
        let other = try DatabaseQueue(path: fixture.path)
        try fixture.check("insert by another connection, then notifyChanges(in:)") {
            try other.write { db in
                try db.execute(sql: "INSERT INTO note VALUES (2, 'two'); UPDATE note SET text = 'uno' WHERE id = 1")
            }
            try fixture.pool.write { db in try db.notifyChanges(in: Table("note")) }
        }
        #expect(try fixture.controller.fetchedObjects!.map { $0["text"].description } == ["\"two\"", "\"uno\""])
        #expect(fixture.recorder.batches.count == 1)
    }

    @Test func sectionNamesFollowTheFirstRowNotHistory() throws {
        let fixture = try Fixture(
            schema: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)", table: "item",
            rows: [
                "INSERT INTO item VALUES (1, 'kappa')", "INSERT INTO item VALUES (2, 'Kappa')",
                "INSERT INTO item VALUES (3, 'zeta')",
            ],
            sortKey: "name", sectioned: true, collation: .caseInsensitive)
        #expect(try fixture.controller.sections!.map { $0.name } == ["kappa", "zeta"])
        try fixture.check("delete the last 'kappa'") {
            try fixture.pool.write { db in try db.execute(sql: "DELETE FROM item WHERE id = 1") }
        }
        #expect(try fixture.controller.sections!.map { $0.name } == ["Kappa", "zeta"])
        try fixture.check("rename the first row's case") {
            try fixture.pool.write { db in try db.execute(sql: "UPDATE item SET name = 'KAPPA' WHERE id = 2") }
        }
        #expect(try fixture.controller.sections!.map { $0.name } == ["KAPPA", "zeta"])
        try fixture.check("a new first row") {
            try fixture.pool.write { db in try db.execute(sql: "INSERT INTO item VALUES (0, 'kaPPa')") }
        }
        #expect(try fixture.controller.sections!.map { $0.name } == ["kaPPa", "zeta"])
        #expect(fixture.recorder.batches.last!.sections == [SectionChange(type: .update, index: 0, name: "kaPPa")])
    }

    @Test func aRolledBackSavepointLeavesNoTrace() throws {
        let fixture = try Fixture(schema: Self.itemSchema, table: "item", rows: Self.itemRows, sortKey: "name")
        try fixture.check("savepoint rolled back inside a committed transaction") {
            try fixture.pool.write { db in
                try db.execute(sql: "UPDATE item SET name = 'z' WHERE id = 2")
                try db.inSavepoint {
                    try db.execute(sql: "DELETE FROM item WHERE id = 1; UPDATE item SET id = 20 WHERE id = 3")
                    return .rollback
                }
            }
        }
        #expect(try fixture.controller.fetchedObjects!.map { $0.id } == [1, 3, 2])
        #expect(fixture.recorder.batches.count == 1 && fixture.recorder.batches[0].objects.count == 1)
    }

    @Test func deleteWithoutWhereIsSeen() throws {
        let fixture = try Fixture(schema: Self.itemSchema, table: "item", rows: Self.itemRows, sortKey: "name")
        try fixture.check("DELETE FROM item (the truncate optimisation)") {
            try fixture.pool.write { db in try db.execute(sql: "DELETE FROM item") }
        }
        #expect(try fixture.controller.fetchedObjects!.isEmpty)
    }

    @Test func withoutRowIDTablesAreRefusedAtPerformFetch() throws {
        let (pool, _) = try makeItemDatabase()
        try pool.write { db in try db.execute(sql: "CREATE TABLE pair (a TEXT PRIMARY KEY, b TEXT) WITHOUT ROWID") }
        let controller = FetchedResultsController<AnyRow>(
            fetchRequest: TableFetchRequest(table: "pair", sortDescriptors: [ColumnSortDescriptor(key: "a")]),
            database: pool)
        #expect(throws: FetchedResultsError.tableWithoutRowID(table: "pair")) { try controller.performFetch() }
        #expect("\(FetchedResultsError.tableWithoutRowID(table: "pair"))".contains("WITHOUT ROWID"))
    }

    @Test func aColumnAddedByAnotherConnectionIsPickedUp() throws {
        let fixture = try Fixture(schema: Self.itemSchema, table: "item", rows: Self.itemRows, sortKey: "name")
        let other = try DatabaseQueue(path: fixture.path)
        try fixture.check("a column added by another connection, then a local write") {
            try other.write { db in try db.execute(sql: "ALTER TABLE item ADD COLUMN extra TEXT DEFAULT 'x'") }
            try fixture.pool.write { db in try db.execute(sql: "UPDATE item SET name = 'd' WHERE id = 1") }
        }
        #expect(
            try fixture.controller.fetchedObjects!.map { $0["extra"] } == Array(repeating: "x".databaseValue, count: 3))
    }

    /// A look after a one-row write skips the schema check while its read's statement was not
    /// prepared again: a column added in between, on any connection, must still be picked up.
    @Test(arguments: ["another connection", "the controller's writer"])
    func aColumnAddedBetweenOneRowLooksIsPickedUp(by alterer: String) throws {
        let fixture = try Fixture(schema: Self.itemSchema, table: "item", rows: Self.itemRows, sortKey: "name")
        let other = try DatabaseQueue(path: fixture.path)
        try fixture.check("a one-row write, which leaves its read's statement seen") {
            try fixture.controller.write { db in try db.execute(sql: "UPDATE item SET name = 'd' WHERE id = 1") }
        }
        try fixture.check("a column added by \(alterer), then another one-row write") {
            let alter = "ALTER TABLE item ADD COLUMN extra TEXT DEFAULT 'x'"
            if alterer == "another connection" {
                try other.write { db in try db.execute(sql: alter) }
            } else {
                try fixture.pool.write { db in try db.execute(sql: alter) }
            }
            try fixture.controller.write { db in try db.execute(sql: "UPDATE item SET name = 'e' WHERE id = 2") }
        }
        #expect(
            try fixture.controller.fetchedObjects!.map { $0["extra"] } == Array(repeating: "x".databaseValue, count: 3))
    }

    /// The one-row read vouches for the schema from one look to the next: consecutive one-row
    /// writes through the controller ask for the schema version no more.
    @Test func consecutiveOneRowLooksSkipTheSchemaQuery() throws {
        let fixture = try Fixture(schema: Self.itemSchema, table: "item", rows: Self.itemRows, sortKey: "name")
        let schemaQueries = Shared(0)
        try fixture.pool.writeWithoutTransaction { db in
            db.trace { event in
                if event.description.contains("schema_version") { schemaQueries.withLock { $0 += 1 } }
            }
        }
        try fixture.check("a first one-row write: its look checks the schema once") {
            try fixture.controller.write { db in try db.execute(sql: "UPDATE item SET name = 'd' WHERE id = 1") }
        }
        let afterFirst = schemaQueries.withLock { $0 }
        for name in ["e", "f", "g", "h"] {
            try fixture.check("one more one-row write") {
                try fixture.controller.write { db in
                    try db.execute(sql: "UPDATE item SET name = ? WHERE id = 1", arguments: [name])
                }
            }
        }
        #expect(afterFirst <= 1)
        #expect(schemaQueries.withLock { $0 } == afterFirst, "no schema query after the first look")
    }

    /// GRDB keeps a cached statement's column names from its first step and forgets a pool
    /// writer's statements only for the writer's own schema changes: after another connection
    /// added or dropped a column (seen by a look on a reader), a one-row write through the
    /// controller was read with the old names (a row without the new column, or a trap on the
    /// dropped one), with or without a further schema change in between.
    @Test(arguments: [false, true], [false, true])
    func aWriteAfterAColumnChangeSeenOnAReaderIsShownWhole(dropping: Bool, thenAnIndex: Bool) throws {
        let schema = dropping ? "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, extra TEXT)" : Self.itemSchema
        let rows = dropping ? Self.itemRows.map { $0.replacingOccurrences(of: "')", with: "', 'x')") } : Self.itemRows
        let fixture = try Fixture(schema: schema, table: "item", rows: rows, sortKey: "name")
        let other = try DatabaseQueue(path: fixture.path)
        try fixture.check("a one-row write through the controller: its writer caches the one-row read") {
            try fixture.controller.write { db in try db.execute(sql: "UPDATE item SET name = 'd' WHERE id = 1") }
        }
        try fixture.check("a column \(dropping ? "dropped" : "added") by another connection, then a look") {
            let alter =
                dropping ? "ALTER TABLE item DROP COLUMN extra" : "ALTER TABLE item ADD COLUMN extra TEXT DEFAULT 'x'"
            try other.write { db in try db.execute(sql: alter) }
            try fixture.controller.processPendingChanges()
        }
        try fixture.check("\(thenAnIndex ? "an index added, then " : "")a one-row write through the controller") {
            if thenAnIndex { try other.write { db in try db.execute(sql: "CREATE INDEX item_name ON item(name)") } }
            try fixture.controller.write { db in try db.execute(sql: "UPDATE item SET name = 'e' WHERE id = 1") }
        }
        let extra: DatabaseValue = dropping ? .null : "x".databaseValue
        #expect(try fixture.controller.fetchedObjects!.map { $0["extra"] } == Array(repeating: extra, count: 3))
    }
}

/// Any table's row as a record: its values by lowercased column name.
struct AnyRow: FetchableRecord, Sendable {
    let values: [String: DatabaseValue]

    init(row: GRDB.Row) {
        self.init(row: row, droppingFirst: 0)
    }

    init(row: GRDB.Row, droppingFirst count: Int) {
        values = Dictionary(
            zip(row.columnNames.dropFirst(count).map { $0.lowercased() }, row.databaseValues.dropFirst(count))
        ) { first, _ in first }
    }

    subscript(_ column: String) -> DatabaseValue { values[column.lowercased()] ?? .null }

    var id: Int64 { Int64.fromDatabaseValue(self["id"])! }

    /// Every column and value, in column name order: what a view of the row shows.
    var content: String { values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}
