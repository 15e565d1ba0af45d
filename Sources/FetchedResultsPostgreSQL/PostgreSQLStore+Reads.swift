import FetchedResults

#if canImport(Glibc)
    import Glibc
#endif

extension PostgreSQLStore {
    /// The request's SQL, made by ``prepare(_:sectionNameKeyPath:)``.
    var prepared: PostgreSQLQuery {
        guard let query else { preconditionFailure("a store reads after the controller prepared it") }
        return query
    }

    public func position(in connection: PostgreSQLConnection) throws -> PostgreSQLChangeFeed.Position {
        // A fetch from here sees every commit made so far, as a look does.
        lookIsDue = false
        return try PostgreSQLChangeFeed.currentPosition(in: connection)
    }

    /// Inside the caller's transaction: one query per keyset part; the whole order through a
    /// cursor (memory holds the keys and one batch of rows), a step's rows in one round trip.
    public func readOrdered(
        limit: Int?, after boundary: LoadBoundary<[String?]>?, skipping held: (Int64) -> Bool,
        in connection: PostgreSQLConnection
    ) throws -> OrderedRead<PostgreSQLRow, [String?]> {
        let query = prepared
        // With batches, the key and sort columns only, read in place; else every column.
        let columns = query.request.fetchBatchSize > 0 ? query.keysOnlySQL : query.fullRowSQL
        var taker = OrderedRowTaker(query: query, limit: limit, after: boundary, sectioned: sectionNameKeyPath != nil)
        let parts = boundary.map { keysetParts(after: $0) } ?? [("", [])]
        for part in parts {
            let remaining = limit.map { $0 - taker.read.count }
            if let remaining, remaining <= 0 { break }
            let conditions = [query.predicate.map { "(\($0.sql))" }, part.sql.isEmpty ? nil : part.sql].compactMap {
                $0
            }
            let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let sql = "SELECT \(columns) FROM \(query.fromSQL)\(whereSQL) ORDER BY \(query.orderBySQL)"
            let take = { (row: PostgreSQLRawRow) throws in try taker.take(row, isHeld: held) }
            // A step's few thousand rows in one round trip; every row through a cursor, a batch at a time.
            if let remaining {
                try connection.forEachRow(of: sql + " LIMIT \(remaining)", query.arguments + part.parameters, take)
            } else {
                try connection.forEachRow(throughCursor: sql, query.arguments + part.parameters, take)
            }
        }
        return taker.read
    }

    /// The rows after `boundary` in the request's order, as SQL conditions whose rows follow one
    /// another, each one range of an index on the sort keys (see `KeysetPlan`); the parameters
    /// follow the request's own.
    func keysetParts(after boundary: LoadBoundary<[String?]>) -> [(sql: String, parameters: [String?])] {
        let query = prepared
        return KeysetPlan.sql(
            ascending: query.sortKeys.map(\.descriptor.ascending), boundaryIsNull: boundary.values.map { $0 == nil }
        ) {
            PostgreSQLKeyset(query: query, boundary: boundary, parameters: KeysetParameters())
        }.map { ($0.sql, $0.dialect.parameters.values) }
    }

    // MARK: - Rows

    public func rows(
        _ rowIDs: [Int64], matching: Bool, in connection: PostgreSQLConnection
    ) throws -> [Int64: PostgreSQLRow] {
        guard !rowIDs.isEmpty else { return [:] }
        let query = prepared
        let result = try connection.execute(
            "SELECT \(query.fullRowSQL) FROM \(query.fromSQL)\(query.rowsAmongSQL(matching: matching))",
            query.argumentsAmong(rowIDs, matching: matching))
        return try keyedRows(result)
    }

    public func allRows(in connection: PostgreSQLConnection) throws -> [Int64: PostgreSQLRow] {
        let query = prepared
        var loaded: [Int64: PostgreSQLRow] = [:]
        var reader: RowReader?
        try connection.forEachRow(
            throughCursor: "SELECT \(query.fullRowSQL) FROM \(query.fromSQL)\(query.whereSQL)", query.arguments
        ) { row in
            let rowReader = reader ?? RowReader(columns: row.columns, query: query)
            reader = rowReader
            loaded[try rowReader.rowID(row)] = row.fullRow(columns: rowReader.columns)
        }
        return loaded
    }

    /// A result's rows by their id.
    func keyedRows(_ result: PostgreSQLRows) throws -> [Int64: PostgreSQLRow] {
        let query = prepared
        guard let keyIndex = result.columnIndex.index(of: query.keyColumn) else {
            throw FetchedResultsError.tableWithoutRowID(table: query.table)
        }
        var rows: [Int64: PostgreSQLRow] = [:]
        for values in result.rows {
            guard let id = values[keyIndex].flatMap(Int64.init) else {
                throw FetchedResultsError.rowIDUnreadable(table: query.table, column: query.keyColumn)
            }
            rows[id] = PostgreSQLRow(columns: result.columnIndex, values: values)
        }
        return rows
    }

