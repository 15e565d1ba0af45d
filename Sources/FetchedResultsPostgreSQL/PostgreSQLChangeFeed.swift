import Foundation

/// The change history that lets a controller follow a PostgreSQL table without losing a change.
///
/// Triggers write each changed row's id into a history table in the writing transaction itself,
/// and nothing else: no `NOTIFY`, which would make every writing commit wait for every other
/// (PostgreSQL takes one lock for the whole cluster to queue a notification at commit, and holds
/// it through the commit's WAL flush). Followers look at the history: it is indexed by
/// transaction, so a look that finds nothing is one cheap query, and it is replicated, so a
/// follower may read it on a hot standby.
///
/// **Why positions are snapshots, not sequence numbers.** A sequence hands out numbers when rows
/// are inserted, not when transactions commit: a transaction holding number 100 can commit after
/// one holding 101, and a reader that remembers "I have read up to 101" never sees 100. So a
/// reader's position is the server's snapshot at its last read (`pg_current_snapshot()`: every
/// transaction it saw as committed), and the next read returns the rows of exactly those
/// transactions that were not visible in it then and are committed now. Each history row carries
/// its transaction's id (`pg_current_xact_id()`), indexed, and only ids at or above the old
/// snapshot's `xmin` can qualify, so a read costs the changes since, not the history's length.
///
/// Pruning deletes the rows of old transactions and records the horizon; a reader whose position
/// is older than the horizon may have missed rows and must refetch (``Read/isBehindPruning``).
public enum PostgreSQLChangeFeed {
    /// The history table, shared by every table with a feed in the database.
    public static let historyTable = "fetched_results_history"
    /// The channel ``announce(in:)`` notifies, which followers on a primary listen to.
    public static let channel = "fetched_results"

    /// Tells the followers of this database that a commit was made, so that they look now
    /// rather than at their next look (`LookPace`): call it after a write's commit, when others
    /// should see it at once (a win on every screen). A writer that never calls it is still
    /// followed, at the followers' pace.
    ///
    /// Why after the commit, in a transaction of its own, and not from the triggers: a
    /// transaction that has queued a notification takes one lock for the whole cluster at
    /// commit and holds it through its commit, so notifying writes wait for each other. Here
    /// only announcements wait for announcements, and not for a disk: the announcement's commit
    /// is asynchronous (`synchronous_commit` off for it alone), and a lost one costs a follower
    /// nothing but its next look's wait. One round trip.
    public static func announce(in connection: PostgreSQLConnection) throws {
        try connection.execute(
            "SELECT set_config('synchronous_commit', 'off', true), pg_notify(\(literal(channel)), '')")
    }

