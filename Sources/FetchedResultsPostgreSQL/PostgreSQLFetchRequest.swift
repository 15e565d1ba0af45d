/// What a ``PostgreSQLResultsController`` fetches and in which order: the rows of one table
/// that match an optional condition, sorted by its descriptors, with Core Data's limit, offset
/// and batch size.
public struct PostgreSQLFetchRequest: Sendable, Hashable {
    /// The table whose rows are fetched.
    public var table: String
    /// The `bigint` column that identifies a row (its primary key): the row id of index paths
    /// and changes, and the last sort key, so that the order is total.
    public var keyColumn: String
    /// The order; the first descriptor's column cuts sections, when there are sections.
    public var sortDescriptors: [PostgreSQLSortDescriptor]
    /// A condition in SQL whose values are parameters `$1`, `$2`… bound to ``arguments``;
    /// values are never written into the text. Nil fetches every row.
    public var predicate: String?
    /// The predicate's parameters, in the text form the server reads (nil is NULL).
    public var arguments: [String?]
    /// At most this many rows are visible; 0 for no limit.
    public var fetchLimit: Int
    /// This many rows of the order are skipped before the visible ones.
    public var fetchOffset: Int
    /// Full rows are read this many at a time, when first asked for; 0 reads them all with
    /// the fetch.
    public var fetchBatchSize: Int

    /// A request for the rows of `table` in the order of `sortDescriptors`.
    public init(
        table: String, keyColumn: String = "id", sortDescriptors: [PostgreSQLSortDescriptor],
        predicate: String? = nil, arguments: [String?] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, fetchBatchSize: Int = 0
    ) {
        self.table = table
        self.keyColumn = keyColumn
        self.sortDescriptors = sortDescriptors
        self.predicate = predicate
        self.arguments = arguments
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
    }

    var quotedTable: String { PostgreSQLChangeFeed.quoted(table) }
    var quotedKey: String { PostgreSQLChangeFeed.quoted(keyColumn) }

    /// `WHERE` and the predicate, or nothing.
    var whereSQL: String { predicate.map { " WHERE (\($0))" } ?? "" }

    var orderBySQL: String { PostgreSQLSortDescriptor.orderingSQL(sortDescriptors, keyColumn: keyColumn) }

    /// The rows whose ids are in an array parameter; with `matching`, only those that still
    /// match the predicate, whose own parameters come first.
    func rowsAmongSQL(matching: Bool) -> String {
        guard matching, let predicate else { return " WHERE \(quotedKey) = ANY($1::bigint[])" }
        return " WHERE (\(predicate)) AND \(quotedKey) = ANY($\(arguments.count + 1)::bigint[])"
    }

    /// The parameters of ``rowsAmongSQL(matching:)``.
    func argumentsAmong(_ rowIDs: some Collection<Int64>, matching: Bool) -> [String?] {
        (matching && predicate != nil ? arguments : []) + ["{" + rowIDs.map(String.init).joined(separator: ",") + "}"]
    }
}

/// One row as the server sent it: column names and text values (nil for NULL).
public struct PostgreSQLRow: Sendable, Equatable {
    /// The column names, in the order of the values.
    public let columns: [String]
    /// The values in PostgreSQL's text form.
    public let values: [String?]

    /// A row of these columns and values.
    public init(columns: [String], values: [String?]) {
        self.columns = columns
        self.values = values
    }

    /// The value of a column, or nil when it is NULL or absent.
    public subscript(column: String) -> String? {
        columns.firstIndex(of: column).flatMap { values[$0] }
    }
}

/// A type a ``PostgreSQLResultsController`` makes its objects of, from a row of the table.
public protocol PostgreSQLRecord {
    /// Decodes one row; throws when the row does not fit.
    init(row: PostgreSQLRow) throws
}

extension PostgreSQLRow: PostgreSQLRecord {
    /// The row itself.
    public init(row: PostgreSQLRow) { self = row }
}
