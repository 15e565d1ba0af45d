/// A request a fetched results controller cannot follow, or an object it cannot give, reported
/// with what to do instead of a crash.
public enum FetchedResultsError: Error, Equatable, CustomStringConvertible {
    /// The request has no sort descriptor, so there is no order to keep.
    case missingSortDescriptors(table: String)
    /// The section key path is not the first sort descriptor's key.
    case sectionKeyPathMismatch(sectionNameKeyPath: String, firstSortKey: String)
    /// A key path with more than one dot, or an empty part: only `relationship.column` is
    /// supported.
    case unsupportedKeyPath(keyPath: String)
    /// The first part of a key path names no relationship of the request (nor, on SQLite, a
    /// foreign key).
    case unknownRelationship(keyPath: String, table: String)
    /// The related table has no column with the key path's second part.
    case unknownRelatedColumn(keyPath: String, table: String)
    /// The table has no row id (a view, or a `WITHOUT ROWID` table on SQLite; no such id column
    /// on PostgreSQL): rows are followed by id.
    case tableWithoutRowID(table: String)
    /// The table's id column is of a type that is not a 64-bit integer (a `uuid`, `text`…), so
    /// rows cannot be followed by it.
    case unsupportedRowIDType(table: String, column: String, type: String)
    /// A row's id could not be read as a 64-bit integer.
    case rowIDUnreadable(table: String, column: String)
    /// A sort descriptor's key names no column of the table (nor a relationship's key path).
    case unknownColumn(key: String, table: String)
    /// A sort key's column has a type whose order the controller cannot keep in memory.
    case unsupportedSortType(key: String, type: String)
    /// Following changes needs the table's change feed, which its owner installs once.
    case changeFeedMissing(table: String, installation: String)
    /// The request's ``TextFilter`` names no sort descriptor, or one this store cannot match
    /// text in (a key path across a relationship, a column that is not text, a store that does
    /// not filter text); `reason` says which.
    case textFilterUnsupported(key: String, reason: String)
    /// The request's predicate is of another store's kind.
    case predicateForAnotherStore(predicate: String, expected: String)
    /// The object's row was deleted from the store before it could be read (with a batch size,
    /// until that deletion is processed).
    case objectDeleted(rowID: Int64)
    /// A method that changes the results (a write, a look, a fetch) was called from inside a
    /// change callback, while the controller delivers a change set: the results the callbacks
    /// describe must not change under them.
    case calledInsideCallback(method: String)
    /// The controller has a cache name, but its store keeps no cache file.
    case cacheUnsupported(store: String)
    /// A write's closure takes another store's connection than the controller's store gives.
    case writeContextMismatch(given: String, expected: String)

    public var description: String {
        switch self {
        case let .missingSortDescriptors(table):
            return "a fetched results controller needs a fetch request with at least one sort descriptor "
                + "(table \"\(table)\" has none): add one, such as ColumnSortDescriptor(key: \"name\")"
        case let .sectionKeyPathMismatch(path, key):
            return
                "sections come from \"\(path)\" but the first sort descriptor sorts by \"\(key)\"; make the first sort "
                + "descriptor sort by \"\(path)\" so that each section's rows are contiguous"
        case let .unsupportedKeyPath(keyPath):
            return "key path \"\(keyPath)\" is not supported: use a column (\"name\") or one to-one "
                + "relationship and a column of its table (\"zone.name\")"
        case let .unknownRelationship(keyPath, table):
            let name = keyPath.split(separator: ".").first.map(String.init) ?? keyPath
            return
                "key path \"\(keyPath)\": table \"\(table)\" has no to-one relationship \"\(name)\"; declare it in the "
                + "request's relationships, such as ToOneRelationship(\"\(name)\", foreignKey: \"\(name)Id\", "
                + "destinationTable: \"\(name)\")"
        case let .unknownRelatedColumn(keyPath, table):
            return "key path \"\(keyPath)\": the related table \"\(table)\" has no such column; "
                + "check the name after the dot"
        case let .tableWithoutRowID(table):
            return
                "\"\(table)\" has no row id, and a fetched results controller follows rows by id: it is a view or a "
                + "WITHOUT ROWID table, or on PostgreSQL a table without the id column. Fetch from a table that has "
                + "one (for a view, from its table, with a predicate for the view's condition), or name the table's "
                + "integer key column in the request's rowIDColumn"
        case let .unsupportedRowIDType(table, column, type):
            return
                "the id column \"\(column)\" of table \"\(table)\" is of type \(type), not a 64-bit integer, and a fetched "
                + "results controller follows rows by such an id: give the table a bigint (or integer) key column, "
                + "or name one it has in the request's rowIDColumn"
        case let .rowIDUnreadable(table, column):
            return "a row of \"\(table)\" has a \"\(column)\" that is not a 64-bit integer, and a fetched results "
                + "controller follows rows by that id: make the column a non-NULL bigint (integer) key"
        case let .unknownColumn(key, table):
            return "a sort descriptor sorts by \"\(key)\", but table \"\(table)\" has no column of that name: "
                + "check the key against the table's columns (or, for a related table's column, declare the "
                + "relationship and sort by \"relationship.column\")"
        case let .unsupportedSortType(key, type):
            return "the sort descriptor on \"\(key)\" sorts a column of type \(type), whose order a fetched results "
                + "controller cannot keep in memory: sort by an integer, real, text or binary column"
        case let .changeFeedMissing(table, installation):
            return
                "\(table) has no change feed, which following its changes needs: as its owner, run \(installation) once"
        case let .textFilterUnsupported(key, reason):
            return "the fetch request's text filter on \(key) cannot be applied: \(reason); filter on a text column "
                + "of the fetched table, or use a predicate"
        case let .predicateForAnotherStore(predicate, expected):
            return "the fetch request's predicate is a \(predicate), which this store cannot run: give it a \(expected)"
        case let .calledInsideCallback(method):
            return "\(method) was called from inside a change callback, while the controller was delivering a change "
                + "set; the results must not change under the callbacks: call it once the callback has returned "
                + "(after controllerDidChangeContent, say, or from the app's next turn of its loop)"
        case let .cacheUnsupported(store):
            return "the store \(store) keeps no cache file, which a cacheName asks for: leave cacheName nil, or give "
                + "the store a cacheValidity(in:)"
        case let .writeContextMismatch(given, expected):
            return "write(_:) was given a closure that takes a \(given), but this controller's store writes with a "
                + "\(expected): take a \(expected) (a store module's own write, such as GRDB's Database on SQLite)"
        case let .objectDeleted(rowID):
            return
                "the row with id \(rowID) was deleted from the store before it could be read; the controller reports "
                + "its deletion at its next processPendingChanges()"
        }
    }
}