    /// Creates the history (once per database) and the triggers on `table`, whose `keyColumn`
    /// (a bigint primary key) identifies rows. Idempotent; on a table with an earlier version's
    /// feed, replaces its triggers (the statement trigger that sent `NOTIFY` goes).
    public static func install(on table: String, keyColumn: String, in connection: PostgreSQLConnection) throws {
        let history = quoted(historyTable), tableName = quoted(table)
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS \(history) (
                transaction xid8 NOT NULL DEFAULT pg_current_xact_id(),
                table_name text NOT NULL,
                row_id bigint)
            """)
        // Earlier versions numbered the rows, which nothing reads (positions are snapshots): a
        // sequence's number and a second index entry for every changed row, paid by writers.
        try connection.execute("ALTER TABLE \(history) DROP COLUMN IF EXISTS sequence")
        try connection.execute(
            "CREATE INDEX IF NOT EXISTS \(quoted(historyTable + "_transaction")) ON \(history) (transaction)")
        // What a look reads, behind a function: a statement that reads the history directly is
        // planned again at every look (its plan depends on the position's value), which cost
        // the server several times the look itself. Around the function's opaque rows the
        // look's statement keeps one plan; the function plans its one simple query.
        // STABLE: it reads in the snapshot of the statement that calls it, as the rows the look
        // joins to it are read.
        try connection.execute(
            """
            CREATE OR REPLACE FUNCTION \(quoted(changesFunction))(since pg_snapshot)
            RETURNS TABLE (fetched_results_table text, fetched_results_row bigint)
            LANGUAGE plpgsql STABLE ROWS 10 AS $$
            BEGIN
                RETURN QUERY SELECT DISTINCT changed.table_name, changed.row_id FROM \(history) AS changed
                    WHERE changed.transaction >= pg_snapshot_xmin(since)
                      AND NOT pg_visible_in_snapshot(changed.transaction, since);
            END $$
            """)
        // One row: the oldest transaction whose history is still complete.
        try connection.execute("CREATE TABLE IF NOT EXISTS \(quoted(historyTable + "_pruned")) (before xid8 NOT NULL)")
        try connection.execute(
            """
            INSERT INTO \(quoted(historyTable + "_pruned")) (before)
            SELECT '0'::xid8 WHERE NOT EXISTS (SELECT 1 FROM \(quoted(historyTable + "_pruned")))
            """)
        // A row's id before and after the change; an id that changes leaves both. One function
        // per table, which names the key column itself: reading it through `to_jsonb(OLD)` built
        // a JSON document of the whole row for every changed row.
        let key = quoted(keyColumn), rowFunction = quoted(rowFunctionPrefix + table)
        try connection.execute(
            """
            CREATE OR REPLACE FUNCTION \(rowFunction)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO \(history) (table_name, row_id) VALUES (TG_TABLE_NAME, NEW.\(key));
                ELSIF TG_OP = 'DELETE' THEN
                    INSERT INTO \(history) (table_name, row_id) VALUES (TG_TABLE_NAME, OLD.\(key));
                ELSIF NEW.\(key) IS DISTINCT FROM OLD.\(key) THEN
                    INSERT INTO \(history) (table_name, row_id)
                    VALUES (TG_TABLE_NAME, OLD.\(key)), (TG_TABLE_NAME, NEW.\(key));
                ELSE
                    INSERT INTO \(history) (table_name, row_id) VALUES (TG_TABLE_NAME, NEW.\(key));
                END IF;
                RETURN NULL;
            END $$
            """)
        // TRUNCATE names no rows: a NULL row id tells readers to refetch.
        try connection.execute(
            """
            CREATE OR REPLACE FUNCTION fetched_results_record_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO \(history) (table_name, row_id) VALUES (TG_TABLE_NAME, NULL);
                RETURN NULL;
            END $$
            """)
        let prefix = "fetched_results_" + table
        try connection.execute("DROP TRIGGER IF EXISTS \(quoted(prefix + "_rows")) ON \(tableName)")
        try connection.execute("DROP TRIGGER IF EXISTS \(quoted(prefix + "_truncate")) ON \(tableName)")
        // Earlier versions NOTIFYed from a statement trigger: a transaction that has queued a
        // notification takes one lock for the whole cluster at commit and holds it through its
        // WAL flush, so notifying commits wait for each other: many writers become one.
        try connection.execute("DROP TRIGGER IF EXISTS \(quoted(prefix + "_notify")) ON \(tableName)")
        try connection.execute(
            """
            CREATE TRIGGER \(quoted(prefix + "_rows")) AFTER INSERT OR UPDATE OR DELETE ON \(tableName)
            FOR EACH ROW EXECUTE FUNCTION \(rowFunction)()
            """)
        try connection.execute(
            """
            CREATE TRIGGER \(quoted(prefix + "_truncate")) AFTER TRUNCATE ON \(tableName)
            FOR EACH STATEMENT EXECUTE FUNCTION fetched_results_record_truncate()
            """)
        // The earlier versions' shared functions, once no trigger uses them.
        try connection.execute(
            """
            DO $$ BEGIN
                IF NOT EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                               WHERE p.proname = 'fetched_results_notify') THEN
                    DROP FUNCTION IF EXISTS fetched_results_notify();
                END IF;
                IF NOT EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                               WHERE p.proname = 'fetched_results_record_row') THEN
                    DROP FUNCTION IF EXISTS fetched_results_record_row();
                END IF;
            END $$
            """)
    }

    /// The name of a table's row trigger function, before the table's name.
    static let rowFunctionPrefix = "fetched_results_row_"
    /// The function that reads the rows changed since a position (see `changesCTE`).
    static let changesFunction = "fetched_results_changes_since"

    /// A reader's place in the history: the server snapshot of its last read, as text
    /// (`xmin:xmax:in-progress ids`).
    public struct Position: Sendable, Equatable, CustomStringConvertible {
        /// The snapshot in the server's text form.
        public let snapshot: String
        /// The snapshot, for logs.
        public var description: String { snapshot }
    }

    /// What a read found since a position.
    public struct Read: Sendable {
        /// The new position: read from here next time.
        public let position: Position
        /// Changed row ids by table, each once.
        public let rowIDs: [String: Set<Int64>]
        /// Tables that were truncated (refetch them).
        public let truncatedTables: Set<String>
        /// The history was pruned past the old position: changes may be missing, refetch.
        public let isBehindPruning: Bool
    }

    /// Where a reader starts: now. Take it in the same transaction as the first fetch (see
    /// ``currentPosition(in:)``), so that nothing falls between the fetch and the position.
    public static func currentPosition(in connection: PostgreSQLConnection) throws -> Position {
        Position(snapshot: try connection.execute("SELECT pg_current_snapshot()::text").scalar ?? "")
    }

    /// The changes committed since `position`, in one repeatable-read transaction so that the
    /// new position is exactly the snapshot the rows were read in.
    public static func changes(since position: Position, in connection: PostgreSQLConnection) throws -> Read {
        try connection.transaction(isolation: .repeatableRead) { try read(since: position, in: connection) }
    }

    /// The changes committed since `position`, read inside the caller's repeatable-read
    /// transaction: the new position is that transaction's snapshot, so rows the caller reads
    /// in the same transaction are exactly as of the new position.
    public static func read(since position: Position, in connection: PostgreSQLConnection) throws -> Read {
        let result = try connection.execute(
            """
            \(changesCTE(positionParameter: "$1"))
            SELECT fetched_results_snapshot, fetched_results_pruned, fetched_results_table, fetched_results_row
            FROM feed_state LEFT JOIN feed_changes ON true
            """, [position.snapshot])
        var rowIDs: [String: Set<Int64>] = [:]
        var truncated: Set<String> = []
        for row in result.rows {
            guard let table = row[2] else { continue }
            if let id = row[3].flatMap(Int64.init) {
                rowIDs[table, default: []].insert(id)
            } else {
                truncated.insert(table)
            }
        }
        return Read(
            position: Position(snapshot: result.rows.first?[0] ?? ""), rowIDs: rowIDs, truncatedTables: truncated,
            isBehindPruning: result.rows.first?[1] == "t")
    }

    /// A `WITH` clause for reading the changes since the position in parameter
    /// `positionParameter` in one statement, with whatever else the statement joins to them:
    /// `feed_state(fetched_results_snapshot, fetched_results_pruned, fetched_results_replica)`
    /// is one row (the statement's snapshot, the new position; whether the history was pruned
    /// past the old one; on a standby, the WAL it has received and replayed, in bytes, as
    /// "received replayed", "-" for none received by streaming; NULL on a primary), and `feed_changes(fetched_results_table, fetched_results_row)` the rows changed
    /// since, each once (a NULL row: the table was truncated). The long column names keep
    /// clear of the columns of the tables a statement joins.
    static func changesCTE(positionParameter position: String) -> String {
        """
        WITH feed_changes AS (
            SELECT fetched_results_table, fetched_results_row
            FROM \(quoted(changesFunction))(\(position)::pg_snapshot)
        ), feed_state AS (
            SELECT pg_current_snapshot()::text AS fetched_results_snapshot,
                   pg_snapshot_xmin(\(position)::pg_snapshot)
                       < (SELECT max(before) FROM \(quoted(historyTable + "_pruned")))
                       AS fetched_results_pruned,
                   CASE WHEN pg_is_in_recovery() THEN
                       coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0')::bigint::text, '-') || ' '
                       || coalesce(pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint::text, '0')
                   END AS fetched_results_replica
        )
        """
    }

    /// Deletes the history of transactions that finished before `position` was taken and
    /// records the horizon. Readers at or after `position` lose nothing; older ones will be
    /// told to refetch.
    public static func prune(before position: Position, in connection: PostgreSQLConnection) throws {
        try connection.transaction {
            try connection.execute(
                "UPDATE \(quoted(historyTable + "_pruned"))"
                    + " SET before = greatest(before, pg_snapshot_xmin($1::pg_snapshot))",
                [position.snapshot])
            try connection.execute(
                "DELETE FROM \(quoted(historyTable)) WHERE transaction < pg_snapshot_xmin($1::pg_snapshot)",
                [position.snapshot])
        }
    }

    /// Deletes the history of all but the newest `keeping` changed rows (and any others of the
    /// oldest kept row's transaction), and records the horizon: a reader that had not read
    /// that far will be told to refetch. Call it now and then from a writer, outside a writing
    /// transaction (the app does when idle, at most once a minute): it is one statement whose
    /// cost is reading `keeping` index entries and deleting what is older.
    ///
    /// A transaction still running below the horizon keeps its rows, which the delete cannot
    /// see; every reader that could need them is older than the horizon and refetches.
    public static func prune(keeping: Int, in connection: PostgreSQLConnection) throws {
        let history = quoted(historyTable), pruned = quoted(historyTable + "_pruned")
        // With nothing to keep, the horizon is the oldest transaction still running: every
        // older one has finished, so no row of theirs can appear later.
        try connection.execute(
            """
            WITH horizon AS (
                SELECT CASE WHEN $1::bigint = 0 THEN pg_snapshot_xmin(pg_current_snapshot())
                    ELSE (SELECT transaction FROM \(history)
                          ORDER BY transaction DESC OFFSET greatest($1::bigint - 1, 0) LIMIT 1)
                    END AS transaction
            ), moved AS (
                UPDATE \(pruned) SET before = greatest(before, (SELECT transaction FROM horizon))
                WHERE (SELECT transaction FROM horizon) IS NOT NULL
                RETURNING before
            )
            DELETE FROM \(history) WHERE transaction < (SELECT before FROM moved)
            """,
            [Int64(max(0, keeping))])
    }

    /// An identifier in double quotes, for names that are not values (tables, columns).
    public static func quotedName(_ identifier: String) -> String { quoted(identifier) }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A string literal, for trigger arguments (which cannot be parameters).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
