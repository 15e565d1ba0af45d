/// What a ``PostgreSQLResultsController`` fetches and in which order: the rows of one table
/// that match an optional condition, sorted by its descriptors, with Core Data's limit, offset
/// and batch size.
public struct PostgreSQLFetchRequest: Sendable, Hashable {
    /// The table whose rows are fetched.
    public var table: String
    /// The `bigint` column that identifies a row (its primary key): the row id of index paths
    /// and changes, and the last sort key, so that the order is total.
    public var keyColumn: String
    /// The order; the first descriptor's column cuts sections, when there are sections. A
    /// column may be a key path across a to-one relationship (`zone.name`, see
    /// ``relationships``).
    public var sortDescriptors: [PostgreSQLSortDescriptor]
    /// A condition in SQL on the table's columns, whose values are parameters `$1`, `$2`…
    /// bound to ``arguments``; values are never written into the text. Nil fetches every row.
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
    /// The to-one relationships that key paths such as `zone.name` cross. Declared: the
    /// PostgreSQL controller does not guess them from foreign keys.
    public var relationships: [PostgreSQLToOneRelationship]
    /// Key paths across relationships whose changes count as changes of the rows that refer to
    /// them (Core Data's relationship key paths for refreshing): those rows are read again,
    /// with the related values under these names.
    public var relationshipKeyPathsForRefreshing: Set<String>

    /// A request for the rows of `table` in the order of `sortDescriptors`.
    public init(
        table: String, keyColumn: String = "id", sortDescriptors: [PostgreSQLSortDescriptor],
        predicate: String? = nil, arguments: [String?] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, fetchBatchSize: Int = 0,
        relationships: [PostgreSQLToOneRelationship] = [], relationshipKeyPathsForRefreshing: Set<String> = []
    ) {
        self.table = table
        self.keyColumn = keyColumn
        self.sortDescriptors = sortDescriptors
        self.predicate = predicate
        self.arguments = arguments
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
        self.relationships = relationships
        self.relationshipKeyPathsForRefreshing = relationshipKeyPathsForRefreshing
    }

    /// The alias of the fetched table in every statement the controller makes.
    static let rowAlias = "fetched_row"

    var quotedTable: String { PostgreSQLChangeFeed.quoted(table) }
    var quotedKey: String { PostgreSQLChangeFeed.quoted(keyColumn) }

    /// The table under its alias, for a `FROM` clause.
    var fromSQL: String { "\(quotedTable) AS \(Self.rowAlias)" }

    /// `WHERE` and the predicate, or nothing.
    var whereSQL: String { predicate.map { " WHERE (\($0))" } ?? "" }

    /// The key paths across relationships the request uses, resolved; throws for one that
    /// names no declared relationship.
    func relatedKeyPaths(sectionNameKeyPath: String?) throws -> [RelatedKeyPath] {
        let keyPaths = Set(sortDescriptors.map(\.column) + [sectionNameKeyPath].compactMap { $0 } + relationshipKeyPathsForRefreshing)
            .filter { $0.contains(".") }
        return try keyPaths.sorted().map { keyPath in
            let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let relationship = relationships.first(where: { $0.name == parts[0] }) else {
                throw PostgreSQLResultsError.unknownRelationship(keyPath: keyPath, table: table)
            }
            return RelatedKeyPath(keyPath: keyPath, relationship: relationship, column: parts[1])
        }
    }

    /// A column of the fetched row (`fetched_row."name"`), or a related value's subquery.
    func expression(_ column: String, related: [RelatedKeyPath]) -> String {
        related.first { $0.keyPath == column }?.selectExpression
            ?? Self.rowAlias + "." + PostgreSQLChangeFeed.quoted(column)
    }

    /// The select list of full rows: every column, then each related value under its key path.
    func fullRowSQL(related: [RelatedKeyPath]) -> String {
        ([Self.rowAlias + ".*"] + related.map { $0.selectExpression + " AS " + PostgreSQLChangeFeed.quoted($0.keyPath) })
            .joined(separator: ", ")
    }

    /// The select list of ordering only: the key, then each sort value under its column's name.
    func keysOnlySQL(related: [RelatedKeyPath]) -> String {
        ([keyColumn] + sortDescriptors.map(\.column))
            .map { expression($0, related: related) + " AS " + PostgreSQLChangeFeed.quoted($0) }
            .joined(separator: ", ")
    }

    func orderBySQL(related: [RelatedKeyPath]) -> String {
        (sortDescriptors.map { $0.orderingSQL(on: expression($0.column, related: related)) }
            + [expression(keyColumn, related: related) + " ASC"]).joined(separator: ", ")
    }

    /// The rows whose ids are in an array parameter; with `matching`, only those that still
    /// match the predicate, whose own parameters come first.
    func rowsAmongSQL(matching: Bool) -> String {
        let key = Self.rowAlias + "." + quotedKey
        guard matching, let predicate else { return " WHERE \(key) = ANY($1::bigint[])" }
        return " WHERE (\(predicate)) AND \(key) = ANY($\(arguments.count + 1)::bigint[])"
    }

    /// The parameters of ``rowsAmongSQL(matching:)``.
    func argumentsAmong(_ rowIDs: some Collection<Int64>, matching: Bool) -> [String?] {
        (matching && predicate != nil ? arguments : []) + ["{" + rowIDs.map(String.init).joined(separator: ",") + "}"]
    }
}

/// A to-one relationship from the fetched table to a row of another table, through a column
/// holding that row's key (Core Data's to-one relationship, as a foreign key). Key paths such
/// as `zone.name` name a relationship and a column of the related table; the related table
/// needs its own change feed, so that a change there reaches the rows that refer to it.
public struct PostgreSQLToOneRelationship: Sendable, Hashable {
    /// The name key paths use: `zone` in `zone.name`.
    public var name: String
    /// The fetched table's column holding the related row's key.
    public var foreignKey: String
    /// The related table.
    public var destinationTable: String
    /// The related table's `bigint` key (the key column its change feed was installed with).
    public var destinationKey: String

    /// - Parameters:
    ///   - name: the first part of the key paths that cross this relationship.
    ///   - foreignKey: the fetched table's column holding the related row's key.
    ///   - destinationTable: the related table.
    ///   - destinationKey: the related table's key column.
    public init(_ name: String, foreignKey: String, destinationTable: String, destinationKey: String = "id") {
        self.name = name
        self.foreignKey = foreignKey
        self.destinationTable = destinationTable
        self.destinationKey = destinationKey
    }
}

/// A key path across a to-one relationship: what to select for it, and how to find the
/// fetched rows a change to a related row concerns.
struct RelatedKeyPath: Hashable {
    let keyPath: String
    let relationship: PostgreSQLToOneRelationship
    let column: String

    /// The related value of the fetched row, as a subquery (not a join, so that the
    /// predicate's column names stay unambiguous).
    var selectExpression: String {
        let related = "fetched_related"
        return "(SELECT \(related).\(PostgreSQLChangeFeed.quoted(column)) FROM \(PostgreSQLChangeFeed.quoted(relationship.destinationTable)) "
            + "AS \(related) WHERE \(related).\(PostgreSQLChangeFeed.quoted(relationship.destinationKey)) = "
            + "\(PostgreSQLFetchRequest.rowAlias).\(PostgreSQLChangeFeed.quoted(relationship.foreignKey)))"
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
