import FetchedResults
import GRDB
import GRDBSQLite

/// A request's ordered read (``SQLiteStore/readOrdered(limit:after:skipping:in:)``) as a value
/// made once by `prepare`: everything the read needs from the store, so that a read ahead can run
/// it on another thread's connection while the store goes on.
struct SQLiteOrderedQuery: Sendable {
    let descriptors: [ColumnSortDescriptor]
    /// The select of row ids and sort values (with a batch size), or of whole rows.
    let select: String
    let predicateSQL: String
    let predicateArguments: StatementArguments
    let orderBySQL: String
    let encoding: SortKeyEncoding
    /// With a batch size: ids and sort values only, which SQLite can answer from an index on the
    /// sort keys.
    let batching: Bool
    let sectioned: Bool

    /// An empty query, before any `prepare`.
    init() {
        self.init(
            descriptors: [], select: "", predicateSQL: "", predicateArguments: [], orderBySQL: "", batching: false,
            sectioned: false)
    }

    init(
        descriptors: [ColumnSortDescriptor], select: String, predicateSQL: String,
        predicateArguments: StatementArguments, orderBySQL: String, batching: Bool, sectioned: Bool
    ) {
        self.descriptors = descriptors
        self.select = select
        self.predicateSQL = predicateSQL
        self.predicateArguments = predicateArguments
        self.orderBySQL = orderBySQL
        self.encoding = SortKeyEncoding(descriptors: descriptors)
        self.batching = batching
        self.sectioned = sectioned
    }

    /// One ordered statement per keyset part, each a cached statement (a progressive load runs
    /// the same parts at every step), the keys made straight from the statement's columns.
    func read(
        limit: Int?, after boundary: LoadBoundary<[DatabaseValue]>?, skipping held: (Int64) -> Bool, in db: Database
    ) throws -> OrderedRead<Row, [DatabaseValue]> {
        var read = OrderedRead<Row, [DatabaseValue]>()
        var key: [UInt8] = []
        let ascending = descriptors.first?.ascending ?? true
        var previousFirst: [UInt8]? = boundary.map { SortKey.firstComponent(of: $0.key, ascending: ascending) }
        let parts = boundary.map(keysetParts(after:)) ?? [("", StatementArguments())]
        for part in parts {
            let remaining = limit.map { $0 - read.count }
            if let remaining, remaining <= 0 { break }
            let conditions: [String] =
                (predicateSQL.isEmpty ? [] : ["(\(predicateSQL))"]) + (part.sql.isEmpty ? [] : [part.sql])
            let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let statement = try db.cachedStatement(
                sql: select + whereSQL + " ORDER BY \(orderBySQL)" + (remaining == nil ? "" : " LIMIT ?"))
            var arguments = predicateArguments + part.arguments
            if let remaining { arguments += [remaining] }
            let sortKeyIndexes = batching ? [] : SQLiteStore.sortKeyIndexes(of: descriptors, in: statement.columnNames)
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            let current = statement.sqliteStatement
            while let row = try cursor.next() {
                read.count += 1
                let rowID: Int64 = batching ? sqlite3_column_int64(current, 0) : row[row.count - 1]
                key.removeAll(keepingCapacity: true)
                // Straight from the statement: GRDB's values (a string per text) cost more than
                // the rest of the load.
                if batching {
                    encoding.append(columnsOf: current, from: 1, rowID: rowID, to: &key)
                } else {
                    encoding.append(SQLiteStore.sortValues(of: row, at: sortKeyIndexes), rowID: rowID, to: &key)
                }
                if sectioned, SortKey.replaceFirstComponent(&previousFirst, from: key, ascending: ascending) {
                    read.sectionNames[rowID] = SQLiteStore.sectionName(
                        of: sortValue(0, of: row, indexes: sortKeyIndexes))
                }
                // The row a read stops at is where the next one starts.
                if read.count == limit {
                    let values = descriptors.indices.map { sortValue($0, of: row, indexes: sortKeyIndexes) }
                    read.last = LoadBoundary(key: key, values: values, rowID: rowID)
                }
                if held(rowID) { continue }
                read.append(rowID: rowID, key: key)
                if !batching { read.loaded[rowID] = row.copy() }
            }
        }
        return read
    }

    /// Sort value `index` of the row a statement of ``read(limit:after:skipping:in:)`` is on.
    private func sortValue(_ index: Int, of row: Row, indexes: [Int]) -> DatabaseValue {
        if batching { return row[index + 1] }
        return indexes[index] >= 0 ? row[indexes[index]] : .null
    }

    /// The rows after `boundary` in the request's order, as SQL conditions whose rows follow one
    /// another, each one range of an index on the sort keys (see `KeysetPlan`).
    func keysetParts(after boundary: LoadBoundary<[DatabaseValue]>) -> [(sql: String, arguments: StatementArguments)] {
        KeysetPlan.sql(ascending: descriptors.map(\.ascending), boundaryIsNull: boundary.values.map(\.isNull)) {
            SQLiteKeyset(descriptors: descriptors, boundary: boundary)
        }.map { ($0.sql, StatementArguments(values: $0.dialect.arguments)) }
    }
}

/// Keyset conditions in SQLite's SQL: values compared under their column's collation.
struct SQLiteKeyset: KeysetPlan.Dialect {
    let descriptors: [ColumnSortDescriptor]
    let boundary: LoadBoundary<[DatabaseValue]>
    var arguments: [DatabaseValue] = []

    mutating func compare(key: Int, _ operator: String) -> String {
        arguments.append(boundary.values[key])
        let collation = descriptors[key].collation == .caseInsensitive ? "NOCASE" : "BINARY"
        return "\(descriptors[key].key.quotedDatabaseIdentifier) \(`operator`) ? COLLATE \(collation)"
    }

    func key(_ key: Int, isNull null: Bool) -> String {
        "\(descriptors[key].key.quotedDatabaseIdentifier) IS \(null ? "" : "NOT ")NULL"
    }

    mutating func rowIDGreater() -> String {
        arguments.append(boundary.rowID.databaseValue)
        return "rowid > ?"
    }
}
