/// One sort key: a column, a direction and how text compares (Core Data's `NSSortDescriptor`).
///
/// The same descriptor means the same order on every store, and the controller keeps exactly
/// that order in memory (as sort keys of bytes):
/// - NULL first when ascending, last when descending;
/// - numbers by value, integers and reals compared exactly;
/// - text by its UTF-8 bytes (``Collation/binary``: SQLite's `BINARY`, PostgreSQL's
///   `COLLATE "C"`), or with ASCII letters folded (``Collation/caseInsensitive``: SQLite's
///   `NOCASE`, PostgreSQL's `lower(… COLLATE "C")`);
/// - the row id last, so that no two rows compare equal.
///
/// ```swift
/// let standings: [ColumnSortDescriptor] = [
///     .ascending("qualifyingZone", collation: .caseInsensitive),
///     .descending("wins"),
///     .ascending("teamName", collation: .caseInsensitive),
/// ]
/// ```
///
/// Columns may be named by typed names too (GRDB's `Column`, a record's `CodingKeys`): see
/// ``ColumnNameRepresentable``.
public struct ColumnSortDescriptor: Sendable, Hashable {
    /// How text values compare.
    public enum Collation: Sendable, Hashable {
        /// Byte by byte: SQLite's `BINARY`, PostgreSQL's `COLLATE "C"`.
        case binary
        /// With ASCII letters folded, and every other byte as it is: SQLite's `NOCASE`, and on
        /// PostgreSQL `lower(… COLLATE "C")`, which folds ASCII only.
        case caseInsensitive
    }

    /// A column of the fetched table, or a key path across a to-one relationship (`zone.name`,
    /// see ``ToOneRelationship``).
    public var key: String
    /// Smallest first when true.
    public var ascending: Bool
    /// How text values compare.
    public var collation: Collation

    /// A sort key on `key`, ascending and byte-ordered unless said.
    public init(key: String, ascending: Bool = true, collation: Collation = .binary) {
        self.key = key
        self.ascending = ascending
        self.collation = collation
    }

    /// A sort key on a column named by a string or a typed name (see ``ColumnNameRepresentable``).
    public init(_ key: some ColumnNameRepresentable, ascending: Bool = true, collation: Collation = .binary) {
        self.init(key: key.columnName, ascending: ascending, collation: collation)
    }

    /// Smallest first.
    public static func ascending(_ key: some ColumnNameRepresentable, collation: Collation = .binary) -> Self {
        Self(key: key.columnName, ascending: true, collation: collation)
    }

    /// Largest first.
    public static func descending(_ key: some ColumnNameRepresentable, collation: Collation = .binary) -> Self {
        Self(key: key.columnName, ascending: false, collation: collation)
    }

    /// Whether text compares with ASCII letters folded.
    public var foldsCase: Bool { collation == .caseInsensitive }
}
