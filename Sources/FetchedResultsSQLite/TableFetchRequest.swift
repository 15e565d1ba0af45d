import GRDB

/// One sort key: a column, a direction and a text collation (Core Data's `NSSortDescriptor`).
///
/// Build it from GRDB's own types:
///
/// ```swift
/// let order: [ColumnSortDescriptor] = [
///     .ascending(Column("zone"), collation: .nocase),
///     .descending(Column("wins")),
///     .ascending(Column("name"), collation: .nocase),
/// ]
/// ```
///
/// The collation is one of SQLite's built-in `BINARY` (the default) and `NOCASE`, the two whose
/// order the controller reproduces exactly in memory; ``FetchedResultsController/performFetch()``
/// refuses any other.
public struct ColumnSortDescriptor: Sendable, Hashable {
    /// A column of the fetched table, or a key path across a to-one relationship
    /// (`bucket.name`, see ``ToOneRelationship``).
    public var key: String
    /// Smallest first when true.
    public var ascending: Bool
    /// How text values compare: `.binary` or `.nocase`.
    public var collation: Database.CollationName

    /// A sort key by name: a column, or a key path across a to-one relationship.
    public init(key: String, ascending: Bool = true, collation: Database.CollationName = .binary) {
        self.key = key
        self.ascending = ascending
        self.collation = collation
    }

    /// A sort key on a column, as GRDB names it (`Column("wins")`, or a record's `Columns`).
    public init(_ column: some ColumnExpression, ascending: Bool = true, collation: Database.CollationName = .binary) {
        self.init(key: column.name, ascending: ascending, collation: collation)
    }

    /// Smallest first.
    public static func ascending(_ column: some ColumnExpression, collation: Database.CollationName = .binary) -> Self {
        Self(column, ascending: true, collation: collation)
    }

    /// Largest first.
    public static func descending(_ column: some ColumnExpression, collation: Database.CollationName = .binary) -> Self {
        Self(column, ascending: false, collation: collation)
    }

    /// Whether text compares with ASCII letters folded (`NOCASE`).
    var foldsCase: Bool { collation.rawValue.uppercased() == Database.CollationName.nocase.rawValue }

    /// Whether the controller can keep this collation's order in memory.
    var hasSupportedCollation: Bool {
        foldsCase || collation.rawValue.uppercased() == Database.CollationName.binary.rawValue
    }

    /// This key as an `ORDER BY` (or index) term: `"wins" COLLATE BINARY DESC`. A key path
    /// across a relationship names the column the controller's select list gives it.
    public var orderingSQL: String {
        "\(key.quotedDatabaseIdentifier) COLLATE \(collation.rawValue)\(ascending ? "" : " DESC")"
    }
}

/// What to fetch: a table, an optional predicate, and the order (Core Data's `NSFetchRequest`).
///
/// The predicate is GRDB's `SQL`, so it may be a query-interface expression, an interpolated
/// literal, or raw SQL with arguments:
///
/// ```swift
/// TableFetchRequest(table: "team", predicate: SQL(Column("wins") > 0), sortDescriptors: order)
/// TableFetchRequest(table: "team", predicate: "wins > \(minimum)", sortDescriptors: order)
/// TableFetchRequest(table: "team", predicate: "wins > ?", arguments: [minimum], sortDescriptors: order)
/// ```
///
/// The order is made total by a final tie-break on the row id, so two rows never compare equal
/// and every row has exactly one place.
public struct TableFetchRequest: Sendable {
    /// The table to fetch from. It must be a rowid table.
    public var table: String
    /// A boolean SQL expression over the table's columns, or `nil` for every row.
    public var predicate: SQL?
    /// At least one; ``FetchedResultsController/performFetch()`` throws without one.
    public var sortDescriptors: [ColumnSortDescriptor]
    /// At most this many objects (0: no limit).
    public var fetchLimit: Int
    /// Skip this many objects of the ordered result.
    public var fetchOffset: Int
    /// With a batch size (> 0), the controller holds only row ids and sort keys for every row,
    /// and loads full rows this many at a time as they are asked for (Core Data's
    /// `fetchBatchSize`). 0 loads every row at once.
    public var fetchBatchSize: Int
    /// To-one relationships that key paths such as `bucket.name` may cross. A relationship not
    /// declared here is found among the table's foreign keys when it is a one-column key to the
    /// related table's row id named after the relationship (`bucket`, `bucketId`, `bucket_id`,
    /// or a key to table `bucket`).
    public var relationships: [ToOneRelationship]
    /// Key paths across to-one relationships (`bucket.name`) whose changes count as changes of
    /// the fetched rows that refer to them (Core Data's relationship key paths for refreshing):
    /// a committed change to that column of a related row, or the insertion or deletion of a
    /// related row, is reported as an `update` of every fetched row referring to it. Each
    /// fetched row carries the related value as a column named after the key path.
    ///
    /// For changes made by other connections or processes to be seen, install
    /// ``ChangeHistory`` on the related tables too. The fetched table should have an index on
    /// the foreign key, or each related change scans the table.
    public var relationshipKeyPathsForRefreshing: Set<String>

