import FetchedResults
import GRDB

/// A request's condition in SQLite's SQL, as GRDB builds it: a query-interface expression
/// (`Column("wins") > 0`), an interpolated literal (`"wins > \(minimum)"`), or raw SQL with `?`
/// arguments. Values travel as statement arguments, never inside the SQL text.
///
/// ```swift
/// TableFetchRequest(table: "team", predicate: SQLitePredicate(Column("wins") > 0), sortDescriptors: order)
/// TableFetchRequest(table: "team", predicate: SQLitePredicate("wins > \(minimum)"), sortDescriptors: order)
/// TableFetchRequest(table: "team", predicate: SQLitePredicate(sql: "wins > ?", arguments: [minimum]),
///                   sortDescriptors: order)
/// ```
public struct SQLitePredicate: FetchPredicate {
    /// The condition, as GRDB's SQL literal.
    public var sql: SQL

    /// A condition from GRDB's SQL: an interpolated literal or a query-interface expression
    /// (`SQLitePredicate(SQL(Column("wins") > 0))`).
    public init(_ sql: SQL) {
        self.sql = sql
    }

    /// A condition from a query-interface expression (`Column("wins") > 0`).
    public init(_ expression: some SQLSpecificExpressible) {
        self.sql = SQL(expression)
    }

    /// A condition in raw SQL with `?` placeholders for `arguments`.
    public init(sql: String, arguments: StatementArguments = []) {
        self.sql = SQL(sql: sql, arguments: arguments)
    }
}

/// GRDB's columns name columns: `.descending(Column("wins"))`, `Team.Columns.wins`.
extension Column: ColumnNameRepresentable {
    public var columnName: String { name }
}

extension ColumnSortDescriptor {
    /// This key as an `ORDER BY` (or index) term in SQLite's SQL: `"wins" COLLATE BINARY DESC`.
    /// A key path across a relationship names the column the store's select list gives it.
    public var sqliteOrderingSQL: String {
        "\(key.quotedDatabaseIdentifier) COLLATE \(collation == .caseInsensitive ? "NOCASE" : "BINARY")"
            + (ascending ? "" : " DESC")
    }
}

extension TableFetchRequest {
    /// A request for the table of a GRDB record type.
    public init<T: TableRecord>(
        _ record: T.Type, predicate: SQLitePredicate? = nil, sortDescriptors: [ColumnSortDescriptor] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, fetchBatchSize: Int = 0
    ) {
        self.init(
            table: T.databaseTableName, predicate: predicate, sortDescriptors: sortDescriptors,
            fetchLimit: fetchLimit, fetchOffset: fetchOffset, fetchBatchSize: fetchBatchSize)
    }

    /// The `ORDER BY` clause equivalent to the in-memory order, in SQLite's SQL.
    var sqliteOrderBySQL: String {
        (sortDescriptors.map(\.sqliteOrderingSQL) + ["rowid"]).joined(separator: ", ")
    }
}

/// A request's predicate built for a connection: SQL text and its arguments.
struct BuiltPredicate {
    var sql = ""
    var arguments = StatementArguments()

    init() {}

    /// - Throws: `FetchedResultsError.predicateForAnotherStore(predicate:expected:)` for a
    ///   predicate that is not a ``SQLitePredicate``.
    init(_ predicate: (any FetchPredicate)?, _ db: Database) throws {
        guard let predicate else { return }
        guard let sqlite = predicate as? SQLitePredicate else {
            throw FetchedResultsError.predicateForAnotherStore(
                predicate: "\(type(of: predicate))", expected: "SQLitePredicate")
        }
        (sql, arguments) = try sqlite.sql.build(db)
    }

    /// The request's predicate and its text filter, which matches as the controller's sort keys
    /// do: only text values, ASCII letters folded (SQLite's `lower` folds no other) under
    /// `NOCASE`.
    init(_ request: TableFetchRequest, _ db: Database) throws {
        try self.init(request.predicate, db)
        guard let filter = request.textFilter else { return }
        let descriptor = request.sortDescriptors[filter.sortDescriptorIndex]
        let column = descriptor.key.quotedDatabaseIdentifier
        // The value up to a NUL character, where its sort key ends (`length` counts up to it).
        let value = "substr(\(column), 1, length(\(column)))"
        let contains = descriptor.foldsCase ? "instr(lower(\(value)), lower(?)) > 0" : "instr(\(value), ?) > 0"
        let condition = "typeof(\(column)) = 'text' AND \(contains)"
        sql = sql.isEmpty ? condition : "(\(sql)) AND \(condition)"
        arguments += [filter.matchedText]
    }

    /// The `WHERE` clause (with its leading keyword), or an empty string.
    var whereSQL: String { sql.isEmpty ? "" : "WHERE (\(sql))" }

    /// The predicate as an extra condition (`AND (…)`), or an empty string.
    var andSQL: String { sql.isEmpty ? "" : " AND (\(sql))" }
}

extension TableFetchRequest {
    /// A request whose predicate is GRDB's SQL: an interpolated literal (`"wins > \(minimum)"`)
    /// or an expression (`SQL(Column("wins") > 0)`).
    public init(
        table: String, predicate: SQL, sortDescriptors: [ColumnSortDescriptor] = [], fetchLimit: Int = 0,
        fetchOffset: Int = 0,
        fetchBatchSize: Int = 0, relationships: [ToOneRelationship] = [],
        relationshipKeyPathsForRefreshing: Set<String> = []
    ) {
        self.init(
            table: table, predicate: SQLitePredicate(predicate), sortDescriptors: sortDescriptors,
            fetchLimit: fetchLimit,
            fetchOffset: fetchOffset, fetchBatchSize: fetchBatchSize, relationships: relationships,
            relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing)
    }

    /// A request whose predicate is raw SQLite SQL with `?` placeholders for `arguments`.
    public init(
        table: String, predicate: String, arguments: StatementArguments = [],
        sortDescriptors: [ColumnSortDescriptor] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, fetchBatchSize: Int = 0, relationships: [ToOneRelationship] = [],
        relationshipKeyPathsForRefreshing: Set<String> = []
    ) {
        self.init(
            table: table, predicate: SQLitePredicate(sql: predicate, arguments: arguments),
            sortDescriptors: sortDescriptors,
            fetchLimit: fetchLimit, fetchOffset: fetchOffset, fetchBatchSize: fetchBatchSize,
            relationships: relationships,
            relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing)
    }
}
