import GRDB
import Synchronization

/// What SQLite's update hook does not report, and the triggers that report it instead.
///
/// The update hook (and so GRDB's `TransactionObserver`) names only the *new* row id of an
/// `UPDATE` that changes a row id, and says nothing of the rows that `REPLACE` conflict
/// resolution deletes through a unique index. Triggers see both: an `AFTER UPDATE` trigger sees
/// `OLD.rowid`, and a `BEFORE INSERT` or `BEFORE UPDATE` trigger can look up the rows a new value
/// would conflict with. Reporting a row that in the end did not change costs a re-read and no
/// callback, so the triggers may over-report but never under-report.
enum UndetectedChanges {
    /// A condition over `table` that matches every row conflicting with `NEW` through one of the
    /// table's unique indexes (each compared under its index's collation), and the columns those
    /// indexes cover; nil when the table has no unique index on plain columns. An index on
    /// expressions is skipped (see the Dealing with undetected changes article).
    static func conflictCondition(on table: String, _ db: Database) throws -> (sql: String, columns: [String])? {
        var alternatives: [String] = []
        var columns: [String] = []
        let quotedTable = table.quotedDatabaseIdentifier
        for index in try Row.fetchAll(db, sql: "SELECT name, \"unique\" FROM pragma_index_list(?)", arguments: [table])
        {
            guard (index["unique"] as Int) == 1, let name = index["name"] as String? else { continue }
            let keyColumns = try Row.fetchAll(
                db, sql: "SELECT cid, name, coll FROM pragma_index_xinfo(?) WHERE key = 1", arguments: [name])
            guard !keyColumns.isEmpty, keyColumns.allSatisfy({ ($0["cid"] as Int) >= 0 }) else { continue }
            let terms = keyColumns.map { column -> String in
                let name = (column["name"] as String).quotedDatabaseIdentifier
                let collation = (column["coll"] as String?) ?? "BINARY"
                columns.append(column["name"])
                return "\(quotedTable).\(name) = NEW.\(name) COLLATE \(collation.quotedDatabaseIdentifier)"
            }
            alternatives.append("(" + terms.joined(separator: " AND ") + ")")
        }
        guard !alternatives.isEmpty else { return nil }
        var seen: Set<String> = []
        return (alternatives.joined(separator: " OR "), columns.filter { seen.insert($0.lowercased()).inserted })
    }

    /// The name endings of the triggers ``replaceTriggers(on:named:temporary:action:_:)`` makes,
    /// for whoever drops them.
    static let replaceTriggerSuffixes = (insert: "_replace_insert", update: "_replace_update")

    /// The `CREATE TRIGGER` statements that run `action` (an SQL statement reading `rowid` of
    /// the rows it selects with `FROM`…`WHERE`) for each row a `REPLACE` would delete from
    /// `table` through a unique index. `schema` is `TEMP` for a connection's own triggers or
    /// empty for triggers stored in the database.
    static func replaceTriggers(
        on table: String, named prefix: String, temporary: Bool, action: (_ whereSQL: String) -> String, _ db: Database
    ) throws -> [String] {
        guard let conflict = try conflictCondition(on: table, db) else { return [] }
        let target = (temporary ? "main." : "") + table.quotedDatabaseIdentifier
        let temp = temporary ? "TEMP " : ""
        let columns = conflict.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        return [
            "CREATE \(temp)TRIGGER IF NOT EXISTS \((prefix + replaceTriggerSuffixes.insert).quotedDatabaseIdentifier) "
                + "BEFORE INSERT ON \(target) "
                + "BEGIN \(action("(\(conflict.sql))")); END",
            "CREATE \(temp)TRIGGER IF NOT EXISTS \((prefix + replaceTriggerSuffixes.update).quotedDatabaseIdentifier) "
                + "BEFORE UPDATE OF \(columns) ON \(target) "
                + "BEGIN \(action("(\(conflict.sql)) AND \(table.quotedDatabaseIdentifier).rowid IS NOT OLD.rowid"))"
                + "; END",
        ]
    }
}

/// Row ids caught by a controller's own temporary triggers during a transaction, by lowercased
/// table name. Filled from an SQL function the triggers call on the writer's connection, and
/// emptied by the ``CommitObserver`` at the end of the transaction.
final class TriggeredRowIDs: Sendable {
    private let rowIDs = Mutex<[String: Set<Int64>]>([:])

    func insert(_ rowID: Int64, table: String) {
        rowIDs.withLock { _ = $0[lowercasedTableName(table), default: []].insert(rowID) }
    }

    var isEmpty: Bool { rowIDs.withLock { $0.isEmpty } }

    func take() -> [String: Set<Int64>] {
        rowIDs.withLock { rowIDs in
            defer { rowIDs = [:] }
            return rowIDs
        }
    }
}

/// A controller's temporary triggers on the writer's connection: they report the old row id of
/// a row whose id changes and the rows that `REPLACE` deletes, in the fetched table and in the
/// tables its relationships lead to. Temporary triggers belong to the connection alone: they
/// neither change the database file nor slow other connections.
struct LocalChangeTriggers {
    let name: String
    let tables: [String]
    let collected = TriggeredRowIDs()

    init(name: String, tables: [String]) {
        self.name = name
        self.tables = tables
    }

    private var function: DatabaseFunction {
        let collected = self.collected
        return DatabaseFunction(name, argumentCount: 2, pure: false) { arguments in
            if let table = String.fromDatabaseValue(arguments[0]), let rowID = Int64.fromDatabaseValue(arguments[1]) {
                collected.insert(rowID, table: table)
            }
            return nil
        }
    }

    private func prefix(_ table: String) -> String { "\(name)_\(table)" }

    func install(_ db: Database) throws {
        db.add(function: function)
        for table in tables {
            let literal = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
            // `UPDATE OF` the names a row id can be set through: SQLite then codes the trigger
            // only into the updates that name one of them (it matches the SET clause by name),
            // and an update of other columns compiles and runs as if the trigger were not there.
            let rowIDNames = ["rowid", "oid", "_rowid_"] + [try db.primaryKey(table).rowIDColumn].compactMap { $0 }
            try db.execute(
                sql: """
                    CREATE TEMP TRIGGER IF NOT EXISTS \((prefix(table) + "_rowid").quotedDatabaseIdentifier)
                    AFTER UPDATE OF \(rowIDNames.map(\.quotedDatabaseIdentifier).joined(separator: ", "))
                    ON main.\(table.quotedDatabaseIdentifier) WHEN OLD.rowid IS NOT NEW.rowid
                    BEGIN SELECT \(name)(\(literal), OLD.rowid); END
                    """)
            let triggers = try UndetectedChanges.replaceTriggers(
                on: table, named: prefix(table), temporary: true,
                action: { whereSQL in
                    "SELECT \(name)(\(literal), rowid) FROM main.\(table.quotedDatabaseIdentifier) WHERE \(whereSQL)"
                }, db)
            for trigger in triggers { try db.execute(sql: trigger) }
        }
    }

    func remove(_ db: Database) throws {
        for table in tables {
            let suffixes = UndetectedChanges.replaceTriggerSuffixes
            for suffix in ["_rowid", suffixes.insert, suffixes.update] {
                try db.execute(sql: "DROP TRIGGER IF EXISTS temp.\((prefix(table) + suffix).quotedDatabaseIdentifier)")
            }
        }
        db.remove(function: function)
    }
}
