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
    /// the same parts at every step); with a batch size, the keys made straight from the
    /// statement's columns.
    func read(
        limit: Int?, after boundary: LoadBoundary<[DatabaseValue]>?, skipping held: (Int64) -> Bool, in db: Database
    ) throws -> OrderedRead<Row, [DatabaseValue]> {
        var collector = Collector(query: self, limit: limit, after: boundary)
        var sortKeyIndexes: [Int]?
        try forEachRow(limit: limit, after: boundary, in: db) { row, statement in
            collector.key.removeAll(keepingCapacity: true)
            if batching {
                let rowID = sqlite3_column_int64(statement.sqliteStatement, 0)
                let columns = StatementSortColumns(statement: statement.sqliteStatement, first: 1)
                encoding.append(columns, rowID: rowID, to: &collector.key)
                collector.take(rowID: rowID, held: held(rowID), value: columns.databaseValue)
            } else {
                let indexes =
                    sortKeyIndexes ?? SQLiteStore.sortKeyIndexes(of: descriptors, in: statement.columnNames)
                sortKeyIndexes = indexes
                let rowID: Int64 = row[row.count - 1]
                let values = SQLiteStore.sortValues(of: row, at: indexes)
                encoding.append(values, rowID: rowID, to: &collector.key)
                if collector.take(rowID: rowID, held: held(rowID), value: { values[$0] }) {
                    collector.read.loaded[rowID] = row.copy()
                }
            }
        }
        return collector.read
    }

    /// Appends the first `limit` rows after `boundary` to `copied`, their ids and sort values
    /// as SQLite returned them: a read ahead's share of
    /// ``read(limit:after:skipping:in:)``, the rest of which ``read(copied:limit:after:)`` does.
    /// Only with a batch size.
    func copyRows(
        limit: Int, after boundary: LoadBoundary<[DatabaseValue]>, in db: Database, into copied: inout CopiedSortRows
    ) throws {
        precondition(batching, "rows are copied only with a batch size")
        try forEachRow(limit: limit, after: boundary, in: db) { _, statement in
            let current = statement.sqliteStatement
            copied.append(StatementSortColumns(statement: current, first: 1), rowID: sqlite3_column_int64(current, 0))
        }
    }

    /// The read the rows ``copyRows(limit:after:in:into:)`` copied make, as
    /// ``read(limit:after:skipping:in:)`` would have made it.
    func read(
        copied: CopiedSortRows, limit: Int, after boundary: LoadBoundary<[DatabaseValue]>
    ) -> OrderedRead<Row, [DatabaseValue]> {
        var collector = Collector(query: self, limit: limit, after: boundary)
        copied.forEachRow { row, rowID in
            collector.key.removeAll(keepingCapacity: true)
            encoding.append(row, rowID: rowID, to: &collector.key)
            collector.take(rowID: rowID, held: false, value: row.databaseValue)
        }
        return collector.read
    }

    /// Where the read of `copied` stops, when it reached its `limit`: the next read starts
    /// after its last row. Worked out before the other rows' keys, so that the next read can
    /// start first.
    func boundary(after copied: CopiedSortRows, limit: Int) -> LoadBoundary<[DatabaseValue]>? {
        guard copied.count == limit else { return nil }
        return copied.withLastRow { row, rowID in
            var key: [UInt8] = []
            encoding.append(row, rowID: rowID, to: &key)
            return LoadBoundary(key: key, values: descriptors.indices.map(row.databaseValue), rowID: rowID)
        }
    }

    /// Runs the keyset parts after `boundary` in order, at most `limit` rows in all, and calls
    /// `body` on each row with the statement standing on it.
    private func forEachRow(
        limit: Int?, after boundary: LoadBoundary<[DatabaseValue]>?, in db: Database,
        _ body: (Row, Statement) throws -> Void
    ) throws {
        var count = 0
        let parts = boundary.map(keysetParts(after:)) ?? [("", StatementArguments())]
        for part in parts {
            let remaining = limit.map { $0 - count }
            if let remaining, remaining <= 0 { break }
            let conditions: [String] =
                (predicateSQL.isEmpty ? [] : ["(\(predicateSQL))"]) + (part.sql.isEmpty ? [] : [part.sql])
            let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let statement = try db.cachedStatement(
                sql: select + whereSQL + " ORDER BY \(orderBySQL)" + (remaining == nil ? "" : " LIMIT ?"))
            var arguments = predicateArguments + part.arguments
            if let remaining { arguments += [remaining] }
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try cursor.next() {
                count += 1
                try body(row, statement)
            }
        }
    }

    /// An ordered read as its rows arrive, each with its key made: the names of the sections
    /// they start, and the boundary the read stops at.
    private struct Collector {
        var read = OrderedRead<Row, [DatabaseValue]>()
        /// The key of the row being taken.
        var key: [UInt8] = []
        private var previousFirst: [UInt8]?
        private let limit: Int?
        private let keyCount: Int
        private let ascending: Bool
        private let sectioned: Bool

        init(query: SQLiteOrderedQuery, limit: Int?, after boundary: LoadBoundary<[DatabaseValue]>?) {
            self.limit = limit
            keyCount = query.descriptors.count
            ascending = query.descriptors.first?.ascending ?? true
            sectioned = query.sectioned
            previousFirst = boundary.map { SortKey.firstComponent(of: $0.key, ascending: ascending) }
        }

        /// Takes the next row, whose key is in `key`; `value` gives its sort values (read only
        /// for a section's first row and the row the read stops at). Returns whether the row was
        /// added: not when `held`.
        @discardableResult
        mutating func take(rowID: Int64, held: Bool, value: (Int) -> DatabaseValue) -> Bool {
            read.count += 1
            if sectioned, SortKey.replaceFirstComponent(&previousFirst, from: key, ascending: ascending) {
                read.sectionNames[rowID] = SQLiteStore.sectionName(of: value(0))
            }
            // The row a read stops at is where the next one starts.
            if read.count == limit {
                read.last = LoadBoundary(key: key, values: (0..<keyCount).map(value), rowID: rowID)
            }
            if held { return false }
            read.append(rowID: rowID, key: key)
            return true
        }
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