    public func sectionName(ofRow rowID: Int64, in connection: PostgreSQLConnection) throws -> String {
        let query = prepared
        let column = query.request.sortDescriptors[0].key
        return try connection.execute(
            "SELECT \(query.expression(column)) FROM \(query.fromSQL)\(query.rowsAmongSQL(matching: false))",
            query.argumentsAmong([rowID], matching: false)
        ).scalar ?? ""
    }

    public func sectionName(of row: PostgreSQLRow) -> String {
        row[prepared.request.sortDescriptors[0].key] ?? ""
    }

    public func key(of row: PostgreSQLRow, rowID: Int64) -> [UInt8] {
        var key: [UInt8] = []
        for sortKey in prepared.sortKeys { sortKey.appendValue(row[sortKey.descriptor.key], to: &key) }
        SortKey.appendRowID(rowID, to: &key)
        return key
    }

    public func changedColumns(from old: PostgreSQLRow?, to new: PostgreSQLRow) -> Set<String> {
        guard let old, old.columns == new.columns else { return Set(new.columns.names) }
        return Set(new.values.indices.filter { old.values[$0] != new.values[$0] }.map { new.columns.names[$0] })
    }

    public func allColumns(in connection: PostgreSQLConnection) throws -> Set<String> {
        let query = prepared
        let names = try connection.execute(
            """
            SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped
            """, [query.quotedTable]
        ).rows.compactMap { $0[0] }
        return Set(names + query.related.map(\.keyPath))
    }
}

/// Reads row ids, sort keys and section names from rows of one result, whose columns it
/// locates once. A class: a read takes it for every row, without copying its arrays.
final class RowReader {
    let columns: PostgreSQLColumns
    let keyIndex: Int
    let sortIndexes: [Int]
    let sortKeys: [PostgreSQLSortKey]
    let table: String
    let keyColumn: String

    init(columns names: [String], query: PostgreSQLQuery) {
        let columns = PostgreSQLColumns(names)
        self.columns = columns
        keyIndex = columns.index(of: query.keyColumn) ?? -1
        sortIndexes = query.sortKeys.map { columns.index(of: $0.descriptor.key) ?? -1 }
        sortKeys = query.sortKeys
        table = query.table
        keyColumn = query.keyColumn
    }

    /// The row's id; a row without one is an error, never row 0.
    func rowID(_ row: PostgreSQLRawRow) throws -> Int64 {
        guard keyIndex >= 0, let text = row.cString(keyIndex) else {
            throw FetchedResultsError.rowIDUnreadable(table: table, column: keyColumn)
        }
        var end: UnsafeMutablePointer<CChar>?
        errno = 0
        let value = strtoll(text, &end, 10)
        guard errno == 0, let end, end.pointee == 0, end != UnsafeMutablePointer(mutating: text) else {
            throw FetchedResultsError.rowIDUnreadable(table: table, column: keyColumn)
        }
        return Int64(value)
    }

    func appendKey(_ row: PostgreSQLRawRow, rowID: Int64, to key: inout [UInt8]) {
        for (index, sortKey) in zip(sortIndexes, sortKeys) {
            let text = index >= 0 ? row.cString(index) : nil
            sortKey.appendValue(text, length: text == nil ? 0 : row.length(index), to: &key)
        }
        SortKey.appendRowID(rowID, to: &key)
    }

    func sectionName(_ row: PostgreSQLRawRow) -> String { (sortIndexes[0] >= 0 ? row.text(sortIndexes[0]) : nil) ?? "" }

    /// The row's sort values as the server sent them (nil for NULL).
    func sortValues(_ row: PostgreSQLRawRow) -> [String?] { sortIndexes.map { $0 >= 0 ? row.text($0) : nil } }
}

/// Keyset conditions in PostgreSQL's SQL: values compared as the order compares them, as
/// parameters numbered after the request's own.
struct PostgreSQLKeyset: KeysetPlan.Dialect {
    let query: PostgreSQLQuery
    let boundary: LoadBoundary<[String?]>
    /// The parameters written so far: one part's, or every part's when the parts are one statement.
    let parameters: KeysetParameters

    private var nextParameter: Int { query.arguments.count + parameters.values.count }

    func compare(key: Int, _ operator: String) -> String {
        parameters.values.append(boundary.values[key])
        let sortKey = query.sortKeys[key]
        return sortKey.comparisonSQL(on: query.expression(sortKey.descriptor.key), `operator`, parameter: nextParameter)
    }

    func key(_ key: Int, isNull null: Bool) -> String {
        "\(query.expression(query.sortKeys[key].descriptor.key)) IS \(null ? "" : "NOT ")NULL"
    }

    func rowIDGreater() -> String {
        parameters.values.append(String(boundary.rowID))
        return "\(query.expression(query.keyColumn)) > $\(nextParameter)"
    }
}

/// The parameters of keyset conditions, shared by the dialects that write them.
final class KeysetParameters {
    var values: [String?] = []
}
