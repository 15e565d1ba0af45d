/// What a results controller fetches and in which order (Core Data's `NSFetchRequest`): the rows
/// of one table that match an optional predicate, sorted by its descriptors, with Core Data's
/// limit, offset and batch size. The same request describes the same results on every store;
/// each store derives its SQL from it.
///
/// ```swift
/// let request = TableFetchRequest(table: "team", sortDescriptors: [
///     .ascending("qualifyingZone", collation: .caseInsensitive),
///     .descending("wins"),
///     .ascending("teamName", collation: .caseInsensitive),
/// ], fetchBatchSize: 100)
/// ```
///
/// The order is made total by a final tie-break on the row id, so two rows never compare equal
/// and every row has exactly one place.
public struct TableFetchRequest: Sendable {
    /// The table whose rows are fetched.
    public var table: String
    /// The column holding each row's id, a 64-bit integer unique in the table, which identifies
    /// rows in index paths and changes and breaks ties in the order. Nil: SQLite's `rowid`, or
    /// a column named `id` on PostgreSQL.
    public var rowIDColumn: String?
    /// A condition on the rows, in the SQL of the store that runs it (`SQLitePredicate`,
    /// `PostgreSQLPredicate`), or nil for every row.
    public var predicate: (any FetchPredicate)?
    /// Only the rows whose text value of one sort descriptor contains some characters, besides
    /// the predicate (nil: no such condition). Unlike a predicate, the controller understands
    /// it, and narrows its results in memory when a filter narrows the one before: see
    /// ``TextFilter``.
    public var textFilter: TextFilter?
    /// At least one; `performFetch()` throws without one. The first one groups rows into
    /// sections, when there are sections.
    public var sortDescriptors: [ColumnSortDescriptor]
    /// At most this many objects (0: no limit).
    public var fetchLimit: Int
    /// Skip this many objects of the ordered result.
    public var fetchOffset: Int
    /// With a batch size (> 0), the controller holds only row ids and sort keys for every row,
    /// and loads full rows this many at a time as they are asked for (Core Data's
    /// `fetchBatchSize`). 0 loads every row with the fetch.
    public var fetchBatchSize: Int
    /// To-one relationships that key paths such as `zone.name` may cross.
    public var relationships: [ToOneRelationship]
    /// Key paths across to-one relationships (`zone.name`) whose changes count as changes of the
    /// fetched rows that refer to them (Core Data's relationship key paths for refreshing): a
    /// change to that column of a related row, or the insertion or deletion of a related row, is
    /// reported as an `update` of every fetched row referring to it. Each fetched row carries the
    /// related value as a column named after the key path.
    public var relationshipKeyPathsForRefreshing: Set<String>

    /// A request for the rows of `table` in the order of `sortDescriptors`.
    public init(
        table: String,
        rowIDColumn: String? = nil,
        predicate: (any FetchPredicate)? = nil,
        sortDescriptors: [ColumnSortDescriptor] = [],
        fetchLimit: Int = 0,
        fetchOffset: Int = 0,
        fetchBatchSize: Int = 0,
        relationships: [ToOneRelationship] = [],
        relationshipKeyPathsForRefreshing: Set<String> = []
    ) {
        self.table = table
        self.rowIDColumn = rowIDColumn
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
        self.relationships = relationships
        self.relationshipKeyPathsForRefreshing = relationshipKeyPathsForRefreshing
    }

    /// Every key path with a dot among the sort keys, the section key path and the key paths
    /// for refreshing: those that cross a relationship.
    public func keyPathsAcrossRelationships(sectionNameKeyPath: String?) -> Set<String> {
        Set(sortDescriptors.map(\.key) + [sectionNameKeyPath].compactMap { $0 } + relationshipKeyPathsForRefreshing)
            .filter { $0.contains(".") }
    }

    /// How the request cuts its rows into visible sections.
    func shape(sectioned: Bool) -> ResultsShape {
        ResultsShape(
            fetchOffset: fetchOffset, fetchLimit: fetchLimit, isSectioned: sectioned,
            firstKeyAscending: sortDescriptors.first?.ascending ?? true)
    }
}

/// A condition on the fetched rows, in the SQL of the store that runs it: each store accepts
/// its own kind (`SQLitePredicate` on SQLite, `PostgreSQLPredicate` on PostgreSQL) and refuses
/// another's with ``FetchedResultsError/predicateForAnotherStore(predicate:expected:)``. Values travel as the
/// store's parameters, never inside the SQL text.
public protocol FetchPredicate: Sendable {}

/// A to-one relationship from the fetched table to a row of another table, through a column
/// that holds the related row's id (Core Data's to-one relationship, as a foreign key).
///
/// Key paths such as `zone.name` name a relationship and a column of the related table. A
/// request may use them as sort keys (so also as the section key path) and as
/// ``TableFetchRequest/relationshipKeyPathsForRefreshing``. For changes to related rows to be seen,
/// the related table needs the store's change feed too.
public struct ToOneRelationship: Sendable, Hashable {
    /// The name key paths use: `zone` in `zone.name`.
    public var name: String
    /// The fetched table's column holding the related row's id.
    public var foreignKey: String
    /// The related table.
    public var destinationTable: String
    /// The related table's id column; nil: SQLite's `rowid`, or `id` on PostgreSQL.
    public var destinationKey: String?

    /// - Parameters:
    ///   - name: the first part of the key paths that cross this relationship.
    ///   - foreignKey: the fetched table's column holding the related row's id.
    ///   - destinationTable: the related table.
    ///   - destinationKey: the related table's id column (nil: the store's default).
    public init(
        _ name: String, foreignKey: some ColumnNameRepresentable, destinationTable: String,
        destinationKey: String? = nil
    ) {
        self.name = name
        self.foreignKey = foreignKey.columnName
        self.destinationTable = destinationTable
        self.destinationKey = destinationKey
    }
}
