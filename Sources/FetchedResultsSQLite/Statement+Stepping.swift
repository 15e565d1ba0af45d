import GRDB
import GRDBSQLite

extension Statement {
    /// Steps this statement through SQLite's C interface: `bind` sets its parameters, then
    /// `row` reads each result row's columns. A look runs a few small reads after every
    /// commit, and GRDB's fetch methods build a cursor for each call, which costs more than
    /// such a read itself. For
    /// this library's own read-only statements only, whose SQL no program shares through GRDB's
    /// statement cache: the statement is reset before and after, but its new bindings stay,
    /// unknown to GRDB, which would run a statement it bound itself with them.
    ///
    /// - Throws: SQLite's error, as a `DatabaseError`.
    func stepRows(bind: (SQLiteStatement) -> Void = { _ in }, _ row: (SQLiteStatement) throws -> Void) throws {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        defer { sqlite3_reset(handle) }
        bind(handle)
        while true {
            let code = sqlite3_step(handle)
            switch code {
            case SQLITE_ROW: try row(handle)
            case SQLITE_DONE: return
            default:
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: sql)
            }
        }
    }

    /// The first column of the first result row as an integer, or nil without a row (see
    /// ``stepRows(bind:_:)``).
    func stepFirstInt64(bind: (SQLiteStatement) -> Void = { _ in }) throws -> Int64? {
        var value: Int64?
        try stepRows(bind: bind) { row in
            if value == nil { value = sqlite3_column_int64(row, 0) }
        }
        return value
    }
}
