import Foundation
import GRDB
import GRDBSQLite

/// A table of committed row changes, written by triggers in the same transaction as each
/// change (the idea of Core Data's persistent history tracking).
///
/// Every connection and every process that writes a tracked table leaves one history row per
/// changed row, so a controller can learn what *another* process changed by reading the
/// history after the last sequence number it saw, and re-read only those rows. Install it from
/// your own migrations; prune it from time to time.
public enum ChangeHistory {
    static let tableName = "fetchedresults_history"
    static let identityTableName = "fetchedresults_store"

    /// Creates the history table (once) and the triggers that record changes to `table`:
    /// inserted, updated and deleted rows, the old and new ids of a row whose id changes, and
    /// the rows that `REPLACE` conflict resolution deletes through the table's unique indexes
    /// (which SQLite's own hooks do not report). Install it after creating the table's unique
    /// indexes; installing again adds what is missing and leaves the rest.
    public static func install(on table: String, in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(tableName) (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    tableName TEXT NOT NULL,
                    changedRowID INTEGER NOT NULL)
                """)
        // A random identity, so that a cache file made for another store is never trusted.
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(identityTableName) (identity TEXT NOT NULL);
                INSERT INTO \(identityTableName) SELECT lower(hex(randomblob(16)))
                    WHERE NOT EXISTS (SELECT 1 FROM \(identityTableName));
                """)
        let quoted = table.quotedDatabaseIdentifier
        let name = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        for (event, rows) in [("INSERT", ["NEW"]), ("UPDATE", ["OLD", "NEW"]), ("DELETE", ["OLD"])] {
            let inserts = rows.map {
                "INSERT INTO \(tableName) (tableName, changedRowID) VALUES (\(name), \($0).rowid);"
            }
            try db.execute(
                sql: """
                    CREATE TRIGGER IF NOT EXISTS \(triggerName(table, event.lowercased()).quotedDatabaseIdentifier)
                    AFTER \(event) ON \(quoted) BEGIN \(inserts.joined(separator: " ")) END
                    """)
        }
        let replaceTriggers = try UndetectedChanges.replaceTriggers(
            on: table, named: replaceTriggerPrefix(table), temporary: false,
            action: { whereSQL in
                "INSERT INTO \(tableName) (tableName, changedRowID) SELECT \(name), rowid FROM \(quoted)"
                    + " WHERE \(whereSQL)"
            },
            db)
        for trigger in replaceTriggers { try db.execute(sql: trigger) }
    }

    /// Runs a bulk write to `table` without recording each row: the triggers are dropped for
    /// its duration and put back, and the history is marked as pruned, so every controller
    /// refetches once instead of reading a history row per written row. Call it inside the
    /// bulk write's transaction, so that readers see the write and the mark together.
    public static func withoutRecording<T>(on table: String, in db: Database, _ body: () throws -> T) throws -> T {
        try stopRecording(on: table, in: db)
        let result = try body()
        try resumeRecording(on: table, in: db)
        return result
    }

    /// Stops recording `table`'s changes, for a bulk write that decides part way that it is
    /// one; ``resumeRecording(on:in:)`` must follow in the same transaction. Prefer
    /// ``withoutRecording(on:in:_:)`` when the write is known to be bulk from the start.
    public static func stopRecording(on table: String, in db: Database) throws {
        guard try db.tableExists(tableName) else { return }
        let replace = UndetectedChanges.replaceTriggerSuffixes
        for name in ["insert", "update", "delete"].map({ triggerName(table, $0) })
            + [replace.insert, replace.update].map({ replaceTriggerPrefix(table) + $0 })
        {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(name.quotedDatabaseIdentifier)")
        }
    }

    /// Records `table`'s changes again after ``stopRecording(on:in:)``, and marks the history
    /// as pruned, so that every controller refetches once.
    public static func resumeRecording(on table: String, in db: Database) throws {
        guard try db.tableExists(tableName) else { return }
        try install(on: table, in: db)
        // Empty history after a jump of the sequence: "pruned" to every reader.
        let latest = try latestSequence(db)
        try db.execute(sql: "DELETE FROM \(tableName)")
        try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = ?", arguments: [tableName])
        try db.execute(
            sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [tableName, latest + 2])
    }

    private static func triggerName(_ table: String, _ event: String) -> String {
        "fetchedresults_\(table)_\(event)"
    }

    /// What the names of the triggers recording `REPLACE` deletions start with.
    private static func replaceTriggerPrefix(_ table: String) -> String {
        "fetchedresults_\(table)"
    }

    /// Deletes all but the newest `keeping` history rows. A controller that had not yet read
    /// the deleted rows notices and refetches.
    public static func prune(keeping: Int, in db: Database) throws {
        guard try db.tableExists(tableName) else { return }
        try recordLatestSequence(db)
        try db.execute(
            sql: "DELETE FROM \(tableName) WHERE seq <= (SELECT max(seq) FROM \(tableName)) - ?", arguments: [keeping])
    }

    static func isInstalled(_ db: Database) throws -> Bool {
        try db.tableExists(tableName)
    }

    /// Whether `table`'s changes are recorded: the history exists, with the table's triggers.
    static func isInstalled(on table: String, _ db: Database) throws -> Bool {
        guard try isInstalled(db) else { return false }
        let names = ["insert", "update", "delete"].map { triggerName(table, $0) }
        let found = try Int.fetchOne(
            db,
            sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name COLLATE NOCASE IN (?, ?, ?)",
            arguments: StatementArguments(names))
        return found == names.count
    }

    /// The store's random identity, or nil for a store whose history predates it.
    static func storeIdentity(_ db: Database) throws -> String? {
        guard try db.tableExists(identityTableName) else { return nil }
        return try String.fetchOne(db, sql: "SELECT identity FROM \(identityTableName)")
    }

    /// The newest sequence number ever given out (0 before any): from `sqlite_sequence`, which
    /// AUTOINCREMENT keeps even when pruning has emptied the table, or the newest row's, when
    /// that is ahead. SQLite does not update `sqlite_sequence` for a statement that a `FAIL`
    /// conflict (or `RAISE(FAIL)`) stops, yet keeps the rows it wrote: their numbers are beyond
    /// it until the next insert.
    static func latestSequence(_ db: Database) throws -> Int64 {
        // Cached and stepped directly: a look asks at every commit. `max(seq)` is the last entry
        // of the table's b-tree.
        try db.cachedStatement(
            sql: "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '\(tableName)'), 0),"
                + " coalesce((SELECT max(seq) FROM \(tableName)), 0))"
        ).stepFirstInt64() ?? 0
    }

    /// Brings `sqlite_sequence` up to the newest number given out, before rows are deleted:
    /// numbers it lags behind (see ``latestSequence(_:)``) would otherwise be given out again.
    private static func recordLatestSequence(_ db: Database) throws {
        try db.execute(
            sql: "UPDATE sqlite_sequence SET seq = ? WHERE name = ?", arguments: [try latestSequence(db), tableName])
    }

    /// The row ids changed after `sequence` in each of `tables` (lowercased names, see
    /// `lowercasedTableName(_:)`), and whether history after `sequence` was pruned away (then
    /// the ids are incomplete); nothing to read when `latest` (the ``latestSequence(_:)`` just
    /// read) is not past `sequence`.
    ///
    /// Sequence numbers have no gaps (a rolled-back insert rolls back `sqlite_sequence` too,
    /// and ``resumeRecording(on:in:)`` leaves one on purpose): the history is whole exactly
    /// when its oldest row after `sequence` is the next number.
    static func changes(
        to tables: Set<String>, after sequence: Int64, latest: Int64, _ db: Database
    ) throws -> (rowIDs: [String: Set<Int64>], pruned: Bool) {
        guard latest > sequence else { return ([:], false) }
        let statement = try db.cachedStatement(
            sql: "SELECT seq, tableName, changedRowID FROM \(tableName) WHERE seq > ?")
        var rowIDs: [String: Set<Int64>] = [:]
        var oldest: Int64?
        try statement.stepRows(bind: { sqlite3_bind_int64($0, 1, sequence) }) { row in
            let seq = sqlite3_column_int64(row, 0)
            oldest = min(oldest ?? seq, seq)
            guard let text = sqlite3_column_text(row, 1) else { return }
            let table = lowercasedTableName(String(cString: text))
            if tables.contains(table) { rowIDs[table, default: []].insert(sqlite3_column_int64(row, 2)) }
        }
        guard oldest == sequence + 1 else { return ([:], true) }
        return (rowIDs, false)
    }
}
