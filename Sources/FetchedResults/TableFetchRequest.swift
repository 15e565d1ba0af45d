import GRDB

/// How text is compared, mirroring SQLite's built-in collations so that the order kept in memory
/// is exactly the order of the store's `ORDER BY`.
public enum Collation: String, Sendable, Hashable {
    /// Byte-wise comparison of UTF-8 (SQLite's default).
    case binary = "BINARY"
    /// Like `binary`, but ASCII letters compare case-insensitively (SQLite's `NOCASE`).
    case noCase = "NOCASE"
}

/// One sort key: a column, a direction and a text collation (Core Data's `NSSortDescriptor`).
public struct ColumnSortDescriptor: Sendable, Hashable {
    /// A column of the fetched table, or a key path across a to-one relationship
    /// (`bucket.name`, see ``ToOneRelationship``).
    public var key: String
    /// Smallest first when true.
    public var ascending: Bool
    /// How text values compare.
    public var collation: Collation

    public init(key: String, ascending: Bool = true, collation: Collation = .binary) {
        self.key = key
        self.ascending = ascending
        self.collation = collation
    }
}

/// What to fetch: a table, an optional predicate, and the order (Core Data's `NSFetchRequest`).
///
/// The order is made total by a final tie-break on the row id, so two rows never compare equal
/// and every row has exactly one place.
public struct TableFetchRequest: Sendable, Hashable {
    /// The table to fetch from. It must be a rowid table.
    public var table: String
    /// An SQL boolean expression over the table's columns, or `nil` for every row.
    public var predicate: String?
    /// Values for the `?` placeholders of `predicate`.
    public var predicateArguments: [DatabaseValue]
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
    /// the fetched rows that refer to them (seed 001's `relationshipKeyPathsForRefreshing`): a
    /// committed change to that column of a related row, or the insertion or deletion of a
    /// related row, is reported as an `update` of every fetched row referring to it. Each
    /// fetched row carries the related value as a column named after the key path.
    ///
    /// For changes made by other connections or processes to be seen, install
    /// ``ChangeHistory`` on the related tables too. The fetched table should have an index on
    /// the foreign key, or each related change scans the table.
    public var relationshipKeyPathsForRefreshing: Set<String>

    public init(
        table: String,
        predicate: String? = nil,
        arguments: [DatabaseValue] = [],
        sortDescriptors: [ColumnSortDescriptor] = [],
        fetchLimit: Int = 0,
        fetchOffset: Int = 0,
        fetchBatchSize: Int = 0,
        relationships: [ToOneRelationship] = [],
        relationshipKeyPathsForRefreshing: Set<String> = []
    ) {
        self.table = table
        self.predicate = predicate
        self.predicateArguments = arguments
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
        self.relationships = relationships
        self.relationshipKeyPathsForRefreshing = relationshipKeyPathsForRefreshing
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
        (sortDescriptors.map {
            "\($0.key.quotedDatabaseIdentifier) COLLATE \($0.collation.rawValue)\($0.ascending ? "" : " DESC")"
        } + ["rowid"]).joined(separator: ", ")
    }

    /// The `WHERE` clause (with its leading keyword), or an empty string.
    var whereSQL: String {
        predicate.map { "WHERE (\($0))" } ?? ""
    }
}
