import GRDB
import GRDBSQLite

/// A statement a look steps, and how many times SQLite had prepared it again when last seen.
///
/// SQLite prepares a statement again before stepping it after any schema change, by any
/// connection (`SQLITE_STMTSTATUS_REPREPARE` counts those times). So when the same statement
/// was stepped and its count did not move, the schema did not change since it was last seen,
/// and a look spares itself the schema check (a statement of its own, which the one-row look
/// after a win paid on every commit). The statement is held weakly: one GRDB dropped from its
/// cache (it does on a schema change on its connection) is never mistaken for a new one at the
/// same address.
struct SchemaWitness {
    private weak var statement: Statement?
    private var preparedAgain: Int32 = 0

    /// Whether `statement`, just stepped, is the one seen last and was not prepared again since.
    func sawNoSchemaChange(in statement: Statement) -> Bool {
        self.statement === statement && Self.timesPreparedAgain(statement) == preparedAgain
    }

    /// Remembers `statement` after the schema was found as the look expects it.
    mutating func remember(_ statement: Statement) {
        self.statement = statement
        preparedAgain = Self.timesPreparedAgain(statement)
    }

    private static func timesPreparedAgain(_ statement: Statement) -> Int32 {
        sqlite3_stmt_status(statement.sqliteStatement, SQLITE_STMTSTATUS_REPREPARE, 0)
    }
}
