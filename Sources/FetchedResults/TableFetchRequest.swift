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
    public var key: String
    public var ascending: Bool
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

    public init(
        table: String,
        predicate: String? = nil,
        arguments: [DatabaseValue] = [],
        sortDescriptors: [ColumnSortDescriptor] = [],
        fetchLimit: Int = 0,
        fetchOffset: Int = 0,
        fetchBatchSize: Int = 0
    ) {
        self.table = table
        self.predicate = predicate
        self.predicateArguments = arguments
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
    }

    /// The `ORDER BY` clause equivalent to the in-memory order.
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
