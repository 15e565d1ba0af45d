/// Misuse of a fetched results controller, reported by ``FetchedResultsController/performFetch()``
/// instead of a crash.
public enum FetchedResultsError: Error, Equatable, CustomStringConvertible {
    /// The request has no sort descriptor, so there is no order to keep.
    case missingSortDescriptors(table: String)
    /// The section key path is not the first sort descriptor's key.
    case sectionKeyPathMismatch(sectionNameKeyPath: String, firstSortKey: String)

    /// A key path with more than one dot, or an empty part: only `relationship.column` is
    /// supported.
    case unsupportedKeyPath(keyPath: String)
    /// The first part of a key path names no declared relationship and no foreign key.
    case unknownRelationship(keyPath: String, table: String)
    /// The related table has no column with the key path's second part.
    case unknownRelatedColumn(keyPath: String, table: String)

    /// A sort descriptor uses a collation whose order the controller cannot reproduce in
    /// memory (only `BINARY` and `NOCASE` are supported).
    case unsupportedCollation(key: String, collation: String)
    /// The table has no row id (a `WITHOUT ROWID` table, or a view): rows are followed by row
    /// id, so such a table cannot be tracked.
    case tableWithoutRowID(table: String)

    public var description: String {
        switch self {
        case let .missingSortDescriptors(table):
            return "a fetched results controller needs a fetch request with at least one sort descriptor (table \"\(table)\" has none): add one, such as ColumnSortDescriptor(key: \"name\")"
        case let .sectionKeyPathMismatch(path, key):
            return "sections come from \"\(path)\" but the first sort descriptor sorts by \"\(key)\"; make the first sort descriptor sort by \"\(path)\" so that each section's rows are contiguous"
        case let .unsupportedKeyPath(keyPath):
            return "key path \"\(keyPath)\" is not supported: use a column (\"name\") or one to-one relationship and a column of its table (\"bucket.name\")"
        case let .unknownRelationship(keyPath, table):
            let name = keyPath.split(separator: ".").first.map(String.init) ?? keyPath
            return "key path \"\(keyPath)\": table \"\(table)\" has no to-one relationship \"\(name)\"; declare it in the request's relationships, such as ToOneRelationship(\"\(name)\", foreignKey: \"\(name)Id\", destinationTable: \"\(name)\"), or give the table a foreign key to that table's row id"
        case let .unsupportedCollation(key, collation):
            return "the sort descriptor on \"\(key)\" uses collation \(collation), whose order a fetched results controller cannot keep in memory: use .binary or .nocase"
        case let .tableWithoutRowID(table):
            return "table \"\(table)\" has no row id (a WITHOUT ROWID table or a view), and a fetched results controller follows rows by row id: fetch from a rowid table, or observe this one with GRDB's ValueObservation"
        case let .unknownRelatedColumn(keyPath, table):
            return "key path \"\(keyPath)\": the related table \"\(table)\" has no such column; check the name after the dot"
        }
    }
}
