import GRDB
import GRDBSQLite

/// A statement a look steps, and SQLite's counts for it when last seen.
///
/// SQLite prepares a statement again before stepping it after any schema change, by any
/// connection (`SQLITE_STMTSTATUS_REPREPARE` counts those times). So when the same statement
/// was stepped and that count did not move, the schema did not change since it was last seen,
/// and a look spares itself the schema check (a statement of its own, which the one-row look
/// after a win paid on every commit).
///
/// "The same statement" is its identity and exactly one more run (`SQLITE_STMTSTATUS_RUN`,
/// counted at each run's start) than when last seen: a statement GRDB made anew at a freed
/// one's address has run once. It is not held: a weak reference would make every retain of the
/// statement take the slow path.
struct SchemaWitness {
    private var statement: ObjectIdentifier?
    private var runs: Int32 = 0
    private var preparedAgain: Int32 = 0

    /// Whether `statement`, just stepped once, is the one seen last and was not prepared again;
    /// if so, it is seen now.
    mutating func sawNoSchemaChange(in statement: Statement) -> Bool {
        let runs = Self.count(SQLITE_STMTSTATUS_RUN, of: statement)
        guard self.statement == ObjectIdentifier(statement), runs == self.runs + 1,
            Self.count(SQLITE_STMTSTATUS_REPREPARE, of: statement) == preparedAgain
        else { return false }
        self.runs = runs
        return true
    }

    /// Remembers `statement`, just stepped, after the schema was found as the look expects it.
    mutating func remember(_ statement: Statement) {
        self.statement = ObjectIdentifier(statement)
        runs = Self.count(SQLITE_STMTSTATUS_RUN, of: statement)
        preparedAgain = Self.count(SQLITE_STMTSTATUS_REPREPARE, of: statement)
    }

    private static func count(_ counter: Int32, of statement: Statement) -> Int32 {
        sqlite3_stmt_status(statement.sqliteStatement, counter, 0)
    }
}
