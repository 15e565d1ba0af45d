import FetchedResultsSQLite
import Foundation
import GRDB
import GRDBSQLite
import SQLiteFixtures
import Testing

@testable import FetchedResultsSQLite

/// What a look reads from the change history after its position: the row ids of the tables it
/// follows, and whether history it has not read yet was pruned, against what was written.
@Suite struct ChangeHistoryTests {
    /// A store with the history on `item` and on `other`.
    static func store() throws -> DatabasePool {
        let (pool, _) = try makeItemDatabase(history: true)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE other (id INTEGER PRIMARY KEY, label TEXT)")
            try ChangeHistory.install(on: "other", in: db)
        }
        return pool
    }

    static func changes(
        after sequence: Int64, _ pool: DatabasePool
    ) throws -> (
        rowIDs: [String: Set<Int64>], pruned: Bool
    ) {
        try pool.read { db in
            try ChangeHistory.changes(
                to: ["item"], after: sequence, latest: ChangeHistory.latestSequence(db), db)
        }
    }

    @Test func rowsAfterThePositionOfTheFollowedTablesOnly() throws {
        let pool = try Self.store()
        try pool.write { db in try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a'), (2, 'b')") }
        let position = try pool.read(ChangeHistory.latestSequence)
        try pool.write { db in
            try db.execute(sql: "UPDATE item SET id = 7 WHERE id = 1")
            try db.execute(sql: "INSERT INTO other (id, label) VALUES (5, 'x')")
            try db.execute(sql: "DELETE FROM item WHERE id = 2")
        }
        let read = try Self.changes(after: position, pool)
        #expect(!read.pruned)
        #expect(read.rowIDs == ["item": [1, 7, 2]])
        #expect(try Self.changes(after: pool.read(ChangeHistory.latestSequence), pool).rowIDs.isEmpty)
    }

    @Test func historyPrunedPastThePositionIsNoticed() throws {
        let pool = try Self.store()
        try pool.write { db in try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a')") }
        let position = try pool.read(ChangeHistory.latestSequence)
        try pool.write { db in
            try db.execute(sql: "UPDATE item SET name = 'b' WHERE id = 1")
            try db.execute(sql: "UPDATE item SET name = 'c' WHERE id = 1")
            try ChangeHistory.prune(keeping: 1, in: db)
        }
        #expect(try Self.changes(after: position, pool).pruned)
        // The newest row kept follows a later position directly.
        let latest = try pool.read(ChangeHistory.latestSequence)
        #expect(try Self.changes(after: latest - 1, pool) == (["item": [1]], false))
        // Everything pruned: nothing to read, yet numbers were given out.
        try pool.write { db in try ChangeHistory.prune(keeping: 0, in: db) }
        #expect(try Self.changes(after: latest - 1, pool).pruned)
    }

    @Test func aWriteWithoutRecordingMarksTheHistoryPruned() throws {
        let pool = try Self.store()
        try pool.write { db in try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a')") }
        let before = try pool.read(ChangeHistory.latestSequence)
        try pool.write { db in
            try ChangeHistory.withoutRecording(on: "item", in: db) {
                try db.execute(sql: "INSERT INTO item (id, name) VALUES (2, 'b'), (3, 'c')")
            }
        }
        let after = try pool.read(ChangeHistory.latestSequence)
        #expect(try Self.changes(after: before, pool).pruned)
        #expect(try Self.changes(after: after, pool) == ([:], false))
        try pool.write { db in try db.execute(sql: "UPDATE item SET name = 'd' WHERE id = 3") }
        // Recording again: a position from before the bulk write still sees the gap.
        #expect(try Self.changes(after: before, pool).pruned)
        #expect(try Self.changes(after: after, pool) == (["item": [3]], false))
    }

    /// A statement stopped by a `FAIL` conflict keeps the rows it wrote and their history, but
    /// SQLite leaves `sqlite_sequence` behind them: pruning everything then must not let the
    /// same numbers be given out again, which would hide those rows from a position before them.
    @Test func historyAfterAFailedStatementIsNotNumberedAgain() throws {
        let pool = try Self.store()
        try pool.write { db in
            try db.execute(sql: "INSERT INTO item (id, name, code) VALUES (1, 'a', 'x')")
        }
        let position = try pool.read(ChangeHistory.latestSequence)
        try pool.write { db in
            // Rows 2 and 3 stay: FAIL undoes nothing done before the conflicting row.
            #expect(throws: DatabaseError.self) {
                try db.execute(
                    sql: "INSERT OR FAIL INTO item (id, name, code) VALUES (2, 'b', 'y'), (3, 'c', 'z'), (4, 'd', 'x')")
            }
        }
        #expect(try pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id") } == [1, 2, 3])
        let afterFail = try pool.read(ChangeHistory.latestSequence)
        let recorded = try pool.read { db in try Int64.fetchOne(db, sql: "SELECT max(seq) FROM fetchedresults_history")
        }
        #expect(afterFail > position && afterFail == recorded)
        try pool.write { db in try ChangeHistory.prune(keeping: 0, in: db) }
        try pool.write { db in try db.execute(sql: "INSERT INTO item (id, name) VALUES (5, 'e')") }
        #expect(try Self.changes(after: position, pool).pruned)
        #expect(try Self.changes(after: afterFail, pool) == (["item": [5]], false))
    }

    @Test func aFailedStepThrowsSQLitesErrorAndRunsAgain() throws {
        let pool = try Self.store()
        try pool.read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT CASE WHEN ? THEN abs(-9223372036854775807 - 1) ELSE 7 END")
            let error = #expect(throws: DatabaseError.self) {
                try statement.stepFirstInt64(bind: { sqlite3_bind_int64($0, 1, 1) })
            }
            #expect(error?.message == "integer overflow")
            // Reset after the failure: the same statement runs again on the same connection.
            #expect(try statement.stepFirstInt64(bind: { sqlite3_bind_int64($0, 1, 0) }) == 7)
        }
    }
}