    /// A request whose predicate is GRDB's `SQL`: an expression (`SQL(Column("wins") > 0)`) or
    /// an interpolated literal (`"wins > \(minimum)"`).
    public init(
        table: String,
        predicate: SQL? = nil,
        sortDescriptors: [ColumnSortDescriptor] = [],
        fetchLimit: Int = 0,
        fetchOffset: Int = 0,
        fetchBatchSize: Int = 0,
        relationships: [ToOneRelationship] = [],
        relationshipKeyPathsForRefreshing: Set<String> = []
    ) {
        self.table = table
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
        self.relationships = relationships
        self.relationshipKeyPathsForRefreshing = relationshipKeyPathsForRefreshing
    }

    /// A request whose predicate is raw SQL with `?` placeholders for `arguments`.
    public init(
        table: String,
        predicate: String,
        arguments: StatementArguments = [],
        sortDescriptors: [ColumnSortDescriptor] = [],
        fetchLimit: Int = 0,
        fetchOffset: Int = 0,
        fetchBatchSize: Int = 0,
        relationships: [ToOneRelationship] = [],
        relationshipKeyPathsForRefreshing: Set<String> = []
    ) {
        self.init(
            table: table, predicate: SQL(sql: predicate, arguments: arguments), sortDescriptors: sortDescriptors,
            fetchLimit: fetchLimit, fetchOffset: fetchOffset, fetchBatchSize: fetchBatchSize,
            relationships: relationships, relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing)
    }

    /// A request for the table of a GRDB record type.
    public init<T: TableRecord>(
        _ record: T.Type,
        predicate: SQL? = nil,
        sortDescriptors: [ColumnSortDescriptor] = [],
        fetchLimit: Int = 0,
        fetchOffset: Int = 0,
        fetchBatchSize: Int = 0
    ) {
        self.init(
            table: T.databaseTableName, predicate: predicate, sortDescriptors: sortDescriptors,
            fetchLimit: fetchLimit, fetchOffset: fetchOffset, fetchBatchSize: fetchBatchSize)
    }

    /// Every key path with a dot among the sort keys, the section key path and the key paths
    /// for refreshing: those that cross a relationship.
    func keyPathsAcrossRelationships(sectionNameKeyPath: String?) -> Set<String> {
        Set(sortDescriptors.map(\.key) + [sectionNameKeyPath].compactMap { $0 } + relationshipKeyPathsForRefreshing)
            .filter { $0.contains(".") }
    }

    /// The `ORDER BY` clause equivalent to the in-memory order. A key path across a relationship
    /// names the column the select list gives it.
    var orderBySQL: String {
        (sortDescriptors.map(\.orderingSQL) + ["rowid"]).joined(separator: ", ")
    }
}

/// A request's predicate built for a connection: SQL text and its arguments.
struct BuiltPredicate {
    var sql = ""
    var arguments = StatementArguments()

    init() {}

    init(_ predicate: SQL?, _ db: Database) throws {
        if let predicate { (sql, arguments) = try predicate.build(db) }
    }

    /// The `WHERE` clause (with its leading keyword), or an empty string.
    var whereSQL: String { sql.isEmpty ? "" : "WHERE (\(sql))" }

    /// The predicate as an extra condition (`AND (…)`), or an empty string.
    var andSQL: String { sql.isEmpty ? "" : " AND (\(sql))" }
}
